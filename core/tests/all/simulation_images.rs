//! Image pulls in the model runtime (`podplan_core::sim`): a pull that fails
//! twice then succeeds goes ErrImagePull → ImagePullBackOff (10 s, then 20 s) → running,
//! with the kubelet's events; the "pull fails" control as scripted events.

use podplan_core::plan::{PullFault, StepOp};
use podplan_core::request::PlanRequest;
use podplan_core::sim::{Event, Simulation};
use podplan_core::unstable::sim::apply_event;
use podplan_core::Plan;
use serde_json::json;

fn start() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

fn request(images: serde_json::Value) -> PlanRequest {
    let mut value = json!({"pod": {
        "metadata": {"name": "web", "namespace": "default", "uid": "u-1"},
        "spec": {"enableServiceLinks": true, "containers": [
            {"name": "app", "image": "registry.example.com/app:1", "imagePullPolicy": "IfNotPresent"}]}}});
    if !images.is_null() {
        if let Some(o) = value.as_object_mut() {
            o.insert("images".into(), images);
        }
    }
    podplan_core::api::parse_request_value(value).unwrap_or_default()
}

/// One line per sync: seconds since the start, the status at the start of the sync,
/// what the plan does for `app`.
fn line(sim_start: jiff::Timestamp, now: jiff::Timestamp, plan: &Plan) -> String {
    let t = (now.as_second() - sim_start.as_second()).to_string();
    let status = plan.kubectl.as_ref().map_or("", |k| k.status.as_str());
    let mut what: Vec<String> = plan
        .steps
        .iter()
        .filter(|s| s.container() == Some("app"))
        .map(|s| s.op().to_string())
        .collect();
    what.extend(plan.errors.iter().map(|e| e.reason.clone()));
    what.extend(
        plan.held_back
            .iter()
            .map(|h| format!("held {}s", h.delay_seconds)),
    );
    let events: Vec<&str> = plan
        .events
        .iter()
        .filter(|e| e.container.as_deref() == Some("app"))
        .map(|e| e.reason.as_str())
        .collect();
    format!("{t} {status}: {} [{}]", what.join(" "), events.join(","))
}

#[test]
fn a_pull_that_fails_twice_then_succeeds() {
    let mut r = request(json!({"present": {}}));
    r.now = Some(start());
    let note = apply_event(
        &mut r,
        &Event::PullFails {
            image: "registry.example.com/app:1".into(),
            fault: PullFault::NotFound,
            times: Some(2),
        },
    );
    assert_eq!(note, None);
    let mut sim = Simulation::new(r, start());
    sim.tick_seconds = 5;
    let mut lines = Vec::new();
    let mut plans = Vec::new();
    for _ in 0..14 {
        let now = sim.now;
        let plan = sim.sync().unwrap_or_default();
        lines.push(line(start(), now, &plan));
        plans.push(plan);
        if sim.all_running() {
            break;
        }
    }
    assert_eq!(
        lines,
        [
            // A failed pull takes the registry's round trip (0.5 s: the clock moves 1 s),
            // a successful one 1.5 s (2 s): the re-plan comes when the pull is done.
            "0 ContainerCreating: PullImage [Pulling]",
            "1 ContainerCreating: ErrImagePull [Failed,Failed]",
            "6 ErrImagePull: ImagePullBackOff held 10s [BackOff,Failed]",
            "11 ImagePullBackOff: PullImage [Pulling]",
            "12 ImagePullBackOff: ErrImagePull [Failed,Failed]",
            "17 ErrImagePull: ImagePullBackOff held 20s [BackOff,Failed]",
            "22 ImagePullBackOff: ImagePullBackOff held 20s [BackOff,Failed]",
            "27 ImagePullBackOff: ImagePullBackOff held 20s [BackOff,Failed]",
            "32 ImagePullBackOff: PullImage [Pulling]",
            "34 ImagePullBackOff: WriteNodeFiles CreateContainer StartContainer [Pulled,Created,Started]",
        ]
    );
    assert!(sim.all_running());
    // The kubelet's messages.
    let failed = plans
        .get(1)
        .and_then(|p| p.events.iter().find(|e| e.reason == "Failed"))
        .map(|e| e.message.clone())
        .unwrap_or_default();
    assert_eq!(
        failed,
        "Failed to pull image \"registry.example.com/app:1\": rpc error: code = NotFound desc = failed to pull and unpack image \"registry.example.com/app:1\": failed to resolve reference \"registry.example.com/app:1\": registry.example.com/app:1: not found"
    );
    let pulled = plans
        .last()
        .and_then(|p| p.events.iter().find(|e| e.reason == "Pulled"))
        .map(|e| e.message.clone())
        .unwrap_or_default();
    assert!(pulled.starts_with(
        "Successfully pulled image \"registry.example.com/app:1\" in 1.5s (1.5s including waiting). Image size: "
    ));
    // The container runs the pulled image, by its ref.
    let config = plans
        .last()
        .and_then(|p| p.container_configs.first())
        .and_then(|c| c.config.image.clone())
        .unwrap_or_default();
    assert!(config.image.starts_with("sha256:"));
    assert_eq!(config.user_specified_image, "registry.example.com/app:1");
    // The image is in the node's store now; the next start does not pull.
    let present = sim
        .request
        .images
        .as_ref()
        .map(|i| i.present.contains_key("registry.example.com/app:1"));
    assert_eq!(present, Some(true));
}

#[test]
fn the_pull_controls_answer_notes_and_switch_the_manager_on() {
    let mut r = request(serde_json::Value::Null);
    r.now = Some(start());
    assert!(apply_event(
        &mut r,
        &Event::PullFails {
            image: "other:1".into(),
            fault: PullFault::RegistryDown,
            times: None
        }
    )
    .is_some());
    assert!(r.images.is_none());
    assert_eq!(
        apply_event(
            &mut r,
            &Event::PullFails {
                image: "registry.example.com/app:1".into(),
                fault: PullFault::RegistryDown,
                times: None
            }
        ),
        None
    );
    assert!(r.images.is_some());
    // Registry down: every pull fails until it works again.
    let mut sim = Simulation::new(r, start());
    for _ in 0..6 {
        let _ = sim.sync();
    }
    assert!(!sim.all_running());
    let error = sim
        .request
        .reason_cache
        .get("app")
        .map(|e| e.reason.clone());
    assert!(matches!(
        error.as_deref(),
        Some("ErrImagePull" | "ImagePullBackOff")
    ));
    let note = apply_event(
        &mut sim.request,
        &Event::PullWorks {
            image: "registry.example.com/app:1".into(),
        },
    );
    assert_eq!(note, None);
    let plans = sim.run_until_stable(12).unwrap_or_default();
    assert!(sim.all_running());
    assert!(plans
        .iter()
        .any(|p| p.steps.iter().any(|s| s.op() == StepOp::PullImage)));
    // "Registry down" words the error as a failed connection.
    assert!(apply_event(
        &mut sim.request,
        &Event::PullWorks {
            image: "registry.example.com/app:1".into()
        }
    )
    .is_some());
}

#[test]
fn registry_down_text_names_the_registry_host() {
    let text = podplan_core::unstable::sim::fault_text(PullFault::RegistryDown, "nginx");
    assert!(
        text.contains("Head \"https://registry-1.docker.io/v2/library/nginx/manifests/latest\"")
    );
    assert!(text.starts_with("rpc error: code = Unknown desc = failed to pull and unpack image \"docker.io/library/nginx:latest\""));
}

/// A running container whose image was removed exits: the restart pulls; the pull fails.
/// The re-plan continues that start (no second crash-loop check): `ErrImagePull`, then
/// the crash-loop and image back-offs both hold the next starts, crash-loop first.
#[test]
fn a_restart_whose_pull_fails_is_err_image_pull_not_crash_loop() {
    let r = request(json!({"present": {}}));
    let mut sim = Simulation::new(r, start());
    sim.tick_seconds = 5;
    let _ = sim.run_until_stable(6);
    assert!(sim.all_running());
    let image = "registry.example.com/app:1";
    let events = [
        Event::PullFails {
            image: image.into(),
            fault: PullFault::RegistryDown,
            times: None,
        },
        Event::RemoveImage {
            image: image.into(),
        },
        Event::Exit {
            container: "app".into(),
            code: 1,
        },
    ];
    for e in &events {
        assert_eq!(apply_event(&mut sim.request, e), None);
    }
    let t0 = sim.now;
    let mut lines = Vec::new();
    for _ in 0..7 {
        let now = sim.now;
        let plan = sim.sync().unwrap_or_default();
        lines.push(line(t0, now, &plan));
        assert!(
            !plan.warnings.iter().any(|w| w.path == "pullResults"),
            "{:?}",
            plan.warnings
        );
    }
    assert_eq!(
        lines,
        [
            // Each failed pull takes the registry's round trip (the clock moves 1 s).
            "0 Error: PullImage [Pulling]",
            "1 Error: ErrImagePull [Failed,Failed]",
            // Crash-loop back-off (10 s since the exit) comes first in startContainer.
            "6 ErrImagePull: held 10s [BackOff]",
            "11 CrashLoopBackOff: PullImage [Pulling]",
            "12 CrashLoopBackOff: ErrImagePull [Failed,Failed]",
            "17 ErrImagePull: held 20s [BackOff]",
            // The crash-loop back-off (20 s from the exit) is over; the image back-off
            // (20 s from the last failed pull) is not.
            "22 CrashLoopBackOff: ImagePullBackOff held 20s [BackOff,Failed]",
        ]
    );
}
