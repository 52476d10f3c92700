//! Regular containers (`computePodActions` steps 6-10): start what should run, kill what
//! changed or failed a probe, keep the rest, resize in place, and kill the pod when
//! nothing is left to run.

use super::ctx::{note, Ctx};
use super::resize::{compute_pod_resize_action, pod_level_resize, starting_resized_container};
use crate::kubecontainer::pod_status::{probe, ProbeKind};
use crate::kubecontainer::restart::{restart_after_kill, should_container_be_restarted};
use crate::plan::ContainerKind;
use crate::plan::{Action, ContainerToKill, KillReason, Plan};
use crate::request::ProbeResult;
use crate::runtime::ContainerState;

/// Decides every regular container; runs only once the pod is initialised.
pub(crate) fn compute(ctx: &Ctx<'_>, plan: &mut Plan) {
    let mut keep_count = 0usize;
    for (idx, c) in ctx.spec.containers.iter().enumerate() {
        let name = c.name.as_str();
        let status = ctx.status.find(name);
        let running = status.filter(|s| s.state == ContainerState::Running);
        let Some(s) = running else {
            let verdict = should_container_be_restarted(c, ctx.pod, &ctx.status, ctx.gates);
            let what = match status {
                None => "has no status".to_string(),
                Some(s) if s.state == ContainerState::Exited => {
                    format!("exited with code {}", s.exit_code)
                }
                Some(s) => format!("is {}", s.state.as_str()),
            };
            if verdict.yes {
                plan.actions.containers_to_start.push(idx);
                if let Some(s) = status.filter(|s| s.state == ContainerState::Unknown) {
                    plan.actions.containers_to_kill.insert(
                        s.id.clone(),
                        ContainerToKill {
                            name: s.name.clone(),
                            reason: KillReason::Unknown,
                            message:
                                "Container is in \"unknown\" state, try killing it before restart"
                                    .to_string(),
                        },
                    );
                    note(
                        plan,
                        Action::KillContainer,
                        Some(name),
                        "UnknownState",
                        format!("container {name} is in unknown state: it is killed first so that two instances never run"),
                    );
                }
                note(
                    plan,
                    Action::StartContainer,
                    Some(name),
                    verdict.reason,
                    format!("container {name} {what}: {}", verdict.why),
                );
            } else {
                note(
                    plan,
                    Action::DoNotRestart,
                    Some(name),
                    verdict.reason,
                    format!(
                        "container {name} {what} and is not started: {}",
                        verdict.why
                    ),
                );
            }
            continue;
        };

        let mut restart = restart_after_kill(c, ctx.pod, ctx.gates);
        let (mut message, reason, code, why) = if ctx.hash_changed(c, s) {
            restart = true;
            (
                format!("Container {name} definition changed"),
                KillReason::None,
                "DefinitionChanged",
                format!(
                    "container {name}'s image or name changed (hash {} != {}); a changed definition is always restarted",
                    s.hash,
                    ctx.hash(c)
                ),
            )
        } else if probe(ctx.request, &s.id, ProbeKind::Liveness) == Some(ProbeResult::Failure) {
            (
                format!("Container {name} failed liveness probe"),
                KillReason::LivenessProbe,
                "LivenessProbeFailed",
                format!("container {name} failed its liveness probe"),
            )
        } else if probe(ctx.request, &s.id, ProbeKind::Startup) == Some(ProbeResult::Failure) {
            (
                format!("Container {name} failed startup probe"),
                KillReason::StartupProbe,
                "StartupProbeFailed",
                format!("container {name} failed its startup probe"),
            )
        } else if !compute_pod_resize_action(ctx, plan, ContainerKind::Regular, idx, c, s) {
            continue;
        } else {
            keep_count += 1;
            note(
                plan,
                Action::KeepContainer,
                Some(name),
                "Running",
                format!("container {name} is running with the current definition and no failed probe: it is kept"),
            );
            continue;
        };
        let policy_words = policy_words(ctx, c);
        let why = if restart {
            message.push_str(", will be restarted");
            plan.actions.containers_to_start.push(idx);
            note(
                plan,
                Action::StartContainer,
                Some(name),
                code,
                format!("container {name} is started again after the kill"),
            );
            if code == "DefinitionChanged" {
                format!("{why}: it is killed and started again")
            } else {
                format!("{why}; {policy_words} restarts it: it is killed and started again")
            }
        } else {
            format!("{why}; {policy_words} forbids a restart: it is killed and not started again")
        };
        plan.actions.containers_to_kill.insert(
            s.id.clone(),
            ContainerToKill {
                name: s.name.clone(),
                reason,
                message,
            },
        );
        note(plan, Action::KillContainer, Some(name), code, why);
    }

    if keep_count == 0 && plan.actions.containers_to_start.is_empty() {
        plan.actions.kill_pod = true;
        let dropped = std::mem::take(&mut plan.actions.init_containers_to_start);
        let extra = if dropped.is_empty() {
            String::new()
        } else {
            " Sidecar starts are dropped so that sidecars do not keep a finished pod alive."
                .to_string()
        };
        note(
            plan,
            Action::KillPod,
            None,
            "NothingToRun",
            format!("no regular container is running or will be started: the pod is done and is killed.{extra}"),
        );
    }

    plan.actions.update_pod_level_resources = pod_level_resize(ctx);
    if plan.actions.update_pod_level_resources {
        note(
            plan,
            Action::UpdateResources,
            None,
            "PodLevelResourcesChanged",
            "pod-level resources (spec.resources) differ from the actuated ones: the pod cgroup is resized in place".to_string(),
        );
    }
    if !plan.actions.update_pod_level_resources && !plan.actions.update_pod_resources {
        if let Some(c) =
            starting_resized_container(ctx, &ctx.spec.containers, &plan.actions.containers_to_start)
        {
            plan.actions.update_pod_resources = true;
            let name = c.name.clone();
            note(
                plan,
                Action::UpdateResources,
                Some(&name),
                "StartingResizedContainer",
                format!("container {name} is about to start with resources that differ from the actuated ones: the pod-level cgroup is resized first"),
            );
        }
    }
}

fn policy_words(ctx: &Ctx<'_>, c: &k8s_openapi::api::core::v1::Container) -> String {
    if ctx
        .gates
        .enabled(crate::features::Gate::ContainerRestartRules)
    {
        if let Some(p) = c.restart_policy.as_deref() {
            return format!("container restartPolicy {p}");
        }
    }
    match crate::kubecontainer::restart::pod_restart_policy(ctx.pod) {
        "" => "restartPolicy Always (unset)".to_string(),
        p => format!("restartPolicy {p}"),
    }
}
