//! Events the kubelet would record. STUB: owned by the decision work.

use serde::{Deserialize, Serialize};

/// One event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Event reason, e.g. `SandboxChanged`.
    pub reason: String,
    /// Event message.
    pub message: String,
}
