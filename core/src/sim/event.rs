//! Scripted runtime events: what happens to a pod between two syncs, as data.
//!
//! The demo's script, the playground's drive controls and tests name the same events
//! ([`Event`], JSON `{"type": "exit", "container": "app", "code": 1}`); [`apply_event`]
//! carries one out on a request with the [`script`] helpers and, for probe events, the
//! prober's rules (`probes.rs`), at the request's `now`. An event that cannot happen as described (the container is not
//! running, there is no sandbox) changes nothing and answers a note saying why.

use serde::{Deserialize, Serialize};

use super::hooks::HookControls;
use super::model::KILLED_EXIT_CODE;
use super::probes::{self, ProbeKind};
use super::script;
use crate::request::{PlanRequest, ProbeResult};

/// Something that happens to the pod between two syncs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Event {
    /// Virtual time passes: the request's `now` moves forward.
    Advance {
        /// Seconds (not negative).
        seconds: i64,
    },
    /// The newest running instance of a container exits. An exit code that matches a
    /// `RestartAllContainers` rule (gate `RestartAllContainersOnContainerExits` on) starts
    /// a restart of all containers, as the kubelet's `ShouldAllContainersRestart` sees it.
    Exit {
        /// Container name.
        container: String,
        /// Exit code.
        code: i32,
    },
    /// The prober records a result for the newest instance of a running container. A
    /// failure is recorded as the kubelet's prober records one (`doProbe` in
    /// `pkg/kubelet/prober/worker.go`): no probe runs before `initialDelaySeconds` after
    /// the container started, and only `failureThreshold` failures in a row, one every
    /// `periodSeconds`, change the result; the clock (`now`) moves on to then
    /// (`probe_failure_recorded_at`). A success is recorded at once.
    Probe {
        /// Container name.
        container: String,
        /// Which probe.
        probe: ProbeKind,
        /// The result.
        result: ProbeResult,
    },
    /// The latest sandbox dies, with every running container in it.
    SandboxDies,
    /// The latest sandbox loses its IP address (it stays ready).
    SandboxLosesIp,
    /// The pod spec changes a container's image.
    SetImage {
        /// Container name.
        container: String,
        /// The new image.
        image: String,
    },
    /// The registry fails the next pulls of an image (the playground's "pull fails"
    /// control). Turns the image manager on if the request had no `images` (the images of
    /// the containers the runtime has count as present).
    PullFails {
        /// The image as written in the container.
        image: String,
        /// `registryDown` or `notFound`.
        fault: crate::plan::PullFault,
        /// How many pulls fail; absent = every pull until `pullWorks`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        times: Option<u32>,
    },
    /// Pulls of an image work again.
    PullWorks {
        /// The image as written in the container.
        image: String,
    },
    /// The node's image garbage collection removes an image.
    RemoveImage {
        /// The image as written in the container.
        image: String,
    },
    /// From now on the container's postStart hook fails (`fails: false`: succeeds
    /// again) when the runtime runs it. Kept in the simulation's
    /// [`HookControls`], not in the request.
    PostStartFails {
        /// Container name.
        container: String,
        /// Whether it fails (default true).
        #[serde(default = "yes")]
        fails: bool,
    },
    /// The API server marks the pod for deletion (`kubectl delete`): `deletionTimestamp`
    /// = now + the grace period, `deletionGracePeriodSeconds` = the grace period (given,
    /// else the spec's `terminationGracePeriodSeconds`, else 30 s, the API default).
    Delete {
        /// The delete request's `gracePeriodSeconds`.
        #[serde(
            default,
            rename = "gracePeriodSeconds",
            skip_serializing_if = "Option::is_none"
        )]
        grace_period_seconds: Option<i64>,
    },
    /// The kubelet's eviction manager evicts the pod (`podWorker.kill`): phase `Failed`,
    /// reason `Evicted`, the message, grace period `gracePeriodSeconds` (default 1 s:
    /// a hard eviction threshold, `immediateEvictionGracePeriodSeconds`).
    Evict {
        /// The eviction message (default `The node was low on resource: memory. `).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
        /// The grace period override (soft thresholds: `evictionMaxPodGracePeriod`).
        #[serde(
            default,
            rename = "gracePeriodSeconds",
            skip_serializing_if = "Option::is_none"
        )]
        grace_period_seconds: Option<i64>,
    },
    /// The kernel's OOM killer kills the newest running instance of a container: exit
    /// code 137, reason `OOMKilled`.
    OomKill {
        /// Container name.
        container: String,
    },
    /// Something other than the kubelet (a controller, `kubectl patch --subresource
    /// status`) sets a pod condition in the API status: a readiness gate's
    /// (`spec.readinessGates`), which the kubelet's status manager reads to compute
    /// `Ready` (`GeneratePodReadyCondition` in `pkg/kubelet/status/generate.go`) and never
    /// writes. The conditions the kubelet owns cannot be set this way.
    SetCondition {
        /// The condition type (a readiness gate's `conditionType`).
        condition: String,
        /// `True`, `False` or `Unknown`.
        status: String,
    },
    /// From now on a successful pull of `image` (as written in the container) takes
    /// `seconds` (default `PULL_MILLIS`). Kept in the
    /// simulation's [`HookControls`].
    PullTakes {
        /// The image as written in the container.
        image: String,
        /// Seconds.
        seconds: u64,
    },
    /// From now on a container takes `seconds` to exit after `StopContainer`'s stop
    /// signal (cut at the stop's grace period: SIGKILL). Kept in the simulation's
    /// [`HookControls`].
    StopTakes {
        /// Container name.
        container: String,
        /// Seconds.
        seconds: u64,
    },
    /// From now on the container's preStop hook runs `seconds` (cut at the kill's grace
    /// period) and, with `fails`, then fails.
    PreStopTakes {
        /// Container name.
        container: String,
        /// Seconds.
        seconds: u64,
        /// Whether it fails afterwards (default false).
        #[serde(default)]
        fails: bool,
    },
}

fn yes() -> bool {
    true
}

/// `apply_event` (below) with the simulation's hook behaviour: the hook events
/// ([`Event::PostStartFails`], [`Event::PreStopTakes`]) change `hooks`, every other event
/// the request.
pub fn apply_event_with(
    request: &mut PlanRequest,
    hooks: &mut HookControls,
    event: &Event,
) -> Option<String> {
    let declares = |name: &str, post_start: bool| {
        request.pod.spec.as_ref().is_some_and(|s| {
            s.init_containers
                .iter()
                .flatten()
                .chain(s.containers.iter())
                .any(|c| {
                    c.name == name
                        && c.lifecycle.as_ref().is_some_and(|l| {
                            if post_start {
                                l.post_start.is_some()
                            } else {
                                l.pre_stop.is_some()
                            }
                        })
                })
        })
    };
    match event {
        Event::PostStartFails { container, fails } => {
            if !declares(container, true) {
                return Some(format!("{container} has no postStart hook"));
            }
            if *fails {
                hooks.post_start_fails.insert(container.clone());
            } else {
                hooks.post_start_fails.remove(container);
            }
            None
        }
        Event::PreStopTakes {
            container,
            seconds,
            fails,
        } => {
            if !declares(container, false) {
                return Some(format!("{container} has no preStop hook"));
            }
            hooks.pre_stop_seconds.insert(container.clone(), *seconds);
            if *fails {
                hooks.pre_stop_fails.insert(container.clone());
            } else {
                hooks.pre_stop_fails.remove(container);
            }
            None
        }
        Event::StopTakes { container, seconds } => {
            hooks.exit_seconds.insert(container.clone(), *seconds);
            None
        }
        Event::PullTakes { image, seconds } => {
            if !crate::pod::images(&request.pod).iter().any(|i| i == image) {
                return Some(format!("no container of the pod uses image {image}"));
            }
            hooks.pull_seconds.insert(image.clone(), *seconds);
            None
        }
        other => apply_event(request, other),
    }
}

/// Carries out `event` on `request` at the request's `now` (the Unix epoch when it has
/// none). Returns a note when the event could not happen as described; the request is
/// then unchanged.
pub fn apply_event(request: &mut PlanRequest, event: &Event) -> Option<String> {
    let now = request.now.unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    match event {
        Event::Advance { seconds } => {
            if *seconds < 0 {
                return Some(format!("time does not go backwards ({seconds} s)"));
            }
            match now.checked_add(jiff::SignedDuration::from_secs(*seconds)) {
                Ok(later) => {
                    request.now = Some(later);
                    None
                }
                Err(e) => Some(format!("the clock cannot move {seconds} s: {e}")),
            }
        }
        Event::Exit { container, code } => {
            if !script::exit_container(request, container, *code, now) {
                return Some(format!("{container} is not running, so it cannot exit"));
            }
            if script::restart_all_rule_matches(request, container, *code) {
                script::begin_restart_all(request);
            }
            None
        }
        Event::Probe {
            container,
            probe,
            result,
        } => {
            if let Some(why) = probes::prober_cannot_report(request, container, *probe) {
                return Some(why);
            }
            if *result == ProbeResult::Failure {
                if let Some(at) = probes::probe_failure_recorded_at(request, container, *probe, now) {
                    request.now = Some(at);
                }
            }
            let (liveness, startup) = match probe {
                ProbeKind::Liveness => (Some(*result), None),
                ProbeKind::Startup => (None, Some(*result)),
                ProbeKind::Readiness => (None, None),
            };
            script::set_probe(request, container, liveness, startup);
            if *probe == ProbeKind::Readiness {
                probes::set_readiness(request, container, *result);
            }
            None
        }
        Event::SandboxDies => {
            if !script::has_sandbox(request) {
                return Some("there is no sandbox to lose".into());
            }
            script::kill_sandbox(request, now);
            None
        }
        Event::SandboxLosesIp => {
            if !script::has_sandbox(request) {
                return Some("there is no sandbox to lose its IP".into());
            }
            script::lose_sandbox_ip(request);
            None
        }
        Event::Delete {
            grace_period_seconds,
        } => {
            if request.pod.metadata.deletion_timestamp.is_some() {
                return Some("the pod is already being deleted".into());
            }
            let grace = grace_period_seconds
                .or_else(|| {
                    request
                        .pod
                        .spec
                        .as_ref()
                        .and_then(|s| s.termination_grace_period_seconds)
                })
                .unwrap_or(30)
                .max(0);
            let at = now
                .checked_add(jiff::SignedDuration::from_secs(grace))
                .unwrap_or(now);
            request.pod.metadata.deletion_timestamp =
                Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(at));
            request.pod.metadata.deletion_grace_period_seconds = Some(grace);
            None
        }
        Event::Evict {
            message,
            grace_period_seconds,
        } => {
            let worker = request.pod_worker.get_or_insert_with(Default::default);
            if worker.kill.is_some() {
                return Some("the pod is already being killed".into());
            }
            worker.kill = Some(crate::plan::KillPodOptions {
                grace_period_seconds_override: Some(grace_period_seconds.unwrap_or(1)),
                evict: true,
                reason: Some(crate::terminate::EVICTED_REASON.into()),
                message: Some(
                    message
                        .clone()
                        .unwrap_or_else(|| "The node was low on resource: memory. ".into()),
                ),
            });
            None
        }
        Event::OomKill { container } => {
            if !script::exit_container(request, container, KILLED_EXIT_CODE, now) {
                return Some(format!(
                    "{container} is not running, so it cannot be OOM-killed"
                ));
            }
            if let Some(s) = request.runtime_status.as_mut().and_then(|r| {
                r.container_statuses
                    .iter_mut()
                    .find(|s| &s.name == container && s.finished_at == Some(now))
            }) {
                s.reason = "OOMKilled".into();
            }
            if script::restart_all_rule_matches(request, container, KILLED_EXIT_CODE) {
                script::begin_restart_all(request);
            }
            None
        }
        Event::StopTakes { .. }
        | Event::PostStartFails { .. }
        | Event::PreStopTakes { .. }
        | Event::PullTakes { .. } => Some(
            "hook behaviour belongs to the simulated world, not to the request: use sim::apply_event_with (or the `hooks` of simApply/simEvent)".into(),
        ),
        Event::SetImage { container, image } => {
            let target = request.pod.spec.as_mut().and_then(|spec| {
                spec.containers
                    .iter_mut()
                    .chain(spec.init_containers.iter_mut().flatten())
                    .find(|c| &c.name == container)
            });
            match target {
                Some(c) => {
                    // An update of the spec: the API server's pod strategy counts it in
                    // `metadata.generation` (`PrepareForUpdate`, pkg/registry/core/pod/
                    // strategy.go); a pod whose generation is not known keeps not knowing.
                    if c.image.as_deref() != Some(image.as_str()) {
                        c.image = Some(image.clone());
                        if let Some(g) = request.pod.metadata.generation.as_mut() {
                            *g = g.saturating_add(1);
                        }
                    }
                    None
                }
                None => Some(format!("the pod has no container {container}")),
            }
        }
        Event::SetCondition { condition, status } => script::set_condition(request, condition, status, now),
        Event::PullFails {
            image,
            fault,
            times,
        } => super::images::set_fault(request, image, *fault, *times),
        Event::PullWorks { image } => super::images::clear_fault(request, image),
        Event::RemoveImage { image } => super::images::remove_image(request, image),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::api::parse_request;
    use crate::runtime::{ContainerState, SandboxState};
    use crate::sim::next_request_with;

    /// The request after the first sync of `pod` (API defaults on) was carried out.
    pub(in crate::sim) fn started(pod: &str) -> PlanRequest {
        let text =
            format!(r#"{{"pod": {pod}, "apiDefaults": true, "now": "2025-01-01T00:00:00Z"}}"#);
        let request = parse_request(text.as_bytes()).unwrap();
        let plan = crate::plan(&request).unwrap();
        next_request_with(&request, &plan, request.now.unwrap(), &Default::default())
    }

    const POD: &str = r#"{"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
        "spec": {"containers": [{"name": "a", "image": "x", "restartPolicy": "Never",
          "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]}]}}"#;

    #[test]
    fn events_read_from_json() {
        let events: Vec<Event> = serde_json::from_str(
            r#"[{"type": "advance", "seconds": 4}, {"type": "exit", "container": "a", "code": 1},
                {"type": "probe", "container": "a", "probe": "startup", "result": "success"},
                {"type": "sandboxDies"}, {"type": "sandboxLosesIp"},
                {"type": "setImage", "container": "a", "image": "y"}]"#,
        )
        .unwrap();
        assert_eq!(events.len(), 6);
        assert!(serde_json::from_str::<Event>(
            r#"{"type": "exit", "container": "a", "code": 1, "x": 1}"#
        )
        .is_err());
        assert!(serde_json::from_str::<Event>(r#"{"type": "explode"}"#).is_err());
    }

    #[test]
    fn advance_moves_the_clock_and_refuses_to_go_back() {
        let mut r = started(POD);
        let t = r.now.unwrap();
        assert_eq!(apply_event(&mut r, &Event::Advance { seconds: 5 }), None);
        assert_eq!(r.now.unwrap().as_second() - t.as_second(), 5);
        assert!(apply_event(&mut r, &Event::Advance { seconds: -1 }).is_some());
    }

    #[test]
    fn an_exit_matching_a_restart_all_rule_starts_a_restart_of_all_containers() {
        let mut r = started(POD);
        assert_eq!(
            apply_event(
                &mut r,
                &Event::Exit {
                    container: "a".into(),
                    code: 1
                }
            ),
            None
        );
        assert!(!r.restart_all_containers);
        let mut r = started(POD);
        apply_event(
            &mut r,
            &Event::Exit {
                container: "a".into(),
                code: 42,
            },
        );
        assert!(r.restart_all_containers);
        let mut off = started(POD);
        off.feature_gates
            .insert("RestartAllContainersOnContainerExits".into(), false);
        apply_event(
            &mut off,
            &Event::Exit {
                container: "a".into(),
                code: 42,
            },
        );
        assert!(!off.restart_all_containers);
        // Not running any more: nothing happens, with a note.
        assert!(apply_event(
            &mut r,
            &Event::Exit {
                container: "a".into(),
                code: 1
            }
        )
        .is_some());
    }

    #[test]
    fn the_sandbox_loses_its_ip_or_dies() {
        let mut r = started(POD);
        assert_eq!(apply_event(&mut r, &Event::SandboxLosesIp), None);
        let status = r.runtime_status.as_ref().unwrap();
        assert!(status.ips.is_empty());
        assert_eq!(status.sandbox_statuses[0].state, SandboxState::Ready);
        assert_eq!(status.sandbox_statuses[0].network.as_ref().unwrap().ip, "");
        assert_eq!(apply_event(&mut r, &Event::SandboxDies), None);
        let status = r.runtime_status.as_ref().unwrap();
        assert_eq!(status.sandbox_statuses[0].state, SandboxState::NotReady);
        assert_eq!(status.container_statuses[0].state, ContainerState::Exited);
        let mut empty =
            parse_request(br#"{"pod": {"metadata": {"name": "p"}, "spec": {"containers": []}}}"#)
                .unwrap();
        assert!(apply_event(&mut empty, &Event::SandboxDies).is_some());
    }

    #[test]
    fn an_image_change_is_a_new_generation_the_same_image_is_not() {
        let mut r = crate::api::parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u", "generation": 3},
                 "spec": {"containers": [{"name": "a", "image": "x"}]}}}"#,
        )
        .unwrap();
        let set = |image: &str| Event::SetImage {
            container: "a".into(),
            image: image.into(),
        };
        assert_eq!(apply_event(&mut r, &set("x")), None);
        assert_eq!(r.pod.metadata.generation, Some(3));
        assert_eq!(apply_event(&mut r, &set("y")), None);
        assert_eq!(r.pod.metadata.generation, Some(4));
        r.pod.metadata.generation = None;
        assert_eq!(apply_event(&mut r, &set("z")), None);
        assert_eq!(r.pod.metadata.generation, None);
    }

    fn ready_of(r: &PlanRequest) -> (String, Option<String>) {
        let plan = crate::plan(r).unwrap();
        let ready = plan
            .status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
            .cloned()
            .unwrap_or_default();
        (ready.status, ready.reason)
    }

    #[test]
    fn a_readiness_gate_condition_set_from_outside_decides_ready() {
        let pod = r#"{"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {"readinessGates": [{"conditionType": "example.com/lb-ready"}],
              "containers": [{"name": "a", "image": "x"}]}}"#;
        let mut r = started(pod);
        let (status, reason) = ready_of(&r);
        assert_eq!(
            (status.as_str(), reason.as_deref()),
            ("False", Some("ReadinessGatesNotReady"))
        );
        let gate = |status: &str| Event::SetCondition {
            condition: "example.com/lb-ready".into(),
            status: status.into(),
        };
        assert_eq!(apply_event(&mut r, &gate("True")), None);
        assert_eq!(ready_of(&r).0, "True");
        assert_eq!(apply_event(&mut r, &gate("False")), None);
        let (status, reason) = ready_of(&r);
        assert_eq!(
            (status.as_str(), reason.as_deref()),
            ("False", Some("ReadinessGatesNotReady"))
        );
        // The kubelet's own conditions are not set from outside; nor odd statuses.
        let ready = Event::SetCondition {
            condition: "Ready".into(),
            status: "True".into(),
        };
        assert!(apply_event(&mut r, &ready).is_some());
        assert!(apply_event(&mut r, &gate("yes")).is_some());
        let from_json: Event = serde_json::from_str(
            r#"{"type": "setCondition", "condition": "example.com/lb-ready", "status": "True"}"#,
        )
        .unwrap();
        assert_eq!(from_json, gate("True"));
    }
}
