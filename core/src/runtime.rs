//! What the container runtime reports about a pod (`kubecontainer.PodStatus`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The runtime's view of a pod: its sandboxes (newest first) and every container it
/// still knows (newest first; several entries may share a name).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RuntimeStatus {
    /// Pod UID.
    #[serde(default)]
    pub id: String,
    /// Pod name.
    #[serde(default)]
    pub name: String,
    /// Pod namespace.
    #[serde(default)]
    pub namespace: String,
    /// Pod IPs as the runtime reports them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ips: Vec<String>,
    /// CRI `PodSandboxStatus`es, newest first (index 0 is the latest).
    #[serde(default)]
    pub sandbox_statuses: Vec<SandboxStatus>,
    /// Container statuses, newest first.
    #[serde(default)]
    pub container_statuses: Vec<ContainerStatus>,
}

/// CRI `PodSandboxStatus` (proto3 JSON).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxStatus {
    /// Sandbox id.
    #[serde(default)]
    pub id: String,
    /// Sandbox metadata (name, uid, namespace, attempt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<SandboxMetadata>,
    /// Ready or not.
    #[serde(default)]
    pub state: SandboxState,
    /// Creation time, nanoseconds since the epoch.
    #[serde(default)]
    pub created_at: i64,
    /// Network status. Absent and `ip: ""` are different facts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<SandboxNetwork>,
    /// Linux-specific status (namespace modes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub linux: Option<LinuxSandboxStatus>,
    /// Sandbox labels.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Sandbox annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Runtime handler.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub runtime_handler: String,
}

/// CRI `PodSandboxMetadata`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxMetadata {
    /// Pod name.
    #[serde(default)]
    pub name: String,
    /// Sandbox uid.
    #[serde(default)]
    pub uid: String,
    /// Pod namespace.
    #[serde(default)]
    pub namespace: String,
    /// Attempt number (0 for the first sandbox).
    #[serde(default)]
    pub attempt: u32,
}

/// CRI `PodSandboxState`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SandboxState {
    /// `SANDBOX_READY`.
    #[serde(rename = "SANDBOX_READY")]
    #[default]
    Ready,
    /// `SANDBOX_NOTREADY`.
    #[serde(rename = "SANDBOX_NOTREADY")]
    NotReady,
}

/// CRI `PodSandboxNetworkStatus`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxNetwork {
    /// Primary IP ("" = the sandbox has no IP).
    #[serde(default)]
    pub ip: String,
    /// Further IPs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub additional_ips: Vec<PodIp>,
}

/// CRI `PodIP`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodIp {
    /// The address.
    #[serde(default)]
    pub ip: String,
}

/// CRI `LinuxPodSandboxStatus`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinuxSandboxStatus {
    /// Namespace status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespaces: Option<SandboxNamespaces>,
}

/// CRI `Namespace` (status form).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxNamespaces {
    /// Namespace options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub options: Option<SandboxNamespaceOptions>,
}

/// CRI `NamespaceOption` as read back from a sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxNamespaceOptions {
    /// Network namespace mode (absent = POD).
    #[serde(default)]
    pub network: NamespaceMode,
    /// PID namespace mode.
    #[serde(default)]
    pub pid: NamespaceMode,
    /// IPC namespace mode.
    #[serde(default)]
    pub ipc: NamespaceMode,
    /// Target container id for `TARGET` mode.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub target_id: String,
}

/// CRI `NamespaceMode`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NamespaceMode {
    /// A namespace per pod (0).
    #[default]
    Pod,
    /// A namespace per container (1).
    Container,
    /// The node's namespace (2).
    Node,
    /// Another container's namespace (3).
    Target,
}

/// One container as the runtime reports it (`kubecontainer.Status`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerStatus {
    /// Runtime container id, `type://id`.
    #[serde(default)]
    pub id: String,
    /// Container name (matches a spec container, or not).
    #[serde(default)]
    pub name: String,
    /// The sandbox the container belongs to (absent = the latest sandbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_sandbox_id: Option<String>,
    /// Container state.
    #[serde(default)]
    pub state: ContainerState,
    /// Creation time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<jiff::Timestamp>,
    /// Start time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<jiff::Timestamp>,
    /// Finish time (the crash-loop back-off reference time).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<jiff::Timestamp>,
    /// Exit code (meaningful for `exited`).
    #[serde(default)]
    pub exit_code: i32,
    /// Image as specified.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image: String,
    /// Image id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image_id: String,
    /// Image reference.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image_ref: String,
    /// The kubelet container hash recorded at creation (0 = absent).
    #[serde(default)]
    pub hash: u64,
    /// Restart count recorded at creation.
    #[serde(default)]
    pub restart_count: i32,
    /// Reason (e.g. `OOMKilled`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
    /// Message.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
    /// CRI `ContainerResources` as the runtime reports them (not read by decisions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<serde_json::Value>,
}

/// A container's state as the runtime reports it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContainerState {
    /// Created, not started.
    Created,
    /// Running.
    Running,
    /// Exited.
    Exited,
    /// The runtime does not know.
    #[default]
    Unknown,
}

impl ContainerState {
    /// The lowercase string form the kubelet uses in messages.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Running => "running",
            Self::Exited => "exited",
            Self::Unknown => "unknown",
        }
    }
}
