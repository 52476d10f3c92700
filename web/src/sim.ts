// The clock and the world between syncs, as the page keeps them.
//
// The runtime itself is podplan's runtime model (core::sim, through the wasm module): it
// carries out every plan and every runtime event (a container exits, a probe reports, the
// sandbox dies or loses its IP, time passes). This file only keeps what the model answers:
// the request of the next sync ("the world": runtime status, probe results, checkpoints,
// back-off records, the clock), and reads the few facts the page shows from it.

import { NODE_CONTEXT } from "./defaults";
import { isError, type Engine } from "./engine";
import type {
  ContainerStatus,
  ErrorAnswer,
  HeldBack,
  HookControls,
  Plan,
  PlanRequest,
  Pod,
  ProbeResults,
  RuntimeStatus,
  SandboxStatus,
  SimEvent,
  Step,
} from "../../wasm/types/podplan";

/** The clock of a new session: 2026-01-01T00:00:00Z. */
export const EPOCH_MS = Date.UTC(2026, 0, 1);

/** What the runtime reports, with its lists always present. */
export type Runtime = RuntimeStatus & { sandboxStatuses: SandboxStatus[]; containerStatuses: ContainerStatus[] };

export interface SimState {
  /** The next sync's request as podplan's runtime model left it. */
  world: PlanRequest;
  /** The virtual clock (`world.now`), milliseconds since the Unix epoch. */
  now: number;
  /** `world.runtimeStatus` (newest sandbox and newest containers first). */
  runtime: Runtime;
  /** `world.probes`: prober results by container id. */
  probes: Record<string, ProbeResults>;
  /** Starts the previous plan held back (for "advance to the next back-off expiry"). */
  heldBack: HeldBack[];
  /** The world's hook behaviour ("postStart fails", "preStop takes N s"), kept by the model. */
  hooks: HookControls;
  /**
   * Seconds the clock has moved since the plan that left `heldBack` was made (the time its
   * steps took, then any advance): the back-offs it reports are that much closer to expiry.
   */
  elapsed: number;
}

export function iso(ms: number): string {
  return new Date(ms).toISOString().replace(".000Z", "Z");
}

/** The state for a world the module answered. */
function stateOf(world: PlanRequest, heldBack: HeldBack[], hooks: HookControls = {}, elapsed = 0): SimState {
  const rt = world.runtimeStatus ?? {};
  const now = world.now ? Date.parse(world.now) : EPOCH_MS;
  return {
    world,
    now,
    runtime: { ...rt, sandboxStatuses: rt.sandboxStatuses ?? [], containerStatuses: rt.containerStatuses ?? [] },
    probes: world.probes ?? {},
    heldBack,
    hooks,
    elapsed,
  };
}

/** Nothing exists yet; the clock reads `now`. */
export function initialState(pod: Pod, now = EPOCH_MS): SimState {
  // The API server stamps the pod's creation time (kubectl's AGE counts from it): the
  // session's start, unless the manifest says otherwise.
  const created = { ...pod, metadata: { ...pod.metadata, creationTimestamp: pod.metadata?.creationTimestamp ?? iso(now) } };
  return stateOf({ pod: created, apiDefaults: true, node: NODE_CONTEXT, now: iso(now) }, []);
}

/**
 * The request of the next sync: the world with the pod in force. The pod's spec is the
 * editor's; its status is the one the world keeps (the kubelet owns the status).
 */
export function buildRequest(state: SimState, pod: Pod, gates: Record<string, boolean> = {}): PlanRequest {
  const world = structuredClone(state.world);
  const status = world.pod?.status ?? pod.status;
  // The creation time is the API server's, like the status: an edit keeps it.
  const creationTimestamp = pod.metadata?.creationTimestamp ?? world.pod?.metadata?.creationTimestamp;
  // So are a deletion's marks (`kubectl delete`: the model's `delete` event sets them on
  // the world's pod): an edit keeps them.
  const deletionTimestamp = world.pod?.metadata?.deletionTimestamp;
  const deletionGracePeriodSeconds = world.pod?.metadata?.deletionGracePeriodSeconds;
  const meta = {
    ...pod.metadata,
    ...(creationTimestamp ? { creationTimestamp } : {}),
    ...(deletionTimestamp ? { deletionTimestamp } : {}),
    ...(deletionGracePeriodSeconds !== undefined && deletionGracePeriodSeconds !== null ? { deletionGracePeriodSeconds } : {}),
  };
  const withMeta: Pod = creationTimestamp || deletionTimestamp ? { ...pod, metadata: meta } : pod;
  const request: PlanRequest = { ...world, pod: status ? { ...withMeta, status } : withMeta, apiDefaults: true, node: NODE_CONTEXT };
  if (Object.keys(gates).length) request.featureGates = gates;
  else delete request.featureGates;
  return request;
}

/**
 * podplan's runtime model carries out `plan` (made for `request`). The model says how long
 * the plan's steps took (`blockedMillis`: preStop hooks, stops waited for up to the grace
 * period, image pulls); the clock moves on by that much, in whole seconds rounded up (as
 * `core::sim::Simulation` does), so the next sync happens after the stop, not at the
 * instant it began. `took` is those seconds.
 */
export function applyPlan(engine: Engine, request: PlanRequest, plan: Plan, hooks: HookControls = {}): { state: SimState; applied: Step[]; changed: boolean; took: number } | ErrorAnswer {
  const answer = engine.apply(request, plan, hooks);
  if (isError(answer)) return answer;
  const took = Math.ceil((answer.blockedMillis ?? 0) / 1000);
  const world = answer.request;
  if (took > 0 && world.now) world.now = iso(Date.parse(world.now) + took * 1000);
  return { state: stateOf(world, plan.heldBack ?? [], hooks, took), applied: plan.steps, changed: answer.changed === true, took };
}

/** podplan's runtime model applies one event between syncs. */
export function applyEvent(engine: Engine, state: SimState, event: SimEvent): { state: SimState; note?: string } | ErrorAnswer {
  const answer = engine.event(state.world, event, state.hooks);
  if (isError(answer)) return answer;
  const moved = Math.max(0, Math.round(((answer.request.now ? Date.parse(answer.request.now) : state.now) - state.now) / 1000));
  return { state: stateOf(answer.request, state.heldBack, answer.hooks ?? state.hooks, state.elapsed + moved), note: answer.note };
}

/** Seconds until the earliest held-back start may go ahead, if any. */
export function nextBackoffExpiry(state: SimState): number | undefined {
  const waits = state.heldBack.map((h) => h.waitSeconds).filter((w) => typeof w === "number" && w >= 0);
  return waits.length ? Math.max(0, Math.min(...waits) - state.elapsed) : undefined;
}
