//! Sandboxes: `RunPodSandbox`, `StopPodSandbox`, `RemovePodSandbox`,
//! `UpdatePodSandboxResources`, a sandbox's loss, and the sandboxes as the node reports
//! them.

use std::collections::BTreeMap;

use super::error::{CriCode, CriError};
use super::pods::{self, derive_id, PodState};
use super::records::{SandboxRecord, SandboxView};
use super::script::{parse_script, SandboxScript, CONTAINER_ANNOTATION_PREFIX, SANDBOX_ANNOTATION};
use super::store::Node;
use crate::cri::{LinuxContainerResources, NamespaceMode, PodSandboxConfig};
use crate::runtime::{
    LinuxSandboxStatus, SandboxMetadata, SandboxNamespaceOptions, SandboxNamespaces,
    SandboxNetwork, SandboxState, SandboxStatus,
};

impl Node {
    /// The sandbox `id` is lost at `at`: it is no longer ready and its running containers
    /// are killed (exit code 137), as when its pause process dies.
    pub(crate) fn lose_sandbox(&mut self, id: &str, at: jiff::Timestamp) {
        let Some(uid) = self.sandboxes.get(id).map(|r| r.uid.as_str()) else {
            return;
        };
        let Some(runtime) = self.pods.get_mut(uid) else {
            return;
        };
        // One operation per container the loss stops, then the sandbox's.
        let members = pods::lose_sandbox(&mut runtime.status, id, at).unwrap_or(0);
        runtime.seq = runtime
            .seq
            .saturating_add(u32::try_from(members).unwrap_or(u32::MAX))
            .saturating_add(1);
    }

    /// `RunPodSandbox`: a ready sandbox (with an IP unless it uses the node's network),
    /// the newest of its pod.
    pub fn run_pod_sandbox(
        &mut self,
        config: &PodSandboxConfig,
        runtime_handler: &str,
        now: jiff::Timestamp,
    ) -> Result<String, CriError> {
        self.advance(now);
        let Some(meta) = config.metadata.as_ref() else {
            return Err(CriError::new(
                CriCode::InvalidArgument,
                "sandbox config must include metadata",
            ));
        };
        // Scripts from the pod's annotations: checked before anything is reserved.
        let mut container_scripts = BTreeMap::new();
        let mut script = None;
        for (key, value) in &config.annotations {
            if let Some(container) = key.strip_prefix(CONTAINER_ANNOTATION_PREFIX) {
                container_scripts.insert(container.to_string(), parse_script(key, value)?);
            } else if key == SANDBOX_ANNOTATION {
                script = Some(parse_script::<SandboxScript>(key, value)?);
            }
        }
        let pod_key = format!("{}/{}", meta.namespace, meta.name);
        let script = script.or_else(|| {
            self.scenario
                .sandboxes
                .get(&pod_key)
                .or_else(|| self.scenario.sandboxes.get(&meta.name))
                .copied()
        });
        let name =
            super::records::sandbox_name(&meta.name, &meta.namespace, &meta.uid, meta.attempt);
        if let Some(holder) = self.names.get(&name) {
            return Err(CriError::new(
                CriCode::Unknown,
                format!("failed to reserve sandbox name {name:?}: name {name:?} is reserved for {holder:?}"),
            ));
        }
        let host_network = config
            .linux
            .as_ref()
            .and_then(|l| l.security_context.as_ref())
            .and_then(|s| s.namespace_options.as_ref())
            .is_some_and(|n| n.network == NamespaceMode::Node);
        let ip = if host_network {
            String::new()
        } else {
            let n = self.ips;
            self.ips += 1;
            format!("10.88.{}.{}", (n / 250) % 250, n % 250 + 2)
        };
        let runtime = self
            .pods
            .entry(meta.uid.clone())
            .or_insert_with(|| PodState::new(&meta.uid, &meta.name, &meta.namespace));
        runtime.seq += 1;
        let created_at = runtime.next_sandbox_created_at(now);
        let sandboxes = &self.sandboxes;
        let id = derive_id("sandbox", &name, i128::from(created_at), |id| {
            sandboxes.contains_key(id)
        });
        let status = SandboxStatus {
            id: id.clone(),
            metadata: Some(SandboxMetadata {
                name: meta.name.clone(),
                uid: meta.uid.clone(),
                namespace: meta.namespace.clone(),
                attempt: meta.attempt,
            }),
            state: SandboxState::Ready,
            created_at,
            network: Some(SandboxNetwork {
                ip,
                additional_ips: vec![],
            }),
            linux: Some(LinuxSandboxStatus {
                namespaces: Some(SandboxNamespaces {
                    options: Some(SandboxNamespaceOptions {
                        network: if host_network {
                            NamespaceMode::Node
                        } else {
                            NamespaceMode::Pod
                        },
                        ..SandboxNamespaceOptions::default()
                    }),
                }),
            }),
            labels: config.labels.clone(),
            annotations: config.annotations.clone(),
            runtime_handler: runtime_handler.to_string(),
        };
        runtime.add_sandbox(status);
        self.names.insert(name.clone(), id.clone());
        if script.is_some() {
            self.scripted_sandboxes.insert(id.clone());
        }
        self.sandboxes.insert(
            id.clone(),
            SandboxRecord {
                uid: meta.uid.clone(),
                name,
                config: config.clone(),
                runtime_handler: runtime_handler.to_string(),
                resources: None,
                script,
                container_scripts,
            },
        );
        self.advance(now);
        Ok(id)
    }

    /// `StopPodSandbox`: its running containers are killed, the sandbox is no longer ready.
    pub fn stop_pod_sandbox(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        if !self.sandboxes.contains_key(id) {
            return Err(CriError::sandbox_not_found(id));
        }
        self.lose_sandbox(id, now);
        Ok(())
    }

    /// `RemovePodSandbox`: the sandbox and its containers are gone (stopped first);
    /// removing a sandbox that does not exist succeeds.
    pub fn remove_pod_sandbox(&mut self, id: &str, now: jiff::Timestamp) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.sandboxes.get(id) else {
            return Ok(());
        };
        let uid = record.uid.clone();
        self.lose_sandbox(id, now);
        let members: Vec<String> = self
            .containers
            .iter()
            .filter(|(_, r)| r.sandbox_id == id)
            .map(|(c, _)| c.clone())
            .collect();
        for c in members {
            self.remove_container(&c, now)?;
        }
        if let Some(record) = self.sandboxes.remove(id) {
            self.names.remove(&record.name);
        }
        self.scripted_sandboxes.remove(id);
        if let Some(runtime) = self.pods.get_mut(&uid) {
            runtime.seq += 1;
            runtime.status.sandbox_statuses.retain(|s| s.id != id);
            if runtime.status.sandbox_statuses.is_empty()
                && runtime.status.container_statuses.is_empty()
            {
                self.pods.remove(&uid);
            }
        }
        Ok(())
    }

    /// `UpdatePodSandboxResources`.
    pub fn update_pod_sandbox_resources(
        &mut self,
        id: &str,
        resources: LinuxContainerResources,
        now: jiff::Timestamp,
    ) -> Result<(), CriError> {
        self.advance(now);
        let Some(record) = self.sandboxes.get_mut(id) else {
            return Err(CriError::sandbox_not_found(id));
        };
        record.resources = Some(resources);
        Ok(())
    }

    /// A sandbox by id.
    pub fn sandbox(&self, id: &str) -> Result<SandboxView<'_>, CriError> {
        let record = self
            .sandboxes
            .get(id)
            .ok_or_else(|| CriError::sandbox_not_found(id))?;
        let status = self
            .sandbox_status(id)
            .ok_or_else(|| CriError::sandbox_not_found(id))?;
        Ok(SandboxView { status, record })
    }

    /// Every sandbox, by id.
    pub fn sandboxes(&self) -> impl Iterator<Item = SandboxView<'_>> {
        self.sandboxes.iter().filter_map(|(id, record)| {
            Some(SandboxView {
                status: self.sandbox_status(id)?,
                record,
            })
        })
    }
}
