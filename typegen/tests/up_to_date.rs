//! The committed `wasm/types/contract.d.ts` is what the generator makes of `core/src` now.

use std::path::Path;

#[test]
fn committed_declarations_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let generated = podplan_typegen::generate(&root).unwrap();
    let committed = std::fs::read_to_string(root.join(podplan_typegen::OUTPUT)).unwrap();
    assert!(
        generated == committed,
        "{} is out of date with core/src: run `{}` and commit it",
        podplan_typegen::OUTPUT,
        podplan_typegen::COMMAND
    );
}

#[test]
fn follows_serde_attributes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let ts = podplan_typegen::generate(&root).unwrap();
    // camelCase renames; skip_serializing_if → optional; a plain field of an answer type
    // is required; an Option a request may carry may also be null.
    assert!(ts.contains("  gracePeriodSeconds?: number;\n"), "{ts}");
    assert!(ts.contains("  decisions: Decision[];\n"));
    assert!(ts.contains("  runtimeStatus?: RuntimeStatus | null;\n"));
    // A unit enum with a renamed variant; an internally tagged enum.
    assert!(ts.contains("export type KillReason =\n  /** Spec changed, or a resize needs a restart (`\"\"`). */\n  | \"\""));
    assert!(ts.contains("    type: \"exit\";\n"));
    assert!(ts.contains("  | { type: \"sandboxDies\" }\n"));
    // A CRI enum as its proto value names; k8s-openapi types imported.
    assert!(ts.contains("  | \"PROPAGATION_PRIVATE\"\n"));
    assert!(ts.contains("from \"./kubernetes.js\";"));
}
