//! Property tests of config generation: arbitrary pods (and node facts) never make the
//! generators panic, every config survives a JSON round trip, and environments come out
//! in one deterministic order.

#![expect(clippy::indexing_slicing, reason = "tests fail by panicking")]

use proptest::prelude::*;
use serde_json::{json, Value};

use podplan_core::config::{self, ContainerKind};
use podplan_core::cri::{ContainerConfig, PodSandboxConfig};
use podplan_core::features::FeatureGates;
use podplan_core::plan::Plan;
use podplan_core::request::PlanRequest;
use podplan_core::unstable::config::env;

fn dns_label() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9-]{0,10}[a-z0-9]"
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[ -~]{0,20}",
        "\\$\\([A-Z_]{0,6}\\)[a-z$()]{0,6}",
        "[a-zA-Z0-9é\\-_./:$()]{0,12}",
    ]
}

fn quantity() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..4000).prop_map(|m| format!("{m}m")),
        (0u32..64).prop_map(|g| format!("{g}Gi")),
        (0u32..2048).prop_map(|m| format!("{m}Mi")),
        (0u64..10_000_000_000).prop_map(|b| b.to_string()),
        Just("0".to_string()),
    ]
}

fn resource_list() -> impl Strategy<Value = std::collections::BTreeMap<String, String>> {
    prop::collection::btree_map(
        prop_oneof![
            Just("cpu".to_string()),
            Just("memory".to_string()),
            Just("ephemeral-storage".to_string()),
            Just("hugepages-2Mi".to_string()),
            Just("hugepages-1Gi".to_string()),
            Just("example.com/gpu".to_string()),
        ],
        quantity(),
        0..4,
    )
}

fn resources() -> impl Strategy<Value = Value> {
    (resource_list(), resource_list()).prop_map(|(r, l)| json!({"requests": r, "limits": l}))
}

fn env_var(names: Vec<String>) -> impl Strategy<Value = Value> {
    let name = prop::sample::select(names);
    (name, 0u8..9, any_text(), "[a-z]{1,4}").prop_map(|(name, kind, text, key)| match kind {
        0..=2 => json!({"name": name, "value": text}),
        3 => json!({"name": name, "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath":
            (["metadata.name", "metadata.labels", "status.podIP", "status.podIPs", "spec.nodeName",
             "metadata.annotations['a']", "bogus.path", "status.hostIPs"][key.len() % 8])}}}),
        4 => json!({"name": name, "valueFrom": {"resourceFieldRef": {"resource":
            (["limits.cpu", "requests.memory", "limits.memory", "limits.hugepages-2Mi", "nope"][key.len() % 5]),
            "divisor": (["1m", "1Mi", "0", "3"][key.len() % 4])}}}),
        5 => json!({"name": name, "valueFrom": {"configMapKeyRef": {"name": "cm", "key": key, "optional": key.len() % 2 == 0}}}),
        6 => json!({"name": name, "valueFrom": {"secretKeyRef": {"name": format!("s{}", key.len() % 2), "key": key, "optional": true}}}),
        7 => json!({"name": name, "valueFrom": {"fileKeyRef": {"volumeName": "data", "path": "f.env", "key": key, "optional": true}}}),
        _ => json!({"name": name}),
    })
}

fn container(name: String, restart_always: bool) -> impl Strategy<Value = Value> {
    let env_names: Vec<String> = ["A", "B", "C_D", "PATH", "X1", "lower", "1NUM"]
        .iter()
        .map(|s| (*s).to_string())
        .collect();
    (
        prop::collection::vec(env_var(env_names), 0..6),
        prop::option::of(resources()),
        prop::collection::vec((1i32..70000, 0i32..70000, 0u8..4, any::<bool>()), 0..4),
        prop::collection::vec((0u8..4, 0u8..4, any_text(), any::<bool>()), 0..3),
        (any::<bool>(), prop::option::of(0i64..3000), 0u8..5, 0u8..5, any::<bool>()),
        prop::option::of(prop::collection::vec(any_text(), 0..3)),
    )
        .prop_map(
            move |(env, res, ports, mounts, (non_root, user, seccomp, apparmor, unmasked), command)| {
                let ports: Vec<Value> = ports
                    .into_iter()
                    .map(|(cp, hp, proto, named)| {
                        json!({"containerPort": cp, "hostPort": hp,
                               "protocol": (["TCP", "UDP", "SCTP", ""][proto as usize]),
                               "name": if named { "p" } else { "" }})
                    })
                    .collect();
                let mounts: Vec<Value> = mounts
                    .into_iter()
                    .map(|(vol, prop, sub, expr)| {
                        let mut m = json!({"name": (["data", "cfg", "host", "missing"][vol as usize]),
                                 "mountPath": format!("/m{vol}{prop}"),
                                 "mountPropagation": (["None", "HostToContainer", "Bidirectional", "Weird"][prop as usize])});
                        if expr {
                            m["subPathExpr"] = json!(sub);
                        } else {
                            m["subPath"] = json!(sub);
                        }
                        m
                    })
                    .collect();
                let mut c = json!({
                    "name": name, "image": "registry.example/app:1",
                    "env": env, "ports": ports, "volumeMounts": mounts,
                    "terminationMessagePath": "/dev/termination-log",
                    "securityContext": {
                        "runAsNonRoot": non_root,
                        "seccompProfile": ([json!({"type": "RuntimeDefault"}), json!({"type": "Localhost"}),
                            json!({"type": "Localhost", "localhostProfile": "x.json"}), json!({"type": "Unconfined"}),
                            Value::Null][seccomp as usize].clone()),
                        "appArmorProfile": ([json!({"type": "RuntimeDefault"}), json!({"type": "Localhost"}),
                            json!({"type": "Localhost", "localhostProfile": "p"}), json!({"type": "bogus"}),
                            Value::Null][apparmor as usize].clone()),
                        "procMount": if unmasked { "Unmasked" } else { "Default" }
                    }
                });
                if let Some(u) = user {
                    c["securityContext"]["runAsUser"] = json!(u);
                }
                if let Some(r) = res {
                    c["resources"] = r;
                }
                if let Some(cmd) = command {
                    c["command"] = json!(cmd);
                }
                if restart_always {
                    c["restartPolicy"] = json!("Always");
                }
                c
            },
        )
}

fn pod_request() -> impl Strategy<Value = Value> {
    let names = prop::collection::btree_set(dns_label(), 1..6);
    (
        names,
        0usize..3,
        any::<bool>(),
        (any::<bool>(), prop::option::of(any::<bool>()), 0u8..5, prop::option::of(any_text())),
        prop::option::of(resources()),
        (prop::collection::vec("[0-9a-f:.]{1,16}", 0..3), any::<bool>(), 0u8..3),
        (any::<bool>(), any::<bool>(), 0u8..3, prop::option::of(0.0f64..1.0)),
        prop::option::of(prop::collection::vec(dns_label(), 0..40)),
    )
        .prop_flat_map(
            |(names, n_init, host_net, (links, host_users, dns, hostname), pod_res, ips, nodefacts, searches)| {
                let names: Vec<String> = names.into_iter().collect();
                let n_init = n_init.min(names.len().saturating_sub(1));
                let inits: Vec<_> = names[..n_init]
                    .iter()
                    .enumerate()
                    .map(|(i, n)| container(n.clone(), i % 2 == 1).boxed())
                    .collect();
                let regular: Vec<_> = names[n_init..]
                    .iter()
                    .map(|n| container(n.clone(), false).boxed())
                    .collect();
                (inits, regular).prop_map(move |(inits, regular)| {
                    let (v2, swap, quota_mode, factor) = nodefacts;
                    let mut spec = json!({
                        "enableServiceLinks": links,
                        "hostNetwork": host_net,
                        "dnsPolicy": (["ClusterFirst", "Default", "None", "ClusterFirstWithHostNet", "Odd"][dns as usize]),
                        "dnsConfig": {"searches": searches.clone().unwrap_or_default(),
                                      "options": [{"name": "ndots", "value": "1"}, {"name": "rotate"}]},
                        "initContainers": inits,
                        "containers": regular,
                        "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "cm"}},
                                    {"name": "host", "hostPath": {"path": "/srv"}}],
                        "securityContext": {"fsGroup": 2000, "supplementalGroups": [5],
                                            "sysctls": [{"name": "kernel.shm_rmid_forced", "value": "1"}]}
                    });
                    if let Some(u) = host_users {
                        spec["hostUsers"] = json!(u);
                    }
                    if let Some(h) = &hostname {
                        spec["hostname"] = json!(h);
                        spec["subdomain"] = json!("sub");
                        spec["setHostnameAsFQDN"] = json!(true);
                    }
                    if let Some(r) = &pod_res {
                        spec["resources"] = r.clone();
                    }
                    json!({
                        "pod": {"metadata": {"name": "p", "namespace": "ns", "uid": "uid-1",
                                             "labels": {"app": "x"}, "annotations": {"a": "b\n\"c\""}},
                                "spec": spec},
                        "runtimeStatus": {"ips": ips.0},
                        "node": {
                            "cgroupVersion": if v2 { "v2" } else { "v1" },
                            "swapControllerAvailable": swap,
                            "swapCapacity": 1_073_741_824,
                            "hugePageSizes": ["2MB", "1GB"],
                            "allocatable": {"cpu": "8", "memory": "32Gi"},
                            "configMaps": {"cm": {"metadata": {"name": "cm"}, "data": {"abc": "1", "k": "v"}}},
                            "secrets": {"s0": {"metadata": {"name": "s0"}, "data": {"abc": "eA=="}}},
                            "envFiles": {"data": {"f.env": {"abc": "from-file"}}},
                            "services": [{"metadata": {"name": "kubernetes", "namespace": "default"},
                                          "spec": {"clusterIP": "10.96.0.1", "ports": [{"port": 443, "name": "https"}]}},
                                         {"metadata": {"name": "db-main", "namespace": "ns"},
                                          "spec": {"clusterIP": "fd00::5", "ports": [{"port": 5432, "protocol": "TCP"}]}}],
                            "kubelet": {"cpuCFSQuota": quota_mode != 0, "memoryThrottlingFactor": factor,
                                        "memorySwapBehavior": if ips.1 { "LimitedSwap" } else { "NoSwap" },
                                        "memoryReservationPolicy": if ips.2 == 0 { "TieredReservation" } else { "None" },
                                        "clusterDomain": "cluster.local", "clusterDNS": ["10.96.0.10"]},
                            "hostDNS": {"servers": ["1.1.1.1"], "searches": ["corp.", "."], "options": ["ndots:1"]}
                        }
                    })
                })
            },
        )
}

fn parse(v: Value) -> Option<PlanRequest> {
    podplan_core::api::parse_request_value(v).ok()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn configs_never_panic_and_round_trip(v in pod_request()) {
        let parsed = parse(v);
        prop_assume!(parsed.is_some(), "generated requests should parse");
        let Some(req) = parsed else { return Ok(()); };
        let gates = FeatureGates::resolve(&req.feature_gates);
        let node = req.node.clone().unwrap_or_default();
        if let Ok((sb, _)) = podplan_core::unstable::config::sandbox::generate_pod_sandbox_config(&req.pod, 1, &node, &gates) {
            let text = serde_json::to_string(&sb).unwrap_or_default();
            let back: PodSandboxConfig = serde_json::from_str(&text).unwrap_or_default();
            prop_assert_eq!(back, sb.clone());
            let crictl = config::crictl::sandbox_json(&sb);
            prop_assert!(crictl.is_object());
        }
        let spec = req.pod.spec.clone().unwrap_or_default();
        let inits = spec.init_containers.as_ref().map_or(0, Vec::len);
        for (kind, n) in [(ContainerKind::Init, inits), (ContainerKind::Regular, spec.containers.len())] {
            for i in 0..n {
                match config::generate_for(&req, &gates, kind, i, None) {
                    Ok(entry) => {
                        let text = serde_json::to_string(&entry.config).unwrap_or_default();
                        let back: ContainerConfig = serde_json::from_str(&text).unwrap_or_default();
                        prop_assert_eq!(&back, &entry.config);
                        prop_assert!(config::crictl::container_json(&entry.config).is_object());
                    }
                    Err((_, e)) => prop_assert!(!e.to_string().is_empty()),
                }
            }
        }
        // attach with everything started never panics and reports one outcome per start
        let mut plan = Plan::default();
        plan.actions.create_sandbox = true;
        plan.actions.containers_to_start = (0..spec.containers.len()).collect();
        podplan_core::steps::build(&req, &gates, &mut plan);
        if plan.sandbox_config.is_some() {
            prop_assert_eq!(plan.container_configs.len() + plan.errors.len(), spec.containers.len());
        }
    }

    #[test]
    fn environment_order_is_deterministic(v in pod_request()) {
        let parsed = parse(v);
        prop_assume!(parsed.is_some(), "generated requests should parse");
        let Some(req) = parsed else { return Ok(()); };
        let gates = FeatureGates::resolve(&req.feature_gates);
        let node = req.node.clone().unwrap_or_default();
        let ips = req.runtime_status.as_ref().map(|s| s.ips.clone()).unwrap_or_default();
        let spec = req.pod.spec.clone().unwrap_or_default();
        for c in &spec.containers {
            let first = env::make_environment_variables(&req.pod, c, &ips, &node, &gates);
            let second = env::make_environment_variables(&req.pod, c, &ips, &node, &gates);
            prop_assert_eq!(&first, &second);
            if let Ok(list) = first {
                let names: Vec<&String> = list.iter().map(|(n, _)| n).collect();
                let mut sorted = names.clone();
                sorted.sort();
                sorted.dedup();
                prop_assert_eq!(names, sorted, "env names must be unique and sorted by name");
            }
        }
        // The same holds for the generated ContainerConfig.envs (no device envs here).
        for i in 0..spec.containers.len() {
            if let Ok(e) = config::generate_for(&req, &gates, ContainerKind::Regular, i, None) {
                let keys: Vec<&String> = e.config.envs.iter().map(|kv| &kv.key).collect();
                let mut sorted = keys.clone();
                sorted.sort();
                prop_assert_eq!(keys, sorted);
            }
        }
    }
}

#[test]
fn env_order_ignores_declaration_order() {
    let make = |env: Value| {
        let req = parse(json!({
            "pod": {"metadata": {"name": "p", "namespace": "ns"},
                    "spec": {"enableServiceLinks": true, "containers": [{"name": "c", "env": env}]}},
            "node": {"services": [{"metadata": {"name": "kubernetes", "namespace": "default"},
                                   "spec": {"clusterIP": "10.0.0.1", "ports": [{"port": 443}]}}]}
        }));
        let req = req.unwrap_or_default();
        let spec = req.pod.spec.clone().unwrap_or_default();
        env::make_environment_variables(
            &req.pod,
            &spec.containers[0],
            &[],
            &req.node.clone().unwrap_or_default(),
            &FeatureGates::default(),
        )
    };
    let a = make(json!([{"name": "Z", "value": "1"}, {"name": "A", "value": "2"}]));
    let b = make(json!([{"name": "A", "value": "2"}, {"name": "Z", "value": "1"}]));
    assert!(a.is_ok());
    assert_eq!(a, b);
    let names: Vec<String> = a.unwrap_or_default().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names.first().map(String::as_str), Some("A"));
    assert!(names.contains(&"KUBERNETES_SERVICE_HOST".to_string()));
}
