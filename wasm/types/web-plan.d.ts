// podplan-wasm/web-plan: the first-paint `--target web` build (cargo feature `js-plan`):
// `plan`, `planJson` and `version` only, about half the download of podplan-wasm/web. Call
// `init()` (or `initSync()`) once before them; load podplan-wasm/web for the other calls.
export type * from "./contract.js";
export type * from "./kubernetes.js";
export { plan, planJson, version } from "./podplan.js";
export { default, initSync, type InitInput } from "./web.js";
