// Reading the pod the user typed (YAML or JSON), and finding where in that text an engine
// error's path (`pod.spec.containers[1].name`) points.

import { isMap, isPair, isScalar, isSeq, parseDocument, stringify, type Document, type Node as YamlNode } from "yaml";
import type { Pod } from "../../wasm/types/podplan";

export type Format = "yaml" | "json";

export interface TextError {
  from: number;
  to: number;
  message: string;
}

export type Parsed = { ok: true; pod: Pod; doc: Document } | { ok: false; errors: TextError[] };

/** Kubernetes quantities may be written as bare numbers in YAML (`cpu: 1`); the API
 *  treats them as strings, and so does podplan, so convert them as kubectl would. */
export function normalizeQuantities(value: unknown, key = ""): unknown {
  if (Array.isArray(value)) return value.map((v) => normalizeQuantities(v));
  if (value && typeof value === "object") {
    const quantityMap = key === "limits" || key === "requests" || key === "overhead" || key === "capacity";
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (quantityMap && typeof v === "number") out[k] = String(v);
      else if (k === "sizeLimit" && typeof v === "number") out[k] = String(v);
      else out[k] = normalizeQuantities(v, k);
    }
    return out;
  }
  return value;
}

function jsonErrorPosition(message: string, text: string): number {
  const pos = /position (\d+)/.exec(message);
  if (pos) return Math.min(Number(pos[1]), text.length);
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) {
    const lines = text.split("\n");
    let off = 0;
    for (let i = 0; i < Number(lc[1]) - 1 && i < lines.length; i++) off += lines[i]!.length + 1;
    return Math.min(off + Number(lc[2]) - 1, text.length);
  }
  return text.length;
}

/** Parses pod text; errors carry positions in the text. */
export function parsePodText(text: string, format: Format): Parsed {
  if (format === "json") {
    try {
      JSON.parse(text);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      const at = jsonErrorPosition(message, text);
      return { ok: false, errors: [{ from: Math.max(0, at - 1), to: Math.min(text.length, at + 1), message: `JSON: ${message}` }] };
    }
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    return {
      ok: false,
      errors: doc.errors.map((e) => ({ from: e.pos[0], to: Math.max(e.pos[1], e.pos[0] + 1), message: `${format === "json" ? "JSON" : "YAML"}: ${e.message.split("\n")[0]}` })),
    };
  }
  const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, errors: [{ from: 0, to: Math.max(1, Math.min(text.length, 40)), message: "the document must be a Pod: a mapping with metadata and spec" }] };
  }
  return { ok: true, pod: normalizeQuantities(value) as Pod, doc };
}

/** Splits an engine path into keys and indices: `pod.spec.containers[1].name`. */
export function splitPath(path: string): Array<string | number> {
  const out: Array<string | number> = [];
  const re = /\[(\d+)\]|([^.[\]]+)/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(m[2]);
  }
  return out;
}

function range(node: YamlNode | null | undefined): [number, number] | undefined {
  const r = (node as { range?: [number, number, number] } | null | undefined)?.range;
  return r ? [r[0], r[1]] : undefined;
}

/**
 * Finds the text range an engine error path points at. `pod.` is stripped (the editor
 * holds the pod). When the path goes deeper than the document (a missing field), the
 * deepest part that exists is used. Undefined when the path is not in the pod at all.
 */
export function locatePath(doc: Document, path: string): { from: number; to: number; exact: boolean } | undefined {
  let parts = splitPath(path);
  if (parts[0] === "pod") parts = parts.slice(1);
  else if (parts.length && !["spec", "metadata", "status", "kind", "apiVersion"].includes(String(parts[0]))) return undefined;
  let node: unknown = doc.contents;
  let best = range(node as YamlNode) ?? [0, 0];
  let i = 0;
  while (i < parts.length) {
    const part = parts[i]!;
    if (typeof part === "number") {
      if (!isSeq(node)) break;
      const item = node.items[part] as YamlNode | undefined;
      if (!item) break;
      node = item;
      best = range(item) ?? best;
      i++;
      continue;
    }
    if (!isMap(node)) break;
    // Map keys may contain dots (annotations): try the longest run of parts first.
    let matched = false;
    for (let k = parts.length - i; k >= 1; k--) {
      const run = parts.slice(i, i + k);
      if (run.some((p) => typeof p === "number")) continue;
      const key = run.join(".");
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
      if (pair && isPair(pair)) {
        const value = pair.value as YamlNode | null;
        const keyRange = range(pair.key as YamlNode);
        const last = i + k === parts.length;
        // The last part: point at the value if it is a scalar, else at the key.
        best = last && isScalar(value) ? (range(value) ?? keyRange ?? best) : (keyRange ?? best);
        node = value;
        i += k;
        matched = true;
        break;
      }
    }
    if (!matched) break;
  }
  const [from, to] = best;
  return { from, to: Math.max(to, from + 1), exact: i === parts.length };
}

/** Converts pod text between formats (comments do not survive). */
export function convertText(text: string, from: Format, to: Format): string | undefined {
  if (from === to) return text;
  const parsed = parsePodText(text, from);
  if (!parsed.ok) return undefined;
  const value = parsed.doc.toJS() as unknown;
  return to === "json" ? JSON.stringify(value, null, 2) + "\n" : stringify(value);
}
