//! `hookResults`: what the executor reports after carrying out the previous plan's hook
//! steps, read the way the kubelet's `startContainer` / `killContainer` finish them.
//!
//! * A failed **postStart**: the kubelet recorded Warning `FailedPostStartHook`
//!   ("PostStartHook failed"), killed the container (`Killing`, message
//!   `FailedPostStartHook`, its preStop first) and the start failed with
//!   `PostStartHookError` and the handler's message: the reason cache holds that error at
//!   the start of this sync (the container's waiting reason), and the exited container
//!   restarts under crash-loop back-off like any other exit.
//! * A failed **preStop**: Warning `FailedPreStopHook` ("PreStopHook failed"); the stop
//!   went on.
//! * A preStop that took time: whole seconds came off the stop's grace period
//!   ([`super::kill_grace`]).
//!
//! A result the request cannot place (an unknown container id, a container without that
//! hook) gives a warning and is ignored.

use k8s_openapi::api::core::v1::{Container, LifecycleHandler};

use crate::events::{self, Event};
use crate::plan::{HookKind, HookResult, ReasonCacheEntry, Warning};
use crate::pod::init_or_regular_named;
use crate::request::PlanRequest;
use crate::runtime::ContainerState;

use super::{describe_handler, failure_message, kill_grace, ERR_POST_START_HOOK};

/// What the hook results add to a sync.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[must_use]
pub(crate) struct Reported {
    /// Events the kubelet recorded while it ran the hooks (before this sync).
    pub events: Vec<Event>,
    /// Reason-cache entries (container → `PostStartHookError`) of the failed starts.
    pub reason_cache: Vec<(String, ReasonCacheEntry)>,
    /// Explanations: (container, reason, message).
    pub notes: Vec<(String, &'static str, String)>,
    /// Results that could not be placed.
    pub warnings: Vec<Warning>,
}

fn hook_name(kind: HookKind) -> &'static str {
    match kind {
        HookKind::PostStart => "postStart",
        HookKind::PreStop => "preStop",
    }
}

fn declared(c: &Container, kind: HookKind) -> Option<&LifecycleHandler> {
    let l = c.lifecycle.as_ref()?;
    match kind {
        HookKind::PostStart => l.post_start.as_ref(),
        HookKind::PreStop => l.pre_stop.as_ref(),
    }
}

/// Reads the request's `hookResults`, in order.
pub(crate) fn read(request: &PlanRequest) -> Reported {
    let mut out = Reported::default();
    let statuses = request.container_statuses();
    let pod_ip = request
        .runtime_status
        .as_ref()
        .and_then(|s| s.ips.first())
        .map(String::as_str);
    for (i, r) in request.hook_results.iter().enumerate() {
        let path = format!("hookResults[{i}]");
        let hook = hook_name(r.hook);
        let Some(status) = statuses.iter().find(|s| s.id == r.container_id) else {
            out.warnings.push(Warning {
                path: format!("{path}.containerId"),
                message: format!(
                    "no container {:?} in runtimeStatus: the {hook} result is ignored",
                    r.container_id
                ),
            });
            continue;
        };
        let name = status.name.as_str();
        let spec = request
            .pod
            .spec
            .as_ref()
            .and_then(|s| init_or_regular_named(s, name));
        let Some((c, handler)) = spec.and_then(|c| declared(c, r.hook).map(|h| (c, h))) else {
            out.warnings.push(Warning {
                path: format!("{path}.hook"),
                message: format!("container {name} declares no {hook} hook: the result is ignored"),
            });
            continue;
        };
        match r.hook {
            HookKind::PostStart => {
                if r.failed() && status.state == ContainerState::Running {
                    out.warnings.push(Warning {
                        path: format!("{path}.error"),
                        message: format!(
                            "the postStart hook of {name} failed but {} still runs: the executor should have killed it as the step's onFailure says (the kubelet does)",
                            r.container_id
                        ),
                    });
                }
                post_start(&mut out, request, r, c, handler, pod_ip);
            }
            HookKind::PreStop => pre_stop(&mut out, r, c),
        }
    }
    out
}

fn post_start(
    out: &mut Reported,
    request: &PlanRequest,
    r: &HookResult,
    c: &Container,
    handler: &LifecycleHandler,
    pod_ip: Option<&str>,
) {
    let name = c.name.as_str();
    if !r.failed() {
        return;
    }
    let error = r.error.as_deref().unwrap_or_default();
    // `handlerRunner.Run`'s message; a handler that could not run fails with its own.
    let message = match describe_handler(handler, c, pod_ip) {
        Ok(h) => failure_message(
            &h,
            name,
            &request.pod,
            error,
            r.message.as_deref().unwrap_or_default(),
        ),
        Err(e) => e.to_string(),
    };
    out.events.push(Event::warning(
        "FailedPostStartHook",
        "PostStartHook failed",
        Some(name),
    ));
    out.events
        .push(events::killing(name, "FailedPostStartHook"));
    out.reason_cache.push((
        name.to_string(),
        ReasonCacheEntry {
            reason: ERR_POST_START_HOOK.to_string(),
            message: message.clone(),
        },
    ));
    out.notes.push((
        name.to_string(),
        "FailedPostStartHook",
        format!(
            "the postStart hook of {name} ({}) failed after its start: the kubelet killed it (reason FailedPostStartHook) and the start failed with {ERR_POST_START_HOOK}: {message}",
            r.container_id
        ),
    ));
}

fn pre_stop(out: &mut Reported, r: &HookResult, c: &Container) {
    let name = c.name.as_str();
    if r.failed() {
        out.events.push(Event::warning(
            "FailedPreStopHook",
            "PreStopHook failed",
            Some(name),
        ));
    }
    let Some(millis) = r.elapsed_millis else {
        if r.failed() {
            out.notes.push((
                name.to_string(),
                "FailedPreStopHook",
                format!(
                    "the preStop hook of {name} ({}) failed; the stop went on",
                    r.container_id
                ),
            ));
        }
        return;
    };
    let g = kill_grace(i64::MAX, true, millis);
    if !r.failed() && g.pre_stop_elapsed_seconds == 0 {
        // Under a second: nothing came off the grace period, nothing to say.
        return;
    }
    let grace = r
        .stop_grace_period_seconds
        .map(|s| format!("; StopContainer got {s} s"))
        .unwrap_or_default();
    let failed = if r.failed() { "failed after" } else { "took" };
    out.notes.push((
        name.to_string(),
        if r.failed() {
            "FailedPreStopHook"
        } else {
            "PreStopHookRan"
        },
        format!(
            "the preStop hook of {name} ({}) {failed} {} ms: {} whole second(s) came off the stop's grace period{grace}",
            r.container_id, millis, g.pre_stop_elapsed_seconds
        ),
    ));
}
