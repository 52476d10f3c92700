// `podplan demo` and the playground show the same world for the same pod: the demo's
// script (host/src/cli/demo_scenario.json) runs through the demo (`podplan demo --jsonl`,
// the Rust host) and through the playground's session code (this file, via the wasm
// module), and every sync's request (runtime status, probes, checkpoints, back-off
// records, clock) and plan must agree.
//
// The demo binary: $PODPLAN_BIN, else <cargo target dir>/debug/podplan. scripts/test builds
// it before the playground's tests and sets PODPLAN_BIN, so there the test always runs;
// elsewhere it is skipped (with a message) when no binary has been built.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { isError } from "../src/engine";
import { replay, type Session } from "../src/session";
import type { Plan, PlanRequest, Pod, SimEvent } from "../../wasm/types/podplan";
import { engine } from "./wasm";

const root = fileURLToPath(new URL("../../", import.meta.url));
const scenario = JSON.parse(readFileSync(`${root}host/src/cli/demo_scenario.json`, "utf8")) as {
  start: string;
  pod: Pod;
  scenes: Array<{ title: string; events: SimEvent[] }>;
};

function demoBinary(): string | undefined {
  if (process.env.PODPLAN_BIN) {
    if (!existsSync(process.env.PODPLAN_BIN)) throw new Error(`PODPLAN_BIN=${process.env.PODPLAN_BIN} does not exist`);
    return process.env.PODPLAN_BIN;
  }
  const target = process.env.CARGO_TARGET_DIR ?? `${root}target`;
  const bin = `${target}/debug/podplan`;
  return existsSync(bin) ? bin : undefined;
}

const bin = demoBinary();
if (!bin) console.warn("demo-agreement: no podplan binary (set PODPLAN_BIN or build podplan-host); skipped");

/** What both sides must agree on in a sync's request. */
function world(r: PlanRequest) {
  return {
    now: r.now,
    runtimeStatus: r.runtimeStatus ?? null,
    probes: r.probes ?? {},
    actuatedResources: r.actuatedResources ?? null,
    backoff: r.backoff ?? [],
    restartAllContainers: r.restartAllContainers ?? false,
    containers: r.pod.spec?.containers.map((c) => [c.name, c.image]),
  };
}

/** What both sides must agree on in a plan (the node context differs: configs may). */
function decided(p: Plan) {
  return { actions: p.actions, steps: p.steps, heldBack: p.heldBack ?? [], backoff: p.backoff ?? [] };
}

describe.skipIf(!bin)("podplan demo and the playground agree", () => {
  it("sync by sync on the demo's script", () => {
    const out = execFileSync(bin!, ["demo", "--jsonl"], { encoding: "utf8", maxBuffer: 64 << 20 });
    const demo = out
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { step: number; title: string; notes: string[]; request: PlanRequest; plan: Plan });
    expect(demo.map((d) => d.title)).toEqual(scenario.scenes.map((s) => s.title));

    expect(scenario.scenes[0]!.events).toEqual([]); // the first sync is the pod's creation
    const session: Session = {
      scenario: "custom",
      format: "json",
      pod: JSON.stringify(scenario.pod),
      gates: {},
      actions: scenario.scenes.slice(1).map((s) => ({ t: "events", e: s.events })),
    };
    const syncs = replay(engine, session, Date.parse(scenario.start));
    expect(syncs).toHaveLength(demo.length);
    for (const [i, d] of demo.entries()) {
      const sync = syncs[i]!;
      const where = `sync ${i + 1}: ${d.title}`;
      expect(isError(sync.answer), where).toBe(false);
      expect(sync.notes, where).toEqual(d.notes);
      expect(world(sync.request!), where).toEqual(world(d.request));
      expect(decided(sync.answer as Plan), where).toEqual(decided(d.plan));
    }
    // The script does something: containers ran, crashed, were held back and came back.
    const last = syncs[syncs.length - 1]!.after.runtime;
    expect(last.containerStatuses.filter((c) => c.state === "running").map((c) => c.name).sort()).toEqual(["app", "log-shipper"]);
    expect(syncs.some((s) => (s.answer as Plan).heldBack?.length)).toBe(true);
  });
});
