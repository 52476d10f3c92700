//! `computeInitContainerActions`: init-container progress and sidecar upkeep.
//!
//! Init containers are walked from the last to the first, looking only at statuses of the
//! active sandbox. The highest-index init container that has a status decides what starts
//! next; lower sidecars without a status are (re)started once a later one has started.
//! Returns whether the pod counts as initialised.

use super::ctx::{note, Ctx};
use super::resize::{compute_pod_resize_action, starting_resized_container};
use crate::features::Gate;
use crate::kubecontainer::pod_status::{probe, ProbeKind};
use crate::kubecontainer::restart::{
    is_init_container_failed, is_restartable_init, should_container_be_restarted,
};
use crate::plan::ContainerKind;
use crate::plan::{Action, ContainerToKill, KillReason, Plan};
use crate::request::ProbeResult;
use crate::runtime::ContainerState;

fn kill(plan: &mut Plan, id: &str, name: &str, message: String, reason: KillReason) {
    plan.actions.containers_to_kill.insert(
        id.to_string(),
        ContainerToKill {
            name: name.to_string(),
            reason,
            message,
        },
    );
}

fn restarted(plan: &mut Plan, name: &str, reason: &'static str) {
    note(
        plan,
        Action::StartInitContainer,
        Some(name),
        reason,
        format!("{name} is started again after the kill"),
    );
}

fn terminal(plan: &mut Plan, name: &str, why: String) -> bool {
    plan.actions.kill_pod = true;
    plan.actions.init_containers_to_start.clear();
    note(
        plan,
        Action::KillPod,
        Some(name),
        "InitContainerFailed",
        why,
    );
    false
}

/// Runs `computeInitContainerActions`; returns whether the pod is initialised.
pub(crate) fn compute(ctx: &Ctx<'_>, plan: &mut Plan) -> bool {
    let inits = ctx.spec.init_containers.as_deref().unwrap_or_default();
    if inits.is_empty() {
        return true;
    }
    let regular_names: Vec<&str> = ctx
        .spec
        .containers
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    let mut pod_initialized = ctx
        .status
        .active()
        .any(|s| regular_names.contains(&s.name.as_str()));
    if pod_initialized {
        note(
            plan,
            Action::KeepContainer,
            None,
            "PodInitialized",
            "a regular container exists in the current sandbox, so initialisation is complete: classic init containers are not run again".to_string(),
        );
    }
    let mut prev_init = pod_initialized;
    let restart_on_failure = crate::kubecontainer::restart::should_restart_on_failure(ctx.pod);
    let last = inits.len() - 1;

    for (i, c) in inits.iter().enumerate().rev() {
        let sidecar = is_restartable_init(c);
        let name = c.name.as_str();
        let Some(s) = ctx.status.find_active(name) else {
            if prev_init && sidecar {
                plan.actions.init_containers_to_start.push(i);
                note(
                    plan,
                    Action::StartInitContainer,
                    Some(name),
                    "SidecarNotRunning",
                    format!("sidecar {name} has no status in the current sandbox while a later init container has started: it is started"),
                );
            }
            continue;
        };
        if prev_init && !sidecar {
            continue;
        }
        match s.state {
            ContainerState::Created => {
                plan.actions.init_containers_to_start.push(i);
                note(
                    plan,
                    Action::StartInitContainer,
                    Some(name),
                    "StuckInCreated",
                    format!("init container {name} is stuck in created state: it is started again"),
                );
            }
            ContainerState::Running if !sidecar => {
                if ctx
                    .gates
                    .enabled(Gate::InPlacePodVerticalScalingInitContainers)
                {
                    let _ = compute_pod_resize_action(ctx, plan, ContainerKind::Init, i, c, s);
                }
                note(
                    plan,
                    Action::Wait,
                    Some(name),
                    "InitContainerRunning",
                    format!(
                        "init container {name} is running: the next one starts after it exits 0"
                    ),
                );
            }
            ContainerState::Running => 'sidecar: {
                if c.startup_probe.is_some() {
                    match probe(ctx.request, &s.id, ProbeKind::Startup) {
                        None | Some(ProbeResult::Unknown) => {
                            note(
                                plan,
                                Action::Wait,
                                Some(name),
                                "WaitingForStartupProbe",
                                format!("sidecar {name} is running but its startup probe has not succeeded yet: later init containers wait"),
                            );
                            break 'sidecar;
                        }
                        Some(ProbeResult::Failure) => {
                            kill(
                                plan,
                                &s.id,
                                name,
                                format!("Init container {name} failed startup probe"),
                                KillReason::StartupProbe,
                            );
                            plan.actions.init_containers_to_start.push(i);
                            note(
                                plan,
                                Action::KillContainer,
                                Some(name),
                                "StartupProbeFailed",
                                format!("sidecar {name} failed its startup probe: it is killed and started again (sidecars always restart)"),
                            );
                            restarted(plan, name, "StartupProbeFailed");
                            break 'sidecar;
                        }
                        Some(ProbeResult::Success) => {}
                    }
                }
                if i == last {
                    pod_initialized = true;
                    note(
                        plan,
                        Action::KeepContainer,
                        Some(name),
                        "SidecarStarted",
                        format!("sidecar {name} is the last init container and has started: the pod is initialised"),
                    );
                } else if !prev_init {
                    plan.actions.init_containers_to_start.push(i + 1);
                    let next = inits.get(i + 1).map_or("", |n| n.name.as_str());
                    note(
                        plan,
                        Action::StartInitContainer,
                        Some(next),
                        "PreviousSidecarStarted",
                        format!(
                            "sidecar {name} has started: the next init container {next} is started"
                        ),
                    );
                }
                if ctx.hash_changed(c, s) {
                    kill(
                        plan,
                        &s.id,
                        name,
                        format!("Init container {name} definition changed"),
                        KillReason::None,
                    );
                    plan.actions.init_containers_to_start.push(i);
                    note(
                        plan,
                        Action::KillContainer,
                        Some(name),
                        "DefinitionChanged",
                        format!("sidecar {name}'s image or name changed (hash {} != {}): it is killed and started again", s.hash, ctx.hash(c)),
                    );
                    restarted(plan, name, "DefinitionChanged");
                    break 'sidecar;
                }
                if c.liveness_probe.is_some() {
                    match probe(ctx.request, &s.id, ProbeKind::Liveness) {
                        None => {
                            note(
                                plan,
                                Action::KeepContainer,
                                Some(name),
                                "LivenessProbePending",
                                format!("sidecar {name} is running; its liveness probe has not reported yet"),
                            );
                            break 'sidecar;
                        }
                        Some(ProbeResult::Failure) => {
                            kill(
                                plan,
                                &s.id,
                                name,
                                format!("Init container {name} failed liveness probe"),
                                KillReason::LivenessProbe,
                            );
                            plan.actions.init_containers_to_start.push(i);
                            note(
                                plan,
                                Action::KillContainer,
                                Some(name),
                                "LivenessProbeFailed",
                                format!("sidecar {name} failed its liveness probe: it is killed and started again (sidecars always restart)"),
                            );
                            restarted(plan, name, "LivenessProbeFailed");
                            break 'sidecar;
                        }
                        _ => {}
                    }
                }
                if compute_pod_resize_action(ctx, plan, ContainerKind::Init, i, c, s) {
                    note(
                        plan,
                        Action::KeepContainer,
                        Some(name),
                        "Running",
                        format!("sidecar {name} is running and healthy: it is kept"),
                    );
                }
            }
            ContainerState::Exited if sidecar => {
                plan.actions.init_containers_to_start.push(i);
                note(
                    plan,
                    Action::StartInitContainer,
                    Some(name),
                    "SidecarExited",
                    format!(
                        "sidecar {name} exited (code {}): sidecars are always restarted",
                        s.exit_code
                    ),
                );
            }
            ContainerState::Exited => {
                if is_init_container_failed(s) {
                    let (ok, why) = if ctx.gates.enabled(Gate::ContainerRestartRules) {
                        let v = should_container_be_restarted(c, ctx.pod, &ctx.status, ctx.gates);
                        (v.yes, v.why)
                    } else if restart_on_failure {
                        (true, "pod restartPolicy is not Never".to_string())
                    } else {
                        (false, "pod restartPolicy Never".to_string())
                    };
                    let failure = if s.reason == "OOMKilled" {
                        "was OOMKilled".to_string()
                    } else {
                        format!("exited {}", s.exit_code)
                    };
                    if !ok {
                        return terminal(
                            plan,
                            name,
                            format!("init container {name} {failure} and is not restarted ({why}): the pod is terminal and is killed"),
                        );
                    }
                    plan.actions.init_containers_to_start.push(i);
                    note(
                        plan,
                        Action::StartInitContainer,
                        Some(name),
                        "InitContainerFailed",
                        format!("init container {name} {failure}: it is started again ({why})"),
                    );
                } else if i == last {
                    pod_initialized = true;
                    note(
                        plan,
                        Action::KeepContainer,
                        Some(name),
                        "InitContainersDone",
                        format!("init container {name} exited 0 and is the last one: the pod is initialised"),
                    );
                } else {
                    plan.actions.init_containers_to_start.push(i + 1);
                    let next = inits.get(i + 1).map_or("", |n| n.name.as_str());
                    note(
                        plan,
                        Action::StartInitContainer,
                        Some(next),
                        "PreviousInitContainerSucceeded",
                        format!("init container {name} exited 0: starting the next init container {next}"),
                    );
                }
            }
            ContainerState::Unknown => {
                let message =
                    "Init container is in \"unknown\" state, try killing it before restart";
                if sidecar {
                    kill(plan, &s.id, name, message.to_string(), KillReason::Unknown);
                    plan.actions.init_containers_to_start.push(i);
                    note(
                        plan,
                        Action::KillContainer,
                        Some(name),
                        "UnknownState",
                        format!(
                            "sidecar {name} is in unknown state: it is killed and started again"
                        ),
                    );
                    restarted(plan, name, "UnknownState");
                } else {
                    let mut ok = restart_on_failure;
                    if ctx.gates.enabled(Gate::ContainerRestartRules) {
                        if let Some(p) = c.restart_policy.as_deref() {
                            ok = p != "Never";
                        }
                    }
                    if !ok {
                        return terminal(
                            plan,
                            name,
                            format!("init container {name} is in unknown state and restartPolicy Never forbids a restart: the pod is terminal and is killed"),
                        );
                    }
                    kill(plan, &s.id, name, message.to_string(), KillReason::Unknown);
                    plan.actions.init_containers_to_start.push(i);
                    note(
                        plan,
                        Action::KillContainer,
                        Some(name),
                        "UnknownState",
                        format!("init container {name} is in unknown state: it is killed and started again"),
                    );
                    restarted(plan, name, "UnknownState");
                }
            }
        }
        prev_init = true;
    }
    if !prev_init {
        plan.actions.init_containers_to_start.push(0);
        let first = inits.first().map_or("", |c| c.name.as_str());
        note(
            plan,
            Action::StartInitContainer,
            Some(first),
            "InitializationNotStarted",
            format!("no init container has run in the current sandbox: the first one, {first}, is started"),
        );
    }
    // The walk ran backwards (resize restarts included): reverse once, as the kubelet does.
    plan.actions.init_containers_to_start.reverse();

    if !plan.actions.update_pod_level_resources && !plan.actions.update_pod_resources {
        if let Some(c) =
            starting_resized_container(ctx, inits, &plan.actions.init_containers_to_start)
        {
            plan.actions.update_pod_resources = true;
            let name = c.name.clone();
            note(
                plan,
                Action::UpdateResources,
                Some(&name),
                "StartingResizedContainer",
                format!("init container {name} is about to start with resources that differ from the actuated ones: the pod-level cgroup is resized first"),
            );
        }
    }
    pod_initialized
}
