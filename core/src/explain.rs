//! The plan in words, and `podplan explain`'s reconstruction of a real pod.
//!
//! * Here: human-readable text rendering of a plan (`podplan plan --output text`).
//! * [`reconstruct`]: the request the kubelet had (runtime status, probes, back-off,
//!   reason cache) rebuilt from a pod's API object and status, with what was assumed;
//!   `images` the image manager's inputs, `node` a plausible node, [`next`] who
//!   decides next and what follows. Not part of `status` (which computes the status from
//!   a request, the other way round).
//!
//! ```
//! let answer = podplan_core::plan_json(br#"{"pod": {"metadata": {"name": "web"},
//!     "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}"#);
//! let plan: podplan_core::Plan = serde_json::from_slice(&answer).unwrap();
//! let text = podplan_core::explain::to_text(&plan);
//! assert!(text.contains("create sandbox (attempt 0)"));
//! assert!(text.contains("RunPodSandbox"));
//! ```

pub(crate) mod images;
pub mod next;
pub(crate) mod node;
pub mod reconstruct;

use std::fmt::Write as _;

use crate::plan::Step;
use crate::plan::{Plan, PodActions};

fn list(indices: &[usize]) -> String {
    let items: Vec<String> = indices.iter().map(ToString::to_string).collect();
    format!("[{}]", items.join(", "))
}

fn summary(a: &PodActions) -> Vec<String> {
    let mut out = Vec::new();
    match (a.kill_pod, a.create_sandbox) {
        (true, true) if a.sandbox_id.is_empty() => {
            out.push(format!("create sandbox (attempt {})", a.attempt));
        }
        (true, true) => out.push(format!(
            "kill the pod and re-create sandbox {} (attempt {})",
            a.sandbox_id, a.attempt
        )),
        (true, false) => out.push("kill the pod (no new sandbox)".into()),
        (false, _) => out.push(format!(
            "keep sandbox {} (attempt {})",
            if a.sandbox_id.is_empty() {
                "-"
            } else {
                &a.sandbox_id
            },
            a.attempt
        )),
    }
    if !a.containers_to_kill.is_empty() {
        let kills: Vec<String> = a
            .containers_to_kill
            .iter()
            .map(|(id, k)| format!("{} ({id})", k.name))
            .collect();
        out.push(format!("kill containers: {}", kills.join(", ")));
    }
    for (label, l) in [
        (
            "start ephemeral containers",
            &a.ephemeral_containers_to_start,
        ),
        ("start init containers", &a.init_containers_to_start),
        ("start containers", &a.containers_to_start),
    ] {
        if !l.is_empty() {
            out.push(format!("{label} {}", list(l)));
        }
    }
    if let Some(map) = &a.containers_to_update {
        for (resource, items) in map {
            for u in items {
                out.push(format!("resize {} in place ({resource})", u.name));
            }
        }
    }
    if a.update_pod_resources {
        out.push("update pod-level cgroup resources".into());
    }
    if a.update_pod_level_resources {
        out.push("apply changed pod-level resources (spec.resources)".into());
    }
    for r in &a.containers_to_reset {
        out.push(format!(
            "reset {} ({}){}",
            r.name,
            r.container_id,
            if r.kill {
                ": kill, then remove"
            } else {
                ": remove"
            }
        ));
    }
    if out.len() == 1 && !a.kill_pod {
        out.push("nothing to change".into());
    }
    out
}

fn step_line(s: &Step) -> String {
    let mut line = s.op().to_string();
    // The op's own fields, then the message, then the hooks.
    let (post_start, pre_stop, pre_stops) = match s {
        Step::KillPod(k) => {
            if let Some(g) = k.grace_period_seconds {
                let _ = write!(line, " grace {g}s");
            }
            if !k.containers.is_empty() {
                let _ = write!(line, " [{}]", k.containers.join(", "));
            }
            (None, None, k.pre_stops.as_slice())
        }
        Step::KillContainer(k) => {
            named(&mut line, k.container.as_ref(), k.container_id.as_ref());
            if let Some(g) = k.grace_period_seconds {
                let _ = write!(line, " grace {g}s");
            }
            (None, k.pre_stop.as_ref(), &[][..])
        }
        Step::RemoveContainer(r) => {
            named(&mut line, r.container.as_ref(), r.container_id.as_ref());
            (None, None, &[][..])
        }
        Step::RunPodSandbox(r) => {
            if let Some(a) = r.attempt {
                let _ = write!(line, " attempt {a}");
            }
            (None, None, &[][..])
        }
        Step::UpdatePodSandboxResources(u) => {
            if let Some(r) = &u.resource {
                let _ = write!(line, " [{r}]");
            }
            (None, None, &[][..])
        }
        Step::UpdateContainerResources(u) => {
            named(&mut line, u.container.as_ref(), u.container_id.as_ref());
            if let Some(r) = &u.resource {
                let _ = write!(line, " [{r}]");
            }
            (None, None, &[][..])
        }
        Step::CreateContainer(c) => {
            named(&mut line, c.container.as_ref(), None);
            (None, None, &[][..])
        }
        Step::StartContainer(st) => {
            named(&mut line, st.container.as_ref(), None);
            // The grace is that of the kill after a failed postStart.
            if let Some(g) = st.grace_period_seconds.filter(|_| st.post_start.is_none()) {
                let _ = write!(line, " grace {g}s");
            }
            (st.post_start.as_ref(), st.pre_stop.as_ref(), &[][..])
        }
        Step::PullImage(p) => {
            named(&mut line, p.container.as_ref(), None);
            if let Some(spec) = &p.image_spec {
                let _ = write!(line, " [{}]", spec.image);
                if !p.auth.is_empty() {
                    let _ = write!(line, " with {} credential(s)", p.auth.len());
                }
            }
            (None, None, &[][..])
        }
        Step::WriteNodeFiles(w) => {
            named(&mut line, w.container.as_ref(), None);
            (None, None, &[][..])
        }
        Step::RemovePodSandbox(_) | Step::CleanupPod(_) => (None, None, &[][..]),
    };
    if let Some(m) = s.message() {
        let _ = write!(line, ": {m}");
    }
    match (post_start, pre_stop) {
        (Some(h), pre_stop) => {
            let _ = write!(
                line,
                "; then postStart {} (if it fails: FailedPostStartHook, the container is killed{}, start error PostStartHookError)",
                hook_text(h),
                pre_stop
                    .map(|p| format!(" after preStop {}", hook_text(p)))
                    .unwrap_or_default()
            );
        }
        (None, Some(h)) => {
            let _ = write!(
                line,
                "; first preStop {} for at most {}s: StopContainer gets what is left (at least 2s)",
                hook_text(h),
                h.timeout_seconds.unwrap_or(0)
            );
        }
        (None, None) => {}
    }
    for h in pre_stops {
        let _ = write!(
            line,
            "; {}: preStop {} for at most {}s first",
            h.container,
            hook_text(h),
            h.timeout_seconds.unwrap_or(0)
        );
    }
    line
}

/// ` container (containerId)`, the parts the step has.
fn named(line: &mut String, container: Option<&String>, id: Option<&String>) {
    if let Some(c) = container {
        let _ = write!(line, " {c}");
    }
    if let Some(id) = id {
        let _ = write!(line, " ({id})");
    }
}

/// A hook's handler in a few words.
fn hook_text(h: &crate::plan::HookStep) -> String {
    use crate::plan::HookHandler;
    match (&h.handler, &h.invalid) {
        (Some(HookHandler::Exec { command }), _) => format!("exec [{}]", command.join(" ")),
        (
            Some(HookHandler::HttpGet {
                url, path, port, ..
            }),
            _,
        ) if url.is_empty() => {
            format!("GET <new sandbox IP>:{port}{path}")
        }
        (Some(HookHandler::HttpGet { url, .. }), _) => format!("GET {url}"),
        (Some(HookHandler::Sleep { seconds }), _) => format!("sleep {seconds}s"),
        (None, Some(why)) => format!("(cannot run: {why})"),
        (None, None) => "(cannot run)".into(),
    }
}

/// What became of a decision that did not simply take effect, as a suffix.
fn effect_note(plan: &Plan, d: &crate::plan::Decision) -> String {
    use crate::plan::Effect;
    let by = d
        .superseded_by
        .and_then(|i| plan.decisions.get(i))
        .map(|b| format!("{} [{}]", b.action, b.reason));
    match (d.effect, by) {
        (Effect::Effective, _) => String::new(),
        (Effect::Superseded, Some(by)) => format!(" (SUPERSEDED by {by}: it does not happen)"),
        (Effect::Superseded, None) => " (SUPERSEDED: it does not happen)".to_string(),
        (Effect::NotCarriedOut, Some(by)) => format!(" (NOT CARRIED OUT on this sync: {by})"),
        (Effect::NotCarriedOut, None) => " (NOT CARRIED OUT on this sync)".to_string(),
        (Effect::Noop, _) => " (no-op: nothing to stop)".to_string(),
    }
}

/// Renders a plan as readable text: summary, decisions with reasons, steps, events,
/// held-back starts, errors and warnings.
#[must_use]
pub fn to_text(plan: &Plan) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Plan");
    for line in summary(&plan.actions) {
        let _ = writeln!(out, "  - {line}");
    }
    if let (Some(row), Some(status)) = (&plan.kubectl, &plan.status) {
        let _ = writeln!(out, "\nStatus at the start of this sync (kubectl get pods)");
        for line in crate::status::text::row_table(row).lines() {
            let _ = writeln!(out, "  {line}");
        }
        for line in crate::status::text::status_lines(status) {
            let _ = writeln!(out, "  - {line}");
        }
    }
    if !plan.decisions.is_empty() {
        let _ = writeln!(out, "\nWhy");
        for d in &plan.decisions {
            let who = d
                .container
                .as_deref()
                .map_or(String::new(), |c| format!(" {c}"));
            let _ = writeln!(
                out,
                "  - {}{who} [{}]: {}{}",
                d.action,
                d.reason,
                d.message,
                effect_note(plan, d)
            );
        }
    }
    if !plan.steps.is_empty() {
        let _ = writeln!(out, "\nSteps (SyncPod order)");
        for (i, s) in plan.steps.iter().enumerate() {
            let _ = writeln!(out, "  {:>2}. {}", i + 1, step_line(s));
        }
    }
    if !plan.events.is_empty() {
        let _ = writeln!(out, "\nEvents");
        for e in &plan.events {
            let who = e
                .container
                .as_deref()
                .map_or(String::new(), |c| format!(" ({c})"));
            let _ = writeln!(out, "  - {} {}{who}: {}", e.kind, e.reason, e.message);
        }
    }
    if !plan.held_back.is_empty() {
        let image = plan.held_back.iter().any(|h| h.reason.is_some());
        let _ = writeln!(
            out,
            "\nHeld back by {}",
            if image {
                "back-off"
            } else {
                "crash-loop back-off"
            }
        );
        for h in &plan.held_back {
            let until = h.until.map_or(String::new(), |t| format!(" until {t}"));
            let why = h
                .reason
                .as_deref()
                .map_or(String::new(), |r| format!(" [{r}]"));
            let _ = writeln!(
                out,
                "  - {}{why}: waits {}s{until} (delay {}s)",
                h.container, h.wait_seconds, h.delay_seconds
            );
        }
    }
    if !plan.backoff.is_empty() {
        let _ = writeln!(out, "\nCrash-loop back-off records (pass to the next sync)");
        for r in &plan.backoff {
            let _ = writeln!(
                out,
                "  - {} [{}]: delay {}s, last update {}",
                r.container, r.key, r.delay_seconds, r.last_update
            );
        }
    }
    if !plan.image_backoff.is_empty() {
        let _ = writeln!(out, "\nImage-pull back-off records (pass to the next sync)");
        for r in &plan.image_backoff {
            let previous = r
                .previous_error
                .as_deref()
                .map_or(String::new(), |e| format!("; last error {e}"));
            let _ = writeln!(
                out,
                "  - {}: delay {}s, last failed pull {}{previous}",
                r.key, r.delay_seconds, r.last_update
            );
        }
    }
    if !plan.errors.is_empty() {
        let _ = writeln!(out, "\nErrors");
        for e in &plan.errors {
            let _ = writeln!(out, "  - {} [{}]: {}", e.container, e.reason, e.message);
        }
    }
    if !plan.warnings.is_empty() {
        let _ = writeln!(out, "\nWarnings");
        for w in &plan.warnings {
            let _ = writeln!(out, "  - {}: {}", w.path, w.message);
        }
    }
    out
}

/// The kubelet's next sync in one line: what it does and when (for `podplan explain`'s
/// one-line-per-pod listing and the head of its answer). `reported` are the start errors
/// the pod's own status shows (container, message): an error the plan repeats is then
/// the kubelet's, quoted as the status has it; `readiness_failing` the running containers
/// whose readiness probe fails.
#[must_use]
pub fn next_summary(
    plan: &Plan,
    pod: &k8s_openapi::api::core::v1::Pod,
    reported: &[(String, String)],
    readiness_failing: &[String],
) -> String {
    let a = &plan.actions;
    let spec = pod.spec.as_ref();
    let init_name = |i: &usize| {
        spec.and_then(|s| s.init_containers.as_ref())
            .and_then(|l| l.get(*i))
            .map(|c| c.name.clone())
    };
    let regular_name = |i: &usize| {
        spec.and_then(|s| s.containers.get(*i))
            .map(|c| c.name.clone())
    };
    let ephemeral_name = |i: &usize| {
        spec.and_then(|s| s.ephemeral_containers.as_ref())
            .and_then(|l| l.get(*i))
            .map(|c| c.name.clone())
    };
    let starts: Vec<String> = a
        .init_containers_to_start
        .iter()
        .filter_map(init_name)
        .chain(a.containers_to_start.iter().filter_map(regular_name))
        .chain(
            a.ephemeral_containers_to_start
                .iter()
                .filter_map(ephemeral_name),
        )
        .collect();
    let held: Vec<&str> = plan
        .held_back
        .iter()
        .map(|h| h.container.as_str())
        .collect();
    let failed: Vec<&str> = plan.errors.iter().map(|e| e.container.as_str()).collect();
    let mut parts = Vec::new();
    match (a.kill_pod, a.create_sandbox) {
        (true, true) if !a.sandbox_id.is_empty() => {
            parts.push("kills the pod and re-creates its sandbox".to_string());
        }
        (_, true) => parts.push("creates the pod sandbox".to_string()),
        (true, false) => parts.push("kills the pod; no new sandbox".to_string()),
        (false, false) => {}
    }
    for k in a.containers_to_kill.values() {
        let why = if k.message.is_empty() {
            String::new()
        } else {
            format!(" ({})", k.message)
        };
        if starts.contains(&k.name) {
            parts.push(format!("restarts {}{why}", k.name));
        } else {
            parts.push(format!("stops {}{why}", k.name));
        }
    }
    let now: Vec<&str> = starts
        .iter()
        .map(String::as_str)
        .filter(|n| !held.contains(n) && !failed.contains(n))
        .filter(|n| !a.containers_to_kill.values().any(|k| k.name == *n))
        .collect();
    if !now.is_empty() {
        parts.push(format!("starts {} now", now.join(", ")));
    }
    for h in &plan.held_back {
        let until = h.until.map_or(String::new(), |t| format!(", at {t}"));
        match h.reason.as_deref() {
            Some(r) => parts.push(format!(
                "{} waits {}s for its image ({r}{until})",
                h.container, h.wait_seconds
            )),
            None => parts.push(format!(
                "{} restarts in {}s (crash-loop back-off{until})",
                h.container, h.wait_seconds
            )),
        }
    }
    for e in &plan.errors {
        if held.contains(&e.container.as_str()) {
            continue;
        }
        match reported.iter().find(|(c, _)| *c == e.container) {
            Some((_, m)) => parts.push(format!(
                "{} cannot start: the kubelet reported {}: {m} (the pod's status); retried on every sync",
                e.container, e.reason
            )),
            None => parts.push(format!(
                "{} cannot start: {}: {}",
                e.container, e.reason, e.message
            )),
        }
    }
    if !readiness_failing.is_empty() {
        parts.push(format!(
            "{} kept running, not ready: readiness is failing; the kubelet never restarts for readiness",
            readiness_failing.join(", ")
        ));
    }
    if parts.is_empty() {
        "nothing to do: every container is kept as it is".to_string()
    } else {
        parts.join("; ")
    }
}

/// Rewords the plan's "kept" decisions for containers whose readiness probe is failing:
/// the kubelet never restarts a container for readiness (only liveness and startup
/// failures kill it), so "no failed probe" would mislead.
pub fn word_readiness(plan: &mut Plan, failing: &[String]) {
    for d in &mut plan.decisions {
        if d.action != crate::plan::Action::KeepContainer {
            continue;
        }
        let Some(c) = d.container.as_deref() else {
            continue;
        };
        if failing.iter().any(|f| f == c) {
            d.message = format!(
                "container {c} is running with the current definition; its readiness is failing (ready: false), and the kubelet never restarts for readiness: it is kept, and stays out of Service endpoints until the probe succeeds"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::ContainerToKill;

    #[test]
    fn renders_every_section_that_has_content() {
        let mut plan = Plan::default();
        plan.actions.sandbox_id = "sb".into();
        plan.actions.containers_to_start = vec![0];
        plan.actions.containers_to_kill.insert(
            "x://1".into(),
            ContainerToKill {
                name: "app".into(),
                ..ContainerToKill::default()
            },
        );
        plan.held_back.push(crate::plan::HeldBack {
            container: "app".into(),
            wait_seconds: 5,
            ..Default::default()
        });
        let text = to_text(&plan);
        assert!(text.contains("keep sandbox sb"));
        assert!(text.contains("kill containers: app (x://1)"));
        assert!(text.contains("start containers [0]"));
        assert!(text.contains("app: waits 5s"));
        assert!(!text.contains("Warnings"));
    }

    #[test]
    fn decisions_that_did_not_happen_say_so() {
        let request = crate::api::parse_request_value(serde_json::json!({
            "apiDefaults": true,
            "pod": {"metadata": {"name": "p", "namespace": "d", "uid": "u"},
                    "spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "x"}]}},
            "runtimeStatus": {"sandboxStatuses": [{"id": "sb", "state": "SANDBOX_NOTREADY"}],
                "containerStatuses": [{"id": "c1", "name": "app", "state": "exited", "exitCode": 1}]}}))
        .unwrap_or_default();
        let text = to_text(&crate::api::plan(&request).unwrap_or_default());
        assert!(
            text.contains("createSandbox [SandboxNotReady]")
                && text
                    .contains("(SUPERSEDED by killPod [RestartPolicyNever]: it does not happen)"),
            "{text}"
        );
        let first = crate::api::parse_request_value(serde_json::json!({"apiDefaults": true,
            "pod": {"spec": {"containers": [{"name": "app", "image": "x"}]}}}))
        .unwrap_or_default();
        let text = to_text(&crate::api::plan(&first).unwrap_or_default());
        assert!(text.contains("(no-op: nothing to stop)"), "{text}");
    }
}
