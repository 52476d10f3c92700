//! The requests of an in-place resize: `UpdateContainerResources` and
//! `UpdatePodSandboxResources` (proto3 JSON).

use serde::{Deserialize, Serialize};

use super::common::LinuxContainerResources;

/// `UpdateContainerResourcesRequest` (proto3 JSON; `windows` is never set on Linux).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdateContainerResourcesRequest {
    /// Runtime container id (without the `runtime://` prefix).
    pub container_id: String,
    /// The resources to apply.
    pub linux: LinuxContainerResources,
}

/// `UpdatePodSandboxResourcesRequest` (proto3 JSON).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UpdatePodSandboxResourcesRequest {
    /// Sandbox id (empty when it is the sandbox this sync creates).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pod_sandbox_id: String,
    /// The pod overhead (`convertOverheadToLinuxResources`).
    pub overhead: LinuxContainerResources,
    /// The pod's resources without the overhead.
    pub resources: LinuxContainerResources,
}

/// The exact CRI request of a step that carries one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum StepRequest {
    /// `UpdateContainerResources`.
    UpdateContainerResources(UpdateContainerResourcesRequest),
    /// `UpdatePodSandboxResources`.
    UpdatePodSandboxResources(UpdatePodSandboxResourcesRequest),
}
