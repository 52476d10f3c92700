//! `RunContainerOptions`: what the kubelet's runtime helper hands the runtime manager
//! for one container (`GenerateRunContainerOptions`): device-plugin results, hostname,
//! block devices, the environment and the mounts.

use std::borrow::Cow;
use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};
use serde::{Deserialize, Serialize};

use crate::cri::{Device, EnvBytes};
use crate::features::FeatureGates;

use super::env::make_environment_variables;
use super::errors::ConfigError;
use super::hostname::{nodename_for_kernel, pod_hostname_and_domain};
use super::mounts::{block_devices, make_mounts, pod_container_dir, RunMount};
use crate::request::node::{NameValue, NodeContext};

/// One environment variable of [`RunContainerOptions`] (`kubecontainer.EnvVar`).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RunEnv {
    /// Name.
    pub name: String,
    /// Value (bytes: binary Secret data passes through unchanged).
    pub value: EnvBytes,
}

/// `kubecontainer.RunContainerOptions` (the parts config generation reads).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct RunContainerOptions {
    /// Environment in order: device-plugin envs, then the container's (sorted by name).
    pub envs: Vec<RunEnv>,
    /// Mounts: device-plugin mounts, volume mounts, `/etc/hosts`.
    pub mounts: Vec<RunMount>,
    /// Devices: device-plugin devices, then block volumes.
    pub devices: Vec<Device>,
    /// CDI device names.
    pub cdi_devices: Vec<String>,
    /// Device-plugin / DRA annotations.
    pub annotations: Vec<NameValue>,
    /// Kernel nodename (not sent in the config).
    pub hostname: String,
    /// Directory for termination-log files ("" = no termination-message mount).
    pub pod_container_dir: String,
}

/// `GenerateRunContainerOptions`.
pub(crate) fn generate(
    pod: &Pod,
    c: &Container,
    pod_ips: &[String],
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<RunContainerOptions, ConfigError> {
    let alloc = node
        .device_allocations
        .get(&c.name)
        .cloned()
        .unwrap_or_default();
    let mut opts = RunContainerOptions {
        envs: alloc
            .envs
            .iter()
            .map(|nv| RunEnv {
                name: nv.name.clone(),
                value: EnvBytes::from(nv.value.as_str()),
            })
            .collect(),
        mounts: alloc
            .mounts
            .iter()
            .map(|m| RunMount {
                container_path: m.container_path.clone(),
                host_path: m.host_path.clone(),
                read_only: m.read_only,
                ..RunMount::default()
            })
            .collect(),
        devices: alloc
            .devices
            .iter()
            .map(|d| Device {
                container_path: d.path_in_container.clone(),
                host_path: d.path_on_host.clone(),
                permissions: d.permissions.clone(),
            })
            .collect(),
        cdi_devices: alloc.cdi_devices.clone(),
        annotations: alloc.annotations.clone(),
        ..RunContainerOptions::default()
    };
    let (hostname, domain) = pod_hostname_and_domain(pod, node.cluster_domain(), gates)?;
    opts.hostname = nodename_for_kernel(
        &hostname,
        &domain,
        pod.spec.as_ref().and_then(|s| s.set_hostname_as_fqdn),
    )?;
    opts.devices.extend(block_devices(pod, c, node)?);
    let env = make_environment_variables(pod, c, pod_ips, node, gates)?;
    opts.envs
        .extend(env.into_iter().map(|(name, value)| RunEnv { name, value }));
    // Borrowed, built like `env_map` (the last value of a name wins).
    let env: BTreeMap<&str, Cow<'_, str>> = opts
        .envs
        .iter()
        .map(|nv| (nv.name.as_str(), nv.value.as_text()))
        .collect();
    let mounts = make_mounts(pod, c, pod_ips, &env, node, gates)?;
    opts.mounts.extend(mounts);
    if c.termination_message_path
        .as_deref()
        .is_some_and(|p| !p.is_empty())
    {
        opts.pod_container_dir = pod_container_dir(pod, c, node);
    }
    Ok(opts)
}
