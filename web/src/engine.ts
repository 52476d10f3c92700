// The engine: podplan's wasm module (the Rust core), the only place where decisions, the
// runtime model and crictl conversion live.
//
// At build time Vite looks for the wasm-bindgen outputs of crate `podplan-wasm`
// (wasm/pkg/web, made by scripts/build-wasm). There are two: the first-paint module
// (podplan_wasm_plan.js, feature `js-plan`: `planJson` and `version` only, about half the
// bytes) and the full one (podplan_wasm.js: also the runtime model and crictl). The page
// paints with the first ([`loadEngine`]) and loads the second on demand
// ([`loadRuntime`]). Without them the page says so and runs nothing: there is no
// stand-in engine. Node tests wrap wasm/pkg/node (the full build) the same way.

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
  /**
   * Whether `apply`, `event` and `crictl` work: false for the first-paint module, whose
   * runtime-model calls answer an error saying the runtime model is still loading.
   */
  runtime: boolean;
}

/** What the runtime-model calls of the first-paint engine answer. */
export const RUNTIME_LOADING = "loading the runtime model…";

/** The JSON-text functions of podplan-wasm's JS build that the page calls. */
export type WasmModule = Pick<typeof Podplan, "planJson" | "simApplyJson" | "simEventJson" | "crictlJson" | "version">;

/** The functions of the first-paint build (feature `js-plan`) that the page calls. */
export type PlanModule = Pick<WasmModule, "planJson" | "version">;

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

function versionOf(mod: PlanModule): string {
  try {
    const v = mod.version();
    return `podplan ${v.podplan} · Kubernetes ${v.kubernetes} · contract v${v.contract}`;
  } catch {
    return "podplan (wasm)";
  }
}

/** Wraps a loaded podplan-wasm module (web or Node build) as an [`Engine`]. */
export function wrapWasm(mod: WasmModule): Engine {
  return {
    // planJson speaks the contract's JSON exactly, as every other host does.
    plan: (request) => callJson<Plan>(mod.planJson, request),
    apply: (request, plan, hooks) => callJson<SimAnswer>(mod.simApplyJson, hooks ? { request, plan, hooks } : { request, plan }),
    event: (request, event, hooks) => callJson<SimAnswer>(mod.simEventJson, hooks ? { request, event, hooks } : { request, event }),
    crictl: (call) => callJson<CrictlAnswer>(mod.crictlJson, call),
    version: versionOf(mod),
    runtime: true,
  };
}

/**
 * Wraps the first-paint module as an [`Engine`] whose runtime-model and crictl calls
 * answer an error ([`RUNTIME_LOADING`]): the page shows a loading state where it needs
 * them and asks [`loadRuntime`] for the full engine.
 */
export function wrapPlanWasm(mod: PlanModule): Engine {
  const loading = (): ErrorAnswer => ({ error: { kind: "InvalidInput", path: "", message: RUNTIME_LOADING } });
  return {
    plan: (request) => callJson<Plan>(mod.planJson, request),
    apply: loading,
    event: loading,
    crictl: loading,
    version: versionOf(mod),
    runtime: false,
  };
}

/** What a `--target web` build adds: its initialiser. */
type WebModule<M> = M & { default: (init?: unknown) => Promise<unknown> };

// Resolved by Vite at build time; empty objects when the package has not been built. Each
// is a separate chunk, its .wasm fetched by its initialiser: only what is imported loads.
const planCandidates = import.meta.glob<WebModule<PlanModule>>("../../wasm/pkg/web/podplan_wasm_plan.js");
const fullCandidates = import.meta.glob<WebModule<WasmModule>>("../../wasm/pkg/web/podplan_wasm.js");

/** The engine, or why there is none. */
export type Loaded = { ok: true; engine: Engine } | { ok: false; reason: string };

const MISSING = "This page was built without podplan's wasm module (run scripts/build-wasm, then rebuild the page).";

async function load<M>(candidates: Record<string, () => Promise<WebModule<M>>>, wrap: (mod: M) => Engine): Promise<Loaded> {
  const importer = Object.values(candidates)[0];
  if (!importer) return { ok: false, reason: MISSING };
  try {
    const mod = await importer();
    await mod.default();
    return { ok: true, engine: wrap(mod) };
  } catch (e) {
    console.error("podplan: could not load the wasm module", e);
    return { ok: false, reason: `podplan's wasm module could not be loaded: ${String(e)}` };
  }
}

let loaded: Promise<Loaded> | undefined;
let runtime: Promise<Loaded> | undefined;

/**
 * Loads the first-paint engine (the plan module; `runtime` false), or the full one when the
 * page was built without the plan module.
 */
export function loadEngine(): Promise<Loaded> {
  loaded ??= Object.keys(planCandidates).length ? load(planCandidates, wrapPlanWasm) : loadRuntime();
  return loaded;
}

/** Loads the full engine (the runtime model and crictl too); once, however often asked. */
export function loadRuntime(): Promise<Loaded> {
  runtime ??= load(fullCandidates, wrapWasm);
  return runtime;
}
