//! Warnings about an API status that contradicts the spec or itself. The status is still
//! used (as the kubelet would use it); nothing here fails.

use k8s_openapi::api::core::v1::{ContainerStatus, PodSpec, PodStatus};

use crate::plan::Warning;

fn warn(path: String, message: String) -> Warning {
    Warning { path, message }
}

fn check_list(
    path: &str,
    statuses: Option<&Vec<ContainerStatus>>,
    spec_names: &[&str],
    what: &str,
    out: &mut Vec<Warning>,
) {
    for (i, s) in statuses.into_iter().flatten().enumerate() {
        let at = format!("{path}[{i}]");
        if !spec_names.contains(&s.name.as_str()) {
            out.push(warn(
                format!("{at}.name"),
                format!(
                    "status of {what} {:?}, which is not in the spec: ignored, as the kubelet ignores it",
                    s.name
                ),
            ));
        }
        if s.restart_count < 0 {
            out.push(warn(
                format!("{at}.restartCount"),
                format!("negative restartCount {}: read as given", s.restart_count),
            ));
        }
        for (field, state) in [
            ("state", s.state.as_ref()),
            ("lastState", s.last_state.as_ref()),
        ] {
            let Some(st) = state else { continue };
            let set = [
                st.waiting.is_some(),
                st.running.is_some(),
                st.terminated.is_some(),
            ]
            .iter()
            .filter(|b| **b)
            .count();
            if set > 1 {
                out.push(warn(
                    format!("{at}.{field}"),
                    format!("{field} has {set} of waiting/running/terminated; a container is in one state at a time, so what it means depends on which member a rule reads first"),
                ));
            }
        }
        if s.last_state.as_ref().is_some_and(|l| l.running.is_some()) {
            out.push(warn(
                format!("{at}.lastState.running"),
                "lastState is a terminated state; a running lastState is impossible and is ignored"
                    .to_string(),
            ));
        }
    }
}

/// Warnings for one API status against the pod spec; `path` names the status
/// (e.g. `pod.status`).
#[must_use]
pub(crate) fn check_status(path: &str, spec: Option<&PodSpec>, status: &PodStatus) -> Vec<Warning> {
    let mut out = Vec::new();
    fn names(list: Option<&Vec<k8s_openapi::api::core::v1::Container>>) -> Vec<&str> {
        list.into_iter()
            .flatten()
            .map(|c| c.name.as_str())
            .collect()
    }
    let containers = names(spec.map(|s| &s.containers));
    let inits = names(spec.and_then(|s| s.init_containers.as_ref()));
    let ephemeral: Vec<&str> = spec
        .and_then(|s| s.ephemeral_containers.as_ref())
        .into_iter()
        .flatten()
        .map(|c| c.name.as_str())
        .collect();
    check_list(
        &format!("{path}.containerStatuses"),
        status.container_statuses.as_ref(),
        &containers,
        "container",
        &mut out,
    );
    check_list(
        &format!("{path}.initContainerStatuses"),
        status.init_container_statuses.as_ref(),
        &inits,
        "init container",
        &mut out,
    );
    check_list(
        &format!("{path}.ephemeralContainerStatuses"),
        status.ephemeral_container_statuses.as_ref(),
        &ephemeral,
        "ephemeral container",
        &mut out,
    );
    if let Some(phase) = status.phase.as_deref() {
        if !matches!(
            phase,
            "Pending" | "Running" | "Succeeded" | "Failed" | "Unknown" | ""
        ) {
            out.push(warn(
                format!("{path}.phase"),
                format!("unknown phase {phase:?}: kept as given"),
            ));
        }
    }
    out
}

/// Warnings for the request's `pod.status` and `previousStatus`.
#[must_use]
pub(crate) fn status_warnings(request: &crate::request::PlanRequest) -> Vec<Warning> {
    let spec = request.pod.spec.as_ref();
    let mut out = Vec::new();
    if let Some(s) = request.pod.status.as_ref() {
        out.extend(check_status("pod.status", spec, s));
    }
    if let Some(s) = request.previous_status.as_ref() {
        out.extend(check_status("previousStatus", spec, s));
    }
    out
}
