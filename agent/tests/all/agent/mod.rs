//! The node agent, by topic (the index is in `tests/all/main.rs`), and the fixtures the
//! topics share: manifests, a recording fake runtime, and the harness that runs the agent
//! end to end on the in-process simulated node with a virtual clock over the in-process
//! gRPC channel of `runtime_sim`. (The binary: podplan-host's `tests/all/agent_cli.rs`.)

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
use podplan_core::sim::node as simcri;
use podplan_core::PlanRequest;
use podplan_testsupport::manifests::{write, WEB};
use podplan_wasmhost::Planner;

// By topic: see the index in `tests/all/main.rs`.
mod executor;
mod hooks;
mod images;
mod manifest;
mod probes;
mod status_file;
mod sync;
mod workers;

fn t0() -> jiff::Timestamp {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

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
            ..ImagesScript::default()
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

fn step_json(v: serde_json::Value) -> podplan_core::plan::Step {
    serde_json::from_value(v).unwrap()
}
