// Type declarations for podplan-wasm: the module's functions (wasm-bindgen exports,
// hand-written here) and the JSON shapes of their calls. The plan contract's types
// (request, plan, runtime status, CRI configs, errors, runtime events) are generated from
// the Rust types into ./contract.d.ts (`scripts/gen-types`); the Kubernetes objects and
// JSON helpers are in ./kubernetes.d.ts.

import type {
  ContainerConfig,
  ErrorEnvelope,
  HookControls,
  Plan,
  PlanRequest,
  PodSandboxConfig,
  SimEvent,
  Step,
} from "./contract.js";
import type { JsonObject, Pod } from "./kubernetes.js";

export * from "./contract.js";
export * from "./kubernetes.js";

// ---------------------------------------------------------------------------------
// The API.

/**
 * Computes what the kubelet would do on its next sync for `request`.
 * Never throws: bad input (including values that are not JSON) gives an
 * {@link ErrorAnswer}. `plan(r)` equals `JSON.parse(planJson(JSON.stringify(r)))`.
 */
export function plan(request: PlanRequest | Pod): PlanAnswer;

/**
 * {@link plan} on JSON text: the request as JSON, the answer as JSON text (a
 * {@link Plan} or an {@link ErrorAnswer}). Never throws.
 */
export function planJson(request: string): string;

/** Version facts of this build. */
export function version(): VersionInfo;
/** Completes a plan from the status of the sandbox it created (`RunPodSandbox`, then
 * `PodSandboxStatus`): the `dependsOnNewSandbox` configs and file steps regenerated
 * with its pod IPs. Never throws. */
export function complete(input: { request: PlanRequest; sandboxStatus: JsonObject }): PlanAnswer;
/** {@link complete} on JSON text. */
export function completeJson(input: string): string;

/**
 * Carries out `call.plan` on `call.request`'s runtime state with podplan's runtime
 * model (`podplan_core::sim::next_request`) at `request.now`; answers the request of the
 * next sync (runtime status, actuated resources, back-off records, probes of running
 * containers, `now`), whether the runtime changed, and how long the plan's steps took
 * (`blockedMillis`). Never throws.
 */
export function simApply(call: SimApplyCall): SimAnswer | ErrorAnswer;

/** {@link simApply} on JSON text. */
export function simApplyJson(call: string): string;

/**
 * Applies one scripted runtime event (`podplan_core::sim::Event`) to `call.request` at
 * its `now`. When the event cannot happen (the container is not running, there is no
 * sandbox) the request comes back unchanged with a `note`. Never throws.
 */
export function simEvent(call: SimEventCall): SimAnswer | ErrorAnswer;

/** {@link simEvent} on JSON text. */
export function simEventJson(call: string): string;

/**
 * Carries out one step of a plan (`podplan_core::sim::Runtime::apply_step`) on
 * `call.request`'s runtime state at its `now`; answers the request with the runtime status,
 * actuated resources and `hookResults` after that step (the rest unchanged: {@link simApply}
 * does the sync's bookkeeping). Applying a plan's steps in order, each with its `index` and
 * the previous answer's `blockedMillis`, gives the runtime and hook results {@link simApply}
 * gives with the same `hooks`. Never throws.
 */
export function simStep(call: SimStepCall): SimAnswer | ErrorAnswer;

/** {@link simStep} on JSON text. */
export function simStepJson(call: string): string;

/**
 * A CRI config of a plan as the file crictl reads (`crictl runp`, `crictl create`):
 * proto field names, enums as numbers. Never throws.
 */
export function crictl(call: CrictlCall): CrictlAnswer | ErrorAnswer;

/** {@link crictl} on JSON text. */
export function crictlJson(call: string): string;

/** The input of {@link simApply}. */
export interface SimApplyCall {
  /** The request the plan was made for; it must carry `now`. */
  request: PlanRequest;
  plan: Plan;
  /** The world's hook behaviour (default: every hook succeeds at once). */
  hooks?: HookControls;
}

/** The input of {@link simEvent}. */
export interface SimEventCall {
  request: PlanRequest;
  event: SimEvent;
  /** The world's hook behaviour before the event. */
  hooks?: HookControls;
}

/** The input of {@link simStep}. */
export interface SimStepCall {
  /** The request whose runtime state the step changes; it must carry `now`. */
  request: PlanRequest;
  step: Step;
  /** The step's position in its plan (default 0): it orders creation times within one instant. */
  index?: number;
  /** The world's hook behaviour (default: every hook succeeds at once). */
  hooks?: HookControls;
  /** Hook waiting (preStop) of the plan's earlier steps, ms (default 0): the previous step's answer's `blockedMillis`. */
  blockedMillis?: number;
}

/** The answer of {@link simApply}, {@link simStep} and {@link simEvent}. */
export interface SimAnswer {
  /** The request after the plan, the step or the event. */
  request: PlanRequest;
  /** Why an event could not happen (the request is then unchanged). */
  note?: string;
  /** simApply, simStep: the runtime changed (a PLEG event: the kubelet syncs again at once). */
  changed?: boolean;
  /** simEvent: the world's hook behaviour after the event (keep it for the next call). */
  hooks?: HookControls;
  /**
   * simStep: hook waiting of the plan's steps so far, ms (pass it with the next step).
   * simApply: how long carrying out the whole plan took, ms (preStop hooks, stops waited
   * for up to their grace periods); the answered request keeps `now`, so a caller with a
   * clock moves it by this much before the next sync.
   */
  blockedMillis?: number;
}

/** The input of {@link crictl}: exactly one config. */
export type CrictlCall = { sandboxConfig: PodSandboxConfig } | { containerConfig: ContainerConfig };

/** The answer of {@link crictl}. */
export interface CrictlAnswer {
  crictl: JsonObject;
}

/** What `version()` returns. */
export interface VersionInfo {
  /** podplan's own version, e.g. `"0.1.0"`. */
  podplan: string;
  /** The plan contract version, e.g. `"1"`. */
  contract: string;
  /** The Kubernetes release whose kubelet is re-implemented, e.g. `"1.37"`. */
  kubernetes: string;
}

/** What `plan` answers: a plan, or a structured error (never both, never partial). */
export type PlanAnswer = Plan | ErrorAnswer;

/** The answer to bad input: `{error: {kind, path, message}}` (`ErrorEnvelope` in Rust). */
export type ErrorAnswer = ErrorEnvelope;
