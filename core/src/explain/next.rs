//! `podplan explain`: what happens to a served pod next when it is not (or no longer) the
//! kubelet's `SyncPod` that decides, and the checks of the document itself.
//!
//! * No `spec.nodeName`: the pod is not on a node; no kubelet plans anything. The
//!   scheduler's `PodScheduled` condition says why (`Unschedulable`, `SchedulingGated`).
//! * `metadata.deletionTimestamp`: the pod is being deleted. The pod worker terminates it
//!   (`pkg/kubelet/pod_workers.go`: `SyncTerminatingPod`): nothing restarts; each running
//!   container's preStop hook runs, then it is stopped with what is left of the grace
//!   period (`killContainer`, `pkg/kubelet/kuberuntime/kuberuntime_container.go`); regular
//!   containers first, sidecars only after every regular container exited, the last
//!   declared first (`pkg/kubelet/kuberuntime/kuberuntime_termination_order.go`). The
//!   grace period is `deletionGracePeriodSeconds` (`calculateEffectiveGracePeriod`), and
//!   `deletionTimestamp` is the deadline the API server set (the request's time plus
//!   that period). Once the containers are gone the kubelet deletes the object; finalizers
//!   keep it until their controllers remove them.
//! * Phase `Succeeded` or `Failed` (evictions included): the pod is terminal; `SyncPod`
//!   returns early and the pod worker terminates it: what still runs is stopped, nothing
//!   restarts.
//! * Otherwise the kubelet's next `SyncPod` decides (the plan).

use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Pod};
use serde::Serialize;

use crate::plan::Warning;

/// Who decides what happens to the pod next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Stage {
    /// The kubelet's next `SyncPod` (the plan).
    #[default]
    Sync,
    /// Not on a node: the scheduler.
    Unscheduled,
    /// Phase `Succeeded`/`Failed`: the pod worker terminates it; nothing restarts.
    Terminal,
    /// `metadata.deletionTimestamp` is set: the pod worker terminates it, then the object
    /// is deleted.
    Deleting,
}

/// What the scheduler reported for an unscheduled pod.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Scheduler {
    /// `PodScheduled` reason (`Unschedulable`, `SchedulingGated`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `PodScheduled` message, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `spec.schedulingGates` names.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gates: Vec<String>,
}

/// One running container's stop, in termination order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stop {
    /// Container name.
    pub container: String,
    /// `container`, `sidecar`, `init` or `ephemeral`.
    pub kind: String,
    /// Its preStop hook, in words, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pre_stop: Option<String>,
    /// Containers that must have exited before it is stopped (sidecars wait for every
    /// regular container and for the sidecars declared after them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// What termination does next.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Termination {
    /// `metadata.deletionTimestamp` (the deadline), if the pod is being deleted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<jiff::Timestamp>,
    /// The grace period in force: `deletionGracePeriodSeconds`, else the spec's
    /// `terminationGracePeriodSeconds`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_period_seconds: Option<i64>,
    /// Seconds of the grace period left at `now` (`deletionTimestamp - now`; negative:
    /// overdue).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grace_remaining_seconds: Option<i64>,
    /// The containers the status reports running, in the order they are stopped.
    pub stops: Vec<Stop>,
    /// Whether anything restarts (never, for a terminating pod).
    pub restarts: bool,
    /// `metadata.finalizers`: they keep the object after its containers are gone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub finalizers: Vec<String>,
}

/// What happens to the pod next, beyond (or instead of) the plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Next {
    /// Who decides.
    pub stage: Stage,
    /// In one line: what happens next and when.
    pub summary: String,
    /// The details, in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub details: Vec<String>,
    /// For an unscheduled pod: what the scheduler said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler: Option<Scheduler>,
    /// For a terminal or deleted pod: the termination.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination: Option<Termination>,
    /// Containers whose readiness probe is failing (`ready: false` while running): they
    /// are kept, the kubelet never restarts for readiness.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub readiness_failing: Vec<String>,
}

/// A lifecycle handler in a few words.
#[must_use]
pub(crate) fn handler_words(h: &LifecycleHandler) -> String {
    if let Some(e) = &h.exec {
        return format!("exec [{}]", e.command.clone().unwrap_or_default().join(" "));
    }
    if let Some(g) = &h.http_get {
        let port = match &g.port {
            k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::Int(p) => p.to_string(),
            k8s_openapi::apimachinery::pkg::util::intstr::IntOrString::String(s) => s.clone(),
        };
        return format!("GET :{port}{}", g.path.as_deref().unwrap_or("/"));
    }
    if let Some(s) = &h.sleep {
        return format!("sleep {}s", s.seconds);
    }
    if h.tcp_socket.is_some() {
        return "tcpSocket (not run: the kubelet does not support it as a hook)".to_string();
    }
    "(no handler)".to_string()
}

fn is_running(list: Option<&Vec<k8s_openapi::api::core::v1::ContainerStatus>>, name: &str) -> bool {
    list.into_iter()
        .flatten()
        .any(|s| s.name == name && s.state.as_ref().is_some_and(|st| st.running.is_some()))
}

fn pre_stop(c: &Container) -> Option<String> {
    c.lifecycle
        .as_ref()
        .and_then(|l| l.pre_stop.as_ref())
        .map(handler_words)
}

/// The running containers in termination order (`newTerminationOrdering`).
#[must_use]
pub(crate) fn stop_order(pod: &Pod) -> Vec<Stop> {
    let (Some(spec), Some(status)) = (pod.spec.as_ref(), pod.status.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut regular = Vec::new();
    for c in &spec.containers {
        if is_running(status.container_statuses.as_ref(), &c.name) {
            regular.push(c.name.clone());
            out.push(Stop {
                container: c.name.clone(),
                kind: "container".into(),
                pre_stop: pre_stop(c),
                after: Vec::new(),
            });
        }
    }
    for e in spec.ephemeral_containers.iter().flatten() {
        if is_running(status.ephemeral_container_statuses.as_ref(), &e.name) {
            out.push(Stop {
                container: e.name.clone(),
                kind: "ephemeral".into(),
                pre_stop: None,
                after: Vec::new(),
            });
        }
    }
    let mut later_sidecar: Option<String> = None;
    for ic in spec.init_containers.iter().flatten().rev() {
        let sidecar = ic.restart_policy.as_deref() == Some("Always");
        let running = is_running(status.init_container_statuses.as_ref(), &ic.name);
        if running {
            let mut after = Vec::new();
            if sidecar {
                after.clone_from(&regular);
                after.extend(later_sidecar.iter().cloned());
            }
            out.push(Stop {
                container: ic.name.clone(),
                kind: if sidecar { "sidecar" } else { "init" }.into(),
                pre_stop: pre_stop(ic),
                after,
            });
        }
        if sidecar && running {
            later_sidecar = Some(ic.name.clone());
        }
    }
    out
}

fn names(stops: &[Stop], pred: impl Fn(&Stop) -> bool) -> Vec<String> {
    stops
        .iter()
        .filter(|s| pred(s))
        .map(|s| s.container.clone())
        .collect()
}

fn stop_details(t: &Termination, details: &mut Vec<String>) {
    let hooks: Vec<String> = t
        .stops
        .iter()
        .filter_map(|s| s.pre_stop.as_ref().map(|h| format!("{}: {h}", s.container)))
        .collect();
    if !hooks.is_empty() {
        details.push(format!(
            "preStop hooks run first, all at once, within the grace period: {}",
            hooks.join("; ")
        ));
    }
    let first = names(&t.stops, |s| s.kind != "sidecar");
    let sidecars = names(&t.stops, |s| s.kind == "sidecar");
    if !first.is_empty() {
        details.push(format!(
            "then StopContainer (SIGTERM, SIGKILL when the grace period is used up; at least 2s each): {}",
            first.join(", ")
        ));
    }
    if !sidecars.is_empty() {
        details.push(format!(
            "the sidecars are stopped only after every regular container has exited, the last declared first: {}",
            sidecars.join(", then ")
        ));
    }
}

fn finalizer_words(finalizers: &[String]) -> String {
    format!(
        "the object stays until its finalizers ({}) are removed by the controllers that own them",
        finalizers.join(", ")
    )
}

/// What happens to `pod` next at `now`, when it is not the kubelet's `SyncPod` that
/// decides; `None` for a pod the next sync plans.
#[must_use]
pub fn next(pod: &Pod, now: jiff::Timestamp) -> Option<Next> {
    let spec = pod.spec.as_ref();
    let status = pod.status.as_ref();
    let on_node = spec
        .and_then(|s| s.node_name.as_deref())
        .is_some_and(|n| !n.is_empty());
    let finalizers = pod.metadata.finalizers.clone().unwrap_or_default();
    if let Some(deleted) = pod.metadata.deletion_timestamp.as_ref().map(|t| t.0) {
        let grace = pod
            .metadata
            .deletion_grace_period_seconds
            .or_else(|| spec.and_then(|s| s.termination_grace_period_seconds));
        let remaining = deleted.as_second() - now.as_second();
        let stops = if on_node { stop_order(pod) } else { Vec::new() };
        let t = Termination {
            deletion_timestamp: Some(deleted),
            grace_period_seconds: grace,
            grace_remaining_seconds: Some(remaining),
            stops,
            restarts: false,
            finalizers: finalizers.clone(),
        };
        let mut details = Vec::new();
        let summary = if !on_node {
            let mut s =
                "being deleted, never scheduled: no kubelet has anything to stop".to_string();
            if finalizers.is_empty() {
                s.push_str("; the API server removes the object");
            } else {
                s.push_str("; ");
                s.push_str(&finalizer_words(&finalizers));
            }
            s
        } else if t.stops.is_empty() {
            let mut s = "being deleted; no container runs: the kubelet deletes the object once its volumes and cgroup are cleaned up".to_string();
            if !finalizers.is_empty() {
                s = format!(
                    "being deleted; no container runs, but {}",
                    finalizer_words(&finalizers)
                );
            }
            s
        } else if remaining > 0 {
            details.push(format!(
                "grace period {}s; deletionTimestamp {deleted} is its deadline: {remaining}s left",
                grace.map_or("?".to_string(), |g| g.to_string())
            ));
            stop_details(&t, &mut details);
            format!(
                "being deleted: stopping {} within {remaining}s (by {deleted}); nothing restarts",
                names(&t.stops, |_| true).join(", ")
            )
        } else {
            details.push(format!(
                "the grace period ended {}s ago ({deleted}) but the status still reports running containers: the kubelet kills them (SIGKILL) as soon as it gets to them; a status this stale usually means the node is not reporting (NotReady, kubelet down), and the object then stays until the node returns or the pod is force-deleted (kubectl delete pod --grace-period=0 --force)",
                -remaining
            ));
            stop_details(&t, &mut details);
            format!(
                "being deleted, grace period over {}s ago: {} are killed; nothing restarts",
                -remaining,
                names(&t.stops, |_| true).join(", ")
            )
        };
        if on_node && !t.stops.is_empty() && !finalizers.is_empty() {
            details.push(format!(
                "after the containers are gone, {}",
                finalizer_words(&finalizers)
            ));
        }
        return Some(Next {
            stage: Stage::Deleting,
            summary,
            details,
            termination: Some(t),
            ..Next::default()
        });
    }
    // A manifest (no status) is explained as a new pod on a node, not as unscheduled.
    if !on_node && status.is_some() {
        let cond = status
            .and_then(|s| s.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "PodScheduled"));
        let gates: Vec<String> = spec
            .and_then(|s| s.scheduling_gates.as_ref())
            .into_iter()
            .flatten()
            .map(|g| g.name.clone())
            .collect();
        let scheduler = Scheduler {
            reason: cond.and_then(|c| c.reason.clone()),
            message: cond.and_then(|c| c.message.clone()),
            gates: gates.clone(),
        };
        let summary = match (scheduler.reason.as_deref(), scheduler.message.as_deref()) {
            _ if !gates.is_empty() => format!(
                "not on a node; scheduling gates hold it ({}): the scheduler does not consider it until they are removed",
                gates.join(", ")
            ),
            (_, Some(m)) if !m.is_empty() => {
                format!("not on a node; the scheduler says: {m}")
            }
            (Some(r), _) => format!("not on a node; the scheduler says: {r}"),
            (None, _) => {
                "not on a node; the scheduler has not reported on it yet (no PodScheduled condition)"
                    .to_string()
            }
        };
        return Some(Next {
            stage: Stage::Unscheduled,
            summary,
            details: vec![
                "no kubelet has the pod: there is no kubelet plan until the scheduler binds it to a node".to_string(),
            ],
            scheduler: Some(scheduler),
            ..Next::default()
        });
    }
    let phase = status.and_then(|s| s.phase.as_deref()).unwrap_or("");
    if phase == "Succeeded" || phase == "Failed" {
        let stops = stop_order(pod);
        let reason = status.and_then(|s| s.reason.clone());
        let message = status.and_then(|s| s.message.clone());
        let why = match (&reason, &message) {
            (Some(r), Some(m)) => format!(" ({r}: {m})"),
            (Some(r), None) => format!(" ({r})"),
            (None, Some(m)) => format!(" ({m})"),
            (None, None) => String::new(),
        };
        let t = Termination {
            stops,
            restarts: false,
            grace_period_seconds: spec.and_then(|s| s.termination_grace_period_seconds),
            finalizers: finalizers.clone(),
            ..Termination::default()
        };
        let mut details = vec![format!(
            "phase {phase}{why}: the pod is terminal; SyncPod returns early for it and the pod worker terminates it, so no container is ever restarted, whatever the restartPolicy"
        )];
        let summary = if t.stops.is_empty() {
            details.push(
                "the object stays until it is deleted (by its owner, or the pod garbage collector past the terminated-pod threshold)".to_string(),
            );
            format!(
                "terminal ({phase}{}): nothing runs and nothing restarts",
                reason.as_ref().map_or(String::new(), |r| format!(", {r}"))
            )
        } else {
            stop_details(&t, &mut details);
            format!(
                "terminal ({phase}): the running {} stopped; none restarts",
                match names(&t.stops, |_| true).as_slice() {
                    [one] => format!("{one} is"),
                    many => format!("{} are", many.join(", ")),
                }
            )
        };
        if !finalizers.is_empty() {
            details.push(finalizer_words(&finalizers));
        }
        return Some(Next {
            stage: Stage::Terminal,
            summary,
            details,
            termination: Some(t),
            ..Next::default()
        });
    }
    None
}

fn missing(v: &serde_json::Value, key: &str) -> bool {
    v.get(key).is_none_or(serde_json::Value::is_null)
}

/// Fields a pod served by the API server always has, checked on the document as given:
/// their absence means a truncated or hand-written document. Each warning names the field.
#[must_use]
pub fn input_warnings(doc: &serde_json::Value) -> Vec<Warning> {
    let mut out = Vec::new();
    let mut warn = |path: String, message: &str| {
        out.push(Warning {
            path,
            message: message.to_string(),
        });
    };
    let served = doc.get("status").is_some_and(|s| !s.is_null());
    let meta = doc.get("metadata").cloned().unwrap_or_default();
    for key in ["name", "uid", "creationTimestamp"] {
        // A manifest (no status) has no uid or creation time; it needs only a name.
        if missing(&meta, key) && (served || key == "name") {
            warn(
                format!("pod.metadata.{key}"),
                "missing: every pod the API server serves has it; the document looks truncated or hand-written",
            );
        }
    }
    let spec = doc.get("spec").cloned().unwrap_or_default();
    for (list, items) in [
        ("initContainers", spec.get("initContainers")),
        ("containers", spec.get("containers")),
    ] {
        for (i, c) in items
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            if missing(c, "image") {
                warn(
                    format!("pod.spec.{list}[{i}].image"),
                    "missing: a served pod's containers always have an image; the document looks truncated",
                );
            }
        }
    }
    let Some(status) = doc.get("status").filter(|s| !s.is_null()) else {
        return out;
    };
    if missing(status, "phase") {
        warn(
            "pod.status.phase".to_string(),
            "missing: the status looks truncated; the kubectl row has no STATUS",
        );
    }
    for list in [
        "initContainerStatuses",
        "containerStatuses",
        "ephemeralContainerStatuses",
    ] {
        for (i, s) in status
            .get(list)
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
            .enumerate()
        {
            for key in ["name", "image", "imageID", "ready", "restartCount"] {
                if missing(s, key) {
                    warn(
                        format!("pod.status.{list}[{i}].{key}"),
                        "missing: the kubelet always reports it; the status looks truncated (taken as empty, false or 0)",
                    );
                }
            }
            let running_or_done = s
                .get("state")
                .is_some_and(|st| !missing(st, "running") || !missing(st, "terminated"));
            if running_or_done && missing(s, "containerID") {
                warn(
                    format!("pod.status.{list}[{i}].containerID"),
                    "missing for a created container: the status looks truncated",
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(v: serde_json::Value) -> Pod {
        serde_json::from_value(v).unwrap_or_default()
    }

    fn running(name: &str) -> serde_json::Value {
        serde_json::json!({"name": name, "image": "x", "imageID": "", "ready": true,
            "restartCount": 0, "state": {"running": {}}})
    }

    #[test]
    fn sidecars_stop_after_the_regular_containers_last_declared_first() {
        let p = pod(serde_json::json!({
            "metadata": {"name": "p", "deletionTimestamp": "2026-01-01T00:00:30Z",
                         "deletionGracePeriodSeconds": 30},
            "spec": {"nodeName": "n",
                "initContainers": [
                    {"name": "a", "image": "x", "restartPolicy": "Always"},
                    {"name": "setup", "image": "x"},
                    {"name": "b", "image": "x", "restartPolicy": "Always"}],
                "containers": [{"name": "app", "image": "x"}, {"name": "done", "image": "x"}]},
            "status": {"phase": "Running",
                "initContainerStatuses": [running("a"), running("b")],
                "containerStatuses": [running("app")]}}));
        let now = "2026-01-01T00:00:10Z".parse().unwrap_or_default();
        let next = next(&p, now).unwrap_or_default();
        assert_eq!(next.stage, Stage::Deleting);
        let t = next.termination.unwrap_or_default();
        assert_eq!(t.grace_remaining_seconds, Some(20));
        let order: Vec<&str> = t.stops.iter().map(|s| s.container.as_str()).collect();
        assert_eq!(order, ["app", "b", "a"]);
        assert_eq!(t.stops[2].after, ["app", "b"]);
    }

    #[test]
    fn a_served_pod_without_a_node_is_unscheduled_and_a_manifest_is_not() {
        let now = jiff::Timestamp::UNIX_EPOCH;
        let unscheduled = pod(serde_json::json!({"metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "x"}]},
            "status": {"phase": "Pending", "conditions": [{"type": "PodScheduled",
                "status": "False", "reason": "Unschedulable", "message": "0/3 nodes are available"}]}}));
        let n = next(&unscheduled, now).unwrap_or_default();
        assert_eq!(n.stage, Stage::Unscheduled);
        assert_eq!(
            n.summary,
            "not on a node; the scheduler says: 0/3 nodes are available"
        );
        let manifest = pod(serde_json::json!({"metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c", "image": "x"}]}}));
        assert!(next(&manifest, now).is_none());
    }

    #[test]
    fn missing_served_fields_are_named() {
        let w = input_warnings(&serde_json::json!({"metadata": {"name": "p"},
            "spec": {"containers": [{"name": "c"}]},
            "status": {"phase": "Running", "containerStatuses": [{"name": "c", "state": {"running": {}}}]}}));
        let paths: Vec<&str> = w.iter().map(|w| w.path.as_str()).collect();
        assert!(paths.contains(&"pod.spec.containers[0].image"), "{paths:?}");
        assert!(
            paths.contains(&"pod.status.containerStatuses[0].containerID"),
            "{paths:?}"
        );
        assert!(paths.contains(&"pod.metadata.uid"), "{paths:?}");
    }
}
