//! The executor on the recording fake runtime: a plan's steps in `SyncPod`'s order,
//! failures, `KillPod`.

use super::*;

#[test]
fn the_executor_runs_the_steps_in_order_and_fills_the_new_sandbox_id() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert!(exec.ok(), "{:?}", exec.failures);
    assert_eq!(
        cri.calls,
        [
            "RunPodSandbox",
            "PodSandboxStatus sb1",
            "CreateContainer a in sb1",
            "StartContainer a-2",
            "CreateContainer b in sb1",
            "StartContainer b-3",
        ]
    );
    assert_eq!(exec.new_sandbox.as_deref(), Some("sb1"));
    // The log and pod directories were made before the sandbox.
    assert!(dir.path().join("logs/default_p_u1/a").is_dir());
    assert!(dir.path().join("root/pods/u1").is_dir());
    // Completed from the new sandbox: the /etc/hosts file names its IP.
    let hosts = std::fs::read_to_string(dir.path().join("root/pods/u1/etc-hosts")).unwrap();
    assert!(hosts.contains("10.1.2.3"), "{hosts}");
}

#[test]
fn a_failed_start_skips_only_that_container_but_a_classic_init_ends_the_sync() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::failing("CreateContainer a in sb1", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(exec.failures.len(), 1);
    assert_eq!(exec.failures[0].reason, "CreateContainerError");
    assert_eq!(exec.failures[0].event, "Failed");
    assert!(exec.aborted.is_none());
    assert!(!cri.calls.iter().any(|c| c.starts_with("StartContainer a")));
    assert!(
        cri.calls.iter().any(|c| c.starts_with("StartContainer b-")),
        "{:?}",
        cri.calls
    );

    let req = request(with_init(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::failing("StartContainer", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(exec.failures[0].reason, "RunContainerError");
    assert!(exec.aborted.is_some());
    assert_eq!(
        cri.calls.last().map(String::as_str),
        Some("StartContainer init-2")
    );
}

#[test]
fn a_failed_sandbox_ends_the_sync_with_the_kubelets_event() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::failing("RunPodSandbox", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls, ["RunPodSandbox"]);
    assert_eq!(exec.failures[0].reason, "CreatePodSandboxError");
    assert_eq!(exec.failures[0].event, "FailedCreatePodSandBox");
    assert!(exec.failures[0]
        .message
        .starts_with("Failed to create pod sandbox: "));
}

#[test]
fn kill_pod_stops_containers_with_the_grace_period_then_the_sandboxes() {
    let dir = tempfile::tempdir().unwrap();
    let mut pod = two_apps();
    pod["spec"]["terminationGracePeriodSeconds"] = 7.into();
    pod["spec"]["containers"][0]["image"] = "busybox:2".into();
    let mut req = request(pod, dir.path());
    // The sandbox is gone (not ready): the kubelet kills the pod and makes a new one.
    req.runtime_status = Some(serde_json::from_value(serde_json::json!({
        "id": "u1", "name": "p", "namespace": "default",
        "sandboxStatuses": [{"id": "old", "state": "SANDBOX_NOTREADY", "metadata": {"attempt": 0}}],
        "containerStatuses": [{"id": "sim://c1", "name": "b", "state": "running", "podSandboxId": "old"}]
    })).unwrap());
    let mut plan = podplan_core::plan(&req).unwrap();
    assert_eq!(plan.steps[0].op(), StepOp::KillPod);
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert!(exec.ok(), "{:?}", exec.failures);
    assert_eq!(
        &cri.calls[..3],
        ["StopContainer c1 7", "StopPodSandbox old", "RunPodSandbox"]
    );
}

#[test]
fn a_pod_directory_that_cannot_be_made_ends_the_sync_before_any_call() {
    let dir = tempfile::tempdir().unwrap();
    // The root directory is a file: nothing can be made under it.
    std::fs::write(dir.path().join("root"), "").unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert!(cri.calls.is_empty(), "{:?}", cri.calls);
    assert_eq!(exec.failures.len(), 1, "{:?}", exec.failures);
    assert_eq!(exec.failures[0].event, "Failed");
    assert!(exec.failures[0]
        .message
        .starts_with("error making pod data directories: "));
    assert!(exec.aborted.is_some());
}
