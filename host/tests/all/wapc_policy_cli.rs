//! `podplan admit --policy` with the Kubewarden policy module and a trapping guest (the
//! waPC host's tests are podplan-admission's).

use std::path::{Path, PathBuf};

use podplan_wasmhost::testing::wapc_guest;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn data() -> PathBuf {
    root().join("test_data/admission")
}

#[test]
fn podplan_admit_policy_answers_and_exits_2_on_a_trap() {
    let dir = tempfile::tempdir().unwrap();
    let trap = dir.path().join("trap.wasm");
    std::fs::write(&trap, wapc_guest("unreachable")).unwrap();
    let review = data().join("deployment-accepted.review.json");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_podplan"))
        .args(["admit", "--policy"])
        .arg(&trap)
        .arg(&review)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    // validate_settings is the first call: the trap is reported, nothing is answered.
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("trapped"),
        "{out:?}"
    );
    assert!(out.stdout.is_empty());
}
