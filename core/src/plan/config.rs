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
}
