//! The kubelet re-runs some action tables with extra gates (`TestComputePodActions` and
//! `TestComputePodActionsWithInitContainers` under `ContainerRestartRules` and under the
//! RestartAllContainers gates). The expectations do not change; replay the vendored
//! vectors that way.

use std::path::Path;

use serde_json::{json, Value};

fn replay(dir: &str, gates: &[(&str, bool)]) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance/actions")
        .join(dir);
    let mut entries: Vec<_> = std::fs::read_dir(&root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    entries.sort();
    let mut count = 0;
    for path in entries {
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let mut vector: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let Some(request) = vector.get_mut("request").and_then(Value::as_object_mut) else {
            continue;
        };
        let fg = request.entry("featureGates").or_insert_with(|| json!({}));
        for (gate, on) in gates {
            if fg.get(gate).is_none() {
                fg[*gate] = json!(on);
            }
        }
        let outcome = podplan_core::conformance::run_vector(&vector);
        assert!(
            outcome.passed,
            "{} with {gates:?}:\n{}",
            path.display(),
            outcome.diff
        );
        count += 1;
    }
    count
}

#[test]
fn tables_replayed_with_container_restart_rules() {
    for dir in [
        "TestComputePodActions",
        "TestComputePodActionsWithInitContainers",
    ] {
        assert!(
            replay(dir, &[("ContainerRestartRules", true)]) > 0,
            "{dir} is empty"
        );
    }
}

#[test]
fn tables_replayed_with_restart_all_containers_gates() {
    let gates = [
        ("ContainerRestartRules", true),
        ("RestartAllContainersOnContainerExits", true),
        ("NodeDeclaredFeatures", true),
    ];
    for dir in [
        "TestComputePodActions",
        "TestComputePodActionsWithInitContainers",
        "TestComputePodActionsWithRestartableInitContainers",
    ] {
        assert!(replay(dir, &gates) > 0, "{dir} is empty");
    }
}
