//! The configs of hand-made plans carried out by `steps::build`: which configs a plan
//! gets, restart counts, per-container errors, and SyncPod's early stop after a failing
//! init container.

#![expect(
    clippy::panic,
    reason = "helpers outside #[test] fns fail by panicking"
)]

use podplan_core::api::parse_request_value;
use podplan_core::features::FeatureGates;
use podplan_core::plan::Plan;
use podplan_core::request::PlanRequest;
use podplan_core::steps;
use serde_json::json;

fn request(v: serde_json::Value) -> PlanRequest {
    match parse_request_value(v) {
        Ok(r) => r,
        Err(e) => panic!("test request does not parse: {e}"),
    }
}

fn base() -> serde_json::Value {
    json!({
        "pod": {
            "metadata": {"name": "web", "namespace": "prod", "uid": "u-1"},
            "spec": {
                "enableServiceLinks": false,
                "initContainers": [
                    {"name": "setup", "image": "busybox"},
                    {"name": "proxy", "image": "envoy", "restartPolicy": "Always"}
                ],
                "containers": [
                    {"name": "app", "image": "nginx",
                     "env": [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "level"}}}]},
                    {"name": "side", "image": "redis", "securityContext": {"runAsNonRoot": true}},
                    {"name": "ok", "image": "busybox"}
                ],
                "ephemeralContainers": [{"name": "dbg", "image": "busybox", "targetContainerName": "ok"}]
            }
        },
        "runtimeStatus": {
            "id": "u-1", "name": "web", "namespace": "prod", "ips": ["10.0.0.7"],
            "sandboxStatuses": [{"id": "sb1", "metadata": {"name": "web", "uid": "u-1", "namespace": "prod", "attempt": 2},
                                  "state": "SANDBOX_READY", "network": {"ip": "10.0.0.7"}}],
            "containerStatuses": [
                {"id": "containerd://ok-new", "name": "ok", "state": "running", "restartCount": 4},
                {"id": "containerd://ok-old", "name": "ok", "state": "exited", "restartCount": 3}
            ]
        },
        "node": {"images": {"redis": {"uid": 0}}}
    })
}

fn attach(r: &PlanRequest, plan: &mut Plan) {
    steps::build(r, &FeatureGates::resolve(&r.feature_gates), plan);
}

#[test]
fn nothing_to_start_means_no_configs() {
    let r = request(base());
    let mut plan = Plan::default();
    attach(&r, &mut plan);
    assert!(plan.sandbox_config.is_none());
    assert!(plan.container_configs.is_empty() && plan.errors.is_empty());
}

#[test]
fn sandbox_only() {
    let r = request(base());
    let mut plan = Plan::default();
    plan.actions.create_sandbox = true;
    plan.actions.attempt = 3;
    attach(&r, &mut plan);
    let sb = plan.sandbox_config.clone().unwrap_or_default();
    assert_eq!(sb.metadata.map(|m| m.attempt), Some(3));
    assert_eq!(sb.log_directory, "/var/log/pods/prod_web_u-1");
    assert!(plan.container_configs.is_empty());
}

#[test]
fn configs_errors_and_restart_counts() {
    let r = request(base());
    let mut plan = Plan::default();
    plan.actions.sandbox_id = "sb1".into();
    plan.actions.attempt = 2;
    plan.actions.containers_to_start = vec![0, 1, 2];
    plan.actions.ephemeral_containers_to_start = vec![0];
    attach(&r, &mut plan);
    // The sandbox config is generated for CreateContainer too.
    assert!(plan.sandbox_config.is_some());
    let names: Vec<(&str, &str, i32)> = plan
        .container_configs
        .iter()
        .map(|e| (e.name.as_str(), e.kind.as_str(), e.restart_count))
        .collect();
    // SyncPod order: ephemeral first; restart count = newest status + 1.
    assert_eq!(names, vec![("dbg", "ephemeral", 0), ("ok", "regular", 5)]);
    let ok = &plan.container_configs[1].config;
    assert_eq!(ok.log_path, "ok/5.log");
    assert_eq!(ok.metadata.as_ref().map(|m| m.attempt), Some(5));
    // The ephemeral container joins its running target's PID namespace.
    let dbg_ns = plan.container_configs[0]
        .config
        .linux
        .as_ref()
        .and_then(|l| l.security_context.as_ref())
        .and_then(|s| s.namespace_options.clone())
        .unwrap_or_default();
    assert_eq!(dbg_ns.pid, podplan_core::cri::NamespaceMode::Target);
    assert_eq!(dbg_ns.target_id, "ok-new");
    // Failing containers are reported with the kubelet's reason and message.
    let errs: Vec<(&str, &str, &str)> = plan
        .errors
        .iter()
        .map(|e| (e.container.as_str(), e.reason.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(
        errs,
        vec![
            ("app", "CreateContainerConfigError", "configmaps \"cfg\" not found"),
            (
                "side",
                "CreateContainerConfigError",
                "container has runAsNonRoot and image will run as root (pod: \"web_prod(u-1)\", container: side)"
            ),
        ]
    );
}

#[test]
fn a_failing_init_container_stops_the_sync_but_a_sidecar_does_not() {
    let mut v = base();
    v["pod"]["spec"]["initContainers"][0]["securityContext"] =
        json!({"runAsUser": 0, "runAsNonRoot": true});
    v["pod"]["spec"]["initContainers"][1]["securityContext"] =
        json!({"runAsUser": 0, "runAsNonRoot": true});
    let r = request(v);
    let mut plan = Plan::default();
    plan.actions.create_sandbox = true;
    plan.actions.init_containers_to_start = vec![1, 0];
    plan.actions.containers_to_start = vec![2];
    attach(&r, &mut plan);
    let failed: Vec<&str> = plan.errors.iter().map(|e| e.container.as_str()).collect();
    // The sidecar's failure does not stop the sync; the classic init container's does.
    assert_eq!(failed, vec!["proxy", "setup"]);
    assert!(plan.container_configs.is_empty());
}

#[test]
fn sandbox_config_errors_stop_everything() {
    let mut v = base();
    v["pod"]["spec"]["hostname"] = json!("Not_A_Label");
    let r = request(v);
    let mut plan = Plan::default();
    plan.actions.create_sandbox = true;
    plan.actions.containers_to_start = vec![2];
    attach(&r, &mut plan);
    assert!(plan.sandbox_config.is_none() && plan.container_configs.is_empty());
    assert_eq!(plan.errors.len(), 1);
    assert_eq!(plan.errors[0].reason, "CreatePodSandboxError");
    assert!(plan.errors[0]
        .message
        .starts_with("Failed to generate sandbox config for pod \"web_prod(u-1)\": pod Hostname \"Not_A_Label\" is not a valid DNS label"));
}

#[test]
fn restart_count_falls_back_to_the_log_directory() {
    let mut v = base();
    v["node"]["logFiles"] = json!({"setup": ["0.log", "3.log", "7.log.20240101-000000", "x.log"]});
    let r = request(v);
    let mut plan = Plan::default();
    plan.actions.init_containers_to_start = vec![0];
    attach(&r, &mut plan);
    assert_eq!(
        plan.container_configs.first().map(|e| e.restart_count),
        Some(8)
    );
}
