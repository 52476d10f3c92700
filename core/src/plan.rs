//! The plan: `podActions` plus the CRI requests, ordered steps, events and reasons.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::backoff::{BackoffRecord, HeldBack};
use crate::config::ContainerConfigEntry;
use crate::cri::PodSandboxConfig;
use crate::events::Event;
use crate::steps::Step;

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
    pub kubectl: Option<crate::status::wire::KubectlRow>,
    /// Extension: the reason cache after this sync's steps (start errors and held-back
    /// starts); pass it as the next request's `reasonCache`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub reason_cache: crate::status::wire::ReasonCache,
}

/// The kubelet's `podActions` (contract field names).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PodActions {
    /// Stop the whole pod (containers, then sandbox).
    pub kill_pod: bool,
    /// Create a new sandbox after the kill.
    pub create_sandbox: bool,
    /// The current sandbox's id ("" if none or replaced for a namespace mismatch).
    pub sandbox_id: String,
    /// Attempt number of the sandbox to create (or of the current one).
    pub attempt: u32,
    /// Init-container indices to start, ascending.
    pub init_containers_to_start: Vec<usize>,
    /// Regular-container indices to start.
    pub containers_to_start: Vec<usize>,
    /// Containers to stop, keyed by runtime container id.
    pub containers_to_kill: BTreeMap<String, ContainerToKill>,
    /// Ephemeral-container indices to start.
    pub ephemeral_containers_to_start: Vec<usize>,
    /// In-place resize work per resource (`cpu`, `memory`), decreases first.
    /// `None` when the pod may not be resized in place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub containers_to_update: Option<BTreeMap<String, Vec<ContainerToUpdate>>>,
    /// The pod-level cgroup must be updated.
    pub update_pod_resources: bool,
    /// Pod-level resources differ from the actuated ones.
    pub update_pod_level_resources: bool,
    /// RestartAllContainers path: containers to kill (if `kill`) and remove, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers_to_reset: Vec<ContainerToReset>,
}

/// Kill reason (`containerKillReason`); it selects the grace period at kill time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KillReason {
    /// Spec changed, or a resize needs a restart (`""`).
    #[default]
    #[serde(rename = "")]
    None,
    /// Startup probe failed.
    StartupProbe,
    /// Liveness probe failed.
    LivenessProbe,
    /// postStart hook failed.
    FailedPostStartHook,
    /// The container is in unknown state.
    Unknown,
    /// RestartAllContainers.
    RestartAllContainers,
}

/// One entry of `containersToKill`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerToKill {
    /// Container name.
    pub name: String,
    /// Kill reason.
    #[serde(default)]
    pub reason: KillReason,
    /// The kubelet's kill message.
    #[serde(default)]
    pub message: String,
}

/// Resource values compared by in-place resize (memory in bytes, CPU in millicores).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResizeResources {
    /// Memory limit, bytes.
    pub memory_limit: i64,
    /// Memory request, bytes.
    pub memory_request: i64,
    /// CPU limit, millicores.
    pub cpu_limit: i64,
    /// CPU request, millicores.
    pub cpu_request: i64,
}

/// One entry of `containersToUpdate[resource]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerToUpdate {
    /// Container name.
    pub name: String,
    /// Runtime container id.
    pub container_id: String,
    /// Resources wanted.
    pub desired: ResizeResources,
    /// Resources actuated now.
    pub current: ResizeResources,
}

/// One entry of `containersToReset`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContainerToReset {
    /// Container name.
    pub name: String,
    /// Runtime container id.
    pub container_id: String,
    /// Kill (grace 0) before removing.
    pub kill: bool,
}

/// Why an action was chosen: a machine-readable reason and a human message naming the rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The action: `killPod`, `createSandbox`, `startInitContainer`, `startContainer`,
    /// `startEphemeralContainer`, `killContainer`, `updateResources`, `resetContainer`,
    /// `keepContainer`, `wait`.
    pub action: Cow<'static, str>,
    /// The container concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Machine-readable reason, e.g. `LivenessProbeFailed`.
    pub reason: Cow<'static, str>,
    /// Human explanation naming the rule that fired.
    pub message: String,
}

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
