//! kubectl's pod row: the API server's pod table printer (`printPod`), 1.35+ rules.
//!
//! Nothing is defaulted or validated: phases and reasons are free strings and statuses
//! may name containers that are not in the spec. `now` is an input.

use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodSpec, PodStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::duration::{human_duration, since};
use crate::plan::{KubectlRow, RowCondition};

fn later(
    current: Option<jiff::Timestamp>,
    candidate: Option<jiff::Timestamp>,
) -> Option<jiff::Timestamp> {
    match (current, candidate) {
        (Some(c), Some(n)) if n > c => Some(n),
        (None, Some(n)) => Some(n),
        (c, _) => c,
    }
}

fn last_finished(s: &ContainerStatus) -> Option<jiff::Timestamp> {
    s.last_state
        .as_ref()
        .and_then(|l| l.terminated.as_ref())
        .and_then(|t| t.finished_at.as_ref())
        .map(|t| t.0)
}

fn terminated_reason(prefix: &str, reason: Option<&str>, signal: Option<i32>, exit: i32) -> String {
    match (reason.filter(|r| !r.is_empty()), signal.filter(|s| *s != 0)) {
        (Some(r), _) => format!("{prefix}{r}"),
        (None, Some(sig)) => format!("{prefix}Signal:{sig}"),
        (None, None) => format!("{prefix}ExitCode:{exit}"),
    }
}

/// `printPod` for one pod at `now` (`None`: AGE is `<unknown>` and RESTARTS carries no
/// "ago" part). `wide` adds the `-o wide` columns.
#[must_use]
pub fn kubectl_pod_row(pod: &Pod, now: Option<jiff::Timestamp>, wide: bool) -> KubectlRow {
    let empty = PodStatus::default();
    let status = pod.status.as_ref().unwrap_or(&empty);
    kubectl_pod_row_parts(&pod.metadata, pod.spec.as_ref(), status, now, wide)
}

/// [`kubectl_pod_row`] for a pod given as its parts (so a generated status need not be
/// put into a copy of the pod).
#[must_use]
pub(crate) fn kubectl_pod_row_parts(
    metadata: &ObjectMeta,
    spec: Option<&PodSpec>,
    status: &PodStatus,
    now: Option<jiff::Timestamp>,
    wide: bool,
) -> KubectlRow {
    let spec_inits = spec
        .and_then(|s| s.init_containers.as_deref())
        .unwrap_or_default();
    let spec_containers = spec.map_or(&[][..], |s| s.containers.as_slice());
    let is_sidecar_name = |name: &str| {
        spec_inits
            .iter()
            .rev()
            .find(|c| c.name == name)
            .is_some_and(|c| c.restart_policy.as_deref() == Some("Always"))
    };
    let sidecars = spec_inits
        .iter()
        .filter(|c| c.restart_policy.as_deref() == Some("Always"))
        .count();
    let total = spec_containers.len() + sidecars;
    let conditions = status.conditions.as_deref().unwrap_or_default();
    let phase = status.phase.as_deref().unwrap_or("");

    let mut ready = 0_usize;
    let mut restarts: i64 = 0;
    let mut sidecar_restarts: i64 = 0;
    let mut last_restart: Option<jiff::Timestamp> = None;
    let mut last_sidecar_restart: Option<jiff::Timestamp> = None;
    let mut reason = phase.to_string();
    if let Some(r) = status.reason.as_deref().filter(|r| !r.is_empty()) {
        reason = r.to_string();
    }
    if conditions
        .iter()
        .any(|c| c.type_ == "PodScheduled" && c.reason.as_deref() == Some("SchedulingGated"))
    {
        reason = "SchedulingGated".to_string();
    }
    let initialized = conditions
        .iter()
        .find(|c| c.type_ == "Initialized")
        .is_some_and(|c| c.status == "True");
    let pod_ready = conditions
        .iter()
        .any(|c| c.type_ == "Ready" && c.status == "True");

    let mut initializing = false;
    for (i, s) in status
        .init_container_statuses
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        restarts += i64::from(s.restart_count);
        last_restart = later(last_restart, last_finished(s));
        let sidecar = is_sidecar_name(&s.name);
        if sidecar {
            sidecar_restarts += i64::from(s.restart_count);
            last_sidecar_restart = later(last_sidecar_restart, last_finished(s));
        }
        let state = s.state.as_ref();
        let terminated = state.and_then(|st| st.terminated.as_ref());
        let waiting = state.and_then(|st| st.waiting.as_ref());
        if terminated.is_some_and(|t| t.exit_code == 0) {
            continue;
        }
        if sidecar && s.started == Some(true) {
            if s.ready {
                ready += 1;
            }
            continue;
        }
        initializing = true;
        if let Some(t) = terminated {
            reason = terminated_reason("Init:", t.reason.as_deref(), t.signal, t.exit_code);
        } else if let Some(r) = waiting
            .and_then(|w| w.reason.as_deref())
            .filter(|r| !r.is_empty() && *r != "PodInitializing")
        {
            reason = format!("Init:{r}");
        } else {
            reason = format!("Init:{i}/{}", spec_inits.len());
        }
        break;
    }

    if !initializing || initialized {
        restarts = sidecar_restarts;
        last_restart = last_sidecar_restart;
        let mut has_running = false;
        let mut error_reason = String::new();
        for s in status
            .container_statuses
            .as_deref()
            .unwrap_or_default()
            .iter()
            .rev()
        {
            restarts += i64::from(s.restart_count);
            last_restart = later(last_restart, last_finished(s));
            let state = s.state.as_ref();
            if let Some(r) = state
                .and_then(|st| st.waiting.as_ref())
                .and_then(|w| w.reason.as_deref())
                .filter(|r| !r.is_empty())
            {
                reason = r.to_string();
            } else if let Some(t) = state.and_then(|st| st.terminated.as_ref()) {
                reason = terminated_reason("", t.reason.as_deref(), t.signal, t.exit_code);
                if t.exit_code != 0 {
                    error_reason.clone_from(&reason);
                }
            } else if s.ready && state.is_some_and(|st| st.running.is_some()) {
                has_running = true;
                ready += 1;
            }
        }
        if reason == "Completed" {
            if has_running && pod_ready {
                reason = "Running".to_string();
            } else if !error_reason.is_empty() {
                reason = error_reason;
            } else if has_running {
                reason = "NotReady".to_string();
            }
        }
    }

    if metadata.deletion_timestamp.is_some() {
        if status.reason.as_deref() == Some("NodeLost") {
            reason = "Unknown".to_string();
        } else if phase != "Succeeded" && phase != "Failed" {
            reason = "Terminating".to_string();
        }
    }

    let restarts_text = match (now, last_restart) {
        (Some(now), Some(t)) if restarts != 0 => format!(
            "{restarts} ({} ago)",
            human_duration(now.as_nanosecond() - t.as_nanosecond())
        ),
        _ => restarts.to_string(),
    };
    let age = match now {
        Some(now) => since(metadata.creation_timestamp.as_ref().map(|t| t.0), now),
        None => "<unknown>".to_string(),
    };
    let row_conditions = match phase {
        "Succeeded" => vec![RowCondition {
            type_: "Completed".into(),
            status: "True".into(),
            reason: "Succeeded".into(),
            message: "The pod has completed successfully.".into(),
        }],
        "Failed" => vec![RowCondition {
            type_: "Completed".into(),
            status: "True".into(),
            reason: "Failed".into(),
            message: "The pod failed.".into(),
        }],
        _ => Vec::new(),
    };
    let mut row = KubectlRow {
        name: metadata.name.clone().unwrap_or_default(),
        ready: format!("{ready}/{total}"),
        status: reason,
        restarts: restarts_text,
        age,
        conditions: row_conditions,
        ..KubectlRow::default()
    };
    if wide {
        let none = || "<none>".to_string();
        // v1 → internal conversion: a non-empty `podIP` is authoritative.
        let ip = status
            .pod_ip
            .clone()
            .filter(|ip| !ip.is_empty())
            .or_else(|| {
                status
                    .pod_ips
                    .as_deref()
                    .and_then(|ips| ips.first())
                    .map(|ip| ip.ip.clone())
            })
            .filter(|ip| !ip.is_empty());
        row.ip = Some(ip.unwrap_or_else(none));
        row.node = Some(
            spec.and_then(|s| s.node_name.clone())
                .filter(|n| !n.is_empty())
                .unwrap_or_else(none),
        );
        row.nominated_node = Some(
            status
                .nominated_node_name
                .clone()
                .filter(|n| !n.is_empty())
                .unwrap_or_else(none),
        );
        let gates = spec
            .and_then(|s| s.readiness_gates.as_deref())
            .unwrap_or_default();
        row.readiness_gates = Some(if gates.is_empty() {
            none()
        } else {
            let true_count = gates
                .iter()
                .filter(|g| {
                    conditions
                        .iter()
                        .find(|c| c.type_ == g.condition_type)
                        .is_some_and(|c| c.status == "True")
                })
                .count();
            format!("{true_count}/{}", gates.len())
        });
    }
    row
}
