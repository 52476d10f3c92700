//! The pull QPS limiter (`registryPullQPS` / `registryBurst`): a token bucket in front of
//! `PullImage` (`throttleImagePulling`, `flowcontrol.NewTokenBucketRateLimiter`). A rejected
//! pull fails with `pull QPS exceeded` without reaching the runtime. QPS 0 = no limiter.

use serde::{Deserialize, Serialize};

/// The error text of a rejected pull.
pub(crate) const QPS_EXCEEDED: &str = "pull QPS exceeded";

/// Limiter configuration.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub(crate) struct PullThrottleConfig {
    /// Pulls per second.
    pub qps: f64,
    /// Bucket size.
    pub burst: u32,
}

/// The bucket's state at one instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PullThrottle {
    config: PullThrottleConfig,
    tokens: f64,
    last: Option<jiff::Timestamp>,
}

impl PullThrottle {
    /// A full bucket.
    #[must_use]
    pub(crate) fn new(config: PullThrottleConfig) -> Self {
        Self {
            config,
            tokens: f64::from(config.burst),
            last: None,
        }
    }

    /// `TryAccept()` at `now`.
    pub(crate) fn try_accept(&mut self, now: jiff::Timestamp) -> bool {
        let c = self.config;
        if c.qps <= 0.0 || !c.qps.is_finite() {
            return true;
        }
        if let Some(last) = self.last {
            let elapsed = (now.as_nanosecond() - last.as_nanosecond()).max(0) as f64 / 1e9;
            self.tokens = (self.tokens + elapsed * c.qps).min(f64::from(c.burst));
        }
        self.last = Some(now);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn burst_zero_rejects_and_qps_zero_accepts() {
        let t = jiff::Timestamp::from_second(0).unwrap();
        let mut zero = PullThrottle::new(PullThrottleConfig {
            qps: 10.0,
            burst: 0,
        });
        assert!(!zero.try_accept(t));
        let mut off = PullThrottle::new(PullThrottleConfig { qps: 0.0, burst: 0 });
        assert!(off.try_accept(t));
        let mut one = PullThrottle::new(PullThrottleConfig { qps: 1.0, burst: 1 });
        assert!(one.try_accept(t));
        assert!(!one.try_accept(t));
        assert!(one.try_accept(jiff::Timestamp::from_second(1).unwrap()));
    }
}
