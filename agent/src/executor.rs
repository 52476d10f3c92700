//! Carrying out a plan's steps over a [`CriRuntime`], in order, as `SyncPod` does.
//!
//! - `KillPod`: `StopContainer` for each running container the step names (its grace
//!   period), then `StopPodSandbox` for every sandbox of the pod; a failure ends the sync.
//! - `KillContainer` (a failure ends the sync), `RemoveContainer` (a failure is logged).
//! - First the pod's directory (`makePodDataDirs`): a failure ends the sync before any
//!   CRI call (event `Failed`).
//! - `WriteNodeFiles`: the directories and files the kubelet writes on the node; the
//!   sandbox's log directory failing is the sandbox's failure, a container's files
//!   failing skip that container (`CreateContainerConfigError`).
//! - `RunPodSandbox` (a failure ends the sync), then `PodSandboxStatus`; the new id fills
//!   the empty `sandboxId` of the later steps, and a plan whose configs depend on the new
//!   sandbox is completed from its status (`podplan_core::api::complete`).
//! - `UpdatePodSandboxResources` (`Unimplemented` is only logged) and
//!   `UpdateContainerResources`: a failure is logged.
//! - `CreateContainer` with the plan's `containerConfigs` entry, then `StartContainer`: a
//!   failed classic init container ends the sync, any other failed start skips only that
//!   container. A started container's `postStart` hook runs next (`super::hooks`); when it
//!   fails, the container is killed as the step says (its `preStop` first, with the step's
//!   grace) and the start fails with `PostStartHookError`.
//! - `KillContainer` and `KillPod` run the step's `preStop` hooks before each
//!   `StopContainer`, which then gets what is left of the grace period.
//! - `PullImage`: one `PullImage` per auth entry (`super::images::pull`); the result is
//!   reported in the next request's `pullResults`, which plans the container's start.
//!
//! The hook and pull results are in the [`Execution`] (`hook_results`, `pull_results`).
//!
//! Failures carry the kubelet's sync-result reasons (`CreateContainerError`, ...) and
//! event reasons (`Failed`, `FailedCreatePodSandBox`, ...). Nothing is retried here: the
//! next sync plans again from what the runtime then reports.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use podplan_core::cri::StepRequest;
use podplan_core::hooks::{HookResult, HookStep};
use podplan_core::plan::{
    CreateContainerStep, KillPodStep, NodeFile, NodeFileKind, Plan, PullResultRecord,
    StartContainerStep, Step, StepOp,
};
use podplan_core::runtime::{ContainerState, SandboxStatus};
use podplan_core::PlanRequest;
use serde::Serialize;

use super::runtime::{bare_id, CriCode, CriError, CriRuntime};

/// One failure of a sync, as the kubelet reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SyncFailure {
    /// The step's index in the plan.
    pub step: usize,
    /// The kubelet's sync-result reason (`CreateContainerError`, `RunContainerError`,
    /// `KillContainerError`, `KillPodSandboxError`, `CreatePodSandboxError`, ...), empty
    /// for a failure without one (`PodSandboxStatus`, the pod directories).
    pub reason: String,
    /// The event reason the kubelet records (`Failed`, `FailedCreatePodSandBox`,
    /// `FailedPodSandBoxStatus`, ...), empty when it records none.
    pub event: String,
    /// The container concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The message.
    pub message: String,
}

/// What became of one step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    /// The step's index in the plan.
    pub index: usize,
    /// Its op.
    pub op: StepOp,
    /// The container concerned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// `done`, `failed`, `skipped` or `logged` (a failure that changes nothing else).
    pub outcome: &'static str,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

/// The result of carrying out one plan.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Execution {
    /// Each step that was reached, in order.
    pub steps: Vec<StepRecord>,
    /// The failures.
    pub failures: Vec<SyncFailure>,
    /// Why the sync ended before its last step, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aborted: Option<String>,
    /// The sandbox this sync created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_sandbox: Option<String>,
    /// Containers created, name → bare id.
    pub created: BTreeMap<String, String>,
    /// What the hooks run reported (the next request's `hookResults`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub hook_results: Vec<HookResult>,
    /// The results of the `PullImage` steps (the next request's `pullResults`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pull_results: Vec<PullResultRecord>,
}

impl Execution {
    /// No step failed.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Carries out `plan` (computed for `request`) over `cri`. The plan is completed in place
/// after `RunPodSandbox` when its configs depend on the new sandbox.
pub fn execute(cri: &mut dyn CriRuntime, request: &PlanRequest, plan: &mut Plan) -> Execution {
    let mut run = Run {
        cri,
        request,
        exec: Execution::default(),
        failed_containers: BTreeSet::new(),
        runtime_name: None,
    };
    // `makePodDataDirs`: the kubelet makes the pod's directory before anything else of
    // the sync; a failure ends the sync before any CRI call.
    let pod_dirs: Vec<NodeFile> = plan
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::WriteNodeFiles(write) => Some(write.files.iter()),
            _ => None,
        })
        .flatten()
        .filter(|f| f.purpose == "podDir")
        .cloned()
        .collect();
    if let Err((_, e)) = write_node_files(&pod_dirs) {
        let msg = format!("error making pod data directories: {e}");
        let first = first_step(plan);
        run.fail(0, &first, "", "Failed", msg.clone());
        run.exec.aborted = Some(msg);
        return run.exec;
    }
    // The volume manager mounts the pod's volumes before `SyncPod` starts containers.
    if plan
        .steps
        .iter()
        .any(|s| matches!(s, Step::CreateContainer(_)))
    {
        let root_dir = request
            .node
            .as_ref()
            .and_then(|n| n.kubelet.root_dir.clone())
            .unwrap_or_else(|| podplan_core::request::node::DEFAULT_ROOT_DIR.to_string());
        if let Err(e) = super::volumes::set_up_empty_dirs(&request.pod, &root_dir) {
            let msg = format!("Unable to attach or mount volumes: {e}");
            let first = first_step(plan);
            run.fail(0, &first, "", "FailedMount", msg.clone());
            run.exec.aborted = Some(msg);
            return run.exec;
        }
    }
    let mut index = 0;
    while let Some(step) = plan.steps.get(index).cloned() {
        match run.step(index, &step, plan) {
            Flow::Next => index += 1,
            Flow::Abort(why) => {
                run.exec.aborted = Some(why);
                break;
            }
        }
    }
    run.exec
}

/// The step a failure before the first step is recorded against: the first step, or
/// an empty `KillPod` when the plan has none.
fn first_step(plan: &Plan) -> Step {
    plan.steps
        .first()
        .cloned()
        .unwrap_or_else(|| Step::KillPod(KillPodStep::default()))
}

enum Flow {
    Next,
    Abort(String),
}

struct Run<'a> {
    cri: &'a mut dyn CriRuntime,
    request: &'a PlanRequest,
    exec: Execution,
    failed_containers: BTreeSet<String>,
    runtime_name: Option<String>,
}

impl Run<'_> {
    fn record(&mut self, index: usize, step: &Step, outcome: &'static str, detail: String) {
        self.exec.steps.push(StepRecord {
            index,
            op: step.op(),
            container: step.container().map(str::to_string),
            outcome,
            detail,
        });
    }

    /// A removal's result: done, also when the object is already gone (`NotFound`); any
    /// other error is only logged (`warn`) and the sync goes on, as the kubelet's garbage
    /// collection does.
    fn removed(
        &mut self,
        index: usize,
        step: &Step,
        result: Result<(), CriError>,
        warn: impl FnOnce(&CriError),
    ) -> Flow {
        match result {
            Ok(()) => self.record(index, step, "done", String::new()),
            Err(e) if e.code == CriCode::NotFound => {
                self.record(index, step, "done", e.to_string());
            }
            Err(e) => {
                warn(&e);
                self.record(index, step, "logged", e.to_string());
            }
        }
        Flow::Next
    }

    fn fail(&mut self, index: usize, step: &Step, reason: &str, event: &str, message: String) {
        tracing::warn!(
            op = %step.op(),
            container = step.container().unwrap_or(""),
            reason,
            event,
            "{message}"
        );
        self.exec.failures.push(SyncFailure {
            step: index,
            reason: reason.into(),
            event: event.into(),
            container: step.container().map(str::to_string),
            message: message.clone(),
        });
        self.record(index, step, "failed", message);
    }

    fn sandbox_for(&self, create: &CreateContainerStep) -> Option<String> {
        match create.sandbox_id.as_deref() {
            Some(id) if !id.is_empty() => Some(id.to_string()),
            _ => self.exec.new_sandbox.clone(),
        }
    }

    /// A classic (non-restartable) init container: its failed start ends the sync.
    fn classic_init(&self, name: &str) -> bool {
        let spec = self.request.pod.spec.as_ref();
        spec.and_then(|s| s.init_containers.as_ref())
            .and_then(|list| list.iter().find(|c| c.name == name))
            .is_some_and(|c| c.restart_policy.as_deref() != Some("Always"))
    }

    fn step(&mut self, index: usize, step: &Step, plan: &mut Plan) -> Flow {
        match step {
            Step::KillPod(kill) => self.kill_pod(index, step, kill),
            Step::KillContainer(kill) => {
                let id = kill.container_id.as_deref().unwrap_or("");
                let grace = self.before_stop(
                    id,
                    kill.pre_stop.as_ref(),
                    kill.grace_period_seconds.unwrap_or(0),
                );
                match self.cri.stop_container(bare_id(id), grace) {
                    Ok(()) => {
                        self.record(index, step, "done", String::new());
                        Flow::Next
                    }
                    Err(e) if e.code == CriCode::NotFound => {
                        self.record(index, step, "done", e.to_string());
                        Flow::Next
                    }
                    Err(e) => {
                        let msg = format!("failed to kill container {id}: {e}");
                        self.fail(index, step, "KillContainerError", "", msg.clone());
                        Flow::Abort(msg)
                    }
                }
            }
            Step::RemoveContainer(remove) => {
                let id = remove.container_id.as_deref().unwrap_or("");
                let result = self.cri.remove_container(bare_id(id));
                self.removed(index, step, result, |e| {
                    tracing::warn!(container = id, "failed to remove container: {e}");
                })
            }
            Step::RemovePodSandbox(remove) => {
                let id = remove.sandbox_id.as_deref().unwrap_or("");
                let result = self.cri.remove_pod_sandbox(id);
                self.removed(index, step, result, |e| {
                    tracing::warn!(sandbox = id, "failed to remove sandbox: {e}");
                })
            }
            Step::CleanupPod(cleanup) => {
                // Directories are removed here; the pod cgroup is the runtime's (runc
                // removes it with the sandbox) while the agent configures no pod cgroups.
                let mut notes = Vec::new();
                for p in &cleanup.paths {
                    if p.purpose == "podCgroup" {
                        notes.push(format!("{}: skipped (no pod cgroup managed)", p.path));
                        continue;
                    }
                    match std::fs::remove_dir_all(&p.path) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => notes.push(format!("{}: {e}", p.path)),
                    }
                }
                self.record(index, step, "done", notes.join("; "));
                Flow::Next
            }
            Step::WriteNodeFiles(write) => match write_node_files(&write.files) {
                Ok(()) => {
                    self.record(index, step, "done", String::new());
                    Flow::Next
                }
                Err((purpose, e)) => match write.container.clone() {
                    Some(name) => {
                        self.failed_containers.insert(name);
                        self.fail(
                            index,
                            step,
                            "CreateContainerConfigError",
                            "Failed",
                            format!("Error: {e}"),
                        );
                        Flow::Next
                    }
                    // The sandbox's log directory is made by `createPodSandbox`: its
                    // failure is the sandbox's.
                    None if purpose == "podLogs" => {
                        let msg = format!(
                            "Failed to create pod sandbox: create pod log directory failed: {e}"
                        );
                        self.fail(
                            index,
                            step,
                            "CreatePodSandboxError",
                            "FailedCreatePodSandBox",
                            msg.clone(),
                        );
                        Flow::Abort(msg)
                    }
                    // `makePodDataDirs` (and the hosts file): the sync ends.
                    None => {
                        let msg = format!("error making pod data directories: {e}");
                        self.fail(index, step, "", "Failed", msg.clone());
                        Flow::Abort(msg)
                    }
                },
            },
            Step::RunPodSandbox(_) => self.run_sandbox(index, step, plan),
            Step::UpdatePodSandboxResources(update) => {
                let Some(StepRequest::UpdatePodSandboxResources(mut req)) = update.request.clone()
                else {
                    self.record(index, step, "skipped", "no request".into());
                    return Flow::Next;
                };
                if req.pod_sandbox_id.is_empty() {
                    req.pod_sandbox_id = self.exec.new_sandbox.clone().unwrap_or_default();
                }
                match self.cri.update_pod_sandbox_resources(&req) {
                    Ok(()) => self.record(index, step, "done", String::new()),
                    Err(e) if e.code == CriCode::Unimplemented => {
                        tracing::info!(
                            "the runtime does not implement UpdatePodSandboxResources: {e}"
                        );
                        self.record(index, step, "logged", e.to_string());
                    }
                    Err(e) => {
                        tracing::warn!("UpdatePodSandboxResources failed: {e}");
                        self.record(index, step, "logged", e.to_string());
                    }
                }
                Flow::Next
            }
            Step::UpdateContainerResources(update) => {
                let Some(StepRequest::UpdateContainerResources(mut req)) = update.request.clone()
                else {
                    self.record(index, step, "skipped", "no request".into());
                    return Flow::Next;
                };
                req.container_id = bare_id(&req.container_id).to_string();
                match self.cri.update_container_resources(&req) {
                    Ok(()) => self.record(index, step, "done", String::new()),
                    Err(e) => {
                        tracing::warn!("UpdateContainerResources failed: {e}");
                        self.record(index, step, "logged", e.to_string());
                    }
                }
                Flow::Next
            }
            Step::CreateContainer(create) => self.create(index, step, create, plan),
            Step::StartContainer(start) => self.start(index, step, start),
            Step::PullImage(pull) => {
                let sandbox_config = plan.sandbox_config.clone().unwrap_or_default();
                let now = self.request.now.unwrap_or_else(jiff::Timestamp::now);
                let record = super::images::pull(self.cri, pull, &sandbox_config, now);
                match (&record.result.image_ref, &record.result.error) {
                    (Some(image_ref), _) => {
                        tracing::info!(image = %record.image, %image_ref, "pulled");
                        self.record(index, step, "done", image_ref.clone());
                    }
                    (None, error) => {
                        let error = error.clone().unwrap_or_default();
                        tracing::warn!(image = %record.image, "PullImage failed: {error}");
                        self.record(index, step, "failed", error);
                    }
                }
                self.exec.pull_results.push(record);
                Flow::Next
            }
        }
    }

    fn kill_pod(&mut self, index: usize, step: &Step, kill: &KillPodStep) -> Flow {
        let status = self.request.runtime_status.clone().unwrap_or_default();
        let names: BTreeSet<&str> = kill.containers.iter().map(String::as_str).collect();
        let running: Vec<&podplan_core::runtime::ContainerStatus> = status
            .container_statuses
            .iter()
            .filter(|c| c.state == ContainerState::Running)
            .filter(|c| names.is_empty() || names.contains(c.name.as_str()))
            .collect();
        let pod_ip = status.ips.first().cloned();
        // The engine's kills (order, grace, preStop) are carried out as they are; a plan
        // from an older module without them falls back to the agent's own reading.
        let kills = if kill.kills.is_empty() {
            pod_kills(
                Some(&self.request.pod),
                running,
                Some(&kill.pre_stops),
                self.cri,
                pod_ip.as_deref(),
            )
        } else {
            let mut planned = kill.kills.clone();
            planned.sort_by_key(|k| k.order);
            planned
                .into_iter()
                .map(|k| PodKill {
                    container: k.container,
                    container_id: k.container_id,
                    grace_period_seconds: k.stop_grace_period_seconds,
                    pre_stop: k.pre_stop,
                })
                .collect()
        };
        let mut errors = Vec::new();
        for container in kills {
            let grace = self.before_stop(
                &container.container_id,
                container.pre_stop.as_ref(),
                container.grace_period_seconds,
            );
            if let Err(e) = self
                .cri
                .stop_container(bare_id(&container.container_id), grace)
            {
                if e.code != CriCode::NotFound {
                    errors.push((
                        "KillContainerError",
                        format!("failed to kill container {}: {e}", container.container_id),
                    ));
                }
            }
        }
        // `killPodWithSyncResult` stops the sandboxes after the containers, also when a
        // container's kill failed.
        let sandboxes: Vec<String> = if kill.sandbox_ids.is_empty() {
            status
                .sandbox_statuses
                .iter()
                .map(|sb| sb.id.clone())
                .collect()
        } else {
            kill.sandbox_ids.clone()
        };
        for id in &sandboxes {
            if let Err(e) = self.cri.stop_pod_sandbox(id) {
                if e.code != CriCode::NotFound {
                    errors.push((
                        "KillPodSandboxError",
                        format!("failed to stop sandbox {id}: {e}"),
                    ));
                }
            }
        }
        if errors.is_empty() {
            self.record(index, step, "done", String::new());
            return Flow::Next;
        }
        let message = errors
            .iter()
            .map(|(_, m)| m.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        for (reason, msg) in errors {
            self.fail(index, step, reason, "", msg);
        }
        Flow::Abort(message)
    }

    fn run_sandbox(&mut self, index: usize, step: &Step, plan: &mut Plan) -> Flow {
        let Some(config) = plan.sandbox_config.clone() else {
            let msg = "the plan has no sandbox config".to_string();
            self.fail(
                index,
                step,
                "CreatePodSandboxError",
                "FailedCreatePodSandBox",
                msg.clone(),
            );
            return Flow::Abort(msg);
        };
        let handler = self
            .request
            .node
            .as_ref()
            .and_then(|n| n.runtime_handler.clone())
            .unwrap_or_default();
        let id = match self.cri.run_pod_sandbox(&config, &handler) {
            Ok(id) => id,
            Err(e) => {
                let msg = format!("Failed to create pod sandbox: {e}");
                self.fail(
                    index,
                    step,
                    "CreatePodSandboxError",
                    "FailedCreatePodSandBox",
                    msg.clone(),
                );
                return Flow::Abort(msg);
            }
        };
        self.exec.new_sandbox = Some(id.clone());
        let status = match self.cri.pod_sandbox_status(&id) {
            Ok(status) => status,
            Err(e) => {
                let msg = format!("Unable to get pod sandbox status: {e}");
                self.fail(index, step, "", "FailedPodSandBoxStatus", msg.clone());
                return Flow::Abort(msg);
            }
        };
        self.record(index, step, "done", id);
        let depends = plan.steps.iter().any(Step::depends_on_new_sandbox)
            || plan
                .container_configs
                .iter()
                .any(|c| c.depends_on_new_sandbox);
        if depends {
            match complete(self.request, &status) {
                Ok(completed) => {
                    // The completed plan has the same steps up to this one; later ones of
                    // a container whose config now fails are gone.
                    *plan = completed;
                }
                Err(e) => {
                    let msg = format!("cannot complete the plan from the new sandbox: {e}");
                    self.fail(index, step, "CreateContainerConfigError", "", msg.clone());
                    return Flow::Abort(msg);
                }
            }
        }
        Flow::Next
    }

    fn create(
        &mut self,
        index: usize,
        step: &Step,
        create: &CreateContainerStep,
        plan: &Plan,
    ) -> Flow {
        let name = create.container.clone().unwrap_or_default();
        if self.failed_containers.contains(&name) {
            self.record(
                index,
                step,
                "skipped",
                "an earlier step of this container failed".into(),
            );
            return self.after_failed_start(&name);
        }
        let Some(entry) = plan.container_configs.iter().find(|e| e.name == name) else {
            self.record(index, step, "skipped", "no container config".into());
            return Flow::Next;
        };
        let Some(sandbox) = self.sandbox_for(create) else {
            self.failed_containers.insert(name.clone());
            self.fail(
                index,
                step,
                "CreateContainerError",
                "Failed",
                "Error: no sandbox to create the container in".into(),
            );
            return self.after_failed_start(&name);
        };
        let sandbox_config = plan.sandbox_config.clone().unwrap_or_default();
        match self
            .cri
            .create_container(&sandbox, &entry.config, &sandbox_config)
        {
            Ok(id) => {
                self.exec.created.insert(name, id.clone());
                self.record(index, step, "done", id);
                Flow::Next
            }
            Err(e) => {
                self.failed_containers.insert(name.clone());
                self.fail(
                    index,
                    step,
                    "CreateContainerError",
                    "Failed",
                    format!("Error: {e}"),
                );
                self.after_failed_start(&name)
            }
        }
    }

    fn start(&mut self, index: usize, step: &Step, start: &StartContainerStep) -> Flow {
        let name = start.container.clone().unwrap_or_default();
        let Some(id) = self.exec.created.get(&name).cloned() else {
            self.record(
                index,
                step,
                "skipped",
                "the container was not created".into(),
            );
            return Flow::Next;
        };
        match self.cri.start_container(&id) {
            Ok(()) => {
                self.record(index, step, "done", id.clone());
                match start.post_start.as_ref() {
                    Some(hook) => self.post_start(index, step, start, hook, &id, &name),
                    None => Flow::Next,
                }
            }
            Err(e) => {
                self.failed_containers.insert(name.clone());
                self.fail(
                    index,
                    step,
                    "RunContainerError",
                    "Failed",
                    format!("Error: {e}"),
                );
                self.after_failed_start(&name)
            }
        }
    }

    /// The `<runtime>://id` of a container the agent created (as the runtime status and
    /// `hookResults` name it).
    fn full_id(&mut self, bare: &str) -> String {
        if self.runtime_name.is_none() {
            let name = self.cri.runtime_name().unwrap_or_else(|e| {
                tracing::warn!("cannot tell the runtime's name: {e}");
                String::new()
            });
            self.runtime_name = Some(name);
        }
        match self.runtime_name.as_deref() {
            Some(name) if !name.is_empty() => format!("{name}://{bare}"),
            _ => bare.to_string(),
        }
    }

    /// The preStop hook of a kill (if the step has one) before `StopContainer` of `id`:
    /// the grace period `StopContainer` gets (`default` without a hook).
    fn before_stop(&mut self, id: &str, pre_stop: Option<&HookStep>, default: i64) -> i64 {
        let Some(hook) = pre_stop else {
            return default;
        };
        let result = super::hooks::pre_stop(self.cri, hook, id);
        if result.failed() {
            let message = super::hooks::failure_message(hook, &self.request.pod, &result);
            tracing::warn!(
                container = %hook.container,
                reason = %hook.on_failure.event.reason,
                "{}: {message}",
                hook.on_failure.event.message
            );
        }
        let grace = result.stop_grace_period_seconds.unwrap_or(default);
        self.exec.hook_results.push(result);
        grace
    }

    /// `startContainer` step 4: the postStart hook of a started container. A failure
    /// kills the container as the step says (its preStop first, with the step's grace)
    /// and fails the start with `PostStartHookError`.
    fn post_start(
        &mut self,
        index: usize,
        step: &Step,
        start: &StartContainerStep,
        hook: &HookStep,
        bare: &str,
        name: &str,
    ) -> Flow {
        let id = self.full_id(bare);
        let Some(result) = super::hooks::post_start(self.cri, hook, &id) else {
            return Flow::Next;
        };
        let message = super::hooks::failure_message(hook, &self.request.pod, &result);
        self.exec.hook_results.push(result);
        let grace = self.before_stop(
            &id,
            start.pre_stop.as_ref(),
            start.grace_period_seconds.unwrap_or(0),
        );
        if let Err(e) = self.cri.stop_container(bare, grace) {
            if e.code != CriCode::NotFound {
                tracing::warn!(
                    container = name,
                    "killing the container after its failed postStart hook: {e}"
                );
            }
        }
        self.failed_containers.insert(name.to_string());
        let reason = hook
            .on_failure
            .start_error
            .clone()
            .unwrap_or_else(|| podplan_core::hooks::ERR_POST_START_HOOK.to_string());
        let event = hook.on_failure.event.reason.clone();
        self.fail(index, step, &reason, &event, message);
        self.after_failed_start(name)
    }

    fn after_failed_start(&self, name: &str) -> Flow {
        // `SyncPod`: a failed classic init container ends the sync; a restartable one
        // (sidecar) or a regular container is only skipped.
        if self.classic_init(name) {
            Flow::Abort(format!("init container {name} failed to start"))
        } else {
            Flow::Next
        }
    }
}

/// One container of a pod kill, as `killContainersWithSyncResult` hands it to
/// `killContainer`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodKill {
    /// The container's name.
    pub container: String,
    /// Its `<runtime>://id`.
    pub container_id: String,
    /// What `StopContainer` gets when no preStop hook runs (at least 2 s).
    pub grace_period_seconds: i64,
    /// The preStop hook to run first (its `timeoutSeconds` is the grace period).
    pub pre_stop: Option<HookStep>,
}

/// The kills of a pod's `running` containers, in the kubelet's order, with the grace
/// period and preStop hook of each: the ONE place the agent decides them (a `KillPod`
/// step and the removal of a pod whose manifest is gone). Until the core's `KillPod`
/// step carries them itself, they come from:
///
/// * order: [`kill_order`] (regular containers, then sidecars in reverse spec order);
/// * grace (`setTerminationGracePeriod`): the step's preStop `timeoutSeconds` (the
///   engine's, on the API-defaulted pod); else the pod's deletion or termination grace
///   period; else what the container's annotations say
///   (`io.kubernetes.pod.terminationGracePeriod`, written from the API-defaulted pod
///   when the container was created); else the kubelet's minimum, 2 s;
/// * preStop: the step's (`step_pre_stops`); without a step, the pod's container spec
///   (`podplan_core::hooks::pre_stop_step`); without a pod (the agent restarted after
///   the manifest was removed), rebuilt from the container's annotations, as
///   `restoreSpecsFromContainerLabels` (`pkg/kubelet/kuberuntime/labels.go`) does.
pub fn pod_kills(
    pod: Option<&k8s_openapi::api::core::v1::Pod>,
    running: Vec<&podplan_core::runtime::ContainerStatus>,
    step_pre_stops: Option<&[HookStep]>,
    cri: &mut dyn CriRuntime,
    pod_ip: Option<&str>,
) -> Vec<PodKill> {
    use podplan_core::config::labels::{
        CONTAINER_PRESTOP_HANDLER, POD_DELETION_GRACE_PERIOD, POD_TERMINATION_GRACE_PERIOD,
    };
    let empty = k8s_openapi::api::core::v1::Pod::default();
    let ordered = kill_order(pod.unwrap_or(&empty), running);
    let mut kills = Vec::new();
    for c in ordered {
        let spec = pod.and_then(|p| p.spec.as_ref()).and_then(|s| {
            s.containers
                .iter()
                .chain(s.init_containers.iter().flatten())
                .find(|x| x.name == c.name)
        });
        let from_pod = pod.and_then(|p| {
            p.metadata.deletion_grace_period_seconds.or_else(|| {
                p.spec
                    .as_ref()
                    .and_then(|s| s.termination_grace_period_seconds)
            })
        });
        let step_hook = step_pre_stops.and_then(|hooks| {
            hooks
                .iter()
                .find(|h| h.container_id.as_deref() == Some(c.id.as_str()))
        });
        // The annotations are read only when the pod cannot tell.
        let needs_annotations = step_hook.is_none() && (from_pod.is_none() || pod.is_none());
        let annotations = if needs_annotations {
            cri.container_annotations(bare_id(&c.id))
                .unwrap_or_else(|e| {
                    tracing::debug!(container = %c.id, "cannot read the container's annotations: {e}");
                    BTreeMap::new()
                })
        } else {
            BTreeMap::new()
        };
        let annotated = |key: &str| annotations.get(key).and_then(|v| v.parse::<i64>().ok());
        let grace = step_hook
            .and_then(|h| h.timeout_seconds)
            .or(from_pod)
            .or_else(|| annotated(POD_DELETION_GRACE_PERIOD))
            .or_else(|| annotated(POD_TERMINATION_GRACE_PERIOD))
            .unwrap_or(podplan_core::hooks::MINIMUM_GRACE_PERIOD_SECONDS);
        let pre_stop = match (step_pre_stops, spec) {
            (Some(_), _) => step_hook.cloned(),
            (None, Some(spec)) => podplan_core::hooks::pre_stop_step(spec, pod_ip, grace),
            (None, None) => {
                let handler = annotations
                    .get(CONTAINER_PRESTOP_HANDLER)
                    .and_then(|text| serde_json::from_str(text).ok());
                handler.and_then(|pre_stop| {
                    let restored = k8s_openapi::api::core::v1::Container {
                        name: c.name.clone(),
                        lifecycle: Some(k8s_openapi::api::core::v1::Lifecycle {
                            pre_stop: Some(pre_stop),
                            ..Default::default()
                        }),
                        ..Default::default()
                    };
                    podplan_core::hooks::pre_stop_step(&restored, pod_ip, grace)
                })
            }
        }
        .map(|mut hook| {
            hook.container_id.get_or_insert_with(|| c.id.clone());
            hook
        });
        kills.push(PodKill {
            container: c.name.clone(),
            container_id: c.id.clone(),
            grace_period_seconds: grace.max(podplan_core::hooks::MINIMUM_GRACE_PERIOD_SECONDS),
            pre_stop,
        });
    }
    kills
}

/// `killContainersWithSyncResult`'s order: regular containers first, then sidecars
/// (restartable init containers) in reverse spec order.
#[must_use]
pub fn kill_order<'a>(
    pod: &k8s_openapi::api::core::v1::Pod,
    mut running: Vec<&'a podplan_core::runtime::ContainerStatus>,
) -> Vec<&'a podplan_core::runtime::ContainerStatus> {
    let init: Vec<&str> = pod
        .spec
        .as_ref()
        .and_then(|s| s.init_containers.as_ref())
        .map(|l| l.iter().map(|c| c.name.as_str()).collect())
        .unwrap_or_default();
    // Regular (not an init container) first; then init containers, last in spec first.
    running.sort_by_key(|c| match init.iter().position(|n| *n == c.name) {
        None => (0, 0),
        Some(i) => (1, usize::MAX - i),
    });
    running
}

/// Whether a plan's event reports something that happened: an event about a step
/// (`Created`, `Started`, `Killing`, `Pulling`) only once that step was carried out,
/// as the kubelet records it after the call succeeded; any other event at once.
#[must_use]
pub fn event_happened(event: &podplan_core::plan::Event, steps: &[StepRecord]) -> bool {
    let ops: &[StepOp] = match event.reason.as_str() {
        "Created" => &[StepOp::CreateContainer],
        "Started" => &[StepOp::StartContainer],
        "Killing" => &[StepOp::KillContainer, StepOp::KillPod],
        "Pulling" => &[StepOp::PullImage],
        _ => return true,
    };
    steps.iter().any(|r| {
        ops.contains(&r.op)
            && r.outcome != "skipped"
            && (r.op == StepOp::KillPod
                || r.op == StepOp::PullImage && r.container.is_none()
                || r.container == event.container)
            && (r.outcome == "done" || matches!(r.op, StepOp::PullImage))
    })
}

/// Completes `request`'s plan from the new sandbox's status ([`podplan_core::api::complete`]).
fn complete(request: &PlanRequest, sandbox: &SandboxStatus) -> Result<Plan, String> {
    podplan_core::api::complete(request, sandbox).map_err(|e| format!("{}: {}", e.path, e.message))
}

/// Creates the directories and files of a `WriteNodeFiles` step, in order.
///
/// # Errors
///
/// The first file that cannot be written.
pub fn write_node_files(files: &[NodeFile]) -> Result<(), (String, String)> {
    for f in files {
        write_node_file(f).map_err(|e| {
            (
                f.purpose.clone(),
                format!("{} ({}): {e}", f.path, f.purpose),
            )
        })?;
    }
    Ok(())
}

fn write_node_file(f: &NodeFile) -> std::io::Result<()> {
    let path = Path::new(&f.path);
    match f.kind {
        // `MkdirAll`: an existing directory is kept as it is.
        NodeFileKind::Directory if path.is_dir() => return Ok(()),
        NodeFileKind::Directory => std::fs::create_dir_all(path)?,
        NodeFileKind::File => {
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let mut bytes = f.content.clone().unwrap_or_default().into_bytes();
            if let Some(include) = &f.include {
                bytes.extend(std::fs::read(&include.path)?);
                bytes.extend(include.suffix.as_bytes());
            }
            std::fs::write(path, bytes)?;
        }
    }
    set_mode(path, &f.mode)
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: &str) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    match u32::from_str_radix(mode.trim_start_matches("0o"), 8) {
        Ok(bits) => std::fs::set_permissions(path, std::fs::Permissions::from_mode(bits)),
        Err(_) => Ok(()),
    }
}

#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: &str) -> std::io::Result<()> {
    Ok(())
}

/// A failure of the whole sync that is not a step's: the runtime could not be listed.
#[must_use]
pub fn unreachable(endpoint: &str, e: &CriError) -> String {
    format!("cannot reach the CRI runtime at {endpoint}: {e}")
}
