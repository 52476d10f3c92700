//! The CRI operations of a plan.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::kind::ContainerKind;

/// A CRI operation (plus the pod-level kill, which stops containers then sandboxes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepOp {
    /// Stop every running container, then every sandbox.
    #[default]
    KillPod,
    /// `StopContainer`.
    KillContainer,
    /// `RemoveContainer`.
    RemoveContainer,
    /// `RunPodSandbox`.
    RunPodSandbox,
    /// `UpdatePodSandboxResources` + the pod cgroup.
    UpdatePodSandboxResources,
    /// `UpdateContainerResources`.
    UpdateContainerResources,
    /// `CreateContainer`.
    CreateContainer,
    /// `StartContainer`.
    StartContainer,
    /// `PullImage`: pull the container's image, then re-plan. It replaces the
    /// container's `CreateContainer`/`StartContainer` in this plan.
    PullImage,
    /// Not a CRI call: the directories and files the kubelet writes on the node before
    /// the next `RunPodSandbox` or `CreateContainer` (`files`).
    WriteNodeFiles,
    /// `RemovePodSandbox` (`sandboxId`): a terminated pod's sandbox, once it holds no
    /// container (`containerGC.evictSandboxes`).
    RemovePodSandbox,
    /// Not a CRI call: what a terminated pod leaves on the node (`paths`: the pod's
    /// cgroup, log directory, pod directory), removed in order.
    CleanupPod,
}

impl StepOp {
    /// The op's name as serialised.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::KillPod => "KillPod",
            Self::KillContainer => "KillContainer",
            Self::RemoveContainer => "RemoveContainer",
            Self::RunPodSandbox => "RunPodSandbox",
            Self::UpdatePodSandboxResources => "UpdatePodSandboxResources",
            Self::UpdateContainerResources => "UpdateContainerResources",
            Self::CreateContainer => "CreateContainer",
            Self::StartContainer => "StartContainer",
            Self::PullImage => "PullImage",
            Self::WriteNodeFiles => "WriteNodeFiles",
            Self::RemovePodSandbox => "RemovePodSandbox",
            Self::CleanupPod => "CleanupPod",
        }
    }
}

impl fmt::Display for StepOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for StepOp {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One CRI operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// The operation.
    pub op: StepOp,
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Which spec list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Runtime container id (kills, removals, updates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// Sandbox id (`KillPod`: the current sandbox; starts: the sandbox they go into, empty
    /// when it is the one created by this plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_id: Option<String>,
    /// `RunPodSandbox`: the sandbox attempt; `CreateContainer`: the restart count
    /// (`ContainerMetadata.attempt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Resource updated (`cpu` or `memory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Kill grace period in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    /// `KillPod`: the running containers it stops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<String>,
    /// `KillPod`: one `killContainer` per running container, in the kubelet's termination
    /// order (regular containers first, in parallel; then sidecars in reverse spec order),
    /// each with its grace period and preStop hook. Executors carry these out as they
    /// are and compute nothing (see [`super::ContainerKill`]); the sandboxes
    /// (`sandboxIds`) are stopped when every kill is done.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kills: Vec<super::kill::ContainerKill>,
    /// `KillPod`: every sandbox of the pod, stopped (`StopPodSandbox`) after the kills.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_ids: Vec<String>,
    /// `CleanupPod`: what is removed from the node, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<super::kill::CleanupPath>,
    /// Machine-readable reason (kill reason, removal cause).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (the kill message the kubelet records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The exact CRI request (`UpdateContainerResources`: `{containerId, linux}`;
    /// `UpdatePodSandboxResources`: `{podSandboxId, overhead, resources}`), proto3 JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<crate::cri::StepRequest>,
    /// `WriteNodeFiles`: what to create, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<super::files::NodeFile>,
    /// The step's content depends on the sandbox this sync creates (its pod IPs): complete
    /// it from the new sandbox's status (`complete`) before carrying it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub depends_on_new_sandbox: bool,
    /// `StartContainer` of a container with a `postStart` hook: the hook to run right
    /// after the start (`startContainer` step 4) and what follows when it fails. The
    /// step's `gracePeriodSeconds` and `preStop` then describe the kill that follows a
    /// failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_start: Option<super::hook::HookStep>,
    /// `KillContainer` (and `StartContainer` with `postStart`, for the kill after a failed
    /// hook): the `preStop` hook that runs before `StopContainer`, with `timeoutSeconds`
    /// = the grace period. `StopContainer` then gets `max(2, grace − whole seconds the
    /// hook took)`. Absent when the container has no preStop hook or the grace period is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<super::hook::HookStep>,
    /// `KillPod`: the `preStop` hooks of the running containers it stops (one per
    /// container that has one, with its `containerId`), each followed by that container's
    /// `StopContainer` with what is left of its grace period.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre_stops: Vec<super::hook::HookStep>,
    /// `PullImage`: the image as written in the container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// `PullImage`: the CRI `ImageSpec` (tag-defaulted image, pod annotations, runtime
    /// handler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_spec: Option<super::image::ImageSpec>,
    /// `PullImage`: one request per entry, in order, stopping at the first success;
    /// empty = one anonymous request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<super::image::AuthConfig>,
    /// `PullImage`: where the `PodSandboxConfig` sent with the pull is (`plan.sandboxConfig`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_config: Option<String>,
    /// `PullImage`: the image-pull back-off key (`<pod UID>_<image>`), to report back in
    /// `pullResults`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_key: Option<String>,
}
