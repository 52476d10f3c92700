//! The CRI requests an agent sends to carry out a plan, built from the core's types:
//! the configs of `plan.sandboxConfig`/`plan.containerConfigs` and a step's own
//! request (`UpdateContainerResources`, `UpdatePodSandboxResources`). Container ids
//! may be given in the kubelet's `<runtime>://<id>` form; the request carries the
//! runtime's own id.

use podplan_core::cri as c;

use crate::pb;
use crate::status::raw_id;

/// `RunPodSandbox` for a sandbox config (`runtime_handler` empty = the default).
#[must_use]
pub fn run_pod_sandbox(
    config: &c::PodSandboxConfig,
    runtime_handler: &str,
) -> pb::RunPodSandboxRequest {
    pb::RunPodSandboxRequest {
        config: Some(config.into()),
        runtime_handler: runtime_handler.to_string(),
    }
}

/// `CreateContainer` of `config` in sandbox `pod_sandbox_id`, with the sandbox's config
/// passed again as the kubelet does.
#[must_use]
pub fn create_container(
    pod_sandbox_id: &str,
    config: &c::ContainerConfig,
    sandbox_config: &c::PodSandboxConfig,
) -> pb::CreateContainerRequest {
    pb::CreateContainerRequest {
        pod_sandbox_id: pod_sandbox_id.to_string(),
        config: Some(config.into()),
        sandbox_config: Some(sandbox_config.into()),
    }
}

/// `StartContainer`.
#[must_use]
pub fn start_container(container_id: &str) -> pb::StartContainerRequest {
    pb::StartContainerRequest {
        container_id: raw_id(container_id).to_string(),
    }
}

/// `StopContainer` with a grace period in seconds (the kubelet's `gracePeriod`; 0 kills
/// at once, a negative value is sent as 0).
#[must_use]
pub fn stop_container(container_id: &str, grace_period_seconds: i64) -> pb::StopContainerRequest {
    pb::StopContainerRequest {
        container_id: raw_id(container_id).to_string(),
        timeout: grace_period_seconds.max(0),
    }
}

/// `RemoveContainer`.
#[must_use]
pub fn remove_container(container_id: &str) -> pb::RemoveContainerRequest {
    pb::RemoveContainerRequest {
        container_id: raw_id(container_id).to_string(),
    }
}

/// `StopPodSandbox`.
#[must_use]
pub fn stop_pod_sandbox(pod_sandbox_id: &str) -> pb::StopPodSandboxRequest {
    pb::StopPodSandboxRequest {
        pod_sandbox_id: pod_sandbox_id.to_string(),
    }
}

/// `RemovePodSandbox`.
#[must_use]
pub fn remove_pod_sandbox(pod_sandbox_id: &str) -> pb::RemovePodSandboxRequest {
    pb::RemovePodSandboxRequest {
        pod_sandbox_id: pod_sandbox_id.to_string(),
    }
}

/// `ListPodSandbox` of the sandboxes carrying every label of `labels`.
#[must_use]
pub fn list_pod_sandbox<'a>(
    labels: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> pb::ListPodSandboxRequest {
    pb::ListPodSandboxRequest {
        filter: Some(pb::PodSandboxFilter {
            label_selector: labels
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }),
    }
}

/// `ListContainers` of the containers carrying every label of `labels` (the kubelet
/// selects a pod's containers by `io.kubernetes.pod.uid`).
#[must_use]
pub fn list_containers<'a>(
    labels: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> pb::ListContainersRequest {
    pb::ListContainersRequest {
        filter: Some(pb::ContainerFilter {
            label_selector: labels
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        }),
    }
}

/// `ExecSync` of `cmd` with a timeout in seconds (a probe's `timeoutSeconds`).
#[must_use]
pub fn exec_sync(container_id: &str, cmd: &[String], timeout_seconds: i64) -> pb::ExecSyncRequest {
    pb::ExecSyncRequest {
        container_id: raw_id(container_id).to_string(),
        cmd: cmd.to_vec(),
        timeout: timeout_seconds.max(0),
    }
}

/// `ImageStatus` of an image reference.
#[must_use]
pub fn image_status(image: &str) -> pb::ImageStatusRequest {
    pb::ImageStatusRequest {
        image: Some(pb::ImageSpec {
            image: image.to_string(),
            ..Default::default()
        }),
        verbose: false,
    }
}

/// `PullImage` of a container config's image, in the context of its sandbox (no
/// credentials).
#[must_use]
pub fn pull_image(
    image: &c::ImageSpec,
    sandbox_config: &c::PodSandboxConfig,
) -> pb::PullImageRequest {
    pb::PullImageRequest {
        image: Some(image.into()),
        auth: None,
        sandbox_config: Some(sandbox_config.into()),
    }
}

impl From<&c::UpdateContainerResourcesRequest> for pb::UpdateContainerResourcesRequest {
    fn from(v: &c::UpdateContainerResourcesRequest) -> Self {
        Self {
            container_id: raw_id(&v.container_id).to_string(),
            linux: Some((&v.linux).into()),
            windows: None,
            annotations: Default::default(),
        }
    }
}

impl From<&c::UpdatePodSandboxResourcesRequest> for pb::UpdatePodSandboxResourcesRequest {
    fn from(v: &c::UpdatePodSandboxResourcesRequest) -> Self {
        Self {
            pod_sandbox_id: v.pod_sandbox_id.clone(),
            overhead: Some((&v.overhead).into()),
            resources: Some((&v.resources).into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn container_requests_carry_the_runtime_id() {
        assert_eq!(start_container("containerd://abc").container_id, "abc");
        assert_eq!(remove_container("abc").container_id, "abc");
        let stop = stop_container("sim://x", -5);
        assert_eq!((stop.container_id.as_str(), stop.timeout), ("x", 0));
        assert_eq!(stop_container("x", 30).timeout, 30);
        let update =
            pb::UpdateContainerResourcesRequest::from(&c::UpdateContainerResourcesRequest {
                container_id: "containerd://abc".into(),
                linux: c::LinuxContainerResources {
                    cpu_shares: 512,
                    ..Default::default()
                },
            });
        assert_eq!(update.container_id, "abc");
        assert_eq!(update.linux.map(|l| l.cpu_shares), Some(512));
    }

    #[test]
    fn create_container_sends_both_configs() {
        let sandbox = c::PodSandboxConfig {
            metadata: Some(c::PodSandboxMetadata {
                name: "web".into(),
                uid: "u".into(),
                namespace: "ns".into(),
                attempt: 2,
            }),
            ..Default::default()
        };
        let config = c::ContainerConfig {
            metadata: Some(c::ContainerMetadata {
                name: "app".into(),
                attempt: 1,
            }),
            ..Default::default()
        };
        let r = create_container("sb", &config, &sandbox);
        assert_eq!(r.pod_sandbox_id, "sb");
        assert_eq!(
            r.config.and_then(|c| c.metadata).map(|m| m.attempt),
            Some(1)
        );
        assert_eq!(
            r.sandbox_config.and_then(|c| c.metadata).map(|m| m.attempt),
            Some(2)
        );
        let run = run_pod_sandbox(&sandbox, "runc");
        assert_eq!(run.runtime_handler, "runc");
        assert_eq!(
            run.config.and_then(|c| c.metadata).map(|m| m.name),
            Some("web".into())
        );
    }

    #[test]
    fn list_filters_select_by_labels() {
        let r = list_containers([("io.kubernetes.pod.uid", "u1")]);
        let selector = r.filter.map(|f| f.label_selector).unwrap_or_default();
        assert_eq!(
            selector.get("io.kubernetes.pod.uid").map(String::as_str),
            Some("u1")
        );
        let r = list_pod_sandbox([("podplan.io/agent", "n1"), ("a", "b")]);
        assert_eq!(r.filter.map(|f| f.label_selector.len()), Some(2));
    }
}
