// The engine: podplan's wasm module (the Rust core), the only place where decisions, the
// runtime model and crictl conversion live.
//
// At build time Vite looks for the wasm-bindgen output of crate `podplan-wasm`
// (wasm/pkg/web, made by scripts/build-wasm). Without it the page says so and runs
// nothing: there is no stand-in engine. Node tests wrap wasm/pkg/node the same way.

import type * as Podplan from "../../wasm/types/podplan";
import type { CrictlAnswer, CrictlCall, ErrorAnswer, HookControls, Plan, PlanAnswer, PlanRequest, SimAnswer, SimEvent } from "../../wasm/types/podplan";

export interface Engine {
  /** Computes a plan (or `{error:{kind,path,message}}`). Never throws. */
  plan(request: PlanRequest): PlanAnswer;
  /** Carries out a plan with podplan's runtime model (hooks behaving as `hooks` says): the next sync's request. */
  apply(request: PlanRequest, plan: Plan, hooks?: HookControls): SimAnswer | ErrorAnswer;
  /** Applies one scripted runtime event to a request (hook events change `hooks`, answered back). */
  event(request: PlanRequest, event: SimEvent, hooks?: HookControls): SimAnswer | ErrorAnswer;
  /** A CRI config as the file crictl reads. */
  crictl(call: CrictlCall): CrictlAnswer | ErrorAnswer;
  /** A human-readable version string. */
  version: string;
}

/** The JSON-text functions of podplan-wasm's JS build that the page calls. */
export type WasmModule = Pick<typeof Podplan, "planJson" | "simApplyJson" | "simEventJson" | "crictlJson" | "version">;

/** Whether an answer is `{error: ...}`. */
export function isError(answer: unknown): answer is ErrorAnswer {
  return !!answer && typeof answer === "object" && "error" in answer;
}

function failure(e: unknown): ErrorAnswer {
  return { error: { kind: "InvalidInput", path: "", message: `the engine failed: ${String(e)}` } };
}

/** Calls a JSON-text function of the module; a thrown exception becomes an error answer. */
function callJson<T>(fn: (text: string) => string, input: unknown): T | ErrorAnswer {
  try {
    return JSON.parse(fn(JSON.stringify(input))) as T | ErrorAnswer;
  } catch (e) {
    return failure(e);
  }
}

/** Wraps a loaded podplan-wasm module (web or Node build) as an [`Engine`]. */
export function wrapWasm(mod: WasmModule): Engine {
  let version = "podplan (wasm)";
  try {
    const v = mod.version();
    version = `podplan ${v.podplan} · Kubernetes ${v.kubernetes} · contract v${v.contract}`;
  } catch {
    // keep the default
  }
  return {
    // planJson speaks the contract's JSON exactly, as every other host does.
    plan: (request) => callJson<Plan>(mod.planJson, request),
    apply: (request, plan, hooks) => callJson<SimAnswer>(mod.simApplyJson, hooks ? { request, plan, hooks } : { request, plan }),
    event: (request, event, hooks) => callJson<SimAnswer>(mod.simEventJson, hooks ? { request, event, hooks } : { request, event }),
    crictl: (call) => callJson<CrictlAnswer>(mod.crictlJson, call),
    version,
  };
}

/** What a `--target web` build adds: its initialiser. */
type WebModule = WasmModule & { default: (init?: unknown) => Promise<unknown> };

// Resolved by Vite at build time; an empty object when the package has not been built.
const candidates = import.meta.glob<WebModule>("../../wasm/pkg/web/podplan_wasm.js");

/** The engine, or why there is none. */
export type Loaded = { ok: true; engine: Engine } | { ok: false; reason: string };

let loaded: Promise<Loaded> | undefined;

/** Loads podplan's wasm module if it was built into the page. */
export function loadEngine(): Promise<Loaded> {
  loaded ??= (async (): Promise<Loaded> => {
    const load = Object.values(candidates)[0];
    if (!load) return { ok: false, reason: "This page was built without podplan's wasm module (run scripts/build-wasm, then rebuild the page)." };
    try {
      const mod = await load();
      await mod.default();
      return { ok: true, engine: wrapWasm(mod) };
    } catch (e) {
      console.error("podplan: could not load the wasm module", e);
      return { ok: false, reason: `podplan's wasm module could not be loaded: ${String(e)}` };
    }
  })();
  return loaded;
}
