//! The plan: `podActions` plus the CRI requests, ordered steps, events and reasons.
//!
//! Wire types only: everything here is what a plan serialises, and nothing here
//! computes. The computing modules (decision, steps, config, backoff, sim, api) depend on
//! this module, never the reverse.

mod actions;
mod backoff;
mod cgroup;
mod config;
mod decision;
mod files;
mod hook;
mod image;
mod kill;
mod kind;
mod report;
mod status;
mod step;
mod worker;

use serde::{Deserialize, Serialize};

use crate::cri::PodSandboxConfig;
pub use crate::events::Event;

pub use actions::PodActions;
pub(crate) use actions::ResizeResources;
pub(crate) use actions::{ContainerToKill, ContainerToReset, ContainerToUpdate, KillReason};
pub use backoff::BackoffRecord;
pub(crate) use backoff::HeldBack;
pub use cgroup::{PodCgroup, ResourceConfig};
pub(crate) use config::ContainerConfigEntry;
pub use decision::{Action, Decision, Effect};
pub use files::NodeFile;
pub(crate) use files::NodeFileInclude;
pub use files::NodeFileKind;
pub use hook::{HookHandler, HookKind, HookResult, HookStep};
pub(crate) use hook::{KillGrace, OnHookFailure};
pub(crate) use image::Annotation;
pub(crate) use image::ImageSpec;
pub(crate) use image::RegistryFault;
pub use image::{AuthConfig, ImageBackoffRecord};
pub use image::{ImagesReport, PullFault, PullResult, PullResultRecord};
pub(crate) use kill::{CleanupPath, ContainerKill, KillKind};
pub use kind::ContainerKind;
pub(crate) use report::{ContainerError, Warning};
pub use status::{KubectlRow, ReasonCache, ReasonCacheEntry, RowCondition};
pub(crate) use step::CleanupPodStep;
pub use step::{CreateContainerStep, KillContainerStep, KillPodStep, PullImageStep};
pub(crate) use step::{RemoveContainerStep, RemovePodSandboxStep};
pub use step::{RunPodSandboxStep, StartContainerStep, Step, StepOp};
pub(crate) use step::{
    UpdateContainerResourcesStep, UpdatePodSandboxResourcesStep, WriteNodeFilesStep,
};
pub use worker::WorkerPhase;
pub(crate) use worker::WorkerPodStatus;
pub(crate) use worker::{KillPodOptions, PodWorkerState};

/// What the kubelet would do on its next sync, and why.
///
/// A plan is a decision, not an effect: the caller carries out [`Plan::steps`].
#[must_use = "a plan does nothing until the caller carries out its steps"]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The kubelet's `podActions`.
    pub actions: PodActions,
    /// Why each action was chosen, in the order the decisions were made.
    #[serde(default)]
    pub decisions: Vec<Decision>,
    /// CRI `PodSandboxConfig`, when a sandbox is created or containers are started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_config: Option<PodSandboxConfig>,
    /// The pod's cgroup, which `SyncPod` ensures (`podContainerManager.EnsureExists`)
    /// before anything else of a sync that creates the pod's sandbox: only when the node
    /// context says the kubelet manages cgroups (`kubelet.cgroupsPerQOS: true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_cgroup: Option<PodCgroup>,
    /// CRI `ContainerConfig` per container to be created.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub container_configs: Vec<ContainerConfigEntry>,
    /// CRI operations in the order `SyncPod` performs them.
    #[serde(default)]
    pub steps: Vec<Step>,
    /// Events the kubelet would record.
    #[serde(default)]
    pub events: Vec<Event>,
    /// Per-container errors that stop a container's creation.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<ContainerError>,
    /// Starts held back by crash-loop back-off (extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub held_back: Vec<HeldBack>,
    /// The updated crash-loop back-off records, to pass to the next request (extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backoff: Vec<BackoffRecord>,
    /// The updated image-pull back-off records, to pass to the next request as
    /// `imageBackoff` (extension).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_backoff: Vec<ImageBackoffRecord>,
    /// Odd but possible inputs (e.g. statuses of containers not in the spec).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    /// Extension: the API status (`v1.PodStatus`) the kubelet generates at the **start**
    /// of this sync, from the request's runtime status and the previous sync's results;
    /// pass it as the next request's `previousStatus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<k8s_openapi::api::core::v1::PodStatus>,
    /// Extension: the `kubectl get pods` row of the pod with that `status`, at `now`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kubectl: Option<KubectlRow>,
    /// Extension: the reason cache after this sync's steps (start errors and held-back
    /// starts); pass it as the next request's `reasonCache`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub reason_cache: ReasonCache,
    /// Extension: the pod worker's phase this plan is for (`pkg/kubelet/pod_workers.go`);
    /// absent = `syncing` (`SyncPod`).
    #[serde(default, skip_serializing_if = "is_syncing")]
    pub worker_phase: WorkerPhase,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_syncing(p: &WorkerPhase) -> bool {
    *p == WorkerPhase::Syncing
}
