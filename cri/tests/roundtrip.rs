//! Every config podplan produces survives core → protobuf bytes → core unchanged:
//! the configs of the conformance corpus (expected and generated), configs attached to
//! plans for the requests of the actions corpus and for richer hand-made requests, and
//! one config with every field set.
//!
//! Every one of those configs is also parsed by a standard proto3 JSON parser
//! (prost-reflect, unknown fields denied) against the `runtime.v1` descriptor protox builds
//! from this crate's `.proto` (upstream names and numbers): podplan's strict proto3 JSON
//! (`podplan_core::cri::proto3`) and the `--emit-crictl` documents, each of which must
//! decode back to the same config.

#![expect(
    clippy::panic,
    reason = "test helpers outside #[test] fns fail by panicking"
)]

use std::path::{Path, PathBuf};

use podplan_core::config::{self, ContainerKind};
use podplan_core::cri::{
    ContainerConfig, LinuxContainerConfig, LinuxContainerResources, LinuxPodSandboxConfig,
    PodSandboxConfig,
};
use podplan_core::features::FeatureGates;
use podplan_core::plan::Plan;
use podplan_core::request::PlanRequest;
use serde_json::Value;

fn corpus(kind: &str) -> Vec<(PathBuf, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../conformance")
        .join(kind);
    let mut out = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                if let Ok(v) = serde_json::from_str(&text) {
                    out.push((p, v));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[derive(Default)]
struct Collected {
    sandboxes: Vec<(String, PodSandboxConfig)>,
    containers: Vec<(String, ContainerConfig)>,
}

impl Collected {
    fn sandbox_value(&mut self, what: &str, v: Option<&Value>) {
        if let Some(c) = v.and_then(|v| serde_json::from_value(v.clone()).ok()) {
            self.sandboxes.push((what.to_string(), c));
        }
    }
    fn container_value(&mut self, what: &str, v: Option<&Value>) {
        if let Some(c) = v.and_then(|v| serde_json::from_value(v.clone()).ok()) {
            self.containers.push((what.to_string(), c));
        }
    }
    fn plan(&mut self, what: &str, plan: &Plan) {
        if let Some(s) = &plan.sandbox_config {
            self.sandboxes.push((format!("{what} sandbox"), s.clone()));
        }
        for e in &plan.container_configs {
            self.containers
                .push((format!("{what} {}", e.name), e.config.clone()));
        }
    }
}

fn descriptors() -> &'static prost_reflect::DescriptorPool {
    static POOL: std::sync::OnceLock<prost_reflect::DescriptorPool> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("proto");
        let compiled = protox::Compiler::new([include])
            .and_then(|mut c| {
                c.open_file("podplan/runtime_v1_configs.proto")?;
                Ok(c)
            })
            .map(|c| c.descriptor_pool());
        match compiled {
            Ok(pool) => pool,
            Err(e) => panic!("the runtime.v1 proto does not compile: {e}"),
        }
    })
}

/// Parses `json` as proto3 JSON of `runtime.v1.<message>` (unknown fields denied) and
/// gives the protobuf bytes.
fn proto3_parse(message: &str, json: &Value, what: &str) -> Vec<u8> {
    use prost::Message;
    let Some(desc) = descriptors().get_message_by_name(&format!("runtime.v1.{message}")) else {
        panic!("runtime.v1.{message} is not in the descriptor");
    };
    let text = json.to_string();
    let mut de = serde_json::Deserializer::from_str(&text);
    let parsed = prost_reflect::DynamicMessage::deserialize_with_options(
        desc,
        &mut de,
        &prost_reflect::DeserializeOptions::new(),
    );
    match parsed {
        Ok(m) => m.encode_to_vec(),
        Err(e) => panic!("{what}: not proto3 JSON of runtime.v1.{message}: {e}\n{text}"),
    }
}

/// The strict proto3 JSON and the crictl document of each config parse as proto3 JSON
/// and decode to the same config.
fn check_proto3_json(c: &Collected) {
    for (what, s) in &c.sandboxes {
        for (form, json) in [
            ("proto3", podplan_core::cri::proto3::sandbox_config(s)),
            ("crictl", config::crictl::sandbox_json(s)),
        ] {
            let bytes = proto3_parse("PodSandboxConfig", &json, &format!("{what} ({form})"));
            let back = podplan_cri::decode_sandbox_config(&bytes);
            assert!(
                back.as_ref().is_ok_and(|b| b == s),
                "{what} ({form}): the proto3 JSON means another sandbox config: {back:?}"
            );
        }
    }
    for (what, k) in &c.containers {
        for (form, json) in [
            ("proto3", podplan_core::cri::proto3::container_config(k)),
            ("crictl", config::crictl::container_json(k)),
        ] {
            let bytes = proto3_parse("ContainerConfig", &json, &format!("{what} ({form})"));
            let back = podplan_cri::decode_container_config(&bytes);
            assert!(
                back.as_ref().is_ok_and(|b| b == k),
                "{what} ({form}): the proto3 JSON means another container config: {back:?}"
            );
        }
    }
}

fn check_all(c: &Collected) -> (usize, usize) {
    check_proto3_json(c);
    for (what, s) in &c.sandboxes {
        let bytes = podplan_cri::encode_sandbox_config(s);
        let back = podplan_cri::decode_sandbox_config(&bytes);
        assert!(
            back.as_ref().is_ok_and(|b| b == s),
            "{what}: sandbox config changed in the round trip: {back:?}"
        );
    }
    for (what, s) in &c.containers {
        let bytes = podplan_cri::encode_container_config(s);
        let back = podplan_cri::decode_container_config(&bytes);
        assert!(
            back.as_ref().is_ok_and(|b| b == s),
            "{what}: container config changed in the round trip: {back:?}"
        );
    }
    (c.sandboxes.len(), c.containers.len())
}

fn full_plan(request: &PlanRequest) -> Plan {
    let spec = request.pod.spec.as_ref();
    let mut plan = Plan::default();
    plan.actions.create_sandbox = true;
    plan.actions.init_containers_to_start = (0..spec
        .and_then(|s| s.init_containers.as_ref())
        .map_or(0, Vec::len))
        .filter(|i| {
            spec.and_then(|s| s.init_containers.as_ref())
                .and_then(|l| l.get(*i))
                .is_some_and(|c| c.restart_policy.as_deref() == Some("Always"))
        })
        .collect();
    plan.actions.containers_to_start = (0..spec.map_or(0, |s| s.containers.len())).collect();
    plan.actions.ephemeral_containers_to_start = (0..spec
        .and_then(|s| s.ephemeral_containers.as_ref())
        .map_or(0, Vec::len))
        .collect();
    let gates = FeatureGates::resolve(&request.feature_gates);
    podplan_core::steps::build(request, &gates, &mut plan);
    plan
}

#[test]
fn config_corpus_round_trips() {
    let mut c = Collected::default();
    let mut vectors = 0;
    for (path, v) in corpus("config") {
        let name = path.display().to_string();
        let function = v.get("function").and_then(Value::as_str).unwrap_or("");
        let produced = podplan_core::conformance::config::produce(&v).unwrap_or(Value::Null);
        let expected = v.get("expected");
        match function {
            "sandboxConfig" => {
                vectors += 1;
                c.sandbox_value(&name, expected.and_then(|e| e.get("config")));
                c.sandbox_value(&name, produced.get("config"));
            }
            "containerConfig" => {
                vectors += 1;
                c.container_value(&name, expected.and_then(|e| e.get("config")));
                c.container_value(&name, produced.get("config"));
            }
            "linuxContainerConfig" => {
                for linux in [expected, Some(&produced)].into_iter().flatten() {
                    if let Ok(l) = serde_json::from_value::<LinuxContainerConfig>(linux.clone()) {
                        c.containers.push((
                            name.clone(),
                            ContainerConfig {
                                linux: Some(l),
                                ..ContainerConfig::default()
                            },
                        ));
                    }
                }
            }
            "sandboxResources" | "calculateLinuxResources" | "linuxContainerResources" => {
                for r in [expected, Some(&produced)].into_iter().flatten() {
                    let mut found: Vec<Value> = Vec::new();
                    match r.as_object() {
                        Some(o) if o.contains_key("resources") || o.contains_key("overhead") => {
                            found.extend(o.values().cloned());
                        }
                        Some(o) if o.values().all(Value::is_object) && !o.is_empty() => {
                            found.extend(o.values().cloned());
                        }
                        _ => found.push(r.clone()),
                    }
                    for one in found {
                        if let Ok(res) = serde_json::from_value::<LinuxContainerResources>(one) {
                            c.sandboxes.push((
                                name.clone(),
                                PodSandboxConfig {
                                    linux: Some(LinuxPodSandboxConfig {
                                        resources: Some(res),
                                        ..LinuxPodSandboxConfig::default()
                                    }),
                                    ..PodSandboxConfig::default()
                                },
                            ));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let (s, k) = check_all(&c);
    eprintln!("round-tripped {s} sandbox and {k} container configs from {vectors} sandbox/container vectors");
    assert!(
        vectors >= 12,
        "the config corpus should hold the sandbox and container vectors"
    );
    assert!(s > 0 && k > 0);
}

#[test]
fn plans_for_the_actions_corpus_round_trip() {
    let mut c = Collected::default();
    for (path, v) in corpus("actions") {
        let Some(req) = v.get("request") else {
            continue;
        };
        let mut req = req.clone();
        // The action vectors' raw pods leave enableServiceLinks nil (the kubelet then
        // refuses to build an env); give them the API default so configs exist.
        if let Some(spec) = req.pointer_mut("/pod/spec").and_then(Value::as_object_mut) {
            spec.entry("enableServiceLinks")
                .or_insert(Value::Bool(true));
        }
        let Ok(request) = podplan_core::api::parse_request_value(req) else {
            continue;
        };
        c.plan(&path.display().to_string(), &full_plan(&request));
    }
    let (s, k) = check_all(&c);
    eprintln!("round-tripped {s} sandbox and {k} container configs from action-corpus plans");
    assert!(s > 50 && k > 50);
}

#[test]
fn rich_plans_round_trip() {
    let request = podplan_core::api::parse_request_value(serde_json::json!({
        "pod": {
            "metadata": {"name": "rich", "namespace": "ns", "uid": "0f0e-11",
                          "labels": {"app": "rich"}, "annotations": {"a": "b"},
                          "deletionGracePeriodSeconds": 5},
            "spec": {
                "enableServiceLinks": true,
                "hostname": "h", "subdomain": "sub", "setHostnameAsFQDN": true,
                "hostUsers": false,
                "dnsPolicy": "ClusterFirst",
                "dnsConfig": {"nameservers": ["1.1.1.1"], "searches": ["x.example"],
                               "options": [{"name": "ndots", "value": "2"}, {"name": "edns0"}]},
                "terminationGracePeriodSeconds": 30,
                "securityContext": {"runAsUser": 1000, "runAsGroup": 3000, "fsGroup": 2000,
                    "supplementalGroups": [4000], "supplementalGroupsPolicy": "Strict",
                    "seLinuxOptions": {"level": "s0:c1"},
                    "seccompProfile": {"type": "Localhost", "localhostProfile": "p.json"},
                    "sysctls": [{"name": "net.core.somaxconn", "value": "1024"}]},
                "overhead": {"cpu": "250m", "memory": "64Mi"},
                "volumes": [{"name": "data", "emptyDir": {}},
                            {"name": "cfg", "configMap": {"name": "cm"}},
                            {"name": "blk", "persistentVolumeClaim": {"claimName": "c"}}],
                "initContainers": [{"name": "side", "image": "envoy", "restartPolicy": "Always",
                                    "resources": {"requests": {"memory": "64Mi"}}}],
                "containers": [{
                    "name": "app", "image": "nginx:1.27", "command": ["/bin/$(MODE)"],
                    "args": ["--port=$(PORT)"], "workingDir": "/w", "stdin": true, "tty": true,
                    "terminationMessagePath": "/dev/termination-log",
                    "ports": [{"name": "http", "containerPort": 80, "hostPort": 8080, "protocol": "TCP"},
                              {"containerPort": 53, "protocol": "UDP", "hostIP": "::1"}],
                    "env": [{"name": "MODE", "value": "serve"}, {"name": "PORT", "value": "80"},
                            {"name": "NODE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}}],
                    "volumeMounts": [{"name": "data", "mountPath": "/data", "subPathExpr": "$(MODE)",
                                      "mountPropagation": "HostToContainer"},
                                     {"name": "cfg", "mountPath": "/etc/cfg", "readOnly": true,
                                      "recursiveReadOnly": "IfPossible"}],
                    "volumeDevices": [{"name": "blk", "devicePath": "/dev/xvda"}],
                    "resources": {"requests": {"cpu": "500m", "memory": "256Mi", "hugepages-2Mi": "4Mi"},
                                  "limits": {"cpu": "1", "memory": "512Mi", "hugepages-2Mi": "4Mi"}},
                    "securityContext": {"capabilities": {"add": ["NET_ADMIN"], "drop": ["ALL"]},
                        "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
                        "procMount": "Unmasked",
                        "appArmorProfile": {"type": "Localhost", "localhostProfile": "k8s-nginx"}},
                    "lifecycle": {"preStop": {"sleep": {"seconds": 3}}, "stopSignal": "SIGRTMIN+3"}
                }],
                "ephemeralContainers": [{"name": "debug", "image": "busybox", "targetContainerName": "app"}]
            }
        },
        "runtimeStatus": {"id": "0f0e-11", "name": "rich", "namespace": "ns", "ips": ["10.1.2.3", "fd00::3"],
            "containerStatuses": [{"id": "containerd://abc", "name": "app", "state": "running", "restartCount": 2}]},
        "featureGates": {"ContainerStopSignals": true},
        "node": {
            "hostIPs": ["192.168.0.10"], "cgroupVersion": "v2", "swapControllerAvailable": true,
            "hugePageSizes": ["2MB", "1GB"], "selinuxEnabled": true, "cgroupDriver": "systemd",
            "kubelet": {"clusterDomain": "cluster.local", "clusterDNS": ["10.96.0.10"],
                        "memorySwapBehavior": "LimitedSwap", "memoryThrottlingFactor": 0.8,
                        "memoryReservationPolicy": "TieredReservation"},
            "hostDNS": {"servers": ["192.168.0.1"], "searches": ["corp."], "options": ["ndots:1"]},
            "exclusiveCPUs": {"app": true},
            "cpusets": {"app": {"cpus": "2-3", "mems": "0"}},
            "deviceAllocations": {"app": {"devices": [{"pathOnHost": "/dev/nvidia0", "pathInContainer": "/dev/nvidia0", "permissions": "rw"}],
                                          "mounts": [{"hostPath": "/usr/lib/nv", "containerPath": "/usr/lib/nv", "readOnly": true}],
                                          "envs": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "0"}],
                                          "annotations": [{"name": "cdi.k8s.io/x", "value": "y"}],
                                          "cdiDevices": ["nvidia.com/gpu=0"]}},
            "images": {"nginx:1.27": {"imageRef": "sha256:abc", "uid": 101}},
            "runtimeHandlerFeatures": {"recursiveReadOnlyMounts": true, "userNamespaces": true}
        }
    }));
    let Ok(request) = request else {
        panic!("the rich request should parse: {request:?}");
    };
    let plan = full_plan(&request);
    assert!(plan.errors.is_empty(), "{:?}", plan.errors);
    let app = plan
        .container_configs
        .iter()
        .find(|e| e.name == "app")
        .map(|e| e.config.clone())
        .unwrap_or_default();
    // The rich config really exercises the rarely-set fields.
    assert!(!app.mounts.is_empty() && !app.devices.is_empty() && !app.cdi_devices.is_empty());
    assert!(app.mounts.iter().all(|m| !m.uid_mappings.is_empty()));
    assert_ne!(app.stop_signal, podplan_core::cri::Signal::RuntimeDefault);
    let mut c = Collected::default();
    c.plan("rich", &plan);
    for (i, _) in [0].iter().enumerate() {
        if let Ok(e) = config::generate_for(
            &request,
            &FeatureGates::default(),
            ContainerKind::Regular,
            i,
            None,
        ) {
            c.containers.push(("generate_for".into(), e.config));
        }
    }
    let (s, k) = check_all(&c);
    assert_eq!((s, k), (1, 4));
}

#[test]
fn every_field_set_round_trips() {
    let everything = serde_json::json!({
        "metadata": {"name": "n", "attempt": 3},
        "image": {"image": "i", "annotations": {"k": "v"}, "userSpecifiedImage": "u",
                  "runtimeHandler": "h", "imageRef": "r"},
        "command": ["c"], "args": ["a"], "workingDir": "/w",
        "envs": [{"key": "K", "value": "V"}],
        "mounts": [{"containerPath": "/c", "hostPath": "/h", "readonly": true, "selinuxRelabel": true,
                    "propagation": "PROPAGATION_BIDIRECTIONAL",
                    "uidMappings": [{"hostId": 1, "containerId": 2, "length": 3}],
                    "gidMappings": [{"hostId": 4, "containerId": 5, "length": 6}],
                    "recursiveReadOnly": true, "image": {"image": "img"}, "imageSubPath": "sp"}],
        "devices": [{"containerPath": "/dev/a", "hostPath": "/dev/b", "permissions": "rwm"}],
        "labels": {"l": "1"}, "annotations": {"a": "2"}, "logPath": "n/3.log",
        "stdin": true, "stdinOnce": true, "tty": true,
        "linux": {
            "resources": {"cpuPeriod": 1, "cpuQuota": -1, "cpuShares": 2, "memoryLimitInBytes": 3,
                          "oomScoreAdj": -997, "cpusetCpus": "0-1", "cpusetMems": "0",
                          "hugepageLimits": [{"pageSize": "2MB", "limit": 4}],
                          "unified": {"memory.high": "5"}, "memorySwapLimitInBytes": 6},
            "securityContext": {
                "capabilities": {"addCapabilities": ["A"], "dropCapabilities": ["D"], "addAmbientCapabilities": ["X"]},
                "privileged": true,
                "namespaceOptions": {"network": "NODE", "pid": "TARGET", "ipc": "CONTAINER", "targetId": "t",
                                     "usernsOptions": {"mode": "NODE", "uids": [{"hostId": 1, "containerId": 1, "length": 1}],
                                                       "gids": [{"hostId": 2, "containerId": 1, "length": 1}]}},
                "selinuxOptions": {"user": "u", "role": "r", "type": "t", "level": "l"},
                "runAsUser": {"value": 7}, "runAsGroup": {"value": 8}, "runAsUsername": "user",
                "readonlyRootfs": true, "supplementalGroups": [9], "supplementalGroupsPolicy": "Strict",
                "noNewPrivs": true, "maskedPaths": ["/m"], "readonlyPaths": ["/r"],
                "seccomp": {"profileType": "Localhost", "localhostRef": "/s"},
                "apparmor": {"profileType": "Unconfined"},
                "apparmorProfile": "unconfined", "seccompProfilePath": "localhost//s"
            }
        },
        "windows": {"resources": {"cpuShares": 1, "cpuCount": 2, "cpuMaximum": 3, "memoryLimitInBytes": 4,
                                  "rootfsSizeInBytes": 5, "affinityCpus": [{"cpuMask": 6, "cpuGroup": 7}]},
                    "securityContext": {"runAsUsername": "w", "credentialSpec": "cs", "hostProcess": true}},
        "CDIDevices": [{"name": "v/c=1"}],
        "stopSignal": "SIGRTMAXMINUS2"
    });
    let container: ContainerConfig = serde_json::from_value(everything.clone()).unwrap_or_default();
    assert_eq!(
        serde_json::to_value(&container).unwrap_or_default(),
        everything
    );
    let sandbox_json = serde_json::json!({
        "metadata": {"name": "p", "uid": "u", "namespace": "n", "attempt": 1},
        "hostname": "h", "logDirectory": "/l",
        "dnsConfig": {"servers": ["s"], "searches": ["x"], "options": ["o"]},
        "portMappings": [{"protocol": "SCTP", "containerPort": 1, "hostPort": 2, "hostIp": "::"}],
        "labels": {"l": "v"}, "annotations": {"a": "v"},
        "linux": {"cgroupParent": "/kubepods", "sysctls": {"k": "v"},
                  "securityContext": {"namespaceOptions": {"network": "NODE"},
                      "selinuxOptions": {"user": "u"}, "runAsUser": {"value": 1}, "runAsGroup": {"value": 2},
                      "readonlyRootfs": true, "supplementalGroups": [3], "supplementalGroupsPolicy": "Strict",
                      "privileged": true, "seccomp": {"profileType": "Unconfined"},
                      "apparmor": {"profileType": "Localhost", "localhostRef": "p"}, "seccompProfilePath": "x"},
                  "overhead": {"cpuShares": 1}, "resources": {"cpuShares": 2}},
        "windows": {"securityContext": {"runAsUsername": "w", "credentialSpec": "c", "hostProcess": true,
                                        "namespaceOptions": {"network": "NODE"}}}
    });
    let sandbox: PodSandboxConfig =
        serde_json::from_value(sandbox_json.clone()).unwrap_or_default();
    assert_eq!(
        serde_json::to_value(&sandbox).unwrap_or_default(),
        sandbox_json
    );
    let mut c = Collected::default();
    c.containers.push(("everything".into(), container));
    c.sandboxes.push(("everything".into(), sandbox));
    check_all(&c);
}

#[test]
fn binary_secret_env_values_pass_through_unchanged() {
    // Secret `data` is base64 in the API: /wD+YQ== is the bytes ff 00 fe 61 (not UTF-8).
    let request = podplan_core::api::parse_request_value(serde_json::json!({
        "pod": {"metadata": {"name": "b", "namespace": "ns", "uid": "u-b"},
                "spec": {"containers": [{"name": "app", "image": "busybox",
                    "env": [{"name": "BIN", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
                            {"name": "TEXT", "value": "abcd"},
                            {"name": "SPLICED", "value": "<$(BIN)>"}],
                    "envFrom": [{"prefix": "FROM_", "secretRef": {"name": "s"}}]}]}},
        "node": {"secrets": {"s": {"metadata": {"name": "s"}, "data": {"k": "/wD+YQ=="}}}},
        "apiDefaults": true
    }));
    let Ok(request) = request else {
        panic!("the request should parse: {request:?}");
    };
    let plan = match podplan_core::plan(&request) {
        Ok(p) => p,
        Err(e) => panic!("no plan: {e}"),
    };
    let config = plan
        .container_configs
        .first()
        .map(|e| e.config.clone())
        .unwrap_or_default();
    let value = |key: &str| {
        config
            .envs
            .iter()
            .find(|kv| kv.key == key)
            .map(|kv| kv.value.as_bytes().to_vec())
    };
    let raw = vec![0xff, 0x00, 0xfe, b'a'];
    assert_eq!(value("BIN"), Some(raw.clone()));
    assert_eq!(value("FROM_k"), Some(raw.clone()));
    assert_eq!(value("SPLICED"), Some([&b"<"[..], &raw, b">"].concat()));
    assert_eq!(value("TEXT"), Some(b"abcd".to_vec()));
    // Readable plan JSON: text stays text, binary is {"base64": ...}.
    let readable = serde_json::to_value(&plan).unwrap_or_default();
    let envs = readable
        .pointer("/containerConfigs/0/config/envs")
        .cloned()
        .unwrap_or_default();
    assert!(envs.as_array().is_some_and(|l| l
        .iter()
        .any(|e| e["key"] == "BIN" && e["value"] == serde_json::json!({"base64": "/wD+YQ=="}))));
    assert!(envs
        .as_array()
        .is_some_and(|l| l.iter().any(|e| e["key"] == "TEXT" && e["value"] == "abcd")));
    // Strict proto3 JSON: every value is base64 ("abcd" is YWJjZA==, not the bytes of "abcd"
    // decoded as base64).
    let strict = podplan_core::api::strict_value(&plan);
    let senvs = strict
        .pointer("/containerConfigs/0/config/envs")
        .cloned()
        .unwrap_or_default();
    assert!(senvs.as_array().is_some_and(|l| l
        .iter()
        .any(|e| e["key"] == "TEXT" && e["value"] == "YWJjZA==")));
    // Protobuf carries the raw bytes.
    let bytes = podplan_cri::encode_container_config(&config);
    assert!(bytes.windows(raw.len()).any(|w| w == raw.as_slice()));
    let mut c = Collected::default();
    c.plan("binary", &plan);
    check_all(&c);
}

#[test]
fn the_proto3_check_rejects_the_readable_env_form_and_unknown_fields() {
    use prost::Message;
    let desc = descriptors().get_message_by_name("runtime.v1.ContainerConfig");
    let Some(desc) = desc else {
        panic!("no ContainerConfig in the descriptor");
    };
    let parse = |text: &str| {
        let mut de = serde_json::Deserializer::from_str(text);
        prost_reflect::DynamicMessage::deserialize_with_options(
            desc.clone(),
            &mut de,
            &prost_reflect::DeserializeOptions::new(),
        )
        .map(|m| m.encode_to_vec())
    };
    // "debug" is not base64: the readable form is not proto3 JSON of bytes.
    assert!(parse(r#"{"envs": [{"key": "LEVEL", "value": "debug"}]}"#).is_err());
    assert!(parse(r#"{"envs": [{"key": "LEVEL", "value": {"base64": "AA=="}}]}"#).is_err());
    assert!(parse(r#"{"bogus": 1}"#).is_err());
    // "abcd" is base64 of other bytes: the strict form says YWJjZA==.
    let strict = parse(r#"{"envs": [{"key": "A", "value": "YWJjZA=="}]}"#);
    let back = strict
        .ok()
        .map(|b| podplan_cri::decode_container_config(&b));
    let value = back
        .and_then(Result::ok)
        .and_then(|c| c.envs.first().map(|kv| kv.value.as_bytes().to_vec()));
    assert_eq!(value.as_deref(), Some(&b"abcd"[..]));
}
