// What the user sees of the pod through the API: the plan's `status` (the v1.PodStatus the
// kubelet generates at the start of the sync) and its `kubectl get pods` row, both computed
// by the engine. This file only reads them.

import type { ApiContainerState, ApiContainerStatus, Plan, PodStatus, Step } from "../../../wasm/types/podplan";
import { h } from "./dom";

/**
 * The plan's status phase when it is terminal (`Succeeded` or `Failed`) in a `SyncPod`
 * plan. A plan of the pod worker's termination (`workerPhase` `terminating` or
 * `terminated`, e.g. an eviction's `Failed`) is not this: see [`workerEnd`].
 */
export function terminalPhase(plan: Plan | undefined): "Succeeded" | "Failed" | undefined {
  if (plan?.workerPhase === "terminating" || plan?.workerPhase === "terminated") return undefined;
  const phase = plan?.status?.phase;
  return phase === "Succeeded" || phase === "Failed" ? phase : undefined;
}

/** Whether the plan's pod has been deleted (`kubectl delete`: a `deletionTimestamp`). */
export function deleted(request: { pod?: { metadata?: { deletionTimestamp?: string | null } | null } } | undefined): boolean {
  return !!request?.pod?.metadata?.deletionTimestamp;
}

/**
 * The pod worker's termination as the plan reports it (`workerPhase`): `terminating` is
 * `SyncTerminatingPod` (stop everything, in the termination order, within the grace
 * period; nothing starts), `terminated` is `SyncTerminatedPod` and the cleanup after it;
 * after that the worker syncs the pod no more. `gone`: a deleted pod's object is then
 * removed from the API server (the status manager's final delete); an evicted or
 * terminal pod stays, with its final status.
 */
export function workerEnd(plan: Plan | undefined, isDeleted: boolean): { phase: "terminating" | "terminated"; gone: boolean; grace?: number } | undefined {
  const phase = plan?.workerPhase;
  if (phase !== "terminating" && phase !== "terminated") return undefined;
  const kill = plan?.steps.find((s): s is Extract<Step, { op: "KillPod" }> => s.op === "KillPod");
  return { phase, gone: phase === "terminated" && isDeleted, grace: kill?.gracePeriodSeconds ?? undefined };
}

/** Why no sync follows this one (a terminal phase, or the pod worker is done), if none does. */
export function noSyncAfter(plan: Plan | undefined, isDeleted: boolean): string | undefined {
  const terminal = terminalPhase(plan);
  if (terminal) return `The pod is terminal (phase ${terminal}): the kubelet calls SyncPod for it no more`;
  const end = workerEnd(plan, isDeleted);
  if (end?.phase === "terminated")
    return end.gone
      ? "The pod is gone: the pod worker has terminated it and cleaned up, and the API server has deleted the pod object, so there is nothing left to sync"
      : "The pod worker has terminated the pod and cleaned up (SyncTerminatedPod): it syncs the pod no more; the pod keeps its final status";
  return undefined;
}

/**
 * Why the kubelet syncs a pod in a terminal phase no more: `Kubelet.SyncPod` generates the
 * status first and returns as soon as its phase is `Succeeded` or `Failed`, before the
 * runtime's SyncPod; the pod worker then only terminates the pod (stops what still runs).
 */
export function terminalWhy(phase: "Succeeded" | "Failed", plan: Plan): string {
  const why = plan.status?.reason || plan.status?.message ? ` (${[plan.status?.reason, plan.status?.message].filter(Boolean).join(": ")})` : "";
  return (
    `The pod is terminal: phase ${phase}${why}. The kubelet's SyncPod generates the status first and returns when the phase is Succeeded or Failed, ` +
    "without calling the runtime's SyncPod: this sync's actions are not carried out by the kubelet, and it syncs the pod no more " +
    "(the pod worker only terminates it: stops what still runs, and the pod keeps its final status)."
  );
}

/** Every API container status of `status`, by container name. */
function allStatuses(status: PodStatus | undefined): ApiContainerStatus[] {
  return [...(status?.initContainerStatuses ?? []), ...(status?.containerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])];
}

/** The API status of container `name` in the plan's status. */
export function apiStatusOf(plan: Plan | undefined, name: string): ApiContainerStatus | undefined {
  return allStatuses(plan?.status).find((c) => c.name === name);
}

/**
 * The waiting reason kubectl shows for container `name` once this sync is done, for a
 * container that is not running: the reason cache the plan leaves, i.e. a start this sync
 * held back (`CrashLoopBackOff`) or that failed (`CreateContainerConfigError`, …). The next
 * status the kubelet generates reports it as the container's `state.waiting`.
 */
export function waitingReason(plan: Plan | undefined, name: string): { reason: string; message: string } | undefined {
  const cached = plan?.reasonCache?.[name];
  return cached?.reason ? { reason: cached.reason, message: cached.message ?? "" } : undefined;
}

/** A container state as one line, as `kubectl describe` words it. */
export function stateText(s: ApiContainerState | undefined): string {
  if (!s) return "—";
  if (s.waiting) return `Waiting${s.waiting.reason ? `: ${s.waiting.reason}` : ""}${s.waiting.message ? ` — ${s.waiting.message}` : ""}`;
  if (s.running) return `Running${s.running.startedAt ? ` since ${s.running.startedAt}` : ""}`;
  if (s.terminated) {
    const t = s.terminated;
    return `Terminated: ${t.reason ?? "—"} (exit code ${t.exitCode})${t.message ? ` — ${t.message}` : ""}${t.finishedAt ? `, finished ${t.finishedAt}` : ""}`;
  }
  return "—";
}

/** The Status tab: phase, conditions and container states of the plan's status. */
export function statusTab(plan: Plan): HTMLElement[] {
  const st = plan.status;
  if (!st) return [h("p", { class: "muted" }, "The engine gave no status for this sync.")];
  const row = plan.kubectl;
  const out: HTMLElement[] = [
    h(
      "p",
      { class: "small muted" },
      "The pod status (",
      h("code", null, "v1.PodStatus"),
      ") the kubelet generates at the start of this sync, from the runtime as it found it and the previous sync's results; it is what ",
      h("code", null, "kubectl"),
      " shows until the next sync.",
    ),
  ];
  if (row) {
    out.push(
      h(
        "table",
        { class: "kubectl-row", id: "status-kubectl" },
        h("caption", { class: "small muted" }, h("code", null, "kubectl get pods")),
        h("thead", null, h("tr", null, ["NAME", "READY", "STATUS", "RESTARTS", "AGE"].map((c) => h("th", { scope: "col" }, c)))),
        h("tbody", null, h("tr", null, [row.name, row.ready, row.status, row.restarts, row.age].map((v, i) => h("td", { "data-label": ["NAME", "READY", "STATUS", "RESTARTS", "AGE"][i] }, h("code", null, v))))),
      ),
    );
  }
  const phase = terminalPhase(plan);
  out.push(
    h(
      "dl",
      { class: "actions-summary", id: "status-phase" },
      h("dt", null, "Phase"),
      h("dd", null, h("b", null, st.phase ?? "—"), phase ? " (terminal)" : ""),
      st.reason ? [h("dt", null, "Reason"), h("dd", null, st.reason)] : null,
      st.message ? [h("dt", null, "Message"), h("dd", null, st.message)] : null,
      st.qosClass ? [h("dt", null, "QoS class"), h("dd", null, st.qosClass)] : null,
      st.podIP ? [h("dt", null, "Pod IP"), h("dd", null, st.podIP)] : null,
    ),
  );
  const conds = st.conditions ?? [];
  out.push(
    h("h4", null, "Conditions"),
    conds.length
      ? h(
          "table",
          { class: "events status-conditions" },
          h("thead", null, h("tr", null, ["Type", "Status", "Reason", "Message"].map((c) => h("th", { scope: "col" }, c)))),
          h(
            "tbody",
            null,
            // On phones the rows stack; each cell keeps its column's name (data-label).
            conds.map((c) =>
              h(
                "tr",
                { class: c.status === "True" ? "" : "warn" },
                h("td", { "data-label": "Type" }, h("code", null, c.type)),
                h("td", { "data-label": "Status" }, c.status),
                h("td", { "data-label": "Reason" }, c.reason || null),
                h("td", { "data-label": "Message" }, c.message || null),
              ),
            ),
          ),
        )
      : h("p", { class: "muted" }, "No conditions."),
  );
  const lists: Array<[string, ApiContainerStatus[] | undefined]> = [
    ["Init containers", st.initContainerStatuses],
    ["Containers", st.containerStatuses],
    ["Ephemeral containers", st.ephemeralContainerStatuses],
  ];
  for (const [title, list] of lists) {
    if (!list?.length) continue;
    out.push(
      h("h4", null, title),
      h(
        "table",
        { class: "events status-containers" },
        h("thead", null, h("tr", null, ["Name", "State", "Last state", "Ready", "Started", "Restarts"].map((c) => h("th", { scope: "col" }, c)))),
        h(
          "tbody",
          null,
          list.map((c) =>
            h(
              "tr",
              { "data-container": c.name },
              h("td", { "data-label": "Name" }, h("b", null, c.name)),
              h("td", { class: "state", "data-label": "State" }, stateText(c.state)),
              h("td", { class: "last-state", "data-label": "Last state" }, c.lastState && Object.keys(c.lastState).length ? stateText(c.lastState) : "—"),
              h("td", { "data-label": "Ready" }, String(c.ready)),
              h("td", { "data-label": "Started" }, c.started === undefined ? "—" : String(c.started)),
              h("td", { "data-label": "Restarts" }, String(c.restartCount)),
            ),
          ),
        ),
      ),
    );
  }
  return out;
}
