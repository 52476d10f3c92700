//! Security settings (spec §9): the effective security context, namespaces, supplemental
//! groups, runAsNonRoot verification and the image user.

use k8s_openapi::api::core::v1::{Container, Pod, SELinuxOptions, SecurityContext};

use crate::cri::{
    Capability, IdMapping, Int64Value, LinuxContainerSecurityContext, NamespaceMode,
    NamespaceOption, SeLinuxOption, SupplementalGroupsPolicy, UserNamespace,
};
use crate::features::{FeatureGates, Gate};
use crate::pod::format_pod;

use super::apparmor::apparmor_profile;
use super::errors::ConfigError;
use super::seccomp::container_seccomp;
use crate::go::encoding::go_quote;
use crate::request::node::NodeContext;

/// Paths masked in `/proc` and `/sys` unless `procMount: Unmasked`.
pub(crate) const DEFAULT_MASKED_PATHS: &[&str] = &[
    "/proc/asound",
    "/proc/acpi",
    "/proc/kcore",
    "/proc/keys",
    "/proc/latency_stats",
    "/proc/timer_list",
    "/proc/timer_stats",
    "/proc/sched_debug",
    "/proc/scsi",
    "/sys/firmware",
    "/sys/devices/virtual/powercap",
];

/// Paths made read-only unless `procMount: Unmasked`.
pub(crate) const DEFAULT_READONLY_PATHS: &[&str] = &[
    "/proc/bus",
    "/proc/fs",
    "/proc/irq",
    "/proc/sys",
    "/proc/sysrq-trigger",
];

/// The image's user as CRI ImageStatus reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ImageUser {
    /// Numeric uid (wins over the name).
    pub uid: Option<i64>,
    /// User name.
    pub username: String,
}

impl ImageUser {
    /// `getImageUser`: the uid if set; else the name if non-empty; else uid 0 (root).
    #[must_use]
    pub(crate) fn from_status(uid: Option<i64>, username: &str) -> Self {
        match (uid, username.is_empty()) {
            (Some(uid), _) => Self {
                uid: Some(uid),
                username: String::new(),
            },
            (None, false) => Self {
                uid: None,
                username: username.to_string(),
            },
            (None, true) => Self {
                uid: Some(0),
                username: String::new(),
            },
        }
    }
}

/// `DetermineEffectiveSecurityContext`: the pod's subset overridden field by field by
/// the container's. Never absent.
#[must_use]
pub fn effective_security_context(pod: &Pod, c: &Container) -> SecurityContext {
    let pod_sc = pod.spec.as_ref().and_then(|s| s.security_context.as_ref());
    let mut eff = match pod_sc {
        Some(p) => SecurityContext {
            se_linux_options: p.se_linux_options.clone(),
            windows_options: p.windows_options.clone(),
            run_as_user: p.run_as_user,
            run_as_group: p.run_as_group,
            run_as_non_root: p.run_as_non_root,
            ..SecurityContext::default()
        },
        None => SecurityContext::default(),
    };
    let Some(csc) = c.security_context.as_ref() else {
        return eff;
    };
    if pod_sc.is_none() {
        return csc.clone();
    }
    if csc.se_linux_options.is_some() {
        eff.se_linux_options.clone_from(&csc.se_linux_options);
    }
    if let Some(w) = &csc.windows_options {
        let mut merged = eff.windows_options.take().unwrap_or_default();
        if w.gmsa_credential_spec_name.is_some() {
            merged
                .gmsa_credential_spec_name
                .clone_from(&w.gmsa_credential_spec_name);
        }
        if w.gmsa_credential_spec.is_some() {
            merged
                .gmsa_credential_spec
                .clone_from(&w.gmsa_credential_spec);
        }
        if w.run_as_user_name.is_some() {
            merged.run_as_user_name.clone_from(&w.run_as_user_name);
        }
        if w.host_process.is_some() {
            merged.host_process = w.host_process;
        }
        eff.windows_options = Some(merged);
    }
    if csc.capabilities.is_some() {
        eff.capabilities.clone_from(&csc.capabilities);
    }
    macro_rules! take {
        ($($f:ident),*) => { $( if csc.$f.is_some() { eff.$f.clone_from(&csc.$f); } )* };
    }
    take!(
        privileged,
        run_as_user,
        run_as_group,
        run_as_non_root,
        read_only_root_filesystem,
        allow_privilege_escalation,
        proc_mount
    );
    eff
}

fn selinux(o: &SELinuxOptions) -> SeLinuxOption {
    SeLinuxOption {
        user: o.user.clone().unwrap_or_default(),
        role: o.role.clone().unwrap_or_default(),
        kind: o.type_.clone().unwrap_or_default(),
        level: o.level.clone().unwrap_or_default(),
    }
}

/// Converts a pod `seLinuxOptions` to CRI.
#[must_use]
pub(crate) fn selinux_option(o: Option<&SELinuxOptions>) -> Option<SeLinuxOption> {
    o.map(selinux)
}

/// `NetworkNamespaceForPod`.
#[must_use]
pub(crate) fn network_namespace(pod: &Pod) -> NamespaceMode {
    if pod.spec.as_ref().and_then(|s| s.host_network) == Some(true) {
        NamespaceMode::Node
    } else {
        NamespaceMode::Pod
    }
}

/// `IpcNamespaceForPod`.
#[must_use]
pub fn ipc_namespace(pod: &Pod) -> NamespaceMode {
    if pod.spec.as_ref().and_then(|s| s.host_ipc) == Some(true) {
        NamespaceMode::Node
    } else {
        NamespaceMode::Pod
    }
}

/// `PidNamespaceForPod`.
#[must_use]
pub fn pid_namespace(pod: &Pod) -> NamespaceMode {
    let spec = pod.spec.as_ref();
    if spec.and_then(|s| s.host_pid) == Some(true) {
        NamespaceMode::Node
    } else if spec.and_then(|s| s.share_process_namespace) == Some(true) {
        NamespaceMode::Pod
    } else {
        NamespaceMode::Container
    }
}

/// The user namespace the kubelet sends (`GetOrCreateUserNamespaceMappings`): `NODE` for
/// host-user pods when the gate is on, the allocated mapping for `hostUsers: false` (which
/// needs a runtime handler that supports user namespaces).
pub(crate) fn user_namespace(
    pod: &Pod,
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<Option<UserNamespace>, ConfigError> {
    let enabled = gates.enabled(Gate::UserNamespacesSupport);
    let host_users = pod.spec.as_ref().and_then(|s| s.host_users);
    let node_mode = || UserNamespace {
        mode: NamespaceMode::Node,
        ..UserNamespace::default()
    };
    match host_users {
        None => Ok(enabled.then(node_mode)),
        Some(_) if !enabled => Err(ConfigError::Input(
            "the feature gate \"UserNamespacesSupport\" is disabled: can't set spec.HostUsers"
                .into(),
        )),
        Some(true) => Ok(Some(node_mode())),
        Some(false) if !node.handler_features().user_namespaces => {
            Err(ConfigError::Input(userns_unsupported_message(node)))
        }
        Some(false) => Ok(Some(node.user_namespace.clone().unwrap_or_else(|| {
            // The kubelet allocates a free 64Ki range; the first one is used by default.
            let range = vec![IdMapping {
                host_id: 65_536,
                container_id: 0,
                length: 65_536,
            }];
            UserNamespace {
                mode: NamespaceMode::Pod,
                uids: range.clone(),
                gids: range,
            }
        }))),
    }
}

/// Where a caller declares that the runtime handler supports user namespaces (CRI
/// `Status` → `runtimeHandlers[].features.userNamespaces`).
pub(crate) const USERNS_FEATURE_PATH: &str = "node.runtimeHandlerFeatures.userNamespaces";

/// The kubelet's refusal of a `hostUsers: false` pod whose runtime handler does not
/// support user namespaces (`GetOrCreateUserNamespaceMappings`). Without
/// `runtimeHandlerFeatures` the node context says nothing about the handler, which is
/// what the kubelet sees when the runtime reports no handlers (containerd 1.6): the
/// handler is "not known".
#[must_use]
pub(crate) fn userns_unsupported_message(node: &NodeContext) -> String {
    let handler = node.runtime_handler.as_deref().unwrap_or_default();
    let msg = if handler.is_empty() {
        "can't set `spec.hostUsers: false`, runtime does not support user namespaces".to_string()
    } else {
        format!(
            "can't set `spec.hostUsers: false`, RuntimeClass handler {} does not support user namespaces",
            go_quote(handler)
        )
    };
    if node.runtime_handler_features.is_some() {
        msg
    } else {
        format!("{msg}: the handler {} is not known", go_quote(handler))
    }
}

/// The plan warning that goes with [`userns_unsupported_message`]: it names the
/// node-context field that declares user-namespace support. `None` when the pod does not
/// ask for a user namespace or the node context says the handler supports it.
#[must_use]
pub(crate) fn userns_support_warning(
    pod: &Pod,
    node: Option<&NodeContext>,
    gates: &FeatureGates,
) -> Option<crate::plan::Warning> {
    let wants_userns = gates.enabled(Gate::UserNamespacesSupport)
        && pod.spec.as_ref().and_then(|s| s.host_users) == Some(false);
    let supported = node.is_some_and(|n| n.handler_features().user_namespaces);
    (wants_userns && !supported).then(|| crate::plan::Warning {
        path: USERNS_FEATURE_PATH.to_string(),
        message: format!(
            "hostUsers: false needs a runtime handler that supports user namespaces; the node \
             context does not say it does (the default is \"not supported\"). Set \
             {USERNS_FEATURE_PATH}: true only when the runtime's CRI Status reports \
             userNamespaces for the handler: a runtime without support (e.g. containerd 1.6) \
             ignores the user-namespace options and runs the pod as real root."
        ),
    })
}

/// `NamespacesForPod`, given the runtime helper's user-namespace answer.
#[must_use]
pub(crate) fn namespaces_for_pod(pod: &Pod, userns: Option<UserNamespace>) -> NamespaceOption {
    NamespaceOption {
        network: network_namespace(pod),
        pid: pid_namespace(pod),
        ipc: ipc_namespace(pod),
        target_id: String::new(),
        userns_options: userns,
    }
}

/// Reads `supplementalGroupsPolicy` (absent = Merge).
pub(crate) fn supplemental_groups_policy(
    pod: &Pod,
) -> Result<SupplementalGroupsPolicy, ConfigError> {
    match pod
        .spec
        .as_ref()
        .and_then(|s| s.security_context.as_ref())
        .and_then(|s| s.supplemental_groups_policy.as_deref())
    {
        None | Some("Merge") => Ok(SupplementalGroupsPolicy::Merge),
        Some("Strict") => Ok(SupplementalGroupsPolicy::Strict),
        Some(other) => Err(ConfigError::SupplementalGroupsPolicy(other.to_string())),
    }
}

fn masked_paths(proc_mount: Option<&str>) -> (Vec<String>, Vec<String>) {
    if proc_mount == Some("Unmasked") {
        return (Vec::new(), Vec::new());
    }
    (
        DEFAULT_MASKED_PATHS
            .iter()
            .map(|s| (*s).to_string())
            .collect(),
        DEFAULT_READONLY_PATHS
            .iter()
            .map(|s| (*s).to_string())
            .collect(),
    )
}

/// `determineEffectiveSecurityContext`: the container's `LinuxContainerSecurityContext`.
/// `userns` is the runtime helper's user-namespace answer ([`user_namespace`]).
pub(crate) fn container_security_context(
    pod: &Pod,
    c: &Container,
    image_user: &ImageUser,
    userns: Option<UserNamespace>,
    node: &NodeContext,
) -> Result<LinuxContainerSecurityContext, ConfigError> {
    let eff = effective_security_context(pod, c);
    let mut sc = LinuxContainerSecurityContext {
        capabilities: eff.capabilities.as_ref().map(|caps| Capability {
            add_capabilities: caps.add.clone().unwrap_or_default(),
            drop_capabilities: caps.drop.clone().unwrap_or_default(),
            add_ambient_capabilities: Vec::new(),
        }),
        selinux_options: selinux_option(eff.se_linux_options.as_ref()),
        run_as_user: eff.run_as_user.map(|value| Int64Value { value }),
        run_as_group: eff.run_as_group.map(|value| Int64Value { value }),
        privileged: eff.privileged.unwrap_or(false),
        readonly_rootfs: eff.read_only_root_filesystem.unwrap_or(false),
        ..LinuxContainerSecurityContext::default()
    };
    let pod_sc = pod.spec.as_ref().and_then(|s| s.security_context.as_ref());
    sc.seccomp = Some(container_seccomp(
        pod_sc,
        c.security_context.as_ref(),
        &node.seccomp_profile_root(),
        node.seccomp_default(),
    )?);
    let (apparmor, deprecated) = apparmor_profile(pod, c)?;
    sc.apparmor = apparmor;
    sc.apparmor_profile = deprecated;
    if sc.run_as_user.is_none() {
        if let Some(uid) = image_user.uid {
            sc.run_as_user = Some(Int64Value { value: uid });
        }
        sc.run_as_username.clone_from(&image_user.username);
    }
    sc.namespace_options = Some(namespaces_for_pod(pod, userns));
    if let Some(psc) = pod_sc {
        if let Some(g) = psc.fs_group {
            sc.supplemental_groups.push(g);
        }
        sc.supplemental_groups
            .extend(psc.supplemental_groups.iter().flatten().copied());
        sc.supplemental_groups_policy = supplemental_groups_policy(pod)?;
    }
    sc.supplemental_groups
        .extend(node.extra_supplemental_groups.iter().copied());
    sc.no_new_privs = eff.allow_privilege_escalation == Some(false);
    let (masked, readonly) = masked_paths(eff.proc_mount.as_deref());
    sc.masked_paths = masked;
    sc.readonly_paths = readonly;
    Ok(sc)
}

/// `verifyRunAsNonRoot`.
pub(crate) fn verify_run_as_non_root(
    pod: &Pod,
    c: &Container,
    image_user: &ImageUser,
) -> Result<(), ConfigError> {
    let eff = effective_security_context(pod, c);
    if eff.run_as_non_root != Some(true) {
        return Ok(());
    }
    // Formatted only for an error.
    let who = || format!("(pod: {:?}, container: {})", format_pod(pod), c.name);
    if let Some(user) = eff.run_as_user {
        if user == 0 {
            return Err(ConfigError::NonRoot(format!(
                "container's runAsUser breaks non-root policy {}",
                who()
            )));
        }
        return Ok(());
    }
    match image_user.uid {
        None if !image_user.username.is_empty() => Err(ConfigError::NonRoot(format!(
            "container has runAsNonRoot and image has non-numeric user ({}), cannot verify user is non-root {}",
            image_user.username,
            who()
        ))),
        Some(0) => Err(ConfigError::NonRoot(format!(
            "container has runAsNonRoot and image will run as root {}",
            who()
        ))),
        Some(uid) if !(0..=i64::from(i32::MAX)).contains(&uid) => Err(ConfigError::NonRoot(format!(
            "container has runAsNonRoot and image has an invalid user id ({uid}). (Must be 1-({})): must be between 0 and {}, inclusive {}",
            i32::MAX,
            i32::MAX,
            who()
        ))),
        _ => Ok(()),
    }
}

/// Whether any init, regular or ephemeral container is privileged (`HasPrivilegedContainer`).
#[must_use]
pub(crate) fn has_privileged_container(pod: &Pod) -> bool {
    let Some(spec) = pod.spec.as_ref() else {
        return false;
    };
    let privileged = |sc: Option<&SecurityContext>| sc.and_then(|s| s.privileged) == Some(true);
    spec.init_containers
        .iter()
        .flatten()
        .chain(&spec.containers)
        .any(|c| privileged(c.security_context.as_ref()))
        || spec
            .ephemeral_containers
            .iter()
            .flatten()
            .any(|c| privileged(c.security_context.as_ref()))
}
