//! CRI `runtime.v1` messages in proto3-JSON form. STUB: owned by the CRI-config work.

/// CRI `PodSandboxConfig`.
pub type PodSandboxConfig = serde_json::Value;
