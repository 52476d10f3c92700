//! CRI config generation: what the 1.37 kubelet sends in `RunPodSandbox`
//! (`generatePodSandboxConfig`) and `CreateContainer` (`generateContainerConfig`).
//!
//! Everything a real kubelet reads from disk, the API server, the runtime or its managers
//! is an explicit input: the pod, the runtime status, the feature gates and the
//! [`NodeContext`]. [`attach`] adds the configs a plan needs; the modules expose each
//! generator on its own (they are what the conformance vectors exercise).
//!
//! ```
//! let answer = podplan_core::config::preview_json(br#"{
//!   "pod": {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
//!           "spec": {"enableServiceLinks": true, "containers": [{"name": "app", "image": "nginx"}]}}
//! }"#);
//! let v: serde_json::Value = serde_json::from_slice(&answer).unwrap();
//! assert_eq!(v["sandboxConfig"]["logDirectory"], "/var/log/pods/default_web_u1");
//! assert_eq!(v["containerConfigs"][0]["config"]["logPath"], "app/0.log");
//! ```

pub mod apparmor;
pub mod complete;
pub mod container;
pub mod crictl;
pub mod dns;
pub mod env;
pub mod errors;
pub mod expand;
pub mod files;
pub mod gojson;
pub mod hostname;
pub mod labels;
pub mod mounts;
pub mod node;
pub mod paths;
pub mod ports;
pub mod resize_requests;
pub mod reslist;
pub mod resources;
pub mod run_options;
pub mod sandbox;
pub mod seccomp;
pub mod security;

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::cri::ContainerConfig;
use crate::features::FeatureGates;
use crate::plan::{ContainerError, Plan, PodActions, Warning};
use crate::request::PlanRequest;

pub use container::ContainerKind;
pub use errors::{ConfigError, SandboxConfigError};
pub use node::NodeContext;
pub use run_options::RunContainerOptions;

/// A generated container config in the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerConfigEntry {
    /// Container name.
    pub name: String,
    /// `init`, `regular` or `ephemeral`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Restart count carried in the config's metadata.
    pub restart_count: i32,
    /// CRI `ContainerConfig`.
    pub config: ContainerConfig,
}

/// Reason for a sandbox config failure when only containers are started.
pub const CONFIG_POD_SANDBOX_ERROR: &str = "ConfigPodSandboxError";

/// The configs for one container of the pod: restart count, ephemeral target, run
/// options, and `generateContainerConfig`.
pub fn generate_for(
    request: &PlanRequest,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
) -> Result<ContainerConfigEntry, (String, ConfigError)> {
    let node = node_of(request);
    let node = node.as_ref();
    let pod = &request.pod;
    let selected = container::select(pod, kind, index).map_err(|e| (String::new(), e))?;
    let c = &selected.container;
    let fail = |e: ConfigError| (c.name.clone(), e);
    let status = request.runtime_status.as_ref();
    let restart_count = container::restart_count(&c.name, status, node);
    let ns_target = container::target_id(selected.target.as_deref(), status).map_err(fail)?;
    let pod_ips = status.map(|s| s.ips.clone()).unwrap_or_default();
    let opts = run_options::generate(pod, c, &pod_ips, node, gates).map_err(fail)?;
    let (image_ref, image_user) = container::image_facts(c, node);
    let inputs = container::ContainerInputs {
        container: c,
        restart_count,
        image_ref,
        image_user,
        ns_target,
        termination_log_id: container::termination_log_id(pod, c, restart_count, node),
        userns: security::user_namespace(pod, node, gates).map_err(fail)?,
    };
    let config =
        container::generate_container_config_from(pod, &inputs, opts, node, gates).map_err(fail)?;
    Ok(ContainerConfigEntry {
        name: c.name.clone(),
        kind: kind.as_str().to_string(),
        restart_count,
        config,
    })
}

/// The request's node facts, or the defaults when it gives none.
fn node_of(request: &PlanRequest) -> Cow<'_, NodeContext> {
    request
        .node
        .as_ref()
        .map_or_else(|| Cow::Owned(NodeContext::default()), Cow::Borrowed)
}

fn is_sidecar(request: &PlanRequest, index: usize) -> bool {
    request
        .pod
        .spec
        .as_ref()
        .and_then(|s| s.init_containers.as_ref())
        .and_then(|l| l.get(index))
        .is_some_and(reslist::is_restartable_init)
}

/// Adds `sandboxConfig` and one `containerConfigs` entry per container the plan starts
/// (SyncPod order: ephemeral, init, regular). A container whose config cannot be
/// generated gets a `CreateContainerConfigError` in `plan.errors` instead; as in
/// SyncPod, a failing non-restartable init container stops the containers after it.
pub fn attach(request: &PlanRequest, gates: &FeatureGates, plan: &mut Plan) {
    let actions: &PodActions = &plan.actions;
    let starts = !actions.init_containers_to_start.is_empty()
        || !actions.containers_to_start.is_empty()
        || !actions.ephemeral_containers_to_start.is_empty();
    if !actions.create_sandbox && !starts {
        return;
    }
    let pod = &request.pod;
    match sandbox::generate_pod_sandbox_config(pod, actions.attempt, &node_of(request), gates) {
        Ok((config, notes)) => {
            plan.sandbox_config = Some(config);
            if notes.missing_cluster_dns {
                plan.warnings.push(Warning {
                    path: "node.kubelet.clusterDNS".into(),
                    message: "MissingClusterDNS: kubelet does not have ClusterDNS IP configured and cannot create Pod using \"ClusterFirst\" policy. Falling back to \"Default\" policy.".into(),
                });
            }
            for msg in notes.limits_exceeded {
                plan.warnings.push(Warning {
                    path: "pod.spec.dnsConfig".into(),
                    message: format!("DNSConfigForming: {msg}"),
                });
            }
        }
        Err(cause) => {
            let pod_name = security::format_pod(pod);
            let (reason, message) = if actions.create_sandbox {
                (
                    errors::CREATE_POD_SANDBOX_ERROR,
                    SandboxConfigError {
                        pod: pod_name,
                        cause,
                    }
                    .to_string(),
                )
            } else {
                (
                    CONFIG_POD_SANDBOX_ERROR,
                    format!("GeneratePodSandboxConfig for pod {pod_name:?} failed: {cause}"),
                )
            };
            plan.errors.push(ContainerError {
                container: String::new(),
                reason: reason.to_string(),
                message,
            });
            return;
        }
    }
    let held: Vec<String> = plan.held_back.iter().map(|h| h.container.clone()).collect();
    let mut work: Vec<(ContainerKind, usize)> = Vec::new();
    work.extend(
        actions
            .ephemeral_containers_to_start
            .iter()
            .map(|i| (ContainerKind::Ephemeral, *i)),
    );
    work.extend(
        actions
            .init_containers_to_start
            .iter()
            .map(|i| (ContainerKind::Init, *i)),
    );
    work.extend(
        actions
            .containers_to_start
            .iter()
            .map(|i| (ContainerKind::Regular, *i)),
    );
    for (kind, index) in work {
        let is_held = !held.is_empty()
            && container::select(pod, kind, index).is_ok_and(|s| held.contains(&s.container.name));
        if is_held {
            continue;
        }
        match generate_for(request, gates, kind, index) {
            Ok(entry) => plan.container_configs.push(entry),
            Err((container, cause)) => {
                plan.errors.push(ContainerError {
                    container,
                    reason: errors::CREATE_CONTAINER_CONFIG_ERROR.to_string(),
                    message: cause.to_string(),
                });
                if kind == ContainerKind::Init && !is_sidecar(request, index) {
                    break;
                }
            }
        }
    }
}

/// Keeps the configs of the containers the steps really create, and drops the errors of
/// starts held back by crash-loop back-off: SyncPod's `doBackOff` runs before
/// `generateContainerConfig`, and nothing after an aborting init container is reached.
pub fn retain_created(plan: &mut Plan) {
    let created: Vec<&str> = plan
        .steps
        .iter()
        .filter(|s| s.op == crate::steps::StepOp::CreateContainer)
        .filter_map(|s| s.container.as_deref())
        .collect();
    plan.container_configs
        .retain(|c| created.contains(&c.name.as_str()));
    let held: Vec<&str> = plan
        .held_back
        .iter()
        .map(|h| h.container.as_str())
        .collect();
    plan.errors
        .retain(|e| !held.contains(&e.container.as_str()));
}

/// The configs for a request as if the kubelet were about to create the sandbox and
/// start every init and regular container (no decision involved): a preview for tools.
/// JSON in, JSON out (`{sandboxConfig, containerConfigs, errors}` or `{error}`).
#[must_use]
pub fn preview_json(bytes: &[u8]) -> Vec<u8> {
    let request = match crate::api::parse_request(bytes) {
        Ok(r) => r,
        Err(e) => return crate::api::answer_bytes(Err(e)),
    };
    let gates = FeatureGates::resolve(&request.feature_gates);
    let node = request.node.clone().unwrap_or_default();
    let mut failures = Vec::new();
    let sandbox = match sandbox::generate_pod_sandbox_config(&request.pod, 0, &node, &gates) {
        Ok((config, _)) => Some(config),
        Err(cause) => {
            failures.push(ContainerError {
                container: String::new(),
                reason: errors::CREATE_POD_SANDBOX_ERROR.to_string(),
                message: SandboxConfigError {
                    pod: security::format_pod(&request.pod),
                    cause,
                }
                .to_string(),
            });
            None
        }
    };
    let spec = request.pod.spec.as_ref();
    let inits = spec
        .and_then(|s| s.init_containers.as_ref())
        .map_or(0, Vec::len);
    let regulars = spec.map_or(0, |s| s.containers.len());
    let work = (0..inits)
        .map(|i| (ContainerKind::Init, i))
        .chain((0..regulars).map(|i| (ContainerKind::Regular, i)));
    let mut configs = Vec::new();
    for (kind, index) in work {
        match generate_for(&request, &gates, kind, index) {
            Ok(entry) => configs.push(entry),
            Err((container, cause)) => failures.push(ContainerError {
                container,
                reason: errors::CREATE_CONTAINER_CONFIG_ERROR.to_string(),
                message: cause.to_string(),
            }),
        }
    }
    let out = serde_json::json!({
        "sandboxConfig": sandbox,
        "containerConfigs": configs,
        "errors": failures,
    });
    serde_json::to_vec(&out).unwrap_or_default()
}
