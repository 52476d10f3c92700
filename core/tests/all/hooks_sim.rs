//! Lifecycle hooks end to end: the plan carries the hook steps, the model runtime
//! (`sim`) runs them with the world's hook behaviour, and the next plan reads what they
//! reported (`hookResults`) the kubelet's way.
#![expect(clippy::unwrap_used, reason = "tests fail by panicking")]

use podplan_core::plan::{HookHandler, HookKind, KillContainerStep, StartContainerStep, Step};
use podplan_core::request::PlanRequest;
use podplan_core::runtime::ContainerState;
use podplan_core::sim::{Event, Simulation};
use podplan_core::Plan;
use serde_json::{json, Value};

fn start() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

fn request(spec: Value) -> PlanRequest {
    let value = json!({"pod": {"metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
        "spec": spec}, "apiDefaults": true});
    podplan_core::api::parse_request_value(value).unwrap()
}

fn start_of(plan: &Plan, container: &str) -> Option<StartContainerStep> {
    plan.steps.iter().find_map(|s| match s {
        Step::StartContainer(st) if st.container.as_deref() == Some(container) => Some(st.clone()),
        _ => None,
    })
}

fn kill_step(plan: &Plan, container: &str) -> Option<KillContainerStep> {
    plan.steps.iter().find_map(|s| match s {
        Step::KillContainer(k) if k.container.as_deref() == Some(container) => Some(k.clone()),
        _ => None,
    })
}

fn waiting_reason(plan: &Plan, container: &str) -> Option<String> {
    plan.status
        .as_ref()?
        .container_statuses
        .iter()
        .flatten()
        .find(|s| s.name == container)?
        .state
        .as_ref()?
        .waiting
        .as_ref()?
        .reason
        .clone()
}

fn post_start_pod() -> Value {
    json!({"terminationGracePeriodSeconds": 30, "containers": [{"name": "app", "image": "nginx",
        "lifecycle": {"postStart": {"exec": {"command": ["sh", "-c", "exit 1"]}},
                      "preStop": {"sleep": {"seconds": 3}}}}]})
}

#[test]
fn a_failing_post_start_kills_the_container_and_crash_loop_back_off_follows() {
    let mut sim = Simulation::new(request(post_start_pod()), start());
    assert_eq!(
        sim.event(&Event::PostStartFails {
            container: "app".into(),
            fails: true
        }),
        None
    );
    // Sync 1: the start carries the hook and the kill that follows a failure.
    let first = sim.sync().unwrap();
    let start_step = start_of(&first, "app").unwrap();
    let hook = start_step.post_start.unwrap();
    assert_eq!(hook.hook, HookKind::PostStart);
    assert_eq!(
        hook.handler,
        Some(HookHandler::Exec {
            command: vec!["sh".into(), "-c".into(), "exit 1".into()]
        })
    );
    assert_eq!(start_step.grace_period_seconds, Some(30));
    assert_eq!(
        start_step.pre_stop.as_ref().and_then(|p| p.timeout_seconds),
        Some(30)
    );
    // The runtime ran it: it failed, the container was killed after its 3 s preStop.
    let app = sim
        .request
        .runtime_status
        .as_ref()
        .and_then(|s| s.container_statuses.first())
        .cloned()
        .unwrap();
    assert_eq!(app.state, ContainerState::Exited);
    let results = &sim.request.hook_results;
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[0].failed() && results[0].hook == HookKind::PostStart);
    assert_eq!(results[1].hook, HookKind::PreStop);
    assert_eq!(results[1].elapsed_millis, Some(3000));
    assert_eq!(results[1].stop_grace_period_seconds, Some(27));

    // Sync 2: the kubelet's account of the failure, then the restart.
    let second = sim.sync().unwrap();
    let reasons: Vec<(&str, &str)> = second
        .events
        .iter()
        .map(|e| (e.reason.as_str(), e.message.as_str()))
        .collect();
    assert_eq!(reasons[0], ("FailedPostStartHook", "PostStartHook failed"));
    assert_eq!(reasons[1], ("Killing", "FailedPostStartHook"));
    assert_eq!(
        waiting_reason(&second, "app").as_deref(),
        Some("PostStartHookError")
    );
    assert!(second
        .decisions
        .iter()
        .any(|d| d.reason == "FailedPostStartHook"
            && d.message.contains("Exec lifecycle hook ([sh -c exit 1]) for Container \"app\" in Pod \"web_default(u-1)\" failed - error: command terminated with exit code 1")));
    assert!(start_of(&second, "app").is_some());

    // Then crash-loop back-off holds the next restart.
    let mut held = None;
    for _ in 0..4 {
        let p = sim.sync().unwrap();
        if let Some(h) = p.held_back.iter().find(|h| h.container == "app") {
            held = Some((h.delay_seconds, p));
            break;
        }
    }
    let (delay, plan) = held.expect("crash-loop back-off never held app back");
    // Syncs every 10 s (+3 s of preStop): the first restart (sync 2) records 10 s from
    // the first exit (t+3), which has passed by sync 3 (t+26 ≥ t+16+10): restart, now
    // 20 s; sync 4 (t+39) is within 20 s of that exit (t+29) and is held back.
    assert_eq!(delay, 20);
    assert_eq!(
        plan.reason_cache.get("app").map(|e| e.reason.as_str()),
        Some("CrashLoopBackOff")
    );
    // Recovery: the hook succeeds again, the container stays up.
    sim.event(&Event::PostStartFails {
        container: "app".into(),
        fails: false,
    });
    let plans = sim.run_until_stable(8).unwrap();
    assert!(plans.len() < 8);
    assert!(sim.all_running());
}

fn pre_stop_pod(grace: i64) -> Value {
    json!({"terminationGracePeriodSeconds": grace, "containers": [{"name": "app", "image": "nginx",
        "lifecycle": {"preStop": {"exec": {"command": ["drain"]}}}}]})
}

/// Runs the pod to steady state with the preStop taking `seconds`, changes the image and
/// returns the kill plan and the request after it.
fn kill_after_pre_stop(grace: i64, seconds: u64) -> (Plan, PlanRequest, jiff::Timestamp) {
    let mut sim = Simulation::new(request(pre_stop_pod(grace)), start());
    sim.run_until_stable(5).unwrap();
    assert_eq!(
        sim.event(&Event::PreStopTakes {
            container: "app".into(),
            seconds,
            fails: false
        }),
        None
    );
    sim.event(&Event::SetImage {
        container: "app".into(),
        image: "nginx:2".into(),
    });
    let at = sim.now;
    let plan = sim.sync().unwrap();
    (plan, sim.request.clone(), at)
}

#[test]
fn a_pre_stop_hook_shortens_the_stop_grace() {
    let (plan, next, at) = kill_after_pre_stop(30, 12);
    let kill = kill_step(&plan, "app").unwrap();
    assert_eq!(kill.grace_period_seconds, Some(30));
    let pre_stop = kill.pre_stop.unwrap();
    assert_eq!(pre_stop.timeout_seconds, Some(30));
    assert_eq!(pre_stop.container_id, kill.container_id);
    let r = &next.hook_results[0];
    assert_eq!(
        (r.elapsed_millis, r.stop_grace_period_seconds),
        (Some(12_000), Some(18))
    );
    // The old instance stopped when the hook was done; the new one starts after it.
    let statuses = &next.runtime_status.as_ref().unwrap().container_statuses;
    let old = statuses
        .iter()
        .find(|s| s.state == ContainerState::Exited)
        .unwrap();
    assert_eq!(
        old.finished_at,
        Some(at.checked_add(jiff::SignedDuration::from_secs(12)).unwrap())
    );
    // The next plan says what the hook cost.
    let after = podplan_core::plan(&next).unwrap();
    assert!(after
        .decisions
        .iter()
        .any(|d| d.reason == "PreStopHookRan" && d.message.contains("StopContainer got 18 s")));

    // A hook that outlasts the grace period is cut there: StopContainer gets 2 s.
    let (_, next, _) = kill_after_pre_stop(30, 45);
    let r = &next.hook_results[0];
    assert_eq!(
        (r.elapsed_millis, r.stop_grace_period_seconds),
        (Some(30_000), Some(2))
    );
}

#[test]
fn no_pre_stop_without_grace_and_kill_pod_carries_each_containers_hook() {
    // Grace 0: killContainer runs no preStop; StopContainer gets 2 s.
    let (plan, next, _) = kill_after_pre_stop(0, 5);
    let kill = kill_step(&plan, "app").unwrap();
    assert_eq!(kill.grace_period_seconds, Some(2));
    assert!(kill.pre_stop.is_none());
    assert!(next.hook_results.is_empty());

    // A sandbox re-creation kills the pod: each running container's preStop rides on KillPod.
    let mut sim = Simulation::new(request(pre_stop_pod(20)), start());
    sim.run_until_stable(5).unwrap();
    sim.event(&Event::SandboxLosesIp);
    let plan = sim.sync().unwrap();
    let kill = plan
        .steps
        .iter()
        .find_map(|s| match s {
            Step::KillPod(k) => Some(k),
            _ => None,
        })
        .unwrap();
    assert_eq!(kill.pre_stops.len(), 1);
    assert_eq!(kill.pre_stops[0].timeout_seconds, Some(20));
    assert!(kill.pre_stops[0].container_id.is_some());
}

#[test]
fn failed_pre_stop_and_unplaceable_results() {
    let mut sim = Simulation::new(request(pre_stop_pod(30)), start());
    sim.run_until_stable(5).unwrap();
    sim.event(&Event::PreStopTakes {
        container: "app".into(),
        seconds: 1,
        fails: true,
    });
    sim.event(&Event::SetImage {
        container: "app".into(),
        image: "nginx:2".into(),
    });
    let _ = sim.sync().unwrap();
    assert!(sim.request.hook_results[0].failed());
    let mut next = sim.request.clone();
    let plan = podplan_core::plan(&next).unwrap();
    assert_eq!(
        plan.events
            .first()
            .map(|e| (e.kind.as_str(), e.reason.as_str(), e.message.as_str())),
        Some(("Warning", "FailedPreStopHook", "PreStopHook failed"))
    );
    // A result for a container the runtime does not have: a warning, nothing else.
    next.hook_results[0].container_id = "sim://nope".into();
    let plan = podplan_core::plan(&next).unwrap();
    assert!(plan
        .warnings
        .iter()
        .any(|w| w.path == "hookResults[0].containerId"));
    assert!(plan.events.iter().all(|e| e.reason != "FailedPreStopHook"));
    // Hook controls name containers that declare the hook.
    assert!(sim
        .event(&Event::PostStartFails {
            container: "app".into(),
            fails: true
        })
        .is_some());
}

#[test]
fn requests_without_hooks_are_unchanged_by_the_hook_machinery() {
    let mut sim = Simulation::new(
        request(json!({"containers": [{"name": "app", "image": "nginx"}]})),
        start(),
    );
    for p in sim.run_until_stable(5).unwrap() {
        assert!(p.steps.iter().all(|s| match s {
            Step::StartContainer(st) => st.post_start.is_none() && st.pre_stop.is_none(),
            Step::KillContainer(k) => k.pre_stop.is_none(),
            Step::KillPod(k) => k.pre_stops.is_empty(),
            _ => true,
        }));
    }
    assert!(sim.request.hook_results.is_empty());
}

#[test]
fn the_plan_text_names_the_hooks() {
    let mut sim = Simulation::new(request(post_start_pod()), start());
    let first = sim.sync().unwrap();
    let text = podplan_core::explain::to_text(&first);
    assert!(
        text.contains("then postStart exec [sh -c exit 1] (if it fails: FailedPostStartHook, the container is killed after preStop sleep 3s, start error PostStartHookError)"),
        "{text}"
    );
    let (plan, _, _) = kill_after_pre_stop(30, 12);
    let text = podplan_core::explain::to_text(&plan);
    assert!(
        text.contains("grace 30s: Container app definition changed, will be restarted; first preStop exec [drain] for at most 30s"),
        "{text}"
    );
}

#[test]
fn a_failed_post_start_of_a_container_still_running_is_warned_about() {
    let mut sim = Simulation::new(request(post_start_pod()), start());
    sim.event(&Event::PostStartFails {
        container: "app".into(),
        fails: true,
    });
    let _ = sim.sync().unwrap();
    let mut next = sim.request.clone();
    // An executor that reported the failure but did not kill the container.
    if let Some(s) = next
        .runtime_status
        .as_mut()
        .and_then(|s| s.container_statuses.first_mut())
    {
        s.state = ContainerState::Running;
    }
    let plan = podplan_core::plan(&next).unwrap();
    assert!(plan
        .warnings
        .iter()
        .any(|w| w.path == "hookResults[0].error"));
    // The failure is still the kubelet's account of that start.
    assert_eq!(
        plan.reason_cache.get("app").map(|e| e.reason.as_str()),
        Some("PostStartHookError")
    );
}

#[test]
fn an_http_post_start_in_a_new_sandbox_waits_for_its_ip() {
    let req = request(json!({"containers": [{"name": "app", "image": "nginx",
        "ports": [{"name": "web", "containerPort": 8080}],
        "lifecycle": {"postStart": {"httpGet": {"path": "warm", "port": "web"}}}}]}));
    let plan = podplan_core::plan(&req).unwrap();
    let start = start_of(&plan, "app").unwrap();
    assert!(start.depends_on_new_sandbox);
    let hook = start.post_start.unwrap();
    assert!(hook.invalid.is_none());
    assert!(
        matches!(&hook.handler, Some(HookHandler::HttpGet { host, url, port: 8080, .. })
        if host.is_empty() && url.is_empty())
    );
    // After RunPodSandbox: the plan is completed from the new sandbox's IP.
    let call = json!({"request": req, "sandboxStatus":
        {"id": "s1", "state": "SANDBOX_READY", "network": {"ip": "10.1.2.3"}}});
    let completed: Plan = serde_json::from_slice(&podplan_core::api::complete_json(
        call.to_string().as_bytes(),
    ))
    .unwrap();
    let start = start_of(&completed, "app").unwrap();
    assert!(!start.depends_on_new_sandbox);
    assert!(matches!(start.post_start.and_then(|h| h.handler),
        Some(HookHandler::HttpGet { url, .. }) if url == "http://10.1.2.3:8080/warm"));
}
