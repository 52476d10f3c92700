import { describe, expect, it } from "vitest";
import { containerHash } from "../src/hash";
import {
  advance,
  applyPlan,
  buildRequest,
  containerExit,
  EPOCH_MS,
  initialState,
  KILLED_EXIT_CODE,
  nextBackoffExpiry,
  opsFromActions,
  opsFromSteps,
  sandboxDies,
  sandboxLosesIp,
  setProbe,
  type SimState,
} from "../src/sim";
import type { Plan, PodActions, Pod } from "../src/types";

const pod: Pod = {
  metadata: { name: "web", namespace: "default", uid: "u1" },
  spec: {
    initContainers: [{ name: "setup", image: "busybox" }],
    containers: [
      { name: "app", image: "nginx:1.27", livenessProbe: { httpGet: { port: 80 } }, resources: { requests: { cpu: "100m" } } },
      { name: "side", image: "busybox" },
    ],
  },
};

function actions(a: Partial<PodActions>): PodActions {
  return {
    killPod: false,
    createSandbox: false,
    sandboxId: "",
    attempt: 0,
    initContainersToStart: [],
    containersToStart: [],
    containersToKill: {},
    ephemeralContainersToStart: [],
    updatePodResources: false,
    updatePodLevelResources: false,
    ...a,
  };
}

/** A state with a sandbox and `app` + `side` running. */
function running(): SimState {
  const plan: Plan = {
    actions: actions({ killPod: true, createSandbox: true, containersToStart: [0, 1] }),
    steps: [
      { op: "KillPod" },
      { op: "RunPodSandbox", attempt: 0 },
      { op: "CreateContainer", name: "app" },
      { op: "StartContainer", name: "app" },
      { op: "CreateContainer", name: "side" },
      { op: "StartContainer", name: "side" },
    ],
  };
  return applyPlan(initialState(pod), pod, plan).state;
}

describe("applying a plan's steps", () => {
  it("creates the sandbox and starts containers with hash, sandbox id and restart count", () => {
    const s = running();
    expect(s.runtime.sandboxStatuses).toHaveLength(1);
    const sb = s.runtime.sandboxStatuses[0]!;
    expect(sb.state).toBe("SANDBOX_READY");
    expect(sb.metadata).toEqual({ name: "web", uid: "u1", namespace: "default", attempt: 0 });
    expect(sb.network?.ip).toMatch(/^10\.244\./);
    expect(sb.linux?.namespaces?.options?.network).toBe("POD");
    const [side, app] = s.runtime.containerStatuses; // newest first
    expect(app!.name).toBe("app");
    expect(side!.name).toBe("side");
    expect(app!.state).toBe("running");
    expect(app!.podSandboxId).toBe(sb.id);
    expect(app!.hash).toBe(containerHash("app", "nginx:1.27"));
    expect(app!.restartCount).toBe(0);
    expect(app!.startedAt).toBe("2026-01-01T00:00:00Z");
    // The prober starts liveness at success; the actuated checkpoint records resources.
    expect(s.probes[app!.id]).toEqual({ liveness: "success" });
    expect(s.probes[side!.id]).toBeUndefined();
    expect(s.actuated.containers.app).toEqual({ requests: { cpu: "100m" } });
  });

  it("kills a container by id and restarts it with restart count + 1", () => {
    let s = running();
    const app = s.runtime.containerStatuses.find((c) => c.name === "app")!;
    const plan: Plan = {
      actions: actions({ sandboxId: "sandbox-1", containersToKill: { [app.id]: { name: "app" } }, containersToStart: [0] }),
      steps: [{ op: "KillContainer", containerId: app.id }, { op: "CreateContainer", name: "app" }, { op: "StartContainer", name: "app" }],
    };
    const r = applyPlan(s, pod, plan);
    s = r.state;
    expect(r.source).toBe("steps");
    const apps = s.runtime.containerStatuses.filter((c) => c.name === "app");
    expect(apps.map((c) => c.state)).toEqual(["running", "exited"]);
    expect(apps[1]!.exitCode).toBe(KILLED_EXIT_CODE);
    expect(apps[0]!.restartCount).toBe(1);
    expect(apps[0]!.id).not.toBe(app.id);
  });

  it("falls back to the actions when the plan has no steps, honouring held-back starts", () => {
    const s = running();
    const exited = containerExit(containerExit(s, "app", 1), "side", 2);
    const plan: Plan = { actions: actions({ sandboxId: "sandbox-1", containersToStart: [0, 1] }), heldBack: [{ container: "app", waitSeconds: 10 }] };
    expect(opsFromActions(plan, pod)).toEqual([
      { kind: "create", name: "side" },
      { kind: "start", name: "side" },
    ]);
    const r = applyPlan(exited, pod, plan);
    expect(r.source).toBe("actions");
    expect(r.state.runtime.containerStatuses[0]!.name).toBe("side");
    expect(r.state.runtime.containerStatuses.find((c) => c.name === "app")!.state).toBe("exited");
    expect(r.state.heldBack).toEqual([{ container: "app", waitSeconds: 10 }]);
  });

  it("an empty steps list means no CRI calls, whatever the actions say", () => {
    const r = applyPlan(running(), pod, { actions: actions({ sandboxId: "sandbox-1", containersToStart: [1] }), steps: [] });
    expect(r.source).toBe("steps");
    expect(r.applied).toEqual([]);
  });

  it("a classic init container that cannot start stops the later starts", () => {
    const plan: Plan = {
      actions: actions({ initContainersToStart: [0], containersToStart: [1] }),
      heldBack: [{ container: "setup", waitSeconds: 5 }],
    };
    expect(opsFromActions(plan, pod)).toEqual([]);
  });

  it("rejects steps it cannot read, so the actions are used instead", () => {
    const plan: Plan = { actions: actions({}) };
    expect(opsFromSteps([{ op: "StartContainer" }], plan)).toBeUndefined();
    expect(opsFromSteps([{ op: "KillContainer", containerId: "containerd://x" }], plan)).toEqual([{ kind: "killContainer", id: "containerd://x", name: undefined }]);
  });

  it("KillPod stops every container and the sandbox, and purges init containers before a new sandbox", () => {
    let s = running();
    s = applyPlan(s, pod, { actions: actions({ sandboxId: "sandbox-1", initContainersToStart: [0] }), steps: [{ op: "StartContainer", name: "setup" }] }).state;
    expect(s.runtime.containerStatuses.some((c) => c.name === "setup")).toBe(true);
    s = sandboxDies(s);
    const r = applyPlan(s, pod, {
      actions: actions({ killPod: true, createSandbox: true, sandboxId: "sandbox-1", attempt: 1, initContainersToStart: [0] }),
      steps: [{ op: "KillPod" }, { op: "RunPodSandbox", attempt: 1 }, { op: "CreateContainer", name: "setup" }, { op: "StartContainer", name: "setup" }],
    });
    const rt = r.state.runtime;
    expect(rt.sandboxStatuses.map((x) => [x.id, x.state, x.metadata?.attempt])).toEqual([
      ["sandbox-2", "SANDBOX_READY", 1],
      ["sandbox-1", "SANDBOX_NOTREADY", 0],
    ]);
    expect(rt.containerStatuses.filter((c) => c.podSandboxId === "sandbox-1").every((c) => c.state === "exited")).toBe(true);
    // The old setup instance was purged; the new one belongs to the new sandbox.
    expect(rt.containerStatuses.filter((c) => c.name === "setup").map((c) => c.podSandboxId)).toEqual(["sandbox-2"]);
    expect(r.applied.map((o) => o.op)).toContain("KillContainer");
    // A healthy sandbox is stopped by KillPod.
    const stopped = applyPlan(running(), pod, { actions: actions({ killPod: true }) });
    expect(stopped.applied.map((o) => o.op)).toEqual(["KillContainer", "KillContainer", "StopPodSandbox"]);
    expect(stopped.state.runtime.sandboxStatuses[0]!.state).toBe("SANDBOX_NOTREADY");
  });

  it("keeps one dead instance per container name", () => {
    let s = running();
    for (let i = 0; i < 3; i++) {
      s = containerExit(s, "app", 1);
      s = applyPlan(s, pod, { actions: actions({ sandboxId: "sandbox-1", containersToStart: [0] }) }).state;
    }
    const apps = s.runtime.containerStatuses.filter((c) => c.name === "app");
    expect(apps.map((c) => c.state)).toEqual(["running", "exited"]);
    expect(apps[0]!.restartCount).toBe(3);
  });
});

describe("runtime actions", () => {
  it("a container exit records code, reason and finish time at the virtual clock", () => {
    const s = containerExit(advance(running(), 42), "app", 3);
    const app = s.runtime.containerStatuses.find((c) => c.name === "app")!;
    expect(app).toMatchObject({ state: "exited", exitCode: 3, reason: "Error", finishedAt: "2026-01-01T00:00:42Z" });
    const ok = containerExit(running(), "side", 0).runtime.containerStatuses.find((c) => c.name === "side")!;
    expect(ok.reason).toBe("Completed");
  });

  it("actions do not mutate the state they are given", () => {
    const s = running();
    const copy = structuredClone(s);
    containerExit(s, "app", 1);
    sandboxDies(s);
    setProbe(s, "app", "liveness", "failure");
    expect(s).toEqual(copy);
  });

  it("sandbox death and IP loss", () => {
    expect(sandboxDies(running()).runtime.sandboxStatuses[0]!.state).toBe("SANDBOX_NOTREADY");
    const noIp = sandboxLosesIp(running());
    expect(noIp.runtime.sandboxStatuses[0]!.network).toEqual({ ip: "" });
    expect(noIp.runtime.sandboxStatuses[0]!.state).toBe("SANDBOX_READY");
  });

  it("probe results are recorded by container id and sent with the request", () => {
    const s = setProbe(running(), "app", "liveness", "failure");
    const id = s.runtime.containerStatuses.find((c) => c.name === "app")!.id;
    const req = buildRequest(s, pod);
    expect(req.probes).toEqual({ [id]: { liveness: "failure" } });
  });

  it("the clock moves only when told, and back-off expiry is the shortest held-back wait", () => {
    const s = running();
    expect(s.now).toBe(EPOCH_MS);
    expect(nextBackoffExpiry(s)).toBeUndefined();
    const held = applyPlan(s, pod, {
      actions: actions({ sandboxId: "sandbox-1" }),
      heldBack: [
        { container: "app", waitSeconds: 20 },
        { container: "side", waitSeconds: 7 },
      ],
      backoff: [{ key: "k", container: "app", delaySeconds: 20, lastUpdate: "2026-01-01T00:00:00Z" }],
    }).state;
    expect(nextBackoffExpiry(held)).toBe(7);
    const later = advance(held, 7);
    expect(later.now - s.now).toBe(7000);
    const req = buildRequest(later, pod);
    expect(req.now).toBe("2026-01-01T00:00:07Z");
    expect(req.backoff).toEqual([{ key: "k", container: "app", delaySeconds: 20, lastUpdate: "2026-01-01T00:00:00Z" }]);
  });

  it("a new pod's request has no runtime status", () => {
    const req = buildRequest(initialState(pod), pod, { SidecarContainers: true });
    expect(req.runtimeStatus).toBeUndefined();
    expect(req.featureGates).toEqual({ SidecarContainers: true });
    expect(req.now).toBe("2026-01-01T00:00:00Z");
  });

  it("restartAllContainers is set while an exit matches a RestartAllContainers rule", () => {
    const rulesPod: Pod = {
      metadata: { name: "t", uid: "u" },
      spec: {
        restartPolicy: "Never",
        containers: [{ name: "a", image: "x", restartPolicy: "Never", restartPolicyRules: [{ action: "RestartAllContainers", exitCodes: { operator: "In", values: [99] } }] }],
      },
    };
    const started = applyPlan(initialState(rulesPod), rulesPod, {
      actions: actions({ killPod: true, createSandbox: true, containersToStart: [0] }),
    }).state;
    expect(buildRequest(containerExit(started, "a", 1), rulesPod).restartAllContainers).toBeUndefined();
    expect(buildRequest(containerExit(started, "a", 99), rulesPod).restartAllContainers).toBe(true);
    expect(buildRequest(containerExit(started, "a", 99), rulesPod, { RestartAllContainersOnContainerExits: false }).restartAllContainers).toBeUndefined();
  });
});
