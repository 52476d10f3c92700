// Runs the whole request corpus (every action vector, vendored and the project's own,
// plus edge cases; see testsupport/src/corpus.rs) through the Node and web builds of the JS module and the
// web's first-paint module (feature `js-plan`) and checks that every answer is exactly the native core's.
//
// Native answers come from `$PODPLAN_NATIVE_PLANS` (a file written by
// `cargo run -p podplan-wasm --example native-plans -- FILE`) or, when that is unset,
// from running that example now. Build the modules first: scripts/build-wasm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as web from "../pkg/web/podplan_wasm.js";
import * as webPlan from "../pkg/web/podplan_wasm_plan.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const node = createRequire(import.meta.url)("../pkg/node/podplan_wasm.js");
web.initSync({ module: readFileSync(path.join(here, "../pkg/web/podplan_wasm_bg.wasm")) });
webPlan.initSync({ module: readFileSync(path.join(here, "../pkg/web/podplan_wasm_plan_bg.wasm")) });

function nativePlans() {
  let file = process.env.PODPLAN_NATIVE_PLANS;
  if (!file) {
    file = path.join(mkdtempSync(path.join(tmpdir(), "podplan-")), "native.jsonl");
    const run = spawnSync(
      "cargo",
      ["run", "--quiet", "--locked", "-p", "podplan-wasm", "--example", "native-plans", "--", file],
      { cwd: root, stdio: ["ignore", "inherit", "inherit"] },
    );
    assert.equal(run.status, 0, "cargo run --example native-plans failed");
  }
  const [head, ...cases] = readFileSync(file, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
  return { version: head.version, cases };
}

function actionVectors(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? actionVectors(path.join(dir, e.name))
      : e.name.endsWith(".json")
        ? [path.relative(root, path.join(dir, e.name))]
        : [],
  );
}

const native = nativePlans();
const builds = { node, web, webPlan };

test("the native corpus holds every action vector", () => {
  const names = new Set(native.cases.map((c) => c.name));
  const vectors = ["conformance/actions", "core/tests/vectors/actions"]
    .map((d) => path.join(root, d))
    .filter((d) => existsSync(d))
    .flatMap((d) => actionVectors(d));
  assert.ok(vectors.length >= 50, `only ${vectors.length} vectors found`);
  for (const v of vectors) assert.ok(names.has(v), `${v} is missing from the native plans`);
  assert.ok(native.cases.some((c) => c.name.startsWith("edge/")), "no edge cases");
});

test("version() reports the native core's version facts", () => {
  for (const [name, build] of Object.entries(builds)) {
    assert.deepEqual(build.version(), native.version, name);
  }
  assert.deepEqual(Object.keys(node.version()).sort(), ["contract", "kubernetes", "podplan"]);
});

for (const c of native.cases) {
  test(`same answer as native: ${c.name}`, () => {
    let object;
    try {
      object = JSON.parse(c.request);
    } catch {
      object = undefined; // not JSON: only planJson can carry it
    }
    const expected = JSON.parse(c.answer);
    for (const [name, build] of Object.entries(builds)) {
      assert.equal(build.planJson(c.request), c.answer, `${name} planJson`);
      if (object !== undefined) assert.deepEqual(build.plan(object), expected, `${name} plan`);
    }
  });
}

test("plan() never throws: values that are not JSON become error answers", () => {
  const circular = { pod: {} };
  circular.pod.self = circular;
  let deep = {};
  for (let i = 0; i < 1_000_000; i++) deep = { a: deep };
  const hostile = [undefined, Symbol("s"), () => 1, 10n, { pod: { n: 1n } }, circular, deep, 5, "text", null];
  for (const [name, build] of Object.entries(builds)) {
    for (const value of hostile) {
      const answer = build.plan(value);
      assert.equal(answer?.error?.kind, "InvalidInput", `${name}: ${String(typeof value)}`);
      assert.equal(typeof answer.error.message, "string");
    }
    // Lone surrogates cannot be UTF-8: they arrive as U+FFFD, never as a crash.
    assert.ok("error" in JSON.parse(build.planJson('{"pod":{"metadata":{"name":"\ud800"}}}')));
    // The module still answers correctly afterwards.
    const ok = native.cases.find((c) => c.name.startsWith("conformance/"));
    assert.equal(build.planJson(ok.request), ok.answer, `${name} after hostile input`);
  }
});

test("the package resolves to the Node build under Node", async () => {
  const pkg = await import("podplan-wasm");
  assert.equal(typeof pkg.plan, "function");
  assert.equal(typeof pkg.planJson, "function");
  assert.deepEqual(pkg.version(), native.version);
});

// The plain ABI module (the speed build, another build than the JS module's) in Node,
// as a Node server would embed it: one warm instance, every buffer freed after its call.
test("the ABI module in Node answers exactly like the native core, call after call", () => {
  const bytes = readFileSync(path.join(here, "../pkg/abi/podplan_abi.wasm"));
  const { exports: m } = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  for (const c of native.cases) {
    const request = encoder.encode(c.request);
    const ptr = request.length ? m.podplan_alloc(request.length) : 0;
    if (request.length) new Uint8Array(m.memory.buffer, ptr, request.length).set(request);
    const packed = m.podplan_plan(ptr, request.length);
    const [answerPtr, answerLen] = [Number(packed >> 32n), Number(packed & 0xffffffffn)];
    const answer = decoder.decode(new Uint8Array(m.memory.buffer, answerPtr, answerLen));
    assert.equal(answer, c.answer, `abi: ${c.name}`);
    m.podplan_free(answerPtr, answerLen);
    m.podplan_free(ptr, request.length);
  }
});
