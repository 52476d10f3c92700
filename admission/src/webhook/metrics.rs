//! The webhook's Prometheus metrics (prometheus-client, OpenMetrics text on `GET /metrics`),
//! all prefixed `podplan_webhook_`:
//!
//! | metric | type | labels |
//! |---|---|---|
//! | `reviews_total` | counter | `outcome`: `allowed`, `denied`, `malformed`, `error`, `timeout` |
//! | `findings_total` | counter | `rule` (lint rule id), `action` (`deny`, `warn`) |
//! | `review_duration_seconds` | histogram | (from the request's headers to its answer) |
//! | `reviews_in_flight` | gauge | (reviews being read or judged) |
//! | `deadline_exceeded_total` | counter | (answered allowed, not checked: `--review-timeout`) |
//! | `rejected_total` | counter | `reason`: `overloaded` (429), `body_timeout` (408), `too_large` (413), `unauthenticated` (403) |
//! | `connections_open` | gauge | |
//! | `certificate_reloads_total` | counter | `result`: `success`, `failure` |
//! | `draining` | gauge | 1 from SIGTERM on |

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{exponential_buckets, Histogram};
use prometheus_client::registry::{Registry, Unit};

type Labels = [(&'static str, &'static str); 1];
type RuleLabels = [(&'static str, &'static str); 2];

/// The counters, gauges and histogram, and the registry that encodes them.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    reviews: Family<Labels, Counter>,
    findings: Family<RuleLabels, Counter>,
    duration: Histogram,
    /// Reviews being read or judged.
    pub in_flight: Gauge,
    deadline_exceeded: Counter,
    rejected: Family<Labels, Counter>,
    /// Open connections (TLS and plain).
    pub connections: Gauge,
    reloads: Family<Labels, Counter>,
    draining: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh set, registered under `podplan_webhook_`.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("podplan_webhook");
        let reviews = Family::<Labels, Counter>::default();
        let findings = Family::<RuleLabels, Counter>::default();
        // 1 ms to ~16 s, doubling: the lint takes milliseconds, the deadline is seconds.
        let duration = Histogram::new(exponential_buckets(0.001, 2.0, 15));
        let in_flight = Gauge::default();
        let deadline_exceeded = Counter::default();
        let rejected = Family::<Labels, Counter>::default();
        let connections = Gauge::default();
        let reloads = Family::<Labels, Counter>::default();
        let draining = Gauge::default();
        registry.register(
            "reviews",
            "AdmissionReviews answered, by outcome",
            reviews.clone(),
        );
        registry.register(
            "findings",
            "Lint findings in the answers, by rule and action",
            findings.clone(),
        );
        registry.register_with_unit(
            "review_duration",
            "Time from a review's headers to its answer",
            Unit::Seconds,
            duration.clone(),
        );
        registry.register(
            "reviews_in_flight",
            "Reviews being read or judged",
            in_flight.clone(),
        );
        registry.register(
            "deadline_exceeded",
            "Reviews answered allowed and unchecked because the review timeout passed",
            deadline_exceeded.clone(),
        );
        registry.register(
            "rejected",
            "Requests refused before judging, by reason",
            rejected.clone(),
        );
        registry.register(
            "connections_open",
            "Open client connections",
            connections.clone(),
        );
        registry.register(
            "certificate_reloads",
            "Certificate re-reads that found changed files, by result",
            reloads.clone(),
        );
        registry.register(
            "draining",
            "1 while shutting down (readiness false)",
            draining.clone(),
        );
        Self {
            registry,
            reviews,
            findings,
            duration,
            in_flight,
            deadline_exceeded,
            rejected,
            connections,
            reloads,
            draining,
        }
    }

    /// Counts an answered review and its time.
    pub fn review(&self, outcome: &'static str, seconds: f64) {
        self.reviews.get_or_create(&[("outcome", outcome)]).inc();
        self.duration.observe(seconds);
    }

    /// Counts a finding of `rule` (an id) with `action` (`deny` or `warn`).
    pub fn finding(&self, rule: &'static str, action: &'static str) {
        self.findings
            .get_or_create(&[("rule", rule), ("action", action)])
            .inc();
    }

    /// Counts a review answered unchecked at its deadline.
    pub fn deadline_exceeded(&self) {
        self.deadline_exceeded.inc();
    }

    /// Counts a refused request.
    pub fn rejected(&self, reason: &'static str) {
        self.rejected.get_or_create(&[("reason", reason)]).inc();
    }

    /// Counts a certificate reload.
    pub fn reload(&self, ok: bool) {
        let result = if ok { "success" } else { "failure" };
        self.reloads.get_or_create(&[("result", result)]).inc();
    }

    /// Marks the server as draining.
    pub fn set_draining(&self) {
        self.draining.set(1);
    }

    /// The OpenMetrics text exposition.
    #[must_use]
    pub fn encode(&self) -> String {
        let mut out = String::new();
        if let Err(e) = encode(&mut out, &self.registry) {
            tracing::warn!(error = %e, "metrics not encoded");
        }
        out
    }
}
