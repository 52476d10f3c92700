// A session: the starting pod and the list of things the user did. Replaying it through
// the engine gives the same syncs every time, which is what makes a share link exact.
// Runtime actions are podplan's runtime events (core::sim::Event), carried out by the
// module; this file only keeps the order of things.

import { admitted } from "./defaults";
import { isError, type Engine } from "./engine";
import { convertText, parsePodText, type Format } from "./podtext";
import { applyEvent, applyPlan, buildRequest, initialState, type SimState } from "./sim";
import { deleted, noSyncAfter } from "./ui/status";
import type { PlanAnswer, PlanRequest, Pod, ProbeKind, ProbeResult, SimEvent, Step } from "../../wasm/types/podplan";

/** Something the user did between two syncs. Each one is followed by a sync. */
export type SessionAction =
  | { t: "exit"; c: string; code: number }
  | { t: "probe"; c: string; p: ProbeKind; r: Exclude<ProbeResult, "unknown"> }
  | { t: "sandboxDie" }
  | { t: "sandboxNoIp" }
  | { t: "advance"; s: number; why?: "backoff" }
  | { t: "edit"; pod: string }
  | { t: "sync" }
  /** The previous plan changed the runtime: the kubelet's PLEG sees it and syncs again at once. */
  | { t: "pleg" }
  /** Several runtime events, then one sync (scripted scenarios such as `podplan demo`'s). */
  | { t: "events"; e: SimEvent[] }
  /** From now on the container's postStart hook fails (`f`) or succeeds again. */
  | { t: "postStartFails"; c: string; f: boolean }
  /** From now on the container's preStop hook runs `s` seconds. */
  | { t: "preStopTakes"; c: string; s: number }
  /** From now on the container takes `s` seconds to exit after its stop signal (cut at the grace period: SIGKILL). */
  | { t: "stopTakes"; c: string; s: number }
  /** `kubectl delete pod` with grace period `g` (absent: the pod's). */
  | { t: "delete"; g?: number }
  /** The kubelet's eviction manager evicts the pod (node low on memory). */
  | { t: "evict" }
  /** The kernel's OOM killer kills the container (exit 137, OOMKilled). */
  | { t: "oom"; c: string };

export interface Session {
  /** Gallery scenario the session started from ("custom" if none). */
  scenario: string;
  format: Format;
  /** The starting pod, as text in `format`. */
  pod: string;
  /** Feature-gate overrides sent with every request. */
  gates: Record<string, boolean>;
  actions: SessionAction[];
  /**
   * Runtime events that happen before the first sync (the model registry's pull faults:
   * `pullFails` / `pullWorks`), so that sync #0 already meets them, e.g. a typo in an
   * image that the registry does not have.
   */
  before?: SimEvent[];
}

export interface SyncRecord {
  index: number;
  /** What led to this sync (undefined for the first). */
  trigger?: SessionAction;
  /** Why events of the trigger could not happen, as the runtime model says. */
  notes: string[];
  /** The pod text and object in force for this sync. */
  podText: string;
  pod?: Pod;
  /** The state the request was built from (after the user's action). */
  before: SimState;
  request?: PlanRequest;
  answer: PlanAnswer;
  /** The state after the plan was carried out. */
  after: SimState;
  /** The plan's steps, which the runtime model carried out (none without a plan). */
  applied: Step[];
  /** Carrying out the plan changed the runtime (a PLEG event follows: the next sync runs at once). */
  changed: boolean;
  /**
   * Seconds carrying out the plan took (preStop hooks, stops waited for up to the grace
   * period), as the runtime model answers (`blockedMillis`, rounded up): the clock of
   * `after` is that much later than the sync's.
   */
  took: number;
  /**
   * The plan is not carried out yet: the page painted with the first-paint module and the
   * runtime model is still loading (`after` is `before`, nothing applied). The page
   * replays the session once the runtime model is there.
   */
  pending?: true;
}

/** The runtime events of an action (none for edits and resyncs). */
export function eventsOf(action: SessionAction): SimEvent[] {
  switch (action.t) {
    case "exit":
      return [{ type: "exit", container: action.c, code: action.code }];
    case "probe":
      return [{ type: "probe", container: action.c, probe: action.p, result: action.r }];
    case "sandboxDie":
      return [{ type: "sandboxDies" }];
    case "sandboxNoIp":
      return [{ type: "sandboxLosesIp" }];
    case "advance":
      return [{ type: "advance", seconds: action.s }];
    case "events":
      return action.e;
    case "postStartFails":
      return [{ type: "postStartFails", container: action.c, fails: action.f }];
    case "preStopTakes":
      return [{ type: "preStopTakes", container: action.c, seconds: action.s }];
    case "stopTakes":
      return [{ type: "stopTakes", container: action.c, seconds: action.s }];
    case "delete":
      return [action.g === undefined ? { type: "delete" } : { type: "delete", gracePeriodSeconds: action.g }];
    case "evict":
      return [{ type: "evict" }];
    case "oom":
      return [{ type: "oomKill", container: action.c }];
    case "edit":
    case "sync":
    case "pleg":
      return [];
  }
}

function failed(index: number, trigger: SessionAction | undefined, podText: string, before: SimState, message: string, pod?: Pod, request?: PlanRequest): SyncRecord {
  return { index, trigger, notes: [], podText, pod, before, request, answer: { error: { kind: "InvalidInput", path: "", message } }, after: before, applied: [], changed: false, took: 0 };
}

/** Runs one sync: build the request, ask the engine, let the runtime model carry out the plan. */
export function runSync(engine: Engine, index: number, trigger: SessionAction | undefined, podText: string, format: Format, before: SimState, gates: Record<string, boolean>, notes: string[] = []): SyncRecord {
  const parsed = parsePodText(podText, format);
  if (!parsed.ok) return failed(index, trigger, podText, before, parsed.errors[0]?.message ?? "the pod could not be read");
  const pod = admitted(parsed.pod);
  const request = buildRequest(before, pod, gates);
  const answer = engine.plan(request);
  if (isError(answer)) return { index, trigger, notes, podText, pod, before, request, answer, after: before, applied: [], changed: false, took: 0 };
  const done = applyPlan(engine, request, answer, before.hooks);
  if (isError(done)) return failed(index, trigger, podText, before, `the runtime model refused the plan: ${done.error.message}`, pod, request);
  return { index, trigger, notes, podText, pod, before, request, answer, after: done.state, applied: done.applied, changed: done.changed, took: done.took };
}

/** Whether a session's first screen needs only plans: no events before the first sync, no actions. */
export function plansOnly(session: Session): boolean {
  return session.actions.length === 0 && !session.before?.length;
}

/**
 * The first sync of a [`plansOnly`] session, planned but not carried out ([`SyncRecord.pending`]):
 * what the page shows while the runtime model loads. Its plan is the one [`replay`] gives.
 */
export function plannedFirstSync(engine: Engine, session: Session): SyncRecord {
  const parsed = parsePodText(session.pod, session.format);
  const start = initialState(parsed.ok ? admitted(parsed.pod) : {});
  if (!parsed.ok) return failed(0, undefined, session.pod, start, parsed.errors[0]?.message ?? "the pod could not be read");
  const pod = admitted(parsed.pod);
  const request = buildRequest(start, pod, session.gates);
  const answer = engine.plan(request);
  const sync: SyncRecord = { index: 0, notes: [], podText: session.pod, pod, before: start, request, answer, after: start, applied: [], changed: false, took: 0 };
  return isError(answer) ? sync : { ...sync, pending: true };
}

/** Replays a whole session. The first sync runs on the starting pod with nothing running, at `start`. */
export function replay(engine: Engine, session: Session, start?: number): SyncRecord[] {
  const parsed = parsePodText(session.pod, session.format);
  let start0 = initialState(parsed.ok ? admitted(parsed.pod) : {}, start);
  // Events set before the first sync (pull faults) change the world sync #0 meets.
  const notes: string[] = [];
  for (const event of session.before ?? []) {
    const done = applyEvent(engine, start0, event);
    if (isError(done)) return [failed(0, undefined, session.pod, start0, `the runtime model refused the event: ${done.error.message}`)];
    start0 = done.state;
    if (done.note) notes.push(done.note);
  }
  const syncs: SyncRecord[] = [runSync(engine, 0, undefined, session.pod, session.format, start0, session.gates, notes)];
  for (const action of session.actions) syncs.push(next(engine, syncs[syncs.length - 1]!, action, session));
  return syncs;
}

/** The sync that follows `prev` when the user does `action`. */
export function next(engine: Engine, prev: SyncRecord, action: SessionAction, session: Pick<Session, "format" | "gates">): SyncRecord {
  let podText = action.t === "edit" ? action.pod : prev.podText;
  let state = prev.after;
  const notes: string[] = [];
  for (const event of eventsOf(action)) {
    const done = applyEvent(engine, state, event);
    if (isError(done)) return failed(prev.index + 1, action, podText, state, `the runtime model refused the event: ${done.error.message}`);
    state = done.state;
    if (done.note) notes.push(done.note);
    // A spec change the model made becomes the pod text of the sync.
    if (event.type === "setImage" && !done.note) podText = convertText(JSON.stringify(state.world.pod), "json", session.format) ?? podText;
  }
  return runSync(engine, prev.index + 1, action, podText, session.format, state, session.gates, notes);
}

/** The most syncs "Run until stable" runs (a crash loop would never settle). */
export const SETTLE_MAX_SYNCS = 12;

/** Why no sync follows `sync` (a terminal phase, or the pod worker is done with the pod), if none does. */
export function ended(sync: SyncRecord): string | undefined {
  return isError(sync.answer) ? undefined : noSyncAfter(sync.answer, deleted(sync.request));
}

/**
 * The PLEG syncs that follow `from` until a plan changes nothing in the runtime, at most
 * `max`: the kubelet syncs a pod again at once when its PLEG relists a change. None follows
 * a sync after which the kubelet syncs the pod no more (terminal, or terminated).
 */
export function settle(engine: Engine, from: SyncRecord, session: Pick<Session, "format" | "gates">, max = SETTLE_MAX_SYNCS): SyncRecord[] {
  const out: SyncRecord[] = [];
  let prev = from;
  while (prev.changed && !isError(prev.answer) && !ended(prev) && out.length < max) {
    prev = next(engine, prev, { t: "pleg" }, session);
    out.push(prev);
  }
  return out;
}

function describeEvent(e: SimEvent): string {
  switch (e.type) {
    case "pullFails":
      return `pulls of ${e.image} fail (${e.fault === "notFound" ? "not found" : "registry down"})`;
    case "pullWorks":
      return `pulls of ${e.image} work`;
    case "removeImage":
      return `${e.image} removed from the node`;
    case "pullTakes":
      return `a pull of ${e.image} takes ${e.seconds} s`;
    case "setCondition":
      return `condition ${e.condition} set to ${e.status}`;
    default:
      return e.type;
  }
}

/** A short description of an action, for the timeline. */
export function describeAction(a: SessionAction | undefined): string {
  if (!a) return "pod created";
  switch (a.t) {
    case "exit":
      return `${a.c} exited (${a.code})`;
    case "probe":
      return `${a.p} ${a.r === "failure" ? "failed" : "passed"}: ${a.c}`;
    case "sandboxDie":
      return "sandbox died";
    case "sandboxNoIp":
      return "sandbox lost its IP";
    case "advance":
      return a.why === "backoff" ? `+${a.s}s to back-off expiry` : `+${a.s}s`;
    case "edit":
      return "spec edited";
    case "sync":
      return "resync";
    case "pleg":
      return "PLEG: runtime changed";
    case "events":
      return a.e.map(describeEvent).join(", ") || "resync";
    case "postStartFails":
      return a.f ? `${a.c}: postStart hook fails from now on` : `${a.c}: postStart hook succeeds again`;
    case "preStopTakes":
      return `${a.c}: preStop hook takes ${a.s}s`;
    case "stopTakes":
      return `${a.c}: exits ${a.s}s after SIGTERM`;
    case "delete":
      return a.g === undefined ? "kubectl delete pod" : `kubectl delete pod --grace-period=${a.g}`;
    case "evict":
      return "evicted (node low on memory)";
    case "oom":
      return `${a.c} OOM-killed`;
  }
}
