//! The sync loop: relist the runtime (as the kubelet's PLEG, every second), then sync each
//! static pod whose inputs changed (its runtime status, its manifest, its probe results),
//! whose back-off ended, whose last sync failed, or whose `--sync-frequency` is up.
//!
//! A sync builds a [`PlanRequest`] (the pod, its runtime status, probe results, feature
//! gates, the node context with the directories, cgroup driver and host DNS, `now`, the
//! back-off records, previous status and reason cache of the last plan, the node's images
//! of the pod as `ImageStatus` reports them, the image-pull back-off of the last plan, and
//! the pull and hook results of the last execution, once), asks the [`Planner`] and
//! carries the plan out ([`execute`]). A plan that pulled images is followed at once by
//! another sync of that pod (the kubelet pulls and starts in one sync; podplan re-plans
//! after the pull). A module failure (`HostError`) skips that pod's sync. Pods whose manifest is gone are killed, then removed. Container
//! GC keeps the newest exited instance of each container. Sandboxes without the agent's
//! label are warned about once and left alone.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;
use podplan_core::config::node::{
    CgroupDriver, CgroupVersion, HostDns, KubeletSettings, NodeContext,
};
use podplan_core::plan::{
    BackoffRecord, HookResult, ImageBackoffRecord, PullResultRecord, ReasonCache, ReasonCacheEntry,
};
use podplan_core::request::ProbeResults;
use podplan_core::runtime::{ContainerState, RuntimeStatus, SandboxState};
use podplan_core::{Plan, PlanRequest};
use serde::Serialize;

use super::credentials::{DockerConfigSearch, NodeKeyring};
use super::executor::{execute, Execution, SyncFailure};
use super::manifest::{ManifestProblem, ManifestSet, StaticPod, AGENT_LABEL};
use super::prober::Prober;
use super::runtime::{bare_id, CriCode, CriRuntime};
use crate::wasm::Planner;

/// The agent's settings (the command line's flags).
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// `--node-name`.
    pub node_name: String,
    /// `--root-dir`.
    pub root_dir: String,
    /// `--pod-logs-dir`.
    pub pod_logs_dir: String,
    /// `--feature-gates`.
    pub feature_gates: BTreeMap<String, bool>,
    /// `--cgroup-driver`.
    pub cgroup_driver: CgroupDriver,
    /// The node's cgroup hierarchy (`None`: the engine's default, v2). The kubelet detects
    /// it; a config for v2 (`linux.resources.unified`) is rejected by runc on a v1 host.
    pub cgroup_version: Option<CgroupVersion>,
    /// The node's DNS (`--resolv-conf`), when read.
    pub host_dns: Option<HostDns>,
    /// `--sync-frequency`, seconds.
    pub sync_frequency_seconds: i64,
    /// `--dry-run`: plan, change nothing.
    pub dry_run: bool,
    /// Where the node's docker config (pull credentials) is looked for
    /// ([`DockerConfigSearch::kubelet`] for the kubelet's search).
    pub docker_config: DockerConfigSearch,
}

/// What the agent keeps in memory about one pod between syncs (there is no database:
/// after a restart everything is relisted from the runtime).
#[derive(Debug, Clone, Default)]
struct PodMemory {
    pod: Option<Pod>,
    backoff: Vec<BackoffRecord>,
    image_backoff: Vec<ImageBackoffRecord>,
    pull_results: Vec<PullResultRecord>,
    hook_results: Vec<HookResult>,
    previous_status: Option<k8s_openapi::api::core::v1::PodStatus>,
    reason_cache: ReasonCache,
    fingerprint: u64,
    last_sync: Option<jiff::Timestamp>,
    next_due: Option<jiff::Timestamp>,
    failed: bool,
    report: Option<PodReport>,
}

/// The last sync of one pod, as `status.json` reports it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodReport {
    /// Pod UID.
    pub uid: String,
    /// `namespace/name`.
    pub pod: String,
    /// The manifest (none for a pod being removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// When it was last synced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synced_at: Option<jiff::Timestamp>,
    /// The `kubectl get pods` row of the last plan: ready, status, restarts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kubectl: Option<podplan_core::plan::KubectlRow>,
    /// The last plan's effective decisions, in words (`action container: reason`).
    pub decisions: Vec<String>,
    /// The steps carried out and what became of each.
    pub steps: Vec<super::executor::StepRecord>,
    /// Failed steps.
    pub failures: Vec<SyncFailure>,
    /// Why the sync ended early, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
    /// The engine's or the module's error, when there was no plan.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What one round did.
#[derive(Debug, Clone, Default)]
pub struct Round {
    /// Pods synced, with their plans (`--once` prints them).
    pub synced: Vec<(StaticPod, Plan)>,
    /// Pods removed (manifest gone).
    pub removed: Vec<String>,
    /// Errors of the round (a failed pod sync, a module failure, a failed removal).
    pub errors: Vec<String>,
}

/// The agent: planner, runtime, and memory of the pods.
pub struct Agent {
    config: AgentConfig,
    planner: Planner,
    cri: Box<dyn CriRuntime>,
    pods: BTreeMap<String, PodMemory>,
    prober: Prober,
    warned_foreign: BTreeSet<String>,
    keyring: NodeKeyring,
    /// Problems of the last manifest read.
    pub manifest_problems: Vec<ManifestProblem>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn fingerprint(parts: &[&dyn erased::Fingerprint]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for p in parts {
        p.bytes().hash(&mut h);
    }
    h.finish()
}

mod erased {
    /// Anything serialisable, fingerprinted by its JSON.
    pub trait Fingerprint {
        fn bytes(&self) -> Vec<u8>;
    }
    impl<T: serde::Serialize> Fingerprint for T {
        fn bytes(&self) -> Vec<u8> {
            serde_json::to_vec(self).unwrap_or_default()
        }
    }
}

impl Agent {
    /// An agent planning with `planner` over `cri`.
    #[must_use]
    pub fn new(config: AgentConfig, planner: Planner, cri: Box<dyn CriRuntime>) -> Self {
        Self {
            keyring: NodeKeyring::new(config.docker_config.clone()),
            config,
            planner,
            cri,
            pods: BTreeMap::new(),
            prober: Prober::default(),
            warned_foreign: BTreeSet::new(),
            manifest_problems: Vec::new(),
        }
    }

    /// The planner.
    #[must_use]
    pub fn planner(&self) -> &Planner {
        &self.planner
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &AgentConfig {
        &self.config
    }

    /// The last report of every known pod.
    #[must_use]
    pub fn reports(&self) -> Vec<PodReport> {
        self.pods
            .values()
            .filter_map(|m| m.report.clone())
            .collect()
    }

    /// The node context of every request.
    #[must_use]
    pub fn node_context(&self) -> NodeContext {
        NodeContext {
            name: Some(self.config.node_name.clone()),
            cgroup_driver: Some(self.config.cgroup_driver),
            cgroup_version: self.config.cgroup_version,
            host_dns: self.config.host_dns.clone(),
            kubelet: KubeletSettings {
                root_dir: Some(self.config.root_dir.clone()),
                pod_logs_dir: Some(self.config.pod_logs_dir.clone()),
                ..KubeletSettings::default()
            },
            ..NodeContext::default()
        }
    }

    /// One round at `now`: relist, sync what is due (`force`: every pod), remove pods
    /// whose manifest is gone, collect garbage.
    ///
    /// # Errors
    ///
    /// The runtime could not be listed (the whole round is skipped).
    pub fn round(
        &mut self,
        manifests: &ManifestSet,
        now: jiff::Timestamp,
        force: bool,
    ) -> Result<Round, super::runtime::CriError> {
        self.manifest_problems.clone_from(&manifests.problems);
        let listed = self.cri.relist()?;
        let mut ours: BTreeMap<String, RuntimeStatus> = BTreeMap::new();
        let wanted: BTreeSet<&str> = manifests.pods.iter().map(StaticPod::uid).collect();
        for status in listed {
            let labelled = status.sandbox_statuses.iter().any(|s| {
                s.labels.get(AGENT_LABEL).map(String::as_str)
                    == Some(self.config.node_name.as_str())
            });
            let orphan_of_ours = status.sandbox_statuses.is_empty()
                && (wanted.contains(status.id.as_str()) || self.pods.contains_key(&status.id));
            if labelled || orphan_of_ours {
                ours.insert(status.id.clone(), status);
            } else if self.warned_foreign.insert(status.id.clone()) {
                tracing::warn!(
                    pod = %format!("{}/{}", status.namespace, status.name),
                    uid = %status.id,
                    "the runtime has a pod without the label {AGENT_LABEL}={}; it is left alone",
                    self.config.node_name
                );
            }
        }
        let listed: BTreeSet<String> = ours.keys().cloned().collect();
        let mut round = Round::default();
        let mut live_ids = BTreeSet::new();
        for status in ours.values() {
            live_ids.extend(status.container_statuses.iter().map(|c| c.id.clone()));
        }
        self.prober.retain(&live_ids);
        for sp in &manifests.pods {
            let status = ours.get(sp.uid()).cloned();
            self.sync_pod(sp, status, now, force, &mut round);
        }
        if !self.config.dry_run {
            let gone: Vec<String> = ours
                .keys()
                .filter(|uid| !wanted.contains(uid.as_str()))
                .cloned()
                .collect();
            for uid in gone {
                if let Some(status) = ours.remove(&uid) {
                    self.remove_pod(&uid, &status, &mut round);
                }
            }
            for status in ours.values() {
                self.collect_garbage(status);
            }
        }
        // Pods still in the runtime are remembered (a removal that failed is retried with
        // the pod's grace period); the others are forgotten.
        self.pods
            .retain(|uid, _| wanted.contains(uid.as_str()) || listed.contains(uid));
        Ok(round)
    }

    /// Syncs one pod if it is due; a sync that pulled images is followed at once by
    /// another (relisting the pod first), as the kubelet's sync goes on after a pull: the
    /// plans go into `round.synced`.
    fn sync_pod(
        &mut self,
        sp: &StaticPod,
        status: Option<RuntimeStatus>,
        now: jiff::Timestamp,
        force: bool,
        round: &mut Round,
    ) {
        let mut status = status;
        let mut force = force;
        // Each re-plan completes at least one pull: at most one per image, plus one.
        for _ in 0..=podplan_core::pod::images(&sp.pod).len() {
            let Some((plan, pulled)) = self.sync_pod_once(sp, status, now, force, round) else {
                return;
            };
            round.synced.push((sp.clone(), plan));
            if !pulled {
                return;
            }
            status = match self.cri.relist() {
                Ok(listed) => listed.into_iter().find(|s| s.id == sp.uid()),
                Err(e) => {
                    round
                        .errors
                        .push(super::executor::unreachable("the runtime", &e));
                    return;
                }
            };
            force = true;
        }
    }

    /// One sync of a pod (when due): the plan, and whether it pulled images.
    fn sync_pod_once(
        &mut self,
        sp: &StaticPod,
        status: Option<RuntimeStatus>,
        now: jiff::Timestamp,
        force: bool,
        round: &mut Round,
    ) -> Option<(Plan, bool)> {
        let uid = sp.uid().to_string();
        let probes: BTreeMap<String, ProbeResults> = match &status {
            Some(s) if !self.config.dry_run => {
                self.prober.probe_pod(self.cri.as_mut(), &sp.pod, s, now)
            }
            _ => BTreeMap::new(),
        };
        let memory = self.pods.entry(uid.clone()).or_default();
        let print = fingerprint(&[&sp.pod, &status, &probes]);
        let due = force
            || memory.failed
            || memory.fingerprint != print
            || memory.next_due.is_none_or(|t| t <= now);
        if !due {
            return None;
        }
        memory.pod = Some(sp.pod.clone());
        let node = self.node_context();
        let images = super::images::report(self.cri.as_mut(), &sp.pod);
        let node_credentials = self.keyring.get(now).clone();
        let memory = self.pods.entry(uid.clone()).or_default();
        let request = PlanRequest {
            pod: sp.pod.clone(),
            runtime_status: status,
            probes,
            feature_gates: self.config.feature_gates.clone(),
            node: Some(node),
            now: Some(now),
            api_defaults: true,
            backoff: memory.backoff.clone(),
            previous_status: memory.previous_status.clone(),
            reason_cache: memory.reason_cache.clone(),
            images: Some(images),
            image_backoff: memory.image_backoff.clone(),
            // The last execution's results, handed in once (replaced by this execution's
            // once the plan is made; kept when there is no plan).
            pull_results: memory.pull_results.clone(),
            hook_results: memory.hook_results.clone(),
            node_credentials,
            ..PlanRequest::default()
        };
        let mut report = PodReport {
            uid: uid.clone(),
            pod: sp.full_name(),
            file: Some(sp.file.display().to_string()),
            synced_at: Some(now),
            ..PodReport::default()
        };
        let answer = self.planner.plan(&request);
        let memory = self.pods.entry(uid.clone()).or_default();
        memory.last_sync = Some(now);
        let mut plan = match answer {
            Ok(Ok(plan)) => plan,
            Ok(Err(e)) => {
                let msg = format!("{}: {}: {}", sp.file.display(), e.path, e.message);
                tracing::error!(pod = %sp.full_name(), "the engine refused the pod: {msg}");
                report.error = Some(msg.clone());
                memory.report = Some(report);
                memory.failed = true;
                round.errors.push(msg);
                return None;
            }
            Err(e) => {
                let msg = format!(
                    "the planning module failed; sync of {} skipped: {e}",
                    sp.full_name()
                );
                tracing::error!("{msg}");
                report.error = Some(msg.clone());
                memory.report = Some(report);
                memory.failed = true;
                round.errors.push(msg);
                return None;
            }
        };
        report.kubectl = plan.kubectl.clone();
        report.decisions = plan
            .decisions
            .iter()
            .filter(|d| d.step.is_some())
            .map(|d| match &d.container {
                Some(c) => format!("{:?} {c}: {}", d.action, d.reason),
                None => format!("{:?}: {}", d.action, d.reason),
            })
            .collect();
        let planned = plan.clone();
        let execution = if self.config.dry_run {
            Execution::default()
        } else {
            for event in &plan.events {
                tracing::info!(
                    pod = %sp.full_name(),
                    container = event.container.as_deref().unwrap_or(""),
                    reason = %event.reason,
                    "{}",
                    event.message
                );
            }
            execute(self.cri.as_mut(), &request, &mut plan)
        };
        let memory = self.pods.entry(uid).or_default();
        memory.backoff.clone_from(&plan.backoff);
        memory.image_backoff.clone_from(&plan.image_backoff);
        let pulled = !execution.pull_results.is_empty();
        memory.pull_results.clone_from(&execution.pull_results);
        memory.hook_results.clone_from(&execution.hook_results);
        memory.previous_status.clone_from(&plan.status);
        memory.reason_cache.clone_from(&plan.reason_cache);
        for f in &execution.failures {
            if let Some(c) = &f.container {
                if matches!(
                    f.reason.as_str(),
                    "CreateContainerError" | "RunContainerError" | "CreateContainerConfigError"
                ) {
                    memory.reason_cache.insert(
                        c.clone(),
                        ReasonCacheEntry {
                            reason: f.reason.clone(),
                            message: f.message.clone(),
                        },
                    );
                }
            }
            round
                .errors
                .push(format!("{}: {}: {}", sp.full_name(), f.reason, f.message));
        }
        // A plan with start errors (ErrImagePull, ImagePullBackOff, ...) is a failed sync
        // as the kubelet counts them: it is retried on the next round (the engine's
        // back-offs decide what the retry does).
        memory.failed = !execution.ok() || !plan.errors.is_empty();
        memory.fingerprint = print;
        // The next sync: when a held-back start's back-off ends, else at --sync-frequency.
        let resync = now
            .checked_add(jiff::SignedDuration::from_secs(
                self.config.sync_frequency_seconds.max(1),
            ))
            .ok();
        let backoff_end = plan.held_back.iter().filter_map(|h| h.until).min();
        memory.next_due = match (backoff_end, resync) {
            (Some(b), Some(r)) => Some(b.min(r)),
            (b, r) => b.or(r),
        };
        // A sync that changed something is followed by a relist-driven one anyway; a
        // sync with steps is due again at once so that starts after a kill happen.
        if !plan.steps.is_empty() && !self.config.dry_run {
            memory.next_due = Some(now);
        }
        report.steps = execution.steps;
        report.failures = execution.failures;
        report.aborted = execution.aborted;
        // A sync with nothing to do keeps the last report's decisions and steps.
        match memory.report.as_mut() {
            Some(last)
                if plan.steps.is_empty() && report.failures.is_empty() && last.error.is_none() =>
            {
                last.synced_at = report.synced_at;
                last.kubectl = report.kubectl;
            }
            _ => memory.report = Some(report),
        }
        Some((planned, pulled))
    }

    /// A pod whose manifest is gone: stop its containers (the pod's grace period when
    /// the agent still knows the pod, else the kubelet's minimum; a known container's
    /// preStop hook first, `podplan_core::hooks::kill_container`), stop its sandboxes,
    /// then remove them all.
    fn remove_pod(&mut self, uid: &str, status: &RuntimeStatus, round: &mut Round) {
        let pod = self
            .pods
            .get(uid)
            .and_then(|m| m.pod.clone())
            .map(|pod| {
                super::executor::defaulted_pod(&PlanRequest {
                    pod,
                    api_defaults: true,
                    ..PlanRequest::default()
                })
            })
            .unwrap_or_default();
        let name = format!("{}/{}", status.namespace, status.name);
        let mut errors = Vec::new();
        let running = status
            .container_statuses
            .iter()
            .filter(|c| c.state == ContainerState::Running)
            .collect();
        let pod_ip = status.ips.first().map(String::as_str);
        for c in super::executor::kill_order(&pod, running) {
            // An unknown pod (after a restart) gets the kubelet's minimum.
            let mut grace = super::executor::container_grace(&pod, &c.name);
            // `killContainer`: the container's preStop hook first, as the engine describes
            // it; `StopContainer` gets what is left of the grace period.
            let spec = pod.spec.as_ref().and_then(|s| {
                s.containers
                    .iter()
                    .chain(s.init_containers.iter().flatten())
                    .find(|x| x.name == c.name)
            });
            let (_, pre_stop) = podplan_core::hooks::kill_container(
                &pod,
                spec,
                &c.id,
                podplan_core::plan::KillReason::None,
                None,
                pod_ip,
            );
            if let Some(hook) = pre_stop {
                let result = super::hooks::pre_stop(self.cri.as_mut(), &hook, &c.id);
                if result.failed() {
                    let message = super::hooks::failure_message(&hook, &pod, &result);
                    tracing::warn!(pod = %name, container = %c.name, reason = "FailedPreStopHook", "PreStopHook failed: {message}");
                }
                grace = result.stop_grace_period_seconds.unwrap_or(grace);
            }
            tracing::info!(pod = %name, container = %c.name, grace, "Killing: the manifest is gone");
            if let Err(e) = self.cri.stop_container(bare_id(&c.id), grace) {
                if e.code != CriCode::NotFound {
                    errors.push(format!("KillContainerError: {e}"));
                }
            }
        }
        if errors.is_empty() {
            for sb in &status.sandbox_statuses {
                if let Err(e) = self.cri.stop_pod_sandbox(&sb.id) {
                    if e.code != CriCode::NotFound {
                        errors.push(format!("KillPodSandboxError: {e}"));
                    }
                }
            }
        }
        if errors.is_empty() {
            for c in &status.container_statuses {
                if let Err(e) = self.cri.remove_container(bare_id(&c.id)) {
                    if e.code != CriCode::NotFound {
                        errors.push(format!("RemoveContainer: {e}"));
                    }
                }
            }
            for sb in &status.sandbox_statuses {
                if let Err(e) = self.cri.remove_pod_sandbox(&sb.id) {
                    if e.code != CriCode::NotFound {
                        errors.push(format!("RemovePodSandbox: {e}"));
                    }
                }
            }
        }
        if errors.is_empty() {
            tracing::info!(pod = %name, uid, "removed: its manifest is gone");
            round.removed.push(name);
            self.pods.remove(uid);
        } else {
            for e in errors {
                tracing::warn!(pod = %name, "removing the pod failed; retried next round: {e}");
                round.errors.push(format!("{name}: {e}"));
            }
        }
    }

    /// Container GC: of each container name, every exited instance but the newest is
    /// removed; then not-ready sandboxes that are not the newest and hold no container.
    fn collect_garbage(&mut self, status: &RuntimeStatus) {
        let mut kept: BTreeSet<&str> = BTreeSet::new();
        let mut remaining: BTreeSet<&str> = BTreeSet::new();
        for c in &status.container_statuses {
            if c.state != ContainerState::Exited {
                if let Some(sb) = &c.pod_sandbox_id {
                    remaining.insert(sb);
                }
                continue;
            }
            if kept.insert(c.name.as_str()) {
                if let Some(sb) = &c.pod_sandbox_id {
                    remaining.insert(sb);
                }
                continue;
            }
            match self.cri.remove_container(bare_id(&c.id)) {
                Ok(()) => tracing::debug!(container = %c.id, "garbage-collected"),
                Err(e) => {
                    tracing::debug!(container = %c.id, "container GC failed: {e}");
                    if let Some(sb) = &c.pod_sandbox_id {
                        remaining.insert(sb);
                    }
                }
            }
        }
        for sb in status.sandbox_statuses.iter().skip(1) {
            if sb.state == SandboxState::NotReady && !remaining.contains(sb.id.as_str()) {
                if let Err(e) = self.cri.remove_pod_sandbox(&sb.id) {
                    tracing::debug!(sandbox = %sb.id, "sandbox GC failed: {e}");
                }
            }
        }
    }
}
