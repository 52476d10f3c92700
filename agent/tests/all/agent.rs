//! `podplan agent`: the manifest source, the executor against a recording fake runtime,
//! `status.json`, and end to end on the in-process simulated node with a virtual clock
//! over the in-process gRPC channel of `runtime_sim` (plus the binary: `--once`, bad
//! manifests, an unreachable socket).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use podplan_agent::credentials::DockerConfigSearch;
use podplan_agent::grpc::GrpcRuntime;
use podplan_agent::manifest::{
    AGENT_LABEL, CONFIG_HASH_ANNOTATION, CONFIG_SEEN_ANNOTATION, CONFIG_SOURCE_ANNOTATION,
};
use podplan_agent::runtime::{ExecResult, ImageInfo};
use podplan_agent::runtime_sim::{Clock, ImagesScript, Scenario, SimOptions, SimRuntime};
use podplan_agent::status::{self, AgentStatus};
use podplan_agent::sync::Round;
use podplan_agent::{execute, Agent, AgentConfig, CriCode, CriError, CriRuntime, ManifestSource};
use podplan_core::cri::{
    ContainerConfig, ImageSpec, PodSandboxConfig, UpdateContainerResourcesRequest,
    UpdatePodSandboxResourcesRequest,
};
use podplan_core::plan::AuthConfig;
use podplan_core::plan::StepOp;
use podplan_core::request::node::CgroupDriver;
use podplan_core::runtime::{ContainerState, RuntimeStatus, SandboxStatus};
use podplan_core::sim::cri as simcri;
use podplan_core::PlanRequest;
use podplan_wasmhost::Planner;

fn t0() -> jiff::Timestamp {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
}

const WEB: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    runtime-sim.podplan.io/container.init-db: '{"exit": {"code": 0, "afterSeconds": 2}}'
spec:
  terminationGracePeriodSeconds: 5
  initContainers:
    - name: init-db
      image: busybox:1.36
    - name: log-shipper
      image: busybox:1.36
      restartPolicy: Always
      startupProbe:
        exec:
          command: ["true"]
        periodSeconds: 1
  containers:
    - name: app
      image: nginx:1.27
"#;

// ---------------------------------------------------------------- manifest source

#[test]
fn manifest_defaults_follow_the_kubelet_file_source() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "web.yaml", WEB);
    write(dir.path(), ".hidden.yaml", WEB);
    let mut source = ManifestSource::new(dir.path(), "Node-1");
    let set = source.load(t0());
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(set.pods.len(), 1, "hidden files are skipped");
    let pod = &set.pods[0].pod;
    assert_eq!(pod.metadata.name.as_deref(), Some("web-node-1"));
    assert_eq!(pod.metadata.namespace.as_deref(), Some("default"));
    let uid = pod.metadata.uid.clone().unwrap();
    assert_eq!(uid.len(), 32, "an MD5 in hex: {uid}");
    assert!(uid.chars().all(|c| c.is_ascii_hexdigit()));
    let ann = pod.metadata.annotations.as_ref().unwrap();
    assert_eq!(ann[CONFIG_SOURCE_ANNOTATION], "file");
    assert_eq!(ann[CONFIG_HASH_ANNOTATION], uid);
    assert_eq!(ann[CONFIG_SEEN_ANNOTATION], t0().to_string());
    // The mirror pod's creation time, which `kubectl get pods` counts AGE from.
    assert_eq!(
        pod.metadata.creation_timestamp.as_ref().map(|t| t.0),
        Some(t0())
    );
    assert_eq!(pod.metadata.labels.as_ref().unwrap()[AGENT_LABEL], "Node-1");
    let spec = pod.spec.as_ref().unwrap();
    assert_eq!(spec.node_name.as_deref(), Some("Node-1"));
    let tolerations = spec.tolerations.as_ref().unwrap();
    assert!(tolerations
        .iter()
        .any(|t| t.operator.as_deref() == Some("Exists")
            && t.effect.as_deref() == Some("NoExecute")
            && t.key.is_none()));
    assert_eq!(
        pod.status.as_ref().unwrap().phase.as_deref(),
        Some("Pending")
    );

    // The first-seen time stays; the UID depends on the node and the content.
    let again = source.load(t0() + jiff::SignedDuration::from_secs(60));
    assert_eq!(again.pods[0].pod, *pod);
    let other_node = ManifestSource::new(dir.path(), "node-2").load(t0());
    assert_ne!(other_node.pods[0].uid(), uid);
    write(
        dir.path(),
        "web.yaml",
        &WEB.replace("nginx:1.27", "nginx:1.28"),
    );
    assert_ne!(
        source.load(t0()).pods[0].uid(),
        uid,
        "a changed manifest is a new pod"
    );
    // A UID given in the manifest is kept.
    write(
        dir.path(),
        "web.yaml",
        &WEB.replace("  name: web\n", "  name: web\n  uid: my-uid\n"),
    );
    let set = source.load(t0());
    assert_eq!(set.pods[0].uid(), "my-uid");
    assert_eq!(
        set.pods[0].pod.metadata.annotations.as_ref().unwrap()[CONFIG_HASH_ANNOTATION],
        "my-uid"
    );
}

#[test]
fn bad_manifests_are_reported_with_the_path_and_skipped_and_the_first_file_wins() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a-web.yaml", WEB);
    write(
        dir.path(),
        "b-web-again.json",
        &serde_json::to_string(&serde_yaml_ng::from_str::<serde_json::Value>(WEB).unwrap())
            .unwrap(),
    );
    write(
        dir.path(),
        "c-bad.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers:\n    - name: app\n      image: x\n    - name: app\n      image: y\n",
    );
    write(
        dir.path(),
        "d-type.yaml",
        "kind: Pod\nmetadata: {name: t}\nspec: {containers: 3}\n",
    );
    write(
        dir.path(),
        "e-deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
    );
    write(dir.path(), "f-text.txt", "{ not yaml: [");
    std::fs::create_dir(dir.path().join("g-subdir")).unwrap();
    let set = ManifestSource::new(dir.path(), "n1").load(t0());
    assert_eq!(set.pods.len(), 1);
    assert!(set.pods[0].file.ends_with("a-web.yaml"));
    let by_file: BTreeMap<String, &podplan_agent::manifest::ManifestProblem> = set
        .problems
        .iter()
        .map(|p| {
            (
                p.file.file_name().unwrap().to_string_lossy().into_owned(),
                p,
            )
        })
        .collect();
    assert_eq!(by_file.len(), 5, "{:?}", set.problems);
    assert!(by_file["b-web-again.json"].message.contains("a-web.yaml"));
    assert_eq!(by_file["c-bad.yaml"].path, "pod.spec.containers[1].name");
    assert!(
        by_file["d-type.yaml"]
            .path
            .starts_with("pod.spec.containers"),
        "{:?}",
        by_file["d-type.yaml"]
    );
    assert_eq!(by_file["e-deploy.yaml"].path, "pod.kind");
    assert!(by_file["f-text.txt"].message.contains("YAML"));
    let shown = by_file["c-bad.yaml"].to_string();
    assert!(
        shown.contains("c-bad.yaml: pod.spec.containers[1].name: "),
        "{shown}"
    );
}

// ---------------------------------------------------------------- recording fake runtime

#[derive(Default)]
struct Recorder {
    calls: Vec<String>,
    fail: BTreeMap<String, CriCode>,
    next: u32,
    /// The node's images: name → id.
    images: BTreeMap<String, String>,
    /// Exit codes of `ExecSync` by command (joined with spaces).
    exec_exit: BTreeMap<String, i32>,
}

impl Recorder {
    fn failing(call: &str, code: CriCode) -> Self {
        Self {
            fail: BTreeMap::from([(call.to_string(), code)]),
            ..Self::default()
        }
    }

    fn call(&mut self, name: &'static str, detail: &str) -> Result<(), CriError> {
        let key = format!("{name} {detail}");
        self.calls.push(key.trim().to_string());
        let code = self
            .fail
            .get(name)
            .or_else(|| self.fail.get(key.trim()))
            .copied();
        match code {
            Some(code) => Err(CriError::new(name, code, "injected")),
            None => Ok(()),
        }
    }

    fn id(&mut self, prefix: &str) -> String {
        self.next += 1;
        format!("{prefix}{}", self.next)
    }
}

impl CriRuntime for Recorder {
    fn runtime_name(&mut self) -> Result<String, CriError> {
        Ok("fake".into())
    }
    fn image_status(&mut self, image: &ImageSpec) -> Result<Option<ImageInfo>, CriError> {
        self.call("ImageStatus", &image.image)?;
        let by_id = self.images.values().find(|id| **id == image.image);
        Ok(self.images.get(&image.image).or(by_id).map(|id| ImageInfo {
            id: id.clone(),
            size: 7,
        }))
    }
    fn pull_image(
        &mut self,
        image: &ImageSpec,
        auth: Option<&AuthConfig>,
        _: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        let who = auth.map_or("anonymous", |a| a.username.as_str());
        self.call("PullImage", &format!("{} as {who}", image.image))?;
        let id = format!("sha256:{}", image.image.len());
        self.images.insert(image.image.clone(), id.clone());
        Ok(id)
    }
    fn relist(&mut self) -> Result<Vec<RuntimeStatus>, CriError> {
        Ok(vec![])
    }
    fn run_pod_sandbox(&mut self, _: &PodSandboxConfig, _: &str) -> Result<String, CriError> {
        self.call("RunPodSandbox", "")?;
        Ok(self.id("sb"))
    }
    fn pod_sandbox_status(&mut self, id: &str) -> Result<SandboxStatus, CriError> {
        self.call("PodSandboxStatus", id)?;
        Ok(serde_json::from_value(
            serde_json::json!({"id": id, "state": "SANDBOX_READY", "network": {"ip": "10.1.2.3"}}),
        )
        .unwrap())
    }
    fn stop_pod_sandbox(&mut self, id: &str) -> Result<(), CriError> {
        self.call("StopPodSandbox", id)
    }
    fn remove_pod_sandbox(&mut self, id: &str) -> Result<(), CriError> {
        self.call("RemovePodSandbox", id)
    }
    fn create_container(
        &mut self,
        sb: &str,
        c: &ContainerConfig,
        _: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        let name = c
            .metadata
            .as_ref()
            .map(|m| m.name.clone())
            .unwrap_or_default();
        self.call("CreateContainer", &format!("{name} in {sb}"))?;
        Ok(self.id(&format!("{name}-")))
    }
    fn start_container(&mut self, id: &str) -> Result<(), CriError> {
        self.call("StartContainer", id)
    }
    fn stop_container(&mut self, id: &str, timeout: i64) -> Result<(), CriError> {
        self.call("StopContainer", &format!("{id} {timeout}"))
    }
    fn remove_container(&mut self, id: &str) -> Result<(), CriError> {
        self.call("RemoveContainer", id)
    }
    fn update_container_resources(
        &mut self,
        r: &UpdateContainerResourcesRequest,
    ) -> Result<(), CriError> {
        self.call("UpdateContainerResources", &r.container_id)
    }
    fn update_pod_sandbox_resources(
        &mut self,
        r: &UpdatePodSandboxResourcesRequest,
    ) -> Result<(), CriError> {
        self.call("UpdatePodSandboxResources", &r.pod_sandbox_id)
    }
    fn exec_sync(
        &mut self,
        id: &str,
        cmd: &[String],
        timeout: Duration,
    ) -> Result<ExecResult, CriError> {
        self.call("ExecSync", &format!("{id} {}s", timeout.as_secs()))?;
        let exit_code = self.exec_exit.get(&cmd.join(" ")).copied().unwrap_or(0);
        Ok(ExecResult {
            exit_code,
            stdout: b"out".to_vec(),
            stderr: if exit_code == 0 {
                vec![]
            } else {
                b"boom".to_vec()
            },
        })
    }
}

fn request(pod: serde_json::Value, root: &Path) -> PlanRequest {
    let mut request = podplan_core::api::parse_request_value(
        serde_json::json!({"pod": pod, "apiDefaults": true}),
    )
    .unwrap();
    request.node = Some(
        serde_json::from_value(serde_json::json!({
            "name": "n1",
            "kubelet": {"rootDir": root.join("root"), "podLogsDir": root.join("logs")}
        }))
        .unwrap(),
    );
    request.now = Some(t0());
    request
}

fn two_apps() -> serde_json::Value {
    serde_json::json!({"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
        "spec": {"containers": [{"name": "a", "image": "busybox"}, {"name": "b", "image": "busybox"}]}})
}

fn with_init() -> serde_json::Value {
    serde_json::json!({"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
        "spec": {"initContainers": [{"name": "init", "image": "busybox"}],
                 "containers": [{"name": "a", "image": "busybox"}]}})
}

#[test]
fn the_executor_runs_the_steps_in_order_and_fills_the_new_sandbox_id() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert!(exec.ok(), "{:?}", exec.failures);
    assert_eq!(
        cri.calls,
        [
            "RunPodSandbox",
            "PodSandboxStatus sb1",
            "CreateContainer a in sb1",
            "StartContainer a-2",
            "CreateContainer b in sb1",
            "StartContainer b-3",
        ]
    );
    assert_eq!(exec.new_sandbox.as_deref(), Some("sb1"));
    // The log and pod directories were made before the sandbox.
    assert!(dir.path().join("logs/default_p_u1/a").is_dir());
    assert!(dir.path().join("root/pods/u1").is_dir());
    // Completed from the new sandbox: the /etc/hosts file names its IP.
    let hosts = std::fs::read_to_string(dir.path().join("root/pods/u1/etc-hosts")).unwrap();
    assert!(hosts.contains("10.1.2.3"), "{hosts}");
}

#[test]
fn a_failed_start_skips_only_that_container_but_a_classic_init_ends_the_sync() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::failing("CreateContainer a in sb1", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(exec.failures.len(), 1);
    assert_eq!(exec.failures[0].reason, "CreateContainerError");
    assert_eq!(exec.failures[0].event, "Failed");
    assert!(exec.aborted.is_none());
    assert!(!cri.calls.iter().any(|c| c.starts_with("StartContainer a")));
    assert!(
        cri.calls.iter().any(|c| c.starts_with("StartContainer b-")),
        "{:?}",
        cri.calls
    );

    let req = request(with_init(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::failing("StartContainer", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(exec.failures[0].reason, "RunContainerError");
    assert!(exec.aborted.is_some());
    assert_eq!(
        cri.calls.last().map(String::as_str),
        Some("StartContainer init-2")
    );
}

#[test]
fn a_failed_sandbox_ends_the_sync_with_the_kubelets_event() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::failing("RunPodSandbox", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls, ["RunPodSandbox"]);
    assert_eq!(exec.failures[0].reason, "CreatePodSandboxError");
    assert_eq!(exec.failures[0].event, "FailedCreatePodSandBox");
    assert!(exec.failures[0]
        .message
        .starts_with("Failed to create pod sandbox: "));
}

#[test]
fn kill_pod_stops_containers_with_the_grace_period_then_the_sandboxes() {
    let dir = tempfile::tempdir().unwrap();
    let mut pod = two_apps();
    pod["spec"]["terminationGracePeriodSeconds"] = 7.into();
    pod["spec"]["containers"][0]["image"] = "busybox:2".into();
    let mut req = request(pod, dir.path());
    // The sandbox is gone (not ready): the kubelet kills the pod and makes a new one.
    req.runtime_status = Some(serde_json::from_value(serde_json::json!({
        "id": "u1", "name": "p", "namespace": "default",
        "sandboxStatuses": [{"id": "old", "state": "SANDBOX_NOTREADY", "metadata": {"attempt": 0}}],
        "containerStatuses": [{"id": "sim://c1", "name": "b", "state": "running", "podSandboxId": "old"}]
    })).unwrap());
    let mut plan = podplan_core::plan(&req).unwrap();
    assert_eq!(plan.steps[0].op(), StepOp::KillPod);
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert!(exec.ok(), "{:?}", exec.failures);
    assert_eq!(
        &cri.calls[..3],
        ["StopContainer c1 7", "StopPodSandbox old", "RunPodSandbox"]
    );
}

// ---------------------------------------------------------------- status.json

#[test]
fn the_status_file_is_written_atomically_and_read_back_and_goes_stale() {
    let dir = tempfile::tempdir().unwrap();
    let s = AgentStatus {
        written_at: Some(t0()),
        node: "n1".into(),
        endpoint: "sim".into(),
        engine: serde_json::json!("native"),
        rounds: 3,
        errors: vec!["boom".into()],
        ..AgentStatus::default()
    };
    status::write(dir.path(), &s).unwrap();
    let files: Vec<_> = std::fs::read_dir(dir.path().join("podplan-agent"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1, "no temporary file left behind");
    assert_eq!(status::read(dir.path()).unwrap(), s);
    assert_eq!(
        status::staleness(&s, t0() + jiff::SignedDuration::from_secs(2)),
        None
    );
    assert_eq!(
        status::staleness(&s, t0() + jiff::SignedDuration::from_secs(42)),
        Some(42)
    );
    assert!(status::read(&dir.path().join("nowhere"))
        .unwrap_err()
        .contains("is `podplan agent` running"));
}

// ---------------------------------------------------------------- end to end, in-process sim

struct Harness {
    agent: Agent,
    source: ManifestSource,
    sim: SimRuntime,
    clock: Clock,
    _dirs: tempfile::TempDir,
    manifests: std::path::PathBuf,
}

fn harness(planner: Planner, files: &[(&str, &str)]) -> Harness {
    let dirs = tempfile::tempdir().unwrap();
    let manifests = dirs.path().join("manifests");
    std::fs::create_dir(&manifests).unwrap();
    for (name, text) in files {
        write(&manifests, name, text);
    }
    let scenario = Scenario {
        images: ImagesScript {
            preloaded: vec!["busybox:1.36".into(), "nginx:1.27".into()],
            unpullable: vec![],
        },
        ..Scenario::default()
    };
    let clock = Clock::virtual_at(t0());
    let sim = SimRuntime::new(
        SimOptions {
            scenario,
            ..SimOptions::default()
        },
        clock.clone(),
    );
    let config = AgentConfig {
        node_name: "n1".into(),
        root_dir: dirs.path().join("root").display().to_string(),
        pod_logs_dir: dirs.path().join("logs").display().to_string(),
        feature_gates: BTreeMap::from([("ReduceDefaultCrashLoopBackOffDecay".to_string(), true)]),
        cgroup_driver: CgroupDriver::Cgroupfs,
        cgroup_version: None,
        host_dns: None,
        sync_frequency_seconds: 60,
        dry_run: false,
        // Only the test's own root directory: never the machine's ~/.docker.
        docker_config: DockerConfigSearch {
            config_json_dirs: vec![dirs.path().join("root")],
            dockercfg_dirs: vec![dirs.path().join("root")],
        },
        node_ip: None,
        cgroup_root: None,
        cgroups_per_qos: true,
        pod_max_pids: -1,
    };
    let cri = GrpcRuntime::in_process(&sim, Duration::from_secs(5)).unwrap();
    Harness {
        agent: Agent::new(config, planner, cri),
        source: ManifestSource::new(&manifests, "n1"),
        sim,
        clock,
        _dirs: dirs,
        manifests,
    }
}

impl Harness {
    /// `n` rounds, `step` apart on the virtual clock.
    fn rounds(&mut self, n: usize, step: Duration) -> Vec<(jiff::Timestamp, Round)> {
        let mut out = Vec::new();
        for _ in 0..n {
            let now = self.clock.now();
            let set = self.source.load(now);
            let round = self.agent.round(&set, now, false).unwrap();
            out.push((now, round));
            self.clock.advance(step);
        }
        out
    }

    fn status(&self, uid: &str) -> RuntimeStatus {
        self.sim
            .with_node(|node| node.pod_status(uid))
            .unwrap_or_default()
    }

    fn uid(&mut self) -> String {
        self.source.load(self.clock.now()).pods[0].uid().to_string()
    }
}

/// `(time, container)` of every CreateContainer that was carried out.
fn creates(rounds: &[(jiff::Timestamp, Round)], agent: &Agent) -> Vec<(jiff::Timestamp, String)> {
    let _ = agent;
    rounds
        .iter()
        .flat_map(|(t, r)| {
            r.synced.iter().flat_map(move |(_, plan)| {
                plan.steps
                    .iter()
                    .filter(|s| s.op() == StepOp::CreateContainer)
                    .map(move |s| (*t, s.container().unwrap_or_default().to_string()))
            })
        })
        .collect()
}

#[test]
fn e2e_init_then_sidecar_with_startup_probe_then_app_in_the_kubelets_order() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    let rounds = h.rounds(12, Duration::from_millis(500));
    assert!(
        rounds.iter().all(|(_, r)| r.errors.is_empty()),
        "{:?}",
        rounds.iter().map(|(_, r)| &r.errors).collect::<Vec<_>>()
    );
    let order: Vec<String> = creates(&rounds, &h.agent)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(order, ["init-db", "log-shipper", "app"]);
    let uid = h.uid();
    let status = h.status(&uid);
    let state = |name: &str| {
        status
            .container_statuses
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.state)
    };
    assert_eq!(state("init-db"), Some(ContainerState::Exited));
    assert_eq!(state("log-shipper"), Some(ContainerState::Running));
    assert_eq!(state("app"), Some(ContainerState::Running));
    assert_eq!(status.sandbox_statuses.len(), 1);
    // The app started only after the sidecar's startup probe passed (a later round).
    let times: BTreeMap<String, jiff::Timestamp> = creates(&rounds, &h.agent)
        .into_iter()
        .map(|(t, c)| (c, t))
        .collect();
    assert!(times["init-db"] + jiff::SignedDuration::from_secs(2) <= times["log-shipper"]);
    assert!(times["log-shipper"] < times["app"]);
    let report = h.agent.reports().into_iter().next().unwrap();
    let row = report.kubectl.unwrap();
    assert_eq!(row.status, "Running");
    // AGE counts from the first sight of the manifest (the mirror pod's creation).
    assert!(row.age.ends_with('s') && row.age != "0s", "{row:?}");
}

#[test]
fn a_steady_pod_is_synced_only_when_due() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    let rounds = h.rounds(150, Duration::from_secs(1));
    let synced: Vec<(i64, usize)> = rounds
        .iter()
        .filter(|(_, r)| !r.synced.is_empty())
        .map(|(t, r)| {
            let steps = r.synced.iter().map(|(_, p)| p.steps.len()).sum();
            (t.duration_since(t0()).as_secs(), steps)
        })
        .collect();
    // Once the pod has nothing to do (the init container done, the sidecar's startup
    // probe passed, the app running), it is synced once more (the relist shows the last
    // start), then only at --sync-frequency (60 s): nothing it reads changes and its
    // only probe is done.
    let last_acting = synced
        .iter()
        .rposition(|(_, steps)| *steps > 0)
        .unwrap_or_else(|| panic!("nothing started: {synced:?}"));
    let quiet: Vec<i64> = synced[last_acting + 1..].iter().map(|(t, _)| *t).collect();
    assert!(quiet.len() >= 3, "{synced:?}");
    assert!(quiet[0] - synced[last_acting].0 <= 2, "{synced:?}");
    assert!(
        quiet.windows(2).all(|w| w[1] - w[0] == 60),
        "syncs every 60 s once steady: {synced:?}"
    );
    assert!(rounds.iter().all(|(_, r)| r.errors.is_empty()));
}

#[test]
fn e2e_a_crashing_app_restarts_with_back_off() {
    let crashing = WEB.replace(
        "  annotations:\n",
        "  annotations:\n    runtime-sim.podplan.io/container.app: '{\"exit\": {\"code\": 1, \"afterSeconds\": 0}}'\n",
    );
    let mut h = harness(Planner::Native, &[("web.yaml", &crashing)]);
    let rounds = h.rounds(40, Duration::from_millis(250));
    let app: Vec<jiff::Timestamp> = creates(&rounds, &h.agent)
        .into_iter()
        .filter(|(_, c)| c == "app")
        .map(|(t, _)| t)
        .collect();
    assert!(app.len() >= 5, "{app:?}");
    let gaps: Vec<f64> = app
        .windows(2)
        .map(|w| w[1].duration_since(w[0]).as_secs_f64())
        .collect();
    // The first restart at once, then back-off 1 s, 2 s, 4 s
    // (ReduceDefaultCrashLoopBackOffDecay), seen at a 250 ms relist.
    assert!(gaps[0] < 1.0, "gaps {gaps:?}");
    for (gap, want) in gaps.iter().skip(1).zip([1.0, 2.0, 4.0]) {
        assert!(*gap >= want && *gap <= want + 0.75, "gaps {gaps:?}");
    }
    // Attempts come from the runtime: every instance has its own restart count, and GC
    // keeps only the newest exited one.
    let uid = h.uid();
    let status = h.status(&uid);
    let apps: Vec<_> = status
        .container_statuses
        .iter()
        .filter(|c| c.name == "app")
        .collect();
    assert!(apps.len() <= 2, "{apps:?}");
    let counts: Vec<i32> = apps.iter().map(|c| c.restart_count).collect();
    let mut dedup = counts.clone();
    dedup.dedup();
    assert_eq!(counts, dedup);
    assert!(rounds.iter().all(|(_, r)| r.errors.is_empty()));
}

#[test]
fn e2e_removing_the_manifest_kills_and_removes_the_pod() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    h.rounds(12, Duration::from_millis(500));
    let uid = h.uid();
    assert!(!h.status(&uid).container_statuses.is_empty());
    std::fs::remove_file(h.manifests.join("web.yaml")).unwrap();
    let rounds = h.rounds(2, Duration::from_millis(500));
    assert_eq!(rounds[0].1.removed, ["default/web-n1"]);
    let status = h.status(&uid);
    assert!(status.container_statuses.is_empty(), "{status:?}");
    assert!(status.sandbox_statuses.is_empty(), "{status:?}");
}

#[test]
fn e2e_a_failed_call_is_retried_next_sync_and_never_duplicated() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    h.sim
        .fail_next("CreateContainer", simcri::CriCode::Unavailable, 1);
    let rounds = h.rounds(14, Duration::from_millis(500));
    assert!(!rounds[0].1.errors.is_empty(), "the first create failed");
    assert!(
        rounds[0].1.errors[0].contains("CreateContainerError"),
        "{:?}",
        rounds[0].1.errors
    );
    let uid = h.uid();
    let status = h.status(&uid);
    for name in ["init-db", "log-shipper", "app"] {
        let n = status
            .container_statuses
            .iter()
            .filter(|c| c.name == name)
            .count();
        assert_eq!(n, 1, "{name}: {status:?}");
    }
    assert_eq!(status.sandbox_statuses.len(), 1);
}

#[test]
fn e2e_pods_without_the_agents_label_are_left_alone() {
    let mut h = harness(Planner::Native, &[]);
    let config: PodSandboxConfig = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "foreign", "uid": "f1", "namespace": "default", "attempt": 0},
        "labels": {"io.kubernetes.pod.uid": "f1"}
    }))
    .unwrap();
    let id = h
        .sim
        .with_node(|node| node.run_pod_sandbox(&config, "", t0()))
        .unwrap();
    let rounds = h.rounds(3, Duration::from_secs(1));
    assert!(rounds
        .iter()
        .all(|(_, r)| r.removed.is_empty() && r.errors.is_empty()));
    let state = h
        .sim
        .with_node(|node| node.sandbox(&id).unwrap().status.state);
    assert_eq!(state, podplan_core::runtime::SandboxState::Ready);
}

#[test]
fn e2e_module_swaps_during_syncs_cause_no_failed_sync() {
    let Some(module) = crate::support::module() else {
        return;
    };
    let engine = crate::support::engine(Duration::from_secs(10));
    let slot = Arc::new(
        podplan_wasmhost::ModuleSlot::new(
            engine,
            Some(crate::support::cache()),
            podplan_wasmhost::SlotConfig {
                self_test_sample: 2,
                ..podplan_wasmhost::SlotConfig::default()
            },
            module,
            "embedded",
        )
        .unwrap(),
    );
    let crashing = WEB.replace(
        "  annotations:\n",
        "  annotations:\n    runtime-sim.podplan.io/container.app: '{\"exit\": {\"code\": 1, \"afterSeconds\": 3}}'\n",
    );
    let mut h = harness(Planner::Wasm(Arc::clone(&slot)), &[("web.yaml", &crashing)]);
    // Two variants of the module and a broken candidate, offered in turn while the agent
    // syncs. The variants are compiled into the cache first: what is under test is a swap
    // during syncs, not how long a debug build takes to compile a module on a busy CI box
    // (two compiles took most of four minutes there).
    let variants = [
        crate::support::variant(module, "a"),
        b"\0asm broken".to_vec(),
        crate::support::variant(module, "b"),
    ];
    for bytes in [&variants[0], &variants[2]] {
        let sha: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(bytes).into();
        crate::support::cache()
            .load_or_compile(slot.engine(), bytes, &sha)
            .unwrap();
    }
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (slot, stop) = (Arc::clone(&slot), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let bytes = &variants[n % variants.len()];
                let _ = slot.swap(bytes, &format!("candidate {n}"));
                n += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            n
        })
    };
    let mut rounds = Vec::new();
    let start = std::time::Instant::now();
    while rounds.len() < 16
        || (slot.status().swaps < 3 || slot.status().rejections < 1)
            && start.elapsed() < Duration::from_secs(600)
    {
        rounds.extend(h.rounds(1, Duration::from_millis(500)));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let offered = swapper.join().unwrap();
    let slot_status = slot.status();
    assert!(
        slot_status.swaps >= 3,
        "{slot_status:?} after {offered} offers"
    );
    assert!(slot_status.rejections >= 1, "{slot_status:?}");
    for (_, r) in &rounds {
        assert!(r.errors.is_empty(), "{:?}", r.errors);
    }
    let order: Vec<String> = creates(&rounds, &h.agent)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(&order[..3], ["init-db", "log-shipper", "app"]);
}

// ---------------------------------------------------------------- the binary

/// A one-thread HTTP server on 127.0.0.1 answering every request with `code`.
fn http_server(code: u16) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 1024];
            let _ = std::io::Read::read(&mut stream, &mut buf);
            let _ = std::io::Write::write_all(
                &mut stream,
                format!("HTTP/1.1 {code} X\r\nContent-Length: 0\r\n\r\n").as_bytes(),
            );
        }
    });
    port
}

#[test]
fn probes_run_when_due_with_the_kubelets_thresholds() {
    use podplan_agent::prober::Prober;
    use podplan_core::request::ProbeResult;
    let ok = http_server(200);
    let failing = http_server(500);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "p", "uid": "u1"},
        "spec": {"containers": [
            {"name": "web", "image": "x",
             "readinessProbe": {"httpGet": {"host": "127.0.0.1", "port": ok, "path": "/ready"}, "periodSeconds": 1},
             "livenessProbe": {"httpGet": {"host": "127.0.0.1", "port": failing}, "periodSeconds": 1, "failureThreshold": 2}},
            {"name": "db", "image": "x",
             "startupProbe": {"tcpSocket": {"host": "127.0.0.1", "port": closed}, "periodSeconds": 1, "initialDelaySeconds": 2},
             "livenessProbe": {"tcpSocket": {"host": "127.0.0.1", "port": ok}}}
        ]}
    }))
    .unwrap();
    let status: RuntimeStatus = serde_json::from_value(serde_json::json!({
        "id": "u1", "name": "p", "namespace": "default", "ips": ["127.0.0.1"],
        "containerStatuses": [
            {"id": "sim://w1", "name": "web", "state": "running", "startedAt": t0()},
            {"id": "sim://d1", "name": "db", "state": "running", "startedAt": t0()}
        ]
    }))
    .unwrap();
    let mut prober = Prober::default();
    let mut cri = Recorder::default();
    let at = |s: i64| t0() + jiff::SignedDuration::from_secs(s);
    // Nothing ran yet: web's probes are due at the start (no initial delay).
    assert_eq!(prober.next_due(&pod, &status), Some(at(0)));
    let first = prober.probe_pod(&mut cri, &pod, &status, at(0));
    // Then web's, a period (1 s) after their run; db's startup probe at its delay (2 s).
    assert_eq!(prober.next_due(&pod, &status), Some(at(1)));
    let web = first["sim://w1"];
    assert_eq!(web.readiness, Some(ProbeResult::Success));
    // One failure of two: still the initial success.
    assert_eq!(web.liveness, Some(ProbeResult::Success));
    // Before initialDelaySeconds: unknown; liveness waits for the startup probe.
    assert_eq!(first["sim://d1"].startup, Some(ProbeResult::Unknown));
    assert_eq!(first["sim://d1"].liveness, Some(ProbeResult::Success));
    // Not due again within the period: nothing changes.
    let same = prober.probe_pod(&mut cri, &pod, &status, at(0));
    assert_eq!(same["sim://w1"].liveness, Some(ProbeResult::Success));
    let second = prober.probe_pod(&mut cri, &pod, &status, at(1));
    assert_eq!(second["sim://w1"].liveness, Some(ProbeResult::Failure));
    let two = prober.probe_pod(&mut cri, &pod, &status, at(2));
    let three = prober.probe_pod(&mut cri, &pod, &status, at(3));
    assert_eq!(two["sim://d1"].startup, Some(ProbeResult::Unknown));
    assert_eq!(
        three["sim://d1"].startup,
        Some(ProbeResult::Unknown),
        "two refusals of three"
    );
    let four = prober.probe_pod(&mut cri, &pod, &status, at(4));
    assert_eq!(
        four["sim://d1"].startup,
        Some(ProbeResult::Failure),
        "three refused connections"
    );
    // Web's liveness and db's startup probes failed: on hold (until a restart); db's
    // liveness waits for a startup that will not come. Only web's readiness is left.
    assert_eq!(prober.next_due(&pod, &status), Some(at(5)));
    let stopped = RuntimeStatus {
        container_statuses: vec![],
        ..status.clone()
    };
    assert_eq!(prober.next_due(&pod, &stopped), None, "no container runs");
    assert!(cri.calls.is_empty(), "no exec probe: {:?}", cri.calls);
}

/// An HTTPS server on 127.0.0.1 answering `code`, with a self-signed certificate for a
/// name that is not the address probed: the kubelet's prober does not check it.
fn https_server(code: u16) -> u16 {
    use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    use tokio_rustls::rustls::{ServerConfig, ServerConnection, StreamOwned};
    let ck = rcgen::generate_simple_self_signed(vec!["not-the-probed-host.example".to_string()])
        .unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let config = Arc::new(
        ServerConfig::builder_with_provider(Arc::new(
            tokio_rustls::rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![ck.cert.der().clone()], key)
        .unwrap(),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let Ok(conn) = ServerConnection::new(Arc::clone(&config)) else {
                continue;
            };
            let mut tls = StreamOwned::new(conn, stream);
            let mut buf = [0u8; 1024];
            if std::io::Read::read(&mut tls, &mut buf).unwrap_or(0) == 0 {
                continue;
            }
            let _ = std::io::Write::write_all(
                &mut tls,
                format!("HTTP/1.1 {code} X\r\nContent-Length: 0\r\n\r\n").as_bytes(),
            );
            let _ = std::io::Write::flush(&mut tls);
            tls.conn.send_close_notify();
            let _ = std::io::Write::flush(&mut tls);
        }
    });
    port
}

#[test]
fn https_probes_do_not_check_the_certificate_as_the_kubelets() {
    use podplan_agent::prober::Prober;
    use podplan_core::request::ProbeResult;
    let ok = https_server(200);
    let failing = https_server(503);
    // A plain HTTP server probed over HTTPS: the handshake fails, so does the probe.
    let plain = http_server(200);
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "p", "uid": "u1"},
        "spec": {"containers": [
            {"name": "web", "image": "x",
             "readinessProbe": {"httpGet": {"scheme": "HTTPS", "port": ok, "path": "/readyz"}, "periodSeconds": 1},
             "livenessProbe": {"httpGet": {"scheme": "HTTPS", "port": failing}, "periodSeconds": 1, "failureThreshold": 1}},
            {"name": "db", "image": "x",
             "readinessProbe": {"httpGet": {"scheme": "https", "host": "127.0.0.1", "port": plain}, "periodSeconds": 1}}
        ]}
    }))
    .unwrap();
    let status: RuntimeStatus = serde_json::from_value(serde_json::json!({
        "id": "u1", "name": "p", "namespace": "default", "ips": ["127.0.0.1"],
        "containerStatuses": [
            {"id": "sim://w1", "name": "web", "state": "running", "startedAt": t0()},
            {"id": "sim://d1", "name": "db", "state": "running", "startedAt": t0()}
        ]
    }))
    .unwrap();
    let mut prober = Prober::default();
    let mut cri = Recorder::default();
    let results = prober.probe_pod(&mut cri, &pod, &status, t0());
    assert_eq!(results["sim://w1"].readiness, Some(ProbeResult::Success));
    assert_eq!(results["sim://w1"].liveness, Some(ProbeResult::Failure));
    assert_eq!(results["sim://d1"].readiness, Some(ProbeResult::Failure));
}

#[test]
fn e2e_an_image_change_in_a_manifest_with_a_uid_replaces_only_that_container() {
    let with_uid = WEB.replace("  name: web\n", "  name: web\n  uid: web-uid\n");
    let mut h = harness(Planner::Native, &[("web.yaml", &with_uid)]);
    h.rounds(12, Duration::from_millis(500));
    let before = h.status("web-uid");
    let id = |s: &RuntimeStatus, name: &str| {
        s.container_statuses
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.id.clone())
    };
    write(
        &h.manifests,
        "web.yaml",
        &with_uid.replace("nginx:1.27", "busybox:1.36"),
    );
    let rounds = h.rounds(6, Duration::from_millis(500));
    assert!(rounds
        .iter()
        .all(|(_, r)| r.errors.is_empty() && r.removed.is_empty()));
    let after = h.status("web-uid");
    assert_eq!(after.sandbox_statuses.len(), 1, "the same sandbox");
    assert_eq!(after.sandbox_statuses[0].id, before.sandbox_statuses[0].id);
    assert_eq!(id(&after, "log-shipper"), id(&before, "log-shipper"));
    assert_ne!(id(&after, "app"), id(&before, "app"));
    let app = after
        .container_statuses
        .iter()
        .find(|c| c.name == "app")
        .unwrap();
    assert_eq!(app.state, ContainerState::Running);
    assert!(app.image.contains("busybox"), "{app:?}");
}

#[test]
fn e2e_a_restarted_agent_adopts_its_pods_from_the_runtime() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    // Stopped mid-way (init container running), then again after the sidecar started.
    for partial in [1, 6] {
        h.rounds(partial, Duration::from_millis(500));
        let planner = Planner::Native;
        let config = h.agent.config().clone();
        let cri = GrpcRuntime::in_process(&h.sim, Duration::from_secs(5)).unwrap();
        // No database: the new agent knows only what the runtime reports.
        h.agent = Agent::new(config, planner, cri);
    }
    let rounds = h.rounds(10, Duration::from_millis(500));
    assert!(rounds.iter().all(|(_, r)| r.errors.is_empty()));
    let uid = h.uid();
    let status = h.status(&uid);
    let ready = status
        .sandbox_statuses
        .iter()
        .filter(|s| s.state == podplan_core::runtime::SandboxState::Ready)
        .count();
    assert_eq!(ready, 1, "{status:?}");
    let mut seen = std::collections::BTreeSet::new();
    for c in &status.container_statuses {
        assert!(
            seen.insert((c.name.clone(), c.restart_count)),
            "two {} with attempt {}",
            c.name,
            c.restart_count
        );
    }
    let running: Vec<&str> = status
        .container_statuses
        .iter()
        .filter(|c| c.state == ContainerState::Running)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(running.len(), 2, "{running:?}");
}

#[test]
fn a_pod_directory_that_cannot_be_made_ends_the_sync_before_any_call() {
    let dir = tempfile::tempdir().unwrap();
    // The root directory is a file: nothing can be made under it.
    std::fs::write(dir.path().join("root"), "").unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert!(cri.calls.is_empty(), "{:?}", cri.calls);
    assert_eq!(exec.failures.len(), 1, "{:?}", exec.failures);
    assert_eq!(exec.failures[0].event, "Failed");
    assert!(exec.failures[0]
        .message
        .starts_with("error making pod data directories: "));
    assert!(exec.aborted.is_some());
}

// ---------------------------------------------------------------- image pulls and hooks

fn step_json(v: serde_json::Value) -> podplan_core::plan::Step {
    serde_json::from_value(v).unwrap()
}

#[test]
fn a_pull_tries_each_auth_entry_in_order_until_one_succeeds_and_reports_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::Plan {
        steps: vec![step_json(serde_json::json!({
            "op": "PullImage", "container": "a", "image": "busybox",
            "imageSpec": {"image": "busybox:latest", "annotations": [], "runtimeHandler": ""},
            "auth": [{"username": "u1", "password": "p1"}, {"username": "u2", "password": "p2"},
                     {"username": "u3", "password": "p3"}],
            "sandboxConfig": "plan.sandboxConfig", "backoffKey": "u1_busybox"
        }))],
        ..podplan_core::Plan::default()
    };
    let mut cri = Recorder::failing("PullImage busybox:latest as u1", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(
        cri.calls,
        [
            "PullImage busybox:latest as u1",
            "PullImage busybox:latest as u2",
            "ImageStatus sha256:14",
        ]
    );
    let [r] = exec.pull_results.as_slice() else {
        panic!("{:?}", exec.pull_results)
    };
    assert_eq!(r.image, "busybox");
    assert_eq!(r.backoff_key.as_deref(), Some("u1_busybox"));
    assert_eq!(r.at, t0());
    assert_eq!(r.result.image_ref.as_deref(), Some("sha256:14"));
    assert_eq!(r.result.image_size, 7);
    assert!(r.result.error.is_none());

    // Every entry fails: the errors as the kubelet aggregates them; none: one anonymous pull.
    let mut cri = Recorder::failing("PullImage", CriCode::NotFound);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls.len(), 3);
    assert_eq!(
        exec.pull_results[0].result.error.as_deref(),
        Some("injected")
    );
    assert!(exec.pull_results[0].result.image_ref.is_none());
    if let podplan_core::plan::Step::PullImage(pull) = &mut plan.steps[0] {
        pull.auth.clear();
    }
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls[0], "PullImage busybox:latest as anonymous");
    assert!(exec.ok());
}

#[test]
fn a_failed_post_start_hook_kills_the_container_with_its_pre_stop_and_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let pod = serde_json::json!({"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
        "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "a", "image": "busybox",
            "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "exit 1"]}},
                          "preStop": {"exec": {"command": ["pre"]}}}}]}});
    let req = request(pod, dir.path());
    let mut plan = podplan_core::plan(&req).unwrap();
    let mut cri = Recorder::default();
    cri.exec_exit.insert("sh -c exit 1".into(), 1);
    let exec = execute(&mut cri, &req, &mut plan);
    let tail: Vec<&str> = cri
        .calls
        .iter()
        .rev()
        .take(4)
        .rev()
        .map(String::as_str)
        .collect();
    assert_eq!(
        tail,
        [
            "StartContainer a-2",
            "ExecSync a-2 0s",
            "ExecSync a-2 30s",
            "StopContainer a-2 30"
        ]
    );
    let [post, pre] = exec.hook_results.as_slice() else {
        panic!("{:?}", exec.hook_results)
    };
    assert_eq!(post.container_id, "fake://a-2");
    assert_eq!(post.hook, podplan_core::plan::HookKind::PostStart);
    assert_eq!(
        post.error.as_deref(),
        Some("command 'sh -c exit 1' exited with 1: boom")
    );
    assert_eq!(post.message.as_deref(), Some("outboom"));
    assert_eq!(pre.hook, podplan_core::plan::HookKind::PreStop);
    assert!(!pre.failed());
    assert_eq!(pre.stop_grace_period_seconds, Some(30));
    assert_eq!(exec.failures.len(), 1);
    assert_eq!(exec.failures[0].reason, "PostStartHookError");
    assert_eq!(exec.failures[0].event, "FailedPostStartHook");
    assert!(
        exec.failures[0]
            .message
            .starts_with("Exec lifecycle hook ([sh -c exit 1]) for Container \"a\""),
        "{}",
        exec.failures[0].message
    );

    // The next plan reads the result: the container waits with PostStartHookError.
    let mut next = req.clone();
    next.hook_results = exec.hook_results.clone();
    next.runtime_status = Some(
        serde_json::from_value(serde_json::json!({"id": "u1", "name": "p", "namespace": "default",
            "ips": ["10.1.2.3"],
            "sandboxStatuses": [{"id": "sb1", "state": "SANDBOX_READY", "network": {"ip": "10.1.2.3"}}],
            "containerStatuses": [{"id": "fake://a-2", "name": "a", "state": "exited", "exitCode": 137,
                "podSandboxId": "sb1", "startedAt": t0(), "finishedAt": t0()}]}))
        .unwrap(),
    );
    let replan = podplan_core::plan(&next).unwrap();
    assert!(
        replan
            .events
            .iter()
            .any(|e| e.reason == "FailedPostStartHook"),
        "{:?}",
        replan.events
    );
}

#[test]
fn a_kill_runs_the_pre_stop_hook_first_and_stops_with_what_is_left_of_the_grace() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::Plan {
        steps: vec![step_json(serde_json::json!({
            "op": "KillContainer", "container": "a", "containerId": "fake://a1", "gracePeriodSeconds": 20,
            "preStop": {"hook": "preStop", "container": "a", "containerId": "fake://a1",
                "handler": {"type": "exec", "command": ["drain"]}, "timeoutSeconds": 20,
                "onFailure": {"event": {"type": "Warning", "reason": "FailedPreStopHook",
                    "message": "PreStopHook failed"}, "stopContinues": true}}
        }))],
        ..podplan_core::Plan::default()
    };
    let mut cri = Recorder::default();
    cri.exec_exit.insert("drain".into(), 3);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls, ["ExecSync a1 20s", "StopContainer a1 20"]);
    assert_eq!(
        exec.hook_results[0].error.as_deref(),
        Some("command 'drain' exited with 3: boom")
    );
    // A failed preStop: the stop goes on; the sync does not fail.
    assert!(exec.ok());
}

fn harness_with(planner: Planner, files: &[(&str, &str)], images: ImagesScript) -> Harness {
    let mut h = harness(planner, files);
    let scenario = Scenario {
        images,
        ..Scenario::default()
    };
    h.sim = SimRuntime::new(
        SimOptions {
            scenario,
            ..SimOptions::default()
        },
        h.clock.clone(),
    );
    let config = h.agent.config().clone();
    let cri = GrpcRuntime::in_process(&h.sim, Duration::from_secs(5)).unwrap();
    h.agent = Agent::new(config, Planner::Native, cri);
    h
}

const PULLED: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: pulled}
spec:
  containers:
    - name: app
      image: alpine:3.20
"#;

#[test]
fn pulls_carry_the_nodes_docker_config_credentials() {
    let mut h = harness_with(
        Planner::Native,
        &[("p.yaml", PULLED)],
        ImagesScript::default(),
    );
    // The kubelet's node keyring: `config.json` in --root-dir (here user:password for
    // Docker Hub, where alpine comes from, and another user for a registry not used).
    let root = std::path::PathBuf::from(&h.agent.config().root_dir);
    std::fs::create_dir_all(&root).unwrap();
    write(
        &root,
        "config.json",
        r#"{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpwYXNzd29yZA=="},
                      "quay.io": {"username": "other", "password": "x"}}}"#,
    );
    let rounds = h.rounds(1, Duration::from_secs(1));
    let pull = rounds[0]
        .1
        .synced
        .iter()
        .flat_map(|(_, p)| &p.steps)
        .find_map(|s| match s {
            podplan_core::plan::Step::PullImage(pull) => Some(pull),
            _ => None,
        })
        .expect("a PullImage step");
    let auth: Vec<(&str, &str)> = pull
        .auth
        .iter()
        .map(|a| (a.username.as_str(), a.password.as_str()))
        .collect();
    assert_eq!(auth, [("user", "password")], "{pull:?}");
}

#[test]
fn e2e_a_missing_image_is_pulled_then_the_container_started() {
    let mut h = harness_with(
        Planner::Native,
        &[("p.yaml", PULLED)],
        ImagesScript::default(),
    );
    let rounds = h.rounds(3, Duration::from_secs(1));
    let plans: Vec<&podplan_core::Plan> = rounds[0].1.synced.iter().map(|(_, p)| p).collect();
    assert!(plans.len() >= 2, "{plans:?}");
    let ops = |p: &podplan_core::Plan| p.steps.iter().map(|s| s.op()).collect::<Vec<_>>();
    assert!(
        ops(plans[0]).contains(&StepOp::PullImage),
        "{:?}",
        ops(plans[0])
    );
    assert!(!ops(plans[0]).contains(&StepOp::CreateContainer));
    // The re-plan at once, with the pull's result: create and start with the imageRef.
    assert!(
        ops(plans[1]).contains(&StepOp::CreateContainer),
        "{:?}",
        ops(plans[1])
    );
    assert!(
        plans[1].events.iter().any(|e| e.reason == "Pulled"),
        "{:?}",
        plans[1].events
    );
    let config = &plans[1].container_configs[0].config;
    let image = config.image.as_ref().unwrap();
    assert!(image.image.starts_with("sha256:"), "{image:?}");
    assert_eq!(image.user_specified_image, "alpine:3.20");
    let uid = h.uid();
    let status = h.status(&uid);
    assert_eq!(status.container_statuses[0].state, ContainerState::Running);
    assert!(h.sim.with_node(|n| n.image_status("alpine:3.20").is_some()));
    // Later syncs do not pull again (the image is present).
    let later = h.rounds(3, Duration::from_secs(1));
    assert!(later.iter().all(|(_, r)| r
        .synced
        .iter()
        .all(|(_, p)| !ops(p).contains(&StepOp::PullImage))));
    assert!(rounds
        .iter()
        .chain(&later)
        .all(|(_, r)| r.errors.is_empty()));
}

#[test]
fn e2e_a_failed_pull_shows_err_image_pull_then_image_pull_back_off() {
    let images = ImagesScript {
        preloaded: vec![],
        unpullable: vec!["alpine:3.20".into()],
    };
    let mut h = harness_with(Planner::Native, &[("p.yaml", PULLED)], images);
    let mut statuses: Vec<String> = Vec::new();
    let mut pulls: Vec<jiff::Timestamp> = Vec::new();
    for _ in 0..32 {
        let rounds = h.rounds(1, Duration::from_secs(1));
        for (t, r) in &rounds {
            for (_, p) in &r.synced {
                if p.steps.iter().any(|s| s.op() == StepOp::PullImage) {
                    pulls.push(*t);
                }
            }
        }
        if let Some(row) = h.agent.reports().first().and_then(|r| r.kubectl.clone()) {
            if statuses.last() != Some(&row.status) {
                statuses.push(row.status);
            }
        }
    }
    let err = statuses.iter().position(|s| s == "ErrImagePull");
    let backoff = statuses.iter().position(|s| s == "ImagePullBackOff");
    assert!(
        matches!((err, backoff), (Some(e), Some(b)) if e < b),
        "{statuses:?}"
    );
    // Pulls back off: 10 s, then 20 s (the kubelet's image back-off).
    let gaps: Vec<i64> = pulls
        .windows(2)
        .map(|w| (w[1] - w[0]).get_seconds())
        .collect();
    assert!(
        gaps.len() >= 2 && gaps[0] >= 10 && gaps[1] >= 20,
        "{pulls:?}"
    );
    let uid = h.uid();
    assert!(h.status(&uid).container_statuses.is_empty());
}

const POST_START_FAILS: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: hooked
  annotations:
    runtime-sim.podplan.io/container.app: '{"exec": {"exitCode": 1, "stderr": "no"}}'
spec:
  terminationGracePeriodSeconds: 5
  containers:
    - name: app
      image: busybox:1.36
      lifecycle:
        postStart:
          exec:
            command: ["sh", "-c", "exit 1"]
"#;

#[test]
fn e2e_a_failing_post_start_hook_kills_the_container_and_is_reported() {
    let mut h = harness(Planner::Native, &[("p.yaml", POST_START_FAILS)]);
    let rounds = h.rounds(4, Duration::from_secs(1));
    let uid = h.uid();
    let status = h.status(&uid);
    let app = status
        .container_statuses
        .iter()
        .find(|c| c.name == "app")
        .unwrap();
    assert_eq!(app.state, ContainerState::Exited, "{app:?}");
    let events: Vec<&str> = rounds
        .iter()
        .flat_map(|(_, r)| r.synced.iter().flat_map(|(_, p)| p.events.iter()))
        .map(|e| e.reason.as_str())
        .collect();
    assert!(events.contains(&"FailedPostStartHook"), "{events:?}");
    let errors: Vec<&String> = rounds.iter().flat_map(|(_, r)| r.errors.iter()).collect();
    assert!(
        errors.iter().any(|e| e.contains("PostStartHookError")),
        "{errors:?}"
    );
}

#[test]
fn e2e_a_pre_stop_hook_runs_before_the_stop_of_a_removed_pod() {
    // The hook's HTTP server looks at the runtime when the request comes in.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let manifest = format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: drained}}
spec:
  terminationGracePeriodSeconds: 30
  containers:
    - name: app
      image: busybox:1.36
      lifecycle:
        preStop:
          httpGet: {{host: 127.0.0.1, port: {port}, path: /drain}}
"#
    );
    let mut h = harness(Planner::Native, &[("p.yaml", manifest.as_str())]);
    h.rounds(3, Duration::from_secs(1));
    let uid = h.uid();
    assert_eq!(
        h.status(&uid).container_statuses[0].state,
        ContainerState::Running
    );
    let sim = h.sim.clone();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = Arc::clone(&seen);
    let uid2 = uid.clone();
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0_u8; 1024];
            let n = std::io::Read::read(&mut stream, &mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n])
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            let state = sim.with_node(|node| {
                node.pod_status(&uid2)
                    .and_then(|s| s.container_statuses.first().map(|c| c.state))
            });
            seen2.lock().unwrap().push((line, state));
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            );
        }
    });
    std::fs::remove_file(h.manifests.join("p.yaml")).unwrap();
    let rounds = h.rounds(2, Duration::from_secs(1));
    assert!(
        rounds.iter().any(|(_, r)| !r.removed.is_empty()),
        "{rounds:?}"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [(
            "GET /drain HTTP/1.1".to_string(),
            Some(ContainerState::Running)
        )]
    );
    assert!(h.status(&uid).container_statuses.is_empty());
}

// ---------------------------------------------------------------- independent pod workers

/// The run loop on the virtual clock: probe workers of their own, a relist (`tick`) every
/// virtual second, the clock moved 100 ms every 4 ms of real time (25× faster), until
/// `done` says so or `limit` (virtual) has passed. The time it stopped at.
fn run_until(
    h: &mut Harness,
    limit: Duration,
    mut done: impl FnMut(&mut Harness, jiff::Timestamp) -> bool,
) -> jiff::Timestamp {
    let end = h.clock.now() + jiff::SignedDuration::try_from(limit).unwrap();
    let mut step = 0u32;
    loop {
        let now = h.clock.now();
        if step.is_multiple_of(10) {
            let set = h.source.load(now);
            let _ = h.agent.tick(&set, now);
        }
        if done(h, now) || now >= end {
            return now;
        }
        step += 1;
        std::thread::sleep(Duration::from_millis(4));
        h.clock.advance(Duration::from_millis(100));
    }
}

fn running_instance(h: &Harness, uid: &str, name: &str, restarts: i32) -> bool {
    h.status(uid).container_statuses.iter().any(|c| {
        c.name == name && c.restart_count == restarts && c.state == ContainerState::Running
    })
}

fn uid_of(h: &mut Harness, name: &str) -> String {
    let set = h.source.load(h.clock.now());
    set.pods
        .iter()
        .find(|p| p.pod.metadata.name.as_deref() == Some(format!("{name}-n1").as_str()))
        .map(|p| p.uid().to_string())
        .unwrap()
}

const STUBBORN: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: stubborn
  annotations:
    runtime-sim.podplan.io/slow.app: '{"ignoreSigterm": true}'
spec:
  terminationGracePeriodSeconds: 20
  containers:
    - name: app
      image: busybox:1.36
"#;

const CRASHER: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: crasher
  annotations:
    runtime-sim.podplan.io/container.app: '{"exit": {"code": 1, "afterSeconds": 6, "times": 1}}'
spec:
  containers:
    - name: app
      image: busybox:1.36
"#;

#[test]
fn a_pod_ignoring_sigterm_being_removed_does_not_delay_another_pods_restart() {
    let mut h = harness(
        Planner::Native,
        &[("a.yaml", STUBBORN), ("b.yaml", CRASHER)],
    );
    h.agent.start_probe_workers(h.clock.clone());
    let (a, b) = (uid_of(&mut h, "stubborn"), uid_of(&mut h, "crasher"));
    run_until(&mut h, Duration::from_secs(10), |h, _| {
        running_instance(h, &a, "app", 0) && running_instance(h, &b, "app", 0)
    });
    let b_started = h.status(&b).container_statuses[0].started_at.unwrap();
    // Remove A 2 s before B crashes: A's stop takes its whole grace period (20 s).
    run_until(&mut h, Duration::from_secs(10), |_, now| {
        now >= b_started + jiff::SignedDuration::from_secs(4)
    });
    std::fs::remove_file(h.manifests.join("a.yaml")).unwrap();
    let removed_at = h.clock.now();
    let crashed_at = b_started + jiff::SignedDuration::from_secs(6);
    let restarted = run_until(&mut h, Duration::from_secs(15), |h, _| {
        running_instance(h, &b, "app", 1)
    });
    let delay = restarted.duration_since(crashed_at).as_secs_f64();
    assert!(
        running_instance(&h, &b, "app", 1),
        "B was not restarted within 15 s"
    );
    assert!(delay <= 3.0, "B restarted {delay:.1}s after its crash");
    // A is still being stopped (its grace period is not over).
    assert!(
        !h.status(&a).container_statuses.is_empty(),
        "A's stop should still be waiting for its grace period"
    );
    let gone = run_until(&mut h, Duration::from_secs(30), |h, _| {
        h.status(&a).container_statuses.is_empty() && h.status(&a).sandbox_statuses.is_empty()
    });
    let took = gone.duration_since(removed_at).as_secs_f64();
    assert!((20.0..=24.0).contains(&took), "A's removal took {took:.1}s");
    eprintln!("B restarted {delay:.1}s after its crash; A removed after {took:.1}s");
}

const SLOW_PROBE: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: slowprobe
  annotations:
    runtime-sim.podplan.io/slow.app: '{"execSeconds": 16}'
spec:
  containers:
    - name: app
      image: busybox:1.36
      readinessProbe:
        exec: {command: ["true"]}
        periodSeconds: 1
        timeoutSeconds: 60
"#;

#[test]
fn a_slow_exec_probe_does_not_delay_another_pod() {
    let mut h = harness(
        Planner::Native,
        &[("a.yaml", SLOW_PROBE), ("b.yaml", CRASHER)],
    );
    h.agent.start_probe_workers(h.clock.clone());
    let (a, b) = (uid_of(&mut h, "slowprobe"), uid_of(&mut h, "crasher"));
    run_until(&mut h, Duration::from_secs(10), |h, _| {
        running_instance(h, &a, "app", 0) && running_instance(h, &b, "app", 0)
    });
    let b_started = h.status(&b).container_statuses[0].started_at.unwrap();
    let crashed_at = b_started + jiff::SignedDuration::from_secs(6);
    let restarted = run_until(&mut h, Duration::from_secs(20), |h, _| {
        running_instance(h, &b, "app", 1)
    });
    assert!(running_instance(&h, &b, "app", 1));
    let delay = restarted.duration_since(crashed_at).as_secs_f64();
    assert!(delay <= 3.0, "B restarted {delay:.1}s after its crash");
    // The slow probe did answer (16 s after it was called): A becomes ready.
    run_until(&mut h, Duration::from_secs(30), |h, _| {
        h.agent
            .reports()
            .iter()
            .any(|r| r.uid == a && r.kubectl.as_ref().is_some_and(|k| k.ready == "1/1"))
    });
    let ready = h
        .agent
        .reports()
        .iter()
        .any(|r| r.uid == a && r.kubectl.as_ref().is_some_and(|k| k.ready == "1/1"));
    assert!(ready, "{:?}", h.agent.reports());
}

#[test]
fn an_edited_static_pod_waits_until_its_previous_incarnation_is_gone() {
    let stubborn = STUBBORN.replace(
        "terminationGracePeriodSeconds: 20",
        "terminationGracePeriodSeconds: 10",
    );
    let mut h = harness(Planner::Native, &[("s.yaml", &stubborn)]);
    h.agent.start_probe_workers(h.clock.clone());
    let old = uid_of(&mut h, "stubborn");
    run_until(&mut h, Duration::from_secs(10), |h, _| {
        running_instance(h, &old, "app", 0)
    });
    // An edit without a uid: a new pod (a new UID) of the same full name.
    write(
        &h.manifests,
        "s.yaml",
        &stubborn.replace("busybox:1.36", "nginx:1.27"),
    );
    let edited_at = h.clock.now();
    let new = uid_of(&mut h, "stubborn");
    assert_ne!(new, old);
    let mut waited = false;
    let started = run_until(&mut h, Duration::from_secs(30), |h, _| {
        waited |= h
            .agent
            .reports()
            .iter()
            .any(|r| r.uid == new && r.waiting.is_some());
        // The new pod's sandbox never exists while the old pod still has containers.
        let new_sandboxes = h.status(&new).sandbox_statuses.len();
        let old_left = h.status(&old).container_statuses.len();
        assert!(
            new_sandboxes == 0 || old_left == 0,
            "the new incarnation started while the old one was terminating"
        );
        running_instance(h, &new, "app", 0)
    });
    assert!(running_instance(&h, &new, "app", 0));
    assert!(waited, "the new pod's report never said it waits");
    let took = started.duration_since(edited_at).as_secs_f64();
    assert!(
        took >= 10.0,
        "the new pod started {took:.1}s after the edit"
    );
}

#[test]
fn e2e_a_removed_pods_directories_are_cleaned_up() {
    let pod = r#"
apiVersion: v1
kind: Pod
metadata: {name: vols, uid: fixed-uid}
spec:
  securityContext: {fsGroup: 2000}
  volumes: [{name: scratch, emptyDir: {}}]
  containers:
    - name: app
      image: busybox:1.36
      volumeMounts: [{name: scratch, mountPath: /scratch}]
"#;
    let mut h = harness(Planner::Native, &[("v.yaml", pod)]);
    h.rounds(3, Duration::from_secs(1));
    let root = std::path::PathBuf::from(&h.agent.config().root_dir);
    let logs = std::path::PathBuf::from(&h.agent.config().pod_logs_dir);
    let scratch = root.join("pods/fixed-uid/volumes/kubernetes.io~empty-dir/scratch");
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = std::fs::metadata(&scratch).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, 0o2777);
        assert_eq!(meta.gid(), 2000);
    }
    std::fs::write(scratch.join("left-over"), "old").unwrap();
    let log_dir = logs.join("default_vols-n1_fixed-uid");
    assert!(log_dir.is_dir());
    std::fs::remove_file(h.manifests.join("v.yaml")).unwrap();
    // The pod worker stops the pod, then cleans up: a few rounds, more on a loaded machine
    // (bounded).
    let pod_dir = root.join("pods/fixed-uid");
    let gone = (0..20).any(|_| {
        h.rounds(1, Duration::from_secs(1));
        !pod_dir.exists() && !log_dir.exists()
    });
    assert!(
        gone,
        "pod dir {pod_dir:?} or log dir {log_dir:?} still there"
    );
    // The same UID again, once its old worker is done: a fresh emptyDir.
    write(&h.manifests, "v.yaml", pod);
    let back = (0..20).any(|_| {
        h.rounds(1, Duration::from_secs(1));
        scratch.is_dir()
    });
    assert!(back, "{scratch:?} was not made again");
    assert!(!scratch.join("left-over").exists());
}

#[test]
fn e2e_a_restarted_agent_runs_the_pre_stop_hook_from_the_containers_annotations() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let manifest = format!(
        r#"
apiVersion: v1
kind: Pod
metadata: {{name: drained}}
spec:
  terminationGracePeriodSeconds: 30
  containers:
    - name: app
      image: busybox:1.36
      lifecycle:
        preStop:
          httpGet: {{host: 127.0.0.1, port: {port}, path: /from-annotations}}
"#
    );
    let mut h = harness(Planner::Native, &[("p.yaml", manifest.as_str())]);
    h.rounds(3, Duration::from_secs(1));
    let uid = h.uid();
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = Arc::clone(&seen);
    std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0_u8; 1024];
            let n = std::io::Read::read(&mut stream, &mut buf).unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n])
                .lines()
                .next()
                .unwrap_or("")
                .to_string();
            seen2.lock().unwrap().push(line);
            let _ = std::io::Write::write_all(
                &mut stream,
                b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
            );
        }
    });
    // The agent restarts while the manifest is removed: it knows the pod only from the
    // runtime.
    let config = h.agent.config().clone();
    let cri = GrpcRuntime::in_process(&h.sim, Duration::from_secs(5)).unwrap();
    h.agent = Agent::new(config, Planner::Native, cri);
    std::fs::remove_file(h.manifests.join("p.yaml")).unwrap();
    let rounds = h.rounds(2, Duration::from_secs(1));
    assert!(
        rounds.iter().any(|(_, r)| !r.removed.is_empty()),
        "{rounds:?}"
    );
    assert_eq!(
        *seen.lock().unwrap(),
        ["GET /from-annotations HTTP/1.1".to_string()]
    );
    assert!(h.status(&uid).container_statuses.is_empty());
}
