//! The kubelet's `podActions` and the entries of its maps and lists.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The kubelet's `podActions` (contract field names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodActions {
    /// Stop the whole pod (containers, then sandbox).
    pub kill_pod: bool,
    /// Create a new sandbox after the kill.
    pub create_sandbox: bool,
    /// The current sandbox's id ("" if none or replaced for a namespace mismatch).
    pub sandbox_id: String,
    /// Attempt number of the sandbox to create (or of the current one).
    pub attempt: u32,
    /// Init-container indices to start, ascending.
    pub init_containers_to_start: Vec<usize>,
    /// Regular-container indices to start.
    pub containers_to_start: Vec<usize>,
    /// Containers to stop, keyed by runtime container id.
    pub containers_to_kill: BTreeMap<String, ContainerToKill>,
    /// Ephemeral-container indices to start.
    pub ephemeral_containers_to_start: Vec<usize>,
    /// In-place resize work per resource (`cpu`, `memory`), decreases first.
    /// `None` when the pod may not be resized in place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers_to_update: Option<BTreeMap<String, Vec<ContainerToUpdate>>>,
    /// The pod-level cgroup must be updated.
    pub update_pod_resources: bool,
    /// Pod-level resources differ from the actuated ones.
    pub update_pod_level_resources: bool,
    /// RestartAllContainers path: containers to kill (if `kill`) and remove, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers_to_reset: Vec<ContainerToReset>,
}

/// Kill reason (`containerKillReason`); it selects the grace period at kill time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KillReason {
    /// Spec changed, or a resize needs a restart (`""`).
    #[default]
    #[serde(rename = "")]
    None,
    /// Startup probe failed.
    StartupProbe,
    /// Liveness probe failed.
    LivenessProbe,
    /// postStart hook failed.
    FailedPostStartHook,
    /// The container is in unknown state.
    Unknown,
    /// RestartAllContainers.
    RestartAllContainers,
}

/// One entry of `containersToKill`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerToKill {
    /// Container name.
    pub name: String,
    /// Kill reason.
    #[serde(default)]
    pub reason: KillReason,
    /// The kubelet's kill message.
    #[serde(default)]
    pub message: String,
}

/// Resource values compared by in-place resize (memory in bytes, CPU in millicores).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResizeResources {
    /// Memory limit, bytes.
    pub memory_limit: i64,
    /// Memory request, bytes.
    pub memory_request: i64,
    /// CPU limit, millicores.
    pub cpu_limit: i64,
    /// CPU request, millicores.
    pub cpu_request: i64,
}

/// One entry of `containersToUpdate[resource]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerToUpdate {
    /// Container name.
    pub name: String,
    /// Runtime container id.
    pub container_id: String,
    /// Resources wanted.
    pub desired: ResizeResources,
    /// Resources actuated now.
    pub current: ResizeResources,
}

/// One entry of `containersToReset`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerToReset {
    /// Container name.
    pub name: String,
    /// Runtime container id.
    pub container_id: String,
    /// Kill (grace 0) before removing.
    pub kill: bool,
}
