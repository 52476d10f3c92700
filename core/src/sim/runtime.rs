//! [`Runtime`]: the simulated runtime of one pod, carrying out a plan one CRI operation
//! (one [`Step`](crate::plan::Step)) at a time, with the kubelet's actuated-resources
//! checkpoint, the hooks' results and the time the sync spends blocked. The pod's
//! sandboxes and containers are a `node::pods::PodState`, as `node::Node` holds them.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;

use super::hooks::HookControls;
use super::images;
use super::model::{plus_millis, pod_uid, Outcome, KILLED_EXIT_CODE, SIGTERM_EXIT_CODE};
use super::node::pods::{derive_id, PodState};
use super::node::records::{image_record, normalize_image};
use super::node::DEFAULT_RUNTIME_NAME;
use crate::hash::container_hash;
use crate::plan::{ContainerKind, CreateContainerStep, KillPodStep, Step};
use crate::pod::{init_or_regular_named, spec_container};
use crate::request::{ActuatedResources, PlanRequest};
use crate::runtime::{
    ContainerState, ContainerStatus, LinuxSandboxStatus, NamespaceMode, SandboxMetadata,
    SandboxNamespaceOptions, SandboxNamespaces, SandboxNetwork, SandboxState, SandboxStatus,
};

/// The simulated runtime of one pod: what the CRI runtime reports about it and the
/// kubelet's actuated-resources checkpoint. `Runtime::apply_step` carries out one CRI
/// operation of a plan; `apply_with` carries out a whole plan with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Runtime {
    /// The pod's sandboxes and containers, as the runtime holds them (the per-pod part
    /// of [`Node`](super::node::Node), with its creation-time ordering and ids).
    pod: PodState,
    actuated: Option<ActuatedResources>,
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
        let mut pod = request
            .runtime_status
            .clone()
            .map(PodState::from_status)
            .unwrap_or_default();
        if pod.status.id.is_empty() {
            pod.status.id = pod_uid(&request.pod).to_string();
            pod.status.name = request.pod.metadata.name.clone().unwrap_or_default();
            pod.status.namespace = request.pod.metadata.namespace.clone().unwrap_or_default();
        }
        Self {
            pod,
            actuated: request.actuated_resources.clone(),
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
        self.pod.seq = done;
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
    /// them); the unit tests read it between steps.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn status(&self) -> crate::runtime::RuntimeStatus {
        self.pod.status()
    }

    /// The state as an [`Outcome`].
    #[must_use]
    pub(crate) fn into_outcome(self) -> Outcome {
        let (images, pull_results) = self.images.into_parts();
        let runtime_status = self.pod.into_status();
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
        self.pod.seq += 1;
        // Time spent in hooks earlier in the plan delays what follows.
        let now = plus_millis(now, self.blocked_millis);
        match step {
            Step::KillPod(kill) if !kill.kills.is_empty() => self.kill_pod(kill, now),
            Step::RemovePodSandbox(remove) => {
                let id = remove.sandbox_id.as_deref().unwrap_or("");
                self.pod.status.sandbox_statuses.retain(|s| s.id != id);
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
                for s in self.pod.status.container_statuses.iter_mut().rev() {
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
                for sb in &mut self.pod.status.sandbox_statuses {
                    sb.state = SandboxState::NotReady;
                }
                self.pod.status.ips.clear();
            }
            Step::KillContainer(kill) => {
                let id = kill.container_id.as_deref().unwrap_or("");
                self.kill(id, kill.pre_stop.as_ref(), now);
            }
            Step::RemoveContainer(remove) => {
                let id = remove.container_id.as_deref().unwrap_or("");
                self.pod.remove_container(id);
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
                    .pod
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
            .pod
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
            if let Some(s) = self.pod.status.container_statuses.get_mut(i) {
                stop(s, plus_millis(now, t.exited_at_millis), code);
            }
        }
        self.hook_results.extend(results);
        // Containers the kills do not name (no spec) are stopped with the sandbox
        // (containerd's `StopPodSandbox` kills them without a grace period).
        for s in &mut self.pod.status.container_statuses {
            if s.state == ContainerState::Running {
                stop(s, plus_millis(now, last), KILLED_EXIT_CODE);
            }
        }
        self.blocked_millis += last;
        for sb in &mut self.pod.status.sandbox_statuses {
            sb.state = SandboxState::NotReady;
        }
        self.pod.status.ips.clear();
    }

    /// `killContainer` of one container: its preStop hook (if the kill has one), then the
    /// stop when the hook is done.
    fn kill(&mut self, id: &str, pre_stop: Option<&crate::plan::HookStep>, now: jiff::Timestamp) {
        let running = self
            .pod
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
            .pod
            .status
            .container_statuses
            .iter_mut()
            .find(|s| s.id == id)
        {
            stop(s, plus_millis(now, waited), SIGTERM_EXIT_CODE);
        }
        self.blocked_millis += waited;
    }

    /// The sandbox new containers go into: the newest one.
    fn sandbox_id(&self) -> String {
        self.pod
            .status
            .sandbox_statuses
            .first()
            .map(|s| s.id.clone())
            .unwrap_or_default()
    }

    fn run_sandbox(&mut self, pod: &Pod, attempt: u32, now: jiff::Timestamp) {
        let uid = pod_uid(pod).to_string();
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
        let name = pod.metadata.name.clone().unwrap_or_default();
        let namespace = pod.metadata.namespace.clone().unwrap_or_default();
        let created_at = self.pod.next_sandbox_created_at(now);
        // containerd's id for the sandbox's reserved name, `name_namespace_uid_attempt`.
        let reserved = format!("{name}_{namespace}_{uid}_{attempt}");
        let sandboxes = &self.pod.status.sandbox_statuses;
        let id = derive_id("sandbox", &reserved, i128::from(created_at), |id| {
            sandboxes.iter().any(|s| s.id == id)
        });
        let sandbox = SandboxStatus {
            id,
            metadata: Some(SandboxMetadata {
                name,
                uid,
                namespace,
                attempt,
            }),
            state: SandboxState::Ready,
            created_at,
            network: (!host).then(|| SandboxNetwork {
                ip,
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
        self.pod.add_sandbox(sandbox);
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
        let created = self.pod.next_container_created_at(now);
        // containerd's id for the container's reserved name,
        // `name_podName_namespace_uid_attempt`, in the kubelet's form.
        let attempt = step.attempt.unwrap_or(0);
        let reserved = format!(
            "{name}_{}_{}_{uid}_{attempt}",
            pod.metadata.name.as_deref().unwrap_or(""),
            pod.metadata.namespace.as_deref().unwrap_or("")
        );
        let state = &self.pod;
        let bare = derive_id("container", &reserved, created.as_nanosecond(), |id| {
            state.has_container(&format!("{DEFAULT_RUNTIME_NAME}://{id}"))
        });
        let id = format!("{DEFAULT_RUNTIME_NAME}://{bare}");
        let record = image_record(&normalize_image(&image));
        let status = ContainerStatus {
            id,
            name: name.clone(),
            pod_sandbox_id: Some(self.sandbox_id()),
            state: ContainerState::Created,
            created_at: Some(created),
            image: image.clone(),
            // As containerd reports an image (the node's store: `node::records`): its id,
            // and its repository digest as `imageRef` (the API status's `imageID`).
            image_id: record.id,
            image_ref: record
                .repo_digests
                .first()
                .cloned()
                .unwrap_or_else(|| image.clone()),
            hash: container_hash(&name, &image),
            restart_count: i32::try_from(attempt).unwrap_or(0),
            ..ContainerStatus::default()
        };
        self.pod.add_container(status);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A sandbox, then the app container created and started: it runs in that sandbox.
    #[test]
    fn a_sandbox_a_create_and_a_start() {
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
}
