// "Run until stable": the PLEG syncs that follow a sync that changed the runtime.

import { describe, expect, it } from "vitest";
import { replay, settle, SETTLE_MAX_SYNCS, type Session } from "../src/session";
import { decodeShare, encodeShare } from "../src/share";
import { engine } from "./wasm";

const sidecarPod = JSON.stringify({
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "web" },
  spec: {
    initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }],
    containers: [{ name: "app", image: "nginx" }],
  },
});

const session = (pod: string): Session => ({ scenario: "custom", format: "json", pod, gates: {}, actions: [] });

describe("run until stable (PLEG)", () => {
  it("starts the app after its sidecar without a manual resync, then stops", () => {
    const s = session(sidecarPod);
    const [first] = replay(engine, s);
    expect(first!.changed).toBe(true);
    const more = settle(engine, first!, s);
    expect(more.length).toBe(2);
    const running = (i: number) => more[i]!.after.runtime.containerStatuses.filter((c) => c.state === "running").map((c) => c.name).sort();
    expect(running(0)).toEqual(["app", "proxy"]);
    expect(more[1]!.changed).toBe(false);
    expect(more.every((r) => r.trigger?.t === "pleg")).toBe(true);
    // Replaying the session with the PLEG syncs as actions gives the same world.
    const again = replay(engine, { ...s, actions: more.map(() => ({ t: "pleg" as const })) });
    expect(again[again.length - 1]!.after.world).toEqual(more[1]!.after.world);
  });

  it("is bounded: a stable sync runs nothing more", () => {
    const s = session(sidecarPod);
    const syncs = replay(engine, { ...s, actions: [{ t: "pleg" }, { t: "pleg" }] });
    expect(settle(engine, syncs[2]!, s)).toEqual([]);
    expect(SETTLE_MAX_SYNCS).toBeGreaterThan(2);
  });

  it("share links keep PLEG steps, readiness results and the open tab", async () => {
    const shared = { session: { ...session(sidecarPod), actions: [{ t: "pleg" as const }, { t: "probe" as const, c: "app", p: "readiness" as const, r: "failure" as const }] }, tab: "events" };
    const back = await decodeShare(await encodeShare(shared), () => undefined);
    expect(back?.session.actions).toEqual(shared.session.actions);
    expect(back?.tab).toBe("events");
  });
});
