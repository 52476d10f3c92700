//! Criterion benchmarks of `podplan agent`'s sync loop (`podplan_agent::Agent`).
//!
//! - `agent/steady-sync/{native,wasm}`: one [`Agent::round`] with `force` over one static
//!   pod that is already running (an init container done, a sidecar whose startup probe
//!   passed, an app whose liveness and readiness probes pass): the pod is synced and its
//!   plan has no step. **In the figure**: the agent's own work: going through the relist
//!   (label check, probe bookkeeping: no probe is due), the pod's fingerprint, the
//!   `ImageStatus` report, building the `PlanRequest`, the planner (the native core, or
//!   the built-in ABI module under wasmtime with its JSON both ways), the empty
//!   execution, the memory and report updates, and container GC's scan. **Not in the
//!   figure**: the runtime: every CRI call (`ListPodSandbox`/`ListContainers` behind the
//!   relist, `ImageStatus`) is answered from memory by a frozen copy of what the simulated
//!   runtime answered last ([`Frozen`]), with no gRPC round trip; no manifest is read
//!   (the agent rereads manifests only when the directory changes).
//!   `not-due`: the same round without `force`, as most rounds are (nothing changed,
//!   no probe is due and `--sync-frequency` is not up): the relist and the comparison of
//!   what the pod's worker last read; no update reaches the worker.
//!   `native-per-pod-of-100`: a forced round over 100 such pods (each on its own
//!   worker), per pod: what a sync costs the node when the hand-offs to the workers
//!   overlap with the work, as they do on a node of many pods (the one-pod round
//!   above also pays a hand-off to the worker and back in full).
//!   The wasm variant needs the embedded module (`scripts/build-wasm` before building the
//!   benches); without it, it is skipped with a note.
//! - `agent/1000-manifests/to-running`: 1,000 manifest files (one container each, image
//!   on the node) synced from nothing until every container runs, on the in-process
//!   simulated runtime (`podplan_agent::runtime_sim`, virtual clock, over its in-memory
//!   gRPC channel): the manifest read and every round up to all running, timed as a whole.
//!   Here the runtime's time (the gRPC calls and the simulated node) is in the figure;
//!   writing the files and starting the simulator are not.
//!
//! The agent runs on the `podplan` binary's allocator (mimalloc), as it does in production.
//!
//! `cargo bench -p podplan-benches --bench agent` (`-- --test`: each once).

#![expect(
    missing_docs,
    reason = "criterion_main! generates an undocumented `main`"
)]
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "a benchmark whose setup fails (a bad fixture, a pod that does not settle) is broken: stop loudly"
)]

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The allocator of the `podplan` binary (host/src/main.rs), whose agent is measured:
/// with glibc's, the pod workers' threads spend most of a sync in `malloc`.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use podplan_agent::credentials::DockerConfigSearch;
use podplan_agent::grpc::GrpcRuntime;
use podplan_agent::runtime::{ExecResult, ImageInfo};
use podplan_agent::runtime_sim::{Clock, ImagesScript, Scenario, SimOptions, SimRuntime};
use podplan_agent::{
    Agent, AgentConfig, CriCode, CriError, CriRuntime, ManifestSet, ManifestSource,
};
use podplan_core::cri::{
    ContainerConfig, ImageSpec, PodSandboxConfig, UpdateContainerResourcesRequest,
    UpdatePodSandboxResourcesRequest,
};
use podplan_core::plan::AuthConfig;
use podplan_core::request::node::CgroupDriver;
use podplan_core::runtime::{ContainerState, RuntimeStatus, SandboxStatus};
use podplan_wasmhost::{EngineSettings, HostError, Planner};

const NODE: &str = "bench-node";

/// The steady pod: an init container (exits after 2 s), a sidecar with an exec startup
/// probe, an app with exec liveness and readiness probes.
const STEADY: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: shop
  annotations:
    runtime-sim.podplan.io/container.init-db: '{"exit": {"code": 0, "afterSeconds": 2}}'
spec:
  terminationGracePeriodSeconds: 5
  initContainers:
    - name: init-db
      image: busybox:1.36
    - name: mesh-proxy
      image: busybox:1.36
      restartPolicy: Always
      startupProbe:
        exec: {command: ["true"]}
        periodSeconds: 1
  containers:
    - name: app
      image: nginx:1.27
      resources:
        requests: {cpu: 250m, memory: 256Mi}
        limits: {cpu: "1", memory: 512Mi}
      livenessProbe:
        exec: {command: ["true"]}
        periodSeconds: 10
      readinessProbe:
        exec: {command: ["true"]}
        periodSeconds: 5
"#;

fn t0() -> jiff::Timestamp {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

fn config(dir: &Path) -> AgentConfig {
    AgentConfig {
        node_name: NODE.into(),
        root_dir: dir.join("root").display().to_string(),
        pod_logs_dir: dir.join("logs").display().to_string(),
        feature_gates: BTreeMap::new(),
        cgroup_driver: CgroupDriver::Cgroupfs,
        cgroup_version: None,
        host_dns: None,
        sync_frequency_seconds: 60,
        dry_run: false,
        docker_config: DockerConfigSearch::default(),
        node_ip: None,
        cgroup_root: None,
        cgroups_per_qos: true,
        pod_max_pids: -1,
    }
}

fn sim(clock: &Clock) -> SimRuntime {
    let scenario = Scenario {
        images: ImagesScript {
            preloaded: vec!["busybox:1.36".into(), "nginx:1.27".into()],
            ..ImagesScript::default()
        },
        ..Scenario::default()
    };
    SimRuntime::new(
        SimOptions {
            scenario,
            ..SimOptions::default()
        },
        clock.clone(),
    )
}

/// What [`Frozen`] answers once frozen: the last answers of the live runtime.
#[derive(Default, Clone)]
struct Answers {
    runtime_name: String,
    relist: Vec<RuntimeStatus>,
    images: BTreeMap<String, Option<ImageInfo>>,
}

/// A runtime that passes every call to the simulated runtime, remembering its answers
/// to the read-only calls, until it is frozen: from then on `Version`, the relist and
/// `ImageStatus` are answered from memory at once, `ExecSync` succeeds at once, and any
/// call that would change something fails and is counted (a steady sync makes none).
/// Each pod worker has its own clone, remembering what it was answered.
#[derive(Clone)]
struct Frozen {
    live: GrpcRuntime,
    frozen: Arc<AtomicBool>,
    mutations: Arc<AtomicUsize>,
    answers: Answers,
}

impl Frozen {
    fn mutation(&mut self, call: &'static str) -> CriError {
        self.mutations.fetch_add(1, Ordering::Relaxed);
        CriError::new(call, CriCode::Other, "the frozen runtime changes nothing")
    }

    fn is_frozen(&self) -> bool {
        self.frozen.load(Ordering::Relaxed)
    }
}

impl CriRuntime for Frozen {
    fn runtime_name(&mut self) -> Result<String, CriError> {
        if !self.is_frozen() {
            self.answers.runtime_name = self.live.runtime_name()?;
        }
        Ok(self.answers.runtime_name.clone())
    }

    fn image_status(&mut self, image: &ImageSpec) -> Result<Option<ImageInfo>, CriError> {
        if self.is_frozen() {
            return Ok(self.answers.images.get(&image.image).cloned().flatten());
        }
        let answer = self.live.image_status(image)?;
        self.answers
            .images
            .insert(image.image.clone(), answer.clone());
        Ok(answer)
    }

    fn pull_image(
        &mut self,
        image: &ImageSpec,
        auth: Option<&AuthConfig>,
        sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        if self.is_frozen() {
            return Err(self.mutation("PullImage"));
        }
        self.live.pull_image(image, auth, sandbox_config)
    }

    fn relist(&mut self) -> Result<Vec<RuntimeStatus>, CriError> {
        if !self.is_frozen() {
            self.answers.relist = self.live.relist()?;
        }
        Ok(self.answers.relist.clone())
    }

    fn run_pod_sandbox(
        &mut self,
        config: &PodSandboxConfig,
        runtime_handler: &str,
    ) -> Result<String, CriError> {
        if self.is_frozen() {
            return Err(self.mutation("RunPodSandbox"));
        }
        self.live.run_pod_sandbox(config, runtime_handler)
    }

    fn pod_sandbox_status(&mut self, sandbox_id: &str) -> Result<SandboxStatus, CriError> {
        if self.is_frozen() {
            return self
                .answers
                .relist
                .iter()
                .flat_map(|p| &p.sandbox_statuses)
                .find(|s| s.id == sandbox_id)
                .cloned()
                .ok_or_else(|| CriError::new("PodSandboxStatus", CriCode::NotFound, sandbox_id));
        }
        self.live.pod_sandbox_status(sandbox_id)
    }

    fn stop_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("StopPodSandbox"));
        }
        self.live.stop_pod_sandbox(sandbox_id)
    }

    fn remove_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("RemovePodSandbox"));
        }
        self.live.remove_pod_sandbox(sandbox_id)
    }

    fn create_container(
        &mut self,
        sandbox_id: &str,
        config: &ContainerConfig,
        sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        if self.is_frozen() {
            return Err(self.mutation("CreateContainer"));
        }
        self.live
            .create_container(sandbox_id, config, sandbox_config)
    }

    fn start_container(&mut self, container_id: &str) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("StartContainer"));
        }
        self.live.start_container(container_id)
    }

    fn stop_container(&mut self, container_id: &str, timeout: i64) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("StopContainer"));
        }
        self.live.stop_container(container_id, timeout)
    }

    fn remove_container(&mut self, container_id: &str) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("RemoveContainer"));
        }
        self.live.remove_container(container_id)
    }

    fn update_container_resources(
        &mut self,
        request: &UpdateContainerResourcesRequest,
    ) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("UpdateContainerResources"));
        }
        self.live.update_container_resources(request)
    }

    fn update_pod_sandbox_resources(
        &mut self,
        request: &UpdatePodSandboxResourcesRequest,
    ) -> Result<(), CriError> {
        if self.is_frozen() {
            return Err(self.mutation("UpdatePodSandboxResources"));
        }
        self.live.update_pod_sandbox_resources(request)
    }

    fn exec_sync(
        &mut self,
        container_id: &str,
        cmd: &[String],
        timeout: Duration,
    ) -> Result<ExecResult, CriError> {
        if self.is_frozen() {
            return Ok(ExecResult::default());
        }
        self.live.exec_sync(container_id, cmd, timeout)
    }
}

/// An agent with the steady pod running and its probes passing, over a frozen runtime;
/// the manifests and the time of its rounds.
struct Steady {
    agent: Agent,
    manifests: ManifestSet,
    now: jiff::Timestamp,
    mutations: Arc<AtomicUsize>,
    _dir: tempfile::TempDir,
}

fn steady(planner: Planner, pods: usize) -> Steady {
    let dir = tempfile::tempdir().unwrap();
    let manifest_dir = dir.path().join("manifests");
    std::fs::create_dir(&manifest_dir).unwrap();
    for i in 0..pods {
        let name = if i == 0 {
            "shop".to_string()
        } else {
            format!("shop-{i}")
        };
        let text = STEADY.replace("name: shop\n", &format!("name: {name}\n"));
        std::fs::write(manifest_dir.join(format!("{name}.yaml")), text).unwrap();
    }
    let clock = Clock::virtual_at(t0());
    let sim = sim(&clock);
    let frozen = Arc::new(AtomicBool::new(false));
    let mutations = Arc::new(AtomicUsize::new(0));
    let cri = Frozen {
        live: GrpcRuntime::in_process(&sim, Duration::from_secs(5)).unwrap(),
        frozen: Arc::clone(&frozen),
        mutations: Arc::clone(&mutations),
        answers: Answers::default(),
    };
    let mut agent = Agent::new(config(dir.path()), planner, cri);
    let manifests = ManifestSource::new(&manifest_dir, NODE).load(t0());
    assert!(manifests.problems.is_empty(), "{:?}", manifests.problems);
    // Rounds a second apart on the live runtime until a forced sync finds nothing to do
    // with the pod running and ready.
    let mut now = t0();
    for _ in 0..60 {
        now = clock.now();
        let round = agent.round(&manifests, now, true).unwrap();
        assert!(round.errors.is_empty(), "{:?}", round.errors);
        let settled = round.synced.iter().all(|(_, plan)| {
            plan.steps.is_empty()
                && plan
                    .kubectl
                    .as_ref()
                    .is_some_and(|k| k.ready == "2/2" && k.status == "Running")
        });
        if settled && !round.synced.is_empty() {
            break;
        }
        clock.advance(Duration::from_secs(1));
    }
    frozen.store(true, Ordering::Relaxed);
    // The first frozen round is the one measured: a synced pod, no step, no call that
    // changes anything.
    let round = agent.round(&manifests, now, true).unwrap();
    assert!(round.errors.is_empty(), "{:?}", round.errors);
    assert_eq!(round.synced.len(), pods, "every pod synced");
    for (_, plan) in &round.synced {
        assert!(
            plan.steps.is_empty(),
            "the pod is not steady: {:?}",
            plan.steps
        );
        let row = plan.kubectl.as_ref().unwrap();
        assert_eq!(
            (row.ready.as_str(), row.status.as_str()),
            ("2/2", "Running")
        );
    }
    assert_eq!(mutations.load(Ordering::Relaxed), 0);
    Steady {
        agent,
        manifests,
        now,
        mutations,
        _dir: dir,
    }
}

fn steady_sync(c: &mut Criterion) {
    let mut group = c.benchmark_group("agent/steady-sync");
    let mut native = steady(Planner::Native, 1);
    group.bench_function("native", |b| {
        b.iter(|| {
            native
                .agent
                .round(&native.manifests, native.now, true)
                .unwrap()
        });
    });
    group.bench_function("not-due", |b| {
        b.iter(|| {
            let round = native
                .agent
                .round(&native.manifests, native.now, false)
                .unwrap();
            assert!(round.synced.is_empty());
            round
        });
    });
    assert_eq!(native.mutations.load(Ordering::Relaxed), 0);
    let mut many = steady(Planner::Native, 100);
    group.bench_function("native-per-pod-of-100", |b| {
        b.iter_custom(|iters| {
            let start = Instant::now();
            for _ in 0..iters {
                let round = many.agent.round(&many.manifests, many.now, true).unwrap();
                assert_eq!(round.synced.len(), 100);
            }
            start.elapsed() / 100
        });
    });
    assert_eq!(many.mutations.load(Ordering::Relaxed), 0);
    match Planner::wasm(None, None, EngineSettings::default()) {
        Ok(planner) => {
            let mut wasm = steady(planner, 1);
            group.bench_function("wasm", |b| {
                b.iter(|| wasm.agent.round(&wasm.manifests, wasm.now, true).unwrap());
            });
            assert_eq!(wasm.mutations.load(Ordering::Relaxed), 0);
        }
        Err(e @ HostError::NoEmbeddedModule) => {
            println!("agent/steady-sync/wasm: skipped: {e} (run scripts/build-wasm, then rebuild the benches)");
        }
        Err(e) => panic!("the embedded module: {e}"),
    }
    group.finish();
}

const PODS: usize = 1000;

fn manifest(i: usize) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-{i:04}\nspec:\n  containers:\n    - name: app\n      image: nginx:1.27\n"
    )
}

/// Whether every pod of `manifests` has a running container in the simulated node.
fn all_running(sim: &SimRuntime, manifests: &ManifestSet) -> bool {
    sim.with_node(|node| {
        manifests.pods.iter().all(|sp| {
            node.pod_status(sp.uid()).is_some_and(|s| {
                s.container_statuses
                    .iter()
                    .any(|c| c.state == ContainerState::Running)
            })
        })
    })
}

/// Syncs the 1,000 manifests of `dir` from nothing: the time of the manifest read and of
/// the rounds (a virtual second apart) until every pod runs.
fn to_running(dir: &Path) -> Duration {
    let clock = Clock::virtual_at(t0());
    let sim = sim(&clock);
    let cri = GrpcRuntime::in_process(&sim, Duration::from_secs(5)).unwrap();
    let mut agent = Agent::new(config(dir), Planner::Native, cri);
    let mut source = ManifestSource::new(dir.join("manifests"), NODE);
    let start = Instant::now();
    let manifests = source.load(clock.now());
    let mut spent = start.elapsed();
    assert_eq!(manifests.pods.len(), PODS, "{:?}", manifests.problems);
    for _ in 0..10 {
        let start = Instant::now();
        let round = agent.round(&manifests, clock.now(), false).unwrap();
        spent += start.elapsed();
        assert!(round.errors.is_empty(), "{:?}", round.errors.first());
        if all_running(&sim, &manifests) {
            return spent;
        }
        clock.advance(Duration::from_secs(1));
    }
    panic!("the pods were not all running after 10 rounds");
}

fn thousand_manifests(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let manifest_dir = dir.path().join("manifests");
    std::fs::create_dir(&manifest_dir).unwrap();
    for i in 0..PODS {
        std::fs::write(manifest_dir.join(format!("pod-{i:04}.yaml")), manifest(i)).unwrap();
    }
    let mut group = c.benchmark_group("agent/1000-manifests");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("to-running", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| to_running(dir.path())).sum());
    });
    group.finish();
}

criterion_group!(benches, steady_sync, thousand_manifests);
criterion_main!(benches);
