//! Lifecycle hooks as plan content: the hook step a `StartContainer` (postStart) or a kill
//! (preStop) carries, the grace accounting of `killContainer`, and what an executor
//! reports back after running a hook (`hookResults`). Rules: `docs/lifecycle-hooks.md`;
//! the functions that make these values live in `crate::hooks`.

use serde::{Deserialize, Serialize};

use super::actions::KillReason;
use crate::events::Event;

/// Which hook.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HookKind {
    /// `lifecycle.postStart`.
    PostStart,
    /// `lifecycle.preStop`.
    PreStop,
}

/// A handler as the runtime (exec), the prober's HTTP client (httpGet) or the kubelet
/// itself (sleep) would run it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum HookHandler {
    /// `ExecSync` in the container, no timeout (the kubelet passes 0).
    Exec {
        /// The command.
        command: Vec<String>,
    },
    /// One HTTP GET. Only a transport error fails the hook (the status code does not
    /// count); an HTTPS request answered in plain HTTP is retried over HTTP without the
    /// `Authorization` header.
    HttpGet {
        /// Scheme, lower-case (`http` by default).
        scheme: String,
        /// Host: `httpGet.host`, else the pod's first IP.
        host: String,
        /// Resolved port (named ports looked up in the container's ports).
        port: i32,
        /// Path.
        path: String,
        /// The URL.
        url: String,
        /// Headers in order, `User-Agent` and `Accept` defaulted.
        headers: Vec<(String, String)>,
    },
    /// Sleep for `seconds` (gate PodLifecycleSleepAction, GA). Fails only if the container
    /// terminates first.
    Sleep {
        /// Seconds.
        seconds: i64,
    },
}

/// The grace accounting of one `killContainer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[must_use]
pub struct KillGrace {
    /// The grace period `killContainer` starts with.
    pub grace_period_seconds: i64,
    /// The preStop hook runs (it exists and the grace period is > 0).
    pub pre_stop_runs: bool,
    /// How long the kubelet waits for the hook (the grace period); `None` when it does not
    /// run.
    pub pre_stop_timeout_seconds: Option<i64>,
    /// Whole seconds the hook took, as subtracted (at most the timeout, rounded down).
    pub pre_stop_elapsed_seconds: i64,
    /// What `StopContainer` gets: what is left, at least 2 s.
    pub stop_grace_period_seconds: i64,
}

/// What follows when a hook fails.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OnHookFailure {
    /// The event recorded (never with the handler's message, so secrets do not leak).
    pub event: Event,
    /// postStart: the container is killed with this reason / message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kill_reason: Option<KillReason>,
    /// postStart: the kill message (`Killing` event text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kill_message: Option<String>,
    /// postStart: the start's error string (waiting reason); its message is the handler's
    /// failure message ([`failure_message`](crate::hooks::failure_message)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_error: Option<String>,
    /// preStop: the stop goes on regardless.
    pub stop_continues: bool,
}

/// A hook as a plan step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookStep {
    /// postStart or preStop.
    pub hook: HookKind,
    /// The container.
    pub container: String,
    /// preStop: the runtime id of the container being stopped (absent for postStart: the
    /// id is the one `CreateContainer` returns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container_id: Option<String>,
    /// The handler to run; `None` when it cannot run (see `invalid`).
    pub handler: Option<HookHandler>,
    /// Why the handler cannot run: the hook fails at once with this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// postStart: `None` (no timeout); preStop: the grace period it may use.
    pub timeout_seconds: Option<i64>,
    /// What follows on failure.
    pub on_failure: OnHookFailure,
}

/// What the executor reports after carrying out a hook step (request `hookResults`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookResult {
    /// The runtime id of the container the hook ran in (`type://id`).
    pub container_id: String,
    /// Which hook.
    pub hook: HookKind,
    /// The handler's error (`handlerRunner.Run`'s error, e.g. `command terminated with
    /// exit code 1`); absent or empty = the hook succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The handler's output (exec) that goes with the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How long the hook ran, in milliseconds (preStop: the kubelet subtracts the whole
    /// seconds from the grace period).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elapsed_millis: Option<u64>,
    /// preStop: the grace period the executor gave `StopContainer` afterwards.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_grace_period_seconds: Option<i64>,
}

impl HookResult {
    /// Whether the hook failed (an error was reported).
    #[must_use]
    pub fn failed(&self) -> bool {
        self.error.as_deref().is_some_and(|e| !e.is_empty())
    }
}
