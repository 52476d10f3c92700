//! CRI messages shared by sandbox and container configs.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::enums::{is_default, NamespaceMode, ProfileType};

/// CRI `LinuxContainerResources`: cgroup settings of a container (or of a sandbox).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxContainerResources {
    /// CFS period, µs (0 = not set).
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_period: i64,
    /// CFS quota, µs (0 = not set, -1 = unlimited).
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_quota: i64,
    /// CPU shares.
    #[serde(skip_serializing_if = "is_default")]
    pub cpu_shares: i64,
    /// Memory limit, bytes (0 = not set).
    #[serde(skip_serializing_if = "is_default")]
    pub memory_limit_in_bytes: i64,
    /// OOM score adjustment.
    #[serde(skip_serializing_if = "is_default")]
    pub oom_score_adj: i64,
    /// Allowed CPUs (cpuset syntax).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cpuset_cpus: String,
    /// Allowed memory nodes.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub cpuset_mems: String,
    /// HugeTLB limits per page size.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hugepage_limits: Vec<HugepageLimit>,
    /// cgroup v2 files and values.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub unified: BTreeMap<String, String>,
    /// Memory + swap limit, bytes (cgroup v1).
    #[serde(skip_serializing_if = "is_default")]
    pub memory_swap_limit_in_bytes: i64,
}

/// CRI `HugepageLimit`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct HugepageLimit {
    /// Page size, e.g. `2MB`, `1GB`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub page_size: String,
    /// Limit in bytes.
    #[serde(skip_serializing_if = "is_default")]
    pub limit: u64,
}

/// CRI `NamespaceOption`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct NamespaceOption {
    /// Network namespace.
    #[serde(skip_serializing_if = "is_default")]
    pub network: NamespaceMode,
    /// PID namespace.
    #[serde(skip_serializing_if = "is_default")]
    pub pid: NamespaceMode,
    /// IPC namespace.
    #[serde(skip_serializing_if = "is_default")]
    pub ipc: NamespaceMode,
    /// Target container for `TARGET` mode.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub target_id: String,
    /// User namespace of the pod.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub userns_options: Option<UserNamespace>,
}

/// CRI `UserNamespace`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct UserNamespace {
    /// `POD` (own user namespace) or `NODE` (host users).
    #[serde(skip_serializing_if = "is_default")]
    pub mode: NamespaceMode,
    /// UID mappings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uids: Vec<IdMapping>,
    /// GID mappings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gids: Vec<IdMapping>,
}

/// CRI `IDMapping`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct IdMapping {
    /// First id on the host.
    #[serde(skip_serializing_if = "is_default")]
    pub host_id: u32,
    /// First id in the container.
    #[serde(skip_serializing_if = "is_default")]
    pub container_id: u32,
    /// Range length.
    #[serde(skip_serializing_if = "is_default")]
    pub length: u32,
}

/// CRI `SecurityProfile` (seccomp or AppArmor).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct SecurityProfile {
    /// Profile type.
    #[serde(skip_serializing_if = "is_default")]
    pub profile_type: ProfileType,
    /// The node profile (a path for seccomp, a name for AppArmor) when `Localhost`.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub localhost_ref: String,
}

/// CRI `Int64Value` (an optional int64).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Int64Value {
    /// The value.
    #[serde(skip_serializing_if = "is_default")]
    pub value: i64,
}

/// CRI `SELinuxOption`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct SeLinuxOption {
    /// SELinux user.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub user: String,
    /// SELinux role.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub role: String,
    /// SELinux type.
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    /// SELinux level.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub level: String,
}
