//! The CRI operations of a plan in `SyncPod` order. STUB: owned by the decision work.

use serde::{Deserialize, Serialize};

/// One CRI operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// `KillPod | KillContainer | RunPodSandbox | UpdateContainerResources | CreateContainer | StartContainer`.
    pub op: String,
}

/// Fills `plan.steps` (and step-time events) from the decided actions. STUB.
pub fn build(
    _request: &crate::request::PlanRequest,
    _gates: &crate::features::FeatureGates,
    _plan: &mut crate::plan::Plan,
) {
}

/// Which list of the pod spec a container comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContainerKind {
    /// `spec.initContainers`.
    Init,
    /// `spec.containers`.
    Regular,
    /// `spec.ephemeralContainers`.
    Ephemeral,
}

impl ContainerKind {
    /// The kubelet's words for this kind ("init container", ...).
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Self::Init => "init container",
            Self::Regular => "container",
            Self::Ephemeral => "ephemeral container",
        }
    }
}
