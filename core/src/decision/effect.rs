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

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::PodSpec;

use crate::plan::{Action, ContainerKind, Decision, Effect, Plan, PodActions, Step};

/// Marks every decision of `plan`. `decided` is the number of decisions made by
/// `computePodActions`; the ones after it are notes made while building the steps.
pub(crate) fn mark(spec: &PodSpec, plan: &mut Plan, decided: usize) {
    let lookup = Lookup::new(spec, plan, decided);
    let marks: Vec<(Effect, Option<usize>, Option<usize>)> = plan
        .decisions
        .iter()
        .enumerate()
        .map(|(i, d)| mark_one(&lookup, plan, i, d))
        .collect();
    for (d, (effect, by, step)) in plan.decisions.iter_mut().zip(marks) {
        d.effect = effect;
        d.superseded_by = by;
        d.step = step;
    }
}

/// What marking looks up for every decision, indexed once per plan so that marking is
/// linear in the pod's size (a pod of N containers has about N decisions and N steps).
/// Every index keeps the first match, as a scan in order would find it.
struct Lookup<'a> {
    /// A container's index in its spec list, by kind and name.
    index: BTreeMap<(ContainerKind, &'a str), usize>,
    /// The containers the final `podActions` start, by kind and index.
    to_start: BTreeSet<(ContainerKind, usize)>,
    /// Names in `containersToKill`, `containersToReset` and `containersToUpdate`.
    to_kill: BTreeSet<&'a str>,
    to_reset: BTreeSet<&'a str>,
    to_update: BTreeSet<&'a str>,
    /// The first PullImage/CreateContainer/StartContainer step of a container.
    start_step: BTreeMap<(ContainerKind, usize), usize>,
    /// The first KillContainer step of a container; the first KillContainer or
    /// RemoveContainer step; the first UpdateContainerResources step.
    kill_step: BTreeMap<&'a str, usize>,
    reset_step: BTreeMap<&'a str, usize>,
    update_step: BTreeMap<&'a str, usize>,
    /// The first KillPod, RunPodSandbox and UpdatePodSandboxResources steps.
    kill_pod_step: Option<usize>,
    sandbox_step: Option<usize>,
    update_pod_step: Option<usize>,
    /// The last `killPod` decision.
    last_kill_pod: Option<usize>,
    /// The first `SyncPod` note about a container, and the first about a classic init
    /// container.
    note_for: BTreeMap<&'a str, usize>,
    classic_init_note: Option<usize>,
}

impl<'a> Lookup<'a> {
    fn new(spec: &'a PodSpec, plan: &'a Plan, decided: usize) -> Self {
        let init = spec.init_containers.as_deref().unwrap_or_default();
        let ephemeral = spec.ephemeral_containers.as_deref().unwrap_or_default();
        let mut index = BTreeMap::new();
        let names = init
            .iter()
            .map(|c| (ContainerKind::Init, c.name.as_str()))
            .enumerate()
            .chain(
                spec.containers
                    .iter()
                    .map(|c| (ContainerKind::Regular, c.name.as_str()))
                    .enumerate(),
            )
            .chain(
                ephemeral
                    .iter()
                    .map(|c| (ContainerKind::Ephemeral, c.name.as_str()))
                    .enumerate(),
            );
        for (i, key) in names {
            index.entry(key).or_insert(i);
        }
        let a = &plan.actions;
        let to_start = a
            .init_containers_to_start
            .iter()
            .map(|&i| (ContainerKind::Init, i))
            .chain(
                a.containers_to_start
                    .iter()
                    .map(|&i| (ContainerKind::Regular, i)),
            )
            .chain(
                a.ephemeral_containers_to_start
                    .iter()
                    .map(|&i| (ContainerKind::Ephemeral, i)),
            )
            .collect();
        let mut lookup = Lookup {
            index,
            to_start,
            to_kill: a
                .containers_to_kill
                .values()
                .map(|k| k.name.as_str())
                .collect(),
            to_reset: a
                .containers_to_reset
                .iter()
                .map(|r| r.name.as_str())
                .collect(),
            to_update: a
                .containers_to_update
                .iter()
                .flat_map(|m| m.values().flatten())
                .map(|u| u.name.as_str())
                .collect(),
            start_step: BTreeMap::new(),
            kill_step: BTreeMap::new(),
            reset_step: BTreeMap::new(),
            update_step: BTreeMap::new(),
            kill_pod_step: None,
            sandbox_step: None,
            update_pod_step: None,
            last_kill_pod: plan
                .decisions
                .iter()
                .rposition(|d| d.action == Action::KillPod),
            note_for: BTreeMap::new(),
            classic_init_note: None,
        };
        for (i, s) in plan.steps.iter().enumerate() {
            lookup.add_step(i, s);
        }
        let classic_init = |name: &str| {
            init.iter()
                .any(|c| c.name == name && c.restart_policy.as_deref() != Some("Always"))
        };
        for (j, note) in plan.decisions.iter().enumerate().skip(decided) {
            if let Some(name) = note.container.as_deref() {
                lookup.note_for.entry(name).or_insert(j);
                if lookup.classic_init_note.is_none() && classic_init(name) {
                    lookup.classic_init_note = Some(j);
                }
            }
        }
        lookup
    }

    fn add_step(&mut self, i: usize, s: &'a Step) {
        let first = |slot: &mut Option<usize>| {
            slot.get_or_insert(i);
        };
        match s {
            Step::KillPod(_) => first(&mut self.kill_pod_step),
            Step::RunPodSandbox(_) => first(&mut self.sandbox_step),
            Step::UpdatePodSandboxResources(_) => first(&mut self.update_pod_step),
            Step::PullImage(_) | Step::CreateContainer(_) | Step::StartContainer(_) => {
                if let Some(position) = s.spec_position() {
                    self.start_step.entry(position).or_insert(i);
                }
            }
            Step::KillContainer(k) => {
                if let Some(name) = k.container.as_deref() {
                    self.kill_step.entry(name).or_insert(i);
                    self.reset_step.entry(name).or_insert(i);
                }
            }
            Step::RemoveContainer(r) => {
                if let Some(name) = r.container.as_deref() {
                    self.reset_step.entry(name).or_insert(i);
                }
            }
            Step::UpdateContainerResources(u) => {
                if let Some(name) = u.container.as_deref() {
                    self.update_step.entry(name).or_insert(i);
                }
            }
            Step::WriteNodeFiles(_) | Step::RemovePodSandbox(_) | Step::CleanupPod(_) => {}
        }
    }

    /// The decision's container, by kind: its index in the spec list.
    fn index_of(&self, kind: ContainerKind, name: Option<&str>) -> Option<usize> {
        name.and_then(|n| self.index.get(&(kind, n)).copied())
    }
}

fn mark_one(
    lookup: &Lookup<'_>,
    plan: &Plan,
    i: usize,
    d: &Decision,
) -> (Effect, Option<usize>, Option<usize>) {
    let step = step_of(lookup, &plan.actions, d);
    match held(lookup, &plan.actions, d) {
        Some(false) => {
            let by = lookup.last_kill_pod.filter(|&j| j > i);
            (Effect::Superseded, by, None)
        }
        Some(true) if expects_step(d.action) && step.is_none() => {
            (Effect::NotCarriedOut, explanation(lookup, d), None)
        }
        Some(true) if d.action == Action::KillPod && is_empty_kill(plan, step) => {
            (Effect::Noop, None, step)
        }
        _ => (Effect::Effective, None, step),
    }
}

/// Whether the final `podActions` hold the decision's action; `None` for decisions that
/// are not actions (`wait`, `doNotRestart`, a pod-wide `keepContainer`).
fn held(lookup: &Lookup<'_>, a: &PodActions, d: &Decision) -> Option<bool> {
    let name = d.container.as_deref();
    let starts = |kind: ContainerKind| {
        lookup
            .index_of(kind, name)
            .is_some_and(|idx| lookup.to_start.contains(&(kind, idx)))
    };
    let listed = |set: &BTreeSet<&str>| name.is_some_and(|n| set.contains(n));
    match d.action {
        Action::KillPod => Some(a.kill_pod),
        Action::CreateSandbox => Some(a.create_sandbox),
        Action::StartInitContainer => Some(starts(ContainerKind::Init)),
        Action::StartContainer => Some(starts(ContainerKind::Regular)),
        Action::StartEphemeralContainer => Some(starts(ContainerKind::Ephemeral)),
        Action::KillContainer => Some(a.kill_pod || listed(&lookup.to_kill)),
        Action::ResetContainer => Some(listed(&lookup.to_reset)),
        Action::UpdateResources => Some(
            listed(&lookup.to_update) || a.update_pod_resources || a.update_pod_level_resources,
        ),
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

/// The index of the step that carries the decision out.
fn step_of(lookup: &Lookup<'_>, a: &PodActions, d: &Decision) -> Option<usize> {
    let name = d.container.as_deref();
    let by_name = |steps: &BTreeMap<&str, usize>| name.and_then(|n| steps.get(n).copied());
    let start = |kind: ContainerKind| {
        lookup
            .index_of(kind, name)
            .and_then(|idx| lookup.start_step.get(&(kind, idx)).copied())
    };
    match d.action {
        Action::KillPod => lookup.kill_pod_step,
        Action::CreateSandbox => lookup.sandbox_step,
        Action::StartInitContainer => start(ContainerKind::Init),
        Action::StartContainer => start(ContainerKind::Regular),
        Action::StartEphemeralContainer => start(ContainerKind::Ephemeral),
        Action::KillContainer => {
            by_name(&lookup.kill_step).or(lookup.kill_pod_step.filter(|_| a.kill_pod))
        }
        Action::ResetContainer => by_name(&lookup.reset_step),
        Action::UpdateResources => by_name(&lookup.update_step).or(lookup.update_pod_step),
        Action::KeepContainer | Action::Wait | Action::DoNotRestart => None,
    }
}

/// A `KillPod` step that stops no container and no sandbox.
fn is_empty_kill(plan: &Plan, step: Option<usize>) -> bool {
    step.and_then(|i| plan.steps.get(i)).is_some_and(
        |s| matches!(s, Step::KillPod(k) if k.containers.is_empty() && k.sandbox_id.is_none()),
    )
}

/// The `SyncPod` note that explains why an action was not carried out: one about the
/// same container, else one about a classic init container (which stops the starts
/// after it).
fn explanation(lookup: &Lookup<'_>, d: &Decision) -> Option<usize> {
    d.container
        .as_deref()
        .and_then(|n| lookup.note_for.get(n).copied())
        .or(lookup.classic_init_note)
}
