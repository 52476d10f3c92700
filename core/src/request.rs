//! The plan request: the pod, what the runtime reports, and the kubelet's other inputs.
//!
//! Field names follow the plan contract (`docs/contract-base.md`, extensions in
//! `docs/contract.md`). Unknown fields are rejected (see [`crate::api`]).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, ResourceRequirements};
use serde::{Deserialize, Serialize};

use crate::plan::BackoffRecord;
use crate::runtime::RuntimeStatus;

pub mod node;

pub(crate) use node::NodeContext;

/// One request: everything the kubelet knows about a pod at the start of a sync.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanRequest {
    /// The API pod (`v1.Pod`). Not API-defaulted: an absent field really is absent.
    pub pod: Pod,
    /// What the runtime reports (`kubecontainer.PodStatus`). Absent = nothing exists yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_status: Option<RuntimeStatus>,
    /// Prober results by runtime container id (`type://id`). No entry = no result yet.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub probes: BTreeMap<String, ProbeResults>,
    /// Feature-gate overrides of the 1.37 defaults (see [`crate::features`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub feature_gates: BTreeMap<String, bool>,
    /// The kubelet's actuated-resources checkpoint (resources last applied).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actuated_resources: Option<ActuatedResources>,
    /// The pod is restarting all its containers (`AllContainersRestarting` condition).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub restart_all_containers: bool,
    /// Node and kubelet facts used to generate CRI configs (every key optional).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<NodeContext>,
    /// Extension: the sync's wall-clock time, for crash-loop back-off. Absent = back-off
    /// is not evaluated (starts are never held back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub now: Option<jiff::Timestamp>,
    /// Extension: apply the API server's defaulting to `pod` before deciding (see
    /// `defaults`). Bare Pod documents imply it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub api_defaults: bool,
    /// Extension: the crash-loop back-off records from the previous sync's plan.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub backoff: Vec<BackoffRecord>,
    /// Extension: answer with the configs in strict proto3 JSON (env values base64, as
    /// the 1.37 cri-api's `bytes` field requires) instead of the readable form. Only
    /// [`crate::plan_json`] and [`crate::plan_value`] read it (see [`crate::cri::proto3`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub proto3_json: bool,
    /// Extension: the status manager's cached API status (the previous plan's `status`).
    /// Absent = none cached: the kubelet falls back to `pod.status`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_status: Option<k8s_openapi::api::core::v1::PodStatus>,
    /// Extension: the reason cache, container name → the previous sync's start error
    /// (the previous plan's `reasonCache`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub reason_cache: crate::plan::ReasonCache,
    /// Extension: what the executor reported after carrying out the previous plan's hook
    /// steps (`postStart` on `StartContainer`, `preStop` on kills), see
    /// `crate::hooks::results`. Empty = no hook ran, or the caller does not report them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hook_results: Vec<crate::plan::HookResult>,
    /// Extension: the node's images as `ImageStatus` reports them. Absent = the
    /// image manager is not consulted: every image counts as present (today's plans).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<crate::plan::ImagesReport>,
    /// Extension: results of the previous plan's `PullImage` steps.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pull_results: Vec<crate::plan::PullResultRecord>,
    /// Extension: the image-pull back-off records of the previous plan (`imageBackoff`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub image_backoff: Vec<crate::plan::ImageBackoffRecord>,
    /// Extension: the pod's resolved image pull secrets (`spec.imagePullSecrets` as the
    /// kubelet fetches them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pull_secrets: Vec<k8s_openapi::api::core::v1::Secret>,
    /// Extension: node keyring / credential-provider credentials by registry key.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub node_credentials: BTreeMap<String, Vec<crate::images::credentials::TrackedCredential>>,
    /// Extension: the pull-record check (gate KubeletEnsureSecretPulledImages). Absent =
    /// `{"allowAll": true}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_records: Option<crate::images::PullRecordCheck>,
    /// Extension: the pod worker's state (`pkg/kubelet/pod_workers.go`): a kill request
    /// (eviction), removal from the node, the grace period in force, static pods of the
    /// same full name. Absent = the worker syncs the pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_worker: Option<crate::plan::PodWorkerState>,
}

impl PlanRequest {
    /// The container statuses the runtime reports (newest first), none without a
    /// runtime status.
    #[must_use]
    pub(crate) fn container_statuses(&self) -> &[crate::runtime::ContainerStatus] {
        self.runtime_status
            .as_ref()
            .map(|s| s.container_statuses.as_slice())
            .unwrap_or_default()
    }
}

/// Prober results recorded for one container.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProbeResults {
    /// Liveness result, absent when the prober has not reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liveness: Option<ProbeResult>,
    /// Startup result, absent when the prober has not reported.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub startup: Option<ProbeResult>,
    /// Readiness result (extension), absent when the prober has not reported. It never
    /// changes the pod's actions: readiness only decides whether the container counts
    /// as ready (Service endpoints), it never restarts it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub readiness: Option<ProbeResult>,
}

/// One probe result (`proberesults.Result`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeResult {
    /// The probe passed.
    Success,
    /// The probe failed.
    Failure,
    /// A result is pending (startup probes start as unknown).
    Unknown,
}

/// The actuated-resources checkpoint: resources last applied per container and pod.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActuatedResources {
    /// Per container name. A container without a record counts as zero.
    #[serde(default)]
    pub containers: BTreeMap<String, ResourceRequirements>,
    /// Pod-level record, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod: Option<ResourceRequirements>,
}
