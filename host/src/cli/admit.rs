//! `podplan admit`: an `admission.k8s.io/v1` AdmissionReview (file or stdin) in, the
//! AdmissionReview with its `response` out on stdout. Exit 0 allowed, 1 denied, 2 a
//! malformed review (still answered, with a refusal that names the problem) or bad
//! settings.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use podplan_host::admission::{review, Outcome};

use super::exit::{CliError, Status};
use super::input::Source;
use super::lint::read_settings;

/// `podplan admit`.
#[derive(Debug, Args)]
pub struct AdmitArgs {
    /// The AdmissionReview (JSON; `-` or nothing is standard input).
    #[arg(default_value = "-")]
    pub review: PathBuf,
    /// Lint settings (`{"rules": {"<id>": "deny"|"warn"|"off"}}`), as a file.
    #[arg(long, conflicts_with = "settings_json")]
    pub settings: Option<PathBuf>,
    /// Lint settings as a JSON string.
    #[arg(long)]
    pub settings_json: Option<String>,
}

/// Runs `podplan admit`.
pub fn run(args: &AdmitArgs) -> Result<Status, CliError> {
    let settings = read_settings(args.settings.as_ref(), args.settings_json.as_ref())?;
    let bytes = Source::from_arg(&args.review).read_document()?;
    let answer = review(&bytes, &settings);
    let text = serde_json::to_string(&answer.review)
        .map_err(|e| CliError::usage(format!("cannot write the review: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| CliError::io("stdout", &e))?;
    match answer.outcome {
        Outcome::Allowed => Ok(Status::Success),
        Outcome::Denied => Ok(Status::Failures),
        Outcome::Malformed => {
            let message = answer
                .review
                .response
                .as_ref()
                .map(|r| r.result.message.clone())
                .unwrap_or_default();
            eprintln!("podplan: {message}");
            Err(CliError::Reported)
        }
    }
}
