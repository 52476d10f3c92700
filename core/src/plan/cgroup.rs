//! The pod's cgroup in a plan (`Plan::pod_cgroup`): what `podContainerManager.EnsureExists`
//! makes before the pod's sandbox (`pkg/kubelet/cm/pod_container_manager_linux.go`), as
//! values; `crate::config::cgroups` computes them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `cm.ResourceConfig`: what a cgroup is configured with; an absent value is left as the
/// kernel has it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceConfig {
    /// `cpu.shares` (v1; v2 writes its `cpu.weight`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_shares: Option<u64>,
    /// CFS quota in microseconds per period (-1: unlimited; 0: not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_quota: Option<i64>,
    /// CFS period in microseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_period: Option<u64>,
    /// Memory limit in bytes (0: not set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<i64>,
    /// Maximum number of processes (-1 or 0: unlimited).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pids_limit: Option<i64>,
    /// Huge page limits: page size as the cgroup files name it (`2MB`) → bytes.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub huge_page_limits: BTreeMap<String, i64>,
    /// cgroup v2 files written as they are (`memory.min`, `memory.low`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub unified: BTreeMap<String, String>,
}

/// The pod's cgroup as `SyncPod` ensures it before the pod's sandbox exists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodCgroup {
    /// The cgroup's name as the cgroup driver spells it: the sandbox's cgroup parent
    /// (`/kubepods/burstable/pod<uid>`).
    pub name: String,
    /// What it is configured with.
    pub resources: ResourceConfig,
}
