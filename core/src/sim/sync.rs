//! A whole plan carried out: `apply_with` (every step, with `Runtime::apply_step`) and
//! the request for the next sync ([`next_request_with`]): the outcome, the plan's back-off records,
//! status and reason cache, the probe results still meaningful, and `now`.

use super::hooks::HookControls;
use super::model::Outcome;
use super::runtime::Runtime;
use super::script;
use crate::plan::Plan;
use crate::request::PlanRequest;
use crate::runtime::ContainerState;

/// Carries out `plan` against the request's runtime state at time `now`, in a world whose
/// hooks behave as `hooks` says: every step, in order, with `Runtime::apply_step`.
#[must_use]
pub(crate) fn apply_with(
    request: &PlanRequest,
    plan: &Plan,
    now: jiff::Timestamp,
    hooks: &HookControls,
) -> Outcome {
    let mut runtime = Runtime::from_request(request).with_hooks(hooks.clone());
    for step in &plan.steps {
        runtime.apply_step(&request.pod, step, now);
    }
    runtime.into_outcome()
}

/// The request for the next sync: the outcome of `plan`, the plan's back-off records,
/// status (as `previousStatus`) and reason cache, probe results only for containers that
/// still run, and `now`. When the pod is restarting
/// all its containers and none is left in the runtime, the restart is over (the kubelet
/// then clears `AllContainersRestarting`).
///
/// The world's hooks behave as `hooks` says (`HookControls::default()`: every hook
/// succeeds at once); what the hooks reported becomes the next request's `hookResults`.
#[must_use]
pub fn next_request_with(
    request: &PlanRequest,
    plan: &Plan,
    now: jiff::Timestamp,
    hooks: &HookControls,
) -> PlanRequest {
    next_request_timed(request, plan, now, hooks).0
}

/// [`next_request_with`], and how long carrying the plan out kept the sync busy
/// (milliseconds): preStop hooks and stops waited for, up to the grace periods, and image
/// pulls (a pull's time, [`images::PULL_MILLIS`](super::images::PULL_MILLIS) by default). The next
/// request keeps `now`; a caller with a clock advances it by this much
/// ([`Simulation::carry_out`](super::Simulation::carry_out) does, and the playground).
#[must_use]
pub(crate) fn next_request_timed(
    request: &PlanRequest,
    plan: &Plan,
    now: jiff::Timestamp,
    hooks: &HookControls,
) -> (PlanRequest, u64) {
    let mut next = request.clone();
    let blocked = carry_out(&mut next, plan, now, hooks);
    (next, blocked)
}

/// [`next_request_with`] in place: `next` becomes the next sync's request (no copy of the
/// pod, which a plan never changes). Returns how long the sync was blocked in hooks
/// (milliseconds).
pub(super) fn carry_out(
    next: &mut PlanRequest,
    plan: &Plan,
    now: jiff::Timestamp,
    hooks: &HookControls,
) -> u64 {
    let outcome = apply_with(next, plan, now, hooks);
    let blocked = outcome.blocked_millis;
    next.hook_results = outcome.hook_results;
    let running: std::collections::BTreeSet<&str> = outcome
        .runtime_status
        .container_statuses
        .iter()
        .filter(|s| s.state == ContainerState::Running)
        .map(|s| s.id.as_str())
        .collect();
    next.probes.retain(|id, _| running.contains(id.as_str()));
    next.runtime_status = Some(outcome.runtime_status);
    next.actuated_resources = outcome.actuated_resources;
    next.backoff.clone_from(&plan.backoff);
    next.images = outcome.images;
    next.pull_results = outcome.pull_results;
    next.image_backoff.clone_from(&plan.image_backoff);
    next.previous_status.clone_from(&plan.status);
    next.reason_cache.clone_from(&plan.reason_cache);
    next.now = Some(now);
    if restart_cleaned_up(next) {
        script::finish_restart_all(next);
    }
    blocked
}

/// Whether carrying out a plan changed what the kubelet's PLEG relists (the runtime
/// status: a sandbox or a container created, started, stopped or removed) or the
/// actuated-resources checkpoint. A PLEG event makes the kubelet sync the pod again at
/// once, so a plan that changed something is followed by another sync. A plan that pulled
/// an image (results in `after.pullResults`) is followed by another sync too: the rest of
/// the kubelet's sync is the next plan ("pull, then re-plan").
#[must_use]
pub(crate) fn relist_changed(before: &PlanRequest, after: &PlanRequest) -> bool {
    before.runtime_status != after.runtime_status
        || before.actuated_resources != after.actuated_resources
        || !after.pull_results.is_empty()
}

/// `AllContainersRestartCleanedUp` while a restart-all is in progress.
fn restart_cleaned_up(request: &PlanRequest) -> bool {
    let restarting =
        request.restart_all_containers || crate::pod::all_containers_restarting(&request.pod);
    let Some(spec) = request.pod.spec.as_ref() else {
        return false;
    };
    let statuses = request.container_statuses();
    restarting
        && spec
            .init_containers
            .iter()
            .flatten()
            .chain(spec.containers.iter())
            .all(|c| statuses.iter().all(|s| s.name != c.name))
}
