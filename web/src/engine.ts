// The engine adapter: the page talks to podplan's wasm module through this interface.
//
// At build time Vite looks for the wasm-bindgen output of crate `podplan-wasm`
// (wasm/pkg/web, made by scripts/build-wasm). When it is there, the page uses it; when it
// is not, the page falls back to a small TypeScript stand-in (engine-mock.ts) and says so
// on screen. Unit tests use the stand-in directly.

import { mockEngine } from "./engine-mock";
import type { PlanAnswer, PlanRequest } from "./types";

export interface Engine {
  /** Computes a plan (or returns `{error:{kind,path,message}}`). Never throws. */
  plan(request: PlanRequest): PlanAnswer;
  /** A human-readable version string. */
  version: string;
  /** True when this is podplan's real wasm module. */
  real: boolean;
}

/** What a wasm-bindgen `--target web` module of podplan-wasm exports. */
interface WasmModule {
  default: (init?: unknown) => Promise<unknown>;
  plan?: (request: unknown) => unknown;
  planJson?: (request: string) => string;
  version?: () => unknown;
}

// Resolved by Vite at build time; an empty object when the package has not been built.
const candidates = import.meta.glob<WasmModule>("../../wasm/pkg/web/podplan_wasm.js");

/** Converts what a wasm call returned into plain JSON (Maps become objects). */
function toPlain(value: unknown): unknown {
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[String(k)] = toPlain(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(toPlain);
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toPlain(v);
    return out;
  }
  return value;
}

function describeVersion(v: unknown): string {
  if (typeof v === "string") {
    try {
      return describeVersion(JSON.parse(v));
    } catch {
      return v;
    }
  }
  if (v && typeof v === "object") {
    const o = toPlain(v) as Record<string, unknown>;
    const parts = [];
    if (o.podplan) parts.push(`podplan ${String(o.podplan)}`);
    if (o.kubernetes) parts.push(`Kubernetes ${String(o.kubernetes)}`);
    if (o.contract) parts.push(`contract v${String(o.contract)}`);
    if (parts.length) return parts.join(" · ");
    return JSON.stringify(o);
  }
  return "podplan";
}

function crash(e: unknown): PlanAnswer {
  return { error: { kind: "EngineFailure", path: "", message: `the engine failed: ${String(e)}` } };
}

/** Wraps a loaded wasm module as an [`Engine`]. Exported for tests. */
export function wrapWasm(mod: WasmModule): Engine {
  const call = (request: PlanRequest): PlanAnswer => {
    try {
      // planJson speaks the contract's JSON exactly; prefer it over object conversion.
      if (mod.planJson) return JSON.parse(mod.planJson(JSON.stringify(request))) as PlanAnswer;
      if (mod.plan) return toPlain(mod.plan(request)) as PlanAnswer;
      return { error: { kind: "EngineFailure", path: "", message: "the wasm module exports no plan function" } };
    } catch (e) {
      return crash(e);
    }
  };
  let version = "podplan (wasm)";
  try {
    if (mod.version) version = describeVersion(mod.version());
  } catch {
    // keep the default
  }
  return { plan: call, version, real: true };
}

let loaded: Promise<Engine> | undefined;

/** Loads the real module if it was built into the page, else the stand-in. */
export function loadEngine(): Promise<Engine> {
  loaded ??= (async () => {
    const load = Object.values(candidates)[0];
    // VITE_PODPLAN_ENGINE=standin at build time forces the stand-in (UI tests without wasm).
    if (!load || import.meta.env.VITE_PODPLAN_ENGINE === "standin") return mockEngine;
    try {
      const mod = await load();
      await mod.default();
      return wrapWasm(mod);
    } catch (e) {
      console.error("podplan: could not load the wasm module, using the stand-in", e);
      return mockEngine;
    }
  })();
  return loaded;
}
