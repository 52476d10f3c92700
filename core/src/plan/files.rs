//! Files and directories the kubelet writes on the node (`WriteNodeFiles` steps).

use serde::{Deserialize, Serialize};

/// Whether a [`NodeFile`] is a directory or a regular file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NodeFileKind {
    /// `MkdirAll(path, mode)`: created with its parents if missing, kept if present.
    #[default]
    Directory,
    /// Written (created or truncated) with `content`, then `chmod`ed to `mode`.
    File,
}

/// The node's file whose bytes go into a [`NodeFile`] between its `content` and `suffix`
/// (the host-network hosts file, when the node context does not give `etcHosts`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeFileInclude {
    /// The node file to copy (`/etc/hosts`).
    pub path: String,
    /// Text written after the copied bytes.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub suffix: String,
}

/// A directory or file the kubelet creates on the node.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeFile {
    /// What it is for: `podLogs`, `podDir`, `etcHosts`, `terminationLogDir`,
    /// `containerLogs`, `terminationLog`.
    pub purpose: String,
    /// Absolute host path.
    pub path: String,
    /// Directory or file.
    pub kind: NodeFileKind,
    /// Permission bits, octal (`0644`).
    pub mode: String,
    /// A file's content (the whole file, or what precedes `include`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// A node file whose bytes follow `content`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<NodeFileInclude>,
}
