//! CRI `ContainerConfig` (the `CreateContainer` request's config).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::bytes::EnvBytes;
use super::common::{
    IdMapping, Int64Value, LinuxContainerResources, NamespaceOption, SeLinuxOption, SecurityProfile,
};
use super::enums::{is_default, MountPropagation, Signal, SupplementalGroupsPolicy};

/// CRI `ContainerConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerConfig {
    /// Name and attempt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<ContainerMetadata>,
    /// Image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageSpec>,
    /// Entrypoint.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub command: Vec<String>,
    /// Arguments.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Working directory.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub working_dir: String,
    /// Environment, in order (duplicates allowed; the last wins).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub envs: Vec<KeyValue>,
    /// Mounts, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mounts: Vec<Mount>,
    /// Devices.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub devices: Vec<Device>,
    /// Labels.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Log path relative to the sandbox's log directory.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub log_path: String,
    /// Keep stdin open.
    #[serde(skip_serializing_if = "is_default")]
    pub stdin: bool,
    /// Close stdin after the first attach.
    #[serde(skip_serializing_if = "is_default")]
    pub stdin_once: bool,
    /// Allocate a TTY.
    #[serde(skip_serializing_if = "is_default")]
    pub tty: bool,
    /// Linux settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxContainerConfig>,
    /// Windows settings (never set by a Linux kubelet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<WindowsContainerConfig>,
    /// CDI devices (proto field `CDI_devices`).
    #[serde(rename = "CDIDevices", skip_serializing_if = "Vec::is_empty")]
    pub cdi_devices: Vec<CdiDevice>,
    /// Stop signal.
    #[serde(skip_serializing_if = "is_default")]
    pub stop_signal: Signal,
}

/// CRI `ContainerMetadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerMetadata {
    /// Container name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Attempt (the restart count).
    #[serde(skip_serializing_if = "is_default")]
    pub attempt: u32,
}

/// CRI `ImageSpec`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageSpec {
    /// Image reference (id or digest) the pull returned.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub image: String,
    /// Annotations.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// The image as the user wrote it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub user_specified_image: String,
    /// Runtime handler for the pull.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub runtime_handler: String,
    /// Image digest (image volumes).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub image_ref: String,
}

/// CRI `KeyValue`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyValue {
    /// Key.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    /// Value: `bytes` in the 1.37 cri-api (readable JSON: a string when UTF-8, else
    /// `{"base64": ...}`; see [`EnvBytes`]).
    #[serde(skip_serializing_if = "EnvBytes::is_empty")]
    pub value: EnvBytes,
}

/// CRI `Mount`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Mount {
    /// Path in the container.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub container_path: String,
    /// Path on the host.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host_path: String,
    /// Read-only.
    #[serde(skip_serializing_if = "is_default")]
    pub readonly: bool,
    /// Needs SELinux relabelling.
    #[serde(skip_serializing_if = "is_default")]
    pub selinux_relabel: bool,
    /// Propagation.
    #[serde(skip_serializing_if = "is_default")]
    pub propagation: MountPropagation,
    /// UID mappings (user namespaces).
    #[serde(rename = "uidMappings", skip_serializing_if = "Vec::is_empty")]
    pub uid_mappings: Vec<IdMapping>,
    /// GID mappings (user namespaces).
    #[serde(rename = "gidMappings", skip_serializing_if = "Vec::is_empty")]
    pub gid_mappings: Vec<IdMapping>,
    /// Recursive read-only.
    #[serde(skip_serializing_if = "is_default")]
    pub recursive_read_only: bool,
    /// Image to mount (image volumes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<ImageSpec>,
    /// Sub path inside the image.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub image_sub_path: String,
}

/// CRI `Device`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Device {
    /// Path in the container.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub container_path: String,
    /// Path on the host.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host_path: String,
    /// cgroup permissions (`r`, `w`, `m`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub permissions: String,
}

/// CRI `CDIDevice`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CdiDevice {
    /// Fully qualified CDI device name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
}

/// CRI `LinuxContainerConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxContainerConfig {
    /// cgroup settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<LinuxContainerResources>,
    /// Security settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_context: Option<LinuxContainerSecurityContext>,
}

/// CRI `Capability`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Capability {
    /// Capabilities to add.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub add_capabilities: Vec<String>,
    /// Capabilities to drop.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drop_capabilities: Vec<String>,
    /// Ambient capabilities to add.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub add_ambient_capabilities: Vec<String>,
}

/// CRI `LinuxContainerSecurityContext`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxContainerSecurityContext {
    /// Capabilities.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Capability>,
    /// Privileged.
    #[serde(skip_serializing_if = "is_default")]
    pub privileged: bool,
    /// Namespaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_options: Option<NamespaceOption>,
    /// SELinux labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selinux_options: Option<SeLinuxOption>,
    /// UID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_as_user: Option<Int64Value>,
    /// GID.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_as_group: Option<Int64Value>,
    /// User name (resolved in the image).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub run_as_username: String,
    /// Read-only root filesystem.
    #[serde(skip_serializing_if = "is_default")]
    pub readonly_rootfs: bool,
    /// Supplemental groups.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supplemental_groups: Vec<i64>,
    /// How supplemental groups combine with the image's.
    #[serde(skip_serializing_if = "is_default")]
    pub supplemental_groups_policy: SupplementalGroupsPolicy,
    /// `no_new_privs`.
    #[serde(skip_serializing_if = "is_default")]
    pub no_new_privs: bool,
    /// Masked paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub masked_paths: Vec<String>,
    /// Read-only paths.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub readonly_paths: Vec<String>,
    /// Seccomp profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seccomp: Option<SecurityProfile>,
    /// AppArmor profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apparmor: Option<SecurityProfile>,
    /// Deprecated AppArmor profile string (`runtime/default`, `localhost/<p>`, ...).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub apparmor_profile: String,
    /// Deprecated seccomp profile path.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub seccomp_profile_path: String,
}

/// CRI `WindowsContainerConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsContainerConfig {
    /// Resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<WindowsContainerResources>,
    /// Security settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_context: Option<WindowsContainerSecurityContext>,
}

/// CRI `WindowsContainerResources`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsContainerResources {
    /// CPU shares.
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_shares: i64,
    /// CPU count.
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_count: i64,
    /// CPU maximum (percent × 100).
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_maximum: i64,
    /// Memory limit, bytes.
    #[serde(skip_serializing_if = "is_default")]
    pub memory_limit_in_bytes: i64,
    /// Root filesystem size, bytes.
    #[serde(skip_serializing_if = "is_default")]
    pub rootfs_size_in_bytes: i64,
    /// CPU affinity.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub affinity_cpus: Vec<WindowsCpuGroupAffinity>,
}

/// CRI `WindowsCpuGroupAffinity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsCpuGroupAffinity {
    /// CPU mask within the group.
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_mask: u64,
    /// Processor group.
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_group: u32,
}

/// CRI `WindowsContainerSecurityContext`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsContainerSecurityContext {
    /// User name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub run_as_username: String,
    /// GMSA credential spec.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub credential_spec: String,
    /// HostProcess container.
    #[serde(skip_serializing_if = "is_default")]
    pub host_process: bool,
}
