//! Wire types of the pod worker (`pkg/kubelet/pod_workers.go`): what the request says
//! about the worker's state for the pod, and which phase the plan is for.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The pod worker's phase for a pod (`podWorkerLoop`): which sync the plan is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkerPhase {
    /// `SyncPod`: set the pod up (the plan's usual content).
    #[default]
    Syncing,
    /// `SyncTerminatingPod`: stop what runs; nothing is started.
    Terminating,
    /// `SyncTerminatedPod` (and the cleanup that follows): nothing runs any more.
    Terminated,
    /// The worker may not start the pod yet (`allowPodStart`): nothing is done.
    Waiting,
    /// The worker will never start the pod (`allowPodStart`: terminated before it
    /// started): nothing is done.
    NeverStarts,
}

/// `KillPodOptions` from another part of the kubelet (eviction, preemption, node
/// shutdown): terminate the pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KillPodOptions {
    /// `PodTerminationGracePeriodSecondsOverride`: a shorter grace period (it only ever
    /// shortens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds_override: Option<i64>,
    /// The eviction manager evicts the pod: its status becomes phase `Failed`, reason
    /// `reason` (default `Evicted`), `message`, and a `DisruptionTarget` condition
    /// (`TerminationByKubelet`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub evict: bool,
    /// The status reason the kill sets (`PodStatusFunc`); eviction: `Evicted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The status message the kill sets, e.g. `The node was low on resource: memory. …`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What the pod worker knows of one pod UID (`podSyncStatus`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkerPodStatus {
    /// `fullname`: `<name>_<namespace>`.
    pub fullname: String,
    /// Termination was requested (`terminatingAt` set).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub termination_requested: bool,
    /// Termination finished (`terminatedAt` set).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub terminated: bool,
}

/// Extension `podWorker` of the request: the pod worker's state, for the phases after
/// `SyncPod` and for static pods. Absent = a worker that syncs the pod (it is started,
/// nothing asked it to stop).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodWorkerState {
    /// `podSyncStatus.gracePeriod`: the grace period the worker already terminates the
    /// pod with (0 = none yet); a new one can only be shorter.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub grace_period_seconds: i64,
    /// A kill request (`UpdatePod` with `SyncPodKill` and `KillPodOptions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kill: Option<KillPodOptions>,
    /// The pod was removed from the node's config (`HandlePodRemoves`: deleted from the
    /// API server and gone, or a static pod's manifest removed).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub removed: bool,
    /// The worker already finished terminating the pod (`SyncTerminatingPod` returned):
    /// the next sync is `SyncTerminatedPod` even if the runtime still reports a ready
    /// sandbox. Absent: derived from the runtime (nothing runs, no sandbox is ready).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub terminating_done: bool,
    /// `podSyncStatuses` by pod UID (only read for static pods; the pod itself needs no
    /// entry unless it has one).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pods: BTreeMap<String, WorkerPodStatus>,
    /// `startedStaticPodsByFullname`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub started_static_pods: BTreeMap<String, String>,
    /// `waitingToStartStaticPodsByFullname`, in queue order.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub waiting_to_start_static_pods: BTreeMap<String, Vec<String>>,
}

// Only 64-bit targets find an `&i64` worth passing by value (wasm32's pointers are
// as small as the value, so the lint does not fire there).
#[cfg_attr(
    target_pointer_width = "64",
    expect(
        clippy::trivially_copy_pass_by_ref,
        reason = "serde's skip_serializing_if passes a reference"
    )
)]
fn is_zero(n: &i64) -> bool {
    *n == 0
}
