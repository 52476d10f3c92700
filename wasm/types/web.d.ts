// podplan-wasm/web: the `--target web` build. Call `init()` (or `initSync()`) once
// before the functions of ./podplan.d.ts.
export * from "./podplan.js";

/** What `init` and `initSync` accept: the module, its bytes, or where to fetch it. */
export type InitInput = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Loads and instantiates the wasm module (by default `podplan_wasm_bg.wasm` next to
 * the JS file). Resolves once `plan` and friends can be called.
 */
export default function init(
  moduleOrPath?: { module_or_path: InitInput | Promise<InitInput> } | InitInput | Promise<InitInput>,
): Promise<WebAssembly.Exports>;

/** Instantiates the module synchronously from its bytes or a compiled module. */
export function initSync(module: { module: BufferSource | WebAssembly.Module } | BufferSource | WebAssembly.Module): WebAssembly.Exports;
