//! The status as text: the `kubectl get pods` row, the phase and conditions, and the
//! container states (for `podplan plan --output text`, the demo and `podplan explain`).

use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{ContainerState, ContainerStatus, PodStatus};

use crate::plan::KubectlRow;

/// `kubectl get pods` header and row, columns padded like kubectl's.
#[must_use]
pub fn row_table(row: &KubectlRow) -> String {
    let header = ["NAME", "READY", "STATUS", "RESTARTS", "AGE"];
    let values = [
        row.name.as_str(),
        row.ready.as_str(),
        row.status.as_str(),
        row.restarts.as_str(),
        row.age.as_str(),
    ];
    let mut lines = [String::new(), String::new()];
    for (i, (h, v)) in header.iter().zip(values).enumerate() {
        let width = h.len().max(v.len()) + 3;
        let last = i + 1 == header.len();
        for (line, cell) in lines.iter_mut().zip([*h, v]) {
            if last {
                line.push_str(cell);
            } else {
                let _ = write!(line, "{cell:<width$}");
            }
        }
    }
    lines.join("\n")
}

/// One word for a container state, e.g. `running`, `waiting (CrashLoopBackOff)`,
/// `terminated (Error, exit 1)`.
#[must_use]
pub(crate) fn state_word(state: Option<&ContainerState>) -> String {
    let Some(st) = state else {
        return "no state".to_string();
    };
    if let Some(t) = &st.terminated {
        let reason = t
            .reason
            .as_deref()
            .filter(|r| !r.is_empty())
            .unwrap_or("no reason");
        return format!("terminated ({reason}, exit {})", t.exit_code);
    }
    if st.running.is_some() {
        return "running".to_string();
    }
    if let Some(w) = &st.waiting {
        return match w.reason.as_deref().filter(|r| !r.is_empty()) {
            Some(r) => format!("waiting ({r})"),
            None => "waiting".to_string(),
        };
    }
    "no state".to_string()
}

fn container_line(kind: &str, s: &ContainerStatus) -> String {
    let mut line = format!("{kind} {}: {}", s.name, state_word(s.state.as_ref()));
    if let Some(last) = s.last_state.as_ref().and_then(|l| l.terminated.as_ref()) {
        let reason = last.reason.as_deref().unwrap_or("");
        let _ = write!(
            line,
            "; last terminated ({reason}, exit {})",
            last.exit_code
        );
    }
    let _ = write!(
        line,
        "; ready {}, started {}, restarts {}",
        s.ready,
        s.started.map_or("-".to_string(), |b| b.to_string()),
        s.restart_count
    );
    line
}

/// Phase, conditions (with reasons and messages) and container states, one per line.
#[must_use]
pub(crate) fn status_lines(status: &PodStatus) -> Vec<String> {
    let mut out = Vec::new();
    let mut phase = format!("phase {}", status.phase.as_deref().unwrap_or("-"));
    if let Some(r) = status.reason.as_deref().filter(|r| !r.is_empty()) {
        let _ = write!(phase, " (reason {r})");
    }
    out.push(phase);
    for c in status.conditions.iter().flatten() {
        let mut line = format!("{}={}", c.type_, c.status);
        if let Some(r) = c.reason.as_deref().filter(|r| !r.is_empty()) {
            let _ = write!(line, " {r}");
        }
        if let Some(m) = c.message.as_deref().filter(|m| !m.is_empty()) {
            let _ = write!(line, ": {m}");
        }
        out.push(line);
    }
    for (kind, list) in [
        ("init", status.init_container_statuses.as_ref()),
        ("container", status.container_statuses.as_ref()),
        ("ephemeral", status.ephemeral_container_statuses.as_ref()),
    ] {
        for s in list.into_iter().flatten() {
            out.push(container_line(kind, s));
        }
    }
    out
}
