//! What the node keeps beyond the statuses — sandbox, container and image records — and
//! the views it answers with; images' ids and names as containerd derives them.

use std::collections::BTreeMap;

use super::script::{ContainerScript, SandboxScript};
use crate::cri::{ContainerConfig, LinuxContainerResources, PodSandboxConfig};
use crate::hash::fnv64a_extend;
use crate::runtime::{ContainerStatus, SandboxStatus};
use crate::sim::model::fnv64;

/// containerd's normalisation of an image reference (the kubelet's reference grammar):
/// `nginx` → `docker.io/library/nginx:latest`; digests and tags are kept.
pub(crate) use crate::images::reference::normalize_image;

/// What the node keeps about a sandbox beyond its status.
#[derive(Debug, Clone, PartialEq)]
pub struct SandboxRecord {
    /// The pod UID (the key of its `PodState`).
    pub uid: String,
    /// The reserved name.
    pub name: String,
    /// The config it was run with.
    pub config: PodSandboxConfig,
    /// The runtime handler.
    pub runtime_handler: String,
    /// The resources of the last `UpdatePodSandboxResources`.
    pub resources: Option<LinuxContainerResources>,
    pub(super) script: Option<SandboxScript>,
    pub(super) container_scripts: BTreeMap<String, ContainerScript>,
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
    /// Its id in its status, the kubelet's form: `<runtimeName>://<id>` for a container
    /// the node created, the relist's own for an adopted one (`Node::adopt`).
    pub(super) status_id: String,
    pub(super) script: ContainerScript,
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
    /// Its status .
    pub status: &'a SandboxStatus,
    /// The rest.
    pub record: &'a SandboxRecord,
}

/// A container as the node reports it.
#[derive(Debug, Clone, Copy)]
pub struct ContainerView<'a> {
    /// The runtime's id (no `type://` prefix).
    pub id: &'a str,
    /// Its status (in the model's `Runtime`; `id` in the kubelet's form).
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

/// The repository of a normalised reference (without tag or digest).
pub(super) fn repository(normalized: &str) -> &str {
    let cut = normalized.find('@').unwrap_or(normalized.len());
    let without_digest = normalized.get(..cut).unwrap_or(normalized);
    let slash = without_digest.rfind('/').unwrap_or(0);
    match without_digest.rfind(':') {
        Some(colon) if colon > slash => without_digest.get(..colon).unwrap_or(without_digest),
        _ => without_digest,
    }
}

/// 64 hexadecimal digits from some parts (four FNV-64 rounds).
pub(super) fn hex64(parts: &[&[u8]]) -> String {
    use std::fmt::Write as _;
    // The parts' hash is each round's prefix: hashed once, then salted per round.
    let prefix = fnv64(parts);
    let mut out = String::with_capacity(64);
    for round in 0u8..4 {
        let h = fnv64a_extend(fnv64a_extend(prefix, &[round]), &[0xff]);
        let _ = write!(out, "{h:016x}");
    }
    out
}

/// The name containerd reserves for a sandbox until it is removed
/// (`makeSandboxName`: `name_namespace_uid_attempt`).
pub(crate) fn sandbox_name(name: &str, namespace: &str, uid: &str, attempt: u32) -> String {
    format!("{name}_{namespace}_{uid}_{attempt}")
}

/// The name containerd reserves for a container until it is removed
/// (`makeContainerName`: `name_podName_namespace_uid_attempt`).
pub(crate) fn container_name(
    name: &str,
    pod: &str,
    namespace: &str,
    uid: &str,
    attempt: u32,
) -> String {
    format!("{name}_{pod}_{namespace}_{uid}_{attempt}")
}

pub(crate) fn image_record(normalized: &str) -> ImageRecord {
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
