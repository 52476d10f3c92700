//! `podplan explain` on recorded pods (`data/explain/*.yaml`, as `kubectl get pod -o yaml`
//! prints them): the row, the reconstruction and the next sync of each common situation.

use std::path::PathBuf;

use serde_json::Value;

use crate::support::explain;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/explain")
        .join(name)
}

/// `--output json` for a recorded pod at `now`.
fn answer(file: &str, now: &str) -> Value {
    let path = data(file);
    let out = explain(
        &[path.to_str().unwrap(), "--now", now, "--output", "json"],
        b"",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn text(file: &str, now: &str) -> String {
    let path = data(file);
    let out = explain(&[path.to_str().unwrap(), "--now", now], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn crash_loop_is_held_back_with_the_remaining_back_off() {
    let a = answer("crash-loop.yaml", "2026-03-02T10:04:20Z");
    assert_eq!(a["plan"]["kubectl"]["status"], "CrashLoopBackOff");
    assert_eq!(a["plan"]["kubectl"]["restarts"], "3 (20s ago)");
    assert_eq!(a["plan"]["status"]["phase"], "Running");
    assert_eq!(a["plan"]["heldBack"][0]["container"], "web");
    assert_eq!(a["plan"]["heldBack"][0]["waitSeconds"], 20);
    assert_eq!(a["backoffRemaining"][0]["seconds"], 20);
    // Once the back-off is over, the next sync starts it.
    let later = answer("crash-loop.yaml", "2026-03-02T10:05:00Z");
    assert!(later["plan"].get("heldBack").is_none());
    assert_eq!(
        later["plan"]["actions"]["containersToStart"],
        serde_json::json!([0])
    );
    let t = text("crash-loop.yaml", "2026-03-02T10:04:20Z");
    assert!(t.contains("web may restart in 20s"), "{t}");
}

#[test]
fn init_failure_shows_init_crash_loop_and_restarts_the_init_container() {
    let a = answer("init-failure.yaml", "2026-03-02T11:01:40Z");
    assert_eq!(a["plan"]["kubectl"]["status"], "Init:CrashLoopBackOff");
    assert_eq!(a["plan"]["status"]["phase"], "Pending");
    assert_eq!(a["plan"]["heldBack"][0]["container"], "migrate");
    let after = answer("init-failure.yaml", "2026-03-02T11:02:00Z");
    assert_eq!(
        after["plan"]["actions"]["initContainersToStart"],
        serde_json::json!([0])
    );
}

#[test]
fn image_pull_error_is_in_the_reason_cache_and_retried() {
    let a = answer("image-pull-error.yaml", "2026-03-02T12:05:00Z");
    assert_eq!(
        a["request"]["reasonCache"]["redis"]["reason"],
        "ImagePullBackOff"
    );
    let waiting = &a["plan"]["status"]["containerStatuses"][0]["state"]["waiting"];
    assert_eq!(waiting["reason"], "ImagePullBackOff");
    assert_eq!(a["plan"]["kubectl"]["status"], "ImagePullBackOff");
    assert_eq!(
        a["plan"]["actions"]["containersToStart"],
        serde_json::json!([0])
    );
}

#[test]
fn image_pull_back_off_is_recognised_and_dated() {
    // Pulls failed at startTime 12:00:01 and at each end of the back-off since: 12:00:11,
    // 12:00:31, 12:01:11, 12:02:31; the next at 12:05:11.
    let a = answer("image-pull-error.yaml", "2026-03-02T12:05:00Z");
    let held = &a["plan"]["heldBack"][0];
    assert_eq!(held["container"], "redis");
    assert_eq!(held["reason"], "ImagePullBackOff");
    assert_eq!(held["waitSeconds"], 11);
    assert_eq!(held["delaySeconds"], 160);
    assert_eq!(a["plan"]["errors"][0]["reason"], "ImagePullBackOff");
    assert_eq!(a["imageBackoffRemaining"][0]["seconds"], 11);
    assert_eq!(a["request"]["images"]["present"], serde_json::json!({}));
    // When the back-off is over, the next sync pulls again.
    let a = answer("image-pull-error.yaml", "2026-03-02T12:05:11Z");
    let steps = a["plan"]["steps"].as_array().cloned().unwrap_or_default();
    let pull = steps.iter().find(|s| s["op"] == "PullImage").cloned();
    let pull = pull.unwrap_or_default();
    assert_eq!(pull["container"], "redis");
    assert_eq!(pull["imageSpec"]["image"], "redis:7.9-does-not-exist");
    assert!(!steps.iter().any(|s| s["op"] == "CreateContainer"));
    // In words.
    let path = data("image-pull-error.yaml");
    let out = explain(
        &[path.to_str().unwrap(), "--now", "2026-03-02T12:05:00Z"],
        b"",
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("image-pull back-off: redis waits for its image; the next pull in 11s"),
        "{text}"
    );
    assert!(
        text.contains("redis [ImagePullBackOff]: waits 11s"),
        "{text}"
    );
}

#[test]
fn err_image_pull_keeps_the_other_containers_images() {
    let a = answer("err-image-pull.yaml", "2026-03-02T14:00:06Z");
    // The running container's image is on the node; the failing one is not.
    assert_eq!(
        a["request"]["images"]["present"],
        serde_json::json!({"registry.example.com/shop:2.1": "registry.example.com/shop@sha256:8c1d2e3f4a5b"})
    );
    assert_eq!(a["plan"]["kubectl"]["status"], "ErrImagePull");
    let held = &a["plan"]["heldBack"][0];
    assert_eq!(
        (held["container"].as_str(), held["waitSeconds"].as_u64()),
        (Some("metrics"), Some(5))
    );
    let message = a["plan"]["errors"][0]["message"]
        .as_str()
        .unwrap_or_default();
    assert!(
        message.starts_with("Back-off pulling image \"registry.example.com/metrics:0.9-typo\": ErrImagePull: rpc error: code = NotFound"),
        "{message}"
    );
    // Only metrics is started, and only after its back-off.
    assert_eq!(
        a["plan"]["actions"]["containersToStart"],
        serde_json::json!([1])
    );
}

#[test]
fn completed_job_pod_stays_succeeded_and_starts_nothing() {
    let a = answer("completed-job.yaml", "2026-03-02T13:10:00Z");
    assert_eq!(a["plan"]["status"]["phase"], "Succeeded");
    assert_eq!(a["plan"]["kubectl"]["status"], "Completed");
    assert_eq!(
        a["plan"]["actions"]["containersToStart"],
        serde_json::json!([])
    );
    assert_eq!(a["plan"]["actions"]["createSandbox"], false);
}

#[test]
fn sidecar_starting_waits_for_its_startup_probe() {
    let a = answer("sidecar-starting.yaml", "2026-03-02T14:00:07Z");
    assert_eq!(a["plan"]["kubectl"]["status"], "Init:1/2");
    assert_eq!(a["plan"]["status"]["phase"], "Pending");
    assert_eq!(
        a["plan"]["actions"]["containersToStart"],
        serde_json::json!([])
    );
    // The status image is the runtime's normalised name of the spec image: no restart.
    assert_eq!(
        a["plan"]["actions"]["containersToKill"],
        serde_json::json!({})
    );
}

#[test]
fn pending_pod_without_sandbox_gets_one() {
    let a = answer("pending-no-sandbox.yaml", "2026-03-02T15:00:05Z");
    assert_eq!(a["plan"]["actions"]["createSandbox"], true);
    assert_eq!(a["plan"]["kubectl"]["status"], "ContainerCreating");
    assert_eq!(a["plan"]["kubectl"]["age"], "5s");
    assert!(a["assumptions"][0]
        .as_str()
        .unwrap()
        .starts_with("no sandbox"));
}

#[test]
fn non_pods_are_refused_clearly() {
    let deployment = b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {}\n";
    let out = explain(&["-"], deployment);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("explain takes one Pod") && err.contains("a Deployment"),
        "{err}"
    );
    let list = b"{\"kind\": \"List\", \"items\": []}";
    let err = String::from_utf8_lossy(&explain(&["-"], list).stderr).to_string();
    assert!(err.contains("pass one pod"), "{err}");
    let request = b"{\"pod\": {\"spec\": {\"containers\": []}}}";
    let err = String::from_utf8_lossy(&explain(&["-"], request).stderr).to_string();
    assert!(err.contains("podplan plan"), "{err}");
}

#[test]
fn a_status_that_contradicts_the_spec_is_warned_about() {
    let pod = std::fs::read_to_string(data("crash-loop.yaml")).unwrap();
    let ghost = pod.replace(
        "    name: web\n    ready: false",
        "    name: ghost\n    ready: false",
    );
    let out = explain(&["-", "--now", "2026-03-02T10:04:20Z"], ghost.as_bytes());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let t = String::from_utf8_lossy(&out.stdout);
    assert!(t.contains("pod.status.containerStatuses[0].name"), "{t}");
    assert!(t.contains("not in the spec"), "{t}");
}

#[test]
fn a_failed_post_start_hook_is_explained_and_the_restart_runs_the_hook_again() {
    let t = text("post-start-failed.yaml", "2026-03-02T09:00:15Z");
    assert!(t.contains("PostStartHookError"), "{t}");
    assert!(t.contains("web's postStart hook failed"), "{t}");
    assert!(
        t.contains("then postStart exec [sh -c test -f /ready]"),
        "{t}"
    );
    let a = answer("post-start-failed.yaml", "2026-03-02T09:00:15Z");
    let steps = a["plan"]["steps"].as_array().unwrap();
    let start = steps
        .iter()
        .find(|s| s["op"] == "StartContainer")
        .expect("the container restarts");
    assert_eq!(
        start["postStart"]["onFailure"]["startError"],
        "PostStartHookError"
    );
    assert_eq!(start["preStop"]["handler"]["seconds"], 5);
}
