// Where the bytes of a wasm module go: code size per function, grouped by crate and by
// kind (serde deserialisation, formatting, ...), from the module's `name` section.
// Run it on a cargo output (before wasm-opt strips the names), e.g.
//   node scripts/wasm-size-breakdown.mjs $CARGO_TARGET_DIR/wasm32-unknown-unknown/wasm/podplan_wasm.wasm [--top N]
// Sizes are of the unoptimised bodies; wasm-opt shrinks all of them, roughly evenly.
import { readFileSync } from "node:fs";

const file = process.argv[2];
const topIndex = process.argv.indexOf("--top");
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 30;
const buf = readFileSync(file);
let pos = 8;
const u32 = () => {
  let result = 0, shift = 0, byte;
  do {
    byte = buf[pos++];
    result += (byte & 0x7f) * 2 ** shift;
    shift += 7;
  } while (byte & 0x80);
  return result;
};
const str = () => {
  const n = u32();
  const s = buf.toString("utf8", pos, pos + n);
  pos += n;
  return s;
};

let imported = 0;
const bodies = []; // sizes of defined functions
const names = new Map();
const sections = [];
let dataBytes = 0;
while (pos < buf.length) {
  const id = buf[pos++];
  const size = u32();
  const start = pos;
  const end = pos + size;
  let label = String(id);
  if (id === 0) {
    label = "custom:" + str();
    if (label === "custom:name") {
      while (pos < end) {
        const sub = buf[pos++];
        const subSize = u32();
        const subEnd = pos + subSize;
        if (sub === 1) {
          const count = u32();
          for (let i = 0; i < count; i++) names.set(u32(), str());
        }
        pos = subEnd;
      }
    }
  } else if (id === 2) {
    const count = u32();
    for (let i = 0; i < count; i++) {
      str(); str();
      const kind = buf[pos++];
      if (kind === 0) { u32(); imported++; }
      else if (kind === 1) { pos++; const f = buf[pos++]; u32(); if (f & 1) u32(); }
      else if (kind === 2) { const f = buf[pos++]; u32(); if (f & 1) u32(); }
      else if (kind === 3) { pos += 2; }
    }
  } else if (id === 10) {
    const count = u32();
    for (let i = 0; i < count; i++) {
      const n = u32();
      bodies.push(n);
      pos += n;
    }
  } else if (id === 11) {
    dataBytes = size;
  }
  sections.push([label, size]);
  pos = end;
}

// Legacy Rust mangling (_ZN...E) to a path; v0 and C names are kept as they are.
function demangle(name) {
  if (!name.startsWith("_ZN")) return name;
  let i = 3;
  const parts = [];
  while (i < name.length && name[i] !== "E") {
    let n = 0;
    while (name[i] >= "0" && name[i] <= "9") n = n * 10 + Number(name[i++]);
    if (n === 0) break;
    parts.push(name.slice(i, i + n));
    i += n;
  }
  if (parts.length && /^h[0-9a-f]{16}$/.test(parts.at(-1))) parts.pop();
  return parts
    .join("::")
    .replace(/\$LT\$/g, "<").replace(/\$GT\$/g, ">").replace(/\$u20\$/g, " ")
    .replace(/\$RF\$/g, "&").replace(/\$C\$/g, ",").replace(/\.\./g, "::")
    .replace(/\$u7b\$/g, "{").replace(/\$u7d\$/g, "}").replace(/\$BP\$/g, "*")
    .replace(/\$u5b\$/g, "[").replace(/\$u5d\$/g, "]").replace(/\$u27\$/g, "'");
}

function crateOf(path) {
  // `<T as Trait>::method`: the crate whose type it is; v0 names: the first crate named.
  const v0 = path.match(/^_R.*?Cs[0-9A-Za-z_]+_(\d+)([a-z_][a-z0-9_]*)/);
  if (v0) return v0[2].slice(0, Number(v0[1]));
  const m = path.replace(/^_/, "").match(/^[<&*]*(?:mut |const |dyn )?\[?([a-z_][a-z0-9_]*)::/);
  if (m) return m[1];
  const first = path.replace(/^_/, "").split("::")[0];
  return /^[a-z_][a-z0-9_]*$/.test(first) ? first : "(other)";
}

function kindOf(path) {
  if (/Deserialize|Visitor|deserialize|MapAccess|SeqAccess|de::/.test(path)) return "deserialise";
  if (/Serialize|serialize|ser::/.test(path)) return "serialise";
  if (/fmt|Display|Debug|format/.test(path)) return "formatting";
  if (/drop_in_place/.test(path)) return "drop glue";
  if (/clone|Clone/.test(path)) return "clone";
  if (/alloc|RawVec|dlmalloc/.test(path)) return "allocation";
  return "other";
}

const byCrate = new Map();
const byKind = new Map();
const functions = [];
let code = 0;
bodies.forEach((size, i) => {
  const raw = names.get(i + imported) ?? `func[${i + imported}]`;
  const path = demangle(raw);
  code += size;
  functions.push([size, path]);
  for (const [map, key] of [[byCrate, crateOf(path)], [byKind, kindOf(path)]]) {
    const e = map.get(key) ?? { size: 0, count: 0 };
    e.size += size;
    e.count += 1;
    map.set(key, e);
  }
});

const kb = (n) => (n / 1024).toFixed(1).padStart(8) + " KiB";
const pct = (n, of) => ((100 * n) / of).toFixed(1).padStart(5) + " %";
console.log(`${file}\n\nsections:`);
for (const [label, size] of sections.sort((a, b) => b[1] - a[1])) console.log(`  ${label.padEnd(28)} ${kb(size)}`);
console.log(`\ncode: ${kb(code)} in ${bodies.length} functions; data: ${kb(dataBytes)}`);
for (const [title, map] of [["by crate", byCrate], ["by kind", byKind]]) {
  console.log(`\n${title}:`);
  for (const [key, e] of [...map].sort((a, b) => b[1].size - a[1].size).slice(0, 20))
    console.log(`  ${key.padEnd(24)} ${kb(e.size)} ${pct(e.size, code)}  ${String(e.count).padStart(6)} functions`);
}
console.log(`\nlargest ${top} functions:`);
for (const [size, path] of functions.sort((a, b) => b[0] - a[0]).slice(0, top))
  console.log(`  ${kb(size)}  ${path.slice(0, 150)}`);
