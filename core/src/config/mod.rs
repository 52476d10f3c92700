//! CRI config generation: what the 1.37 kubelet sends in `RunPodSandbox`
//! (`generatePodSandboxConfig`) and `CreateContainer` (`generateContainerConfig`).
//!
//! Everything a real kubelet reads from disk, the API server, the runtime or its managers
//! is an explicit input: the pod, the runtime status, the feature gates and the
//! [`NodeContext`]. `sandbox_for` and `container_for` give the configs the steps of a
//! plan need (`crate::steps` calls them, container by container, as `SyncPod` does); the
//! modules expose each generator on its own (they are what the conformance vectors
//! exercise).

pub(crate) mod apparmor;
pub mod cgroups;
pub(crate) mod complete;
pub(crate) mod container;
pub mod crictl;
pub(crate) mod dns;
pub(crate) mod env;
pub(crate) mod errors;
pub(crate) mod expand;
pub(crate) mod files;
pub(crate) mod hostname;
pub mod labels;
pub(crate) mod mounts;
pub(crate) mod paths;
pub mod pod_resources;
pub(crate) mod ports;
pub(crate) mod resize_requests;
pub mod resources;
pub(crate) mod run_options;
pub(crate) mod sandbox;
pub(crate) mod seccomp;
pub(crate) mod security;

use std::borrow::Cow;

use crate::cri::PodSandboxConfig;
use crate::features::FeatureGates;
use crate::plan::{ContainerConfigEntry, ContainerError, PodActions, Warning};
use crate::pod::format_pod;
use crate::request::{NodeContext, PlanRequest};

pub use container::ContainerKind;
pub(crate) use errors::{ConfigError, SandboxConfigError};

/// Reason for a sandbox config failure when only containers are started.
pub(crate) const CONFIG_POD_SANDBOX_ERROR: &str = "ConfigPodSandboxError";

/// The configs for one container of the pod: restart count, ephemeral target, run
/// options, and `generateContainerConfig`.
pub fn generate_for(
    request: &PlanRequest,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
    pod_qos: Option<pod_resources::QosClass>,
) -> Result<ContainerConfigEntry, (String, ConfigError)> {
    generate_on(
        request,
        node_of(request).as_ref(),
        gates,
        kind,
        index,
        pod_qos,
    )
}

/// [`generate_for`] on the node `node` instead of the request's (the lint tries one pod
/// on several nodes).
pub(crate) fn generate_on(
    request: &PlanRequest,
    node: &NodeContext,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
    pod_qos: Option<pod_resources::QosClass>,
) -> Result<ContainerConfigEntry, (String, ConfigError)> {
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
        pod_qos,
    };
    let config =
        container::generate_container_config_from(pod, &inputs, opts, node, gates).map_err(fail)?;
    Ok(ContainerConfigEntry {
        name: c.name.clone(),
        kind: kind.as_str().to_string(),
        restart_count,
        config,
        depends_on_new_sandbox: false,
    })
}

/// The request's pod's QoS class (`GetPodQOS`): reads every container, so a caller
/// generating several containers' configs computes it once.
#[must_use]
pub(crate) fn pod_qos_of(request: &PlanRequest, gates: &FeatureGates) -> pod_resources::QosClass {
    pod_resources::pod_qos(
        &request.pod,
        gates.enabled(crate::features::Gate::PodLevelResources),
    )
}

/// The request's node facts, or the defaults when it gives none.
fn node_of(request: &PlanRequest) -> Cow<'_, NodeContext> {
    request
        .node
        .as_ref()
        .map_or_else(|| Cow::Owned(NodeContext::default()), Cow::Borrowed)
}

/// `generatePodSandboxConfig` for the plan's sandbox attempt, with the warnings it
/// notes (missing cluster DNS, DNS limits). A failure is the plan error the kubelet
/// reports: `CreatePodSandboxError` when the sandbox is being created,
/// `ConfigPodSandboxError` when only containers are started.
pub(crate) fn sandbox_for(
    request: &PlanRequest,
    gates: &FeatureGates,
    actions: &PodActions,
) -> Result<(PodSandboxConfig, Vec<Warning>), (ContainerError, String)> {
    let pod = &request.pod;
    match sandbox::generate_pod_sandbox_config(pod, actions.attempt, &node_of(request), gates) {
        Ok((config, notes)) => {
            let mut warnings = Vec::new();
            if notes.missing_cluster_dns {
                warnings.push(Warning {
                    path: "node.kubelet.clusterDNS".into(),
                    message: "MissingClusterDNS: kubelet does not have ClusterDNS IP configured and cannot create Pod using \"ClusterFirst\" policy. Falling back to \"Default\" policy.".into(),
                });
            }
            for msg in notes.limits_exceeded {
                warnings.push(Warning {
                    path: "pod.spec.dnsConfig".into(),
                    message: format!("DNSConfigForming: {msg}"),
                });
            }
            Ok((config, warnings))
        }
        Err(cause) => {
            let pod_name = format_pod(pod);
            let (reason, message) = if actions.create_sandbox {
                (
                    errors::CREATE_POD_SANDBOX_ERROR,
                    SandboxConfigError {
                        pod: pod_name,
                        cause: cause.clone(),
                    }
                    .to_string(),
                )
            } else {
                (
                    CONFIG_POD_SANDBOX_ERROR,
                    format!("GeneratePodSandboxConfig for pod {pod_name:?} failed: {cause}"),
                )
            };
            Err((
                ContainerError {
                    container: String::new(),
                    reason: reason.to_string(),
                    message,
                },
                cause.to_string(),
            ))
        }
    }
}

/// [`generate_for`] with its failure as the plan error the kubelet reports
/// (`CreateContainerConfigError`). `pod_qos`: the pod's QoS class when the caller
/// computed it once for all the containers it generates (see [`pod_qos_of`]).
pub(crate) fn container_for(
    request: &PlanRequest,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
    pod_qos: Option<pod_resources::QosClass>,
) -> Result<ContainerConfigEntry, ContainerError> {
    generate_for(request, gates, kind, index, pod_qos).map_err(|(container, cause)| {
        ContainerError {
            container,
            reason: errors::CREATE_CONTAINER_CONFIG_ERROR.to_string(),
            message: cause.to_string(),
        }
    })
}
