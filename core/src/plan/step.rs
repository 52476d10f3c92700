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
    pub(crate) fn as_str(self) -> &'static str {
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

/// One CRI operation: the op (`op` on the wire, first) and its payload, the fields that
/// go with that op (camelCase, absent ones omitted).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op")]
#[cfg_attr(
    target_pointer_width = "64",
    expect(
        clippy::large_enum_variant,
        reason = "steps are built once per plan and kept in a Vec; the one struct it replaces was larger than any variant, and boxing the hooks would only add an allocation per start (on wasm32 the variants are close enough in size for the lint)"
    )
)]
pub enum Step {
    /// `KillPod`: stop every running container (`kills`, in the termination order), then
    /// every sandbox (`sandboxIds`).
    KillPod(KillPodStep),
    /// `KillContainer` (`StopContainer`, after the container's preStop hook).
    KillContainer(KillContainerStep),
    /// `RemoveContainer`.
    RemoveContainer(RemoveContainerStep),
    /// `RunPodSandbox` (with `plan.sandboxConfig`).
    RunPodSandbox(RunPodSandboxStep),
    /// `UpdatePodSandboxResources` + the pod cgroup.
    UpdatePodSandboxResources(UpdatePodSandboxResourcesStep),
    /// `UpdateContainerResources`.
    UpdateContainerResources(UpdateContainerResourcesStep),
    /// `CreateContainer` (with the container's entry in `plan.containerConfigs`).
    CreateContainer(CreateContainerStep),
    /// `StartContainer`, then the container's postStart hook.
    StartContainer(StartContainerStep),
    /// `PullImage`: pull the container's image, then re-plan. It replaces the container's
    /// `CreateContainer`/`StartContainer` in this plan.
    PullImage(PullImageStep),
    /// Not a CRI call: the directories and files the kubelet writes on the node before the
    /// next `RunPodSandbox` (no container) or `CreateContainer` (the container's).
    WriteNodeFiles(WriteNodeFilesStep),
    /// `RemovePodSandbox`: a terminated pod's sandbox, once it holds no container
    /// (`containerGC.evictSandboxes`).
    RemovePodSandbox(RemovePodSandboxStep),
    /// Not a CRI call: what a terminated pod leaves on the node (the pod's cgroup, log
    /// directory, pod directory), removed in order.
    CleanupPod(CleanupPodStep),
}

/// The payload of [`Step::KillPod`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KillPodStep {
    /// The current sandbox (the newest).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_id: Option<String>,
    /// The pod's grace period (`SyncTerminatingPod`: the effective one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    /// The running containers it stops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<String>,
    /// One `killContainer` per running container, in the kubelet's termination order
    /// (regular containers first, in parallel; then sidecars in reverse spec order), each
    /// with its grace period and preStop hook. Executors carry these out as they are and
    /// compute nothing (see `super::ContainerKill`); the sandboxes (`sandboxIds`) are
    /// stopped when every kill is done.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kills: Vec<super::kill::ContainerKill>,
    /// Every sandbox of the pod, stopped (`StopPodSandbox`) after the kills.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sandbox_ids: Vec<String>,
    /// Machine-readable reason of the kill.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (the kill message the kubelet records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The `preStop` hooks of the running containers it stops (one per container that has
    /// one, with its `containerId`), each followed by that container's `StopContainer`
    /// with what is left of its grace period.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pre_stops: Vec<super::hook::HookStep>,
}

/// The payload of [`Step::KillContainer`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KillContainerStep {
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Runtime container id of the container stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// Kill grace period in seconds (what `StopContainer` gets without a preStop hook).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    /// Machine-readable kill reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (the kill message the kubelet records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The `preStop` hook that runs before `StopContainer`, with `timeoutSeconds` = the
    /// grace period. `StopContainer` then gets `max(2, grace − whole seconds the hook
    /// took)`. Absent when the container has no preStop hook or the grace period is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<super::hook::HookStep>,
}

/// The payload of [`Step::RemoveContainer`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoveContainerStep {
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Runtime container id of the container removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// Machine-readable removal cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The payload of [`Step::RunPodSandbox`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunPodSandboxStep {
    /// The sandbox attempt (`PodSandboxMetadata.attempt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The payload of [`Step::UpdatePodSandboxResources`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdatePodSandboxResourcesStep {
    /// Resource updated (`cpu` or `memory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The exact CRI request, `{podSandboxId, overhead, resources}` (proto3 JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<crate::cri::StepRequest>,
}

/// The payload of [`Step::UpdateContainerResources`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateContainerResourcesStep {
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Runtime container id of the container updated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// Resource updated (`cpu` or `memory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The exact CRI request, `{containerId, linux}` (proto3 JSON).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request: Option<crate::cri::StepRequest>,
}

/// The payload of [`Step::CreateContainer`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateContainerStep {
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Which spec list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// The sandbox the container goes into (empty when it is the one this plan creates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_id: Option<String>,
    /// The restart count (`ContainerMetadata.attempt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The payload of [`Step::StartContainer`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StartContainerStep {
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Which spec list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// With `postStart`: the grace period of the kill that follows a failed hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    /// The hooks depend on the sandbox this sync creates (its pod IPs): complete the step
    /// from the new sandbox's status (`complete`) before carrying it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub depends_on_new_sandbox: bool,
    /// The container's `postStart` hook: the hook to run right after the start
    /// (`startContainer` step 4) and what follows when it fails. `gracePeriodSeconds` and
    /// `preStop` then describe the kill that follows a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub post_start: Option<super::hook::HookStep>,
    /// With `postStart`: the `preStop` hook of the kill that follows a failed hook.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<super::hook::HookStep>,
}

/// The payload of [`Step::PullImage`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullImageStep {
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Which spec list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The image as written in the container.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// The CRI `ImageSpec` (tag-defaulted image, pod annotations, runtime handler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_spec: Option<super::image::ImageSpec>,
    /// One request per entry, in order, stopping at the first success; empty = one
    /// anonymous request.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub auth: Vec<super::image::AuthConfig>,
    /// Where the `PodSandboxConfig` sent with the pull is (`plan.sandboxConfig`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_config: Option<String>,
    /// The image-pull back-off key (`<pod UID>_<image>`), to report back in
    /// `pullResults`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_key: Option<String>,
}

/// The payload of [`Step::WriteNodeFiles`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WriteNodeFilesStep {
    /// The container whose `CreateContainer` follows (absent: the pod's log directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Which spec list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// What to create, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<super::files::NodeFile>,
    /// The step's content depends on the sandbox this sync creates (its pod IPs): complete
    /// it from the new sandbox's status (`complete`) before carrying it out.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub depends_on_new_sandbox: bool,
}

/// The payload of [`Step::RemovePodSandbox`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovePodSandboxStep {
    /// The sandbox removed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_id: Option<String>,
    /// Machine-readable removal cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The payload of [`Step::CleanupPod`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CleanupPodStep {
    /// What is removed from the node, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<super::kill::CleanupPath>,
    /// Machine-readable cause.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (what the step does and why).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl Step {
    /// The step's op (its `op` on the wire).
    #[must_use]
    pub fn op(&self) -> StepOp {
        match self {
            Self::KillPod(_) => StepOp::KillPod,
            Self::KillContainer(_) => StepOp::KillContainer,
            Self::RemoveContainer(_) => StepOp::RemoveContainer,
            Self::RunPodSandbox(_) => StepOp::RunPodSandbox,
            Self::UpdatePodSandboxResources(_) => StepOp::UpdatePodSandboxResources,
            Self::UpdateContainerResources(_) => StepOp::UpdateContainerResources,
            Self::CreateContainer(_) => StepOp::CreateContainer,
            Self::StartContainer(_) => StepOp::StartContainer,
            Self::PullImage(_) => StepOp::PullImage,
            Self::WriteNodeFiles(_) => StepOp::WriteNodeFiles,
            Self::RemovePodSandbox(_) => StepOp::RemovePodSandbox,
            Self::CleanupPod(_) => StepOp::CleanupPod,
        }
    }

    /// The container the step names: kills, removals and updates of one container, the
    /// start ops (`PullImage`, `WriteNodeFiles` of a container, `CreateContainer`,
    /// `StartContainer`). `None` for the pod-level ops.
    #[must_use]
    pub fn container(&self) -> Option<&str> {
        match self {
            Self::KillContainer(s) => s.container.as_deref(),
            Self::RemoveContainer(s) => s.container.as_deref(),
            Self::UpdateContainerResources(s) => s.container.as_deref(),
            Self::CreateContainer(s) => s.container.as_deref(),
            Self::StartContainer(s) => s.container.as_deref(),
            Self::PullImage(s) => s.container.as_deref(),
            Self::WriteNodeFiles(s) => s.container.as_deref(),
            Self::KillPod(_)
            | Self::RunPodSandbox(_)
            | Self::UpdatePodSandboxResources(_)
            | Self::RemovePodSandbox(_)
            | Self::CleanupPod(_) => None,
        }
    }

    /// Where the container of a start op (`PullImage`, `WriteNodeFiles`, `CreateContainer`,
    /// `StartContainer`) is in the spec: its list and index, when the step says both.
    #[must_use]
    pub(crate) fn spec_position(&self) -> Option<(ContainerKind, usize)> {
        let (kind, index) = match self {
            Self::CreateContainer(s) => (s.kind, s.index),
            Self::StartContainer(s) => (s.kind, s.index),
            Self::PullImage(s) => (s.kind, s.index),
            Self::WriteNodeFiles(s) => (s.kind, s.index),
            Self::KillPod(_)
            | Self::KillContainer(_)
            | Self::RemoveContainer(_)
            | Self::RunPodSandbox(_)
            | Self::UpdatePodSandboxResources(_)
            | Self::UpdateContainerResources(_)
            | Self::RemovePodSandbox(_)
            | Self::CleanupPod(_) => return None,
        };
        Some((kind?, index?))
    }

    /// The step's human message (every op but `StartContainer` carries one).
    #[must_use]
    pub(crate) fn message(&self) -> Option<&str> {
        match self {
            Self::KillPod(s) => s.message.as_deref(),
            Self::KillContainer(s) => s.message.as_deref(),
            Self::RemoveContainer(s) => s.message.as_deref(),
            Self::RunPodSandbox(s) => s.message.as_deref(),
            Self::UpdatePodSandboxResources(s) => s.message.as_deref(),
            Self::UpdateContainerResources(s) => s.message.as_deref(),
            Self::CreateContainer(s) => s.message.as_deref(),
            Self::PullImage(s) => s.message.as_deref(),
            Self::WriteNodeFiles(s) => s.message.as_deref(),
            Self::RemovePodSandbox(s) => s.message.as_deref(),
            Self::CleanupPod(s) => s.message.as_deref(),
            Self::StartContainer(_) => None,
        }
    }

    /// The step depends on the sandbox this sync creates (`dependsOnNewSandbox`: only
    /// `WriteNodeFiles` and `StartContainer` steps may).
    #[must_use]
    pub fn depends_on_new_sandbox(&self) -> bool {
        match self {
            Self::WriteNodeFiles(s) => s.depends_on_new_sandbox,
            Self::StartContainer(s) => s.depends_on_new_sandbox,
            _ => false,
        }
    }
}

macro_rules! step_from {
    ($($variant:ident($payload:ident)),* $(,)?) => {
        $(
            impl From<$payload> for Step {
                fn from(payload: $payload) -> Self {
                    Self::$variant(payload)
                }
            }
        )*
    };
}

step_from!(
    KillPod(KillPodStep),
    KillContainer(KillContainerStep),
    RemoveContainer(RemoveContainerStep),
    RunPodSandbox(RunPodSandboxStep),
    UpdatePodSandboxResources(UpdatePodSandboxResourcesStep),
    UpdateContainerResources(UpdateContainerResourcesStep),
    CreateContainer(CreateContainerStep),
    StartContainer(StartContainerStep),
    PullImage(PullImageStep),
    WriteNodeFiles(WriteNodeFilesStep),
    RemovePodSandbox(RemovePodSandboxStep),
    CleanupPod(CleanupPodStep),
);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_step_is_written_op_first_then_its_fields_in_order() {
        let step = Step::KillContainer(KillContainerStep {
            container: Some("app".into()),
            container_id: Some("c://1".into()),
            grace_period_seconds: Some(30),
            reason: Some("LivenessProbe".into()),
            message: Some("m".into()),
            pre_stop: None,
        });
        assert_eq!(
            serde_json::to_string(&step).unwrap(),
            r#"{"op":"KillContainer","container":"app","containerId":"c://1","gracePeriodSeconds":30,"reason":"LivenessProbe","message":"m"}"#
        );
        let start = Step::StartContainer(StartContainerStep {
            container: Some("app".into()),
            kind: Some(ContainerKind::Regular),
            index: Some(0),
            ..StartContainerStep::default()
        });
        assert_eq!(
            serde_json::to_string(&start).unwrap(),
            r#"{"op":"StartContainer","container":"app","kind":"regular","index":0}"#
        );
    }

    #[test]
    fn fields_of_other_ops_are_ignored_when_read() {
        // Fields the old one-struct Step accepted on any op: those of another op are
        // ignored, as they were.
        let step: Step = serde_json::from_value(json!({
            "kind": "init", "index": 2, "files": [], "image": "x", "sandboxIds": ["s"],
            "container": "app", "op": "KillContainer", "containerId": "c://1"
        }))
        .unwrap();
        assert_eq!(
            step,
            Step::KillContainer(KillContainerStep {
                container: Some("app".into()),
                container_id: Some("c://1".into()),
                ..KillContainerStep::default()
            })
        );
        assert_eq!(step.op(), StepOp::KillContainer);
        assert_eq!(step.container(), Some("app"));
        assert!(serde_json::from_value::<Step>(json!({"container": "app"})).is_err());
        assert!(serde_json::from_value::<Step>(json!({"op": "Sleep"})).is_err());
    }
}
