//! Wire types of the pod kill (`killPodWithSyncResult` / `killContainersWithSyncResult`,
//! `pkg/kubelet/kuberuntime/kuberuntime_container.go`) and of the terminated pod's
//! cleanup: what an executor carries out, computed by `crate::terminate`.

use serde::{Deserialize, Serialize};

use super::hook::HookStep;

/// What a killed container is to the kubelet's termination order
/// (`pkg/kubelet/kuberuntime/kuberuntime_termination_order.go`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KillKind {
    /// `spec.containers`: stopped first, in parallel.
    Regular,
    /// A restartable init container (`restartPolicy: Always`): stopped after every
    /// regular container and after the next running sidecar in spec order.
    Sidecar,
    /// A classic init container still running: stopped at once, like a regular one.
    Init,
    /// `spec.ephemeralContainers`: stopped at once.
    Ephemeral,
}

/// One `killContainer` of a `KillPod` step, in the kubelet's termination order.
///
/// The executor runs every kill at once (the kubelet starts one goroutine per
/// container): the `preStop` hook first (at most `gracePeriodSeconds`), then it waits
/// until every container of `waitFor` has stopped (at most what is left of the grace
/// period; no wait when nothing is left), then `StopContainer` with
/// `max(2, gracePeriodSeconds − whole seconds of the hook − whole seconds waited)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerKill {
    /// The container's name.
    pub container: String,
    /// Its runtime id (`type://id`).
    pub container_id: String,
    /// What it is to the termination order.
    pub kind: KillKind,
    /// The grace period `killContainer` starts with: the override (a terminating pod's
    /// effective grace period), else `setTerminationGracePeriod` (deletion grace period,
    /// spec, a failing probe's own value), before the 2 s floor. It bounds the preStop
    /// hook and the wait.
    pub grace_period_seconds: i64,
    /// What `StopContainer` gets when no time is spent in a hook or waiting:
    /// `max(2, gracePeriodSeconds)`.
    pub stop_grace_period_seconds: i64,
    /// The `preStop` hook that runs first (absent: none, or no grace period left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<HookStep>,
    /// The stage: 0 = stops at once (regular, classic init, ephemeral containers); a
    /// sidecar's is one more than the largest of the containers it waits for.
    pub order: u32,
    /// The running containers whose stop this one waits for (a sidecar: every running
    /// regular container and the next running sidecar in spec order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wait_for: Vec<String>,
}

/// What a `CleanupPod` step removes from the node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanupPath {
    /// What it is: `podCgroup` (the pod's cgroup, `PodContainerManager.Destroy`),
    /// `podLogs` (`/var/log/pods/<ns>_<name>_<uid>`), `podDir` (`<root>/pods/<uid>`).
    pub purpose: String,
    /// The path (`podCgroup`: the cgroup's name as the cgroup driver spells it).
    pub path: String,
    /// Who removes it in the kubelet (`SyncTerminatedPod`, `containerGC`,
    /// `HandlePodCleanups`).
    pub by: String,
}
