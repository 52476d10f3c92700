//! Containers: `CreateContainer`, `StartContainer`, `StopContainer`, `RemoveContainer`,
//! `UpdateContainerResources`, `ExecSync`, scripted exits, and the containers as the node
//! reports them.

use super::error::{CriCode, CriError};
use super::pods::{self, derive_id};
use super::records::{ContainerRecord, ContainerView, ExecResult};
use super::store::{full_id, seconds_after, Node};
use crate::config::labels::{CONTAINER_HASH, CONTAINER_RESTART_COUNT};
use crate::cri::{ContainerConfig, LinuxContainerResources};
use crate::runtime::{ContainerState, ContainerStatus, SandboxState};
use crate::sim::model::{plus_millis, KILLED_EXIT_CODE, SIGTERM_EXIT_CODE};

impl Node {
    /// A running (or unknown) container exits with `code` at `at`. Returns whether it
    /// was running.
    pub(crate) fn exit_container(&mut self, id: &str, code: i32, at: jiff::Timestamp) -> bool {
        self.container_status_mut(id)
            .is_some_and(|status| pods::exit(status, code, at))
    }

    /// `CreateContainer` in sandbox `sandbox_id`: a created container whose hash and
    /// restart count are the config's `io.kubernetes.container.*` annotations.
    pub fn create_container(
        &mut self,
        sandbox_id: &str,
        config: &ContainerConfig,
        now: jiff::Timestamp,
    ) -> Result<String, CriError> {
        self.advance(now);
        let Some(sandbox) = self.sandboxes.get(sandbox_id) else {
            return Err(CriError::new(
                CriCode::NotFound,
                format!("failed to find sandbox id {sandbox_id:?}: not found"),
            ));
        };
        let Some(meta) = config.metadata.as_ref() else {
            return Err(CriError::new(
                CriCode::InvalidArgument,
                "container config must include metadata",
            ));
        };
        let image_ref = config.image.as_ref().map_or("", |i| i.image.as_str());
        let Some(image) = self.find_image(image_ref).cloned() else {
            return Err(CriError::new(
                CriCode::NotFound,
                format!("failed to resolve image {image_ref:?}: not found"),
            ));
        };
        let pod = sandbox.config.metadata.clone().unwrap_or_default();
        let name = super::records::container_name(
            &meta.name,
            &pod.name,
            &pod.namespace,
            &pod.uid,
            meta.attempt,
        );
        let script = sandbox
            .container_scripts
            .get(&meta.name)
            .or_else(|| {
                // (No key to build when the scenario scripts no container.)
                (!self.scenario.containers.is_empty())
                    .then(|| {
                        self.scenario
                            .containers
                            .get(&format!("{}/{}/{}", pod.namespace, pod.name, meta.name))
                    })
                    .flatten()
            })
            .or_else(|| self.scenario.containers.get(&meta.name))
            .cloned()
            .unwrap_or_default();
        let uid = sandbox.uid.clone();
        if let Some(holder) = self.names.get(&name) {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("failed to reserve container name {name:?}: name {name:?} is reserved for {holder:?}"),
            ));
        }
        let Some(runtime) = self.pods.get_mut(&uid) else {
            return Err(CriError::sandbox_not_found(sandbox_id));
        };
        runtime.seq += 1;
        let created = runtime.next_container_created_at(now);
        let containers = &self.containers;
        let id = derive_id("container", &name, created.as_nanosecond(), |id| {
            containers.contains_key(id)
        });
        let hash = config
            .annotations
            .get(CONTAINER_HASH)
            .and_then(|v| u64::from_str_radix(v, 16).ok())
            .unwrap_or(0);
        let restart_count = config
            .annotations
            .get(CONTAINER_RESTART_COUNT)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let status_id = full_id(&self.runtime_name, &id);
        let status = ContainerStatus {
            id: status_id.clone(),
            name: meta.name.clone(),
            pod_sandbox_id: Some(sandbox_id.to_string()),
            state: ContainerState::Created,
            created_at: Some(created),
            // The image's first tag in the store: containerd 1.6 ignores the kubelet's
            // `ImageSpec.userSpecifiedImage` (the image as written).
            image: image
                .repo_tags
                .first()
                .cloned()
                .unwrap_or_else(|| image_ref.to_string()),
            image_id: image.id.clone(),
            image_ref: image.repo_digests.first().cloned().unwrap_or_default(),
            hash,
            restart_count,
            resources: resources_value(config.linux.as_ref().and_then(|l| l.resources.as_ref())),
            ..ContainerStatus::default()
        };
        // Kept oldest first (see `PodState`): an append.
        runtime.add_container(status);
        self.names.insert(name.clone(), id.clone());
        if script.exit.is_some() {
            self.scripted_containers.insert(id.clone());
        }
        self.containers.insert(
            id.clone(),
            ContainerRecord {
                uid,
                sandbox_id: sandbox_id.to_string(),
                name,
                config: config.clone(),
                resources: config.linux.as_ref().and_then(|l| l.resources.clone()),
                image_id: image.id,
                status_id,
                script,
            },
        );
        Ok(id)
    }

    /// `StartContainer`: a created container in a ready sandbox runs from `now`.
    pub fn start_container(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.containers.get(id) else {
            return Err(CriError::container_not_found(id));
        };
        let sandbox_id = record.sandbox_id.clone();
        let ready = self
            .sandbox_status(&sandbox_id)
            .is_some_and(|s| s.state == SandboxState::Ready);
        if !ready {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("sandbox container {sandbox_id:?} is not running"),
            ));
        }
        let Some(status) = self.container_status_mut(id) else {
            return Err(CriError::container_not_found(id));
        };
        if status.state != ContainerState::Created {
            let state = cri_state_name(status.state);
            return Err(CriError::new(
                CriCode::Unknown,
                format!("failed to set starting state for container {id:?}: container is in {state} state"),
            ));
        }
        status.state = ContainerState::Running;
        status.started_at = Some(now);
        self.advance(now);
        Ok(())
    }

    /// The SIGKILL that ends `StopContainer` for a container still running when its
    /// timeout is over (one that ignores SIGTERM): it exits 137 at `now`; a created or
    /// exited one is left as it is. The simulated CRI runtime calls it once it has waited
    /// out the timeout of such a container; [`Node::stop_container`] is the whole call.
    pub fn kill_container(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        if !self.containers.contains_key(id) {
            return Err(CriError::container_not_found(id));
        }
        self.exit_container(id, KILLED_EXIT_CODE, now);
        Ok(())
    }

    /// `StopContainer` with a `timeout` (seconds), as containerd carries it out: the stop
    /// signal (SIGTERM) at `now`; a container that exits within the timeout (its script's
    /// `stopSeconds`, at once by default) exits 143, one still running when the timeout
    /// ends is killed (SIGKILL) then and exits 137. A created or exited container is left
    /// as it is (containerd returns at once for a container that is not running). Answers
    /// when the call returns: when the container has exited.
    pub fn stop_container(
        &mut self,
        id: &str,
        timeout: i64,
        now: jiff::Timestamp,
    ) -> Result<jiff::Timestamp, CriError> {
        self.advance(now);
        let Some(record) = self.containers.get(id) else {
            return Err(CriError::container_not_found(id));
        };
        let grace_millis = u64::try_from(timeout.max(0))
            .unwrap_or(0)
            .saturating_mul(1000);
        let takes = record.script.stop_seconds.unwrap_or(0).saturating_mul(1000);
        let (code, after) = if takes > grace_millis {
            (KILLED_EXIT_CODE, grace_millis)
        } else {
            (SIGTERM_EXIT_CODE, takes)
        };
        let at = plus_millis(now, after);
        if self.exit_container(id, code, at) {
            Ok(at)
        } else {
            Ok(now)
        }
    }

    /// `RemoveContainer`: the container is gone (killed first if running) and its name
    /// free; removing a container that does not exist succeeds.
    pub fn remove_container(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        if !self.containers.contains_key(id) {
            return Ok(());
        }
        self.exit_container(id, KILLED_EXIT_CODE, now);
        let Some(record) = self.containers.remove(id) else {
            return Ok(());
        };
        self.names.remove(&record.name);
        self.scripted_containers.remove(id);
        if let Some(runtime) = self.pods.get_mut(&record.uid) {
            runtime.seq += 1;
            runtime.remove_container(&record.status_id);
        }
        Ok(())
    }

    /// `UpdateContainerResources`.
    pub fn update_container_resources(
        &mut self,
        id: &str,
        resources: LinuxContainerResources,
        now: jiff::Timestamp,
    ) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.containers.get_mut(id) else {
            return Err(CriError::container_not_found(id));
        };
        let value = resources_value(Some(&resources));
        record.resources = Some(resources);
        if let Some(status) = self.container_status_mut(id) {
            status.resources = value;
        }
        Ok(())
    }

    /// `ExecSync` in a running container: its script's answer once it has run long
    /// enough, else exit 0.
    pub fn exec_sync(&mut self, id: &str, now: jiff::Timestamp) -> Result<ExecResult, CriError> {
        self.advance(now);
        let Some(record) = self.containers.get(id) else {
            return Err(CriError::container_not_found(id));
        };
        let Some(status) = self.container_status(id) else {
            return Err(CriError::container_not_found(id));
        };
        if status.state != ContainerState::Running {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("container is in {} state", cri_state_name(status.state)),
            ));
        }
        let Some(exec) = record.script.exec.as_ref() else {
            return Ok(ExecResult::default());
        };
        let due = status
            .started_at
            .map(|s| seconds_after(s, exec.after_seconds));
        if due.is_some_and(|d| d <= self.now.unwrap_or(now)) {
            Ok(ExecResult {
                exit_code: exec.exit_code,
                stdout: exec.stdout.clone(),
                stderr: exec.stderr.clone(),
            })
        } else {
            Ok(ExecResult::default())
        }
    }

    /// A container by id.
    pub fn container(&self, id: &str) -> Result<ContainerView<'_>, CriError> {
        let (id, record) = self
            .containers
            .get_key_value(id)
            .ok_or_else(|| CriError::container_not_found(id))?;
        let status = self
            .container_status(id)
            .ok_or_else(|| CriError::container_not_found(id))?;
        Ok(ContainerView { id, status, record })
    }

    /// Every container, by id.
    pub fn containers(&self) -> impl Iterator<Item = ContainerView<'_>> {
        self.containers.iter().filter_map(|(id, record)| {
            Some(ContainerView {
                id,
                status: self.container_status(id)?,
                record,
            })
        })
    }
}

/// The CRI name of a container state (`CONTAINER_RUNNING`, ...).
#[must_use]
fn cri_state_name(state: ContainerState) -> &'static str {
    match state {
        ContainerState::Created => "CONTAINER_CREATED",
        ContainerState::Running => "CONTAINER_RUNNING",
        ContainerState::Exited => "CONTAINER_EXITED",
        ContainerState::Unknown => "CONTAINER_UNKNOWN",
    }
}

/// A container's resources as its status reports them: CRI `ContainerResources` in
/// proto3 JSON (`{"linux": {...}}`).
fn resources_value(linux: Option<&LinuxContainerResources>) -> Option<serde_json::Value> {
    let linux = serde_json::to_value(linux?).ok()?;
    let mut map = serde_json::Map::new();
    map.insert("linux".into(), linux);
    Some(serde_json::Value::Object(map))
}
