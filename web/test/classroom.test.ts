// The classroom views: kubectl's printing (tabwriter, HumanDuration, event correlation,
// describe), the order of decisions, continued syncs, and pull faults before sync #0 —
// against podplan's module wherever the engine answers.

import { describe, expect, it } from "vitest";
import { describePod, eventAge, humanDuration, storedEvents, TabWriter, watchLog } from "../src/kubectl";
import { replay, type Session, type SyncRecord } from "../src/session";
import { decodeShare, encodeShare } from "../src/share";
import { scenarioById, scenarioText } from "../src/scenarios";
import { kubeletOrder } from "../src/ui/details";
import { continuation } from "../src/ui/timeline";
import type { Event, Plan } from "../../wasm/types/podplan";
import { engine } from "./wasm";

const session = (id: string, actions: Session["actions"], before = scenarioById(id)?.before): Session => ({
  scenario: id,
  format: "yaml",
  pod: scenarioText(id, "yaml")!,
  gates: {},
  actions,
  ...(before ? { before } : {}),
});
const plan = (s: SyncRecord) => s.answer as Plan;

describe("kubectl's printing", () => {
  it("HumanDuration gives the engine's AGE at every sync", () => {
    const steps = [50, 100, 500, 3000, 9000, 30_000, 200_000, 900_000];
    const syncs = replay(engine, session("plain", steps.map((s) => ({ t: "advance", s }))));
    const created = syncs[0]!.before.now;
    for (const s of syncs) expect(humanDuration(s.before.now - created), `sync ${s.index}`).toBe(plan(s).kubectl!.age);
    expect(new Set(syncs.map((s) => plan(s).kubectl!.age)).size).toBe(syncs.length);
  });

  it("aligns columns as Go's tabwriter does, flushing at a line without a tab", () => {
    const tw = new TabWriter({ minwidth: 0, padding: 2 });
    expect(tw.write("a\tbb\tc\naaa\tb\tc\nTitle:\nlonger\tz\n").text()).toBe("a    bb  c\naaa  b   c\nTitle:\nlonger  z\n");
  });

  it("remembers column widths across flushes (kubectl's get -w printer)", () => {
    const tw = new TabWriter({ minwidth: 6, padding: 3, rememberWidths: true });
    tw.write("NAME\tAGE\nweb\t0s\n").flush();
    tw.write("a-much-longer-name\t1s\n").flush();
    tw.write("web\t2s\n").flush();
    expect(tw.text()).toBe("NAME   AGE\nweb    0s\na-much-longer-name   1s\nweb                  2s\n");
  });

  it("prints a watch row per status update, from the engine's rows", () => {
    const syncs = replay(engine, session("crashloop", [{ t: "exit", c: "worker", code: 1 }, { t: "sync" }, { t: "sync" }]));
    const { header, lines } = watchLog(syncs, syncs.length - 1);
    expect(header).toMatch(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    // Two resyncs that leave the status as it was print nothing.
    const changed = syncs.filter((s, i) => i === 0 || JSON.stringify(plan(s).status) !== JSON.stringify(plan(syncs[i - 1]!).status));
    expect(lines.map((l) => l.sync)).toEqual(changed.map((s) => s.index));
    for (const l of lines) expect(l.text).toContain(plan(syncs[l.sync]!).kubectl!.status);
  });
});

describe("events as kubectl describe shows them", () => {
  const crashloop = session("crashloop", [
    { t: "exit", c: "worker", code: 1 },
    { t: "exit", c: "worker", code: 1 },
    { t: "advance", s: 3 },
    { t: "advance", s: 3 },
    { t: "advance", s: 4, why: "backoff" },
    { t: "exit", c: "worker", code: 1 },
  ]);

  it("counts a repeated event once, with its first and last time", () => {
    const syncs = replay(engine, crashloop);
    const at = syncs.length - 1;
    const events = storedEvents(syncs, at);
    const backoff = events.find((e) => e.reason === "BackOff")!;
    expect(backoff.count).toBe(4);
    expect(eventAge(backoff, syncs[at]!.before.now)).toBe("0s (x4 over 10s)");
    const text = describePod(syncs, at);
    expect(text).toMatch(/^ {2}Warning {2}BackOff +0s \(x4 over 10s\) +kubelet +Back-off restarting failed container worker/m);
    expect(text).toMatch(/^ {4}Restart Count: {2}2$/m);
    expect(text).toMatch(/^Conditions:\n {2}Type +Status\n/m);
    // At an earlier sync, only the events so far.
    expect(storedEvents(syncs, 2).find((e) => e.reason === "BackOff")!.count).toBe(1);
  });

  const fake = (batches: Array<{ now: number; events: Event[] }>): SyncRecord[] =>
    batches.map((b, index) => ({ index, before: { now: b.now }, answer: { events: b.events }, notes: [], podText: "", after: { now: b.now }, applied: [], changed: false }) as unknown as SyncRecord);

  it("combines ten different messages of one reason within ten minutes", () => {
    const ev = (i: number): Event => ({ type: "Normal", reason: "Pulled", message: `pulled in ${i}s` });
    const syncs = fake(Array.from({ length: 12 }, (_, i) => ({ now: i * 1000, events: [ev(i)] })));
    const events = storedEvents(syncs, 11);
    expect(events.filter((e) => !e.message.startsWith("(combined")).length).toBe(9);
    const combined = events.find((e) => e.message.startsWith("(combined from similar events): "))!;
    expect(combined).toMatchObject({ count: 3, message: "(combined from similar events): pulled in 11s" });
  });

  it("drops what the spam filter drops (25 at once, then one per 5 minutes), and expires after an hour", () => {
    const many = Array.from({ length: 30 }, (_, i): Event => ({ type: "Normal", reason: `R${i}`, message: "m" }));
    const syncs = fake([
      { now: 0, events: many },
      { now: 300_000, events: [{ type: "Normal", reason: "Late", message: "m" }, { type: "Normal", reason: "Later", message: "m" }] },
      { now: 300_000 + 3_600_001, events: [] },
    ]);
    expect(storedEvents(syncs, 0)).toHaveLength(25);
    expect(storedEvents(syncs, 1).map((e) => e.reason)).toContain("Late");
    expect(storedEvents(syncs, 1).map((e) => e.reason)).not.toContain("Later");
    expect(storedEvents(syncs, 2)).toHaveLength(0);
  });
});

describe("decisions, continued syncs and faults before sync #0", () => {
  it("lists a held-back restart after the kill it follows", () => {
    const fail = { t: "probe", c: "app", p: "liveness", r: "failure" } as const;
    // A 1 s failure window (the kubelet acts on a liveness failure after periodSeconds ×
    // failureThreshold): the crash-loop back-off is still running at the third failure.
    const quick = session("liveness", [fail, fail, fail]);
    quick.pod = quick.pod.replace("periodSeconds: 10", "periodSeconds: 1").replace("failureThreshold: 3", "failureThreshold: 1");
    const syncs = replay(engine, quick);
    const p = plan(syncs[3]!);
    const order = kubeletOrder(p).map((i) => p.decisions[i]!);
    const kill = order.findIndex((d) => d.action === "killContainer");
    const start = order.findIndex((d) => d.action === "startContainer");
    expect(kill).toBeGreaterThanOrEqual(0);
    expect(start).toBeGreaterThan(kill);
    expect(order[start]!.effect).toBe("notCarriedOut");
    // The plan itself lists the start first: the page reorders, the engine does not.
    expect(p.decisions.findIndex((d) => d.action === "startContainer")).toBeLessThan(p.decisions.findIndex((d) => d.action === "killContainer"));
  });

  it("runs sync #0 against the faults set before it, and marks the pull's continuation", async () => {
    const s = session("typo", [{ t: "sync" }, { t: "sync" }]);
    const syncs = replay(engine, s);
    expect(plan(syncs[0]!).steps.some((x) => x.op === "PullImage")).toBe(true);
    expect(continuation(syncs[0]!)).toBeUndefined();
    expect(continuation(syncs[1]!)).toEqual({ of: 0, after: "the image pull" });
    expect(continuation(syncs[2]!)).toBeUndefined();
    expect(plan(syncs[2]!).heldBack).toMatchObject([{ container: "web", reason: "ImagePullBackOff" }]);
    const link = await encodeShare({ session: s, present: true }, scenarioText("typo", "yaml"));
    const back = await decodeShare(link, scenarioText);
    expect(back?.session.before).toEqual(s.before);
    expect(back?.present).toBe(true);
  });
});
