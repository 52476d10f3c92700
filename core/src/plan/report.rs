//! Per-container errors and warnings about the input.

use serde::{Deserialize, Serialize};

/// A per-container error that stops that container's creation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerError {
    /// Container name.
    pub container: String,
    /// Kubelet reason, e.g. `CreateContainerConfigError`.
    pub reason: String,
    /// Message.
    pub message: String,
}

/// A non-fatal observation about the input.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Warning {
    /// JSON path of the input concerned.
    pub path: String,
    /// What was noticed and what the engine did about it.
    pub message: String,
}
