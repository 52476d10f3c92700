//! What became of each decision by the end of the sync ([`Effect`]), and the step that
//! carries it out.
//!
//! `computePodActions` sets some actions and later rules override them (a `Never` pod
//! whose containers have run: `createSandbox` is set for the not-ready sandbox, then
//! cleared; a pod with nothing left to run drops its sidecar starts), and `SyncPod` does
//! not carry out every action it is given (crash-loop back-off, config errors). The
//! decisions are recorded as the rules fire; [`mark`] compares each with the final
//! `podActions` and the steps:
//!
//! * an action that `podActions` no longer holds is **superseded**, by the last later
//!   `killPod` decision (the only rules that clear actions are the ones that kill the
//!   pod: `RestartPolicyNever`, `AllContainersDone`, `NothingToRun`, a failed init
//!   container);
//! * an action `podActions` holds but no step carries out is **not carried out**, with
//!   the `SyncPod` note that explains it when there is one;
//! * `killPod` with nothing running and no sandbox is a **no-op**;
//! * everything else is **effective**, with the index of its step.
//!
//! The marking never changes `podActions`, the steps or the order of `decisions`.

use k8s_openapi::api::core::v1::PodSpec;

use crate::plan::{Action, ContainerKind, Decision, Effect, Plan, PodActions, Step, StepOp};

/// Marks every decision of `plan`. `decided` is the number of decisions made by
/// `computePodActions`; the ones after it are notes made while building the steps.
pub fn mark(spec: &PodSpec, plan: &mut Plan, decided: usize) {
    let marks: Vec<(Effect, Option<usize>, Option<usize>)> = plan
        .decisions
        .iter()
        .enumerate()
        .map(|(i, d)| mark_one(spec, plan, decided, i, d))
        .collect();
    for (d, (effect, by, step)) in plan.decisions.iter_mut().zip(marks) {
        d.effect = effect;
        d.superseded_by = by;
        d.step = step;
    }
}

fn mark_one(
    spec: &PodSpec,
    plan: &Plan,
    decided: usize,
    i: usize,
    d: &Decision,
) -> (Effect, Option<usize>, Option<usize>) {
    let step = step_of(spec, &plan.actions, &plan.steps, d);
    match held(spec, &plan.actions, d) {
        Some(false) => {
            let by = plan
                .decisions
                .iter()
                .enumerate()
                .skip(i + 1)
                .rev()
                .find(|(_, later)| later.action == Action::KillPod)
                .map(|(j, _)| j);
            (Effect::Superseded, by, None)
        }
        Some(true) if expects_step(d.action) && step.is_none() => (
            Effect::NotCarriedOut,
            explanation(spec, plan, decided, d),
            None,
        ),
        Some(true) if d.action == Action::KillPod && is_empty_kill(plan, step) => {
            (Effect::Noop, None, step)
        }
        _ => (Effect::Effective, None, step),
    }
}

/// Whether the final `podActions` hold the decision's action; `None` for decisions that
/// are not actions (`wait`, `doNotRestart`, a pod-wide `keepContainer`).
fn held(spec: &PodSpec, a: &PodActions, d: &Decision) -> Option<bool> {
    let name = d.container.as_deref();
    let index_in = |kind: ContainerKind, list: &[usize]| {
        name.and_then(|n| index_of(spec, kind, n))
            .is_some_and(|idx| list.contains(&idx))
    };
    match d.action {
        Action::KillPod => Some(a.kill_pod),
        Action::CreateSandbox => Some(a.create_sandbox),
        Action::StartInitContainer => {
            Some(index_in(ContainerKind::Init, &a.init_containers_to_start))
        }
        Action::StartContainer => Some(index_in(ContainerKind::Regular, &a.containers_to_start)),
        Action::StartEphemeralContainer => Some(index_in(
            ContainerKind::Ephemeral,
            &a.ephemeral_containers_to_start,
        )),
        Action::KillContainer => Some(
            a.kill_pod
                || a.containers_to_kill
                    .values()
                    .any(|k| Some(k.name.as_str()) == name),
        ),
        Action::ResetContainer => Some(
            a.containers_to_reset
                .iter()
                .any(|r| Some(r.name.as_str()) == name),
        ),
        Action::UpdateResources => {
            let listed = a
                .containers_to_update
                .as_ref()
                .is_some_and(|m| m.values().flatten().any(|u| Some(u.name.as_str()) == name));
            Some(listed || a.update_pod_resources || a.update_pod_level_resources)
        }
        // Keeping a running container contradicts a pod kill decided later.
        Action::KeepContainer => name.map(|_| !a.kill_pod),
        Action::Wait | Action::DoNotRestart => None,
    }
}

/// Actions that `SyncPod` carries out with a step when `podActions` hold them.
fn expects_step(action: Action) -> bool {
    !matches!(
        action,
        Action::KeepContainer | Action::Wait | Action::DoNotRestart
    )
}

fn index_of(spec: &PodSpec, kind: ContainerKind, name: &str) -> Option<usize> {
    match kind {
        ContainerKind::Init => spec
            .init_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .position(|c| c.name == name),
        ContainerKind::Regular => spec.containers.iter().position(|c| c.name == name),
        ContainerKind::Ephemeral => spec
            .ephemeral_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .position(|c| c.name == name),
    }
}

/// The index of the step that carries the decision out.
fn step_of(spec: &PodSpec, a: &PodActions, steps: &[Step], d: &Decision) -> Option<usize> {
    let name = d.container.as_deref();
    let find = |ok: &dyn Fn(&Step) -> bool| steps.iter().position(ok);
    let for_container = |s: &Step| name.is_some() && s.container.as_deref() == name;
    let start = |kind: ContainerKind| {
        let index = name.and_then(|n| index_of(spec, kind, n));
        find(&|s: &Step| {
            matches!(
                s.op,
                StepOp::PullImage | StepOp::CreateContainer | StepOp::StartContainer
            ) && s.kind == Some(kind)
                && index.is_some()
                && s.index == index
        })
    };
    match d.action {
        Action::KillPod => find(&|s: &Step| s.op == StepOp::KillPod),
        Action::CreateSandbox => find(&|s: &Step| s.op == StepOp::RunPodSandbox),
        Action::StartInitContainer => start(ContainerKind::Init),
        Action::StartContainer => start(ContainerKind::Regular),
        Action::StartEphemeralContainer => start(ContainerKind::Ephemeral),
        Action::KillContainer => {
            find(&|s: &Step| s.op == StepOp::KillContainer && for_container(s)).or_else(|| {
                if a.kill_pod {
                    find(&|s: &Step| s.op == StepOp::KillPod)
                } else {
                    None
                }
            })
        }
        Action::ResetContainer => find(&|s: &Step| {
            matches!(s.op, StepOp::KillContainer | StepOp::RemoveContainer) && for_container(s)
        }),
        Action::UpdateResources => {
            find(&|s: &Step| s.op == StepOp::UpdateContainerResources && for_container(s))
                .or_else(|| find(&|s: &Step| s.op == StepOp::UpdatePodSandboxResources))
        }
        Action::KeepContainer | Action::Wait | Action::DoNotRestart => None,
    }
}

/// A `KillPod` step that stops no container and no sandbox.
fn is_empty_kill(plan: &Plan, step: Option<usize>) -> bool {
    step.and_then(|i| plan.steps.get(i))
        .is_some_and(|s| s.containers.is_empty() && s.sandbox_id.is_none())
}

/// The `SyncPod` note that explains why an action was not carried out: one about the
/// same container, else one about a classic init container (which stops the starts
/// after it).
fn explanation(spec: &PodSpec, plan: &Plan, decided: usize, d: &Decision) -> Option<usize> {
    let notes = || plan.decisions.iter().enumerate().skip(decided);
    let classic_init = |name: Option<&str>| {
        name.is_some_and(|n| {
            spec.init_containers
                .as_deref()
                .unwrap_or_default()
                .iter()
                .any(|c| c.name == n && c.restart_policy.as_deref() != Some("Always"))
        })
    };
    notes()
        .find(|(_, n)| d.container.is_some() && n.container == d.container)
        .or_else(|| notes().find(|(_, n)| classic_init(n.container.as_deref())))
        .map(|(j, _)| j)
}
