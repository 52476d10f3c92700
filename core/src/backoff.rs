//! Crash-loop back-off as explicit state (client-go `flowcontrol.Backoff` as the kubelet
//! configures it). STUB: owned by the decision work.

use serde::{Deserialize, Serialize};

/// One back-off entry, keyed as the kubelet keys it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BackoffRecord {
    /// The back-off key (`GetBackoffKey`).
    pub key: String,
    /// The container the key belongs to (informational).
    #[serde(default)]
    pub container: String,
    /// Current delay in seconds.
    pub delay_seconds: u64,
    /// When the entry was last updated.
    pub last_update: jiff::Timestamp,
}

/// A start held back by crash-loop back-off.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldBack {
    /// Container name.
    pub container: String,
    /// Seconds until the back-off expires.
    pub wait_seconds: u64,
}
