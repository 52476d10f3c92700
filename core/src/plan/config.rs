//! Generated CRI container configs in the plan.

use serde::{Deserialize, Serialize};

use crate::cri::ContainerConfig;

/// A generated container config in the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    pub config: ContainerConfig,
    /// Generated before the sandbox this sync creates exists: the pod IPs
    /// (`status.podIP(s)` env values, the `/etc/hosts` mount) come from its status, so
    /// complete it (`complete`) after `RunPodSandbox`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub depends_on_new_sandbox: bool,
}
