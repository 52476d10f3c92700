//! The pod's API status as the kubelet reports it (`generateAPIPodStatus`, spec
//! `pod-status.md`), and the `kubectl get pods` row printed from it (`kubectl-pod-row.md`).
//!
//! Pure and deterministic. The status describes the **start** of a sync: the runtime state
//! the kubelet just observed, plus the results of the previous sync (the reason cache).

pub(crate) mod check;
pub(crate) mod conditions;
pub(crate) mod containers;
pub mod duration;
pub(crate) mod ips;
pub(crate) mod phase;
pub(crate) mod resize;
pub(crate) mod row;
pub mod text;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Container, ContainerStatus, HostIP, Pod, PodCondition, PodIP, PodStatus,
};

use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::pod_status::{FirstByName, StatusView};
use crate::kubecontainer::restart::is_restartable_init;
use crate::request::{ProbeResult, ProbeResults};

pub(crate) use crate::plan::{KubectlRow, ReasonCache, ReasonCacheEntry};
pub(crate) use phase::get_phase;
pub use row::kubectl_pod_row;

/// Where `ready`/`started` come from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Probes<'a> {
    /// The kubelet unit tests' fake prober: every regular status is ready, nothing else set.
    Fake,
    /// The real probe step, with the prober's results by runtime container id.
    Real(&'a BTreeMap<String, ProbeResults>),
}

/// Everything `generateAPIPodStatus` reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StatusInput<'a> {
    /// The API pod (its `status` is the API server's copy).
    pub pod: &'a Pod,
    /// The runtime status.
    pub view: &'a StatusView<'a>,
    /// The runtime's pod IPs.
    pub ips: &'a [String],
    /// The status manager's cached status (`None`: the kubelet uses `pod.status`).
    pub previous: Option<&'a PodStatus>,
    /// Start errors of the previous sync.
    pub reason_cache: &'a ReasonCache,
    /// Probe results.
    pub probes: Probes<'a>,
    /// The pod worker has decided the pod is done.
    pub pod_is_terminal: bool,
    /// The kubelet's `--node-ip` list (only the family of the first matters).
    pub node_ips: &'a [String],
    /// The node's host IPs as `GetNodeHostIPs` picks them; empty = not known (not set).
    pub host_ips: &'a [String],
    /// Feature gates.
    pub gates: &'a FeatureGates,
}

fn ephemeral_as_containers(pod: &Pod) -> Vec<Container> {
    pod.spec
        .as_ref()
        .and_then(|s| s.ephemeral_containers.as_deref())
        .unwrap_or_default()
        .iter()
        .map(|e| Container {
            name: e.name.clone(),
            image: e.image.clone(),
            restart_policy: e.restart_policy.clone(),
            ..Container::default()
        })
        .collect()
}

fn is_terminal(phase: Option<&str>) -> bool {
    matches!(phase, Some("Failed" | "Succeeded"))
}

/// `HasAnyActiveRegularContainerStarted`: some status of the active sandbox has the name
/// of a regular container.
#[must_use]
pub(crate) fn pod_has_initialized(pod: &Pod, view: &StatusView<'_>) -> bool {
    let containers = pod
        .spec
        .as_ref()
        .map_or(&[][..], |s| s.containers.as_slice());
    view.active()
        .any(|s| containers.iter().any(|c| c.name == s.name))
}

/// `generateAPIPodStatus` (spec §2), without the status manager's timestamps.
#[must_use]
pub(crate) fn generate_api_pod_status(input: &StatusInput<'_>) -> PodStatus {
    let pod = input.pod;
    let gates = input.gates;
    let empty = PodStatus::default();
    let pod_status = pod.status.as_ref().unwrap_or(&empty);
    let old = input.previous.unwrap_or(pod_status);
    let spec = pod.spec.as_ref();
    let inits = spec
        .and_then(|s| s.init_containers.as_deref())
        .unwrap_or_default();
    let containers = spec.map_or(&[][..], |s| s.containers.as_slice());
    let ephemeral = ephemeral_as_containers(pod);
    let has_init = !inits.is_empty();
    let pod_restarting = gates.enabled(Gate::RestartAllContainersOnContainerExits)
        && conditions::should_all_containers_restart(pod, input.view, Some(old));

    let mut s = PodStatus::default();
    let pod_ips = ips::sort_pod_ips(input.ips, input.node_ips);
    if let Some(first) = pod_ips.first() {
        s.pod_ip = Some(first.clone());
        s.pod_ips = Some(pod_ips.iter().map(|ip| PodIP { ip: ip.clone() }).collect());
    }
    s.qos_class = Some(
        crate::config::pod_resources::pod_qos(pod, gates.enabled(Gate::PodLevelResources))
            .as_str()
            .to_string(),
    );
    let convert = |list: &[Container], previous: Option<&Vec<ContainerStatus>>, is_init: bool| {
        containers::convert(&containers::ConvertArgs {
            pod,
            view: input.view,
            previous: previous.map_or(&[][..], Vec::as_slice),
            containers: list,
            has_init_containers: has_init,
            is_init_container: is_init,
            pod_restarting,
            reason_cache: input.reason_cache,
            gates,
        })
    };
    let mut regular = convert(containers, old.container_statuses.as_ref(), false);
    let mut init = convert(inits, old.init_container_statuses.as_ref(), true);
    let ephemeral_statuses = convert(&ephemeral, old.ephemeral_container_statuses.as_ref(), false);

    // Phase.
    let mut phase = phase::get_phase_of(
        pod,
        &conditions::Statuses::new(&regular, &init),
        input.pod_is_terminal,
        pod_has_initialized(pod, input.view),
        gates,
    )
    .as_str()
    .to_string();
    if !is_terminal(Some(&phase)) {
        if is_terminal(old.phase.as_deref()) {
            phase = old.phase.clone().unwrap_or_default();
        } else if is_terminal(pod_status.phase.as_deref()) {
            phase = pod_status.phase.clone().unwrap_or_default();
        }
    }
    if old.phase.as_deref() == Some(phase.as_str()) {
        s.reason = old
            .reason
            .clone()
            .filter(|r| !r.is_empty())
            .or_else(|| pod_status.reason.clone());
        s.message = old
            .message
            .clone()
            .filter(|r| !r.is_empty())
            .or_else(|| pod_status.message.clone());
    }
    if is_terminal(pod_status.phase.as_deref()) && pod_status.phase.as_deref() != Some(&phase) {
        phase = pod_status.phase.clone().unwrap_or_default();
    }

    // Probe step.
    probe_step(input, &mut regular, &mut init, inits, containers);

    // Conditions.
    let owned = |t: &str| {
        conditions::KUBELET_OWNED.contains(&t)
            || (t == "PodReadyToStartContainers"
                && gates.enabled(Gate::PodReadyToStartContainersCondition))
    };
    let mut conds: Vec<PodCondition> = pod_status
        .conditions
        .iter()
        .flatten()
        .filter(|c| !owned(&c.type_))
        .cloned()
        .collect();
    if let Some(dt) = old
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "DisruptionTarget")
    {
        match conds.iter_mut().find(|c| c.type_ == "DisruptionTarget") {
            Some(slot) => *slot = dt.clone(),
            None => conds.push(dt.clone()),
        }
    }
    if gates.enabled(Gate::PodReadyToStartContainersCondition) {
        conds.push(conditions::ready_to_start_containers(
            pod,
            Some(old),
            input.view,
            gates,
        ));
    }
    let all = conditions::Statuses::new(&init, &regular);
    conds.push(conditions::initialized(
        pod,
        Some(old),
        Some(&all),
        &phase,
        gates,
    ));
    let ready = conditions::ready(pod, Some(old), &conds, Some(&all), &phase, gates);
    conds.push(ready);
    conds.push(conditions::containers_ready(
        pod,
        Some(old),
        Some(&all),
        &phase,
        gates,
    ));
    conds.push(PodCondition {
        type_: "PodScheduled".to_string(),
        status: "True".to_string(),
        observed_generation: conditions::observed_generation(pod, Some(old), "PodScheduled", gates),
        ..PodCondition::default()
    });
    if gates.enabled(Gate::RestartAllContainersOnContainerExits)
        && conditions::all_containers_could_restart(pod)
    {
        conds.push(conditions::all_containers_restarting(
            pod,
            input.view,
            Some(old),
            &phase,
        ));
    }

    // Host IPs.
    if let Some(first) = input.host_ips.first() {
        s.host_ip = Some(first.clone());
        s.host_ips = Some(
            input
                .host_ips
                .iter()
                .map(|ip| HostIP { ip: ip.clone() })
                .collect(),
        );
        if spec.and_then(|s| s.host_network).unwrap_or(false) {
            if s.pod_ip.as_deref().unwrap_or("").is_empty() {
                s.pod_ip = Some(first.clone());
                s.pod_ips = Some(vec![PodIP { ip: first.clone() }]);
            }
            if let (Some(second), Some(pod_ips)) = (input.host_ips.get(1), s.pod_ips.as_mut()) {
                if pod_ips.len() == 1
                    && pod_ips
                        .first()
                        .is_some_and(|p| ips::is_ipv4(&p.ip) != ips::is_ipv4(second))
                {
                    pod_ips.push(PodIP { ip: second.clone() });
                }
            }
        }
    }

    s.phase = Some(phase);
    s.conditions = Some(conds);
    s.container_statuses = Some(regular);
    s.init_container_statuses = Some(init);
    s.ephemeral_container_statuses = Some(ephemeral_statuses);
    s
}

fn is_running(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.running.is_some())
}

fn result_of<'a>(
    probes: &'a BTreeMap<String, ProbeResults>,
    s: &ContainerStatus,
) -> Option<&'a ProbeResults> {
    s.container_id.as_deref().and_then(|id| probes.get(id))
}

/// The probe step (`UpdatePodStatus`, spec §6) for one regular or sidecar status.
fn probe_one(probes: &BTreeMap<String, ProbeResults>, c: &Container, s: &mut ContainerStatus) {
    let results = result_of(probes, s).copied();
    let started = if !is_running(s) {
        false
    } else if let Some(r) = results.and_then(|r| r.startup) {
        r == ProbeResult::Success
    } else if s.started == Some(true) {
        true
    } else {
        c.startup_probe.is_none()
    };
    s.started = Some(started);
    if !started {
        return;
    }
    s.ready = if !is_running(s) {
        false
    } else if results.and_then(|r| r.readiness) == Some(ProbeResult::Success) {
        true
    } else {
        c.readiness_probe.is_none()
    };
}

/// The first container of `list` named `name` (`index`: `list`'s, if it has one).
fn spec_named<'a>(
    list: &'a [Container],
    index: Option<&FirstByName<'_>>,
    name: &str,
) -> Option<&'a Container> {
    match index {
        Some(index) => index.position(name).and_then(|i| list.get(i)),
        None => list.iter().find(|c| c.name == name),
    }
}

fn probe_step(
    input: &StatusInput<'_>,
    regular: &mut [ContainerStatus],
    init: &mut [ContainerStatus],
    inits: &[Container],
    containers: &[Container],
) {
    match input.probes {
        Probes::Fake => {
            for s in regular {
                s.ready = true;
            }
        }
        Probes::Real(probes) => {
            let index = FirstByName::of(containers, |c| c.name.as_str());
            for s in regular.iter_mut() {
                if let Some(c) = spec_named(containers, index.as_ref(), &s.name) {
                    probe_one(probes, c, s);
                }
            }
            let index = FirstByName::of(inits, |c| c.name.as_str());
            for s in init.iter_mut() {
                let Some(c) = spec_named(inits, index.as_ref(), &s.name) else {
                    continue;
                };
                if is_restartable_init(c) {
                    probe_one(probes, c, s);
                } else {
                    let results = result_of(probes, s).copied();
                    s.started = Some(if !is_running(s) {
                        false
                    } else if let Some(r) = results.and_then(|r| r.startup) {
                        r == ProbeResult::Success
                    } else {
                        s.started == Some(true) || c.startup_probe.is_none()
                    });
                    let done = s
                        .state
                        .as_ref()
                        .and_then(|st| st.terminated.as_ref())
                        .is_some_and(|t| t.exit_code == 0);
                    if done {
                        s.ready = true;
                    }
                }
            }
        }
    }
}

/// The API status at the start of the sync a request describes, and the kubectl row of
/// the pod with that status at the request's `now` (what `attach` puts in the plan).
#[must_use]
pub fn for_request(
    request: &crate::request::PlanRequest,
    gates: &FeatureGates,
) -> (PodStatus, KubectlRow) {
    for_request_as(request, gates, false, |_| {})
}

/// [`for_request`] as the pod worker's later phases make it: `pod_is_terminal`
/// (`SyncTerminatedPod`, and `SyncTerminatingPod` once the containers stopped) and a
/// status function applied to the generated status before the row (`PodStatusFunc`: an
/// eviction's phase, reason and condition).
pub(crate) fn for_request_as(
    request: &crate::request::PlanRequest,
    gates: &FeatureGates,
    pod_is_terminal: bool,
    status_fn: impl FnOnce(&mut PodStatus),
) -> (PodStatus, KubectlRow) {
    let view = StatusView::new(request);
    let node = request.node.as_ref();
    let node_ips = node.map_or(&[][..], |n| n.node_ips.as_slice());
    let host_ips = node.map_or_else(Vec::new, |n| {
        let parsed: Vec<std::net::IpAddr> = n
            .host_ips
            .iter()
            .filter_map(|ip| ips::parse_ip_sloppy(ip))
            .collect();
        ips::pick_two(&parsed)
    });
    let runtime_ips = request
        .runtime_status
        .as_ref()
        .map_or(&[][..], |r| r.ips.as_slice());
    let mut status = generate_api_pod_status(&StatusInput {
        pod: &request.pod,
        view: &view,
        ips: runtime_ips,
        previous: request.previous_status.as_ref(),
        reason_cache: &request.reason_cache,
        probes: Probes::Real(&request.probes),
        pod_is_terminal,
        node_ips,
        host_ips: &host_ips,
        gates,
    });
    if !pod_is_terminal {
        insert_resize_condition(request, gates, &mut status);
    }
    status_fn(&mut status);
    let row = row::kubectl_pod_row_parts(
        &request.pod.metadata,
        request.pod.spec.as_ref(),
        &status,
        request.now,
        false,
    );
    (status, row)
}

/// `generateAPIPodStatus` with the status manager's resize conditions
/// ([`resize::resize`]): after the conditions the kubelet does not own, before the others;
/// the observed generation left out where `CalculatePodConditionObservedGeneration` gives 0.
fn insert_resize_condition(
    request: &crate::request::PlanRequest,
    gates: &FeatureGates,
    status: &mut PodStatus,
) {
    let Some(mut condition) = resize::resize(request, gates).condition else {
        return;
    };
    let empty = PodStatus::default();
    let pod_status = request.pod.status.as_ref().unwrap_or(&empty);
    let old = request.previous_status.as_ref().unwrap_or(pod_status);
    if conditions::observed_generation(&request.pod, Some(old), resize::IN_PROGRESS, gates)
        .is_none()
    {
        condition.observed_generation = None;
    }
    let not_owned = pod_status
        .conditions
        .iter()
        .flatten()
        .filter(|c| {
            !(conditions::KUBELET_OWNED.contains(&c.type_.as_str())
                || (c.type_ == "PodReadyToStartContainers"
                    && gates.enabled(Gate::PodReadyToStartContainersCondition)))
        })
        .count();
    let list = status.conditions.get_or_insert_with(Vec::new);
    list.insert(not_owned.min(list.len()), condition);
}

/// [`attach`] for the pod worker's later phases ([`for_request_as`]); the reason cache
/// is the request's (nothing is started).
pub(crate) fn attach_with(
    request: &crate::request::PlanRequest,
    gates: &FeatureGates,
    plan: &mut crate::plan::Plan,
    pod_is_terminal: bool,
    status_fn: impl FnOnce(&mut PodStatus),
) {
    let (status, row) = for_request_as(request, gates, pod_is_terminal, status_fn);
    plan.warnings.extend(check::status_warnings(request));
    plan.kubectl = Some(row);
    plan.status = Some(status);
}

/// Fills the plan's `status`, `kubectl` row and next `reasonCache` (the status moment is
/// the start of the sync; the row is printed at the request's `now`).
pub(crate) fn attach(
    request: &crate::request::PlanRequest,
    gates: &FeatureGates,
    plan: &mut crate::plan::Plan,
) {
    let (status, row) = for_request(request, gates);
    plan.warnings.extend(check::status_warnings(request));
    plan.kubectl = Some(row);
    plan.status = Some(status);
    plan.reason_cache = next_reason_cache(request, plan);
}

/// The reason cache after the plan's steps are carried out (`reasonCache.Update` with the
/// SyncPod result): a failed or held-back start records its error, a start removes the
/// entry, containers SyncPod did not try keep theirs.
#[must_use]
pub(crate) fn next_reason_cache(
    request: &crate::request::PlanRequest,
    plan: &crate::plan::Plan,
) -> ReasonCache {
    use crate::plan::{StartContainerStep, Step};
    let mut cache = request.reason_cache.clone();
    let pod_name = crate::pod::format_pod(&request.pod);
    // ImagePullBackOff entries are start errors too (below): only crash-loop back-off
    // has its message made here.
    for h in plan.held_back.iter().filter(|h| h.reason.is_none()) {
        let delay = crate::go::duration::go_duration_seconds(h.delay_seconds);
        cache.insert(
            h.container.clone(),
            ReasonCacheEntry {
                reason: "CrashLoopBackOff".to_string(),
                message: format!(
                    "back-off {delay} restarting failed container={} pod={pod_name}",
                    h.container
                ),
            },
        );
    }
    let started = |name: &str| {
        plan.steps
            .iter()
            .any(|s| matches!(s, Step::StartContainer(st) if st.container.as_deref() == Some(name)))
    };
    for e in &plan.errors {
        let crash_looping = plan
            .held_back
            .iter()
            .any(|h| h.container == e.container && h.reason.is_none());
        if crash_looping || started(&e.container) {
            continue;
        }
        // Only containers SyncPod tried to start get a result.
        let attempted = plan.events.iter().any(|ev| {
            ev.reason == "Failed" && ev.container.as_deref() == Some(e.container.as_str())
        });
        if attempted {
            cache.insert(
                e.container.clone(),
                ReasonCacheEntry {
                    reason: e.reason.clone(),
                    message: e.message.clone(),
                },
            );
        }
    }
    for step in &plan.steps {
        if let Step::StartContainer(StartContainerStep {
            container: Some(name),
            ..
        }) = step
        {
            cache.remove(name);
        }
    }
    cache
}
