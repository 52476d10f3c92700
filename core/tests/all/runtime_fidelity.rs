//! What a real runtime (containerd 1.6) showed about plans: each test checks
//! podplan's own output against what the kubelet does.

#![expect(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    reason = "test helpers outside #[test] fns fail by panicking"
)]

use serde_json::{json, Value};

fn plan(request: &Value) -> Value {
    let bytes = serde_json::to_vec(request).unwrap();
    serde_json::from_slice(&podplan_core::plan_json(&bytes)).unwrap()
}

fn userns_pod(node: Option<Value>) -> Value {
    let mut r = json!({
        "pod": {"metadata": {"name": "u", "namespace": "ns", "uid": "uid-u"},
                "spec": {"hostUsers": false, "containers": [{"name": "app", "image": "busybox"}]}},
        "apiDefaults": true
    });
    if let Some(n) = node {
        r["node"] = n;
    }
    r
}

fn sandbox_error(plan: &Value) -> String {
    plan["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|e| e["reason"] == "CreatePodSandboxError")
        .map(|e| e["message"].as_str().unwrap_or_default().to_string())
        .unwrap_or_default()
}

fn has_userns_warning(plan: &Value) -> bool {
    plan["warnings"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|w| w["path"] == "node.runtimeHandlerFeatures.userNamespaces")
}

#[test]
fn user_namespaces_are_not_assumed_without_node_facts() {
    for node in [None, Some(json!({})), Some(json!({"cgroupVersion": "v1"}))] {
        let p = plan(&userns_pod(node));
        assert!(p.get("sandboxConfig").is_none(), "{p}");
        assert!(p["containerConfigs"].as_array().is_none_or(Vec::is_empty));
        assert_eq!(
            sandbox_error(&p),
            "Failed to generate sandbox config for pod \"u_ns(uid-u)\": can't set `spec.hostUsers: false`, \
             runtime does not support user namespaces: the handler \"\" is not known"
        );
        assert!(
            has_userns_warning(&p),
            "the plan names the field to set: {p}"
        );
    }
}

#[test]
fn a_handler_reported_without_user_namespaces_is_refused_with_its_name() {
    let p = plan(&userns_pod(Some(json!({
        "runtimeHandler": "kata",
        "runtimeHandlerFeatures": {"recursiveReadOnlyMounts": true, "userNamespaces": false}
    }))));
    assert!(
        sandbox_error(&p).ends_with(
            "can't set `spec.hostUsers: false`, RuntimeClass handler \"kata\" does not support user namespaces"
        ),
        "{p}"
    );
    assert!(has_userns_warning(&p));
}

#[test]
fn declared_user_namespace_support_gives_the_pod_mapping() {
    let p = plan(&userns_pod(Some(json!({
        "runtimeHandlerFeatures": {"userNamespaces": true}
    }))));
    assert_eq!(sandbox_error(&p), "");
    assert!(!has_userns_warning(&p), "{p}");
    let userns =
        &p["sandboxConfig"]["linux"]["securityContext"]["namespaceOptions"]["usernsOptions"];
    // POD is the enum's zero value: proto3 JSON leaves it out.
    assert!(userns.get("mode").is_none_or(|m| m == "POD"), "{p}");
    assert_eq!(userns["uids"][0]["hostId"], 65536, "{p}");
}

#[test]
fn host_user_pods_need_no_declaration() {
    let mut r = userns_pod(None);
    r["pod"]["spec"]["hostUsers"] = json!(true);
    let p = plan(&r);
    assert_eq!(sandbox_error(&p), "");
    assert!(!has_userns_warning(&p));
    assert_eq!(
        p["sandboxConfig"]["linux"]["securityContext"]["namespaceOptions"]["usernsOptions"]["mode"],
        "NODE"
    );
}

fn ops(plan: &Value) -> Vec<String> {
    plan["steps"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| s["op"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn a_failed_sandbox_config_stops_the_sync_after_the_kill() {
    // A dead sandbox is replaced, but the new one's config cannot be generated.
    let mut r = userns_pod(None);
    r["runtimeStatus"] = json!({
        "sandboxStatuses": [{"id": "sb0", "metadata": {"attempt": 0}, "state": "SANDBOX_NOTREADY"}],
        "containerStatuses": [{"id": "containerd://c1", "name": "app", "state": "exited",
                               "exitCode": 1, "finishedAt": "2026-01-01T00:00:00Z"}]
    });
    let p = plan(&r);
    assert_eq!(p["actions"]["createSandbox"], true);
    assert_eq!(ops(&p), vec!["KillPod"], "{p}");
    assert!(p.get("containerConfigs").is_none());
    let events: Vec<(String, String)> = p["events"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|e| {
            (
                e["reason"].as_str().unwrap_or_default().to_string(),
                e["message"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(events.first().map(|e| e.0.as_str()), Some("SandboxChanged"));
    assert!(events.iter().any(|(reason, message)| reason == "FailedCreatePodSandBox"
        && message == "Failed to create pod sandbox: can't set `spec.hostUsers: false`, runtime does not support user namespaces: the handler \"\" is not known"), "{events:?}");
    assert!(!events
        .iter()
        .any(|(reason, _)| reason == "Created" || reason == "Started"));
    // A brand-new pod: no steps at all besides the (no-op) kill.
    let fresh = plan(&userns_pod(None));
    assert_eq!(ops(&fresh), vec!["KillPod"], "{fresh}");
}

#[test]
fn resize_steps_carry_the_exact_requests() {
    let r = json!({
        "pod": {"metadata": {"name": "r", "namespace": "ns", "uid": "u-r"},
                "spec": {"enableServiceLinks": false, "containers": [
                    {"name": "a", "image": "x", "resources": {
                        "limits": {"cpu": "1", "memory": "256Mi"},
                        "requests": {"cpu": "500m", "memory": "256Mi"}}}]}},
        "runtimeStatus": {
            "sandboxStatuses": [{"id": "sb1", "metadata": {"attempt": 0}, "state": "SANDBOX_READY",
                                 "network": {"ip": "10.0.0.5"}}],
            "containerStatuses": [{"id": "containerd://c1", "name": "a", "state": "running",
                                   "hash": 0}]
        },
        "actuatedResources": {"containers": {"a": {
            "limits": {"cpu": "1", "memory": "128Mi"},
            "requests": {"cpu": "500m", "memory": "128Mi"}}}},
        "node": {"cgroupVersion": "v1"}
    });
    let mut r = r;
    let hash = podplan_core::generators::container_hash("a", "x");
    r["runtimeStatus"]["containerStatuses"][0]["hash"] = json!(hash);
    let p = plan(&r);
    let steps = p["steps"].as_array().cloned().unwrap_or_default();
    let update = steps
        .iter()
        .find(|s| s["op"] == "UpdateContainerResources")
        .unwrap_or_else(|| panic!("no container update: {p}"));
    let req = &update["request"];
    assert_eq!(req["containerId"], "c1", "{p}");
    assert_eq!(req["linux"]["memoryLimitInBytes"], 268_435_456);
    assert_eq!(req["linux"]["cpuQuota"], 100_000);
    assert_eq!(req["linux"]["cpuShares"], 512);
    let sandbox = steps
        .iter()
        .find(|s| s["op"] == "UpdatePodSandboxResources")
        .unwrap_or_else(|| panic!("no pod update: {p}"));
    assert_eq!(sandbox["request"]["podSandboxId"], "sb1");
    assert_eq!(
        sandbox["request"]["resources"]["memoryLimitInBytes"],
        268_435_456
    );
}

#[test]
fn a_container_that_is_never_created_is_not_resized_on_every_sync() {
    // `app` cannot get a config (missing ConfigMap); `ok` runs. The checkpoint, as
    // InitializeActuatedPod leaves it, has both containers' resources.
    let res = json!({"limits": {"cpu": "500m", "memory": "128Mi"},
                     "requests": {"cpu": "500m", "memory": "128Mi"}});
    let pod = json!({"metadata": {"name": "n", "namespace": "ns", "uid": "u-n"},
        "spec": {"enableServiceLinks": false, "containers": [
            {"name": "app", "image": "x", "resources": res,
             "env": [{"name": "L", "valueFrom": {"configMapKeyRef": {"name": "missing", "key": "k"}}}]},
            {"name": "ok", "image": "y", "resources": res}]}});
    let hash = podplan_core::generators::container_hash("ok", "y");
    let status = json!({
        "sandboxStatuses": [{"id": "sb1", "metadata": {"attempt": 0}, "state": "SANDBOX_READY",
                             "network": {"ip": "10.0.0.5"}}],
        "containerStatuses": [{"id": "containerd://c2", "name": "ok", "state": "running", "hash": hash}]
    });
    for actuated in [None, Some(json!({"containers": {"app": res, "ok": res}}))] {
        let mut r = json!({"pod": pod, "runtimeStatus": status});
        if let Some(a) = actuated {
            r["actuatedResources"] = a;
        }
        let p = plan(&r);
        assert_eq!(p["actions"]["containersToStart"], json!([0]), "{p}");
        assert_eq!(p["actions"]["updatePodResources"], false, "{p}");
        assert!(
            !ops(&p).iter().any(|o| o == "UpdatePodSandboxResources"),
            "{p}"
        );
    }
}

#[test]
fn proto3_json_and_completion_are_one_call_away() {
    let request = json!({
        "pod": {"metadata": {"name": "w", "namespace": "ns", "uid": "u-w"},
                "spec": {"containers": [{"name": "app", "image": "nginx",
                    "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                            {"name": "LEVEL", "value": "debug"}]}]}},
        "apiDefaults": true,
        "proto3Json": true
    });
    let input = json!({"request": request,
        "sandboxStatus": {"id": "sb9", "state": "SANDBOX_READY", "network": {"ip": "10.1.1.1"}}});
    let out: Value = serde_json::from_slice(&podplan_core::complete_json(
        &serde_json::to_vec(&input).unwrap(),
    ))
    .unwrap();
    let envs = out["containerConfigs"][0]["config"]["envs"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let value = |k: &str| {
        envs.iter()
            .find(|e| e["key"] == k)
            .map(|e| e["value"].clone())
    };
    // strict proto3 JSON: base64 ("10.1.1.1" and "debug").
    assert_eq!(value("POD_IP"), Some(json!("MTAuMS4xLjE=")), "{out}");
    assert_eq!(value("LEVEL"), Some(json!("ZGVidWc=")));
    assert!(out["containerConfigs"][0]
        .get("dependsOnNewSandbox")
        .is_none());
    let bad: Value =
        serde_json::from_slice(&podplan_core::complete_json(b"{\"request\": {}}")).unwrap();
    assert_eq!(bad["error"]["kind"], "InvalidInput");
}
