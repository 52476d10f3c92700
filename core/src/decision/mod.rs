//! `computePodActions`: what the kubelet does with the pod on this sync, and why.
//!
//! [`decide`] fills [`Plan::actions`] exactly as the 1.37 kubelet fills `podActions`, and
//! [`Plan::decisions`] with one entry per action (plus notable non-actions such as a kept
//! container or a wait for a sidecar's startup probe). The decision actions are listed
//! once, in [`crate::plan::Action`].
//!
//! The flow (`kuberuntime_manager.go`):
//! 1. [`sandbox`]: `PodSandboxChanged` sets killPod / createSandbox / attempt.
//! 2. [`restart_all`]: the RestartAllContainers path returns early.
//! 3. Sandbox (re)creation returns early with the first init container or the regular
//!    containers to start.
//! 4. [`ephemeral`] starts, then [`init`] (`computeInitContainerActions`), then
//!    [`regular`] containers, with [`resize`] decisions along the way.

pub(crate) mod effect;
pub(crate) mod ephemeral;
pub(crate) mod init;
pub(crate) mod regular;
pub(crate) mod resize;
pub(crate) mod restart_all;
pub(crate) mod sandbox;

mod ctx;

use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::restart;
use crate::plan::{Action, Plan, Warning};
use crate::request::PlanRequest;
use sandbox::SandboxChangeReason;

pub(crate) use ctx::{note, Ctx, SpecHashes};

/// Computes the pod actions (and their reasons) for a validated request.
///
/// ```
/// let request = podplan_core::api::parse_request(br#"{"pod": {"spec": {"containers": [{"name": "app", "image": "nginx"}]}}}"#).unwrap();
/// let plan = podplan_core::generators::decide(&request, &Default::default());
/// assert!(plan.actions.create_sandbox && plan.actions.kill_pod);
/// assert_eq!(plan.actions.containers_to_start, vec![0]);
/// assert_eq!(plan.decisions[0].reason, "NoSandbox");
/// ```
pub fn decide(request: &PlanRequest, gates: &FeatureGates) -> Plan {
    let Some(mut ctx) = Ctx::new(request, gates) else {
        return Plan::default();
    };
    let hashes = SpecHashes::of_running(ctx.spec, &ctx.status);
    ctx.hashes = Some(&hashes);
    decide_in(&ctx)
}

/// [`decide`] in a context already built (the one [`crate::steps::build_in`] then uses).
pub(crate) fn decide_in(ctx: &Ctx<'_>) -> Plan {
    let mut plan = Plan::default();
    if !ctx.gates.enabled(Gate::SidecarContainers) {
        plan.warnings.push(Warning {
            path: "featureGates.SidecarContainers".into(),
            message: "SidecarContainers=false: the 1.37 kubelet has no code path without sidecars (the gate is GA and removed); init containers with restartPolicy Always are still treated as sidecars".into(),
        });
    }
    compute(ctx, &mut plan);
    plan
}

fn compute(ctx: &Ctx<'_>, plan: &mut Plan) {
    let change = sandbox::pod_sandbox_changed(ctx.pod, &ctx.status);
    plan.actions.kill_pod = change.changed();
    plan.actions.create_sandbox = change.changed();
    plan.actions.sandbox_id.clone_from(&change.sandbox_id);
    plan.actions.attempt = change.attempt;
    if let Some(reason) = change.reason {
        note_sandbox_change(ctx, plan, reason, &change);
    }

    if ctx
        .gates
        .enabled(Gate::RestartAllContainersOnContainerExits)
        && ctx.restart_all_containers()
    {
        restart_all::compute(ctx, plan);
        return;
    }

    if change.changed() {
        recreate(ctx, plan);
        return;
    }

    ephemeral::compute(ctx, plan);

    if ctx.resize_allowed {
        plan.actions.containers_to_update = Some(std::collections::BTreeMap::new());
    }

    let initialized = init::compute(ctx, plan);
    if plan.actions.kill_pod || !initialized {
        if !plan.actions.kill_pod {
            note(
                plan,
                Action::Wait,
                None,
                "InitializationInProgress",
                "initialisation is not complete: regular containers are not considered on this sync".to_string(),
            );
        }
        return;
    }
    regular::compute(ctx, plan);
}

fn note_sandbox_change(
    ctx: &Ctx<'_>,
    plan: &mut Plan,
    reason: SandboxChangeReason,
    change: &sandbox::SandboxChange,
) {
    let attempt = change.attempt;
    let old = ctx.status.sandboxes().first().map_or("", |s| s.id.as_str());
    let message = match reason {
        SandboxChangeReason::NoSandbox => format!(
            "no sandbox exists yet: a new sandbox (attempt {attempt}) is created (killPod is set too; with nothing running it is a no-op)"
        ),
        SandboxChangeReason::MultipleReady => format!(
            "more than one sandbox is ready: the pod is killed and a new sandbox (attempt {attempt}) created"
        ),
        SandboxChangeReason::NotReady => format!(
            "sandbox {old} is not ready: the pod is killed and a new sandbox (attempt {attempt}) created"
        ),
        SandboxChangeReason::NetworkNamespaceChanged => format!(
            "sandbox {old} has a different network namespace mode than the pod's hostNetwork setting: the pod is killed and a new sandbox (attempt {attempt}) created"
        ),
        SandboxChangeReason::NoIp => format!(
            "sandbox {old} has no IP address: the pod is killed and a new sandbox (attempt {attempt}) created"
        ),
    };
    note(plan, Action::CreateSandbox, None, reason.as_str(), message);
    let kill = if reason == SandboxChangeReason::NoSandbox {
        "nothing runs yet: killPod is set together with createSandbox and the kill is a no-op"
            .to_string()
    } else {
        format!("the sandbox changed: every running container and sandbox {old} is stopped")
    };
    note(plan, Action::KillPod, None, reason.as_str(), kill);
}

/// Sandbox (re)creation: only the first init container or the regular containers are
/// planned; everything else waits for the next sync.
fn recreate(ctx: &Ctx<'_>, plan: &mut Plan) {
    let attempt = plan.actions.attempt;
    if !restart::should_restart_on_failure(ctx.pod)
        && attempt != 0
        && !ctx.status.containers().is_empty()
    {
        plan.actions.create_sandbox = false;
        note(
            plan,
            Action::KillPod,
            None,
            "RestartPolicyNever",
            "restartPolicy Never and containers have already run: the pod is killed and no new sandbox is created".to_string(),
        );
        return;
    }
    let rules = ctx.gates.enabled(Gate::ContainerRestartRules);
    let mut to_start = Vec::new();
    for (idx, c) in ctx.spec.containers.iter().enumerate() {
        let mut run_once = restart::pod_restart_policy(ctx.pod) == "OnFailure";
        if rules {
            if let Some(p) = c.restart_policy.as_deref() {
                run_once = p == "OnFailure";
            }
        }
        if run_once && restart::container_succeeded(c, &ctx.status) {
            note(
                plan,
                Action::DoNotRestart,
                Some(&c.name),
                "Succeeded",
                format!(
                    "container {} already exited 0 and its restartPolicy OnFailure does not run it again in the new sandbox",
                    c.name
                ),
            );
            continue;
        }
        to_start.push(idx);
    }
    if to_start.is_empty() && has_any_regular_container_created(ctx) {
        plan.actions.create_sandbox = false;
        note(
            plan,
            Action::KillPod,
            None,
            "AllContainersDone",
            "every regular container has completed and none is to run again: the pod is killed and no new sandbox is created".to_string(),
        );
        return;
    }
    if let Some(first) = ctx.spec.init_containers.as_deref().and_then(|i| i.first()) {
        plan.actions.init_containers_to_start = vec![0];
        note(
            plan,
            Action::StartInitContainer,
            Some(&first.name),
            "NewSandbox",
            format!(
                "a new sandbox restarts initialisation from the first init container, {}",
                first.name
            ),
        );
        return;
    }
    for idx in &to_start {
        if let Some(c) = ctx.spec.containers.get(*idx) {
            note(
                plan,
                Action::StartContainer,
                Some(&c.name),
                "NewSandbox",
                format!("container {} is started in the new sandbox", c.name),
            );
        }
    }
    plan.actions.containers_to_start = to_start;
}

/// `HasAnyRegularContainerCreated`: some regular container's newest status is created,
/// running or exited.
fn has_any_regular_container_created(ctx: &Ctx<'_>) -> bool {
    use crate::runtime::ContainerState::{Created, Exited, Running};
    ctx.spec.containers.iter().any(|c| {
        ctx.status
            .find(&c.name)
            .is_some_and(|s| matches!(s.state, Created | Running | Exited))
    })
}

/// Helpers shared by the decision and step unit tests.
#[cfg(test)]
pub(crate) mod testutil {
    use serde_json::{json, Value};

    use crate::plan::Plan;
    use crate::request::PlanRequest;

    /// A request for pod `foo` (namespace `ns`, uid `u`) with `spec`, a ready sandbox `sb`
    /// (attempt 3, IP set) and `statuses`, merged with `extra` top-level request keys.
    pub(crate) fn req(spec: Value, statuses: Value, extra: Value) -> PlanRequest {
        let mut v = json!({
            "pod": {"metadata": {"name": "foo", "namespace": "ns", "uid": "u"}, "spec": with_service_links(spec)},
            "runtimeStatus": {"sandboxStatuses": [{"id": "sb", "metadata": {"attempt": 3},
                "state": "SANDBOX_READY", "network": {"ip": "10.0.0.1"}}],
                "containerStatuses": statuses}
        });
        if let (Some(obj), Some(more)) = (v.as_object_mut(), extra.as_object()) {
            for (k, val) in more {
                obj.insert(k.clone(), val.clone());
            }
        }
        crate::api::parse_request_value(v).unwrap_or_default()
    }

    /// Sets `enableServiceLinks` (which the API server defaults) unless the spec says.
    fn with_service_links(mut spec: Value) -> Value {
        if let Some(obj) = spec.as_object_mut() {
            obj.entry("enableServiceLinks").or_insert(Value::Bool(true));
        }
        spec
    }

    /// The full plan (decide + steps) for a request.
    pub(crate) fn plan(request: &PlanRequest) -> Plan {
        crate::plan(request).unwrap_or_default()
    }

    /// A running status with the correct hash for `name`/`image`.
    pub(crate) fn running(id: &str, name: &str, image: &str) -> Value {
        json!({"id": id, "name": name, "state": "running",
               "hash": crate::hash::container_hash(name, image)})
    }

    /// An exited status.
    pub(crate) fn exited(id: &str, name: &str, image: &str, code: i32) -> Value {
        json!({"id": id, "name": name, "state": "exited", "exitCode": code,
               "hash": crate::hash::container_hash(name, image),
               "finishedAt": "2025-01-01T00:00:00Z"})
    }

    /// The decision messages, one per line, for assertions.
    pub(crate) fn messages(plan: &Plan) -> String {
        plan.decisions
            .iter()
            .map(|d| format!("{} {}: {}", d.action, d.reason, d.message))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::testutil::{exited, messages, plan, req, running};
    use crate::plan::KillReason;

    #[test]
    fn liveness_failure_is_explained_with_the_policy_that_restarts_it() {
        let r = req(
            json!({"containers": [{"name": "app", "image": "nginx"}], "restartPolicy": "Always"}),
            json!([running("c://1", "app", "nginx")]),
            json!({"probes": {"c://1": {"liveness": "failure"}}}),
        );
        let p = plan(&r);
        let kill = p.actions.containers_to_kill.get("c://1");
        assert_eq!(
            kill.map(|k| (k.message.as_str(), k.reason)),
            Some((
                "Container app failed liveness probe, will be restarted",
                KillReason::LivenessProbe
            ))
        );
        assert!(messages(&p)
            .contains("container app failed its liveness probe; restartPolicy Always restarts it"));
        assert_eq!(p.actions.containers_to_start, vec![0]);
    }

    #[test]
    fn liveness_failure_under_never_kills_the_pod() {
        let r = req(
            json!({"containers": [{"name": "app", "image": "nginx"}], "restartPolicy": "Never"}),
            json!([running("c://1", "app", "nginx")]),
            json!({"probes": {"c://1": {"liveness": "failure"}}}),
        );
        let p = plan(&r);
        assert_eq!(
            p.actions
                .containers_to_kill
                .get("c://1")
                .map(|k| k.message.as_str()),
            Some("Container app failed liveness probe")
        );
        assert!(p.actions.kill_pod && !p.actions.create_sandbox);
        assert!(p.actions.containers_to_start.is_empty());
        assert!(messages(&p).contains("killPod NothingToRun"));
    }

    #[test]
    fn dead_sandbox_names_the_next_attempt() {
        let mut r = req(
            json!({"containers": [{"name": "app", "image": "nginx"}]}),
            json!([running("c://1", "app", "nginx")]),
            json!({}),
        );
        if let Some(s) = r
            .runtime_status
            .as_mut()
            .and_then(|s| s.sandbox_statuses.first_mut())
        {
            s.state = crate::runtime::SandboxState::NotReady;
        }
        let p = plan(&r);
        assert!(p.actions.kill_pod && p.actions.create_sandbox);
        assert_eq!(
            (p.actions.attempt, p.actions.sandbox_id.as_str()),
            (4, "sb")
        );
        assert!(messages(&p).contains(
            "sandbox sb is not ready: the pod is killed and a new sandbox (attempt 4) created"
        ));
        assert_eq!(
            p.events.first().map(|e| e.reason.as_str()),
            Some("SandboxChanged")
        );
    }

    #[test]
    fn init_progress_is_explained() {
        let r = req(
            json!({"initContainers": [{"name": "init1", "image": "i"}, {"name": "init2", "image": "i"}],
                   "containers": [{"name": "app", "image": "nginx"}]}),
            json!([exited("c://1", "init1", "i", 0)]),
            json!({}),
        );
        let p = plan(&r);
        assert_eq!(p.actions.init_containers_to_start, vec![1]);
        assert!(messages(&p)
            .contains("init container init1 exited 0: starting the next init container init2"));
    }

    #[test]
    fn static_pods_get_no_resize_map() {
        let spec = json!({"containers": [{"name": "app", "image": "nginx"}]});
        let statuses = json!([running("c://1", "app", "nginx")]);
        let p = plan(&req(spec.clone(), statuses.clone(), json!({})));
        assert_eq!(p.actions.containers_to_update, Some(Default::default()));
        let mut r = req(spec, statuses, json!({}));
        r.pod.metadata.annotations = Some(
            [(
                "kubernetes.io/config.source".to_string(),
                "file".to_string(),
            )]
            .into(),
        );
        assert_eq!(plan(&r).actions.containers_to_update, None);
    }

    #[test]
    fn restart_all_follows_the_pod_condition_too() {
        let mut r = req(
            json!({"containers": [{"name": "app", "image": "nginx"}]}),
            json!([running("c://1", "app", "nginx")]),
            json!({}),
        );
        assert!(plan(&r).actions.containers_to_reset.is_empty());
        crate::sim::script::begin_restart_all(&mut r);
        r.restart_all_containers = false;
        let p = plan(&r);
        assert_eq!(p.actions.containers_to_reset.len(), 1);
        // With the gate off the condition changes nothing.
        r.feature_gates
            .insert("RestartAllContainersOnContainerExits".into(), false);
        assert!(plan(&r).actions.containers_to_reset.is_empty());
    }

    #[test]
    fn deleted_pods_restart_nothing() {
        let mut r = req(
            json!({"containers": [{"name": "app", "image": "nginx"}]}),
            json!([exited("c://1", "app", "nginx", 1)]),
            json!({}),
        );
        r.pod.metadata.deletion_timestamp = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(jiff::Timestamp::UNIX_EPOCH),
        );
        // computePodActions itself never restarts a deleted pod's containers...
        let p = super::decide(&r, &crate::features::FeatureGates::default());
        assert!(p.actions.containers_to_start.is_empty() && p.actions.kill_pod);
        assert!(messages(&p).contains("doNotRestart PodDeleting"));
        // ...and the pod worker does not even get there: the pod is terminating.
        let p = plan(&r);
        assert_eq!(p.worker_phase, crate::plan::WorkerPhase::Terminating);
        assert!(p
            .steps
            .iter()
            .all(|s| s.op() == crate::plan::StepOp::KillPod));
    }

    #[test]
    fn unknown_regular_container_is_killed_then_started() {
        let r = req(
            json!({"containers": [{"name": "app", "image": "nginx"}], "restartPolicy": "Never"}),
            json!([{"id": "c://1", "name": "app", "state": "unknown"}]),
            json!({}),
        );
        let p = plan(&r);
        let kill = p.actions.containers_to_kill.get("c://1");
        assert_eq!(
            kill.map(|k| (k.message.as_str(), k.reason)),
            Some((
                "Container is in \"unknown\" state, try killing it before restart",
                KillReason::Unknown
            ))
        );
        assert_eq!(p.actions.containers_to_start, vec![0]);
    }

    #[test]
    fn ephemeral_containers_start_once() {
        let spec = json!({"containers": [{"name": "app", "image": "nginx"}],
                          "ephemeralContainers": [{"name": "dbg", "image": "busybox"}, {"name": "dbg2", "image": "busybox"}]});
        let p = plan(&req(
            spec,
            json!([
                running("c://1", "app", "nginx"),
                exited("c://2", "dbg", "busybox", 0)
            ]),
            json!({}),
        ));
        assert_eq!(p.actions.ephemeral_containers_to_start, vec![1]);
        assert!(messages(&p).contains("doNotRestart EphemeralNeverRestarted"));
    }

    #[test]
    fn sidecar_waiting_for_startup_probe_is_a_wait_decision() {
        let spec = json!({"initContainers": [{"name": "proxy", "image": "envoy", "restartPolicy": "Always",
                              "startupProbe": {"exec": {"command": ["true"]}}}],
                          "containers": [{"name": "app", "image": "nginx"}]});
        let p = plan(&req(
            spec,
            json!([running("c://1", "proxy", "envoy")]),
            json!({}),
        ));
        assert!(p.actions.containers_to_start.is_empty());
        assert!(p.actions.init_containers_to_start.is_empty());
        assert!(messages(&p).contains("wait WaitingForStartupProbe"));
        assert!(!p.actions.kill_pod);
    }

    #[test]
    fn init_failure_under_never_is_terminal() {
        let spec = json!({"restartPolicy": "Never",
                          "initContainers": [{"name": "init1", "image": "i"}],
                          "containers": [{"name": "app", "image": "nginx"}]});
        let p = plan(&req(
            spec,
            json!([exited("c://1", "init1", "i", 3)]),
            json!({}),
        ));
        assert!(p.actions.kill_pod && p.actions.init_containers_to_start.is_empty());
        assert!(messages(&p).contains("init container init1 exited 3 and is not restarted"));
    }

    #[test]
    fn sidecar_resize_restart_keeps_the_kubelet_order() {
        // Two sidecars; the second needs a restart for a resize (pushed during the walk),
        // the first was never started: the list is reversed once at the end.
        let spec = json!({
            "initContainers": [
                {"name": "s0", "image": "x", "restartPolicy": "Always"},
                {"name": "s1", "image": "x", "restartPolicy": "Always",
                 "resources": {"limits": {"cpu": "200m"}},
                 "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "RestartContainer"}]}],
            "containers": [{"name": "app", "image": "nginx"}]});
        let p = plan(&req(
            spec,
            json!([
                running("c://2", "app", "nginx"),
                running("c://1", "s1", "x")
            ]),
            json!({"actuatedResources": {"containers": {"s1": {"limits": {"cpu": "100m"}}}}}),
        ));
        assert_eq!(p.actions.init_containers_to_start, vec![0, 1]);
        assert_eq!(
            p.actions
                .containers_to_kill
                .get("c://1")
                .map(|k| k.message.as_str()),
            Some("Container s1 resize requires restart")
        );
        assert!(p.actions.update_pod_resources);
    }
}
