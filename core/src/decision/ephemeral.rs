//! Ephemeral containers: started once, never restarted. Any status with the same name
//! (even from an older sandbox) blocks the start.

use super::ctx::{note, Ctx};
use crate::plan::{Action, Plan};

/// Fills `ephemeralContainersToStart`.
pub(crate) fn compute(ctx: &Ctx<'_>, plan: &mut Plan) {
    for (i, e) in ctx
        .spec
        .ephemeral_containers
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let name = e.name.as_str();
        match ctx.status.find(name) {
            None => {
                plan.actions.ephemeral_containers_to_start.push(i);
                note(
                    plan,
                    Action::StartEphemeralContainer,
                    Some(name),
                    "NeverStarted",
                    format!("ephemeral container {name} has never run: it is started (ephemeral containers may start before initialisation completes)"),
                );
            }
            Some(s) => note(
                plan,
                Action::DoNotRestart,
                Some(name),
                "EphemeralNeverRestarted",
                format!(
                    "ephemeral container {name} already exists ({}, {}): ephemeral containers are never restarted",
                    s.id,
                    s.state.as_str()
                ),
            ),
        }
    }
}
