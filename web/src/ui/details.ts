// The selected sync in detail: decisions with their reasons, the CRI steps, the generated
// configs, the events, and the raw request and plan.

import type { SyncRecord } from "../session";
import type { ErrorAnswer, HeldBack, Plan, Pod, Step } from "../../../wasm/types/podplan";
import { isError, type Engine } from "../engine";
import { h } from "./dom";
import { deleted, statusTab, terminalPhase, terminalWhy, workerEnd } from "./status";
import { describePod, watchLog } from "../kubectl";
import { continuation, hookReport } from "./timeline";

export type TabId = "decisions" | "status" | "describe" | "watch" | "steps" | "configs" | "events" | "json";
export type ConfigForm = "crictl" | "cri";

export interface DetailsContext {
  sync: SyncRecord;
  /** Every sync of the session (the kubectl views look back over them). */
  syncs: SyncRecord[];
  tab: TabId;
  configForm: ConfigForm;
  setTab: (t: TabId) => void;
  setConfigForm: (f: ConfigForm) => void;
  copy: (text: string, what: string) => void;
  /** The engine, for crictl conversion. */
  engine: Engine;
}

const VERBS: Record<string, string> = {
  killPod: "Stop the whole pod",
  createSandbox: "Create a sandbox",
  startInitContainer: "Start init container",
  startContainer: "Start container",
  startEphemeralContainer: "Start ephemeral container",
  killContainer: "Kill container",
  updateResources: "Resize in place",
  resetContainer: "Reset container",
  keepContainer: "Keep container",
  doNotRestart: "Do not restart",
  wait: "Wait",
};

const ICONS: Record<string, string> = {
  killPod: "■",
  createSandbox: "✚",
  startInitContainer: "▶",
  startContainer: "▶",
  startEphemeralContainer: "▶",
  killContainer: "■",
  updateResources: "⇕",
  resetContainer: "✖",
  keepContainer: "✓",
  doNotRestart: "–",
  wait: "◷",
};

function names(pod: Pod | undefined, list: "initContainers" | "containers" | "ephemeralContainers", idx: number[] | undefined): string {
  const cs = pod?.spec?.[list];
  return (idx ?? []).map((i) => (Array.isArray(cs) && cs[i]?.name) || `#${i}`).join(", ");
}

/** podActions, with indices turned into names; only fields that say something. */
export function actionSummary(plan: Plan, pod: Pod | undefined): Array<[string, string]> {
  const a = plan.actions;
  const out: Array<[string, string]> = [];
  if (a.killPod) out.push(["killPod", "true"]);
  if (a.createSandbox) out.push(["createSandbox", `true (attempt ${a.attempt})`]);
  if (a.sandboxId) out.push(["sandboxId", a.sandboxId]);
  if (a.initContainersToStart?.length) out.push(["initContainersToStart", names(pod, "initContainers", a.initContainersToStart)]);
  if (a.containersToStart?.length) out.push(["containersToStart", names(pod, "containers", a.containersToStart)]);
  if (a.ephemeralContainersToStart?.length) out.push(["ephemeralContainersToStart", names(pod, "ephemeralContainers", a.ephemeralContainersToStart)]);
  const kills = Object.entries(a.containersToKill ?? {});
  if (kills.length) out.push(["containersToKill", kills.map(([id, k]) => `${k.name} (${id})${k.reason ? ` reason ${k.reason}` : ""}`).join("; ")]);
  for (const [res, list] of Object.entries(a.containersToUpdate ?? {}))
    if (list.length) out.push([`containersToUpdate.${res}`, list.map((u) => u.name).join(", ")]);
  if (a.updatePodResources) out.push(["updatePodResources", "true"]);
  if (a.updatePodLevelResources) out.push(["updatePodLevelResources", "true"]);
  if (a.containersToReset?.length) out.push(["containersToReset", a.containersToReset.map((r) => `${r.name}${r.kill ? " (kill)" : ""}`).join(", ")]);
  return out;
}

function pre(value: unknown, label: string, copy: DetailsContext["copy"], id: string) {
  const text = JSON.stringify(value, null, 2);
  return h(
    "div",
    { class: "codeblock" },
    h("div", { class: "codeblock-bar" }, h("span", { class: "small muted" }, label), h("button", { id, class: "small-btn", onclick: () => copy(text, label) }, "Copy")),
    h("pre", { tabindex: "0", "aria-label": label }, h("code", null, text)),
  );
}

function decisionsTab(ctx: DetailsContext, plan: Plan): HTMLElement[] {
  const { sync } = ctx;
  const out: HTMLElement[] = [];
  const cont = continuation(sync);
  if (cont)
    out.push(
      h(
        "div",
        { class: "callout continued", id: "continued-note", role: "note" },
        h("strong", null, `The same kubelet sync as #${cont.of}, continued: `),
        `the kubelet pulls an image and then creates and starts the container inside one sync. podplan splits the sync at the pull so that this plan can read its result (the request's `,
        h("code", null, "pullResults"),
        `); it is not an extra sync.`,
      ),
    );
  const hooks = hookReport(sync);
  if (hooks)
    out.push(
      h(
        "div",
        { class: "callout continued", id: "hook-note", role: "note" },
        h("strong", null, `What the hooks of sync #${hooks.of} did: `),
        `the kubelet runs a postStart hook inside the start and a preStop hook inside the kill, so a failed postStart's kill (and its events), or the time a preStop took, happened in sync #${hooks.of}; this plan reports them (the request's `,
        h("code", null, "hookResults"),
        ") and then decides as the kubelet's next sync.",
      ),
    );
  const terminal = terminalPhase(plan);
  if (terminal) out.push(h("div", { class: "callout error terminal", id: "terminal-note", role: "note" }, h("strong", null, "No SyncPod: "), terminalWhy(terminal, plan)));
  // The pod worker's termination: SyncTerminatingPod (the kills, in order, within the
  // grace period) or SyncTerminatedPod (the cleanup), not SyncPod.
  const end = workerEnd(plan, deleted(sync.request));
  if (end)
    out.push(
      h(
        "div",
        { class: "callout worker", id: "worker-note", role: "note", "data-worker-phase": end.phase },
        end.phase === "terminating"
          ? [
              h("strong", null, "SyncTerminatingPod: "),
              `the pod worker terminates the pod${deleted(sync.request) ? " (deleted)" : plan.status?.reason ? ` (${plan.status.reason})` : ""} instead of SyncPod: one KillPod stops every container — each preStop hook first, then SIGTERM, regular containers at once and sidecars after them in reverse order — within the effective grace period${end.grace !== undefined ? ` (${end.grace} s)` : ""}; StopContainer gets what is left of it (at least 2 s), after which the runtime sends SIGKILL. Then the sandbox stops. Nothing is started.`,
              sync.took ? ` The model's clock moved ${sync.took} s while the stops ran.` : "",
            ]
          : [
              h("strong", null, "SyncTerminatedPod: "),
              "nothing runs any more; the pod worker cleans up: the pod's cgroup, ",
              end.gone || plan.status?.reason === "Evicted" ? "its containers and sandbox (removed), its logs and directories. " : "its directories. ",
              end.gone ? "The pod was deleted: the status manager then deletes the pod object from the API server." : "The pod worker syncs the pod no more.",
            ],
      ),
    );
  // Two different back-offs can hold a start back: the container's crash-loop back-off
  // (`CrashLoopBackOff`) and its image's pull back-off (`ImagePullBackOff`). The plan
  // says which (`heldBack[].reason`, absent = crash loop); each gets its own note.
  for (const kind of BACKOFFS) {
    const held = (plan.heldBack ?? []).filter((x) => backoffOf(x) === kind.reason);
    if (!held.length) continue;
    out.push(
      h(
        "div",
        { class: `callout wait held-${kind.reason}`, role: "note", "data-backoff": kind.reason },
        h("strong", null, `Held back by ${kind.name} (`, h("code", null, kind.reason), "): "),
        held.map((x, i) => [
          i ? "; " : "",
          h("b", null, x.container),
          ` (${x.waitSeconds} s to go${typeof x.delaySeconds === "number" && x.delaySeconds > 0 ? `; back-off delay ${x.delaySeconds} s` : ""})`,
        ]),
        `. ${kind.hint}`,
      ),
    );
  }
  for (const e of plan.errors ?? [])
    out.push(h("div", { class: "callout error", role: "note" }, h("strong", null, `${e.container}: ${e.reason}. `), e.message));
  for (const w of plan.warnings ?? [])
    out.push(h("div", { class: "callout warning", role: "note" }, h("strong", null, "Warning: "), w.message, w.path ? h("span", { class: "muted" }, ` (${w.path})`) : null));

  const decisions = (plan.decisions ?? []).map((d, i) => ({ d, i }));
  // The order the kubelet acts in (kill before the start it is followed by).
  const ordered = kubeletOrder(plan).map((i) => decisions[i]!);
  if (decisions.length) {
    const marked = decisions.filter(({ d }) => d.effect && d.effect !== "effective").length;
    out.push(
      h("p", { class: "small muted" }, "In the order the kubelet acts (the CRI step each decision leads to is named). ", marked ? `${marked} decision(s) did not take effect: they are struck through and say why.` : ""),
      h(
        "ol",
        { class: "decisions" },
        ordered.map(({ d }) => {
          const effect = d.effect ?? "effective";
          const by = d.supersededBy !== undefined ? plan.decisions[d.supersededBy] : undefined;
          const byText = by ? `${VERBS[by.action] ?? by.action}${by.container ? ` ${by.container}` : ""} (${by.reason})` : "";
          const badge =
            effect === "superseded"
              ? `superseded${byText ? ` by “${byText}”` : ""}: it does not happen`
              : effect === "notCarriedOut"
                ? `not carried out on this sync${byText ? ` (${byText})` : ""}`
                : effect === "noop"
                  ? "no-op: there is nothing to stop"
                  : "";
          return h(
            "li",
            { class: `decision act-${d.action} eff-${effect}`, "data-effect": effect },
            h("span", { class: "icon", "aria-hidden": "true" }, ICONS[d.action] ?? "•"),
            h(
              "div",
              null,
              h(
                "div",
                { class: "decision-head" },
                h("span", { class: "verb" }, VERBS[d.action] ?? d.action),
                d.container ? [" ", h("b", { class: "cname" }, d.container)] : null,
                " ",
                h("code", { class: "reason" }, d.reason),
                d.step !== undefined ? h("span", { class: "small muted" }, ` → step ${d.step + 1} ${plan.steps[d.step]?.op ?? ""}`) : null,
              ),
              badge ? h("div", { class: `effect-badge eff-${effect}` }, badge) : null,
              h("div", { class: "decision-msg" }, d.message),
            ),
          );
        }),
      ),
    );
  } else {
    out.push(h("p", { class: "muted" }, "The engine gave no reasons for this sync."));
  }
  const summary = actionSummary(plan, sync.pod);
  out.push(
    h("h4", null, "podActions"),
    summary.length
      ? h("dl", { class: "actions-summary" }, summary.map(([k, v]) => [h("dt", null, h("code", null, k)), h("dd", null, v)]))
      : h("p", { class: "muted" }, "Nothing to do: every field of podActions is empty."),
  );
  return out;
}

/** The two back-offs that hold a start back, as the plan's `heldBack[].reason` names them. */
const BACKOFFS = [
  { reason: "CrashLoopBackOff", name: "crash-loop back-off", hint: "The container exited: the kubelet waits before starting it again (10 s, doubling, up to 5 min). Advance the clock to the back-off expiry to let it start." },
  { reason: "ImagePullBackOff", name: "image-pull back-off", hint: "The last pull of its image failed: the kubelet waits before pulling again (10 s, doubling, up to 5 min). Advance the clock to the back-off expiry to pull again." },
] as const;

/** Which back-off holds a start: the plan's `reason`, absent for crash-loop back-off. */
export function backoffOf(x: HeldBack): string {
  return x.reason || "CrashLoopBackOff";
}

/**
 * Where each kind of decision happens in the kubelet's `SyncPod`
 * (`pkg/kubelet/kuberuntime/kuberuntime_manager.go`): kill the pod, kill containers,
 * create the sandbox, start ephemeral containers, start init containers, resize, start
 * containers. Explanations (keep, do not restart, wait) have no place of their own.
 */
const SYNCPOD_PHASE: Record<string, number> = {
  killPod: 0,
  killContainer: 1,
  resetContainer: 1,
  createSandbox: 2,
  startEphemeralContainer: 3,
  startInitContainer: 4,
  updateResources: 5,
  startContainer: 6,
};

/**
 * The decisions in the order the kubelet acts: a decision a step carries out sits at its
 * step; one without a step (a start held back by a back-off, a start that a config error
 * stopped) sits where SyncPod reaches it, after the steps of the phases before it (so a
 * held-back restart comes after the kill it follows); an explanation stays after the
 * decision it follows.
 */
export function kubeletOrder(plan: Plan): number[] {
  const decisions = plan.decisions ?? [];
  const stepped = decisions.flatMap((d) => (d.step !== undefined ? [{ step: d.step, phase: SYNCPOD_PHASE[d.action] ?? -1 }] : []));
  const keys: Array<number | undefined> = decisions.map((d) => {
    const phase = SYNCPOD_PHASE[d.action];
    if (d.step !== undefined) return d.step;
    if (phase === undefined) return undefined; // an explanation: placed below
    if (!stepped.length) return phase;
    const before = stepped.filter((x) => x.phase <= phase).map((x) => x.step);
    const after = stepped.filter((x) => x.phase > phase).map((x) => x.step);
    return before.length ? Math.max(...before) + 0.5 : Math.min(...after) - 0.5;
  });
  // An explanation goes right after the decision it explains (the one whose
  // `supersededBy` names it, e.g. a held-back start and its `wait`), else after the
  // decision before it.
  const order: number[] = [];
  const explainedBy = (i: number) => decisions.findIndex((d) => d.supersededBy === i);
  decisions.forEach((_, i) => {
    if (keys[i] !== undefined) return;
    const j = explainedBy(i);
    keys[i] = j >= 0 && keys[j] !== undefined ? keys[j] : i > 0 ? (keys[i - 1] ?? -1) : -1;
    if (j > i) order[i] = j; // sort after j despite its lower index
  });
  const tie = (i: number) => (order[i] !== undefined ? order[i]! + 0.5 : i);
  return decisions.map((_, i) => i).sort((a, b) => keys[a]! - keys[b]! || tie(a) - tie(b));
}

/** A step's fields, leaving out the op and every empty value. */
export function stepText(s: Step): string {
  const empty = (v: unknown) => v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
  const rest = Object.entries(s).filter(([k, v]) => k !== "op" && k !== "config" && !empty(v));
  return rest.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ");
}

/**
 * A `KillPod`'s kills in words (the step's line leaves out `kills` and `preStops`, which
 * this list says; the Request & plan tab has them as JSON), in the termination order the plan gives
 * (`kuberuntime_termination_order.go`): each container's stage, its preStop hook and the
 * grace period it starts with, what it waits for.
 */
function killsList(step: Step): HTMLElement | null {
  if (step.op !== "KillPod") return null;
  const kills = step.kills ?? [];
  if (!kills.length) return null;
  const hook = (k: (typeof kills)[number]) => {
    const hd = k.preStop?.handler;
    if (!k.preStop) return "no preStop hook";
    const what = !hd ? "preStop (cannot run)" : hd.type === "sleep" ? `preStop sleep ${hd.seconds} s` : `preStop ${hd.type}`;
    return `${what} (at most ${k.preStop.timeoutSeconds ?? k.gracePeriodSeconds} s)`;
  };
  return h(
    "ol",
    { class: "kills small", "aria-label": "The kills in the termination order" },
    kills.map((k) =>
      h(
        "li",
        { "data-kill": k.container },
        h("strong", null, k.container),
        ` (${k.kind}, stage ${k.order}): `,
        k.waitFor?.length ? `waits for ${k.waitFor.join(", ")} to stop; ` : "",
        `${hook(k)}, then SIGTERM with what is left of ${k.gracePeriodSeconds} s (at least 2 s), then SIGKILL.`,
      ),
    ),
  );
}

function stepsTab(ctx: DetailsContext, plan: Plan): HTMLElement[] {
  const steps = plan.steps ?? [];
  // What this sync's hooks did in the model (the next request's hookResults).
  const hookResults = ctx.sync.after.world.hookResults ?? [];
  const out: HTMLElement[] = [
    h("p", { class: "small muted" }, "The CRI calls the kubelet's SyncPod makes, in order."),
    steps.length
      ? h("ol", { class: "steps" }, steps.map((s) => h("li", null, h("code", { class: "op" }, s.op), " ", h("span", { class: "small" }, stepText(s.op === "KillPod" && s.kills?.length ? { ...s, kills: undefined, preStops: undefined } : s)), killsList(s))))
      : h("p", { class: "muted" }, "No CRI calls in this sync."),
    h("h4", null, "What the simulated runtime did"),
    h(
      "p",
      { class: "small muted" },
      ctx.sync.pending
        ? "Loading the runtime model…"
        : ctx.sync.applied.length
        ? `podplan's runtime model (core::sim) carried out all ${ctx.sync.applied.length} step(s); it does not simulate runtime errors.`
        : "Nothing changed.",
      ctx.sync.took ? ` It took ${ctx.sync.took} s (preStop hooks, stops waited for, image pulls): the clock moved on by that much.` : "",
    ),
    ...(hookResults.length
      ? [
          h(
            "ul",
            { class: "hook-results small", id: "hook-results" },
            hookResults.map((r) => {
              const name = ctx.sync.after.runtime.containerStatuses.find((c) => c.id === r.containerId)?.name ?? r.containerId;
              return h(
                "li",
                null,
                `${r.hook} of ${name}: ${r.error ? `failed (${r.error})` : "succeeded"}`,
                r.elapsedMillis !== undefined && r.elapsedMillis !== null ? `, ran ${r.elapsedMillis / 1000} s` : "",
                r.stopGracePeriodSeconds !== undefined && r.stopGracePeriodSeconds !== null ? `; StopContainer then got ${r.stopGracePeriodSeconds} s` : "",
              );
            }),
          ),
        ]
      : []),
    ...(ctx.sync.notes.length ? [h("ul", { class: "notes" }, ctx.sync.notes.map((n) => h("li", null, `Note: ${n}`)))] : []),
  ];
  return out;
}

function configsTab(ctx: DetailsContext, plan: Plan): HTMLElement[] {
  const crictl = (answer: { crictl: unknown } | ErrorAnswer) => (isError(answer) ? answer : answer.crictl);
  const sandboxForm = (v: NonNullable<Plan["sandboxConfig"]>) => (ctx.configForm === "crictl" ? crictl(ctx.engine.crictl({ sandboxConfig: v })) : v);
  const containerForm = (v: NonNullable<Plan["containerConfigs"]>[number]["config"]) => (ctx.configForm === "crictl" ? crictl(ctx.engine.crictl({ containerConfig: v })) : v);
  const out: HTMLElement[] = [
    ...(ctx.configForm === "crictl" && !ctx.engine.runtime ? [h("p", { id: "crictl-loading", class: "note", role: "status" }, "Loading the runtime model… (crictl conversion comes with it)")] : []),
    h(
      "div",
      { class: "form-toggle", role: "radiogroup", "aria-label": "Config format" },
      (["crictl", "cri"] as const).map((f) =>
        h(
          "label",
          null,
          h("input", { type: "radio", name: "cfgform", id: `cfgform-${f}`, value: f, checked: ctx.configForm === f, onchange: () => ctx.setConfigForm(f) }),
          f === "crictl" ? " crictl files (proto field names)" : " CRI proto3 JSON (as the plan carries it)",
        ),
      ),
    ),
  ];
  if (!plan.sandboxConfig && !plan.containerConfigs?.length) {
    out.push(h("p", { class: "muted" }, "No sandbox or container is created in this sync, so there are no configs."));
    return out;
  }
  if (plan.sandboxConfig) {
    out.push(h("h4", null, "PodSandboxConfig"));
    if (ctx.configForm === "crictl") out.push(h("p", { class: "small muted" }, "Save as pod.json, then: ", h("code", null, "crictl runp pod.json")));
    out.push(pre(sandboxForm(plan.sandboxConfig), "PodSandboxConfig", ctx.copy, "copy-sandbox"));
  }
  for (const [i, c] of (plan.containerConfigs ?? []).entries()) {
    out.push(h("h4", null, `ContainerConfig: ${c.name}`, h("span", { class: "muted small" }, ` (${c.type}, restart count ${c.restartCount})`)));
    if (ctx.configForm === "crictl") out.push(h("p", { class: "small muted" }, `Save as ${c.name}.json, then: `, h("code", null, `crictl create <pod-id> ${c.name}.json pod.json`)));
    out.push(pre(containerForm(c.config), `ContainerConfig ${c.name}`, ctx.copy, `copy-container-${i}`));
  }
  return out;
}

/** kubectl's field path of a container: spec.containers{name}, spec.initContainers{name}, … */
function fieldPath(pod: Pod | undefined, name: string): string {
  const lists = ["initContainers", "containers", "ephemeralContainers"] as const;
  const list = lists.find((l) => (pod?.spec?.[l] as Array<{ name: string }> | undefined)?.some((c) => c.name === name)) ?? "containers";
  return `spec.${list}{${name}}`;
}

function eventsTab(plan: Plan, podObj: Pod | undefined): HTMLElement[] {
  const pod = podObj?.metadata?.name || "pod";
  const events = plan.events ?? [];
  if (!events.length) return [h("p", { class: "muted" }, "No events in this sync.")];
  return [
    h(
      "table",
      { class: "events" },
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Type"), h("th", { scope: "col" }, "Reason"), h("th", { scope: "col" }, "Object"), h("th", { scope: "col" }, "Message"))),
      h(
        "tbody",
        null,
        events.map((e) =>
          h(
            "tr",
            { class: e.type === "Warning" ? "warn" : "" },
            h("td", { "data-label": "Type" }, e.type),
            h("td", { "data-label": "Reason" }, h("code", null, e.reason)),
            // kubectl's OBJECT column: the pod, or the container as spec.containers{name}.
            h("td", { class: "object", "data-label": "Object" }, h("code", null, e.container ? `pod/${pod} ${fieldPath(podObj, e.container)}` : `pod/${pod}`)),
            h("td", { "data-label": "Message" }, e.message),
          ),
        ),
      ),
    ),
  ];
}

/** A block of terminal text with a Copy button. */
function terminalBlock(id: string, label: string, text: string, copy: DetailsContext["copy"], body?: HTMLElement) {
  return h(
    "div",
    { class: "codeblock terminal" },
    h("div", { class: "codeblock-bar" }, h("span", { class: "small muted" }, h("code", null, label)), h("button", { id: `copy-${id}`, class: "small-btn", onclick: () => copy(text, label) }, "Copy")),
    body ?? h("pre", { id, tabindex: "0", "aria-label": label }, h("code", null, text)),
  );
}

/** `kubectl get pods -w` from the pod's creation until this sync: a row per status update. */
function watchTab(ctx: DetailsContext): HTMLElement[] {
  const { header, lines } = watchLog(ctx.syncs, ctx.sync.index);
  const text = [header, ...lines.map((l) => l.text)].join("\n") + "\n";
  const pre = h(
    "pre",
    { id: "watch-log", tabindex: "0", "aria-label": "kubectl get pods -w" },
    h("code", null, h("span", { class: "watch-head" }, header), "\n", lines.map((l) => [h("span", { class: `watch-row${l.sync === ctx.sync.index ? " current" : ""}`, "data-sync": String(l.sync), "data-deleted": l.deleted ? "true" : undefined, title: l.deleted ? "The DELETED event: the API server removed the pod; kubectl prints its last row again" : undefined }, l.text), "\n"])),
  );
  return [
    h(
      "p",
      { class: "small muted" },
      "What ",
      h("code", null, "kubectl get pods -w"),
      ` prints from the pod's creation up to sync #${ctx.sync.index}: a row each time the kubelet writes a different status (at the start of a sync), as kubectl's printer aligns them. A sync that leaves the status unchanged prints nothing; a deleted pod's last row is printed once more when the API server removes it (the watch's DELETED event). The rows are the engine's (the timeline's kubectl row).`,
    ),
    terminalBlock("watch-log", "kubectl get pods -w", text, ctx.copy, pre),
  ];
}

/** `kubectl describe pod` at this sync: status, container states and the events so far. */
function describeTab(ctx: DetailsContext): HTMLElement[] {
  const text = describePod(ctx.syncs, ctx.sync.index);
  const name = ctx.sync.pod?.metadata?.name ?? "pod";
  return [
    h(
      "p",
      { class: "small muted" },
      "What ",
      h("code", null, `kubectl describe pod ${name}`),
      ` prints at sync #${ctx.sync.index}: the status the kubelet wrote at the start of this sync, and the kubelet's events so far as the API server keeps them — a repeated event is one event with a count (“x3 over 40s”: 3 times, the first 40 s ago). Fields podplan does not model (volumes, mounts, probes, tolerations, the scheduler's event) are left out.`,
    ),
    terminalBlock("describe-text", `kubectl describe pod ${name}`, text, ctx.copy),
  ];
}

function jsonTab(ctx: DetailsContext): HTMLElement[] {
  return [
    h("p", { class: "small muted" }, "Exactly what went to the engine and what came back. Paste the request into ", h("code", null, "podplan plan"), " to get the same answer."),
    ctx.sync.request ? pre(ctx.sync.request, "Plan request", ctx.copy, "copy-request") : h("p", { class: "muted" }, "No request: the pod could not be read."),
    pre(ctx.sync.answer, isError(ctx.sync.answer) ? "Error" : "Plan", ctx.copy, "copy-plan"),
  ];
}

const TABS: Array<[TabId, string]> = [
  ["decisions", "Decisions"],
  ["status", "Status"],
  ["describe", "kubectl describe"],
  ["watch", "kubectl get -w"],
  ["steps", "CRI steps"],
  ["configs", "Configs"],
  ["events", "Events"],
  ["json", "Request & plan"],
];

export function renderDetails(ctx: DetailsContext): HTMLElement[] {
  const { sync } = ctx;
  if (isError(sync.answer)) {
    const e = sync.answer.error;
    return [
      h("div", { class: "callout error", role: "alert" }, h("strong", null, `The engine refused this request (${e.kind}${e.path ? ` at ${e.path}` : ""}): `), e.message),
      ...jsonTab(ctx),
    ];
  }
  const plan = sync.answer;
  const count = (t: TabId): string => {
    const n = t === "decisions" ? plan.decisions?.length : t === "steps" ? plan.steps?.length : t === "configs" ? (plan.sandboxConfig ? 1 : 0) + (plan.containerConfigs?.length ?? 0) : t === "events" ? plan.events?.length : undefined;
    return n === undefined ? "" : ` (${n})`;
  };
  const tabs = h(
    "div",
    { class: "tabs", role: "tablist", "aria-label": "Details of this sync" },
    TABS.map(([id, label]) =>
      h(
        "button",
        {
          id: `tab-${id}`,
          role: "tab",
          "aria-selected": ctx.tab === id ? "true" : "false",
          "aria-controls": "tabpanel",
          tabindex: ctx.tab === id ? "0" : "-1",
          onclick: () => ctx.setTab(id),
          onkeydown: (e: KeyboardEvent) => {
            const i = TABS.findIndex(([t]) => t === id);
            const to = e.key === "ArrowRight" ? i + 1 : e.key === "ArrowLeft" ? i - 1 : e.key === "Home" ? 0 : e.key === "End" ? TABS.length - 1 : undefined;
            if (to === undefined) return;
            e.preventDefault();
            const next = TABS[(to + TABS.length) % TABS.length]![0];
            ctx.setTab(next);
            document.getElementById(`tab-${next}`)?.focus();
          },
        },
        label + count(id),
      ),
    ),
  );
  const body =
    ctx.tab === "decisions"
      ? decisionsTab(ctx, plan)
      : ctx.tab === "status"
        ? statusTab(plan)
        : ctx.tab === "describe"
          ? describeTab(ctx)
          : ctx.tab === "watch"
            ? watchTab(ctx)
            : ctx.tab === "steps" ? stepsTab(ctx, plan) : ctx.tab === "configs" ? configsTab(ctx, plan) : ctx.tab === "events" ? eventsTab(plan, sync.pod) : jsonTab(ctx);
  return [tabs, h("div", { id: "tabpanel", role: "tabpanel", "aria-labelledby": `tab-${ctx.tab}`, class: "tabpanel" }, body)];
}
