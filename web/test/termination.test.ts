// The pod worker's termination in the playground (kubectl delete, eviction), the OOM
// killer, and the honest clock: the runtime model's `delete`, `evict`, `oomKill` and
// `stopTakes` events, carried out by the module; the clock moves by what a plan's steps
// took (`blockedMillis` of simApply).

import { describe, expect, it } from "vitest";
import { ended, replay, settle, type Session, type SessionAction, type SyncRecord } from "../src/session";
import { scenarioText } from "../src/scenarios";
import { decodeShare, encodeShare } from "../src/share";
import { buildRequest, nextBackoffExpiry } from "../src/sim";
import { describePod, watchLog } from "../src/kubectl";
import type { Plan, Pod } from "../../wasm/types/podplan";
import { engine } from "./wasm";

const session = (id: string, actions: SessionAction[]): Session => ({ scenario: id, format: "yaml", pod: scenarioText(id, "yaml")!, gates: {}, actions });
const plan = (s: SyncRecord) => s.answer as Plan;
const t = (s: SyncRecord, first: SyncRecord) => (s.before.now - first.before.now) / 1000;
const ops = (s: SyncRecord) => plan(s).steps.map((x) => x.op).filter((op) => op !== "WriteNodeFiles");
const running: SessionAction[] = [{ t: "pleg" }, { t: "pleg" }];

describe("deleting a pod", () => {
  it("Terminating: the preStop's 5 s move the clock, then SyncTerminatedPod removes everything and the pod is gone", () => {
    const syncs = replay(engine, session("delete", [...running, { t: "delete", g: 20 }, { t: "sync" }]));
    const [first, , steady, terminating, terminated] = syncs as [SyncRecord, SyncRecord, SyncRecord, SyncRecord, SyncRecord];
    expect(plan(steady).kubectl?.status).toBe("Running");
    expect(ended(steady)).toBeUndefined();
    // The delete marks the pod; the engine's next plan is SyncTerminatingPod.
    expect(terminating.request?.pod.metadata?.deletionGracePeriodSeconds).toBe(20);
    expect(terminating.request?.pod.metadata?.deletionTimestamp).toBe("2026-01-01T00:00:20Z");
    expect(plan(terminating).workerPhase).toBe("terminating");
    expect(plan(terminating).kubectl?.status).toBe("Terminating");
    const kill = plan(terminating).steps.find((s) => s.op === "KillPod")!;
    expect(kill.gracePeriodSeconds).toBe(20);
    // Regular containers first, the sidecar after them.
    expect(kill.kills?.map((k) => k.container)).toEqual(["web", "log-shipper"]);
    expect(terminating.after.world.hookResults).toMatchObject([{ hook: "preStop", elapsedMillis: 5000, stopGracePeriodSeconds: 15 }]);
    expect(terminating.took).toBe(5);
    expect(ended(terminating)).toBeUndefined(); // SyncTerminatedPod still follows
    // The clock moved by the preStop: the next sync is at t = 5 s.
    expect(t(terminated, first)).toBe(5);
    expect(plan(terminated).workerPhase).toBe("terminated");
    expect(ops(terminated)).toEqual(["CleanupPod", "RemoveContainer", "RemoveContainer", "RemovePodSandbox", "CleanupPod"]);
    expect(terminated.after.runtime.containerStatuses).toEqual([]);
    expect(terminated.after.runtime.sandboxStatuses).toEqual([]);
    expect(ended(terminated)).toMatch(/gone/);
  });

  it("a container that ignores SIGTERM is killed when the grace period is over: the sync takes all 20 s", () => {
    const syncs = replay(engine, session("delete", [...running, { t: "stopTakes", c: "web", s: 60 }, { t: "delete" }, { t: "sync" }]));
    const terminating = syncs[4]!;
    expect(plan(terminating).workerPhase).toBe("terminating");
    expect(terminating.request?.pod.metadata?.deletionGracePeriodSeconds).toBe(20); // the pod's
    expect(terminating.took).toBe(20);
    expect(t(syncs[5]!, syncs[0]!)).toBe(20);
  });

  it("run until stable stops once the pod worker is done", () => {
    const s = session("delete", [...running, { t: "delete", g: 20 }]);
    const syncs = replay(engine, s);
    const more = settle(engine, syncs[syncs.length - 1]!, s);
    expect(more.map((x) => plan(x).workerPhase)).toEqual(["terminated"]);
  });

  it("an edit while terminating keeps the deletion marks (they are the API server's)", () => {
    const syncs = replay(engine, session("delete", [...running, { t: "delete", g: 20 }]));
    const state = syncs[3]!.after;
    const pod = syncs[3]!.pod as Pod;
    const request = buildRequest(state, { ...pod, metadata: { name: pod.metadata?.name, namespace: "default", uid: pod.metadata?.uid } });
    expect(request.pod.metadata?.deletionTimestamp).toBe("2026-01-01T00:00:20Z");
    expect(request.pod.metadata?.deletionGracePeriodSeconds).toBe(20);
  });
});

describe("kubectl get pods -w of a deletion", () => {
  it("Running, Terminating, the final row, and the final row again when the API server deletes the pod", () => {
    const syncs = replay(engine, session("delete", [...running, { t: "delete", g: 20 }, { t: "sync" }]));
    const { lines } = watchLog(syncs, syncs.length - 1);
    const status = (l: { text: string }) => l.text.trim().split(/\s+/)[2];
    expect(lines.map(status)).toEqual(["Init:0/1", "PodInitializing", "Running", "Terminating", "Error", "Error"]);
    expect(lines.map((l) => l.deleted ?? false)).toEqual([false, false, false, false, false, true]);
    expect(lines[5]!.text).toBe(lines[4]!.text);
    // Before the cleanup the pod is still there: no deletion line.
    expect(watchLog(syncs, 3).lines.some((l) => l.deleted)).toBe(false);
    // kubectl describe of the terminating pod, as describe.go prints it (the deletion
    // timestamp is 20 s ahead: "lasts <invalid>", kubectl's own quirk).
    const described = describePod(syncs, 3);
    expect(described).toMatch(/^Status:\s+Terminating \(lasts <invalid>\)$/m);
    expect(described).toMatch(/^Termination Grace Period:\s+20s$/m);
    expect(describePod(syncs, 2)).toMatch(/^Status:\s+Running$/m);
    // An evicted pod is not deleted.
    const evicted = replay(engine, session("evict", [{ t: "evict" }, { t: "sync" }]));
    expect(watchLog(evicted, 2).lines.some((l) => l.deleted)).toBe(false);
  });
});

describe("evicting a pod", () => {
  it("phase Failed, reason Evicted, 1 s grace; the pod stays after the cleanup", () => {
    const syncs = replay(engine, session("evict", [{ t: "evict" }, { t: "sync" }]));
    const [, terminating, terminated] = syncs as [SyncRecord, SyncRecord, SyncRecord];
    expect(plan(terminating).workerPhase).toBe("terminating");
    expect(plan(terminating).status).toMatchObject({ phase: "Failed", reason: "Evicted" });
    expect(plan(terminating).kubectl?.status).toBe("Evicted");
    expect(plan(terminating).steps.find((s) => s.op === "KillPod")?.gracePeriodSeconds).toBe(1);
    expect(ended(terminating)).toBeUndefined();
    expect(ops(terminated)).toContain("RemovePodSandbox");
    const why = ended(terminated);
    expect(why).toMatch(/final status/);
    expect(why).not.toMatch(/gone/);
  });
});

describe("the OOM killer", () => {
  it("exit 137, reason OOMKilled; restarted at once, then held back by the crash-loop back-off", () => {
    const syncs = replay(engine, session("oom", [{ t: "oom", c: "cruncher" }, { t: "oom", c: "cruncher" }]));
    const killed = syncs[1]!;
    expect(plan(killed).kubectl?.status).toBe("OOMKilled");
    expect(killed.after.runtime.containerStatuses.map((c) => [c.state, c.exitCode ?? 0, c.reason ?? ""])).toEqual([
      ["running", 0, ""],
      ["exited", 137, "OOMKilled"],
    ]);
    const again = plan(syncs[2]!);
    expect(again.heldBack?.[0]).toMatchObject({ container: "cruncher", waitSeconds: 10 });
    expect(again.status?.containerStatuses?.[0]?.lastState?.terminated).toMatchObject({ exitCode: 137, reason: "OOMKilled" });
  });
});

describe("the honest clock", () => {
  it("a 12 s preStop moves the clock 12 s: RESTARTS reads 1 (0s ago), never <invalid>", () => {
    const edited = scenarioText("hooks", "yaml")!.replace("example/api:1.0", "example/api:1.1");
    const syncs = replay(engine, session("hooks", [{ t: "preStopTakes", c: "api", s: 12 }, { t: "edit", pod: edited }, { t: "sync" }]));
    expect(syncs[2]!.took).toBe(12);
    expect(t(syncs[3]!, syncs[0]!)).toBe(12);
    expect(plan(syncs[3]!).kubectl?.restarts).toBe("1 (0s ago)");
    expect(syncs.every((s) => !plan(s).kubectl?.restarts.includes("invalid"))).toBe(true);
  });

  it("a plan whose steps take no time leaves the clock", () => {
    const syncs = replay(engine, session("crashloop", [{ t: "exit", c: "worker", code: 1 }, { t: "sync" }]));
    expect(syncs.map((s) => s.took)).toEqual([0, 0, 0]);
    expect(syncs.map((s) => t(s, syncs[0]!))).toEqual([0, 0, 0]);
  });

  it("the back-off expiry counts the time the sync took", () => {
    const syncs = replay(engine, session("crashloop", [{ t: "exit", c: "worker", code: 1 }, { t: "exit", c: "worker", code: 1 }]));
    const state = syncs[2]!.after;
    expect(nextBackoffExpiry(state)).toBe(10);
    expect(nextBackoffExpiry({ ...state, elapsed: 4 })).toBe(6);
    expect(nextBackoffExpiry({ ...state, elapsed: 40 })).toBe(0);
  });
});

it("the new actions survive a share link", async () => {
  const s = session("delete", [{ t: "stopTakes", c: "web", s: 60 }, { t: "delete", g: 7 }, { t: "delete" }, { t: "evict" }, { t: "oom", c: "web" }]);
  const back = await decodeShare(await encodeShare({ session: s }), scenarioText);
  expect(back?.session.actions).toEqual(s.actions);
  const bad = await encodeShare({ session: { ...s, actions: [{ t: "delete", g: -1 } as SessionAction] } });
  expect(await decodeShare(bad, scenarioText)).toBeUndefined();
});
