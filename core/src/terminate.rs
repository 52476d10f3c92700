//! The pod worker's phases after `SyncPod`, as pure decisions (`pkg/kubelet/pod_workers.go`,
//! `pkg/kubelet/kubelet.go`): a pod is synced (`SyncPod`), then terminating
//! (`SyncTerminatingPod`: stop what runs, start nothing), then terminated
//! (`SyncTerminatedPod` and the garbage collection that follows). Rules:
//! `docs/termination.md`.
//!
//! * [`worker_phase`] says which sync the request's pod gets. Termination is requested by a
//!   deletion (`metadata.deletionTimestamp`), a terminal API phase (`Succeeded`/`Failed`),
//!   a kill from the kubelet (`podWorker.kill`: eviction, preemption) or the pod's
//!   removal from the node (`podWorker.removed`). A static pod may have to wait for a
//!   previous incarnation of its full name ([`allow_pod_start`]).
//! * [`effective_grace_period`] is `calculateEffectiveGracePeriod`.
//! * [`pod_kills`] is `killContainersWithSyncResult` + `newTerminationOrdering`
//!   (`pkg/kubelet/kuberuntime/kuberuntime_termination_order.go`) + `killContainer`'s grace
//!   (`pkg/kubelet/kuberuntime/kuberuntime_container.go`): one [`ContainerKill`] per
//!   running container, in order.
//! * [`kill_timeline`] says when each kill's hook, wait and stop happen, given how long hooks
//!   take and how long containers take to exit; the model runtime and the kubelet's
//!   ordering tests use it.
//! * [`plan_terminating`] and [`plan_terminated`] make the plans of the two phases.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{Container, Pod, PodCondition, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::decision::Ctx;
use crate::events;
use crate::features::FeatureGates;
use crate::hooks;
use crate::plan::{
    Action, CleanupPath, CleanupPodStep, ContainerKill, Decision, KillKind, KillPodOptions,
    KillPodStep, KillReason, Plan, PodWorkerState, RemoveContainerStep, RemovePodSandboxStep, Step,
    WorkerPhase,
};
use crate::pod::is_static_pod;
use crate::request::PlanRequest;
use crate::runtime::{ContainerState, SandboxState};

/// The status reason of an evicted pod (`eviction.Reason`).
pub(crate) const EVICTED_REASON: &str = "Evicted";

/// The reason of the `DisruptionTarget` condition the kubelet sets when it terminates a
/// pod (`v1.PodReasonTerminationByKubelet`).
pub(crate) const TERMINATION_BY_KUBELET: &str = "TerminationByKubelet";

/// Why the pod worker terminates the pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TerminationCause {
    /// The pod was removed from the node's config (`HandlePodRemoves`).
    Removed,
    /// The kubelet evicts it (`podWorker.kill.evict`).
    Evicted,
    /// Another part of the kubelet kills it (`podWorker.kill`).
    Killed,
    /// It is being deleted (`metadata.deletionTimestamp`).
    Deleted,
    /// Its API phase is terminal (`Succeeded`/`Failed`).
    Terminal,
}

impl TerminationCause {
    /// The decision reason (`PodRemoved`, `PodEvicted`, `PodKilled`, `PodDeleted`,
    /// `PodTerminal`).
    #[must_use]
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Self::Removed => "PodRemoved",
            Self::Evicted => "PodEvicted",
            Self::Killed => "PodKilled",
            Self::Deleted => "PodDeleted",
            Self::Terminal => "PodTerminal",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Self::Removed => "the pod was removed from the node's config",
            Self::Evicted => "the kubelet evicts the pod",
            Self::Killed => "the kubelet kills the pod",
            Self::Deleted => "the pod is being deleted (deletionTimestamp)",
            Self::Terminal => "the pod's phase is terminal",
        }
    }
}

/// Which sync the pod worker runs for the request's pod, and why it terminates it.
#[must_use]
pub(crate) fn worker_phase(request: &PlanRequest) -> (WorkerPhase, Option<TerminationCause>) {
    let state = request.pod_worker.as_ref();
    let cause = termination_cause(request);
    if cause.is_none() {
        if let Some(state) = state.filter(|s| !s.pods.is_empty()) {
            let start = allow_pod_start(&request.pod, state);
            if !start.can_ever_start {
                return (WorkerPhase::NeverStarts, None);
            }
            if !start.can_start {
                return (WorkerPhase::Waiting, None);
            }
        }
        return (WorkerPhase::Syncing, None);
    }
    let done = state.is_some_and(|s| s.terminating_done) || !anything_runs(request);
    let phase = if done {
        WorkerPhase::Terminated
    } else {
        WorkerPhase::Terminating
    };
    (phase, cause)
}

fn termination_cause(request: &PlanRequest) -> Option<TerminationCause> {
    let state = request.pod_worker.as_ref();
    if state.is_some_and(|s| s.removed) {
        return Some(TerminationCause::Removed);
    }
    if let Some(kill) = state.and_then(|s| s.kill.as_ref()) {
        return Some(if kill.evict {
            TerminationCause::Evicted
        } else {
            TerminationCause::Killed
        });
    }
    if request.pod.metadata.deletion_timestamp.is_some() {
        return Some(TerminationCause::Deleted);
    }
    let phase = request.pod.status.as_ref().and_then(|s| s.phase.as_deref());
    matches!(phase, Some("Succeeded" | "Failed")).then_some(TerminationCause::Terminal)
}

/// Whether the runtime reports a running container or a ready sandbox.
fn anything_runs(request: &PlanRequest) -> bool {
    request.runtime_status.as_ref().is_some_and(|s| {
        s.container_statuses
            .iter()
            .any(|c| c.state == ContainerState::Running)
            || s.sandbox_statuses
                .iter()
                .any(|sb| sb.state == SandboxState::Ready)
    })
}

/// `calculateEffectiveGracePeriod`: the grace period in force (`worker`, 0 = none yet)
/// can only shrink: to the pod's `deletionGracePeriodSeconds`, then to a kill's
/// override; without either, the spec's `terminationGracePeriodSeconds`; never below 1.
#[must_use]
pub(crate) fn effective_grace_period(pod: &Pod, worker: i64, override_seconds: Option<i64>) -> i64 {
    let mut grace = worker;
    let mut overridden = false;
    for o in [pod.metadata.deletion_grace_period_seconds, override_seconds]
        .into_iter()
        .flatten()
    {
        if grace == 0 || o < grace {
            grace = o;
            overridden = true;
        }
    }
    if !overridden && grace == 0 {
        if let Some(t) = pod
            .spec
            .as_ref()
            .and_then(|s| s.termination_grace_period_seconds)
        {
            grace = t;
        }
    }
    grace.max(1)
}

/// What `allowPodStart` answers, and the worker's static-pod bookkeeping after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StartAllowed {
    /// The worker starts the pod now.
    pub can_start: bool,
    /// The worker may start it later (false: it never will; it is cleaned up).
    pub can_ever_start: bool,
    /// `startedStaticPodsByFullname` afterwards.
    pub started_static_pods: BTreeMap<String, String>,
    /// `waitingToStartStaticPodsByFullname` afterwards.
    pub waiting_to_start_static_pods: BTreeMap<String, Vec<String>>,
}

/// `allowPodStart` / `allowStaticPodStart` (`pkg/kubelet/pod_workers.go`): a static pod
/// starts only when no other static pod of its full name has started (or is still
/// terminating) and it is the first valid pod waiting for that name.
#[must_use]
pub(crate) fn allow_pod_start(pod: &Pod, state: &PodWorkerState) -> StartAllowed {
    let mut out = StartAllowed {
        can_start: true,
        can_ever_start: true,
        started_static_pods: state.started_static_pods.clone(),
        waiting_to_start_static_pods: state.waiting_to_start_static_pods.clone(),
    };
    if !is_static_pod(pod) {
        return out;
    }
    let uid = pod.metadata.uid.as_deref().unwrap_or_default();
    let Some(status) = state.pods.get(uid) else {
        out.can_start = false;
        out.can_ever_start = false;
        return out;
    };
    if status.termination_requested {
        out.can_start = false;
        out.can_ever_start = false;
        return out;
    }
    let fullname = status.fullname.clone();
    if let Some(started) = out.started_static_pods.get(&fullname) {
        out.can_start = started == uid;
        return out;
    }
    let waiting = out
        .waiting_to_start_static_pods
        .get(&fullname)
        .cloned()
        .unwrap_or_default();
    let mut rest = waiting.clone();
    for (i, w) in waiting.iter().enumerate() {
        // Has that pod already terminated or been deleted?
        let valid = state
            .pods
            .get(w)
            .is_some_and(|s| !s.termination_requested && !s.terminated);
        if !valid {
            continue;
        }
        if w != uid {
            // Another pod is next in line.
            out.waiting_to_start_static_pods
                .insert(fullname, waiting.get(i..).unwrap_or_default().to_vec());
            out.can_start = false;
            return out;
        }
        rest = waiting.get(i + 1..).unwrap_or_default().to_vec();
        break;
    }
    if rest.is_empty() {
        out.waiting_to_start_static_pods.remove(&fullname);
    } else {
        out.waiting_to_start_static_pods
            .insert(fullname.clone(), rest);
    }
    out.started_static_pods.insert(fullname, uid.to_string());
    out
}

/// The spec of a running container and what it is to the termination order.
fn spec_of<'a>(pod: &'a Pod, name: &str) -> Option<(KillKind, Option<&'a Container>)> {
    let spec = pod.spec.as_ref()?;
    if let Some(c) = spec.containers.iter().find(|c| c.name == name) {
        return Some((KillKind::Regular, Some(c)));
    }
    if let Some(c) = spec
        .init_containers
        .iter()
        .flatten()
        .find(|c| c.name == name)
    {
        let kind = if crate::pod::is_restartable_init(c) {
            KillKind::Sidecar
        } else {
            KillKind::Init
        };
        return Some((kind, Some(c)));
    }
    spec.ephemeral_containers
        .iter()
        .flatten()
        .any(|c| c.name == name)
        .then_some((KillKind::Ephemeral, None))
}

/// `newTerminationOrdering`: for each running container, the running containers it waits
/// for. A sidecar waits for every regular container and for the next sidecar in spec
/// order (whether or not that one runs: a stopped one does not hold it up, and it does
/// not pass on the wait for the sidecars after it).
fn prerequisites(pod: &Pod, running: &BTreeSet<&str>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Some(spec) = pod.spec.as_ref() else {
        return out;
    };
    let mains: Vec<&str> = spec
        .containers
        .iter()
        .map(|c| c.name.as_str())
        .filter(|n| running.contains(n))
        .collect();
    let mut later_sidecar: Option<&str> = None;
    for c in spec.init_containers.iter().flatten().rev() {
        if !crate::pod::is_restartable_init(c) {
            continue;
        }
        let mut wait: Vec<String> = mains.iter().map(|n| (*n).to_string()).collect();
        if let Some(next) = later_sidecar.filter(|n| running.contains(n)) {
            wait.push(next.to_string());
        }
        out.insert(c.name.clone(), wait);
        later_sidecar = Some(c.name.as_str());
    }
    out
}

/// `killContainersWithSyncResult`: one kill per running container (`reasonUnknown`,
/// grace `override_seconds` when the pod worker terminates the pod, else
/// `setTerminationGracePeriod`), in the termination order: by `order`, then regular,
/// init, ephemeral containers in spec order, sidecars last in spec first. `pod_ip`: the
/// pod's first IP (for `httpGet` preStop handlers without a host). A running container
/// that is in no list of the spec gets no kill (`killContainer` fails to find its spec).
#[must_use]
pub(crate) fn pod_kills(
    pod: &Pod,
    running: &[(&str, &str)],
    override_seconds: Option<i64>,
    pod_ip: Option<&str>,
) -> Vec<ContainerKill> {
    let names: BTreeSet<&str> = running.iter().map(|(n, _)| *n).collect();
    let prereqs = prerequisites(pod, &names);
    let mut kills: Vec<ContainerKill> = Vec::new();
    for (name, id) in running {
        let Some((kind, spec)) = spec_of(pod, name) else {
            continue;
        };
        let grace =
            hooks::termination_grace_period(pod, spec, KillReason::Unknown, override_seconds);
        let pre_stop = spec
            .and_then(|c| hooks::pre_stop_step(c, pod_ip, grace))
            .map(|mut s| {
                s.container_id = (!id.is_empty()).then(|| (*id).to_string());
                s
            });
        kills.push(ContainerKill {
            container: (*name).to_string(),
            container_id: (*id).to_string(),
            kind,
            grace_period_seconds: grace,
            stop_grace_period_seconds: grace.max(hooks::MINIMUM_GRACE_PERIOD_SECONDS),
            pre_stop,
            order: 0,
            wait_for: prereqs.get(*name).cloned().unwrap_or_default(),
        });
    }
    // Orders: a sidecar comes after what it waits for (prerequisites come later in the
    // reverse walk, so a fixpoint over the list settles in as many rounds as sidecars).
    for _ in 0..=kills.len() {
        let orders: BTreeMap<String, u32> = kills
            .iter()
            .map(|k| (k.container.clone(), k.order))
            .collect();
        let mut changed = false;
        for k in &mut kills {
            let o = k
                .wait_for
                .iter()
                .filter_map(|w| orders.get(w))
                .map(|o| o + 1)
                .max()
                .unwrap_or(0);
            if o != k.order {
                k.order = o;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let position = |k: &ContainerKill| -> (u32, u8, usize) {
        let spec = pod.spec.as_ref();
        let pos = |list: Option<Vec<&str>>| {
            list.and_then(|l| l.iter().position(|n| *n == k.container))
                .unwrap_or(usize::MAX)
        };
        let inits = spec.map(|s| {
            s.init_containers
                .iter()
                .flatten()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
        });
        match k.kind {
            KillKind::Regular => (
                k.order,
                0,
                pos(spec.map(|s| s.containers.iter().map(|c| c.name.as_str()).collect())),
            ),
            KillKind::Init => (k.order, 1, pos(inits)),
            KillKind::Ephemeral => (
                k.order,
                2,
                pos(spec.map(|s| {
                    s.ephemeral_containers
                        .iter()
                        .flatten()
                        .map(|c| c.name.as_str())
                        .collect()
                })),
            ),
            KillKind::Sidecar => (k.order, 3, usize::MAX - pos(inits)),
        }
    };
    kills.sort_by_key(position);
    kills
}

/// When one kill's parts happen, in milliseconds from the start of the pod kill.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct KillTiming {
    /// How long the preStop hook ran (cut at the grace period).
    pub hook_millis: u64,
    /// How long the kill waited for its turn (`waitForTurn`), after the hook.
    pub waited_millis: u64,
    /// The grace period `StopContainer` gets.
    pub stop_grace_period_seconds: i64,
    /// When `StopContainer` is sent.
    pub stop_at_millis: u64,
    /// When the container has exited (at the latest when its stop grace period ends:
    /// SIGKILL).
    pub exited_at_millis: u64,
}

fn secs(millis: u64) -> i64 {
    i64::try_from(millis / 1000).unwrap_or(i64::MAX)
}

fn millis(seconds: i64) -> u64 {
    u64::try_from(seconds.max(0))
        .unwrap_or(0)
        .saturating_mul(1000)
}

/// The kills of a `KillPod` carried out as the kubelet does, all at once: each runs its
/// preStop hook (`hook_millis`, cut at its grace period), waits for the containers of
/// `waitFor` to exit (cut at what is left), then sends `StopContainer` with what is left
/// (at least 2 s); the container exits `exit_millis` after the stop (cut at that grace:
/// SIGKILL). Whole seconds are subtracted, as the kubelet truncates. Answers one timing
/// per kill, in the kills' order.
#[must_use]
pub(crate) fn kill_timeline(
    kills: &[ContainerKill],
    hook_millis: &BTreeMap<String, u64>,
    exit_millis: &BTreeMap<String, u64>,
) -> Vec<KillTiming> {
    let mut exited: BTreeMap<&str, u64> = BTreeMap::new();
    let mut out: Vec<Option<KillTiming>> = vec![None; kills.len()];
    let mut order: Vec<usize> = (0..kills.len()).collect();
    order.sort_by_key(|i| kills.get(*i).map_or(0, |k| k.order));
    for i in order {
        let Some(k) = kills.get(i) else { continue };
        let grace = k.grace_period_seconds;
        let hook = if k.pre_stop.is_some() && grace > 0 {
            hook_millis
                .get(&k.container)
                .copied()
                .unwrap_or(0)
                .min(millis(grace))
        } else {
            0
        };
        let after_hook = grace - secs(hook);
        let waited = if after_hook > 0 && !k.wait_for.is_empty() {
            let turn = k
                .wait_for
                .iter()
                .filter_map(|w| exited.get(w.as_str()))
                .copied()
                .max()
                .unwrap_or(0);
            turn.saturating_sub(hook).min(millis(after_hook))
        } else {
            0
        };
        let left = if after_hook > 0 {
            after_hook - secs(waited)
        } else {
            after_hook
        };
        let stop_grace = left.max(hooks::MINIMUM_GRACE_PERIOD_SECONDS);
        let stop_at = hook + waited;
        let exit = exit_millis
            .get(&k.container)
            .copied()
            .unwrap_or(0)
            .min(millis(stop_grace));
        let timing = KillTiming {
            hook_millis: hook,
            waited_millis: waited,
            stop_grace_period_seconds: stop_grace,
            stop_at_millis: stop_at,
            exited_at_millis: stop_at + exit,
        };
        exited.insert(k.container.as_str(), timing.exited_at_millis);
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(timing);
        }
    }
    out.into_iter().flatten().collect()
}

/// The `KillPod` step of a pod: every running container's kill (in order) and every
/// sandbox's stop. `override_seconds`: the terminating pod's grace period.
pub(crate) fn kill_pod_step(ctx: &Ctx<'_>, override_seconds: Option<i64>) -> KillPodStep {
    let running: Vec<(&str, &str)> = ctx
        .status
        .containers()
        .iter()
        .filter(|s| s.state == ContainerState::Running)
        .map(|s| (s.name.as_str(), s.id.as_str()))
        .collect();
    let pod_ip = ctx
        .request
        .runtime_status
        .as_ref()
        .and_then(|s| s.ips.first())
        .map(String::as_str);
    let kills = pod_kills(ctx.pod, &running, override_seconds, pod_ip);
    KillPodStep {
        sandbox_id: ctx.status.sandboxes().first().map(|s| s.id.clone()),
        sandbox_ids: ctx
            .status
            .sandboxes()
            .iter()
            .map(|s| s.id.clone())
            .collect(),
        containers: running.iter().map(|(n, _)| (*n).to_string()).collect(),
        pre_stops: kills.iter().filter_map(|k| k.pre_stop.clone()).collect(),
        kills,
        ..KillPodStep::default()
    }
}

/// The kill request's status function (`PodStatusFunc`): an eviction makes the pod
/// `Failed` with reason `Evicted`, the message and a `DisruptionTarget` condition.
fn apply_kill_status(status: &mut PodStatus, kill: &KillPodOptions, now: Option<jiff::Timestamp>) {
    if !kill.evict && kill.reason.is_none() && kill.message.is_none() {
        return;
    }
    let message = kill.message.clone().unwrap_or_default();
    if kill.evict {
        status.phase = Some("Failed".into());
        status.reason = Some(
            kill.reason
                .clone()
                .unwrap_or_else(|| EVICTED_REASON.to_string()),
        );
        status.message = Some(message.clone());
        let conditions = status.conditions.get_or_insert_with(Vec::new);
        let existing = conditions
            .iter()
            .position(|c| c.type_ == "DisruptionTarget");
        let keep_time = existing
            .and_then(|i| conditions.get(i))
            .filter(|c| c.status == "True")
            .and_then(|c| c.last_transition_time.clone());
        let condition = PodCondition {
            type_: "DisruptionTarget".into(),
            status: "True".into(),
            reason: Some(TERMINATION_BY_KUBELET.into()),
            message: Some(message),
            last_transition_time: keep_time.or_else(|| now.map(Time)),
            ..PodCondition::default()
        };
        match existing.and_then(|i| conditions.get_mut(i)) {
            Some(c) => *c = condition,
            None => conditions.push(condition),
        }
    } else {
        if let Some(r) = &kill.reason {
            status.reason = Some(r.clone());
        }
        if kill.message.is_some() {
            status.message = Some(message);
        }
    }
}

fn note(plan: &mut Plan, action: Action, reason: &'static str, message: String) {
    plan.decisions.push(Decision {
        action,
        reason: reason.into(),
        message,
        ..Decision::default()
    });
}

/// The status part of a phase's plan: `generateAPIPodStatus` (with `pod_is_terminal`),
/// the kill's status function, the kubectl row.
fn attach_status(request: &PlanRequest, gates: &FeatureGates, plan: &mut Plan, terminal: bool) {
    let kill = request.pod_worker.as_ref().and_then(|s| s.kill.as_ref());
    crate::status::attach_with(request, gates, plan, terminal, |status| {
        if let Some(kill) = kill {
            apply_kill_status(status, kill, request.now);
        }
    });
}

/// `SyncTerminatingPod`: the pod's status, then `killPod` with the effective grace
/// period: every running container stopped in the termination order, then every sandbox.
/// Nothing is started.
pub(crate) fn plan_terminating(
    request: &PlanRequest,
    gates: &FeatureGates,
    cause: TerminationCause,
) -> Plan {
    let mut plan = Plan {
        worker_phase: WorkerPhase::Terminating,
        backoff: request.backoff.clone(),
        image_backoff: request.image_backoff.clone(),
        reason_cache: request.reason_cache.clone(),
        ..Plan::default()
    };
    let Some(ctx) = Ctx::new(request, gates) else {
        return plan;
    };
    let state = request.pod_worker.as_ref();
    let grace = effective_grace_period(
        ctx.pod,
        state.map_or(0, |s| s.grace_period_seconds),
        state
            .and_then(|s| s.kill.as_ref())
            .and_then(|k| k.grace_period_seconds_override),
    );
    let mut step = kill_pod_step(&ctx, Some(grace));
    step.grace_period_seconds = Some(grace);
    step.reason = Some(cause.reason().into());
    step.message = Some(format!(
        "SyncTerminatingPod: stop {} running container(s) with a grace period of {grace}s (regular first, sidecars in reverse order), then every sandbox: {}",
        step.containers.len(),
        cause.words()
    ));
    plan.actions.kill_pod = true;
    plan.actions.sandbox_id = ctx
        .status
        .sandboxes()
        .first()
        .map(|s| s.id.clone())
        .unwrap_or_default();
    for k in &step.kills {
        plan.events.push(events::killing(&k.container, ""));
    }
    note(
        &mut plan,
        Action::KillPod,
        cause.reason(),
        format!(
            "{}: the pod worker terminates the pod (SyncTerminatingPod) with a grace period of {grace}s; nothing is started",
            cause.words()
        ),
    );
    if let Some(d) = plan.decisions.last_mut() {
        d.step = Some(0);
    }
    plan.steps.push(Step::KillPod(step));
    attach_status(request, gates, &mut plan, false);
    plan
}

/// `SyncTerminatedPod` and the cleanup after it: the pod's final status, its cgroup
/// destroyed; then, when the pod's content is to go (evicted, or deleted/removed and
/// terminated: `ShouldPodContentBeRemoved`), its containers and sandboxes removed
/// (`containerGC`), its log directory (`containerGC`) and pod directory
/// (`HandlePodCleanups`, once the pod is gone from the API) deleted.
pub(crate) fn plan_terminated(
    request: &PlanRequest,
    gates: &FeatureGates,
    cause: TerminationCause,
) -> Plan {
    let mut plan = Plan {
        worker_phase: WorkerPhase::Terminated,
        backoff: request.backoff.clone(),
        image_backoff: request.image_backoff.clone(),
        reason_cache: request.reason_cache.clone(),
        ..Plan::default()
    };
    let node = request.node.clone().unwrap_or_default();
    let pod = &request.pod;
    plan.steps.push(Step::CleanupPod(CleanupPodStep {
        paths: vec![CleanupPath {
            purpose: "podCgroup".into(),
            path: crate::config::sandbox::cgroup_parent(pod, &node, gates),
            by: "SyncTerminatedPod".into(),
        }],
        reason: Some(cause.reason().into()),
        message: Some(
            "SyncTerminatedPod: the volumes are unmounted, then the pod's cgroup is destroyed"
                .into(),
        ),
    }));
    let deleted = matches!(cause, TerminationCause::Deleted | TerminationCause::Removed);
    let content_goes = deleted || cause == TerminationCause::Evicted;
    let status = request.runtime_status.clone().unwrap_or_default();
    if content_goes {
        for c in &status.container_statuses {
            plan.steps.push(Step::RemoveContainer(RemoveContainerStep {
                container: Some(c.name.clone()),
                container_id: Some(c.id.clone()),
                reason: Some("GarbageCollect".into()),
                message: Some(
                    "containerGC removes every container of a pod whose content is to be removed"
                        .into(),
                ),
            }));
        }
        for sb in &status.sandbox_statuses {
            plan.steps
                .push(Step::RemovePodSandbox(RemovePodSandboxStep {
                    sandbox_id: Some(sb.id.clone()),
                    reason: Some("GarbageCollect".into()),
                    message: Some(
                        "containerGC removes the pod's sandboxes once they hold no container"
                            .into(),
                    ),
                }));
        }
        let mut paths = vec![CleanupPath {
            purpose: "podLogs".into(),
            path: crate::config::sandbox::pod_logs_directory(pod, &node),
            by: "containerGC".into(),
        }];
        if deleted {
            paths.push(CleanupPath {
                purpose: "podDir".into(),
                path: crate::config::mounts::pod_dir(pod, &node),
                by: "HandlePodCleanups".into(),
            });
        }
        plan.steps.push(Step::CleanupPod(CleanupPodStep {
            paths,
            reason: Some("GarbageCollect".into()),
            message: Some(
                "the pod's log directory and, once the pod is gone from the API, its directory"
                    .into(),
            ),
        }));
    }
    let kept = if content_goes {
        "its containers, sandboxes, logs and directories are removed".to_string()
    } else {
        "its containers and sandbox are kept (their logs stay readable) until the pod is deleted"
            .to_string()
    };
    note(
        &mut plan,
        Action::KillPod,
        cause.reason(),
        format!(
            "{}: nothing runs any more; the pod worker finishes it (SyncTerminatedPod): {kept}",
            cause.words()
        ),
    );
    if let Some(d) = plan.decisions.last_mut() {
        d.effect = crate::plan::Effect::Noop;
    }
    attach_status(request, gates, &mut plan, true);
    plan
}

/// The plan of a pod the worker does not start (`allowPodStart`): nothing is done; the
/// kubelet reports no status for it.
pub(crate) fn plan_not_started(request: &PlanRequest, phase: WorkerPhase) -> Plan {
    let mut plan = Plan {
        worker_phase: phase,
        backoff: request.backoff.clone(),
        image_backoff: request.image_backoff.clone(),
        reason_cache: request.reason_cache.clone(),
        ..Plan::default()
    };
    let (reason, message) = if phase == WorkerPhase::NeverStarts {
        (
            "PodNeverStarts",
            "the pod worker will never start this static pod: its termination was requested before it started (allowPodStart)".to_string(),
        )
    } else {
        (
            "StaticPodWaiting",
            "another static pod of the same full name has started or is still terminating, or is ahead in the queue: this one waits (allowStaticPodStart)".to_string(),
        )
    };
    note(&mut plan, Action::Wait, reason, message);
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pod(v: serde_json::Value) -> Pod {
        serde_json::from_value(v).unwrap()
    }

    /// The payload of a `KillPod` step.
    fn kill_pod(step: &Step) -> &KillPodStep {
        match step {
            Step::KillPod(k) => k,
            other => panic!("not a KillPod step: {other:?}"),
        }
    }

    /// The paths of a plan's `CleanupPod` steps, in order.
    fn cleanup_paths(plan: &Plan) -> Vec<&CleanupPath> {
        plan.steps
            .iter()
            .flat_map(|s| match s {
                Step::CleanupPod(c) => c.paths.iter().collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    #[test]
    fn grace_shrinks_and_never_drops_below_one() {
        let p = pod(json!({"spec": {"containers": [], "terminationGracePeriodSeconds": 30}}));
        assert_eq!(effective_grace_period(&p, 0, None), 30);
        assert_eq!(effective_grace_period(&p, 0, Some(0)), 1);
        assert_eq!(effective_grace_period(&p, 10, Some(20)), 10);
        assert_eq!(effective_grace_period(&p, 10, Some(5)), 5);
    }

    #[test]
    fn sidecars_wait_for_mains_and_the_next_running_sidecar() {
        let p = pod(json!({"spec": {
            "initContainers": [
                {"name": "s1", "restartPolicy": "Always"},
                {"name": "i"},
                {"name": "s2", "restartPolicy": "Always"},
                {"name": "s3", "restartPolicy": "Always"}],
            "containers": [{"name": "a"}, {"name": "b"}],
            "terminationGracePeriodSeconds": 30}}));
        let running = [
            ("s1", "c://1"),
            ("s3", "c://3"),
            ("b", "c://b"),
            ("a", "c://a"),
        ];
        let kills = pod_kills(&p, &running, None, None);
        let names: Vec<(&str, u32)> = kills
            .iter()
            .map(|k| (k.container.as_str(), k.order))
            .collect();
        // s2 does not run: s1 waits for it (already stopped) and the mains only.
        assert_eq!(names, vec![("a", 0), ("b", 0), ("s3", 1), ("s1", 1)]);
        let s1 = kills.iter().find(|k| k.container == "s1").unwrap();
        assert_eq!(s1.wait_for, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(s1.kind, KillKind::Sidecar);
    }

    fn sim_pod() -> crate::sim::Simulation {
        let request = crate::api::parse_request(
            br#"{"pod": {"metadata": {"name": "web", "namespace": "default", "uid": "u1",
                 "creationTimestamp": "2025-01-01T00:00:00Z"},
                 "spec": {"terminationGracePeriodSeconds": 30,
                   "initContainers": [{"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                     "lifecycle": {"preStop": {"sleep": {"seconds": 3}}}}],
                   "containers": [{"name": "app", "image": "nginx"}]}},
                "apiDefaults": true}"#,
        )
        .unwrap();
        let start: jiff::Timestamp = "2025-01-01T00:00:00Z".parse().unwrap();
        let mut sim = crate::sim::Simulation::new(request, start);
        sim.run_until_stable(6).unwrap();
        assert!(sim.all_running());
        sim
    }

    fn ops(plan: &Plan) -> Vec<String> {
        plan.steps.iter().map(|s| s.op().to_string()).collect()
    }

    /// The exit code and reason of the newest instance of `name`.
    fn exit_of(sim: &crate::sim::Simulation, name: &str) -> (i32, String) {
        sim.request
            .runtime_status
            .as_ref()
            .and_then(|s| s.container_statuses.iter().find(|c| c.name == name))
            .map(|c| (c.exit_code, c.reason.clone()))
            .unwrap_or_default()
    }

    #[test]
    fn a_container_that_exits_on_sigterm_reports_143_one_killed_after_the_grace_137() {
        // Grace 5 s: app exits on SIGTERM at once (143); proxy takes 60 s, so the runtime
        // kills it when its stop grace period ends (137). Both reason Error.
        let mut sim = sim_pod();
        assert_eq!(
            sim.event(&crate::sim::Event::StopTakes {
                container: "proxy".into(),
                seconds: 60
            }),
            None
        );
        assert_eq!(
            sim.event(&crate::sim::Event::Delete {
                grace_period_seconds: Some(5)
            }),
            None
        );
        let plan = sim.sync().unwrap();
        assert_eq!(ops(&plan), vec!["KillPod"]);
        assert_eq!(exit_of(&sim, "app"), (143, "Error".to_string()));
        assert_eq!(exit_of(&sim, "proxy"), (137, "Error".to_string()));
        // The API status reports them as the kubelet converts them: terminated, the
        // runtime's exit code and reason.
        let plan = sim.sync().unwrap();
        let terminated = |name: &str| {
            plan.status
                .as_ref()
                .into_iter()
                .flat_map(|s| {
                    s.container_statuses
                        .iter()
                        .flatten()
                        .chain(s.init_container_statuses.iter().flatten())
                })
                .find(|c| c.name == name)
                .and_then(|c| c.state.as_ref())
                .and_then(|s| s.terminated.as_ref())
                .map(|t| (t.exit_code, t.reason.clone().unwrap_or_default()))
        };
        assert_eq!(terminated("app"), Some((143, "Error".to_string())));
        assert_eq!(terminated("proxy"), Some((137, "Error".to_string())));
    }

    #[test]
    fn a_deleted_pod_stops_in_order_on_the_clock_then_is_cleaned_up() {
        let mut sim = sim_pod();
        let deleted_at = sim.now;
        assert_eq!(
            sim.event(&crate::sim::Event::StopTakes {
                container: "app".into(),
                seconds: 10
            }),
            None
        );
        assert_eq!(
            sim.event(&crate::sim::Event::Delete {
                grace_period_seconds: None
            }),
            None
        );
        sim.prepare();
        let plan = sim.plan().unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Terminating);
        assert_eq!(ops(&plan), vec!["KillPod"]);
        let kill = kill_pod(&plan.steps[0]);
        let order: Vec<(&str, KillKind, u32, i64)> = kill
            .kills
            .iter()
            .map(|k| {
                (
                    k.container.as_str(),
                    k.kind,
                    k.order,
                    k.grace_period_seconds,
                )
            })
            .collect();
        assert_eq!(
            order,
            vec![
                ("app", KillKind::Regular, 0, 30),
                ("proxy", KillKind::Sidecar, 1, 30)
            ]
        );
        assert_eq!(kill.grace_period_seconds, Some(30));
        assert_eq!(kill.pre_stops.len(), 1);
        assert_eq!(
            plan.kubectl.as_ref().map(|r| r.status.as_str()),
            Some("Terminating")
        );
        assert!(plan.actions.containers_to_start.is_empty() && plan.actions.kill_pod);
        sim.carry_out(&plan);
        // app takes 10 s to exit; the sidecar's preStop (3 s) runs meanwhile, then it waits
        // for app and stops with 30 - 3 - 7 = 20 s left: the sync ends 10 s later.
        let hook = &sim.request.hook_results[0];
        assert_eq!(hook.stop_grace_period_seconds, Some(20));
        assert_eq!(
            sim.now.as_second() - deleted_at.as_second(),
            sim.tick_seconds + 10
        );
        let finished = |name: &str| {
            sim.request
                .runtime_status
                .as_ref()
                .unwrap()
                .container_statuses
                .iter()
                .find(|c| c.name == name)
                .and_then(|c| c.finished_at)
                .unwrap()
        };
        assert_eq!(finished("app").as_second() - deleted_at.as_second(), 10);
        assert_eq!(finished("proxy"), finished("app"));
        // Nothing runs: SyncTerminatedPod and the garbage collection of a deleted pod.
        let plan = sim.sync().unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Terminated);
        assert_eq!(
            ops(&plan),
            vec![
                "CleanupPod",
                "RemoveContainer",
                "RemoveContainer",
                "RemovePodSandbox",
                "CleanupPod"
            ]
        );
        let paths = cleanup_paths(&plan);
        let purposes: Vec<&str> = paths.iter().map(|p| p.purpose.as_str()).collect();
        assert_eq!(purposes, vec!["podCgroup", "podLogs", "podDir"]);
        assert_eq!(paths[0].path, "/kubepods/besteffort/podu1");
        let status = sim.request.runtime_status.as_ref().unwrap();
        assert!(status.container_statuses.is_empty() && status.sandbox_statuses.is_empty());
    }

    #[test]
    fn an_evicted_pod_fails_with_reason_evicted_and_keeps_its_directory() {
        let mut sim = sim_pod();
        assert_eq!(
            sim.event(&crate::sim::Event::Evict {
                message: None,
                grace_period_seconds: None
            }),
            None
        );
        let plan = sim.sync().unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Terminating);
        let status = plan.status.as_ref().unwrap();
        assert_eq!(status.phase.as_deref(), Some("Failed"));
        assert_eq!(status.reason.as_deref(), Some("Evicted"));
        assert_eq!(
            status.message.as_deref(),
            Some("The node was low on resource: memory. ")
        );
        assert!(status
            .conditions
            .iter()
            .flatten()
            .any(|c| c.type_ == "DisruptionTarget"
                && c.reason.as_deref() == Some(TERMINATION_BY_KUBELET)));
        assert_eq!(
            plan.kubectl.as_ref().map(|r| r.status.as_str()),
            Some("Evicted")
        );
        // Hard eviction: 1 s; the sidecar's preStop gets 1 s, StopContainer the 2 s floor.
        let kills = &kill_pod(&plan.steps[0]).kills;
        assert!(kills
            .iter()
            .all(|k| k.grace_period_seconds == 1 && k.stop_grace_period_seconds == 2));
        let plan = sim.sync().unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Terminated);
        let purposes: Vec<&str> = cleanup_paths(&plan)
            .iter()
            .map(|p| p.purpose.as_str())
            .collect();
        assert_eq!(purposes, vec!["podCgroup", "podLogs"]);
        assert_eq!(
            plan.status.as_ref().and_then(|s| s.reason.as_deref()),
            Some("Evicted")
        );
    }

    #[test]
    fn an_oom_killed_container_reports_oomkilled_and_is_restarted() {
        let mut sim = sim_pod();
        assert_eq!(
            sim.event(&crate::sim::Event::OomKill {
                container: "app".into()
            }),
            None
        );
        let plan = sim.sync().unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Syncing);
        let app = plan
            .status
            .as_ref()
            .unwrap()
            .container_statuses
            .iter()
            .flatten()
            .find(|c| c.name == "app")
            .unwrap();
        let t = app
            .state
            .as_ref()
            .and_then(|s| s.terminated.as_ref())
            .unwrap();
        assert_eq!((t.exit_code, t.reason.as_deref()), (137, Some("OOMKilled")));
        assert!(ops(&plan).contains(&"StartContainer".to_string()));
    }

    #[test]
    fn a_static_pod_waits_for_its_previous_incarnation() {
        let mut request = crate::api::parse_request(
            br#"{"pod": {"metadata": {"name": "etcd", "namespace": "kube-system", "uid": "new",
                 "annotations": {"kubernetes.io/config.source": "file"}},
                 "spec": {"containers": [{"name": "etcd", "image": "etcd"}]}},
                 "podWorker": {"pods": {"new": {"fullname": "etcd_kube-system"},
                                        "old": {"fullname": "etcd_kube-system", "terminationRequested": true}},
                               "startedStaticPods": {"etcd_kube-system": "old"}}}"#,
        )
        .unwrap();
        let plan = crate::plan(&request).unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Waiting);
        assert!(plan.steps.is_empty() && plan.status.is_none());
        assert_eq!(plan.decisions[0].reason, "StaticPodWaiting");
        // The old one finished terminating: the new one starts.
        if let Some(w) = request.pod_worker.as_mut() {
            w.started_static_pods.clear();
        }
        let plan = crate::plan(&request).unwrap();
        assert_eq!(plan.worker_phase, WorkerPhase::Syncing);
        assert!(ops(&plan).contains(&"RunPodSandbox".to_string()));
    }
}
