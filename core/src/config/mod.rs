//! CRI config generation (`generatePodSandboxConfig`, `generateContainerConfig`).
//! STUB: owned by the CRI-config work.

use serde::{Deserialize, Serialize};

/// Node and kubelet facts needed to generate CRI configs. Every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeContext {
    /// Node name.
    #[serde(default)]
    pub name: Option<String>,
}

/// A generated container config in the plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerConfigEntry {
    /// Container name.
    pub name: String,
    /// `init`, `regular` or `ephemeral`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Restart count carried in the config's metadata.
    pub restart_count: i32,
    /// CRI `ContainerConfig`.
    pub config: serde_json::Value,
}

/// Adds the sandbox and container configs a plan needs. STUB.
pub fn attach(
    _request: &crate::request::PlanRequest,
    _gates: &crate::features::FeatureGates,
    _plan: &mut crate::plan::Plan,
) {
}
