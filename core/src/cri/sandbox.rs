//! CRI `PodSandboxConfig` (the `RunPodSandbox` request's config).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::common::{
    Int64Value, LinuxContainerResources, NamespaceOption, SeLinuxOption, SecurityProfile,
};
use super::enums::{is_default, NamespaceMode, Protocol, SupplementalGroupsPolicy};

/// CRI `PodSandboxConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PodSandboxConfig {
    /// Identity of the sandbox.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<PodSandboxMetadata>,
    /// Hostname (empty for host-network pods).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hostname: String,
    /// Directory for the containers' log files.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub log_directory: String,
    /// DNS settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dns_config: Option<DnsConfig>,
    /// Port mappings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub port_mappings: Vec<PortMapping>,
    /// Labels.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Annotations.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Linux settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxPodSandboxConfig>,
    /// Windows settings (never set by a Linux kubelet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub windows: Option<WindowsPodSandboxConfig>,
}

/// CRI `PodSandboxMetadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PodSandboxMetadata {
    /// Pod name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Pod UID.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// Pod namespace.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    /// Attempt number.
    #[serde(skip_serializing_if = "is_default")]
    pub attempt: u32,
}

/// CRI `DNSConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct DnsConfig {
    /// Name servers.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<String>,
    /// Search domains.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub searches: Vec<String>,
    /// resolv.conf options.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
}

/// CRI `PortMapping`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct PortMapping {
    /// Protocol.
    #[serde(skip_serializing_if = "is_default")]
    pub protocol: Protocol,
    /// Port in the container.
    #[serde(skip_serializing_if = "is_default")]
    pub container_port: i32,
    /// Port on the host (0 = none).
    #[serde(skip_serializing_if = "is_default")]
    pub host_port: i32,
    /// Host IP.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host_ip: String,
}

/// CRI `LinuxPodSandboxConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxPodSandboxConfig {
    /// Parent cgroup.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cgroup_parent: String,
    /// Sandbox security settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_context: Option<LinuxSandboxSecurityContext>,
    /// Sysctls.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub sysctls: BTreeMap<String, String>,
    /// Pod overhead resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overhead: Option<LinuxContainerResources>,
    /// The pod's resources (sum of its containers', without overhead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<LinuxContainerResources>,
}

/// CRI `LinuxSandboxSecurityContext`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxSandboxSecurityContext {
    /// Namespaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_options: Option<NamespaceOption>,
    /// SELinux labels.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selinux_options: Option<SeLinuxOption>,
    /// UID of sandbox processes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_as_user: Option<Int64Value>,
    /// GID of sandbox processes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_as_group: Option<Int64Value>,
    /// Read-only root filesystem.
    #[serde(skip_serializing_if = "is_default")]
    pub readonly_rootfs: bool,
    /// Supplemental groups.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supplemental_groups: Vec<i64>,
    /// How supplemental groups combine with the image's.
    #[serde(skip_serializing_if = "is_default")]
    pub supplemental_groups_policy: SupplementalGroupsPolicy,
    /// Some container of the pod is privileged.
    #[serde(skip_serializing_if = "is_default")]
    pub privileged: bool,
    /// Seccomp profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seccomp: Option<SecurityProfile>,
    /// AppArmor profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub apparmor: Option<SecurityProfile>,
    /// Deprecated seccomp profile path.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub seccomp_profile_path: String,
}

/// CRI `WindowsPodSandboxConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsPodSandboxConfig {
    /// Sandbox security settings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security_context: Option<WindowsSandboxSecurityContext>,
}

/// CRI `WindowsSandboxSecurityContext`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsSandboxSecurityContext {
    /// User name.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub run_as_username: String,
    /// GMSA credential spec.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub credential_spec: String,
    /// HostProcess sandbox.
    #[serde(skip_serializing_if = "is_default")]
    pub host_process: bool,
    /// Namespaces.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_options: Option<WindowsNamespaceOption>,
}

/// CRI `WindowsNamespaceOption`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WindowsNamespaceOption {
    /// Network namespace.
    #[serde(skip_serializing_if = "is_default")]
    pub network: NamespaceMode,
}
