//! The kubelet's prober as the runtime model's probe events see it: which probe results
//! can exist now (`prober/worker.go`), when a failure that begins now is recorded, and the
//! readiness result kept in the request.

use serde::{Deserialize, Serialize};

use crate::request::{PlanRequest, ProbeResult};
use crate::runtime::ContainerState;

/// Which probe a probe event (`sim::Event::Probe`) reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeKind {
    /// The liveness probe.
    Liveness,
    /// The startup probe.
    Startup,
    /// The readiness probe: recorded, it never restarts a container.
    Readiness,
}

impl ProbeKind {
    /// The probe's name (`liveness`, `startup`, `readiness`).
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Liveness => "liveness",
            Self::Startup => "startup",
            Self::Readiness => "readiness",
        }
    }
}

/// Why the kubelet's prober cannot produce a `kind` result for `name` now, if it cannot:
/// results exist only for probes the container declares, of a running container; the
/// liveness and readiness probes run only once the startup probe (if declared) has
/// succeeded, and the startup probe stops once it has (`prober/worker.go`).
pub(crate) fn prober_cannot_report(
    request: &PlanRequest,
    name: &str,
    kind: ProbeKind,
) -> Option<String> {
    let what = kind.as_str();
    if !newest_is_running(request, name) {
        return Some(format!("{name} is not running, so it has no {what} probe"));
    }
    let spec = request.pod.spec.as_ref().and_then(|s| {
        s.init_containers
            .iter()
            .flatten()
            .chain(s.containers.iter())
            .find(|c| c.name == name)
    })?;
    let declared = match kind {
        ProbeKind::Liveness => spec.liveness_probe.is_some(),
        ProbeKind::Startup => spec.startup_probe.is_some(),
        ProbeKind::Readiness => spec.readiness_probe.is_some(),
    };
    if !declared {
        return Some(format!(
            "{name} declares no {what} probe, so the kubelet's prober has no result for it"
        ));
    }
    let started = spec.startup_probe.is_none()
        || newest_probe_results(request, name)
            .and_then(|r| r.startup)
            .is_some_and(|r| r == ProbeResult::Success);
    match kind {
        ProbeKind::Startup if started => Some(format!(
            "the startup probe of {name} has already succeeded: the kubelet no longer runs it"
        )),
        ProbeKind::Liveness | ProbeKind::Readiness if !started => Some(format!(
            "the kubelet runs the {what} probe of {name} only after its startup probe has succeeded"
        )),
        _ => None,
    }
}

/// When the kubelet's prober records a `kind` failure of the newest instance of `name`
/// that begins to fail at `now` (`doProbe` in `pkg/kubelet/prober/worker.go`): no probe
/// runs until `initialDelaySeconds` after the container started; the worker probes every
/// `periodSeconds` and changes the result only after `failureThreshold` failures in a
/// row. The model's failure begins just after a probe, so the first failing probe is one
/// period later and the recorded failure `periodSeconds × failureThreshold` after the
/// later of `now` and the end of the initial delay. The API defaults apply to unset
/// fields (`SetDefaults_Probe`: period 10 s, threshold 3, no initial delay). `None` when
/// the probe already reports a failure (nothing changes, no time passes) or is not
/// declared.
#[must_use]
pub(crate) fn probe_failure_recorded_at(
    request: &PlanRequest,
    name: &str,
    kind: ProbeKind,
    now: jiff::Timestamp,
) -> Option<jiff::Timestamp> {
    let spec = request.pod.spec.as_ref().and_then(|s| {
        s.init_containers
            .iter()
            .flatten()
            .chain(s.containers.iter())
            .find(|c| c.name == name)
    })?;
    let probe = match kind {
        ProbeKind::Liveness => spec.liveness_probe.as_ref(),
        ProbeKind::Startup => spec.startup_probe.as_ref(),
        ProbeKind::Readiness => spec.readiness_probe.as_ref(),
    }?;
    let current = newest_probe_results(request, name).and_then(|r| match kind {
        ProbeKind::Liveness => r.liveness,
        ProbeKind::Startup => r.startup,
        ProbeKind::Readiness => r.readiness,
    });
    if current == Some(ProbeResult::Failure) {
        return None;
    }
    let positive =
        |v: Option<i32>, default: i32| i64::from(v.filter(|v| *v > 0).unwrap_or(default));
    let period = positive(probe.period_seconds, 10);
    let threshold = positive(probe.failure_threshold, 3);
    let delay = i64::from(probe.initial_delay_seconds.unwrap_or(0).max(0));
    let started = request
        .runtime_status
        .as_ref()
        .and_then(|s| s.container_statuses.iter().find(|c| c.name == name))
        .and_then(|c| c.started_at);
    let probing_from = started
        .and_then(|t| t.checked_add(jiff::SignedDuration::from_secs(delay)).ok())
        .map_or(now, |t| t.max(now));
    probing_from
        .checked_add(jiff::SignedDuration::from_secs(
            period.saturating_mul(threshold),
        ))
        .ok()
}

/// The prober's results for the newest instance of `name`.
fn newest_probe_results(request: &PlanRequest, name: &str) -> Option<crate::request::ProbeResults> {
    let id = request
        .runtime_status
        .as_ref()?
        .container_statuses
        .iter()
        .find(|c| c.name == name)?
        .id
        .clone();
    request.probes.get(&id).copied()
}

/// Records the readiness probe's `result` for the newest instance of `name`.
pub(crate) fn set_readiness(request: &mut PlanRequest, name: &str, result: ProbeResult) {
    let Some(id) = request
        .runtime_status
        .as_ref()
        .and_then(|s| s.container_statuses.iter().find(|c| c.name == name))
        .map(|c| c.id.clone())
    else {
        return;
    };
    request.probes.entry(id).or_default().readiness = Some(result);
}

/// Whether the newest instance of `name` is running.
fn newest_is_running(request: &PlanRequest, name: &str) -> bool {
    request.runtime_status.as_ref().is_some_and(|s| {
        s.container_statuses
            .iter()
            .find(|c| c.name == name)
            .is_some_and(|c| c.state == ContainerState::Running)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::event::tests::started;
    use crate::sim::event::{apply_event, Event};

    const PROBED: &str = r#"{"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
        "spec": {"containers": [{"name": "a", "image": "x",
          "startupProbe": {"exec": {"command": ["true"]}},
          "livenessProbe": {"exec": {"command": ["true"]}},
          "readinessProbe": {"exec": {"command": ["true"]}}},
          {"name": "b", "image": "x"}]}}"#;

    fn probe(container: &str, probe: ProbeKind, result: ProbeResult) -> Event {
        Event::Probe {
            container: container.into(),
            probe,
            result,
        }
    }

    #[test]
    fn the_prober_reports_liveness_and_readiness_only_after_startup_succeeded() {
        let mut r = started(PROBED);
        let statuses = &r.runtime_status.as_ref().unwrap().container_statuses;
        let id = statuses.iter().find(|s| s.name == "a").unwrap().id.clone();
        for kind in [ProbeKind::Liveness, ProbeKind::Readiness] {
            let note = apply_event(&mut r, &probe("a", kind, ProbeResult::Failure)).unwrap();
            assert!(
                note.contains("only after its startup probe has succeeded"),
                "{note}"
            );
        }
        assert!(r.probes.is_empty());
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Startup, ProbeResult::Failure)
            ),
            None
        );
        assert!(apply_event(
            &mut r,
            &probe("a", ProbeKind::Liveness, ProbeResult::Failure)
        )
        .is_some());
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Startup, ProbeResult::Success)
            ),
            None
        );
        let note = apply_event(
            &mut r,
            &probe("a", ProbeKind::Startup, ProbeResult::Failure),
        )
        .unwrap();
        assert!(note.contains("already succeeded"), "{note}");
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Readiness, ProbeResult::Failure)
            ),
            None
        );
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Liveness, ProbeResult::Failure)
            ),
            None
        );
        let results = r.probes[&id];
        assert_eq!(
            (results.startup, results.liveness, results.readiness),
            (
                Some(ProbeResult::Success),
                Some(ProbeResult::Failure),
                Some(ProbeResult::Failure)
            )
        );
        // b declares no probe: the prober has nothing to report.
        let note = apply_event(
            &mut r,
            &probe("b", ProbeKind::Liveness, ProbeResult::Failure),
        )
        .unwrap();
        assert!(note.contains("declares no liveness probe"), "{note}");
    }

    #[test]
    fn a_readiness_failure_never_restarts_the_container() {
        let mut r = started(PROBED);
        apply_event(
            &mut r,
            &probe("a", ProbeKind::Startup, ProbeResult::Success),
        );
        apply_event(
            &mut r,
            &probe("a", ProbeKind::Readiness, ProbeResult::Failure),
        );
        let plan = crate::plan(&r).unwrap();
        assert!(plan.actions.containers_to_kill.is_empty());
        assert!(plan.actions.containers_to_start.is_empty());
    }

    #[test]
    fn probes_need_a_running_container() {
        let mut r = started(PROBED);
        apply_event(
            &mut r,
            &probe("a", ProbeKind::Startup, ProbeResult::Success),
        );
        let probe = Event::Probe {
            container: "a".into(),
            probe: ProbeKind::Liveness,
            result: ProbeResult::Failure,
        };
        assert_eq!(apply_event(&mut r, &probe), None);
        assert_eq!(r.probes.len(), 1);
        assert_eq!(
            r.probes.values().next().unwrap().liveness,
            Some(ProbeResult::Failure)
        );
        apply_event(
            &mut r,
            &Event::Exit {
                container: "a".into(),
                code: 1,
            },
        );
        assert!(apply_event(&mut r, &probe).is_some());
        assert!(apply_event(
            &mut r,
            &Event::SetImage {
                container: "c".into(),
                image: "y".into()
            }
        )
        .is_some());
    }

    fn seconds_since(r: &PlanRequest, t: jiff::Timestamp) -> i64 {
        r.now.map_or(0, |n| n.as_second() - t.as_second())
    }

    #[test]
    fn a_probe_failure_is_recorded_after_failure_threshold_periods() {
        // liveness: period 5 s, threshold 4; readiness: API defaults (10 s × 3).
        let pod = r#"{"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {"containers": [{"name": "a", "image": "x",
              "livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 5, "failureThreshold": 4},
              "readinessProbe": {"exec": {"command": ["true"]}}}]}}"#;
        let mut r = started(pod);
        let t = r.now.unwrap();
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Readiness, ProbeResult::Failure)
            ),
            None
        );
        assert_eq!(seconds_since(&r, t), 30);
        // Already failing: nothing changes, no time passes.
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Readiness, ProbeResult::Failure)
            ),
            None
        );
        assert_eq!(seconds_since(&r, t), 30);
        // A success is recorded at once.
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Readiness, ProbeResult::Success)
            ),
            None
        );
        assert_eq!(seconds_since(&r, t), 30);
        assert_eq!(
            apply_event(
                &mut r,
                &probe("a", ProbeKind::Liveness, ProbeResult::Failure)
            ),
            None
        );
        assert_eq!(seconds_since(&r, t), 50);
    }

    #[test]
    fn no_probe_runs_before_the_initial_delay() {
        let pod = r#"{"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {"containers": [{"name": "a", "image": "x",
              "livenessProbe": {"exec": {"command": ["true"]}, "initialDelaySeconds": 15, "periodSeconds": 2, "failureThreshold": 3}}]}}"#;
        // Started at t: probing begins at t + 15 s, the third failure 6 s later.
        let mut r = started(pod);
        let t = r.now.unwrap();
        apply_event(
            &mut r,
            &probe("a", ProbeKind::Liveness, ProbeResult::Failure),
        );
        assert_eq!(seconds_since(&r, t), 21);
        // Long after the delay, only the failures count.
        let mut r = started(pod);
        apply_event(&mut r, &Event::Advance { seconds: 100 });
        apply_event(
            &mut r,
            &probe("a", ProbeKind::Liveness, ProbeResult::Failure),
        );
        assert_eq!(seconds_since(&r, t), 106);
    }
}
