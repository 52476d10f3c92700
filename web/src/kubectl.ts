// What kubectl prints about the pod across syncs: `kubectl get pods -w` (the rows the
// engine computes, `plan.kubectl`, one per status update) and `kubectl describe pod` (the
// engine's status, plus the kubelet's events as the API server keeps them).
//
// Nothing here decides anything about the pod: the rows, the status and the events are the
// engine's. This file is kubectl's and client-go's presentation only: Go's tabwriter,
// `duration.HumanDuration`, the describe layout, and the event recorder's correlation
// (how repeated events become one event with a count, which `describe` prints as
// "x3 over 40s").

import { isError } from "./engine";
import type { SyncRecord } from "./session";
import type { ApiContainerState, ApiContainerStatus, Container, EphemeralContainer, Plan, Pod, PodStatus } from "../../wasm/types/podplan";

// ---------------------------------------------------------------------------------------
// Go's text/tabwriter (and github.com/liggitt/tabwriter's RememberWidths, which kubectl's
// printers use so that `get -w` rows stay aligned across flushes).

export interface TabOptions {
  minwidth: number;
  padding: number;
  /** liggitt/tabwriter `RememberWidths`: column widths only grow across flushes. */
  rememberWidths?: boolean;
}

/** A tabwriter: cells end at `\t`, lines at `\n`; a line without a tab flushes, as in Go. */
export class TabWriter {
  private lines: string[][] = [];
  private cells: string[] = [];
  private cell = "";
  private widths: number[] = [];
  private maxwidths: number[] = [];
  private out = "";

  constructor(private readonly opts: TabOptions) {}

  write(text: string): this {
    for (const ch of text) {
      if (ch === "\t" || ch === "\n") {
        this.cells.push(this.cell);
        this.cell = "";
        if (ch === "\n") {
          const n = this.cells.length;
          this.lines.push(this.cells);
          this.cells = [];
          // A line with one cell does not shape the following lines: Go flushes here.
          if (n === 1) this.flush();
        }
      } else this.cell += ch;
    }
    return this;
  }

  flush(): this {
    if (this.cell || this.cells.length) this.write("\n");
    this.format(0, this.lines.length);
    this.lines = [];
    return this;
  }

  /** Everything written and flushed so far. */
  text(): string {
    this.flush();
    return this.out;
  }

  private static width(s: string): number {
    return [...s].length;
  }

  private writeLines(line0: number, line1: number) {
    for (let i = line0; i < line1; i++) {
      const line = this.lines[i]!;
      line.forEach((c, j) => {
        this.out += c;
        if (j < this.widths.length) this.out += " ".repeat(Math.max(0, this.widths[j]! - TabWriter.width(c)));
      });
      this.out += "\n";
    }
  }

  private format(line0: number, line1: number) {
    const column = this.widths.length;
    for (let t = line0; t < line1; t++) {
      if (column >= this.lines[t]!.length - 1) continue;
      this.writeLines(line0, t);
      line0 = t;
      let width = this.opts.minwidth;
      for (; t < line1; t++) {
        const line = this.lines[t]!;
        if (column >= line.length - 1) break;
        width = Math.max(width, TabWriter.width(line[column]!) + this.opts.padding);
      }
      if (this.opts.rememberWidths) {
        if (this.maxwidths.length < this.widths.length) this.maxwidths.push(...this.widths.slice(this.maxwidths.length));
        if (this.maxwidths.length === this.widths.length) this.maxwidths.push(width);
        else if (this.maxwidths[column]! > width) width = this.maxwidths[column]!;
        else this.maxwidths[column] = width;
      }
      this.widths.push(width);
      this.format(line0, t);
      this.widths.pop();
      line0 = t;
      t--; // the loop's t++ must not skip the line that ended the block
    }
    this.writeLines(line0, line1);
  }
}

// ---------------------------------------------------------------------------------------
// k8s.io/apimachinery/pkg/util/duration.HumanDuration

/** A duration as kubectl prints ages: `40s`, `2m5s`, `10m`, `3h20m`, `2d3h`, … */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(seconds / 3600);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${Math.trunc(hours / 24 / 365)}y` : `${Math.trunc(hours / 24 / 365)}y${dy}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const plan = (s: SyncRecord): Plan | undefined => (isError(s.answer) ? undefined : s.answer);

// ---------------------------------------------------------------------------------------
// kubectl get pods -w

/** One line of the watch: the sync whose status update printed it, and the text. */
export interface WatchLine {
  sync: number;
  text: string;
  /** The watch's DELETED event: the API server removed the pod (kubectl prints its last row again). */
  deleted?: boolean;
}

/**
 * `kubectl get pods -w` from before the pod's first sync until sync `upto`: the header and
 * the first row, then a row for every status the kubelet wrote that differs from the one
 * before, or after a delete (the watch sees an update only when the object changes), and
 * a deleted pod's last row again when the API server removes it. Rows are the engine's
 * (`plan.kubectl`, computed at that sync's time); kubectl's printer aligns them with a
 * tabwriter that remembers its column widths (`printers.GetNewTabWriter`).
 */
export function watchLog(syncs: SyncRecord[], upto: number): { header: string; lines: WatchLine[] } {
  const tw = new TabWriter({ minwidth: 6, padding: 3, rememberWidths: true });
  const lines: WatchLine[] = [];
  let header = "";
  let last: string | undefined;
  for (const s of syncs.slice(0, upto + 1)) {
    const p = plan(s);
    const row = p?.kubectl;
    if (!p || !row) continue;
    // The object changes with its status, and with a delete (kubectl delete sets
    // metadata.deletionTimestamp: the watch's MODIFIED event prints `Terminating`).
    const status = JSON.stringify([p.status ?? null, s.request?.pod.metadata?.deletionTimestamp ?? null]);
    if (status === last) continue;
    last = status;
    const cells = `${row.name}\t${row.ready}\t${row.status}\t${row.restarts}\t${row.age}\n`;
    if (!header) tw.write("NAME\tREADY\tSTATUS\tRESTARTS\tAGE\n");
    tw.write(cells).flush();
    const all = tw.text().split("\n").slice(0, -1);
    if (!header) header = all[0]!;
    const text = all[all.length - 1]!;
    lines.push({ sync: s.index, text });
  }
  // A deleted pod that the pod worker has terminated (SyncTerminatedPod) is then deleted
  // from the API server by the status manager: the watch gets a DELETED event and kubectl
  // prints the object's row once more.
  const end = syncs.slice(0, upto + 1).find((s) => plan(s)?.workerPhase === "terminated" && !!s.request?.pod.metadata?.deletionTimestamp);
  const final = lines[lines.length - 1];
  if (end && final) lines.push({ sync: end.index, text: final.text, deleted: true });
  return { header, lines };
}

// ---------------------------------------------------------------------------------------
// Events as the API server keeps them (client-go's EventCorrelator)

/** A stored event: what `kubectl describe` lists. */
export interface StoredEvent {
  type: string;
  reason: string;
  message: string;
  /** `spec.containers{name}` & co., or "" for the pod itself. */
  fieldPath: string;
  count: number;
  first: number;
  last: number;
}

/** The correlator's limits (`k8s.io/client-go/tools/record/events_cache.go`). */
const AGGREGATE_MAX_EVENTS = 10;
const AGGREGATE_INTERVAL_MS = 600_000;
const SPAM_BURST = 25;
const SPAM_QPS = 1 / 300;
/** The API server's default `--event-ttl`: an event is deleted an hour after its last write. */
const EVENT_TTL_MS = 3_600_000;

function fieldPathOf(pod: Pod | undefined, container: string | undefined): string {
  if (!container) return "";
  const lists = ["initContainers", "containers", "ephemeralContainers"] as const;
  const list = lists.find((l) => (pod?.spec?.[l] as Array<{ name: string }> | undefined)?.some((c) => c.name === container)) ?? "containers";
  return `spec.${list}{${container}}`;
}

/**
 * The events of syncs 0..`upto` as the API server holds them at sync `upto`'s time: the
 * kubelet's recorder counts an event equal to an earlier one (same object, field path,
 * type, reason, message) as one more occurrence (`count`, `lastTimestamp`); ten different
 * messages for the same object, type and reason within ten minutes become one event
 * "(combined from similar events): …"; a source may write 25 events about one pod at once,
 * then one per 5 minutes (the rest are dropped); the API server deletes an event an hour
 * after its last write.
 */
export function storedEvents(syncs: SyncRecord[], upto: number): StoredEvent[] {
  const observed = new Map<string, { count: number; first: number }>();
  const aggregates = new Map<string, { messages: Set<string>; last: number }>();
  const stored = new Map<string, StoredEvent>();
  let tokens = SPAM_BURST;
  let refilled: number | undefined;
  for (const s of syncs.slice(0, upto + 1)) {
    const p = plan(s);
    if (!p) continue;
    const now = s.before.now;
    for (const e of p.events ?? []) {
      const fieldPath = fieldPathOf(s.pod, e.container);
      // EventAggregate: the aggregate key leaves out the message (and the field path).
      const aggKey = `${e.type}\u0000${e.reason}`;
      let agg = aggregates.get(aggKey);
      if (!agg || now - agg.last > AGGREGATE_INTERVAL_MS) agg = { messages: new Set(), last: now };
      agg.messages.add(e.message);
      agg.last = now;
      aggregates.set(aggKey, agg);
      let key = `${fieldPath}\u0000${e.type}\u0000${e.reason}\u0000${e.message}`;
      let message = e.message;
      let path = fieldPath;
      if (agg.messages.size >= AGGREGATE_MAX_EVENTS) {
        // Do not grow the set of messages any further (Go pops any one of them).
        const first = agg.messages.values().next().value;
        if (first !== undefined) agg.messages.delete(first);
        key = `aggregate\u0000${aggKey}`;
        message = `(combined from similar events): ${e.message}`;
        path = "";
      }
      // eventObserve: one more occurrence of an event already seen.
      const seen = observed.get(key);
      const count = (seen?.count ?? 0) + 1;
      const first = seen?.first ?? now;
      observed.set(key, { count, first });
      // EventSourceObjectSpamFilter: a token bucket per source and object.
      if (refilled !== undefined) tokens = Math.min(SPAM_BURST, tokens + ((now - refilled) / 1000) * SPAM_QPS);
      refilled = now;
      if (tokens < 1) continue;
      tokens -= 1;
      stored.set(key, { type: e.type, reason: e.reason, message, fieldPath: path, count, first, last: now });
    }
  }
  const at = syncs[upto]?.before.now ?? 0;
  // kubectl sorts by lastTimestamp (SortableEvents).
  return [...stored.values()].filter((e) => at - e.last <= EVENT_TTL_MS).sort((a, b) => a.last - b.last);
}

/** The Age column of `kubectl describe`'s events: `40s`, or `10s (x3 over 40s)`. */
export function eventAge(e: StoredEvent, now: number): string {
  const first = humanDuration(now - e.first);
  return e.count > 1 ? `${humanDuration(now - e.last)} (x${e.count} over ${first})` : first;
}

// ---------------------------------------------------------------------------------------
// kubectl describe pod

const DAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Go's `time.RFC1123Z` in UTC: `Thu, 01 Jan 2026 00:00:10 +0000`. */
export function rfc1123z(iso: string | undefined): string {
  const t = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(t)) return "<unknown>";
  const d = new Date(t);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${DAYS[d.getUTCDay()]}, ${p(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`;
}

const L = (level: number) => "  ".repeat(level);

function describeState(out: TabWriter, name: string, st: ApiContainerState | undefined) {
  if (st?.running) {
    out.write(`${L(2)}${name}:\tRunning\n`);
    out.write(`${L(3)}Started:\t${rfc1123z(st.running.startedAt)}\n`);
  } else if (st?.terminated) {
    const t = st.terminated;
    out.write(`${L(2)}${name}:\tTerminated\n`);
    if (t.reason) out.write(`${L(3)}Reason:\t${t.reason}\n`);
    if (t.message) out.write(`${L(3)}Message:\t${t.message}\n`);
    out.write(`${L(3)}Exit Code:\t${t.exitCode}\n`);
    if (t.signal) out.write(`${L(3)}Signal:\t${t.signal}\n`);
    out.write(`${L(3)}Started:\t${rfc1123z(t.startedAt)}\n`);
    out.write(`${L(3)}Finished:\t${rfc1123z(t.finishedAt)}\n`);
  } else {
    out.write(`${L(2)}${name}:\tWaiting\n`);
    if (st?.waiting?.reason) out.write(`${L(3)}Reason:\t${st.waiting.reason}\n`);
  }
}

function ports(c: Container | EphemeralContainer, host: boolean): string {
  return (c.ports ?? []).map((p) => `${host ? (p.hostPort ?? 0) : p.containerPort}/${p.protocol ?? "TCP"}`).join(",");
}

function describeContainers(out: TabWriter, label: string, specs: Array<Container | EphemeralContainer>, statuses: ApiContainerStatus[] | undefined) {
  out.write(`${label}:\n`);
  for (const c of specs) {
    const st = statuses?.find((x) => x.name === c.name);
    out.write(`${L(1)}${c.name}:\n`);
    if (st) out.write(`${L(2)}Container ID:\t${st.containerID ?? ""}\n`);
    out.write(`${L(2)}Image:\t${c.image ?? ""}\n`);
    if (st) out.write(`${L(2)}Image ID:\t${st.imageID ?? ""}\n`);
    const port = ports(c, false);
    const hostPort = ports(c, true);
    out.write(port.includes(",") ? `${L(2)}Ports:\t${port}\n` : `${L(2)}Port:\t${port || "<none>"}\n`);
    out.write(hostPort.includes(",") ? `${L(2)}Host Ports:\t${hostPort}\n` : `${L(2)}Host Port:\t${hostPort || "<none>"}\n`);
    if ("restartPolicy" in c && c.restartPolicy) out.write(`${L(2)}Restart Policy:\t${c.restartPolicy}\n`);
    if (st) {
      describeState(out, "State", st.state);
      if (st.lastState?.terminated) describeState(out, "Last State", st.lastState);
      out.write(`${L(2)}Ready:\t${st.ready ? "True" : "False"}\n`);
      out.write(`${L(2)}Restart Count:\t${st.restartCount}\n`);
    }
  }
}

/**
 * `kubectl describe pod` at sync `upto`: the pod as the API server has it then (the spec in
 * force, the status the kubelet wrote at the start of that sync) and its events. The
 * layout is kubectl's (`describe.go`'s `describePod`); fields podplan does not model are
 * left out (priority, service account, labels, volumes, mounts, probes, tolerations, and
 * the scheduler's `Scheduled` event).
 */
export function describePod(syncs: SyncRecord[], upto: number): string {
  const sync = syncs[upto];
  const p = sync ? plan(sync) : undefined;
  const pod = sync?.request?.pod ?? sync?.pod;
  if (!sync || !p || !pod) return "";
  const st: PodStatus = p.status ?? {};
  const spec = pod.spec;
  const out = new TabWriter({ minwidth: 0, padding: 2 });
  out.write(`Name:\t${pod.metadata?.name ?? ""}\n`);
  out.write(`Namespace:\t${pod.metadata?.namespace ?? ""}\n`);
  out.write(spec?.nodeName ? `Node:\t${spec.nodeName}/${st.hostIP ?? ""}\n` : "Node:\t<none>\n");
  if (st.startTime) out.write(`Start Time:\t${rfc1123z(st.startTime)}\n`);
  // describe.go: a deleted pod that is not terminal reads "Terminating (lasts …)", the
  // time since its deletionTimestamp (which is in the future while the grace period runs,
  // so kubectl prints "<invalid>" then, as it does), and its grace period.
  const deletion = pod.metadata?.deletionTimestamp;
  if (deletion && st.phase !== "Failed" && st.phase !== "Succeeded") {
    out.write(`Status:\tTerminating (lasts ${humanDuration(sync.before.now - Date.parse(deletion))})\n`);
    out.write(`Termination Grace Period:\t${pod.metadata?.deletionGracePeriodSeconds ?? 0}s\n`);
  } else out.write(`Status:\t${st.phase ?? ""}\n`);
  if (st.reason) out.write(`Reason:\t${st.reason}\n`);
  if (st.message) out.write(`Message:\t${st.message}\n`);
  out.write(`IP:\t${st.podIP ?? ""}\n`);
  const ips = st.podIPs ?? [];
  if (!ips.length) out.write("IPs:\t<none>\n");
  else {
    out.write("IPs:\n");
    for (const ip of ips) out.write(`${L(1)}IP:\t${ip.ip}\n`);
  }
  if (spec?.initContainers?.length) describeContainers(out, "Init Containers", spec.initContainers, st.initContainerStatuses);
  describeContainers(out, "Containers", spec?.containers ?? [], st.containerStatuses);
  if (spec?.ephemeralContainers?.length) describeContainers(out, "Ephemeral Containers", spec.ephemeralContainers, st.ephemeralContainerStatuses);
  const conds = st.conditions ?? [];
  if (conds.length) {
    out.write(`Conditions:\n${L(1)}Type\tStatus\n`);
    for (const c of conds) out.write(`${L(1)}${c.type} \t${c.status} \n`);
  }
  if (st.qosClass) out.write(`QoS Class:\t${st.qosClass}\n`);
  const events = storedEvents(syncs, upto);
  const now = sync.before.now;
  if (!events.length) out.write("Events:\t<none>\n");
  else {
    out.flush();
    out.write(`Events:\n${L(1)}Type\tReason\tAge\tFrom\tMessage\n`);
    out.write(`${L(1)}----\t------\t----\t----\t-------\n`);
    for (const e of events) out.write(`${L(1)}${e.type}\t${e.reason}\t${eventAge(e, now)}\tkubelet\t${e.message.trim()}\n`);
  }
  return out.text();
}
