//! Convergence: carrying out each plan in the model runtime (`podplan_core::sim`) brings
//! every pod shape to a fixpoint within a bounded number of syncs, and `Always` pods end
//! with every regular container and sidecar running.

use podplan_core::plan::StepOp;
use podplan_core::request::PlanRequest;
use podplan_core::runtime::{ContainerState, SandboxState};
use podplan_core::sim::Simulation;
use podplan_core::unstable::sim::script;
use podplan_core::Plan;
use serde_json::{json, Value};

const MAX_SYNCS: usize = 12;

fn start() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

fn request(mut spec: Value) -> PlanRequest {
    // The API server defaults enableServiceLinks; without it no container config can be built.
    if let Some(obj) = spec.as_object_mut() {
        obj.entry("enableServiceLinks").or_insert(Value::Bool(true));
    }
    let value = json!({"pod": {"metadata": {"name": "web", "namespace": "default", "uid": "u-1"}, "spec": spec}});
    podplan_core::api::parse_request_value(value).unwrap_or_default()
}

fn converge(sim: &mut Simulation) -> Vec<Plan> {
    let plans = sim.run_until_stable(MAX_SYNCS).unwrap_or_default();
    assert!(
        plans.len() < MAX_SYNCS,
        "no fixpoint after {MAX_SYNCS} syncs; last plan: {:?}",
        plans.last().map(podplan_core::explain::to_text)
    );
    plans
}

/// The CRI calls of a plan (its `WriteNodeFiles` steps left out).
fn ops(plan: &Plan) -> Vec<String> {
    plan.steps
        .iter()
        .filter(|s| s.op() != podplan_core::plan::StepOp::WriteNodeFiles)
        .map(|s| {
            format!(
                "{}{}",
                s.op(),
                s.container().map(|c| format!(" {c}")).unwrap_or_default()
            )
        })
        .collect()
}

fn statuses(sim: &Simulation) -> Vec<(String, ContainerState)> {
    sim.request
        .runtime_status
        .as_ref()
        .map(|s| {
            s.container_statuses
                .iter()
                .map(|c| (c.name.clone(), c.state))
                .collect()
        })
        .unwrap_or_default()
}

fn sandbox_attempt(sim: &Simulation) -> Option<u32> {
    sim.request
        .runtime_status
        .as_ref()
        .and_then(|s| s.sandbox_statuses.first())
        .filter(|s| s.state == SandboxState::Ready)
        .and_then(|s| s.metadata.as_ref())
        .map(|m| m.attempt)
}

#[test]
fn plain_pod_starts_everything_in_one_sync() {
    let mut sim = Simulation::new(
        request(
            json!({"containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "redis"}]}),
        ),
        start(),
    );
    let plans = converge(&mut sim);
    assert_eq!(plans.len(), 2);
    assert_eq!(
        plans.first().map(ops).unwrap_or_default(),
        vec![
            "KillPod",
            "RunPodSandbox",
            "CreateContainer a",
            "StartContainer a",
            "CreateContainer b",
            "StartContainer b"
        ]
    );
    assert!(plans
        .last()
        .is_some_and(|p| p.steps.is_empty() && p.events.is_empty()));
    assert!(sim.all_running());
    assert_eq!(sandbox_attempt(&sim), Some(0));
}

#[test]
fn init_containers_then_sidecars_then_regular() {
    let spec = json!({
        "initContainers": [
            {"name": "migrate", "image": "tool"},
            {"name": "proxy", "image": "envoy", "restartPolicy": "Always",
             "startupProbe": {"exec": {"command": ["true"]}}, "livenessProbe": {"exec": {"command": ["true"]}}},
            {"name": "log", "image": "fluent", "restartPolicy": "Always"}
        ],
        "containers": [{"name": "app", "image": "nginx"}]
    });
    let mut sim = Simulation::new(request(spec), start());
    let plans = converge(&mut sim);
    assert!(sim.all_running());
    // One init container per sync until the pod is initialised, then the regular container.
    let started: Vec<Vec<String>> = plans
        .iter()
        .map(|p| {
            p.steps
                .iter()
                .filter(|s| s.op() == StepOp::StartContainer)
                .filter_map(|s| s.container().map(str::to_string))
                .collect()
        })
        .collect();
    assert_eq!(
        started,
        vec![
            vec!["migrate"],
            vec!["proxy"],
            vec!["log"],
            vec!["app"],
            vec![]
        ]
        .into_iter()
        .map(|v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>())
        .collect::<Vec<_>>()
    );
    let migrate = statuses(&sim).into_iter().find(|(n, _)| n == "migrate");
    assert_eq!(migrate.map(|(_, s)| s), Some(ContainerState::Exited));
}

#[test]
fn sidecar_waits_for_its_startup_probe() {
    let spec = json!({
        "initContainers": [{"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                            "startupProbe": {"exec": {"command": ["true"]}}}],
        "containers": [{"name": "app", "image": "nginx"}]
    });
    let mut sim = Simulation::new(request(spec), start());
    sim.behaviour.pass_probes = false;
    let plans = sim.run_until_stable(4).unwrap_or_default();
    // Without a startup result the regular container never starts.
    assert!(!sim.all_running());
    assert!(plans.last().is_some_and(|p| p
        .decisions
        .iter()
        .any(|d| d.reason == "WaitingForStartupProbe")));
    sim.behaviour.pass_probes = true;
    converge(&mut sim);
    assert!(sim.all_running());
}

#[test]
fn dead_sandbox_is_recreated_and_everything_restarts() {
    let spec = json!({
        "initContainers": [{"name": "setup", "image": "tool"}, {"name": "proxy", "image": "envoy", "restartPolicy": "Always"}],
        "containers": [{"name": "app", "image": "nginx"}]
    });
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    assert_eq!(sandbox_attempt(&sim), Some(0));
    let now = sim.now;
    script::kill_sandbox(&mut sim.request, now);
    let plans = converge(&mut sim);
    let first = plans.first();
    assert!(first
        .is_some_and(|p| p.actions.kill_pod && p.actions.create_sandbox && p.actions.attempt == 1));
    assert!(first.is_some_and(|p| p.events.iter().any(|e| e.reason == "SandboxChanged")));
    assert!(sim.all_running());
    assert_eq!(sandbox_attempt(&sim), Some(1));
}

#[test]
fn completed_job_is_killed_and_stays_down() {
    let spec =
        json!({"restartPolicy": "OnFailure", "containers": [{"name": "job", "image": "batch"}]});
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let now = sim.now;
    assert!(script::exit_container(&mut sim.request, "job", 0, now));
    let plans = converge(&mut sim);
    assert!(plans
        .first()
        .is_some_and(|p| p.actions.kill_pod && !p.actions.create_sandbox));
    assert!(plans
        .iter()
        .all(|p| p.actions.containers_to_start.is_empty()));
    assert_eq!(
        statuses(&sim),
        vec![("job".to_string(), ContainerState::Exited)]
    );
}

#[test]
fn failed_job_is_retried_under_on_failure() {
    let spec =
        json!({"restartPolicy": "OnFailure", "containers": [{"name": "job", "image": "batch"}]});
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let now = sim.now;
    assert!(script::exit_container(&mut sim.request, "job", 3, now));
    let plans = converge(&mut sim);
    assert!(plans
        .first()
        .is_some_and(|p| p.actions.containers_to_start == vec![0]));
    assert!(sim.all_running());
}

#[test]
fn crash_loop_back_off_grows() {
    let spec = json!({"containers": [{"name": "app", "image": "crashy"}]});
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let mut delays = Vec::new();
    let mut held = 0;
    for _ in 0..30 {
        let now = sim.now;
        script::exit_container(&mut sim.request, "app", 1, now);
        let Ok(plan) = sim.sync() else { break };
        if plan.held_back.is_empty() {
            delays.push(plan.backoff.first().map_or(0, |r| r.delay_seconds));
        } else {
            held += 1;
            assert!(plan
                .events
                .iter()
                .any(|e| e.reason == "BackOff" && e.kind == "Warning"));
            assert!(!plan.steps.iter().any(|s| s.op() == StepOp::CreateContainer));
            assert_eq!(plan.actions.containers_to_start, vec![0]);
        }
    }
    assert_eq!(
        delays.iter().take(5).copied().collect::<Vec<_>>(),
        vec![10, 20, 40, 80, 160]
    );
    assert!(held > 0);
}

#[test]
fn restart_all_containers_resets_then_reinitialises() {
    let spec = json!({
        "initContainers": [{"name": "setup", "image": "tool"}],
        "containers": [{"name": "app", "image": "nginx",
            "restartPolicy": "Never",
            "restartPolicyRules": [{"action": "RestartAllContainers", "exitCodes": {"operator": "In", "values": [42]}}]},
            {"name": "helper", "image": "busybox"}]
    });
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let now = sim.now;
    assert!(script::exit_container(&mut sim.request, "app", 42, now));
    script::begin_restart_all(&mut sim.request);
    let plans = converge(&mut sim);
    let first = plans.first();
    let reset: Vec<(String, bool)> = first
        .map(|p| {
            p.actions
                .containers_to_reset
                .iter()
                .map(|r| (r.name.clone(), r.kill))
                .collect()
        })
        .unwrap_or_default();
    // Targets (regular, then init) first; the exited source last.
    assert_eq!(
        reset,
        vec![
            ("helper".to_string(), true),
            ("setup".to_string(), false),
            ("app".to_string(), false)
        ]
    );
    assert!(!sim.request.restart_all_containers);
    assert!(sim.all_running());
    // Initialisation ran again after the reset.
    assert!(plans
        .iter()
        .any(|p| p.actions.init_containers_to_start == vec![0]));
}

#[test]
fn ephemeral_container_runs_once() {
    let spec = json!({
        "containers": [{"name": "app", "image": "nginx"}],
        "ephemeralContainers": [{"name": "debug", "image": "busybox"}]
    });
    let mut sim = Simulation::new(request(spec), start());
    let plans = converge(&mut sim);
    assert!(plans
        .iter()
        .any(|p| p.actions.ephemeral_containers_to_start == vec![0]));
    let now = sim.now;
    assert!(script::exit_container(&mut sim.request, "debug", 0, now));
    let plans = converge(&mut sim);
    assert_eq!(plans.len(), 1);
    assert!(plans
        .iter()
        .all(|p| p.actions.ephemeral_containers_to_start.is_empty()));
}

#[test]
fn image_change_restarts_the_container() {
    let mut sim = Simulation::new(
        request(json!({"containers": [{"name": "app", "image": "nginx:1"}]})),
        start(),
    );
    converge(&mut sim);
    if let Some(c) = sim
        .request
        .pod
        .spec
        .as_mut()
        .and_then(|s| s.containers.first_mut())
    {
        c.image = Some("nginx:2".into());
    }
    let plans = converge(&mut sim);
    let first = plans.first();
    assert!(first.is_some_and(|p| p
        .actions
        .containers_to_kill
        .values()
        .any(|k| k.message == "Container app definition changed, will be restarted")));
    assert!(sim.all_running());
    let image = sim
        .request
        .runtime_status
        .as_ref()
        .and_then(|s| s.container_statuses.first())
        .map(|s| s.image.clone());
    // As containerd reports it: the image's normalised tag.
    assert_eq!(image.as_deref(), Some("docker.io/library/nginx:2"));
}

#[test]
fn resize_in_place_and_with_restart() {
    let spec = json!({"containers": [
        {"name": "a", "image": "nginx", "resources": {"limits": {"cpu": "100m", "memory": "64Mi"}}},
        {"name": "b", "image": "nginx", "resources": {"limits": {"cpu": "100m"}},
         "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}
    ]});
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let ids_before = statuses_ids(&sim);
    if let Some(s) = sim.request.pod.spec.as_mut() {
        for c in &mut s.containers {
            if let Some(l) = c.resources.as_mut().and_then(|r| r.limits.as_mut()) {
                l.insert(
                    "cpu".into(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("50m".into()),
                );
            }
        }
    }
    let plans = converge(&mut sim);
    let first = plans.first();
    let cpu_updates: Vec<String> = first
        .and_then(|p| p.actions.containers_to_update.as_ref())
        .and_then(|m| m.get("cpu"))
        .map(|l| l.iter().map(|u| u.name.clone()).collect())
        .unwrap_or_default();
    assert_eq!(cpu_updates, vec!["a"]);
    assert!(first.is_some_and(
        |p| p.actions.containers_to_start == vec![1] && p.actions.update_pod_resources
    ));
    assert!(sim.all_running());
    let ids_after = statuses_ids(&sim);
    // `a` kept its container; `b` was replaced.
    let id_of = |ids: &[(String, String)], name: &str| {
        ids.iter()
            .find(|(n, _)| n == name)
            .map(|(_, id)| id.clone())
    };
    assert!(id_of(&ids_before, "a").is_some());
    assert_eq!(id_of(&ids_after, "a"), id_of(&ids_before, "a"));
    assert_ne!(id_of(&ids_after, "b"), id_of(&ids_before, "b"));
    assert!(plans.len() <= 3);
}

/// The running containers' names and ids.
fn statuses_ids(sim: &Simulation) -> Vec<(String, String)> {
    sim.request
        .runtime_status
        .as_ref()
        .map(|s| {
            s.container_statuses
                .iter()
                .filter(|c| c.state == ContainerState::Running)
                .map(|c| (c.name.clone(), c.id.clone()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn pod_level_resources_resize_in_place() {
    let spec = json!({"resources": {"limits": {"cpu": "1", "memory": "256Mi"}},
                      "containers": [{"name": "a", "image": "nginx"}]});
    let mut sim = Simulation::new(request(spec), start());
    assert_eq!(converge(&mut sim).len(), 2);
    if let Some(r) = sim
        .request
        .pod
        .spec
        .as_mut()
        .and_then(|s| s.resources.as_mut())
    {
        r.limits = Some(
            [(
                "cpu".to_string(),
                k8s_openapi::apimachinery::pkg::api::resource::Quantity("2".into()),
            )]
            .into(),
        );
    }
    let plans = converge(&mut sim);
    let first = plans.first();
    assert!(first.is_some_and(|p| p.actions.update_pod_level_resources));
    // The container inherits the pod-level limit, so it is resized in place too.
    assert!(first.is_some_and(|p| p
        .steps
        .iter()
        .any(|s| s.op() == StepOp::UpdateContainerResources && s.container() == Some("a"))));
    assert!(plans.len() <= 3);
    assert!(sim.all_running());
}

/// (phase, kubectl STATUS, READY) of each plan's status: the start of each sync.
fn seen(plans: &[Plan]) -> Vec<(String, String, String)> {
    plans
        .iter()
        .map(|p| {
            let phase = p
                .status
                .as_ref()
                .and_then(|s| s.phase.clone())
                .unwrap_or_default();
            let row = p.kubectl.clone().unwrap_or_default();
            (phase, row.status, row.ready)
        })
        .collect()
}

fn triple(phase: &str, status: &str, ready: &str) -> (String, String, String) {
    (phase.into(), status.into(), ready.into())
}

#[test]
fn never_pod_that_exits_0_goes_pending_running_succeeded() {
    let spec = json!({"restartPolicy": "Never", "containers": [{"name": "job", "image": "batch"}]});
    let mut sim = Simulation::new(request(spec), start());
    let mut plans = converge(&mut sim);
    let now = sim.now;
    assert!(script::exit_container(&mut sim.request, "job", 0, now));
    plans.extend(converge(&mut sim));
    let mut phases: Vec<(String, String, String)> = seen(&plans);
    phases.dedup();
    assert_eq!(
        phases,
        vec![
            triple("Pending", "ContainerCreating", "0/1"),
            triple("Running", "Running", "1/1"),
            triple("Succeeded", "Completed", "0/1"),
        ]
    );
    let last = plans.last().and_then(|p| p.status.as_ref());
    let ready = last
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| c.iter().find(|c| c.type_ == "Ready"))
        .and_then(|c| c.reason.clone());
    assert_eq!(ready.as_deref(), Some("PodCompleted"));
}

#[test]
fn never_pod_that_fails_ends_failed_with_error() {
    let spec = json!({"restartPolicy": "Never", "containers": [{"name": "job", "image": "batch"}]});
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let now = sim.now;
    assert!(script::exit_container(&mut sim.request, "job", 2, now));
    let plans = converge(&mut sim);
    assert_eq!(
        seen(&plans).first(),
        Some(&triple("Failed", "Error", "0/1"))
    );
}

#[test]
fn crash_loop_shows_crash_loop_back_off_while_running_and_then_running_again() {
    let spec = json!({"containers": [{"name": "app", "image": "crashy"}]});
    let mut sim = Simulation::new(request(spec), start());
    converge(&mut sim);
    let mut rows = Vec::new();
    for _ in 0..8 {
        let now = sim.now;
        script::exit_container(&mut sim.request, "app", 1, now);
        // Syncs until the container runs again, as the kubelet would (every 10 s).
        for _ in 0..40 {
            let Ok(plan) = sim.sync() else { break };
            let row = plan.kubectl.clone().unwrap_or_default();
            let phase = plan.status.as_ref().and_then(|s| s.phase.clone());
            rows.push((phase.unwrap_or_default(), row.status, row.restarts));
            if sim.all_running() {
                break;
            }
        }
        // The sync after the restart reports the new instance.
        if let Ok(plan) = sim.sync() {
            let row = plan.kubectl.clone().unwrap_or_default();
            let phase = plan.status.as_ref().and_then(|s| s.phase.clone());
            rows.push((phase.unwrap_or_default(), row.status, row.restarts));
        }
    }
    // The phase never leaves Running: a crash-looping container counts as stopped, and
    // the pod restarts it.
    assert!(
        rows.iter().all(|(phase, _, _)| phase == "Running"),
        "{rows:?}"
    );
    let crash = rows
        .iter()
        .position(|(_, status, _)| status == "CrashLoopBackOff");
    let Some(crash) = crash else {
        panic!("no CrashLoopBackOff row in {rows:?}");
    };
    // Restarts carry "(X ago)" once the container has a last termination.
    assert!(rows[crash].2.contains(" ago)"), "{rows:?}");
    // After the back-off the container runs again and the row says so.
    assert!(
        rows[crash..]
            .iter()
            .any(|(_, status, _)| status == "Running"),
        "{rows:?}"
    );
}

#[test]
fn status_follows_init_containers_and_sidecar_startup() {
    let spec = json!({
        "initContainers": [
            {"name": "init", "image": "busybox"},
            {"name": "proxy", "image": "envoy", "restartPolicy": "Always",
             "startupProbe": {"exec": {"command": ["true"]}}}
        ],
        "containers": [{"name": "app", "image": "nginx",
                        "readinessProbe": {"exec": {"command": ["true"]}}}]
    });
    let mut sim = Simulation::new(request(spec), start());
    let plans = converge(&mut sim);
    let mut statuses: Vec<String> = seen(&plans).into_iter().map(|(_, s, _)| s).collect();
    statuses.dedup();
    assert_eq!(statuses.first().map(String::as_str), Some("Init:0/2"));
    assert!(statuses.iter().any(|s| s == "Init:1/2"), "{statuses:?}");
    assert_eq!(statuses.last().map(String::as_str), Some("Running"));
    let last = plans
        .last()
        .and_then(|p| p.kubectl.clone())
        .unwrap_or_default();
    assert_eq!(last.ready, "2/2");
}
