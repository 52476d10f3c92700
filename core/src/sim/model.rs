//! What the model's parts share: the exit codes of stopped containers, what a carried-out
//! plan leaves behind ([`Outcome`]), the hash the ids are derived with and the clock
//! arithmetic. A leaf: it imports nothing else of `sim`.

use k8s_openapi::api::core::v1::Pod;

use crate::hash::{fnv64a_extend, FNV64_OFFSET};
use crate::request::ActuatedResources;
use crate::runtime::RuntimeStatus;

/// Exit code of a container killed by SIGKILL (128 + 9): the runtime's `StopContainer`
/// when the stop grace period ends before the container exited, a dead sandbox's
/// containers (containerd's `StopPodSandbox` kills what is left without a grace period),
/// the kernel's OOM killer.
pub(crate) const KILLED_EXIT_CODE: i32 = 137;

/// Exit code of a container that exited on `StopContainer`'s stop signal, SIGTERM
/// (128 + 15), within its grace period: the model's containers exit at once on it unless
/// the world says they take longer ([`HookControls::exit_seconds`]).
///
/// [`HookControls::exit_seconds`]: super::HookControls::exit_seconds
pub(crate) const SIGTERM_EXIT_CODE: i32 = 143;

/// What the runtime and the kubelet's checkpoints hold after a plan was carried out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    /// The runtime status.
    pub runtime_status: RuntimeStatus,
    /// The actuated-resources checkpoint.
    pub actuated_resources: Option<ActuatedResources>,
    /// What the hooks the plan ran reported (the next request's `hookResults`).
    pub hook_results: Vec<crate::plan::HookResult>,
    /// How long carrying the plan out kept the sync busy, milliseconds: preStop hooks,
    /// stops waited for, image pulls.
    pub blocked_millis: u64,
    /// The node's images (`None`: the request reported none and nothing was pulled).
    pub images: Option<crate::plan::ImagesReport>,
    /// The results of the plan's `PullImage` steps, for the next request's `pullResults`.
    pub pull_results: Vec<crate::plan::PullResultRecord>,
}

/// FNV-1a over the parts, each followed by a `0xff` separator.
pub(super) fn fnv64(parts: &[&[u8]]) -> u64 {
    parts.iter().fold(FNV64_OFFSET, |h, part| {
        fnv64a_extend(fnv64a_extend(h, part), &[0xff])
    })
}

pub(super) fn pod_uid(pod: &Pod) -> &str {
    pod.metadata.uid.as_deref().unwrap_or("")
}

pub(super) fn nanos(t: jiff::Timestamp) -> i64 {
    i64::try_from(t.as_nanosecond()).unwrap_or(i64::MAX)
}

pub(super) fn plus_millis(t: jiff::Timestamp, ms: u64) -> jiff::Timestamp {
    if ms == 0 {
        return t;
    }
    jiff::Timestamp::from_nanosecond(t.as_nanosecond() + i128::from(ms) * 1_000_000).unwrap_or(t)
}

pub(super) fn plus_nanos(t: jiff::Timestamp, n: u32) -> jiff::Timestamp {
    jiff::Timestamp::from_nanosecond(t.as_nanosecond() + i128::from(n)).unwrap_or(t)
}
