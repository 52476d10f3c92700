//! The RestartAllContainers path: `getContainersToReset`.
//!
//! Every instance (all statuses with the name, all sandboxes) of every regular and init
//! container is killed (if not exited) and removed. Instances that exited with a code
//! matching a `RestartAllContainers` rule triggered the restart ("sources") and are
//! removed last: targets(regular) ++ targets(init) ++ sources(regular) ++ sources(init).

use k8s_openapi::api::core::v1::Container;

use super::ctx::{note, Ctx};
use crate::kubecontainer::restart::matching_rule;
use crate::plan::{Action, ContainerToReset, Plan};
use crate::runtime::ContainerState;

#[derive(Default)]
struct Split {
    sources: Vec<ContainerToReset>,
    targets: Vec<ContainerToReset>,
}

fn split(ctx: &Ctx<'_>, containers: &[Container]) -> Split {
    let mut out = Split::default();
    for c in containers {
        for s in ctx.status.all_named(&c.name) {
            let mut info = ContainerToReset {
                name: c.name.clone(),
                container_id: s.id.clone(),
                kill: false,
            };
            if s.state == ContainerState::Exited {
                let source = matching_rule(c, s.exit_code)
                    .is_some_and(|(_, rule)| rule.action == "RestartAllContainers");
                if source {
                    out.sources.push(info);
                } else {
                    out.targets.push(info);
                }
            } else {
                info.kill = true;
                out.targets.push(info);
            }
        }
    }
    out
}

/// Fills `containersToReset` and explains each entry.
pub(crate) fn compute(ctx: &Ctx<'_>, plan: &mut Plan) {
    let init = split(ctx, ctx.spec.init_containers.as_deref().unwrap_or_default());
    let regular = split(ctx, &ctx.spec.containers);
    let source_count = init.sources.len() + regular.sources.len();
    let reset: Vec<ContainerToReset> = regular
        .targets
        .into_iter()
        .chain(init.targets)
        .chain(regular.sources)
        .chain(init.sources)
        .collect();
    let target_count = reset.len() - source_count;
    for (i, r) in reset.iter().enumerate() {
        let how = if r.kill {
            "killed with grace period 0 and removed (logs kept)"
        } else {
            "removed (it has exited; logs kept)"
        };
        let role = if i >= target_count {
            " It triggered the restart (its exit code matched a RestartAllContainers rule), so it is removed last."
        } else {
            ""
        };
        note(
            plan,
            Action::ResetContainer,
            Some(&r.name),
            "RestartAllContainers",
            format!(
                "the pod is restarting all its containers: {} ({}) is {how}.{role}",
                r.name, r.container_id
            ),
        );
    }
    if reset.is_empty() {
        note(
            plan,
            Action::Wait,
            None,
            "RestartAllContainers",
            "the pod is restarting all its containers and none is left in the runtime: nothing else is planned on this sync".to_string(),
        );
    }
    plan.actions.containers_to_reset = reset;
}
