//! `status.json`: what the agent did in its last round, written atomically (a temporary
//! file renamed over the old one) under `<root-dir>/podplan-agent/`, read by
//! `podplan agent status`.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The status file's name under the root directory.
pub const STATUS_FILE: &str = "podplan-agent/status.json";

/// A status older than this many seconds is stale (the agent writes one every round,
/// about every second).
pub const STALE_AFTER_SECONDS: i64 = 10;

/// The status file's content.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentStatus {
    /// When the round ended.
    pub written_at: Option<jiff::Timestamp>,
    /// The agent's process id.
    pub pid: u32,
    /// `--node-name`.
    pub node: String,
    /// The CRI endpoint.
    pub endpoint: String,
    /// `native`, or the wasm module slot's `SlotStatus`.
    pub engine: serde_json::Value,
    /// Rounds so far.
    pub rounds: u64,
    /// `--dry-run`.
    #[serde(default)]
    pub dry_run: bool,
    /// Every pod's last sync (`PodReport`).
    #[serde(default)]
    pub pods: Vec<serde_json::Value>,
    /// Manifests that were skipped, and why.
    #[serde(default)]
    pub manifest_problems: Vec<serde_json::Value>,
    /// Errors of the last round (a failed call, an unreachable runtime, a module failure).
    #[serde(default)]
    pub errors: Vec<String>,
}

/// The status file of a root directory.
#[must_use]
pub fn status_path(root_dir: &Path) -> PathBuf {
    root_dir.join(STATUS_FILE)
}

/// Writes `status` atomically.
///
/// # Errors
///
/// The directory or file cannot be written.
pub fn write(root_dir: &Path, status: &AgentStatus) -> std::io::Result<()> {
    let path = status_path(root_dir);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let mut bytes = serde_json::to_vec_pretty(status).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, &path)
}

/// Reads the status file.
///
/// # Errors
///
/// Missing, unreadable or not a status.
pub fn read(root_dir: &Path) -> Result<AgentStatus, String> {
    let path = status_path(root_dir);
    let bytes = std::fs::read(&path).map_err(|e| {
        format!(
            "no agent status at {} ({e}); is `podplan agent` running with this --root-dir?",
            path.display()
        )
    })?;
    serde_json::from_slice(&bytes)
        .map_err(|e| format!("{} is not an agent status: {e}", path.display()))
}

/// `Some(age in seconds)` when the status is stale at `now`.
#[must_use]
pub fn staleness(status: &AgentStatus, now: jiff::Timestamp) -> Option<i64> {
    let age = status
        .written_at
        .map_or(i64::MAX, |t| (now - t).get_seconds());
    (age > STALE_AFTER_SECONDS).then_some(age)
}
