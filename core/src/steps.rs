//! The CRI operations of a plan in `SyncPod` order (1.37), with the events they record and
//! the crash-loop back-off applied at execution time.
//!
//! Order: `KillPod` (or `KillContainer` for each `containersToKill` entry, sorted by id
//! because Go's map order is random, then the RestartAllContainers kills/removals in list
//! order), init-container purge/prune (`RemoveContainer`), `RunPodSandbox`, in-place
//! resize (`UpdatePodSandboxResources`, `UpdateContainerResources`, decreases first), then
//! `CreateContainer` + `StartContainer` for ephemeral, init and regular containers.
//!
//! A start is skipped when crash-loop back-off holds it back (see [`crate::backoff`];
//! only with `request.now`) or when the config generator reported an error for that
//! container. Either aborts the remaining starts when it hits a classic init container,
//! as `SyncPod` does; sidecar and regular failures only skip that container.

use std::collections::BTreeSet;
use std::fmt;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceRequirements};
use serde::{Deserialize, Serialize};

use crate::backoff::{backoff_key, Backoff, BackoffPolicy, HeldBack};
use crate::decision::restart::is_restartable_init;
use crate::decision::{note, Ctx};
use crate::events::{self, Event};
use crate::features::{FeatureGates, Gate};
use crate::plan::{KillReason, Plan};
use crate::request::PlanRequest;
use crate::runtime::ContainerState;

/// Which list of the pod spec a container comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContainerKind {
    /// `spec.initContainers`.
    Init,
    /// `spec.containers`.
    Regular,
    /// `spec.ephemeralContainers`.
    Ephemeral,
}

impl ContainerKind {
    /// The contract's name (`init`, `regular`, `ephemeral`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Init => "init",
            Self::Regular => "regular",
            Self::Ephemeral => "ephemeral",
        }
    }

    /// The kubelet's words for this kind ("init container", ...).
    #[must_use]
    pub fn noun(self) -> &'static str {
        match self {
            Self::Init => "init container",
            Self::Regular => "container",
            Self::Ephemeral => "ephemeral container",
        }
    }
}

/// A CRI operation (plus the pod-level kill, which stops containers then sandboxes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum StepOp {
    /// Stop every running container, then every sandbox.
    #[default]
    KillPod,
    /// `StopContainer`.
    KillContainer,
    /// `RemoveContainer`.
    RemoveContainer,
    /// `RunPodSandbox`.
    RunPodSandbox,
    /// `UpdatePodSandboxResources` + the pod cgroup.
    UpdatePodSandboxResources,
    /// `UpdateContainerResources`.
    UpdateContainerResources,
    /// `CreateContainer`.
    CreateContainer,
    /// `StartContainer`.
    StartContainer,
}

impl StepOp {
    /// The op's name as serialised.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::KillPod => "KillPod",
            Self::KillContainer => "KillContainer",
            Self::RemoveContainer => "RemoveContainer",
            Self::RunPodSandbox => "RunPodSandbox",
            Self::UpdatePodSandboxResources => "UpdatePodSandboxResources",
            Self::UpdateContainerResources => "UpdateContainerResources",
            Self::CreateContainer => "CreateContainer",
            Self::StartContainer => "StartContainer",
        }
    }
}

impl fmt::Display for StepOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for StepOp {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// One CRI operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    /// The operation.
    pub op: StepOp,
    /// The container concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Which spec list the container is in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ContainerKind>,
    /// Index in that list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Runtime container id (kills, removals, updates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// Sandbox id (`KillPod`: the current sandbox; starts: the sandbox they go into, empty
    /// when it is the one created by this plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_id: Option<String>,
    /// `RunPodSandbox`: the sandbox attempt; `CreateContainer`: the restart count
    /// (`ContainerMetadata.attempt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    /// Resource updated (`cpu` or `memory`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource: Option<String>,
    /// Kill grace period in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    /// `KillPod`: the running containers it stops.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub containers: Vec<String>,
    /// Machine-readable reason (kill reason, removal cause).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Human message (the kill message the kubelet records).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// Execution-time options that do not come from the request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildOptions {
    /// The kubelet's `crashLoopBackOff.maxContainerRestartPeriod`, seconds (gate
    /// KubeletCrashLoopBackOffMax).
    pub max_container_restart_period_seconds: Option<u64>,
}

/// Fills `plan.steps`, `plan.events`, `plan.heldBack` and `plan.backoff` from the decided
/// actions.
pub fn build(request: &PlanRequest, gates: &FeatureGates, plan: &mut Plan) {
    build_with(request, gates, plan, BuildOptions::default());
}

/// [`build`] with explicit options.
pub fn build_with(
    request: &PlanRequest,
    gates: &FeatureGates,
    plan: &mut Plan,
    options: BuildOptions,
) {
    let Some(ctx) = Ctx::new(request, gates) else {
        return;
    };
    let mut b = Builder {
        ctx,
        steps: Vec::new(),
        events: Vec::new(),
        held_back: Vec::new(),
        notes: Vec::new(),
        backoff: request.now.map(|now| {
            Backoff::new(
                BackoffPolicy::from_gates(gates, options.max_container_restart_period_seconds),
                now,
                &request.backoff,
            )
        }),
    };
    b.kills(plan);
    b.prune_init_containers(plan);
    b.sandbox(plan);
    b.resize(plan);
    b.starts(plan);
    plan.steps = b.steps;
    plan.events = b.events;
    plan.held_back = b.held_back;
    for (action, container, reason, message) in b.notes {
        note(plan, action, Some(&container), reason, message);
    }
    plan.backoff = match b.backoff {
        Some(table) => table.into_records(),
        None => request.backoff.clone(),
    };
}

/// `format.Pod`: `name_namespace(uid)`.
#[must_use]
pub fn format_pod(pod: &Pod) -> String {
    let m = &pod.metadata;
    format!(
        "{}_{}({})",
        m.name.as_deref().unwrap_or(""),
        m.namespace.as_deref().unwrap_or(""),
        m.uid.as_deref().unwrap_or("")
    )
}

/// The kubelet's minimal shutdown window.
pub const MINIMUM_GRACE_PERIOD_SECONDS: i64 = 2;

/// `setTerminationGracePeriod` plus the override and the 2 s floor of `killContainer`.
#[must_use]
pub fn grace_period(
    pod: &Pod,
    container: Option<&Container>,
    reason: KillReason,
    override_seconds: Option<i64>,
) -> i64 {
    let spec_grace = pod
        .spec
        .as_ref()
        .and_then(|s| s.termination_grace_period_seconds);
    let mut grace = if let Some(d) = pod.metadata.deletion_grace_period_seconds {
        d
    } else if let Some(t) = spec_grace {
        let probe = match reason {
            KillReason::StartupProbe => container.and_then(|c| c.startup_probe.as_ref()),
            KillReason::LivenessProbe => container.and_then(|c| c.liveness_probe.as_ref()),
            _ => None,
        };
        probe
            .and_then(|p| p.termination_grace_period_seconds)
            .unwrap_or(t)
    } else {
        MINIMUM_GRACE_PERIOD_SECONDS
    };
    if let Some(o) = override_seconds {
        grace = o;
    }
    grace.max(MINIMUM_GRACE_PERIOD_SECONDS)
}

struct SpecRef<'a> {
    name: &'a str,
    image: &'a str,
    resources: Option<&'a ResourceRequirements>,
    sidecar: bool,
}

struct Builder<'a> {
    ctx: Ctx<'a>,
    steps: Vec<Step>,
    events: Vec<Event>,
    held_back: Vec<HeldBack>,
    notes: Vec<(&'static str, String, &'static str, String)>,
    backoff: Option<Backoff>,
}

impl<'a> Builder<'a> {
    fn container_spec(&self, name: &str) -> Option<&'a Container> {
        let spec = self.ctx.spec;
        spec.init_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .chain(spec.containers.iter())
            .find(|c| c.name == name)
    }

    fn spec_ref(&self, kind: ContainerKind, idx: usize) -> Option<SpecRef<'a>> {
        let spec = self.ctx.spec;
        match kind {
            ContainerKind::Init => spec
                .init_containers
                .as_deref()
                .unwrap_or_default()
                .get(idx)
                .map(|c| SpecRef {
                    name: &c.name,
                    image: c.image.as_deref().unwrap_or(""),
                    resources: c.resources.as_ref(),
                    sidecar: is_restartable_init(c),
                }),
            ContainerKind::Regular => spec.containers.get(idx).map(|c| SpecRef {
                name: &c.name,
                image: c.image.as_deref().unwrap_or(""),
                resources: c.resources.as_ref(),
                sidecar: false,
            }),
            ContainerKind::Ephemeral => spec
                .ephemeral_containers
                .as_deref()
                .unwrap_or_default()
                .get(idx)
                .map(|c| SpecRef {
                    name: &c.name,
                    image: c.image.as_deref().unwrap_or(""),
                    resources: c.resources.as_ref(),
                    sidecar: false,
                }),
        }
    }

    fn kills(&mut self, plan: &Plan) {
        let a = &plan.actions;
        if a.create_sandbox && !a.sandbox_id.is_empty() {
            self.events.push(events::sandbox_changed());
        }
        if a.kill_pod {
            let running: Vec<_> = self
                .ctx
                .status
                .containers()
                .iter()
                .filter(|s| s.state == ContainerState::Running)
                .collect();
            let why = if a.create_sandbox {
                "the sandbox is re-created"
            } else {
                "no container is left to run"
            };
            self.steps.push(Step {
                op: StepOp::KillPod,
                sandbox_id: self.ctx.status.sandboxes().first().map(|s| s.id.clone()),
                containers: running.iter().map(|s| s.name.clone()).collect(),
                reason: Some(if a.create_sandbox { "SandboxChanged" } else { "PodDone" }.into()),
                message: Some(format!(
                    "stop {} running container(s) (regular first, sidecars in reverse order) and every sandbox: {why}",
                    running.len()
                )),
                ..Step::default()
            });
            for s in running {
                self.events.push(events::killing(&s.name, ""));
            }
            if a.create_sandbox {
                self.purge_init_containers();
            }
            return;
        }
        for (id, info) in &a.containers_to_kill {
            let spec = self.container_spec(&info.name);
            self.steps.push(Step {
                op: StepOp::KillContainer,
                container: Some(info.name.clone()),
                container_id: Some(id.clone()),
                grace_period_seconds: Some(grace_period(self.ctx.pod, spec, info.reason, None)),
                reason: Some(kill_reason_str(info.reason).into()),
                message: Some(info.message.clone()),
                ..Step::default()
            });
            self.events.push(events::killing(&info.name, &info.message));
        }
        if self
            .ctx
            .gates
            .enabled(Gate::RestartAllContainersOnContainerExits)
        {
            for r in &a.containers_to_reset {
                let spec = self.container_spec(&r.name);
                if r.kill {
                    self.steps.push(Step {
                        op: StepOp::KillContainer,
                        container: Some(r.name.clone()),
                        container_id: Some(r.container_id.clone()),
                        grace_period_seconds: Some(grace_period(
                            self.ctx.pod,
                            spec,
                            KillReason::RestartAllContainers,
                            Some(0),
                        )),
                        reason: Some("RestartAllContainers".into()),
                        message: Some("killing".into()),
                        ..Step::default()
                    });
                    self.events.push(events::killing(&r.name, "killing"));
                }
                self.steps.push(Step {
                    op: StepOp::RemoveContainer,
                    container: Some(r.name.clone()),
                    container_id: Some(r.container_id.clone()),
                    reason: Some("RestartAllContainers".into()),
                    message: Some("removed before the pod restarts; its logs are kept".into()),
                    ..Step::default()
                });
            }
        }
    }

    fn init_names(&self) -> Vec<&'a str> {
        self.ctx
            .spec
            .init_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|c| c.name.as_str())
            .collect()
    }

    /// `purgeInitContainers`: a new sandbox starts initialisation from scratch.
    fn purge_init_containers(&mut self) {
        for name in self.init_names() {
            for s in self.ctx.status.all_named(name) {
                self.steps.push(Step {
                    op: StepOp::RemoveContainer,
                    container: Some(name.to_string()),
                    container_id: Some(s.id.clone()),
                    reason: Some("PurgeInitContainers".into()),
                    message: Some(
                        "init containers are purged when the sandbox is re-created".into(),
                    ),
                    ..Step::default()
                });
            }
        }
    }

    /// `pruneInitContainersBeforeStart`: keep only the newest exited/unknown instance of
    /// each init container.
    fn prune_init_containers(&mut self, _plan: &Plan) {
        let removed: BTreeSet<String> = self
            .steps
            .iter()
            .filter(|s| s.op == StepOp::RemoveContainer)
            .filter_map(|s| s.container_id.clone())
            .collect();
        for name in self.init_names() {
            let dead =
                self.ctx.status.all_named(name).filter(|s| {
                    matches!(s.state, ContainerState::Exited | ContainerState::Unknown)
                });
            for s in dead.skip(1) {
                if removed.contains(&s.id) {
                    continue;
                }
                self.steps.push(Step {
                    op: StepOp::RemoveContainer,
                    container: Some(name.to_string()),
                    container_id: Some(s.id.clone()),
                    reason: Some("PruneInitContainers".into()),
                    message: Some(
                        "only the newest terminated instance of an init container is kept".into(),
                    ),
                    ..Step::default()
                });
            }
        }
    }

    fn sandbox(&mut self, plan: &Plan) {
        if plan.actions.create_sandbox {
            self.steps.push(Step {
                op: StepOp::RunPodSandbox,
                attempt: Some(plan.actions.attempt),
                message: Some(format!(
                    "create sandbox attempt {} for the pod",
                    plan.actions.attempt
                )),
                ..Step::default()
            });
        }
    }

    fn resize(&mut self, plan: &Plan) {
        let a = &plan.actions;
        if !self.ctx.resize_allowed {
            return;
        }
        let map = a.containers_to_update.as_ref();
        let any = map.is_some_and(|m| m.values().any(|l| !l.is_empty()));
        if !(any || a.update_pod_resources || a.update_pod_level_resources) {
            return;
        }
        for resource in ["memory", "cpu"] {
            let list = map
                .and_then(|m| m.get(resource))
                .map(Vec::as_slice)
                .unwrap_or_default();
            if list.is_empty() && !a.update_pod_resources && !a.update_pod_level_resources {
                continue;
            }
            self.steps.push(Step {
                op: StepOp::UpdatePodSandboxResources,
                resource: Some(resource.into()),
                message: Some(format!(
                    "set the pod cgroup's {resource}: before the container updates when it grows, after them when it shrinks"
                )),
                ..Step::default()
            });
            for u in list {
                let (d, c) = match resource {
                    "memory" => (u.desired.memory_limit, u.current.memory_limit),
                    _ => (u.desired.cpu_limit, u.current.cpu_limit),
                };
                self.steps.push(Step {
                    op: StepOp::UpdateContainerResources,
                    container: Some(u.name.clone()),
                    container_id: Some(u.container_id.clone()),
                    resource: Some(resource.into()),
                    message: Some(format!("{resource} limit {c} -> {d}")),
                    ..Step::default()
                });
            }
        }
    }

    fn starts(&mut self, plan: &Plan) {
        let a = &plan.actions;
        let order = a
            .ephemeral_containers_to_start
            .iter()
            .map(|i| (ContainerKind::Ephemeral, *i))
            .chain(
                a.init_containers_to_start
                    .iter()
                    .map(|i| (ContainerKind::Init, *i)),
            )
            .chain(
                a.containers_to_start
                    .iter()
                    .map(|i| (ContainerKind::Regular, *i)),
            );
        let sandbox_id = if a.create_sandbox {
            String::new()
        } else {
            a.sandbox_id.clone()
        };
        for (kind, idx) in order.collect::<Vec<_>>() {
            let Some(spec) = self.spec_ref(kind, idx) else {
                continue;
            };
            let aborts = kind == ContainerKind::Init && !spec.sidecar;
            // startContainer: doBackOff first, then generateContainerConfig.
            if self.held_back(kind, idx, &spec) {
                if aborts {
                    self.abort(spec.name, "CrashLoopBackOff");
                    return;
                }
                continue;
            }
            if let Some(err) = plan.errors.iter().find(|e| e.container == spec.name) {
                self.events.push(events::failed(spec.name, &err.message));
                if aborts {
                    self.abort(spec.name, &err.reason);
                    return;
                }
                continue;
            }
            let restart_count = self.ctx.status.find(spec.name).map_or(0, |s| {
                u32::try_from(s.restart_count.saturating_add(1)).unwrap_or(0)
            });
            self.steps.push(Step {
                op: StepOp::CreateContainer,
                container: Some(spec.name.to_string()),
                kind: Some(kind),
                index: Some(idx),
                sandbox_id: Some(sandbox_id.clone()),
                attempt: Some(restart_count),
                message: Some(format!(
                    "create {} {} (image {})",
                    kind.noun(),
                    spec.name,
                    spec.image
                )),
                ..Step::default()
            });
            self.events.push(events::created(spec.name));
            self.steps.push(Step {
                op: StepOp::StartContainer,
                container: Some(spec.name.to_string()),
                kind: Some(kind),
                index: Some(idx),
                ..Step::default()
            });
            self.events.push(events::started(spec.name));
        }
    }

    fn abort(&mut self, name: &str, why: &str) {
        self.notes.push((
            "wait",
            name.to_string(),
            "InitContainerStartFailed",
            format!("init container {name} cannot start on this sync ({why}): SyncPod stops here and starts nothing after it"),
        ));
    }

    /// `doBackOff`: returns true when the start is held back.
    fn held_back(&mut self, kind: ContainerKind, idx: usize, spec: &SpecRef<'_>) -> bool {
        let Some(table) = self.backoff.as_mut() else {
            return false;
        };
        let Some(exited) = self.ctx.status.newest_exited(spec.name) else {
            return false;
        };
        let key = backoff_key(self.ctx.pod, spec.name, spec.image, spec.resources);
        let finished = exited.finished_at.unwrap_or(jiff::Timestamp::MIN);
        if let Some(until) = table.in_backoff_since(&key, finished) {
            let delay = table.delay_seconds(&key).unwrap_or(0);
            let wait_ns =
                until.as_nanosecond() - self.ctx.request.now.map_or(0, |n| n.as_nanosecond());
            let wait = u64::try_from((wait_ns + 999_999_999) / 1_000_000_000).unwrap_or(0);
            self.held_back.push(HeldBack {
                container: spec.name.to_string(),
                kind: Some(kind),
                index: Some(idx),
                wait_seconds: wait,
                until: Some(until),
                delay_seconds: delay,
            });
            self.events
                .push(events::back_off(spec.name, &format_pod(self.ctx.pod)));
            self.notes.push((
                "wait",
                spec.name.to_string(),
                "CrashLoopBackOff",
                format!(
                    "{} {} last exited at {finished}; back-off {delay}s holds its start until {until} ({wait}s from now)",
                    kind.noun(),
                    spec.name
                ),
            ));
            return true;
        }
        table.next(&key, spec.name, finished);
        false
    }
}

fn kill_reason_str(reason: KillReason) -> &'static str {
    match reason {
        KillReason::None => "",
        KillReason::StartupProbe => "StartupProbe",
        KillReason::LivenessProbe => "LivenessProbe",
        KillReason::FailedPostStartHook => "FailedPostStartHook",
        KillReason::Unknown => "Unknown",
        KillReason::RestartAllContainers => "RestartAllContainers",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::testutil::{exited, plan, req, running};
    use k8s_openapi::api::core::v1::{PodSpec, Probe};
    use serde_json::json;

    fn ops(plan: &Plan) -> Vec<String> {
        plan.steps
            .iter()
            .map(|s| {
                let who = s.container.as_deref().or(s.resource.as_deref());
                format!(
                    "{}{}",
                    s.op,
                    who.map(|c| format!(" {c}")).unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn kills_are_sorted_by_id_and_carry_the_kill_message() {
        let spec =
            json!({"containers": [{"name": "a", "image": "new"}, {"name": "b", "image": "new"}]});
        let p = plan(&req(
            spec,
            json!([running("c://9", "a", "old"), running("c://1", "b", "old")]),
            json!({}),
        ));
        assert_eq!(
            ops(&p),
            vec![
                "KillContainer b",
                "KillContainer a",
                "CreateContainer a",
                "StartContainer a",
                "CreateContainer b",
                "StartContainer b"
            ]
        );
        let first = p.steps.first();
        assert_eq!(
            first.and_then(|s| s.message.as_deref()),
            Some("Container b definition changed, will be restarted")
        );
        assert_eq!(
            p.events
                .first()
                .map(|e| (e.reason.as_str(), e.message.as_str())),
            Some((
                "Killing",
                "Container b definition changed, will be restarted"
            ))
        );
        // Restart counts come from the newest status.
        assert_eq!(p.steps.get(2).and_then(|s| s.attempt), Some(1));
    }

    #[test]
    fn recreate_kills_the_pod_purges_init_containers_then_runs_a_sandbox() {
        let spec = json!({"initContainers": [{"name": "i", "image": "x"}],
                          "containers": [{"name": "a", "image": "x"}]});
        let mut r = req(
            spec,
            json!([
                running("c://3", "a", "x"),
                exited("c://2", "i", "x", 0),
                exited("c://1", "i", "x", 0)
            ]),
            json!({}),
        );
        if let Some(s) = r
            .runtime_status
            .as_mut()
            .and_then(|s| s.sandbox_statuses.first_mut())
        {
            s.state = crate::runtime::SandboxState::NotReady;
        }
        let p = plan(&r);
        assert_eq!(
            ops(&p),
            vec![
                "KillPod",
                "RemoveContainer i",
                "RemoveContainer i",
                "RunPodSandbox",
                "CreateContainer i",
                "StartContainer i"
            ]
        );
        assert_eq!(
            p.steps.first().map(|s| s.containers.clone()),
            Some(vec!["a".to_string()])
        );
        assert_eq!(p.steps.get(3).and_then(|s| s.attempt), Some(4));
        // Starts go into the sandbox this plan creates.
        assert_eq!(
            p.steps.get(4).and_then(|s| s.sandbox_id.as_deref()),
            Some("")
        );
        let reasons: Vec<&str> = p.events.iter().map(|e| e.reason.as_str()).collect();
        assert_eq!(
            reasons,
            vec!["SandboxChanged", "Killing", "Created", "Started"]
        );
    }

    #[test]
    fn old_init_instances_are_pruned() {
        let spec = json!({"initContainers": [{"name": "i", "image": "x"}],
                          "containers": [{"name": "a", "image": "x"}]});
        let p = plan(&req(
            spec,
            json!([
                running("c://3", "a", "x"),
                exited("c://2", "i", "x", 0),
                exited("c://1", "i", "x", 1)
            ]),
            json!({}),
        ));
        assert_eq!(ops(&p), vec!["RemoveContainer i"]);
        assert_eq!(
            p.steps.first().and_then(|s| s.container_id.as_deref()),
            Some("c://1")
        );
    }

    #[test]
    fn resets_kill_then_remove_in_list_order() {
        let spec =
            json!({"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "x"}]});
        let p = plan(&req(
            spec,
            json!([running("c://1", "a", "x"), exited("c://2", "b", "x", 0)]),
            json!({"restartAllContainers": true}),
        ));
        assert_eq!(
            ops(&p),
            vec!["KillContainer a", "RemoveContainer a", "RemoveContainer b"]
        );
        assert_eq!(
            p.steps.first().and_then(|s| s.grace_period_seconds),
            Some(2)
        );
        assert_eq!(
            p.steps.first().and_then(|s| s.message.as_deref()),
            Some("killing")
        );
    }

    #[test]
    fn resize_steps_come_before_starts_with_decreases_first() {
        let spec = json!({"containers": [
            {"name": "b", "image": "x", "resources": {"limits": {"memory": "256Mi"}}},
            {"name": "a", "image": "x", "resources": {"limits": {"memory": "64Mi"}}},
            {"name": "c", "image": "x"}]});
        let p = plan(&req(
            spec,
            json!([running("c://1", "a", "x"), running("c://2", "b", "x")]),
            json!({"actuatedResources": {"containers": {
                "a": {"limits": {"memory": "128Mi"}}, "b": {"limits": {"memory": "128Mi"}}}}}),
        ));
        assert_eq!(
            ops(&p),
            vec![
                "UpdatePodSandboxResources memory",
                "UpdateContainerResources a",
                "UpdateContainerResources b",
                "CreateContainer c",
                "StartContainer c"
            ]
        );
    }

    #[test]
    fn back_off_holds_a_start_and_reports_it() {
        let spec =
            json!({"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "x"}]});
        let pod_key = |r: &PlanRequest| backoff_key(&r.pod, "a", "x", None);
        let mut r = req(
            spec,
            json!([exited("c://1", "a", "x", 1), exited("c://2", "b", "x", 1)]),
            json!({"now": "2025-01-01T00:00:15Z"}),
        );
        r.backoff = vec![crate::backoff::BackoffRecord {
            key: pod_key(&r),
            container: "a".into(),
            delay_seconds: 40,
            last_update: "2024-12-31T23:59:50Z"
                .parse()
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH),
        }];
        let p = plan(&r);
        // The actions are the kubelet's podActions, untouched by back-off.
        assert_eq!(p.actions.containers_to_start, vec![0, 1]);
        assert_eq!(ops(&p), vec!["CreateContainer b", "StartContainer b"]);
        let held = p.held_back.first();
        assert_eq!(
            held.map(|h| (h.container.as_str(), h.wait_seconds, h.delay_seconds)),
            Some(("a", 25, 40))
        );
        assert!(p.events.iter().any(|e| e.reason == "BackOff"
            && e.message == "Back-off restarting failed container a in pod foo_ns(u)"));
        // b got its first record; a's record is unchanged.
        let delays: Vec<(String, u64)> = p
            .backoff
            .iter()
            .map(|b| (b.container.clone(), b.delay_seconds))
            .collect();
        assert_eq!(delays.len(), 2);
        assert!(delays.contains(&("a".to_string(), 40)) && delays.contains(&("b".to_string(), 10)));
        // Without `now` nothing is held back and the records pass through.
        r.now = None;
        let p = plan(&r);
        assert!(p.held_back.is_empty());
        assert_eq!(p.backoff, r.backoff);
    }

    #[test]
    fn a_held_back_classic_init_container_stops_the_sync() {
        let spec = json!({"initContainers": [{"name": "i", "image": "x"}],
                          "ephemeralContainers": [{"name": "dbg", "image": "x"}],
                          "containers": [{"name": "a", "image": "x"}]});
        let mut r = req(
            spec,
            json!([exited("c://1", "i", "x", 1)]),
            json!({"now": "2025-01-01T00:00:01Z"}),
        );
        r.backoff = vec![crate::backoff::BackoffRecord {
            key: backoff_key(&r.pod, "i", "x", None),
            container: "i".into(),
            delay_seconds: 10,
            last_update: "2025-01-01T00:00:00Z"
                .parse()
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH),
        }];
        let p = plan(&r);
        assert_eq!(p.actions.init_containers_to_start, vec![0]);
        assert_eq!(ops(&p), vec!["CreateContainer dbg", "StartContainer dbg"]);
        assert!(p.decisions.iter().any(|d| d.reason == "CrashLoopBackOff"));
    }

    #[test]
    fn grace_period_rules() {
        let mut pod = Pod {
            spec: Some(PodSpec::default()),
            ..Pod::default()
        };
        let probe = Probe {
            termination_grace_period_seconds: Some(7),
            ..Probe::default()
        };
        let c = Container {
            liveness_probe: Some(probe),
            ..Container::default()
        };
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::LivenessProbe, None),
            2
        );
        if let Some(s) = pod.spec.as_mut() {
            s.termination_grace_period_seconds = Some(30);
        }
        assert_eq!(grace_period(&pod, Some(&c), KillReason::None, None), 30);
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::LivenessProbe, None),
            7
        );
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::StartupProbe, None),
            30
        );
        assert_eq!(grace_period(&pod, Some(&c), KillReason::None, Some(0)), 2);
        pod.metadata.deletion_grace_period_seconds = Some(5);
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::LivenessProbe, None),
            5
        );
    }

    #[test]
    fn ops_print_and_compare_as_strings() {
        assert_eq!(
            StepOp::UpdateContainerResources.to_string(),
            "UpdateContainerResources"
        );
        assert!(StepOp::KillPod == "KillPod");
        let json = serde_json::to_string(&Step {
            op: StepOp::RunPodSandbox,
            attempt: Some(1),
            ..Step::default()
        })
        .unwrap_or_default();
        assert_eq!(json, r#"{"op":"RunPodSandbox","attempt":1}"#);
    }
}
