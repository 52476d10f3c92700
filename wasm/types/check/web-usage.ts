// Type-checked in CI: the web build's entry point (init first, then call).
import init, { plan, initSync } from "podplan-wasm/web";
import type { PlanAnswer } from "podplan-wasm/web";

export async function start(url: URL): Promise<PlanAnswer> {
  await init({ module_or_path: url });
  return plan({ pod: { spec: { containers: [{ name: "app", image: "nginx" }] } } });
}

export function startSync(bytes: ArrayBuffer): PlanAnswer {
  initSync({ module: bytes });
  return plan({ pod: { spec: { containers: [] } } });
}
