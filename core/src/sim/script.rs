//! Things that happen between syncs, applied to a request. A container's exit and a
//! sandbox's loss are the node model's (`node::pods::exit`, `node::pods::lose_sandbox`):
//! what the playground's events do is what the simulated CRI runtime's scripts do.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::PodCondition;

use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::restart::matching_rule;
use crate::request::{PlanRequest, ProbeResult};
use crate::runtime::ContainerState;

/// The newest running instance of `name` exits with `code` at `at`. Returns whether a
/// running instance was found.
pub fn exit_container(
    request: &mut PlanRequest,
    name: &str,
    code: i32,
    at: jiff::Timestamp,
) -> bool {
    let Some(status) = request.runtime_status.as_mut() else {
        return false;
    };
    let Some(s) = status
        .container_statuses
        .iter_mut()
        .find(|s| s.name == name && s.state == ContainerState::Running)
    else {
        return false;
    };
    super::node::pods::exit(s, code, at);
    let id = s.id.clone();
    request.probes.remove(&id);
    true
}

/// The latest sandbox dies: it becomes `SANDBOX_NOTREADY` and its running containers
/// exit (code 137) at `at`, as the node model loses a sandbox.
pub fn kill_sandbox(request: &mut PlanRequest, at: jiff::Timestamp) {
    let Some(status) = request.runtime_status.as_mut() else {
        return;
    };
    let Some(id) = status.sandbox_statuses.first().map(|s| s.id.clone()) else {
        return;
    };
    super::node::pods::lose_sandbox(status, &id, at);
}

/// The prober reports `result` for the newest instance of `name`.
pub(crate) fn set_probe(
    request: &mut PlanRequest,
    name: &str,
    liveness: Option<ProbeResult>,
    startup: Option<ProbeResult>,
) {
    let Some(id) = request
        .runtime_status
        .as_ref()
        .and_then(|s| s.container_statuses.iter().find(|s| s.name == name))
        .map(|s| s.id.clone())
    else {
        return;
    };
    let entry = request.probes.entry(id).or_default();
    if liveness.is_some() {
        entry.liveness = liveness;
    }
    if startup.is_some() {
        entry.startup = startup;
    }
}

/// Every running container that declares a startup, liveness or readiness probe and has
/// no result yet reports `success` for it (a healthy prober).
pub(crate) fn pass_probes(request: &mut PlanRequest) {
    let Some(spec) = request.pod.spec.as_ref() else {
        return;
    };
    let declared: BTreeMap<&str, (bool, bool, bool)> = spec
        .init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .map(|c| {
            (
                c.name.as_str(),
                (
                    c.liveness_probe.is_some(),
                    c.startup_probe.is_some(),
                    c.readiness_probe.is_some(),
                ),
            )
        })
        .collect();
    let running = request
        .runtime_status
        .iter()
        .flat_map(|s| s.container_statuses.iter())
        .filter(|s| s.state == ContainerState::Running);
    for s in running {
        let Some((liveness, startup, readiness)) = declared.get(s.name.as_str()).copied() else {
            continue;
        };
        let entry = request.probes.entry(s.id.clone()).or_default();
        if startup && entry.startup.is_none() {
            entry.startup = Some(ProbeResult::Success);
        }
        // Liveness and readiness are probed only once the startup probe has succeeded.
        let started = !startup || entry.startup == Some(ProbeResult::Success);
        if liveness && started && entry.liveness.is_none() {
            entry.liveness = Some(ProbeResult::Success);
        }
        if readiness && started && entry.readiness.is_none() {
            entry.readiness = Some(ProbeResult::Success);
        }
    }
    request
        .probes
        .retain(|_, r| r.liveness.is_some() || r.startup.is_some() || r.readiness.is_some());
}

/// Every running classic (non-sidecar) init container exits 0 at `at`.
pub(crate) fn complete_init_containers(request: &mut PlanRequest, at: jiff::Timestamp) {
    let names: Vec<String> = request
        .pod
        .spec
        .iter()
        .flat_map(|s| s.init_containers.iter().flatten())
        .filter(|c| c.restart_policy.as_deref() != Some("Always"))
        .map(|c| c.name.clone())
        .collect();
    for name in names {
        while exit_container(request, &name, 0, at) {}
    }
}

/// Ends a restart-all: clears the flag and sets `AllContainersRestarting` to False.
pub(crate) fn finish_restart_all(request: &mut PlanRequest) {
    request.restart_all_containers = false;
    if let Some(conditions) = request
        .pod
        .status
        .as_mut()
        .and_then(|s| s.conditions.as_mut())
    {
        for c in conditions.iter_mut() {
            if c.type_ == "AllContainersRestarting" {
                c.status = "False".into();
            }
        }
    }
}

/// Starts a restart-all: sets the flag and the `AllContainersRestarting=True` condition.
pub fn begin_restart_all(request: &mut PlanRequest) {
    request.restart_all_containers = true;
    let status = request.pod.status.get_or_insert_with(Default::default);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    conditions.retain(|c| c.type_ != "AllContainersRestarting");
    conditions.push(PodCondition {
        type_: "AllContainersRestarting".into(),
        status: "True".into(),
        ..PodCondition::default()
    });
}

/// A condition set from outside (a readiness gate's): the condition in the pod's API status, its
/// `lastTransitionTime` moved to `now` when its status changes.
pub(crate) fn set_condition(
    request: &mut PlanRequest,
    condition: &str,
    status: &str,
    now: jiff::Timestamp,
) -> Option<String> {
    if !matches!(status, "True" | "False" | "Unknown") {
        return Some(format!(
            "a condition's status is True, False or Unknown, not {status:?}"
        ));
    }
    if condition.is_empty() {
        return Some("the condition has no type".into());
    }
    let owned = crate::status::conditions::KUBELET_OWNED.contains(&condition)
        || matches!(condition, "PodReadyToStartContainers" | "DisruptionTarget");
    if owned {
        return Some(format!(
            "{condition} is the kubelet's condition (or the API server's): only other conditions, such as a readiness gate's, are set from outside"
        ));
    }
    let time = k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(now);
    let conditions = request
        .pod
        .status
        .get_or_insert_with(Default::default)
        .conditions
        .get_or_insert_with(Vec::new);
    match conditions.iter_mut().find(|c| c.type_ == condition) {
        Some(c) => {
            if c.status != status {
                c.status = status.to_string();
                c.last_transition_time = Some(time);
            }
        }
        None => conditions.push(k8s_openapi::api::core::v1::PodCondition {
            type_: condition.to_string(),
            status: status.to_string(),
            last_transition_time: Some(time),
            ..Default::default()
        }),
    }
    None
}

/// Whether the runtime reports a sandbox of the pod.
pub(crate) fn has_sandbox(request: &PlanRequest) -> bool {
    request
        .runtime_status
        .as_ref()
        .is_some_and(|s| !s.sandbox_statuses.is_empty())
}

/// The latest sandbox keeps running but reports no IP; the pod's IPs go with it.
pub(crate) fn lose_sandbox_ip(request: &mut PlanRequest) {
    let Some(status) = request.runtime_status.as_mut() else {
        return;
    };
    if let Some(network) = status
        .sandbox_statuses
        .first_mut()
        .and_then(|s| s.network.as_mut())
    {
        network.ip.clear();
        network.additional_ips.clear();
    }
    status.ips.clear();
}

/// Whether `code` of container `name` matches a `RestartAllContainers` rule while the
/// gate is on.
pub(crate) fn restart_all_rule_matches(request: &PlanRequest, name: &str, code: i32) -> bool {
    let gates = FeatureGates::resolve(&request.feature_gates);
    if !gates.enabled(Gate::RestartAllContainersOnContainerExits) {
        return false;
    }
    request
        .pod
        .spec
        .iter()
        .flat_map(|s| {
            s.init_containers
                .iter()
                .flatten()
                .chain(s.containers.iter())
        })
        .filter(|c| c.name == name)
        .any(|c| {
            matching_rule(c, code).is_some_and(|(_, rule)| rule.action == "RestartAllContainers")
        })
}
