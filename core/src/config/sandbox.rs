//! `generatePodSandboxConfig` (spec §4): the `RunPodSandbox` config.

use k8s_openapi::api::core::v1::Pod;

use crate::cri::{
    Int64Value, LinuxPodSandboxConfig, LinuxSandboxSecurityContext, PodSandboxConfig,
    PodSandboxMetadata, ProfileType, SecurityProfile,
};
use crate::features::{FeatureGates, Gate};

use super::dns::{pod_dns, DnsNotes};
use super::errors::ConfigError;
use super::hostname::sandbox_hostname;
use super::labels::{sandbox_annotations, sandbox_labels};
use super::paths::join_all;
use super::pod_resources::{pod_qos, QosClass};
use super::ports::sandbox_port_mappings;
use super::resources::{sandbox_overhead, sandbox_resources};
use super::security::{
    has_privileged_container, namespaces_for_pod, selinux_option, supplemental_groups_policy,
    user_namespace,
};
use crate::request::node::{CgroupDriver, NodeContext};

/// `BuildPodLogsDirectory`: `<podLogsDir>/<namespace>_<name>_<uid>`.
#[must_use]
pub(crate) fn pod_logs_directory(pod: &Pod, node: &NodeContext) -> String {
    let m = &pod.metadata;
    join_all(&[
        node.pod_logs_dir(),
        &format!(
            "{}_{}_{}",
            m.namespace.as_deref().unwrap_or_default(),
            m.name.as_deref().unwrap_or_default(),
            m.uid.as_deref().unwrap_or_default()
        ),
    ])
}

/// The pod's cgroup parent: `node.podCgroupParent`, or the container manager's name for
/// the pod's QoS class in the configured cgroup driver's syntax.
#[must_use]
pub(crate) fn cgroup_parent(pod: &Pod, node: &NodeContext, gates: &FeatureGates) -> String {
    if let Some(p) = &node.pod_cgroup_parent {
        return p.clone();
    }
    let uid = pod.metadata.uid.as_deref().unwrap_or_default();
    let qos = match pod_qos(pod, gates.enabled(Gate::PodLevelResources)) {
        QosClass::Guaranteed => None,
        QosClass::Burstable => Some("burstable"),
        QosClass::BestEffort => Some("besteffort"),
    };
    match node.cgroup_driver.unwrap_or_default() {
        CgroupDriver::Cgroupfs => match qos {
            Some(q) => format!("/kubepods/{q}/pod{uid}"),
            None => format!("/kubepods/pod{uid}"),
        },
        CgroupDriver::Systemd => {
            let escaped = uid.replace('-', "_");
            match qos {
                Some(q) => {
                    format!("/kubepods.slice/kubepods-{q}.slice/kubepods-{q}-pod{escaped}.slice")
                }
                None => format!("/kubepods.slice/kubepods-pod{escaped}.slice"),
            }
        }
    }
}

/// `generatePodSandboxLinuxConfig`.
pub(crate) fn sandbox_linux_config(
    pod: &Pod,
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<LinuxPodSandboxConfig, ConfigError> {
    let mut sc = LinuxSandboxSecurityContext {
        privileged: has_privileged_container(pod),
        seccomp: Some(SecurityProfile {
            profile_type: ProfileType::RuntimeDefault,
            localhost_ref: String::new(),
        }),
        ..LinuxSandboxSecurityContext::default()
    };
    let pod_sc = pod.spec.as_ref().and_then(|s| s.security_context.as_ref());
    let sysctls = pod_sc
        .and_then(|s| s.sysctls.as_ref())
        .map(|list| {
            list.iter()
                .map(|s| (s.name.clone(), s.value.clone()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(p) = pod_sc {
        sc.run_as_user = p.run_as_user.map(|value| Int64Value { value });
        sc.run_as_group = p.run_as_group.map(|value| Int64Value { value });
        sc.namespace_options = Some(namespaces_for_pod(pod, user_namespace(pod, node, gates)?));
        if let Some(g) = p.fs_group {
            sc.supplemental_groups.push(g);
        }
        sc.supplemental_groups
            .extend(node.extra_supplemental_groups.iter().copied());
        sc.supplemental_groups
            .extend(p.supplemental_groups.iter().flatten().copied());
        sc.supplemental_groups_policy = supplemental_groups_policy(pod)?;
        sc.selinux_options = selinux_option(p.se_linux_options.as_ref());
    }
    Ok(LinuxPodSandboxConfig {
        cgroup_parent: cgroup_parent(pod, node, gates),
        security_context: Some(sc),
        sysctls,
        overhead: None,
        resources: None,
    })
}

/// `generatePodSandboxConfig`: the config and the DNS notes (for events).
pub fn generate_pod_sandbox_config(
    pod: &Pod,
    attempt: u32,
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<(PodSandboxConfig, DnsNotes), ConfigError> {
    let m = &pod.metadata;
    let (dns, notes) = pod_dns(pod, node);
    let hostname = sandbox_hostname(pod, node.cluster_domain(), gates)?;
    let mut linux = sandbox_linux_config(pod, node, gates)?;
    linux.resources = Some(sandbox_resources(pod, node, gates));
    linux.overhead = Some(sandbox_overhead(pod, node, gates));
    let config = PodSandboxConfig {
        metadata: Some(PodSandboxMetadata {
            name: m.name.clone().unwrap_or_default(),
            uid: m.uid.clone().unwrap_or_default(),
            namespace: m.namespace.clone().unwrap_or_default(),
            attempt,
        }),
        hostname,
        log_directory: pod_logs_directory(pod, node),
        dns_config: Some(dns),
        port_mappings: sandbox_port_mappings(pod),
        labels: sandbox_labels(pod),
        annotations: sandbox_annotations(pod),
        linux: Some(linux),
        windows: None,
    };
    Ok((config, notes))
}
