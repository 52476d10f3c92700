//! What the runtime holds about one pod — its sandboxes and containers as the kubelet's
//! relist sees them — and the rules both views of the model share: how creation times
//! are ordered and how ids are derived.
//!
//! [`Node`](super::Node) keeps one [`PodState`] per pod UID;
//! `Runtime` (`sim/runtime.rs`) (one pod, driven by plan steps) is a view of a node
//! holding one pod.

use super::records::hex64;
use crate::runtime::{ContainerState, ContainerStatus, RuntimeStatus, SandboxState, SandboxStatus};
use crate::sim::model::{nanos, plus_nanos, KILLED_EXIT_CODE};

/// One pod's sandboxes and containers.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PodState {
    /// What the runtime reports, except that the container statuses are kept oldest
    /// first (the runtime reports them newest first): a create appends instead of
    /// moving every earlier status, so carrying out a plan stays linear in the pod's
    /// containers. [`PodState::status`] gives the runtime's order.
    pub(crate) status: RuntimeStatus,
    /// The newest creation time of the container statuses (a new container is newer).
    latest_created: Option<jiff::Timestamp>,
    /// Operations carried out so far: they order the creation times of one instant.
    pub(crate) seq: u32,
}

impl PodState {
    /// A pod the runtime has nothing of yet.
    #[must_use]
    pub(crate) fn new(uid: &str, name: &str, namespace: &str) -> Self {
        let mut state = Self::default();
        state.status.id = uid.to_string();
        state.status.name = name.to_string();
        state.status.namespace = namespace.to_string();
        state
    }

    /// The pod as a relist reported it (containers newest first).
    #[must_use]
    pub(crate) fn from_status(mut status: RuntimeStatus) -> Self {
        status.container_statuses.reverse();
        let latest_created = status
            .container_statuses
            .iter()
            .filter_map(|s| s.created_at)
            .max();
        Self {
            status,
            latest_created,
            seq: 0,
        }
    }

    /// What the runtime reports (containers newest first, as a CRI runtime lists them).
    #[must_use]
    pub(crate) fn status(&self) -> RuntimeStatus {
        let mut status = self.status.clone();
        status.container_statuses.reverse();
        status
    }

    /// [`PodState::status`], by value.
    #[must_use]
    pub(crate) fn into_status(self) -> RuntimeStatus {
        let mut status = self.status;
        status.container_statuses.reverse();
        status
    }

    /// The creation time of a container created at `now`: after every instance the
    /// runtime already has, so that a restart made at the same instant as the previous
    /// sync (no time passed) is still the newest by creation time, which is how the
    /// kubelet tells the latest instance of a name. Instants are ordered by operation.
    #[must_use]
    pub(crate) fn next_container_created_at(&self, now: jiff::Timestamp) -> jiff::Timestamp {
        match self.latest_created {
            Some(l) if l >= plus_nanos(now, self.seq) => plus_nanos(l, 1),
            _ => plus_nanos(now, self.seq),
        }
    }

    /// The creation time (nanoseconds) of a sandbox created at `now`: after every
    /// earlier sandbox, as for containers.
    #[must_use]
    pub(crate) fn next_sandbox_created_at(&self, now: jiff::Timestamp) -> i64 {
        nanos(plus_nanos(now, self.seq)).max(
            self.status
                .sandbox_statuses
                .iter()
                .map(|s| s.created_at.saturating_add(1))
                .max()
                .unwrap_or(i64::MIN),
        )
    }

    /// Adds a container status (the newest), keeping the newest creation time.
    pub(crate) fn add_container(&mut self, status: ContainerStatus) {
        self.latest_created = self.latest_created.max(status.created_at);
        self.status.container_statuses.push(status);
    }

    /// Removes the container status(es) with `id`, keeping the newest creation time.
    pub(crate) fn remove_container(&mut self, id: &str) {
        let before = self.status.container_statuses.len();
        self.status.container_statuses.retain(|s| s.id != id);
        if self.status.container_statuses.len() != before {
            self.latest_created = self
                .status
                .container_statuses
                .iter()
                .filter_map(|s| s.created_at)
                .max();
        }
    }

    /// Adds a sandbox status in its place, newest first by creation time; the newest
    /// sandbox's IP is the pod's.
    pub(crate) fn add_sandbox(&mut self, status: SandboxStatus) {
        let at = self
            .status
            .sandbox_statuses
            .iter()
            .position(|s| s.created_at < status.created_at)
            .unwrap_or(self.status.sandbox_statuses.len());
        if at == 0 {
            self.status.ips = status
                .network
                .as_ref()
                .filter(|n| !n.ip.is_empty())
                .map(|n| vec![n.ip.clone()])
                .unwrap_or_default();
        }
        self.status.sandbox_statuses.insert(at, status);
    }
}

/// A new sandbox's or container's id, as containerd's are: 64 hexadecimal digits. The
/// model derives them from the object's kind, its reserved name and its creation time
/// (no randomness), so the same operations give the same ids whether a whole node or one
/// pod's view carries them out; an id `taken` already is salted until it is new.
#[must_use]
pub(crate) fn derive_id(
    kind: &str,
    name: &str,
    created_nanos: i128,
    taken: impl Fn(&str) -> bool,
) -> String {
    let created = created_nanos.to_le_bytes();
    let mut salt: u32 = 0;
    loop {
        let salt_bytes = salt.to_le_bytes();
        let parts: [&[u8]; 4] = [kind.as_bytes(), name.as_bytes(), &created, &salt_bytes];
        let id = hex64(parts.get(..if salt == 0 { 3 } else { 4 }).unwrap_or(&parts));
        if salt == u32::MAX || !taken(&id) {
            return id;
        }
        salt += 1;
    }
}

/// The container exits with `code` at `at` (never before it started), with containerd's
/// reason: `Completed` for 0, else `Error`. Only a running (or unknown) container exits;
/// returns whether it did. The one exit of the model: a scripted exit on the node, a
/// sandbox's loss, and the events between two syncs of the per-pod model.
pub(crate) fn exit(status: &mut ContainerStatus, code: i32, at: jiff::Timestamp) -> bool {
    if !matches!(
        status.state,
        ContainerState::Running | ContainerState::Unknown
    ) {
        return false;
    }
    status.state = ContainerState::Exited;
    status.exit_code = code;
    status.reason = if code == 0 { "Completed" } else { "Error" }.into();
    status.finished_at = Some(status.started_at.map_or(at, |s| s.max(at)));
    true
}

/// The sandbox `id` of the pod is lost at `at`, as when its pause process dies: it is no
/// longer ready, its running containers are killed (exit code 137; a status that names
/// no sandbox is the newest sandbox's), and the loss of the newest sandbox takes the
/// pod's IPs. Returns how many containers the sandbox holds (running or not); `None` when
/// the pod has no such sandbox.
pub(crate) fn lose_sandbox(
    status: &mut RuntimeStatus,
    id: &str,
    at: jiff::Timestamp,
) -> Option<usize> {
    let newest = status.sandbox_statuses.first().map(|s| s.id.as_str()) == Some(id);
    let sandbox = status.sandbox_statuses.iter_mut().find(|s| s.id == id)?;
    sandbox.state = SandboxState::NotReady;
    let mut members = 0;
    for s in &mut status.container_statuses {
        let owner = s.pod_sandbox_id.as_deref();
        if owner == Some(id) || (owner.is_none() && newest) {
            members += 1;
            exit(s, KILLED_EXIT_CODE, at);
        }
    }
    if newest {
        status.ips.clear();
    }
    Some(members)
}
