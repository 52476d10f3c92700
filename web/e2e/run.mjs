// End-to-end check of the built playground (web/dist) in real headless Chromium.
//
//   npm run e2e            (builds first; see package.json)
//   CHROMIUM=/path node e2e/run.mjs
//   E2E_URL=http://127.0.0.1:8137/ node e2e/run.mjs   (test a running `podplan playground`)
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
  const section = async (name, body) => {
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
    });

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
      check((await page.evaluate(() => document.activeElement?.id)) === "tab-steps", "arrow keys move between detail tabs");
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
