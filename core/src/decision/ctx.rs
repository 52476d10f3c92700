//! The decision context ([`Ctx`]), built once per plan, and the decision recorder.

use std::borrow::Cow;
use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};

use crate::features::FeatureGates;
use crate::hash::{container_hash, hash_lanes, LANES};
use crate::kubecontainer::pod_status::StatusView;
use crate::plan::{Action, Decision, Plan};
use crate::request::PlanRequest;
use crate::runtime::{ContainerState, ContainerStatus};

/// Everything one decision reads.
#[derive(Debug, Clone)]
pub(crate) struct Ctx<'a> {
    /// The request.
    pub request: &'a PlanRequest,
    /// The pod.
    pub pod: &'a Pod,
    /// The pod spec.
    pub spec: &'a PodSpec,
    /// Resolved feature gates.
    pub gates: &'a FeatureGates,
    /// The runtime status.
    pub status: StatusView<'a>,
    /// `IsInPlacePodVerticalScalingAllowed`.
    pub resize_allowed: bool,
    /// Container hashes computed ahead (see [`SpecHashes`]); others are computed on use.
    pub hashes: Option<&'a SpecHashes<'a>>,
}

/// `HashContainer` of the spec containers that have a running instance (the ones whose
/// hash a sync compares), computed together: [`hash_lanes`] runs their hash chains side
/// by side.
#[derive(Debug, Clone, Default)]
pub(crate) struct SpecHashes<'a> {
    entries: Vec<(&'a Container, u64)>,
}

impl<'a> SpecHashes<'a> {
    /// Hashes the init and regular containers of `spec` that `status` reports running.
    #[must_use]
    pub(crate) fn of_running(spec: &'a PodSpec, status: &StatusView<'_>) -> Self {
        // A set, not a scan of every status per container: pods of many containers.
        let running_names: BTreeSet<&str> = status
            .containers()
            .iter()
            .filter(|s| s.state == ContainerState::Running)
            .map(|s| s.name.as_str())
            .collect();
        let running = |c: &&Container| running_names.contains(c.name.as_str());
        let mut entries: Vec<(&Container, u64)> = spec
            .init_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .chain(&spec.containers)
            .filter(running)
            .map(|c| (c, 0))
            .collect();
        for chunk in entries.chunks_mut(LANES) {
            let mut pairs = [("", ""); LANES];
            for (pair, (c, _)) in pairs.iter_mut().zip(chunk.iter()) {
                *pair = (c.name.as_str(), c.image.as_deref().unwrap_or(""));
            }
            let hashes = hash_lanes(pairs.get(..chunk.len()).unwrap_or_default());
            for ((_, h), value) in chunk.iter_mut().zip(hashes) {
                *h = value;
            }
        }
        // By address, for `get`'s binary search.
        entries.sort_unstable_by_key(|(c, _)| address(c));
        Self { entries }
    }

    /// The hash of this very container (the same spec entry), if computed.
    #[must_use]
    pub(crate) fn get(&self, c: &Container) -> Option<u64> {
        let i = self
            .entries
            .binary_search_by_key(&address(c), |(e, _)| address(e))
            .ok()?;
        self.entries.get(i).map(|(_, h)| *h)
    }
}

/// A spec entry's identity: its address (entries are compared by identity, not value).
fn address(c: &Container) -> usize {
    std::ptr::from_ref(c) as usize
}

impl<'a> Ctx<'a> {
    /// Builds the context; `None` when the pod has no spec.
    #[must_use]
    pub(crate) fn new(request: &'a PlanRequest, gates: &'a FeatureGates) -> Option<Self> {
        let spec = request.pod.spec.as_ref()?;
        Some(Self {
            request,
            pod: &request.pod,
            spec,
            gates,
            status: StatusView::new(request),
            resize_allowed: crate::pod::resize_allowed(&request.pod, gates),
            hashes: None,
        })
    }

    /// `HashContainer(c)`.
    #[must_use]
    pub(crate) fn hash(&self, c: &Container) -> u64 {
        self.hashes
            .and_then(|h| h.get(c))
            .unwrap_or_else(|| container_hash(&c.name, c.image.as_deref().unwrap_or("")))
    }

    /// `containerChanged`: the stored hash differs from the spec's.
    #[must_use]
    pub(crate) fn hash_changed(&self, c: &Container, s: &ContainerStatus) -> bool {
        self.hash(c) != s.hash
    }

    /// Whether the kubelet passes `restartAllContainers = true`: the request says so, or
    /// the pod carries the condition `AllContainersRestarting=True`.
    #[must_use]
    pub(crate) fn restart_all_containers(&self) -> bool {
        self.request.restart_all_containers || crate::pod::all_containers_restarting(self.pod)
    }
}

/// Records one decision.
pub(crate) fn note(
    plan: &mut Plan,
    action: Action,
    container: Option<&str>,
    reason: &'static str,
    message: String,
) {
    plan.decisions.push(Decision {
        action,
        container: container.map(str::to_string),
        reason: Cow::Borrowed(reason),
        message,
        ..Decision::default()
    });
}
