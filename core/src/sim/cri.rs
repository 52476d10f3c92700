//! The model runtime at the CRI's level: a node's sandboxes and containers, driven one
//! CRI call at a time (`RunPodSandbox` with a `PodSandboxConfig`, `CreateContainer` with
//! a `ContainerConfig`, ...), behaving as containerd does.
//!
//! [`Node`] keeps one [`Runtime`] per pod UID — the same model `Runtime::apply_step`
//! drives, so what it reports about a pod ([`Node::pod_status`]) is the kubelet's
//! `RuntimeStatus` — plus what only the CRI sees (configs, labels, annotations, reserved
//! names, images). It is what `podplan runtime-sim` serves over gRPC.
//!
//! As containerd:
//! * ids are 64 hexadecimal digits (derived from the node's operation count: no
//!   randomness); container ids in [`Node::pod_status`] are `<runtimeName>://<id>`;
//! * a sandbox reserves `name_namespace_uid_attempt` and a container
//!   `name_podName_namespace_uid_attempt` until removed; a second create with a taken name
//!   fails (`UNKNOWN`: `failed to reserve container name "…": name "…" is reserved for "…"`);
//! * `CreateContainer` needs the image (pulled or preloaded), `StartContainer` a created
//!   container in a ready sandbox; `StopContainer` of a running container exits it with
//!   137 (it is killed), of a created or exited one changes nothing; `RemoveContainer`,
//!   `RemovePodSandbox` and `StopPodSandbox` of something already gone succeed where
//!   containerd's do;
//! * images are named as containerd normalises them (`nginx` → `docker.io/library/nginx:latest`);
//!   a container reports the image's first tag, its digest as `imageRef` and its id as
//!   `imageId`; `PullImage` answers the image id.
//!
//! What happens on its own — a container exiting after N seconds, exec probes failing, a
//! sandbox lost, the next K calls of an RPC failing — is scripted by a [`Scenario`] or by
//! pod annotations (`CONTAINER_ANNOTATION_PREFIX`, `SANDBOX_ANNOTATION`), and happens
//! when time passes: every call takes `now`, and scripted events due by then happen
//! first, at their own time. The model is pure: the caller owns the clock.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{fnv64, Runtime, KILLED_EXIT_CODE};
use crate::config::labels::{CONTAINER_HASH, CONTAINER_RESTART_COUNT};
use crate::cri::{ContainerConfig, LinuxContainerResources, NamespaceMode, PodSandboxConfig};
use crate::runtime::{
    ContainerState, ContainerStatus, LinuxSandboxStatus, SandboxMetadata, SandboxNamespaceOptions,
    SandboxNamespaces, SandboxNetwork, SandboxState, SandboxStatus,
};

/// containerd's normalisation of an image reference (the kubelet's reference grammar):
/// `nginx` → `docker.io/library/nginx:latest`; digests and tags are kept.
pub(crate) use crate::images::reference::normalize_image;

/// The pod annotation prefix that scripts one container: `runtime-sim.podplan.io/container.<name>`
/// holds a [`ContainerScript`] as JSON. The kubelet copies pod annotations to the sandbox.
pub(crate) const CONTAINER_ANNOTATION_PREFIX: &str = "runtime-sim.podplan.io/container.";
/// The pod annotation that scripts the pod's sandboxes: a [`SandboxScript`] as JSON.
pub(crate) const SANDBOX_ANNOTATION: &str = "runtime-sim.podplan.io/sandbox";
/// The runtime name the model reports by default (`Version`), and so the prefix of its
/// container ids in the kubelet's form.
pub const DEFAULT_RUNTIME_NAME: &str = "sim";
/// The runtime version the model reports.
pub const RUNTIME_VERSION: &str = "0.1.0";

/// A gRPC status code (the canonical names, e.g. `UNAVAILABLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CriCode {
    /// 1.
    Cancelled,
    /// 2: containerd's answer for most plain errors.
    Unknown,
    /// 3.
    InvalidArgument,
    /// 4.
    DeadlineExceeded,
    /// 5.
    NotFound,
    /// 6.
    AlreadyExists,
    /// 7.
    PermissionDenied,
    /// 8.
    ResourceExhausted,
    /// 9.
    FailedPrecondition,
    /// 10.
    Aborted,
    /// 11.
    OutOfRange,
    /// 12.
    Unimplemented,
    /// 13.
    Internal,
    /// 14.
    Unavailable,
    /// 15.
    DataLoss,
    /// 16.
    Unauthenticated,
}

/// A failed CRI call: a gRPC code and containerd's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct CriError {
    /// The gRPC code.
    pub code: CriCode,
    /// The message.
    pub message: String,
}

impl CriError {
    fn new(code: CriCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    fn container_not_found(id: &str) -> Self {
        Self::new(
            CriCode::NotFound,
            format!("an error occurred when try to find container {id:?}: not found"),
        )
    }

    fn sandbox_not_found(id: &str) -> Self {
        Self::new(
            CriCode::NotFound,
            format!("an error occurred when try to find sandbox {id:?}: not found"),
        )
    }
}

/// A container exits on its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExitScript {
    /// The exit code.
    pub code: i32,
    /// Seconds after its start (0 = at once).
    #[serde(default)]
    pub after_seconds: i64,
    /// Only the first `times` instances (restart count below it) exit; absent = all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// What `ExecSync` answers in a container (exec probes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExecScript {
    /// The exit code once the container has run `after_seconds` (0 before).
    pub exit_code: i32,
    /// Seconds after the container's start from which `exit_code` is answered.
    #[serde(default)]
    pub after_seconds: i64,
    /// Standard output then.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    /// Standard error then.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

/// What one container does on its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerScript {
    /// It exits after a while.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitScript>,
    /// `ExecSync` answers (absent: exit 0, no output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecScript>,
}

/// What a pod's sandboxes do on their own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxScript {
    /// The sandbox is lost (not ready, its containers killed) this many seconds after
    /// its creation.
    pub lost_after_seconds: i64,
    /// Only sandboxes with an attempt below `times` are lost; absent = all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// The next `count` calls of an RPC fail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fault {
    /// The RPC's method name (`CreateContainer`, `PullImage`, ...).
    pub rpc: String,
    /// The gRPC code of the failures.
    pub code: CriCode,
    /// How many calls fail (default 1).
    #[serde(default = "one")]
    pub count: u32,
    /// The message (default: `injected fault`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

fn one() -> u32 {
    1
}

/// Images the node has or cannot get.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagesScript {
    /// Present from the start.
    #[serde(default)]
    pub preloaded: Vec<String>,
    /// `PullImage` fails with `NOT_FOUND` for these.
    #[serde(default)]
    pub unpullable: Vec<String>,
}

/// A script for the whole node (`podplan runtime-sim --scenario`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// Container scripts by `namespace/pod/container`, or by container name for every
    /// pod (a pod annotation wins over both).
    #[serde(default)]
    pub containers: BTreeMap<String, ContainerScript>,
    /// Sandbox scripts by `namespace/pod`, or by pod name.
    #[serde(default)]
    pub sandboxes: BTreeMap<String, SandboxScript>,
    /// RPC failures, in order.
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// Images.
    #[serde(default)]
    pub images: ImagesScript,
}

/// What the node keeps about a sandbox beyond its status.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxRecord {
    /// The pod UID (the key of its [`Runtime`]).
    pub uid: String,
    /// The reserved name.
    pub name: String,
    /// The config it was run with.
    pub config: PodSandboxConfig,
    /// The runtime handler.
    pub runtime_handler: String,
    /// The resources of the last `UpdatePodSandboxResources`.
    pub resources: Option<LinuxContainerResources>,
    script: Option<SandboxScript>,
    container_scripts: BTreeMap<String, ContainerScript>,
}

/// What the node keeps about a container beyond its status.
#[derive(Debug, Clone, PartialEq)]
pub struct ContainerRecord {
    /// The pod UID.
    pub uid: String,
    /// The sandbox id.
    pub sandbox_id: String,
    /// The reserved name.
    pub name: String,
    /// The config it was created with (labels, annotations, mounts, log path, ...).
    pub config: ContainerConfig,
    /// Its resources: the config's, then those of the last `UpdateContainerResources`.
    pub resources: Option<LinuxContainerResources>,
    /// The image's id (`sha256:…`).
    pub image_id: String,
    script: ContainerScript,
}

/// An image the node has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRecord {
    /// `sha256:…`.
    pub id: String,
    /// Normalised tags (`docker.io/library/nginx:latest`).
    pub repo_tags: Vec<String>,
    /// Digest references (`docker.io/library/nginx@sha256:…`).
    pub repo_digests: Vec<String>,
    /// Size in bytes.
    pub size: u64,
}

/// A sandbox as the node reports it.
#[derive(Debug, Clone, Copy)]
pub struct SandboxView<'a> {
    /// Its status (in the model's [`Runtime`]).
    pub status: &'a SandboxStatus,
    /// The rest.
    pub record: &'a SandboxRecord,
}

/// A container as the node reports it.
#[derive(Debug, Clone, Copy)]
pub struct ContainerView<'a> {
    /// The runtime's id (no `type://` prefix).
    pub id: &'a str,
    /// Its status (in the model's [`Runtime`]; `id` in the kubelet's form).
    pub status: &'a ContainerStatus,
    /// The rest.
    pub record: &'a ContainerRecord,
}

/// What `ExecSync` answers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecResult {
    /// Exit code.
    pub exit_code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// A node's simulated CRI runtime (see the module documentation).
#[derive(Debug, Clone)]
pub struct Node {
    runtime_name: String,
    scenario: Scenario,
    pods: BTreeMap<String, Runtime>,
    sandboxes: BTreeMap<String, SandboxRecord>,
    containers: BTreeMap<String, ContainerRecord>,
    names: BTreeMap<String, String>,
    images: BTreeMap<String, ImageRecord>,
    faults: Vec<Fault>,
    /// Sandboxes with a loss script and containers with an exit script: what
    /// [`Node::advance`] looks at (not every object on the node).
    scripted_sandboxes: BTreeSet<String>,
    scripted_containers: BTreeSet<String>,
    ops: u64,
    ips: u32,
    now: Option<jiff::Timestamp>,
}

impl Default for Node {
    fn default() -> Self {
        Self::new(DEFAULT_RUNTIME_NAME, Scenario::default())
    }
}

/// The repository of a normalised reference (without tag or digest).
fn repository(normalized: &str) -> &str {
    let cut = normalized.find('@').unwrap_or(normalized.len());
    let without_digest = normalized.get(..cut).unwrap_or(normalized);
    let slash = without_digest.rfind('/').unwrap_or(0);
    match without_digest.rfind(':') {
        Some(colon) if colon > slash => without_digest.get(..colon).unwrap_or(without_digest),
        _ => without_digest,
    }
}

/// 64 hexadecimal digits from some parts (four FNV-64 rounds).
fn hex64(parts: &[&[u8]]) -> String {
    (0u8..4)
        .map(|round| {
            let mut all: Vec<&[u8]> = parts.to_vec();
            let salt = [round];
            all.push(&salt);
            format!("{:016x}", fnv64(&all))
        })
        .collect()
}

fn image_record(normalized: &str) -> ImageRecord {
    let digest = hex64(&[b"image", normalized.as_bytes()]);
    ImageRecord {
        id: format!("sha256:{}", hex64(&[b"image-id", normalized.as_bytes()])),
        repo_tags: if normalized.contains('@') {
            vec![]
        } else {
            vec![normalized.to_string()]
        },
        repo_digests: vec![format!("{}@sha256:{digest}", repository(normalized))],
        size: 1_000_000 + fnv64(&[normalized.as_bytes()]) % 100_000_000,
    }
}

fn exit_reason(code: i32) -> &'static str {
    if code == 0 {
        "Completed"
    } else {
        "Error"
    }
}

fn seconds_after(t: jiff::Timestamp, seconds: i64) -> jiff::Timestamp {
    let ns = i128::from(seconds.max(0)).saturating_mul(1_000_000_000);
    jiff::Timestamp::from_nanosecond(t.as_nanosecond().saturating_add(ns)).unwrap_or(t)
}

fn parse_script<T: serde::de::DeserializeOwned>(key: &str, value: &str) -> Result<T, CriError> {
    serde_json::from_str(value).map_err(|e| {
        CriError::new(
            CriCode::InvalidArgument,
            format!("annotation {key}: not a valid script: {e}"),
        )
    })
}

impl Node {
    /// An empty node reporting `runtime_name`, scripted by `scenario` (its preloaded
    /// images are present).
    #[must_use]
    pub fn new(runtime_name: &str, scenario: Scenario) -> Self {
        let images = scenario
            .images
            .preloaded
            .iter()
            .map(|i| {
                let record = image_record(&normalize_image(i));
                (record.id.clone(), record)
            })
            .collect();
        Self {
            runtime_name: runtime_name.to_string(),
            faults: scenario.faults.clone(),
            scenario,
            pods: BTreeMap::new(),
            sandboxes: BTreeMap::new(),
            containers: BTreeMap::new(),
            names: BTreeMap::new(),
            images,
            scripted_sandboxes: BTreeSet::new(),
            scripted_containers: BTreeSet::new(),
            ops: 0,
            ips: 0,
            now: None,
        }
    }

    /// The runtime name (`Version`), the prefix of container ids in the kubelet's form.
    #[must_use]
    pub fn runtime_name(&self) -> &str {
        &self.runtime_name
    }

    /// The next `count` calls of `rpc` fail with `code` (after the faults already queued
    /// for it).
    pub fn fail_next(&mut self, rpc: &str, code: CriCode, count: u32, message: &str) {
        self.faults.push(Fault {
            rpc: rpc.to_string(),
            code,
            count,
            message: message.to_string(),
        });
    }

    /// Counts a call of `rpc`: the error of the first fault queued for it, if any.
    /// Every RPC handler calls this first.
    pub fn check_fault(&mut self, rpc: &str) -> Result<(), CriError> {
        let Some(pos) = self.faults.iter().position(|f| f.rpc == rpc && f.count > 0) else {
            return Ok(());
        };
        let Some(fault) = self.faults.get_mut(pos) else {
            return Ok(());
        };
        fault.count -= 1;
        let err = CriError::new(
            fault.code,
            if fault.message.is_empty() {
                format!("injected fault ({rpc})")
            } else {
                fault.message.clone()
            },
        );
        if fault.count == 0 {
            self.faults.remove(pos);
        }
        Err(err)
    }

    /// The kubelet's view of one pod (by UID): its sandboxes and containers, newest first,
    /// container ids as `<runtimeName>://<id>`.
    #[must_use]
    pub fn pod_status(&self, uid: &str) -> Option<crate::runtime::RuntimeStatus> {
        self.pods.get(uid).map(Runtime::status)
    }

    fn next_id(&mut self, kind: &str, name: &str) -> String {
        self.ops += 1;
        hex64(&[kind.as_bytes(), name.as_bytes(), &self.ops.to_le_bytes()])
    }

    /// Lets time pass to `now`: scripted exits and sandbox losses due by then happen, each
    /// at its own time. Every call does this first; the clock never goes back.
    pub fn advance(&mut self, now: jiff::Timestamp) {
        let now = self.now.map_or(now, |t| t.max(now));
        self.now = Some(now);
        // Sandboxes lost by now.
        let lost: Vec<(String, jiff::Timestamp)> = self
            .scripted_sandboxes
            .iter()
            .filter_map(|id| {
                let script = self.sandboxes.get(id)?.script?;
                let status = self.sandbox_status(id)?;
                let attempt = status.metadata.as_ref().map_or(0, |m| m.attempt);
                let scripted = script.times.is_none_or(|t| attempt < t);
                let created =
                    jiff::Timestamp::from_nanosecond(i128::from(status.created_at)).ok()?;
                let due = seconds_after(created, script.lost_after_seconds);
                (scripted && status.state == SandboxState::Ready && due <= now)
                    .then(|| (id.clone(), due))
            })
            .collect();
        for (id, at) in lost {
            self.lose_sandbox(&id, at);
        }
        // Containers that exit by now.
        let exits: Vec<(String, i32, jiff::Timestamp)> = self
            .scripted_containers
            .iter()
            .filter_map(|id| {
                let exit = self.containers.get(id)?.script.exit?;
                let status = self.container_status(id)?;
                let scripted = exit
                    .times
                    .is_none_or(|t| u32::try_from(status.restart_count).unwrap_or(0) < t);
                let started = status.started_at?;
                let due = seconds_after(started, exit.after_seconds);
                (scripted && status.state == ContainerState::Running && due <= now)
                    .then(|| (id.clone(), exit.code, due))
            })
            .collect();
        for (id, code, at) in exits {
            self.exit_container(&id, code, at);
        }
    }

    fn sandbox_status(&self, id: &str) -> Option<&SandboxStatus> {
        let record = self.sandboxes.get(id)?;
        self.pods
            .get(&record.uid)?
            .status
            .sandbox_statuses
            .iter()
            .find(|s| s.id == id)
    }

    fn container_status(&self, id: &str) -> Option<&ContainerStatus> {
        let record = self.containers.get(id)?;
        let full = full_id(&self.runtime_name, id);
        self.pods
            .get(&record.uid)?
            .status
            .container_statuses
            .iter()
            .find(|s| s.id == full)
    }

    fn container_status_mut(&mut self, id: &str) -> Option<&mut ContainerStatus> {
        let record = self.containers.get(id)?;
        let full = full_id(&self.runtime_name, id);
        let runtime = self.pods.get_mut(&record.uid)?;
        runtime.seq += 1;
        runtime
            .status
            .container_statuses
            .iter_mut()
            .find(|s| s.id == full)
    }

    /// A running (or unknown) container exits with `code` at `at`. Returns whether it
    /// was running.
    pub(crate) fn exit_container(&mut self, id: &str, code: i32, at: jiff::Timestamp) -> bool {
        let Some(status) = self.container_status_mut(id) else {
            return false;
        };
        if !matches!(
            status.state,
            ContainerState::Running | ContainerState::Unknown
        ) {
            return false;
        }
        status.state = ContainerState::Exited;
        status.exit_code = code;
        status.reason = exit_reason(code).into();
        status.finished_at = Some(status.started_at.map_or(at, |s| s.max(at)));
        true
    }

    /// The sandbox `id` is lost at `at`: it is no longer ready and its running containers
    /// are killed (exit code 137), as when its pause process dies.
    pub(crate) fn lose_sandbox(&mut self, id: &str, at: jiff::Timestamp) {
        let members: Vec<String> = self
            .containers
            .iter()
            .filter(|(_, r)| r.sandbox_id == id)
            .map(|(c, _)| c.clone())
            .collect();
        for c in members {
            self.exit_container(&c, KILLED_EXIT_CODE, at);
        }
        let Some(uid) = self.sandboxes.get(id).map(|r| r.uid.clone()) else {
            return;
        };
        let Some(runtime) = self.pods.get_mut(&uid) else {
            return;
        };
        runtime.seq += 1;
        let newest = runtime
            .status
            .sandbox_statuses
            .first()
            .map(|s| s.id.as_str())
            == Some(id);
        if let Some(s) = runtime
            .status
            .sandbox_statuses
            .iter_mut()
            .find(|s| s.id == id)
        {
            s.state = SandboxState::NotReady;
        }
        if newest {
            runtime.status.ips.clear();
        }
    }

    /// `RunPodSandbox`: a ready sandbox (with an IP unless it uses the node's network),
    /// the newest of its pod.
    pub fn run_pod_sandbox(
        &mut self,
        config: &PodSandboxConfig,
        runtime_handler: &str,
        now: jiff::Timestamp,
    ) -> Result<String, CriError> {
        self.advance(now);
        let Some(meta) = config.metadata.as_ref() else {
            return Err(CriError::new(
                CriCode::InvalidArgument,
                "sandbox config must include metadata",
            ));
        };
        // Scripts from the pod's annotations: checked before anything is reserved.
        let mut container_scripts = BTreeMap::new();
        let mut script = None;
        for (key, value) in &config.annotations {
            if let Some(container) = key.strip_prefix(CONTAINER_ANNOTATION_PREFIX) {
                container_scripts.insert(container.to_string(), parse_script(key, value)?);
            } else if key == SANDBOX_ANNOTATION {
                script = Some(parse_script::<SandboxScript>(key, value)?);
            }
        }
        let pod_key = format!("{}/{}", meta.namespace, meta.name);
        let script = script.or_else(|| {
            self.scenario
                .sandboxes
                .get(&pod_key)
                .or_else(|| self.scenario.sandboxes.get(&meta.name))
                .copied()
        });
        let name = [
            meta.name.as_str(),
            meta.namespace.as_str(),
            meta.uid.as_str(),
            &meta.attempt.to_string(),
        ]
        .join("_");
        let id = self.next_id("sandbox", &name);
        if let Some(holder) = self.names.get(&name) {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("failed to reserve sandbox name {name:?}: name {name:?} is reserved for {holder:?}"),
            ));
        }
        let host_network = config
            .linux
            .as_ref()
            .and_then(|l| l.security_context.as_ref())
            .and_then(|s| s.namespace_options.as_ref())
            .is_some_and(|n| n.network == NamespaceMode::Node);
        let ip = if host_network {
            String::new()
        } else {
            let n = self.ips;
            self.ips += 1;
            format!("10.88.{}.{}", (n / 250) % 250, n % 250 + 2)
        };
        let runtime = self.pods.entry(meta.uid.clone()).or_insert_with(|| {
            let mut r = Runtime::default();
            r.status.id.clone_from(&meta.uid);
            r.status.name.clone_from(&meta.name);
            r.status.namespace.clone_from(&meta.namespace);
            r
        });
        runtime.seq += 1;
        let status = SandboxStatus {
            id: id.clone(),
            metadata: Some(SandboxMetadata {
                name: meta.name.clone(),
                uid: meta.uid.clone(),
                namespace: meta.namespace.clone(),
                attempt: meta.attempt,
            }),
            state: SandboxState::Ready,
            created_at: runtime.next_sandbox_created_at(now),
            network: Some(SandboxNetwork {
                ip: ip.clone(),
                additional_ips: vec![],
            }),
            linux: Some(LinuxSandboxStatus {
                namespaces: Some(SandboxNamespaces {
                    options: Some(SandboxNamespaceOptions {
                        network: if host_network {
                            NamespaceMode::Node
                        } else {
                            NamespaceMode::Pod
                        },
                        ..SandboxNamespaceOptions::default()
                    }),
                }),
            }),
            labels: config.labels.clone(),
            annotations: config.annotations.clone(),
            runtime_handler: runtime_handler.to_string(),
        };
        // Newest first by creation time.
        let at = runtime
            .status
            .sandbox_statuses
            .iter()
            .position(|s| s.created_at < status.created_at)
            .unwrap_or(runtime.status.sandbox_statuses.len());
        runtime.status.sandbox_statuses.insert(at, status);
        if at == 0 {
            runtime.status.ips = if ip.is_empty() { vec![] } else { vec![ip] };
        }
        self.names.insert(name.clone(), id.clone());
        if script.is_some() {
            self.scripted_sandboxes.insert(id.clone());
        }
        self.sandboxes.insert(
            id.clone(),
            SandboxRecord {
                uid: meta.uid.clone(),
                name,
                config: config.clone(),
                runtime_handler: runtime_handler.to_string(),
                resources: None,
                script,
                container_scripts,
            },
        );
        self.advance(now);
        Ok(id)
    }

    /// `StopPodSandbox`: its running containers are killed, the sandbox is no longer ready.
    pub fn stop_pod_sandbox(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        if !self.sandboxes.contains_key(id) {
            return Err(CriError::sandbox_not_found(id));
        }
        self.lose_sandbox(id, now);
        Ok(())
    }

    /// `RemovePodSandbox`: the sandbox and its containers are gone (stopped first);
    /// removing a sandbox that does not exist succeeds.
    pub fn remove_pod_sandbox(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.sandboxes.get(id) else {
            return Ok(());
        };
        let uid = record.uid.clone();
        self.lose_sandbox(id, now);
        let members: Vec<String> = self
            .containers
            .iter()
            .filter(|(_, r)| r.sandbox_id == id)
            .map(|(c, _)| c.clone())
            .collect();
        for c in members {
            self.remove_container(&c, now)?;
        }
        if let Some(record) = self.sandboxes.remove(id) {
            self.names.remove(&record.name);
        }
        self.scripted_sandboxes.remove(id);
        if let Some(runtime) = self.pods.get_mut(&uid) {
            runtime.seq += 1;
            runtime.status.sandbox_statuses.retain(|s| s.id != id);
            if runtime.status.sandbox_statuses.is_empty()
                && runtime.status.container_statuses.is_empty()
            {
                self.pods.remove(&uid);
            }
        }
        Ok(())
    }

    /// `CreateContainer` in sandbox `sandbox_id`: a created container whose hash and
    /// restart count are the config's `io.kubernetes.container.*` annotations.
    pub fn create_container(
        &mut self,
        sandbox_id: &str,
        config: &ContainerConfig,
        now: jiff::Timestamp,
    ) -> Result<String, CriError> {
        self.advance(now);
        let Some(sandbox) = self.sandboxes.get(sandbox_id) else {
            return Err(CriError::new(
                CriCode::NotFound,
                format!("failed to find sandbox id {sandbox_id:?}: not found"),
            ));
        };
        let Some(meta) = config.metadata.as_ref() else {
            return Err(CriError::new(
                CriCode::InvalidArgument,
                "container config must include metadata",
            ));
        };
        let image_ref = config.image.as_ref().map_or("", |i| i.image.as_str());
        let Some(image) = self.find_image(image_ref).cloned() else {
            return Err(CriError::new(
                CriCode::NotFound,
                format!("failed to resolve image {image_ref:?}: not found"),
            ));
        };
        let pod = sandbox.config.metadata.clone().unwrap_or_default();
        let name = [
            meta.name.as_str(),
            pod.name.as_str(),
            pod.namespace.as_str(),
            pod.uid.as_str(),
            &meta.attempt.to_string(),
        ]
        .join("_");
        let script = sandbox
            .container_scripts
            .get(&meta.name)
            .or_else(|| {
                self.scenario
                    .containers
                    .get(&format!("{}/{}/{}", pod.namespace, pod.name, meta.name))
            })
            .or_else(|| self.scenario.containers.get(&meta.name))
            .cloned()
            .unwrap_or_default();
        let uid = sandbox.uid.clone();
        let id = self.next_id("container", &name);
        if let Some(holder) = self.names.get(&name) {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("failed to reserve container name {name:?}: name {name:?} is reserved for {holder:?}"),
            ));
        }
        let Some(runtime) = self.pods.get_mut(&uid) else {
            return Err(CriError::sandbox_not_found(sandbox_id));
        };
        runtime.seq += 1;
        let created = runtime.next_container_created_at(now);
        let hash = config
            .annotations
            .get(CONTAINER_HASH)
            .and_then(|v| u64::from_str_radix(v, 16).ok())
            .unwrap_or(0);
        let restart_count = config
            .annotations
            .get(CONTAINER_RESTART_COUNT)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let status = ContainerStatus {
            id: full_id(&self.runtime_name, &id),
            name: meta.name.clone(),
            pod_sandbox_id: Some(sandbox_id.to_string()),
            state: ContainerState::Created,
            created_at: Some(created),
            image: image
                .repo_tags
                .first()
                .cloned()
                .unwrap_or_else(|| image_ref.to_string()),
            image_id: image.id.clone(),
            image_ref: image.repo_digests.first().cloned().unwrap_or_default(),
            hash,
            restart_count,
            resources: resources_value(config.linux.as_ref().and_then(|l| l.resources.as_ref())),
            ..ContainerStatus::default()
        };
        // Kept oldest first inside the model runtime (see `Runtime`): an append.
        runtime.add_container(status);
        self.names.insert(name.clone(), id.clone());
        if script.exit.is_some() {
            self.scripted_containers.insert(id.clone());
        }
        self.containers.insert(
            id.clone(),
            ContainerRecord {
                uid,
                sandbox_id: sandbox_id.to_string(),
                name,
                config: config.clone(),
                resources: config.linux.as_ref().and_then(|l| l.resources.clone()),
                image_id: image.id,
                script,
            },
        );
        Ok(id)
    }

    /// `StartContainer`: a created container in a ready sandbox runs from `now`.
    pub fn start_container(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.containers.get(id) else {
            return Err(CriError::container_not_found(id));
        };
        let sandbox_id = record.sandbox_id.clone();
        let ready = self
            .sandbox_status(&sandbox_id)
            .is_some_and(|s| s.state == SandboxState::Ready);
        if !ready {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("sandbox container {sandbox_id:?} is not running"),
            ));
        }
        let Some(status) = self.container_status_mut(id) else {
            return Err(CriError::container_not_found(id));
        };
        if status.state != ContainerState::Created {
            let state = cri_state_name(status.state);
            return Err(CriError::new(
                CriCode::Unknown,
                format!("failed to set starting state for container {id:?}: container is in {state} state"),
            ));
        }
        status.state = ContainerState::Running;
        status.started_at = Some(now);
        self.advance(now);
        Ok(())
    }

    /// `StopContainer`: a running container is killed (exit code 137) at `now`; a created
    /// or exited one is left as it is. The grace period passes at once.
    pub fn stop_container(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        if !self.containers.contains_key(id) {
            return Err(CriError::container_not_found(id));
        }
        self.exit_container(id, KILLED_EXIT_CODE, now);
        Ok(())
    }

    /// `RemoveContainer`: the container is gone (killed first if running) and its name
    /// free; removing a container that does not exist succeeds.
    pub fn remove_container(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        if !self.containers.contains_key(id) {
            return Ok(());
        }
        self.exit_container(id, KILLED_EXIT_CODE, now);
        let Some(record) = self.containers.remove(id) else {
            return Ok(());
        };
        self.names.remove(&record.name);
        self.scripted_containers.remove(id);
        let full = full_id(&self.runtime_name, id);
        if let Some(runtime) = self.pods.get_mut(&record.uid) {
            runtime.seq += 1;
            runtime.remove_container(&full);
        }
        Ok(())
    }

    /// `UpdateContainerResources`.
    pub fn update_container_resources(
        &mut self,
        id: &str,
        resources: LinuxContainerResources,
        now: jiff::Timestamp,
    ) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.containers.get_mut(id) else {
            return Err(CriError::container_not_found(id));
        };
        let value = resources_value(Some(&resources));
        record.resources = Some(resources);
        if let Some(status) = self.container_status_mut(id) {
            status.resources = value;
        }
        Ok(())
    }

    /// `UpdatePodSandboxResources`.
    pub fn update_pod_sandbox_resources(
        &mut self,
        id: &str,
        resources: LinuxContainerResources,
        now: jiff::Timestamp,
    ) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.sandboxes.get_mut(id) else {
            return Err(CriError::sandbox_not_found(id));
        };
        record.resources = Some(resources);
        Ok(())
    }

    /// `ExecSync` in a running container: its script's answer once it has run long
    /// enough, else exit 0.
    pub fn exec_sync(&mut self, id: &str, now: jiff::Timestamp) -> Result<ExecResult, CriError> {
        self.advance(now);
        let Some(record) = self.containers.get(id) else {
            return Err(CriError::container_not_found(id));
        };
        let Some(status) = self.container_status(id) else {
            return Err(CriError::container_not_found(id));
        };
        if status.state != ContainerState::Running {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("container is in {} state", cri_state_name(status.state)),
            ));
        }
        let Some(exec) = record.script.exec.as_ref() else {
            return Ok(ExecResult::default());
        };
        let due = status
            .started_at
            .map(|s| seconds_after(s, exec.after_seconds));
        if due.is_some_and(|d| d <= self.now.unwrap_or(now)) {
            Ok(ExecResult {
                exit_code: exec.exit_code,
                stdout: exec.stdout.clone(),
                stderr: exec.stderr.clone(),
            })
        } else {
            Ok(ExecResult::default())
        }
    }

    /// A sandbox by id.
    pub fn sandbox(&self, id: &str) -> Result<SandboxView<'_>, CriError> {
        let record = self
            .sandboxes
            .get(id)
            .ok_or_else(|| CriError::sandbox_not_found(id))?;
        let status = self
            .sandbox_status(id)
            .ok_or_else(|| CriError::sandbox_not_found(id))?;
        Ok(SandboxView { status, record })
    }

    /// Every sandbox, by id.
    pub fn sandboxes(&self) -> impl Iterator<Item = SandboxView<'_>> {
        self.sandboxes.iter().filter_map(|(id, record)| {
            Some(SandboxView {
                status: self.sandbox_status(id)?,
                record,
            })
        })
    }

    /// A container by id.
    pub fn container(&self, id: &str) -> Result<ContainerView<'_>, CriError> {
        let (id, record) = self
            .containers
            .get_key_value(id)
            .ok_or_else(|| CriError::container_not_found(id))?;
        let status = self
            .container_status(id)
            .ok_or_else(|| CriError::container_not_found(id))?;
        Ok(ContainerView { id, status, record })
    }

    /// Every container, by id.
    pub fn containers(&self) -> impl Iterator<Item = ContainerView<'_>> {
        self.containers.iter().filter_map(|(id, record)| {
            Some(ContainerView {
                id,
                status: self.container_status(id)?,
                record,
            })
        })
    }

    fn find_image(&self, reference: &str) -> Option<&ImageRecord> {
        if reference.is_empty() {
            return None;
        }
        if let Some(image) = self.images.get(reference) {
            return Some(image);
        }
        let normalized = normalize_image(reference);
        self.images
            .values()
            .find(|i| i.repo_tags.contains(&normalized) || i.repo_digests.contains(&normalized))
    }

    /// `ImageStatus`: the image, if the node has it (by reference, digest or id).
    #[must_use]
    pub fn image_status(&self, reference: &str) -> Option<&ImageRecord> {
        self.find_image(reference)
    }

    /// `ListImages`.
    pub fn images(&self) -> impl Iterator<Item = &ImageRecord> {
        self.images.values()
    }

    /// `PullImage`: the image's id; `NOT_FOUND` for an image the scenario makes
    /// unpullable.
    pub fn pull_image(
        &mut self,
        reference: &str,
        now: jiff::Timestamp,
    ) -> Result<String, CriError> {
        self.advance(now);
        let normalized = normalize_image(reference);
        if reference.is_empty()
            || self
                .scenario
                .images
                .unpullable
                .iter()
                .any(|u| normalize_image(u) == normalized)
        {
            return Err(CriError::new(
                CriCode::NotFound,
                format!("failed to pull and unpack image {normalized:?}: failed to resolve reference {normalized:?}: {normalized}: not found"),
            ));
        }
        if let Some(image) = self.find_image(reference) {
            return Ok(image.id.clone());
        }
        let record = image_record(&normalized);
        let id = record.id.clone();
        self.images.insert(id.clone(), record);
        Ok(id)
    }
}

/// The CRI name of a container state (`CONTAINER_RUNNING`, ...).
#[must_use]
pub(crate) fn cri_state_name(state: ContainerState) -> &'static str {
    match state {
        ContainerState::Created => "CONTAINER_CREATED",
        ContainerState::Running => "CONTAINER_RUNNING",
        ContainerState::Exited => "CONTAINER_EXITED",
        ContainerState::Unknown => "CONTAINER_UNKNOWN",
    }
}

/// A container's resources as its status reports them: CRI `ContainerResources` in
/// proto3 JSON (`{"linux": {...}}`).
fn resources_value(linux: Option<&LinuxContainerResources>) -> Option<serde_json::Value> {
    let linux = serde_json::to_value(linux?).ok()?;
    let mut map = serde_json::Map::new();
    map.insert("linux".into(), linux);
    Some(serde_json::Value::Object(map))
}

/// A container id in the kubelet's form, `<runtimeName>://<id>`.
fn full_id(runtime_name: &str, id: &str) -> String {
    format!("{runtime_name}://{id}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cri::{ContainerMetadata, ImageSpec, PodSandboxMetadata};

    fn t(s: i64) -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_750_000_000 + s).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    fn sandbox_config(name: &str, attempt: u32) -> PodSandboxConfig {
        PodSandboxConfig {
            metadata: Some(PodSandboxMetadata {
                name: name.into(),
                uid: format!("uid-{name}"),
                namespace: "default".into(),
                attempt,
            }),
            ..PodSandboxConfig::default()
        }
    }

    fn container_config(name: &str, attempt: u32) -> ContainerConfig {
        ContainerConfig {
            metadata: Some(ContainerMetadata {
                name: name.into(),
                attempt,
            }),
            image: Some(ImageSpec {
                image: "nginx".into(),
                ..ImageSpec::default()
            }),
            annotations: [
                (CONTAINER_HASH.to_string(), "abc".to_string()),
                (CONTAINER_RESTART_COUNT.to_string(), attempt.to_string()),
            ]
            .into(),
            ..ContainerConfig::default()
        }
    }

    fn started(
        node: &mut Node,
        sandbox: &str,
        name: &str,
        attempt: u32,
        at: jiff::Timestamp,
    ) -> String {
        let Ok(id) = node.create_container(sandbox, &container_config(name, attempt), at) else {
            panic!("create failed");
        };
        assert_eq!(node.start_container(&id, at), Ok(()));
        id
    }

    #[test]
    fn images_normalize_as_containerd_does() {
        assert_eq!(normalize_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(
            normalize_image("nginx:1.27"),
            "docker.io/library/nginx:1.27"
        );
        assert_eq!(normalize_image("me/app"), "docker.io/me/app:latest");
        assert_eq!(normalize_image("quay.io/x/y:v1"), "quay.io/x/y:v1");
        assert_eq!(
            normalize_image("localhost:5000/y"),
            "localhost:5000/y:latest"
        );
        assert_eq!(repository("localhost:5000/y:latest"), "localhost:5000/y");
    }

    #[test]
    fn sandbox_and_container_lifecycle() {
        let mut node = Node::default();
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        assert_eq!(sb.len(), 64);
        // The image must be there first.
        let missing = node.create_container(&sb, &container_config("app", 0), t(1));
        assert_eq!(missing.map_err(|e| e.code), Err(CriCode::NotFound));
        assert!(node
            .pull_image("nginx", t(1))
            .is_ok_and(|id| id.starts_with("sha256:")));
        let id = started(&mut node, &sb, "app", 0, t(2));
        let Some(status) = node.pod_status("uid-web") else {
            panic!("no pod");
        };
        assert_eq!(status.ips, ["10.88.0.2"]);
        let Some(app) = status.container_statuses.first() else {
            panic!("no container");
        };
        assert_eq!(app.id, format!("sim://{id}"));
        assert_eq!(
            (app.state, app.hash, app.image.as_str()),
            (
                ContainerState::Running,
                0xabc,
                "docker.io/library/nginx:latest"
            )
        );
        assert_eq!(app.started_at, Some(t(2)));
        assert_eq!(node.stop_container(&id, t(3)), Ok(()));
        let app = node
            .container(&id)
            .map(|c| (c.status.state, c.status.exit_code));
        assert_eq!(app, Ok((ContainerState::Exited, 137)));
        assert_eq!(node.remove_container(&id, t(4)), Ok(()));
        assert!(node.container(&id).is_err());
        assert_eq!(node.stop_pod_sandbox(&sb, t(5)), Ok(()));
        assert_eq!(
            node.sandbox(&sb).map(|s| s.status.state),
            Ok(SandboxState::NotReady)
        );
        assert_eq!(node.remove_pod_sandbox(&sb, t(6)), Ok(()));
        assert!(node.pod_status("uid-web").is_none());
        // Idempotent removal; a stop of a missing container is NOT_FOUND.
        assert_eq!(node.remove_pod_sandbox(&sb, t(7)), Ok(()));
        assert_eq!(
            node.stop_container(&id, t(7)).map_err(|e| e.code),
            Err(CriCode::NotFound)
        );
    }

    #[test]
    fn names_are_reserved_until_removed() {
        let mut node = Node::new(
            "sim",
            Scenario {
                images: ImagesScript {
                    preloaded: vec!["nginx".into()],
                    ..ImagesScript::default()
                },
                ..Scenario::default()
            },
        );
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let again = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0));
        assert!(again.is_err_and(|e| e
            .message
            .starts_with("failed to reserve sandbox name \"web_default_uid-web_0\"")));
        let Ok(first) = node.create_container(&sb, &container_config("app", 0), t(1)) else {
            panic!("create failed");
        };
        let Err(err) = node.create_container(&sb, &container_config("app", 0), t(1)) else {
            panic!("a taken name was reserved twice");
        };
        assert_eq!(err.code, CriCode::Unknown);
        assert_eq!(
            err.message,
            format!("failed to reserve container name \"app_web_default_uid-web_0\": name \"app_web_default_uid-web_0\" is reserved for \"{first}\"")
        );
        // Another attempt is another name; removal frees the name.
        assert!(node
            .create_container(&sb, &container_config("app", 1), t(1))
            .is_ok());
        assert_eq!(node.remove_container(&first, t(2)), Ok(()));
        assert!(node
            .create_container(&sb, &container_config("app", 0), t(2))
            .is_ok());
    }

    #[test]
    fn scripted_exit_happens_at_its_own_time() {
        let scenario = Scenario {
            containers: [(
                "app".to_string(),
                ContainerScript {
                    exit: Some(ExitScript {
                        code: 3,
                        after_seconds: 5,
                        times: Some(1),
                    }),
                    exec: None,
                },
            )]
            .into(),
            images: ImagesScript {
                preloaded: vec!["nginx".into()],
                ..ImagesScript::default()
            },
            ..Scenario::default()
        };
        let mut node = Node::new("sim", scenario);
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let id = started(&mut node, &sb, "app", 0, t(0));
        node.advance(t(4));
        assert_eq!(
            node.container(&id).map(|c| c.status.state),
            Ok(ContainerState::Running)
        );
        node.advance(t(60));
        let c = node.container(&id).map(|c| {
            (
                c.status.state,
                c.status.exit_code,
                c.status.finished_at,
                c.status.reason.clone(),
            )
        });
        assert_eq!(
            c,
            Ok((ContainerState::Exited, 3, Some(t(5)), "Error".to_string()))
        );
        // Only the first instance is scripted to exit.
        let second = started(&mut node, &sb, "app", 1, t(60));
        node.advance(t(600));
        assert_eq!(
            node.container(&second).map(|c| c.status.state),
            Ok(ContainerState::Running)
        );
    }

    #[test]
    fn annotations_script_exec_and_sandbox_loss() {
        let mut config = sandbox_config("web", 0);
        config.annotations.insert(
            format!("{CONTAINER_ANNOTATION_PREFIX}app"),
            r#"{"exec": {"exitCode": 1, "afterSeconds": 10, "stderr": "unhealthy"}}"#.into(),
        );
        config.annotations.insert(
            SANDBOX_ANNOTATION.into(),
            r#"{"lostAfterSeconds": 30}"#.into(),
        );
        let mut node = Node::default();
        assert!(node.pull_image("nginx", t(0)).is_ok());
        let Ok(sb) = node.run_pod_sandbox(&config, "", t(0)) else {
            panic!("run failed");
        };
        let id = started(&mut node, &sb, "app", 0, t(0));
        assert_eq!(node.exec_sync(&id, t(5)).map(|r| r.exit_code), Ok(0));
        let late = node.exec_sync(&id, t(10));
        assert_eq!(
            late.map(|r| (r.exit_code, r.stderr)),
            Ok((1, "unhealthy".to_string()))
        );
        node.advance(t(31));
        assert_eq!(
            node.sandbox(&sb).map(|s| s.status.state),
            Ok(SandboxState::NotReady)
        );
        let c = node
            .container(&id)
            .map(|c| (c.status.state, c.status.exit_code));
        assert_eq!(c, Ok((ContainerState::Exited, 137)));
        // Lost 30 s after the sandbox's creation (ordered within its instant).
        let lost = node.container(&id).ok().and_then(|c| c.status.finished_at);
        assert!(lost.is_some_and(|l| l >= t(30) && l < t(31)), "{lost:?}");
        assert!(node.pod_status("uid-web").is_some_and(|s| s.ips.is_empty()));
        assert!(node
            .exec_sync(&id, t(31))
            .is_err_and(|e| e.message == "container is in CONTAINER_EXITED state"));
        // A bad script is a clear error, and reserves nothing.
        let mut bad = sandbox_config("other", 0);
        bad.annotations
            .insert(SANDBOX_ANNOTATION.into(), "{".into());
        let err = node.run_pod_sandbox(&bad, "", t(32));
        assert!(err.is_err_and(
            |e| e.code == CriCode::InvalidArgument && e.message.contains(SANDBOX_ANNOTATION)
        ));
        assert!(node
            .run_pod_sandbox(&sandbox_config("other", 0), "", t(32))
            .is_ok());
    }

    #[test]
    fn faults_fail_the_next_calls_of_one_rpc() {
        let mut node = Node::default();
        node.fail_next("CreateContainer", CriCode::Unavailable, 2, "");
        assert_eq!(node.check_fault("RunPodSandbox"), Ok(()));
        assert!(node
            .check_fault("CreateContainer")
            .is_err_and(|e| e.code == CriCode::Unavailable));
        assert!(node.check_fault("CreateContainer").is_err());
        assert_eq!(node.check_fault("CreateContainer"), Ok(()));
    }

    #[test]
    fn start_needs_a_created_container_in_a_ready_sandbox() {
        let mut node = Node::default();
        assert!(node.pull_image("busybox", t(0)).is_ok());
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let mut config = container_config("app", 0);
        config.image = Some(ImageSpec {
            image: "docker.io/library/busybox:latest".into(),
            ..ImageSpec::default()
        });
        let Ok(id) = node.create_container(&sb, &config, t(1)) else {
            panic!("create failed");
        };
        assert_eq!(node.start_container(&id, t(1)), Ok(()));
        assert!(node.start_container(&id, t(2)).is_err_and(|e| e
            .message
            .ends_with("container is in CONTAINER_RUNNING state")));
        // nginx is not there: the image is resolved first.
        assert!(node
            .create_container(&sb, &container_config("side", 0), t(2))
            .is_err_and(|e| e.code == CriCode::NotFound));
        assert_eq!(node.stop_pod_sandbox(&sb, t(2)), Ok(()));
        let Ok(late) = node.create_container(&sb, &config_named(&config, "late"), t(3)) else {
            panic!("create failed");
        };
        assert!(node
            .start_container(&late, t(3))
            .is_err_and(|e| e.message.contains("is not running")));
    }

    fn config_named(config: &ContainerConfig, name: &str) -> ContainerConfig {
        let mut c = config.clone();
        c.metadata = Some(ContainerMetadata {
            name: name.into(),
            attempt: 0,
        });
        c
    }
}
