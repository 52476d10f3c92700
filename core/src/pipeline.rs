//! The engine's one pass over a request: validation, the API server's defaults, the pod
//! worker's phase, `computePodActions`, `SyncPod`'s steps and the API status, up to a
//! [`Stage`]. [`crate::api::plan`] runs all of it; the runtime model
//! ([`crate::sim::Simulation`]) runs it up to the stage it needs. Here, below both, so
//! that the API's calls may use the runtime model without an import cycle.

use crate::decision::{Ctx, SpecHashes};
use crate::error::PlanError;
use crate::features::FeatureGates;
use crate::plan::{Plan, WorkerPhase};
use crate::request::PlanRequest;
use crate::{config, decision, steps, validate};

/// How far [`plan_to`] goes. Each stage only adds to the plan of the one before: the
/// kubelet's decisions never read the steps or the status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Stage {
    /// `computePodActions`: the actions, decisions and warnings.
    Decisions,
    /// And what `SyncPod` does: steps, events, configs, held-back starts, back-off.
    Steps,
    /// And the API status, kubectl row, status warnings and next reason cache.
    Status,
}

/// [`crate::api::plan`] up to `stage`: callers that read only the actions, or the actions
/// and steps, skip the cost of the rest.
pub(crate) fn plan_to(request: &PlanRequest, stage: Stage) -> Result<Plan, PlanError> {
    if request.api_defaults {
        validate::api_server(request)?;
        let mut defaulted = request.clone();
        let gates = FeatureGates::resolve(&request.feature_gates);
        crate::defaults::apply_api_defaults_with(&mut defaulted.pod, &gates);
        defaulted.api_defaults = false;
        return plan_to(&defaulted, stage);
    }
    if !request.hook_results.is_empty() {
        return plan_after_hooks(request, stage);
    }
    let warnings = validate::validate(request)?;
    let gates = FeatureGates::resolve(&request.feature_gates);
    // The pod worker's phase (`pkg/kubelet/pod_workers.go`): SyncPod only for a pod it
    // syncs; a terminating or terminated pod gets SyncTerminatingPod / SyncTerminatedPod.
    let (phase, cause) = crate::terminate::worker_phase(request);
    if phase != WorkerPhase::Syncing {
        let mut plan = match (phase, cause) {
            (WorkerPhase::Terminating, Some(cause)) => {
                crate::terminate::plan_terminating(request, &gates, cause)
            }
            (WorkerPhase::Terminated, Some(cause)) => {
                crate::terminate::plan_terminated(request, &gates, cause)
            }
            _ => crate::terminate::plan_not_started(request, phase),
        };
        plan.warnings.extend(warnings);
        return Ok(plan);
    }
    let mut plan = match Ctx::new(request, &gates) {
        Some(mut ctx) => {
            let hashes = SpecHashes::of_running(ctx.spec, &ctx.status);
            ctx.hashes = Some(&hashes);
            let mut plan = decision::decide_in(&ctx);
            if stage >= Stage::Steps {
                let decided = plan.decisions.len();
                steps::build_in(&ctx, &mut plan, steps::BuildOptions::default());
                decision::effect::mark(ctx.spec, &mut plan, decided);
                // In-place resize's events come before SyncPod acts on the runtime (the
                // allocation manager's ResizeStarted, SyncPod's ResizeCompleted).
                let mut events = crate::status::resize::resize(request, &gates).events;
                if !events.is_empty() {
                    events.append(&mut plan.events);
                    plan.events = events;
                }
            }
            plan
        }
        None => Plan::default(),
    };
    plan.warnings.extend(warnings);
    plan.warnings
        .extend(config::security::userns_support_warning(
            &request.pod,
            request.node.as_ref(),
            &gates,
        ));
    if stage == Stage::Status {
        crate::status::attach(request, &gates, &mut plan);
    }
    Ok(plan)
}

/// A request with `hookResults`: the previous sync finished as the hooks went (a failed
/// postStart's `PostStartHookError` is in the reason cache at the start of this sync),
/// then this sync is planned as usual; the hooks' events come first, with a decision
/// each saying what the kubelet did.
fn plan_after_hooks(request: &PlanRequest, stage: Stage) -> Result<Plan, PlanError> {
    let reported = crate::hooks::results::read(request);
    let mut amended = request.clone();
    amended.hook_results.clear();
    amended.reason_cache.extend(reported.reason_cache);
    let mut plan = plan_to(&amended, stage)?;
    let mut events = reported.events;
    events.append(&mut plan.events);
    plan.events = events;
    for (container, reason, message) in reported.notes {
        plan.decisions.push(crate::plan::Decision {
            action: crate::plan::Action::KillContainer,
            container: Some(container),
            reason: reason.into(),
            message,
            ..crate::plan::Decision::default()
        });
    }
    plan.warnings.extend(reported.warnings);
    Ok(plan)
}
