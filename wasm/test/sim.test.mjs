// The runtime model through the Node build: simStep (one step of a plan, core's
// Runtime::apply_step) and simApply (the whole plan) agree on every action vector.
// Needs the Node build (scripts/build-wasm).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const podplan = createRequire(import.meta.url)("../pkg/node/podplan_wasm.js");

const walk = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".json") ? [path.join(dir, e.name)] : [],
  );
const vectors = ["conformance/actions", "core/tests/vectors/actions"]
  .map((d) => path.join(root, d))
  .filter((d) => existsSync(d))
  .flatMap((d) => walk(d).sort());

const NOW = "2025-06-01T00:00:00Z";

test("carrying out a plan step by step (simStep) gives the runtime simApply gives, on every action vector", () => {
  let checked = 0;
  let steps = 0;
  let blocking = 0;
  for (const file of vectors) {
    const vector = JSON.parse(readFileSync(file, "utf8"));
    const request = { ...vector.request, now: vector.request.now ?? NOW };
    const plan = podplan.plan(request);
    // A plan without steps leaves the request as it was written (simApply answers it
    // re-serialised, with defaults spelled out): nothing to compare step by step.
    if ("error" in plan || plan.steps.length === 0) continue;
    // Every preStop hook runs 3 s and every container takes 1 s to exit after SIGTERM,
    // so that plans that kill take time.
    const names = [...(request.pod?.spec?.initContainers ?? []), ...(request.pod?.spec?.containers ?? [])].map((c) => c.name);
    const hooks = { preStopSeconds: Object.fromEntries(names.map((n) => [n, 3])), exitSeconds: Object.fromEntries(names.map((n) => [n, 1])) };
    const whole = podplan.simApply({ request, plan, hooks });
    assert.ok(!("error" in whole), `${file}: ${JSON.stringify(whole)}`);
    let current = request;
    let blockedMillis = 0;
    plan.steps.forEach((step, index) => {
      const out = podplan.simStep({ request: current, step, index, blockedMillis, hooks });
      assert.ok(!("error" in out), `${file} step ${index}: ${JSON.stringify(out)}`);
      assert.equal(typeof out.changed, "boolean");
      current = out.request;
      blockedMillis = out.blockedMillis;
      steps += 1;
    });
    const name = path.relative(root, file);
    // simApply says how long the whole plan took: what the steps one by one add up to.
    assert.equal(whole.blockedMillis, blockedMillis, `${name}: blockedMillis`);
    if (blockedMillis > 0) blocking += 1;
    assert.deepEqual(current.runtimeStatus, whole.request.runtimeStatus, `${name}: runtime status`);
    assert.deepEqual(current.actuatedResources, whole.request.actuatedResources, `${name}: actuated resources`);
    checked += 1;
  }
  assert.ok(checked >= 50, `only ${checked} vectors had plans with steps`);
  assert.ok(steps > checked, `only ${steps} steps`);
  assert.ok(blocking > 0, "no plan took time: the blockedMillis comparison has no teeth");
  console.log(`${checked} plans, ${steps} steps, ${blocking} of the plans take time (preStop, stops waited for)`);
});

test("simStep answers structured errors, never throws", () => {
  const request = { pod: { metadata: { name: "p", uid: "u" }, spec: { containers: [{ name: "a", image: "x" }] } } };
  const step = { op: "RunPodSandbox", attempt: 0 };
  assert.equal(podplan.simStep({ request, step }).error.path, "request.now");
  assert.equal(podplan.simStep({ request: { ...request, now: NOW }, step: { op: "Dance" } }).error.path, "step");
  assert.equal(podplan.simStep({ request: { ...request, now: NOW }, step, extra: 1 }).error.path, "extra");
  assert.equal(JSON.parse(podplan.simStepJson("[")).error.kind, "InvalidInput");
  const out = podplan.simStep({ request: { ...request, now: NOW }, step });
  assert.equal(out.changed, true);
  assert.equal(out.request.runtimeStatus.sandboxStatuses[0].state, "SANDBOX_READY");
});
