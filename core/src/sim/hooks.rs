//! Lifecycle hooks carried out by the model runtime, the kubelet's way: the hook steps of
//! a plan (`StartContainer.postStart`, `KillContainer.preStop`, `KillPod.preStops`) run
//! with the simulated world's behaviour ([`HookControls`]: "postStart fails", "preStop
//! takes N s"), and their outcomes become the next request's `hookResults`.
//!
//! * postStart: after `StartContainer`. A failure (the control, or a handler that cannot
//!   run) kills the container as the step's `onFailure` says — its preStop first, with
//!   the step's grace — and is reported.
//! * preStop: before `StopContainer`, for at most its `timeoutSeconds`; a `sleep` handler
//!   takes its seconds unless the control says otherwise, other handlers take no time.
//!   `StopContainer` gets [`crate::hooks::kill_grace`]'s grace as its timeout; the
//!   container exits on SIGTERM when the world says ([`HookControls::exit_seconds`], at
//!   once by default), else it is killed at the timeout. A preStop
//!   the control makes fail is reported as failed; the stop goes on.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::hooks::kill_grace;
use crate::plan::{HookHandler, HookKind, HookResult, HookStep};

/// What the simulated world's hooks do (by container name). The default: every hook
/// succeeds at once (a `sleep` preStop takes its seconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HookControls {
    /// Containers whose postStart hook fails.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub post_start_fails: BTreeSet<String>,
    /// Containers whose preStop hook fails (after running its time).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub pre_stop_fails: BTreeSet<String>,
    /// How long a container's preStop hook runs, seconds (it is cut at the grace period).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pre_stop_seconds: BTreeMap<String, u64>,
    /// How long a container takes to exit once `StopContainer` sent its stop signal,
    /// seconds (cut at the stop's grace period, when the runtime sends SIGKILL). Absent:
    /// at once. It is the node's `ContainerScript::stop_seconds` for the container.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub exit_seconds: BTreeMap<String, u64>,
    /// How long a successful pull of an image (as written in the container) takes,
    /// seconds. Absent: `PULL_MILLIS`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pull_seconds: BTreeMap<String, u64>,
}

/// The error the model's handler reports when a control makes it fail, as the kubelet's
/// runner would word it.
fn failure(step: &HookStep) -> String {
    if let Some(why) = &step.invalid {
        return why.clone();
    }
    match &step.handler {
        Some(HookHandler::Exec { .. }) => "command terminated with exit code 1".into(),
        Some(HookHandler::HttpGet {
            url, host, port, ..
        }) => {
            format!("Get {url:?}: dial tcp {host}:{port}: connect: connection refused")
        }
        Some(HookHandler::Sleep { .. }) => "container terminated before sleep hook finished".into(),
        None => "invalid handler".into(),
    }
}

impl HookControls {
    /// Runs a postStart step in `container_id`: `None` when it succeeded, else the result
    /// to report (the hook failed).
    #[must_use]
    pub(crate) fn post_start(&self, step: &HookStep, container_id: &str) -> Option<HookResult> {
        let fails = step.invalid.is_some() || self.post_start_fails.contains(&step.container);
        fails.then(|| HookResult {
            container_id: container_id.to_string(),
            hook: HookKind::PostStart,
            error: Some(failure(step)),
            message: None,
            elapsed_millis: None,
            stop_grace_period_seconds: None,
        })
    }

    /// Runs a preStop step before the stop of `container_id` whose kill starts with
    /// `timeout` seconds (the step's `timeoutSeconds`): the result, with the grace
    /// `StopContainer` gets.
    #[must_use]
    pub(crate) fn pre_stop(&self, step: &HookStep, container_id: &str) -> HookResult {
        let timeout = step.timeout_seconds.unwrap_or(0);
        let natural = match &step.handler {
            Some(HookHandler::Sleep { seconds }) => u64::try_from(*seconds).unwrap_or(0),
            _ => 0,
        };
        let seconds = self
            .pre_stop_seconds
            .get(&step.container)
            .copied()
            .unwrap_or(natural);
        let cut = u64::try_from(timeout).unwrap_or(0);
        let millis = seconds.min(cut).saturating_mul(1000);
        let grace = kill_grace(timeout, true, millis);
        // A sleep cut short by the grace period fails (`runSleepHandler`: the context ends
        // first, TestRunSleepHandler).
        let cut_short = matches!(step.handler, Some(HookHandler::Sleep { .. })) && seconds > cut;
        let fails =
            step.invalid.is_some() || cut_short || self.pre_stop_fails.contains(&step.container);
        HookResult {
            container_id: container_id.to_string(),
            hook: HookKind::PreStop,
            error: fails.then(|| failure(step)),
            message: None,
            elapsed_millis: Some(millis),
            stop_grace_period_seconds: Some(grace.stop_grace_period_seconds),
        }
    }
}
