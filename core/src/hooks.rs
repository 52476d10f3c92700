//! Lifecycle hooks as plan steps: what the kubelet's handler runner
//! (`pkg/kubelet/lifecycle/handlers.go`) would run for a `postStart` or `preStop` handler,
//! the grace-period accounting of `killContainer` / `executePreStopHook`, and what follows
//! on failure (`startContainer` step 4). Rules: `docs/lifecycle-hooks.md`.
//!
//! * postStart runs right after `StartContainer`, with no timeout. On failure: Warning
//!   `FailedPostStartHook` "PostStartHook failed", the container is killed (message and
//!   reason `FailedPostStartHook`, preStop included) and the start fails with
//!   `PostStartHookError` and the handler's message.
//! * preStop runs first in `killContainer` when the grace period is > 0, for at most the
//!   grace period; the whole seconds it took are subtracted; `StopContainer` gets what is
//!   left, at least 2 s. On failure: Warning `FailedPreStopHook` "PreStopHook failed", the
//!   stop goes on.

use crate::events::Event;
use crate::plan::KillReason;
pub use crate::plan::{HookHandler, HookKind, HookResult, HookStep};
pub(crate) use crate::plan::{KillGrace, OnHookFailure};
use crate::pod::format_pod;
use k8s_openapi::api::core::v1::{Container, LifecycleHandler, Pod};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

pub(crate) mod results;

/// The kubelet's minimal shutdown window (`minimumGracePeriodInSeconds`): `StopContainer`
/// never gets less.
pub const MINIMUM_GRACE_PERIOD_SECONDS: i64 = 2;

/// The error string of a failed postStart hook (`ErrPostStartHook`): the container's
/// waiting reason.
pub const ERR_POST_START_HOOK: &str = "PostStartHookError";

/// The `User-Agent` the kubelet sends with lifecycle HTTP requests.
pub(crate) const LIFECYCLE_USER_AGENT: &str = "kube-lifecycle/1.37";

/// Why a handler cannot be run (the hook fails with this message before running).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum HookError {
    /// No supported action (`tcpSocket`, or none).
    #[error("Cannot run handler: invalid handler: {0}")]
    InvalidHandler(String),
    /// A named port the container does not declare.
    #[error("couldn't find port: {port} in container {container:?}")]
    PortNotFound {
        /// The port reference.
        port: String,
        /// The container.
        container: String,
    },
    /// A port outside 1–65535.
    #[error("invalid port number: {0}")]
    InvalidPort(i32),
    /// No `httpGet.host` and the pod has no IP yet.
    #[error("failed to find networking container: the pod has no IP")]
    NoPodIp,
}

/// `resolvePort` for a lifecycle handler.
fn resolve_port(port: &IntOrString, container: &Container) -> Result<i32, HookError> {
    let n = match port {
        IntOrString::Int(n) => *n,
        IntOrString::String(s) => match s.parse::<i32>() {
            Ok(n) => n,
            Err(_) => container
                .ports
                .iter()
                .flatten()
                .find(|p| p.name.as_deref() == Some(s.as_str()))
                .map(|p| p.container_port)
                .ok_or_else(|| HookError::PortNotFound {
                    port: s.clone(),
                    container: container.name.clone(),
                })?,
        },
    };
    if !(1..=65535).contains(&n) {
        return Err(HookError::InvalidPort(n));
    }
    Ok(n)
}

fn join_host_port(host: &str, port: i32) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

/// The handler the kubelet would run. `pod_ip` is the pod's first IP (used when
/// `httpGet.host` is empty).
///
/// # Errors
/// The handler cannot be run (the hook then fails without running).
pub(crate) fn describe_handler(
    handler: &LifecycleHandler,
    container: &Container,
    pod_ip: Option<&str>,
) -> Result<HookHandler, HookError> {
    describe(handler, container, pod_ip, false)
}

/// [`describe_handler`]; `await_ip`: the pod IP comes from a sandbox that does not exist
/// yet, so an `httpGet` without `host` gets an empty `host` and `url` (filled in by
/// `config::complete`) instead of failing.
fn describe(
    handler: &LifecycleHandler,
    container: &Container,
    pod_ip: Option<&str>,
    await_ip: bool,
) -> Result<HookHandler, HookError> {
    if let Some(exec) = &handler.exec {
        return Ok(HookHandler::Exec {
            command: exec.command.clone().unwrap_or_default(),
        });
    }
    if let Some(h) = &handler.http_get {
        let host = match h.host.as_deref().filter(|s| !s.is_empty()) {
            Some(host) => host.to_string(),
            None => match pod_ip.filter(|s| !s.is_empty()) {
                Some(ip) => ip.to_string(),
                None if await_ip => String::new(),
                None => return Err(HookError::NoPodIp),
            },
        };
        let port = resolve_port(&h.port, container)?;
        let scheme = h
            .scheme
            .as_deref()
            .filter(|s| !s.is_empty())
            .unwrap_or("http")
            .to_lowercase();
        let path = h.path.clone().unwrap_or_default();
        let sep = if path.is_empty() || path.starts_with('/') {
            ""
        } else {
            "/"
        };
        let url = if host.is_empty() {
            String::new()
        } else {
            format!("{scheme}://{}{sep}{path}", join_host_port(&host, port))
        };
        let mut headers: Vec<(String, String)> = h
            .http_headers
            .iter()
            .flatten()
            .map(|x| (x.name.clone(), x.value.clone()))
            .collect();
        let has =
            |hs: &[(String, String)], n: &str| hs.iter().any(|(k, _)| k.eq_ignore_ascii_case(n));
        if !has(&headers, "User-Agent") {
            headers.push(("User-Agent".into(), LIFECYCLE_USER_AGENT.into()));
        }
        if !has(&headers, "Accept") {
            headers.push(("Accept".into(), "*/*".into()));
        }
        return Ok(HookHandler::HttpGet {
            scheme,
            host,
            port,
            path,
            url,
            headers,
        });
    }
    if let Some(s) = &handler.sleep {
        return Ok(HookHandler::Sleep { seconds: s.seconds });
    }
    let what = if handler.tcp_socket.is_some() {
        "tcpSocket is not supported as a lifecycle handler"
    } else {
        "no action set"
    };
    Err(HookError::InvalidHandler(what.to_string()))
}

/// The message `handlerRunner.Run` returns when the handler fails (it becomes the
/// waiting message of a failed postStart; the events never carry it).
#[must_use]
pub fn failure_message(
    handler: &HookHandler,
    container: &str,
    pod: &Pod,
    error: &str,
    output: &str,
) -> String {
    let pod = format_pod(pod);
    match handler {
        HookHandler::Exec { command } => format!(
            "Exec lifecycle hook ([{}]) for Container {container:?} in Pod {pod:?} failed - error: {error}, message: {output:?}",
            command.join(" ")
        ),
        HookHandler::HttpGet { path, .. } => format!(
            "HTTP lifecycle hook ({path}) for Container {container:?} in Pod {pod:?} failed - error: {error}"
        ),
        HookHandler::Sleep { seconds } => format!(
            "Sleep lifecycle hook ({seconds}) for Container {container:?} in Pod {pod:?} failed - error: {error}"
        ),
    }
}

/// `setTerminationGracePeriod` (before the 2 s floor): the pod's deletion grace period,
/// else the spec's (a failing liveness/startup probe's own value first), else 2 s; an
/// override replaces it.
#[must_use]
pub(crate) fn termination_grace_period(
    pod: &Pod,
    container: Option<&Container>,
    reason: KillReason,
    override_seconds: Option<i64>,
) -> i64 {
    if let Some(o) = override_seconds {
        return o;
    }
    if let Some(d) = pod.metadata.deletion_grace_period_seconds {
        return d;
    }
    let Some(t) = pod
        .spec
        .as_ref()
        .and_then(|s| s.termination_grace_period_seconds)
    else {
        return MINIMUM_GRACE_PERIOD_SECONDS;
    };
    let probe = match reason {
        KillReason::StartupProbe => container.and_then(|c| c.startup_probe.as_ref()),
        KillReason::LivenessProbe => container.and_then(|c| c.liveness_probe.as_ref()),
        _ => None,
    };
    probe
        .and_then(|p| p.termination_grace_period_seconds)
        .unwrap_or(t)
}

/// `killContainer`'s arithmetic. `pre_stop_millis` is how long the hook ran (or would
/// run, e.g. a sleep handler); it is cut at the grace period, as the kubelet stops waiting
/// then.
pub fn kill_grace(
    grace_period_seconds: i64,
    has_pre_stop: bool,
    pre_stop_millis: u64,
) -> KillGrace {
    let runs = has_pre_stop && grace_period_seconds > 0;
    let elapsed = if runs {
        i64::try_from(pre_stop_millis / 1000)
            .unwrap_or(i64::MAX)
            .min(grace_period_seconds)
    } else {
        0
    };
    KillGrace {
        grace_period_seconds,
        pre_stop_runs: runs,
        pre_stop_timeout_seconds: runs.then_some(grace_period_seconds),
        pre_stop_elapsed_seconds: elapsed,
        stop_grace_period_seconds: (grace_period_seconds - elapsed)
            .max(MINIMUM_GRACE_PERIOD_SECONDS),
    }
}

/// The postStart step of `startContainer` (step 4), if the container has one.
#[must_use]
pub(crate) fn post_start_step(container: &Container, pod_ip: Option<&str>) -> Option<HookStep> {
    post_start_in(container, pod_ip, false)
}

/// [`post_start_step`] for a container started in the sandbox this sync creates (its pod
/// IP is not known yet): an `httpGet` handler without `host` gets an empty `host` and
/// `url`, completed from the new sandbox's IP (`config::complete`).
#[must_use]
pub(crate) fn post_start_step_before_sandbox(container: &Container) -> Option<HookStep> {
    post_start_in(container, None, true)
}

fn post_start_in(container: &Container, pod_ip: Option<&str>, await_ip: bool) -> Option<HookStep> {
    let h = container.lifecycle.as_ref()?.post_start.as_ref()?;
    let described = describe(h, container, pod_ip, await_ip);
    Some(HookStep {
        hook: HookKind::PostStart,
        container: container.name.clone(),
        container_id: None,
        invalid: described.as_ref().err().map(ToString::to_string),
        handler: described.ok(),
        timeout_seconds: None,
        on_failure: OnHookFailure {
            event: Event::warning(
                "FailedPostStartHook",
                "PostStartHook failed",
                Some(&container.name),
            ),
            kill_reason: Some(KillReason::FailedPostStartHook),
            kill_message: Some("FailedPostStartHook".into()),
            start_error: Some(ERR_POST_START_HOOK.into()),
            stop_continues: false,
        },
    })
}

/// The preStop step of `killContainer` for a grace period, if the container has a preStop
/// hook and the grace period leaves time to run it.
#[must_use]
pub fn pre_stop_step(
    container: &Container,
    pod_ip: Option<&str>,
    grace_period_seconds: i64,
) -> Option<HookStep> {
    let h = container.lifecycle.as_ref()?.pre_stop.as_ref()?;
    if grace_period_seconds <= 0 {
        return None;
    }
    let described = describe_handler(h, container, pod_ip);
    Some(HookStep {
        hook: HookKind::PreStop,
        container: container.name.clone(),
        container_id: None,
        invalid: described.as_ref().err().map(ToString::to_string),
        handler: described.ok(),
        timeout_seconds: Some(grace_period_seconds),
        on_failure: OnHookFailure {
            event: Event::warning(
                "FailedPreStopHook",
                "PreStopHook failed",
                Some(&container.name),
            ),
            kill_reason: None,
            kill_message: None,
            start_error: None,
            stop_continues: true,
        },
    })
}

/// The kill `killContainer` makes of one container: the grace period it starts with
/// (`setTerminationGracePeriod`, before the floor), what `StopContainer` gets when no
/// preStop hook runs (at least 2 s), and the preStop step. `pod_ip`: the pod's first IP
/// (an `httpGet` handler without `host` goes there).
#[must_use]
pub(crate) fn kill_container(
    pod: &Pod,
    container: Option<&Container>,
    container_id: &str,
    reason: KillReason,
    override_seconds: Option<i64>,
    pod_ip: Option<&str>,
) -> (i64, Option<HookStep>) {
    let grace = termination_grace_period(pod, container, reason, override_seconds);
    let pre_stop = container
        .and_then(|c| pre_stop_step(c, pod_ip, grace))
        .map(|mut s| {
            s.container_id = (!container_id.is_empty()).then(|| container_id.to_string());
            s
        });
    (grace.max(MINIMUM_GRACE_PERIOD_SECONDS), pre_stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn container(v: serde_json::Value) -> Container {
        serde_json::from_value(v).unwrap()
    }

    proptest::proptest! {
        /// Any postStart handler gives a step or none, never a panic.
        #[test]
        fn post_start_never_panics(port in proptest::prelude::any::<i32>(), host in "\\PC{0,20}") {
            let c: Container = serde_json::from_value(serde_json::json!({
                "name": "c", "lifecycle": {"postStart": {"httpGet": {"port": port, "host": host}}}}))
                .unwrap_or_default();
            let _ = post_start_step(&c, None);
            let _ = post_start_step(&c, Some("10.0.0.1"));
        }
    }

    #[test]
    fn grace_arithmetic() {
        assert_eq!(kill_grace(30, true, 12_900).stop_grace_period_seconds, 18);
        assert_eq!(kill_grace(30, true, 90_000).stop_grace_period_seconds, 2);
        assert_eq!(kill_grace(30, true, 90_000).pre_stop_elapsed_seconds, 30);
        let none = kill_grace(0, true, 0);
        assert!(!none.pre_stop_runs);
        assert_eq!(none.stop_grace_period_seconds, 2);
        assert_eq!(kill_grace(60, false, 10_000).stop_grace_period_seconds, 60);
    }

    #[test]
    fn handlers_and_failures() {
        let c = container(
            serde_json::json!({"name": "c", "ports": [{"name": "web", "containerPort": 8080}],
            "lifecycle": {"postStart": {"httpGet": {"port": "web", "path": "hook"}},
                          "preStop": {"tcpSocket": {"port": 1}}}}),
        );
        let s = post_start_step(&c, Some("10.0.0.1")).unwrap();
        match s.handler.unwrap() {
            HookHandler::HttpGet { url, .. } => assert_eq!(url, "http://10.0.0.1:8080/hook"),
            other => panic!("{other:?}"),
        }
        assert!(pre_stop_step(&c, None, 30).unwrap().invalid.is_some());
        assert!(pre_stop_step(&c, None, 0).is_none());
        let c = container(
            serde_json::json!({"name": "c", "lifecycle": {"postStart": {"httpGet": {"port": "nope"}}}}),
        );
        let s = post_start_step(&c, Some("10.0.0.1")).unwrap();
        assert!(s.handler.is_none());
        assert_eq!(
            s.invalid.as_deref(),
            Some("couldn't find port: nope in container \"c\"")
        );
        let msg = failure_message(
            &HookHandler::Exec {
                command: vec!["sh".into(), "-c".into(), "exit 1".into()],
            },
            "c",
            &Pod::default(),
            "command terminated with exit code 1",
            "",
        );
        assert_eq!(msg, "Exec lifecycle hook ([sh -c exit 1]) for Container \"c\" in Pod \"_()\" failed - error: command terminated with exit code 1, message: \"\"");
    }
}
