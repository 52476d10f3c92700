//! `ShouldContainerBeRestarted` (`pkg/kubelet/container/helpers.go`) with the 1.37
//! per-container restart rules (`ContainerShouldRestart`).

use k8s_openapi::api::core::v1::{Container, Pod};

use crate::features::{FeatureGates, Gate};
use crate::runtime::{ContainerState, RuntimeStatus};

fn pod_policy_restarts(policy: &str, exit_code: i32) -> bool {
    match policy {
        "Never" => false,
        "OnFailure" => exit_code != 0,
        _ => true,
    }
}

fn rule_matches(c: &Container, exit_code: i32) -> Option<&str> {
    c.restart_policy_rules.iter().flatten().find_map(|rule| {
        let codes = rule.exit_codes.as_ref()?;
        let listed = codes.values.iter().flatten().any(|v| *v == exit_code);
        let hit = match codes.operator.as_str() {
            "In" => listed,
            "NotIn" => !listed,
            _ => false,
        };
        hit.then_some(rule.action.as_str())
    })
}

/// `ContainerShouldRestart`: the container's rules and policy, else the pod's policy.
#[must_use]
pub fn container_should_restart(c: &Container, pod_policy: &str, exit_code: i32) -> bool {
    if let Some(policy) = c.restart_policy.as_deref() {
        if let Some(action) = rule_matches(c, exit_code) {
            if action == "Restart" {
                return true;
            }
        }
        return pod_policy_restarts(policy, exit_code);
    }
    pod_policy_restarts(pod_policy, exit_code)
}

/// Whether the kubelet would (re)start `c` now.
#[must_use]
pub fn should_container_be_restarted(
    c: &Container,
    pod: &Pod,
    status: Option<&RuntimeStatus>,
    gates: &FeatureGates,
) -> bool {
    if pod.metadata.deletion_timestamp.is_some() {
        return false;
    }
    let Some(s) = status.and_then(|s| s.container_statuses.iter().find(|s| s.name == c.name))
    else {
        return true;
    };
    match s.state {
        ContainerState::Running => return false,
        ContainerState::Unknown | ContainerState::Created => return true,
        ContainerState::Exited => {}
    }
    let pod_policy = pod
        .spec
        .as_ref()
        .and_then(|sp| sp.restart_policy.as_deref())
        .unwrap_or("");
    if gates.enabled(Gate::ContainerRestartRules) {
        return container_should_restart(c, pod_policy, s.exit_code);
    }
    pod_policy_restarts(pod_policy, s.exit_code)
}
