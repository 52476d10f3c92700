//! Shared fixtures for the benchmarks: plan requests in the contract's JSON form.
//!
//! - [`new_pod`]: a pod with a sidecar and three containers; nothing exists yet.
//! - [`steady_pod`]: the same pod with the sandbox up, everything running and the
//!   actuated resources equal to the spec's (nothing to resize).
//! - [`crash_looping_pod`]: the same pod with one container crash-looping, its start
//!   held back (the back-off records come from replaying the earlier crashes).
//! - [`config_heavy_pod`]: three containers with 20 env vars, 5 mounts and 2 ports
//!   each; new, so the plan carries generated CRI configs.
//!
//! - [`wide_pod`]: `n` containers (new, or steady with every container running), for
//!   the cost per container as pods grow.
//!
//! The pods carry `enableServiceLinks: true`, as the API server serves them (the
//! kubelet refuses to build a container's environment without it).

use serde_json::{json, Value};

/// The time every fixture's sync happens.
pub const NOW: &str = "2025-01-01T12:00:00Z";

/// A named request.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// Benchmark id.
    pub name: &'static str,
    /// The request (contract JSON).
    pub request: Value,
}

impl Fixture {
    /// The request as JSON bytes (the input of `plan_json`).
    #[must_use]
    pub fn bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.request).unwrap_or_default()
    }

    /// The request as the typed input of `plan`.
    pub fn typed(&self) -> Result<podplan_core::PlanRequest, podplan_core::PlanError> {
        podplan_core::api::parse_request_value(self.request.clone())
    }
}

/// Every fixture, in benchmark order.
#[must_use]
pub fn fixtures() -> Vec<Fixture> {
    vec![
        Fixture {
            name: "new",
            request: new_pod(),
        },
        Fixture {
            name: "steady",
            request: steady_pod(),
        },
        Fixture {
            name: "crash_looping",
            request: crash_looping_pod(),
        },
        Fixture {
            name: "config_heavy",
            request: config_heavy_pod(),
        },
    ]
}

const CONTAINERS: [(&str, &str); 3] = [
    ("api", "registry.example/api:2.4.1"),
    ("worker", "registry.example/worker:2.4.1"),
    ("cache", "redis:7.2"),
];
const SIDECAR: (&str, &str) = ("mesh-proxy", "envoyproxy/envoy:v1.31");

fn metadata() -> Value {
    json!({"name": "shop", "namespace": "prod", "uid": "6b1d1a7e-5f3c-4a0e-9c1e-0d6c5c1f0a01",
           "labels": {"app": "shop"}})
}

fn resources() -> Value {
    json!({"requests": {"cpu": "250m", "memory": "256Mi"},
           "limits": {"cpu": "1", "memory": "512Mi"}})
}

/// The resources last applied to the running containers: what the spec asks for, so
/// nothing needs resizing.
fn actuated() -> Value {
    let containers: serde_json::Map<String, Value> = CONTAINERS
        .iter()
        .map(|(name, _)| ((*name).to_string(), resources()))
        .collect();
    json!({ "containers": containers })
}

/// The pod shared by the new, steady and crash-looping fixtures.
#[must_use]
pub fn base_pod() -> Value {
    let containers: Vec<Value> = CONTAINERS
        .iter()
        .map(|(name, image)| {
            json!({"name": name, "image": image,
                   "resources": resources(),
                   "livenessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 10}})
        })
        .collect();
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": metadata(),
        "spec": {
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "enableServiceLinks": true,
            "initContainers": [{"name": SIDECAR.0, "image": SIDECAR.1, "restartPolicy": "Always"}],
            "containers": containers,
        }
    })
}

/// Nothing exists yet: a bare request for [`base_pod`].
#[must_use]
pub fn new_pod() -> Value {
    json!({ "pod": base_pod(), "now": NOW })
}

fn sandbox() -> Value {
    json!({"id": "5d8f0c1b2a3e", "state": "SANDBOX_READY", "createdAt": 1_735_732_000_000_000_000_i64,
           "metadata": {"name": "shop", "uid": "6b1d1a7e-5f3c-4a0e-9c1e-0d6c5c1f0a01",
                        "namespace": "prod", "attempt": 0},
           "network": {"ip": "10.244.1.17"}})
}

fn running(id: &str, name: &str, image: &str) -> Value {
    json!({"id": format!("containerd://{id}"), "name": name, "state": "running",
           "createdAt": "2025-01-01T11:00:00Z", "startedAt": "2025-01-01T11:00:01Z",
           "image": image, "imageRef": image,
           "hash": podplan_core::generators::container_hash(name, image), "restartCount": 0})
}

fn runtime_status(containers: Vec<Value>) -> Value {
    json!({"id": "6b1d1a7e-5f3c-4a0e-9c1e-0d6c5c1f0a01", "name": "shop", "namespace": "prod",
           "ips": ["10.244.1.17"], "sandboxStatuses": [sandbox()], "containerStatuses": containers})
}

fn liveness_ok(ids: &[&str]) -> Value {
    ids.iter()
        .map(|id| (format!("containerd://{id}"), json!({"liveness": "success"})))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Sandbox up, the sidecar and the three containers running, probes passing.
#[must_use]
pub fn steady_pod() -> Value {
    let mut statuses = vec![running("c0", SIDECAR.0, SIDECAR.1)];
    let mut ids = Vec::new();
    for (i, (name, image)) in CONTAINERS.iter().enumerate() {
        let id = format!("c{}", i + 1);
        statuses.push(running(&id, name, image));
        ids.push(id);
    }
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    json!({ "pod": base_pod(), "runtimeStatus": runtime_status(statuses),
            "probes": liveness_ok(&ids), "actuatedResources": actuated(), "now": NOW })
}

/// An RFC 3339 time `seconds` after 2025-01-01T11:00:00Z (within the day).
fn at(seconds: u32) -> String {
    format!(
        "2025-01-01T{:02}:{:02}:{:02}Z",
        11 + seconds / 3600,
        (seconds / 60) % 60,
        seconds % 60
    )
}

/// The `worker` container keeps crashing 5 s after each start. The fixture replays its
/// first five crashes through the engine (each restart waits out the back-off, and the
/// plan's back-off records go into the next request), then asks for the sync right after
/// the sixth crash, when the start is held back.
#[must_use]
pub fn crash_looping_pod() -> Value {
    let (name, image) = CONTAINERS[1];
    let request = |restart: u32, finished: u32, now: u32, backoff: &Value| {
        let worker = json!({
            "id": format!("containerd://w{restart}"), "name": name, "state": "exited",
            "createdAt": at(finished.saturating_sub(6)), "startedAt": at(finished.saturating_sub(5)),
            "finishedAt": at(finished), "exitCode": 1, "reason": "Error",
            "image": image, "imageRef": image,
            "hash": podplan_core::generators::container_hash(name, image), "restartCount": restart});
        let statuses = vec![
            running("c0", SIDECAR.0, SIDECAR.1),
            running("c1", CONTAINERS[0].0, CONTAINERS[0].1),
            worker,
            running("c3", CONTAINERS[2].0, CONTAINERS[2].1),
        ];
        json!({
            "pod": base_pod(),
            "runtimeStatus": runtime_status(statuses),
            "probes": liveness_ok(&["c1", "c3"]),
            "actuatedResources": actuated(),
            "backoff": backoff,
            "now": at(now),
        })
    };
    let mut backoff = json!([]);
    let mut crashed_at = 120;
    for restart in 0..5 {
        // The sync that restarts the worker once its back-off (10 s, doubling) is over.
        let restart_at = crashed_at + (10_u32 << restart);
        let previous = request(restart, crashed_at, restart_at, &backoff);
        backoff = serde_json::to_vec(&previous)
            .ok()
            .map(|bytes| podplan_core::plan_json(&bytes))
            .and_then(|answer| serde_json::from_slice::<Value>(&answer).ok())
            .and_then(|plan| plan.get("backoff").cloned())
            .unwrap_or_else(|| json!([]));
        crashed_at = restart_at + 5;
    }
    request(5, crashed_at, crashed_at + 5, &backoff)
}

/// Three containers with 20 env vars, 5 volume mounts and 2 ports each; new.
#[must_use]
pub fn config_heavy_pod() -> Value {
    let containers: Vec<Value> = CONTAINERS
        .iter()
        .map(|(name, image)| {
            let mut env: Vec<Value> = (0..16)
                .map(|i| json!({"name": format!("SETTING_{i:02}"), "value": format!("value-{i}-for-{name}")}))
                .collect();
            env.push(json!({"name": "BASE_URL", "value": "http://$(SERVICE_HOST):$(SERVICE_PORT)/v1"}));
            env.push(json!({"name": "SERVICE_HOST", "value": "shop.prod.svc"}));
            env.push(json!({"name": "SERVICE_PORT", "value": "8080"}));
            env.push(json!({"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}}));
            json!({
                "name": name, "image": image,
                "command": ["/bin/server"], "args": ["--listen=:$(SERVICE_PORT)", "--name=$(POD_NAME)"],
                "workingDir": "/srv",
                "env": env,
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                          {"name": "metrics", "containerPort": 9090, "protocol": "TCP"}],
                "volumeMounts": [
                    {"name": "data", "mountPath": "/data"},
                    {"name": "cache", "mountPath": "/cache"},
                    {"name": "tmp", "mountPath": "/tmp"},
                    {"name": "config", "mountPath": "/etc/shop", "readOnly": true},
                    {"name": "data", "mountPath": "/logs", "subPath": "logs/$(POD_NAME)"}
                ],
                "resources": {"requests": {"cpu": "500m", "memory": "1Gi"},
                              "limits": {"cpu": "2", "memory": "2Gi"}},
                "securityContext": {"runAsUser": 1000, "runAsNonRoot": true,
                                    "allowPrivilegeEscalation": false,
                                    "capabilities": {"drop": ["ALL"]}}
            })
        })
        .collect();
    json!({
        "pod": {
            "apiVersion": "v1", "kind": "Pod",
            "metadata": metadata(),
            "spec": {
                "restartPolicy": "Always",
                "enableServiceLinks": true,
                "hostname": "shop",
                "securityContext": {"fsGroup": 2000, "sysctls": [{"name": "net.ipv4.ip_unprivileged_port_start", "value": "0"}]},
                "dnsPolicy": "ClusterFirst",
                "containers": containers,
                "volumes": [
                    {"name": "data", "emptyDir": {}},
                    {"name": "cache", "emptyDir": {"medium": "Memory", "sizeLimit": "256Mi"}},
                    {"name": "tmp", "emptyDir": {}},
                    {"name": "config", "configMap": {"name": "shop-config"}}
                ]
            }
        },
        "now": NOW
    })
}

/// A pod of `n` containers like [`base_pod`]'s (resources, a liveness probe); new, or
/// `steady`: the sandbox up, every container running with its probe passing and its
/// resources actuated.
#[must_use]
pub fn wide_pod(n: usize, steady: bool) -> Value {
    let names: Vec<(String, String)> = (0..n)
        .map(|i| (format!("c{i:04}"), format!("registry.example/app-{i}:1.0")))
        .collect();
    let containers: Vec<Value> = names
        .iter()
        .map(|(name, image)| {
            json!({"name": name, "image": image, "resources": resources(),
                   "livenessProbe": {"tcpSocket": {"port": 8080}, "periodSeconds": 10}})
        })
        .collect();
    let pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": metadata(),
        "spec": {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30,
                 "enableServiceLinks": true, "containers": containers}
    });
    if !steady {
        return json!({ "pod": pod, "now": NOW });
    }
    let statuses: Vec<Value> = names
        .iter()
        .enumerate()
        .map(|(i, (name, image))| running(&format!("id{i:04}"), name, image))
        .collect();
    let ids: Vec<String> = (0..n).map(|i| format!("id{i:04}")).collect();
    let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
    let actuated: serde_json::Map<String, Value> = names
        .iter()
        .map(|(name, _)| (name.clone(), resources()))
        .collect();
    json!({ "pod": pod, "runtimeStatus": runtime_status(statuses),
            "probes": liveness_ok(&ids), "actuatedResources": {"containers": actuated},
            "now": NOW })
}

/// A Deployment of `n` containers, each with a liveness probe, a port and an env
/// variable: the `lint/containers` group's input, for the lint's cost per container
/// (`probe-ends-pod` included).
#[must_use]
pub fn wide_deployment(n: usize) -> Value {
    let containers: Vec<Value> = (0..n)
        .map(|i| {
            json!({"name": format!("c{i}"), "image": "nginx:1.25",
                "env": [{"name": "PORT", "value": "8080"}],
                "ports": [{"name": "http", "containerPort": 8080}],
                "livenessProbe": {"httpGet": {"path": "/", "port": "http"}}})
        })
        .collect();
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "wide", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "wide"}},
          "template": {"metadata": {"labels": {"app": "wide"}},
            "spec": {"containers": containers}}}})
}

/// The pod sizes of the `pod_size` benchmark group.
pub const POD_SIZES: [usize; 4] = [1, 10, 100, 1000];

/// A typical Deployment for the lint benchmark: two containers with liveness and
/// readiness probes, env, a volume mount and ports (not API-defaulted).
#[must_use]
pub fn lint_deployment() -> Value {
    let probe = json!({"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10});
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "web"}},
          "template": {"metadata": {"labels": {"app": "web"}},
            "spec": {"volumes": [{"name": "cache", "emptyDir": {}}],
              "containers": [
                {"name": "app", "image": "registry.example/web:1.2.3",
                 "command": ["/app"], "args": ["--port=$(PORT)", "--cache=/cache"],
                 "env": [{"name": "PORT", "value": "8080"}, {"name": "MODE", "value": "prod"}],
                 "ports": [{"containerPort": 8080}],
                 "volumeMounts": [{"name": "cache", "mountPath": "/cache"}],
                 "livenessProbe": probe.clone(), "readinessProbe": probe.clone(),
                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "256Mi"}},
                 "securityContext": {"runAsNonRoot": true, "runAsUser": 1000}},
                {"name": "proxy", "image": "registry.example/proxy:2",
                 "ports": [{"containerPort": 9000}], "livenessProbe": probe}
              ]}}}
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_fixture_is_a_request_the_engine_plans() {
        for f in fixtures() {
            let typed = f.typed().unwrap_or_else(|e| panic!("{}: {e}", f.name));
            assert!(podplan_core::plan(&typed).is_ok(), "{}", f.name);
            let answer: Value =
                serde_json::from_slice(&podplan_core::plan_json(&f.bytes())).unwrap();
            assert!(answer.get("error").is_none(), "{}: {answer}", f.name);
        }
    }

    #[test]
    fn the_steady_pod_needs_nothing() {
        let answer: Value = serde_json::from_slice(&podplan_core::plan_json(
            &serde_json::to_vec(&steady_pod()).unwrap(),
        ))
        .unwrap();
        let actions = &answer["actions"];
        assert_eq!(actions["killPod"], false);
        assert_eq!(actions["createSandbox"], false);
        assert_eq!(actions["containersToStart"], json!([]));
        assert_eq!(actions["initContainersToStart"], json!([]));
        assert_eq!(actions["containersToKill"], json!({}));
        assert_eq!(actions["updatePodResources"], false);
        let updates = actions
            .get("containersToUpdate")
            .cloned()
            .unwrap_or(json!({}));
        assert!(
            updates
                .as_object()
                .is_some_and(|u| u.values().all(|l| l == &json!([]))),
            "{updates}"
        );
    }

    #[test]
    fn the_crash_looping_pod_is_held_back() {
        let request = crash_looping_pod();
        assert!(request["backoff"].as_array().is_some_and(|b| !b.is_empty()));
        let answer: Value = serde_json::from_slice(&podplan_core::plan_json(
            &serde_json::to_vec(&request).unwrap(),
        ))
        .unwrap();
        let held = answer["heldBack"].as_array().cloned().unwrap_or_default();
        assert!(held.iter().any(|h| h["container"] == "worker"), "{answer}");
        // The back-off grew with the crashes.
        assert!(
            answer["backoff"][0]["delaySeconds"].as_u64() > Some(10),
            "{answer}"
        );
    }

    #[test]
    fn new_pods_get_their_configs_generated() {
        for request in [new_pod(), config_heavy_pod()] {
            let answer: Value = serde_json::from_slice(&podplan_core::plan_json(
                &serde_json::to_vec(&request).unwrap(),
            ))
            .unwrap();
            let started = answer["actions"]["initContainersToStart"]
                .as_array()
                .map_or(0, Vec::len)
                + answer["actions"]["containersToStart"]
                    .as_array()
                    .map_or(0, Vec::len);
            assert!(answer.get("errors").is_none(), "{answer}");
            assert!(answer["sandboxConfig"].is_object(), "{answer}");
            assert_eq!(
                answer["containerConfigs"].as_array().map(Vec::len),
                Some(started),
                "{answer}"
            );
        }
    }

    #[test]
    fn wide_pods_plan_every_container() {
        for n in [1, 10] {
            let answer: Value = serde_json::from_slice(&podplan_core::plan_json(
                &serde_json::to_vec(&wide_pod(n, false)).unwrap(),
            ))
            .unwrap();
            assert_eq!(
                answer["actions"]["containersToStart"]
                    .as_array()
                    .map(Vec::len),
                Some(n),
                "{answer}"
            );
            let steady: Value = serde_json::from_slice(&podplan_core::plan_json(
                &serde_json::to_vec(&wide_pod(n, true)).unwrap(),
            ))
            .unwrap();
            assert_eq!(
                steady["actions"]["containersToStart"],
                json!([]),
                "{steady}"
            );
            assert_eq!(steady["actions"]["containersToKill"], json!({}), "{steady}");
        }
    }

    #[test]
    fn the_config_heavy_pod_has_what_it_says() {
        let pod = &config_heavy_pod()["pod"];
        for c in pod["spec"]["containers"].as_array().unwrap() {
            assert_eq!(c["env"].as_array().map(Vec::len), Some(20));
            assert_eq!(c["volumeMounts"].as_array().map(Vec::len), Some(5));
            assert_eq!(c["ports"].as_array().map(Vec::len), Some(2));
        }
    }
}
