//! [`Simulation`]: the plan → carry out → advance-the-clock loop, with what the simulated
//! world does on its own between syncs ([`Behaviour`]).

use super::event::{apply_event_with, Event};
use super::hooks::HookControls;
use super::script;
use super::sync::carry_out;
use crate::error::PlanError;
use crate::plan::Plan;
use crate::request::PlanRequest;
use crate::runtime::ContainerState;

/// What the simulated world does on its own before each sync.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Behaviour {
    /// Running classic init containers finish (exit 0).
    pub complete_init_containers: bool,
    /// Declared startup and liveness probes of running containers report success.
    pub pass_probes: bool,
}

impl Default for Behaviour {
    fn default() -> Self {
        Self {
            complete_init_containers: true,
            pass_probes: true,
        }
    }
}

/// A plan → apply → advance-the-clock loop.
#[derive(Debug, Clone)]
pub struct Simulation {
    /// The request the next sync plans for.
    pub request: PlanRequest,
    /// The next sync's time.
    pub now: jiff::Timestamp,
    /// Seconds between syncs.
    pub tick_seconds: i64,
    /// What happens on its own between syncs.
    pub behaviour: Behaviour,
    /// What the pod's lifecycle hooks do when the runtime runs them.
    pub hooks: HookControls,
    /// Plans carry the pod's API status, kubectl row and reason cache (on by default).
    /// Off, the next request has no `previousStatus` and an empty reason cache: only the
    /// statuses change, since the kubelet's decisions never read them.
    pub statuses: bool,
}

impl Simulation {
    /// Starts a simulation at `start`, syncing every 10 s with the default behaviour.
    #[must_use]
    pub fn new(mut request: PlanRequest, start: jiff::Timestamp) -> Self {
        request.now = Some(start);
        Self {
            request,
            now: start,
            tick_seconds: 10,
            behaviour: Behaviour::default(),
            hooks: HookControls::default(),
            statuses: true,
        }
    }

    /// Something happens before the next sync ([`apply_event_with`]; hook events change
    /// [`Simulation::hooks`]). Returns a note when it could not happen.
    pub fn event(&mut self, event: &Event) -> Option<String> {
        self.request.now = Some(self.now);
        let note = apply_event_with(&mut self.request, &mut self.hooks, event);
        // An event that takes time (a probe's failure window, an advance) moves the clock.
        if let Some(later) = self.request.now.filter(|t| *t > self.now) {
            self.now = later;
        }
        note
    }

    /// Advances the clock by `seconds` without a sync.
    pub(crate) fn advance(&mut self, seconds: i64) {
        self.now = jiff::Timestamp::from_nanosecond(
            self.now.as_nanosecond() + i128::from(seconds) * 1_000_000_000,
        )
        .unwrap_or(self.now);
        self.request.now = Some(self.now);
    }

    /// One sync: apply the behaviour, plan, carry the plan out, advance the clock.
    /// Returns the plan.
    pub fn sync(&mut self) -> Result<Plan, PlanError> {
        self.prepare();
        let plan = self.plan()?;
        self.carry_out(&plan);
        Ok(plan)
    }

    /// The first part of [`Simulation::sync`]: the clock and the behaviour.
    pub(crate) fn prepare(&mut self) {
        self.request.now = Some(self.now);
        if self.behaviour.complete_init_containers {
            script::complete_init_containers(&mut self.request, self.now);
        }
        if self.behaviour.pass_probes {
            script::pass_probes(&mut self.request);
        }
    }

    /// The plan of a sync after [`Simulation::prepare`] (with the API status when
    /// [`Simulation::statuses`] is on).
    pub(crate) fn plan(&self) -> Result<Plan, PlanError> {
        let stage = if self.statuses {
            crate::pipeline::Stage::Status
        } else {
            crate::pipeline::Stage::Steps
        };
        crate::pipeline::plan_to(&self.request, stage)
    }

    /// The actions the kubelet decides (`computePodActions`) in a sync after
    /// [`Simulation::prepare`]: those of [`Simulation::plan`], without its steps and
    /// status. For a caller that reads only the decision.
    pub(crate) fn decide(&self) -> Result<crate::plan::PodActions, PlanError> {
        crate::pipeline::plan_to(&self.request, crate::pipeline::Stage::Decisions)
            .map(|p| p.actions)
    }

    /// The last part of [`Simulation::sync`]: carry `plan` (from [`Simulation::plan`])
    /// out, advance the clock.
    pub(crate) fn carry_out(&mut self, plan: &Plan) {
        let blocked_millis = carry_out(&mut self.request, plan, self.now, &self.hooks);
        // A sync blocked in preStop hooks, stops or pulls ends that much later (whole
        // seconds, rounded up, as the playground's clock moves).
        let blocked = i64::try_from(blocked_millis.div_ceil(1000)).unwrap_or(0);
        // A pull is part of the sync: the re-plan that completes it comes as soon as the
        // pull is done.
        if !self.request.pull_results.is_empty() {
            self.advance(blocked);
            return;
        }
        self.advance(self.tick_seconds + blocked);
    }

    /// Syncs until a fixpoint (the plan changes nothing in the runtime or the checkpoints
    /// and holds nothing back; that plan is included), or `max_syncs` plans.
    pub fn run_until_stable(&mut self, max_syncs: usize) -> Result<Vec<Plan>, PlanError> {
        let mut plans = Vec::new();
        let observed = |r: &PlanRequest| {
            (
                r.runtime_status.clone(),
                r.actuated_resources.clone(),
                r.image_backoff.clone(),
            )
        };
        // A sync's state after is the next sync's state before: one copy per sync.
        let mut before = observed(&self.request);
        for _ in 0..max_syncs {
            let plan = self.sync()?;
            let after = observed(&self.request);
            let stable = before == after
                && plan.held_back.is_empty()
                && self.request.pull_results.is_empty();
            plans.push(plan);
            if stable {
                break;
            }
            before = after;
        }
        Ok(plans)
    }

    /// Whether every regular container and every sidecar has a running newest instance.
    #[must_use]
    pub fn all_running(&self) -> bool {
        let Some(spec) = self.request.pod.spec.as_ref() else {
            return false;
        };
        let statuses = self.request.container_statuses();
        let running = |name: &str| {
            statuses
                .iter()
                .find(|s| s.name == name)
                .is_some_and(|s| s.state == ContainerState::Running)
        };
        spec.containers.iter().all(|c| running(&c.name))
            && spec
                .init_containers
                .iter()
                .flatten()
                .filter(|c| c.restart_policy.as_deref() == Some("Always"))
                .all(|c| running(&c.name))
    }
}
