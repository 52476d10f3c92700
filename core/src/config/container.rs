//! `generateContainerConfig` (spec §5): the `CreateContainer` config of one container.

use std::borrow::Cow;

use k8s_openapi::api::core::v1::{Container, EphemeralContainer, Pod};

use crate::cri::{
    CdiDevice, ContainerConfig, ContainerMetadata, ImageSpec, KeyValue, LinuxContainerConfig,
    NamespaceMode, Signal, UserNamespace,
};
use crate::features::{FeatureGates, Gate};
use crate::runtime::{ContainerState, RuntimeStatus};

use super::errors::ConfigError;
use super::expand::expand_command_and_args_with;
use super::labels::{container_annotations, container_labels};
use super::mounts::cri_mounts_from;
use super::paths::join_all;
use super::pod_resources::QosClass;
use super::resources::container_resources_with_qos;
pub use crate::plan::ContainerKind;
use crate::request::node::NodeContext;

use super::run_options::RunContainerOptions;
use super::security::{container_security_context, verify_run_as_non_root, ImageUser};

/// A container of the pod, with the ephemeral target when there is one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SelectedContainer<'a> {
    /// The container: borrowed from the pod, or (an ephemeral container read as a
    /// container) converted.
    pub container: Cow<'a, Container>,
    /// Where it comes from.
    pub kind: ContainerKind,
    /// `targetContainerName` of an ephemeral container.
    pub target: Option<String>,
}

/// An ephemeral container read as a `v1.Container` (same fields, field by field: the
/// destructuring is exhaustive, so a field added to either type fails the build here).
#[must_use]
pub(crate) fn ephemeral_as_container(e: &EphemeralContainer) -> Container {
    let EphemeralContainer {
        args,
        command,
        env,
        env_from,
        image,
        image_pull_policy,
        lifecycle,
        liveness_probe,
        name,
        ports,
        readiness_probe,
        resize_policy,
        resources,
        restart_policy,
        restart_policy_rules,
        security_context,
        startup_probe,
        stdin,
        stdin_once,
        termination_message_path,
        termination_message_policy,
        tty,
        volume_devices,
        volume_mounts,
        working_dir,
        target_container_name: _,
    } = e.clone();
    Container {
        args,
        command,
        env,
        env_from,
        image,
        image_pull_policy,
        lifecycle,
        liveness_probe,
        name,
        ports,
        readiness_probe,
        resize_policy,
        resources,
        restart_policy,
        restart_policy_rules,
        security_context,
        startup_probe,
        stdin,
        stdin_once,
        termination_message_path,
        termination_message_policy,
        tty,
        volume_devices,
        volume_mounts,
        working_dir,
    }
}

/// The container at `index` of the given list.
pub(crate) fn select(
    pod: &Pod,
    kind: ContainerKind,
    index: usize,
) -> Result<SelectedContainer<'_>, ConfigError> {
    let spec = pod
        .spec
        .as_ref()
        .ok_or_else(|| ConfigError::Input("the pod has no spec".into()))?;
    let missing = || ConfigError::Input(format!("no {} container at index {index}", kind.as_str()));
    match kind {
        ContainerKind::Init => spec
            .init_containers
            .as_ref()
            .and_then(|l| l.get(index))
            .map(|c| SelectedContainer {
                container: Cow::Borrowed(c),
                kind,
                target: None,
            })
            .ok_or_else(missing),
        ContainerKind::Regular => spec
            .containers
            .get(index)
            .map(|c| SelectedContainer {
                container: Cow::Borrowed(c),
                kind,
                target: None,
            })
            .ok_or_else(missing),
        ContainerKind::Ephemeral => spec
            .ephemeral_containers
            .as_ref()
            .and_then(|l| l.get(index))
            .map(|e| SelectedContainer {
                container: Cow::Owned(ephemeral_as_container(e)),
                kind,
                target: e.target_container_name.clone().filter(|t| !t.is_empty()),
            })
            .ok_or_else(missing),
    }
}

/// The restart count of the next instance: the newest status's + 1, else the log
/// directory's highest `N.log` + 1, else 0.
#[must_use]
pub(crate) fn restart_count(name: &str, status: Option<&RuntimeStatus>, node: &NodeContext) -> i32 {
    if let Some(s) = status.and_then(|s| s.container_statuses.iter().find(|c| c.name == name)) {
        return s.restart_count.saturating_add(1);
    }
    let from_logs = node.log_files.get(name).and_then(|files| {
        files
            .iter()
            .filter_map(|f| {
                let f = f.rsplit('/').next().unwrap_or(f);
                let digits: String = f.chars().take_while(char::is_ascii_digit).collect();
                let rest = f.get(digits.len()..).unwrap_or("");
                let is_log = rest == ".log" || rest.starts_with(".log.");
                if digits.is_empty() || !is_log {
                    return None;
                }
                digits.parse::<i32>().ok()
            })
            .max()
    });
    from_logs.map_or(0, |n| n.saturating_add(1))
}

/// The id part of `type://id`.
#[must_use]
pub(crate) fn id_part(id: &str) -> &str {
    id.split_once("://").map_or(id, |(_, rest)| rest)
}

/// `getTargetID`: the runtime id of an ephemeral container's running target.
pub(crate) fn target_id(
    target: Option<&str>,
    status: Option<&RuntimeStatus>,
) -> Result<Option<String>, ConfigError> {
    let Some(name) = target else {
        return Ok(None);
    };
    let found = status
        .and_then(|s| s.container_statuses.iter().find(|c| c.name == name))
        .filter(|c| c.state == ContainerState::Running);
    match found {
        Some(c) => Ok(Some(id_part(&c.id).to_string())),
        None => Err(ConfigError::TargetNotFound(name.to_string())),
    }
}

/// The image facts for a container: reference and user.
#[must_use]
pub(crate) fn image_facts(c: &Container, node: &NodeContext) -> (String, ImageUser) {
    let image = c.image.clone().unwrap_or_default();
    let info = node.images.get(&image).cloned().unwrap_or_default();
    let image_ref = info.image_ref.clone().unwrap_or_else(|| image.clone());
    (image_ref, ImageUser::from_status(info.uid, &info.username))
}

/// A deterministic stand-in for the kubelet's random termination-log file name.
#[must_use]
pub(crate) fn termination_log_id(
    pod: &Pod,
    c: &Container,
    restart_count: i32,
    node: &NodeContext,
) -> String {
    if let Some(id) = node.termination_log_ids.get(&c.name) {
        return id.clone();
    }
    let key = format!(
        "{}/{}/{restart_count}",
        pod.metadata.uid.as_deref().unwrap_or_default(),
        c.name
    );
    let mut h: u32 = 0x811c_9dc5;
    for b in key.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// Everything `generateContainerConfig` reads besides the pod and the node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ContainerInputs<'a> {
    /// The container.
    pub container: &'a Container,
    /// Restart count (metadata attempt, log path, annotation).
    pub restart_count: i32,
    /// Image reference the pull returned.
    pub image_ref: String,
    /// Image user from ImageStatus.
    pub image_user: ImageUser,
    /// Runtime id of an ephemeral container's target.
    pub ns_target: Option<String>,
    /// Termination-log file id.
    pub termination_log_id: String,
    /// The runtime helper's user namespace for the pod (`GetOrCreateUserNamespaceMappings`).
    pub userns: Option<UserNamespace>,
    /// The pod's QoS class (`GetPodQOS`) when the caller computed it once for all its
    /// containers; `None`: computed here.
    pub pod_qos: Option<QosClass>,
}

/// `generateContainerConfig` given the runtime helper's [`RunContainerOptions`].
pub(crate) fn generate_container_config(
    pod: &Pod,
    input: &ContainerInputs<'_>,
    opts: &RunContainerOptions,
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<ContainerConfig, ConfigError> {
    generate_container_config_from(pod, input, opts.clone(), node, gates)
}

/// [`generate_container_config`] consuming the options: their environment, mounts and
/// devices move into the config instead of being copied.
pub(crate) fn generate_container_config_from(
    pod: &Pod,
    input: &ContainerInputs<'_>,
    opts: RunContainerOptions,
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<ContainerConfig, ConfigError> {
    let c = input.container;
    verify_run_as_non_root(pod, c, &input.image_user)?;
    // Command and args are strings: a binary value spliced into one is shown as text.
    let env_text: Vec<(&str, std::borrow::Cow<'_, str>)> = opts
        .envs
        .iter()
        .map(|nv| (nv.name.as_str(), nv.value.as_text()))
        .collect();
    let (command, args) = expand_command_and_args_with(
        c.command.as_deref(),
        c.args.as_deref(),
        env_text.iter().map(|(k, v)| (*k, v.as_ref())),
    );
    let mut config = ContainerConfig {
        metadata: Some(ContainerMetadata {
            name: c.name.clone(),
            attempt: u32::try_from(input.restart_count).unwrap_or(0),
        }),
        image: Some(ImageSpec {
            image: input.image_ref.clone(),
            user_specified_image: c.image.clone().unwrap_or_default(),
            ..ImageSpec::default()
        }),
        command: command.unwrap_or_default(),
        args: args.unwrap_or_default(),
        working_dir: c.working_dir.clone().unwrap_or_default(),
        labels: container_labels(pod, c),
        annotations: container_annotations(pod, c, input.restart_count, &opts.annotations),
        mounts: cri_mounts_from(
            opts.mounts,
            c,
            &opts.pod_container_dir,
            &input.termination_log_id,
            node.selinux(),
        ),
        devices: opts.devices,
        cdi_devices: opts
            .cdi_devices
            .into_iter()
            .map(|name| CdiDevice { name })
            .collect(),
        log_path: join_all(&[&c.name, &format!("{}.log", input.restart_count)]),
        stdin: c.stdin.unwrap_or(false),
        stdin_once: c.stdin_once.unwrap_or(false),
        tty: c.tty.unwrap_or(false),
        ..ContainerConfig::default()
    };
    if gates.enabled(Gate::ContainerStopSignals) {
        if let Some(sig) = c.lifecycle.as_ref().and_then(|l| l.stop_signal.as_deref()) {
            config.stop_signal = Signal::from_stop_signal(sig);
        }
    }
    let mut sc = container_security_context(pod, c, &input.image_user, input.userns.clone(), node)?;
    let qos = input.pod_qos.unwrap_or_else(|| {
        super::pod_resources::pod_qos(pod, gates.enabled(Gate::PodLevelResources))
    });
    let mut resources = container_resources_with_qos(pod, c, node, gates, qos);
    if let Some(target) = &input.ns_target {
        if let Some(ns) = sc.namespace_options.as_mut() {
            if ns.pid == NamespaceMode::Container {
                ns.pid = NamespaceMode::Target;
                ns.target_id.clone_from(target);
            }
        }
    }
    if gates.enabled(Gate::UserNamespacesSupport) {
        if let Some(userns) = sc
            .namespace_options
            .as_ref()
            .and_then(|n| n.userns_options.as_ref())
        {
            for m in &mut config.mounts {
                m.uid_mappings.clone_from(&userns.uids);
                m.gid_mappings.clone_from(&userns.gids);
            }
        }
    }
    if let Some(set) = node.cpusets.get(&c.name) {
        resources.cpuset_cpus.clone_from(&set.cpus);
        resources.cpuset_mems.clone_from(&set.mems);
    }
    config.linux = Some(LinuxContainerConfig {
        resources: Some(resources),
        security_context: Some(sc),
    });
    config.envs = opts
        .envs
        .into_iter()
        .map(|nv| KeyValue {
            key: nv.name,
            value: nv.value,
        })
        .collect();
    Ok(config)
}
