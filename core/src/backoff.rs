//! Crash-loop back-off as explicit state: client-go's `flowcontrol.Backoff` as the kubelet
//! configures it, with time as an input.
//!
//! * Initial delay 10 s, doubling up to 300 s (gate ReduceDefaultCrashLoopBackOffDecay:
//!   1 s and 60 s). With gate KubeletCrashLoopBackOffMax a configured maximum
//!   (`crashLoopBackOff.maxContainerRestartPeriod`) replaces the maximum, and the initial
//!   delay is capped by it.
//! * An entry *expires* when the event time (the container's `finishedAt`) is more than
//!   600 s after the entry's last update: the next delay starts again at the initial one.
//! * `IsInBackOffSince(key, finishedAt)`: an unexpired entry exists and
//!   `now - finishedAt < delay`. The start is then held back until `finishedAt + delay`.
//! * Otherwise `Next(key, finishedAt)` doubles (or resets) the delay and records `now`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, ResourceRequirements};

use crate::features::{FeatureGates, Gate};
use crate::hash::{fnv64a_extend, FNV64_OFFSET};
use crate::plan::BackoffRecord;

/// Seconds after which an entry is forgotten (the kubelet's `HasExpiredFunc`).
pub(crate) const EXPIRY_SECONDS: i64 = 600;

const NANOS: i128 = 1_000_000_000;

/// The back-off arithmetic's parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BackoffPolicy {
    /// First delay, seconds.
    pub initial_seconds: u64,
    /// Largest delay, seconds.
    pub max_seconds: u64,
}

impl Default for BackoffPolicy {
    fn default() -> Self {
        Self {
            initial_seconds: 10,
            max_seconds: 300,
        }
    }
}

impl BackoffPolicy {
    /// The policy the kubelet builds from its gates and the optional configured maximum
    /// (`crashLoopBackOff.maxContainerRestartPeriod`, seconds).
    #[must_use]
    pub(crate) fn from_gates(gates: &FeatureGates, configured_max_seconds: Option<u64>) -> Self {
        let (mut initial, mut max) = if gates.enabled(Gate::ReduceDefaultCrashLoopBackOffDecay) {
            (1, 60)
        } else {
            (10, 300)
        };
        if gates.enabled(Gate::KubeletCrashLoopBackOffMax) {
            if let Some(configured) = configured_max_seconds {
                max = configured;
                initial = initial.min(configured);
            }
        }
        Self {
            initial_seconds: initial,
            max_seconds: max,
        }
    }
}

/// The back-off table at one instant (`now`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Backoff {
    policy: BackoffPolicy,
    now: jiff::Timestamp,
    records: BTreeMap<String, BackoffRecord>,
}

fn nanos_between(later: jiff::Timestamp, earlier: jiff::Timestamp) -> i128 {
    later.as_nanosecond() - earlier.as_nanosecond()
}

impl Backoff {
    /// The table as the previous sync left it, evaluated at `now`.
    #[must_use]
    pub(crate) fn new(
        policy: BackoffPolicy,
        now: jiff::Timestamp,
        records: &[BackoffRecord],
    ) -> Self {
        Self {
            policy,
            now,
            records: records.iter().map(|r| (r.key.clone(), r.clone())).collect(),
        }
    }

    fn expired(event_time: jiff::Timestamp, record: &BackoffRecord) -> bool {
        nanos_between(event_time, record.last_update) > i128::from(EXPIRY_SECONDS) * NANOS
    }

    /// The current delay for a key, if it has an entry.
    #[must_use]
    pub(crate) fn delay_seconds(&self, key: &str) -> Option<u64> {
        self.records.get(key).map(|r| r.delay_seconds)
    }

    /// `IsInBackOffSince(key, eventTime)`: `Some(until)` when the start must wait.
    #[must_use]
    pub(crate) fn in_backoff_since(
        &self,
        key: &str,
        event_time: jiff::Timestamp,
    ) -> Option<jiff::Timestamp> {
        let record = self.records.get(key)?;
        if Self::expired(event_time, record) {
            return None;
        }
        let delay = i128::from(record.delay_seconds) * NANOS;
        if nanos_between(self.now, event_time) >= delay {
            return None;
        }
        let until = event_time.as_nanosecond().saturating_add(delay);
        Some(jiff::Timestamp::from_nanosecond(until).unwrap_or(jiff::Timestamp::MAX))
    }

    /// `Next(key, eventTime)`: start at the initial delay (no entry, or expired), else
    /// double up to the maximum; the entry's last update becomes `now`.
    pub(crate) fn next(&mut self, key: &str, container: &str, event_time: jiff::Timestamp) {
        let policy = self.policy;
        let delay = match self.records.get(key) {
            Some(r) if !Self::expired(event_time, r) => {
                r.delay_seconds.saturating_mul(2).min(policy.max_seconds)
            }
            _ => policy.initial_seconds,
        };
        self.records.insert(
            key.to_string(),
            BackoffRecord {
                key: key.to_string(),
                container: container.to_string(),
                delay_seconds: delay,
                last_update: self.now,
            },
        );
    }

    /// The records to hand to the next sync, sorted by key. Entries not updated for twice
    /// the maximum delay are garbage-collected, as `Backoff.GC` does.
    #[must_use]
    pub(crate) fn into_records(self) -> Vec<BackoffRecord> {
        let horizon = i128::from(self.policy.max_seconds) * 2 * NANOS;
        let now = self.now;
        self.records
            .into_values()
            .filter(|r| nanos_between(now, r.last_update) <= horizon)
            .collect()
    }
}

fn render_list(
    out: &mut String,
    name: &str,
    list: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
) {
    out.push_str(name);
    out.push('{');
    for (k, v) in list.into_iter().flatten() {
        out.push_str(k);
        out.push('=');
        out.push_str(&v.0);
        out.push(',');
    }
    out.push('}');
}

/// A stable text form of a container's resources for the back-off key.
fn resources_string(r: Option<&ResourceRequirements>) -> String {
    let mut out = String::new();
    render_list(&mut out, "limits", r.and_then(|r| r.limits.as_ref()));
    render_list(&mut out, "requests", r.and_then(|r| r.requests.as_ref()));
    out.push_str("claims[");
    for c in r.and_then(|r| r.claims.as_ref()).into_iter().flatten() {
        out.push_str(&c.name);
        out.push(',');
    }
    out.push(']');
    out
}

/// `GetBackoffKey(pod, container)`: hex FNV-64a over
/// `name/namespace/uid/container/image/resources`. Changing the image or the resources
/// gives a fresh back-off. (The kubelet renders the resources with Go's generated
/// `String()`; this engine uses its own stable rendering, so keys are consistent between
/// its own plans but not byte-identical to the kubelet's, which never exposes them.)
///
/// ```
/// let pod = k8s_openapi::api::core::v1::Pod::default();
/// let a = podplan_core::generators::backoff_key(&pod, "app", "nginx:1", None);
/// let b = podplan_core::generators::backoff_key(&pod, "app", "nginx:2", None);
/// assert_ne!(a, b);
/// assert_eq!(a, podplan_core::generators::backoff_key(&pod, "app", "nginx:1", None));
/// ```
#[must_use]
pub fn backoff_key(
    pod: &Pod,
    container: &str,
    image: &str,
    resources: Option<&ResourceRequirements>,
) -> String {
    let m = &pod.metadata;
    let text = [
        m.name.as_deref().unwrap_or(""),
        m.namespace.as_deref().unwrap_or(""),
        m.uid.as_deref().unwrap_or(""),
        container,
        image,
        &resources_string(resources),
    ]
    .join("/");
    format!("{:x}", fnv64a_extend(FNV64_OFFSET, text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: i64) -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_700_000_000 + s).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    #[test]
    fn doubles_to_the_maximum_then_resets_after_ten_minutes() {
        let mut b = Backoff::new(BackoffPolicy::default(), t(0), &[]);
        let mut delays = vec![];
        for _ in 0..7 {
            b.next("k", "c", t(0));
            delays.push(b.delay_seconds("k").unwrap_or(0));
        }
        assert_eq!(delays, vec![10, 20, 40, 80, 160, 300, 300]);
        // The container ran for more than 600 s after the last update: start over.
        let mut later = Backoff::new(BackoffPolicy::default(), t(700), &b.clone().into_records());
        later.next("k", "c", t(650));
        assert_eq!(later.delay_seconds("k"), Some(10));
    }

    #[test]
    fn in_backoff_until_finished_plus_delay() {
        let records = [BackoffRecord {
            key: "k".into(),
            container: "c".into(),
            delay_seconds: 20,
            last_update: t(0),
        }];
        let b = Backoff::new(BackoffPolicy::default(), t(15), &records);
        assert_eq!(b.in_backoff_since("k", t(5)), Some(t(25)));
        assert_eq!(b.in_backoff_since("k", t(-5)), None);
        assert_eq!(b.in_backoff_since("other", t(5)), None);
        // Expired entries never hold a start back.
        let b = Backoff::new(BackoffPolicy::default(), t(615), &records);
        assert_eq!(b.in_backoff_since("k", t(610)), None);
    }

    #[test]
    fn gates_and_configured_maximum() {
        let reduce = FeatureGates::resolve(&BTreeMap::from([(
            "ReduceDefaultCrashLoopBackOffDecay".to_string(),
            true,
        )]));
        assert_eq!(
            BackoffPolicy::from_gates(&reduce, None),
            BackoffPolicy {
                initial_seconds: 1,
                max_seconds: 60
            }
        );
        let default = FeatureGates::default();
        assert_eq!(
            BackoffPolicy::from_gates(&default, Some(5)),
            BackoffPolicy {
                initial_seconds: 5,
                max_seconds: 5
            }
        );
        let off = FeatureGates::resolve(&BTreeMap::from([(
            "KubeletCrashLoopBackOffMax".to_string(),
            false,
        )]));
        assert_eq!(
            BackoffPolicy::from_gates(&off, Some(5)),
            BackoffPolicy::default()
        );
    }

    #[test]
    fn old_records_are_collected() {
        let records = [BackoffRecord {
            key: "k".into(),
            container: "c".into(),
            delay_seconds: 10,
            last_update: t(0),
        }];
        assert_eq!(
            Backoff::new(BackoffPolicy::default(), t(600), &records)
                .into_records()
                .len(),
            1
        );
        assert!(Backoff::new(BackoffPolicy::default(), t(601), &records)
            .into_records()
            .is_empty());
    }

    #[test]
    fn module_example() {
        use crate::backoff::{Backoff, BackoffPolicy};
        let t0: jiff::Timestamp = "2025-01-01T00:00:00Z".parse().unwrap();
        let mut b = Backoff::new(BackoffPolicy::default(), t0, &[]);
        assert!(b.in_backoff_since("k", t0).is_none()); // no entry yet
        b.next("k", "app", t0); // first failure: 10 s
        assert_eq!(b.delay_seconds("k"), Some(10));
        assert!(b.in_backoff_since("k", t0).is_some()); // still inside the 10 s window
    }
}
