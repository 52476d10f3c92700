//! Lifecycle hooks: a failed postStart kills the container (with its preStop), preStop
//! before the stop and the grace that is left, after an agent restart from the container's
//! annotations.

use super::*;

#[test]
fn a_failed_post_start_hook_kills_the_container_with_its_pre_stop_and_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let pod = serde_json::json!({"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
        "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "a", "image": "busybox",
            "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "exit 1"]}},
                          "preStop": {"exec": {"command": ["pre"]}}}}]}});
    let req = request(pod, dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::default();
    cri.exec_exit.insert("sh -c exit 1".into(), 1);
    let exec = execute(&mut cri, &req, &mut plan);
    let tail: Vec<&str> = cri
        .calls
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            "StartContainer a-2",
            "ExecSync a-2 0s",
            "ExecSync a-2 30s",
            "StopContainer a-2 30"
        ]
    );
    let [post, pre] = exec.hook_results.as_slice() else {
        panic!("{:?}", exec.hook_results)
    };
    assert_eq!(post.container_id, "fake://a-2");
    assert_eq!(post.hook, podplan_core::plan::HookKind::PostStart);
    assert_eq!(
        post.error.as_deref(),
        Some("command 'sh -c exit 1' exited with 1: boom")
    );
    assert_eq!(post.message.as_deref(), Some("outboom"));
    assert_eq!(pre.hook, podplan_core::plan::HookKind::PreStop);
    assert!(!pre.failed());
    assert_eq!(pre.stop_grace_period_seconds, Some(30));
    assert_eq!(exec.failures.len(), 1);
    assert_eq!(exec.failures[0].reason, "PostStartHookError");
    assert_eq!(exec.failures[0].event, "FailedPostStartHook");
    assert!(
        exec.failures[0]
            .message
            .starts_with("Exec lifecycle hook ([sh -c exit 1]) for Container \"a\""),
        "{}",
        exec.failures[0].message
    );

    // The next plan reads the result: the container waits with PostStartHookError.
    let mut next = req.clone();
    next.hook_results = exec.hook_results.clone();
    next.runtime_status = Some(
        serde_json::from_value(serde_json::json!({"id": "u1", "name": "p", "namespace": "default",
            "ips": ["10.1.2.3"],
            "sandboxStatuses": [{"id": "sb1", "state": "SANDBOX_READY", "network": {"ip": "10.1.2.3"}}],
            "containerStatuses": [{"id": "fake://a-2", "name": "a", "state": "exited", "exitCode": 137,
                "podSandboxId": "sb1", "startedAt": t0(), "finishedAt": t0()}]}))
        .unwrap(),
    );
    let replan = podplan_core::plan(&next).unwrap();
    assert!(
        replan
            .events
            .iter()
            .any(|e| e.reason == "FailedPostStartHook"),
        "{:?}",
        replan.events
    );
}

#[test]
fn a_kill_runs_the_pre_stop_hook_first_and_stops_with_what_is_left_of_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::Plan {
        steps: vec![step_json(serde_json::json!({
            "op": "KillContainer", "container": "a", "containerId": "fake://a1", "gracePeriodSeconds": 20,
            "preStop": {"hook": "preStop", "container": "a", "containerId": "fake://a1",
                "handler": {"type": "exec", "command": ["drain"]}, "timeoutSeconds": 20,
                "onFailure": {"event": {"type": "Warning", "reason": "FailedPreStopHook",
                    "message": "PreStopHook failed"}, "stopContinues": true}}
        }))],
        ..podplan_core::Plan::default()
    };
    let mut cri = Recorder::default();
    cri.exec_exit.insert("drain".into(), 3);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls, ["ExecSync a1 20s", "StopContainer a1 20"]);
    assert_eq!(
        exec.hook_results[0].error.as_deref(),
        Some("command 'drain' exited with 3: boom")
    );
    // A failed preStop: the stop goes on; the sync does not fail.
    assert!(exec.ok());
}

const POST_START_FAILS: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: hooked
  annotations:
    runtime-sim.podplan.io/container.app: '{"exec": {"exitCode": 1, "stderr": "no"}}'
spec:
  terminationGracePeriodSeconds: 5
  containers:
    - name: app
      image: busybox:1.36
      lifecycle:
        postStart:
          exec:
            command: ["sh", "-c", "exit 1"]
"#;

#[test]
fn e2e_a_failing_post_start_hook_kills_the_container_and_is_reported() {
    let mut h = harness(Planner::Native, &[("p.yaml", POST_START_FAILS)]);
    let rounds = h.rounds(4, Duration::from_secs(1));
    let uid = h.uid();
    let status = h.status(&uid);
    let app = status
        .container_statuses
        .iter()
        .find(|c| c.name == "app")
        .unwrap();
    assert_eq!(app.state, ContainerState::Exited, "{app:?}");
    let events: Vec<&str> = rounds
        .iter()
        .flat_map(|(_, r)| r.synced.iter().flat_map(|(_, p)| p.events.iter()))
        .map(|e| e.reason.as_str())
        .collect();
    assert!(events.contains(&"FailedPostStartHook"), "{events:?}");
    let errors: Vec<&String> = rounds.iter().flat_map(|(_, r)| r.errors.iter()).collect();
    assert!(
        errors.iter().any(|e| e.contains("PostStartHookError")),
        "{errors:?}"
    );
}

/// A pod `drained` whose container's preStop hook GETs `path` on 127.0.0.1:`port`.
fn drained(port: u16, path: &str) -> String {
    format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: drained}}
spec:
  terminationGracePeriodSeconds: 30
  containers:
    - name: app
      image: busybox:1.36
      lifecycle:
        preStop:
          httpGet: {{host: 127.0.0.1, port: {port}, path: {path}}}
"#
    )
}

/// Answers the first request on `listener` with 200, after `seen` is given the request's
/// first line (the hook's HTTP server).
fn answer_one(listener: std::net::TcpListener, seen: impl FnOnce(String) + Send + 'static) {
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0_u8; 1024];
            let n = std::io::Read::read(&mut stream, &mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n])
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            seen(line);
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            );
        }
    });
}

#[test]
fn e2e_a_pre_stop_hook_runs_before_the_stop_of_a_removed_pod() {
    // The hook's HTTP server looks at the runtime when the request comes in.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let manifest = drained(listener.local_addr().unwrap().port(), "/drain");
    let mut h = harness(Planner::Native, &[("p.yaml", manifest.as_str())]);
    h.rounds(3, Duration::from_secs(1));
    let uid = h.uid();
    assert_eq!(
        h.status(&uid).container_statuses[0].state,
        ContainerState::Running
    );
    let sim = h.sim.clone();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = Arc::clone(&seen);
    let uid2 = uid.clone();
    answer_one(listener, move |line| {
        let state = sim.with_node(|node| {
            node.pod_status(&uid2)
                .and_then(|s| s.container_statuses.first().map(|c| c.state))
        });
        seen2.lock().unwrap().push((line, state));
    });
    std::fs::remove_file(h.manifests.join("p.yaml")).unwrap();
    let rounds = h.rounds(2, Duration::from_secs(1));
    assert!(
        rounds.iter().any(|(_, r)| !r.removed.is_empty()),
        "{rounds:?}"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [(
            "GET /drain HTTP/1.1".to_string(),
            Some(ContainerState::Running)
        )]
    );
    assert!(h.status(&uid).container_statuses.is_empty());
}

#[test]
fn e2e_a_restarted_agent_runs_the_pre_stop_hook_from_the_containers_annotations() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let manifest = drained(listener.local_addr().unwrap().port(), "/from-annotations");
    let mut h = harness(Planner::Native, &[("p.yaml", manifest.as_str())]);
    h.rounds(3, Duration::from_secs(1));
    let uid = h.uid();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = Arc::clone(&seen);
    answer_one(listener, move |line| seen2.lock().unwrap().push(line));
    // The agent restarts while the manifest is removed: it knows the pod only from the
    // runtime.
    let config = h.agent.config().clone();
    let cri = GrpcRuntime::in_process(&h.sim, Duration::from_secs(5)).unwrap();
    h.agent = Agent::new(config, Planner::Native, cri);
    std::fs::remove_file(h.manifests.join("p.yaml")).unwrap();
    let rounds = h.rounds(2, Duration::from_secs(1));
    assert!(
        rounds.iter().any(|(_, r)| !r.removed.is_empty()),
        "{rounds:?}"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        ["GET /from-annotations HTTP/1.1".to_string()]
    );
    assert!(h.status(&uid).container_statuses.is_empty());
}
