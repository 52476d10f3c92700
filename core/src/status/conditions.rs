//! The pod condition generators of `pkg/kubelet/status` (spec §4).

use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodCondition, PodStatus};

use crate::decision::sandbox::{pod_sandbox_changed, SandboxChangeReason};
use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::pod_status::{FirstByName, StatusView, SCAN_UP_TO};
use crate::kubecontainer::restart::{is_restartable_init, matching_rule};
use crate::runtime::ContainerState as RtState;

/// Condition types the kubelet owns (it regenerates them on every sync).
pub(crate) const KUBELET_OWNED: &[&str] = &[
    "PodScheduled",
    "Ready",
    "Initialized",
    "ContainersReady",
    "PodResizeInProgress",
    "PodResizePending",
];

/// A `type_` condition that is True, or False with `reason` and the `problems` (joined
/// with ", ") when there are any.
fn true_unless(
    type_: &str,
    reason: &str,
    problems: &[String],
    generation: Option<i64>,
) -> PodCondition {
    if problems.is_empty() {
        condition(type_, "True", "", "", generation)
    } else {
        condition(type_, "False", reason, &problems.join(", "), generation)
    }
}

fn condition(
    type_: &str,
    status: &str,
    reason: &str,
    message: &str,
    generation: Option<i64>,
) -> PodCondition {
    PodCondition {
        type_: type_.to_string(),
        status: status.to_string(),
        reason: (!reason.is_empty()).then(|| reason.to_string()),
        message: (!message.is_empty()).then(|| message.to_string()),
        observed_generation: generation,
        ..PodCondition::default()
    }
}

/// `CalculatePodConditionObservedGeneration` (gate PodObservedGenerationTracking on:
/// the pod's generation; 0 is left out).
#[must_use]
pub(crate) fn observed_generation(
    pod: &Pod,
    old: Option<&PodStatus>,
    type_: &str,
    gates: &FeatureGates,
) -> Option<i64> {
    let generation = pod.metadata.generation.unwrap_or(0);
    let g = if gates.enabled(Gate::PodObservedGenerationTracking) {
        generation
    } else {
        let had = old
            .and_then(|o| o.conditions.as_deref())
            .unwrap_or_default()
            .iter()
            .any(|c| c.type_ == type_ && c.observed_generation.unwrap_or(0) != 0);
        if had {
            generation
        } else {
            0
        }
    };
    (g != 0).then_some(g)
}

fn names(list: &[&str]) -> String {
    format!("[{}]", list.join(" "))
}

/// One list of API container statuses given as two slices (Go's `append(a, b...)`,
/// without the copy); lookups return the first status with the name.
#[derive(Debug, Clone)]
pub(crate) struct Statuses<'a> {
    first: &'a [ContainerStatus],
    then: &'a [ContainerStatus],
    /// Positions in `first` then `then` (`None`: short lists, scanned).
    index: Option<FirstByName<'a>>,
}

impl<'a> Statuses<'a> {
    /// The list `first` followed by `then`.
    #[must_use]
    pub(crate) fn new(first: &'a [ContainerStatus], then: &'a [ContainerStatus]) -> Self {
        let all = first.iter().chain(then);
        let index = (first.len() + then.len() > SCAN_UP_TO)
            .then(|| FirstByName::new(all.enumerate().map(|(i, s)| (s.name.as_str(), i))));
        Self { first, then, index }
    }

    /// The first status named `name`.
    #[must_use]
    pub(crate) fn find(&self, name: &str) -> Option<&'a ContainerStatus> {
        match &self.index {
            Some(index) => {
                let i = index.position(name)?;
                match i.checked_sub(self.first.len()) {
                    None => self.first.get(i),
                    Some(j) => self.then.get(j),
                }
            }
            None => self.first.iter().chain(self.then).find(|s| s.name == name),
        }
    }
}

impl<'a> From<&'a [ContainerStatus]> for Statuses<'a> {
    fn from(list: &'a [ContainerStatus]) -> Self {
        Statuses::new(list, &[])
    }
}

fn find<'a>(statuses: &Statuses<'a>, name: &str) -> Option<&'a ContainerStatus> {
    statuses.find(name)
}

fn spec_lists(
    pod: &Pod,
) -> (
    &[k8s_openapi::api::core::v1::Container],
    &[k8s_openapi::api::core::v1::Container],
) {
    let spec = pod.spec.as_ref();
    (
        spec.and_then(|s| s.init_containers.as_deref())
            .unwrap_or_default(),
        spec.map_or(&[][..], |s| s.containers.as_slice()),
    )
}

/// `GenerateContainersReadyCondition`. `statuses` `None` is Go's nil list.
#[must_use]
pub(crate) fn containers_ready(
    pod: &Pod,
    old: Option<&PodStatus>,
    statuses: Option<&Statuses<'_>>,
    phase: &str,
    gates: &FeatureGates,
) -> PodCondition {
    let generation = observed_generation(pod, old, "ContainersReady", gates);
    let Some(statuses) = statuses else {
        return condition(
            "ContainersReady",
            "False",
            "UnknownContainerStatuses",
            "",
            generation,
        );
    };
    let (inits, containers) = spec_lists(pod);
    let mut unknown = Vec::new();
    let mut unready = Vec::new();
    for c in inits
        .iter()
        .filter(|c| is_restartable_init(c))
        .chain(containers)
    {
        match find(statuses, &c.name) {
            None => unknown.push(c.name.as_str()),
            Some(s) if !s.ready => unready.push(c.name.as_str()),
            Some(_) => {}
        }
    }
    if phase == "Succeeded" && unknown.is_empty() {
        return condition("ContainersReady", "False", "PodCompleted", "", generation);
    }
    if phase == "Failed" {
        return condition("ContainersReady", "False", "PodFailed", "", generation);
    }
    let mut parts = Vec::new();
    if !unknown.is_empty() {
        parts.push(format!(
            "containers with unknown status: {}",
            names(&unknown)
        ));
    }
    if !unready.is_empty() {
        parts.push(format!(
            "containers with unready status: {}",
            names(&unready)
        ));
    }
    true_unless("ContainersReady", "ContainersNotReady", &parts, generation)
}

/// `GeneratePodReadyCondition`: ContainersReady plus the readiness gates, read from
/// `conditions`.
#[must_use]
pub(crate) fn ready(
    pod: &Pod,
    old: Option<&PodStatus>,
    conditions: &[PodCondition],
    statuses: Option<&Statuses<'_>>,
    phase: &str,
    gates: &FeatureGates,
) -> PodCondition {
    let generation = observed_generation(pod, old, "Ready", gates);
    let cr = containers_ready(pod, old, statuses, phase, gates);
    if cr.status != "True" {
        return PodCondition {
            type_: "Ready".to_string(),
            observed_generation: generation,
            ..cr
        };
    }
    let mut messages = Vec::new();
    for g in pod
        .spec
        .as_ref()
        .and_then(|s| s.readiness_gates.as_deref())
        .unwrap_or_default()
    {
        let t = &g.condition_type;
        match conditions.iter().find(|c| &c.type_ == t) {
            None => messages.push(format!(
                "corresponding condition of pod readiness gate \"{t}\" does not exist."
            )),
            Some(c) if c.status != "True" => messages.push(format!(
                "the status of pod readiness gate \"{t}\" is not \"True\", but {}",
                c.status
            )),
            Some(_) => {}
        }
    }
    true_unless("Ready", "ReadinessGatesNotReady", &messages, generation)
}

/// `GeneratePodInitializedCondition`.
#[must_use]
pub(crate) fn initialized(
    pod: &Pod,
    old: Option<&PodStatus>,
    statuses: Option<&Statuses<'_>>,
    phase: &str,
    gates: &FeatureGates,
) -> PodCondition {
    let generation = observed_generation(pod, old, "Initialized", gates);
    let (inits, containers) = spec_lists(pod);
    let Some(statuses) = statuses else {
        if !inits.is_empty() {
            return condition(
                "Initialized",
                "False",
                "UnknownContainerStatuses",
                "",
                generation,
            );
        }
        return condition("Initialized", "True", "", "", generation);
    };
    let mut unknown = Vec::new();
    let mut incomplete = Vec::new();
    for c in inits {
        match find(statuses, &c.name) {
            None => unknown.push(c.name.as_str()),
            Some(s) => {
                let done = if is_restartable_init(c) {
                    s.started == Some(true)
                } else {
                    s.ready
                };
                if !done {
                    incomplete.push(c.name.as_str());
                }
            }
        }
    }
    if phase == "Succeeded" && unknown.is_empty() {
        return condition("Initialized", "True", "PodCompleted", "", generation);
    }
    let any_regular_started = containers.iter().any(|c| {
        find(statuses, &c.name)
            .and_then(|s| s.state.as_ref())
            .is_some_and(|st| st.running.is_some() || st.terminated.is_some())
    });
    if any_regular_started {
        return condition("Initialized", "True", "", "", generation);
    }
    let mut parts = Vec::new();
    if !unknown.is_empty() {
        parts.push(format!(
            "containers with unknown status: {}",
            names(&unknown)
        ));
    }
    if !incomplete.is_empty() {
        parts.push(format!(
            "containers with incomplete status: {}",
            names(&incomplete)
        ));
    }
    let was_initialized = !parts.is_empty()
        && gates.enabled(Gate::RestartAllContainersOnContainerExits)
        && old
            .and_then(|o| o.conditions.as_deref())
            .unwrap_or_default()
            .iter()
            .any(|c| c.type_ == "Initialized" && c.status == "True");
    if was_initialized {
        return condition("Initialized", "True", "", "", generation);
    }
    true_unless(
        "Initialized",
        "ContainersNotInitialized",
        &parts,
        generation,
    )
}

/// The message of a False `PodReadyToStartContainers` condition.
#[must_use]
pub(crate) fn sandbox_not_ready_message(reason: SandboxChangeReason) -> &'static str {
    match reason {
        SandboxChangeReason::NoSandbox => "no pod sandbox exists",
        SandboxChangeReason::MultipleReady => "multiple pod sandboxes are ready",
        SandboxChangeReason::NotReady => "pod sandbox is not ready",
        SandboxChangeReason::NetworkNamespaceChanged => {
            "pod sandbox network namespace mode does not match the pod"
        }
        SandboxChangeReason::NoIp => "pod sandbox has no IP address",
    }
}

/// `GeneratePodReadyToStartContainersCondition`: True when no new sandbox is needed.
#[must_use]
pub(crate) fn ready_to_start_containers(
    pod: &Pod,
    old: Option<&PodStatus>,
    view: &StatusView<'_>,
    gates: &FeatureGates,
) -> PodCondition {
    let generation = observed_generation(pod, old, "PodReadyToStartContainers", gates);
    match pod_sandbox_changed(pod, view).reason {
        None => condition("PodReadyToStartContainers", "True", "", "", generation),
        Some(r) => condition(
            "PodReadyToStartContainers",
            "False",
            "PodSandboxNotReady",
            sandbox_not_ready_message(r),
            generation,
        ),
    }
}

/// Whether some init or regular container has a rule with action `RestartAllContainers`
/// (`AllContainersCouldRestart`).
#[must_use]
pub(crate) fn all_containers_could_restart(pod: &Pod) -> bool {
    let (inits, containers) = spec_lists(pod);
    inits.iter().chain(containers).any(|c| {
        c.restart_policy_rules
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|r| r.action == "RestartAllContainers")
    })
}

fn restart_all_rule(c: &k8s_openapi::api::core::v1::Container, code: i32) -> bool {
    matching_rule(c, code).is_some_and(|(_, r)| r.action == "RestartAllContainers")
}

/// `ShouldAllContainersRestart(pod, runtimeStatus, oldStatus)`.
#[must_use]
pub(crate) fn should_all_containers_restart(
    pod: &Pod,
    view: &StatusView<'_>,
    old: Option<&PodStatus>,
) -> bool {
    let old_conditions = old
        .and_then(|o| o.conditions.as_deref())
        .unwrap_or_default();
    if old_conditions
        .iter()
        .any(|c| c.type_ == "AllContainersRestarting" && c.status == "True")
    {
        return true;
    }
    let old_statuses = old
        .into_iter()
        .flat_map(|o| {
            o.init_container_statuses
                .iter()
                .flatten()
                .chain(o.container_statuses.iter().flatten())
        })
        .collect::<Vec<_>>();
    let (inits, containers) = spec_lists(pod);
    inits.iter().chain(containers).any(|c| {
        let runtime = view
            .find(&c.name)
            .is_some_and(|s| s.state == RtState::Exited && restart_all_rule(c, s.exit_code));
        let api = old_statuses
            .iter()
            .find(|s| s.name == c.name)
            .and_then(|s| s.state.as_ref())
            .and_then(|st| st.terminated.as_ref())
            .is_some_and(|t| restart_all_rule(c, t.exit_code));
        runtime || api
    })
}

/// `GenerateAllContainersRestartingCondition`.
#[must_use]
pub(crate) fn all_containers_restarting(
    pod: &Pod,
    view: &StatusView<'_>,
    old: Option<&PodStatus>,
    phase: &str,
) -> PodCondition {
    let t = "AllContainersRestarting";
    if phase == "Succeeded" {
        return condition(t, "False", "PodCompleted", "", None);
    }
    if phase == "Failed" {
        return condition(t, "False", "PodFailed", "", None);
    }
    if !should_all_containers_restart(pod, view, old) {
        return condition(t, "False", "", "", None);
    }
    let (inits, containers) = spec_lists(pod);
    let any_left = inits
        .iter()
        .chain(containers)
        .any(|c| view.find(&c.name).is_some());
    if !any_left {
        return condition(t, "False", "", "", None);
    }
    condition(
        t,
        "True",
        "RestartAllContainersStarted",
        "container exited with restart policy rule",
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_find_the_first_of_a_name_across_both_lists() {
        let named = |name: &str, image: &str| ContainerStatus {
            name: name.into(),
            image: image.into(),
            ..ContainerStatus::default()
        };
        for n in [2, 20] {
            // (Short lists are scanned, long ones indexed: the answers are the same.)
            let first: Vec<_> = (0..n).map(|i| named(&format!("a{i}"), "first")).collect();
            let then: Vec<_> = (0..n)
                .map(|i| named(&format!("a{}", i + 1), "then"))
                .chain([named("b", "then"), named("b", "later")])
                .collect();
            let all = Statuses::new(&first, &then);
            assert_eq!(all.find("a0").map(|s| s.image.as_str()), Some("first"));
            let last = format!("a{n}");
            assert_eq!(all.find(&last).map(|s| s.image.as_str()), Some("then"));
            assert_eq!(all.find("b").map(|s| s.image.as_str()), Some("then"));
            assert!(all.find("c").is_none());
        }
    }
}
