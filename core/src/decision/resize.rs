//! In-place resize decisions: `computePodResizeAction`, `computePodLevelResourcesResizeAction`,
//! `startingResizedContainer`, and the "resize allowed" test.
//!
//! Resources are compared as the kubelet compares them: memory in bytes (`Value()`), CPU
//! in millicores (`MilliValue()`), desired = the spec, current = the actuated-resources
//! checkpoint (a missing record counts as zero). With gate
//! InPlacePodLevelResourcesVerticalScaling, missing container limits are filled from the
//! pod-level limits (`GetLimits`, which itself needs PodLevelResources) on both sides.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use super::ctx::{note, Ctx};
use crate::features::{FeatureGates, Gate};
use crate::plan::ContainerKind;
use crate::plan::{Action, ContainerToKill, ContainerToUpdate, KillReason, Plan, ResizeResources};
use crate::quantity::Quantity;
use crate::runtime::{ContainerState, ContainerStatus};

type List = BTreeMap<String, K8sQuantity>;

/// `Value()` of a quantity (zero when absent or unreadable).
fn value_of(q: Option<&K8sQuantity>) -> i64 {
    q.and_then(|q| Quantity::parse(&q.0).ok())
        .map_or(0, |q| q.value())
}

/// `MilliValue()` of a quantity (zero when absent or unreadable).
fn milli_of(q: Option<&K8sQuantity>) -> i64 {
    q.and_then(|q| Quantity::parse(&q.0).ok())
        .map_or(0, |q| q.milli_value())
}

fn value(list: Option<&List>, name: &str) -> i64 {
    value_of(list.and_then(|l| l.get(name)))
}

fn milli(list: Option<&List>, name: &str) -> i64 {
    milli_of(list.and_then(|l| l.get(name)))
}

/// `GetLimits`: the container's limits, with cpu/memory limits it lacks taken from the
/// pod-level limits (gate PodLevelResources).
fn effective_limit<'r>(
    gates: &FeatureGates,
    pod: Option<&'r ResourceRequirements>,
    container: Option<&'r ResourceRequirements>,
    name: &str,
) -> Option<&'r K8sQuantity> {
    let own = container
        .and_then(|c| c.limits.as_ref())
        .and_then(|l| l.get(name));
    if own.is_some() {
        return own;
    }
    if gates.enabled(Gate::PodLevelResources) {
        return pod
            .and_then(|p| p.limits.as_ref())
            .and_then(|l| l.get(name));
    }
    None
}

/// `containerResourcesFromRequirements(podRequirements, containerRequirements)`.
#[must_use]
pub(crate) fn container_resources(
    gates: &FeatureGates,
    pod: Option<&ResourceRequirements>,
    container: Option<&ResourceRequirements>,
) -> ResizeResources {
    let requests = container.and_then(|c| c.requests.as_ref());
    let (memory_limit, cpu_limit) = if gates.enabled(Gate::InPlacePodLevelResourcesVerticalScaling)
    {
        (
            effective_limit(gates, pod, container, "memory"),
            effective_limit(gates, pod, container, "cpu"),
        )
    } else {
        let limits = container.and_then(|c| c.limits.as_ref());
        (
            limits.and_then(|l| l.get("memory")),
            limits.and_then(|l| l.get("cpu")),
        )
    };
    ResizeResources {
        memory_limit: value_of(memory_limit),
        memory_request: value(requests, "memory"),
        cpu_limit: milli_of(cpu_limit),
        cpu_request: milli(requests, "cpu"),
    }
}

/// `podResourcesFromRequirements`: pod-level values, zero when absent.
#[must_use]
pub(crate) fn pod_resources(requirements: Option<&ResourceRequirements>) -> ResizeResources {
    let limits = requirements.and_then(|c| c.limits.as_ref());
    let requests = requirements.and_then(|c| c.requests.as_ref());
    ResizeResources {
        memory_limit: value(limits, "memory"),
        memory_request: value(requests, "memory"),
        cpu_limit: milli(limits, "cpu"),
        cpu_request: milli(requests, "cpu"),
    }
}

impl Ctx<'_> {
    /// The actuated pod-level record, when the pod-level resize gate lets the kubelet read it.
    fn actuated_pod(&self) -> Option<&ResourceRequirements> {
        if !self
            .gates
            .enabled(Gate::InPlacePodLevelResourcesVerticalScaling)
        {
            return None;
        }
        self.request
            .actuated_resources
            .as_ref()
            .and_then(|a| a.pod.as_ref())
    }

    /// What the spec asks for a container.
    #[must_use]
    pub(crate) fn desired_resources(&self, c: &Container) -> ResizeResources {
        container_resources(
            self.gates,
            self.spec.resources.as_ref(),
            c.resources.as_ref(),
        )
    }

    /// The checkpoint's record for a container, if any. A pod the checkpoint has no record
    /// of at all (no `actuatedResources`) is new to the kubelet: `InitializeActuatedPod`
    /// (1.37) first records every init and regular container's resources as actuated, so
    /// a container that never gets created does not count as resized on every sync.
    fn actuated_record(&self, name: &str) -> Option<&ResourceRequirements> {
        match self.request.actuated_resources.as_ref() {
            Some(a) => a.containers.get(name),
            None => self
                .spec
                .init_containers
                .iter()
                .flatten()
                .chain(self.spec.containers.iter())
                .find(|c| c.name == name)
                .and_then(|c| c.resources.as_ref()),
        }
    }

    /// What the checkpoint says was last applied to a container (zero if no record).
    #[must_use]
    pub(crate) fn actuated_resources(&self, name: &str) -> ResizeResources {
        container_resources(self.gates, self.actuated_pod(), self.actuated_record(name))
    }

    /// Whether the desired and actuated resources of a container differ.
    /// [`container_resources`] is a pure function of its inputs, so when the spec's
    /// requirements are the checkpoint's (container and pod level alike) the values are
    /// equal without reading a quantity: the common case of a container at rest.
    #[must_use]
    pub(crate) fn resources_changed(&self, c: &Container) -> bool {
        let same_inputs = c.resources.as_ref() == self.actuated_record(&c.name)
            && self.spec.resources.as_ref() == self.actuated_pod();
        !same_inputs && self.desired_resources(c) != self.actuated_resources(&c.name)
    }
}

/// `computePodResizeAction`: returns `true` to keep the container, `false` when the
/// resize needs a restart (the kill and the start are then already planned).
pub(crate) fn compute_pod_resize_action(
    ctx: &Ctx<'_>,
    plan: &mut Plan,
    kind: ContainerKind,
    idx: usize,
    c: &Container,
    status: &ContainerStatus,
) -> bool {
    if !ctx.resize_allowed || status.state != ContainerState::Running {
        return true;
    }
    if !ctx.resources_changed(c) {
        return true;
    }
    let desired = ctx.desired_resources(c);
    let current = ctx.actuated_resources(&c.name);
    let restart_policy = |resource: &str| {
        c.resize_policy
            .as_deref()
            .unwrap_or_default()
            .iter()
            .find(|p| p.resource_name == resource)
            .is_some_and(|p| p.restart_policy == "RestartContainer")
    };
    let diff = |resource: &'static str, field: &'static str, d: i64, cur: i64| {
        (d != cur).then_some((resource, field, d, cur))
    };
    let changes: Vec<_> = [
        diff(
            "memory",
            "memoryLimit",
            desired.memory_limit,
            current.memory_limit,
        ),
        diff(
            "memory",
            "memoryRequest",
            desired.memory_request,
            current.memory_request,
        ),
        diff("cpu", "cpuLimit", desired.cpu_limit, current.cpu_limit),
        diff(
            "cpu",
            "cpuRequest",
            desired.cpu_request,
            current.cpu_request,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    let restarting: Vec<&str> = changes
        .iter()
        .filter(|(resource, ..)| restart_policy(resource))
        .map(|(_, field, ..)| *field)
        .collect();
    if !restarting.is_empty() {
        plan.actions.containers_to_kill.insert(
            status.id.clone(),
            ContainerToKill {
                name: status.name.clone(),
                reason: KillReason::None,
                message: format!("Container {} resize requires restart", c.name),
            },
        );
        let start = match kind {
            ContainerKind::Init => {
                plan.actions.init_containers_to_start.push(idx);
                Action::StartInitContainer
            }
            _ => {
                plan.actions.containers_to_start.push(idx);
                Action::StartContainer
            }
        };
        plan.actions.update_pod_resources = true;
        note(
            plan,
            Action::KillContainer,
            Some(&c.name),
            "ResizeRequiresRestart",
            format!(
                "{} {} changed ({}) and its resizePolicy says RestartContainer: it is killed and started again with the new resources",
                kind.noun(),
                c.name,
                restarting.join(", ")
            ),
        );
        note(
            plan,
            start,
            Some(&c.name),
            "ResizeRequiresRestart",
            format!(
                "{} {} is started again with the new resources",
                kind.noun(),
                c.name
            ),
        );
        return false;
    }
    let mut pick = |resource: &'static str| {
        // Limit first, else request: one entry per resource.
        let Some((_, field, d, cur)) = changes.iter().find(|(r, ..)| *r == resource).copied()
        else {
            return;
        };
        let entry = ContainerToUpdate {
            name: c.name.clone(),
            container_id: status.id.clone(),
            desired,
            current,
        };
        let Some(map) = plan.actions.containers_to_update.as_mut() else {
            return;
        };
        let list = map.entry(resource.to_string()).or_default();
        let direction = if d < cur {
            list.insert(0, entry);
            "decrease"
        } else {
            list.push(entry);
            "increase"
        };
        note(
            plan,
            Action::UpdateResources,
            Some(&c.name),
            "ResizeInPlace",
            format!(
                "{} {}: {field} {cur} -> {d} ({direction}); resizePolicy NotRequired, so it is resized in place without a restart",
                kind.noun(),
                c.name
            ),
        );
    };
    pick("memory");
    pick("cpu");
    true
}

/// `computePodLevelResourcesResizeAction`: pod-level resources differ from the actuated ones.
#[must_use]
pub(crate) fn pod_level_resize(ctx: &Ctx<'_>) -> bool {
    if !ctx
        .gates
        .enabled(Gate::InPlacePodLevelResourcesVerticalScaling)
    {
        return false;
    }
    let actuated = ctx
        .request
        .actuated_resources
        .as_ref()
        .and_then(|a| a.pod.as_ref());
    pod_resources(ctx.spec.resources.as_ref()) != pod_resources(actuated)
}

/// `startingResizedContainer`: the first container about to start whose desired resources
/// differ from its actuated ones.
#[must_use]
pub(crate) fn starting_resized_container<'c>(
    ctx: &Ctx<'_>,
    containers: &'c [Container],
    indices: &[usize],
) -> Option<&'c Container> {
    indices
        .iter()
        .filter_map(|i| containers.get(*i))
        .find(|c| ctx.resources_changed(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pod::{resize_allowed, CONFIG_SOURCE_ANNOTATION};
    use k8s_openapi::api::core::v1::Pod;

    fn rr(limits: &[(&str, &str)], requests: &[(&str, &str)]) -> ResourceRequirements {
        let list = |items: &[(&str, &str)]| {
            (!items.is_empty()).then(|| {
                items
                    .iter()
                    .map(|(k, v)| ((*k).to_string(), K8sQuantity((*v).to_string())))
                    .collect()
            })
        };
        ResourceRequirements {
            limits: list(limits),
            requests: list(requests),
            ..ResourceRequirements::default()
        }
    }

    #[test]
    fn static_pods_are_not_resizable() {
        let mut pod = Pod::default();
        let gates = FeatureGates::default();
        assert!(resize_allowed(&pod, &gates));
        pod.metadata.annotations = Some(BTreeMap::from([(
            CONFIG_SOURCE_ANNOTATION.to_string(),
            "file".to_string(),
        )]));
        assert!(!resize_allowed(&pod, &gates));
        pod.metadata.annotations = Some(BTreeMap::from([(
            CONFIG_SOURCE_ANNOTATION.to_string(),
            "api".to_string(),
        )]));
        assert!(resize_allowed(&pod, &gates));
        let off = FeatureGates::resolve(&BTreeMap::from([(
            "InPlacePodVerticalScaling".to_string(),
            false,
        )]));
        assert!(!resize_allowed(&pod, &off));
    }

    #[test]
    fn pod_level_limits_fill_missing_container_limits() {
        let gates = FeatureGates::default();
        let pod = rr(&[("cpu", "600m"), ("memory", "600Mi")], &[]);
        let c = rr(&[("cpu", "100m")], &[("memory", "64Mi")]);
        let r = container_resources(&gates, Some(&pod), Some(&c));
        assert_eq!(
            r,
            ResizeResources {
                memory_limit: 600 * 1024 * 1024,
                memory_request: 64 * 1024 * 1024,
                cpu_limit: 100,
                cpu_request: 0,
            }
        );
        let off = FeatureGates::resolve(&BTreeMap::from([(
            "InPlacePodLevelResourcesVerticalScaling".to_string(),
            false,
        )]));
        assert_eq!(
            container_resources(&off, Some(&pod), Some(&c)).memory_limit,
            0
        );
        assert_eq!(pod_resources(None), ResizeResources::default());
    }
}
