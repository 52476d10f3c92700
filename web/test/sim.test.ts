// The page's bookkeeping around podplan's runtime model: the state it keeps between syncs,
// the request it builds, and what it reads back. The model itself is the module's.

import { describe, expect, it } from "vitest";
import { isError } from "../src/engine";
import { applyEvent, applyPlan, buildRequest, EPOCH_MS, initialState, iso, nextBackoffExpiry, type SimState } from "../src/sim";
import type { ErrorAnswer, Plan, Pod } from "../../wasm/types/podplan";
import { engine } from "./wasm";

const pod: Pod = {
  metadata: { name: "p", namespace: "ns", uid: "u" },
  spec: {
    containers: [{ name: "app", image: "nginx", livenessProbe: { exec: { command: ["true"] } }, restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [42] } }], restartPolicy: "Never" }],
  },
};

function ok<T extends object>(v: T | ErrorAnswer): Exclude<T, ErrorAnswer> {
  if (isError(v)) throw new Error(v.error.message);
  return v as Exclude<T, ErrorAnswer>;
}

function started(): SimState {
  const request = buildRequest(initialState(pod), pod);
  return ok(applyPlan(engine, request, ok(engine.plan(request)) as Plan)).state;
}

describe("the world between syncs", () => {
  it("starts empty on the session clock", () => {
    const s = initialState(pod);
    expect(s.now).toBe(EPOCH_MS);
    expect(s.runtime.containerStatuses).toEqual([]);
    const req = buildRequest(s, pod, { SidecarContainers: true });
    expect(req).toMatchObject({ apiDefaults: true, now: iso(EPOCH_MS), featureGates: { SidecarContainers: true } });
    expect(req.runtimeStatus).toBeUndefined();
    expect(buildRequest(s, pod).featureGates).toBeUndefined();
  });

  it("keeps what the runtime model answers after a plan", () => {
    const request = buildRequest(initialState(pod), pod);
    const plan = ok(engine.plan(request)) as Plan;
    const { state, applied, changed } = ok(applyPlan(engine, request, plan));
    expect(applied).toEqual(plan.steps);
    expect(changed).toBe(true);
    // Nothing left to do: the next plan changes nothing, so the PLEG reports no change.
    const again = buildRequest(state, pod);
    expect(ok(applyPlan(engine, again, ok(engine.plan(again)) as Plan)).changed).toBe(false);
    expect(state.runtime.sandboxStatuses[0]!.state).toBe("SANDBOX_READY");
    expect(state.runtime.containerStatuses[0]).toMatchObject({ name: "app", state: "running", restartCount: 0 });
    expect(state.world.runtimeStatus).toEqual(state.runtime);
    expect(state.now).toBe(EPOCH_MS);
  });

  it("runtime events go through the model: time, exits, probes, sandbox", () => {
    let s = started();
    s = ok(applyEvent(engine, s, { type: "advance", seconds: 30 })).state;
    expect(s.now - EPOCH_MS).toBe(30_000);
    s = ok(applyEvent(engine, s, { type: "probe", container: "app", probe: "liveness", result: "failure" })).state;
    expect(Object.values(s.probes)).toEqual([{ liveness: "failure" }]);
    // The prober has no startup or readiness probe to report for app: the model says so.
    const none = ok(applyEvent(engine, s, { type: "probe", container: "app", probe: "readiness", result: "failure" }));
    expect(none.note).toMatch(/declares no readiness probe/);
    expect(none.state.probes).toEqual(s.probes);
    const lost = ok(applyEvent(engine, s, { type: "sandboxLosesIp" })).state;
    expect(lost.runtime.sandboxStatuses[0]!.network?.ip ?? "").toBe("");
    const dead = ok(applyEvent(engine, s, { type: "sandboxDies" })).state;
    expect(dead.runtime.sandboxStatuses[0]!.state).toBe("SANDBOX_NOTREADY");
    expect(dead.runtime.containerStatuses[0]).toMatchObject({ state: "exited", exitCode: 137 });
    const noted = ok(applyEvent(engine, dead, { type: "exit", container: "app", code: 1 }));
    expect(noted.note).toMatch(/not running/);
  });

  it("the pod's status is the world's: a RestartAllContainers exit reaches the next request", () => {
    const s = ok(applyEvent(engine, started(), { type: "exit", container: "app", code: 42 })).state;
    const req = buildRequest(s, pod);
    expect(req.restartAllContainers).toBe(true);
    expect(req.pod.status?.conditions?.find((c) => c.type === "AllContainersRestarting")?.status).toBe("True");
    expect(req.pod.spec).toEqual(pod.spec);
  });

  it("a pull that fails shows ErrImagePull, then ImagePullBackOff, then the retry starts the container", () => {
    const web: Pod = { metadata: { name: "w", namespace: "ns", uid: "w1" }, spec: { containers: [{ name: "app", image: "shop:1" }] } };
    let s = initialState(web);
    s = ok(applyEvent(engine, s, { type: "pullFails", image: "shop:1", fault: "notFound", times: 1 })).state;
    expect(s.world.images?.registry?.["shop:1"]).toEqual({ fault: "notFound", times: 1 });
    // The plan pulls instead of creating; carrying it out fails the pull (a change: sync again).
    const sync = (state: SimState) => {
      const request = buildRequest(state, web);
      const plan = ok(engine.plan(request)) as Plan;
      return { plan, ...ok(applyPlan(engine, request, plan)) };
    };
    let r = sync(s);
    expect(r.plan.steps.map((x) => x.op)).toContain("PullImage");
    expect(r.changed).toBe(true);
    expect(r.state.world.pullResults?.[0]?.error).toMatch(/not found/);
    r = sync(r.state);
    expect(r.plan.errors?.[0]?.reason).toBe("ErrImagePull");
    expect(r.plan.events.map((e) => e.message)).toContain('Failed to pull image "shop:1": ' + (r.plan.errors?.[0]?.message ?? ""));
    // The failed pull took the registry's answer (the clock moved 1 s): 6 s after it
    // started, 4 s of the 10 s back-off are left.
    expect(r.state.now - Date.parse(s.world.now!)).toBe(1000);
    s = ok(applyEvent(engine, r.state, { type: "advance", seconds: 5 })).state;
    r = sync(s);
    expect(r.plan.kubectl?.status).toBe("ErrImagePull");
    expect(r.plan.heldBack?.[0]).toMatchObject({ container: "app", reason: "ImagePullBackOff", waitSeconds: 4, delaySeconds: 10 });
    expect(nextBackoffExpiry(r.state)).toBe(4);
    s = ok(applyEvent(engine, r.state, { type: "advance", seconds: 4 })).state;
    r = sync(s);
    expect(r.plan.kubectl?.status).toBe("ImagePullBackOff");
    expect(r.plan.steps.map((x) => x.op)).toContain("PullImage");
    r = sync(r.state);
    expect(r.plan.events.map((e) => e.reason)).toEqual(expect.arrayContaining(["Pulled", "Created", "Started"]));
    expect(r.state.runtime.containerStatuses[0]).toMatchObject({ name: "app", state: "running" });
  });

  it("reads the next back-off expiry from the plan's held-back starts", () => {
    const s = started();
    expect(nextBackoffExpiry(s)).toBeUndefined();
    expect(nextBackoffExpiry({ ...s, heldBack: [{ container: "a", waitSeconds: 20, delaySeconds: 20 }, { container: "b", waitSeconds: 7, delaySeconds: 10 }] })).toBe(7);
  });
});
