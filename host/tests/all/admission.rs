//! `podplan admit` on the recorded reviews of `test_data/admission/` and `podplan lint`
//! on manifests: answers, exit codes and messages.
//!
//! Each `<case>.review.json` (with `<case>.settings.json` when the case has settings) is
//! answered as `<case>.expect.json` records; the case's name says what must hold whatever
//! was recorded: `rejected`/`denied` → not allowed (exit 1), `malformed` → refused with a
//! message (exit 2), otherwise allowed (exit 0); `warn`/`warned` → with warnings.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn podplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_podplan"))
        .args(args)
        .output()
        .expect("run podplan")
}

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test_data/admission")
}

fn cases() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".review.json").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

fn admit(case: &str, settings: Option<&Path>) -> Output {
    let review = data().join(format!("{case}.review.json"));
    let mut args = vec!["admit".to_string(), review.display().to_string()];
    if let Some(s) = settings {
        args.push("--settings".into());
        args.push(s.display().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    podplan(&args)
}

#[test]
fn recorded_reviews_get_their_recorded_answers() {
    let cases = cases();
    assert!(cases.len() >= 15, "{} cases", cases.len());
    for case in cases {
        let settings = data().join(format!("{case}.settings.json"));
        let out = admit(&case, settings.exists().then_some(settings.as_path()));
        let got: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{case}: stdout is not JSON ({e})"));
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(data().join(format!("{case}.expect.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(got, want, "{case}");
        let response = &got["response"];
        let code = out.status.code().unwrap();
        if case.contains("malformed") {
            assert_eq!(code, 2, "{case}");
            assert_eq!(response["allowed"], false, "{case}");
            assert_eq!(response["status"]["reason"], "InvalidRequest", "{case}");
            assert!(!String::from_utf8_lossy(&out.stderr).is_empty(), "{case}");
        } else if case.contains("rejected") || case.contains("denied") {
            assert_eq!(code, 1, "{case}");
            assert_eq!(response["allowed"], false, "{case}");
            let review: Value = serde_json::from_str(
                &std::fs::read_to_string(data().join(format!("{case}.review.json"))).unwrap(),
            )
            .unwrap();
            assert_eq!(response["uid"], review["request"]["uid"], "{case}");
        } else {
            assert_eq!(code, 0, "{case}");
            assert_eq!(response["allowed"], true, "{case}");
        }
        if case.contains("warn") {
            assert!(
                response["warnings"]
                    .as_array()
                    .is_some_and(|w| !w.is_empty()),
                "{case}"
            );
        }
    }
}

#[test]
fn rejections_name_the_rule_and_the_path() {
    for (case, start) in [
        (
            "pod-rejected-nonroot",
            "config-error at spec.containers[0]: ",
        ),
        (
            "deployment-rejected-subpath",
            "config-error at spec.template.spec.containers[1]: ",
        ),
        (
            "cronjob-rejected-seccomp",
            "config-error at spec.jobTemplate.spec.template.spec.containers[0]: ",
        ),
        (
            "replicaset-rejected-invalid",
            "invalid at spec.template.spec.containers[1].name: ",
        ),
    ] {
        let out = admit(case, None);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let message = v["response"]["status"]["message"].as_str().unwrap_or("");
        assert!(message.starts_with(start), "{case}: {message}");
    }
}

#[test]
fn bad_settings_are_refused_naming_the_problem() {
    for (file, needle) in [
        ("bad-settings-unknown-rule", "no-such-rule"),
        ("bad-settings-unknown-action", "block"),
    ] {
        let out = admit(
            "deployment-accepted",
            Some(&data().join(format!("{file}.settings.json"))),
        );
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(out.stdout.is_empty(), "{file}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(needle), "{file}: {err}");
    }
}

#[test]
fn lint_prints_findings_and_exits_1_when_one_denies() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("app.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      terminationGracePeriodSeconds: 1\n      containers:\n      - {name: app, image: nginx}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: a\n    image: x\n    securityContext: {runAsNonRoot: true, runAsUser: 0}\n",
    )
    .unwrap();
    let path = manifest.display().to_string();
    let out = podplan(&["lint", &path]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Deployment/web: grace-raised (info, warn) spec.template.spec.terminationGracePeriodSeconds"),
        "{text}"
    );
    assert!(
        text.contains("Pod/p: config-error (error, deny) spec.containers[0]"),
        "{text}"
    );

    let out = podplan(&[
        "lint",
        &path,
        "--output",
        "json",
        "--settings-json",
        r#"{"rules": {"config-error": "warn"}}"#,
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.as_array().map(Vec::len), Some(2));
    assert_eq!(v[1]["findings"][0]["action"], "warn");
    assert_eq!(v[1]["findings"][0]["rule"], "config-error");

    let out = podplan(&[
        "lint",
        &path,
        "--settings-json",
        r#"{"rules": {"nope": "off"}}"#,
    ]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn lint_runs_the_core_vectors_as_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../core/tests/lint");
    let dir_tmp = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let vector: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let file = dir_tmp.path().join(path.file_name().unwrap());
        std::fs::write(&file, serde_json::to_vec(&vector["object"]).unwrap()).unwrap();
        let out = podplan(&["lint", &file.display().to_string(), "--output", "json"]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let got: Vec<(String, String)> = v[0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().into(),
                    f["path"].as_str().unwrap().into(),
                )
            })
            .collect();
        let mut want: Vec<(String, String)> = vector["expect"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["rule"].as_str().unwrap().into(),
                    f["path"].as_str().unwrap().into(),
                )
            })
            .collect();
        let mut got = got;
        got.sort();
        want.sort();
        assert_eq!(got, want, "{}", path.display());
        let denies = want
            .iter()
            .any(|(r, _)| r == "config-error" || r == "invalid");
        assert_eq!(
            out.status.code(),
            Some(i32::from(denies)),
            "{}",
            path.display()
        );
    }
}

fn yaml_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/yaml")
        .join(name)
}

#[test]
fn yaml_is_read_as_kubectl_reads_it() {
    // Octal and hexadecimal ints, YAML 1.1 booleans, anchors and merge keys.
    let text = std::fs::read_to_string(yaml_data("pod-yaml11.yaml")).unwrap();
    let got = podplan_host::yaml::document(&text).unwrap();
    let want: Value =
        serde_json::from_str(&std::fs::read_to_string(yaml_data("pod-yaml11.json")).unwrap())
            .unwrap();
    assert_eq!(got, want);
    // The plan of the file carries the octal runAsUser: 01750 is 1000, not 1750.
    let out = podplan(&["plan", &yaml_data("pod-yaml11.yaml").display().to_string()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = plan.to_string();
    assert!(text.contains("\"runAsUser\":{\"value\":1000}"), "{text}");
    assert!(!text.contains("1750"), "{text}");
}

#[test]
fn a_duplicate_key_is_refused_as_kubectl_apply_refuses_it() {
    let file = yaml_data("deployment-duplicate-key.yaml")
        .display()
        .to_string();
    let out = podplan(&["lint", &file]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("line 18: mapping key \"image\" already defined at line 16"),
        "{err}"
    );
    // With --output json, the contract's error object on stdout.
    let out = podplan(&["lint", &file, "--output", "json"]);
    assert_eq!(out.status.code(), Some(2));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["kind"], "InvalidInput", "{v}");
    assert!(v["error"]["message"]
        .as_str()
        .is_some_and(|m| m.contains("already defined at line 16")));
    // explain and plan read YAML the same way.
    for command in ["plan", "explain"] {
        let out = podplan(&[command, &file]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains("mapping key \"image\""),
            "{command}"
        );
    }
}

#[test]
fn lint_lints_the_items_of_a_list_one_by_one() {
    let file = yaml_data("list.yaml").display().to_string();
    let out = podplan(&["lint", &file, "--output", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let reports = v.as_array().unwrap();
    assert_eq!(reports.len(), 3, "{v}");
    assert_eq!(reports[0]["item"], "items[0]");
    assert_eq!(reports[0]["findings"], serde_json::json!([]));
    assert_eq!(reports[1]["kind"], "Deployment");
    assert_eq!(
        reports[1]["findings"][0]["path"],
        "items[1].spec.template.spec.terminationGracePeriodSeconds"
    );
    assert_eq!(reports[2]["name"], "root");
    assert_eq!(reports[2]["findings"][0]["rule"], "config-error");
    assert_eq!(
        reports[2]["findings"][0]["path"],
        "items[2].spec.containers[0]"
    );
    let out = podplan(&["lint", &file]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Pod/root: config-error (error, deny) items[2].spec.containers[0]"),
        "{text}"
    );
}

#[test]
fn oversized_and_empty_inputs_are_errors_naming_the_problem() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.yaml");
    let limit = podplan_core::limits::MAX_REQUEST_BYTES;
    std::fs::write(&big, format!("a: \"{}\"\n", "x".repeat(limit))).unwrap();
    let empty = dir.path().join("empty.yaml");
    std::fs::write(&empty, "\n  \n").unwrap();
    for (file, needle, kind) in [
        (&big, limit.to_string(), "LimitExceeded"),
        (&empty, "empty".to_string(), "InvalidInput"),
    ] {
        let path = file.display().to_string();
        for command in ["lint", "plan", "explain", "admit"] {
            let out = podplan(&[command, &path]);
            assert_eq!(out.status.code(), Some(2), "{command} {path}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(&needle), "{command}: {err}");
        }
        // plan's JSON output: the contract's error object.
        let out = podplan(&["plan", &path]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["error"]["kind"], kind, "{v}");
        // admit answers with a refusal review.
        let out = podplan(&["admit", &path]);
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["response"]["allowed"], false, "{v}");
    }
}

#[test]
fn admit_reads_a_yaml_review_and_admission_settings() {
    let review: Value = serde_json::from_str(
        &std::fs::read_to_string(data().join("pod-rejected-nonroot.review.json")).unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("review.yaml");
    std::fs::write(&file, serde_yaml_ng::to_string(&review).unwrap()).unwrap();
    let path = file.display().to_string();
    let out = podplan(&["admit", &path]);
    assert_eq!(out.status.code(), Some(1));
    let out = podplan(&["admit", &path, "--settings-json", r#"{"mode": "warn"}"#]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["response"]["warnings"][0]
        .as_str()
        .is_some_and(|w| w.starts_with("config-error at spec.containers[0]")));
    let out = podplan(&["admit", &path, "--settings-json", r#"{"mode": "audit"}"#]);
    assert_eq!(out.status.code(), Some(2));
}
