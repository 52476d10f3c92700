// A tiny element builder: h("button", { class: "x", onclick }, "text", child).

export type Child = Node | string | number | false | null | undefined | Child[];
export type Attrs = Record<string, unknown>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "class") el.className = String(v);
    else if (k === "value" && "value" in el) (el as HTMLInputElement).value = String(v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces an element's children, keeping keyboard focus on the control with the same id. */
export function replaceChildren(el: HTMLElement, ...children: Child[]) {
  const active = document.activeElement;
  const focusId = active instanceof HTMLElement && el.contains(active) ? active.id : "";
  el.replaceChildren();
  append(el, children);
  if (focusId) {
    const again = document.getElementById(focusId);
    if (again && el.contains(again)) again.focus();
  }
}

/** A safe id fragment from any string. */
export function idPart(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_");
}
