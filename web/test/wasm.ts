// podplan's wasm module for Node (wasm/pkg/node, made by scripts/build-wasm). Every unit
// test runs against it: there is no stand-in engine.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { wrapWasm, type Engine, type WasmModule } from "../src/engine";

const path = fileURLToPath(new URL("../../wasm/pkg/node/podplan_wasm.js", import.meta.url));
if (!existsSync(path)) throw new Error(`podplan's wasm module is missing (${path}): run scripts/build-wasm first`);

/** The module as loaded. */
export const wasm = createRequire(import.meta.url)(path) as WasmModule;

/** The module as the page's engine. */
export const engine: Engine = wrapWasm(wasm);
