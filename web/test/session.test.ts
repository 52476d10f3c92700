import { describe, expect, it } from "vitest";
import { replay, type Session } from "../src/session";
import { decodeShare, encodeShare } from "../src/share";
import { scenarioText, SCENARIOS } from "../src/scenarios";
import { isError } from "../src/engine";
import type { Plan } from "../../wasm/types/podplan";
import { engine } from "./wasm";
import { nextBackoffExpiry } from "../src/sim";

const crashloop = (actions: Session["actions"]): Session => ({
  scenario: "crashloop",
  format: "yaml",
  pod: scenarioText("crashloop", "yaml")!,
  gates: {},
  actions,
});

describe("session replay (podplan's module)", () => {
  it("drives a crash loop through two back-offs on the virtual clock", () => {
    const actions: Session["actions"] = [
      { t: "exit", c: "worker", code: 1 }, // first restart is immediate
      { t: "exit", c: "worker", code: 1 }, // held back 10s
      { t: "advance", s: 10, why: "backoff" },
      { t: "exit", c: "worker", code: 1 }, // held back 20s
      { t: "advance", s: 20, why: "backoff" },
    ];
    const syncs = replay(engine, crashloop(actions));
    expect(syncs).toHaveLength(6);
    const worker = (i: number) => syncs[i]!.after.runtime.containerStatuses.find((c) => c.name === "worker")!;
    expect(worker(0).state).toBe("running");
    expect(worker(1)).toMatchObject({ state: "running", restartCount: 1 });
    expect(worker(2).state).toBe("exited");
    expect((syncs[2]!.answer as Plan).heldBack).toMatchObject([{ container: "worker", waitSeconds: 10 }]);
    expect(nextBackoffExpiry(syncs[2]!.after)).toBe(10);
    expect(worker(3)).toMatchObject({ state: "running", restartCount: 2 });
    expect((syncs[4]!.answer as Plan).heldBack).toMatchObject([{ container: "worker", waitSeconds: 20 }]);
    expect(worker(5)).toMatchObject({ state: "running", restartCount: 3 });
    expect(syncs[5]!.after.now - syncs[0]!.after.now).toBe(30_000);
    // Each request carries the back-off records of the plan before it.
    expect(syncs[3]!.request!.backoff).toEqual((syncs[2]!.answer as Plan).backoff);
  });

  it("replays the same session to the same result", () => {
    const s = crashloop([{ t: "exit", c: "worker", code: 1 }, { t: "sandboxDie" }, { t: "sync" }]);
    expect(JSON.stringify(replay(engine, s))).toBe(JSON.stringify(replay(engine, s)));
  });

  it("an invalid edit gives an engine error and leaves the runtime as it was", () => {
    const bad = scenarioText("crashloop", "yaml")!.replace("- name: worker", '- name: ""');
    const syncs = replay(engine, crashloop([{ t: "edit", pod: bad }]));
    const last = syncs[1]!;
    expect(isError(last.answer)).toBe(true);
    expect(last.after).toEqual(last.before);
  });

  it("every gallery scenario gives a plan on its first sync", () => {
    for (const sc of SCENARIOS) {
      const syncs = replay(engine, { scenario: sc.id, format: "yaml", pod: sc.yaml, gates: sc.gates ?? {}, actions: [] });
      expect(isError(syncs[0]!.answer), sc.id).toBe(false);
      expect((syncs[0]!.answer as Plan).actions.createSandbox, sc.id).toBe(true);
    }
  });
});

describe("share links", () => {
  const lookup = (id: string, f: "yaml" | "json") => scenarioText(id, f);

  it("round-trips a session through the URL hash", async () => {
    const shared = {
      session: crashloop([
        { t: "exit", c: "worker", code: 1 },
        { t: "probe", c: "worker", p: "liveness", r: "failure" },
        { t: "advance", s: 10, why: "backoff" },
        { t: "edit", pod: "spec:\n  containers:\n  - name: wörker\n    image: x\n" },
        { t: "sandboxNoIp" },
      ] as Session["actions"]),
      selected: 2,
      draft: "spec: {}",
    };
    const payload = await encodeShare(shared, lookup("crashloop", "yaml"));
    expect(payload).toMatch(/^[zj][A-Za-z0-9_-]+$/);
    expect(await decodeShare(payload, lookup)).toEqual(shared);
  });

  it("leaves the scenario's own pod out of the link", async () => {
    const s = crashloop([]);
    const short = await encodeShare({ session: s }, s.pod);
    const long = await encodeShare({ session: { ...s, pod: s.pod + "# edited\n" } }, s.pod);
    expect(short.length).toBeLessThan(long.length);
    expect((await decodeShare(short, lookup))!.session.pod).toBe(s.pod);
  });

  it("keeps JSON format, custom pods and gates", async () => {
    const shared = { session: { scenario: "custom", format: "json" as const, pod: '{"spec":{}}', gates: { SidecarContainers: false }, actions: [] } };
    expect(await decodeShare(await encodeShare(shared), lookup)).toEqual(shared);
  });

  it("rejects malformed links", async () => {
    expect(await decodeShare("znotdeflate", lookup)).toBeUndefined();
    expect(await decodeShare("", lookup)).toBeUndefined();
    const bad = "j" + btoa(JSON.stringify({ v: 1, sc: "crashloop", a: [{ t: "explode" }] }));
    expect(await decodeShare(bad.replace(/=+$/, ""), lookup)).toBeUndefined();
    const unknownScenario = "j" + btoa(JSON.stringify({ v: 1, sc: "nope" })).replace(/=+$/, "");
    expect(await decodeShare(unknownScenario, lookup)).toBeUndefined();
  });
});
