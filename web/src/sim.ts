// The simulated container runtime and virtual clock.
//
// The page plays the part of the kubelet's surroundings: it keeps what a CRI runtime would
// report (sandboxes and containers), what the prober has recorded, the actuated-resources
// checkpoint and the crash-loop back-off records, and a clock that only moves when the
// user says so. After each plan it carries out the plan's steps the way SyncPod would;
// the user's runtime actions (a container exits, a probe fails, the sandbox dies, time
// passes) change the state between syncs. Everything here is pure: functions take a state
// and return a new one.

import { NODE_CONTEXT, NODE_IP } from "./defaults";
import { containerHash } from "./hash";
import type {
  ActuatedResources,
  BackoffRecord,
  ContainerSpec,
  ContainerStatus,
  HeldBack,
  Plan,
  PlanRequest,
  Pod,
  ProbeResults,
  ResourceRequirements,
  RuntimeStatus,
  SandboxStatus,
  Step,
} from "./types";

/** The clock of a new session: 2026-01-01T00:00:00Z. */
export const EPOCH_MS = Date.UTC(2026, 0, 1);

/** Exit code a container gets when the kubelet kills it (SIGKILL after the grace period). */
export const KILLED_EXIT_CODE = 137;

export interface SimState {
  /** Virtual clock, milliseconds since the Unix epoch. */
  now: number;
  /** What the runtime reports (newest sandbox and newest containers first). */
  runtime: RuntimeStatus;
  /** Prober results by container id. */
  probes: Record<string, ProbeResults>;
  /** The actuated-resources checkpoint. */
  actuated: ActuatedResources;
  /** Back-off records from the previous plan. */
  backoff: BackoffRecord[];
  /** Starts the previous plan held back (for "advance to the next back-off expiry"). */
  heldBack: HeldBack[];
  /** Id counters, so that replays give the same ids. */
  nextSandbox: number;
  nextContainer: number;
}

export type ContainerKind = "init" | "sidecar" | "regular" | "ephemeral";

/** One thing the simulated runtime did while carrying out a plan. */
export interface AppliedOp {
  op: string;
  container?: string;
  id?: string;
  text: string;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

export function initialState(pod: Pod, now = EPOCH_MS): SimState {
  return {
    now,
    runtime: {
      id: pod.metadata?.uid ?? "",
      name: pod.metadata?.name ?? "",
      namespace: pod.metadata?.namespace ?? "",
      sandboxStatuses: [],
      containerStatuses: [],
    },
    probes: {},
    actuated: { containers: {} },
    backoff: [],
    heldBack: [],
    nextSandbox: 1,
    nextContainer: 1,
  };
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Finds a container in the spec by name, with its kind. */
export function findContainer(pod: Pod, name: string): { spec: ContainerSpec; kind: ContainerKind; index: number } | undefined {
  const spec = pod.spec;
  if (!spec) return undefined;
  const lists: Array<[ContainerSpec[] | undefined, "init" | "regular" | "ephemeral"]> = [
    [spec.initContainers, "init"],
    [spec.containers, "regular"],
    [spec.ephemeralContainers, "ephemeral"],
  ];
  for (const [list, kind] of lists) {
    if (!Array.isArray(list)) continue;
    const index = list.findIndex((c) => c?.name === name);
    if (index >= 0) {
      const c = list[index]!;
      return { spec: c, kind: kind === "init" && c.restartPolicy === "Always" ? "sidecar" : kind, index };
    }
  }
  return undefined;
}

/** Every container name of the spec, in spec order (init, regular, ephemeral). */
export function specContainers(pod: Pod): Array<{ name: string; kind: ContainerKind }> {
  const out: Array<{ name: string; kind: ContainerKind }> = [];
  const spec = pod.spec;
  if (!spec) return out;
  for (const c of Array.isArray(spec.initContainers) ? spec.initContainers : [])
    out.push({ name: c.name, kind: c.restartPolicy === "Always" ? "sidecar" : "init" });
  for (const c of Array.isArray(spec.containers) ? spec.containers : []) out.push({ name: c.name, kind: "regular" });
  for (const c of Array.isArray(spec.ephemeralContainers) ? spec.ephemeralContainers : []) out.push({ name: c.name, kind: "ephemeral" });
  return out;
}

/** The latest sandbox, if any. */
export function latestSandbox(state: SimState): SandboxStatus | undefined {
  return state.runtime.sandboxStatuses[0];
}

/** The newest status of a container name. */
export function newestStatus(state: SimState, name: string): ContainerStatus | undefined {
  return state.runtime.containerStatuses.find((c) => c.name === name);
}

/** The newest instance of `name` that is still alive (running or created). */
export function liveContainer(state: SimState, name: string): ContainerStatus | undefined {
  return state.runtime.containerStatuses.find((c) => c.name === name && (c.state === "running" || c.state === "created"));
}

/** Whether the RestartAllContainers flag is up: some exited container matched such a rule. */
export function restartAllRequested(state: SimState, pod: Pod, gates: Record<string, boolean>): boolean {
  if (gates.RestartAllContainersOnContainerExits === false) return false;
  const conditions = (pod.status?.conditions ?? []) as unknown;
  if (Array.isArray(conditions) && conditions.some((c) => c?.type === "AllContainersRestarting" && c?.status === "True")) return true;
  return state.runtime.containerStatuses.some((s) => {
    if (s.state !== "exited") return false;
    const c = findContainer(pod, s.name)?.spec;
    const code = s.exitCode ?? 0;
    const rule = (c?.restartPolicyRules ?? []).find((r) => {
      const has = (r.exitCodes?.values ?? []).includes(code);
      return r.exitCodes?.operator === "NotIn" ? !has : has;
    });
    return rule?.action === "RestartAllContainers";
  });
}

/** Builds the request for the next sync. */
export function buildRequest(state: SimState, pod: Pod, gates: Record<string, boolean> = {}): PlanRequest {
  const req: PlanRequest = { pod, apiDefaults: true, now: iso(state.now), node: NODE_CONTEXT };
  if (state.runtime.sandboxStatuses.length || state.runtime.containerStatuses.length) {
    const rt = clone(state.runtime);
    const ip = rt.sandboxStatuses[0]?.network?.ip;
    rt.ips = ip ? [ip] : [];
    if (!rt.ips.length) delete rt.ips;
    req.runtimeStatus = rt;
  }
  const live = new Set(state.runtime.containerStatuses.map((c) => c.id));
  const probes = Object.fromEntries(Object.entries(state.probes).filter(([id]) => live.has(id)));
  if (Object.keys(probes).length) req.probes = probes;
  if (Object.keys(gates).length) req.featureGates = gates;
  if (Object.keys(state.actuated.containers).length || state.actuated.pod) req.actuatedResources = clone(state.actuated);
  if (restartAllRequested(state, pod, gates)) req.restartAllContainers = true;
  if (state.backoff.length) req.backoff = clone(state.backoff);
  return req;
}

// ---------------------------------------------------------------------------------------
// Carrying out a plan

/** A plan step in the simulator's own terms. */
export type SimOp =
  | { kind: "killPod" }
  | { kind: "killContainer"; id?: string; name?: string }
  | { kind: "runSandbox"; attempt: number }
  | { kind: "create"; name: string; restartCount?: number }
  | { kind: "start"; name: string }
  | { kind: "update"; name?: string; id?: string }
  | { kind: "updatePod" }
  | { kind: "remove"; id?: string; name?: string; kill: boolean };

function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

function stepName(s: Step): string | undefined {
  const meta = (s.config as { metadata?: { name?: unknown } } | undefined)?.metadata;
  return str(s.name) ?? str(s.container) ?? str(s.containerName) ?? str(meta?.name);
}

function stepId(s: Step): string | undefined {
  return str(s.containerId) ?? str(s.containerID) ?? str(s.id);
}

/** Reads the engine's steps. Undefined when a step cannot be understood. */
export function opsFromSteps(steps: Step[], plan: Plan): SimOp[] | undefined {
  const ops: SimOp[] = [];
  for (const s of steps) {
    switch (s.op) {
      case "KillPod":
        ops.push({ kind: "killPod" });
        break;
      case "KillContainer": {
        const id = stepId(s);
        const name = stepName(s);
        if (!id && !name) return undefined;
        ops.push({ kind: "killContainer", id, name });
        break;
      }
      case "WriteNodeFiles":
        // Node files: nothing to model in the playground's runtime.
        break;
      case "RunPodSandbox":
        ops.push({ kind: "runSandbox", attempt: typeof s.attempt === "number" ? s.attempt : plan.actions.attempt });
        break;
      case "CreateContainer":
      case "StartContainer": {
        const name = stepName(s);
        if (!name) return undefined;
        // CreateContainer's `attempt` is the restart count (ContainerMetadata.attempt).
        if (s.op === "CreateContainer") ops.push({ kind: "create", name, restartCount: typeof s.attempt === "number" ? s.attempt : undefined });
        else ops.push({ kind: "start", name });
        break;
      }
      case "UpdateContainerResources": {
        const name = stepName(s);
        const id = stepId(s);
        ops.push(name || id ? { kind: "update", name, id } : { kind: "updatePod" });
        break;
      }
      case "UpdatePodSandboxResources":
      case "UpdatePodResources":
        ops.push({ kind: "updatePod" });
        break;
      case "RemoveContainer": {
        const id = stepId(s);
        const name = stepName(s);
        if (!id && !name) return undefined;
        ops.push({ kind: "remove", id, name, kill: false });
        break;
      }
      default:
        // An operation the simulator has no model for (e.g. DRA preparation): nothing to do.
        break;
    }
  }
  return ops;
}

/** Derives the SyncPod operations from `plan.actions` (when the plan carries no steps). */
export function opsFromActions(plan: Plan, pod: Pod): SimOp[] {
  const a = plan.actions;
  const ops: SimOp[] = [];
  const held = new Set((plan.heldBack ?? []).map((h) => h.container));
  const failed = new Set((plan.errors ?? []).map((e) => e.container));
  const spec = pod.spec;
  if (a.killPod) ops.push({ kind: "killPod" });
  else {
    for (const [id, k] of Object.entries(a.containersToKill ?? {})) ops.push({ kind: "killContainer", id, name: k.name });
    for (const r of a.containersToReset ?? []) ops.push({ kind: "remove", id: r.containerId, name: r.name, kill: r.kill });
  }
  if (a.createSandbox) ops.push({ kind: "runSandbox", attempt: a.attempt });
  for (const list of Object.values(a.containersToUpdate ?? {}))
    for (const u of list) ops.push({ kind: "update", name: u.name, id: u.containerId });
  if (a.updatePodResources || a.updatePodLevelResources) ops.push({ kind: "updatePod" });
  const startable = (name: string | undefined) => !!name && !held.has(name) && !failed.has(name);
  const starts = (name: string) => ops.push({ kind: "create", name }, { kind: "start", name });
  for (const i of a.ephemeralContainersToStart ?? []) {
    const name = spec?.ephemeralContainers?.[i]?.name;
    if (startable(name)) starts(name!);
  }
  for (const i of a.initContainersToStart ?? []) {
    const c = spec?.initContainers?.[i];
    if (startable(c?.name)) starts(c!.name);
    else if (c && c.restartPolicy !== "Always") return ops; // a classic init container that cannot start aborts the sync
  }
  for (const i of a.containersToStart ?? []) {
    const name = spec?.containers?.[i]?.name;
    if (startable(name)) starts(name!);
  }
  return ops;
}

/** Chooses how to carry out a plan: its own steps if they can be read, else its actions. */
export function planOps(plan: Plan, pod: Pod): { ops: SimOp[]; source: "steps" | "actions" } {
  // A plan with a steps list (even an empty one: no CRI calls) is carried out as listed.
  if (Array.isArray(plan.steps)) {
    const ops = opsFromSteps(plan.steps, plan);
    if (ops) {
      // Never start what the plan says is held back, even if a step lists it.
      const held = new Set((plan.heldBack ?? []).map((h) => h.container));
      return { ops: ops.filter((o) => !((o.kind === "create" || o.kind === "start") && held.has(o.name))), source: "steps" };
    }
  }
  return { ops: opsFromActions(plan, pod), source: "actions" };
}

function exitContainer(c: ContainerStatus, now: number, code: number, reason?: string) {
  c.state = "exited";
  c.exitCode = code;
  c.finishedAt = iso(now);
  if (reason) c.reason = reason;
  else delete c.reason;
}

function resourcesOf(c: ContainerSpec | undefined): ResourceRequirements {
  const r = c?.resources;
  const out: ResourceRequirements = {};
  if (r?.requests && Object.keys(r.requests).length) out.requests = { ...r.requests };
  if (r?.limits && Object.keys(r.limits).length) out.limits = { ...r.limits };
  return out;
}

function parseHash(v: unknown): number | undefined {
  if (typeof v !== "string" || !/^[0-9a-f]{1,8}$/i.test(v)) return undefined;
  return parseInt(v, 16);
}

/** Carries out a plan on the runtime; returns the new state and what was done. */
export function applyPlan(state0: SimState, pod: Pod, plan: Plan): { state: SimState; applied: AppliedOp[]; source: "steps" | "actions" } {
  const state = clone(state0);
  const rt = state.runtime;
  const applied: AppliedOp[] = [];
  const { ops, source } = planOps(plan, pod);
  const now = state.now;
  const meta = pod.metadata ?? {};
  const killOne = (c: ContainerStatus, why: string) => {
    exitContainer(c, now, KILLED_EXIT_CODE);
    applied.push({ op: "KillContainer", container: c.name, id: c.id, text: `${why} ${c.name} (${c.id}); it exits with code ${KILLED_EXIT_CODE}` });
  };
  const alive = (c: ContainerStatus) => c.state === "running" || c.state === "created" || c.state === "unknown";
  const created = new Map<string, ContainerStatus>();

  const newContainer = (name: string, stepRestartCount?: number): ContainerStatus | undefined => {
    const found = findContainer(pod, name);
    const sb = rt.sandboxStatuses[0];
    if (!found || !sb) return undefined;
    const entry = plan.containerConfigs?.find((e) => e.name === name);
    const annotations = (entry?.config?.annotations ?? {}) as Record<string, unknown>;
    const image = found.spec.image ?? "";
    const previous = rt.containerStatuses.find((c) => c.name === name);
    const restartCount = stepRestartCount ?? entry?.restartCount ?? (previous ? (previous.restartCount ?? 0) + 1 : 0);
    const c: ContainerStatus = {
      id: `containerd://${name}-${state.nextContainer++}`,
      name,
      podSandboxId: sb.id,
      state: "created",
      createdAt: iso(now),
      exitCode: 0,
      image,
      imageRef: image,
      hash: parseHash(annotations["io.kubernetes.container.hash"]) ?? containerHash(name, image),
      restartCount,
    };
    rt.containerStatuses.unshift(c);
    return c;
  };

  for (const op of ops) {
    switch (op.kind) {
      case "killPod": {
        const running = rt.containerStatuses.filter(alive);
        for (const c of running) killOne(c, "Stop");
        const ready = rt.sandboxStatuses.filter((s) => s.state === "SANDBOX_READY");
        for (const s of ready) {
          s.state = "SANDBOX_NOTREADY";
          applied.push({ op: "StopPodSandbox", id: s.id, text: `Stop sandbox ${s.id}` });
        }
        if (!running.length && !ready.length) applied.push({ op: "KillPod", text: "Kill the pod: nothing is running, nothing to do" });
        // SyncPod purges the init containers when it is about to create a new sandbox.
        if (plan.actions.createSandbox) {
          const inits = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
          const before = rt.containerStatuses.length;
          rt.containerStatuses = rt.containerStatuses.filter((c) => !inits.has(c.name));
          if (rt.containerStatuses.length < before)
            applied.push({ op: "RemoveContainer", text: `Remove the ${before - rt.containerStatuses.length} old init container(s) before the new sandbox` });
        }
        break;
      }
      case "killContainer": {
        const c = rt.containerStatuses.find((x) => (op.id ? x.id === op.id : x.name === op.name && alive(x)));
        if (c && alive(c)) killOne(c, "Kill");
        else applied.push({ op: "KillContainer", container: op.name, id: op.id, text: `Kill ${op.name ?? op.id}: not running, nothing to do` });
        break;
      }
      case "remove": {
        const c = rt.containerStatuses.find((x) => (op.id ? x.id === op.id : x.name === op.name));
        if (!c) break;
        if (op.kill && alive(c)) killOne(c, "Kill (grace 0)");
        rt.containerStatuses = rt.containerStatuses.filter((x) => x !== c);
        applied.push({ op: "RemoveContainer", container: c.name, id: c.id, text: `Remove ${c.name} (${c.id}), keeping its logs` });
        break;
      }
      case "runSandbox": {
        const n = state.nextSandbox++;
        const spec = pod.spec;
        const sb: SandboxStatus = {
          id: `sandbox-${n}`,
          metadata: { name: meta.name ?? "", uid: meta.uid ?? "", namespace: meta.namespace ?? "", attempt: op.attempt },
          state: "SANDBOX_READY",
          createdAt: now * 1_000_000 + n,
          network: { ip: spec?.hostNetwork ? NODE_IP : `10.244.0.${10 + n}` },
          linux: {
            namespaces: {
              options: {
                network: spec?.hostNetwork ? "NODE" : "POD",
                pid: spec?.hostPID ? "NODE" : spec?.shareProcessNamespace ? "POD" : "CONTAINER",
                ipc: spec?.hostIPC ? "NODE" : "POD",
              },
            },
          },
        };
        rt.sandboxStatuses.unshift(sb);
        applied.push({ op: "RunPodSandbox", id: sb.id, text: `Create sandbox ${sb.id} (attempt ${op.attempt}) with IP ${sb.network!.ip}` });
        break;
      }
      case "create": {
        const c = newContainer(op.name, op.restartCount);
        if (c) {
          created.set(op.name, c);
          applied.push({ op: "CreateContainer", container: c.name, id: c.id, text: `Create ${c.name} as ${c.id} (restart count ${c.restartCount ?? 0})` });
        }
        break;
      }
      case "start": {
        const c = created.get(op.name) ?? newContainer(op.name);
        created.delete(op.name);
        if (!c) {
          applied.push({ op: "StartContainer", container: op.name, text: `Start ${op.name}: no such container in the spec or no sandbox, skipped` });
          break;
        }
        c.state = "running";
        c.startedAt = iso(now);
        const found = findContainer(pod, op.name);
        const probes: ProbeResults = {};
        if (found?.spec.startupProbe) probes.startup = "unknown";
        if (found?.spec.livenessProbe) probes.liveness = "success";
        if (probes.startup || probes.liveness) state.probes[c.id] = probes;
        if (found && found.kind !== "ephemeral") state.actuated.containers[op.name] = resourcesOf(found.spec);
        applied.push({ op: "StartContainer", container: c.name, id: c.id, text: `Start ${c.name} (${c.id})` });
        break;
      }
      case "update": {
        const c = rt.containerStatuses.find((x) => (op.id ? x.id === op.id : x.name === op.name && alive(x)));
        const name = c?.name ?? op.name;
        if (!name) break;
        const found = findContainer(pod, name);
        state.actuated.containers[name] = resourcesOf(found?.spec);
        applied.push({ op: "UpdateContainerResources", container: name, id: c?.id, text: `Resize ${name} in place to its spec resources` });
        break;
      }
      case "updatePod": {
        if (pod.spec?.resources) state.actuated.pod = resourcesOf(pod.spec as unknown as ContainerSpec);
        applied.push({ op: "UpdatePodSandboxResources", text: "Update the pod-level cgroup" });
        break;
      }
    }
  }
  // Prune terminated init containers, keeping the newest instance per name (SyncPod).
  const inits = new Set((pod.spec?.initContainers ?? []).map((c) => c.name));
  garbageCollect(state, inits);
  state.backoff = plan.backoff ?? [];
  state.heldBack = plan.heldBack ?? [];
  return { state, applied, source };
}

/**
 * Housekeeping the kubelet does outside SyncPod: at most one dead container per name
 * (MaxPerPodContainer = 1) and no dead sandbox that is not the newest and holds nothing.
 */
function garbageCollect(state: SimState, _inits: Set<string>) {
  const rt = state.runtime;
  const seenDead = new Set<string>();
  rt.containerStatuses = rt.containerStatuses.filter((c) => {
    if (c.state !== "exited") return true;
    if (seenDead.has(c.name)) return false;
    seenDead.add(c.name);
    return true;
  });
  const used = new Set(rt.containerStatuses.map((c) => c.podSandboxId));
  rt.sandboxStatuses = rt.sandboxStatuses.filter((s, i) => i === 0 || s.state === "SANDBOX_READY" || used.has(s.id));
  const ids = new Set(rt.containerStatuses.map((c) => c.id));
  for (const id of Object.keys(state.probes)) if (!ids.has(id)) delete state.probes[id];
}

// ---------------------------------------------------------------------------------------
// The user's runtime actions

/** The container named `name` exits with `code` (the newest live instance). */
export function containerExit(state0: SimState, name: string, code: number): SimState {
  const state = clone(state0);
  const c = liveContainer(state, name);
  if (c) exitContainer(c, state.now, code, code === 0 ? "Completed" : "Error");
  return state;
}

/** The prober records a result for the newest live instance of `name`. */
export function setProbe(state0: SimState, name: string, probe: "liveness" | "startup", result: "success" | "failure"): SimState {
  const state = clone(state0);
  const c = liveContainer(state, name);
  if (c) state.probes[c.id] = { ...state.probes[c.id], [probe]: result };
  return state;
}

/** The newest sandbox dies (its state becomes SANDBOX_NOTREADY). */
export function sandboxDies(state0: SimState): SimState {
  const state = clone(state0);
  const sb = latestSandbox(state);
  if (sb) sb.state = "SANDBOX_NOTREADY";
  return state;
}

/** The newest sandbox loses its IP address. */
export function sandboxLosesIp(state0: SimState): SimState {
  const state = clone(state0);
  const sb = latestSandbox(state);
  if (sb) sb.network = { ip: "" };
  return state;
}

/** The clock moves forward. */
export function advance(state0: SimState, seconds: number): SimState {
  const state = clone(state0);
  state.now += Math.max(0, Math.round(seconds)) * 1000;
  return state;
}

/** Seconds until the earliest held-back start may go ahead, if any. */
export function nextBackoffExpiry(state: SimState): number | undefined {
  const waits = state.heldBack.map((h) => h.waitSeconds).filter((w) => typeof w === "number" && w >= 0);
  return waits.length ? Math.min(...waits) : undefined;
}
