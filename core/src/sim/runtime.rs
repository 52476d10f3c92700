//! [`Runtime`]: the simulated runtime of one pod — the per-pod view of a
//! [`Node`](super::node::Node) — carrying out a plan one step at a time: each
//! [`Step`](crate::plan::Step) becomes the CRI calls the kubelet would issue for it on the
//! node (`RunPodSandbox` with the pod's `PodSandboxConfig`, `CreateContainer` with the
//! container's `ContainerConfig`, preStop then `StopContainer` with the grace period as
//! timeout, `StopPodSandbox`, ...). What is not the runtime's is kept here: the kubelet's
//! actuated-resources checkpoint, the node files written, the hooks' results and the time
//! the sync spends blocked.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;

use super::hooks::HookControls;
use super::images;
use super::model::{plus_millis, pod_uid, Outcome};
use super::node::{ImagesScript, Node, Scenario, DEFAULT_RUNTIME_NAME};
use crate::config::labels::{CONTAINER_HASH, CONTAINER_RESTART_COUNT};
use crate::cri::{
    ContainerConfig, ContainerMetadata, ImageSpec, LinuxPodSandboxConfig,
    LinuxSandboxSecurityContext, NamespaceMode, NamespaceOption, PodSandboxConfig,
    PodSandboxMetadata,
};
use crate::hash::container_hash;
use crate::plan::{ContainerKind, CreateContainerStep, KillPodStep, Step};
use crate::pod::{init_or_regular_named, spec_container};
use crate::request::{ActuatedResources, PlanRequest};
use crate::runtime::{ContainerState, RuntimeStatus};

/// The simulated runtime of one pod: the node's runtime holding the pod, and the
/// kubelet's actuated-resources checkpoint. `Runtime::apply_step` carries out one step of
/// a plan; `apply_with` carries out a whole plan with it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Runtime {
    /// The node's runtime, with the pod (and its image store), once a step needs it.
    node: Node,
    /// The request's runtime status, until the first step: the node adopts it then, so a
    /// sync without steps (a steady pod) costs no node.
    pending: Option<RuntimeStatus>,
    /// The pod's UID, name and namespace: what the runtime reports when it holds nothing
    /// of the pod.
    header: RuntimeStatus,
    /// Steps carried out so far: they order the creation times of one instant.
    ops: u32,
    actuated: Option<ActuatedResources>,
    /// Node files written by `WriteNodeFiles` steps, by path (the newest write wins).
    node_files: BTreeMap<String, crate::plan::NodeFile>,
    /// What the simulated hooks do.
    hooks: HookControls,
    /// What the hooks run so far reported.
    hook_results: Vec<crate::plan::HookResult>,
    /// Time spent waiting (hooks, stops, pulls) so far: later operations happen that
    /// much later.
    blocked_millis: u64,
    /// The kubelet's view of the node's images (the request's `images`), the registry's
    /// scripted faults and the pulls carried out (`PullImage`).
    images: images::ImageStore,
}

/// A container id without its `type://` prefix, as CRI calls take it.
fn bare(id: &str) -> &str {
    id.split_once("://").map_or(id, |(_, b)| b)
}

impl Runtime {
    /// The runtime the request describes (its runtime status and actuated-resources
    /// checkpoint), on a node that has the images the kubelet sees as present. A pod the
    /// runtime does not know yet gets its id, name and namespace.
    #[must_use]
    pub(crate) fn from_request(request: &PlanRequest) -> Self {
        let mut status = request.runtime_status.clone().unwrap_or_default();
        if status.id.is_empty() {
            status.id = pod_uid(&request.pod).to_string();
            status.name = request.pod.metadata.name.clone().unwrap_or_default();
            status.namespace = request.pod.metadata.namespace.clone().unwrap_or_default();
        }
        let header = RuntimeStatus {
            id: status.id.clone(),
            name: status.name.clone(),
            namespace: status.namespace.clone(),
            ..RuntimeStatus::default()
        };
        Self {
            node: Node::default(),
            pending: Some(status),
            header,
            ops: 0,
            actuated: request.actuated_resources.clone(),
            node_files: BTreeMap::new(),
            hooks: HookControls::default(),
            hook_results: Vec::new(),
            blocked_millis: 0,
            images: images::ImageStore::from_request(request),
        }
    }

    /// The node with the request's pod on it, built on the first step: the registry as
    /// the request's images report scripts it, the containers' stop times as the hooks
    /// say.
    fn adopt_pending(&mut self) {
        let Some(status) = self.pending.take() else {
            return;
        };
        let scenario = Scenario {
            images: ImagesScript {
                registry: self.images.registry(),
                ..ImagesScript::default()
            },
            ..Scenario::default()
        };
        self.node = Node::new(DEFAULT_RUNTIME_NAME, scenario);
        self.node.adopt(status);
        for (name, seconds) in &self.hooks.exit_seconds {
            self.node.script_stop_seconds(name, *seconds);
        }
    }

    /// The runtime with `done` operations of the plan being carried out already counted:
    /// operations at one instant are ordered by their count (creation times), so carrying
    /// out step `i` of a plan on its own, on the state after steps `0..i`, takes `done = i`
    /// and gives what `apply_with` gives.
    #[must_use]
    pub(crate) fn with_operations_done(mut self, done: u32) -> Self {
        self.ops = done;
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

    /// The same runtime with the simulated world's hook behaviour; how long containers
    /// take to exit on the stop signal (`HookControls::exit_seconds`) is the node's
    /// script.
    #[must_use]
    pub(crate) fn with_hooks(mut self, hooks: HookControls) -> Self {
        if self.pending.is_none() {
            for (name, seconds) in &hooks.exit_seconds {
                self.node.script_stop_seconds(name, *seconds);
            }
        }
        self.hooks = hooks;
        self
    }

    /// What the runtime reports now (containers newest first, as a CRI runtime lists
    /// them); the unit tests read it between steps.
    #[cfg(test)]
    #[must_use]
    pub(crate) fn status(&self) -> RuntimeStatus {
        match &self.pending {
            Some(status) => status.clone(),
            None => self
                .node
                .pod_status(&self.header.id)
                .unwrap_or_else(|| self.header.clone()),
        }
    }

    /// The state as an [`Outcome`].
    #[must_use]
    pub(crate) fn into_outcome(self) -> Outcome {
        let mut node = self.node;
        let ((images, pull_results), runtime_status) = match self.pending {
            // No step ran: the status and the registry are the request's.
            Some(status) => {
                let registry = self.images.registry();
                (self.images.into_parts(&registry), status)
            }
            None => (
                self.images.into_parts(node.registry_faults()),
                node.take_pod_status(&self.header.id).unwrap_or(self.header),
            ),
        };
        Outcome {
            runtime_status,
            actuated_resources: self.actuated,
            hook_results: self.hook_results,
            blocked_millis: self.blocked_millis,
            images,
            pull_results,
        }
    }

    /// The pod's container statuses, oldest first.
    fn containers(&self) -> &[crate::runtime::ContainerStatus] {
        self.node
            .pod_state(&self.header.id)
            .map_or(&[], |p| p.status.container_statuses.as_slice())
    }

    /// The pod's sandbox ids, newest first.
    fn sandbox_ids(&self) -> Vec<String> {
        self.node
            .pod_state(&self.header.id)
            .map(|p| {
                p.status
                    .sandbox_statuses
                    .iter()
                    .map(|s| s.id.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Carries out one step of a plan for `pod` at time `now`: the CRI calls the kubelet
    /// issues for it, on the node. A call the runtime refuses (an id it does not have, a
    /// start in a sandbox that is not ready) changes nothing, as a failed CRI call does;
    /// the next sync sees the state as it is.
    pub(crate) fn apply_step(&mut self, pod: &Pod, step: &Step, now: jiff::Timestamp) {
        self.ops += 1;
        self.adopt_pending();
        if !self.node.has_pod(&self.header.id) {
            self.node.adopt(self.header.clone());
        }
        // Each RPC that creates something counts itself: the step's count is then its own.
        self.node
            .set_operations_done(&self.header.id, self.ops.saturating_sub(1));
        // Time spent in hooks earlier in the plan delays what follows.
        let now = plus_millis(now, self.blocked_millis);
        match step {
            Step::KillPod(kill) if !kill.kills.is_empty() => self.kill_pod(kill, now),
            Step::KillPod(kill) => self.kill_all(kill, now),
            Step::RemovePodSandbox(remove) => {
                let id = remove.sandbox_id.as_deref().unwrap_or("");
                // Removing a sandbox the runtime does not have succeeds.
                let _ = self.node.remove_pod_sandbox(id, now);
            }
            Step::CleanupPod(cleanup) => {
                for p in &cleanup.paths {
                    let dir = format!("{}/", p.path.trim_end_matches('/'));
                    self.node_files
                        .retain(|path, _| path != &p.path && !path.starts_with(&dir));
                }
            }
            Step::KillContainer(kill) => {
                let id = kill.container_id.as_deref().unwrap_or("");
                let grace = kill.grace_period_seconds.unwrap_or(0);
                self.kill(id, kill.pre_stop.as_ref(), grace, now);
            }
            Step::RemoveContainer(remove) => {
                let id = remove.container_id.as_deref().unwrap_or("");
                let _ = self.node.remove_container(bare(id), now);
            }
            Step::RunPodSandbox(run) => {
                self.run_sandbox(pod, run.attempt.unwrap_or(0), now);
                self.initialize_actuated(pod);
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
                let reference = pull.image_spec.as_ref().map_or(image, |s| s.image.as_str());
                let answer = self.node.pull_image(reference, now).map(|id| {
                    let size = self.node.image_status(&id).map_or(0, |i| i.size);
                    (id, size)
                });
                let took = self.images.record_pull(pull, now, answer, set);
                self.blocked_millis = self.blocked_millis.saturating_add(took);
            }
            Step::CreateContainer(create) => self.create(pod, create, now),
            Step::StartContainer(start) => {
                let name = start.container.as_deref().unwrap_or("");
                let Some(id) = self
                    .containers()
                    .iter()
                    .rev()
                    .find(|s| s.name == name && s.state == ContainerState::Created)
                    .map(|s| s.id.clone())
                else {
                    return;
                };
                if self.node.start_container(bare(&id), now).is_err() {
                    return;
                }
                // startContainer step 4: a failing postStart kills the container.
                if let Some(failed) = start
                    .post_start
                    .as_ref()
                    .and_then(|h| self.hooks.post_start(h, &id))
                {
                    self.hook_results.push(failed);
                    let grace = start.grace_period_seconds.unwrap_or(0);
                    self.kill(&id, start.pre_stop.as_ref(), grace, now);
                }
            }
        }
    }

    /// `InitializeActuatedPod` (1.37): a pod the checkpoint has no record of gets every
    /// init and regular container's resources recorded as actuated before its first
    /// sync, so a container that is never created (a config error) is not "resized" on
    /// every sync; and the admitted pod-level resources.
    fn initialize_actuated(&mut self, pod: &Pod) {
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
        let recorded = self.actuated.as_ref().is_some_and(|a| a.pod.is_some());
        if !recorded {
            if let Some(r) = pod.spec.as_ref().and_then(|s| s.resources.clone()) {
                self.actuated.get_or_insert_with(Default::default).pod = Some(r);
            }
        }
    }

    /// `StopPodSandbox` of every sandbox of the pod at `now`: what is still running is
    /// killed without a grace period.
    fn stop_sandboxes(&mut self, now: jiff::Timestamp) {
        for id in self.sandbox_ids() {
            let _ = self.node.stop_pod_sandbox(&id, now);
        }
    }

    /// A `KillPod` without per-container kills: each running container's preStop (if the
    /// step has one for it), then its `StopContainer` with the pod's grace period; the
    /// sync is blocked until the last one has exited; then every sandbox is stopped.
    fn kill_all(&mut self, kill: &KillPodStep, now: jiff::Timestamp) {
        let running: Vec<String> = self
            .containers()
            .iter()
            .rev()
            .filter(|s| s.state == ContainerState::Running)
            .map(|s| s.id.clone())
            .collect();
        let mut longest = 0;
        for id in running {
            let (waited, grace) = match kill
                .pre_stops
                .iter()
                .find(|h| h.container_id.as_deref() == Some(id.as_str()))
            {
                Some(h) => {
                    let r = self.hooks.pre_stop(h, &id);
                    let waited = r.elapsed_millis.unwrap_or(0);
                    let grace = r.stop_grace_period_seconds.unwrap_or(0);
                    self.hook_results.push(r);
                    (waited, grace)
                }
                None => (0, kill.grace_period_seconds.unwrap_or(0)),
            };
            let stop_at = plus_millis(now, waited);
            let exited = self
                .node
                .stop_container(bare(&id), grace, stop_at)
                .unwrap_or(stop_at);
            longest = longest.max(millis_between(now, exited));
        }
        self.blocked_millis += longest;
        self.stop_sandboxes(plus_millis(now, longest));
    }

    /// A `KillPod` with its kills, as the kubelet carries it out
    /// ([`crate::terminate::kill_timeline`]): every kill at once, each its preStop hook,
    /// then its wait for the containers it stops after, then `StopContainer` with what is
    /// left of its grace period; the node says when each container exits
    /// (`HookControls::exit_seconds` is its script). The sync is blocked until the last
    /// one has exited; then every sandbox is stopped (`StopPodSandbox` kills what the
    /// kills did not name).
    fn kill_pod(&mut self, step: &KillPodStep, now: jiff::Timestamp) {
        let running: std::collections::BTreeSet<&str> = self
            .containers()
            .iter()
            .filter(|s| s.state == ContainerState::Running)
            .map(|s| s.id.as_str())
            .collect();
        let kills: Vec<crate::plan::ContainerKill> = step
            .kills
            .iter()
            .filter(|k| running.contains(k.container_id.as_str()))
            .cloned()
            .collect();
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
        for ((t, r), k) in timeline.iter().zip(&result_of).zip(&kills) {
            if let Some(r) = r.and_then(|r| results.get_mut(r)) {
                r.stop_grace_period_seconds = Some(t.stop_grace_period_seconds);
            }
            last = last.max(t.exited_at_millis);
            let _ = self.node.stop_container(
                bare(&k.container_id),
                t.stop_grace_period_seconds,
                plus_millis(now, t.stop_at_millis),
            );
        }
        self.hook_results.extend(results);
        self.blocked_millis += last;
        self.stop_sandboxes(plus_millis(now, last));
    }

    /// `killContainer` of one container: its preStop hook (if the kill has one), then
    /// `StopContainer` with the grace period left (`grace` without a hook); the sync waits
    /// until the container has exited.
    fn kill(
        &mut self,
        id: &str,
        pre_stop: Option<&crate::plan::HookStep>,
        grace: i64,
        now: jiff::Timestamp,
    ) {
        let running = self
            .containers()
            .iter()
            .any(|s| s.id == id && s.state == ContainerState::Running);
        let (waited, grace) = match pre_stop {
            Some(h) if running => {
                let r = self.hooks.pre_stop(h, id);
                let waited = r.elapsed_millis.unwrap_or(0);
                let grace = r.stop_grace_period_seconds.unwrap_or(grace);
                self.hook_results.push(r);
                (waited, grace)
            }
            _ => (0, grace),
        };
        let stop_at = plus_millis(now, waited);
        let exited = self
            .node
            .stop_container(bare(id), grace, stop_at)
            .unwrap_or(stop_at);
        self.blocked_millis += millis_between(now, exited);
    }

    /// `RunPodSandbox` with the pod's sandbox config (its metadata and network namespace:
    /// what the runtime's answer depends on). The pod network hands the sandbox of
    /// attempt `n` the `n`-th address, as a node whose IPAM handed out one address per
    /// earlier sandbox.
    fn run_sandbox(&mut self, pod: &Pod, attempt: u32, now: jiff::Timestamp) {
        let host = pod
            .spec
            .as_ref()
            .and_then(|s| s.host_network)
            .unwrap_or(false);
        let config = PodSandboxConfig {
            metadata: Some(PodSandboxMetadata {
                name: pod.metadata.name.clone().unwrap_or_default(),
                uid: pod_uid(pod).to_string(),
                namespace: pod.metadata.namespace.clone().unwrap_or_default(),
                attempt,
            }),
            linux: host.then(|| LinuxPodSandboxConfig {
                security_context: Some(LinuxSandboxSecurityContext {
                    namespace_options: Some(NamespaceOption {
                        network: NamespaceMode::Node,
                        ..NamespaceOption::default()
                    }),
                    ..LinuxSandboxSecurityContext::default()
                }),
                ..LinuxPodSandboxConfig::default()
            }),
            ..PodSandboxConfig::default()
        };
        self.node.skip_ips(attempt);
        let _ = self.node.run_pod_sandbox(&config, "", now);
    }

    /// `CreateContainer` in the newest sandbox with the container's config (its metadata,
    /// image and the kubelet's hash and restart-count annotations); the container's
    /// resources are recorded as actuated.
    fn create(&mut self, pod: &Pod, step: &CreateContainerStep, now: jiff::Timestamp) {
        let (Some(kind), Some(idx)) = (step.kind, step.index) else {
            return;
        };
        let Some(spec) = pod.spec.as_ref().and_then(|s| spec_container(s, kind, idx)) else {
            return;
        };
        let (name, image) = (spec.name.to_string(), spec.image.to_string());
        let attempt = step.attempt.unwrap_or(0);
        let config = ContainerConfig {
            metadata: Some(ContainerMetadata {
                name: name.clone(),
                attempt,
            }),
            image: Some(ImageSpec {
                image: image.clone(),
                user_specified_image: image.clone(),
                ..ImageSpec::default()
            }),
            annotations: [
                (
                    CONTAINER_HASH.to_string(),
                    format!("{:x}", container_hash(&name, &image)),
                ),
                (CONTAINER_RESTART_COUNT.to_string(), attempt.to_string()),
            ]
            .into(),
            ..ContainerConfig::default()
        };
        // The node has the images the kubelet sees as present (every image when the image
        // manager is off: the kubelet never pulls then), loaded when first used (a load
        // keeps an image the node has as it is).
        if self.images.present(&image) {
            self.node.load_image(&image);
        }
        let sandbox = self.sandbox_ids().into_iter().next().unwrap_or_default();
        if self.node.create_container(&sandbox, &config, now).is_err() {
            return;
        }
        if kind != ContainerKind::Ephemeral {
            self.actuated
                .get_or_insert_with(Default::default)
                .containers
                .insert(name, spec.resources.cloned().unwrap_or_default());
        }
    }
}

/// Milliseconds from `from` to `to` (0 when `to` is earlier).
fn millis_between(from: jiff::Timestamp, to: jiff::Timestamp) -> u64 {
    u64::try_from((to.as_nanosecond() - from.as_nanosecond()) / 1_000_000).unwrap_or(0)
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
