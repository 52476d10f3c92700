//! `podplan admit`: an `admission.k8s.io/v1` AdmissionReview (file or stdin) in, the
//! AdmissionReview with its `response` out on stdout. Exit 0 allowed, 1 denied, 2 a
//! malformed review (still answered, with a refusal that names the problem), bad
//! settings, or a policy module that failed (trap, deadline, memory).
//!
//! With `--policy FILE` the verdict comes from the Kubewarden policy module
//! (`wasm/pkg/kubewarden/podplan_kubewarden.wasm`) through the waPC host: settings are
//! checked by its `validate_settings`, the request judged by its `validate`.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;
use kube_core::admission::{AdmissionResponse, AdmissionReview};
use kube_core::DynamicObject;
use podplan_admission::{check_policy_settings, review, review_with_policy, Outcome};
use podplan_core::admission::AdmissionSettings;
use podplan_wasmhost::wapc::PolicyModule;
use podplan_wasmhost::{EngineSettings, HostEngine};
use serde_json::Value;

use super::exit::{CliError, Status};
use super::input::{yaml_document, Source};
use super::output::one_line;

/// `podplan admit`.
#[derive(Debug, Args)]
pub struct AdmitArgs {
    /// The AdmissionReview (JSON, or YAML read as kubectl reads it; `-` or nothing is
    /// standard input).
    #[arg(default_value = "-")]
    pub review: PathBuf,
    /// Admission settings (`{"rules": {"<id>": "deny"|"warn"|"off"}, "mode": "deny"|"warn",
    /// "exemptNamespaces": [...], "exemptSelector": {...}}`, docs/admission.md), as a file.
    #[arg(long, conflicts_with = "settings_json")]
    pub settings: Option<PathBuf>,
    /// Admission settings as a JSON string.
    #[arg(long)]
    pub settings_json: Option<String>,
    /// Answer through this Kubewarden policy module (waPC) instead of the native lint.
    #[arg(long)]
    pub policy: Option<PathBuf>,
}

/// The settings' bytes, if any were given.
fn settings_bytes(args: &AdmitArgs) -> Result<Option<Vec<u8>>, CliError> {
    match (&args.settings, &args.settings_json) {
        (Some(path), _) => std::fs::read(path)
            .map(Some)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display()))),
        (None, Some(text)) => Ok(Some(text.clone().into_bytes())),
        (None, None) => Ok(None),
    }
}

/// The review as JSON bytes: JSON as given, YAML read as kubectl reads it.
fn review_json(bytes: Vec<u8>) -> Result<Vec<u8>, CliError> {
    if bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| *b == b'{')
    {
        return Ok(bytes);
    }
    let value = yaml_document(&bytes).map_err(CliError::Input)?;
    serde_json::to_vec(&value)
        .map_err(|e| CliError::usage(format!("cannot convert the review: {e}")))
}

/// Runs `podplan admit`.
pub fn run(args: &AdmitArgs) -> Result<Status, CliError> {
    let settings = settings_bytes(args)?;
    let source = Source::from_arg(&args.review);
    let bytes = match source.read_document().and_then(review_json) {
        Ok(bytes) => bytes,
        Err(CliError::Input(mut error)) => {
            // Answered as any malformed review: a refusal naming the problem.
            if !error.message.starts_with(&source.describe()) {
                error.message = format!("{}: {}", source.describe(), error.message);
            }
            let refusal = AdmissionResponse::invalid(one_line(&error)).into_review();
            write_review(&refusal)?;
            eprintln!("podplan: {}", one_line(&error));
            return Err(CliError::Reported);
        }
        Err(e) => return Err(e),
    };
    let (answer, outcome) = match &args.policy {
        None => {
            let settings = match settings {
                Some(b) => AdmissionSettings::from_json(&b)
                    .map_err(|e| CliError::usage(format!("{}: {}", e.path, e.message)))?,
                None => AdmissionSettings::default(),
            };
            let a = review(&bytes, &settings);
            (a.review, a.outcome)
        }
        Some(path) => through_policy(path, settings, &bytes)?,
    };
    write_review(&answer)?;
    match outcome {
        Outcome::Allowed => Ok(Status::Success),
        Outcome::Denied => Ok(Status::Failures),
        Outcome::Malformed => {
            let message = answer
                .response
                .as_ref()
                .map(|r| r.result.message.clone())
                .unwrap_or_default();
            eprintln!("podplan: {message}");
            Err(CliError::Reported)
        }
    }
}

fn write_review(review: &AdmissionReview<DynamicObject>) -> Result<(), CliError> {
    let text = serde_json::to_string(review)
        .map_err(|e| CliError::usage(format!("cannot write the review: {e}")))?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}").map_err(|e| CliError::io("stdout", &e))
}

fn host_error(e: &podplan_wasmhost::HostError) -> CliError {
    CliError::usage(format!("the policy module failed: {e}"))
}

/// The answer of the policy module at `path`.
fn through_policy(
    path: &std::path::Path,
    settings: Option<Vec<u8>>,
    bytes: &[u8],
) -> Result<(AdmissionReview<DynamicObject>, Outcome), CliError> {
    let engine = HostEngine::new(EngineSettings::default()).map_err(|e| host_error(&e))?;
    let module = PolicyModule::load_file(&engine, path).map_err(|e| host_error(&e))?;
    let settings: Value = match settings {
        Some(b) => serde_json::from_slice(&b)
            .map_err(|e| CliError::usage(format!("the settings are not JSON: {e}")))?,
        None => Value::Object(serde_json::Map::new()),
    };
    let answer = check_policy_settings(&module, &settings)
        .and_then(|()| review_with_policy(&module, &settings, bytes))
        .map_err(|e| CliError::usage(e.to_string()))?;
    Ok((answer.review, answer.outcome))
}
