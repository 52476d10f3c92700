//! Crash-loop back-off in the plan: held-back starts and the records to pass on.

use serde::{Deserialize, Serialize};

use super::kind::ContainerKind;

/// One back-off entry, keyed as the kubelet keys it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BackoffRecord {
    /// The back-off key (`backoff::backoff_key`).
    pub key: String,
    /// The container the key belongs to (informational).
    #[serde(default)]
    pub container: String,
    /// Current delay in seconds.
    pub delay_seconds: u64,
    /// When the entry was last updated (the sync's `now` at that time).
    pub last_update: jiff::Timestamp,
}

/// A start held back by crash-loop or image-pull back-off.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldBack {
    /// Container name.
    pub container: String,
    /// Which list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Seconds until the back-off expires (rounded up).
    pub wait_seconds: u64,
    /// When the back-off expires: the newest exited instance's `finishedAt` + the delay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<jiff::Timestamp>,
    /// The current delay in seconds.
    #[serde(default)]
    pub delay_seconds: u64,
    /// Which back-off holds the start: absent = `CrashLoopBackOff` (the container's
    /// crash-loop back-off), `ImagePullBackOff` (the image-pull back-off of its image).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
