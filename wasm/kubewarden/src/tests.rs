//! Native tests with the SDK's `Testcase`, as Kubewarden policies do: the fixtures are
//! the `request` of the recorded reviews in `test_data/admission/`.

use std::path::{Path, PathBuf};

use kubewarden_policy_sdk::test::Testcase;
use serde_json::{json, Value};

use super::*;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../test_data/admission")
}

/// The `request` of a recorded review, written to a fixture file of its own.
fn fixture(case: &str, dir: &Path) -> String {
    let review: Value = serde_json::from_str(
        &std::fs::read_to_string(data().join(format!("{case}.review.json"))).unwrap(),
    )
    .unwrap();
    let path = dir.join(format!("{case}.request.json"));
    std::fs::write(&path, serde_json::to_vec(&review["request"]).unwrap()).unwrap();
    path.display().to_string()
}

fn settings(case: &str) -> Settings {
    std::fs::read_to_string(data().join(format!("{case}.settings.json")))
        .map(|s| serde_json::from_str(&s).unwrap())
        .unwrap_or_default()
}

fn tmp() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("podplan-kubewarden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn recorded_requests_are_judged_as_podplan_admit_judges_them() {
    let dir = tmp();
    let cases = [
        ("pod-rejected-nonroot", false),
        ("pod-warn-mode", true),
        ("pod-off", true),
        ("pod-warned-probe", true),
        ("pod-probe-denied-by-settings", false),
        ("deployment-rejected-subpath", false),
        ("deployment-accepted", true),
        ("deployment-update-accepted", true),
        ("cronjob-rejected-seccomp", false),
        ("statefulset-warned", true),
        ("replicaset-rejected-invalid", false),
        ("daemonset-accepted", true),
        ("job-accepted", true),
        ("replicationcontroller-rejected", false),
        ("configmap-ignored", true),
        ("pod-undefaulted-accepted", true),
        ("pod-delete-accepted", true),
        ("pod-status-subresource-accepted", true),
        ("pod-exempt-namespace-accepted", true),
        ("pod-mode-warn", true),
        ("pod-ignore-annotation-accepted", true),
        ("deployment-scale-accepted", true),
        ("deployment-update-preexisting-warned", true),
        ("deployment-update-introduced-rejected", false),
        ("statefulset-terminating-finalizer-accepted", true),
    ];
    for (case, accepted) in cases {
        let test = Testcase {
            name: case.to_string(),
            fixture_file: fixture(case, &dir),
            expected_validation_result: accepted,
            settings: settings(case),
        };
        let response = test.eval(validate).unwrap();
        // The same message and warnings as the native `podplan admit` recorded.
        let expect: Value = serde_json::from_str(
            &std::fs::read_to_string(data().join(format!("{case}.expect.json"))).unwrap(),
        )
        .unwrap();
        let want_message = expect["response"]["status"]["message"].as_str();
        assert_eq!(response.message.as_deref(), want_message, "{case}");
        let want_warnings: Option<Vec<String>> =
            serde_json::from_value(expect["response"]["warnings"].clone()).unwrap();
        assert_eq!(response.warnings, want_warnings, "{case}");
    }
}

#[test]
fn a_rejection_names_the_rule_and_the_path() {
    let dir = tmp();
    let test = Testcase {
        name: "subPath".into(),
        fixture_file: fixture("deployment-rejected-subpath", &dir),
        expected_validation_result: false,
        settings: Settings::default(),
    };
    let response = test.eval(validate).unwrap();
    let message = response.message.unwrap_or_default();
    assert!(
        message.starts_with("config-error at spec.template.spec.containers[1]: "),
        "{message}"
    );
    assert_eq!(response.code, Some(400));
}

#[test]
fn settings_validation_refuses_unknown_rules_actions_and_keys() {
    let check = |settings: Value| -> Value {
        let out =
            kubewarden_policy_sdk::validate_settings::<Settings>(settings.to_string().as_bytes())
                .unwrap();
        serde_json::from_slice(&out).unwrap()
    };
    assert_eq!(check(json!({}))["valid"], true);
    assert_eq!(
        check(json!({"rules": {"grace-raised": "off"}}))["valid"],
        true
    );
    let bad = check(json!({"rules": {"no-such-rule": "deny"}}));
    assert_eq!(bad["valid"], false);
    assert!(bad["message"].as_str().unwrap().contains("no-such-rule"));
    let bad = check(json!({"rules": {"invalid": "block"}}));
    assert_eq!(bad["valid"], false);
    assert!(bad["message"].as_str().unwrap().contains("block"));
    assert_eq!(check(json!({"rulez": {}}))["valid"], false);
    // The admission controls are validated too.
    assert_eq!(
        check(json!({"mode": "warn", "exemptNamespaces": ["kube-system"],
            "exemptSelector": {"matchLabels": {"a": "b"}}}))["valid"],
        true
    );
    let bad = check(json!({"mode": "audit"}));
    assert_eq!(bad["valid"], false);
    assert!(bad["message"].as_str().unwrap().contains("audit"));
    let bad =
        check(json!({"exemptSelector": {"matchExpressions": [{"key": "a", "operator": "Has"}]}}));
    assert_eq!(bad["valid"], false);
    assert!(bad["message"].as_str().unwrap().contains("Has"));
}

#[test]
fn malformed_payloads_are_refused_with_a_message_not_an_error() {
    for payload in [
        &b"not json"[..],
        br#"{"settings": {}}"#,
        br#"{"settings": {"rules": {"x": "deny"}}, "request": {"object": {"kind": "Pod"}}}"#,
        br#"{"request": {"kind": {"kind": "Deployment"}, "object": {"spec": {}}}}"#,
    ] {
        let out = validate(payload).unwrap();
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["accepted"], false, "{v}");
        assert!(!v["message"].as_str().unwrap_or("").is_empty(), "{v}");
    }
}

#[test]
fn protocol_version_is_v1() {
    let out = kubewarden_policy_sdk::protocol_version_guest(b"").unwrap();
    assert_eq!(out, br#""v1""#);
}
