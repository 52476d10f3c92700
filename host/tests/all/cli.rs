//! Runs the `podplan` binary the way people and scripts do, and checks what it
//! prints and its exit codes. Expectations about plans are computed with the core
//! library itself, so these tests hold whatever the engine decides.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::{podplan, run};

fn code(output: &Output) -> i32 {
    output.status.code().expect("podplan exited by a signal")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

fn pod() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
        "spec": {
            "restartPolicy": "Always",
            "initContainers": [{"name": "init", "image": "busybox"}],
            "containers": [
                {"name": "app", "image": "nginx:1.27", "ports": [{"containerPort": 80}]},
                {"name": "side", "image": "envoy"}
            ]
        }
    })
}

/// A request where the sandbox is up and `app` has crashed.
fn crashed_request() -> Value {
    json!({
        "pod": pod(),
        "runtimeStatus": {
            "id": "u-1", "name": "web", "namespace": "default",
            "sandboxStatuses": [{"id": "sb1", "state": "SANDBOX_READY",
                "metadata": {"name": "web", "uid": "u-1", "namespace": "default", "attempt": 0},
                "network": {"ip": "10.0.0.5"}}],
            "containerStatuses": [
                {"id": "containerd://i1", "name": "init", "state": "exited", "exitCode": 0,
                 "hash": podplan_core::generators::container_hash("init", "busybox")},
                {"id": "containerd://a1", "name": "app", "state": "exited", "exitCode": 1,
                 "finishedAt": "2025-01-01T00:00:00Z",
                 "hash": podplan_core::generators::container_hash("app", "nginx:1.27")},
                {"id": "containerd://s1", "name": "side", "state": "running",
                 "hash": podplan_core::generators::container_hash("side", "envoy")}
            ]
        },
        "now": "2025-01-01T00:00:30Z"
    })
}

/// What the engine answers for a request, as JSON.
fn expected_answer(request: &Value) -> Value {
    let bytes = serde_json::to_vec(request).unwrap();
    serde_json::from_slice(&podplan_core::plan_json(&bytes)).unwrap()
}

fn write(dir: &Path, name: &str, value: &Value) -> String {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, serde_json::to_vec_pretty(value).unwrap()).unwrap();
    path.to_str().unwrap().to_string()
}

// ---- plan -------------------------------------------------------------------

#[test]
fn plan_reads_a_json_request_file_and_prints_the_contract_plan() {
    let dir = tempfile::tempdir().unwrap();
    let request = crashed_request();
    let file = write(dir.path(), "request.json", &request);
    let out = run(&["plan", &file], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).is_empty(),
        "no noise on stderr: {}",
        stderr(&out)
    );
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer, expected_answer(&request));
    for key in [
        "killPod",
        "createSandbox",
        "sandboxId",
        "attempt",
        "containersToStart",
    ] {
        assert!(
            answer["actions"].get(key).is_some(),
            "actions.{key} missing"
        );
    }
    // Not a terminal: compact JSON on one line.
    assert_eq!(stdout(&out).trim_end().lines().count(), 1);
}

#[test]
fn pretty_json_is_the_same_document() {
    let request = crashed_request();
    let out = run(&["plan", "--pretty"], request.to_string().as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).lines().count() > 1);
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer, expected_answer(&request));
}

#[test]
fn yaml_input_gives_the_same_plan_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let request = crashed_request();
    let yaml = serde_yaml_ng::to_string(&request).unwrap();
    let path = dir.path().join("request.yaml");
    std::fs::write(&path, &yaml).unwrap();
    let from_file = run(&["plan", path.to_str().unwrap()], b"");
    assert_eq!(code(&from_file), 0, "{}", stderr(&from_file));
    let answer: Value = serde_json::from_str(&stdout(&from_file)).unwrap();
    assert_eq!(answer, expected_answer(&request));
    // YAML on stdin is recognised by its content.
    let from_stdin = run(&["plan"], yaml.as_bytes());
    assert_eq!(code(&from_stdin), 0, "{}", stderr(&from_stdin));
    assert_eq!(stdout(&from_stdin), stdout(&from_file));
}

#[test]
fn a_bare_pod_means_nothing_exists_yet() {
    let bare = run(&["plan", "-"], pod().to_string().as_bytes());
    assert_eq!(code(&bare), 0, "{}", stderr(&bare));
    let answer: Value = serde_json::from_str(&stdout(&bare)).unwrap();
    // A bare pod is a manifest: it gets the API server's defaults.
    assert_eq!(
        answer,
        expected_answer(&json!({ "pod": pod(), "apiDefaults": true }))
    );
    // As YAML too.
    let yaml = serde_yaml_ng::to_string(&pod()).unwrap();
    let bare_yaml = run(&["plan"], yaml.as_bytes());
    assert_eq!(code(&bare_yaml), 0, "{}", stderr(&bare_yaml));
    assert_eq!(stdout(&bare_yaml), stdout(&bare));
}

#[test]
fn text_output_is_the_core_explanation() {
    let request = crashed_request();
    let out = run(
        &["plan", "--output", "text"],
        request.to_string().as_bytes(),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let typed = podplan_core::api::parse_request_value(request).unwrap();
    let plan = podplan_core::plan(&typed).unwrap();
    let text = podplan_core::explain::to_text(&plan);
    assert_eq!(stdout(&out).trim_end(), text.trim_end());
}

#[test]
fn yaml_output_is_the_same_document() {
    let request = crashed_request();
    let out = run(&["plan", "-o", "yaml"], request.to_string().as_bytes());
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let answer: Value = serde_yaml_ng::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer, expected_answer(&request));
}

#[test]
fn bad_input_is_a_structured_error_and_exit_2() {
    let request = json!({"pod": {"spec": {"containers": [{"name": "a", "imag": "x"}]}}});
    let out = run(&["plan"], request.to_string().as_bytes());
    assert_eq!(code(&out), 2);
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(answer, expected_answer(&request));
    assert_eq!(answer["error"]["kind"], "InvalidInput");
    assert_eq!(answer["error"]["path"], "pod.spec.containers[0].imag");
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("pod.spec.containers[0].imag"), "{err}");

    // Not JSON at all, and empty input.
    for input in [&b"{not json"[..], b"", b"  \n"] {
        let out = run(&["plan"], input);
        assert_eq!(code(&out), 2);
        let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(answer["error"]["kind"], "InvalidInput");
    }
    // Text mode: nothing on stdout, the message on stderr.
    let out = run(&["plan", "-o", "text"], b"{not json");
    assert_eq!(code(&out), 2);
    assert!(stdout(&out).is_empty());
    assert!(stderr(&out).contains("invalid input"));
}

#[test]
fn yaml_syntax_errors_name_line_and_column() {
    let out = run(
        &["plan", "--input-format", "yaml"],
        b"pod:\n  spec:\n    containers: [\n",
    );
    assert_eq!(code(&out), 2);
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let message = answer["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("line") && message.contains("column"),
        "{message}"
    );
}

// ---- plan --jsonl -----------------------------------------------------------

#[test]
fn jsonl_answers_every_line_in_order_and_goes_on_after_a_bad_one() {
    let first = crashed_request();
    let third = json!({ "pod": pod() });
    let input = format!("{first}\n\n{{\"pod\": oops\n   \n{}\r\n{third}", pod());
    let out = run(&["plan", "--jsonl"], input.as_bytes());
    assert_eq!(code(&out), 0, "bad lines do not change the exit code");
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "empty lines are skipped: {}", stdout(&out));
    assert_eq!(lines[0], expected_answer(&first));
    assert_eq!(lines[1]["error"]["kind"], "InvalidInput");
    assert_eq!(
        lines[2],
        expected_answer(&json!({ "pod": pod(), "apiDefaults": true })),
        "a bare pod line"
    );
    assert_eq!(lines[3], expected_answer(&third));
    assert!(stderr(&out).contains("line 3"), "{}", stderr(&out));
}

#[test]
fn jsonl_streams_each_answer_before_the_input_ends() {
    let mut child = podplan()
        .args(["plan", "--jsonl"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                return;
            }
        }
    });
    for round in 0..2 {
        writeln!(stdin, "{}", json!({ "pod": pod() })).unwrap();
        stdin.flush().unwrap();
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no answer to line {round} while the input is still open"));
        assert_eq!(
            serde_json::from_str::<Value>(&line).unwrap(),
            expected_answer(&json!({ "pod": pod() }))
        );
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

#[test]
fn jsonl_refuses_non_json_output() {
    let out = run(&["plan", "--jsonl", "-o", "text"], b"{}\n");
    assert_eq!(code(&out), 2);
}

// ---- plan --emit-crictl and --engine ----------------------------------------

#[test]
fn emit_crictl_writes_the_plan_configs_or_says_why_not() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("crictl");
    let out = run(
        &["plan", "--emit-crictl", target.to_str().unwrap()],
        pod().to_string().as_bytes(),
    );
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    match answer.get("sandboxConfig") {
        Some(sandbox) => {
            assert_eq!(code(&out), 0, "{}", stderr(&out));
            let written: Value =
                serde_json::from_slice(&std::fs::read(target.join("pod-config.json")).unwrap())
                    .unwrap();
            assert!(written.is_object() && !sandbox.is_null());
            let configs = answer["containerConfigs"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            for entry in configs {
                let name = entry["name"].as_str().unwrap();
                assert!(target.join(format!("container-{name}.json")).is_file());
            }
        }
        None => {
            assert_eq!(code(&out), 2);
            assert!(
                stderr(&out).contains("no sandbox config"),
                "{}",
                stderr(&out)
            );
            assert!(!target.join("pod-config.json").exists());
        }
    }
}

#[test]
fn proto3_json_writes_env_values_as_base64() {
    let request = json!({
        "pod": {"metadata": {"name": "e", "namespace": "ns", "uid": "u-e"},
                "spec": {"containers": [{"name": "app", "image": "busybox",
                         "env": [{"name": "LEVEL", "value": "debug"}]}]}},
        "apiDefaults": true
    });
    let env_value = |answer: &Value| {
        answer["containerConfigs"][0]["config"]["envs"]
            .as_array()
            .and_then(|l| l.iter().find(|e| e["key"] == "LEVEL"))
            .map(|e| e["value"].clone())
    };
    let readable = run(&["plan"], request.to_string().as_bytes());
    let readable: Value = serde_json::from_str(&stdout(&readable)).unwrap();
    assert_eq!(env_value(&readable), Some(json!("debug")));
    let flag = run(&["plan", "--proto3-json"], request.to_string().as_bytes());
    let flag: Value = serde_json::from_str(&stdout(&flag)).unwrap();
    assert_eq!(env_value(&flag), Some(json!("ZGVidWc=")));
    let mut with_option = request.clone();
    with_option["proto3Json"] = json!(true);
    let option = run(&["plan"], with_option.to_string().as_bytes());
    let option: Value = serde_json::from_str(&stdout(&option)).unwrap();
    assert_eq!(env_value(&option), Some(json!("ZGVidWc=")));
}

#[test]
fn a_missing_module_file_and_a_module_without_the_wasm_engine_are_usage_errors() {
    let out = run(
        &["plan", "--engine", "wasm", "--module", "podplan.wasm"],
        b"{}",
    );
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("wasm"), "{}", stderr(&out));
    let out = run(&["plan", "--module", "podplan.wasm"], b"{}");
    assert_eq!(code(&out), 2);
}

// ---- conformance ------------------------------------------------------------

/// An actions vector whose expectation is `actions`.
fn vector(name: &str, request: &Value, actions: &Value) -> Value {
    json!({"name": name, "source": "test", "request": request, "expected": {"actions": actions}})
}

/// The engine's actions for `request` and a variant that differs from them.
fn agreeing_and_differing(request: &Value) -> (Value, Value) {
    let actions = expected_answer(request)["actions"].clone();
    let mut wrong = actions.clone();
    let flipped = !wrong["killPod"].as_bool().unwrap_or(false);
    wrong["killPod"] = json!(flipped);
    (actions, wrong)
}

#[test]
fn conformance_reports_suites_failures_and_a_final_count() {
    let dir = tempfile::tempdir().unwrap();
    let request = json!({ "pod": pod() });
    let (good, bad) = agreeing_and_differing(&request);
    write(
        dir.path(),
        "SuiteA/01-good.json",
        &vector("suite-a/good", &request, &good),
    );
    write(
        dir.path(),
        "SuiteB/01-bad.json",
        &vector("suite-b/bad", &request, &bad),
    );
    let out = run(&["conformance", dir.path().to_str().unwrap()], b"");
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let text = stdout(&out);
    assert_eq!(text.lines().last(), Some("1 passed, 1 failed"), "{text}");
    assert!(text.contains("SuiteA") && text.contains("SuiteB"), "{text}");
    assert!(
        text.contains("suite-b/bad") && text.contains("killPod"),
        "{text}"
    );
    assert!(
        !text.contains("FAIL") || !text.contains("suite-a/good"),
        "{text}"
    );

    // Only the good one: exit 0.
    let out = run(
        &["conformance", dir.path().join("SuiteA").to_str().unwrap()],
        b"",
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert_eq!(stdout(&out).lines().last(), Some("1 passed, 0 failed"));
}

#[test]
fn files_that_are_not_vectors_fail() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("S")).unwrap();
    std::fs::write(dir.path().join("S/01-broken.json"), b"{ not json").unwrap();
    write(dir.path(), "S/02-other.json", &json!({"hello": "world"}));
    std::fs::write(dir.path().join("S/README.md"), b"not a vector").unwrap();
    let out = run(&["conformance", dir.path().to_str().unwrap()], b"");
    assert_eq!(code(&out), 1);
    assert_eq!(stdout(&out).lines().last(), Some("0 passed, 2 failed"));
}

#[test]
fn listed_deviations_are_expected_to_fail_and_reported_apart() {
    let dir = tempfile::tempdir().unwrap();
    let request = json!({ "pod": pod() });
    let (good, bad) = agreeing_and_differing(&request);
    let vectors = dir.path().join("vectors");
    write(&vectors, "S/01-good.json", &vector("good", &request, &good));
    write(
        &vectors,
        "S/02-older.json",
        &vector("older", &request, &bad),
    );
    write(
        dir.path(),
        "deviations.json",
        &json!({"deviations": [{"vector": "older", "reason": "1.37 changed this"}]}),
    );
    let out = run(&["conformance", vectors.to_str().unwrap()], b"");
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}");
    assert!(text.contains("deviations (1.37 differs): 1"), "{text}");
    assert!(text.contains("1.37 changed this"), "{text}");
    assert_eq!(text.lines().last(), Some("1 passed, 0 failed"));

    // A listed vector that passes is a failure: the list is stale.
    write(
        dir.path(),
        "deviations.json",
        &json!({"deviations": [{"vector": "good"}, {"vector": "older"}]}),
    );
    let out = run(&["conformance", vectors.to_str().unwrap()], b"");
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stdout(&out).contains("now passes"), "{}", stdout(&out));
    assert_eq!(stdout(&out).lines().last(), Some("0 passed, 1 failed"));
}

#[test]
fn the_vendored_vectors_run_to_a_final_count() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance");
    let out = run(&["conformance", "--summary", root.to_str().unwrap()], b"");
    assert!(matches!(code(&out), 0 | 1), "{}", stderr(&out));
    let last = stdout(&out).lines().last().unwrap_or_default().to_string();
    // "N passed, M failed", with ", K skipped" when vectors are pending.
    let counts = last.split_once(", ").map(|(passed, rest)| {
        let (failed, skipped) = rest.split_once(", ").unwrap_or((rest, "0 skipped"));
        (passed, failed, skipped)
    });
    let (passed, failed) = counts
        .and_then(|(passed, failed, skipped)| {
            skipped.strip_suffix(" skipped")?.parse::<usize>().ok()?;
            Some((
                passed.strip_suffix(" passed")?.parse::<usize>().ok()?,
                failed.strip_suffix(" failed")?.parse::<usize>().ok()?,
            ))
        })
        .unwrap_or_else(|| panic!("last line {last:?}"));
    assert!(passed + failed > 100, "{last}");
    // Vectors of functions not implemented yet are counted apart, never as passed.
    let pending = stdout(&out)
        .matches(" pending (not implemented yet)")
        .count();
    assert_eq!(last.ends_with(" skipped"), pending > 0, "{last}");
    assert_eq!(code(&out) == 0, failed == 0);
}

// ---- usage errors -----------------------------------------------------------

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec!["frobnicate".into()],
        vec!["plan".into(), missing.to_str().unwrap().into()],
        vec!["plan".into(), "--output".into(), "xml".into()],
        vec!["conformance".into()],
        vec!["conformance".into(), missing.to_str().unwrap().into()],
        vec!["conformance".into(), dir.path().to_str().unwrap().into()],
    ];
    for args in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = run(&args, b"");
        assert_eq!(code(&out), 2, "podplan {args:?}: {}", stderr(&out));
        assert!(!stderr(&out).is_empty(), "podplan {args:?} says why");
    }
}

// ---- demo, version, help ----------------------------------------------------

#[test]
fn the_demo_runs_every_step_with_a_header() {
    let out = run(&["demo"], b"");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let headers: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("=== Step "))
        .collect();
    assert!(headers.len() >= 10, "{text}");
    let total = headers.len();
    for (i, header) in headers.iter().enumerate() {
        assert!(
            header.starts_with(&format!("=== Step {}/{total}: ", i + 1)),
            "{header}"
        );
    }
    for event in ["crash", "back-off", "liveness", "image", "sandbox is lost"] {
        assert!(
            headers.iter().any(|h| h.contains(event)),
            "no step about {event}"
        );
    }
    // The JSON form: one record per step, each request accepted by the engine.
    let out = run(&["demo", "--jsonl"], b"");
    assert_eq!(code(&out), 0);
    let records: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), total);
    for r in &records {
        assert_eq!(r["plan"], expected_answer(&r["request"]));
    }
}

#[test]
fn version_names_podplan_the_contract_and_kubernetes() {
    let v = podplan_core::version();
    for args in [&["--version"][..], &["version"][..]] {
        let out = run(args, b"");
        assert_eq!(code(&out), 0);
        let line = stdout(&out);
        assert!(line.contains(v.podplan), "{line}");
        assert!(line.contains(&format!("contract {}", v.contract)), "{line}");
        assert!(
            line.contains(&format!("Kubernetes {}", v.kubernetes)),
            "{line}"
        );
    }
    let out = run(&["version", "--json"], b"");
    let parsed: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(parsed, serde_json::to_value(&v).unwrap());
}

#[test]
fn help_texts_have_examples() {
    for cmd in ["plan", "conformance", "demo"] {
        let out = run(&[cmd, "--help"], b"");
        assert_eq!(code(&out), 0);
        assert!(stdout(&out).contains("Examples:"), "podplan {cmd} --help");
    }
}

#[test]
fn verbose_logs_go_to_stderr_only() {
    let out = run(&["-vv", "plan"], pod().to_string().as_bytes());
    assert_eq!(code(&out), 0);
    assert!(serde_json::from_str::<Value>(&stdout(&out)).is_ok());
    assert!(!stderr(&out).is_empty());
}
