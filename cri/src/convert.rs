//! Lossless conversion between podplan-core's CRI types and the prost messages.
//!
//! core → protobuf never fails. protobuf → core fails only for enum numbers the API does
//! not define (protobuf keeps unknown enum numbers; podplan's enums cannot).

use podplan_core::cri::{self as c, CriEnum};

use crate::pb;

/// A protobuf value podplan's types cannot represent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    /// An enum number outside the API's values.
    #[error("{field}: unknown enum value {value}")]
    UnknownEnum {
        /// The field.
        field: &'static str,
        /// The number found.
        value: i32,
    },
}

fn en<E: CriEnum>(field: &'static str, value: i32) -> Result<E, ConvertError> {
    E::from_number(value).ok_or(ConvertError::UnknownEnum { field, value })
}

fn opt<A, B: TryFrom<A, Error = ConvertError>>(v: Option<A>) -> Result<Option<B>, ConvertError> {
    v.map(B::try_from).transpose()
}

fn list<A, B: TryFrom<A, Error = ConvertError>>(v: Vec<A>) -> Result<Vec<B>, ConvertError> {
    v.into_iter().map(B::try_from).collect()
}

fn opt_ref<'a, A: 'a, B: From<&'a A>>(v: Option<&'a A>) -> Option<B> {
    v.map(B::from)
}

fn list_ref<'a, A: 'a, B: From<&'a A>>(v: &'a [A]) -> Vec<B> {
    v.iter().map(B::from).collect()
}

/// Declares both directions for a message whose fields all convert plainly.
macro_rules! plain {
    ($core:ident <-> $pb:ident { $($f:ident),* $(,)? }) => {
        impl From<&c::$core> for pb::$pb {
            fn from(v: &c::$core) -> Self {
                Self { $($f: v.$f.clone()),* }
            }
        }
        impl TryFrom<pb::$pb> for c::$core {
            type Error = ConvertError;
            fn try_from(v: pb::$pb) -> Result<Self, ConvertError> {
                Ok(Self { $($f: v.$f),* })
            }
        }
    };
}

plain!(Int64Value <-> Int64Value { value });
plain!(IdMapping <-> IdMapping { host_id, container_id, length });
plain!(HugepageLimit <-> HugepageLimit { page_size, limit });
plain!(PodSandboxMetadata <-> PodSandboxMetadata { name, uid, namespace, attempt });
plain!(DnsConfig <-> DnsConfig { servers, searches, options });
plain!(ContainerMetadata <-> ContainerMetadata { name, attempt });

impl From<&c::KeyValue> for pb::KeyValue {
    fn from(v: &c::KeyValue) -> Self {
        Self {
            key: v.key.clone(),
            value: v.value.as_bytes().to_vec(),
        }
    }
}

impl TryFrom<pb::KeyValue> for c::KeyValue {
    type Error = ConvertError;
    fn try_from(v: pb::KeyValue) -> Result<Self, ConvertError> {
        Ok(Self {
            key: v.key,
            value: c::EnvBytes(v.value),
        })
    }
}
plain!(Device <-> Device { container_path, host_path, permissions });
plain!(CdiDevice <-> CdiDevice { name });
plain!(Capability <-> Capability { add_capabilities, drop_capabilities, add_ambient_capabilities });
plain!(ImageSpec <-> ImageSpec { image, annotations, user_specified_image, runtime_handler, image_ref });
plain!(WindowsCpuGroupAffinity <-> WindowsCpuGroupAffinity { cpu_mask, cpu_group });
plain!(WindowsContainerSecurityContext <-> WindowsContainerSecurityContext { run_as_username, credential_spec, host_process });

impl From<&c::SeLinuxOption> for pb::SeLinuxOption {
    fn from(v: &c::SeLinuxOption) -> Self {
        Self {
            user: v.user.clone(),
            role: v.role.clone(),
            r#type: v.kind.clone(),
            level: v.level.clone(),
        }
    }
}

impl TryFrom<pb::SeLinuxOption> for c::SeLinuxOption {
    type Error = ConvertError;
    fn try_from(v: pb::SeLinuxOption) -> Result<Self, ConvertError> {
        Ok(Self {
            user: v.user,
            role: v.role,
            kind: v.r#type,
            level: v.level,
        })
    }
}

impl From<&c::UserNamespace> for pb::UserNamespace {
    fn from(v: &c::UserNamespace) -> Self {
        Self {
            mode: v.mode.number(),
            uids: list_ref(&v.uids),
            gids: list_ref(&v.gids),
        }
    }
}

impl TryFrom<pb::UserNamespace> for c::UserNamespace {
    type Error = ConvertError;
    fn try_from(v: pb::UserNamespace) -> Result<Self, ConvertError> {
        Ok(Self {
            mode: en("UserNamespace.mode", v.mode)?,
            uids: list(v.uids)?,
            gids: list(v.gids)?,
        })
    }
}

impl From<&c::NamespaceOption> for pb::NamespaceOption {
    fn from(v: &c::NamespaceOption) -> Self {
        Self {
            network: v.network.number(),
            pid: v.pid.number(),
            ipc: v.ipc.number(),
            target_id: v.target_id.clone(),
            userns_options: opt_ref(v.userns_options.as_ref()),
        }
    }
}

impl TryFrom<pb::NamespaceOption> for c::NamespaceOption {
    type Error = ConvertError;
    fn try_from(v: pb::NamespaceOption) -> Result<Self, ConvertError> {
        Ok(Self {
            network: en("NamespaceOption.network", v.network)?,
            pid: en("NamespaceOption.pid", v.pid)?,
            ipc: en("NamespaceOption.ipc", v.ipc)?,
            target_id: v.target_id,
            userns_options: opt(v.userns_options)?,
        })
    }
}

impl From<&c::SecurityProfile> for pb::SecurityProfile {
    fn from(v: &c::SecurityProfile) -> Self {
        Self {
            profile_type: v.profile_type.number(),
            localhost_ref: v.localhost_ref.clone(),
        }
    }
}

impl TryFrom<pb::SecurityProfile> for c::SecurityProfile {
    type Error = ConvertError;
    fn try_from(v: pb::SecurityProfile) -> Result<Self, ConvertError> {
        Ok(Self {
            profile_type: en("SecurityProfile.profile_type", v.profile_type)?,
            localhost_ref: v.localhost_ref,
        })
    }
}

impl From<&c::LinuxContainerResources> for pb::LinuxContainerResources {
    fn from(v: &c::LinuxContainerResources) -> Self {
        Self {
            cpu_period: v.cpu_period,
            cpu_quota: v.cpu_quota,
            cpu_shares: v.cpu_shares,
            memory_limit_in_bytes: v.memory_limit_in_bytes,
            oom_score_adj: v.oom_score_adj,
            cpuset_cpus: v.cpuset_cpus.clone(),
            cpuset_mems: v.cpuset_mems.clone(),
            hugepage_limits: list_ref(&v.hugepage_limits),
            unified: v.unified.clone(),
            memory_swap_limit_in_bytes: v.memory_swap_limit_in_bytes,
        }
    }
}

impl TryFrom<pb::LinuxContainerResources> for c::LinuxContainerResources {
    type Error = ConvertError;
    fn try_from(v: pb::LinuxContainerResources) -> Result<Self, ConvertError> {
        Ok(Self {
            cpu_period: v.cpu_period,
            cpu_quota: v.cpu_quota,
            cpu_shares: v.cpu_shares,
            memory_limit_in_bytes: v.memory_limit_in_bytes,
            oom_score_adj: v.oom_score_adj,
            cpuset_cpus: v.cpuset_cpus,
            cpuset_mems: v.cpuset_mems,
            hugepage_limits: list(v.hugepage_limits)?,
            unified: v.unified,
            memory_swap_limit_in_bytes: v.memory_swap_limit_in_bytes,
        })
    }
}

impl From<&c::PortMapping> for pb::PortMapping {
    fn from(v: &c::PortMapping) -> Self {
        Self {
            protocol: v.protocol.number(),
            container_port: v.container_port,
            host_port: v.host_port,
            host_ip: v.host_ip.clone(),
        }
    }
}

impl TryFrom<pb::PortMapping> for c::PortMapping {
    type Error = ConvertError;
    fn try_from(v: pb::PortMapping) -> Result<Self, ConvertError> {
        Ok(Self {
            protocol: en("PortMapping.protocol", v.protocol)?,
            container_port: v.container_port,
            host_port: v.host_port,
            host_ip: v.host_ip,
        })
    }
}

#[expect(
    deprecated,
    reason = "CRI keeps deprecated fields on the wire; a lossless conversion carries them"
)]
impl From<&c::LinuxSandboxSecurityContext> for pb::LinuxSandboxSecurityContext {
    fn from(v: &c::LinuxSandboxSecurityContext) -> Self {
        Self {
            namespace_options: opt_ref(v.namespace_options.as_ref()),
            selinux_options: opt_ref(v.selinux_options.as_ref()),
            run_as_user: opt_ref(v.run_as_user.as_ref()),
            readonly_rootfs: v.readonly_rootfs,
            supplemental_groups: v.supplemental_groups.clone(),
            privileged: v.privileged,
            seccomp_profile_path: v.seccomp_profile_path.clone(),
            run_as_group: opt_ref(v.run_as_group.as_ref()),
            seccomp: opt_ref(v.seccomp.as_ref()),
            apparmor: opt_ref(v.apparmor.as_ref()),
            supplemental_groups_policy: v.supplemental_groups_policy.number(),
        }
    }
}

#[expect(
    deprecated,
    reason = "CRI keeps deprecated fields on the wire; a lossless conversion carries them"
)]
impl TryFrom<pb::LinuxSandboxSecurityContext> for c::LinuxSandboxSecurityContext {
    type Error = ConvertError;
    fn try_from(v: pb::LinuxSandboxSecurityContext) -> Result<Self, ConvertError> {
        Ok(Self {
            namespace_options: opt(v.namespace_options)?,
            selinux_options: opt(v.selinux_options)?,
            run_as_user: opt(v.run_as_user)?,
            run_as_group: opt(v.run_as_group)?,
            readonly_rootfs: v.readonly_rootfs,
            supplemental_groups: v.supplemental_groups,
            supplemental_groups_policy: en(
                "LinuxSandboxSecurityContext.supplemental_groups_policy",
                v.supplemental_groups_policy,
            )?,
            privileged: v.privileged,
            seccomp: opt(v.seccomp)?,
            apparmor: opt(v.apparmor)?,
            seccomp_profile_path: v.seccomp_profile_path,
        })
    }
}

impl From<&c::LinuxPodSandboxConfig> for pb::LinuxPodSandboxConfig {
    fn from(v: &c::LinuxPodSandboxConfig) -> Self {
        Self {
            cgroup_parent: v.cgroup_parent.clone(),
            security_context: opt_ref(v.security_context.as_ref()),
            sysctls: v.sysctls.clone(),
            overhead: opt_ref(v.overhead.as_ref()),
            resources: opt_ref(v.resources.as_ref()),
        }
    }
}

impl TryFrom<pb::LinuxPodSandboxConfig> for c::LinuxPodSandboxConfig {
    type Error = ConvertError;
    fn try_from(v: pb::LinuxPodSandboxConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            cgroup_parent: v.cgroup_parent,
            security_context: opt(v.security_context)?,
            sysctls: v.sysctls,
            overhead: opt(v.overhead)?,
            resources: opt(v.resources)?,
        })
    }
}

impl From<&c::WindowsNamespaceOption> for pb::WindowsNamespaceOption {
    fn from(v: &c::WindowsNamespaceOption) -> Self {
        Self {
            network: v.network.number(),
        }
    }
}

impl TryFrom<pb::WindowsNamespaceOption> for c::WindowsNamespaceOption {
    type Error = ConvertError;
    fn try_from(v: pb::WindowsNamespaceOption) -> Result<Self, ConvertError> {
        Ok(Self {
            network: en("WindowsNamespaceOption.network", v.network)?,
        })
    }
}

impl From<&c::WindowsSandboxSecurityContext> for pb::WindowsSandboxSecurityContext {
    fn from(v: &c::WindowsSandboxSecurityContext) -> Self {
        Self {
            run_as_username: v.run_as_username.clone(),
            credential_spec: v.credential_spec.clone(),
            host_process: v.host_process,
            namespace_options: opt_ref(v.namespace_options.as_ref()),
        }
    }
}

impl TryFrom<pb::WindowsSandboxSecurityContext> for c::WindowsSandboxSecurityContext {
    type Error = ConvertError;
    fn try_from(v: pb::WindowsSandboxSecurityContext) -> Result<Self, ConvertError> {
        Ok(Self {
            run_as_username: v.run_as_username,
            credential_spec: v.credential_spec,
            host_process: v.host_process,
            namespace_options: opt(v.namespace_options)?,
        })
    }
}

impl From<&c::WindowsPodSandboxConfig> for pb::WindowsPodSandboxConfig {
    fn from(v: &c::WindowsPodSandboxConfig) -> Self {
        Self {
            security_context: opt_ref(v.security_context.as_ref()),
        }
    }
}

impl TryFrom<pb::WindowsPodSandboxConfig> for c::WindowsPodSandboxConfig {
    type Error = ConvertError;
    fn try_from(v: pb::WindowsPodSandboxConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            security_context: opt(v.security_context)?,
        })
    }
}

impl From<&c::PodSandboxConfig> for pb::PodSandboxConfig {
    fn from(v: &c::PodSandboxConfig) -> Self {
        Self {
            metadata: opt_ref(v.metadata.as_ref()),
            hostname: v.hostname.clone(),
            log_directory: v.log_directory.clone(),
            dns_config: opt_ref(v.dns_config.as_ref()),
            port_mappings: list_ref(&v.port_mappings),
            labels: v.labels.clone(),
            annotations: v.annotations.clone(),
            linux: opt_ref(v.linux.as_ref()),
            windows: opt_ref(v.windows.as_ref()),
        }
    }
}

impl TryFrom<pb::PodSandboxConfig> for c::PodSandboxConfig {
    type Error = ConvertError;
    fn try_from(v: pb::PodSandboxConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            metadata: opt(v.metadata)?,
            hostname: v.hostname,
            log_directory: v.log_directory,
            dns_config: opt(v.dns_config)?,
            port_mappings: list(v.port_mappings)?,
            labels: v.labels,
            annotations: v.annotations,
            linux: opt(v.linux)?,
            windows: opt(v.windows)?,
        })
    }
}

impl From<&c::Mount> for pb::Mount {
    fn from(v: &c::Mount) -> Self {
        Self {
            container_path: v.container_path.clone(),
            host_path: v.host_path.clone(),
            readonly: v.readonly,
            selinux_relabel: v.selinux_relabel,
            propagation: v.propagation.number(),
            uid_mappings: list_ref(&v.uid_mappings),
            gid_mappings: list_ref(&v.gid_mappings),
            recursive_read_only: v.recursive_read_only,
            image: opt_ref(v.image.as_ref()),
            image_sub_path: v.image_sub_path.clone(),
        }
    }
}

impl TryFrom<pb::Mount> for c::Mount {
    type Error = ConvertError;
    fn try_from(v: pb::Mount) -> Result<Self, ConvertError> {
        Ok(Self {
            container_path: v.container_path,
            host_path: v.host_path,
            readonly: v.readonly,
            selinux_relabel: v.selinux_relabel,
            propagation: en("Mount.propagation", v.propagation)?,
            uid_mappings: list(v.uid_mappings)?,
            gid_mappings: list(v.gid_mappings)?,
            recursive_read_only: v.recursive_read_only,
            image: opt(v.image)?,
            image_sub_path: v.image_sub_path,
        })
    }
}

#[expect(
    deprecated,
    reason = "CRI keeps deprecated fields on the wire; a lossless conversion carries them"
)]
impl From<&c::LinuxContainerSecurityContext> for pb::LinuxContainerSecurityContext {
    fn from(v: &c::LinuxContainerSecurityContext) -> Self {
        Self {
            capabilities: opt_ref(v.capabilities.as_ref()),
            privileged: v.privileged,
            namespace_options: opt_ref(v.namespace_options.as_ref()),
            selinux_options: opt_ref(v.selinux_options.as_ref()),
            run_as_user: opt_ref(v.run_as_user.as_ref()),
            run_as_username: v.run_as_username.clone(),
            readonly_rootfs: v.readonly_rootfs,
            supplemental_groups: v.supplemental_groups.clone(),
            apparmor_profile: v.apparmor_profile.clone(),
            seccomp_profile_path: v.seccomp_profile_path.clone(),
            no_new_privs: v.no_new_privs,
            run_as_group: opt_ref(v.run_as_group.as_ref()),
            masked_paths: v.masked_paths.clone(),
            readonly_paths: v.readonly_paths.clone(),
            seccomp: opt_ref(v.seccomp.as_ref()),
            apparmor: opt_ref(v.apparmor.as_ref()),
            supplemental_groups_policy: v.supplemental_groups_policy.number(),
        }
    }
}

#[expect(
    deprecated,
    reason = "CRI keeps deprecated fields on the wire; a lossless conversion carries them"
)]
impl TryFrom<pb::LinuxContainerSecurityContext> for c::LinuxContainerSecurityContext {
    type Error = ConvertError;
    fn try_from(v: pb::LinuxContainerSecurityContext) -> Result<Self, ConvertError> {
        Ok(Self {
            capabilities: opt(v.capabilities)?,
            privileged: v.privileged,
            namespace_options: opt(v.namespace_options)?,
            selinux_options: opt(v.selinux_options)?,
            run_as_user: opt(v.run_as_user)?,
            run_as_group: opt(v.run_as_group)?,
            run_as_username: v.run_as_username,
            readonly_rootfs: v.readonly_rootfs,
            supplemental_groups: v.supplemental_groups,
            supplemental_groups_policy: en(
                "LinuxContainerSecurityContext.supplemental_groups_policy",
                v.supplemental_groups_policy,
            )?,
            no_new_privs: v.no_new_privs,
            masked_paths: v.masked_paths,
            readonly_paths: v.readonly_paths,
            seccomp: opt(v.seccomp)?,
            apparmor: opt(v.apparmor)?,
            apparmor_profile: v.apparmor_profile,
            seccomp_profile_path: v.seccomp_profile_path,
        })
    }
}

impl From<&c::LinuxContainerConfig> for pb::LinuxContainerConfig {
    fn from(v: &c::LinuxContainerConfig) -> Self {
        Self {
            resources: opt_ref(v.resources.as_ref()),
            security_context: opt_ref(v.security_context.as_ref()),
        }
    }
}

impl TryFrom<pb::LinuxContainerConfig> for c::LinuxContainerConfig {
    type Error = ConvertError;
    fn try_from(v: pb::LinuxContainerConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            resources: opt(v.resources)?,
            security_context: opt(v.security_context)?,
        })
    }
}

impl From<&c::WindowsContainerResources> for pb::WindowsContainerResources {
    fn from(v: &c::WindowsContainerResources) -> Self {
        Self {
            cpu_shares: v.cpu_shares,
            cpu_count: v.cpu_count,
            cpu_maximum: v.cpu_maximum,
            memory_limit_in_bytes: v.memory_limit_in_bytes,
            rootfs_size_in_bytes: v.rootfs_size_in_bytes,
            affinity_cpus: list_ref(&v.affinity_cpus),
        }
    }
}

impl TryFrom<pb::WindowsContainerResources> for c::WindowsContainerResources {
    type Error = ConvertError;
    fn try_from(v: pb::WindowsContainerResources) -> Result<Self, ConvertError> {
        Ok(Self {
            cpu_shares: v.cpu_shares,
            cpu_count: v.cpu_count,
            cpu_maximum: v.cpu_maximum,
            memory_limit_in_bytes: v.memory_limit_in_bytes,
            rootfs_size_in_bytes: v.rootfs_size_in_bytes,
            affinity_cpus: list(v.affinity_cpus)?,
        })
    }
}

impl From<&c::WindowsContainerConfig> for pb::WindowsContainerConfig {
    fn from(v: &c::WindowsContainerConfig) -> Self {
        Self {
            resources: opt_ref(v.resources.as_ref()),
            security_context: opt_ref(v.security_context.as_ref()),
        }
    }
}

impl TryFrom<pb::WindowsContainerConfig> for c::WindowsContainerConfig {
    type Error = ConvertError;
    fn try_from(v: pb::WindowsContainerConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            resources: opt(v.resources)?,
            security_context: opt(v.security_context)?,
        })
    }
}

impl From<&c::ContainerConfig> for pb::ContainerConfig {
    fn from(v: &c::ContainerConfig) -> Self {
        Self {
            metadata: opt_ref(v.metadata.as_ref()),
            image: opt_ref(v.image.as_ref()),
            command: v.command.clone(),
            args: v.args.clone(),
            working_dir: v.working_dir.clone(),
            envs: list_ref(&v.envs),
            mounts: list_ref(&v.mounts),
            devices: list_ref(&v.devices),
            labels: v.labels.clone(),
            annotations: v.annotations.clone(),
            log_path: v.log_path.clone(),
            stdin: v.stdin,
            stdin_once: v.stdin_once,
            tty: v.tty,
            linux: opt_ref(v.linux.as_ref()),
            windows: opt_ref(v.windows.as_ref()),
            cdi_devices: list_ref(&v.cdi_devices),
            stop_signal: v.stop_signal.number(),
        }
    }
}

impl TryFrom<pb::ContainerConfig> for c::ContainerConfig {
    type Error = ConvertError;
    fn try_from(v: pb::ContainerConfig) -> Result<Self, ConvertError> {
        Ok(Self {
            metadata: opt(v.metadata)?,
            image: opt(v.image)?,
            command: v.command,
            args: v.args,
            working_dir: v.working_dir,
            envs: list(v.envs)?,
            mounts: list(v.mounts)?,
            devices: list(v.devices)?,
            labels: v.labels,
            annotations: v.annotations,
            log_path: v.log_path,
            stdin: v.stdin,
            stdin_once: v.stdin_once,
            tty: v.tty,
            linux: opt(v.linux)?,
            windows: opt(v.windows)?,
            cdi_devices: list(v.cdi_devices)?,
            stop_signal: en("ContainerConfig.stop_signal", v.stop_signal)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_enum_numbers_are_errors() {
        let m = pb::PortMapping {
            protocol: 9,
            ..Default::default()
        };
        assert_eq!(
            c::PortMapping::try_from(m),
            Err(ConvertError::UnknownEnum {
                field: "PortMapping.protocol",
                value: 9
            })
        );
    }

    #[test]
    fn enum_numbers_match_the_generated_ones() {
        assert_eq!(c::Protocol::Sctp.number(), pb::Protocol::Sctp as i32);
        assert_eq!(
            c::MountPropagation::Bidirectional.number(),
            pb::MountPropagation::PropagationBidirectional as i32
        );
        assert_eq!(
            c::NamespaceMode::Target.number(),
            pb::NamespaceMode::Target as i32
        );
        assert_eq!(
            c::ProfileType::Localhost.number(),
            pb::security_profile::ProfileType::Localhost as i32
        );
        assert_eq!(c::Signal::Sigrtmax.number(), pb::Signal::Sigrtmax as i32);
        assert_eq!(
            c::SupplementalGroupsPolicy::Strict.number(),
            pb::SupplementalGroupsPolicy::Strict as i32
        );
        for (v, name, _) in c::Signal::VALUES {
            let generated = pb::Signal::from_str_name(name).map(|s| s as i32);
            assert_eq!(generated, Some(v.number()), "{name}");
        }
    }
}
