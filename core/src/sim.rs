//! A small, pure model of a container runtime, for demos and convergence tests.
//!
//! [`apply`] carries out a plan's [`steps`](crate::plan::Plan::steps) against the
//! request's runtime status and returns what the runtime (and the kubelet's checkpoints)
//! would report next. Everything is deterministic: ids are derived from the pod, the step
//! and `now`; there is no randomness and no I/O. Every request always succeeds: the model
//! does not simulate runtime errors.
//!
//! * `RunPodSandbox` adds a `SANDBOX_READY` sandbox with an IP (or in the node's network
//!   namespace for `hostNetwork` pods) as the newest sandbox.
//! * `KillPod` stops every running container (exit code 137) and marks every sandbox
//!   `SANDBOX_NOTREADY`; `KillContainer` stops one container.
//! * `RemoveContainer` drops a status (init-container purge/prune, RestartAllContainers).
//! * `CreateContainer` + `StartContainer` add a running container with the kubelet's
//!   hash, the restart count, `createdAt`/`startedAt` = `now`, newest first, and record
//!   the container's resources as actuated.
//! * `UpdateContainerResources` / `UpdatePodSandboxResources` update the actuated
//!   resources checkpoint.
//!
//! [`Simulation`] loops plan → apply → advance the clock, and the `script` helpers inject
//! what happens between syncs (a container exits, the sandbox dies, a probe reports).
//!
//! ```
//! use podplan_core::sim::Simulation;
//! let request = podplan_core::api::parse_request(br#"{"pod": {"metadata": {"name": "web", "uid": "u1"},
//!     "spec": {"enableServiceLinks": true, "containers": [{"name": "app", "image": "nginx"}]}}}"#).unwrap();
//! let start: jiff::Timestamp = "2025-01-01T00:00:00Z".parse().unwrap();
//! let mut sim = Simulation::new(request, start);
//! let plans = sim.run_until_stable(5).unwrap();
//! assert_eq!(plans.len(), 2); // create everything, then a sync with nothing to do
//! assert!(sim.all_running());
//! ```

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, PodCondition, ResourceRequirements};

use crate::error::PlanError;
use crate::hash::container_hash;
use crate::plan::Plan;
use crate::request::{ActuatedResources, PlanRequest, ProbeResult};
use crate::runtime::{
    ContainerState, ContainerStatus, LinuxSandboxStatus, NamespaceMode, RuntimeStatus,
    SandboxMetadata, SandboxNamespaceOptions, SandboxNamespaces, SandboxNetwork, SandboxState,
    SandboxStatus,
};
use crate::steps::{ContainerKind, Step, StepOp};

/// Exit code the model reports for a container it stopped (SIGKILL).
pub const KILLED_EXIT_CODE: i32 = 137;

/// What the runtime and the kubelet's checkpoints hold after a plan was carried out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The runtime status.
    pub runtime_status: RuntimeStatus,
    /// The actuated-resources checkpoint.
    pub actuated_resources: Option<ActuatedResources>,
}

fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in *part {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn pod_uid(pod: &Pod) -> &str {
    pod.metadata.uid.as_deref().unwrap_or("")
}

fn nanos(t: jiff::Timestamp) -> i64 {
    i64::try_from(t.as_nanosecond()).unwrap_or(i64::MAX)
}

fn plus_nanos(t: jiff::Timestamp, n: u32) -> jiff::Timestamp {
    jiff::Timestamp::from_nanosecond(t.as_nanosecond() + i128::from(n)).unwrap_or(t)
}

struct Applier<'a> {
    request: &'a PlanRequest,
    now: jiff::Timestamp,
    status: RuntimeStatus,
    actuated: ActuatedResources,
    touched_actuated: bool,
    seq: u32,
    /// The sandbox new containers go into.
    sandbox_id: String,
}

impl Applier<'_> {
    fn host_network(&self) -> bool {
        self.request
            .pod
            .spec
            .as_ref()
            .and_then(|s| s.host_network)
            .unwrap_or(false)
    }

    fn stop(s: &mut ContainerStatus, now: jiff::Timestamp) {
        if matches!(
            s.state,
            ContainerState::Running | ContainerState::Created | ContainerState::Unknown
        ) {
            s.state = ContainerState::Exited;
            s.exit_code = KILLED_EXIT_CODE;
            s.reason = "Error".into();
            s.finished_at = Some(now);
        }
    }

    fn spec_resources(
        &self,
        kind: ContainerKind,
        idx: usize,
    ) -> Option<(String, String, Option<ResourceRequirements>)> {
        let spec = self.request.pod.spec.as_ref()?;
        match kind {
            ContainerKind::Init => spec.init_containers.as_ref()?.get(idx).map(|c| {
                (
                    c.name.clone(),
                    c.image.clone().unwrap_or_default(),
                    c.resources.clone(),
                )
            }),
            ContainerKind::Regular => spec.containers.get(idx).map(|c| {
                (
                    c.name.clone(),
                    c.image.clone().unwrap_or_default(),
                    c.resources.clone(),
                )
            }),
            ContainerKind::Ephemeral => spec
                .ephemeral_containers
                .as_ref()?
                .get(idx)
                .map(|c| (c.name.clone(), c.image.clone().unwrap_or_default(), None)),
        }
    }

    fn step(&mut self, step: &Step) {
        self.seq += 1;
        let now = self.now;
        match step.op {
            StepOp::KillPod => {
                for s in &mut self.status.container_statuses {
                    if s.state == ContainerState::Running {
                        Self::stop(s, now);
                    }
                }
                for sb in &mut self.status.sandbox_statuses {
                    sb.state = SandboxState::NotReady;
                }
                self.status.ips.clear();
            }
            StepOp::KillContainer => {
                let id = step.container_id.as_deref().unwrap_or("");
                if let Some(s) = self
                    .status
                    .container_statuses
                    .iter_mut()
                    .find(|s| s.id == id)
                {
                    Self::stop(s, now);
                }
            }
            StepOp::RemoveContainer => {
                let id = step.container_id.as_deref().unwrap_or("");
                self.status.container_statuses.retain(|s| s.id != id);
            }
            StepOp::RunPodSandbox => {
                self.run_sandbox(step.attempt.unwrap_or(0));
                // The kubelet records the admitted pod-level resources as actuated
                // (`InitializeActuatedPod`) before the first sync.
                if self.actuated.pod.is_none() {
                    if let Some(r) = self
                        .request
                        .pod
                        .spec
                        .as_ref()
                        .and_then(|s| s.resources.clone())
                    {
                        self.actuated.pod = Some(r);
                        self.touched_actuated = true;
                    }
                }
            }
            StepOp::UpdateContainerResources => {
                let name = step.container.clone().unwrap_or_default();
                let spec = self.request.pod.spec.as_ref();
                let resources = spec.and_then(|s| {
                    s.init_containers
                        .iter()
                        .flatten()
                        .chain(s.containers.iter())
                        .find(|c| c.name == name)
                        .and_then(|c| c.resources.clone())
                });
                self.actuated
                    .containers
                    .insert(name, resources.unwrap_or_default());
                self.touched_actuated = true;
            }
            StepOp::UpdatePodSandboxResources => {
                if let Some(r) = self
                    .request
                    .pod
                    .spec
                    .as_ref()
                    .and_then(|s| s.resources.clone())
                {
                    self.actuated.pod = Some(r);
                    self.touched_actuated = true;
                }
            }
            StepOp::CreateContainer => self.create(step),
            StepOp::StartContainer => {
                let name = step.container.as_deref().unwrap_or("");
                if let Some(s) = self
                    .status
                    .container_statuses
                    .iter_mut()
                    .find(|s| s.name == name && s.state == ContainerState::Created)
                {
                    s.state = ContainerState::Running;
                    s.started_at = Some(now);
                }
            }
        }
    }

    fn run_sandbox(&mut self, attempt: u32) {
        let pod = &self.request.pod;
        let uid = pod_uid(pod).to_string();
        let id = format!(
            "sandbox-{:012x}",
            fnv64(&[uid.as_bytes(), &attempt.to_le_bytes()]) & 0xffff_ffff_ffff
        );
        let host = self.host_network();
        let ip = if host {
            String::new()
        } else {
            format!("10.88.{}.{}", (attempt / 250) % 250, attempt % 250 + 2)
        };
        let sandbox = SandboxStatus {
            id: id.clone(),
            metadata: Some(SandboxMetadata {
                name: pod.metadata.name.clone().unwrap_or_default(),
                uid,
                namespace: pod.metadata.namespace.clone().unwrap_or_default(),
                attempt,
            }),
            state: SandboxState::Ready,
            created_at: nanos(plus_nanos(self.now, self.seq)),
            network: (!host).then(|| SandboxNetwork {
                ip: ip.clone(),
                additional_ips: vec![],
            }),
            linux: Some(LinuxSandboxStatus {
                namespaces: Some(SandboxNamespaces {
                    options: Some(SandboxNamespaceOptions {
                        network: if host {
                            NamespaceMode::Node
                        } else {
                            NamespaceMode::Pod
                        },
                        ..SandboxNamespaceOptions::default()
                    }),
                }),
            }),
            ..SandboxStatus::default()
        };
        self.status.sandbox_statuses.insert(0, sandbox);
        self.status.ips = if host { vec![] } else { vec![ip] };
        self.sandbox_id = id;
    }

    fn create(&mut self, step: &Step) {
        let (Some(kind), Some(idx)) = (step.kind, step.index) else {
            return;
        };
        let Some((name, image, resources)) = self.spec_resources(kind, idx) else {
            return;
        };
        let uid = pod_uid(&self.request.pod);
        let created = plus_nanos(self.now, self.seq);
        let digest = fnv64(&[
            uid.as_bytes(),
            name.as_bytes(),
            &created.as_nanosecond().to_le_bytes(),
        ]);
        let status = ContainerStatus {
            id: format!("sim://{name}-{:08x}", digest & 0xffff_ffff),
            name: name.clone(),
            pod_sandbox_id: Some(self.sandbox_id.clone()),
            state: ContainerState::Created,
            created_at: Some(created),
            image: image.clone(),
            image_id: format!("sha256:{:016x}", fnv64(&[image.as_bytes()])),
            image_ref: image.clone(),
            hash: container_hash(&name, &image),
            restart_count: i32::try_from(step.attempt.unwrap_or(0)).unwrap_or(0),
            ..ContainerStatus::default()
        };
        self.status.container_statuses.insert(0, status);
        if kind != ContainerKind::Ephemeral {
            self.actuated
                .containers
                .insert(name, resources.unwrap_or_default());
            self.touched_actuated = true;
        }
    }
}

/// Carries out `plan` against the request's runtime state at time `now`.
#[must_use]
pub fn apply(request: &PlanRequest, plan: &Plan, now: jiff::Timestamp) -> Outcome {
    let mut status = request.runtime_status.clone().unwrap_or_default();
    if status.id.is_empty() {
        status.id = pod_uid(&request.pod).to_string();
        status.name = request.pod.metadata.name.clone().unwrap_or_default();
        status.namespace = request.pod.metadata.namespace.clone().unwrap_or_default();
    }
    let sandbox_id = status
        .sandbox_statuses
        .first()
        .map(|s| s.id.clone())
        .unwrap_or_default();
    let mut applier = Applier {
        request,
        now,
        status,
        actuated: request.actuated_resources.clone().unwrap_or_default(),
        touched_actuated: request.actuated_resources.is_some(),
        seq: 0,
        sandbox_id,
    };
    for step in &plan.steps {
        applier.step(step);
    }
    Outcome {
        runtime_status: applier.status,
        actuated_resources: applier.touched_actuated.then_some(applier.actuated),
    }
}

/// The request for the next sync: the outcome of `plan`, the plan's back-off records,
/// status (as `previousStatus`) and reason cache, probe results only for containers that
/// still run, and `now`. When the pod is restarting
/// all its containers and none is left in the runtime, the restart is over (the kubelet
/// then clears `AllContainersRestarting`).
#[must_use]
pub fn next_request(request: &PlanRequest, plan: &Plan, now: jiff::Timestamp) -> PlanRequest {
    let outcome = apply(request, plan, now);
    let mut next = request.clone();
    next.probes.retain(|id, _| {
        outcome
            .runtime_status
            .container_statuses
            .iter()
            .any(|s| &s.id == id && s.state == ContainerState::Running)
    });
    next.runtime_status = Some(outcome.runtime_status);
    next.actuated_resources = outcome.actuated_resources;
    next.backoff.clone_from(&plan.backoff);
    next.previous_status.clone_from(&plan.status);
    next.reason_cache.clone_from(&plan.reason_cache);
    next.now = Some(now);
    if restart_cleaned_up(&next) {
        script::finish_restart_all(&mut next);
    }
    next
}

/// `AllContainersRestartCleanedUp` while a restart-all is in progress.
fn restart_cleaned_up(request: &PlanRequest) -> bool {
    let restarting = request.restart_all_containers
        || request
            .pod
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| {
                c.iter()
                    .any(|c| c.type_ == "AllContainersRestarting" && c.status == "True")
            });
    let Some(spec) = request.pod.spec.as_ref() else {
        return false;
    };
    let statuses = request
        .runtime_status
        .as_ref()
        .map(|s| s.container_statuses.as_slice())
        .unwrap_or_default();
    restarting
        && spec
            .init_containers
            .iter()
            .flatten()
            .chain(spec.containers.iter())
            .all(|c| statuses.iter().all(|s| s.name != c.name))
}

/// What the simulated world does on its own before each sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Behaviour {
    /// Running classic init containers finish (exit 0).
    pub complete_init_containers: bool,
    /// Declared startup and liveness probes of running containers report success.
    pub pass_probes: bool,
}

impl Default for Behaviour {
    fn default() -> Self {
        Self {
            complete_init_containers: true,
            pass_probes: true,
        }
    }
}

/// A plan → apply → advance-the-clock loop.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The request the next sync plans for.
    pub request: PlanRequest,
    /// The next sync's time.
    pub now: jiff::Timestamp,
    /// Seconds between syncs.
    pub tick_seconds: i64,
    /// What happens on its own between syncs.
    pub behaviour: Behaviour,
}

impl Simulation {
    /// Starts a simulation at `start`, syncing every 10 s with the default behaviour.
    #[must_use]
    pub fn new(mut request: PlanRequest, start: jiff::Timestamp) -> Self {
        request.now = Some(start);
        Self {
            request,
            now: start,
            tick_seconds: 10,
            behaviour: Behaviour::default(),
        }
    }

    /// Advances the clock by `seconds` without a sync.
    pub fn advance(&mut self, seconds: i64) {
        self.now = jiff::Timestamp::from_nanosecond(
            self.now.as_nanosecond() + i128::from(seconds) * 1_000_000_000,
        )
        .unwrap_or(self.now);
        self.request.now = Some(self.now);
    }

    /// One sync: apply the behaviour, plan, carry the plan out, advance the clock.
    /// Returns the plan.
    pub fn sync(&mut self) -> Result<Plan, PlanError> {
        self.request.now = Some(self.now);
        if self.behaviour.complete_init_containers {
            script::complete_init_containers(&mut self.request, self.now);
        }
        if self.behaviour.pass_probes {
            script::pass_probes(&mut self.request);
        }
        let plan = crate::plan(&self.request)?;
        self.request = next_request(&self.request, &plan, self.now);
        self.advance(self.tick_seconds);
        Ok(plan)
    }

    /// Syncs until a fixpoint (the plan changes nothing in the runtime or the checkpoints
    /// and holds nothing back; that plan is included), or `max_syncs` plans.
    pub fn run_until_stable(&mut self, max_syncs: usize) -> Result<Vec<Plan>, PlanError> {
        let mut plans = Vec::new();
        for _ in 0..max_syncs {
            let before = (
                self.request.runtime_status.clone(),
                self.request.actuated_resources.clone(),
            );
            let plan = self.sync()?;
            let after = (
                self.request.runtime_status.clone(),
                self.request.actuated_resources.clone(),
            );
            let stable = before == after && plan.held_back.is_empty();
            plans.push(plan);
            if stable {
                break;
            }
        }
        Ok(plans)
    }

    /// Whether every regular container and every sidecar has a running newest instance.
    #[must_use]
    pub fn all_running(&self) -> bool {
        let Some(spec) = self.request.pod.spec.as_ref() else {
            return false;
        };
        let statuses = self
            .request
            .runtime_status
            .as_ref()
            .map(|s| s.container_statuses.as_slice())
            .unwrap_or_default();
        let running = |name: &str| {
            statuses
                .iter()
                .find(|s| s.name == name)
                .is_some_and(|s| s.state == ContainerState::Running)
        };
        spec.containers.iter().all(|c| running(&c.name))
            && spec
                .init_containers
                .iter()
                .flatten()
                .filter(|c| c.restart_policy.as_deref() == Some("Always"))
                .all(|c| running(&c.name))
    }
}

/// Things that happen between syncs, applied to a request.
pub mod script {
    use super::{BTreeMap, ContainerState, PlanRequest, PodCondition, ProbeResult, SandboxState};

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
        s.state = ContainerState::Exited;
        s.exit_code = code;
        s.reason = if code == 0 {
            "Completed".into()
        } else {
            "Error".into()
        };
        s.finished_at = Some(at);
        let id = s.id.clone();
        request.probes.remove(&id);
        true
    }

    /// The latest sandbox dies: it becomes `SANDBOX_NOTREADY` and its running containers
    /// exit (code 137) at `at`.
    pub fn kill_sandbox(request: &mut PlanRequest, at: jiff::Timestamp) {
        let Some(status) = request.runtime_status.as_mut() else {
            return;
        };
        let Some(sandbox) = status.sandbox_statuses.first_mut() else {
            return;
        };
        sandbox.state = SandboxState::NotReady;
        let id = sandbox.id.clone();
        for s in &mut status.container_statuses {
            let owner = s.pod_sandbox_id.clone().unwrap_or_else(|| id.clone());
            if owner == id && s.state == ContainerState::Running {
                s.state = ContainerState::Exited;
                s.exit_code = super::KILLED_EXIT_CODE;
                s.reason = "Error".into();
                s.finished_at = Some(at);
            }
        }
        status.ips.clear();
    }

    /// The prober reports `result` for the newest instance of `name`.
    pub fn set_probe(
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
    pub fn pass_probes(request: &mut PlanRequest) {
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
            let Some((liveness, startup, readiness)) = declared.get(s.name.as_str()).copied()
            else {
                continue;
            };
            let entry = request.probes.entry(s.id.clone()).or_default();
            if liveness && entry.liveness.is_none() {
                entry.liveness = Some(ProbeResult::Success);
            }
            if startup && entry.startup.is_none() {
                entry.startup = Some(ProbeResult::Success);
            }
            if readiness && entry.readiness.is_none() {
                entry.readiness = Some(ProbeResult::Success);
            }
        }
        request
            .probes
            .retain(|_, r| r.liveness.is_some() || r.startup.is_some() || r.readiness.is_some());
    }

    /// Every running classic (non-sidecar) init container exits 0 at `at`.
    pub fn complete_init_containers(request: &mut PlanRequest, at: jiff::Timestamp) {
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
    pub fn finish_restart_all(request: &mut PlanRequest) {
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
}

#[cfg(test)]
#[allow(clippy::panic)]
mod tests {
    use super::*;
    use crate::api::parse_request;

    fn t0() -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    #[test]
    fn creates_a_ready_sandbox_and_running_containers_newest_first() {
        let request = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}}"#,
        );
        let Ok(request) = request else {
            panic!("bad request");
        };
        let Ok(plan) = crate::plan(&request) else {
            panic!("no plan");
        };
        let out = apply(&request, &plan, t0());
        let sandbox = out.runtime_status.sandbox_statuses.first();
        assert_eq!(sandbox.map(|s| s.state), Some(SandboxState::Ready));
        assert!(sandbox
            .and_then(|s| s.network.as_ref())
            .is_some_and(|n| !n.ip.is_empty()));
        let names: Vec<&str> = out
            .runtime_status
            .container_statuses
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, vec!["b", "a"]);
        let a = out.runtime_status.container_statuses.get(1);
        assert_eq!(a.map(|s| s.hash), Some(container_hash("a", "x")));
        assert_eq!(a.map(|s| s.state), Some(ContainerState::Running));
        // Deterministic.
        assert_eq!(apply(&request, &plan, t0()), out);
    }

    #[test]
    fn scripted_exit_is_restarted_after_back_off() {
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x"}]}}}"#,
        ) else {
            panic!("bad request");
        };
        let mut sim = Simulation::new(request, t0());
        assert!(sim.run_until_stable(3).is_ok());
        assert!(sim.all_running());
        let now = sim.now;
        assert!(script::exit_container(&mut sim.request, "a", 1, now));
        assert!(!sim.all_running());
        // First restart goes through immediately (back-off starts at 10 s)...
        let first = sim.sync();
        assert!(first.is_ok_and(|p| p.held_back.is_empty()));
        assert!(sim.all_running());
        // ...the second exit right after is held back.
        let now = sim.now;
        assert!(script::exit_container(&mut sim.request, "a", 1, now));
        let second = sim.sync();
        assert!(second.is_ok_and(|p| p.held_back.len() == 1));
    }
}
