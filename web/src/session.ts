// A session: the starting pod and the list of things the user did. Replaying it through
// the engine gives the same syncs every time, which is what makes a share link exact.

import { admitted } from "./defaults";
import type { Engine } from "./engine";
import { parsePodText, type Format } from "./podtext";
import {
  advance,
  applyPlan,
  buildRequest,
  containerExit,
  initialState,
  sandboxDies,
  sandboxLosesIp,
  setProbe,
  type AppliedOp,
  type SimState,
} from "./sim";
import { isError, type PlanAnswer, type PlanRequest, type Pod } from "./types";

/** Something the user did between two syncs. */
export type SessionAction =
  | { t: "exit"; c: string; code: number }
  | { t: "probe"; c: string; p: "liveness" | "startup"; r: "success" | "failure" }
  | { t: "sandboxDie" }
  | { t: "sandboxNoIp" }
  | { t: "advance"; s: number; why?: "backoff" }
  | { t: "edit"; pod: string }
  | { t: "sync" };

export interface Session {
  /** Gallery scenario the session started from ("custom" if none). */
  scenario: string;
  format: Format;
  /** The starting pod, as text in `format`. */
  pod: string;
  /** Feature-gate overrides sent with every request. */
  gates: Record<string, boolean>;
  actions: SessionAction[];
}

export interface SyncRecord {
  index: number;
  /** What led to this sync (undefined for the first). */
  trigger?: SessionAction;
  /** The pod text and object in force for this sync. */
  podText: string;
  pod?: Pod;
  /** The state the request was built from (after the user's action). */
  before: SimState;
  request?: PlanRequest;
  answer: PlanAnswer;
  /** The state after the plan was carried out. */
  after: SimState;
  applied: AppliedOp[];
  source: "steps" | "actions" | "none";
}

/** Applies a runtime action (not an edit) to the state. */
export function applyAction(state: SimState, action: SessionAction): SimState {
  switch (action.t) {
    case "exit":
      return containerExit(state, action.c, action.code);
    case "probe":
      return setProbe(state, action.c, action.p, action.r);
    case "sandboxDie":
      return sandboxDies(state);
    case "sandboxNoIp":
      return sandboxLosesIp(state);
    case "advance":
      return advance(state, action.s);
    case "edit":
    case "sync":
      return state;
  }
}

/** Runs one sync: build the request, ask the engine, carry out the plan. */
export function runSync(engine: Engine, index: number, trigger: SessionAction | undefined, podText: string, format: Format, before: SimState, gates: Record<string, boolean>): SyncRecord {
  const parsed = parsePodText(podText, format);
  if (!parsed.ok) {
    return {
      index,
      trigger,
      podText,
      before,
      answer: { error: { kind: "InvalidInput", path: "", message: parsed.errors[0]?.message ?? "the pod could not be read" } },
      after: before,
      applied: [],
      source: "none",
    };
  }
  const pod = admitted(parsed.pod);
  const request = buildRequest(before, pod, gates);
  const answer = engine.plan(request);
  if (isError(answer)) return { index, trigger, podText, pod, before, request, answer, after: before, applied: [], source: "none" };
  const { state, applied, source } = applyPlan(before, pod, answer);
  return { index, trigger, podText, pod, before, request, answer, after: state, applied, source };
}

/** Replays a whole session. The first sync runs on the starting pod with nothing running. */
export function replay(engine: Engine, session: Session): SyncRecord[] {
  const parsed = parsePodText(session.pod, session.format);
  const start = initialState(parsed.ok ? admitted(parsed.pod) : {});
  const syncs: SyncRecord[] = [runSync(engine, 0, undefined, session.pod, session.format, start, session.gates)];
  for (const action of session.actions) syncs.push(next(engine, syncs[syncs.length - 1]!, action, session));
  return syncs;
}

/** The sync that follows `prev` when the user does `action`. */
export function next(engine: Engine, prev: SyncRecord, action: SessionAction, session: Pick<Session, "format" | "gates">): SyncRecord {
  const podText = action.t === "edit" ? action.pod : prev.podText;
  const before = applyAction(prev.after, action);
  return runSync(engine, prev.index + 1, action, podText, session.format, before, session.gates);
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
  }
}
