import { describe, expect, it } from "vitest";
import { isError, wrapWasm } from "../src/engine";
import type { Plan, PlanRequest } from "../../wasm/types/podplan";
import { engine, wasm } from "./wasm";

const req: PlanRequest = {
  pod: { metadata: { name: "p", namespace: "ns", uid: "u" }, spec: { containers: [{ name: "a", image: "x" }] } },
  apiDefaults: true,
  now: "2026-01-01T00:00:00Z",
};

describe("engine adapter over the real module", () => {
  it("plans with planJson, byte for byte what the module answers", () => {
    const answer = engine.plan(req);
    expect(answer).toEqual(JSON.parse(wasm.planJson(JSON.stringify(req))));
    expect(isError(answer)).toBe(false);
    expect((answer as Plan).actions.createSandbox).toBe(true);
    expect(engine.version).toMatch(/^podplan .* · Kubernetes 1\.37 · contract v/);
  });

  it("carries out a plan and applies events with the module's runtime model", () => {
    const plan = engine.plan(req) as Plan;
    const applied = engine.apply(req, plan);
    if (isError(applied)) throw new Error(applied.error.message);
    const rt = applied.request.runtimeStatus!;
    expect(rt.sandboxStatuses![0]!.state).toBe("SANDBOX_READY");
    expect(rt.containerStatuses!.map((c) => [c.name, c.state])).toEqual([["a", "running"]]);
    const exited = engine.event(applied.request, { type: "exit", container: "a", code: 2 });
    if (isError(exited)) throw new Error(exited.error.message);
    expect(exited.request.runtimeStatus!.containerStatuses![0]).toMatchObject({ state: "exited", exitCode: 2 });
    const again = engine.event(exited.request, { type: "exit", container: "a", code: 2 });
    expect(!isError(again) && again.note).toMatch(/not running/);
  });

  it("converts configs for crictl with the module", () => {
    const plan = engine.plan(req) as Plan;
    const sandbox = engine.crictl({ sandboxConfig: plan.sandboxConfig! });
    expect(!isError(sandbox) && sandbox.crictl.log_directory).toMatch(/^\/var\/log\/pods\//);
    const container = engine.crictl({ containerConfig: plan.containerConfigs![0]!.config });
    expect(!isError(container) && (container.crictl.metadata as { name: string }).name).toBe("a");
  });

  it("answers bad input with structured errors", () => {
    const bad = engine.event(req, { type: "explode" } as never);
    expect(isError(bad) && bad.error.path).toBe("event");
    const badRequest = engine.apply({ ...req, bogus: 1 } as never, engine.plan(req) as Plan);
    expect(isError(badRequest) && badRequest.error.path).toBe("request.bogus");
  });

  it("reports a module that throws as an error answer, never a throw", () => {
    const throwing = () => {
      throw new Error("unreachable executed");
    };
    const e = wrapWasm({ ...wasm, planJson: throwing, simApplyJson: throwing });
    const answer = e.plan(req);
    expect(isError(answer) && answer.error.message).toContain("unreachable");
    expect(isError(e.apply(req, {} as Plan))).toBe(true);
  });
});
