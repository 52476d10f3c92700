// The playground page: wires the editor, timeline, runtime controls and sync details to
// the session, and keeps the session in the URL hash.

import "./style.css";
import { admitted } from "./defaults";
import { isError, loadEngine, loadRuntime, RUNTIME_LOADING, type Engine } from "./engine";
import { convertText, locatePath, parsePodText, type Format } from "./podtext";
import { DEFAULT_SCENARIO, SCENARIOS, scenarioById, scenarioText } from "./scenarios";
import { describeAction, next, plannedFirstSync, plansOnly, replay, settle, SETTLE_MAX_SYNCS, type Session, type SessionAction, type SyncRecord } from "./session";
import { decodeShare, encodeShare } from "./share";
import { buildRequest } from "./sim";
import { h, replaceChildren } from "./ui/dom";
import { renderDetails, type ConfigForm, type TabId } from "./ui/details";
import { renderDrive } from "./ui/drive";
import { createEditor, type PodEditor } from "./ui/editor";
import { continuation, renderTimeline, seconds } from "./ui/timeline";
import { deleted, noSyncAfter } from "./ui/status";
import { specContainers } from "./containers";
import type { PullFault, SimEvent } from "../../wasm/types/podplan";

interface AppState {
  /** The first-paint engine (plans only) until the runtime model has loaded, then the full one. */
  engine: Engine;
  /** Why the runtime model could not be loaded, if it could not. */
  runtimeError?: string;
  session: Session;
  syncs: SyncRecord[];
  selected: number;
  tab: TabId;
  configForm: ConfigForm;
  inputs: Record<string, string>;
  /** The pod text in force at the selected sync (the editor is "dirty" when it differs). */
  editorBase: string;
  editor?: PodEditor;
  /** The last hash this page wrote, to tell our own updates from pasted links. */
  writtenHash: string;
  /** A share link that could not be read: kept in the address bar until the user acts. */
  brokenLink?: string;
  /** Presentation mode: bigger text, gallery collapsed (kept in the share link). */
  present: boolean;
}

const $ = (id: string) => document.getElementById(id)!;
let app: AppState;

function last(): number {
  return app.syncs.length - 1;
}

function current(): SyncRecord {
  return app.syncs[app.selected]!;
}

function dirty(): boolean {
  return !!app.editor && app.editor.getText() !== app.editorBase;
}

function freshSession(id: string, format: Format): Session {
  const sc = scenarioById(id) ?? scenarioById(DEFAULT_SCENARIO)!;
  return { scenario: sc.id, format, pod: scenarioText(sc.id, format)!, gates: { ...(sc.gates ?? {}) }, actions: [], ...(sc.before?.length ? { before: structuredClone(sc.before) } : {}) };
}

// ---------------------------------------------------------------------------------------
// The runtime model, loaded after the first paint

/** Settles once the full engine is in `app.engine` (or could not be loaded); started once. */
let runtimeReady: Promise<void> | undefined;

/**
 * Loads the full module (the runtime model, crictl), then replays the session with it: the
 * first sync, planned at first paint, is carried out, and the page shows it.
 */
async function startRuntime(): Promise<void> {
  const full = await loadRuntime();
  if (!full.ok) {
    app.runtimeError = full.reason;
    render();
    return;
  }
  app.engine = full.engine;
  const selected = app.selected;
  app.syncs = replay(app.engine, app.session);
  app.selected = Math.min(selected, last());
  render();
  validateSoon(0);
}

/** Runs `then` once the runtime model is there (at once when it is); says it is loading meanwhile. */
function withRuntime(then: () => void) {
  if (app.engine.runtime) return then();
  announce(`${RUNTIME_LOADING[0]!.toUpperCase()}${RUNTIME_LOADING.slice(1)}`);
  void (runtimeReady ??= startRuntime()).then(() => {
    if (app.engine.runtime) then();
  });
}

/** The syncs of a session: replayed, or its first sync planned while the runtime model loads. */
function syncsOf(session: Session): SyncRecord[] {
  return app.engine.runtime ? replay(app.engine, session) : [plannedFirstSync(app.engine, session)];
}

// ---------------------------------------------------------------------------------------
// Session changes

function setSession(session: Session, selected?: number, draft?: string, push = false) {
  if (!app.engine.runtime && !plansOnly(session)) return withRuntime(() => setSession(session, selected, draft, push));
  app.brokenLink = undefined;
  app.session = session;
  app.syncs = syncsOf(session);
  app.selected = selected !== undefined && selected >= 0 && selected <= last() ? selected : last();
  app.editorBase = current().podText;
  app.editor?.setFormat(session.format);
  app.editor?.setText(draft ?? app.editorBase);
  render();
  validateSoon(0);
  void saveHash(push);
}

/** Whether the session differs from its gallery scenario as it starts (actions, edits). */
function modified(): boolean {
  const s = app.session;
  return s.actions.length > 0 || dirty() || s.pod !== scenarioText(s.scenario, s.format);
}

/** A gallery choice: a new history entry when it replaces a modified session, so Back returns to it. */
function chooseScenario(id: string) {
  const wasModified = modified();
  setSession(freshSession(id, app.session.format), undefined, undefined, wasModified);
  if (wasModified) announce("Your previous session is kept in the browser history: press Back to return to it.");
  renderUndo(wasModified);
}

function renderUndo(show: boolean) {
  const el = document.getElementById("gallery-undo");
  if (!el) return;
  replaceChildren(el, ...(show ? [h("span", null, "The previous session is one step back in your browser's history. "), h("button", { id: "undo-scenario", class: "linkish", onclick: () => history.back() }, "Go back to it")] : []));
}

/** "Run until stable": the PLEG syncs after the selected sync, as one step of the session. */
function settleNow() {
  if (!app.engine.runtime) return withRuntime(settleNow);
  if (app.selected < last()) {
    app.session.actions = app.session.actions.slice(0, app.selected);
    app.syncs = app.syncs.slice(0, app.selected + 1);
  }
  const more = settle(app.engine, current(), app.session);
  for (const s of more) {
    app.session.actions.push({ t: "pleg" });
    app.syncs.push(s);
  }
  app.selected = last();
  app.editorBase = current().podText;
  if (!dirty()) app.editor?.setText(app.editorBase);
  render();
  const stable = !current().changed;
  announce(`${more.length} PLEG sync(s). ${stable ? "Stable: the last sync changed nothing." : `Not stable after ${SETTLE_MAX_SYNCS} syncs.`}`);
  validateSoon(0);
  void saveHash();
}

function act(action: SessionAction) {
  if (!app.engine.runtime) return withRuntime(() => act(action));
  if (app.selected < last()) {
    app.session.actions = app.session.actions.slice(0, app.selected);
    app.syncs = app.syncs.slice(0, app.selected + 1);
  }
  app.brokenLink = undefined;
  app.session.actions.push(action);
  app.syncs.push(next(app.engine, app.syncs[last()]!, action, app.session));
  const keepDraft = dirty() && action.t !== "edit";
  app.selected = last();
  app.editorBase = current().podText;
  if (!keepDraft) app.editor?.setText(app.editorBase);
  render();
  announce(`Sync #${app.selected}: ${describeAction(action)}. ${summary(current())}`);
  validateSoon(0);
  saveHash();
}

function select(i: number) {
  if (i < 0 || i > last()) return;
  const wasDirty = dirty();
  app.selected = i;
  app.editorBase = current().podText;
  if (!wasDirty) app.editor?.setText(app.editorBase);
  render();
  validateSoon(0);
  saveHash();
}

/** Why no further sync can follow the selected one: its status phase is terminal, or the pod worker is done with it. */
function noSyncReason(): string | undefined {
  const sync = current();
  const why = isError(sync.answer) ? undefined : noSyncAfter(sync.answer, deleted(sync.request));
  return why ? `${why}, so a spec change leads to no sync. “Start over” makes this pod the starting one.` : undefined;
}

function summary(sync: SyncRecord): string {
  if (isError(sync.answer)) return `The engine refused it: ${sync.answer.error.message}`;
  const d = sync.answer.decisions ?? [];
  return d.length ? d.map((x) => x.message).join(" ") : `${sync.applied.length} runtime change(s).`;
}

// ---------------------------------------------------------------------------------------
// URL hash

/** The share payload of what the page shows (session, selected sync, draft, tab, presentation). */
function sharePayload(): Promise<string> {
  return encodeShare(
    {
      session: app.session,
      selected: app.selected === last() ? undefined : app.selected,
      draft: dirty() ? app.editor!.getText() : undefined,
      tab: app.tab === "decisions" ? undefined : app.tab,
      present: app.present || undefined,
    },
    scenarioText(app.session.scenario, app.session.format),
  );
}

/** The share link of what the page shows (never a link that could not be read). */
async function shareLink(): Promise<string> {
  return `${location.href.split("#")[0]}#s=${await sharePayload()}`;
}

let hashSeq = 0;
async function saveHash(push = false) {
  // A link that could not be read stays in the address bar until the user acts.
  if (app.brokenLink !== undefined) return;
  const seq = ++hashSeq;
  const payload = await sharePayload();
  if (seq !== hashSeq) return;
  app.writtenHash = `#s=${payload}`;
  if (location.hash !== app.writtenHash) {
    if (push) history.pushState(null, "", app.writtenHash);
    else history.replaceState(null, "", app.writtenHash);
  }
}

type FromHash = { session: Session; selected?: number; draft?: string; tab?: string; present?: boolean } | { broken: string } | undefined;

async function sessionFromHash(): Promise<FromHash> {
  if (!location.hash || location.hash === "#") return undefined;
  const m = /^#s=(.+)$/.exec(location.hash);
  if (!m) return /^#s=?$/.test(location.hash) ? { broken: location.hash } : undefined;
  return (await decodeShare(m[1]!, scenarioText)) ?? { broken: location.hash };
}

const TAB_IDS: TabId[] = ["decisions", "status", "describe", "watch", "steps", "configs", "events", "json"];
function tabOf(t: string | undefined): TabId | undefined {
  return TAB_IDS.find((x) => x === t);
}

/** Says that the share link could not be read, and keeps it for copying. */
function renderBrokenLink() {
  const el = $("link-error");
  if (app.brokenLink === undefined) {
    el.hidden = true;
    el.replaceChildren();
    return;
  }
  el.hidden = false;
  replaceChildren(
    el,
    h("strong", null, "This share link could not be read"),
    " — it may be truncated or edited. The page shows the default scenario instead; the link stays in the address bar until you change something, and here:",
    h("label", { for: "broken-link", class: "sr-only" }, "The link that could not be read"),
    h("input", { id: "broken-link", type: "text", readonly: true, value: location.href, spellcheck: "false" }),
  );
}

/** Presentation mode on the page: a class on <body>, the toggle's pressed state. */
function applyPresent() {
  document.body.classList.toggle("presenting", app.present);
  const btn = $("present");
  btn.setAttribute("aria-pressed", app.present ? "true" : "false");
  btn.textContent = app.present ? "Leave presentation mode" : "Presentation mode";
}

function setPresent(on: boolean) {
  app.present = on;
  applyPresent();
  render();
  announce(on ? "Presentation mode: bigger text, the gallery collapsed." : "Presentation mode off.");
  void saveHash();
}

// ---------------------------------------------------------------------------------------
// Editor validation

let validateTimer: ReturnType<typeof setTimeout> | undefined;
function validateSoon(ms = 250) {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(validate, ms);
}

/** Checks the editor text: syntax first, then the engine, against the selected sync's runtime. */
function validate(): boolean {
  const editor = app.editor;
  if (!editor) return false;
  const text = editor.getText();
  const status = $("editor-status");
  const parsed = parsePodText(text, app.session.format);
  const isDirty = text !== app.editorBase;
  $("apply").toggleAttribute("disabled", !isDirty || !!noSyncReason());
  $("revert").toggleAttribute("disabled", !isDirty);
  if (!parsed.ok) {
    editor.setErrors(parsed.errors);
    status.className = "editor-status bad";
    status.textContent = parsed.errors[0]!.message;
    return false;
  }
  const answer = app.engine.plan(buildRequest(current().after, admitted(parsed.pod), app.session.gates));
  if (isError(answer)) {
    const e = answer.error;
    const at = locatePath(parsed.doc, e.path);
    editor.setErrors([{ from: at?.from ?? 0, to: at?.to ?? Math.min(1, text.length), message: `${e.message}${e.path ? ` (${e.path})` : ""}` }]);
    status.className = "editor-status bad";
    status.textContent = `${e.kind}${e.path ? ` at ${e.path}` : ""}: ${e.message}`;
    return false;
  }
  editor.setErrors([]);
  status.className = "editor-status ok";
  const noSync = noSyncReason();
  status.textContent = noSync
    ? noSync
    : isDirty
    ? `Valid. “Apply change” runs sync #${app.selected + 1} with this spec; “Start over” makes it the starting pod.`
    : `The pod in force at sync #${app.selected}. Edit it and apply to see how the kubelet reacts.`;
  return true;
}

function applyEdit() {
  if (!dirty() || noSyncReason()) return;
  if (!validate()) {
    $("editor-status").focus();
    return;
  }
  act({ t: "edit", pod: app.editor!.getText() });
}

function startOver() {
  const text = app.editor!.getText();
  const parsed = parsePodText(text, app.session.format);
  if (!parsed.ok) {
    validate();
    return;
  }
  const same = text === scenarioText(app.session.scenario, app.session.format);
  setSession({ scenario: same ? app.session.scenario : "custom", format: app.session.format, pod: text, gates: app.session.gates, actions: [], ...(app.session.before?.length ? { before: app.session.before } : {}) });
  announce("Started over with the pod in the editor.");
}

function switchFormat(to: Format) {
  const from = app.session.format;
  if (from === to) return;
  const draft = convertText(app.editor!.getText(), from, to);
  if (draft === undefined) {
    $("editor-status").textContent = `Fix the ${from.toUpperCase()} errors before switching to ${to.toUpperCase()}.`;
    render();
    return;
  }
  const conv = (t: string) => convertText(t, from, to) ?? t;
  const s = app.session;
  const session: Session = {
    ...s,
    format: to,
    pod: s.scenario !== "custom" && s.pod === scenarioText(s.scenario, from) ? scenarioText(s.scenario, to)! : conv(s.pod),
    actions: s.actions.map((a) => (a.t === "edit" ? { ...a, pod: conv(a.pod) } : a)),
  };
  const wasDirty = dirty();
  setSession(session, app.selected, wasDirty ? draft : undefined);
}

// ---------------------------------------------------------------------------------------
// Rendering

function announce(text: string) {
  const live = $("announcer");
  live.textContent = "";
  setTimeout(() => (live.textContent = text), 30);
}

async function copy(text: string, what: string) {
  const status = $("share-status");
  try {
    await navigator.clipboard.writeText(text);
    status.textContent = `${what} copied.`;
  } catch {
    status.textContent = `Could not use the clipboard; select the text and copy it.`;
  }
}

function renderGallery() {
  const active = app.session.scenario;
  const sc = scenarioById(active);
  const content = [
    h(
      "nav",
      { "aria-label": "Scenarios", class: "gallery" },
      h(
        "ul",
        null,
        SCENARIOS.map((s) =>
          h(
            "li",
            null,
            h("button", { id: `scenario-${s.id}`, class: "chip", "aria-pressed": s.id === active ? "true" : "false", title: s.summary, onclick: () => chooseScenario(s.id) }, s.title),
          ),
        ),
      ),
    ),
    sc
      ? h(
          "div",
          { class: "scenario-info" },
          h("p", null, h("strong", null, sc.title), " — ", sc.summary),
          h("p", { class: "small" }, h("strong", null, "Try: ")),
          h("ol", { class: "try small" }, sc.tryThis.map((t) => h("li", null, t))),
        )
      : h("div", { class: "scenario-info" }, h("p", null, h("strong", null, "Your own pod."), " Pick a scenario above to start from a ready one.")),
  ];
  // Presentation mode folds the gallery away (a summary names the scenario shown).
  replaceChildren(
    $("gallery"),
    app.present ? h("details", { class: "gallery-fold", id: "gallery-fold" }, h("summary", null, `Scenarios — ${sc?.title ?? "your own pod"}`), ...content) : content,
  );
}

function renderEditorBar() {
  replaceChildren(
    $("editor-bar"),
    h(
      "div",
      { class: "format", role: "radiogroup", "aria-label": "Editor format" },
      (["yaml", "json"] as const).map((f) =>
        h("label", null, h("input", { type: "radio", name: "format", id: `format-${f}`, value: f, checked: app.session.format === f, onchange: () => switchFormat(f) }), ` ${f.toUpperCase()}`),
      ),
    ),
    h("span", { class: "small muted" }, dirty() ? "unapplied changes" : `pod at sync #${app.selected}`),
  );
}

function renderEditorActions() {
  replaceChildren(
    $("editor-actions"),
    h("button", { id: "apply", class: "primary", onclick: applyEdit, disabled: !dirty() || !!noSyncReason(), title: noSyncReason() ?? "Ctrl+Enter in the editor", "aria-keyshortcuts": "Control+Enter" }, "Apply change (next sync) ", h("kbd", null, "Ctrl+Enter")),
    h("button", { id: "start-over", onclick: startOver }, "Start over with this pod"),
    h("button", { id: "revert", onclick: () => (app.editor!.setText(app.editorBase), validateSoon(0), render()), disabled: !dirty() }, "Revert"),
  );
}

function renderGates() {
  const el = $("gates") as HTMLDetailsElement;
  const text = Object.entries(app.session.gates)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const apply = () => {
    const raw = ($("gates-input") as HTMLInputElement).value.trim();
    const gates: Record<string, boolean> = {};
    for (const part of raw.split(/[,\s]+/).filter(Boolean)) {
      const m = /^([A-Za-z0-9]+)=(true|false)$/.exec(part);
      if (!m) {
        $("gates-status").textContent = `Not understood: “${part}”. Write Name=true or Name=false, separated by commas.`;
        return;
      }
      gates[m[1]!] = m[2] === "true";
    }
    setSession({ ...app.session, gates, actions: [] });
  };
  replaceChildren(
    el,
    h("summary", null, "Feature gates", text ? `: ${text}` : " (Kubernetes 1.37 defaults)"),
    h("p", { class: "small muted" }, "Overrides sent with every request, e.g. ", h("code", null, "ContainerRestartRules=false"), ". Changing them starts over."),
    h(
      "div",
      { class: "inline" },
      h("label", { for: "gates-input", class: "sr-only" }, "Feature gate overrides"),
      h("input", { id: "gates-input", type: "text", value: text, placeholder: "Name=true,Other=false", spellcheck: "false", onkeydown: (e: KeyboardEvent) => e.key === "Enter" && apply() }),
      h("button", { id: "gates-apply", onclick: apply }, "Set and start over"),
    ),
    h("p", { id: "gates-status", class: "small", role: "status" }),
  );
}

/** The pull faults set before the first sync, by image. */
function faultsBefore(): Record<string, PullFault> {
  const out: Record<string, PullFault> = {};
  for (const e of app.session.before ?? []) {
    if (e.type === "pullFails") out[e.image] = e.fault;
    else if (e.type === "pullWorks") delete out[e.image];
  }
  return out;
}

/**
 * "Image pulls before the first sync": the model registry's pull faults (the module's
 * `pullFails` event) set on the world sync #0 meets, so a typo in an image shows from
 * the pod's first sync. Setting them starts over, like the feature gates.
 */
function renderBefore() {
  const el = $("before") as HTMLDetailsElement;
  const parsed = parsePodText(app.session.pod, app.session.format);
  const images = parsed.ok ? [...new Set(specContainers(admitted(parsed.pod)).map((c) => c.spec.image).filter((i): i is string => !!i))] : [];
  const faults = faultsBefore();
  const set = Object.entries(faults);
  const FAULTS: Array<[string, string]> = [
    ["", "pulls work"],
    ["registryDown", "registry down"],
    ["notFound", "not found (a typo)"],
  ];
  const apply = () => {
    const before: SimEvent[] = [];
    images.forEach((image, i) => {
      const v = (document.getElementById(`before-fault-${i}`) as HTMLSelectElement | null)?.value;
      if (v === "registryDown" || v === "notFound") before.push({ type: "pullFails", image, fault: v });
    });
    const { before: _old, ...rest } = app.session;
    setSession({ ...rest, actions: [], ...(before.length ? { before } : {}) });
    announce(before.length ? `Started over: ${before.length} image(s) fail to pull from sync #0.` : "Started over: every pull works.");
  };
  replaceChildren(
    el,
    h("summary", null, "Image pulls before the first sync", set.length ? `: ${set.map(([i, f]) => `${i} ${f === "notFound" ? "not found" : "registry down"}`).join(", ")}` : " (all work)"),
    h(
      "p",
      { class: "small muted" },
      "Make pulls of an image fail from sync #0 (podplan's model registry, event ",
      h("code", null, "pullFails"),
      "): the kubelet then shows ErrImagePull, then ImagePullBackOff. Setting this starts over.",
    ),
    images.length
      ? h(
          "ul",
          { class: "before-images" },
          images.map((image, i) =>
            h(
              "li",
              null,
              h("label", { for: `before-fault-${i}` }, h("code", null, image)),
              " ",
              h(
                "select",
                { id: `before-fault-${i}`, "data-before-image": image },
                FAULTS.map(([v, label]) => h("option", { value: v, selected: (faults[image] ?? "") === v }, label)),
              ),
            ),
          ),
        )
      : h("p", { class: "muted small" }, "The starting pod names no image."),
    h("button", { id: "before-apply", disabled: !images.length, onclick: apply }, "Set and start over"),
  );
}

function render() {
  renderBrokenLink();
  renderGallery();
  renderEditorBar();
  renderEditorActions();
  renderGates();
  renderBefore();
  const sync = current();
  replaceChildren($("timeline-body"), renderTimeline(app.syncs, app.selected, select));
  keepSelectedColumnVisible();
  replaceChildren(
    $("drive-body"),
    ...renderDrive({
      sync,
      first: app.syncs[0]!,
      last: last(),
      inputs: app.inputs,
      runtimeError: app.runtimeError,
      act,
      settle: settleNow,
      goLatest: () => select(last()),
    }),
  );
  const cont = continuation(sync);
  $("see-title").textContent = cont
    ? `Sync #${sync.index} at t=${seconds(sync, app.syncs[0]!)}s — the same kubelet sync as #${cont.of}, continued after ${cont.after}`
    : `Sync #${sync.index} at t=${seconds(sync, app.syncs[0]!)}s — ${describeAction(sync.trigger)}${sync.took ? ` (took ${sync.took} s)` : ""}`;
  replaceChildren(
    $("see-body"),
    ...renderDetails({
      sync,
      syncs: app.syncs,
      tab: app.tab,
      configForm: app.configForm,
      setTab: (t) => {
        app.tab = t;
        render();
        void saveHash();
      },
      setConfigForm: (f) => {
        app.configForm = f;
        render();
      },
      copy,
      engine: app.engine,
    }),
  );
}

/** Scrolls the timeline so the selected column is in view (not under the row headers). */
function keepSelectedColumnVisible() {
  const scroller = document.querySelector<HTMLElement>(".timeline-scroll");
  const th = document.getElementById(`sync-${app.selected}`)?.parentElement;
  const rowhead = document.querySelector<HTMLElement>(".timeline th.rowhead");
  if (!scroller || !th) return;
  const covered = rowhead?.offsetWidth ?? 0;
  const left = th.offsetLeft - covered - 4;
  const right = th.offsetLeft + th.offsetWidth + 4 - scroller.clientWidth;
  if (scroller.scrollLeft > left) scroller.scrollLeft = Math.max(0, left);
  else if (scroller.scrollLeft < right) scroller.scrollLeft = right;
}

// ---------------------------------------------------------------------------------------
// Start

async function main() {
  document.body.appendChild(h("div", { id: "announcer", class: "sr-only", role: "status", "aria-live": "polite" }));
  const loaded = await loadEngine();
  const badge = $("engine-badge");
  if (!loaded.ok) {
    // No stand-in: without podplan's module there is nothing to show.
    badge.textContent = "no engine";
    badge.classList.add("missing");
    $("app").replaceChildren(h("p", { id: "no-engine", class: "note warn", role: "alert" }, loaded.reason));
    document.body.dataset.ready = "true";
    return;
  }
  let engine = loaded.engine;
  badge.textContent = engine.version;
  const hashed = await sessionFromHash();
  const fromHash = hashed && "session" in hashed ? hashed : undefined;
  const session = fromHash?.session ?? freshSession(DEFAULT_SCENARIO, "yaml");
  if (!engine.runtime && !plansOnly(session)) {
    // A shared session with actions, or events before its first sync: its first screen
    // needs the runtime model.
    const full = await loadRuntime();
    if (full.ok) engine = full.engine;
  }
  app = {
    engine,
    session,
    syncs: [],
    selected: 0,
    tab: tabOf(fromHash?.tab) ?? "decisions",
    brokenLink: hashed && "broken" in hashed ? hashed.broken : undefined,
    configForm: "crictl",
    inputs: {},
    editorBase: "",
    writtenHash: "",
    present: fromHash?.present === true,
  };
  applyPresent();
  app.syncs = syncsOf(app.session);
  app.selected = fromHash?.selected !== undefined && fromHash.selected <= last() ? fromHash.selected : last();
  app.editorBase = current().podText;
  app.editor = createEditor($("editor"), {
    text: fromHash?.draft ?? app.editorBase,
    format: app.session.format,
    onChange: () => {
      validateSoon();
      renderEditorBar();
      renderEditorActions();
      saveHashSoon();
    },
    onApply: applyEdit,
  });
  render();
  validate();
  await saveHash();
  // "Copy share link" copies the link of the session shown. While a link that could not
  // be read is kept in the address bar, that link is not what the page shows: copy the
  // session's own link instead (the address bar keeps the broken one until the user acts).
  $("share").addEventListener("click", async () => {
    if (app.brokenLink !== undefined) await copy(await shareLink(), "Share link of the session shown (not the link that could not be read)");
    else await saveHash().then(() => copy(location.href, "Share link"));
  });
  // The skip link moves focus to the runtime controls without touching the URL: a
  // fragment navigation (#drive) would replace the session in the address bar.
  document.querySelector<HTMLAnchorElement>("a.skip")?.addEventListener("click", (e) => {
    e.preventDefault();
    const target = $("drive");
    target.focus({ preventScroll: true });
    target.scrollIntoView({ block: "start" });
  });
  $("present").addEventListener("click", () => setPresent(!app.present));
  window.addEventListener("hashchange", async () => {
    if (location.hash === app.writtenHash) return;
    const shared = await sessionFromHash();
    if (shared && "broken" in shared) {
      app.brokenLink = shared.broken;
      render();
    } else if (shared) {
      app.tab = tabOf(shared.tab) ?? app.tab;
      app.present = shared.present === true;
      applyPresent();
      setSession(shared.session, shared.selected, shared.draft);
    }
  });
  // Painted with the first-paint module: now the rest (the runtime model, crictl).
  document.body.dataset.painted = "true";
  if (!app.engine.runtime) await (runtimeReady ??= startRuntime());
  document.body.dataset.ready = "true";
}

let hashTimer: ReturnType<typeof setTimeout> | undefined;
function saveHashSoon() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => void saveHash(), 400);
}

void main();
