//! The errors of CRI calls, as containerd answers them: a gRPC code and a message.

use serde::{Deserialize, Serialize};

/// A gRPC status code (the canonical names, e.g. `UNAVAILABLE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CriCode {
    /// 1.
    Cancelled,
    /// 2: containerd's answer for most plain errors.
    Unknown,
    /// 3.
    InvalidArgument,
    /// 4.
    DeadlineExceeded,
    /// 5.
    NotFound,
    /// 6.
    AlreadyExists,
    /// 7.
    PermissionDenied,
    /// 8.
    ResourceExhausted,
    /// 9.
    FailedPrecondition,
    /// 10.
    Aborted,
    /// 11.
    OutOfRange,
    /// 12.
    Unimplemented,
    /// 13.
    Internal,
    /// 14.
    Unavailable,
    /// 15.
    DataLoss,
    /// 16.
    Unauthenticated,
}

/// A failed CRI call: a gRPC code and containerd's message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct CriError {
    /// The gRPC code.
    pub code: CriCode,
    /// The message.
    pub message: String,
}

impl CriError {
    pub(super) fn new(code: CriCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    pub(super) fn container_not_found(id: &str) -> Self {
        Self::new(
            CriCode::NotFound,
            format!("an error occurred when try to find container {id:?}: not found"),
        )
    }

    pub(super) fn sandbox_not_found(id: &str) -> Self {
        Self::new(
            CriCode::NotFound,
            format!("an error occurred when try to find sandbox {id:?}: not found"),
        )
    }
}
