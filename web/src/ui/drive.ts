// The runtime panel: what the simulated runtime holds after the selected sync, and the
// things the user can make happen to it. Every action runs the next sync.

import type { SessionAction, SyncRecord } from "../session";
import { findContainer, liveContainer, specContainers, type ContainerKind } from "../containers";
import { isError } from "../engine";
import { iso, nextBackoffExpiry } from "../sim";
import { h, idPart } from "./dom";
import { deleted, noSyncAfter, terminalPhase, waitingReason, workerEnd } from "./status";
import type { Plan, SimEvent } from "../../../wasm/types/podplan";

export interface DriveContext {
  sync: SyncRecord;
  first: SyncRecord;
  last: number;
  /** Remembered input values, by input id. */
  inputs: Record<string, string>;
  /** Why the runtime model could not be loaded (the selected sync stays pending). */
  runtimeError?: string;
  act: (a: SessionAction) => void;
  /** "Run until stable": the PLEG syncs that follow the selected sync. */
  settle: () => void;
  goLatest: () => void;
}

const KIND_LABEL: Record<ContainerKind, string> = { init: "init", sidecar: "sidecar", regular: "container", ephemeral: "ephemeral" };

function defaultExitCode(kind: ContainerKind): string {
  return kind === "init" || kind === "ephemeral" ? "0" : "1";
}

function numberInput(ctx: DriveContext, id: string, label: string, fallback: string, onEnter: () => void, attrs: Record<string, unknown> = {}) {
  return h("input", {
    id,
    type: "number",
    class: "num",
    inputmode: "numeric",
    "aria-label": label,
    value: ctx.inputs[id] ?? fallback,
    oninput: (e: Event) => {
      ctx.inputs[id] = (e.target as HTMLInputElement).value;
    },
    onkeydown: (e: KeyboardEvent) => {
      if (e.key === "Enter") {
        e.preventDefault();
        onEnter();
      }
    },
    ...attrs,
  });
}

function readInt(ctx: DriveContext, id: string, fallback: string, min: number, max: number): number | undefined {
  const raw = (ctx.inputs[id] ?? fallback).trim();
  if (!/^-?\d+$/.test(raw)) return undefined;
  const n = Number(raw);
  return n >= min && n <= max ? n : undefined;
}

export function renderDrive(ctx: DriveContext): HTMLElement[] {
  const { sync } = ctx;
  const state = sync.after;
  const pod = sync.pod;
  const out: HTMLElement[] = [];

  // Painted with the first-paint module: the controls need the runtime model.
  if (sync.pending) {
    return [
      ctx.runtimeError
        ? h("p", { id: "runtime-loading", class: "note warn", role: "alert" }, `The runtime model could not be loaded: ${ctx.runtimeError}`)
        : h("p", { id: "runtime-loading", class: "note", role: "status", "aria-busy": "true" }, "Loading the runtime model… (it carries out this plan; the controls follow)"),
    ];
  }

  if (sync.index !== ctx.last) {
    out.push(
      h(
        "p",
        { class: "note", role: "note" },
        `You are looking at sync #${sync.index} of ${ctx.last}. Acting here starts a new branch: ${sync.index + 1 === ctx.last ? `sync #${ctx.last} is` : `syncs #${sync.index + 1}–#${ctx.last} are`} replaced. `,
        h("button", { id: "go-latest", class: "linkish", onclick: ctx.goLatest }, "Go to the latest sync"),
      ),
    );
  }
  if (!pod || (isError(sync.answer) && sync.index === 0)) {
    out.push(h("p", { class: "note warn", role: "note" }, "The pod is not valid, so nothing runs yet. Fix it in the editor and press “Start over with this pod”."));
  }

  // A terminal pod (this sync's status phase Succeeded or Failed) gets no more syncs.
  const plan = isError(sync.answer) ? undefined : (sync.answer as Plan);
  const terminal = terminalPhase(plan);
  const isDeleted = deleted(sync.request);
  const end = workerEnd(plan, isDeleted);
  const noSync = noSyncAfter(plan, isDeleted);
  if (terminal) {
    out.push(
      h(
        "p",
        { id: "drive-terminal", class: "note warn drive-terminal", role: "note" },
        h("strong", null, `Terminal: phase ${terminal}. `),
        "The kubelet returns from SyncPod as soon as the status it generates is Succeeded or Failed, and syncs the pod no more: there is no next sync to run. ",
        "Edit the pod and “Start over”, or pick a scenario.",
      ),
    );
  }
  // The pod worker's termination (kubectl delete, eviction): what this sync was, what follows.
  if (end) {
    const evicted = plan?.status?.reason === "Evicted";
    const cause = isDeleted ? "deleted (kubectl delete)" : evicted ? "evicted" : "being terminated";
    out.push(
      h(
        "p",
        { id: "drive-worker", class: `note ${end.phase === "terminated" ? "warn" : ""} drive-worker`, role: "note", "data-worker-phase": end.phase },
        end.phase === "terminating"
          ? [
              h("strong", null, `Terminating: the pod was ${cause}. `),
              `This sync was the pod worker's SyncTerminatingPod: it stopped every container in the termination order (preStop hooks first, sidecars last) within the grace period${end.grace !== undefined ? ` of ${end.grace} s` : ""}, then the sandbox; nothing starts any more. `,
              sync.took ? `It took ${sync.took} s on the clock. ` : "",
              "The next sync (Resync, or Run until stable) is SyncTerminatedPod: the cleanup.",
            ]
          : [
              h("strong", null, end.gone ? "Removed. " : "Terminated. "),
              "This sync was SyncTerminatedPod: the pod's containers and sandbox are removed and its directories cleaned up. ",
              end.gone
                ? "The pod was deleted, so the API server now removes the pod object: kubectl get pods no longer lists it."
                : evicted
                  ? "An evicted pod is not deleted: it stays in the API with phase Failed, reason Evicted, until someone deletes it (its controller makes a new pod)."
                  : "The pod keeps its final status.",
              " Edit the pod and “Start over”, or pick a scenario.",
            ],
      ),
    );
  }

  // Clock
  const expiry = nextBackoffExpiry(state);
  const advance = () => {
    const s = readInt(ctx, "advance-by", "30", 0, 86_400);
    if (s !== undefined) ctx.act({ t: "advance", s });
  };
  out.push(
    h(
      "div",
      { class: "drive-group", role: "group", "aria-labelledby": "clock-h" },
      h("h3", { id: "clock-h" }, "Clock"),
      h("p", { class: "clock" }, h("strong", null, `t = ${Math.round((state.now - ctx.first.before.now) / 1000)} s`), " ", h("span", { class: "muted" }, iso(state.now))),
      h(
        "div",
        { class: "controls" },
        h(
          "button",
          {
            id: "advance-backoff",
            disabled: expiry === undefined || !pod || !!noSync,
            title: noSync ?? (expiry === undefined ? "No start is held back by a back-off (crash loop or image pull)" : undefined),
            onclick: () => expiry !== undefined && ctx.act({ t: "advance", s: expiry, why: "backoff" }),
          },
          expiry === undefined ? "Advance to back-off expiry" : `Advance to back-off expiry (+${expiry} s)`,
        ),
        h(
          "span",
          { class: "inline" },
          numberInput(ctx, "advance-by", "Seconds to advance the clock by", "30", advance, { min: "0", max: "86400" }),
          h("button", { id: "advance", disabled: !pod || !!noSync, title: noSync, onclick: advance }, "Advance (s)"),
        ),
        h("button", { id: "resync", disabled: !pod || !!noSync, onclick: () => ctx.act({ t: "sync" }), title: noSync ?? "Run the next sync without changing anything" }, "Resync"),
        h(
          "button",
          {
            id: "settle",
            disabled: !pod || !sync.changed || !!noSync,
            title: noSync ?? (sync.changed ? "Each sync that changes the runtime is followed at once by another (the kubelet's PLEG); at most 12" : "Stable: this sync changed nothing in the runtime, so the PLEG triggers no further sync"),
            onclick: ctx.settle,
          },
          "Run until stable",
        ),
      ),
      h(
        "p",
        { class: "small muted" },
        noSync
          ? `${noSync}.`
          : sync.changed
          ? "This sync changed the runtime: the kubelet's PLEG would sync again at once. “Run until stable” does so until nothing changes."
          : "Stable: this sync changed nothing in the runtime, so only a change you make (or the clock) triggers the next sync.",
      ),
    ),
  );

  // The pod: the API server deletes it (kubectl delete), the kubelet evicts it. Each is a
  // runtime-model event (`delete`, `evict`); the engine's next plan is the pod worker's
  // SyncTerminatingPod.
  const world = state.world;
  const beingDeleted = !!world.pod?.metadata?.deletionTimestamp;
  const beingKilled = !!world.podWorker?.kill;
  const podGrace = pod?.spec?.terminationGracePeriodSeconds ?? 30;
  const graceId = "delete-grace";
  const del = () => {
    const g = readInt(ctx, graceId, String(podGrace), 0, 86_400);
    if (g !== undefined && pod && !noSync && !beingDeleted) ctx.act({ t: "delete", g });
  };
  const deleteWhy = noSync ?? (!pod ? "There is no valid pod" : beingDeleted ? "The pod is already being deleted" : undefined);
  const evictWhy = noSync ?? (!pod ? "There is no valid pod" : beingKilled ? "The pod is already being killed" : beingDeleted ? "The pod is being deleted: the eviction manager only evicts active pods" : undefined);
  // Readiness gates: a controller (not the kubelet) sets each gate's condition in the
  // pod's status (the runtime model's `setCondition` event); the kubelet's status manager
  // reads it to compute Ready.
  const readinessGates = () => {
    const gates = pod?.spec?.readinessGates ?? [];
    if (!gates.length) return null;
    const conditions = world.pod?.status?.conditions ?? [];
    return h(
      "ul",
      { class: "gates", "aria-label": "Readiness gates" },
      gates.map((g, i) => {
        const t = g.conditionType;
        const current = conditions.find((c) => c.type === t)?.status;
        const set = (status: "True" | "False") => ctx.act({ t: "events", e: [{ type: "setCondition", condition: t, status }] });
        return h(
          "li",
          { "data-gate": t },
          "readiness gate ",
          h("code", null, t),
          ": ",
          h("span", { id: `gate-status-${i}`, class: `pill ${current === "True" ? "ok" : current === "False" ? "bad" : ""}` }, current ?? "no condition"),
          " ",
          h("button", { id: `gate-true-${i}`, disabled: !!noSync || current === "True", title: noSync ?? `A controller sets the condition ${t} to True in the pod's status: with every container ready, the kubelet reports Ready`, onclick: () => set("True") }, "set True"),
          h("button", { id: `gate-false-${i}`, disabled: !!noSync || current === "False", title: noSync ?? `A controller sets the condition ${t} to False: the kubelet reports Ready=False (ReadinessGatesNotReady)`, onclick: () => set("False") }, "set False"),
        );
      }),
    );
  };
  out.push(
    h(
      "div",
      { class: "drive-group", role: "group", "aria-labelledby": "pod-h" },
      h("h3", { id: "pod-h" }, "Pod"),
      h(
        "p",
        { class: "small muted" },
        beingDeleted
          ? `Deleted: deletionTimestamp ${world.pod?.metadata?.deletionTimestamp}, grace period ${world.pod?.metadata?.deletionGracePeriodSeconds ?? "?"} s.`
          : beingKilled
            ? `Being evicted: ${world.podWorker?.kill?.message ?? ""}`
            : "“Delete pod” is kubectl delete: the API server sets deletionTimestamp and the kubelet terminates the pod (Terminating). “Evict pod” is the kubelet's eviction manager under memory pressure (phase Failed, reason Evicted, grace 1 s).",
      ),
      h(
        "div",
        { class: "controls" },
        h(
          "span",
          { class: "inline", role: "group", "aria-label": "Delete the pod" },
          h("label", { for: graceId, class: "small" }, "grace period (s)"),
          numberInput(ctx, graceId, "Grace period of the delete, seconds", String(podGrace), del, { min: "0", max: "86400", disabled: !!deleteWhy }),
          h("button", { id: "delete-pod", disabled: !!deleteWhy, title: deleteWhy ?? "kubectl delete pod --grace-period=N: the kubelet runs the preStop hooks, sends SIGTERM, and SIGKILL when the grace period is over", onclick: del }, "Delete pod"),
        ),
        h("button", { id: "evict-pod", disabled: !!evictWhy, title: evictWhy ?? "The eviction manager evicts the pod (node low on memory): phase Failed, reason Evicted, its containers stopped with a 1 s grace period", onclick: () => ctx.act({ t: "evict" }) }, "Evict pod"),
      ),
      readinessGates(),
    ),
  );

  // Sandbox
  const sb = state.runtime.sandboxStatuses[0];
  const ready = sb?.state === "SANDBOX_READY";
  out.push(
    h(
      "div",
      { class: "drive-group", role: "group", "aria-labelledby": "sandbox-h" },
      h("h3", { id: "sandbox-h" }, "Sandbox"),
      sb
        ? h(
            "p",
            { class: "sandbox-line" },
            h("code", null, sb.id),
            ` attempt ${sb.metadata?.attempt ?? 0} · `,
            h("span", { class: `pill ${ready ? "ok" : "bad"}` }, ready ? "ready" : "not ready"),
            ` · IP ${sb.network ? sb.network.ip || "(none)" : "(not reported)"}`,
          )
        : h("p", { class: "muted" }, "No sandbox."),
      h(
        "div",
        { class: "controls" },
        h("button", { id: "sandbox-die", disabled: !ready || !!noSync, title: noSync, onclick: () => ctx.act({ t: "sandboxDie" }) }, "Sandbox dies"),
        h("button", { id: "sandbox-noip", disabled: !ready || !sb?.network?.ip || !!noSync, title: noSync, onclick: () => ctx.act({ t: "sandboxNoIp" }) }, "Sandbox loses its IP"),
      ),
    ),
  );

  // Images: the model registry's "pull fails" control (podplan's pullFails / pullWorks
  // events). A fault turns the image manager on; the kubelet then shows ErrImagePull,
  // ImagePullBackOff and the retries.
  const images = pod ? [...new Set(specContainers(pod).map(({ name }) => findContainer(pod, name)?.spec?.image).filter((i): i is string => !!i))] : [];
  const registry = state.world.images?.registry ?? {};
  // How long a pull of the image takes (the world's `pullSeconds`; the model's default
  // is 1.5 s): the sync waits for the pull, so the clock moves by it.
  const pullTakes = (image: string, i: number) => {
    const inputId = `pull-s-${i}`;
    const current = state.hooks.pullSeconds?.[image];
    const set = () => {
      const sec = readInt(ctx, inputId, String(current ?? 30), 0, 86_400);
      if (sec !== undefined && !noSync) ctx.act({ t: "events", e: [{ type: "pullTakes", image, seconds: sec }] });
    };
    return h(
      "span",
      { class: "inline probe", role: "group", "aria-label": `Pull time of ${image}` },
      h("span", { class: "probe-label" }, " pull takes: ", h("span", { class: "pill", id: `pull-time-${i}` }, current === undefined ? "1.5 s" : `${current} s`)),
      numberInput(ctx, inputId, `Seconds a pull of ${image} takes`, String(current ?? 30), set, { min: "0", max: "86400", disabled: !!noSync }),
      h(
        "button",
        {
          id: `pull-takes-${i}`,
          disabled: !!noSync,
          title: noSync ?? "From now on a successful pull of this image takes this long (a failed one half a second): the kubelet pulls inside the sync, so the clock moves by the pull",
          "aria-label": `A pull of ${image} takes that many seconds`,
          onclick: set,
        },
        "pull takes (s)",
      ),
    );
  };
  const imageRows = images.map((image, i) => {
    const fault = registry[image];
    const act = (e: SimEvent) => ctx.act({ t: "events", e: [e] });
    return h(
      "li",
      { "data-image": image },
      h("code", null, image),
      " ",
      h("span", { class: `pill ${fault ? "bad" : "ok"}` }, fault ? (fault.fault === "notFound" ? "not found" : "registry down") : "pulls work"),
      " ",
      h("button", { id: `pull-down-${i}`, disabled: !!noSync || fault?.fault === "registryDown", title: noSync ?? "Every pull of this image fails: the registry cannot be reached", onclick: () => act({ type: "pullFails", image, fault: "registryDown" }) }, "registry down"),
      h("button", { id: `pull-notfound-${i}`, disabled: !!noSync || fault?.fault === "notFound", title: noSync ?? "Every pull of this image fails: the registry has no such image", onclick: () => act({ type: "pullFails", image, fault: "notFound" }) }, "not found"),
      h("button", { id: `pull-works-${i}`, disabled: !!noSync || !fault, title: noSync ?? "Pulls of this image work again", onclick: () => act({ type: "pullWorks", image }) }, "pulls work"),
      h("button", { id: `pull-remove-${i}`, disabled: !!noSync || !state.world.images, title: noSync ?? (state.world.images ? "Image garbage collection removes the image from the node: the next start pulls it (IfNotPresent)" : "The image manager is off until a pull fault is set"), onclick: () => act({ type: "removeImage", image }) }, "remove from node"),
      pullTakes(image, i),
    );
  });
  out.push(
    h(
      "div",
      { class: "drive-group", role: "group", "aria-labelledby": "images-h" },
      h("h3", { id: "images-h" }, "Images"),
      h(
        "p",
        { class: "small muted" },
        state.world.images
          ? `On the node: ${Object.keys(state.world.images.present ?? {}).join(", ") || "none"}. A failed pull shows ErrImagePull, then ImagePullBackOff (10 s, 20 s, … up to 5 min) until a retry succeeds.`
          : "Every image counts as present (the image manager is off) until a pull fault is set.",
      ),
      images.length ? h("ul", { class: "images" }, imageRows) : h("p", { class: "muted" }, "No images."),
    ),
  );

  // Containers
  const names = pod ? specContainers(pod) : [];
  const rows = names.map(({ name, kind }) => {
    const live = liveContainer(state, name);
    const newest = state.runtime.containerStatuses.find((c) => c.name === name);
    const spec = pod ? findContainer(pod, name)?.spec : undefined;
    const probes = live?.id ? state.probes[live.id] : undefined;
    const key = idPart(name);
    const exitId = `exit-code-${key}`;
    const exit = () => {
      const code = readInt(ctx, exitId, defaultExitCode(kind), 0, 255);
      if (code !== undefined && live && !noSync) ctx.act({ t: "exit", c: name, code });
    };
    // kubectl's waiting reason for a container that is not running (CrashLoopBackOff,
    // CreateContainerConfigError, PodInitializing, …), next to the runtime's state.
    const waiting = newest?.state === "running" ? undefined : waitingReason(plan, name);
    const runtimeText = newest ? (newest.state === "exited" ? `exited (${newest.exitCode ?? 0})` : newest.state) : "not created";
    const stateText = waiting ? `${waiting.reason}${newest ? ` · ${runtimeText}` : ""}` : runtimeText;
    // Only what the kubelet's prober can produce (the runtime model refuses the rest):
    // results of declared probes of a running container; liveness and readiness only
    // once the startup probe (if any) has succeeded; no startup result after that.
    const started = !spec?.startupProbe || probes?.startup === "success";
    const probeControls = (p: "startup" | "liveness" | "readiness") => {
      if (!spec?.[`${p}Probe`]) return null;
      const current = probes?.[p] ?? undefined;
      const why = noSync
        ? noSync
        : !live
        ? `${name} is not running: its probes have no results`
        : p === "startup" && started
          ? "the startup probe has succeeded: the kubelet no longer runs it"
          : p !== "startup" && !started
            ? `the kubelet runs the ${p} probe only after the startup probe has succeeded`
            : undefined;
      const hint = p === "readiness" ? h("span", { class: "small muted probe-hint" }, " (never restarts: a failing readiness probe only marks the container not ready)") : null;
      return h(
        "span",
        { class: "probe", role: "group", "aria-label": `${p} probe of ${name}` },
        h("span", { class: "probe-label" }, `${p}: `, h("span", { class: `pill ${current === "success" ? "ok" : current === "failure" ? "bad" : ""}` }, current ?? "no result")),
        h("button", { id: `${p}-pass-${key}`, disabled: !!why || current === "success", title: why, "aria-label": `${p} probe of ${name} passes`, onclick: () => ctx.act({ t: "probe", c: name, p, r: "success" }) }, "pass"),
        h("button", { id: `${p}-fail-${key}`, disabled: !!why, title: why, "aria-label": `${p} probe of ${name} fails`, onclick: () => ctx.act({ t: "probe", c: name, p, r: "failure" }) }, "fail"),
        hint,
        why && live && !noSync ? h("span", { class: "small muted probe-why" }, ` ${why}.`) : null,
      );
    };
    // How long the container takes to exit after SIGTERM (the world's `exitSeconds`): a
    // container that ignores SIGTERM is killed (SIGKILL) when its stop's grace period ends.
    const stopControl = () => {
      const stopId = `stop-s-${key}`;
      const current = state.hooks.exitSeconds?.[name];
      const set = () => {
        const sec = readInt(ctx, stopId, String(current ?? 60), 0, 86_400);
        if (sec !== undefined && !noSync) ctx.act({ t: "stopTakes", c: name, s: sec });
      };
      return h(
        "span",
        { class: "inline probe", role: "group", "aria-label": `Stop of ${name}` },
        h("span", { class: "probe-label" }, "after SIGTERM: ", h("span", { class: "pill" }, current === undefined ? "exits at once" : `exits after ${current} s`)),
        numberInput(ctx, stopId, `Seconds ${name} takes to exit after SIGTERM`, String(current ?? 60), set, { min: "0", max: "86400", disabled: !!noSync }),
        h(
          "button",
          {
            id: `stop-${key}`,
            disabled: !!noSync,
            title: noSync ?? "From now on the container takes this long to exit after a stop's SIGTERM; exiting on SIGTERM it reports exit code 143; longer than the stop's grace period, the runtime kills it (SIGKILL, exit 137)",
            "aria-label": `${name} takes that many seconds to exit after SIGTERM`,
            onclick: set,
          },
          "exits after (s)",
        ),
      );
    };
    // The world's hook behaviour: the runtime model runs the plan's hook steps with it.
    const hookControls = () => {
      const out: (HTMLElement | null)[] = [];
      if (spec?.lifecycle?.postStart) {
        const fails = (state.hooks.postStartFails ?? []).includes(name);
        out.push(
          h(
            "span",
            { class: "probe", role: "group", "aria-label": `postStart hook of ${name}` },
            h("span", { class: "probe-label" }, "postStart: ", h("span", { class: `pill ${fails ? "bad" : "ok"}` }, fails ? "fails" : "succeeds")),
            h(
              "button",
              {
                id: `poststart-${key}`,
                disabled: !!noSync,
                title: noSync ?? (fails ? "The hook succeeds from now on" : "The hook fails from now on: the kubelet kills the container after its start (FailedPostStartHook) and the start fails with PostStartHookError"),
                "aria-label": `postStart hook of ${name} ${fails ? "succeeds" : "fails"} from now on`,
                onclick: () => ctx.act({ t: "postStartFails", c: name, f: !fails }),
              },
              fails ? "make it succeed" : "postStart fails",
            ),
          ),
        );
      }
      if (spec?.lifecycle?.preStop) {
        const preStopId = `prestop-s-${key}`;
        const current = state.hooks.preStopSeconds?.[name];
        const set = () => {
          const sec = readInt(ctx, preStopId, String(current ?? 10), 0, 86_400);
          if (sec !== undefined && !noSync) ctx.act({ t: "preStopTakes", c: name, s: sec });
        };
        out.push(
          h(
            "span",
            { class: "inline probe", role: "group", "aria-label": `preStop hook of ${name}` },
            h("span", { class: "probe-label" }, "preStop: ", h("span", { class: "pill" }, current === undefined ? "default" : `${current} s`)),
            numberInput(ctx, preStopId, `Seconds the preStop hook of ${name} runs`, String(current ?? 10), set, { min: "0", max: "86400", disabled: !!noSync }),
            h(
              "button",
              {
                id: `prestop-${key}`,
                disabled: !!noSync,
                title: noSync ?? "From now on the preStop hook runs this long before each stop: the kubelet waits at most the grace period and StopContainer gets what is left (at least 2 s)",
                "aria-label": `preStop hook of ${name} takes that many seconds`,
                onclick: set,
              },
              "preStop takes (s)",
            ),
          ),
        );
      }
      return out;
    };
    return h(
      "tr",
      { "data-container": name },
      h("th", { scope: "row" }, h("span", { class: `kind kind-${kind}` }, KIND_LABEL[kind]), " ", h("span", { class: "cname" }, name)),
      h(
        "td",
        null,
        h("span", { class: `pill st-${waiting ? "waiting" : (newest?.state ?? "none")}`, title: waiting ? `waiting: ${waiting.reason}${waiting.message ? ` — ${waiting.message}` : ""}; runtime: ${runtimeText}` : undefined }, stateText),
        newest ? h("span", { class: "muted small" }, ` ↻${newest.restartCount ?? 0} · `, h("code", null, newest.id)) : null,
      ),
      h(
        "td",
        { class: "actions" },
        h(
          "span",
          { class: "inline", role: "group", "aria-label": `Make ${name} exit` },
          h("label", { for: exitId, class: "small" }, "exit code"),
          numberInput(ctx, exitId, `Exit code for ${name}`, defaultExitCode(kind), exit, { min: "0", max: "255", disabled: !live || !!noSync }),
          h("button", { id: `exit-${key}`, disabled: !live || !!noSync, title: noSync, "aria-label": `Make ${name} exit with that code`, onclick: exit }, "Exit"),
        ),
        h(
          "button",
          {
            id: `oom-${key}`,
            disabled: !live || !!noSync,
            title: noSync ?? (live ? "The kernel's OOM killer kills it: exit code 137, reason OOMKilled" : `${name} is not running`),
            "aria-label": `OOM-kill ${name}`,
            onclick: () => live && !noSync && ctx.act({ t: "oom", c: name }),
          },
          "OOM-kill",
        ),
        stopControl(),
        probeControls("startup"),
        probeControls("liveness"),
        probeControls("readiness"),
        ...hookControls(),
      ),
    );
  });
  out.push(
    h(
      "div",
      { class: "drive-group", role: "group", "aria-labelledby": "containers-h" },
      h("h3", { id: "containers-h" }, "Containers"),
      rows.length
        ? h(
            "table",
            { class: "containers" },
            h("thead", null, h("tr", null, h("th", { scope: "col" }, "Container"), h("th", { scope: "col" }, "Runtime state"), h("th", { scope: "col" }, "Make something happen"))),
            h("tbody", null, rows),
          )
        : h("p", { class: "muted" }, "No containers."),
    ),
  );
  return out;
}
