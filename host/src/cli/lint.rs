//! `podplan lint FILE...`: the lifecycle lint of manifests (Pods and workloads; JSON or
//! YAML read as kubectl reads it, several documents per file, the items of a `kind: List`
//! one by one), as text or JSON. Files get the API server's defaults first. Exit 1 when a
//! finding denies, 2 when a file cannot be read (with `--output json`, the contract's
//! `{"error": {kind, path, message}}` on stdout).

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use podplan_core::error::ErrorEnvelope;
use podplan_core::lint::{lint_object, Finding, LintSettings};
use podplan_core::PlanError;
use serde::Serialize;
use serde_json::Value;

use super::exit::{CliError, Status};
use super::input::{self, Source};
use super::output::one_line;

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
    /// Where the object sits in its document: empty, or `items[2]` for an item of a
    /// `kind: List` (the findings' paths start with it).
    #[serde(skip_serializing_if = "String::is_empty")]
    item: String,
    kind: String,
    name: String,
    findings: Vec<Finding>,
}

/// The documents of a file, as JSON.
fn documents(source: &Source) -> Result<Vec<Value>, CliError> {
    let bytes = source.read_document()?;
    input::documents(&bytes).map_err(|mut e| {
        e.message = format!("{}: {}", source.describe(), e.message);
        CliError::Input(e)
    })
}

/// Whether `value` is a list (`kind: List`, or `PodList`, `DeploymentList`, ... with
/// `items`), as kubectl's builder flattens them.
fn is_list(value: &Value) -> bool {
    value
        .get("kind")
        .and_then(Value::as_str)
        .is_some_and(|k| k.ends_with("List"))
        && value.get("items").is_some_and(Value::is_array)
}

/// The objects of a document with their place in it: the document itself, or each
/// item of a list (nested lists flattened). An item of a typed list (`PodList`) that
/// does not name its kind takes the list's (`Pod`), as the API serves such items.
fn objects(document: Value, at: &str, out: &mut Vec<(String, Value)>) {
    if !is_list(&document) {
        out.push((at.to_string(), document));
        return;
    }
    let list_kind = text_of(&document, "kind");
    let item_kind = list_kind
        .strip_suffix("List")
        .filter(|k| !k.is_empty())
        .map(str::to_string);
    let Some(Value::Array(items)) = document.get("items").cloned() else {
        return;
    };
    for (i, mut item) in items.into_iter().enumerate() {
        if let (Some(kind), Some(fields)) = (&item_kind, item.as_object_mut()) {
            fields
                .entry("kind")
                .or_insert_with(|| Value::String(kind.clone()));
        }
        objects(item, &format!("{at}items[{i}]."), out);
    }
}

fn text_of(value: &Value, key: &str) -> String {
    let at = match key {
        "name" => value.get("metadata").and_then(|m| m.get("name")),
        _ => value.get(key),
    };
    at.and_then(Value::as_str).unwrap_or("").to_string()
}

/// A path inside an item (`spec.containers[0]`) as a path in its document.
fn in_document(at: &str, path: &str) -> String {
    if path.is_empty() {
        at.trim_end_matches('.').to_string()
    } else {
        format!("{at}{path}")
    }
}

/// The reports of all files.
fn reports(args: &LintArgs, settings: &LintSettings) -> Result<Vec<Report>, CliError> {
    let mut reports = Vec::new();
    for file in &args.files {
        let source = Source::from_arg(file);
        let mut found = Vec::new();
        for document in documents(&source)? {
            objects(document, "", &mut found);
        }
        for (at, object) in found {
            let mut findings = lint_object(&object, settings, true).map_err(|e| {
                CliError::Input(PlanError {
                    kind: e.kind,
                    path: in_document(&at, &e.path),
                    message: format!("{}: {}", source.describe(), e.message),
                })
            })?;
            for f in &mut findings {
                f.path = in_document(&at, &f.path);
            }
            reports.push(Report {
                file: source.describe(),
                item: at.trim_end_matches('.').to_string(),
                kind: text_of(&object, "kind"),
                name: text_of(&object, "name"),
                findings,
            });
        }
    }
    Ok(reports)
}

/// Runs `podplan lint`.
pub fn run(args: &LintArgs) -> Result<Status, CliError> {
    let settings = read_settings(args.settings.as_ref(), args.settings_json.as_ref())?;
    let reports = match reports(args, &settings) {
        Ok(r) => r,
        Err(CliError::Input(error)) if args.output == LintOutput::Json => {
            // As `podplan plan`: the contract's error object on stdout, a line on stderr.
            eprintln!("podplan: {}", one_line(&error));
            let text = serde_json::to_string_pretty(&ErrorEnvelope { error })
                .map_err(|e| CliError::usage(format!("cannot write JSON: {e}")))?;
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}").map_err(|e| CliError::io("stdout", &e))?;
            return Err(CliError::Reported);
        }
        Err(e) => return Err(e),
    };
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
