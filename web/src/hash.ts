// The kubelet's container hash (HashContainer, 1.31+), as core/src/hash.rs computes it:
// FNV-1a 32 over go-spew's `%#v` rendering of the JSON {"image":..,"name":..}.
// The simulated runtime records it on every container it creates, exactly as a real
// runtime returns the hash label the kubelet put there.

function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code === 0x08) out += "\\b";
    else if (code === 0x0c) out += "\\f";
    else if (ch === "<" || ch === ">" || ch === "&" || code === 0x2028 || code === 0x2029 || code < 0x20)
      out += "\\u" + code.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

/** The JSON text the kubelet hashes. */
export function hashedJson(name: string, image: string): string {
  return `{"image":${goJsonString(image)},"name":${goJsonString(name)}}`;
}

/** `HashContainer(c)` for a container's name and image. */
export function containerHash(name: string, image: string): number {
  const bytes = new TextEncoder().encode(hashedJson(name, image));
  let h = 0x811c9dc5;
  const feed = (b: number) => {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  };
  for (const b of new TextEncoder().encode("([]uint8)[")) feed(b);
  bytes.forEach((byte, i) => {
    if (i > 0) feed(0x20);
    for (const d of String(byte)) feed(d.charCodeAt(0));
  });
  feed(0x5d);
  return h >>> 0;
}
