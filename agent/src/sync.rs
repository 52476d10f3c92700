//! The agent: a relist every second (as the kubelet's PLEG), and one worker per pod
//! (`pkg/kubelet/pod_workers.go`): each pod syncs, stops and is cleaned up by a worker of
//! its own, on the agent's pool of threads (`pool.rs`), which gives waiting workers
//! another thread when one is blocked: a slow stop, hook or probe of one pod never
//! delays another.
//!
//! As the kubelet's sync loop (`syncLoopIteration`) wakes a pod worker only for an event
//! (a changed pod, a PLEG event, a changed probe result) or when the pod is due
//! (`--sync-frequency`, a back-off's end, a probe's period), the relist hands a worker no
//! update when its last sync settled the pod and nothing it read has changed since
//! (`WorkerView`).
//!
//! * [`Agent::round`]: one relist, then every pod's update handed to its worker, waiting
//!   for all of them (`--once`, and tests on a virtual clock); the last update for an
//!   idle worker is carried out on the caller's thread, which would only wait otherwise.
//! * [`Agent::tick`]: the same without waiting (the run loop): a worker still busy with
//!   its last update gets the newest one when it is done (updates coalesce, as
//!   `UpdatePod` keeps only the pending one).
//!
//! A worker's sync builds a [`PlanRequest`] (the pod, its runtime status, probe results,
//! feature gates, the node context, `now`, the back-off records, previous status and
//! reason cache of the last plan, the node's images of the pod, the image-pull back-off
//! of the last plan, and the pull and hook results of the last execution, once), asks the
//! [`Planner`] and carries the plan out ([`execute`]); a plan that pulled images is
//! followed at once by another sync. A pod whose manifest is gone is terminated by its
//! worker ([`pod_kills`]), then its directories and cgroup are removed and the worker
//! ends. A static pod whose full name belongs to a pod still terminating does not start
//! until that one is gone (`allowStaticPodStart`). Container GC keeps the newest exited
//! instance of each container. Sandboxes without the agent's label are warned about once
//! and left alone.
//!
//! Probes run in the pod's worker before each sync in [`Agent::round`]; with
//! [`Agent::start_probe_workers`] they run on workers of their own (one per container
//! probe, `prober_manager.go`) and the syncs read their last results.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;
use podplan_core::plan::{
    BackoffRecord, HookResult, ImageBackoffRecord, PullResultRecord, ReasonCache, ReasonCacheEntry,
};
use podplan_core::request::node::{
    CgroupDriver, CgroupVersion, HostDns, KubeletSettings, NodeContext,
};
use podplan_core::request::ProbeResults;
use podplan_core::runtime::{ContainerState, RuntimeStatus, SandboxState};
use podplan_core::{Plan, PlanRequest};
use serde::Serialize;

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, PoisonError};

use super::cgroups::NodeCgroups;
use super::credentials::{DockerConfigSearch, NodeKeyring};
use super::executor::{event_happened, execute, pod_kills, Execution, SyncFailure};
use super::manifest::{full_name, ManifestProblem, ManifestSet, StaticPod, AGENT_LABEL};
use super::pool::Pool;
use super::prober::{ProbeTable, Prober};
use super::runtime::{bare_id, CriCode, CriRuntime};
use podplan_wasmhost::Planner;

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
    /// `--node-ip`: the node's address (`status.hostIP`, the `status.hostIP` downward
    /// API, hostNetwork pods' IP).
    pub node_ip: Option<String>,
    /// The cgroup filesystem (`/sys/fs/cgroup`) whose pod cgroups the agent keeps and
    /// removes with their pods; `None`: cgroups are not touched (the simulated runtime).
    pub cgroup_root: Option<std::path::PathBuf>,
    /// `--cgroups-per-qos`: the agent makes the QoS and pod cgroups (cgroupfs driver,
    /// with a `cgroup_root`), as the kubelet's container manager does.
    pub cgroups_per_qos: bool,
    /// `--pod-max-pids`: each pod cgroup's pids limit (-1: none).
    pub pod_max_pids: i64,
}

/// The node's QoS cgroups made and configured (`ContainerManager.Start`), when the agent
/// keeps cgroups: not in a dry run, not on the simulated runtime, not with the systemd
/// driver (logged). A failure is logged; pods still get their own cgroups.
fn node_cgroups(config: &AgentConfig) -> Option<NodeCgroups> {
    let root = config.cgroup_root.as_deref()?;
    if !config.cgroups_per_qos || config.dry_run {
        return None;
    }
    let version = config.cgroup_version.unwrap_or_default();
    let gates = podplan_core::features::FeatureGates::resolve(&config.feature_gates);
    let Some(cgroups) = NodeCgroups::new(root, config.cgroup_driver, version, gates) else {
        tracing::warn!(
            "--cgroup-driver=systemd: the QoS and pod cgroups are left to systemd and the runtime (the agent keeps them with cgroupfs only)"
        );
        return None;
    };
    if let Err(e) = cgroups.start() {
        tracing::warn!("configuring the node's QoS cgroups failed: {e}");
    }
    Some(cgroups)
}

/// `prctl(PR_SET_THP_DISABLE)` for the agent's process (see [`Agent::with_factory`]),
/// what mimalloc's `MIMALLOC_ALLOW_THP=0` does; a kernel that refuses leaves THP as it is.
fn disable_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = rustix::thread::disable_transparent_huge_pages(true) {
        tracing::debug!("transparent huge pages stay on for the agent: {e}");
    }
}

/// Locks a mutex, a poisoned one too (a panicking worker must not stop the others).
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What the agent keeps in memory about one pod between syncs (there is no database:
/// after a restart everything is relisted from the runtime).
#[derive(Debug, Clone, Default)]
struct PodMemory {
    pod: Option<Arc<StaticPod>>,
    /// The manifest's pod with the API server's defaults, made once per manifest instead
    /// of on every sync (`apiDefaults`): `None` when the API server's checks refuse the
    /// pod, whose syncs then ask the engine with `apiDefaults` (it says why), and while
    /// it is lent to a sync's request.
    defaulted: Option<(Arc<StaticPod>, Option<Pod>)>,
    /// The manifest's images as the image service is asked about them
    /// ([`super::images::names`]), made once per manifest.
    images: Option<(Arc<StaticPod>, Arc<[String]>)>,
    backoff: Vec<BackoffRecord>,
    image_backoff: Vec<ImageBackoffRecord>,
    pull_results: Vec<PullResultRecord>,
    hook_results: Vec<HookResult>,
    previous_status: Option<k8s_openapi::api::core::v1::PodStatus>,
    reason_cache: ReasonCache,
    /// What the last sync read (its change makes the pod due).
    inputs: Option<Arc<SyncInputs>>,
    last_sync: Option<jiff::Timestamp>,
    next_due: Option<jiff::Timestamp>,
    failed: bool,
    report: Option<PodReport>,
    /// When the last sync's CRI calls were done: a relist that started before it does
    /// not show what that sync did (the kubelet's `podCache.GetNewerThan`).
    synced_at: Option<std::time::Instant>,
}

impl PodMemory {
    /// The pod a sync's request carries and whether the engine still has to apply the
    /// API server's defaults to it: the defaulted pod of [`Self::defaulted`] (made anew
    /// when the manifest changed), lent to the request and taken back after the sync
    /// ([`Self::take_back_pod`]). A request with the defaulted pod and without
    /// `apiDefaults` gets the plan that the manifest's pod gets with it.
    fn request_pod(&mut self, sp: &Arc<StaticPod>, gates: &BTreeMap<String, bool>) -> (Pod, bool) {
        let defaulted = match self.defaulted.take() {
            Some((of, pod)) if Arc::ptr_eq(&of, sp) || *of == **sp => pod,
            _ => podplan_core::api::api_server_pod(&sp.pod, gates).ok(),
        };
        // Until the pod is taken back, the slot is empty: a sync that does not give it
        // back leaves the next one to the engine's `apiDefaults` (slower, not wrong).
        self.defaulted = Some((Arc::clone(sp), None));
        match defaulted {
            Some(pod) => (pod, false),
            None => (sp.pod.clone(), true),
        }
    }

    /// The images of `sp` to ask the image service about (made anew when the manifest
    /// changed).
    fn image_names(&mut self, sp: &Arc<StaticPod>) -> Arc<[String]> {
        match &self.images {
            Some((of, names)) if Arc::ptr_eq(of, sp) => Arc::clone(names),
            _ => {
                let names: Arc<[String]> = super::images::names(&sp.pod).into();
                self.images = Some((Arc::clone(sp), Arc::clone(&names)));
                names
            }
        }
    }

    /// Takes back the defaulted pod lent to a request by [`Self::request_pod`].
    fn take_back_pod(&mut self, pod: Pod, api_defaults: bool) {
        if let (false, Some((_, slot))) = (api_defaults, self.defaulted.as_mut()) {
            *slot = Some(pod);
        }
    }

    /// Takes back what a request that got no plan carried (the records it lent).
    fn restore(&mut self, request: PlanRequest) {
        self.take_back_pod(request.pod, request.api_defaults);
        self.backoff = request.backoff;
        self.previous_status = request.previous_status;
        self.reason_cache = request.reason_cache;
        self.image_backoff = request.image_backoff;
        self.pull_results = request.pull_results;
        self.hook_results = request.hook_results;
    }
}

/// What a sync reads besides the clock: the pod, its runtime status and its probe
/// results. The pod is due again when one of them changes.
#[derive(Debug)]
struct SyncInputs {
    pod: Arc<StaticPod>,
    status: Option<RuntimeStatus>,
    probes: BTreeMap<String, ProbeResults>,
}

impl SyncInputs {
    /// Whether `pod` (the same allocation, or an equal manifest) and `status` are what
    /// the sync read.
    fn same(&self, pod: &Arc<StaticPod>, status: Option<&RuntimeStatus>) -> bool {
        (Arc::ptr_eq(&self.pod, pod) || *self.pod == **pod) && self.status.as_ref() == status
    }
}

/// What the relist knows of a pod worker: whether it is busy, and what its last sync
/// read and until when that sync holds (`None`: the pod is due at the next relist).
#[derive(Debug, Default)]
struct WorkerView {
    /// Updates handed over and not yet carried out.
    pending: usize,
    /// The inputs of a sync that left nothing to do, and when the pod is due again
    /// (`--sync-frequency`, a back-off's end, the next probe).
    settled: Option<(Arc<SyncInputs>, jiff::Timestamp)>,
}

/// What a pod worker is asked to do.
#[derive(Debug, Clone)]
enum Work {
    /// Sync the pod to its manifest.
    Sync {
        pod: Arc<StaticPod>,
        status: Option<RuntimeStatus>,
        now: jiff::Timestamp,
        force: bool,
        /// When the relist that gave `status` started.
        listed: std::time::Instant,
    },
    /// The manifest is gone: stop and remove the pod, then clean up.
    Terminate { status: RuntimeStatus },
}

/// One update for a worker, and who waits for it.
struct Update {
    work: Work,
    ack: Option<Sender<Round>>,
}

/// A pod worker's updates not yet taken, and whether a job of the pool is to take them.
#[derive(Default)]
struct Mailbox {
    updates: Vec<Update>,
    /// A job for this worker is queued or running: new updates go to it.
    scheduled: bool,
    /// The worker has ended (its pod is gone, or it failed): nothing more is taken.
    closed: bool,
}

/// A pod worker: its mailbox, its state and what the relist knows of it. It runs on the
/// agent's [`Pool`] whenever its mailbox has updates.
struct WorkerHandle {
    mailbox: Arc<Mutex<Mailbox>>,
    /// The worker itself: locked by the job that carries out its updates, and by
    /// [`Agent::round`] when it carries out an idle worker's update on its own thread.
    state: Arc<Mutex<PodWorker>>,
    view: Arc<Mutex<WorkerView>>,
}

impl WorkerHandle {
    fn alive(&self) -> bool {
        !lock(&self.mailbox).closed
    }
}

/// What the agent and its workers share.
struct Shared {
    config: AgentConfig,
    planner: Planner,
    keyring: Mutex<NodeKeyring>,
    /// The last report of every pod, by UID (what `status.json` shows).
    reports: Mutex<BTreeMap<String, PodReport>>,
    /// Pods being terminated: UID → `namespace/name` (until their worker is done).
    terminating: Mutex<BTreeMap<String, String>>,
    /// The probe workers' results, when they run on their own.
    probes: Option<Arc<Mutex<ProbeTable>>>,
    /// The QoS and pod cgroups, when the agent keeps them.
    cgroups: Option<NodeCgroups>,
}

impl Shared {
    fn node_context(&self) -> NodeContext {
        let ips: Vec<String> = self.config.node_ip.iter().cloned().collect();
        NodeContext {
            name: Some(self.config.node_name.clone()),
            host_ips: ips.clone(),
            node_ips: ips,
            cgroup_driver: Some(self.config.cgroup_driver),
            cgroup_version: self.config.cgroup_version,
            host_dns: self.config.host_dns.clone(),
            kubelet: KubeletSettings {
                root_dir: Some(self.config.root_dir.clone()),
                pod_logs_dir: Some(self.config.pod_logs_dir.clone()),
                cgroups_per_qos: self.cgroups.is_some().then_some(true),
                pod_pids_limit: self.cgroups.as_ref().map(|_| self.config.pod_max_pids),
                ..KubeletSettings::default()
            },
            ..NodeContext::default()
        }
    }
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
    /// Why the pod does not start yet (a static pod of the same name still terminating).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<String>,
    /// The pod's creation time (AGE counts from it).
    #[serde(skip)]
    pub created: Option<jiff::Timestamp>,
}

/// What one round did.
#[derive(Debug, Clone, Default)]
pub struct Round {
    /// Pods synced, with their plans (`--once` prints them).
    pub synced: Vec<(Arc<StaticPod>, Plan)>,
    /// Pods removed (manifest gone).
    pub removed: Vec<String>,
    /// Errors of the round (a failed pod sync, a module failure, a failed removal).
    pub errors: Vec<String>,
}

/// The pods' reports, shared with the workers that write them.
#[derive(Clone)]
pub struct Reports(Arc<Shared>);

impl std::fmt::Debug for Reports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reports").finish_non_exhaustive()
    }
}

impl Reports {
    /// Every pod's last report, AGE as it is at `now`.
    #[must_use]
    pub fn at(&self, now: jiff::Timestamp) -> Vec<PodReport> {
        let mut reports: Vec<PodReport> = lock(&self.0.reports).values().cloned().collect();
        for r in &mut reports {
            if let (Some(created), Some(row)) = (r.created, r.kubectl.as_mut()) {
                let nanos = now.as_nanosecond() - created.as_nanosecond();
                row.age = podplan_core::status::duration::human_duration(nanos);
            }
        }
        reports
    }
}

/// The probe workers' tokio runtime. Dropped without waiting: a probe blocked in a slow
/// call must not hold up the agent's exit.
struct ProbeRuntime(Option<tokio::runtime::Runtime>);

impl Drop for ProbeRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

/// Makes a CRI client for a worker: each worker has its own, so that the calls of
/// different pods run at once.
pub type CriFactory = Arc<dyn Fn() -> Box<dyn CriRuntime> + Send + Sync>;

/// The agent: the relist, the pod workers and what they share.
pub struct Agent {
    // Declared first, dropped first: the pool closes (each of its threads ends after the
    // update it is carrying out, with that worker's CRI client; nobody waits for it)
    // before the relisting client below.
    pool: Pool,
    workers: BTreeMap<String, WorkerHandle>,
    probe_manager: Option<super::prober::ProbeManager>,
    probe_rt: ProbeRuntime,
    shared: Arc<Shared>,
    factory: CriFactory,
    cri: Box<dyn CriRuntime>,
    warned_foreign: BTreeSet<String>,
    warned_waiting: BTreeSet<String>,
    /// Problems of the last manifest read.
    pub manifest_problems: Vec<ManifestProblem>,
}

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("config", &self.shared.config)
            .field("workers", &self.workers.len())
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// An agent planning with `planner` over clones of `cri` (one per pod worker, one
    /// for the relist).
    ///
    /// # Panics
    ///
    /// Never: a tokio runtime that cannot start falls back to a current-thread one.
    #[must_use]
    pub fn new<R>(config: AgentConfig, planner: Planner, cri: R) -> Self
    where
        R: CriRuntime + Clone + Sync + 'static,
    {
        let template = cri.clone();
        let factory: CriFactory = Arc::new(move || Box::new(template.clone()));
        Self::with_factory(config, planner, factory)
    }

    /// An agent whose CRI clients come from `factory`.
    ///
    /// On Linux it turns transparent huge pages off for its process: the allocator gives
    /// each thread pages of its own, which it asks the kernel to back with huge pages, and
    /// the pod workers' pool grows by a thread for each blocked worker. With THP every
    /// such thread cost a zeroed 2 MiB page or more (measured when each pod had a thread
    /// of its own: 1,000 pods started with 3.1 GB resident, 1.9 GB without).
    #[must_use]
    pub fn with_factory(config: AgentConfig, planner: Planner, factory: CriFactory) -> Self {
        disable_huge_pages();
        let cgroups = node_cgroups(&config);
        Self {
            pool: Pool::new(),
            workers: BTreeMap::new(),
            probe_manager: None,
            probe_rt: ProbeRuntime(None),
            shared: Arc::new(Shared {
                keyring: Mutex::new(NodeKeyring::new(config.docker_config.clone())),
                cgroups,
                config,
                planner,
                reports: Mutex::new(BTreeMap::new()),
                terminating: Mutex::new(BTreeMap::new()),
                probes: None,
            }),
            cri: factory(),
            factory,
            warned_foreign: BTreeSet::new(),
            warned_waiting: BTreeSet::new(),
            manifest_problems: Vec::new(),
        }
    }

    /// Runs probes on workers of their own from now on (one per container probe, each
    /// on its period, on `clock`): syncs read their last results, and a changed result
    /// syncs the pod at once. Call before the first round.
    ///
    /// # Panics
    ///
    /// Never: a tokio runtime that cannot start falls back to a current-thread one.
    pub fn start_probe_workers(&mut self, clock: crate::runtime_sim::Clock) {
        if self.probe_manager.is_some() || self.shared.config.dry_run {
            return;
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("podplan-probe-worker")
            .enable_all()
            .build()
            .or_else(|_| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
            });
        let rt = match rt {
            Ok(rt) => rt,
            #[expect(
                clippy::panic,
                reason = "no tokio runtime at all: the probe workers cannot run"
            )]
            Err(e) => panic!("cannot start a tokio runtime: {e}"),
        };
        let table = Arc::new(Mutex::new(ProbeTable::default()));
        if let Some(shared) = Arc::get_mut(&mut self.shared) {
            shared.probes = Some(Arc::clone(&table));
        } else {
            tracing::warn!("probe workers must be started before the first round");
            return;
        }
        self.probe_manager = Some(super::prober::ProbeManager::new(
            table,
            Arc::clone(&self.factory),
            clock,
            rt.handle().clone(),
        ));
        self.probe_rt = ProbeRuntime(Some(rt));
    }

    /// The planner.
    #[must_use]
    pub fn planner(&self) -> &Planner {
        &self.shared.planner
    }

    /// The settings.
    #[must_use]
    pub fn config(&self) -> &AgentConfig {
        &self.shared.config
    }

    /// The last report of every known pod.
    #[must_use]
    pub fn reports(&self) -> Vec<PodReport> {
        lock(&self.shared.reports).values().cloned().collect()
    }

    /// [`Agent::reports`] with AGE as it is at `now` (`status.json` is written every
    /// second; the rows come from each pod's last sync).
    #[must_use]
    pub fn reports_at(&self, now: jiff::Timestamp) -> Vec<PodReport> {
        self.reports_handle().at(now)
    }

    /// The reports, readable from another thread (the status writer) while the agent
    /// and its workers go on.
    #[must_use]
    pub fn reports_handle(&self) -> Reports {
        Reports(Arc::clone(&self.shared))
    }

    /// Pod workers alive (busy or waiting for an update).
    #[must_use]
    pub fn workers(&self) -> usize {
        self.workers.values().filter(|w| w.alive()).count()
    }

    /// The node context of every request.
    #[must_use]
    pub fn node_context(&self) -> NodeContext {
        self.shared.node_context()
    }

    /// One round at `now`: relist, hand every pod's update to its worker (`force`: sync
    /// every pod), and wait until every worker has carried it out.
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
        let (ack, outcomes) = std::sync::mpsc::channel();
        let sent = self.dispatch(manifests, now, force, Some(&ack))?;
        drop(ack);
        let mut round = Round::default();
        // Every worker answers once per update: the round is over with the last answer
        // (not when the workers' copies of `ack` are dropped, which would wake this
        // thread once more). A worker that ended without answering (its pod is gone, or
        // it failed) did nothing more: the channel closes once every other worker is done.
        for o in outcomes.iter().take(sent) {
            round.synced.extend(o.synced);
            round.removed.extend(o.removed);
            round.errors.extend(o.errors);
        }
        Ok(round)
    }

    /// [`Agent::round`] without waiting: each worker carries out its update when it is
    /// free, so a slow pod delays nobody but itself (the run loop, every second).
    ///
    /// # Errors
    ///
    /// The runtime could not be listed.
    pub fn tick(
        &mut self,
        manifests: &ManifestSet,
        now: jiff::Timestamp,
    ) -> Result<(), super::runtime::CriError> {
        self.dispatch(manifests, now, false, None).map(|_| ())
    }

    /// The relist and the updates: what [`Agent::round`] and [`Agent::tick`] share. The
    /// number of updates handed to workers.
    fn dispatch(
        &mut self,
        manifests: &ManifestSet,
        now: jiff::Timestamp,
        force: bool,
        ack: Option<&Sender<Round>>,
    ) -> Result<usize, super::runtime::CriError> {
        let mut sent = 0;
        // In a round, the last update for an idle worker is held back and carried out on
        // this thread once every other one is handed over (see `Agent::hand_over`).
        let mut held: Option<(String, Work)> = None;
        self.manifest_problems.clone_from(&manifests.problems);
        let listed_at = std::time::Instant::now();
        let listed = self.cri.relist()?;
        let node_name = self.shared.config.node_name.clone();
        let mut ours: BTreeMap<String, RuntimeStatus> = BTreeMap::new();
        let wanted: BTreeSet<&str> = manifests.pods.iter().map(|p| p.uid()).collect();
        for status in listed {
            let labelled = status
                .sandbox_statuses
                .iter()
                .any(|s| s.labels.get(AGENT_LABEL).map(String::as_str) == Some(node_name.as_str()));
            let orphan_of_ours = status.sandbox_statuses.is_empty()
                && (wanted.contains(status.id.as_str()) || self.workers.contains_key(&status.id));
            if labelled || orphan_of_ours {
                ours.insert(status.id.clone(), status);
            } else if self.warned_foreign.insert(status.id.clone()) {
                tracing::warn!(
                    pod = %format!("{}/{}", status.namespace, status.name),
                    uid = %status.id,
                    "the runtime has a pod without the label {AGENT_LABEL}={node_name}; it is left alone",
                );
            }
        }
        // Workers whose pod is gone have ended.
        self.workers.retain(|_, w| w.alive());
        if let Some(probes) = &mut self.probe_manager {
            probes.sync(manifests, &ours);
        }
        let dry_run = self.shared.config.dry_run;
        // The pods to terminate: listed, ours, without a manifest; and those whose worker
        // is still at it.
        let gone: Vec<String> = if dry_run {
            Vec::new()
        } else {
            ours.keys()
                .filter(|uid| !wanted.contains(uid.as_str()))
                .cloned()
                .collect()
        };
        {
            let mut terminating = lock(&self.shared.terminating);
            for uid in &gone {
                if let Some(status) = ours.get(uid) {
                    terminating
                        .entry(uid.clone())
                        .or_insert_with(|| format!("{}/{}", status.namespace, status.name));
                }
            }
        }
        let terminating = lock(&self.shared.terminating).clone();
        // `UpdateQOSCgroups`: the tiers for the active pods, before any of them gets its
        // own cgroup.
        if let Some(cgroups) = &self.shared.cgroups {
            if let Err(e) = cgroups.update_qos(manifests.pods.iter().map(|p| (p.uid(), &p.pod))) {
                tracing::warn!("updating the QoS cgroups failed: {e}");
            }
        }
        for sp in &manifests.pods {
            let uid = sp.uid().to_string();
            // `allowStaticPodStart`: not while a pod of the same full name (or this UID's
            // last incarnation) is still terminating.
            let blocker = terminating
                .iter()
                .find(|(u, n)| **u == uid || **n == sp.full_name())
                .map(|(u, _)| u.clone());
            if let Some(blocker) = blocker {
                let why = format!(
                    "the static pod {} (uid {blocker}) is still terminating; this one starts when it is gone",
                    sp.full_name()
                );
                if self.warned_waiting.insert(uid.clone()) {
                    tracing::info!(pod = %sp.full_name(), uid, "{why}");
                }
                let mut reports = lock(&self.shared.reports);
                let report = reports.entry(uid.clone()).or_insert_with(|| PodReport {
                    uid: uid.clone(),
                    pod: sp.full_name(),
                    file: Some(sp.file.display().to_string()),
                    ..PodReport::default()
                });
                report.waiting = Some(why);
                continue;
            }
            self.warned_waiting.remove(&uid);
            let pod = Arc::clone(sp);
            if !force && self.settled(&uid, &pod, ours.get(&uid), now) {
                continue;
            }
            // Moved, not copied: what follows reads `ours` only for pods without a manifest.
            let work = Work::Sync {
                pod,
                status: ours.remove(&uid),
                now,
                force,
                listed: listed_at,
            };
            self.hand_over(&uid, work, ack, &mut held, &mut sent);
        }
        for uid in gone {
            if let Some(status) = ours.remove(&uid) {
                self.hand_over(&uid, Work::Terminate { status }, ack, &mut held, &mut sent);
            }
        }
        // A worker whose pod has neither a manifest nor anything in the runtime cleans up
        // after it and ends.
        if !dry_run {
            let idle: Vec<String> = self
                .workers
                .keys()
                .filter(|uid| !wanted.contains(uid.as_str()) && !ours.contains_key(*uid))
                .filter(|uid| !terminating.contains_key(*uid))
                .cloned()
                .collect();
            for uid in idle {
                lock(&self.shared.terminating).insert(uid.clone(), String::new());
                let status = RuntimeStatus {
                    id: uid.clone(),
                    ..RuntimeStatus::default()
                };
                self.hand_over(&uid, Work::Terminate { status }, ack, &mut held, &mut sent);
            }
        }
        // Reports of pods that are gone everywhere are dropped.
        let workers: BTreeSet<String> = self.workers.keys().cloned().collect();
        lock(&self.shared.reports)
            .retain(|uid, _| wanted.contains(uid.as_str()) || workers.contains(uid));
        if let Some((uid, work)) = held {
            sent += usize::from(self.carry_out_here(&uid, work, ack));
        }
        Ok(sent)
    }

    /// Hands `work` to the worker of `uid`, counting it in `sent`. In a round (`ack`:
    /// the caller waits for every update anyway), an update for an idle worker is held
    /// back while it is the last one (the one held before goes to its worker): the
    /// caller carries it out itself instead of waiting idle, which spares the hand-off
    /// to the worker's thread and back. No update waits for it: it is carried out after
    /// every other one is handed over.
    fn hand_over(
        &mut self,
        uid: &str,
        work: Work,
        ack: Option<&Sender<Round>>,
        held: &mut Option<(String, Work)>,
        sent: &mut usize,
    ) {
        let idle = ack.is_some()
            && self
                .workers
                .get(uid)
                .is_some_and(|w| w.alive() && lock(&w.view).pending == 0);
        if idle {
            if let Some((before, work)) = held.replace((uid.to_string(), work)) {
                *sent += usize::from(self.send(&before, work, ack));
            }
        } else {
            *sent += usize::from(self.send(uid, work, ack));
        }
    }

    /// Carries out `work` for the idle worker of `uid` on this thread, as its own thread
    /// would (its outcome goes to `ack`); a worker whose pod is gone (or that failed)
    /// ends: its mailbox closes. Whether the update was taken.
    fn carry_out_here(&mut self, uid: &str, work: Work, ack: Option<&Sender<Round>>) -> bool {
        let Some(worker) = self.workers.get_mut(uid) else {
            return self.send(uid, work, ack);
        };
        lock(&worker.view).pending += 1;
        let state = Arc::clone(&worker.state);
        let update = Update {
            work,
            ack: ack.cloned(),
        };
        if carry_out(&mut lock(&state), vec![update]) {
            lock(&worker.mailbox).closed = true;
            self.workers.remove(uid);
        }
        true
    }

    /// Whether the worker of `uid` is idle and its last sync still holds at `now`: it
    /// left nothing to do, the pod is not due yet, and the manifest, the runtime status
    /// and the probe results are what it read. Then the pod gets no update (the kubelet's
    /// sync loop wakes a worker only for an event or when the pod is due).
    fn settled(
        &self,
        uid: &str,
        pod: &Arc<StaticPod>,
        status: Option<&RuntimeStatus>,
        now: jiff::Timestamp,
    ) -> bool {
        let Some(worker) = self.workers.get(uid).filter(|w| w.alive()) else {
            return false;
        };
        let view = lock(&worker.view);
        let Some((inputs, until)) = view.settled.as_ref() else {
            return false;
        };
        if view.pending > 0 || now >= *until || !inputs.same(pod, status) {
            return false;
        }
        match (&self.shared.probes, status) {
            (Some(table), Some(status)) => lock(table).results(&pod.pod, status) == inputs.probes,
            _ => true,
        }
    }

    /// Hands `work` to the worker of `uid` (made if it has none), whose job on the pool
    /// carries it out; its outcome goes to `ack`, if given. Whether the worker got it.
    fn send(&mut self, uid: &str, work: Work, ack: Option<&Sender<Round>>) -> bool {
        if !self.workers.get(uid).is_some_and(WorkerHandle::alive) {
            let view = Arc::new(Mutex::new(WorkerView::default()));
            let state = Arc::new(Mutex::new(PodWorker {
                uid: uid.to_string(),
                shared: Arc::clone(&self.shared),
                cri: (self.factory)(),
                memory: PodMemory::default(),
                prober: Prober::default(),
                view: Arc::clone(&view),
            }));
            self.workers.insert(
                uid.to_string(),
                WorkerHandle {
                    mailbox: Arc::new(Mutex::new(Mailbox::default())),
                    state,
                    view,
                },
            );
        }
        let Some(worker) = self.workers.get_mut(uid) else {
            return false;
        };
        let update = Update {
            work,
            ack: ack.cloned(),
        };
        let mut mailbox = lock(&worker.mailbox);
        if mailbox.closed {
            tracing::warn!(
                uid,
                "the pod's worker has ended; the update waits for the next round"
            );
            return false;
        }
        lock(&worker.view).pending += 1;
        mailbox.updates.push(update);
        if !mailbox.scheduled {
            mailbox.scheduled = true;
            let (mailbox, state) = (Arc::clone(&worker.mailbox), Arc::clone(&worker.state));
            self.pool
                .submit(Box::new(move || worker_job(&state, &mailbox)));
        }
        true
    }
}

/// A pod worker's job on the pool: the updates in its mailbox, the newest of those
/// waiting each time (older ones are answered with its outcome), until the mailbox is
/// empty. The worker ends once its pod is removed, or when it failed: its mailbox closes
/// (updates still in it are dropped unanswered).
fn worker_job(worker: &Mutex<PodWorker>, mailbox: &Mutex<Mailbox>) {
    loop {
        let updates = {
            let mut mailbox = lock(mailbox);
            if mailbox.updates.is_empty() {
                mailbox.scheduled = false;
                return;
            }
            std::mem::take(&mut mailbox.updates)
        };
        if carry_out(&mut lock(worker), updates) {
            let mut mailbox = lock(mailbox);
            mailbox.closed = true;
            mailbox.scheduled = false;
            mailbox.updates.clear();
            return;
        }
    }
}

/// Carries out the newest of `updates` (forced if any of them was) and answers each of
/// them with its outcome; `true` when the worker ends: its pod is gone, or it failed
/// (then nobody is answered, and its pod is picked up again by a new worker).
fn carry_out(worker: &mut PodWorker, updates: Vec<Update>) -> bool {
    let taken = updates.len();
    let mut acks = Vec::new();
    let mut force = false;
    let mut latest: Option<Work> = None;
    for mut update in updates {
        acks.extend(update.ack.take());
        if let Some(Work::Sync { force: f, .. }) = latest.replace(update.work) {
            force |= f;
        }
    }
    let Some(mut work) = latest else {
        return false;
    };
    if let Work::Sync { force: f, .. } = &mut work {
        *f |= force;
    }
    let mut round = Round::default();
    let started = std::time::Instant::now();
    let plans = !acks.is_empty();
    let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        worker.handle(work, &mut round, plans)
    }));
    let Ok(done) = handled else {
        tracing::error!(uid = %worker.uid, "a pod worker failed; its pod is picked up again next round");
        return true;
    };
    if started.elapsed() > std::time::Duration::from_secs(2) {
        tracing::info!(
            uid = %worker.uid,
            "the pod's update took {:.1}s",
            started.elapsed().as_secs_f64()
        );
    }
    {
        let settled = if done { None } else { worker.settled() };
        let mut view = lock(&worker.view);
        view.pending = view.pending.saturating_sub(taken);
        view.settled = settled;
    }
    if let Some((last, others)) = acks.split_last() {
        for ack in others {
            let _ = ack.send(round.clone());
        }
        let _ = last.send(round);
    }
    done
}

/// One pod's worker: its memory between syncs and its own CRI client.
struct PodWorker {
    uid: String,
    shared: Arc<Shared>,
    cri: Box<dyn CriRuntime>,
    memory: PodMemory,
    prober: Prober,
    /// What the relist knows of this worker.
    view: Arc<Mutex<WorkerView>>,
}

impl PodWorker {
    /// Carries out one update (`plans`: someone waits for the round and its plans);
    /// `true` when the pod is gone and the worker ends.
    fn handle(&mut self, work: Work, round: &mut Round, plans: bool) -> bool {
        match work {
            Work::Sync {
                pod,
                status,
                now,
                force,
                listed,
            } => {
                // `GetNewerThan(lastSyncTime)`: a status listed before this worker's last
                // sync was done does not show what that sync made (a sync that took
                // seconds while the next relist ran would create its containers again).
                let status = match self.memory.synced_at {
                    Some(synced) if listed < synced => match self.relist_pod(pod.uid(), round) {
                        Some(fresh) => fresh,
                        None => return false,
                    },
                    _ => status,
                };
                // Container GC reads the status the sync was handed (copied only when
                // there is garbage to collect).
                let garbage = status
                    .as_ref()
                    .filter(|s| !self.shared.config.dry_run && has_garbage(s))
                    .cloned();
                self.sync_pod(&pod, status, now, force, round, plans);
                if let Some(status) = garbage {
                    self.collect_garbage(&status);
                }
                false
            }
            Work::Terminate { status } => {
                let done = self.remove_pod(&status, round);
                if done {
                    lock(&self.shared.terminating).remove(&self.uid);
                    lock(&self.shared.reports).remove(&self.uid);
                }
                done
            }
        }
    }

    /// The last sync's inputs and until when the pod is not due, when that sync left
    /// nothing to do: no failure, no step to follow up; the next probe due (probes run
    /// in the worker) or the next sync (`--sync-frequency`, a back-off's end).
    fn settled(&self) -> Option<(Arc<SyncInputs>, jiff::Timestamp)> {
        let memory = &self.memory;
        let inputs = memory.inputs.clone()?;
        let mut until = memory.next_due?;
        if memory.failed || memory.last_sync.is_some_and(|t| until <= t) {
            return None;
        }
        if self.shared.probes.is_none() && !self.shared.config.dry_run {
            if let Some(status) = &inputs.status {
                if let Some(probe) = self.prober.next_due(&inputs.pod.pod, status) {
                    until = until.min(probe);
                }
            }
        }
        Some((inputs, until))
    }

    /// The pod's runtime status as the runtime lists it now (`Some(None)`: it has nothing
    /// of the pod); `None` when the runtime could not be listed (the error is in `round`).
    fn relist_pod(&mut self, uid: &str, round: &mut Round) -> Option<Option<RuntimeStatus>> {
        match self.cri.relist() {
            Ok(listed) => Some(listed.into_iter().find(|s| s.id == uid)),
            Err(e) => {
                round
                    .errors
                    .push(super::executor::unreachable("the runtime", &e));
                None
            }
        }
    }

    /// A sync that ended before its first CRI call: the report says why, the sync is
    /// retried next round.
    fn sync_failed(&mut self, mut report: PodReport, error: String) {
        report.error = Some(error);
        self.memory.report = Some(report);
        self.memory.failed = true;
        self.publish();
    }

    /// Publishes the worker's last report.
    fn publish(&self) {
        if let Some(report) = &self.memory.report {
            lock(&self.shared.reports).insert(self.uid.clone(), report.clone());
        }
    }

    /// Syncs one pod if it is due; a sync that pulled images is followed at once by
    /// another (relisting the pod first), as the kubelet's sync goes on after a pull: the
    /// plans go into `round.synced`.
    fn sync_pod(
        &mut self,
        sp: &Arc<StaticPod>,
        status: Option<RuntimeStatus>,
        now: jiff::Timestamp,
        force: bool,
        round: &mut Round,
        plans: bool,
    ) {
        let mut status = status;
        let mut force = force;
        // Each re-plan completes at least one pull: at most one per image, plus one.
        for _ in 0..=self.memory.image_names(sp).len() {
            let Some((plan, pulled)) = self.sync_pod_once(sp, status, now, force, round, plans)
            else {
                return;
            };
            if let Some(plan) = plan {
                round.synced.push((Arc::clone(sp), plan));
            }
            if !pulled {
                return;
            }
            let Some(fresh) = self.relist_pod(sp.uid(), round) else {
                return;
            };
            status = fresh;
            force = true;
        }
    }

    /// One sync of a pod (when due): the plan (when `plans`: someone waits for it), and
    /// whether it pulled images.
    fn sync_pod_once(
        &mut self,
        sp: &Arc<StaticPod>,
        status: Option<RuntimeStatus>,
        now: jiff::Timestamp,
        force: bool,
        round: &mut Round,
        plans: bool,
    ) -> Option<(Option<Plan>, bool)> {
        let uid = sp.uid().to_string();
        let probes: BTreeMap<String, ProbeResults> = match &status {
            Some(s) if !self.shared.config.dry_run => match &self.shared.probes {
                // Probe workers of their own (the agent's run loop): their last results.
                Some(table) => lock(table).results(&sp.pod, s),
                // Deterministic rounds: the due probes run now, before the sync.
                None => self.prober.probe_pod(self.cri.as_mut(), &sp.pod, s, now),
            },
            _ => BTreeMap::new(),
        };
        let memory = &mut self.memory;
        // Compared only when nothing else makes the pod due.
        let due = force
            || memory.failed
            || memory.next_due.is_none_or(|t| t <= now)
            || !memory
                .inputs
                .as_ref()
                .is_some_and(|last| last.same(sp, status.as_ref()) && last.probes == probes);
        if !due {
            return None;
        }
        memory.pod = Some(Arc::clone(sp));
        let node = self.shared.node_context();
        let names = self.memory.image_names(sp);
        let images = super::images::report(self.cri.as_mut(), &sp.pod, &names);
        let node_credentials = lock(&self.shared.keyring).get(now).clone();
        let memory = &mut self.memory;
        let (pod, api_defaults) = memory.request_pod(sp, &self.shared.config.feature_gates);
        // What the worker remembers goes into the request and comes back with the plan
        // (restored from the request when there is none).
        let request = PlanRequest {
            pod,
            runtime_status: status,
            probes,
            feature_gates: self.shared.config.feature_gates.clone(),
            node: Some(node),
            now: Some(now),
            api_defaults,
            backoff: std::mem::take(&mut memory.backoff),
            previous_status: memory.previous_status.take(),
            reason_cache: std::mem::take(&mut memory.reason_cache),
            images: Some(images),
            image_backoff: std::mem::take(&mut memory.image_backoff),
            // The last execution's results, handed in once (replaced by this execution's
            // once the plan is made; kept when there is no plan).
            pull_results: std::mem::take(&mut memory.pull_results),
            hook_results: std::mem::take(&mut memory.hook_results),
            node_credentials,
            ..PlanRequest::default()
        };
        let mut report = PodReport {
            uid: uid.clone(),
            pod: sp.full_name(),
            file: Some(sp.file.display().to_string()),
            synced_at: Some(now),
            created: sp.pod.metadata.creation_timestamp.as_ref().map(|t| t.0),
            ..PodReport::default()
        };
        let answer = self.shared.planner.plan(&request);
        let memory = &mut self.memory;
        memory.last_sync = Some(now);
        let mut plan = match answer {
            Ok(Ok(plan)) => plan,
            Ok(Err(e)) => {
                memory.restore(request);
                let msg = format!("{}: {}: {}", sp.file.display(), e.path, e.message);
                tracing::error!(pod = %sp.full_name(), "the engine refused the pod: {msg}");
                round.errors.push(msg.clone());
                self.sync_failed(report, msg);
                return None;
            }
            Err(e) => {
                memory.restore(request);
                let msg = format!(
                    "the planning module failed; sync of {} skipped: {e}",
                    sp.full_name()
                );
                tracing::error!("{msg}");
                round.errors.push(msg.clone());
                self.sync_failed(report, msg);
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
        // `podContainerManager.EnsureExists`: the pod's cgroup before anything of the
        // sync; a failure ends the sync before any CRI call.
        if let (Some(cgroup), Some(cgroups), false) = (
            plan.pod_cgroup.as_ref(),
            self.shared.cgroups.as_ref(),
            self.shared.config.dry_run,
        ) {
            if let Err(e) = cgroups.ensure_pod(cgroup) {
                let msg = format!("unable to ensure pod container exists: {e}");
                tracing::warn!(pod = %sp.full_name(), reason = "FailedCreatePodContainer", "{msg}");
                round.errors.push(format!("{}: {msg}", sp.full_name()));
                self.memory.restore(request);
                self.sync_failed(report, msg);
                return None;
            }
        }
        // The plan as decided (the executor completes steps in place), when someone
        // waits for it; a plan without steps is not changed by its execution.
        let mut planned = (plans && !plan.steps.is_empty()).then(|| plan.clone());
        let execution = if self.shared.config.dry_run || plan.steps.is_empty() {
            Execution::default()
        } else {
            let events = plan.events.clone();
            let execution = execute(self.cri.as_mut(), &request, &mut plan);
            self.memory.synced_at = Some(std::time::Instant::now());
            // Events are recorded once what they report has happened.
            for event in events
                .iter()
                .filter(|e| event_happened(e, &execution.steps))
            {
                tracing::info!(
                    pod = %sp.full_name(),
                    container = event.container.as_deref().unwrap_or(""),
                    reason = %event.reason,
                    "{}",
                    event.message
                );
            }
            execution
        };
        let memory = &mut self.memory;
        let pulled = !execution.pull_results.is_empty();
        memory.pull_results.clone_from(&execution.pull_results);
        memory.hook_results.clone_from(&execution.hook_results);
        if plans && planned.is_none() {
            // The plan goes to the round as it is: the worker keeps copies.
            memory.backoff.clone_from(&plan.backoff);
            memory.image_backoff.clone_from(&plan.image_backoff);
            memory.previous_status.clone_from(&plan.status);
            memory.reason_cache.clone_from(&plan.reason_cache);
        } else {
            memory.backoff = std::mem::take(&mut plan.backoff);
            memory.image_backoff = std::mem::take(&mut plan.image_backoff);
            memory.previous_status = plan.status.take();
            memory.reason_cache = std::mem::take(&mut plan.reason_cache);
        }
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
        let PlanRequest {
            pod,
            api_defaults,
            runtime_status,
            probes,
            ..
        } = request;
        memory.take_back_pod(pod, api_defaults);
        memory.inputs = Some(Arc::new(SyncInputs {
            pod: Arc::clone(sp),
            status: runtime_status,
            probes,
        }));
        // The next sync: when a held-back start's back-off ends, else at --sync-frequency.
        let resync = now
            .checked_add(jiff::SignedDuration::from_secs(
                self.shared.config.sync_frequency_seconds.max(1),
            ))
            .ok();
        let backoff_end = plan.held_back.iter().filter_map(|h| h.until).min();
        memory.next_due = match (backoff_end, resync) {
            (Some(b), Some(r)) => Some(b.min(r)),
            (b, r) => b.or(r),
        };
        // A sync that changed something is followed by a relist-driven one anyway; a
        // sync with steps is due again at once so that starts after a kill happen.
        if !plan.steps.is_empty() && !self.shared.config.dry_run {
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
        if let Some(r) = memory.report.as_mut() {
            r.created = sp.pod.metadata.creation_timestamp.as_ref().map(|t| t.0);
        }
        self.publish();
        if plans && planned.is_none() {
            planned = Some(plan);
        }
        Some((planned, pulled))
    }

    /// A pod whose manifest is gone: stop its running containers as [`pod_kills`] says
    /// (their preStop hooks first: from the pod the worker knows, else rebuilt from the
    /// containers' annotations), stop its sandboxes, remove them all, then its
    /// directories and cgroup. `true` when the pod is gone.
    fn remove_pod(&mut self, status: &RuntimeStatus, round: &mut Round) -> bool {
        let uid = self.uid.clone();
        let known = self.memory.pod.clone();
        let pod = known.as_deref().map(|sp| &sp.pod);
        let name = if status.name.is_empty() {
            pod.map(full_name).unwrap_or_default()
        } else {
            format!("{}/{}", status.namespace, status.name)
        };
        let mut errors = Vec::new();
        let running: Vec<&podplan_core::runtime::ContainerStatus> = status
            .container_statuses
            .iter()
            .filter(|c| c.state == ContainerState::Running)
            .collect();
        let pod_ip = status.ips.first().map(String::as_str);
        let kills = pod_kills(pod, running, None, self.cri.as_mut(), pod_ip);
        for kill in kills {
            let mut grace = kill.grace_period_seconds;
            if let Some(hook) = &kill.pre_stop {
                let result = super::hooks::pre_stop(self.cri.as_mut(), hook, &kill.container_id);
                if result.failed() {
                    let message = super::hooks::failure_message(
                        hook,
                        &pod.cloned().unwrap_or_default(),
                        &result,
                    );
                    tracing::warn!(pod = %name, container = %kill.container, reason = "FailedPreStopHook", "PreStopHook failed: {message}");
                }
                grace = result.stop_grace_period_seconds.unwrap_or(grace);
            }
            match self.cri.stop_container(bare_id(&kill.container_id), grace) {
                Ok(()) => {
                    tracing::info!(pod = %name, container = %kill.container, grace, reason = "Killing", "Stopped container {}: the manifest is gone", kill.container);
                }
                Err(e) if e.code == CriCode::NotFound => {}
                Err(e) => errors.push(format!("KillContainerError: {e}")),
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
            // Housekeeping: the pod's directories and cgroup go with it.
            let config = &self.shared.config;
            let (namespace, pod_name) = match name.split_once('/') {
                Some((ns, n)) => (ns.to_string(), n.to_string()),
                None => (String::new(), name.clone()),
            };
            let dirs = [
                super::volumes::pod_dir(&config.root_dir, &uid),
                super::volumes::pod_logs_dir(&config.pod_logs_dir, &namespace, &pod_name, &uid),
            ];
            if let Err(e) = super::volumes::clean_up(&dirs) {
                errors.push(format!("cleaning up the pod's directories: {e}"));
            }
            if let Some(root) = &config.cgroup_root {
                if let Err(e) = super::cgroups::remove_pod_cgroup(root, config.cgroup_driver, &uid)
                {
                    errors.push(format!("removing the pod's cgroup: {e}"));
                }
            }
        }
        if errors.is_empty() {
            tracing::info!(pod = %name, uid, "removed: its manifest is gone");
            if !name.is_empty() {
                round.removed.push(name);
            }
            true
        } else {
            for e in errors {
                tracing::warn!(pod = %name, "removing the pod failed; retried next round: {e}");
                round.errors.push(format!("{name}: {e}"));
            }
            false
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

/// Whether container GC ([`PodWorker::collect_garbage`]) may find something in `status`:
/// two exited instances of one container, or a sandbox other than the newest not ready.
fn has_garbage(status: &RuntimeStatus) -> bool {
    let mut exited = BTreeSet::new();
    status
        .container_statuses
        .iter()
        .filter(|c| c.state == ContainerState::Exited)
        .any(|c| !exited.insert(c.name.as_str()))
        || status
            .sandbox_statuses
            .iter()
            .skip(1)
            .any(|sb| sb.state == SandboxState::NotReady)
}
