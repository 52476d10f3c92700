//! Runs our own vectors (`core/tests/vectors/`), one generated test per file. `actions/`:
//! the cases of the kubelet's `computePodActions` tables that are not vendored in
//! `conformance/`, and the kubelet's re-runs of `TestComputePodActions` and
//! `TestComputePodActionsWithInitContainers` under extra feature gates (sub-folders named
//! after the table that re-runs them). `config/`: the held-out cases of the kubelet test
//! tables the vendored config vectors come from, and further kubelet tables for config
//! behaviours no vendored vector covers. `hooks/`: the kubelet's lifecycle-hook and
//! kill-grace tests (`kuberuntime_container_test.go`). `termination/`: the pod worker's
//! tests (`pod_workers_test.go`), the termination-order tests
//! (`kuberuntime_termination_order_test.go`) and the phases' plans. Same format and comparison as the vendored
//! vectors; every one must pass.

use std::path::Path;

pub(crate) fn check_actions(path: &Path, contents: String) -> datatest_stable::Result<()> {
    check(path, &contents, "actions")
}

pub(crate) fn check_config(path: &Path, contents: String) -> datatest_stable::Result<()> {
    check(path, &contents, "config")
}

pub(crate) fn check_hooks(path: &Path, contents: String) -> datatest_stable::Result<()> {
    check(path, &contents, "hooks")
}

pub(crate) fn check_termination(path: &Path, contents: String) -> datatest_stable::Result<()> {
    check(path, &contents, "termination")
}

fn check(path: &Path, contents: &str, kind: &str) -> datatest_stable::Result<()> {
    let vector: serde_json::Value = serde_json::from_str(contents)?;
    let outcome = podplan_core::conformance::run_vector(&vector);
    if outcome.kind != kind {
        return Err(format!("{} is not a `{kind}` vector", path.display()).into());
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
