// A stand-in for podplan's engine, used by the unit tests and by a page built without the
// wasm module. It follows shared/spec/pod-actions.md in outline (sandbox changes, init
// containers and sidecars, restarts, probes, image changes, ephemeral containers, restart
// rules and crash-loop back-off) but leaves out in-place resize and CRI config generation.
// It is NOT podplan: the real engine is the Rust core compiled to wasm.

import { containerHash } from "./hash";
import type {
  BackoffRecord,
  ContainerSpec,
  ContainerStatus,
  Decision,
  HeldBack,
  Plan,
  PlanAnswer,
  PlanEvent,
  PlanRequest,
  Step,
} from "./types";
import type { Engine as EngineT } from "./engine";

const INITIAL_BACKOFF = 10;
const MAX_BACKOFF = 300;
const BACKOFF_RESET = 600;

function restartable(c: ContainerSpec): boolean {
  return c.restartPolicy === "Always";
}

function ruleFor(c: ContainerSpec, code: number) {
  return (c.restartPolicyRules ?? []).find((r) => {
    const values = r.exitCodes?.values ?? [];
    const has = values.includes(code);
    return r.exitCodes?.operator === "NotIn" ? !has : has;
  });
}

function policyAllows(policy: string | undefined, code: number): boolean {
  if (policy === "Never") return false;
  if (policy === "OnFailure") return code !== 0;
  return true;
}

function shouldRestart(c: ContainerSpec, podPolicy: string | undefined, s: ContainerStatus | undefined): boolean {
  if (!s) return true;
  if (s.state === "running") return false;
  if (s.state !== "exited") return true;
  const code = s.exitCode ?? 0;
  if (c.restartPolicy) {
    const rule = ruleFor(c, code);
    if (rule?.action === "Restart") return true;
    return policyAllows(c.restartPolicy, code);
  }
  return policyAllows(podPolicy, code);
}

function validate(req: PlanRequest): { kind: string; path: string; message: string } | undefined {
  const pod = req.pod as unknown;
  if (!pod || typeof pod !== "object") return { kind: "InvalidInput", path: "pod", message: "pod must be an object" };
  const spec = req.pod.spec;
  if (!spec || typeof spec !== "object") return { kind: "InvalidInput", path: "pod.spec", message: "a pod needs a spec" };
  if (spec.restartPolicy !== undefined && !["Always", "OnFailure", "Never"].includes(spec.restartPolicy))
    return {
      kind: "InvalidInput",
      path: "pod.spec.restartPolicy",
      message: `unknown variant \`${String(spec.restartPolicy)}\`, expected one of Always, OnFailure, Never`,
    };
  if (!Array.isArray(spec.containers))
    return { kind: "InvalidInput", path: "pod.spec.containers", message: "missing field `containers`" };
  const names = new Set<string>();
  for (const list of ["initContainers", "containers", "ephemeralContainers"] as const) {
    const cs = spec[list] ?? [];
    if (!Array.isArray(cs)) return { kind: "InvalidInput", path: `pod.spec.${list}`, message: "invalid type: expected a sequence" };
    for (const [i, c] of cs.entries()) {
      if (typeof c?.name !== "string" || c.name === "")
        return { kind: "InvalidInput", path: `pod.spec.${list}[${i}].name`, message: "container name must not be empty" };
      if (names.has(c.name))
        return {
          kind: "InvalidInput",
          path: `pod.spec.${list}[${i}].name`,
          message: `duplicate container name "${c.name}": names must be unique across init, regular and ephemeral containers`,
        };
      names.add(c.name);
      if (c.image !== undefined && typeof c.image !== "string")
        return { kind: "InvalidInput", path: `pod.spec.${list}[${i}].image`, message: "invalid type: expected a string" };
    }
  }
  return undefined;
}

function seconds(iso: string | undefined): number {
  return iso ? Date.parse(iso) / 1000 : 0;
}

/** Computes a plan the way the kubelet would, in outline. */
export function mockPlan(req: PlanRequest): PlanAnswer {
  const invalid = validate(req);
  if (invalid) return { error: invalid };
  const pod = req.pod;
  const spec = pod.spec!;
  const gates = { restartRules: req.featureGates?.ContainerRestartRules ?? true };
  const st = req.runtimeStatus;
  const sandboxes = st?.sandboxStatuses ?? [];
  const statuses = st?.containerStatuses ?? [];
  const s0 = sandboxes[0];
  const active = s0 && s0.state === "SANDBOX_READY" ? statuses.filter((s) => (s.podSandboxId ?? s0.id) === s0.id) : [];
  const byName = (n: string) => statuses.find((s) => s.name === n);
  const activeByName = (n: string) => active.find((s) => s.name === n);
  const probe = (id: string, kind: "liveness" | "startup") => req.probes?.[id]?.[kind];
  const decisions: Decision[] = [];
  const plan: Plan = {
    actions: {
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
    },
    decisions,
  };
  const a = plan.actions;
  const init = spec.initContainers ?? [];
  const regular = spec.containers;
  const eph = spec.ephemeralContainers ?? [];
  const kill = (s: ContainerStatus, message: string, reason: string) => {
    a.containersToKill[s.id] = { name: s.name, reason, message };
    decisions.push({ action: "killContainer", container: s.name, reason: reason || "DefinitionChanged", message });
  };

  // 0. sandbox
  let changed = false;
  if (!s0) {
    changed = true;
    decisions.push({ action: "createSandbox", reason: "NoSandbox", message: "The pod has no sandbox yet: create one." });
  } else if (sandboxes.filter((s) => s.state === "SANDBOX_READY").length > 1) {
    changed = true;
    a.attempt = (s0.metadata?.attempt ?? 0) + 1;
    a.sandboxId = s0.id;
    decisions.push({ action: "createSandbox", reason: "MultipleReadySandboxes", message: "More than one sandbox is ready: kill the pod and create a new one." });
  } else if (s0.state !== "SANDBOX_READY") {
    changed = true;
    a.attempt = (s0.metadata?.attempt ?? 0) + 1;
    a.sandboxId = s0.id;
    decisions.push({ action: "createSandbox", reason: "SandboxNotReady", message: `Sandbox ${s0.id} is not ready: kill the pod and create a new sandbox (attempt ${a.attempt}).` });
  } else if (!spec.hostNetwork && s0.network && s0.network.ip === "") {
    changed = true;
    a.attempt = (s0.metadata?.attempt ?? 0) + 1;
    a.sandboxId = s0.id;
    decisions.push({ action: "createSandbox", reason: "SandboxHasNoIP", message: `Sandbox ${s0.id} has no IP address: kill the pod and create a new sandbox.` });
  } else {
    a.attempt = s0.metadata?.attempt ?? 0;
    a.sandboxId = s0.id;
  }
  if (changed) {
    a.killPod = true;
    a.createSandbox = true;
    if (spec.restartPolicy === "Never" && a.attempt !== 0 && statuses.length > 0) {
      a.createSandbox = false;
      decisions.push({ action: "killPod", reason: "NeverRestart", message: "restartPolicy is Never and containers have already run: do not create a new sandbox." });
      return finish(req, plan);
    }
    const toStart: number[] = [];
    regular.forEach((c, i) => {
      let runOnce = spec.restartPolicy === "OnFailure";
      if (gates.restartRules && c.restartPolicy) runOnce = c.restartPolicy === "OnFailure";
      const s = byName(c.name);
      if (runOnce && s && s.state === "exited" && (s.exitCode ?? 0) === 0) return;
      toStart.push(i);
    });
    if (toStart.length === 0 && regular.some((c) => byName(c.name))) {
      a.createSandbox = false;
      decisions.push({ action: "killPod", reason: "PodCompleted", message: "Every container has finished and none is to run again: stop the pod, no new sandbox." });
      return finish(req, plan);
    }
    if (init.length > 0) {
      a.initContainersToStart = [0];
      decisions.push({ action: "startInitContainer", container: init[0]!.name, reason: "SandboxCreated", message: `Start the first init container ${init[0]!.name} in the new sandbox.` });
    } else {
      a.containersToStart = toStart;
      for (const i of toStart)
        decisions.push({ action: "startContainer", container: regular[i]!.name, reason: "SandboxCreated", message: `Start container ${regular[i]!.name} in the new sandbox.` });
    }
    return finish(req, plan);
  }

  // 3. ephemeral
  eph.forEach((e, i) => {
    if (!byName(e.name)) {
      a.ephemeralContainersToStart.push(i);
      decisions.push({ action: "startEphemeralContainer", container: e.name, reason: "EphemeralContainerAdded", message: `Ephemeral container ${e.name} has never run: start it.` });
    }
  });

  // 5. init containers
  let podInit = true;
  if (init.length > 0) {
    podInit = active.some((s) => regular.some((c) => c.name === s.name));
    let prevInit = podInit;
    const toStart: number[] = [];
    for (let i = init.length - 1; i >= 0; i--) {
      const c = init[i]!;
      const s = activeByName(c.name);
      if (!s) {
        if (prevInit && restartable(c)) toStart.push(i);
        continue;
      }
      if (prevInit && !restartable(c)) continue;
      handle: {
        if (s.state === "created") {
          toStart.push(i);
        } else if (s.state === "running" && restartable(c)) {
          if (c.startupProbe) {
            const r = probe(s.id, "startup");
            if (r === undefined || r === "unknown") {
              decisions.push({ action: "wait", container: c.name, reason: "StartupProbePending", message: `Sidecar ${c.name} has not passed its startup probe yet: wait before starting the next init container.` });
              break handle;
            }
            if (r === "failure") {
              kill(s, `Init container ${c.name} failed startup probe`, "StartupProbe");
              toStart.push(i);
              break handle;
            }
          }
          if (i === init.length - 1) podInit = true;
          else if (!prevInit) toStart.push(i + 1);
          if (containerHash(c.name, c.image ?? "") !== (s.hash ?? 0)) {
            kill(s, `Init container ${c.name} definition changed`, "");
            toStart.push(i);
            break handle;
          }
          if (c.livenessProbe && probe(s.id, "liveness") === "failure") {
            kill(s, `Init container ${c.name} failed liveness probe`, "LivenessProbe");
            toStart.push(i);
          }
        } else if (s.state === "running") {
          decisions.push({ action: "wait", container: c.name, reason: "InitContainerRunning", message: `Init container ${c.name} is still running: wait for it to finish.` });
        } else if (s.state === "exited" && restartable(c)) {
          toStart.push(i);
        } else if (s.state === "exited") {
          const failed = s.reason === "OOMKilled" || (s.exitCode ?? 0) !== 0;
          if (failed) {
            let ok = spec.restartPolicy !== "Never";
            if (gates.restartRules) ok = shouldRestart(c, spec.restartPolicy, byName(c.name));
            if (!ok) {
              a.killPod = true;
              a.initContainersToStart = [];
              decisions.push({ action: "killPod", container: c.name, reason: "InitContainerFailed", message: `Init container ${c.name} failed and may not restart: the pod has failed.` });
              return finish(req, plan);
            }
            toStart.push(i);
          } else if (i === init.length - 1) podInit = true;
          else toStart.push(i + 1);
        } else {
          kill(s, 'Init container is in "unknown" state, try killing it before restart', "Unknown");
          toStart.push(i);
        }
      }
      prevInit = true;
    }
    if (!prevInit) toStart.push(0);
    a.initContainersToStart = [...new Set(toStart)].sort((x, y) => x - y);
    for (const i of a.initContainersToStart) {
      const c = init[i]!;
      const s = activeByName(c.name);
      const why = s?.state === "exited" ? (restartable(c) ? "SidecarExited" : "InitContainerFailed") : "NextInitContainer";
      decisions.push({
        action: "startInitContainer",
        container: c.name,
        reason: why,
        message: why === "NextInitContainer" ? `Start init container ${c.name}: the ones before it are done or running as sidecars.` : `Restart init container ${c.name}: it exited.`,
      });
    }
  }
  if (!podInit) return finish(req, plan);

  // 6. regular containers
  let keep = 0;
  regular.forEach((c, i) => {
    const s = byName(c.name);
    if (!s || s.state !== "running") {
      if (shouldRestart(c, spec.restartPolicy, s)) {
        a.containersToStart.push(i);
        decisions.push({
          action: "startContainer",
          container: c.name,
          reason: s ? "ContainerExited" : "NotStarted",
          message: s ? `Container ${c.name} exited with code ${s.exitCode ?? 0} and its restart policy says restart.` : `Container ${c.name} has not run yet: start it.`,
        });
        if (s?.state === "unknown") kill(s, 'Container is in "unknown" state, try killing it before restart', "Unknown");
      } else if (s) {
        decisions.push({ action: "keepContainer", container: c.name, reason: "Completed", message: `Container ${c.name} exited with code ${s.exitCode ?? 0}; its restart policy says leave it.` });
      }
      return;
    }
    let restart = spec.restartPolicy !== "Never";
    if (gates.restartRules && c.restartPolicy) restart = c.restartPolicy !== "Never";
    let msg: string;
    let reason: string;
    if (containerHash(c.name, c.image ?? "") !== (s.hash ?? 0)) {
      msg = `Container ${c.name} definition changed`;
      reason = "";
      restart = true;
    } else if (probe(s.id, "liveness") === "failure") {
      msg = `Container ${c.name} failed liveness probe`;
      reason = "LivenessProbe";
    } else if (probe(s.id, "startup") === "failure") {
      msg = `Container ${c.name} failed startup probe`;
      reason = "StartupProbe";
    } else {
      keep++;
      decisions.push({ action: "keepContainer", container: c.name, reason: "Running", message: `Container ${c.name} is running and healthy: keep it.` });
      return;
    }
    if (restart) {
      msg += ", will be restarted";
      a.containersToStart.push(i);
    }
    kill(s, msg, reason);
    if (restart) decisions.push({ action: "startContainer", container: c.name, reason: "Restart", message: `Start ${c.name} again after the kill.` });
  });
  if (keep === 0 && a.containersToStart.length === 0) {
    a.killPod = true;
    a.initContainersToStart = [];
    decisions.push({ action: "killPod", reason: "NothingToRun", message: "No container is running or about to start: stop the pod." });
  }
  return finish(req, plan);
}

/** Back-off, steps and events (SyncPod). */
function finish(req: PlanRequest, plan: Plan): Plan {
  const a = plan.actions;
  const spec = req.pod.spec!;
  const statuses = req.runtimeStatus?.containerStatuses ?? [];
  const steps: Step[] = [];
  const events: PlanEvent[] = [];
  const heldBack: HeldBack[] = [];
  const backoff = new Map<string, BackoffRecord>((req.backoff ?? []).map((r) => [r.key, { ...r }]));
  const now = req.now ? seconds(req.now) : undefined;
  const meta = req.pod.metadata ?? {};

  if (a.createSandbox && a.sandboxId)
    events.push({ type: "Normal", reason: "SandboxChanged", message: "Pod sandbox changed, it will be killed and re-created." });
  if (a.killPod) {
    steps.push({ op: "KillPod" });
  } else {
    for (const [id, k] of Object.entries(a.containersToKill)) {
      steps.push({ op: "KillContainer", containerId: id, name: k.name });
      events.push({ type: "Normal", reason: "Killing", message: k.message ?? `Stopping container ${k.name}` });
    }
  }
  if (a.createSandbox) steps.push({ op: "RunPodSandbox", attempt: a.attempt });

  // doBackOff: returns true when the start may go ahead.
  const mayStart = (c: ContainerSpec): boolean => {
    const exited = statuses.find((s) => s.name === c.name && s.state === "exited");
    if (!exited || now === undefined) return true;
    const key = `${meta.name ?? ""}_${meta.namespace ?? ""}_${meta.uid ?? ""}_${c.name}_${c.image ?? ""}`;
    const finished = seconds(exited.finishedAt);
    const rec = backoff.get(key);
    const expired = !rec || now - seconds(rec.lastUpdate) > BACKOFF_RESET;
    if (!expired && now - finished < rec!.delaySeconds) {
      const wait = Math.ceil(finished + rec!.delaySeconds - now);
      heldBack.push({ container: c.name, waitSeconds: wait });
      events.push({ type: "Warning", reason: "BackOff", message: `Back-off restarting failed container ${c.name} in pod ${meta.name ?? ""}_${meta.namespace ?? ""}(${meta.uid ?? ""})` });
      plan.decisions!.push({ action: "wait", container: c.name, reason: "CrashLoopBackOff", message: `Container ${c.name} is in crash-loop back-off: its start is held back ${wait}s (delay ${rec!.delaySeconds}s since it finished).` });
      return false;
    }
    const delay = expired ? INITIAL_BACKOFF : Math.min(rec!.delaySeconds * 2, MAX_BACKOFF);
    backoff.set(key, { key, container: c.name, delaySeconds: delay, lastUpdate: new Date(now * 1000).toISOString().replace(".000Z", "Z") });
    return true;
  };
  const start = (c: ContainerSpec, type: string) => {
    if (!mayStart(c)) return false;
    steps.push({ op: "CreateContainer", name: c.name, type });
    steps.push({ op: "StartContainer", name: c.name, type });
    events.push({ type: "Normal", reason: "Created", message: `Created container: ${c.name}` });
    events.push({ type: "Normal", reason: "Started", message: `Started container ${c.name}` });
    return true;
  };
  for (const i of a.ephemeralContainersToStart) start(spec.ephemeralContainers![i]!, "ephemeral");
  for (const i of a.initContainersToStart) {
    const c = spec.initContainers![i]!;
    if (!start(c, "init") && !restartable(c)) break;
  }
  for (const i of a.containersToStart) start(spec.containers[i]!, "regular");
  plan.steps = steps;
  plan.events = events;
  if (heldBack.length) plan.heldBack = heldBack;
  if (backoff.size) plan.backoff = [...backoff.values()];
  return plan;
}

export const mockEngine: EngineT = {
  plan: (request) => {
    try {
      return mockPlan(request);
    } catch (e) {
      return { error: { kind: "InvalidInput", path: "", message: String(e) } };
    }
  },
  version: "stand-in engine (podplan's wasm module was not built into this page)",
  real: false,
};
