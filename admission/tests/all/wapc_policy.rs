//! The Kubewarden policy module (`wasm/pkg/kubewarden/podplan_kubewarden.wasm`, built by
//! `scripts/build-wasm`) through the waPC host (`podplan_wasmhost::wapc`): the recorded
//! reviews of `test_data/admission/` get the native answers; settings are refused by its
//! `validate_settings`; its metadata section is what Kubewarden reads; a trapping or
//! overrunning guest is a `HostError` (`podplan admit --policy` exits 2: podplan-host's
//! `wapc_policy_cli`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use podplan_admission::{parse_review, response_from_policy, review, Outcome};
use podplan_core::admission::AdmissionSettings;
use podplan_wasmhost::testing::wapc_guest;
use podplan_wasmhost::wapc::PolicyModule;
use podplan_wasmhost::{EngineSettings, HostEngine, HostError};
use serde_json::{json, Value};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn policy_path() -> PathBuf {
    let path = root().join("wasm/pkg/kubewarden/podplan_kubewarden.wasm");
    assert!(
        path.exists(),
        "{} is missing: run scripts/build-wasm",
        path.display()
    );
    path
}

fn engine(deadline: Duration) -> Arc<HostEngine> {
    HostEngine::new(EngineSettings {
        deadline,
        max_instances: 4,
        ..EngineSettings::default()
    })
    .unwrap()
}

fn data() -> PathBuf {
    root().join("test_data/admission")
}

#[test]
fn the_module_answers_the_recorded_reviews_as_the_native_lint_does() {
    let module = PolicyModule::load_file(&engine(Duration::from_secs(30)), &policy_path()).unwrap();
    assert_eq!(module.call("protocol_version", b"").unwrap(), br#""v1""#);
    let mut compared = 0;
    for entry in std::fs::read_dir(data()).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(case) = name.strip_suffix(".review.json") else {
            continue;
        };
        let bytes = std::fs::read(data().join(&name)).unwrap();
        let settings_path = data().join(format!("{case}.settings.json"));
        let settings_json: Value = std::fs::read(&settings_path)
            .map(|b| serde_json::from_slice(&b).unwrap())
            .unwrap_or_else(|_| json!({}));
        let native = review(
            &bytes,
            &serde_json::from_value::<AdmissionSettings>(settings_json.clone()).unwrap(),
        );
        if native.outcome == Outcome::Malformed {
            continue; // the host refuses those before any policy runs
        }
        let request = parse_review(&bytes).unwrap();
        let raw: Value = serde_json::from_slice(&bytes).unwrap();
        let payload = json!({"settings": settings_json, "request": raw["request"]});
        let answer = module
            .call("validate", payload.to_string().as_bytes())
            .unwrap();
        let (response, outcome) = response_from_policy(&request, &answer).unwrap();
        assert_eq!(outcome, native.outcome, "{case}");
        assert_eq!(
            serde_json::to_value(response.into_review()).unwrap(),
            serde_json::to_value(&native.review).unwrap(),
            "{case}"
        );
        compared += 1;
    }
    assert!(compared >= 15, "{compared} reviews compared");
}

#[test]
fn validate_settings_refuses_unknown_rules_and_actions() {
    let module = PolicyModule::load_file(&engine(Duration::from_secs(30)), &policy_path()).unwrap();
    for file in ["bad-settings-unknown-rule", "bad-settings-unknown-action"] {
        let settings = std::fs::read(data().join(format!("{file}.settings.json"))).unwrap();
        let out: Value =
            serde_json::from_slice(&module.call("validate_settings", &settings).unwrap()).unwrap();
        assert_eq!(out["valid"], false, "{file}: {out}");
        assert!(
            out["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{file}"
        );
    }
    let out: Value = serde_json::from_slice(
        &module
            .call(
                "validate_settings",
                br#"{"rules": {"grace-raised": "off"}}"#,
            )
            .unwrap(),
    )
    .unwrap();
    assert_eq!(out["valid"], true);
}

/// The `io.kubewarden.metadata` custom section, read with a minimal section walker.
fn custom_section(module: &[u8], wanted: &str) -> Option<Vec<u8>> {
    fn leb(b: &[u8], at: &mut usize) -> usize {
        let (mut n, mut shift) = (0usize, 0);
        loop {
            let byte = b[*at];
            *at += 1;
            n |= usize::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return n;
            }
            shift += 7;
        }
    }
    let mut at = 8;
    while at < module.len() {
        let id = module[at];
        at += 1;
        let size = leb(module, &mut at);
        let end = at + size;
        if id == 0 {
            let mut p = at;
            let len = leb(module, &mut p);
            if &module[p..p + len] == wanted.as_bytes() {
                return Some(module[p + len..end].to_vec());
            }
        }
        at = end;
    }
    None
}

#[test]
fn the_module_carries_its_kubewarden_metadata() {
    let bytes = std::fs::read(policy_path()).unwrap();
    let section = custom_section(&bytes, "io.kubewarden.metadata").expect("metadata section");
    let meta: Value = serde_json::from_slice(&section).unwrap();
    assert_eq!(meta["protocolVersion"], "v1");
    assert_eq!(meta["mutating"], false);
    assert_eq!(meta["contextAware"], false);
    assert_eq!(meta["executionMode"], "kubewarden-wapc");
    let resources: Vec<&str> = meta["rules"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| {
            r["resources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
        })
        .collect();
    for r in [
        "pods",
        "deployments",
        "replicasets",
        "statefulsets",
        "daemonsets",
        "jobs",
        "cronjobs",
        "replicationcontrollers",
    ] {
        assert!(resources.contains(&r), "{r}");
    }
}

#[test]
fn a_trapping_or_overrunning_guest_is_a_host_error() {
    let e = engine(Duration::from_millis(200));
    let trap = PolicyModule::load(&e, &wapc_guest("unreachable")).unwrap();
    assert!(matches!(
        trap.call("validate", b"{}"),
        Err(HostError::Trap(_))
    ));
    let spin = PolicyModule::load(&e, &wapc_guest("(loop (br 0)) i32.const 1")).unwrap();
    assert!(matches!(
        spin.call("validate", b"{}"),
        Err(HostError::Deadline(_))
    ));
    assert!(matches!(
        PolicyModule::load(&e, b"not wasm"),
        Err(HostError::Compile(_))
    ));
}
