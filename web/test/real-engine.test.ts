// Contract check against podplan's wasm module (wasm/pkg/node). Every request the
// playground builds, across the scenarios and runtime actions, must be accepted by the
// engine: its request types reject unknown fields, so a shape mistake here shows up as an
// InvalidInput error.

import { describe, expect, it } from "vitest";
import { isError } from "../src/engine";
import { SCENARIOS } from "../src/scenarios";
import { replay, type SessionAction, type SyncRecord } from "../src/session";
import { engine } from "./wasm";

const ACTIONS: Record<string, SessionAction[]> = {
  crashloop: [{ t: "exit", c: "worker", code: 1 }, { t: "exit", c: "worker", code: 1 }, { t: "advance", s: 10, why: "backoff" }],
  liveness: [{ t: "probe", c: "app", p: "liveness", r: "failure" }],
  sidecar: [{ t: "probe", c: "log-shipper", p: "startup", r: "success" }, { t: "exit", c: "setup", code: 0 }],
  sandbox: [{ t: "exit", c: "warmup", code: 0 }, { t: "sandboxNoIp" }, { t: "sandboxDie" }],
  rules: [{ t: "exit", c: "trainer", code: 99 }],
  resize: [{ t: "sync" }],
  delete: [{ t: "pleg" }, { t: "pleg" }, { t: "stopTakes", c: "web", s: 60 }, { t: "delete", g: 20 }, { t: "sync" }],
  oom: [{ t: "oom", c: "cruncher" }, { t: "oom", c: "cruncher" }, { t: "advance", s: 10, why: "backoff" }],
  evict: [{ t: "evict" }, { t: "sync" }],
};

describe("the engine accepts every request the playground builds", () => {
  it("for each scenario and its typical actions", () => {
    // The check has teeth: a field the contract does not know is refused.
    const probe = replay(engine, { scenario: "plain", format: "yaml", pod: SCENARIOS[0]!.yaml, gates: {}, actions: [{ t: "sync" }] })[1]!.request!;
    const bad = engine.plan({ ...probe, runtimeStatus: { ...probe.runtimeStatus!, bogus: 1 } as never });
    expect(isError(bad) && bad.error.path).toBe("runtimeStatus.bogus");
    for (const sc of SCENARIOS) {
      const syncs = replay(engine, { scenario: sc.id, format: "yaml", pod: sc.yaml, gates: sc.gates ?? {}, actions: ACTIONS[sc.id] ?? [] });
      for (const s of syncs) {
        expect(s.request, `${sc.id} #${s.index}`).toBeDefined();
        const answer = engine.plan(s.request!);
        expect(isError(answer) ? answer.error : undefined, `${sc.id} sync #${s.index}`).toBeUndefined();
      }
    }
  });

  it("the gallery's “Try” steps do what they say", () => {
    const yaml = (id: string) => SCENARIOS.find((s) => s.id === id)!.yaml;
    const run = (id: string, actions: SessionAction[]) => replay(engine, { scenario: id, format: "yaml", pod: yaml(id), gates: {}, actions });
    const state = (s: SyncRecord, name: string) => {
      const c = s.after.runtime.containerStatuses.find((x) => x.name === name);
      return c ? `${c.state}${c.state === "exited" ? ` ${c.exitCode}` : ""} #${c.restartCount}` : "none";
    };
    const reasons = (s: SyncRecord) => (isError(s.answer) ? [] : (s.answer.decisions ?? []).map((d) => d.action));
    // CRI calls only: the WriteNodeFiles steps (node files, not CRI calls) are left out.
    const steps = (s: SyncRecord) =>
      isError(s.answer) ? [] : (s.answer.steps ?? []).filter((x) => x.op !== "WriteNodeFiles").map((x) => x.op);
    const edit = (id: string, f: (t: string) => string): SessionAction => ({ t: "edit", pod: f(yaml(id)) });

    let s = run("plain", [{ t: "exit", c: "web", code: 0 }, { t: "sync" }]);
    expect([state(s[1]!, "web"), steps(s[2]!)]).toEqual(["running #1", []]);

    s = run("init", [{ t: "exit", c: "wait-for-db", code: 0 }, { t: "exit", c: "migrate", code: 1 }, { t: "exit", c: "migrate", code: 0 }]);
    expect(s.map((x) => [state(x, "wait-for-db"), state(x, "migrate"), state(x, "shop")])).toEqual([
      ["running #0", "none", "none"],
      ["exited 0 #0", "running #0", "none"],
      ["exited 0 #0", "running #1", "none"],
      ["exited 0 #0", "exited 0 #1", "running #0"],
    ]);

    s = run("sidecar", [{ t: "probe", c: "log-shipper", p: "startup", r: "success" }, { t: "exit", c: "setup", code: 0 }, { t: "exit", c: "log-shipper", code: 1 }]);
    expect(state(s[0]!, "setup")).toBe("none"); // waits for the startup probe
    expect(state(s[1]!, "setup")).toBe("running #0");
    expect([state(s[2]!, "api"), state(s[2]!, "log-shipper")]).toEqual(["running #0", "running #0"]);
    expect(state(s[3]!, "log-shipper")).toBe("running #1");

    s = run("liveness", [{ t: "probe", c: "app", p: "liveness", r: "failure" }]);
    expect(steps(s[1]!)).toEqual(["KillContainer", "CreateContainer", "StartContainer"]);

    for (const [id, c] of [["onfailure", "report"], ["never", "step-b"]] as const) {
      s = run(id, [{ t: "exit", c, code: 0 }, ...(id === "never" ? [{ t: "exit", c: "step-a", code: 1 } as SessionAction] : []), { t: "sync" }]);
      const last = s[s.length - 1]!;
      expect(last.after.runtime.sandboxStatuses[0]!.state, id).toBe("SANDBOX_NOTREADY");
      expect(steps(last), id).not.toContain("RunPodSandbox");
    }
    s = run("onfailure", [{ t: "exit", c: "report", code: 1 }]);
    expect(state(s[1]!, "report")).toBe("running #1");

    s = run("image", [edit("image", (t) => t.replace("nginx:1.27", "nginx:1.28")), edit("image", (t) => t.replace("nginx:1.27", "nginx:1.28").replace("image: nginx:1.28", "image: nginx:1.28\n    command: [nginx]"))]);
    expect(steps(s[1]!)).toEqual(["KillContainer", "CreateContainer", "StartContainer"]);
    expect(steps(s[2]!)).toEqual([]);

    for (const a of [{ t: "sandboxDie" }, { t: "sandboxNoIp" }] as SessionAction[]) {
      s = run("sandbox", [a]);
      expect(reasons(s[1]!)).toContain("createSandbox");
      expect(steps(s[1]!).slice(0, 1)).toEqual(["KillPod"]);
      expect(!isError(s[1]!.answer) && s[1]!.answer.events?.some((e) => e.reason === "SandboxChanged")).toBe(true);
    }

    s = run("ephemeral", [edit("ephemeral", (t) => t.replace(/^ {2}# ?/gm, "  ").replace(/^ {2}Uncomment.*\n/m, "")), { t: "exit", c: "debugger", code: 0 }]);
    expect(state(s[1]!, "debugger")).toBe("running #0");
    expect(steps(s[2]!)).toEqual([]);

    s = run("resize", [edit("resize", (t) => t.replace(/cpu: 500m/g, "cpu: 750m")), { t: "sync" }]);
    expect(steps(s[1]!)).toContain("UpdateContainerResources");
    expect(steps(s[1]!)).not.toContain("KillContainer");
    expect(steps(s[2]!)).toEqual([]); // the checkpoint now records the new size
    s = run("resize", [edit("resize", (t) => t.replace(/memory: 256Mi/g, "memory: 512Mi"))]);
    expect(steps(s[1]!)).toContain("KillContainer");

    s = run("rules", [{ t: "exit", c: "trainer", code: 42 }, { t: "exit", c: "trainer", code: 1 }]);
    expect(state(s[1]!, "trainer")).toBe("running #1");
    expect(state(s[2]!, "trainer")).toBe("exited 1 #1");
    s = run("rules", [{ t: "exit", c: "trainer", code: 99 }, { t: "sync" }]);
    expect(reasons(s[1]!)).toContain("resetContainer");
    expect([state(s[2]!, "trainer"), state(s[2]!, "data-loader")]).toEqual(["running #0", "running #0"]);
  });
});
