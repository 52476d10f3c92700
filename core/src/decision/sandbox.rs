//! `PodSandboxChanged`: does the pod need a new sandbox, and with which attempt number?

use k8s_openapi::api::core::v1::Pod;

use crate::kubecontainer::pod_status::StatusView;
use crate::runtime::{NamespaceMode, SandboxState};

/// Why the sandbox must be (re)created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SandboxChangeReason {
    /// No sandbox exists yet.
    NoSandbox,
    /// More than one sandbox is ready.
    MultipleReady,
    /// The latest sandbox is not ready.
    NotReady,
    /// The network namespace mode differs from the pod's (`hostNetwork` changed).
    NetworkNamespaceChanged,
    /// The sandbox reports a network block without an IP.
    NoIp,
}

impl SandboxChangeReason {
    /// Machine-readable reason.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::NoSandbox => "NoSandbox",
            Self::MultipleReady => "MultipleReadySandboxes",
            Self::NotReady => "SandboxNotReady",
            Self::NetworkNamespaceChanged => "NetworkNamespaceChanged",
            Self::NoIp => "SandboxHasNoIP",
        }
    }
}

/// The result of `PodSandboxChanged`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SandboxChange {
    /// `Some` when a new sandbox is needed.
    pub reason: Option<SandboxChangeReason>,
    /// Attempt of the sandbox to create (or of the current one).
    pub attempt: u32,
    /// The current sandbox id ("" if none, or replaced for a namespace mismatch).
    pub sandbox_id: String,
}

impl SandboxChange {
    /// Whether a new sandbox is needed.
    #[must_use]
    pub(crate) fn changed(&self) -> bool {
        self.reason.is_some()
    }
}

/// `NetworkNamespaceForPod`: NODE for host-network pods, POD otherwise.
#[must_use]
pub(crate) fn network_namespace_for_pod(pod: &Pod) -> NamespaceMode {
    let host = pod
        .spec
        .as_ref()
        .and_then(|s| s.host_network)
        .unwrap_or(false);
    if host {
        NamespaceMode::Node
    } else {
        NamespaceMode::Pod
    }
}

/// `PodSandboxChanged(pod, status)`.
#[must_use]
pub(crate) fn pod_sandbox_changed(pod: &Pod, status: &StatusView<'_>) -> SandboxChange {
    let sandboxes = status.sandboxes();
    let Some(s0) = sandboxes.first() else {
        return SandboxChange {
            reason: Some(SandboxChangeReason::NoSandbox),
            attempt: 0,
            sandbox_id: String::new(),
        };
    };
    let attempt = s0.metadata.as_ref().map_or(0, |m| m.attempt);
    let next = attempt.saturating_add(1);
    let ready = sandboxes
        .iter()
        .filter(|s| s.state == SandboxState::Ready)
        .count();
    let change = |reason, sandbox_id: &str| SandboxChange {
        reason: Some(reason),
        attempt: next,
        sandbox_id: sandbox_id.to_string(),
    };
    if ready > 1 {
        return change(SandboxChangeReason::MultipleReady, &s0.id);
    }
    if s0.state != SandboxState::Ready {
        return change(SandboxChangeReason::NotReady, &s0.id);
    }
    let mode = s0
        .linux
        .as_ref()
        .and_then(|l| l.namespaces.as_ref())
        .and_then(|n| n.options.as_ref())
        .map_or(NamespaceMode::Pod, |o| o.network);
    if mode != network_namespace_for_pod(pod) {
        return change(SandboxChangeReason::NetworkNamespaceChanged, "");
    }
    let host_network = network_namespace_for_pod(pod) == NamespaceMode::Node;
    if !host_network && s0.network.as_ref().is_some_and(|n| n.ip.is_empty()) {
        return change(SandboxChangeReason::NoIp, &s0.id);
    }
    SandboxChange {
        reason: None,
        attempt,
        sandbox_id: s0.id.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::PlanRequest;
    use crate::runtime::{
        LinuxSandboxStatus, RuntimeStatus, SandboxMetadata, SandboxNamespaceOptions,
        SandboxNamespaces, SandboxNetwork, SandboxStatus,
    };
    use k8s_openapi::api::core::v1::PodSpec;

    fn sandbox(id: &str, attempt: u32, state: SandboxState, ip: Option<&str>) -> SandboxStatus {
        SandboxStatus {
            id: id.into(),
            metadata: Some(SandboxMetadata {
                attempt,
                ..SandboxMetadata::default()
            }),
            state,
            network: ip.map(|ip| SandboxNetwork {
                ip: ip.into(),
                additional_ips: vec![],
            }),
            ..SandboxStatus::default()
        }
    }

    fn run(host_network: bool, sandboxes: Vec<SandboxStatus>) -> SandboxChange {
        let request = PlanRequest {
            pod: Pod {
                spec: Some(PodSpec {
                    host_network: Some(host_network),
                    ..PodSpec::default()
                }),
                ..Pod::default()
            },
            runtime_status: Some(RuntimeStatus {
                sandbox_statuses: sandboxes,
                ..RuntimeStatus::default()
            }),
            ..PlanRequest::default()
        };
        pod_sandbox_changed(&request.pod, &StatusView::new(&request))
    }

    #[test]
    fn each_rule() {
        let none = run(false, vec![]);
        assert_eq!(
            (none.reason, none.attempt, none.sandbox_id.as_str()),
            (Some(SandboxChangeReason::NoSandbox), 0, "")
        );
        let ok = run(
            false,
            vec![sandbox("s", 3, SandboxState::Ready, Some("10.0.0.1"))],
        );
        assert_eq!((ok.reason, ok.attempt), (None, 3));
        let dead = run(false, vec![sandbox("s", 3, SandboxState::NotReady, None)]);
        assert_eq!(
            (dead.reason, dead.attempt, dead.sandbox_id.as_str()),
            (Some(SandboxChangeReason::NotReady), 4, "s")
        );
        let two = run(
            false,
            vec![
                sandbox("s", 1, SandboxState::Ready, None),
                sandbox("t", 0, SandboxState::Ready, None),
            ],
        );
        assert_eq!(two.reason, Some(SandboxChangeReason::MultipleReady));
        let noip = run(false, vec![sandbox("s", 0, SandboxState::Ready, Some(""))]);
        assert_eq!(noip.reason, Some(SandboxChangeReason::NoIp));
        // Host-network pods never need an IP, but their sandbox must be in NODE mode.
        let host = run(true, vec![sandbox("s", 0, SandboxState::Ready, Some(""))]);
        assert_eq!(
            (host.reason, host.sandbox_id.as_str()),
            (Some(SandboxChangeReason::NetworkNamespaceChanged), "")
        );
        let mut node = sandbox("s", 0, SandboxState::Ready, Some(""));
        node.linux = Some(LinuxSandboxStatus {
            namespaces: Some(SandboxNamespaces {
                options: Some(SandboxNamespaceOptions {
                    network: NamespaceMode::Node,
                    ..SandboxNamespaceOptions::default()
                }),
            }),
        });
        assert_eq!(run(true, vec![node]).reason, None);
    }
}
