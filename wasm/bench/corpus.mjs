// Times the request corpus (every action vector's request, vendored and the project's
// own) through the built modules in Node, and prints one JSON line per module:
//
//   js   the wasm-bindgen build (pkg/node, size-optimised), `planJson(text)`
//   abi  the plain ABI module (pkg/abi, speed-optimised), one warm instance, buffers
//        freed after each call (what a Node server embedding the ABI module does)
//
// Usage: node wasm/bench/corpus.mjs [--seconds S] [--only js|abi] [--abi FILE]
// CPU time per request is process.cpuUsage() over the measured loop (one warm-up pass
// first); answers are checked to be equal between the two modules.
import { createRequire } from "node:module";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const seconds = Number(opt("--seconds", "2"));
const only = opt("--only", "");

function vectors(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? vectors(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : [],
  );
}
const requests = ["conformance/actions", "core/tests/vectors/actions"]
  .map((d) => path.join(root, d))
  .filter((d) => existsSync(d))
  .flatMap((d) => vectors(d).sort())
  .map((f) => JSON.stringify(JSON.parse(readFileSync(f, "utf8")).request));
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const requestBytes = requests.map((r) => encoder.encode(r));

function abiModule() {
  const bytes = readFileSync(opt("--abi", path.join(here, "../pkg/abi/podplan_abi.wasm")));
  const { exports: m } = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  return (request) => {
    const ptr = m.podplan_alloc(request.length);
    new Uint8Array(m.memory.buffer, ptr, request.length).set(request);
    const packed = m.podplan_plan(ptr, request.length);
    const answerPtr = Number(packed >> 32n);
    const answerLen = Number(packed & 0xffffffffn);
    const answer = decoder.decode(new Uint8Array(m.memory.buffer, answerPtr, answerLen));
    m.podplan_free(answerPtr, answerLen);
    m.podplan_free(ptr, request.length);
    return answer;
  };
}

const runners = {
  js: () => {
    const { planJson } = createRequire(import.meta.url)("../pkg/node/podplan_wasm.js");
    return { inputs: requests, plan: planJson };
  },
  abi: () => ({ inputs: requestBytes, plan: abiModule() }),
};

const answers = {};
for (const [name, make] of Object.entries(runners)) {
  if (only && only !== name) continue;
  const { inputs, plan } = make();
  answers[name] = inputs.map((r) => plan(r)); // warm-up pass
  let n = 0;
  const start = process.cpuUsage();
  const wallStart = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - wallStart) / 1e9 < seconds) {
    for (const r of inputs) plan(r);
    n += inputs.length;
  }
  const cpu = process.cpuUsage(start);
  const wall = Number(process.hrtime.bigint() - wallStart) / 1e3;
  console.log(
    JSON.stringify({
      engine: "node",
      module: name,
      requests: inputs.length,
      calls: n,
      cpuUsPerRequest: Math.round(((cpu.user + cpu.system) / n) * 100) / 100,
      wallUsPerRequest: Math.round((wall / n) * 100) / 100,
    }),
  );
}
if (answers.js && answers.abi) {
  const differing = answers.js.filter((a, i) => a !== answers.abi[i]).length;
  if (differing) {
    console.error(`corpus.mjs: ${differing} answers differ between the js and abi modules`);
    process.exit(1);
  }
}
