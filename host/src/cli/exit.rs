//! Exit codes and the CLI's error type.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | success (also `plan --jsonl` when some lines were bad) |
//! | 1 | `conformance`: at least one vector failed |
//! | 2 | bad input or usage: unreadable or invalid request, no such directory, bad flags |

use std::io;
use std::process::ExitCode;

/// Success.
pub const OK: u8 = 0;
/// Conformance failures.
pub const FAILURES: u8 = 1;
/// Bad input or usage.
pub const USAGE: u8 = 2;

/// How a command that ran to its end went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Everything as expected (exit 0).
    Success,
    /// The command ran, but found failures (exit 1).
    Failures,
}

/// Why a command stopped.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input or usage; the message is printed on stderr (exit 2).
    #[error("{0}")]
    Usage(String),
    /// Bad input that was already reported on stdout/stderr (exit 2, nothing more to print).
    #[error("the input was rejected")]
    Reported,
    /// An input that cannot be read as a document: over the size limit, empty, not
    /// YAML or JSON. The contract's error (`kind`, `path`, `message`); commands with a
    /// JSON output print it there as `{"error": ...}`, the message goes to stderr (exit 2).
    #[error("{}", super::output::one_line(.0))]
    Input(podplan_core::PlanError),
    /// Reading or writing failed (exit 2).
    #[error("{0}")]
    Io(String),
    /// Whoever reads our output went away (e.g. `| head`): stop quietly.
    #[error("broken pipe")]
    BrokenPipe,
}

impl CliError {
    /// A usage error with a message.
    pub fn usage(message: impl Into<String>) -> Self {
        Self::Usage(message.into())
    }

    /// An I/O error with the thing being read or written named.
    pub fn io(context: impl std::fmt::Display, err: &io::Error) -> Self {
        if err.kind() == io::ErrorKind::BrokenPipe {
            Self::BrokenPipe
        } else {
            Self::Io(format!("{context}: {err}"))
        }
    }
}

impl From<io::Error> for CliError {
    fn from(err: io::Error) -> Self {
        Self::io("I/O error", &err)
    }
}

/// The process exit code for a command's result; prints the error, if any, on stderr.
pub fn exit_code(result: Result<Status, CliError>) -> ExitCode {
    match result {
        Ok(Status::Success) | Err(CliError::BrokenPipe) => ExitCode::from(OK),
        Ok(Status::Failures) => ExitCode::from(FAILURES),
        Err(CliError::Reported) => ExitCode::from(USAGE),
        Err(err @ (CliError::Usage(_) | CliError::Io(_) | CliError::Input(_))) => {
            eprintln!("podplan: {err}");
            ExitCode::from(USAGE)
        }
    }
}
