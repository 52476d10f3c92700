//! CRI statuses → the core's [`RuntimeStatus`], as the kubelet's `GetPodStatus`
//! (`kuberuntime_manager.go`) and `toKubeContainerStatus` (`helpers.go`) build
//! `kubecontainer.PodStatus` from `PodSandboxStatus` and `ContainerStatus` answers.
//!
//! * A container's id is `<runtimeName>://<id>` (`kubecontainer.ContainerID`), its name
//!   the `io.kubernetes.container.name` label, its hash the hexadecimal
//!   `io.kubernetes.container.hash` annotation and its restart count the decimal
//!   `io.kubernetes.container.restartCount` annotation; a missing or malformed value is 0,
//!   as the kubelet's `getUint64ValueFromLabel`/`getIntValueFromLabel` make it.
//! * `startedAt` is set unless the container is `CONTAINER_CREATED`; `finishedAt`,
//!   the exit code, reason and message only when it is `CONTAINER_EXITED`.
//! * The image id is `image_id`, or `image_ref` from runtimes older than 1.30.
//! * Sandboxes and containers are sorted newest first by creation time (stable for ties).
//! * The pod IPs come from the newest sandbox only, and only when it is `SANDBOX_READY`
//!   (`determinePodSandboxIPs`: the primary IP then the additional ones; an unparseable
//!   address drops them all).
//!
//! Everything here is pure and cannot fail: unknown enum numbers read as the kubelet
//! reads them (`CONTAINER_UNKNOWN`, a sandbox that is not ready).

use std::collections::BTreeMap;

use podplan_core::config::labels::{CONTAINER_HASH, CONTAINER_NAME_LABEL, CONTAINER_RESTART_COUNT};
use podplan_core::cri as c;
use podplan_core::runtime::{
    ContainerState, ContainerStatus, LinuxSandboxStatus, NamespaceMode, PodIp, RuntimeStatus,
    SandboxMetadata, SandboxNamespaceOptions, SandboxNamespaces, SandboxNetwork, SandboxState,
    SandboxStatus,
};

use crate::pb;

/// The pod a [`RuntimeStatus`] is built for (the kubelet passes these from the pod, not
/// from the runtime).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PodRef<'a> {
    /// Pod UID.
    pub uid: &'a str,
    /// Pod name.
    pub name: &'a str,
    /// Pod namespace.
    pub namespace: &'a str,
}

/// One `ContainerStatus` answer with the sandbox its container belongs to (the
/// `pod_sandbox_id` of its `ListContainers` entry; empty if unknown).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListedContainer {
    /// The container's sandbox id.
    pub pod_sandbox_id: String,
    /// The `ContainerStatus` answer.
    pub status: pb::ContainerStatus,
}

/// `<runtimeName>://<id>`: the kubelet's form of a container id.
#[must_use]
pub fn container_id(runtime_name: &str, id: &str) -> String {
    format!("{runtime_name}://{id}")
}

/// The runtime's own id in a kubelet container id (`containerd://abc` → `abc`); an id
/// without a `type://` prefix is returned as it is.
#[must_use]
pub fn raw_id(id: &str) -> &str {
    id.split_once("://").map_or(id, |(_, raw)| raw)
}

fn timestamp(nanos: i64) -> Option<jiff::Timestamp> {
    jiff::Timestamp::from_nanosecond(i128::from(nanos)).ok()
}

fn container_state(number: i32) -> ContainerState {
    match pb::ContainerState::try_from(number) {
        Ok(pb::ContainerState::ContainerCreated) => ContainerState::Created,
        Ok(pb::ContainerState::ContainerRunning) => ContainerState::Running,
        Ok(pb::ContainerState::ContainerExited) => ContainerState::Exited,
        Ok(pb::ContainerState::ContainerUnknown) | Err(_) => ContainerState::Unknown,
    }
}

/// The CRI number of a container state.
#[must_use]
pub fn container_state_number(state: ContainerState) -> i32 {
    let s = match state {
        ContainerState::Created => pb::ContainerState::ContainerCreated,
        ContainerState::Running => pb::ContainerState::ContainerRunning,
        ContainerState::Exited => pb::ContainerState::ContainerExited,
        ContainerState::Unknown => pb::ContainerState::ContainerUnknown,
    };
    s as i32
}

/// The hexadecimal hash annotation (`strconv.ParseUint(v, 16, 64)`; 0 when absent or bad).
fn hash(annotations: &BTreeMap<String, String>) -> u64 {
    annotations
        .get(CONTAINER_HASH)
        .and_then(|v| u64::from_str_radix(v, 16).ok())
        .unwrap_or(0)
}

/// The decimal restart-count annotation (`strconv.Atoi`; 0 when absent or bad).
fn restart_count(annotations: &BTreeMap<String, String>) -> i32 {
    annotations
        .get(CONTAINER_RESTART_COUNT)
        .and_then(|v| v.parse::<i32>().ok())
        .unwrap_or(0)
}

/// `toKubeContainerStatus`: one CRI `ContainerStatus` as the kubelet sees it.
/// `pod_sandbox_id` is the container's sandbox (from `ListContainers`; empty = unknown).
#[must_use]
pub fn container_status(
    runtime_name: &str,
    status: &pb::ContainerStatus,
    pod_sandbox_id: &str,
) -> ContainerStatus {
    let state = container_state(status.state);
    let exited = state == ContainerState::Exited;
    let image_id = if status.image_id.is_empty() {
        status.image_ref.clone()
    } else {
        status.image_id.clone()
    };
    ContainerStatus {
        id: container_id(runtime_name, &status.id),
        name: status
            .labels
            .get(CONTAINER_NAME_LABEL)
            .cloned()
            .unwrap_or_default(),
        pod_sandbox_id: (!pod_sandbox_id.is_empty()).then(|| pod_sandbox_id.to_string()),
        state,
        created_at: timestamp(status.created_at),
        started_at: if state == ContainerState::Created {
            None
        } else {
            timestamp(status.started_at)
        },
        finished_at: if exited {
            timestamp(status.finished_at)
        } else {
            None
        },
        exit_code: if exited { status.exit_code } else { 0 },
        image: status
            .image
            .as_ref()
            .map(|i| i.image.clone())
            .unwrap_or_default(),
        image_id,
        image_ref: status.image_ref.clone(),
        hash: hash(&status.annotations),
        restart_count: restart_count(&status.annotations),
        reason: if exited {
            status.reason.clone()
        } else {
            String::new()
        },
        message: if exited {
            status.message.clone()
        } else {
            String::new()
        },
        resources: status.resources.as_ref().and_then(resources_json),
    }
}

/// The runtime's reported resources in proto3 JSON (`{"linux": {...}}`).
fn resources_json(r: &pb::ContainerResources) -> Option<serde_json::Value> {
    let linux = r.linux.clone()?;
    let linux = c::LinuxContainerResources::try_from(linux).ok()?;
    let value = serde_json::to_value(linux).ok()?;
    let mut map = serde_json::Map::new();
    map.insert("linux".into(), value);
    Some(serde_json::Value::Object(map))
}

fn namespace_mode(number: i32) -> NamespaceMode {
    match pb::NamespaceMode::try_from(number) {
        Ok(pb::NamespaceMode::Container) => NamespaceMode::Container,
        Ok(pb::NamespaceMode::Node) => NamespaceMode::Node,
        Ok(pb::NamespaceMode::Target) => NamespaceMode::Target,
        Ok(pb::NamespaceMode::Pod) | Err(_) => NamespaceMode::Pod,
    }
}

fn sandbox_state(number: i32) -> SandboxState {
    if number == pb::PodSandboxState::SandboxReady as i32 {
        SandboxState::Ready
    } else {
        SandboxState::NotReady
    }
}

/// A CRI `PodSandboxStatus` as the core holds it.
#[must_use]
pub fn sandbox_status(status: &pb::PodSandboxStatus) -> SandboxStatus {
    SandboxStatus {
        id: status.id.clone(),
        metadata: status.metadata.as_ref().map(|m| SandboxMetadata {
            name: m.name.clone(),
            uid: m.uid.clone(),
            namespace: m.namespace.clone(),
            attempt: m.attempt,
        }),
        state: sandbox_state(status.state),
        created_at: status.created_at,
        network: status.network.as_ref().map(|n| SandboxNetwork {
            ip: n.ip.clone(),
            additional_ips: n
                .additional_ips
                .iter()
                .map(|ip| PodIp { ip: ip.ip.clone() })
                .collect(),
        }),
        linux: status.linux.as_ref().map(|l| LinuxSandboxStatus {
            namespaces: l.namespaces.as_ref().map(|n| SandboxNamespaces {
                options: n.options.as_ref().map(|o| SandboxNamespaceOptions {
                    network: namespace_mode(o.network),
                    pid: namespace_mode(o.pid),
                    ipc: namespace_mode(o.ipc),
                    target_id: o.target_id.clone(),
                }),
            }),
        }),
        labels: status.labels.clone(),
        annotations: status.annotations.clone(),
        runtime_handler: status.runtime_handler.clone(),
    }
}

/// `determinePodSandboxIPs`: the primary IP then the additional ones; none when the
/// sandbox reports no network, and none at all if one address does not parse.
#[must_use]
pub fn sandbox_ips(status: &pb::PodSandboxStatus) -> Vec<String> {
    let Some(network) = status.network.as_ref() else {
        return Vec::new();
    };
    let parses = |ip: &str| ip.parse::<std::net::IpAddr>().is_ok();
    let mut ips = Vec::new();
    if !network.ip.is_empty() {
        if !parses(&network.ip) {
            return Vec::new();
        }
        ips.push(network.ip.clone());
    }
    for extra in &network.additional_ips {
        if !parses(&extra.ip) {
            return Vec::new();
        }
        ips.push(extra.ip.clone());
    }
    ips
}

/// `GetPodStatus`: the pod's runtime status from the `PodSandboxStatus` answers of its
/// sandboxes and the `ContainerStatus` answers of its containers (any order; sandboxes
/// and containers the runtime no longer knows are simply left out by the caller).
#[must_use]
pub fn pod_status(
    runtime_name: &str,
    pod: PodRef<'_>,
    sandboxes: &[pb::PodSandboxStatus],
    containers: &[ListedContainer],
) -> RuntimeStatus {
    let mut sandboxes: Vec<&pb::PodSandboxStatus> = sandboxes.iter().collect();
    sandboxes.sort_by_key(|s| std::cmp::Reverse(s.created_at));
    let ips = sandboxes
        .first()
        .filter(|s| s.state == pb::PodSandboxState::SandboxReady as i32)
        .map(|s| sandbox_ips(s))
        .unwrap_or_default();
    let mut statuses: Vec<ContainerStatus> = containers
        .iter()
        .map(|c| container_status(runtime_name, &c.status, &c.pod_sandbox_id))
        .collect();
    statuses.sort_by_key(|s| std::cmp::Reverse(s.created_at));
    RuntimeStatus {
        id: pod.uid.to_string(),
        name: pod.name.to_string(),
        namespace: pod.namespace.to_string(),
        ips,
        sandbox_statuses: sandboxes.into_iter().map(sandbox_status).collect(),
        container_statuses: statuses,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    fn container(
        id: &str,
        name: &str,
        created: i64,
        state: pb::ContainerState,
    ) -> pb::ContainerStatus {
        pb::ContainerStatus {
            id: id.into(),
            metadata: Some(pb::ContainerMetadata {
                name: name.into(),
                attempt: 0,
            }),
            state: state as i32,
            created_at: created,
            started_at: created + 10,
            finished_at: created + 20,
            exit_code: 3,
            reason: "Error".into(),
            message: "boom".into(),
            image: Some(pb::ImageSpec {
                image: "nginx:1".into(),
                ..Default::default()
            }),
            image_ref: "docker.io/library/nginx@sha256:ab".into(),
            image_id: "sha256:0123".into(),
            labels: labels(&[(CONTAINER_NAME_LABEL, name)]),
            annotations: labels(&[(CONTAINER_HASH, "1a2b"), (CONTAINER_RESTART_COUNT, "4")]),
            ..Default::default()
        }
    }

    #[test]
    fn container_fields_follow_to_kube_container_status() {
        let s = container_status(
            "containerd",
            &container("abc", "app", 1_000, pb::ContainerState::ContainerExited),
            "sb1",
        );
        assert_eq!(s.id, "containerd://abc");
        assert_eq!(s.name, "app");
        assert_eq!(s.hash, 0x1a2b);
        assert_eq!(s.restart_count, 4);
        assert_eq!(s.state, ContainerState::Exited);
        assert_eq!(
            (s.exit_code, s.reason.as_str(), s.message.as_str()),
            (3, "Error", "boom")
        );
        assert_eq!(s.finished_at.map(|t| t.as_nanosecond()), Some(1_020));
        assert_eq!(s.started_at.map(|t| t.as_nanosecond()), Some(1_010));
        assert_eq!(s.image, "nginx:1");
        assert_eq!(s.image_id, "sha256:0123");
        assert_eq!(s.image_ref, "docker.io/library/nginx@sha256:ab");
        assert_eq!(s.pod_sandbox_id.as_deref(), Some("sb1"));
    }

    #[test]
    fn running_and_created_containers_carry_no_exit_facts() {
        let running = container_status(
            "sim",
            &container("a", "app", 5, pb::ContainerState::ContainerRunning),
            "",
        );
        assert_eq!(running.state, ContainerState::Running);
        assert!(running.finished_at.is_none());
        assert_eq!((running.exit_code, running.reason.as_str()), (0, ""));
        assert!(running.started_at.is_some());
        assert!(running.pod_sandbox_id.is_none());
        let created = container_status(
            "sim",
            &container("a", "app", 5, pb::ContainerState::ContainerCreated),
            "",
        );
        assert!(created.started_at.is_none());
    }

    #[test]
    fn bad_annotations_and_states_read_as_the_kubelet_reads_them() {
        let mut status = container("a", "app", 5, pb::ContainerState::ContainerRunning);
        status.annotations = labels(&[(CONTAINER_HASH, "xyz"), (CONTAINER_RESTART_COUNT, "-")]);
        status.state = 42;
        status.image_id.clear();
        let s = container_status("sim", &status, "");
        assert_eq!((s.hash, s.restart_count), (0, 0));
        assert_eq!(s.state, ContainerState::Unknown);
        // Runtimes older than 1.30 report only image_ref.
        assert_eq!(s.image_id, "docker.io/library/nginx@sha256:ab");
    }

    fn sandbox(id: &str, created: i64, ready: bool, ip: &str) -> pb::PodSandboxStatus {
        pb::PodSandboxStatus {
            id: id.into(),
            metadata: Some(pb::PodSandboxMetadata {
                name: "web".into(),
                uid: "u1".into(),
                namespace: "default".into(),
                attempt: 1,
            }),
            state: if ready {
                pb::PodSandboxState::SandboxReady
            } else {
                pb::PodSandboxState::SandboxNotready
            } as i32,
            created_at: created,
            network: Some(pb::PodSandboxNetworkStatus {
                ip: ip.into(),
                additional_ips: vec![pb::PodIp {
                    ip: "fd00::2".into(),
                }],
            }),
            linux: Some(pb::LinuxPodSandboxStatus {
                namespaces: Some(pb::Namespace {
                    options: Some(pb::NamespaceOption {
                        network: pb::NamespaceMode::Node as i32,
                        ..Default::default()
                    }),
                }),
            }),
            labels: labels(&[("io.kubernetes.pod.uid", "u1")]),
            ..Default::default()
        }
    }

    #[test]
    fn pod_status_sorts_newest_first_and_takes_ips_from_the_newest_ready_sandbox() {
        let pod = PodRef {
            uid: "u1",
            name: "web",
            namespace: "default",
        };
        let sandboxes = [
            sandbox("old", 1, false, "10.0.0.1"),
            sandbox("new", 2, true, "10.0.0.2"),
        ];
        let containers = [
            ListedContainer {
                pod_sandbox_id: "old".into(),
                status: container("c1", "app", 10, pb::ContainerState::ContainerExited),
            },
            ListedContainer {
                pod_sandbox_id: "new".into(),
                status: container("c2", "app", 30, pb::ContainerState::ContainerRunning),
            },
            ListedContainer {
                pod_sandbox_id: "new".into(),
                status: container("c3", "side", 20, pb::ContainerState::ContainerRunning),
            },
        ];
        let status = pod_status("containerd", pod, &sandboxes, &containers);
        assert_eq!((status.id.as_str(), status.name.as_str()), ("u1", "web"));
        let ids: Vec<&str> = status
            .sandbox_statuses
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(ids, ["new", "old"]);
        assert_eq!(status.ips, ["10.0.0.2", "fd00::2"]);
        let ids: Vec<&str> = status
            .container_statuses
            .iter()
            .map(|s| s.id.as_str())
            .collect();
        assert_eq!(
            ids,
            ["containerd://c2", "containerd://c3", "containerd://c1"]
        );
        let newest = &status.sandbox_statuses[0];
        assert_eq!(newest.state, SandboxState::Ready);
        assert_eq!(newest.metadata.as_ref().map(|m| m.attempt), Some(1));
        let mode = newest
            .linux
            .as_ref()
            .and_then(|l| l.namespaces.as_ref())
            .and_then(|n| n.options.as_ref())
            .map(|o| o.network);
        assert_eq!(mode, Some(NamespaceMode::Node));
        assert_eq!(
            newest
                .labels
                .get("io.kubernetes.pod.uid")
                .map(String::as_str),
            Some("u1")
        );
    }

    #[test]
    fn no_ips_from_a_sandbox_that_is_not_ready_or_reports_a_bad_address() {
        let pod = PodRef::default();
        let not_ready = pod_status("sim", pod, &[sandbox("a", 1, false, "10.0.0.1")], &[]);
        assert!(not_ready.ips.is_empty());
        let bad = pod_status("sim", pod, &[sandbox("a", 1, true, "10.0.0.999")], &[]);
        assert!(bad.ips.is_empty());
        let mut host = sandbox("a", 1, true, "");
        host.network = None;
        assert!(pod_status("sim", pod, &[host], &[]).ips.is_empty());
    }

    #[test]
    fn raw_ids_drop_the_runtime_prefix() {
        assert_eq!(raw_id("containerd://abc"), "abc");
        assert_eq!(raw_id("abc"), "abc");
        assert_eq!(raw_id(&container_id("sim", "x")), "x");
    }
}
