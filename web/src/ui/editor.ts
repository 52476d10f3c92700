// The pod editor: CodeMirror 6 with YAML/JSON highlighting and inline diagnostics.

import { json } from "@codemirror/lang-json";
import { yaml } from "@codemirror/lang-yaml";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";
import type { Format } from "../podtext";

export interface PodEditor {
  view: EditorView;
  getText(): string;
  setText(text: string): void;
  setFormat(format: Format): void;
  setErrors(errors: Array<{ from: number; to: number; message: string }>): void;
}

export function createEditor(parent: HTMLElement, opts: { text: string; format: Format; onChange: (text: string) => void; onApply: () => void }): PodEditor {
  const language = new Compartment();
  const lang = (f: Format) => (f === "json" ? json() : yaml());
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: opts.text,
      extensions: [
        keymap.of([{ key: "Mod-Enter", run: () => (opts.onApply(), true) }]),
        basicSetup,
        language.of(lang(opts.format)),
        lintGutter(),
        EditorView.contentAttributes.of({ "aria-label": "Pod spec (YAML or JSON). Ctrl+Enter applies it.", "aria-describedby": "editor-status" }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) opts.onChange(u.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    setFormat(f) {
      view.dispatch({ effects: language.reconfigure(lang(f)) });
    },
    setErrors(errors) {
      const len = view.state.doc.length;
      const diagnostics: Diagnostic[] = errors.map((e) => {
        const from = Math.max(0, Math.min(e.from, len));
        const to = Math.max(from, Math.min(e.to, len));
        return { from, to, severity: "error", message: e.message };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
  };
}
