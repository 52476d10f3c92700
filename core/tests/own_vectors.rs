//! Runs our own action vectors (`core/tests/vectors/actions/`), one generated test per
//! file: the cases of the kubelet's `computePodActions` tables that are not vendored in
//! `conformance/`, and the kubelet's re-runs of `TestComputePodActions` and
//! `TestComputePodActionsWithInitContainers` under extra feature gates (sub-folders named
//! after the table that re-runs them). Same format and comparison as the vendored
//! vectors; every one must pass.

use std::path::Path;

fn check(path: &Path, contents: String) -> datatest_stable::Result<()> {
    let vector: serde_json::Value = serde_json::from_str(&contents)?;
    let outcome = podplan_core::conformance::run_vector(&vector);
    if outcome.kind != "actions" {
        return Err(format!("{} is not an actions vector", path.display()).into());
    }
    if outcome.passed {
        Ok(())
    } else {
        Err(format!(
            "{} ({}) differs:\n{}",
            outcome.name,
            path.display(),
            outcome.diff
        )
        .into())
    }
}

datatest_stable::harness! {
    { test = check, root = "tests/vectors", pattern = r"^actions/.*\.json$" },
}
