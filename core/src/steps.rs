//! The CRI operations of a plan in `SyncPod` order (1.37), with the events they record and
//! the crash-loop back-off applied at execution time.
//!
//! Order: `KillPod` (or `KillContainer` for each `containersToKill` entry, sorted by id
//! because Go's map order is random, then the RestartAllContainers kills/removals in list
//! order), init-container purge/prune (`RemoveContainer`), `RunPodSandbox`, in-place
//! resize (`UpdatePodSandboxResources`, `UpdateContainerResources`, decreases first), then
//! `CreateContainer` + `StartContainer` for ephemeral, init and regular containers.
//!
//! Starts are done container by container, as `SyncPod`'s `startContainer` does: the
//! crash-loop back-off check (`doBackOff`, see `backoff`; only with
//! `request.now`), then config generation (`generateContainerConfig`, see
//! [`crate::config`]), then `CreateContainer` + `StartContainer`, or the error. A held-back
//! or failing classic init container stops the remaining starts, as `SyncPod` does;
//! sidecar, regular and ephemeral failures only skip that container. The sandbox config is
//! generated once, before any start.
//!
//! With `request.images` the image pull comes between back-off and config
//! generation (`startContainer` step 1, see `pull`): the container is created with the
//! resolved imageRef, or a `PullImage` step replaces its create/start, or the start is
//! held back (`ImagePullBackOff`) or fails (`ErrImagePull` & co.).

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::Container;

use crate::backoff::{backoff_key, Backoff, BackoffPolicy};
use crate::config;
use crate::cri::StepRequest;
use crate::decision::{note, Ctx};
use crate::events::{self, Event};
use crate::features::{FeatureGates, Gate};
use crate::hooks;
use crate::plan::{
    Action, ContainerKind, CreateContainerStep, HeldBack, KillContainerStep, KillReason, Plan,
    RemoveContainerStep, RunPodSandboxStep, StartContainerStep, Step, UpdateContainerResourcesStep,
    UpdatePodSandboxResourcesStep, WriteNodeFilesStep,
};
use crate::pod::{format_pod, init_or_regular_named, spec_container, SpecContainer};
use crate::request::PlanRequest;
use crate::runtime::ContainerState;

mod pull;

/// Execution-time options that do not come from the request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BuildOptions {
    /// The kubelet's `crashLoopBackOff.maxContainerRestartPeriod`, seconds (gate
    /// KubeletCrashLoopBackOffMax).
    pub max_container_restart_period_seconds: Option<u64>,
}

/// Carries the decided actions of `plan` out as `SyncPod` would: fills `plan.steps`,
/// `plan.events`, `plan.sandboxConfig`, `plan.containerConfigs`, `plan.errors`,
/// `plan.heldBack` and `plan.backoff`. The actions may be hand-made.
pub fn build(request: &PlanRequest, gates: &FeatureGates, plan: &mut Plan) {
    if let Some(ctx) = Ctx::new(request, gates) {
        build_in(&ctx, plan, BuildOptions::default());
    }
}

/// [`build`] with a context already built (by `decision::decide_in`) and explicit
/// options.
pub(crate) fn build_in(ctx: &Ctx<'_>, plan: &mut Plan, options: BuildOptions) {
    let (request, gates) = (ctx.request, ctx.gates);
    let (images, image_warnings) = pull::ImageStage::new(request, gates);
    plan.warnings.extend(image_warnings);
    let mut b = Builder {
        images,
        ctx: ctx.clone(),
        steps: Vec::new(),
        events: Vec::new(),
        held_back: Vec::new(),
        notes: Vec::new(),
        backoff: request.now.map(|now| {
            Backoff::new(
                BackoffPolicy::from_gates(gates, options.max_container_restart_period_seconds),
                now,
                &request.backoff,
            )
        }),
    };
    let sandbox = b.sandbox_config(plan);
    b.kills(plan);
    b.prune_init_containers();
    if let SandboxConfig::Failed {
        create: true,
        cause,
    } = &sandbox
    {
        // createPodSandbox fails in generatePodSandboxConfig: SyncPod records
        // FailedCreatePodSandBox and returns after the kill; no sandbox, no resize, no
        // container is created.
        b.events.push(events::failed_create_pod_sandbox(cause));
        b.notes.push((
            Action::CreateSandbox,
            String::new(),
            "SandboxConfigFailed",
            format!(
                "the sandbox config cannot be generated ({cause}): SyncPod stops after the kill; \
                 no RunPodSandbox and no container is created on this sync"
            ),
        ));
    } else {
        b.sandbox(plan);
        b.resize(plan);
        b.starts(plan, matches!(sandbox, SandboxConfig::Ready));
    }
    plan.steps = b.steps;
    plan.events = b.events;
    plan.held_back = b.held_back;
    for (action, container, reason, message) in b.notes {
        let who = (!container.is_empty()).then_some(container.as_str());
        note(plan, action, who, reason, message);
    }
    plan.backoff = match b.backoff {
        Some(table) => table.into_records(),
        None => request.backoff.clone(),
    };
    if let Some(stage) = &b.images {
        plan.warnings.extend(stage.unused_warnings());
    }
    plan.image_backoff = match b.images {
        Some(stage) => stage.into_records(),
        None => request.image_backoff.clone(),
    };
}

/// The outcome of `generatePodSandboxConfig` for a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
enum SandboxConfig {
    /// Nothing is created or started: no config is needed.
    NotNeeded,
    /// The config exists.
    Ready,
    /// The generator failed (`create`: in `createPodSandbox`; else at the first start).
    Failed {
        /// The sync creates the sandbox.
        create: bool,
        /// The generator's error.
        cause: String,
    },
}

struct Builder<'a> {
    ctx: Ctx<'a>,
    steps: Vec<Step>,
    events: Vec<Event>,
    held_back: Vec<HeldBack>,
    notes: Vec<(Action, String, &'static str, String)>,
    backoff: Option<Backoff>,
    /// The image manager, when the request reports the node's images.
    images: Option<pull::ImageStage<'a>>,
}

impl<'a> Builder<'a> {
    fn container_spec(&self, name: &str) -> Option<&'a Container> {
        init_or_regular_named(self.ctx.spec, name)
    }

    /// The pod's first IP as the runtime reports it now (`runHTTPHandler`'s host when
    /// `httpGet.host` is empty).
    fn pod_ip(&self) -> Option<&'a str> {
        self.ctx
            .request
            .runtime_status
            .as_ref()
            .and_then(|s| s.ips.first())
            .map(String::as_str)
    }

    /// `generatePodSandboxConfig`, once, when the plan creates a sandbox or starts
    /// anything.
    fn sandbox_config(&mut self, plan: &mut Plan) -> SandboxConfig {
        let a = &plan.actions;
        let starts = !a.init_containers_to_start.is_empty()
            || !a.containers_to_start.is_empty()
            || !a.ephemeral_containers_to_start.is_empty();
        if !a.create_sandbox && !starts {
            return SandboxConfig::NotNeeded;
        }
        let create = a.create_sandbox;
        match config::sandbox_for(self.ctx.request, self.ctx.gates, a) {
            Ok((config, warnings)) => {
                let node = self.ctx.request.node.as_ref();
                if create && node.and_then(|n| n.kubelet.cgroups_per_qos) == Some(true) {
                    let default_node = crate::request::node::NodeContext::default();
                    let node = node.unwrap_or(&default_node);
                    plan.pod_cgroup = Some(config::cgroups::pod_cgroup(
                        self.ctx.pod,
                        node,
                        self.ctx.gates,
                        node.kubelet.pod_pids_limit.unwrap_or(-1),
                    ));
                }
                plan.sandbox_config = Some(config);
                plan.warnings.extend(warnings);
                SandboxConfig::Ready
            }
            Err((error, cause)) => {
                plan.errors.push(error);
                SandboxConfig::Failed { create, cause }
            }
        }
    }

    fn kills(&mut self, plan: &Plan) {
        let a = &plan.actions;
        if a.create_sandbox && !a.sandbox_id.is_empty() {
            self.events.push(events::sandbox_changed());
        }
        if a.kill_pod {
            let running: Vec<_> = self
                .ctx
                .status
                .containers()
                .iter()
                .filter(|s| s.state == ContainerState::Running)
                .collect();
            let why = if a.create_sandbox {
                "the sandbox is re-created"
            } else {
                "no container is left to run"
            };
            // killPodWithSyncResult: killContainer(…, reasonUnknown, no override) for each
            // running container, in the termination order, its preStop hook first; then
            // StopPodSandbox for every sandbox.
            let mut step = crate::terminate::kill_pod_step(&self.ctx, None);
            step.reason = Some(
                if a.create_sandbox {
                    "SandboxChanged"
                } else {
                    "PodDone"
                }
                .into(),
            );
            step.message = Some(format!(
                "stop {} running container(s) (regular first, sidecars in reverse order) and every sandbox: {why}",
                running.len()
            ));
            self.steps.push(Step::KillPod(step));
            for s in running {
                self.events.push(events::killing(&s.name, ""));
            }
            if a.create_sandbox {
                self.purge_init_containers();
            }
            return;
        }
        for (id, info) in &a.containers_to_kill {
            let spec = self.container_spec(&info.name);
            let (grace, pre_stop) =
                hooks::kill_container(self.ctx.pod, spec, id, info.reason, None, self.pod_ip());
            self.steps.push(Step::KillContainer(KillContainerStep {
                container: Some(info.name.clone()),
                container_id: Some(id.clone()),
                grace_period_seconds: Some(grace),
                pre_stop,
                reason: Some(kill_reason_str(info.reason).into()),
                message: Some(info.message.clone()),
            }));
            self.events.push(events::killing(&info.name, &info.message));
        }
        if self
            .ctx
            .gates
            .enabled(Gate::RestartAllContainersOnContainerExits)
        {
            for r in &a.containers_to_reset {
                let spec = self.container_spec(&r.name);
                if r.kill {
                    // Override 0: no time for a preStop hook.
                    let (grace, pre_stop) = hooks::kill_container(
                        self.ctx.pod,
                        spec,
                        &r.container_id,
                        KillReason::RestartAllContainers,
                        Some(0),
                        self.pod_ip(),
                    );
                    self.steps.push(Step::KillContainer(KillContainerStep {
                        container: Some(r.name.clone()),
                        container_id: Some(r.container_id.clone()),
                        grace_period_seconds: Some(grace),
                        pre_stop,
                        reason: Some("RestartAllContainers".into()),
                        message: Some("killing".into()),
                    }));
                    self.events.push(events::killing(&r.name, "killing"));
                }
                self.steps.push(Step::RemoveContainer(RemoveContainerStep {
                    container: Some(r.name.clone()),
                    container_id: Some(r.container_id.clone()),
                    reason: Some("RestartAllContainers".into()),
                    message: Some("removed before the pod restarts; its logs are kept".into()),
                }));
            }
        }
    }

    fn init_names(&self) -> Vec<&'a str> {
        self.ctx
            .spec
            .init_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|c| c.name.as_str())
            .collect()
    }

    /// `purgeInitContainers`: a new sandbox starts initialisation from scratch.
    fn purge_init_containers(&mut self) {
        for name in self.init_names() {
            for s in self.ctx.status.all_named(name) {
                self.steps.push(Step::RemoveContainer(RemoveContainerStep {
                    container: Some(name.to_string()),
                    container_id: Some(s.id.clone()),
                    reason: Some("PurgeInitContainers".into()),
                    message: Some(
                        "init containers are purged when the sandbox is re-created".into(),
                    ),
                }));
            }
        }
    }

    /// `pruneInitContainersBeforeStart`: keep only the newest exited/unknown instance of
    /// each init container.
    fn prune_init_containers(&mut self) {
        let removed: BTreeSet<String> = self
            .steps
            .iter()
            .filter_map(|s| match s {
                Step::RemoveContainer(r) => r.container_id.clone(),
                _ => None,
            })
            .collect();
        for name in self.init_names() {
            let dead =
                self.ctx.status.all_named(name).filter(|s| {
                    matches!(s.state, ContainerState::Exited | ContainerState::Unknown)
                });
            for s in dead.skip(1) {
                if removed.contains(&s.id) {
                    continue;
                }
                self.steps.push(Step::RemoveContainer(RemoveContainerStep {
                    container: Some(name.to_string()),
                    container_id: Some(s.id.clone()),
                    reason: Some("PruneInitContainers".into()),
                    message: Some(
                        "only the newest terminated instance of an init container is kept".into(),
                    ),
                }));
            }
        }
    }

    fn sandbox(&mut self, plan: &Plan) {
        if plan.actions.create_sandbox {
            // createPodSandbox: the pod's log directory, before RunPodSandbox.
            if let Some(dir) = plan
                .sandbox_config
                .as_ref()
                .map(|c| c.log_directory.as_str())
            {
                self.steps.push(Step::WriteNodeFiles(WriteNodeFilesStep {
                    files: vec![config::files::pod_logs_dir(dir)],
                    message: Some("the pod's log directory, before RunPodSandbox".into()),
                    ..WriteNodeFilesStep::default()
                }));
            }
            self.steps.push(Step::RunPodSandbox(RunPodSandboxStep {
                attempt: Some(plan.actions.attempt),
                message: Some(format!(
                    "create sandbox attempt {} for the pod",
                    plan.actions.attempt
                )),
            }));
        }
    }

    fn resize(&mut self, plan: &Plan) {
        let a = &plan.actions;
        if !self.ctx.resize_allowed {
            return;
        }
        let map = a.containers_to_update.as_ref();
        let any = map.is_some_and(|m| m.values().any(|l| !l.is_empty()));
        if !(any || a.update_pod_resources || a.update_pod_level_resources) {
            return;
        }
        // The exact payloads, as `updatePodContainerResources` and
        // `generateUpdatePodSandboxResourcesRequest` build them.
        let node = self.ctx.request.node.clone().unwrap_or_default();
        let create_sandbox = a.create_sandbox;
        let sandbox_id = if create_sandbox {
            String::new()
        } else {
            a.sandbox_id.clone()
        };
        let sandbox_request = config::resize_requests::sandbox_update_request(
            self.ctx.pod,
            &sandbox_id,
            &node,
            self.ctx.gates,
        );
        let mut calls = map
            .map(|m| {
                config::resize_requests::container_update_calls(
                    self.ctx.pod,
                    m,
                    &node,
                    self.ctx.gates,
                )
            })
            .unwrap_or_default()
            .into_iter();
        for resource in ["memory", "cpu"] {
            let list = map
                .and_then(|m| m.get(resource))
                .map(Vec::as_slice)
                .unwrap_or_default();
            if list.is_empty() && !a.update_pod_resources && !a.update_pod_level_resources {
                continue;
            }
            self.steps.push(Step::UpdatePodSandboxResources(UpdatePodSandboxResourcesStep {
                resource: Some(resource.into()),
                message: Some(format!(
                    "set the pod cgroup's {resource}: before the container updates when it grows, after them when it shrinks"
                )),
                request: Some(StepRequest::UpdatePodSandboxResources(sandbox_request.clone())),
            }));
            for u in list {
                // Calls come in the same order: memory list, then cpu list.
                let call = calls
                    .next()
                    .filter(|c| c.resource == resource && c.container == u.name);
                let (d, c) = match resource {
                    "memory" => (u.desired.memory_limit, u.current.memory_limit),
                    _ => (u.desired.cpu_limit, u.current.cpu_limit),
                };
                self.steps.push(Step::UpdateContainerResources(
                    UpdateContainerResourcesStep {
                        container: Some(u.name.clone()),
                        container_id: Some(u.container_id.clone()),
                        resource: Some(resource.into()),
                        message: Some(format!("{resource} limit {c} -> {d}")),
                        request: call.map(|c| StepRequest::UpdateContainerResources(c.request)),
                    },
                ));
            }
        }
    }

    /// `startContainer` for each container to start, in `SyncPod` order (ephemeral,
    /// init, regular). `configs`: whether the sandbox config could be generated (the
    /// container configs are only generated then).
    fn starts(&mut self, plan: &mut Plan, configs: bool) {
        let a = &plan.actions;
        let order: Vec<(ContainerKind, usize)> = a
            .ephemeral_containers_to_start
            .iter()
            .map(|i| (ContainerKind::Ephemeral, *i))
            .chain(
                a.init_containers_to_start
                    .iter()
                    .map(|i| (ContainerKind::Init, *i)),
            )
            .chain(
                a.containers_to_start
                    .iter()
                    .map(|i| (ContainerKind::Regular, *i)),
            )
            .collect();
        let create_sandbox = a.create_sandbox;
        let sandbox_id = if create_sandbox {
            String::new()
        } else {
            a.sandbox_id.clone()
        };
        // Pod-network pods take their IPs from the sandbox this sync creates.
        let new_sandbox_ips =
            create_sandbox && config::complete::depends_on_new_sandbox(self.ctx.request);
        // GetPodQOS reads every container: once per plan, not once per container.
        let pod_qos = configs.then(|| config::pod_qos_of(self.ctx.request, self.ctx.gates));
        for (kind, idx) in order {
            let Some(spec) = spec_container(self.ctx.spec, kind, idx) else {
                continue;
            };
            let aborts = kind == ContainerKind::Init && !spec.sidecar;
            // startContainer: doBackOff first (not again when this plan continues a start
            // whose image the previous plan pulled) ...
            let continues = self
                .images
                .as_ref()
                .is_some_and(|stage| stage.continues(spec.image));
            if !continues && self.held_back(kind, idx, &spec) {
                if aborts {
                    self.abort(spec.name, "CrashLoopBackOff");
                    return;
                }
                continue;
            }
            // Without a sandbox config (it failed, see `sandbox_config`) the sync returns
            // at the first start that gets this far: nothing is created.
            if !configs {
                self.notes.push((
                    Action::Wait,
                    spec.name.to_string(),
                    "ConfigPodSandboxError",
                    "the sandbox config cannot be generated: SyncPod returns before the first start; nothing is created on this sync".into(),
                ));
                return;
            }
            // ... then startContainer: the image (EnsureImageExists) ...
            let image_ref = match self.image(plan, kind, idx, &spec) {
                ImageGate::Go(image_ref) => image_ref,
                ImageGate::Skip => continue,
                ImageGate::Stop => return,
            };
            // ... then generateContainerConfig ...
            {
                match config::container_for(self.ctx.request, self.ctx.gates, kind, idx, pod_qos) {
                    Ok(mut entry) => {
                        entry.depends_on_new_sandbox = new_sandbox_ips;
                        if let (Some(image_ref), Some(image)) =
                            (image_ref, entry.config.image.as_mut())
                        {
                            image.image = image_ref;
                        }
                        plan.container_configs.push(entry);
                    }
                    Err(err) => {
                        self.events.push(events::failed(spec.name, &err.message));
                        let reason = err.reason.clone();
                        plan.errors.push(err);
                        if aborts {
                            self.abort(spec.name, &reason);
                            return;
                        }
                        continue;
                    }
                }
            }
            // The files generateContainerConfig (kubelet and runtime manager) writes.
            if let Ok(files) =
                config::complete::files_for(self.ctx.request, self.ctx.gates, kind, idx)
            {
                self.steps.push(Step::WriteNodeFiles(WriteNodeFilesStep {
                    container: Some(spec.name.to_string()),
                    kind: Some(kind),
                    index: Some(idx),
                    files,
                    depends_on_new_sandbox: new_sandbox_ips,
                    message: Some(format!(
                        "the files the kubelet writes for {} {} before CreateContainer",
                        kind.noun(),
                        spec.name
                    )),
                }));
            }
            // ... then CreateContainer and StartContainer.
            let restart_count = self.ctx.status.find(spec.name).map_or(0, |s| {
                u32::try_from(s.restart_count.saturating_add(1)).unwrap_or(0)
            });
            self.steps.push(Step::CreateContainer(CreateContainerStep {
                container: Some(spec.name.to_string()),
                kind: Some(kind),
                index: Some(idx),
                sandbox_id: Some(sandbox_id.clone()),
                attempt: Some(restart_count),
                message: Some(format!(
                    "create {} {} (image {})",
                    kind.noun(),
                    spec.name,
                    spec.image
                )),
            }));
            self.events.push(events::created(spec.name));
            let mut start = StartContainerStep {
                container: Some(spec.name.to_string()),
                kind: Some(kind),
                index: Some(idx),
                ..StartContainerStep::default()
            };
            self.post_start(&mut start, kind, idx, create_sandbox);
            self.steps.push(Step::StartContainer(start));
            self.events.push(events::started(spec.name));
        }
    }

    /// `startContainer` step 4: the postStart hook on the `StartContainer` step, with the
    /// kill that follows a failure (`killContainer(…, "FailedPostStartHook",
    /// reasonFailedPostStartHook, no override)`: its grace and preStop).
    fn post_start(
        &self,
        start: &mut StartContainerStep,
        kind: ContainerKind,
        idx: usize,
        new_sandbox: bool,
    ) {
        // Ephemeral containers may not declare lifecycle hooks.
        let c = match kind {
            ContainerKind::Init => self
                .ctx
                .spec
                .init_containers
                .as_deref()
                .and_then(|v| v.get(idx)),
            ContainerKind::Regular => self.ctx.spec.containers.get(idx),
            ContainerKind::Ephemeral => None,
        };
        let Some(c) = c else {
            return;
        };
        let awaits = new_sandbox && config::complete::depends_on_new_sandbox(self.ctx.request);
        let step = if awaits {
            hooks::post_start_step_before_sandbox(c)
        } else {
            hooks::post_start_step(c, self.pod_ip())
        };
        let Some(step) = step else {
            return;
        };
        let (grace, pre_stop) = hooks::kill_container(
            self.ctx.pod,
            Some(c),
            "",
            KillReason::FailedPostStartHook,
            None,
            if awaits { None } else { self.pod_ip() },
        );
        // The hooks' pod IP comes from the new sandbox: `config::complete` fills it in.
        start.depends_on_new_sandbox = awaits;
        start.grace_period_seconds = Some(grace);
        start.pre_stop = pre_stop;
        start.post_start = Some(step);
    }

    /// `startContainer` step 1 (`EnsureImageExists`) when the image manager is on: adds
    /// the `PullImage` step, the held-back start or the start error, with the events and
    /// the note that explain it. `Go` carries the resolved imageRef (`None`: the manager
    /// is off and the config keeps today's image).
    fn image(
        &mut self,
        plan: &mut Plan,
        kind: ContainerKind,
        idx: usize,
        spec: &SpecContainer<'_>,
    ) -> ImageGate {
        let Some(stage) = self.images.as_mut() else {
            return ImageGate::Go(None);
        };
        let (start, events) = stage.ensure(kind, idx, spec.name, spec.image);
        self.events.extend(events);
        let aborts = kind == ContainerKind::Init && !spec.sidecar;
        let (error, held) = match start {
            pull::ImageStart::Ready(image_ref) => return ImageGate::Go(Some(image_ref)),
            pull::ImageStart::Pull(step) => {
                let waits = if let Some(step) = step {
                    self.steps.push(*step);
                    "its image is pulled by the PullImage step of this plan"
                } else {
                    "an earlier container of this plan pulls the same image"
                };
                self.notes.push((
                    Action::Wait,
                    spec.name.to_string(),
                    "PullImage",
                    format!(
                        "{} {} is created by the next plan: {waits} (pull, then re-plan){}",
                        kind.noun(),
                        spec.name,
                        if aborts {
                            "; SyncPod starts nothing after a classic init container"
                        } else {
                            ""
                        }
                    ),
                ));
                return if aborts {
                    ImageGate::Stop
                } else {
                    ImageGate::Skip
                };
            }
            pull::ImageStart::BackOff {
                error,
                until,
                delay_seconds,
            } => (error, Some((until, delay_seconds))),
            pull::ImageStart::Failed(error) => (error, None),
        };
        let reason = error.kind.as_str();
        // startContainer records the error as a Warning `Failed` "Error: <reason>".
        self.events.push(events::failed(spec.name, reason));
        if let Some((until, delay)) = held {
            let now = self.ctx.request.now.map_or(0, |n| n.as_nanosecond());
            let wait_ns = until.as_nanosecond() - now;
            let wait = u64::try_from((wait_ns + 999_999_999) / 1_000_000_000).unwrap_or(0);
            self.held_back.push(HeldBack {
                container: spec.name.to_string(),
                kind: Some(kind),
                index: Some(idx),
                wait_seconds: wait,
                until: Some(until),
                delay_seconds: delay,
                reason: Some(reason.to_string()),
            });
        }
        self.notes.push((
            Action::Wait,
            spec.name.to_string(),
            reason,
            format!(
                "{} {} cannot start: {reason}: {}",
                kind.noun(),
                spec.name,
                error.message
            ),
        ));
        plan.errors.push(crate::plan::ContainerError {
            container: spec.name.to_string(),
            reason: reason.to_string(),
            message: error.message,
        });
        if aborts {
            self.abort(spec.name, reason);
            return ImageGate::Stop;
        }
        ImageGate::Skip
    }

    fn abort(&mut self, name: &str, why: &str) {
        self.notes.push((
            Action::Wait,
            name.to_string(),
            "InitContainerStartFailed",
            format!("init container {name} cannot start on this sync ({why}): SyncPod stops here and starts nothing after it"),
        ));
    }

    /// `doBackOff`: returns true when the start is held back.
    fn held_back(&mut self, kind: ContainerKind, idx: usize, spec: &SpecContainer<'_>) -> bool {
        let Some(table) = self.backoff.as_mut() else {
            return false;
        };
        let Some(exited) = self.ctx.status.newest_exited(spec.name) else {
            return false;
        };
        let key = backoff_key(self.ctx.pod, spec.name, spec.image, spec.resources);
        let finished = exited.finished_at.unwrap_or(jiff::Timestamp::MIN);
        if let Some(until) = table.in_backoff_since(&key, finished) {
            let delay = table.delay_seconds(&key).unwrap_or(0);
            let wait_ns =
                until.as_nanosecond() - self.ctx.request.now.map_or(0, |n| n.as_nanosecond());
            let wait = u64::try_from((wait_ns + 999_999_999) / 1_000_000_000).unwrap_or(0);
            self.held_back.push(HeldBack {
                container: spec.name.to_string(),
                kind: Some(kind),
                index: Some(idx),
                wait_seconds: wait,
                until: Some(until),
                delay_seconds: delay,
                reason: None,
            });
            self.events
                .push(events::back_off(spec.name, &format_pod(self.ctx.pod)));
            self.notes.push((
                Action::Wait,
                spec.name.to_string(),
                "CrashLoopBackOff",
                format!(
                    "{} {} last exited at {finished}; back-off {delay}s holds its start until {until} ({wait}s from now)",
                    kind.noun(),
                    spec.name
                ),
            ));
            return true;
        }
        table.next(&key, spec.name, finished);
        false
    }
}

/// What the image stage lets the start pass do with a container.
enum ImageGate {
    /// Go on to the config, with the resolved imageRef when the image manager is on.
    Go(Option<String>),
    /// Not on this plan: next container.
    Skip,
    /// A classic init container: SyncPod starts nothing after it.
    Stop,
}

fn kill_reason_str(reason: KillReason) -> &'static str {
    match reason {
        KillReason::None => "",
        KillReason::StartupProbe => "StartupProbe",
        KillReason::LivenessProbe => "LivenessProbe",
        KillReason::FailedPostStartHook => "FailedPostStartHook",
        KillReason::Unknown => "Unknown",
        KillReason::RestartAllContainers => "RestartAllContainers",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decision::testutil::{exited, plan, req, running};
    use crate::plan::StepOp;
    use k8s_openapi::api::core::v1::{Pod, PodSpec, Probe};
    use serde_json::json;

    /// The steps that are CRI calls (without `WriteNodeFiles`).
    fn cri(plan: &Plan) -> Vec<&Step> {
        plan.steps
            .iter()
            .filter(|s| s.op() != StepOp::WriteNodeFiles)
            .collect()
    }

    /// The CRI calls in order (the `WriteNodeFiles` steps are checked on their own).
    fn ops(plan: &Plan) -> Vec<String> {
        plan.steps
            .iter()
            .filter(|s| s.op() != StepOp::WriteNodeFiles)
            .map(|s| {
                let who = match s {
                    Step::UpdatePodSandboxResources(u) => u.resource.as_deref(),
                    _ => s.container(),
                };
                format!(
                    "{}{}",
                    s.op(),
                    who.map(|c| format!(" {c}")).unwrap_or_default()
                )
            })
            .collect()
    }

    #[test]
    fn kills_are_sorted_by_id_and_carry_the_kill_message() {
        let spec =
            json!({"containers": [{"name": "a", "image": "new"}, {"name": "b", "image": "new"}]});
        let p = plan(&req(
            spec,
            json!([running("c://9", "a", "old"), running("c://1", "b", "old")]),
            json!({}),
        ));
        assert_eq!(
            ops(&p),
            vec![
                "KillContainer b",
                "KillContainer a",
                "CreateContainer a",
                "StartContainer a",
                "CreateContainer b",
                "StartContainer b"
            ]
        );
        let first = p.steps.first();
        assert_eq!(
            first.and_then(Step::message),
            Some("Container b definition changed, will be restarted")
        );
        assert_eq!(
            p.events
                .first()
                .map(|e| (e.reason.as_str(), e.message.as_str())),
            Some((
                "Killing",
                "Container b definition changed, will be restarted"
            ))
        );
        // Restart counts come from the newest status.
        assert!(matches!(cri(&p).get(2), Some(Step::CreateContainer(c)) if c.attempt == Some(1)));
    }

    #[test]
    fn recreate_kills_the_pod_purges_init_containers_then_runs_a_sandbox() {
        let spec = json!({"initContainers": [{"name": "i", "image": "x"}],
                          "containers": [{"name": "a", "image": "x"}]});
        let mut r = req(
            spec,
            json!([
                running("c://3", "a", "x"),
                exited("c://2", "i", "x", 0),
                exited("c://1", "i", "x", 0)
            ]),
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
        assert_eq!(
            ops(&p),
            vec![
                "KillPod",
                "RemoveContainer i",
                "RemoveContainer i",
                "RunPodSandbox",
                "CreateContainer i",
                "StartContainer i"
            ]
        );
        assert!(matches!(p.steps.first(), Some(Step::KillPod(k)) if k.containers == ["a"]));
        assert!(matches!(cri(&p).get(3), Some(Step::RunPodSandbox(r)) if r.attempt == Some(4)));
        // Starts go into the sandbox this plan creates.
        assert!(matches!(
            cri(&p).get(4),
            Some(Step::CreateContainer(c)) if c.sandbox_id.as_deref() == Some("")
        ));
        let reasons: Vec<&str> = p.events.iter().map(|e| e.reason.as_str()).collect();
        assert_eq!(
            reasons,
            vec!["SandboxChanged", "Killing", "Created", "Started"]
        );
    }

    #[test]
    fn old_init_instances_are_pruned() {
        let spec = json!({"initContainers": [{"name": "i", "image": "x"}],
                          "containers": [{"name": "a", "image": "x"}]});
        let p = plan(&req(
            spec,
            json!([
                running("c://3", "a", "x"),
                exited("c://2", "i", "x", 0),
                exited("c://1", "i", "x", 1)
            ]),
            json!({}),
        ));
        assert_eq!(ops(&p), vec!["RemoveContainer i"]);
        assert!(matches!(
            p.steps.first(),
            Some(Step::RemoveContainer(r)) if r.container_id.as_deref() == Some("c://1")
        ));
    }

    #[test]
    fn resets_kill_then_remove_in_list_order() {
        let spec =
            json!({"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "x"}]});
        let p = plan(&req(
            spec,
            json!([running("c://1", "a", "x"), exited("c://2", "b", "x", 0)]),
            json!({"restartAllContainers": true}),
        ));
        assert_eq!(
            ops(&p),
            vec!["KillContainer a", "RemoveContainer a", "RemoveContainer b"]
        );
        assert!(matches!(
            p.steps.first(),
            Some(Step::KillContainer(k))
                if k.grace_period_seconds == Some(2) && k.message.as_deref() == Some("killing")
        ));
    }

    #[test]
    fn node_files_precede_the_sandbox_and_each_create() {
        let spec = json!({"containers": [{"name": "a", "image": "x",
            "terminationMessagePath": "/dev/termination-log"}]});
        // A running sandbox: only the container's files, which do not wait for a sandbox.
        let p = plan(&req(spec.clone(), json!([]), json!({})));
        let all: Vec<String> = p.steps.iter().map(|s| s.op().to_string()).collect();
        assert_eq!(
            all,
            vec!["WriteNodeFiles", "CreateContainer", "StartContainer"]
        );
        let Step::WriteNodeFiles(container) = &p.steps[0] else {
            panic!("not a WriteNodeFiles step: {:?}", p.steps[0]);
        };
        assert!(!container.depends_on_new_sandbox);
        let purposes: Vec<&str> = container.files.iter().map(|f| f.purpose.as_str()).collect();
        assert_eq!(
            purposes,
            vec![
                "podDir",
                "terminationLogDir",
                "containerLogs",
                "terminationLog"
            ]
        );
        // A new sandbox: its log directory first, and the container's files wait for it.
        let p = plan(&req(spec, json!([]), json!({"runtimeStatus": {}})));
        let all: Vec<String> = p.steps.iter().map(|s| s.op().to_string()).collect();
        assert_eq!(
            all,
            vec![
                "KillPod",
                "WriteNodeFiles",
                "RunPodSandbox",
                "WriteNodeFiles",
                "CreateContainer",
                "StartContainer"
            ]
        );
        assert!(matches!(&p.steps[1], Step::WriteNodeFiles(w) if w.files[0].purpose == "podLogs"));
        assert!(p.steps[3].depends_on_new_sandbox());
        assert!(p.container_configs.iter().all(|e| e.depends_on_new_sandbox));
    }

    #[test]
    fn resize_steps_come_before_starts_with_decreases_first() {
        let spec = json!({"containers": [
            {"name": "b", "image": "x", "resources": {"limits": {"memory": "256Mi"}}},
            {"name": "a", "image": "x", "resources": {"limits": {"memory": "64Mi"}}},
            {"name": "c", "image": "x"}]});
        let p = plan(&req(
            spec,
            json!([running("c://1", "a", "x"), running("c://2", "b", "x")]),
            json!({"actuatedResources": {"containers": {
                "a": {"limits": {"memory": "128Mi"}}, "b": {"limits": {"memory": "128Mi"}}}}}),
        ));
        assert_eq!(
            ops(&p),
            vec![
                "UpdatePodSandboxResources memory",
                "UpdateContainerResources a",
                "UpdateContainerResources b",
                "CreateContainer c",
                "StartContainer c"
            ]
        );
    }

    #[test]
    fn back_off_holds_a_start_and_reports_it() {
        let spec =
            json!({"containers": [{"name": "a", "image": "x"}, {"name": "b", "image": "x"}]});
        let pod_key = |r: &PlanRequest| backoff_key(&r.pod, "a", "x", None);
        let mut r = req(
            spec,
            json!([exited("c://1", "a", "x", 1), exited("c://2", "b", "x", 1)]),
            json!({"now": "2025-01-01T00:00:15Z"}),
        );
        r.backoff = vec![crate::plan::BackoffRecord {
            key: pod_key(&r),
            container: "a".into(),
            delay_seconds: 40,
            last_update: "2024-12-31T23:59:50Z"
                .parse()
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH),
        }];
        let p = plan(&r);
        // The actions are the kubelet's podActions, untouched by back-off.
        assert_eq!(p.actions.containers_to_start, vec![0, 1]);
        assert_eq!(ops(&p), vec!["CreateContainer b", "StartContainer b"]);
        let held = p.held_back.first();
        assert_eq!(
            held.map(|h| (h.container.as_str(), h.wait_seconds, h.delay_seconds)),
            Some(("a", 25, 40))
        );
        assert!(p.events.iter().any(|e| e.reason == "BackOff"
            && e.message == "Back-off restarting failed container a in pod foo_ns(u)"));
        // b got its first record; a's record is unchanged.
        let delays: Vec<(String, u64)> = p
            .backoff
            .iter()
            .map(|b| (b.container.clone(), b.delay_seconds))
            .collect();
        assert_eq!(delays.len(), 2);
        assert!(delays.contains(&("a".to_string(), 40)) && delays.contains(&("b".to_string(), 10)));
        // Without `now` nothing is held back and the records pass through.
        r.now = None;
        let p = plan(&r);
        assert!(p.held_back.is_empty());
        assert_eq!(p.backoff, r.backoff);
    }

    #[test]
    fn a_held_back_classic_init_container_stops_the_sync() {
        let spec = json!({"initContainers": [{"name": "i", "image": "x"}],
                          "ephemeralContainers": [{"name": "dbg", "image": "x"}],
                          "containers": [{"name": "a", "image": "x"}]});
        let mut r = req(
            spec,
            json!([exited("c://1", "i", "x", 1)]),
            json!({"now": "2025-01-01T00:00:01Z"}),
        );
        r.backoff = vec![crate::plan::BackoffRecord {
            key: backoff_key(&r.pod, "i", "x", None),
            container: "i".into(),
            delay_seconds: 10,
            last_update: "2025-01-01T00:00:00Z"
                .parse()
                .unwrap_or(jiff::Timestamp::UNIX_EPOCH),
        }];
        let p = plan(&r);
        assert_eq!(p.actions.init_containers_to_start, vec![0]);
        assert_eq!(ops(&p), vec!["CreateContainer dbg", "StartContainer dbg"]);
        assert!(p.decisions.iter().any(|d| d.reason == "CrashLoopBackOff"));
    }

    fn grace_period(pod: &Pod, c: Option<&Container>, reason: KillReason, o: Option<i64>) -> i64 {
        hooks::kill_container(pod, c, "", reason, o, None).0
    }

    #[test]
    fn grace_period_rules() {
        let mut pod = Pod {
            spec: Some(PodSpec::default()),
            ..Pod::default()
        };
        let probe = Probe {
            termination_grace_period_seconds: Some(7),
            ..Probe::default()
        };
        let c = Container {
            liveness_probe: Some(probe),
            ..Container::default()
        };
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::LivenessProbe, None),
            2
        );
        if let Some(s) = pod.spec.as_mut() {
            s.termination_grace_period_seconds = Some(30);
        }
        assert_eq!(grace_period(&pod, Some(&c), KillReason::None, None), 30);
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::LivenessProbe, None),
            7
        );
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::StartupProbe, None),
            30
        );
        assert_eq!(grace_period(&pod, Some(&c), KillReason::None, Some(0)), 2);
        pod.metadata.deletion_grace_period_seconds = Some(5);
        assert_eq!(
            grace_period(&pod, Some(&c), KillReason::LivenessProbe, None),
            5
        );
    }

    #[test]
    fn ops_print_and_compare_as_strings() {
        assert_eq!(
            StepOp::UpdateContainerResources.to_string(),
            "UpdateContainerResources"
        );
        assert!(StepOp::KillPod == "KillPod");
        let json = serde_json::to_string(&Step::RunPodSandbox(RunPodSandboxStep {
            attempt: Some(1),
            ..RunPodSandboxStep::default()
        }))
        .unwrap_or_default();
        assert_eq!(json, r#"{"op":"RunPodSandbox","attempt":1}"#);
    }
}
