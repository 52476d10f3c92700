// The timeline: one column per sync, one row for the sandbox and one per container.
// A cell shows the state after that sync and what the sync did to it.

import { describeAction, type SyncRecord } from "../session";
import type { Plan } from "../../../wasm/types/podplan";
import { specContainers, type ContainerKind } from "../containers";
import { isError } from "../engine";
import { h, idPart } from "./dom";
import { deleted, terminalPhase, waitingReason, workerEnd } from "./status";

export interface CellInfo {
  /** CSS state class: running, done, failed, waiting, created, none, ready, notready. */
  state: string;
  label: string;
  marks: string[];
  title: string;
}

const KIND_LABEL: Record<ContainerKind, string> = { init: "init", sidecar: "sidecar", regular: "container", ephemeral: "ephemeral" };

/** Every container name seen in any sync's spec, in order of first appearance. */
export function timelineRows(syncs: SyncRecord[]): Array<{ name: string; kind: ContainerKind }> {
  const seen = new Map<string, ContainerKind>();
  for (const s of syncs) {
    for (const c of s.pod ? specContainers(s.pod) : []) if (!seen.has(c.name)) seen.set(c.name, c.kind);
    for (const c of s.after.runtime.containerStatuses) if (c.name && !seen.has(c.name)) seen.set(c.name, "regular");
  }
  return [...seen].map(([name, kind]) => ({ name, kind }));
}

export function containerCell(sync: SyncRecord, name: string): CellInfo {
  const s = sync.after.runtime.containerStatuses.find((c) => c.name === name);
  const marks: string[] = [];
  const did = sync.applied.filter((o) => "container" in o && o.container === name);
  if (did.some((o) => o.op === "KillContainer")) marks.push("killed");
  if (did.some((o) => o.op === "StartContainer")) marks.push("started");
  if (did.some((o) => o.op === "UpdateContainerResources")) marks.push("resized");
  if (did.some((o) => o.op === "RemoveContainer")) marks.push("removed");
  const plan = isError(sync.answer) ? undefined : (sync.answer as Plan);
  const held = plan?.heldBack?.find((x) => x.container === name);
  const restarts = s?.restartCount ?? 0;
  const rc = restarts > 0 ? ` ↻${restarts}` : "";
  // What kubectl shows for a container that is not running: its waiting reason (from the
  // reason cache this sync leaves).
  const waiting = s?.state === "running" ? undefined : waitingReason(plan, name);
  if (held) {
    // Which back-off: the container's crash loop, or its image's pull back-off.
    const kind = held.reason || "CrashLoopBackOff";
    const what = kind === "ImagePullBackOff" ? "image-pull back-off" : "crash-loop back-off";
    const exit = s && kind !== "ImagePullBackOff" ? ` (last exit code ${s.exitCode ?? 0})` : "";
    return {
      state: "waiting",
      label: `${waiting?.reason ?? kind} · ${kind === "ImagePullBackOff" ? "pull " : ""}back-off ${held.waitSeconds}s`,
      marks,
      title: `${name}: start held back by ${what}, ${held.waitSeconds}s to go${exit}${waiting?.message ? `; ${waiting.message}` : ""}`,
    };
  }
  if (!s) {
    if (marks.includes("removed")) return { state: "none", label: "removed", marks, title: `${name}: removed from the runtime (RemoveContainer)` };
    if (waiting) return { state: "waiting", label: waiting.reason, marks, title: `${name}: not created; waiting: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ""}` };
    return { state: "none", label: "—", marks, title: `${name}: not created` };
  }
  if (waiting)
    return { state: "waiting", label: `${waiting.reason}${rc}`, marks, title: `${name}: ${s.state}${s.state === "exited" ? ` (${s.exitCode ?? 0})` : ""}; waiting: ${waiting.reason}${waiting.message ? ` (${waiting.message})` : ""}` };
  switch (s.state) {
    case "running":
      return { state: "running", label: `running${rc}`, marks, title: `${name}: running as ${s.id}, restart count ${restarts}` };
    case "created":
      return { state: "created", label: `created${rc}`, marks, title: `${name}: created, not started` };
    case "exited": {
      const code = s.exitCode ?? 0;
      return { state: code === 0 ? "done" : "failed", label: `exited ${code}${rc}`, marks, title: `${name}: exited with code ${code}${s.reason ? ` (${s.reason})` : ""}, restart count ${restarts}` };
    }
    default:
      return { state: "failed", label: "unknown", marks, title: `${name}: state unknown` };
  }
}

export function sandboxCell(sync: SyncRecord): CellInfo {
  const sb = sync.after.runtime.sandboxStatuses[0];
  const marks: string[] = [];
  if (sync.applied.some((o) => o.op === "RunPodSandbox")) marks.push("created");
  if (sync.applied.some((o) => o.op === "KillPod")) marks.push("stopped");
  if (sync.applied.some((o) => o.op === "RemovePodSandbox")) marks.push("removed");
  if (!sb) return marks.includes("removed") ? { state: "none", label: "removed", marks, title: "the sandbox was removed (RemovePodSandbox)" } : { state: "none", label: "—", marks, title: "no sandbox" };
  const attempt = sb.metadata?.attempt ?? 0;
  // The cell shows the id as crictl does (its first 13 characters); the title has it whole.
  const short = (sb.id ?? "").slice(0, 13);
  if (sb.state !== "SANDBOX_READY") return { state: "notready", label: `${short} not ready`, marks, title: `${sb.id} (attempt ${attempt}) is not ready` };
  if (sb.network && sb.network.ip === "") return { state: "failed", label: `${short} no IP`, marks, title: `${sb.id} (attempt ${attempt}) has no IP address` };
  return { state: "ready", label: `${short} ready`, marks, title: `${sb.id} (attempt ${attempt}) ready, IP ${sb.network?.ip ?? "?"}` };
}

const MARK_TEXT: Record<string, string> = { started: "▶", killed: "■", created: "✚", stopped: "■", resized: "⇕", removed: "✖" };
const MARK_WORD: Record<string, string> = { started: "started", killed: "killed", created: "created", stopped: "stopped", resized: "resized", removed: "removed" };

function cell(info: CellInfo, selected: boolean) {
  return h(
    "td",
    { class: `cell st-${info.state}${selected ? " selected" : ""}`, title: info.title },
    h(
      "span",
      { class: "cell-inner" },
      info.marks.map((m) => h("span", { class: `mark mark-${m}`, "aria-label": MARK_WORD[m] ?? m, title: MARK_WORD[m] ?? m }, MARK_TEXT[m] ?? m)),
      h("span", { class: "cell-label" }, info.label),
    ),
    h("span", { class: "sr-only" }, ` (${info.title}${info.marks.length ? `; this sync: ${info.marks.map((m) => MARK_WORD[m]).join(", ")}` : ""})`),
  );
}

/** The kubectl row of the status the sync started with (READY, STATUS, RESTARTS, AGE). */
function kubectlCell(sync: SyncRecord, selected: boolean) {
  const plan = isError(sync.answer) ? undefined : (sync.answer as Plan);
  const row = plan?.kubectl;
  if (!row) return h("td", { class: `cell kubectl st-none${selected ? " selected" : ""}` }, "—");
  const terminal = terminalPhase(plan);
  const end = workerEnd(plan, deleted(sync.request));
  const gone = end?.gone ? "; then the API server deletes the pod: it is gone from kubectl get pods" : "";
  const title = `kubectl get pods at the start of sync #${sync.index}: READY ${row.ready}, STATUS ${row.status}, RESTARTS ${row.restarts}, AGE ${row.age}${terminal ? `; phase ${terminal}: terminal, the kubelet syncs it no more` : ""}${gone}`;
  return h(
    "td",
    { class: `cell kubectl${terminal || end?.phase === "terminated" ? " terminal" : ""}${selected ? " selected" : ""}`, title, "data-status": row.status, "data-gone": end?.gone ? "true" : undefined },
    h(
      "span",
      { class: "kubectl-inner", "aria-hidden": "true" },
      h("span", { class: "k-status" }, row.status),
      h("span", { class: "k-rest" }, `${row.ready} · ↻${row.restarts} · ${row.age}`),
      end?.gone ? h("span", { class: "k-rest k-gone" }, "then deleted") : null,
    ),
    h("span", { class: "sr-only" }, title),
  );
}

/**
 * Whether this sync is the kubelet's previous sync, continued. The kubelet pulls an image
 * inside the sync that starts the container (`SyncPod` → `startContainer` →
 * `EnsureImageExists`, then create and start); podplan splits that sync at the pull, and
 * the next plan reads the pull's result (`pullResults` in its request) and creates and
 * starts the container. That plan finishes the same kubelet sync: it is not an extra one.
 */
export function continuation(sync: SyncRecord): { of: number; after: string } | undefined {
  const r = sync.request;
  if (!r || sync.index === 0 || !(r.pullResults ?? []).length) return undefined;
  return { of: sync.index - 1, after: "the image pull" };
}

/**
 * Whether this plan reports what the previous sync's lifecycle hooks did (`hookResults`):
 * the kubelet runs a postStart hook inside `startContainer` and a preStop hook inside
 * `killContainer`, so a failed postStart's kill and its events, or the grace period a
 * preStop used, happened in the kubelet's sync #N; this plan reports them first and then
 * decides as the kubelet's next sync (a sync the kubelet runs anyway: the container's
 * exit is a PLEG event), so it is not marked as a continuation.
 */
export function hookReport(sync: SyncRecord): { of: number } | undefined {
  const r = sync.request;
  return r && sync.index > 0 && (r.hookResults ?? []).length ? { of: sync.index - 1 } : undefined;
}

/** What the timeline says led to a sync: its trigger, or that it continues the previous one. */
export function syncCause(sync: SyncRecord): string {
  const cont = continuation(sync);
  if (!cont) return describeAction(sync.trigger);
  // A PLEG relist or a resync adds nothing: the continuation is what this sync is.
  const t = sync.trigger?.t;
  const extra = t === "pleg" || t === "sync" ? "" : ` (after: ${describeAction(sync.trigger)})`;
  return `#${cont.of} continued${extra}`;
}

export function seconds(sync: SyncRecord, first: SyncRecord): number {
  return Math.round((sync.before.now - first.before.now) / 1000);
}

export function renderTimeline(syncs: SyncRecord[], selected: number, onSelect: (i: number) => void): HTMLElement {
  const rows = timelineRows(syncs);
  const first = syncs[0]!;
  const head = h(
    "tr",
    null,
    h("th", { scope: "col", class: "rowhead" }, "Sync"),
    syncs.map((s) => {
      const err = isError(s.answer);
      const cont = continuation(s);
      const why = cont
        ? `the same kubelet sync as #${cont.of}, continued after ${cont.after} (podplan splits one kubelet sync there; this is not an extra sync)${syncCause(s).includes("(after:") ? `; before it: ${describeAction(s.trigger)}` : ""}`
        : `after: ${describeAction(s.trigger)}`;
      return h(
        "th",
        { scope: "col", class: `synchead${s.index === selected ? " selected" : ""}${err ? " error" : ""}${cont ? " continued" : ""}`, "data-continues": cont ? String(cont.of) : undefined },
        h(
          "button",
          {
            id: `sync-${s.index}`,
            class: "syncbtn",
            "aria-current": s.index === selected ? "true" : undefined,
            "aria-label": `Sync ${s.index} at t=${seconds(s, first)}s, ${why}${s.took ? `, took ${s.took}s` : ""}${err ? " (engine error)" : ""}`,
            title: cont ? `The same kubelet sync as #${cont.of}, continued after ${cont.after}: the kubelet does this inside one sync; podplan splits it so the next plan can read the result.` : undefined,
            onclick: () => onSelect(s.index),
          },
          h("span", { class: "syncno" }, cont ? `#${s.index} ↳` : `#${s.index}`),
          h("span", { class: "synctime" }, `t=${seconds(s, first)}s`),
          h("span", { class: "synctrigger" }, syncCause(s)),
          s.took ? h("span", { class: "synctook", title: `Carrying out this sync's plan took ${s.took} s (preStop hooks, stops waited for, image pulls): the next sync is that much later` }, `took ${s.took}s`) : null,
        ),
      );
    }),
  );
  const body = [
    h(
      "tr",
      { id: "row-kubectl", class: "kubectl" },
      h(
        "th",
        { scope: "row", class: "rowhead", title: "kubectl get pods: READY, STATUS, RESTARTS, AGE of the status the kubelet wrote at the start of that sync (shown until the next sync)" },
        h("span", { class: "kind kind-kubectl" }, "kubectl"),
      ),
      syncs.map((s) => kubectlCell(s, s.index === selected)),
    ),
    h(
      "tr",
      { class: "row-sandbox" },
      h("th", { scope: "row", class: "rowhead" }, h("span", { class: "kind kind-sandbox" }, "sandbox")),
      syncs.map((s) => cell(sandboxCell(s), s.index === selected)),
    ),
    ...rows.map((r) =>
      h(
        "tr",
        { id: `row-${idPart(r.name)}` },
        h("th", { scope: "row", class: "rowhead" }, h("span", { class: `kind kind-${r.kind}` }, KIND_LABEL[r.kind]), " ", h("span", { class: "cname" }, r.name)),
        syncs.map((s) => cell(containerCell(s, r.name), s.index === selected)),
      ),
    ),
  ];
  return h(
    "div",
    null,
    h(
      "div",
      { class: "timeline-scroll", tabindex: "-1" },
      h("table", { class: "timeline" }, h("caption", { class: "sr-only" }, "State of the sandbox and each container after every sync"), h("thead", null, head), h("tbody", null, body)),
    ),
    // The key: what the marks in the cells mean.
    h(
      "ul",
      { class: "timeline-key", id: "timeline-key", "aria-label": "Key to the timeline" },
      h("li", null, h("span", { class: "mark mark-started" }, "▶"), " started"),
      h("li", null, h("span", { class: "mark mark-killed" }, "■"), " killed / stopped"),
      h("li", null, h("span", { class: "mark mark-created" }, "✚"), " sandbox created"),
      h("li", null, h("span", { class: "mark mark-resized" }, "⇕"), " resized"),
      h("li", null, h("span", { class: "mark mark-removed" }, "✖"), " removed"),
      h("li", null, "↻ restarts"),
      h("li", null, "“took N s”: the sync's stops, preStop hooks and image pulls took that long; the clock moved with them"),
      h("li", null, "↳ the same kubelet sync, continued (after an image pull)"),
    ),
  );
}
