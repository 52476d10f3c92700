import { describe, expect, it } from "vitest";
import { wrapWasm } from "../src/engine";
import type { PlanRequest } from "../src/types";

const req = { pod: { spec: { containers: [{ name: "a" }] } } } as PlanRequest;
const init = async () => undefined;

describe("engine adapter", () => {
  it("prefers planJson, which speaks the contract's JSON exactly", () => {
    let sent = "";
    const e = wrapWasm({
      default: init,
      planJson: (s) => ((sent = s), '{"actions":{"killPod":true}}'),
      plan: () => ({ wrong: true }),
      version: () => ({ podplan: "0.1.0", contract: "1", kubernetes: "1.37" }),
    });
    expect(e.plan(req)).toEqual({ actions: { killPod: true } });
    expect(JSON.parse(sent)).toEqual(req);
    expect(e.version).toBe("podplan 0.1.0 · Kubernetes 1.37 · contract v1");
    expect(e.real).toBe(true);
  });
  it("turns Maps from plan() into plain objects", () => {
    const e = wrapWasm({ default: init, plan: () => new Map<string, unknown>([["actions", new Map([["containersToKill", new Map([["id", { name: "a" }]])]])]]) });
    expect(e.plan(req)).toEqual({ actions: { containersToKill: { id: { name: "a" } } } });
  });
  it("reports a crashing module as an error answer, never a throw", () => {
    const e = wrapWasm({
      default: init,
      planJson: () => {
        throw new Error("unreachable executed");
      },
    });
    const answer = e.plan(req) as { error: { kind: string; message: string } };
    expect(answer.error.kind).toBe("EngineFailure");
    expect(answer.error.message).toContain("unreachable");
  });
});
