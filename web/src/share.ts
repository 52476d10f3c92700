// The whole session in the URL hash: `#s=<payload>`. The payload is the session as JSON,
// deflated and base64url-encoded ("z" prefix), or plain base64url ("j" prefix) where the
// browser has no CompressionStream. Nothing is stored anywhere else.

import type { Session, SessionAction } from "./session";
import type { SimEvent } from "../../wasm/types/podplan";

export interface Shared {
  session: Session;
  /** The sync being looked at. */
  selected?: number;
  /** Unapplied editor text, when it differs from the pod in force. */
  draft?: string;
  /** The open detail tab. */
  tab?: string;
  /** Presentation mode (bigger text, gallery collapsed). */
  present?: boolean;
}

/** The compact form written to the URL. Omitted fields take their defaults. */
interface Wire {
  v: 1;
  sc: string;
  f?: "json";
  p?: string;
  g?: Record<string, boolean>;
  a?: SessionAction[];
  sel?: number;
  d?: string;
  tab?: string;
  /** Presentation mode. */
  pm?: 1;
  /** Runtime events before the first sync (pull faults set from sync #0). */
  pre?: SimEvent[];
}

function toBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(s: string): Uint8Array {
  const b64 = s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4);
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/**
 * Encodes a session. `scenarioPod` is the gallery text of the session's scenario: when the
 * starting pod is exactly that, it is left out of the link.
 */
export async function encodeShare(shared: Shared, scenarioPod?: string): Promise<string> {
  const s = shared.session;
  const wire: Wire = { v: 1, sc: s.scenario };
  if (s.format === "json") wire.f = "json";
  if (scenarioPod === undefined || s.pod !== scenarioPod) wire.p = s.pod;
  if (Object.keys(s.gates).length) wire.g = s.gates;
  if (s.actions.length) wire.a = s.actions;
  if (shared.selected !== undefined) wire.sel = shared.selected;
  if (shared.draft !== undefined) wire.d = shared.draft;
  if (shared.tab !== undefined) wire.tab = shared.tab;
  if (shared.present) wire.pm = 1;
  if (s.before?.length) wire.pre = s.before;
  const bytes = new TextEncoder().encode(JSON.stringify(wire));
  if (typeof CompressionStream === "function") return "z" + toBase64Url(await pipe(bytes, new CompressionStream("deflate-raw")));
  return "j" + toBase64Url(bytes);
}

function isEvent(e: unknown): e is SimEvent {
  return !!e && typeof e === "object" && typeof (e as { type?: unknown }).type === "string";
}

function isAction(a: unknown): a is SessionAction {
  if (!a || typeof a !== "object") return false;
  const o = a as Record<string, unknown>;
  switch (o.t) {
    case "exit":
      return typeof o.c === "string" && Number.isInteger(o.code);
    case "probe":
      return typeof o.c === "string" && (o.p === "liveness" || o.p === "startup" || o.p === "readiness") && (o.r === "success" || o.r === "failure");
    case "sandboxDie":
    case "sandboxNoIp":
    case "sync":
    case "pleg":
      return true;
    case "advance":
      return typeof o.s === "number" && o.s >= 0;
    case "edit":
      return typeof o.pod === "string";
    case "postStartFails":
      return typeof o.c === "string" && typeof o.f === "boolean";
    case "preStopTakes":
    case "stopTakes":
      return typeof o.c === "string" && Number.isInteger(o.s) && (o.s as number) >= 0;
    case "delete":
      return o.g === undefined || (Number.isInteger(o.g) && (o.g as number) >= 0);
    case "evict":
      return true;
    case "oom":
      return typeof o.c === "string";
    case "events":
      // The module checks each event's fields; here only the shape of the list.
      return Array.isArray(o.e) && o.e.every(isEvent);
    default:
      return false;
  }
}

/**
 * Decodes a payload. `scenarioPod` looks up a scenario's pod text by id and format.
 * Returns undefined for anything malformed (a bad link starts a fresh session).
 */
export async function decodeShare(payload: string, scenarioPod: (id: string, format: "yaml" | "json") => string | undefined): Promise<Shared | undefined> {
  try {
    const kind = payload[0];
    let bytes = fromBase64Url(payload.slice(1));
    if (kind === "z") bytes = await pipe(bytes, new DecompressionStream("deflate-raw"));
    else if (kind !== "j") return undefined;
    const wire = JSON.parse(new TextDecoder().decode(bytes)) as Partial<Wire>;
    if (wire.v !== 1 || typeof wire.sc !== "string") return undefined;
    const format = wire.f === "json" ? "json" : "yaml";
    const pod = typeof wire.p === "string" ? wire.p : scenarioPod(wire.sc, format);
    if (pod === undefined) return undefined;
    const actions = Array.isArray(wire.a) ? wire.a : [];
    if (!actions.every(isAction)) return undefined;
    const gates: Record<string, boolean> = {};
    for (const [k, v] of Object.entries(wire.g ?? {})) if (typeof v === "boolean") gates[k] = v;
    const before = Array.isArray(wire.pre) ? wire.pre : [];
    if (!before.every(isEvent)) return undefined;
    return {
      present: wire.pm === 1 ? true : undefined,
      session: { scenario: wire.sc, format, pod, gates, actions, ...(before.length ? { before } : {}) },
      selected: typeof wire.sel === "number" && Number.isInteger(wire.sel) ? wire.sel : undefined,
      draft: typeof wire.d === "string" ? wire.d : undefined,
      tab: typeof wire.tab === "string" ? wire.tab : undefined,
    };
  } catch {
    return undefined;
  }
}
