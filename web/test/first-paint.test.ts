// The first paint: the page plans the first sync with the plan-only module (no runtime
// model), then replays with the full one. What it shows first must be what the replay
// gives for the same sync.

import { describe, expect, it } from "vitest";
import { isError, RUNTIME_LOADING, wrapPlanWasm } from "../src/engine";
import { plannedFirstSync, plansOnly, replay, type Session } from "../src/session";
import { SCENARIOS, scenarioText } from "../src/scenarios";
import { engine, wasm } from "./wasm";

// The first-paint module's calls (planJson, version) are the full module's, byte for byte
// (wasm/test checks that on the corpus): the Node build stands in for it here.
const planOnly = wrapPlanWasm(wasm);

const session = (id: string): Session => ({ scenario: id, format: "yaml", pod: scenarioText(id, "yaml")!, gates: {}, actions: [] });

describe("the first paint", () => {
  it("plans every gallery scenario's first sync as the replay does, and leaves it pending", () => {
    for (const sc of SCENARIOS.filter((s) => !s.before?.length)) {
      const s = { ...session(sc.id), gates: { ...(sc.gates ?? {}) } };
      expect(plansOnly(s)).toBe(true);
      const first = plannedFirstSync(planOnly, s);
      const replayed = replay(engine, s)[0]!;
      expect(first.request, sc.id).toEqual(replayed.request);
      expect(first.answer, sc.id).toEqual(replayed.answer);
      expect(first.pending, sc.id).toBe(isError(first.answer) ? undefined : true);
      expect(first.after, sc.id).toEqual(first.before);
    }
  });

  it("needs the runtime model for actions and for events before the first sync", () => {
    expect(plansOnly({ ...session("plain"), actions: [{ t: "sync" }] })).toBe(false);
    expect(plansOnly({ ...session("plain"), before: [{ type: "pullFails", image: "x", fault: "notFound" }] })).toBe(false);
  });

  it("answers the runtime-model calls with a loading error, never throws", () => {
    expect(planOnly.runtime).toBe(false);
    expect(engine.runtime).toBe(true);
    const answer = planOnly.crictl({ sandboxConfig: {} });
    expect(isError(answer) && answer.error.message).toBe(RUNTIME_LOADING);
    expect(planOnly.version).toBe(engine.version);
  });
});
