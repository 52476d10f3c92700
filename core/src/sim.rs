//! A small, pure model of a container runtime, for demos and convergence tests.
//!
//! `Runtime` (`sim/runtime.rs`) is the per-pod view of a [`node::Node`] — the CRI-level
//! model the agent's simulated runtime serves — plus the kubelet's actuated-resources checkpoint;
//! `Runtime::apply_step` turns one [`Step`](crate::plan::Step) into the CRI calls the
//! kubelet issues for it on that node. Carrying out all of a plan's
//! [`steps`](crate::plan::Plan::steps) against the request's runtime status (which the
//! node adopts) gives what the runtime (and the kubelet's checkpoints) would report next;
//! [`next_request_with`] makes the next sync's request of it. Everything is deterministic:
//! there is no randomness and no I/O. A CRI call the node refuses changes nothing (the
//! next sync sees the state as it is); the model injects no runtime errors of its own.
//!
//! One id scheme, one image store, one clock: ids are containerd's shape — 64
//! hexadecimal digits derived from the object's reserved name (`name_namespace_uid_attempt`
//! for a sandbox, `name_podName_namespace_uid_attempt` for a container) and its creation
//! time, container ids in the kubelet's form `sim://<id>`; images have the ids, digests
//! and normalised names of the node's store.
//!
//! * `RunPodSandbox` adds a `SANDBOX_READY` sandbox with an IP (the sandbox of attempt
//!   `n` gets `10.88.{n/250}.{n%250+2}`; none for `hostNetwork` pods) as the newest.
//! * `KillPod` runs the preStop hooks, then `StopContainer` for every running container
//!   with what is left of its grace period as timeout, then `StopPodSandbox` for every
//!   sandbox; `KillContainer` does it for one container. As containerd's `StopContainer`
//!   (SIGTERM, SIGKILL at the timeout): a container that exits within the timeout
//!   reports exit code 143 (`SIGTERM_EXIT_CODE`), one still running at the timeout 137
//!   (`KILLED_EXIT_CODE`), both with reason `Error`; how long a container takes to exit
//!   is [`HookControls::exit_seconds`] (at once by default). A created container is left
//!   as it is.
//! * `RemoveContainer` / `RemovePodSandbox` remove what they name (a sandbox with its
//!   containers, as containerd does).
//! * `CreateContainer` + `StartContainer` add a running container with the kubelet's
//!   hash, the restart count, `createdAt`/`startedAt` = `now`, newest first, the image's
//!   normalised tag (containerd 1.6 ignores `userSpecifiedImage`), its id as `imageId` and
//!   its repository digest as `imageRef`, and record the container's resources as
//!   actuated. Creation times within one instant are ordered by operation, and always
//!   after every instance the runtime already has (a restart with no time passed since
//!   the previous sync is still the newest), as real clocks make them; the API status
//!   reports the newest instance by creation time. A start in a sandbox that is not
//!   ready is refused, as containerd refuses it.
//! * `UpdateContainerResources` / `UpdatePodSandboxResources` update the actuated
//!   resources checkpoint.
//! * `PullImage` is the node's `PullImage`: it stores the image (or fails as the scripted
//!   registry says) and takes the pull's time (`images::PULL_MILLIS`, or what
//!   [`HookControls::pull_seconds`] says; `images::FAILED_PULL_MILLIS` for a failure):
//!   what follows it, and the next sync, happen that much later
//!   (the outcome's `blocked_millis`).
//!
//! [`Simulation`] loops plan → apply → advance the clock, and the `script` helpers inject
//! what happens between syncs (a container exits, the sandbox dies, a probe reports).
//!
//! ```
//! use podplan_core::sim::Simulation;
//! let request = podplan_core::api::parse_request(br#"{"pod": {"metadata": {"name": "web", "uid": "u1"},
//!     "spec": {"enableServiceLinks": true, "containers": [{"name": "app", "image": "nginx"}]}}}"#).unwrap();
//! let start: jiff::Timestamp = "2025-01-01T00:00:00Z".parse().unwrap();
//! let mut sim = Simulation::new(request, start);
//! let plans = sim.run_until_stable(5).unwrap();
//! assert_eq!(plans.len(), 2); // create everything, then a sync with nothing to do
//! assert!(sim.all_running());
//! ```

pub(crate) mod event;
pub(crate) mod hooks;
pub(crate) mod images;
mod model;
pub mod node;
mod probes;
mod runtime;
pub(crate) mod script;
mod simulation;
mod sync;
pub use event::{apply_event_with, Event};
pub use hooks::HookControls;
pub use probes::ProbeKind;
pub(crate) use runtime::Runtime;
pub use simulation::{Behaviour, Simulation};
pub use sync::next_request_with;
pub(crate) use sync::{next_request_timed, relist_changed};

#[cfg(test)]
mod tests {
    use super::sync::apply_with;
    use super::*;
    use crate::api::parse_request;
    use crate::hash::container_hash;
    use crate::plan::{Plan, StepOp};
    use crate::request::{PlanRequest, ProbeResult};
    use crate::runtime::{ContainerState, RuntimeStatus, SandboxState};

    fn t0() -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    #[test]
    fn the_per_pod_model_and_the_node_derive_the_same_ids() {
        use crate::cri::{
            ContainerConfig, ContainerMetadata, ImageSpec, PodSandboxConfig, PodSandboxMetadata,
        };
        use crate::plan::{RunPodSandboxStep, StartContainerStep, Step};
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "web", "namespace": "ns", "uid": "u1"},
                 "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}"#,
        ) else {
            panic!("bad request");
        };
        // The per-pod model, driven by plan steps.
        let mut runtime = Runtime::from_request(&request);
        let steps = [
            Step::RunPodSandbox(RunPodSandboxStep {
                attempt: Some(0),
                ..Default::default()
            }),
            Step::CreateContainer(crate::plan::CreateContainerStep {
                kind: Some(crate::plan::ContainerKind::Regular),
                index: Some(0),
                ..Default::default()
            }),
            Step::StartContainer(StartContainerStep {
                container: Some("app".into()),
                ..Default::default()
            }),
        ];
        for step in &steps {
            runtime.apply_step(&request.pod, step, t0());
        }
        // The node, driven by the same CRI calls.
        let mut node = node::Node::new(
            node::DEFAULT_RUNTIME_NAME,
            node::Scenario {
                images: node::ImagesScript {
                    preloaded: vec!["nginx".into()],
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        let sandbox = PodSandboxConfig {
            metadata: Some(PodSandboxMetadata {
                name: "web".into(),
                uid: "u1".into(),
                namespace: "ns".into(),
                attempt: 0,
            }),
            ..Default::default()
        };
        let Ok(sandbox_id) = node.run_pod_sandbox(&sandbox, "", t0()) else {
            panic!("RunPodSandbox failed");
        };
        let config = ContainerConfig {
            metadata: Some(ContainerMetadata {
                name: "app".into(),
                attempt: 0,
            }),
            image: Some(ImageSpec {
                image: "nginx".into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let Ok(container_id) = node.create_container(&sandbox_id, &config, t0()) else {
            panic!("CreateContainer failed");
        };
        assert_eq!(node.start_container(&container_id, t0()), Ok(()));
        let (ours, theirs) = (runtime.status(), node.pod_status("u1").unwrap_or_default());
        let ids = |s: &RuntimeStatus| {
            (
                s.sandbox_statuses.first().map(|s| s.id.clone()),
                s.container_statuses.first().map(|c| c.id.clone()),
                s.container_statuses.first().and_then(|c| c.created_at),
                s.container_statuses.first().map(|c| c.image_id.clone()),
            )
        };
        assert_eq!(ids(&ours), ids(&theirs));
        let (Some(sandbox), Some(container)) = (ids(&ours).0, ids(&ours).1) else {
            panic!("no sandbox or container: {ours:?}");
        };
        assert_eq!(sandbox.len(), 64);
        assert!(container.starts_with("sim://") && container.len() == 6 + 64);
    }

    #[test]
    fn creates_a_ready_sandbox_and_running_containers_newest_first() {
        let request = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "y"}]}}}"#,
        );
        let Ok(request) = request else {
            panic!("bad request");
        };
        let Ok(plan) = crate::plan(&request) else {
            panic!("no plan");
        };
        let out = apply_with(&request, &plan, t0(), &HookControls::default());
        let sandbox = out.runtime_status.sandbox_statuses.first();
        assert_eq!(sandbox.map(|s| s.state), Some(SandboxState::Ready));
        assert!(sandbox
            .and_then(|s| s.network.as_ref())
            .is_some_and(|n| !n.ip.is_empty()));
        let names: Vec<&str> = out
            .runtime_status
            .container_statuses
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(names, vec!["b", "a"]);
        let a = out.runtime_status.container_statuses.get(1);
        assert_eq!(a.map(|s| s.hash), Some(container_hash("a", "x")));
        assert_eq!(a.map(|s| s.state), Some(ContainerState::Running));
        // Deterministic.
        assert_eq!(
            apply_with(&request, &plan, t0(), &HookControls::default()),
            out
        );
    }

    /// A one-container pod synced `syncs` times, its container exiting 1 after each
    /// sync, with no time passing between the syncs.
    fn crash_loop_at_one_instant(syncs: usize) -> PlanRequest {
        let Ok(mut request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "restartPolicy": "Always",
                          "containers": [{"name": "a", "image": "x"}]}}}"#,
        ) else {
            panic!("bad request");
        };
        for _ in 0..syncs {
            let Ok(plan) = crate::plan(&request) else {
                panic!("no plan");
            };
            request = next_request_with(&request, &plan, t0(), &HookControls::default());
            script::exit_container(&mut request, "a", 1, t0());
        }
        request
    }

    #[test]
    fn instances_created_at_the_same_instant_get_distinct_ids() {
        // Exit and restart without the clock moving between syncs.
        let request = crash_loop_at_one_instant(3);
        let ids: Vec<&str> = request
            .runtime_status
            .iter()
            .flat_map(|s| s.container_statuses.iter().map(|c| c.id.as_str()))
            .collect();
        let unique: std::collections::BTreeSet<&str> = ids.iter().copied().collect();
        assert!(ids.len() >= 2, "{ids:?}");
        assert_eq!(unique.len(), ids.len(), "{ids:?}");
        assert!(crate::plan(&request).is_ok());
    }

    #[test]
    fn a_restart_at_the_same_instant_is_the_newest_instance() {
        // Start, exit, restart at once, exit: no time passes between the syncs.
        let request = crash_loop_at_one_instant(2);
        let statuses = request
            .runtime_status
            .as_ref()
            .map_or(&[][..], |s| s.container_statuses.as_slice());
        let (Some(newest), Some(older)) = (statuses.first(), statuses.get(1)) else {
            panic!("two instances expected: {statuses:?}");
        };
        assert_eq!((newest.restart_count, older.restart_count), (1, 0));
        assert!(newest.created_at > older.created_at, "{statuses:?}");
        // The API status reports the newest instance, as the kubelet does.
        let Ok(plan) = crate::plan(&request) else {
            panic!("no plan");
        };
        let api = plan
            .status
            .as_ref()
            .and_then(|s| s.container_statuses.as_ref())
            .and_then(|l| l.first());
        assert_eq!(api.map(|c| c.restart_count), Some(1));
        assert_eq!(
            api.and_then(|c| c.container_id.as_deref()),
            Some(newest.id.as_str())
        );
    }

    #[test]
    fn scripted_exit_is_restarted_after_back_off() {
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x"}]}}}"#,
        ) else {
            panic!("bad request");
        };
        let mut sim = Simulation::new(request, t0());
        assert!(sim.run_until_stable(3).is_ok());
        assert!(sim.all_running());
        let now = sim.now;
        assert!(script::exit_container(&mut sim.request, "a", 1, now));
        assert!(!sim.all_running());
        // First restart goes through immediately (back-off starts at 10 s)...
        let first = sim.sync();
        assert!(first.is_ok_and(|p| p.held_back.is_empty()));
        assert!(sim.all_running());
        // ...the second exit right after is held back.
        let now = sim.now;
        assert!(script::exit_container(&mut sim.request, "a", 1, now));
        let second = sim.sync();
        assert!(second.is_ok_and(|p| p.held_back.len() == 1));
    }

    /// A pod whose image is not on the node yet (the image manager on).
    fn pulling() -> PlanRequest {
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x:1"}]}},
                 "images": {"present": {}}, "now": "2025-06-15T15:06:40Z"}"#,
        ) else {
            panic!("bad request");
        };
        request
    }

    fn pull_plan(request: &PlanRequest) -> Plan {
        let Ok(plan) = crate::plan(request) else {
            panic!("no plan");
        };
        assert!(
            plan.steps.iter().any(|s| s.op() == StepOp::PullImage),
            "{:?}",
            plan.steps
        );
        plan
    }

    #[test]
    fn a_pull_takes_its_time() {
        let request = pulling();
        let plan = pull_plan(&request);
        let now = request.now.unwrap_or(t0());
        let hooks = HookControls::default();
        let (next, blocked) = next_request_timed(&request, &plan, now, &hooks);
        assert_eq!(blocked, images::PULL_MILLIS);
        assert_eq!(
            next.pull_results.first().map(|r| r.result.pull_millis),
            Some(images::PULL_MILLIS)
        );
        // A pull the world says takes 40 s.
        let mut slow = HookControls::default();
        slow.pull_seconds.insert("x:1".into(), 40);
        let (next, blocked) = next_request_timed(&request, &plan, now, &slow);
        assert_eq!(blocked, 40_000);
        assert_eq!(
            next.pull_results.first().map(|r| r.result.pull_millis),
            Some(40_000)
        );
        // A failed pull takes the registry's round trip.
        let mut failing = request.clone();
        let note = images::set_fault(&mut failing, "x:1", crate::plan::PullFault::NotFound, None);
        assert_eq!(note, None);
        let (_, blocked) = next_request_timed(&failing, &pull_plan(&failing), now, &slow);
        assert_eq!(blocked, images::FAILED_PULL_MILLIS);
    }

    #[test]
    fn the_simulation_clock_moves_by_the_pull() {
        let request = pulling();
        let start = request.now.unwrap_or(t0());
        let mut sim = Simulation::new(request, start);
        assert!(sim
            .event(&Event::PullTakes {
                image: "x:1".into(),
                seconds: 12
            })
            .is_none());
        let Ok(plan) = sim.sync() else {
            panic!("no plan");
        };
        assert!(plan.steps.iter().any(|s| s.op() == StepOp::PullImage));
        // The re-plan that creates the container comes when the pull is done.
        assert_eq!(sim.now.as_second() - start.as_second(), 12);
        assert!(sim.sync().is_ok());
        assert!(sim.all_running());
        let app = sim
            .request
            .runtime_status
            .as_ref()
            .and_then(|s| s.container_statuses.first())
            .and_then(|c| c.created_at);
        assert_eq!(app.map(|t| t.as_second() - start.as_second()), Some(12));
    }

    #[test]
    fn a_probe_failure_moves_the_simulation_clock() {
        let Ok(request) = parse_request(
            br#"{"pod": {"metadata": {"name": "p", "uid": "u"},
                 "spec": {"enableServiceLinks": true, "containers": [{"name": "a", "image": "x",
                   "livenessProbe": {"exec": {"command": ["true"]}, "periodSeconds": 10, "failureThreshold": 3}}]}}}"#,
        ) else {
            panic!("bad request");
        };
        let mut sim = Simulation::new(request, t0());
        assert!(sim.run_until_stable(3).is_ok());
        let before = sim.now;
        let failure = Event::Probe {
            container: "a".into(),
            probe: ProbeKind::Liveness,
            result: ProbeResult::Failure,
        };
        assert_eq!(sim.event(&failure), None);
        assert_eq!(sim.now.as_second() - before.as_second(), 30);
        // The kill comes at the recorded failure, not before.
        let Ok(plan) = sim.sync() else {
            panic!("no plan");
        };
        assert_eq!(plan.actions.containers_to_kill.len(), 1);
        assert_eq!(
            sim.request
                .runtime_status
                .as_ref()
                .and_then(|s| {
                    s.container_statuses
                        .iter()
                        .find(|c| c.state == ContainerState::Exited)
                })
                .and_then(|c| c.finished_at)
                .map(|t| t.as_second() - before.as_second()),
            Some(30)
        );
    }
}
