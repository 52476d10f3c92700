//! A small, pure model of a container runtime, for demos and convergence tests.
//!
//! [`Runtime`] holds what the runtime reports about one pod plus the kubelet's
//! actuated-resources checkpoint; `Runtime::apply_step` carries out one CRI operation
//! (one [`Step`]) on it. Carrying out all of a plan's [`steps`](crate::plan::Plan::steps)
//! against the request's runtime status gives what the runtime (and the kubelet's
//! checkpoints) would report next; [`next_request`] makes the next sync's request of it. Everything is deterministic: ids are derived from the pod, the step
//! and `now`; there is no randomness and no I/O. Every request always succeeds: the model
//! does not simulate runtime errors.
//!
//! * `RunPodSandbox` adds a `SANDBOX_READY` sandbox with an IP (or in the node's network
//!   namespace for `hostNetwork` pods) as the newest sandbox.
//! * `KillPod` stops every running container and marks every sandbox
//!   `SANDBOX_NOTREADY`; `KillContainer` stops one container. A container that exits on
//!   the stop signal (SIGTERM) reports exit code 143 (`SIGTERM_EXIT_CODE`); one still
//!   running when its stop grace period ends is killed (SIGKILL) and reports 137
//!   (`KILLED_EXIT_CODE`); both with reason `Error`, as containerd reports them.
//! * `RemoveContainer` drops a status (init-container purge/prune, RestartAllContainers).
//! * `CreateContainer` + `StartContainer` add a running container with the kubelet's
//!   hash, the restart count, `createdAt`/`startedAt` = `now`, newest first, and record
//!   the container's resources as actuated. Creation times within one instant are
//!   ordered by operation, and always after every instance the runtime already has (a
//!   restart with no time passed since the previous sync is still the newest), as real
//!   clocks make them; the API status reports the newest instance by creation time.
//! * `UpdateContainerResources` / `UpdatePodSandboxResources` update the actuated
//!   resources checkpoint.
//! * `PullImage` stores the image (or fails as the scripted registry says) and takes the
//!   pull's time (`images::PULL_MILLIS`, or what [`HookControls::pull_seconds`] says;
//!   `images::FAILED_PULL_MILLIS` for a failure): what follows it, and the next sync,
//!   happen that much later ([`Outcome::blocked_millis`]).
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

use k8s_openapi::api::core::v1::{Pod, PodCondition};

use crate::error::PlanError;
use crate::hash::{container_hash, fnv64a_extend, FNV64_OFFSET};
use crate::plan::Plan;
use crate::plan::{ContainerKind, CreateContainerStep, KillPodStep, Step};
use crate::pod::{init_or_regular_named, spec_container};
use crate::request::{ActuatedResources, PlanRequest, ProbeResult};
use crate::runtime::{
    ContainerState, ContainerStatus, LinuxSandboxStatus, NamespaceMode, RuntimeStatus,
    SandboxMetadata, SandboxNamespaceOptions, SandboxNamespaces, SandboxNetwork, SandboxState,
    SandboxStatus,
};

pub mod cri;
pub(crate) mod event;
pub(crate) mod hooks;
pub(crate) mod images;
pub use event::{apply_event, apply_event_with, Event, ProbeKind};
pub use hooks::HookControls;

/// Exit code of a container killed by SIGKILL (128 + 9): the runtime's `StopContainer`
/// when the stop grace period ends before the container exited, a dead sandbox's
/// containers (containerd's `StopPodSandbox` kills what is left without a grace period),
/// the kernel's OOM killer.
pub(crate) const KILLED_EXIT_CODE: i32 = 137;

/// Exit code of a container that exited on `StopContainer`'s stop signal, SIGTERM
/// (128 + 15), within its grace period: the model's containers exit at once on it unless
/// the world says they take longer ([`HookControls::exit_seconds`]).
pub(crate) const SIGTERM_EXIT_CODE: i32 = 143;

/// What the runtime and the kubelet's checkpoints hold after a plan was carried out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The runtime status.
    pub runtime_status: RuntimeStatus,
    /// The actuated-resources checkpoint.
    pub actuated_resources: Option<ActuatedResources>,
    /// What the hooks the plan ran reported (the next request's `hookResults`).
    pub hook_results: Vec<crate::plan::HookResult>,
    /// How long carrying the plan out kept the sync busy, milliseconds: preStop hooks,
    /// stops waited for, image pulls.
    pub blocked_millis: u64,
    /// The node's images (`None`: the request reported none and nothing was pulled).
    pub images: Option<crate::plan::ImagesReport>,
    /// The results of the plan's `PullImage` steps, for the next request's `pullResults`.
    pub pull_results: Vec<crate::plan::PullResultRecord>,
}

/// FNV-1a over the parts, each followed by a `0xff` separator.
fn fnv64(parts: &[&[u8]]) -> u64 {
    parts.iter().fold(FNV64_OFFSET, |h, part| {
        fnv64a_extend(fnv64a_extend(h, part), &[0xff])
    })
}

fn pod_uid(pod: &Pod) -> &str {
    pod.metadata.uid.as_deref().unwrap_or("")
}

fn nanos(t: jiff::Timestamp) -> i64 {
    i64::try_from(t.as_nanosecond()).unwrap_or(i64::MAX)
}

fn plus_millis(t: jiff::Timestamp, ms: u64) -> jiff::Timestamp {
    if ms == 0 {
        return t;
    }
    jiff::Timestamp::from_nanosecond(t.as_nanosecond() + i128::from(ms) * 1_000_000).unwrap_or(t)
}

fn plus_nanos(t: jiff::Timestamp, n: u32) -> jiff::Timestamp {
    jiff::Timestamp::from_nanosecond(t.as_nanosecond() + i128::from(n)).unwrap_or(t)
}

/// The simulated runtime of one pod: what the CRI runtime reports about it and the
/// kubelet's actuated-resources checkpoint. `Runtime::apply_step` carries out one CRI
/// operation of a plan; `apply_with` carries out a whole plan with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Runtime {
    /// What the runtime reports, except that the container statuses are kept oldest
    /// first (the runtime reports them newest first): a create appends instead of
    /// moving every earlier status, so carrying out a plan stays linear in the pod's
    /// containers. [`Runtime::status`] and [`Runtime::into_outcome`] give the runtime's
    /// order.
    status: RuntimeStatus,
    /// The ids of the container statuses (a new container's id must be new).
    ids: std::collections::BTreeSet<String>,
    /// The newest creation time of the container statuses (a new container is newer).
    latest_created: Option<jiff::Timestamp>,
    actuated: Option<ActuatedResources>,
    /// Operations carried out so far: they order the creation times of one instant.
    seq: u32,
    /// Node files written by `WriteNodeFiles` steps, by path (the newest write wins).
    node_files: std::collections::BTreeMap<String, crate::plan::NodeFile>,
    /// What the simulated hooks do.
    hooks: HookControls,
    /// What the hooks run so far reported.
    hook_results: Vec<crate::plan::HookResult>,
    /// Time spent waiting for hooks so far: later operations happen that much later.
    blocked_millis: u64,
    /// The node's image store and the pulls carried out (`PullImage`).
    images: images::ImageStore,
}

impl Runtime {
    /// The runtime the request describes (its runtime status and actuated-resources
    /// checkpoint). A pod the runtime does not know yet gets its id, name and namespace.
    #[must_use]
    pub(crate) fn from_request(request: &PlanRequest) -> Self {
        let mut status = request.runtime_status.clone().unwrap_or_default();
        status.container_statuses.reverse();
        if status.id.is_empty() {
            status.id = pod_uid(&request.pod).to_string();
            status.name = request.pod.metadata.name.clone().unwrap_or_default();
            status.namespace = request.pod.metadata.namespace.clone().unwrap_or_default();
        }
        let ids = status
            .container_statuses
            .iter()
            .map(|s| s.id.clone())
            .collect();
        let latest_created = status
            .container_statuses
            .iter()
            .filter_map(|s| s.created_at)
            .max();
        Self {
            status,
            ids,
            latest_created,
            actuated: request.actuated_resources.clone(),
            seq: 0,
            node_files: std::collections::BTreeMap::new(),
            hooks: HookControls::default(),
            hook_results: Vec::new(),
            blocked_millis: 0,
            images: images::ImageStore::from_request(request),
        }
    }

    /// The runtime with `done` operations of the plan being carried out already counted:
    /// operations at one instant are ordered by their count (creation times), so carrying
    /// out step `i` of a plan on its own, on the state after steps `0..i`, takes `done = i`
    /// and gives what `apply_with` gives.
    #[must_use]
    pub(crate) fn with_operations_done(mut self, done: u32) -> Self {
        self.seq = done;
        self
    }

    /// The runtime with `millis` of hook waiting (preStop) earlier in the plan already
    /// counted: operations after a wait happen that much later. Carrying out step `i` on
    /// its own takes the [`Outcome::blocked_millis`] of steps `0..i`.
    #[must_use]
    pub(crate) fn with_blocked_millis(mut self, millis: u64) -> Self {
        self.blocked_millis = millis;
        self
    }

    /// The same runtime with the simulated world's hook behaviour.
    #[must_use]
    pub(crate) fn with_hooks(mut self, hooks: HookControls) -> Self {
        self.hooks = hooks;
        self
    }

    /// What the runtime reports now (containers newest first, as a CRI runtime lists
    /// them).
    #[must_use]
    pub(crate) fn status(&self) -> RuntimeStatus {
        let mut status = self.status.clone();
        status.container_statuses.reverse();
        status
    }

    /// The state as an [`Outcome`].
    #[must_use]
    pub(crate) fn into_outcome(self) -> Outcome {
        let (images, pull_results) = self.images.into_parts();
        let mut runtime_status = self.status;
        runtime_status.container_statuses.reverse();
        Outcome {
            runtime_status,
            actuated_resources: self.actuated,
            hook_results: self.hook_results,
            blocked_millis: self.blocked_millis,
            images,
            pull_results,
        }
    }

    /// Carries out one CRI operation of a plan for `pod` at time `now` (see the module
    /// documentation for what each operation does). Every operation succeeds; an
    /// operation naming a container or id the runtime does not have changes nothing.
    pub(crate) fn apply_step(&mut self, pod: &Pod, step: &Step, now: jiff::Timestamp) {
        self.seq += 1;
        // Time spent in hooks earlier in the plan delays what follows.
        let now = plus_millis(now, self.blocked_millis);
        match step {
            Step::KillPod(kill) if !kill.kills.is_empty() => self.kill_pod(kill, now),
            Step::RemovePodSandbox(remove) => {
                let id = remove.sandbox_id.as_deref().unwrap_or("");
                self.status.sandbox_statuses.retain(|s| s.id != id);
            }
            Step::CleanupPod(cleanup) => {
                for p in &cleanup.paths {
                    let dir = format!("{}/", p.path.trim_end_matches('/'));
                    self.node_files
                        .retain(|path, _| path != &p.path && !path.starts_with(&dir));
                }
            }
            Step::KillPod(kill) => {
                // The containers are killed in parallel: each after its own preStop; the
                // pod kill takes as long as the longest.
                let mut longest = 0;
                for s in self.status.container_statuses.iter_mut().rev() {
                    if s.state == ContainerState::Running {
                        let waited = match kill
                            .pre_stops
                            .iter()
                            .find(|h| h.container_id.as_deref() == Some(s.id.as_str()))
                        {
                            Some(h) => {
                                let r = self.hooks.pre_stop(h, &s.id);
                                let waited = r.elapsed_millis.unwrap_or(0);
                                self.hook_results.push(r);
                                waited
                            }
                            None => 0,
                        };
                        longest = longest.max(waited);
                        stop(s, plus_millis(now, waited), SIGTERM_EXIT_CODE);
                    }
                }
                self.blocked_millis += longest;
                for sb in &mut self.status.sandbox_statuses {
                    sb.state = SandboxState::NotReady;
                }
                self.status.ips.clear();
            }
            Step::KillContainer(kill) => {
                let id = kill.container_id.as_deref().unwrap_or("");
                self.kill(id, kill.pre_stop.as_ref(), now);
            }
            Step::RemoveContainer(remove) => {
                let id = remove.container_id.as_deref().unwrap_or("");
                self.remove_container(id);
            }
            Step::RunPodSandbox(run) => {
                self.run_sandbox(pod, run.attempt.unwrap_or(0), now);
                // `InitializeActuatedPod` (1.37): a pod the checkpoint has no record of gets
                // every init and regular container's resources recorded as actuated before
                // its first sync, so a container that is never created (a config error)
                // is not "resized" on every sync.
                if self.actuated.is_none() {
                    let mut initial = ActuatedResources::default();
                    if let Some(spec) = pod.spec.as_ref() {
                        for c in spec
                            .init_containers
                            .iter()
                            .flatten()
                            .chain(spec.containers.iter())
                        {
                            if let Some(r) = c.resources.clone() {
                                initial.containers.insert(c.name.clone(), r);
                            }
                        }
                    }
                    self.actuated = Some(initial);
                }
                // The kubelet records the admitted pod-level resources as actuated
                // (`InitializeActuatedPod`) before the first sync.
                let recorded = self.actuated.as_ref().is_some_and(|a| a.pod.is_some());
                if !recorded {
                    if let Some(r) = pod.spec.as_ref().and_then(|s| s.resources.clone()) {
                        self.actuated.get_or_insert_with(Default::default).pod = Some(r);
                    }
                }
            }
            Step::UpdateContainerResources(update) => {
                let name = update.container.clone().unwrap_or_default();
                let resources = pod
                    .spec
                    .as_ref()
                    .and_then(|s| init_or_regular_named(s, &name))
                    .and_then(|c| c.resources.clone());
                self.actuated
                    .get_or_insert_with(Default::default)
                    .containers
                    .insert(name, resources.unwrap_or_default());
            }
            Step::UpdatePodSandboxResources(_) => {
                if let Some(r) = pod.spec.as_ref().and_then(|s| s.resources.clone()) {
                    self.actuated.get_or_insert_with(Default::default).pod = Some(r);
                }
            }
            // The model runtime has no filesystem; the files a real executor writes are
            // kept so that a caller can inspect them.
            Step::WriteNodeFiles(write) => {
                for f in &write.files {
                    self.node_files.insert(f.path.clone(), f.clone());
                }
            }
            Step::PullImage(pull) => {
                // The pull keeps the sync busy: what follows it happens that much later.
                let image = pull.image.as_deref().unwrap_or("");
                let set = self
                    .hooks
                    .pull_seconds
                    .get(image)
                    .map(|s| s.saturating_mul(1000));
                let took = self.images.pull(pull, now, set);
                self.blocked_millis = self.blocked_millis.saturating_add(took);
            }
            Step::CreateContainer(create) => self.create(pod, create, now),
            Step::StartContainer(start) => {
                let name = start.container.as_deref().unwrap_or("");
                if let Some(s) = self
                    .status
                    .container_statuses
                    .iter_mut()
                    .rev()
                    .find(|s| s.name == name && s.state == ContainerState::Created)
                {
                    s.state = ContainerState::Running;
                    s.started_at = Some(now);
                    let id = s.id.clone();
                    // startContainer step 4: a failing postStart kills the container.
                    if let Some(failed) = start
                        .post_start
                        .as_ref()
                        .and_then(|h| self.hooks.post_start(h, &id))
                    {
                        self.hook_results.push(failed);
                        self.kill(&id, start.pre_stop.as_ref(), now);
                    }
                }
            }
        }
    }

    /// A `KillPod` with its kills, as the kubelet carries it out
    /// ([`crate::terminate::kill_timeline`]): every kill at once, each its preStop hook,
    /// then its wait for the containers it stops after, then `StopContainer`; a container
    /// exits when the world says (`HookControls::exit_seconds`, at once by default), at
    /// the latest when its stop grace period ends (SIGKILL). The sync is blocked until
    /// the last one has exited; then every sandbox is stopped.
    fn kill_pod(&mut self, step: &KillPodStep, now: jiff::Timestamp) {
        // Where each running container is, by id: one lookup per kill, not a scan.
        let position: BTreeMap<&str, usize> = self
            .status
            .container_statuses
            .iter()
            .enumerate()
            .filter(|(_, s)| s.state == ContainerState::Running)
            .map(|(i, s)| (s.id.as_str(), i))
            .collect();
        let (kills, at): (Vec<crate::plan::ContainerKill>, Vec<usize>) = step
            .kills
            .iter()
            .filter_map(|k| {
                position
                    .get(k.container_id.as_str())
                    .map(|&i| (k.clone(), i))
            })
            .unzip();
        let mut hook_millis = BTreeMap::new();
        let mut results = Vec::new();
        // The index in `results` of each kill's preStop report.
        let mut result_of = Vec::with_capacity(kills.len());
        for k in &kills {
            result_of.push(k.pre_stop.as_ref().map(|h| {
                let r = self.hooks.pre_stop(h, &k.container_id);
                hook_millis.insert(k.container.clone(), r.elapsed_millis.unwrap_or(0));
                results.push(r);
                results.len() - 1
            }));
        }
        let exit_millis: BTreeMap<String, u64> = kills
            .iter()
            .filter_map(|k| {
                self.hooks
                    .exit_seconds
                    .get(&k.container)
                    .map(|s| (k.container.clone(), s.saturating_mul(1000)))
            })
            .collect();
        let timeline = crate::terminate::kill_timeline(&kills, &hook_millis, &exit_millis);
        let mut last = 0;
        for (((t, &i), r), k) in timeline.iter().zip(&at).zip(&result_of).zip(&kills) {
            if let Some(r) = r.and_then(|r| results.get_mut(r)) {
                r.stop_grace_period_seconds = Some(t.stop_grace_period_seconds);
            }
            last = last.max(t.exited_at_millis);
            // Still running when the stop's grace period ends, the container is killed
            // (containerd's `StopContainer`: SIGTERM, then SIGKILL after the timeout).
            let grace_millis = u64::try_from(t.stop_grace_period_seconds.max(0))
                .unwrap_or(0)
                .saturating_mul(1000);
            let takes = exit_millis.get(&k.container).copied().unwrap_or(0);
            let code = if takes > grace_millis {
                KILLED_EXIT_CODE
            } else {
                SIGTERM_EXIT_CODE
            };
            if let Some(s) = self.status.container_statuses.get_mut(i) {
                stop(s, plus_millis(now, t.exited_at_millis), code);
            }
        }
        self.hook_results.extend(results);
        // Containers the kills do not name (no spec) are stopped with the sandbox
        // (containerd's `StopPodSandbox` kills them without a grace period).
        for s in &mut self.status.container_statuses {
            if s.state == ContainerState::Running {
                stop(s, plus_millis(now, last), KILLED_EXIT_CODE);
            }
        }
        self.blocked_millis += last;
        for sb in &mut self.status.sandbox_statuses {
            sb.state = SandboxState::NotReady;
        }
        self.status.ips.clear();
    }

    /// `killContainer` of one container: its preStop hook (if the kill has one), then the
    /// stop when the hook is done.
    fn kill(&mut self, id: &str, pre_stop: Option<&crate::plan::HookStep>, now: jiff::Timestamp) {
        let running = self
            .status
            .container_statuses
            .iter()
            .any(|s| s.id == id && s.state == ContainerState::Running);
        let waited = match pre_stop {
            Some(h) if running => {
                let r = self.hooks.pre_stop(h, id);
                let waited = r.elapsed_millis.unwrap_or(0);
                self.hook_results.push(r);
                waited
            }
            _ => 0,
        };
        if let Some(s) = self
            .status
            .container_statuses
            .iter_mut()
            .find(|s| s.id == id)
        {
            stop(s, plus_millis(now, waited), SIGTERM_EXIT_CODE);
        }
        self.blocked_millis += waited;
    }

    /// The creation time of a container created at `now`: after every instance the
    /// runtime already has, so that a restart made at the same instant as the previous
    /// sync (no time passed) is still the newest by creation time, which is how the
    /// kubelet tells the latest instance of a name. Instants are ordered by operation.
    fn next_container_created_at(&self, now: jiff::Timestamp) -> jiff::Timestamp {
        match self.latest_created {
            Some(l) if l >= plus_nanos(now, self.seq) => plus_nanos(l, 1),
            _ => plus_nanos(now, self.seq),
        }
    }

    /// Adds a container status (the newest), keeping the id set and the newest creation
    /// time.
    fn add_container(&mut self, status: ContainerStatus) {
        self.ids.insert(status.id.clone());
        self.latest_created = self.latest_created.max(status.created_at);
        self.status.container_statuses.push(status);
    }

    /// Removes the container status(es) with `id`, keeping the id set and the newest
    /// creation time.
    fn remove_container(&mut self, id: &str) {
        let before = self.status.container_statuses.len();
        self.status.container_statuses.retain(|s| s.id != id);
        if self.status.container_statuses.len() != before {
            self.ids.remove(id);
            self.latest_created = self
                .status
                .container_statuses
                .iter()
                .filter_map(|s| s.created_at)
                .max();
        }
    }

    /// The creation time (nanoseconds) of a sandbox created at `now`: after every
    /// earlier sandbox, as for containers.
    fn next_sandbox_created_at(&self, now: jiff::Timestamp) -> i64 {
        nanos(plus_nanos(now, self.seq)).max(
            self.status
                .sandbox_statuses
                .iter()
                .map(|s| s.created_at.saturating_add(1))
                .max()
                .unwrap_or(i64::MIN),
        )
    }

    /// The sandbox new containers go into: the newest one.
    fn sandbox_id(&self) -> String {
        self.status
            .sandbox_statuses
            .first()
            .map(|s| s.id.clone())
            .unwrap_or_default()
    }

    fn run_sandbox(&mut self, pod: &Pod, attempt: u32, now: jiff::Timestamp) {
        let uid = pod_uid(pod).to_string();
        let id = format!(
            "sandbox-{:012x}",
            fnv64(&[uid.as_bytes(), &attempt.to_le_bytes()]) & 0xffff_ffff_ffff
        );
        let host = pod
            .spec
            .as_ref()
            .and_then(|s| s.host_network)
            .unwrap_or(false);
        let ip = if host {
            String::new()
        } else {
            format!("10.88.{}.{}", (attempt / 250) % 250, attempt % 250 + 2)
        };
        let sandbox = SandboxStatus {
            id,
            metadata: Some(SandboxMetadata {
                name: pod.metadata.name.clone().unwrap_or_default(),
                uid,
                namespace: pod.metadata.namespace.clone().unwrap_or_default(),
                attempt,
            }),
            state: SandboxState::Ready,
            created_at: self.next_sandbox_created_at(now),
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
    }

    fn create(&mut self, pod: &Pod, step: &CreateContainerStep, now: jiff::Timestamp) {
        let (Some(kind), Some(idx)) = (step.kind, step.index) else {
            return;
        };
        let Some(spec) = pod.spec.as_ref().and_then(|s| spec_container(s, kind, idx)) else {
            return;
        };
        let (name, image) = (spec.name.to_string(), spec.image.to_string());
        let uid = pod_uid(pod);
        let created = self.next_container_created_at(now);
        // Derived from the pod, the name and the creation time; an instance created at the
        // same instant as an earlier one of the same name (no time passed between syncs)
        // gets a salted id, so that ids stay unique.
        let mut salt: u32 = 0;
        let id = loop {
            let created_bytes = created.as_nanosecond().to_le_bytes();
            let salt_bytes = salt.to_le_bytes();
            let parts: &[&[u8]] = &[uid.as_bytes(), name.as_bytes(), &created_bytes, &salt_bytes];
            let digest = fnv64(parts.get(..if salt == 0 { 3 } else { 4 }).unwrap_or(parts));
            let id = format!("sim://{name}-{:08x}", digest & 0xffff_ffff);
            if salt == u32::MAX || !self.ids.contains(&id) {
                break id;
            }
            salt += 1;
        };
        let status = ContainerStatus {
            id,
            name: name.clone(),
            pod_sandbox_id: Some(self.sandbox_id()),
            state: ContainerState::Created,
            created_at: Some(created),
            image: image.clone(),
            image_id: format!("sha256:{:016x}", fnv64(&[image.as_bytes()])),
            image_ref: image.clone(),
            hash: container_hash(&name, &image),
            restart_count: i32::try_from(step.attempt.unwrap_or(0)).unwrap_or(0),
            ..ContainerStatus::default()
        };
        self.add_container(status);
        if kind != ContainerKind::Ephemeral {
            self.actuated
                .get_or_insert_with(Default::default)
                .containers
                .insert(name, spec.resources.cloned().unwrap_or_default());
        }
    }
}

/// The container stops at `now` with exit `code` ([`SIGTERM_EXIT_CODE`] or
/// [`KILLED_EXIT_CODE`]), reason `Error`.
fn stop(s: &mut ContainerStatus, now: jiff::Timestamp, code: i32) {
    if matches!(
        s.state,
        ContainerState::Running | ContainerState::Created | ContainerState::Unknown
    ) {
        s.state = ContainerState::Exited;
        s.exit_code = code;
        s.reason = "Error".into();
        s.finished_at = Some(now);
    }
}

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
#[must_use]
pub fn next_request(request: &PlanRequest, plan: &Plan, now: jiff::Timestamp) -> PlanRequest {
    next_request_with(request, plan, now, &HookControls::default())
}

/// [`next_request`] in a world whose hooks behave as `hooks` says; what the hooks
/// reported becomes the next request's `hookResults`.
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
/// pulls (a pull's time, [`images::PULL_MILLIS`] by default). The next
/// request keeps `now`; a caller with a clock advances it by this much
/// ([`Simulation::carry_out`] does, and the playground).
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
fn carry_out(
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
    /// What the pod's lifecycle hooks do when the runtime runs them.
    pub hooks: HookControls,
    /// Plans carry the pod's API status, kubectl row and reason cache (on by default).
    /// Off, the next request has no `previousStatus` and an empty reason cache: only the
    /// statuses change, since the kubelet's decisions never read them.
    pub statuses: bool,
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
            hooks: HookControls::default(),
            statuses: true,
        }
    }

    /// Something happens before the next sync ([`apply_event_with`]; hook events change
    /// [`Simulation::hooks`]). Returns a note when it could not happen.
    pub fn event(&mut self, event: &Event) -> Option<String> {
        self.request.now = Some(self.now);
        let note = apply_event_with(&mut self.request, &mut self.hooks, event);
        // An event that takes time (a probe's failure window, an advance) moves the clock.
        if let Some(later) = self.request.now.filter(|t| *t > self.now) {
            self.now = later;
        }
        note
    }

    /// Advances the clock by `seconds` without a sync.
    pub(crate) fn advance(&mut self, seconds: i64) {
        self.now = jiff::Timestamp::from_nanosecond(
            self.now.as_nanosecond() + i128::from(seconds) * 1_000_000_000,
        )
        .unwrap_or(self.now);
        self.request.now = Some(self.now);
    }

    /// One sync: apply the behaviour, plan, carry the plan out, advance the clock.
    /// Returns the plan.
    pub fn sync(&mut self) -> Result<Plan, PlanError> {
        self.prepare();
        let plan = self.plan()?;
        self.carry_out(&plan);
        Ok(plan)
    }

    /// The first part of [`Simulation::sync`]: the clock and the behaviour.
    pub(crate) fn prepare(&mut self) {
        self.request.now = Some(self.now);
        if self.behaviour.complete_init_containers {
            script::complete_init_containers(&mut self.request, self.now);
        }
        if self.behaviour.pass_probes {
            script::pass_probes(&mut self.request);
        }
    }

    /// The plan of a sync after [`Simulation::prepare`] (with the API status when
    /// [`Simulation::statuses`] is on).
    pub(crate) fn plan(&self) -> Result<Plan, PlanError> {
        let stage = if self.statuses {
            crate::pipeline::Stage::Status
        } else {
            crate::pipeline::Stage::Steps
        };
        crate::pipeline::plan_to(&self.request, stage)
    }

    /// The actions the kubelet decides (`computePodActions`) in a sync after
    /// [`Simulation::prepare`]: those of [`Simulation::plan`], without its steps and
    /// status. For a caller that reads only the decision.
    pub(crate) fn decide(&self) -> Result<crate::plan::PodActions, PlanError> {
        crate::pipeline::plan_to(&self.request, crate::pipeline::Stage::Decisions)
            .map(|p| p.actions)
    }

    /// The last part of [`Simulation::sync`]: carry `plan` (from [`Simulation::plan`])
    /// out, advance the clock.
    pub(crate) fn carry_out(&mut self, plan: &Plan) {
        let blocked_millis = carry_out(&mut self.request, plan, self.now, &self.hooks);
        // A sync blocked in preStop hooks, stops or pulls ends that much later (whole
        // seconds, rounded up, as the playground's clock moves).
        let blocked = i64::try_from(blocked_millis.div_ceil(1000)).unwrap_or(0);
        // A pull is part of the sync: the re-plan that completes it comes as soon as the
        // pull is done.
        if !self.request.pull_results.is_empty() {
            self.advance(blocked);
            return;
        }
        self.advance(self.tick_seconds + blocked);
    }

    /// Syncs until a fixpoint (the plan changes nothing in the runtime or the checkpoints
    /// and holds nothing back; that plan is included), or `max_syncs` plans.
    pub fn run_until_stable(&mut self, max_syncs: usize) -> Result<Vec<Plan>, PlanError> {
        let mut plans = Vec::new();
        let observed = |r: &PlanRequest| {
            (
                r.runtime_status.clone(),
                r.actuated_resources.clone(),
                r.image_backoff.clone(),
            )
        };
        // A sync's state after is the next sync's state before: one copy per sync.
        let mut before = observed(&self.request);
        for _ in 0..max_syncs {
            let plan = self.sync()?;
            let after = observed(&self.request);
            let stable = before == after
                && plan.held_back.is_empty()
                && self.request.pull_results.is_empty();
            plans.push(plan);
            if stable {
                break;
            }
            before = after;
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
            let Some((liveness, startup, readiness)) = declared.get(s.name.as_str()).copied()
            else {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::parse_request;
    use crate::plan::StepOp;

    /// A sandbox, then the app container created and started: it runs in that sandbox.
    #[test]
    fn runtime_carries_out_a_sandbox_a_create_and_a_start() {
        use crate::plan::{
            ContainerKind, CreateContainerStep, RunPodSandboxStep, StartContainerStep, Step,
        };
        use crate::runtime::ContainerState;
        let request = crate::api::parse_request(
            br#"{"pod": {"metadata": {"name": "web", "uid": "u1"},
            "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}"#,
        )
        .unwrap();
        let now: jiff::Timestamp = "2025-01-01T00:00:00Z".parse().unwrap();
        let mut runtime = Runtime::from_request(&request);
        let sandbox = Step::RunPodSandbox(RunPodSandboxStep {
            attempt: Some(0),
            ..Default::default()
        });
        runtime.apply_step(&request.pod, &sandbox, now);
        assert_eq!(runtime.status().ips, vec!["10.88.0.2".to_string()]);
        let create = Step::CreateContainer(CreateContainerStep {
            kind: Some(ContainerKind::Regular),
            index: Some(0),
            ..Default::default()
        });
        runtime.apply_step(&request.pod, &create, now);
        let start = Step::StartContainer(StartContainerStep {
            container: Some("app".into()),
            ..Default::default()
        });
        runtime.apply_step(&request.pod, &start, now);
        let status = runtime.status();
        let app = &status.container_statuses[0];
        assert_eq!(
            (app.name.as_str(), app.state),
            ("app", ContainerState::Running)
        );
        assert_eq!(
            app.pod_sandbox_id,
            Some(runtime.status().sandbox_statuses[0].id.clone())
        );
    }

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
        let out = apply_with(&request, &plan, t0(), &HookControls::default());
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
        assert_eq!(
            apply_with(&request, &plan, t0(), &HookControls::default()),
            out
        );
    }

    /// A one-container pod synced `syncs` times, its container exiting 1 after each
    /// sync, with no time passing between the syncs.
    fn crash_loop_at_one_instant(syncs: usize) -> PlanRequest {
        let Ok(mut request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "restartPolicy": "Always",
                          "containers": [{"name": "a", "image": "x"}]}}}"#,
        ) else {
            panic!("bad request");
        };
        for _ in 0..syncs {
            let Ok(plan) = crate::plan(&request) else {
                panic!("no plan");
            };
            request = next_request(&request, &plan, t0());
            script::exit_container(&mut request, "a", 1, t0());
        }
        request
    }

    #[test]
    fn instances_created_at_the_same_instant_get_distinct_ids() {
        // Exit and restart without the clock moving between syncs.
        let request = crash_loop_at_one_instant(3);
        let ids: Vec<&str> = request
            .runtime_status
            .iter()
            .flat_map(|s| s.container_statuses.iter().map(|c| c.id.as_str()))
            .collect();
        let unique: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
        assert!(ids.len() >= 2, "{ids:?}");
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        assert!(crate::plan(&request).is_ok());
    }

    #[test]
    fn a_restart_at_the_same_instant_is_the_newest_instance() {
        // Start, exit, restart at once, exit: no time passes between the syncs.
        let request = crash_loop_at_one_instant(2);
        let statuses = request
            .runtime_status
            .as_ref()
            .map_or(&[][..], |s| s.container_statuses.as_slice());
        let (Some(newest), Some(older)) = (statuses.first(), statuses.get(1)) else {
            panic!("two instances expected: {statuses:?}");
        };
        assert_eq!((newest.restart_count, older.restart_count), (1, 0));
        assert!(newest.created_at > older.created_at, "{statuses:?}");
        // The API status reports the newest instance, as the kubelet does.
        let Ok(plan) = crate::plan(&request) else {
            panic!("no plan");
        };
        let api = plan
            .status
            .as_ref()
            .and_then(|s| s.container_statuses.as_ref())
            .and_then(|l| l.first());
        assert_eq!(api.map(|c| c.restart_count), Some(1));
        assert_eq!(
            api.and_then(|c| c.container_id.as_deref()),
            Some(newest.id.as_str())
        );
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

    /// A pod whose image is not on the node yet (the image manager on).
    fn pulling() -> PlanRequest {
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x:1"}]}},
                 "images": {"present": {}}, "now": "2025-06-15T15:06:40Z"}"#,
        ) else {
            panic!("bad request");
        };
        request
    }

    fn pull_plan(request: &PlanRequest) -> Plan {
        let Ok(plan) = crate::plan(request) else {
            panic!("no plan");
        };
        assert!(
            plan.steps.iter().any(|s| s.op() == StepOp::PullImage),
            "{:?}",
            plan.steps
        );
        plan
    }

    #[test]
    fn a_pull_takes_its_time() {
        let request = pulling();
        let plan = pull_plan(&request);
        let now = request.now.unwrap_or(t0());
        let hooks = HookControls::default();
        let (next, blocked) = next_request_timed(&request, &plan, now, &hooks);
        assert_eq!(blocked, images::PULL_MILLIS);
        assert_eq!(
            next.pull_results.first().map(|r| r.result.pull_millis),
            Some(images::PULL_MILLIS)
        );
        // A pull the world says takes 40 s.
        let mut slow = HookControls::default();
        slow.pull_seconds.insert("x:1".into(), 40);
        let (next, blocked) = next_request_timed(&request, &plan, now, &slow);
        assert_eq!(blocked, 40_000);
        assert_eq!(
            next.pull_results.first().map(|r| r.result.pull_millis),
            Some(40_000)
        );
        // A failed pull takes the registry's round trip.
        let mut failing = request.clone();
        let note = images::set_fault(&mut failing, "x:1", crate::plan::PullFault::NotFound, None);
        assert_eq!(note, None);
        let (_, blocked) = next_request_timed(&failing, &pull_plan(&failing), now, &slow);
        assert_eq!(blocked, images::FAILED_PULL_MILLIS);
    }

    #[test]
    fn the_simulation_clock_moves_by_the_pull() {
        let request = pulling();
        let start = request.now.unwrap_or(t0());
        let mut sim = Simulation::new(request, start);
        assert!(sim
            .event(&Event::PullTakes {
                image: "x:1".into(),
                seconds: 12
            })
            .is_none());
        let Ok(plan) = sim.sync() else {
            panic!("no plan");
        };
        assert!(plan.steps.iter().any(|s| s.op() == StepOp::PullImage));
        // The re-plan that creates the container comes when the pull is done.
        assert_eq!(sim.now.as_second() - start.as_second(), 12);
        assert!(sim.sync().is_ok());
        assert!(sim.all_running());
        let app = sim
            .request
            .runtime_status
            .as_ref()
            .and_then(|s| s.container_statuses.first())
            .and_then(|c| c.created_at);
        assert_eq!(app.map(|t| t.as_second() - start.as_second()), Some(12));
    }

    #[test]
    fn a_probe_failure_moves_the_simulation_clock() {
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x",
                   "livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 10, "failureThreshold": 3}}]}}}"#,
        ) else {
            panic!("bad request");
        };
        let mut sim = Simulation::new(request, t0());
        assert!(sim.run_until_stable(3).is_ok());
        let before = sim.now;
        let failure = Event::Probe {
            container: "a".into(),
            probe: ProbeKind::Liveness,
            result: ProbeResult::Failure,
        };
        assert_eq!(sim.event(&failure), None);
        assert_eq!(sim.now.as_second() - before.as_second(), 30);
        // The kill comes at the recorded failure, not before.
        let Ok(plan) = sim.sync() else {
            panic!("no plan");
        };
        assert_eq!(plan.actions.containers_to_kill.len(), 1);
        assert_eq!(
            sim.request
                .runtime_status
                .as_ref()
                .and_then(|s| {
                    s.container_statuses
                        .iter()
                        .find(|c| c.state == ContainerState::Exited)
                })
                .and_then(|c| c.finished_at)
                .map(|t| t.as_second() - before.as_second()),
            Some(30)
        );
    }
}
