// Contract check against podplan's real wasm module, when it has been built
// (scripts/build-wasm → wasm/pkg/web). Every request the playground builds, across the
// scenarios and runtime actions, must be accepted by the engine: its request types reject
// unknown fields, so a shape mistake here shows up as an InvalidInput error.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { wrapWasm, type Engine } from "../src/engine";
import { mockEngine } from "../src/engine-mock";
import { SCENARIOS } from "../src/scenarios";
import { replay, type SessionAction } from "../src/session";
import { isError } from "../src/types";

const modules = import.meta.glob<Record<string, unknown>>("../../wasm/pkg/web/podplan_wasm.js");
const wasmUrl = new URL("../../wasm/pkg/web/podplan_wasm_bg.wasm", import.meta.url);
const load = Object.values(modules)[0];

async function realEngine(): Promise<Engine> {
  const mod = (await load!()) as unknown as Parameters<typeof wrapWasm>[0];
  await mod.default({ module_or_path: readFileSync(fileURLToPath(wasmUrl)) });
  return wrapWasm(mod);
}

const ACTIONS: Record<string, SessionAction[]> = {
  crashloop: [{ t: "exit", c: "worker", code: 1 }, { t: "exit", c: "worker", code: 1 }, { t: "advance", s: 10, why: "backoff" }],
  liveness: [{ t: "probe", c: "app", p: "liveness", r: "failure" }],
  sidecar: [{ t: "probe", c: "log-shipper", p: "startup", r: "success" }, { t: "exit", c: "setup", code: 0 }],
  sandbox: [{ t: "exit", c: "warmup", code: 0 }, { t: "sandboxNoIp" }, { t: "sandboxDie" }],
  rules: [{ t: "exit", c: "trainer", code: 99 }],
  resize: [{ t: "sync" }],
};

describe.skipIf(!load)("the real engine accepts every request the playground builds", () => {
  it("for each scenario and its typical actions", async () => {
    const engine = await realEngine();
    // The check has teeth: a field the contract does not know is refused.
    const probe = replay(mockEngine, { scenario: "plain", format: "yaml", pod: SCENARIOS[0]!.yaml, gates: {}, actions: [{ t: "sync" }] })[1]!.request!;
    const bad = engine.plan({ ...probe, runtimeStatus: { ...probe.runtimeStatus!, bogus: 1 } as never });
    expect(isError(bad) && bad.error.path).toBe("runtimeStatus.bogus");
    for (const sc of SCENARIOS) {
      // Drive with the stand-in so that runtime status, probes and back-off records exist
      // even while the real engine's decisions are incomplete; then ask the real one.
      const syncs = replay(mockEngine, { scenario: sc.id, format: "yaml", pod: sc.yaml, gates: sc.gates ?? {}, actions: ACTIONS[sc.id] ?? [] });
      for (const s of syncs) {
        expect(s.request, `${sc.id} #${s.index}`).toBeDefined();
        const answer = engine.plan(s.request!);
        expect(isError(answer) ? answer.error : undefined, `${sc.id} sync #${s.index}`).toBeUndefined();
      }
    }
  });
});
