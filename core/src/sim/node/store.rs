//! The node's state: the [`Node`], its clock and its lookups; the RPCs are in
//! `sandboxes`, `containers` and `images`, the scripts in `script`.

use std::collections::{BTreeMap, BTreeSet};

use super::error::{CriCode, CriError};
use super::pods::PodState;
use super::records::{image_record, normalize_image, ContainerRecord, ImageRecord, SandboxRecord};
use super::script::{Fault, Scenario};
use crate::runtime::{ContainerState, ContainerStatus, SandboxState, SandboxStatus};

/// The runtime name the model reports by default (`Version`), and so the prefix of its
/// container ids in the kubelet's form.
pub const DEFAULT_RUNTIME_NAME: &str = "sim";
/// The runtime version the model reports.
pub const RUNTIME_VERSION: &str = "0.1.0";

/// A node's simulated CRI runtime (see the module documentation).
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub(super) runtime_name: String,
    pub(super) scenario: Scenario,
    pub(super) pods: BTreeMap<String, PodState>,
    pub(super) sandboxes: BTreeMap<String, SandboxRecord>,
    pub(super) containers: BTreeMap<String, ContainerRecord>,
    pub(super) names: BTreeMap<String, String>,
    pub(super) images: BTreeMap<String, ImageRecord>,
    pub(super) faults: Vec<Fault>,
    /// Sandboxes with a loss script and containers with an exit script: what
    /// [`Node::advance`] looks at (not every object on the node).
    pub(super) scripted_sandboxes: BTreeSet<String>,
    pub(super) scripted_containers: BTreeSet<String>,
    pub(super) ips: u32,
    pub(super) now: Option<jiff::Timestamp>,
}

impl Default for Node {
    fn default() -> Self {
        Self::new(DEFAULT_RUNTIME_NAME, Scenario::default())
    }
}

pub(super) fn seconds_after(t: jiff::Timestamp, seconds: i64) -> jiff::Timestamp {
    let ns = i128::from(seconds.max(0)).saturating_mul(1_000_000_000);
    jiff::Timestamp::from_nanosecond(t.as_nanosecond().saturating_add(ns)).unwrap_or(t)
}

impl Node {
    /// An empty node reporting `runtime_name`, scripted by `scenario` (its preloaded
    /// images are present).
    #[must_use]
    pub fn new(runtime_name: &str, scenario: Scenario) -> Self {
        let images = scenario
            .images
            .preloaded
            .iter()
            .map(|i| {
                let record = image_record(&normalize_image(i));
                (record.id.clone(), record)
            })
            .collect();
        Self {
            runtime_name: runtime_name.to_string(),
            faults: scenario.faults.clone(),
            scenario,
            pods: BTreeMap::new(),
            sandboxes: BTreeMap::new(),
            containers: BTreeMap::new(),
            names: BTreeMap::new(),
            images,
            scripted_sandboxes: BTreeSet::new(),
            scripted_containers: BTreeSet::new(),
            ips: 0,
            now: None,
        }
    }

    /// The runtime name (`Version`), the prefix of container ids in the kubelet's form.
    #[must_use]
    pub fn runtime_name(&self) -> &str {
        &self.runtime_name
    }

    /// The next `count` calls of `rpc` fail with `code` (after the faults already queued
    /// for it).
    pub fn fail_next(&mut self, rpc: &str, code: CriCode, count: u32, message: &str) {
        self.faults.push(Fault {
            rpc: rpc.to_string(),
            code,
            count,
            message: message.to_string(),
        });
    }

    /// Counts a call of `rpc`: the error of the first fault queued for it, if any.
    /// Every RPC handler calls this first.
    pub fn check_fault(&mut self, rpc: &str) -> Result<(), CriError> {
        let Some(pos) = self.faults.iter().position(|f| f.rpc == rpc && f.count > 0) else {
            return Ok(());
        };
        let Some(fault) = self.faults.get_mut(pos) else {
            return Ok(());
        };
        fault.count -= 1;
        let err = CriError::new(
            fault.code,
            if fault.message.is_empty() {
                format!("injected fault ({rpc})")
            } else {
                fault.message.clone()
            },
        );
        if fault.count == 0 {
            self.faults.remove(pos);
        }
        Err(err)
    }

    /// The kubelet's view of one pod (by UID): its sandboxes and containers, newest first,
    /// container ids as `<runtimeName>://<id>`.
    #[must_use]
    pub fn pod_status(&self, uid: &str) -> Option<crate::runtime::RuntimeStatus> {
        self.pods.get(uid).map(PodState::status)
    }

    /// Lets time pass to `now`: scripted exits and sandbox losses due by then happen, each
    /// at its own time. Every call does this first; the clock never goes back.
    pub fn advance(&mut self, now: jiff::Timestamp) {
        let now = self.now.map_or(now, |t| t.max(now));
        self.now = Some(now);
        // Sandboxes lost by now.
        let lost: Vec<(String, jiff::Timestamp)> = self
            .scripted_sandboxes
            .iter()
            .filter_map(|id| {
                let script = self.sandboxes.get(id)?.script?;
                let status = self.sandbox_status(id)?;
                let attempt = status.metadata.as_ref().map_or(0, |m| m.attempt);
                let scripted = script.times.is_none_or(|t| attempt < t);
                let created =
                    jiff::Timestamp::from_nanosecond(i128::from(status.created_at)).ok()?;
                let due = seconds_after(created, script.lost_after_seconds);
                (scripted && status.state == SandboxState::Ready && due <= now)
                    .then(|| (id.clone(), due))
            })
            .collect();
        for (id, at) in lost {
            self.lose_sandbox(&id, at);
        }
        // Containers that exit by now.
        let exits: Vec<(String, i32, jiff::Timestamp)> = self
            .scripted_containers
            .iter()
            .filter_map(|id| {
                let exit = self.containers.get(id)?.script.exit?;
                let status = self.container_status(id)?;
                let scripted = exit
                    .times
                    .is_none_or(|t| u32::try_from(status.restart_count).unwrap_or(0) < t);
                let started = status.started_at?;
                let due = seconds_after(started, exit.after_seconds);
                (scripted && status.state == ContainerState::Running && due <= now)
                    .then(|| (id.clone(), exit.code, due))
            })
            .collect();
        for (id, code, at) in exits {
            self.exit_container(&id, code, at);
        }
    }

    pub(super) fn sandbox_status(&self, id: &str) -> Option<&SandboxStatus> {
        let record = self.sandboxes.get(id)?;
        self.pods
            .get(&record.uid)?
            .status
            .sandbox_statuses
            .iter()
            .find(|s| s.id == id)
    }

    pub(super) fn container_status(&self, id: &str) -> Option<&ContainerStatus> {
        let record = self.containers.get(id)?;
        self.pods
            .get(&record.uid)?
            .status
            .container_statuses
            .iter()
            .find(|s| s.id == record.status_id)
    }

    pub(super) fn container_status_mut(&mut self, id: &str) -> Option<&mut ContainerStatus> {
        let record = self.containers.get(id)?;
        let runtime = self.pods.get_mut(&record.uid)?;
        runtime.seq += 1;
        runtime
            .status
            .container_statuses
            .iter_mut()
            .find(|s| s.id == record.status_id)
    }

    /// Takes over a pod as a relist reported it (`status`, containers newest first), as
    /// a runtime restarted on a node that has the pod: its sandboxes and containers get
    /// records (reserved names, a config with their metadata and image), container ids
    /// keep their own `type://` prefix, and the container scripts of the scenario apply
    /// by name. A pod the node has already is replaced.
    pub(crate) fn adopt(&mut self, status: crate::runtime::RuntimeStatus) {
        use crate::cri::{ContainerConfig, ContainerMetadata, ImageSpec, PodSandboxConfig};
        use crate::runtime::SandboxMetadata;
        let uid = status.id.clone();
        let (pod_name, namespace) = (status.name.clone(), status.namespace.clone());
        let newest = status.sandbox_statuses.first().map(|s| s.id.clone());
        for sandbox in &status.sandbox_statuses {
            let meta = sandbox.metadata.clone().unwrap_or_else(|| SandboxMetadata {
                name: pod_name.clone(),
                uid: uid.clone(),
                namespace: namespace.clone(),
                attempt: 0,
            });
            let name =
                super::records::sandbox_name(&meta.name, &meta.namespace, &meta.uid, meta.attempt);
            self.names
                .entry(name.clone())
                .or_insert_with(|| sandbox.id.clone());
            self.sandboxes.insert(
                sandbox.id.clone(),
                SandboxRecord {
                    uid: uid.clone(),
                    name,
                    config: PodSandboxConfig {
                        metadata: Some(crate::cri::PodSandboxMetadata {
                            name: meta.name,
                            uid: meta.uid,
                            namespace: meta.namespace,
                            attempt: meta.attempt,
                        }),
                        ..PodSandboxConfig::default()
                    },
                    runtime_handler: sandbox.runtime_handler.clone(),
                    resources: None,
                    script: None,
                    container_scripts: BTreeMap::new(),
                },
            );
        }
        for c in &status.container_statuses {
            let bare = c.id.split_once("://").map_or(c.id.as_str(), |(_, id)| id);
            let attempt = u32::try_from(c.restart_count).unwrap_or(0);
            let name =
                super::records::container_name(&c.name, &pod_name, &namespace, &uid, attempt);
            self.names
                .entry(name.clone())
                .or_insert_with(|| bare.to_string());
            let script = if self.scenario.containers.is_empty() {
                super::script::ContainerScript::default()
            } else {
                self.scenario
                    .containers
                    .get(&format!("{namespace}/{pod_name}/{}", c.name))
                    .or_else(|| self.scenario.containers.get(&c.name))
                    .cloned()
                    .unwrap_or_default()
            };
            if script.exit.is_some() {
                self.scripted_containers.insert(bare.to_string());
            }
            self.containers.insert(
                bare.to_string(),
                ContainerRecord {
                    uid: uid.clone(),
                    sandbox_id: c
                        .pod_sandbox_id
                        .clone()
                        .or_else(|| newest.clone())
                        .unwrap_or_default(),
                    name,
                    config: ContainerConfig {
                        metadata: Some(ContainerMetadata {
                            name: c.name.clone(),
                            attempt,
                        }),
                        image: Some(ImageSpec {
                            image: c.image.clone(),
                            ..ImageSpec::default()
                        }),
                        ..ContainerConfig::default()
                    },
                    resources: None,
                    image_id: c.image_id.clone(),
                    status_id: c.id.clone(),
                    script,
                },
            );
        }
        self.pods.insert(uid, PodState::from_status(status));
    }

    /// Puts an image in the store without a pull (`ctr images import`), as the scenario's
    /// preloaded images are.
    pub(crate) fn load_image(&mut self, reference: &str) {
        if reference.is_empty() {
            return;
        }
        // An image's id is derived from its normalised name: the same name, the same id.
        let record = image_record(&normalize_image(reference));
        self.images.entry(record.id.clone()).or_insert(record);
    }

    /// The pod `uid` as a relist reports it, taken off the node (the per-pod view's
    /// last look: no copy of its statuses).
    pub(crate) fn take_pod_status(&mut self, uid: &str) -> Option<crate::runtime::RuntimeStatus> {
        self.pods.remove(uid).map(PodState::into_status)
    }

    /// Counts `done` operations on the pod `uid` already: operations at one instant are
    /// ordered by their count (creation times), so a caller that carries out one step of
    /// a plan at a time sets where it is.
    pub(crate) fn set_operations_done(&mut self, uid: &str, done: u32) {
        if let Some(pod) = self.pods.get_mut(uid) {
            pod.seq = done;
        }
    }

    /// The pod `uid` as the node holds it.
    pub(crate) fn pod_state(&self, uid: &str) -> Option<&PodState> {
        self.pods.get(uid)
    }

    /// Every container named `container` (in any pod) takes `seconds` to exit on
    /// `StopContainer`'s stop signal (`ContainerScript::stop_seconds`), from now on and
    /// for the containers the node has already.
    pub(crate) fn script_stop_seconds(&mut self, container: &str, seconds: u64) {
        self.scenario
            .containers
            .entry(container.to_string())
            .or_default()
            .stop_seconds = Some(seconds);
        for record in self.containers.values_mut() {
            if record
                .config
                .metadata
                .as_ref()
                .is_some_and(|m| m.name == container)
            {
                record.script.stop_seconds = Some(seconds);
            }
        }
    }

    /// Whether the node has the pod `uid`.
    pub(crate) fn has_pod(&self, uid: &str) -> bool {
        self.pods.contains_key(uid)
    }

    /// The pod network's address allocator has handed out at least `count` addresses
    /// (host-local IPAM hands out the next address after the last one).
    pub(crate) fn skip_ips(&mut self, count: u32) {
        self.ips = self.ips.max(count);
    }
}

/// A container id in the kubelet's form, `<runtimeName>://<id>`.
pub(super) fn full_id(runtime_name: &str, id: &str) -> String {
    format!("{runtime_name}://{id}")
}
