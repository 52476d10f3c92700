//! `podplan version` and `--version`: podplan's version, the plan contract and the
//! Kubernetes release whose kubelet is re-implemented.

use std::io;
use std::sync::OnceLock;

use clap::Args;

use super::exit::{CliError, Status};
use super::output::write_text;

/// Arguments of `podplan version`.
#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Print the facts as JSON: {"podplan", "contract", "kubernetes"}.
    #[arg(long)]
    pub json: bool,
}

/// The one-line version: `0.1.0 (plan contract 1, Kubernetes 1.37)` (clap prefixes
/// the program name for `--version`).
pub fn line() -> &'static str {
    static LINE: OnceLock<String> = OnceLock::new();
    LINE.get_or_init(|| {
        let v = podplan_core::version();
        format!(
            "{} (plan contract {}, Kubernetes {})",
            v.podplan, v.contract, v.kubernetes
        )
    })
}

/// Runs `podplan version`.
pub fn run(args: &VersionArgs) -> Result<Status, CliError> {
    let text = if args.json {
        serde_json::to_string(&podplan_core::version())
            .map_err(|e| CliError::Io(format!("cannot serialise the version: {e}")))?
    } else {
        format!("podplan {}", line())
    };
    write_text(&mut io::stdout().lock(), &text)?;
    Ok(Status::Success)
}
