//! Wire types of the status extension (computed by `crate::status`): the kubectl row and
//! the reason cache.
//!
//! A leaf: nothing here imports a computing module, so the plan and the request can carry
//! these types without depending on how they are computed.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The `kubectl get pods` row (the API server's pod table printer), as strings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KubectlRow {
    /// NAME: `metadata.name`.
    pub name: String,
    /// READY: `"<ready>/<total>"`.
    pub ready: String,
    /// STATUS, e.g. `Running`, `Init:0/2`, `CrashLoopBackOff`, `Completed`.
    pub status: String,
    /// RESTARTS: `"3"` or `"3 (10s ago)"`.
    pub restarts: String,
    /// AGE, e.g. `"5m"`; `"<unknown>"` without a creation time (or without `now`).
    pub age: String,
    /// The Table row's conditions (not printed by kubectl).
    #[serde(default)]
    pub conditions: Vec<RowCondition>,
    /// IP (`-o wide` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ip: Option<String>,
    /// NODE (`-o wide` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// NOMINATED NODE (`-o wide` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nominated_node: Option<String>,
    /// READINESS GATES (`-o wide` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness_gates: Option<String>,
}

/// One Table row condition (`Completed` for terminal pods).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowCondition {
    /// Always `Completed`.
    #[serde(rename = "type")]
    pub type_: String,
    /// Always `True`.
    pub status: String,
    /// `Succeeded` or `Failed`.
    pub reason: String,
    /// Human text.
    pub message: String,
}

/// One reason-cache entry: the error of the last sync's failed start of a container.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReasonCacheEntry {
    /// The waiting reason, e.g. `CrashLoopBackOff`, `CreateContainerConfigError`.
    pub reason: String,
    /// The message shown with it.
    #[serde(default)]
    pub message: String,
}

/// The kubelet's reason cache for one pod: container name → last start error.
pub type ReasonCache = BTreeMap<String, ReasonCacheEntry>;
