//! Restart predicates: `ShouldContainerBeRestarted`, `ContainerShouldRestart` (container
//! restart policy and rules), `isInitContainerFailed`, `containerSucceeded`.
//!
//! Each predicate returns a [`Verdict`]: the answer, a machine-readable reason and the
//! rule that decided it, so plans can say *why*.

use k8s_openapi::api::core::v1::{Container, ContainerRestartRule, Pod};

use super::pod_status::StatusView;
use crate::features::{FeatureGates, Gate};
pub(crate) use crate::pod::is_restartable_init;
use crate::runtime::{ContainerState, ContainerStatus};

/// An answer with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// The answer.
    pub yes: bool,
    /// Machine-readable reason, e.g. `RestartPolicyAlways`.
    pub reason: &'static str,
    /// The rule that decided, in words.
    pub why: String,
}

impl Verdict {
    fn new(yes: bool, reason: &'static str, why: impl Into<String>) -> Self {
        Self {
            yes,
            reason,
            why: why.into(),
        }
    }
}

/// The pod's `restartPolicy` as the kubelet reads it (`""`/absent behaves like `Always`).
#[must_use]
pub(crate) fn pod_restart_policy(pod: &Pod) -> &str {
    pod.spec
        .as_ref()
        .and_then(|s| s.restart_policy.as_deref())
        .unwrap_or("")
}

/// `shouldRestartOnFailure(pod)`: the pod policy is not `Never`.
#[must_use]
pub(crate) fn should_restart_on_failure(pod: &Pod) -> bool {
    pod_restart_policy(pod) != "Never"
}

/// `containerSucceeded`: the newest status exists, exited, with code 0.
#[must_use]
pub(crate) fn container_succeeded(c: &Container, status: &StatusView<'_>) -> bool {
    status
        .find(&c.name)
        .is_some_and(|s| s.state == ContainerState::Exited && s.exit_code == 0)
}

/// `isInitContainerFailed`: OOMKilled, exited non-zero, or unknown.
#[must_use]
pub(crate) fn is_init_container_failed(s: &ContainerStatus) -> bool {
    s.reason == "OOMKilled"
        || (s.state == ContainerState::Exited && s.exit_code != 0)
        || s.state == ContainerState::Unknown
}

/// `FindMatchingContainerRestartRule`: the first rule whose exit-code clause matches.
#[must_use]
pub(crate) fn matching_rule(
    c: &Container,
    exit_code: i32,
) -> Option<(usize, &ContainerRestartRule)> {
    c.restart_policy_rules
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
        .find(|(_, rule)| {
            let Some(codes) = &rule.exit_codes else {
                return false;
            };
            let listed = codes
                .values
                .as_deref()
                .unwrap_or_default()
                .contains(&exit_code);
            match codes.operator.as_str() {
                "In" => listed,
                "NotIn" => !listed,
                _ => false,
            }
        })
}

fn describe_rule(index: usize, rule: &ContainerRestartRule) -> String {
    let codes = rule.exit_codes.as_ref().map_or(String::new(), |c| {
        format!(
            ", exitCodes {} {:?}",
            c.operator,
            c.values.as_deref().unwrap_or_default()
        )
    });
    format!(
        "restartPolicyRules[{index}] (action {}{codes})",
        rule.action
    )
}

fn by_policy(policy: &str, exit_code: i32, level: &str) -> Verdict {
    match policy {
        "Never" => Verdict::new(
            false,
            "RestartPolicyNever",
            format!("{level} restartPolicy Never does not restart exited containers"),
        ),
        "OnFailure" if exit_code == 0 => Verdict::new(
            false,
            "RestartPolicyOnFailure",
            format!("{level} restartPolicy OnFailure does not restart a container that exited 0"),
        ),
        "OnFailure" => Verdict::new(
            true,
            "RestartPolicyOnFailure",
            format!("{level} restartPolicy OnFailure restarts it (exit code {exit_code})"),
        ),
        "Always" => Verdict::new(
            true,
            "RestartPolicyAlways",
            format!("{level} restartPolicy Always restarts it"),
        ),
        _ => Verdict::new(
            true,
            "RestartPolicyAlways",
            format!("{level} restartPolicy is unset, which means Always: it is restarted"),
        ),
    }
}

/// `ContainerShouldRestart(c, podSpec, exitCode)` (gate ContainerRestartRules): the
/// container's rules, then its own policy, then the pod policy.
///
/// A matching `Restart` rule restarts the container. A matching `RestartAllContainers`
/// rule also answers yes while gate RestartAllContainersOnContainerExits is on (the source
/// container runs again once every container has been reset); with the gate off that
/// action is unknown to the kubelet and the container policy decides.
#[must_use]
pub(crate) fn container_should_restart(
    c: &Container,
    pod: &Pod,
    exit_code: i32,
    gates: &FeatureGates,
) -> Verdict {
    if let Some(policy) = c.restart_policy.as_deref() {
        if let Some((i, rule)) = matching_rule(c, exit_code) {
            if rule.action == "Restart" {
                return Verdict::new(
                    true,
                    "RestartRuleMatched",
                    format!(
                        "{} matched exit code {exit_code}: it is restarted",
                        describe_rule(i, rule)
                    ),
                );
            }
            if rule.action == "RestartAllContainers"
                && gates.enabled(Gate::RestartAllContainersOnContainerExits)
            {
                return Verdict::new(
                    true,
                    "RestartAllContainersRuleMatched",
                    format!(
                        "{} matched exit code {exit_code}: all containers of the pod restart, this one included",
                        describe_rule(i, rule)
                    ),
                );
            }
        }
        if matches!(policy, "Always" | "OnFailure" | "Never") {
            return by_policy(policy, exit_code, "container");
        }
    }
    by_policy(pod_restart_policy(pod), exit_code, "pod")
}

/// `ShouldContainerBeRestarted(c, pod, status)`.
#[must_use]
pub(crate) fn should_container_be_restarted(
    c: &Container,
    pod: &Pod,
    status: &StatusView<'_>,
    gates: &FeatureGates,
) -> Verdict {
    if pod.metadata.deletion_timestamp.is_some() {
        return Verdict::new(
            false,
            "PodDeleting",
            "the pod is being deleted, so nothing is restarted",
        );
    }
    let Some(s) = status.find(&c.name) else {
        return Verdict::new(true, "NeverStarted", "it has never been started");
    };
    match s.state {
        ContainerState::Running => Verdict::new(false, "Running", "it is running"),
        ContainerState::Unknown => Verdict::new(
            true,
            "UnknownState",
            "it is in unknown state, which is always restarted",
        ),
        ContainerState::Created => Verdict::new(
            true,
            "StuckInCreated",
            "it is stuck in created state, which is always restarted",
        ),
        ContainerState::Exited => {
            if gates.enabled(Gate::ContainerRestartRules) {
                return container_should_restart(c, pod, s.exit_code, gates);
            }
            by_policy(pod_restart_policy(pod), s.exit_code, "pod")
        }
    }
}

/// Whether a running container may be restarted after a probe failure: the pod policy is
/// not `Never`, or (gate ContainerRestartRules) its own policy is set and not `Never`.
/// Restart rules are not consulted (there is no exit code yet).
#[must_use]
pub(crate) fn restart_after_kill(c: &Container, pod: &Pod, gates: &FeatureGates) -> bool {
    if gates.enabled(Gate::ContainerRestartRules) {
        if let Some(p) = c.restart_policy.as_deref() {
            return p != "Never";
        }
    }
    should_restart_on_failure(pod)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::PlanRequest;
    use crate::runtime::RuntimeStatus;
    use k8s_openapi::api::core::v1::{ContainerRestartRuleOnExitCodes, PodSpec};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

    fn pod(policy: &str) -> Pod {
        Pod {
            spec: Some(PodSpec {
                restart_policy: Some(policy.into()),
                ..PodSpec::default()
            }),
            ..Pod::default()
        }
    }

    fn exited(code: i32) -> PlanRequest {
        PlanRequest {
            runtime_status: Some(RuntimeStatus {
                container_statuses: vec![ContainerStatus {
                    id: "x://1".into(),
                    name: "c".into(),
                    state: ContainerState::Exited,
                    exit_code: code,
                    ..ContainerStatus::default()
                }],
                ..RuntimeStatus::default()
            }),
            ..PlanRequest::default()
        }
    }

    fn container() -> Container {
        Container {
            name: "c".into(),
            ..Container::default()
        }
    }

    #[test]
    fn restart_matrix_without_rules() {
        let gates = FeatureGates::default();
        for (policy, code, want) in [
            ("Never", 0, false),
            ("Never", 1, false),
            ("OnFailure", 0, false),
            ("OnFailure", 1, true),
            ("Always", 0, true),
            ("", 0, true),
        ] {
            let r = exited(code);
            let v = should_container_be_restarted(
                &container(),
                &pod(policy),
                &StatusView::new(&r),
                &gates,
            );
            assert_eq!(v.yes, want, "{policy} {code}");
        }
        let empty = PlanRequest::default();
        assert!(
            should_container_be_restarted(
                &container(),
                &pod("Never"),
                &StatusView::new(&empty),
                &gates
            )
            .yes
        );
    }

    #[test]
    fn deleted_pods_never_restart() {
        let mut p = pod("Always");
        p.metadata.deletion_timestamp = Some(Time(jiff::Timestamp::UNIX_EPOCH));
        let r = exited(1);
        let v = should_container_be_restarted(
            &container(),
            &p,
            &StatusView::new(&r),
            &FeatureGates::default(),
        );
        assert_eq!((v.yes, v.reason), (false, "PodDeleting"));
    }

    #[test]
    fn container_rules_win_over_policies() {
        let mut c = container();
        c.restart_policy = Some("Never".into());
        c.restart_policy_rules = Some(vec![ContainerRestartRule {
            action: "Restart".into(),
            exit_codes: Some(ContainerRestartRuleOnExitCodes {
                operator: "In".into(),
                values: Some(vec![42]),
            }),
        }]);
        let gates = FeatureGates::default();
        assert!(container_should_restart(&c, &pod("Never"), 42, &gates).yes);
        assert!(!container_should_restart(&c, &pod("Always"), 1, &gates).yes);
        // Without a container policy the rules are not consulted.
        c.restart_policy = None;
        assert!(!container_should_restart(&c, &pod("Never"), 42, &gates).yes);
        // NotIn matches every other code.
        c.restart_policy = Some("Never".into());
        c.restart_policy_rules = Some(vec![ContainerRestartRule {
            action: "Restart".into(),
            exit_codes: Some(ContainerRestartRuleOnExitCodes {
                operator: "NotIn".into(),
                values: Some(vec![0]),
            }),
        }]);
        assert!(container_should_restart(&c, &pod("Never"), 3, &gates).yes);
        assert!(!container_should_restart(&c, &pod("Never"), 0, &gates).yes);
    }

    #[test]
    fn restart_all_containers_rule_restarts_the_source_while_its_gate_is_on() {
        let mut c = container();
        c.restart_policy = Some("Never".into());
        c.restart_policy_rules = Some(vec![ContainerRestartRule {
            action: "RestartAllContainers".into(),
            exit_codes: Some(ContainerRestartRuleOnExitCodes {
                operator: "In".into(),
                values: Some(vec![42]),
            }),
        }]);
        let on = FeatureGates::default();
        let v = container_should_restart(&c, &pod("Never"), 42, &on);
        assert_eq!((v.yes, v.reason), (true, "RestartAllContainersRuleMatched"));
        // Another exit code: no rule matches, the container policy Never decides.
        assert!(!container_should_restart(&c, &pod("Always"), 1, &on).yes);
        // Gate off: the action is not acted upon and the container policy decides.
        let off = FeatureGates::resolve(&std::collections::BTreeMap::from([(
            "RestartAllContainersOnContainerExits".to_string(),
            false,
        )]));
        let v = container_should_restart(&c, &pod("Always"), 42, &off);
        assert_eq!((v.yes, v.reason), (false, "RestartPolicyNever"));
    }

    #[test]
    fn init_failure_predicate() {
        let mut s = ContainerStatus {
            state: ContainerState::Exited,
            ..ContainerStatus::default()
        };
        assert!(!is_init_container_failed(&s));
        s.reason = "OOMKilled".into();
        assert!(is_init_container_failed(&s));
        s.reason.clear();
        s.exit_code = 2;
        assert!(is_init_container_failed(&s));
        s.state = ContainerState::Unknown;
        s.exit_code = 0;
        assert!(is_init_container_failed(&s));
    }
}
