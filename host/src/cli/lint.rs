//! `podplan lint FILE...`: the lifecycle lint of manifests (Pods and workloads; JSON or
//! YAML, several YAML documents per file), as text or JSON. Files get the API server's
//! defaults first. Exit 1 when a finding denies, 2 when a file cannot be read.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use podplan_core::lint::{lint_object, Finding, LintSettings};
use serde::Serialize;
use serde_json::Value;

use super::exit::{CliError, Status};
use super::input::Source;

/// How findings are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintOutput {
    /// One line per finding.
    Text,
    /// A JSON array: one entry per object, with its findings.
    Json,
}

/// `podplan lint`.
#[derive(Debug, Args)]
pub struct LintArgs {
    /// Manifests (JSON or YAML; `-` is standard input).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, short, value_enum, default_value = "text")]
    pub output: LintOutput,
    /// Lint settings (`{"rules": {"<id>": "deny"|"warn"|"off"}}`), as a file.
    #[arg(long, conflicts_with = "settings_json")]
    pub settings: Option<PathBuf>,
    /// Lint settings as a JSON string.
    #[arg(long)]
    pub settings_json: Option<String>,
}

/// The settings given by `--settings FILE` or `--settings-json STRING` (default: none).
pub fn read_settings(
    file: Option<&PathBuf>,
    json: Option<&String>,
) -> Result<LintSettings, CliError> {
    let bytes = match (file, json) {
        (Some(path), _) => std::fs::read(path)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?,
        (None, Some(text)) => text.clone().into_bytes(),
        (None, None) => return Ok(LintSettings::default()),
    };
    LintSettings::from_json(&bytes)
        .map_err(|e| CliError::usage(format!("{}: {}", e.path, e.message)))
}

/// The findings of one object of one file.
#[derive(Debug, Serialize)]
struct Report {
    file: String,
    kind: String,
    name: String,
    findings: Vec<Finding>,
}

/// The documents of a file: a JSON value, or each YAML document.
fn documents(source: &Source) -> Result<Vec<Value>, CliError> {
    let bytes = source.read_document()?;
    let text = String::from_utf8(bytes)
        .map_err(|_| CliError::usage(format!("{}: not UTF-8 text", source.describe())))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim_start().starts_with('{') {
        return serde_json::from_str(text)
            .map(|v| vec![v])
            .map_err(|e| CliError::usage(format!("{}: invalid JSON: {e}", source.describe())));
    }
    let mut out = Vec::new();
    for doc in serde_yaml_ng::Deserializer::from_str(text) {
        let value = <Value as serde::Deserialize>::deserialize(doc)
            .map_err(|e| CliError::usage(format!("{}: invalid YAML: {e}", source.describe())))?;
        if !value.is_null() {
            out.push(value);
        }
    }
    Ok(out)
}

fn text_of(value: &Value, key: &str) -> String {
    let at = match key {
        "name" => value.get("metadata").and_then(|m| m.get("name")),
        _ => value.get(key),
    };
    at.and_then(Value::as_str).unwrap_or("").to_string()
}

/// Runs `podplan lint`.
pub fn run(args: &LintArgs) -> Result<Status, CliError> {
    let settings = read_settings(args.settings.as_ref(), args.settings_json.as_ref())?;
    let mut reports = Vec::new();
    for file in &args.files {
        let source = Source::from_arg(file);
        for object in documents(&source)? {
            let findings = lint_object(&object, &settings, true).map_err(|e| {
                CliError::usage(format!(
                    "{}: {} at {}",
                    source.describe(),
                    e.message,
                    e.path
                ))
            })?;
            reports.push(Report {
                file: source.describe(),
                kind: text_of(&object, "kind"),
                name: text_of(&object, "name"),
                findings,
            });
        }
    }
    let mut out = std::io::stdout().lock();
    match args.output {
        LintOutput::Json => {
            let text = serde_json::to_string_pretty(&reports)
                .map_err(|e| CliError::usage(format!("cannot write JSON: {e}")))?;
            writeln!(out, "{text}").map_err(|e| CliError::io("stdout", &e))?;
        }
        LintOutput::Text => {
            for r in &reports {
                for f in &r.findings {
                    let severity = serde_json::to_value(f.severity).unwrap_or_default();
                    let action = serde_json::to_value(f.action).unwrap_or_default();
                    writeln!(
                        out,
                        "{}: {}/{}: {} ({}, {}) {}: {}",
                        r.file,
                        r.kind,
                        r.name,
                        f.rule.id(),
                        severity.as_str().unwrap_or(""),
                        action.as_str().unwrap_or(""),
                        f.path,
                        f.message
                    )
                    .map_err(|e| CliError::io("stdout", &e))?;
                }
            }
        }
    }
    let denied = reports
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| f.action == podplan_core::lint::Action::Deny);
    Ok(if denied {
        Status::Failures
    } else {
        Status::Success
    })
}
