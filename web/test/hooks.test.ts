// Lifecycle hooks in the playground: "postStart fails" and "preStop takes N s" are the
// runtime model's hook controls; the page only keeps them between calls.

import { describe, expect, it } from "vitest";
import { replay, type Session } from "../src/session";
import { decodeShare, encodeShare } from "../src/share";
import type { Plan } from "../../wasm/types/podplan";
import { engine } from "./wasm";

const POD = `apiVersion: v1
kind: Pod
metadata:
  name: hooked
spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: app
    image: nginx
    lifecycle:
      postStart:
        exec:
          command: ["sh", "-c", "exit 1"]
      preStop:
        exec:
          command: ["drain"]
`;

const session = (actions: Session["actions"]): Session => ({ scenario: "custom", format: "yaml", pod: POD, gates: {}, actions });

describe("lifecycle hooks in a session", () => {
  it("a failing postStart kills the container and the next plan says so", () => {
    const syncs = replay(engine, session([{ t: "postStartFails", c: "app", f: true }, { t: "exit", c: "app", code: 1 }, { t: "sync" }]));
    // Sync 0 started app with its hook (which succeeded); then the hook fails from now on.
    const start = (syncs[0]!.answer as Plan).steps.find((s) => s.op === "StartContainer")!;
    expect(start.postStart).toMatchObject({ hook: "postStart", handler: { type: "exec", command: ["sh", "-c", "exit 1"] } });
    expect(syncs[1]!.after.hooks.postStartFails).toEqual(["app"]);
    // Sync 2 restarts app after its exit: the hook fails and the model kills it.
    const failed = syncs[2]!;
    expect(failed.after.runtime.containerStatuses.find((c) => c.name === "app")!.state).toBe("exited");
    expect(failed.after.world.hookResults?.[0]).toMatchObject({ hook: "postStart", error: "command terminated with exit code 1" });
    // Sync 3: the kubelet's account of it.
    const next = syncs[3]!.answer as Plan;
    expect(next.events.slice(0, 2).map((e) => e.reason)).toEqual(["FailedPostStartHook", "Killing"]);
    expect(next.status?.containerStatuses?.[0]?.state?.waiting?.reason).toBe("PostStartHookError");
  });

  it("a preStop that takes 12 s leaves StopContainer 18 s of 30", () => {
    const edited = POD.replace("image: nginx", "image: nginx:2");
    const syncs = replay(engine, session([{ t: "preStopTakes", c: "app", s: 12 }, { t: "edit", pod: edited }]));
    const kill = (syncs[2]!.answer as Plan).steps.find((s) => s.op === "KillContainer")!;
    expect(kill.preStop).toMatchObject({ timeoutSeconds: 30, handler: { type: "exec", command: ["drain"] } });
    expect(syncs[2]!.after.world.hookResults).toMatchObject([{ hook: "preStop", elapsedMillis: 12_000, stopGracePeriodSeconds: 18 }]);
  });

  it("hook actions survive a share link", async () => {
    const s = session([{ t: "postStartFails", c: "app", f: true }, { t: "preStopTakes", c: "app", s: 5 }]);
    const payload = await encodeShare({ session: s });
    const back = await decodeShare(payload, () => undefined);
    expect(back?.session.actions).toEqual(s.actions);
  });
});
