//! Structured errors: bad input never panics and never yields a partial plan.

use serde::{Deserialize, Serialize};

/// What kind of problem stopped the engine from producing a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ErrorKind {
    /// The request is not valid JSON/YAML, has the wrong shape, unknown fields,
    /// values outside their enum, or a pod that fails validation.
    InvalidInput,
    /// The request exceeds a size or nesting limit (see [`crate::limits`]).
    LimitExceeded,
}

/// A structured error: what went wrong, where (a JSON path into the request), and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{kind:?} at {path}: {message}")]
#[serde(rename_all = "camelCase")]
pub struct PlanError {
    /// The error class.
    pub kind: ErrorKind,
    /// JSON path of the offending value, e.g. `pod.spec.containers[1].name` (empty = whole input).
    pub path: String,
    /// A human-readable explanation.
    pub message: String,
}

impl PlanError {
    /// An [`ErrorKind::InvalidInput`] error at `path`.
    pub fn invalid(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::InvalidInput,
            path: path.into(),
            message: message.into(),
        }
    }

    /// An [`ErrorKind::LimitExceeded`] error at `path`.
    pub fn limit(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            kind: ErrorKind::LimitExceeded,
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The JSON envelope of an error answer: `{"error": {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ErrorEnvelope {
    /// The error.
    pub error: PlanError,
}
