//! The image-pull back-off: client-go's `flowcontrol.Backoff` as the kubelet's image
//! manager uses it (`NewBackOff(10s, 300s)`, no jitter), with the previous pull error kept
//! per key (`prevPullErrMsg`). Time is an input.
//!
//! * Key `"<pod UID>_<container.Image>"` (the image as written).
//! * `IsInBackOffSinceUpdate(key, now)`: an entry exists, it has not expired
//!   (`now − lastUpdate ≤ 2 × max`) and `now − lastUpdate < backoff` (strict).
//! * `Next(key, now)` after a failed pull: no entry or expired → the initial period, else
//!   double up to the maximum; `lastUpdate = now`.
//! * `GC()` after a successful pull: drops entries not updated for more than 2 × max. The
//!   key that just succeeded is **not** reset.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

const NANOS: i128 = 1_000_000_000;

/// The image back-off's periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageBackoffPolicy {
    /// First period, seconds (kubelet: `imageBackOffPeriod` = 10 s).
    pub initial_seconds: u64,
    /// Largest period, seconds (kubelet: `MaxImageBackOff` = 300 s).
    pub max_seconds: u64,
}

impl Default for ImageBackoffPolicy {
    fn default() -> Self {
        Self {
            initial_seconds: 10,
            max_seconds: 300,
        }
    }
}

pub use crate::plan::ImageBackoffRecord;

/// A problem with the back-off records handed in (they are still used).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BackoffWarning {
    /// Two records with the same key: the later one wins.
    #[error("image back-off key {0:?} appears more than once; the last record is used")]
    DuplicateKey(String),
    /// A record says it was last updated after `now`.
    #[error("image back-off record {key:?} was last updated at {last_update}, after now ({now})")]
    FromTheFuture {
        /// The record's key.
        key: String,
        /// Its last update.
        last_update: jiff::Timestamp,
        /// The request's clock.
        now: jiff::Timestamp,
    },
    /// A record's period is outside `[initial, max]`.
    #[error("image back-off record {key:?} has a period of {delay_seconds} s, outside [{initial}, {max}] s")]
    PeriodOutOfRange {
        /// The record's key.
        key: String,
        /// Its period.
        delay_seconds: u64,
        /// The policy's initial period.
        initial: u64,
        /// The policy's maximum.
        max: u64,
    },
}

/// The back-off table.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageBackoff {
    policy: ImageBackoffPolicy,
    records: BTreeMap<String, ImageBackoffRecord>,
}

fn nanos_between(later: jiff::Timestamp, earlier: jiff::Timestamp) -> i128 {
    later.as_nanosecond() - earlier.as_nanosecond()
}

impl ImageBackoff {
    /// The table as the previous sync left it, with warnings about records that are
    /// duplicated or whose period is out of range.
    #[must_use]
    pub fn new(
        policy: ImageBackoffPolicy,
        records: &[ImageBackoffRecord],
    ) -> (Self, Vec<BackoffWarning>) {
        let mut warnings = Vec::new();
        let mut map = BTreeMap::new();
        for r in records {
            if r.delay_seconds < policy.initial_seconds.min(policy.max_seconds)
                || r.delay_seconds > policy.max_seconds
            {
                warnings.push(BackoffWarning::PeriodOutOfRange {
                    key: r.key.clone(),
                    delay_seconds: r.delay_seconds,
                    initial: policy.initial_seconds,
                    max: policy.max_seconds,
                });
            }
            if map.insert(r.key.clone(), r.clone()).is_some() {
                warnings.push(BackoffWarning::DuplicateKey(r.key.clone()));
            }
        }
        (
            Self {
                policy,
                records: map,
            },
            warnings,
        )
    }

    /// Warnings for records updated after `now` (out-of-order state). Such a record still
    /// holds pulls back, as the kubelet's arithmetic does with a negative elapsed time.
    #[must_use]
    pub fn check_clock(&self, now: jiff::Timestamp) -> Vec<BackoffWarning> {
        self.records
            .values()
            .filter(|r| r.last_update > now)
            .map(|r| BackoffWarning::FromTheFuture {
                key: r.key.clone(),
                last_update: r.last_update,
                now,
            })
            .collect()
    }

    fn expired(&self, now: jiff::Timestamp, r: &ImageBackoffRecord) -> bool {
        nanos_between(now, r.last_update) > i128::from(self.policy.max_seconds) * 2 * NANOS
    }

    /// The current period of a key.
    #[must_use]
    pub fn delay_seconds(&self, key: &str) -> Option<u64> {
        self.records.get(key).map(|r| r.delay_seconds)
    }

    /// `IsInBackOffSinceUpdate(key, now)`: `Some(until)` while pulls are held back.
    #[must_use]
    pub(crate) fn in_backoff(&self, key: &str, now: jiff::Timestamp) -> Option<jiff::Timestamp> {
        let r = self.records.get(key)?;
        if self.expired(now, r) {
            return None;
        }
        let delay = i128::from(r.delay_seconds) * NANOS;
        if nanos_between(now, r.last_update) >= delay {
            return None;
        }
        let until = r.last_update.as_nanosecond().saturating_add(delay);
        Some(jiff::Timestamp::from_nanosecond(until).unwrap_or(jiff::Timestamp::MAX))
    }

    /// When the entry for `key` was last updated (the last failed pull), if there is one.
    #[must_use]
    pub(crate) fn last_update(&self, key: &str) -> Option<jiff::Timestamp> {
        self.records.get(key).map(|r| r.last_update)
    }

    /// `Next(key, now)`: a pull failed at `now`.
    pub(crate) fn next(&mut self, key: &str, now: jiff::Timestamp) {
        let policy = self.policy;
        let delay = match self.records.get(key) {
            Some(r) if !self.expired(now, r) => {
                r.delay_seconds.saturating_mul(2).min(policy.max_seconds)
            }
            _ => policy.initial_seconds,
        };
        let previous_error = self.records.get(key).and_then(|r| r.previous_error.clone());
        self.records.insert(
            key.to_string(),
            ImageBackoffRecord {
                key: key.to_string(),
                delay_seconds: delay,
                last_update: now,
                previous_error,
            },
        );
    }

    /// `GC()`: drop entries not updated for more than twice the maximum.
    pub(crate) fn gc(&mut self, now: jiff::Timestamp) {
        let horizon = i128::from(self.policy.max_seconds) * 2 * NANOS;
        self.records
            .retain(|_, r| nanos_between(now, r.last_update) <= horizon);
    }

    /// The stored previous pull error of a key.
    #[must_use]
    pub(crate) fn previous_error(&self, key: &str) -> Option<&str> {
        self.records
            .get(key)
            .and_then(|r| r.previous_error.as_deref())
    }

    /// Stores (or, with `None`, drops) the previous pull error of a key that has an entry.
    pub(crate) fn set_previous_error(&mut self, key: &str, error: Option<String>) {
        if let Some(r) = self.records.get_mut(key) {
            r.previous_error = error;
        }
    }

    /// The records to hand to the next sync, sorted by key.
    #[must_use]
    pub(crate) fn records(&self) -> Vec<ImageBackoffRecord> {
        self.records.values().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module docs' walk-through: one failure, the initial period, then doubled.
    #[test]
    fn a_failure_backs_off_then_doubles() {
        let t = |s: i64| jiff::Timestamp::from_second(s).unwrap();
        let (mut b, _) = ImageBackoff::new(ImageBackoffPolicy::default(), &[]);
        b.next("uid_busybox", t(0));
        assert!(b.in_backoff("uid_busybox", t(9)).is_some());
        assert!(b.in_backoff("uid_busybox", t(10)).is_none());
        b.next("uid_busybox", t(10));
        assert_eq!(b.delay_seconds("uid_busybox"), Some(20));
    }

    fn t(s: i64) -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_700_000_000 + s).unwrap()
    }

    #[test]
    fn kubelet_test_sequence_pull_pull_backoff_pull_backoff_backoff() {
        let policy = ImageBackoffPolicy {
            initial_seconds: 1,
            max_seconds: 60,
        };
        let (mut b, _) = ImageBackoff::new(policy, &[]);
        let mut seen = vec![];
        for s in 1..=6 {
            if b.in_backoff("k", t(s)).is_some() {
                seen.push("backoff");
            } else {
                seen.push("pull");
                b.next("k", t(s));
            }
        }
        assert_eq!(
            seen,
            ["pull", "pull", "backoff", "pull", "backoff", "backoff"]
        );
    }

    #[test]
    fn doubles_to_max_expires_after_twice_max_and_gc_keeps_recent_keys() {
        let (mut b, _) = ImageBackoff::new(ImageBackoffPolicy::default(), &[]);
        let mut delays = vec![];
        for i in 0..7 {
            b.next("k", t(i));
            delays.push(b.delay_seconds("k").unwrap());
        }
        assert_eq!(delays, [10, 20, 40, 80, 160, 300, 300]);
        b.gc(t(606));
        assert_eq!(b.delay_seconds("k"), Some(300));
        b.next("k", t(6 + 601));
        assert_eq!(b.delay_seconds("k"), Some(10));
        b.gc(t(6 + 601 + 601));
        assert!(b.records().is_empty());
    }

    #[test]
    fn bad_records_warn_but_do_not_panic() {
        let r = |key: &str, d: u64, at: i64| ImageBackoffRecord {
            key: key.into(),
            delay_seconds: d,
            last_update: t(at),
            previous_error: None,
        };
        let (b, w) = ImageBackoff::new(
            ImageBackoffPolicy::default(),
            &[
                r("a", 10, 0),
                r("a", 20, 0),
                r("b", 7, 100),
                r("c", u64::MAX, 0),
            ],
        );
        assert_eq!(w.len(), 3);
        assert_eq!(b.delay_seconds("a"), Some(20));
        assert_eq!(b.check_clock(t(50)).len(), 1);
        // A record from the future still holds pulls back (negative elapsed time).
        assert!(b.in_backoff("b", t(50)).is_some());
        assert!(b.in_backoff("c", t(1)).is_some());
    }
}
