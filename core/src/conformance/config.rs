//! `config` vectors: one CRI-config generator function, its input and expected output.
//!
//! Comparison (see `conformance/README.md`): CRI messages are normalised through their
//! typed form first, so protobuf defaults (absent ≡ 0 / "" / false / [] / {} / the first
//! enum value) compare equal; objects are unordered, arrays ordered. `subset` compares
//! only the keys the expectation lists (recursively), `errorOnly` asks for any error,
//! `errorContains` for an error whose message contains `expected.error.contains`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceRequirements, VolumeMount};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::config::container::{self as cc, ContainerKind};
use crate::config::errors::{ConfigError, SandboxConfigError};
use crate::config::expand;
use crate::config::run_options::{self, RunContainerOptions};
use crate::config::security::{self, ImageUser};
use crate::config::{apparmor, env, labels, ports, resources, sandbox};
use crate::cri::{
    ContainerConfig, HugepageLimit, IdMapping, LinuxContainerConfig, LinuxContainerResources,
    NamespaceMode, PodSandboxConfig, PortMapping, Protocol, SecurityProfile, UserNamespace,
};
use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::{pod_status::StatusView, restart};
use crate::request::node::NodeContext;
use crate::runtime::RuntimeStatus;

use super::diff::json_diff;

/// What a generator produced: an output, or the error the kubelet would report.
enum Produced {
    Output(Value),
    Error(Value, String),
}

/// How outputs of a function are normalised before comparing.
#[derive(Clone, Copy)]
enum Shape {
    Plain,
    ContainerConfig,
    SandboxConfig,
    LinuxConfig,
    Resources,
    ResourcesMap,
    SandboxResources,
    Hugepages,
    Ports,
    Protocol,
    AppArmor,
    RunOptions,
}

/// Checks one config vector against its own `expected`; `Err` carries a readable diff.
pub(crate) fn check(vector: &Value) -> Result<(), String> {
    let expected = vector.get("expected").ok_or("vector has no `expected`")?;
    check_against(vector, expected)
}

/// Checks one config vector against `expected` (its own, or a replacement such as the
/// 1.37 expectation recorded in `conformance/deviations.json`).
pub(crate) fn check_against(vector: &Value, expected: &Value) -> Result<(), String> {
    let function = vector
        .get("function")
        .and_then(Value::as_str)
        .ok_or("vector has no `function`")?;
    let input = vector.get("input").ok_or("vector has no `input`")?;
    let compare = vector
        .get("compare")
        .and_then(Value::as_str)
        .unwrap_or("exact");
    let (produced, shape) = run(function, input)?;
    match compare {
        "errorOnly" => match produced {
            Produced::Error(..) => Ok(()),
            Produced::Output(v) => Err(format!("  expected an error, got {v}")),
        },
        "errorContains" => {
            let needle = expected
                .get("error")
                .and_then(|e| e.get("contains"))
                .and_then(Value::as_str)
                .ok_or("errorContains vector without expected.error.contains")?;
            match produced {
                Produced::Error(_, msg) if msg.contains(needle) => Ok(()),
                Produced::Error(_, msg) => {
                    Err(format!("  error {msg:?} does not contain {needle:?}"))
                }
                Produced::Output(v) => Err(format!("  expected an error, got {v}")),
            }
        }
        "exact" | "subset" => {
            let actual = match produced {
                Produced::Output(v) => v,
                Produced::Error(v, _) => v,
            };
            let e = canon(expected, shape)?;
            let a = canon(&actual, shape)?;
            let same = if compare == "exact" {
                e == a
            } else {
                subset(expected, &e, &a)
            };
            if same {
                Ok(())
            } else if compare == "subset" {
                Err(json_diff(&project(expected, &e), &project(expected, &a)))
            } else {
                Err(json_diff(&e, &a))
            }
        }
        other => Err(format!("unknown compare mode {other:?}")),
    }
}

/// Runs a vector's generator and returns what it produced: its output, or
/// `{"error": {...}}` when the generator failed (for tools and tests that need the
/// generated configs themselves).
pub fn produce(vector: &Value) -> Result<Value, String> {
    let function = vector
        .get("function")
        .and_then(Value::as_str)
        .ok_or("vector has no `function`")?;
    let input = vector.get("input").ok_or("vector has no `input`")?;
    Ok(match run(function, input)?.0 {
        Produced::Output(v) | Produced::Error(v, _) => v,
    })
}

fn field<T: DeserializeOwned>(input: &Value, key: &str) -> Result<T, String> {
    let v = input.get(key).cloned().unwrap_or(Value::Null);
    serde_json::from_value(v).map_err(|e| format!("input.{key}: {e}"))
}

fn opt_field<T: DeserializeOwned>(input: &Value, key: &str) -> Result<Option<T>, String> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| format!("input.{key}: {e}")),
    }
}

fn gates(input: &Value) -> Result<FeatureGates, String> {
    let o: Option<BTreeMap<String, bool>> = opt_field(input, "featureGates")?;
    Ok(FeatureGates::resolve(&o.unwrap_or_default()))
}

fn node(input: &Value) -> Result<NodeContext, String> {
    Ok(opt_field(input, "node")?.unwrap_or_default())
}

fn container_at(pod: &Pod, input: &Value) -> Result<Container, String> {
    let index: usize = opt_field(input, "containerIndex")?.unwrap_or(0);
    pod.spec
        .as_ref()
        .and_then(|s| s.containers.get(index))
        .cloned()
        .ok_or_else(|| format!("the pod has no container at index {index}"))
}

/// `imageUser` as given (`null` = nil uid and empty name).
fn direct_image_user(input: &Value) -> Result<ImageUser, String> {
    let v: Option<Value> = opt_field(input, "imageUser")?;
    let Some(v) = v else {
        return Ok(ImageUser::default());
    };
    Ok(ImageUser {
        uid: opt_field(&v, "uid")?,
        username: opt_field(&v, "username")?.unwrap_or_default(),
    })
}

fn ok<T: Serialize>(v: T) -> Result<Produced, String> {
    serde_json::to_value(v)
        .map(Produced::Output)
        .map_err(|e| e.to_string())
}

fn container_error(e: &ConfigError) -> Produced {
    let msg = e.to_string();
    Produced::Error(
        json!({"error": {"reason": "CreateContainerConfigError", "message": msg}}),
        msg,
    )
}

fn run(function: &str, input: &Value) -> Result<(Produced, Shape), String> {
    let produced = match function {
        "containerConfig" => return container_config(input).map(|p| (p, Shape::ContainerConfig)),
        "runContainerOptions" => return run_container_options(input),
        "linuxContainerConfig" => {
            let pod: Pod = field(input, "pod")?;
            let c = container_at(&pod, input)?;
            let (n, g) = (node(input)?, gates(input)?);
            let user = direct_image_user(input)?;
            let target: Option<Value> = opt_field(input, "nsTarget")?;
            let userns = match test_helper_userns(&pod, &g) {
                Ok(u) => u,
                Err(e) => return Ok((container_error(&e), Shape::Plain)),
            };
            match security::container_security_context(&pod, &c, &user, userns, &n) {
                Err(e) => container_error(&e),
                Ok(mut sc) => {
                    if let Some(id) = target
                        .as_ref()
                        .and_then(|t| t.get("id"))
                        .and_then(Value::as_str)
                    {
                        if let Some(ns) = sc.namespace_options.as_mut() {
                            if ns.pid == NamespaceMode::Container {
                                ns.pid = NamespaceMode::Target;
                                ns.target_id = id.to_string();
                            }
                        }
                    }
                    let cfg = LinuxContainerConfig {
                        resources: Some(resources::container_resources(&pod, &c, &n, &g)),
                        security_context: Some(sc),
                    };
                    return ok(cfg).map(|p| (p, Shape::LinuxConfig));
                }
            }
        }
        "calculateLinuxResources" => {
            let milli = |key: &str| -> Result<Option<i64>, String> {
                let q: Option<String> = opt_field(input, key)?;
                q.map(|s| {
                    crate::quantity::Quantity::parse(&s)
                        .map(|q| q.milli_value())
                        .map_err(|e| e.to_string())
                })
                .transpose()
            };
            let mem: Option<String> = opt_field(input, "memoryLimit")?;
            let memory_limit = mem
                .map(|s| crate::quantity::Quantity::parse(&s).map(|q| q.value()))
                .transpose()
                .map_err(|e| e.to_string())?
                .unwrap_or(0);
            let r = resources::calculate_linux_resources(
                resources::CpuMemory {
                    cpu_request_milli: milli("cpuRequest")?,
                    cpu_limit_milli: milli("cpuLimit")?.unwrap_or(0),
                    memory_limit,
                },
                opt_field(input, "disableCPUQuota")?.unwrap_or(false),
                &node(input)?,
                &gates(input)?,
            );
            return ok(r).map(|p| (p, Shape::Resources));
        }
        "linuxContainerResources" => {
            let pod: Pod = field(input, "pod")?;
            let (n, g) = (node(input)?, gates(input)?);
            let spec = pod.spec.as_ref().ok_or("pod without spec")?;
            // Regular containers first, then init containers (the kubelet generates
            // resources for both; names are unique within a pod).
            let find = |name: &str| {
                spec.containers
                    .iter()
                    .chain(spec.init_containers.iter().flatten())
                    .find(|c| c.name == name)
                    .ok_or_else(|| format!("no container {name}"))
            };
            if let Some(names) = opt_field::<Vec<String>>(input, "containerNames")? {
                let mut out = BTreeMap::new();
                for name in names {
                    let c = find(&name)?;
                    out.insert(
                        name.clone(),
                        resources::container_resources(&pod, c, &n, &g),
                    );
                }
                return ok(out).map(|p| (p, Shape::ResourcesMap));
            }
            let name: String = field(input, "containerName")?;
            let r = resources::container_resources(&pod, find(&name)?, &n, &g);
            return ok(r).map(|p| (p, Shape::Resources));
        }
        "hugepageLimits" => {
            let r: ResourceRequirements = field(input, "resources")?;
            let n = node(input)?;
            let limits = resources::hugepage_limits(r.limits.as_ref(), &n.huge_page_sizes);
            return ok(json!({ "hugepageLimits": limits })).map(|p| (p, Shape::Hugepages));
        }
        "sandboxConfig" => {
            let pod: Pod = field(input, "pod")?;
            let attempt: u32 = opt_field(input, "attempt")?.unwrap_or(0);
            match sandbox::generate_pod_sandbox_config(&pod, attempt, &node(input)?, &gates(input)?)
            {
                Ok((config, _)) => {
                    return ok(json!({ "config": config })).map(|p| (p, Shape::SandboxConfig))
                }
                Err(cause) => {
                    let msg = SandboxConfigError {
                        pod: crate::pod::format_pod(&pod),
                        cause,
                    }
                    .to_string();
                    Produced::Error(
                        json!({"error": {"reason": "CreatePodSandboxError", "message": msg}}),
                        msg,
                    )
                }
            }
        }
        "sandboxResources" => {
            let pod: Pod = field(input, "pod")?;
            let (n, g) = (node(input)?, gates(input)?);
            let out = json!({
                "resources": resources::sandbox_resources(&pod, &n, &g),
                "overhead": resources::sandbox_overhead(&pod, &n, &g),
            });
            return ok(out).map(|p| (p, Shape::SandboxResources));
        }
        "containerLabels" => {
            let pod: Pod = field(input, "pod")?;
            let c = container_at(&pod, input)?;
            ok(json!({ "labels": labels::container_labels(&pod, &c) }))?
        }
        "containerAnnotations" => {
            let pod: Pod = field(input, "pod")?;
            let c = container_at(&pod, input)?;
            let restart: i32 = opt_field(input, "restartCount")?.unwrap_or(0);
            let extra: NameValueList = opt_field::<Value>(input, "runContainerOptions")?
                .and_then(|o| o.get("annotations").cloned())
                .map(serde_json::from_value)
                .transpose()
                .map_err(|e| e.to_string())?
                .unwrap_or_default();
            ok(json!({ "annotations": labels::container_annotations(&pod, &c, restart, &extra) }))?
        }
        "sandboxLabels" => {
            let pod: Pod = field(input, "pod")?;
            ok(json!({ "labels": labels::sandbox_labels(&pod) }))?
        }
        "sandboxAnnotations" => {
            let pod: Pod = field(input, "pod")?;
            ok(json!({ "annotations": labels::sandbox_annotations(&pod) }))?
        }
        "containerHash" => {
            let c: Container = field(input, "container")?;
            let h = crate::hash::container_hash(&c.name, c.image.as_deref().unwrap_or_default());
            ok(json!({ "hash": format!("{h:x}"), "annotationValue": format!("{h:x}") }))?
        }
        "environment" => {
            let pod: Pod = field(input, "pod")?;
            let c = container_at(&pod, input)?;
            let ips: Vec<String> = opt_field(input, "podIPs")?.unwrap_or_default();
            match env::make_environment_variables(&pod, &c, &ips, &node(input)?, &gates(input)?) {
                Ok(list) => {
                    let env: Vec<Value> = list
                        .into_iter()
                        .map(|(name, value)| json!({"name": name, "value": value}))
                        .collect();
                    ok(json!({ "env": env }))?
                }
                Err(e) => container_error(&e),
            }
        }
        "expand" => {
            let text: String = field(input, "input")?;
            let contexts: Vec<BTreeMap<String, String>> =
                opt_field(input, "contexts")?.unwrap_or_default();
            let out = expand::expand(&text, |name| {
                contexts.iter().find_map(|m| m.get(name).cloned())
            });
            ok(json!({ "output": out }))?
        }
        "expandEnvSequence" => {
            let list: Vec<NameValuePair> = opt_field(input, "env")?.unwrap_or_default();
            let mut declared: BTreeMap<String, String> =
                opt_field(input, "declared")?.unwrap_or_default();
            let service: BTreeMap<String, String> =
                opt_field(input, "serviceEnv")?.unwrap_or_default();
            for var in list {
                let v = expand::expand(&var.value, |name| {
                    declared.get(name).or_else(|| service.get(name)).cloned()
                });
                declared.insert(var.name, v);
            }
            ok(json!({ "env": declared }))?
        }
        "expandCommand" => {
            let c: Container = field(input, "container")?;
            let env = env_pairs(input)?;
            let (command, args) =
                expand::expand_command_and_args(c.command.as_deref(), c.args.as_deref(), &env);
            ok(json!({ "command": command, "args": args }))?
        }
        "expandSubPath" => {
            let m: VolumeMount = field(input, "volumeMount")?;
            let env = expand::env_map(&env_pairs(input)?);
            match expand::mount_sub_path(&m, &env) {
                Ok(p) => ok(json!({ "subPath": p }))?,
                Err(e) => {
                    let msg = e.to_string();
                    Produced::Error(json!({"error": {"message": msg}}), msg)
                }
            }
        }
        "portMappings" => {
            let c: Container = field(input, "container")?;
            return ok(json!({ "portMappings": ports::make_port_mappings(&c) }))
                .map(|p| (p, Shape::Ports));
        }
        "hasPrivilegedContainer" => {
            let pod: Pod = field(input, "pod")?;
            ok(json!({ "privileged": security::has_privileged_container(&pod) }))?
        }
        "shouldContainerBeRestarted" => {
            let pod: Pod = field(input, "pod")?;
            let name: String = field(input, "containerName")?;
            let status: Option<RuntimeStatus> = opt_field(input, "runtimeStatus")?;
            let spec = pod.spec.as_ref().ok_or("pod without spec")?;
            let c = spec
                .containers
                .iter()
                .chain(spec.init_containers.iter().flatten())
                .find(|c| c.name == name)
                .ok_or_else(|| format!("no container {name}"))?;
            let request = crate::request::PlanRequest {
                pod: pod.clone(),
                runtime_status: status,
                ..crate::request::PlanRequest::default()
            };
            let view = StatusView::new(&request);
            let restart =
                restart::should_container_be_restarted(c, &pod, &view, &gates(input)?).yes;
            ok(json!({ "restart": restart }))?
        }
        "milliCPUToQuota" => {
            let milli: i64 = field(input, "milliCPU")?;
            let period: i64 = opt_field(input, "period")?.unwrap_or(0);
            let custom = gates(input)?.enabled(Gate::CustomCPUCFSQuotaPeriod);
            ok(json!({ "quota": resources::milli_cpu_to_quota(milli, period, custom) }))?
        }
        "toRuntimeProtocol" => {
            let p: String = opt_field(input, "protocol")?.unwrap_or_default();
            return ok(json!({ "protocol": ports::to_runtime_protocol(&p) }))
                .map(|p| (p, Shape::Protocol));
        }
        "appArmorProfile" => {
            let pod: Pod = field(input, "pod")?;
            let c = container_at(&pod, input)?;
            match apparmor::apparmor_profile(&pod, &c) {
                Ok((profile, deprecated)) => {
                    return ok(json!({ "apparmor": profile, "apparmorProfile": deprecated }))
                        .map(|p| (p, Shape::AppArmor))
                }
                Err(e) => container_error(&e),
            }
        }
        "verifyRunAsNonRoot" => {
            let pod: Pod = field(input, "pod")?;
            let c = container_at(&pod, input)?;
            match security::verify_run_as_non_root(&pod, &c, &direct_image_user(input)?) {
                Ok(()) => ok(json!({ "error": null }))?,
                Err(e) => container_error(&e),
            }
        }
        "imageUser" => {
            let status: Value = field(input, "imageStatus")?;
            let uid: Option<i64> = status
                .get("uid")
                .and_then(|u| u.get("value"))
                .and_then(Value::as_i64);
            let name = status.get("username").and_then(Value::as_str).unwrap_or("");
            let user = ImageUser::from_status(uid, name);
            ok(json!({ "uid": user.uid, "username": user.username }))?
        }
        other => return Err(format!("  function `{other}` is not implemented")),
    };
    Ok((produced, Shape::Plain))
}

type NameValueList = Vec<crate::request::node::NameValue>;

#[derive(serde::Deserialize)]
struct NameValuePair {
    name: String,
    #[serde(default)]
    value: String,
}

fn env_pairs(input: &Value) -> Result<Vec<(String, String)>, String> {
    let list: Vec<NameValuePair> = opt_field(input, "env")?.unwrap_or_default();
    Ok(list.into_iter().map(|p| (p.name, p.value)).collect())
}

/// The runtime helper of the kubelet's unit tests (`FakeRuntimeHelper`), which the
/// `containerConfig` and `linuxContainerConfig` vectors were taken with: its
/// `GetOrCreateUserNamespaceMappings` answers nothing for host-user pods (the real
/// kubelet answers `{mode: NODE}`, see [`security::user_namespace`]) and the mapping
/// 65536+65536 for `hostUsers: false`.
fn test_helper_userns(
    pod: &Pod,
    gates: &FeatureGates,
) -> Result<Option<UserNamespace>, ConfigError> {
    match pod.spec.as_ref().and_then(|s| s.host_users) {
        None | Some(true) if gates.enabled(Gate::UserNamespacesSupport) => Ok(None),
        None => Ok(None),
        Some(_) if !gates.enabled(Gate::UserNamespacesSupport) => Err(ConfigError::Input(
            "the feature gate \"UserNamespacesSupport\" is disabled: can't set spec.HostUsers"
                .into(),
        )),
        Some(_) => {
            let ids = vec![IdMapping {
                host_id: 65_536,
                container_id: 0,
                length: 65_536,
            }];
            Ok(Some(UserNamespace {
                mode: NamespaceMode::Pod,
                uids: ids.clone(),
                gids: ids,
            }))
        }
    }
}

/// `runContainerOptions`: the kubelet's `GenerateRunContainerOptions` for one container
/// (hostname, block devices, environment, `makeMounts`), the kubelet-side half that
/// `containerConfig` takes as an input. Errors are `CreateContainerConfigError`s.
fn run_container_options(input: &Value) -> Result<(Produced, Shape), String> {
    let pod: Pod = field(input, "pod")?;
    let kind: ContainerKind = opt_field(input, "containerType")?.unwrap_or(ContainerKind::Regular);
    let index: usize = opt_field(input, "containerIndex")?.unwrap_or(0);
    let (n, g) = (node(input)?, gates(input)?);
    let ips: Vec<String> = opt_field(input, "podIPs")?.unwrap_or_default();
    let generated = cc::select(&pod, kind, index)
        .and_then(|selected| run_options::generate(&pod, &selected.container, &ips, &n, &g));
    match generated {
        Ok(opts) => ok(opts).map(|p| (p, Shape::RunOptions)),
        Err(e) => Ok((container_error(&e), Shape::Plain)),
    }
}

/// `containerConfig`: `generateContainerConfig` with the kubelet test's runtime helper
/// (see [`test_helper_userns`]), whose `RunContainerOptions` are
/// `input.runContainerOptions` (default: none, plus the pod container directory when the
/// container has a termination message path, as `FakeRuntimeHelper` sets it).
fn container_config(input: &Value) -> Result<Produced, String> {
    let pod: Pod = field(input, "pod")?;
    let kind: ContainerKind = opt_field(input, "containerType")?.unwrap_or(ContainerKind::Regular);
    let index: usize = opt_field(input, "containerIndex")?.unwrap_or(0);
    let (n, g) = (node(input)?, gates(input)?);
    let selected = match cc::select(&pod, kind, index) {
        Ok(s) => s,
        Err(e) => return Ok(container_error(&e)),
    };
    let c = &selected.container;
    let restart_count: i32 = opt_field(input, "restartCount")?.unwrap_or(0);
    let image_ref: String =
        opt_field(input, "imageRef")?.unwrap_or_else(|| c.image.clone().unwrap_or_default());
    let status_user = direct_image_user(input)?;
    let image_user = ImageUser::from_status(status_user.uid, &status_user.username);
    let target: Option<Value> = opt_field(input, "nsTarget")?;
    let mut opts: RunContainerOptions =
        opt_field(input, "runContainerOptions")?.unwrap_or_default();
    if opts.pod_container_dir.is_empty()
        && c.termination_message_path
            .as_deref()
            .is_some_and(|p| !p.is_empty())
    {
        opts.pod_container_dir = crate::config::mounts::pod_container_dir(&pod, c, &n);
    }
    let inputs = cc::ContainerInputs {
        container: c,
        restart_count,
        image_ref,
        image_user,
        ns_target: target
            .as_ref()
            .and_then(|t| t.get("id"))
            .and_then(Value::as_str)
            .map(str::to_string),
        termination_log_id: cc::termination_log_id(&pod, c, restart_count, &n),
        userns: match test_helper_userns(&pod, &g) {
            Ok(u) => u,
            Err(e) => return Ok(container_error(&e)),
        },
        pod_qos: None,
    };
    Ok(
        match cc::generate_container_config(&pod, &inputs, &opts, &n, &g) {
            Ok(config) => Produced::Output(json!({ "config": config })),
            Err(e) => container_error(&e),
        },
    )
}

/// Normalises a value through the typed form of its shape, then drops empty objects
/// (protobuf: an absent message equals an empty one).
fn canon(v: &Value, shape: Shape) -> Result<Value, String> {
    fn typed<T: DeserializeOwned + Serialize>(v: &Value) -> Result<Value, String> {
        let t: T = serde_json::from_value(v.clone())
            .map_err(|e| format!("  not a valid CRI message: {e} in {v}"))?;
        serde_json::to_value(t).map_err(|e| e.to_string())
    }
    fn at<T: DeserializeOwned + Serialize>(v: &Value, key: &str) -> Result<Value, String> {
        let mut out = v.clone();
        if let Some(inner) = v.get(key).filter(|x| !x.is_null()) {
            if let Some(o) = out.as_object_mut() {
                o.insert(key.to_string(), typed::<T>(inner)?);
            }
        }
        Ok(out)
    }
    if v.get("error").is_some_and(|e| !e.is_null()) {
        return Ok(strip_empty(v.clone()));
    }
    let typed_value = match shape {
        Shape::Plain => v.clone(),
        Shape::ContainerConfig => at::<ContainerConfig>(v, "config")?,
        Shape::SandboxConfig => at::<PodSandboxConfig>(v, "config")?,
        Shape::LinuxConfig => typed::<LinuxContainerConfig>(v)?,
        Shape::Resources => typed::<LinuxContainerResources>(v)?,
        Shape::ResourcesMap => typed::<BTreeMap<String, LinuxContainerResources>>(v)?,
        Shape::SandboxResources => {
            let r = at::<LinuxContainerResources>(v, "resources")?;
            at::<LinuxContainerResources>(&r, "overhead")?
        }
        Shape::Hugepages => at::<Vec<HugepageLimit>>(v, "hugepageLimits")?,
        Shape::Ports => at::<Vec<PortMapping>>(v, "portMappings")?,
        Shape::Protocol => at::<Protocol>(v, "protocol")?,
        Shape::RunOptions => typed::<RunContainerOptions>(v)?,
        // `apparmor: null` and `{}` (RuntimeDefault) differ: keep the object as is.
        Shape::AppArmor => {
            let t = at::<SecurityProfile>(v, "apparmor")?;
            return Ok(t);
        }
    };
    Ok(strip_empty(typed_value))
}

/// Drops empty objects and nulls inside objects (absent ≡ `{}`), recursively.
fn strip_empty(v: Value) -> Value {
    match v {
        Value::Object(o) => {
            let mut out = Map::new();
            for (k, val) in o {
                let val = strip_empty(val);
                let empty = matches!(&val, Value::Object(m) if m.is_empty()) || val.is_null();
                if !empty {
                    out.insert(k, val);
                }
            }
            Value::Object(out)
        }
        Value::Array(a) => Value::Array(a.into_iter().map(strip_empty).collect()),
        other => other,
    }
}

/// `subset`: every key the raw expectation lists must match in the normalised values.
fn subset(raw: &Value, e: &Value, a: &Value) -> bool {
    let empty = Value::Object(Map::new());
    match raw {
        Value::Object(keys) => keys.iter().all(|(k, rv)| {
            let ev = e.get(k);
            let av = a.get(k);
            if rv.is_object() {
                subset(rv, ev.unwrap_or(&empty), av.unwrap_or(&empty))
            } else {
                ev == av || (ev.is_none() && av.is_some_and(is_zero))
            }
        }),
        _ => e == a,
    }
}

/// The part of `v` at the keys the raw expectation lists (for readable subset diffs).
fn project(raw: &Value, v: &Value) -> Value {
    match raw {
        Value::Object(keys) => {
            let mut out = Map::new();
            for (k, rv) in keys {
                if let Some(x) = v.get(k) {
                    out.insert(
                        k.clone(),
                        if rv.is_object() {
                            project(rv, x)
                        } else {
                            x.clone()
                        },
                    );
                }
            }
            Value::Object(out)
        }
        _ => v.clone(),
    }
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}
