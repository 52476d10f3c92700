// End-to-end check of the built playground (web/dist) in real headless Chromium.
//
//   npm run e2e            (builds first; see package.json)
//   CHROMIUM=/path node e2e/run.mjs
//   E2E_URL=http://127.0.0.1:8137/ node e2e/run.mjs   (test a running `podplan playground`)
//   E2E_ONLY='delete|evict' node e2e/run.mjs          (only the sections whose names match)
//
// It serves web/dist on 127.0.0.1 with its own tiny server, drives the page like a user
// and saves screenshots of the main views to e2e/artifacts/. The checks are written
// against what the page shows, not against fixed engine wording. The page runs podplan's
// wasm module only: there is no stand-in engine.

import { mkdir, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { serve } from "./serve.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, "..", "dist");
const artifacts = join(here, "artifacts");

const LAUNCH = {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
};

let failures = 0;
let passes = 0;
function check(cond, what) {
  if (cond) {
    passes++;
    console.log(`  ok   ${what}`);
  } else {
    failures++;
    console.log(`  FAIL ${what}`);
  }
}

async function ready(page) {
  await page.waitForSelector("body[data-ready]", { timeout: 20000 });
}

async function syncCount(page) {
  return page.locator(".syncbtn").count();
}

/** Runs a drive action and waits for the next sync column. */
async function drive(page, selector) {
  const before = await syncCount(page);
  if (!(await page.locator(selector).isEnabled())) throw new Error(`${selector} is disabled at sync #${before - 1}: the engine's plan did not lead where the scenario expects`);
  await page.click(selector);
  await page.waitForFunction((n) => document.querySelectorAll(".syncbtn").length === n + 1, before);
}

/** The STATUS column of the kubectl row in sync column `sync`. */
async function kubectlStatus(page, sync) {
  return page.locator("#row-kubectl td").nth(sync).getAttribute("data-status");
}

async function select(page, i) {
  await page.click(`#sync-${i}`);
  await page.waitForFunction((n) => document.querySelector(`#sync-${n}`)?.getAttribute("aria-current") === "true", i);
}

async function cellText(page, row, sync) {
  return page.locator(`#row-${row} td`).nth(sync).innerText();
}

/** The visible state of the page that a share link must reproduce. */
async function snapshot(page) {
  return page.evaluate(() => ({
    timeline: document.getElementById("timeline-body").innerText,
    selected: document.querySelector(".syncbtn[aria-current=true]")?.id,
    details: document.getElementById("see-body").innerText,
    title: document.getElementById("see-title").innerText,
    runtime: document.getElementById("drive-body").innerText,
    editor: document.querySelector(".cm-content").innerText,
    status: document.getElementById("editor-status").innerText,
  }));
}

/** A share link (plain form) for a custom pod given as an object, with `actions`. */
function linkFor(base, pod, actions = []) {
  const wire = { v: 1, sc: "custom", f: "json", p: JSON.stringify(pod, null, 2), a: actions };
  return `${base}#s=j${Buffer.from(JSON.stringify(wire)).toString("base64url")}`;
}

const meta = (name) => ({ name, namespace: "default", uid: `e2e-${name}` });
const STARTUP_LIVENESS_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta("probed"),
  spec: {
    containers: [
      {
        name: "app",
        image: "example/app:1",
        startupProbe: { httpGet: { path: "/started", port: 8080 } },
        livenessProbe: { httpGet: { path: "/healthz", port: 8080 } },
        readinessProbe: { httpGet: { path: "/ready", port: 8080 } },
      },
    ],
  },
};
const QUICK_LIVENESS_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta("quickprobe"),
  spec: { containers: [{ name: "app", image: "example/portal:3.2", livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 1, failureThreshold: 1 } }] },
};
const SIDECAR_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta("meshed"),
  spec: {
    initContainers: [{ name: "proxy", image: "envoy:1", restartPolicy: "Always" }],
    containers: [{ name: "app", image: "nginx:1" }],
  },
};
const INIT_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta("initfail"),
  spec: {
    initContainers: [{ name: "migrate", image: "migrate:1" }],
    containers: [{ name: "app", image: "app:1" }],
  },
};
const ROOT_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta("rooted"),
  spec: { containers: [{ name: "app", image: "app:1", securityContext: { runAsNonRoot: true, runAsUser: 0 } }] },
};
const NEVER_INIT_POD = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: meta("oneshot"),
  spec: {
    restartPolicy: "Never",
    initContainers: [{ name: "migrate", image: "migrate:1" }],
    containers: [{ name: "app", image: "app:1" }],
  },
};

/**
 * Every visible, enabled control can be scrolled to and receives the pointer at its
 * centre (no other element intercepts it). Returns the offending controls.
 */
async function blockedControls(page) {
  return page.evaluate(() => {
    const out = [];
    const controls = [...document.querySelectorAll("button, input, select, textarea, summary, [role=tab], a[href]")];
    for (const el of controls) {
      if (el.closest(".cm-editor") || el.classList.contains("skip") || el.disabled) continue;
      if (el.closest("details:not([open])") && el.tagName !== "SUMMARY") continue;
      el.scrollIntoView({ block: "center", inline: "center" });
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const x = r.left + Math.min(r.width / 2, r.width - 1);
      const y = r.top + Math.min(r.height / 2, r.height - 1);
      if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) {
        out.push(`${el.id || el.outerHTML.slice(0, 60)} is out of reach`);
        continue;
      }
      const hit = document.elementFromPoint(x, y);
      const label = el.labels?.[0];
      if (!hit || !(el === hit || el.contains(hit) || (label && label.contains(hit)))) out.push(`${el.id || el.outerHTML.slice(0, 60)} is covered by ${hit ? hit.id || hit.className || hit.tagName : "nothing"}`);
    }
    window.scrollTo(0, 0);
    return out;
  });
}

async function main() {
  const external = process.env.E2E_URL;
  if (!external && !(await stat(join(dist, "index.html")).catch(() => undefined))) {
    console.error("web/dist is missing: run `npm run build` first");
    process.exit(2);
  }
  await mkdir(artifacts, { recursive: true });
  const srv = external ? { url: external.endsWith("/") ? external : `${external}/`, close: async () => {} } : await serve(dist);
  console.log(`serving ${srv.url}${external ? " (external)" : ""}`);
  const browser = await chromium.launch(LAUNCH);
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 1000 } });
  // "Copy share link" is checked through the clipboard.
  await ctx.grantPermissions(["clipboard-read", "clipboard-write"], { origin: new URL(srv.url).origin });
  const errors = [];
  const open = async (url = srv.url) => {
    const page = await ctx.newPage();
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    // Offline: every request must go to our own server.
    await page.route("**/*", (route) => (route.request().url().startsWith(srv.url) || route.request().url().startsWith("data:") ? route.continue() : route.abort()));
    await page.goto(url);
    await ready(page);
    return page;
  };
  const scenario = async (page, id) => {
    await page.click(`#scenario-${id}`);
    await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 1);
    await page.mouse.move(0, 0);
  };
  /** Each section runs on its own page; one failing does not hide the others. */
  const only = process.env.E2E_ONLY ? new RegExp(process.env.E2E_ONLY) : undefined;
  const section = async (name, body) => {
    // E2E_ONLY=<regex>: run only the sections whose names match (while working on them).
    if (only && !only.test(name)) return;
    console.log(name);
    const page = await open();
    try {
      await body(page);
    } catch (e) {
      check(false, `${name}: ${e.message.split("\n")[0]}`);
      await page.screenshot({ path: join(artifacts, `failed-${name.replace(/\W+/g, "-")}.png`), fullPage: true }).catch(() => undefined);
    } finally {
      await page.close();
    }
  };

  try {
    await section("load", async (page) => {
      const badge = await page.locator("#engine-badge").innerText();
      console.log(`  engine: ${badge}`);
      check(badge.startsWith("podplan ") && (await page.locator("#no-engine").count()) === 0, "the page runs podplan's wasm module");
      check((await page.locator(".syncbtn").count()) === 1, "a fresh page shows the first sync");
      check((await page.locator("#gallery .chip").count()) >= 11, "the gallery offers the scenarios");
      await page.screenshot({ path: join(artifacts, "01-start.png"), fullPage: true });
      if (external) {
        // `podplan playground` sends the precompressed module to a browser that accepts gzip.
        const wasm = await page.evaluate(() => {
          const e = performance.getEntriesByType("resource").find((r) => r.name.endsWith(".wasm"));
          return e ? { encoded: e.encodedBodySize, decoded: e.decodedBodySize } : undefined;
        });
        check(!!wasm && wasm.encoded > 0 && wasm.encoded < wasm.decoded / 2, `the wasm module travels compressed (${JSON.stringify(wasm)})`);
      }
    });

    // The page paints with the small plan module (podplan_wasm_plan_bg*.wasm) and loads
    // the full one (podplan_wasm_bg*.wasm: runtime model, crictl) after the first paint.
    // The full module's .wasm is held back here until the first paint has been checked.
    if (!only || only.test("first paint")) {
      console.log("first paint");
      const page = await ctx.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
      try {
        const requested = [];
        let release = () => undefined;
        const held = new Promise((r) => (release = r));
        const isFull = (u) => /\/podplan_wasm_bg[^/]*\.wasm$/.test(u);
        const isPlan = (u) => /\/podplan_wasm_plan_bg[^/]*\.wasm$/.test(u);
        await page.route("**/*", async (route) => {
          const u = route.request().url();
          if (!u.startsWith(srv.url) && !u.startsWith("data:")) return route.abort();
          if (u.endsWith(".wasm")) requested.push(u);
          if (isFull(u)) await held;
          return route.continue();
        });
        await page.goto(srv.url);
        await page.waitForSelector("body[data-painted]", { timeout: 20000 });
        const loadedWasm = await page.evaluate(() => performance.getEntriesByType("resource").map((r) => r.name).filter((n) => n.endsWith(".wasm")));
        check(loadedWasm.length === 1 && isPlan(loadedWasm[0]), `first paint: only the plan module is loaded (${loadedWasm.map((u) => u.slice(u.lastIndexOf("/") + 1)).join(", ")})`);
        check(isPlan(requested[0] ?? ""), "first paint: the plan module is the first wasm requested");
        check((await page.locator(".syncbtn").count()) === 1 && /\S/.test(await page.locator("#row-kubectl td").first().getAttribute("data-status") ?? ""), "first paint: the first sync and its kubectl row are shown");
        check((await page.locator("#engine-badge").innerText()).startsWith("podplan "), "first paint: the version is shown");
        check(/Loading the runtime model/.test(await page.locator("#runtime-loading").innerText()), "first paint: the runtime panel says the runtime model is loading");
        check((await page.locator("body[data-ready]").count()) === 0, "first paint: the page is not ready before the runtime model");
        await page.screenshot({ path: join(artifacts, "00-first-paint.png"), fullPage: true });
        release();
        await ready(page);
        check(requested.some(isFull), "then the full module is loaded");
        check((await page.locator("#runtime-loading").count()) === 0, "and the loading state is gone");
        await drive(page, "#resync");
        check((await page.locator(".syncbtn").count()) === 2, "and the runtime model runs the next sync");
        await page.click("#tab-configs");
        check(!/loading the runtime model/i.test(await page.locator("#tabpanel").innerText()), "and crictl conversion works");
      } catch (e) {
        check(false, `first paint: ${e.message.split("\n")[0]}`);
        await page.screenshot({ path: join(artifacts, "failed-first-paint.png"), fullPage: true }).catch(() => undefined);
      } finally {
        await page.close();
      }
    }

    await section("crash loop through two back-offs", async (page) => {
      await scenario(page, "crashloop");
      check((await page.locator("#scenario-crashloop").getAttribute("aria-pressed")) === "true", "crash-loop scenario selected");
      check((await cellText(page, "worker", 0)).includes("running"), "sync #0 starts worker");
      await drive(page, "#exit-worker"); // #1: first restart is immediate
      check((await cellText(page, "worker", 1)).includes("running"), "sync #1: worker restarted at once");
      await drive(page, "#exit-worker"); // #2: held back
      const wait1 = await cellText(page, "worker", 2);
      check(/back-off\s*10s/.test(wait1), `sync #2: start held back 10s (cell: ${JSON.stringify(wait1)})`);
      check(await page.locator("#advance-backoff").isEnabled(), "advance-to-expiry is offered");
      check((await page.locator("#see-body").innerText()).includes("crash-loop back-off"), "sync #2 details name the back-off");
      await drive(page, "#advance-backoff"); // #3
      check((await cellText(page, "worker", 3)).includes("running"), "sync #3: worker starts after the first back-off");
      check((await page.locator("#sync-3").innerText()).includes("t=10s"), "sync #3 is at t=10s");
      await drive(page, "#exit-worker"); // #4
      const wait2 = await cellText(page, "worker", 4);
      check(/back-off\s*20s/.test(wait2), `sync #4: back-off doubled to 20s (cell: ${JSON.stringify(wait2)})`);
      await drive(page, "#advance-backoff"); // #5
      check((await cellText(page, "worker", 5)).includes("running"), "sync #5: worker starts after the second back-off");
      check((await page.locator("#sync-5").innerText()).includes("t=30s"), "sync #5 is at t=30s");
      check(/↻\s*3/.test(await cellText(page, "worker", 5)), "restart count 3 shown");
      await page.screenshot({ path: join(artifacts, "02-crashloop-timeline.png"), fullPage: true });

      await page.click("#sync-4");
      await page.waitForSelector("#sync-4[aria-current=true]");
      const reasons = await page.locator("#tabpanel").innerText();
      check(reasons.includes("Held back by crash-loop back-off") && reasons.includes("worker"), "sync #4 decisions show the held-back start");
      const nDecisions = await page.locator(".decision").count();
      check(nDecisions > 0, `sync #4 lists ${nDecisions} decision(s) with reasons`);
      check((await page.locator(".decision .reason").first().innerText()).trim().length > 0, "each decision has a reason code");
      await page.screenshot({ path: join(artifacts, "03-decisions-backoff.png"), fullPage: true });
      await page.click("#sync-3");
      await page.click("#tab-steps");
      check(/StartContainer/.test(await page.locator("#tabpanel").innerText()), "sync #3 steps include StartContainer");
      await page.screenshot({ path: join(artifacts, "04-steps.png"), fullPage: true });
      await page.click("#tab-configs");
      await page.screenshot({ path: join(artifacts, "05-configs.png"), fullPage: true });
      await page.click("#tab-events");
      check((await page.locator("#tabpanel").innerText()).length > 0, "events tab renders");
      await page.screenshot({ path: join(artifacts, "06-events.png"), fullPage: true });
    });

    await section("liveness failure (keyboard)", async (page) => {
      await scenario(page, "liveness");
      await page.evaluate(() => document.activeElement && document.activeElement.blur());
      let reached = false;
      for (let i = 0; i < 150 && !reached; i++) {
        await page.keyboard.press("Tab");
        reached = await page.evaluate(() => document.activeElement?.id === "liveness-fail-app");
      }
      check(reached, "the liveness fail button is reachable with Tab");
      if (!reached) throw new Error("no enabled liveness control: the engine did not start app");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 2);
      check((await page.evaluate(() => document.activeElement?.id)) === "liveness-fail-app", "focus stays on the control after the sync");
      check((await cellText(page, "app", 1)).includes("running"), "liveness failure: app restarted");
      check(/liveness/i.test(await page.locator("#tabpanel").innerText()), "the reason names the liveness probe");
      await page.focus("#exit-code-app");
      await page.keyboard.press("Control+a");
      await page.keyboard.type("3");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 3);
      check((await page.locator("#sync-2").innerText()).includes("app exited (3)"), "exit code typed from the keyboard is used");
    });

    await section("image pull fails: ErrImagePull, ImagePullBackOff, retry", async (page) => {
      await scenario(page, "crashloop");
      await drive(page, "#pull-down-0"); // #1: the registry is down (nothing to pull yet)
      check((await page.locator("[data-image]").first().innerText()).includes("registry down"), "the image shows the registry down");
      await drive(page, "#pull-remove-0"); // #2: image GC removes busybox
      await drive(page, "#exit-worker"); // #3: the restart needs the image: PullImage
      check(/PullImage/.test(await page.locator("#tabpanel").innerText()) || (await page.locator("#see-body").innerText()).includes("PullImage"), "sync #3 pulls the image");
      await drive(page, "#resync"); // #4: the pull failed: ErrImagePull
      await drive(page, "#resync"); // #5: the crash-loop back-off of the exit holds the start
      check((await kubectlStatus(page, 5)) === "ErrImagePull", `kubectl shows ErrImagePull (${await kubectlStatus(page, 5)})`);
      await drive(page, "#advance-backoff"); // #6: the retry pulls (and fails)
      await drive(page, "#pull-works-0"); // #7: the registry is back; the failed retry is counted
      await drive(page, "#resync"); // #8: crash-loop back-off (20 s)
      await drive(page, "#advance-backoff"); // #9: image-pull back-off (20 s from the last failure)
      await drive(page, "#advance-backoff"); // #10: the retry pulls, and succeeds
      check((await kubectlStatus(page, 10)) === "ImagePullBackOff", `kubectl shows ImagePullBackOff (${await kubectlStatus(page, 10)})`);
      // Then the back-offs (crash-loop first: each start that got past it advanced it)
      // run out and the start goes ahead with the pulled image.
      let n = 10;
      while (n < 16 && !(await cellText(page, "worker", n)).includes("running")) {
        await drive(page, (await page.locator("#advance-backoff").isEnabled()) ? "#advance-backoff" : "#resync");
        n++;
      }
      check((await cellText(page, "worker", n)).includes("running"), `the retry starts worker (sync #${n})`);
      await page.screenshot({ path: join(artifacts, "12-image-pull.png"), fullPage: true });
    });

    await section("gallery tour: sidecar and restart rules", async (page) => {
      await scenario(page, "sidecar");
      check((await cellText(page, "setup", 0)).includes("—"), "sidecar: setup waits for the startup probe");
      await drive(page, "#startup-pass-log-shipper");
      check((await cellText(page, "setup", 1)).includes("running"), "sidecar: setup starts once the probe passes");
      await drive(page, "#exit-setup");
      check((await cellText(page, "api", 2)).includes("running") && (await cellText(page, "log-shipper", 2)).includes("running"), "sidecar: app starts, sidecar keeps running");
      await page.screenshot({ path: join(artifacts, "09-sidecar.png"), fullPage: true });
      await scenario(page, "rules");
      await page.fill("#exit-code-trainer", "99");
      await drive(page, "#exit-trainer");
      check((await page.locator("#tabpanel").innerText()).includes("Reset container"), "rules: exit 99 resets the containers");
      await drive(page, "#resync");
      check((await cellText(page, "trainer", 2)).includes("running") && (await cellText(page, "data-loader", 2)).includes("running"), "rules: everything runs again after the reset");
      await page.click("#sync-1");
      await page.screenshot({ path: join(artifacts, "10-restart-all.png"), fullPage: true });
    });

    await section("lifecycle hooks: postStart fails, preStop takes time", async (page) => {
      await scenario(page, "hooks");
      await drive(page, "#poststart-api");
      check((await page.locator("#poststart-api").innerText()).includes("make it succeed"), "hooks: the postStart control shows it fails");
      await drive(page, "#exit-api");
      // The restart ran the failing hook: the model killed api; the next sync reports it.
      await drive(page, "#resync");
      check((await kubectlStatus(page, 3)) === "PostStartHookError", "hooks: a failed postStart shows PostStartHookError");
      check(/What the hooks of sync #2 did/.test(await page.locator("#hook-note").innerText()) && !(await page.locator("#sync-3").innerText()).includes("continued"), "hooks: the plan after the hook reports sync #2's hook, and is the kubelet's next sync (not marked continued)");
      check((await page.locator("#tabpanel").innerText()).includes("FailedPostStartHook"), "hooks: the plan explains FailedPostStartHook");
      await page.screenshot({ path: join(artifacts, "11-poststart-failed.png"), fullPage: true });
    });

    await section("YAML and JSON", async (page) => {
      await scenario(page, "plain");
      await drive(page, "#exit-web");
      const before = await page.locator("#timeline-body").innerText();
      await page.check("#format-json");
      await page.waitForFunction(() => document.querySelector(".cm-content")?.innerText.trim().startsWith("{"));
      check((await page.locator("#timeline-body").innerText()) === before, "switching to JSON keeps the session");
      check((await page.locator("#editor-status").innerText()).includes("in force"), "the JSON pod is valid");
      await page.check("#format-yaml");
      await page.waitForFunction(() => document.querySelector(".cm-content")?.innerText.startsWith("apiVersion"));
      check((await page.locator("#timeline-body").innerText()) === before, "and back to YAML");
    });

    let shareUrl;
    let original;
    await section("invalid spec and share link", async (page) => {
      await scenario(page, "crashloop");
      // Build a session with actions that need no particular plan: time passes, resyncs.
      await page.fill("#advance-by", "7");
      await drive(page, "#advance");
      await drive(page, "#resync");
      await drive(page, "#advance");
      check((await page.locator("#sync-3").innerText()).includes("t=14s"), "the clock advanced twice by 7s");
      const countBefore = await syncCount(page);
      await page.locator(".cm-content").click();
      await page.keyboard.press("Control+a");
      const badPod = (await page.evaluate(() => document.querySelector(".cm-content").innerText)).replace("restartPolicy: Always", "restartPolicy: Sometimes").trimEnd() + "\n";
      check(badPod.includes("Sometimes"), "invalid pod prepared");
      await page.keyboard.insertText(badPod);
      await page.waitForSelector(".cm-lintRange-error", { timeout: 5000 }).catch(() => undefined);
      const status = await page.locator("#editor-status").innerText();
      check(/restartPolicy/.test(status), `error shown under the editor: ${JSON.stringify(status)}`);
      const marked = await page.locator(".cm-lintRange-error").allInnerTexts();
      check(marked.some((t) => t.includes("Sometimes")), `error marked in the text at the offending value: ${JSON.stringify(marked)}`);
      await page.click("#apply");
      check((await syncCount(page)) === countBefore, "an invalid spec is not applied");
      await page.locator(".cm-lintRange-error").first().hover();
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(artifacts, "07-invalid-spec.png"), fullPage: true });
      await page.click("#sync-2");
      await page.waitForTimeout(700); // the hash is written after a short debounce
      shareUrl = page.url();
      check(/#s=[zj]/.test(shareUrl), "the session is in the URL hash");
      original = await snapshot(page);
    });

    if (shareUrl) {
      console.log("reload from the share link");
      const page2 = await open(shareUrl);
      await page2.waitForTimeout(400);
      const reloaded = await snapshot(page2);
      for (const key of Object.keys(original)) check(original[key] === reloaded[key], `share link reproduces ${key}`);
      check(page2.url() === shareUrl, "the reloaded page keeps the same link");
      await page2.screenshot({ path: join(artifacts, "08-from-share-link.png"), fullPage: true });
      await page2.close();
    }

    await section("keyboard only", async (page) => {
      await page.evaluate(() => document.activeElement && document.activeElement.blur());
      // The skip link is the first stop and jumps to the runtime controls.
      await page.keyboard.press("Tab");
      check((await page.evaluate(() => document.activeElement?.className)) === "skip", "the first Tab stop is the skip link");
      await page.keyboard.press("Enter");
      let reached = false;
      for (let i = 0; i < 10 && !reached; i++) {
        await page.keyboard.press("Tab");
        reached = await page.evaluate(() => document.activeElement?.id === "advance-by");
      }
      check(reached, "after the skip link, the clock controls are a few Tabs away");
      await page.keyboard.press("Control+a");
      await page.keyboard.type("5");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 2);
      check((await page.locator("#sync-1").innerText()).includes("+5s"), "the clock advances from the keyboard");
      await page.keyboard.press("Tab");
      check((await page.evaluate(() => document.activeElement?.id)) === "advance", "focus is kept across the sync");
      await page.keyboard.press("Tab");
      await page.keyboard.press("Enter");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 3);
      check((await page.locator("#sync-2").innerText()).includes("resync"), "Resync from the keyboard");
      await page.focus("#sync-0");
      await page.keyboard.press("Enter");
      check((await page.locator("#sync-0").getAttribute("aria-current")) === "true", "a sync can be revisited with the keyboard");
      await page.focus("#tab-decisions");
      await page.keyboard.press("ArrowRight");
      check((await page.evaluate(() => document.activeElement?.id)) === "tab-status", "arrow keys move between detail tabs (Decisions → Status)");
      const unnamed = await page.evaluate(() => {
        const name = (el) => {
          if (el.getAttribute("aria-label")) return el.getAttribute("aria-label");
          const by = el.getAttribute("aria-labelledby");
          if (by) return by.split(" ").map((id) => document.getElementById(id)?.textContent ?? "").join(" ");
          if (el.labels && el.labels.length) return [...el.labels].map((l) => l.textContent).join(" ");
          if (el.closest("label")) return el.closest("label").textContent;
          return el.textContent;
        };
        return [...document.querySelectorAll("button, input, select, textarea, [role=tab], .cm-content")]
          .filter((el) => !(name(el) ?? "").trim())
          .map((el) => el.outerHTML.slice(0, 80));
      });
      check(unnamed.length === 0, `every control has a label${unnamed.length ? `: missing on ${unnamed.join(" | ")}` : ""}`);
    });

    for (const [w, hgt] of [
      [360, 740],
      [400, 800],
      [1366, 768],
      [1920, 1080],
    ]) {
      const name = `layout ${w}x${hgt}`;
      console.log(name);
      const vctx = await browser.newContext({ viewport: { width: w, height: hgt } });
      const page = await vctx.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      try {
        await page.route("**/*", (route) => (route.request().url().startsWith(srv.url) || route.request().url().startsWith("data:") ? route.continue() : route.abort()));
        // A session with probes, sidecar, init and regular rows: most controls exist.
        await page.goto(srv.url);
        await ready(page);
        await page.click("#scenario-sidecar");
        await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 1);
        await page.click("#startup-pass-log-shipper");
        await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 2);
        const blocked = await blockedControls(page);
        check(blocked.length === 0, `${name}: every control is reachable and receives the pointer${blocked.length ? `: ${blocked.slice(0, 6).join("; ")}` : ""}`);
        const over = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        if (w <= 400) check(over <= 0, `${name}: no horizontal scrolling (overflow ${over}px)`);
        const edit = await page.evaluate(() => {
          const r = document.getElementById("edit").getBoundingClientRect();
          return { h: r.height, sticky: getComputedStyle(document.getElementById("edit")).position === "sticky" };
        });
        check(!edit.sticky || edit.h <= hgt, `${name}: the sticky editor panel fits the viewport (${Math.round(edit.h)}px, sticky ${edit.sticky})`);
        if (w !== 1920) await page.screenshot({ path: join(artifacts, `layout-${w}x${hgt}.png`), fullPage: w <= 400 });
        // Where the editing happens, the apply controls and the shortcut are on screen.
        await page.locator(".cm-content").click();
        await page.keyboard.press("End");
        await page.keyboard.type(" ");
        const visible = await page.evaluate(() => {
          const inView = (id) => {
            const r = document.getElementById(id).getBoundingClientRect();
            return r.top >= 0 && r.bottom <= innerHeight && r.width > 0;
          };
          return { apply: inView("apply"), startOver: inView("start-over"), status: inView("editor-status"), kbd: document.getElementById("apply").innerText.includes("Ctrl+Enter") };
        });
        check(visible.apply && visible.startOver && visible.status, `${name}: Apply, Start over and the validation message are visible while editing ${JSON.stringify(visible)}`);
        check(visible.kbd, `${name}: Ctrl+Enter is shown on screen`);
        await page.keyboard.press("Control+z");
        if (w === 400) {
          await page.click("#tab-events");
          await page.screenshot({ path: join(artifacts, `layout-${w}-events.png`), fullPage: true });
        }
      } catch (e) {
        check(false, `${name}: ${e.message.split("\n")[0]}`);
      } finally {
        await vctx.close();
      }
    }

    await section("a startup+liveness pod: no liveness result before startup succeeds", async (page) => {
      await page.goto(linkFor(srv.url, STARTUP_LIVENESS_POD));
      await page.reload();
      await ready(page);
      check((await cellText(page, "app", 0)).includes("running"), "app runs");
      check(await page.locator("#liveness-fail-app").isDisabled(), "liveness fail is not offered before the startup probe succeeded");
      check(await page.locator("#readiness-fail-app").isDisabled(), "readiness fail is not offered before the startup probe succeeded");
      const why = await page.locator("#liveness-fail-app").getAttribute("title");
      check(/startup probe has succeeded/.test(why ?? ""), `the page says why: ${JSON.stringify(why)}`);
      await drive(page, "#startup-pass-app");
      check(await page.locator("#startup-pass-app").isDisabled(), "a succeeded startup probe is not run again");
      await drive(page, "#readiness-fail-app");
      check((await cellText(page, "app", 2)).includes("running") && !(await page.locator("#tabpanel").innerText()).includes("Kill container"), "a readiness failure restarts nothing");
      await drive(page, "#liveness-fail-app");
      check((await page.locator("#tabpanel").innerText()).includes("Kill container"), "after startup, a liveness failure kills app");
      const order = await page.locator(".decision .verb").allInnerTexts();
      const kill = order.findIndex((t) => t.startsWith("Kill container"));
      const start = order.findIndex((t) => t.startsWith("Start container"));
      check(kill >= 0 && start > kill, `decisions read as a sequence: kill before start (${order.join(", ")})`);
    });

    await section("run until stable starts the app after its sidecar", async (page) => {
      await page.goto(linkFor(srv.url, SIDECAR_POD));
      await page.reload();
      await ready(page);
      check(!(await cellText(page, "app", 0)).includes("running"), "sync #0 starts only the sidecar");
      check(await page.locator("#settle").isEnabled(), "run until stable is offered after a sync that changed the runtime");
      await page.click("#settle");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length >= 3);
      const n = await syncCount(page);
      check((await cellText(page, "app", n - 1)).includes("running"), `app runs after ${n - 1} PLEG sync(s) without a manual resync`);
      check((await page.locator(`#sync-1`).innerText()).includes("PLEG"), "the timeline names the PLEG syncs");
      check(await page.locator("#settle").isDisabled(), "stable: no further sync is offered");
    });

    await section("a Never pod whose init container fails: superseded decisions are marked", async (page) => {
      await page.goto(linkFor(srv.url, NEVER_INIT_POD));
      await page.reload();
      await ready(page);
      await page.fill("#exit-code-migrate", "1");
      await drive(page, "#exit-migrate");
      const failed = await page.locator(".decision[data-effect=effective] .verb").allInnerTexts();
      check(failed.some((t) => t.startsWith("Stop the whole pod")) && !failed.some((t) => t.startsWith("Start")), `the failed init container stops the pod and starts nothing (${failed.join(", ")})`);
      // The pod is now terminal: the page offers no further sync (see the next section).
      // A session that has one anyway (an older share link) still replays it, to show what a
      // runtime SyncPod would do there and which decisions a later rule cleared.
      check(await page.locator("#resync").isDisabled(), "no resync is offered for the terminal pod");
      await page.goto(linkFor(srv.url, NEVER_INIT_POD, [{ t: "exit", c: "migrate", code: 1 }, { t: "sync" }]));
      await page.reload();
      await ready(page);
      check((await syncCount(page)) === 3, "a link with a sync after the terminal one replays it");
      const panel = await page.locator("#tabpanel").innerText();
      check(!/createSandbox/.test(await page.locator(".actions-summary").innerText().catch(() => "")), "podActions create no sandbox");
      const superseded = page.locator(".decision[data-effect=superseded]");
      check((await superseded.count()) > 0 && /superseded by/.test(await superseded.first().innerText()), "the sandbox creation that a later rule cleared is marked superseded, with the rule");
      const effective = await page.locator(".decision[data-effect=effective] .verb").allInnerTexts();
      check(!effective.some((t) => t.startsWith("Create a sandbox")), `no superseded decision is shown as effective (${effective.join(", ")}; ${panel.length} chars)`);
      await page.screenshot({ path: join(artifacts, "11-never-superseded.png"), fullPage: true });
    });

    await section("the kubectl row: a crash loop shows CrashLoopBackOff, then Running", async (page) => {
      await scenario(page, "crashloop");
      check(/^(ContainerCreating|Pending)$/.test((await kubectlStatus(page, 0)) ?? ""), `sync #0 starts from ContainerCreating (${await kubectlStatus(page, 0)})`);
      await drive(page, "#exit-worker"); // #1: restarted at once
      await drive(page, "#exit-worker"); // #2: held back
      check((await kubectlStatus(page, 2)) === "Error", `sync #2: the row shows the exit as Error (${await kubectlStatus(page, 2)})`);
      check(/CrashLoopBackOff/.test(await cellText(page, "worker", 2)), "the held-back start shows CrashLoopBackOff in the timeline");
      check(/CrashLoopBackOff/.test(await page.locator('#drive-body tr[data-container="worker"]').innerText()), "and in the runtime panel");
      await drive(page, "#advance-backoff"); // #3: status at its start: waiting, CrashLoopBackOff
      check((await kubectlStatus(page, 3)) === "CrashLoopBackOff", `sync #3: the row shows CrashLoopBackOff (${await kubectlStatus(page, 3)})`);
      check((await cellText(page, "worker", 3)).includes("running"), "sync #3 starts worker again");
      await drive(page, "#resync"); // #4: the status sees it running
      const row = await page.locator("#row-kubectl td").nth(4).innerText();
      check((await kubectlStatus(page, 4)) === "Running" && /1\/1/.test(row), `sync #4: the row shows 1/1 Running (${JSON.stringify(row)})`);
      check(/↻2 \(10s ago\)/.test(row) && /· 10s/.test(row), `sync #4: two restarts, the last 10s ago, and the pod's age (${JSON.stringify(row)})`);
      await page.click("#tab-status");
      const st = await page.locator("#tabpanel").innerText();
      check(/Running/.test(st) && /Ready/.test(st) && /ContainersReady/.test(st), "the Status tab shows the phase and conditions");
      check(/Terminated: Error \(exit code 1\)/.test(await page.locator('.status-containers tr[data-container="worker"] .last-state').innerText()), "and the container's last state");
      await select(page, 3);
      check(/Waiting: CrashLoopBackOff/.test(await page.locator('.status-containers tr[data-container="worker"] .state').innerText()), "sync #3's status: waiting, CrashLoopBackOff, with its message");
      await page.screenshot({ path: join(artifacts, "13-kubectl-crashloop.png"), fullPage: true });
    });

    await section("the kubectl row: an init failure shows Init:Error, then Init:CrashLoopBackOff", async (page) => {
      await page.goto(linkFor(srv.url, INIT_POD));
      await page.reload();
      await ready(page);
      check(/^Init:0\/1$/.test((await kubectlStatus(page, 0)) ?? ""), `sync #0: Init:0/1 (${await kubectlStatus(page, 0)})`);
      await page.fill("#exit-code-migrate", "1");
      await drive(page, "#exit-migrate"); // #1: restarted at once
      check((await kubectlStatus(page, 1)) === "Init:Error", `sync #1: Init:Error (${await kubectlStatus(page, 1)})`);
      await page.fill("#exit-code-migrate", "1");
      await drive(page, "#exit-migrate"); // #2: held back
      await drive(page, "#resync"); // #3: still in back-off, status from the reason cache
      check((await kubectlStatus(page, 3)) === "Init:CrashLoopBackOff", `sync #3: Init:CrashLoopBackOff (${await kubectlStatus(page, 3)})`);
    });

    await section("a config error shows as kubectl shows it: CreateContainerConfigError", async (page) => {
      await page.goto(linkFor(srv.url, ROOT_POD));
      await page.reload();
      await ready(page);
      const cell = await cellText(page, "app", 0);
      check(/CreateContainerConfigError/.test(cell) && !/—/.test(cell.split("(")[0]), `the timeline cell shows the waiting reason, not "—" (${JSON.stringify(cell)})`);
      const panel = await page.locator('#drive-body tr[data-container="app"]').innerText();
      check(/CreateContainerConfigError/.test(panel) && !/not created/.test(panel), `the runtime panel too (${JSON.stringify(panel)})`);
      await drive(page, "#resync");
      check((await kubectlStatus(page, 1)) === "CreateContainerConfigError", `the next sync's row shows it (${await kubectlStatus(page, 1)})`);
    });

    await section("a Never pod whose init container fails is terminal: no further sync", async (page) => {
      await page.goto(linkFor(srv.url, NEVER_INIT_POD));
      await page.reload();
      await ready(page);
      await page.fill("#exit-code-migrate", "1");
      await drive(page, "#exit-migrate");
      check((await kubectlStatus(page, 1)) === "Init:Error", `the row shows Init:Error (${await kubectlStatus(page, 1)})`);
      check(/terminal/i.test(await page.locator("#terminal-note").innerText()) && /Failed/.test(await page.locator("#terminal-note").innerText()), "the decisions say the pod is terminal (phase Failed) and why");
      check(/Terminal: phase Failed/.test(await page.locator("#drive-terminal").innerText()), "so does the runtime panel");
      check((await page.locator("#resync").isDisabled()) && /terminal/.test((await page.locator("#resync").getAttribute("title")) ?? ""), "Resync is not offered, and says why");
      check((await page.locator("#settle").isDisabled()) && (await page.locator("#advance").isDisabled()), "nor Run until stable or the clock");
      await page.click(".cm-content");
      await page.keyboard.press("Control+End");
      await page.keyboard.type(" ");
      await page.waitForTimeout(400);
      check((await page.locator("#apply").isDisabled()) && /terminal/.test(await page.locator("#editor-status").innerText()), "nor a spec change, and the editor says why");
      check(await page.locator("#start-over").isEnabled(), "Start over stays offered");
      await page.click("#tab-status");
      check(/Failed/.test(await page.locator("#status-phase").innerText()), "the Status tab shows phase Failed");
      await page.screenshot({ path: join(artifacts, "14-never-terminal.png"), fullPage: true });
    });

    await section("sessions are not lost silently", async (page) => {
      await page.goto(`${srv.url}#s=zTHIS-IS-NOT-A-LINK`);
      await page.reload();
      await ready(page);
      const alert = await page.locator("#link-error").innerText();
      check(/could not be read/.test(alert), "a broken share link says so");
      check(page.url().endsWith("#s=zTHIS-IS-NOT-A-LINK"), "and the link stays in the address bar");
      check((await page.locator("#broken-link").inputValue()).includes("THIS-IS-NOT-A-LINK"), "and on the page, to copy");
      await page.screenshot({ path: join(artifacts, "12-broken-link.png") });
      await scenario(page, "plain");
      await drive(page, "#exit-web");
      await page.click("#tab-events");
      await page.waitForTimeout(600);
      check((await page.locator("#tabpanel").innerText()).includes("spec.containers{web}"), "events show their object");
      const withTab = page.url();
      await scenario(page, "crashloop");
      check(/press Back|one step back/.test(await page.locator("#gallery-undo").innerText()), "choosing a scenario over a modified session says Back returns to it");
      await page.goBack();
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 2);
      check((await page.locator("#scenario-plain").getAttribute("aria-pressed")) === "true", "Back restores the modified session");
      const page3 = await open(withTab);
      check((await page3.locator("#tab-events").getAttribute("aria-selected")) === "true", "the share link keeps the open detail tab");
      await page3.click("#tab-steps");
      check(!/: ·|: $/m.test(await page3.locator("#tabpanel").innerText()), "steps omit empty fields");
      await page3.close();
    });


    // ---------------------------------------------------------------------------------
    // The playground as a classroom: honest labels, kubectl views, presentation, links.

    await section("honest labels: the two back-offs, a continued sync, SyncPod order", async (page) => {
      await scenario(page, "typo");
      await page.click("#tab-steps");
      check(/PullImage/.test(await page.locator("#tabpanel").innerText()), "image typo: sync #0 already pulls (the fault is set before the first sync)");
      await page.click("#tab-decisions");
      await drive(page, "#resync"); // #1: the pull's result: the same kubelet sync, continued
      const head1 = page.locator("#sync-1");
      check((await head1.innerText()).includes("#0 continued") && /same kubelet sync as #0, continued/.test((await head1.getAttribute("aria-label")) ?? ""), `sync #1 is marked as sync #0 continued, not an extra sync (${JSON.stringify(await head1.innerText())})`);
      check((await page.locator("th.synchead.continued").count()) === 1 && !(await page.locator("#sync-1").innerText()).includes("resync"), "only the continuation is marked, and it does not read as a resync");
      check(/same kubelet sync as #0, continued/.test(await page.locator("#see-title").innerText()) && (await page.locator("#continued-note").count()) === 1, "the details say so too");
      check(/ErrImagePull/.test(await cellText(page, "web", 1)), "the failed pull shows ErrImagePull");
      await drive(page, "#resync"); // #2: held back by the image-pull back-off
      const held = page.locator("#tabpanel .callout.wait");
      const heldText = (await held.allInnerTexts()).join(" | ");
      check((await held.count()) === 1 && (await held.first().getAttribute("data-backoff")) === "ImagePullBackOff", `the held-back start names its back-off: ${JSON.stringify(heldText)}`);
      check(/Held back by image-pull back-off/.test(heldText) && !/crash-loop/.test(heldText), "ImagePullBackOff is not labelled crash-loop back-off");
      const cell2 = await cellText(page, "web", 2);
      // The failed pull took 1 s of the 10 s back-off.
      check(/ImagePullBackOff · pull back-off 9s/.test(cell2) && /image-pull back-off/.test(cell2) && !/crash-loop/.test(cell2), `the timeline cell too (${JSON.stringify(cell2.split("\n")[0])})`);
      await page.screenshot({ path: join(artifacts, "15-image-pull-backoff.png"), fullPage: true });
      await scenario(page, "crashloop");
      await drive(page, "#exit-worker");
      await drive(page, "#exit-worker");
      check((await page.locator("#tabpanel .callout.wait").first().getAttribute("data-backoff")) === "CrashLoopBackOff", "a crash loop's held-back start names the crash-loop back-off");
      // A 1 s liveness window (periodSeconds × failureThreshold): the crash-loop back-off
      // still runs at the third failure.
      await page.goto(linkFor(srv.url, QUICK_LIVENESS_POD));
      await page.reload();
      await ready(page);
      for (let i = 0; i < 3; i++) await drive(page, "#liveness-fail-app"); // the third restart is held back
      const order = await page.locator(".decision .verb").allInnerTexts();
      const kill = order.findIndex((t) => t.startsWith("Kill container"));
      const start = order.findIndex((t) => t.startsWith("Start container"));
      check(kill >= 0 && start > kill && (await page.locator(".decision").nth(start).getAttribute("data-effect")) === "notCarriedOut", `the held-back start comes after the kill it follows (${order.join(", ")})`);
      await page.screenshot({ path: join(artifacts, "16-decision-order.png"), fullPage: true });
    });

    await section("kubectl get pods -w and kubectl describe pod", async (page) => {
      await scenario(page, "crashloop");
      await drive(page, "#exit-worker"); // #1
      await drive(page, "#exit-worker"); // #2 held back
      await page.fill("#advance-by", "3");
      await drive(page, "#advance"); // #3 t=3 still held
      await drive(page, "#advance"); // #4 t=6 still held
      await drive(page, "#advance-backoff"); // #5 t=10 starts
      await drive(page, "#exit-worker"); // #6 held back (20 s)
      await page.click("#tab-watch");
      const log = await page.locator("#watch-log").innerText();
      const lines = log.trimEnd().split("\n");
      check(/^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/.test(lines[0] ?? ""), `the watch starts with kubectl's header (${JSON.stringify(lines[0])})`);
      const statuses = [];
      for (let i = 0; i <= 6; i++) statuses.push(await kubectlStatus(page, i));
      const distinct = statuses.filter((st, i) => i === 0 || st !== statuses[i - 1]);
      const rowStatuses = lines.slice(1).map((l) => l.split(/\s{2,}/)[2]);
      check(rowStatuses.length >= distinct.length && distinct.every((st) => rowStatuses.includes(st)), `a row per status update, from the engine's rows (${JSON.stringify(rowStatuses)} vs ${JSON.stringify(statuses)})`);
      check(lines.slice(1).every((l) => l.startsWith("worker ")), "every row names the pod");
      const statusCol = lines[0].indexOf("STATUS");
      check(lines.slice(1).every((l) => l.slice(statusCol - 3, statusCol).trim() === "" && l[statusCol] !== " "), "the STATUS column stays aligned (kubectl's tabwriter remembers widths)");
      await page.click("#copy-watch-log");
      await page.waitForTimeout(200);
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      check(copied.trimEnd() === log.trimEnd(), "Copy gives the same text");
      await page.screenshot({ path: join(artifacts, "17-kubectl-watch.png"), fullPage: true });
      await page.click("#tab-describe");
      const d = await page.locator("#describe-text").innerText();
      check(/^Name:\s+worker$/m.test(d) && /^Status:\s+Running$/m.test(d) && /^Conditions:$/m.test(d) && /^\s+Ready\s+False $/m.test(d), "describe shows the name, phase and conditions");
      check(/^\s+State:\s+Terminated$/m.test(d) && /^\s+Last State:\s+Terminated$/m.test(d) && /^\s+Restart Count:\s+2$/m.test(d), "and the container's states and restarts");
      const backoff = d.split("\n").find((l) => /Warning\s+BackOff/.test(l)) ?? "";
      check(/\s0s \(x4 over 10s\)\s+kubelet\s+Back-off restarting failed container worker/.test(backoff), `repeated events are one event with a count, as kubectl prints it (${JSON.stringify(backoff.trim())})`);
      check(/Normal\s+Started\s+0s \(x3 over 10s\)/.test(d), "Started three times");
      await select(page, 2);
      const d2 = await page.locator("#describe-text").innerText();
      check(/Warning\s+BackOff\s+0s\s+kubelet/.test(d2) && !/x4/.test(d2), "describe at an earlier sync shows the events up to it");
      await page.screenshot({ path: join(artifacts, "18-kubectl-describe.png"), fullPage: true });
    });

    await section("pull faults set before the first sync", async (page) => {
      await page.goto(linkFor(srv.url, INIT_POD));
      await page.reload();
      await ready(page);
      await page.click("#before > summary");
      const sel = page.locator('#before select[data-before-image="app:1"]');
      check((await sel.count()) === 1, "each image of the starting pod has a pull control");
      await sel.selectOption("notFound");
      await page.click("#before-apply");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 1 && /not found/.test(document.querySelector("#before summary")?.textContent ?? ""));
      await page.click("#tab-steps");
      check(/PullImage[^\n]*migrate:1/.test(await page.locator("#tabpanel").innerText()), "from sync #0 the image manager is on: migrate:1 is pulled");
      await drive(page, "#resync"); // #1: the pull worked: sync #0 continued starts migrate
      check((await page.locator("#sync-1").innerText()).includes("#0 continued") && (await cellText(page, "migrate", 1)).includes("running"), "the continued sync starts migrate");
      await page.fill("#exit-code-migrate", "0");
      await drive(page, "#exit-migrate"); // #2: app's start pulls app:1
      check(/PullImage[^\n]*app:1/.test(await page.locator("#tabpanel").innerText()), "then app's start pulls app:1");
      await drive(page, "#resync"); // #3: the pull failed
      check(/ErrImagePull/.test(await cellText(page, "app", 3)), `and the pull fails: ErrImagePull (${JSON.stringify((await cellText(page, "app", 3)).split("\n")[0])})`);
      await page.waitForTimeout(600);
      const link = page.url();
      const page2 = await open(link);
      check((await page2.locator(".syncbtn").count()) === 4 && /ErrImagePull/.test(await page2.locator("#row-app td").nth(3).innerText()), "the share link keeps the fault");
      await page2.close();
    });

    await section("links: the skip link keeps the session; a broken link is not copied", async (page) => {
      await scenario(page, "crashloop");
      await drive(page, "#exit-worker");
      await page.waitForTimeout(600);
      const session = page.url();
      await page.focus("a.skip");
      await page.keyboard.press("Enter");
      await page.waitForTimeout(200);
      check(page.url() === session, `the skip link leaves the session in the URL (${page.url().slice(-24)})`);
      check((await page.evaluate(() => document.activeElement?.id)) === "drive", "and moves focus to the runtime controls");
      await page.reload();
      await ready(page);
      check((await syncCount(page)) === 2, "a reload after the skip link keeps the session");
      await page.goto(`${srv.url}#s=zTHIS-IS-NOT-A-LINK`);
      await page.reload();
      await ready(page);
      await page.evaluate(() => navigator.clipboard.writeText(""));
      await page.click("#share");
      await page.waitForFunction(() => /copied/.test(document.getElementById("share-status")?.textContent ?? ""));
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      check(/#s=[zj]/.test(copied) && !copied.includes("THIS-IS-NOT-A-LINK"), `“Copy share link” copies the session shown, not the broken link (${copied.slice(-30)})`);
      check(page.url().endsWith("#s=zTHIS-IS-NOT-A-LINK"), "the broken link stays in the address bar");
      const page2 = await open(copied);
      check((await page2.locator("#link-error").isHidden()) && (await page2.locator(".syncbtn").count()) === 1, "the copied link opens");
      await page2.close();
    });

    await section("delete a pod: Terminating, preStop, grace period, removal", async (page) => {
      await scenario(page, "delete");
      await page.click("#settle");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length >= 3);
      const n = (await syncCount(page)) - 1;
      check((await kubectlStatus(page, n)) === "Running" && (await cellText(page, "web", n)).includes("running"), `delete: the pod runs after run until stable (sync #${n})`);
      check((await page.locator("#delete-grace").inputValue()) === "20", "delete: the grace period defaults to the pod's (20 s)");
      check((await page.locator("#evict-pod").isEnabled()) && (await page.locator("#oom-web").isEnabled()), "delete: Evict pod and OOM-kill are offered while the pod runs");
      await drive(page, "#delete-pod");
      const d = n + 1;
      check((await kubectlStatus(page, d)) === "Terminating", `delete: kubectl shows Terminating (${await kubectlStatus(page, d)})`);
      check((await page.locator("#drive-worker").getAttribute("data-worker-phase")) === "terminating", "delete: the runtime panel says the pod worker is terminating it");
      check(/SyncTerminatingPod/.test(await page.locator("#worker-note").innerText()) && /20 s/.test(await page.locator("#worker-note").innerText()), "delete: the details explain SyncTerminatingPod and its 20 s grace period");
      check((await page.locator(`#sync-${d}`).innerText()).includes("took 5s"), `delete: the preStop's 5 s show as the sync's time (${JSON.stringify((await page.locator(`#sync-${d}`).innerText()).replace(/\n/g, " | "))})`);
      check(/exited/.test(await cellText(page, "web", d)) && /exited/.test(await cellText(page, "log-shipper", d)), "delete: web and its sidecar are stopped");
      const webRow = await page.locator('#drive-body tr[data-container="web"]').innerText();
      const shipperRow = await page.locator('#drive-body tr[data-container="log-shipper"]').innerText();
      check(/exited \(143\)/.test(webRow) && /exited \(143\)/.test(shipperRow), `sigterm: both exit on SIGTERM within the grace period: exit code 143 (${webRow.match(/exited \(\d+\)/)?.[0]}, ${shipperRow.match(/exited \(\d+\)/)?.[0]})`);
      await page.screenshot({ path: join(artifacts, "27-sigterm-143.png"), fullPage: true });
      check((await page.locator("#delete-pod").isDisabled()) && /already being deleted/.test((await page.locator("#delete-pod").getAttribute("title")) ?? ""), "delete: a second delete is not offered, and says why");
      await page.click("#tab-steps");
      const steps = await page.locator("#tabpanel").innerText();
      check(/KillPod/.test(steps), "delete: the steps hold the KillPod");
      const order = await page.locator("#tabpanel ol.kills li").evaluateAll((lis) => lis.map((li) => li.dataset.kill));
      check(JSON.stringify(order) === '["web","log-shipper"]' && /waits for web/.test(await page.locator('#tabpanel [data-kill="log-shipper"]').innerText()), `delete: the kills in the termination order, the sidecar after web (${JSON.stringify(order)})`);
      const did = await page.locator("#hook-results").innerText();
      check(/preStop of web: succeeded, ran 5 s; StopContainer then got 15 s/.test(did), `delete: what the runtime did: the preStop ran 5 s, StopContainer got the 15 s left (${JSON.stringify(did)})`);
      await page.screenshot({ path: join(artifacts, "20-delete-terminating.png"), fullPage: true });
      await page.click("#tab-describe");
      const described = await page.locator("#tabpanel").innerText();
      check(/Status:\s+Terminating \(lasts <invalid>\)/.test(described) && /Termination Grace Period:\s+20s/.test(described), "delete: kubectl describe says Terminating (lasts <invalid>, kubectl's own wording while the grace period runs) and the grace period");
      await drive(page, "#resync");
      const r = d + 1;
      check((await page.locator(`#sync-${r}`).innerText()).includes("t=5s"), "delete: the clock moved by the preStop: the next sync is at t=5s");
      check((await cellText(page, "web", r)).includes("removed") && (await page.locator("#timeline-body tr.row-sandbox td").nth(r).innerText()).includes("removed"), "delete: SyncTerminatedPod removes the containers and the sandbox");
      check((await page.locator("#row-kubectl td").nth(r).getAttribute("data-gone")) === "true", "delete: the kubectl row says the pod is then deleted");
      check((await page.locator("#resync").isDisabled()) && /gone/.test((await page.locator("#resync").getAttribute("title")) ?? ""), "delete: nothing more syncs: the pod is gone");
      check(await page.locator("#settle").isDisabled(), "delete: nor run until stable");
      await page.screenshot({ path: join(artifacts, "21-delete-removed.png"), fullPage: true });
      await page.click("#tab-watch");
      const watch = (await page.locator("#watch-log").innerText()).trim().split("\n");
      const statuses = watch.slice(1).map((l) => l.trim().split(/\s+/)[2]);
      check(statuses.includes("Terminating") && watch[watch.length - 1] === watch[watch.length - 2] && (await page.locator('#watch-log [data-deleted="true"]').count()) === 1, `delete: kubectl get pods -w shows Terminating and, when the pod is deleted, its last row again (${JSON.stringify(statuses)})`);
      // A share link replays the deletion.
      await page.waitForTimeout(600);
      const page2 = await open(page.url());
      check((await syncCount(page2)) === r + 1 && (await page2.locator("#row-kubectl td").nth(d).getAttribute("data-status")) === "Terminating", "delete: the share link replays the deletion");
      await page2.close();
    });

    await section("delete a pod whose container ignores SIGTERM: SIGKILL at the end of the grace period", async (page) => {
      await scenario(page, "delete");
      await page.click("#settle");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length >= 3);
      await page.fill("#stop-s-web", "60");
      await drive(page, "#stop-web");
      check(/exits after 60 s/.test(await page.locator('#drive-body tr[data-container="web"]').innerText()), "sigkill: the runtime panel shows web ignores SIGTERM for 60 s");
      await page.fill("#delete-grace", "8");
      await drive(page, "#delete-pod");
      const d = (await syncCount(page)) - 1;
      check((await page.locator(`#sync-${d}`).innerText()).includes("took 8s"), `sigkill: the stop takes the whole 8 s grace period (${JSON.stringify((await page.locator(`#sync-${d}`).innerText()).replace(/\n/g, " | "))})`);
      const webRow = await page.locator('#drive-body tr[data-container="web"]').innerText();
      const shipperRow = await page.locator('#drive-body tr[data-container="log-shipper"]').innerText();
      check(/exited \(137\)/.test(webRow) && /exited \(143\)/.test(shipperRow), `sigkill: web, killed when the grace period ends, exits 137; log-shipper, which exits on SIGTERM, 143 (${webRow.match(/exited \(\d+\)/)?.[0]}, ${shipperRow.match(/exited \(\d+\)/)?.[0]})`);
      await drive(page, "#resync");
      check((await page.locator(`#sync-${d + 1}`).innerText()).includes("t=8s"), "sigkill: the next sync is 8 s later");
      await page.click("#tab-status");
      const st = await page.locator("#tabpanel").innerText();
      check(/exit code 137/.test(st) && /exit code 143/.test(st) && !/OOMKilled/.test(st), "sigkill: the Status tab reports web terminated with exit code 137 and log-shipper with 143, both Error");
      await page.screenshot({ path: join(artifacts, "28-sigkill-137.png"), fullPage: true });
    });

    await section("evict a pod", async (page) => {
      await scenario(page, "evict");
      await drive(page, "#evict-pod");
      check((await kubectlStatus(page, 1)) === "Evicted", `evict: kubectl shows Evicted (${await kubectlStatus(page, 1)})`);
      check((await page.locator("#drive-worker").getAttribute("data-worker-phase")) === "terminating" && (await page.locator("#resync").isEnabled()), "evict: the phase Failed is not the end: SyncTerminatedPod follows");
      check((await page.locator("#terminal-note").count()) === 0, "evict: no “No SyncPod” note for the pod worker's plan");
      await page.click("#tab-status");
      check(/Evicted/.test(await page.locator("#tabpanel").innerText()), "evict: the Status tab shows the reason Evicted");
      await drive(page, "#resync");
      check((await cellText(page, "job", 2)).includes("removed"), "evict: the cleanup removes the container");
      check((await page.locator("#resync").isDisabled()) && !/gone/.test((await page.locator("#resync").getAttribute("title")) ?? "x") && (await page.locator("#row-kubectl td").nth(2).getAttribute("data-gone")) === null, "evict: nothing more syncs, and the evicted pod is not deleted");
      await page.screenshot({ path: join(artifacts, "22-evicted.png"), fullPage: true });
    });

    await section("OOM-kill a container", async (page) => {
      await scenario(page, "oom");
      await drive(page, "#oom-cruncher");
      check((await kubectlStatus(page, 1)) === "OOMKilled", `oom: kubectl shows OOMKilled (${await kubectlStatus(page, 1)})`);
      check((await cellText(page, "cruncher", 1)).includes("running ↻1"), "oom: the kubelet restarts it at once (restartPolicy Always)");
      await page.click("#tab-status");
      check(/OOMKilled/.test(await page.locator("#tabpanel").innerText()) && /137/.test(await page.locator("#tabpanel").innerText()), "oom: the Status tab shows the last state: OOMKilled, exit code 137");
      await drive(page, "#oom-cruncher");
      check(/CrashLoopBackOff/.test(await cellText(page, "cruncher", 2)), "oom: a second OOM kill waits for the crash-loop back-off");
      await page.screenshot({ path: join(artifacts, "23-oomkilled.png"), fullPage: true });
    });

    await section("honest clock: a 12 s preStop moves the clock (no <invalid> RESTARTS)", async (page) => {
      await scenario(page, "hooks");
      await page.fill("#prestop-s-api", "12");
      await drive(page, "#prestop-api");
      await page.locator(".cm-content").click();
      await page.keyboard.press("Control+a");
      const edited = (await page.evaluate(() => document.querySelector(".cm-content").innerText)).replace("example/api:1.0", "example/api:1.1").trimEnd() + "\n";
      await page.keyboard.insertText(edited);
      await page.waitForTimeout(400);
      await drive(page, "#apply");
      check((await page.locator("#sync-2").innerText()).includes("took 12s"), `clock: the image change's kill took 12 s (${JSON.stringify((await page.locator("#sync-2").innerText()).replace(/\n/g, " | "))})`);
      await drive(page, "#resync");
      check((await page.locator("#sync-3").innerText()).includes("t=12s"), "clock: the next sync is at t=12s");
      const row = (await page.locator("#row-kubectl td").nth(3).getAttribute("title")) ?? "";
      check(/RESTARTS 1 \(0s ago\)/.test(row) && !/invalid/.test(row), `clock: RESTARTS reads 1 (0s ago), not <invalid> (${row.replace(/.*RESTARTS /, "").replace(/, AGE.*/, "")})`);
      check(/t = 12 s/.test(await page.locator("#drive-body .clock").innerText()), "clock: the runtime panel's clock reads 12 s");
      await page.screenshot({ path: join(artifacts, "24-honest-clock.png"), fullPage: true });
    });

    await section("a pull takes time: the clock moves by the pull", async (page) => {
      await scenario(page, "pull");
      const s0 = (await page.locator("#sync-0").innerText()).replace(/\n/g, " | ");
      check(s0.includes("took 45s"), `pull: sync #0 pulls the image, which takes 45 s here (${JSON.stringify(s0)})`);
      check(/45 s/.test(await page.locator("#pull-time-0").innerText()), "pull: the runtime panel shows the image's pull time");
      await page.click("#settle");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length >= 2);
      const s1 = (await page.locator("#sync-1").innerText()).replace(/\n/g, " | ");
      check(s1.includes("t=45s"), `pull: the sync that starts server comes when the pull is done, at t=45s (${JSON.stringify(s1)})`);
      check((await cellText(page, "server", 1)).includes("running"), "pull: server runs after the pull");
      await select(page, 1);
      await page.click("#tab-events");
      const ev = await page.locator("#tabpanel").innerText();
      check(/Successfully pulled image[^\n]*in 45s/.test(ev), "pull: the Pulled event says the pull took 45s");
      await page.screenshot({ path: join(artifacts, "25-pull-time.png"), fullPage: true });
      // A failed pull takes the registry's answer: half a second, the clock moves 1 s.
      const n = (await syncCount(page)) - 1;
      await select(page, n);
      await drive(page, "#pull-notfound-0");
      await drive(page, "#pull-remove-0");
      await drive(page, "#exit-server");
      const f = (await syncCount(page)) - 1;
      const sf = (await page.locator(`#sync-${f}`).innerText()).replace(/\n/g, " | ");
      check(sf.includes("took 1s"), `pull: the failed pull of the restart takes the registry's answer, 1 s on the clock (${JSON.stringify(sf)})`);
    });

    await section("a failing probe takes its window: periodSeconds × failureThreshold", async (page) => {
      await scenario(page, "liveness");
      await drive(page, "#liveness-fail-app");
      const s1 = (await page.locator("#sync-1").innerText()).replace(/\n/g, " | ");
      check(s1.includes("t=30s"), `probe: the kubelet acts on the liveness failure after 3 failures 10 s apart: the sync is at t=30s (${JSON.stringify(s1)})`);
      check((await cellText(page, "app", 1)).includes("running ↻1"), "probe: app is killed and restarted in that sync");
      check(/t = 30 s/.test(await page.locator("#drive-body .clock").innerText()), "probe: the runtime panel's clock reads 30 s");
      await page.screenshot({ path: join(artifacts, "26-probe-window.png"), fullPage: true });
    });

    await section("readiness gate: a condition set from outside decides Ready", async (page) => {
      await scenario(page, "gate");
      await page.click("#settle");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length >= 2);
      // The status of the sync after the start sees web running.
      await drive(page, "#resync");
      const ready = async () => {
        await page.click("#tab-describe");
        return page.locator("#tabpanel").innerText();
      };
      let d = await ready();
      check(/^\s+ContainersReady\s+True\s*$/m.test(d) && /^\s+Ready\s+False\s*$/m.test(d), "gate: web runs, ContainersReady True, Ready False: the gate's condition does not exist");
      check(/no condition/.test(await page.locator('#drive-body [data-gate="example.com/lb-ready"]').innerText()), "gate: the Pod panel shows the gate without a condition");
      await page.click("#tab-status");
      check(/ReadinessGatesNotReady/.test(await page.locator("#tabpanel").innerText()), "gate: the Status tab gives the reason ReadinessGatesNotReady");
      await drive(page, "#gate-true-0");
      d = await ready();
      check(/^\s+Ready\s+True\s*$/m.test(d) && /example\.com\/lb-ready\s+True/.test(d), "gate: set True, the next sync reports Ready True");
      await page.screenshot({ path: join(artifacts, "29-readiness-gate.png"), fullPage: true });
      await drive(page, "#gate-false-0");
      d = await ready();
      const n = (await syncCount(page)) - 1;
      check(/^\s+Ready\s+False\s*$/m.test(d) && (await cellText(page, "web", n)).includes("running"), "gate: set False, Ready is False again and web keeps running");
    });

    await section("in-place resize: ResizeStarted, PodResizeInProgress, ResizeCompleted", async (page) => {
      await scenario(page, "resize");
      await page.click("#settle");
      await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length >= 2);
      await page.locator(".cm-content").click();
      await page.keyboard.press("Control+a");
      const edited = (await page.evaluate(() => document.querySelector(".cm-content").innerText)).replaceAll("cpu: 500m", "cpu: 750m").trimEnd() + "\n";
      await page.keyboard.insertText(edited);
      await page.waitForTimeout(400);
      await drive(page, "#apply");
      const r = (await syncCount(page)) - 1;
      await page.click("#tab-events");
      let ev = await page.locator("#tabpanel").innerText();
      check(/ResizeStarted/.test(ev) && /Pod resize started: \{"containers":\[\{"name":"app","resources":\{"limits":\{"cpu":"750m"/.test(ev), "resize: the resize sync records ResizeStarted with the new resources");
      const appCell = await cellText(page, "app", r);
      check(appCell.includes("running") && !/↻[1-9]/.test(appCell) && !/Killing/.test(ev), `resize: app is resized in place, not restarted (${JSON.stringify(appCell.replace(/\n/g, " | "))})`);
      await page.click("#tab-status");
      let st = await page.locator("#tabpanel").innerText();
      check(/PodResizeInProgress/.test(st), "resize: the Status tab shows the condition PodResizeInProgress");
      await page.click("#tab-steps");
      check(/UpdateContainerResources/.test(await page.locator("#tabpanel").innerText()), "resize: the steps hold UpdateContainerResources");
      await page.screenshot({ path: join(artifacts, "30-resize-in-progress.png"), fullPage: true });
      await drive(page, "#resync");
      await page.click("#tab-events");
      ev = await page.locator("#tabpanel").innerText();
      check(/ResizeCompleted/.test(ev) && /Pod resize completed/.test(ev), "resize: the next sync records ResizeCompleted");
      await page.click("#tab-status");
      st = await page.locator("#tabpanel").innerText();
      check(!/PodResizeInProgress/.test(st), "resize: and PodResizeInProgress is gone");
      await page.screenshot({ path: join(artifacts, "31-resize-completed.png"), fullPage: true });
    });

    await section("presentation mode", async (page) => {
      await scenario(page, "crashloop");
      await drive(page, "#exit-worker");
      const small = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector(".cell-label")).fontSize));
      await page.click("#present");
      check((await page.evaluate(() => document.body.classList.contains("presenting"))) && (await page.locator("#present").getAttribute("aria-pressed")) === "true", "the toggle turns presentation mode on");
      const big = await page.evaluate(() => parseFloat(getComputedStyle(document.querySelector(".cell-label")).fontSize));
      check(big >= 18 && big > small, `bigger timeline text (${small}px → ${big}px)`);
      check((await page.locator("#gallery-fold").count()) === 1 && !(await page.locator("#gallery-fold").evaluate((d) => d.open)), "the gallery is collapsed");
      await page.waitForTimeout(600);
      const link = page.url();
      await page.reload();
      await ready(page);
      check(page.url() === link && (await page.evaluate(() => document.body.classList.contains("presenting"))), "the URL keeps presentation mode across a reload");
      check((await syncCount(page)) === 2, "and the session");
      await page.screenshot({ path: join(artifacts, "19-presentation.png") });
      await page.click("#present");
      await page.waitForTimeout(600);
      check(!(await page.evaluate(() => document.body.classList.contains("presenting"))) && (await page.locator("#scenario-crashloop").isVisible()), "and off again, with the gallery open");
    });

    await section("timeline text is at least 14 px at default zoom", async (page) => {
      await scenario(page, "sidecar");
      await drive(page, "#startup-pass-log-shipper");
      const small = await page.evaluate(() => {
        const out = [];
        for (const el of document.querySelectorAll("#timeline-body *")) {
          if (el.closest(".sr-only") || !el.getClientRects().length) continue;
          if (![...el.childNodes].some((c) => c.nodeType === 3 && c.textContent.trim())) continue;
          const f = parseFloat(getComputedStyle(el).fontSize);
          if (f < 14) out.push(`${el.className || el.tagName} ${f}px`);
        }
        return out;
      });
      check(small.length === 0, `every text of the timeline and its key is ≥ 14 px${small.length ? `: ${small.slice(0, 5).join("; ")}` : ""}`);
      check((await page.locator("#timeline-key li").count()) >= 5, "the timeline has a key to its marks");
    });

    // Screenshots at phone, tablet and laptop widths, each view checked for horizontal
    // overflow; a tablet shows the timeline above the fold; phones keep table labels.
    const shots = [];
    for (const [w, hgt] of [
      [390, 844],
      [768, 1024],
      [1366, 768],
    ]) {
      const name = `views ${w}x${hgt}`;
      console.log(name);
      const vctx = await browser.newContext({ viewport: { width: w, height: hgt } });
      const page = await vctx.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      try {
        await page.route("**/*", (route) => (route.request().url().startsWith(srv.url) || route.request().url().startsWith("data:") ? route.continue() : route.abort()));
        await page.goto(srv.url);
        await ready(page);
        const fold = await page.evaluate(() => {
          const r = document.getElementById("timeline").getBoundingClientRect();
          return { top: Math.round(r.top), bottom: Math.round(r.bottom), h: innerHeight };
        });
        if (w === 768) check(fold.bottom <= fold.h, `${name}: the timeline is above the fold (${JSON.stringify(fold)})`);
        await page.click("#scenario-crashloop");
        await page.waitForFunction(() => document.querySelectorAll(".syncbtn").length === 1);
        for (const sel of ["#exit-worker", "#exit-worker", "#advance-backoff"]) {
          const b = await syncCount(page);
          await page.click(sel);
          await page.waitForFunction((n) => document.querySelectorAll(".syncbtn").length === n + 1, b);
        }
        for (const tab of ["decisions", "status", "describe", "watch", "events"]) {
          await page.click(`#tab-${tab}`);
          await page.mouse.move(0, 0);
          const over = await page.evaluate(() => document.scrollingElement.scrollWidth - innerWidth);
          check(over <= 0, `${name} ${tab}: no horizontal overflow (scrollWidth − innerWidth = ${over}px)`);
          const file = join(artifacts, `view-${w}-${tab}.png`);
          await page.screenshot({ path: file, fullPage: true });
          shots.push(file);
          if (tab === "status" && w === 390) {
            const labels = await page.evaluate(() =>
              [...document.querySelectorAll("#tabpanel table.events td, #tabpanel table.kubectl-row td")].filter((td) => td.getClientRects().length).map((td) => ({
                label: td.dataset.label,
                shown: getComputedStyle(td, "::before").content,
              })),
            );
            const bad = labels.filter((l) => !l.label || l.shown !== `"${l.label}: "`);
            check(labels.length > 10 && bad.length === 0, `${name}: every Status-tab cell shows its column's name on a phone (${labels.length} cells${bad.length ? `; unlabelled: ${bad.length}` : ""})`);
          }
        }
      } catch (e) {
        check(false, `${name}: ${e.message.split("\n")[0]}`);
      } finally {
        await vctx.close();
      }
    }
    console.log(`  view screenshots: ${shots.length} in ${artifacts}`);

    check(errors.length === 0, `no page errors${errors.length ? `: ${errors.join(" | ")}` : ""}`);
  } finally {
    await browser.close();
    await srv.close();
  }
  console.log(`\n${passes} passed, ${failures} failed; screenshots in ${artifacts}`);
  process.exit(failures ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
