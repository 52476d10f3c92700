//! Writing plans and errors: JSON (compact, or pretty on a terminal / with `--pretty`),
//! YAML, or text (`explain::to_text`).
//!
//! Machines read stdout: in JSON and YAML modes an input error is printed there as
//! the contract's `{"error": {kind, path, message}}` object. People read stderr: a
//! one-line message is always printed there too.

use std::io::{self, IsTerminal, Write};

use clap::ValueEnum;
use podplan_core::error::ErrorEnvelope;
use podplan_core::{ErrorKind, Plan, PlanError};
use serde::Serialize;

use super::exit::CliError;

/// How a plan is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The contract's JSON.
    Json,
    /// The same document as YAML.
    Yaml,
    /// A readable explanation (what happens, in order, and why).
    Text,
}

/// Output settings for one run.
#[derive(Debug, Clone, Copy)]
pub struct Output {
    /// The format.
    pub format: OutputFormat,
    /// Indent JSON.
    pub pretty: bool,
}

impl Output {
    /// `pretty` is forced by `--pretty`, else follows whether stdout is a terminal.
    pub fn new(format: OutputFormat, force_pretty: bool) -> Self {
        Self {
            format,
            pretty: force_pretty || io::stdout().is_terminal(),
        }
    }

    /// Writes a plan and a final newline.
    ///
    /// `strict` gives the configs in strict proto3 JSON (env values base64,
    /// `--proto3-json`).
    pub fn plan(&self, out: &mut dyn Write, plan: &Plan, strict: bool) -> Result<(), CliError> {
        match self.format {
            OutputFormat::Text => {
                let text = podplan_core::explain::to_text(plan);
                write_text(out, &text)
            }
            OutputFormat::Json | OutputFormat::Yaml if strict => {
                self.document(out, &podplan_core::api::strict_value(plan))
            }
            OutputFormat::Json | OutputFormat::Yaml => self.document(out, plan),
        }
    }

    /// Reports an input error: the error object on stdout (JSON/YAML modes), and a
    /// one-line message on stderr.
    pub fn error(&self, out: &mut dyn Write, error: &PlanError) -> Result<(), CliError> {
        eprintln!("podplan: {}", one_line(error));
        match self.format {
            OutputFormat::Text => Ok(()),
            OutputFormat::Json | OutputFormat::Yaml => self.document(
                out,
                &ErrorEnvelope {
                    error: error.clone(),
                },
            ),
        }
    }

    fn document<T: Serialize>(&self, out: &mut dyn Write, value: &T) -> Result<(), CliError> {
        let result = match self.format {
            OutputFormat::Yaml => serde_yaml_ng::to_string(value).map_err(|e| e.to_string()),
            OutputFormat::Json | OutputFormat::Text if self.pretty => {
                serde_json::to_string_pretty(value).map_err(|e| e.to_string())
            }
            OutputFormat::Json | OutputFormat::Text => {
                serde_json::to_string(value).map_err(|e| e.to_string())
            }
        };
        let text = result.map_err(|e| CliError::Io(format!("cannot serialise the output: {e}")))?;
        write_text(out, &text)
    }
}

/// Writes `text`, adding a final newline if it has none, and flushes.
pub fn write_text(out: &mut dyn Write, text: &str) -> Result<(), CliError> {
    out.write_all(text.as_bytes())
        .and_then(|()| {
            if text.ends_with('\n') {
                Ok(())
            } else {
                out.write_all(b"\n")
            }
        })
        .and_then(|()| out.flush())
        .map_err(|e| CliError::io("cannot write to standard output", &e))
}

/// A one-line human description of an input error.
pub fn one_line(error: &PlanError) -> String {
    let what = match error.kind {
        ErrorKind::InvalidInput => "invalid input",
        ErrorKind::LimitExceeded => "input too large",
    };
    let message = error.message.replace('\n', " ");
    if error.path.is_empty() {
        format!("{what}: {message}")
    } else {
        format!("{what} at {}: {message}", error.path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_names_kind_and_path() {
        let e = PlanError::invalid("pod.spec", "a pod needs a spec");
        assert_eq!(
            one_line(&e),
            "invalid input at pod.spec: a pod needs a spec"
        );
        let e = PlanError::limit("", "too\nbig");
        assert_eq!(one_line(&e), "input too large: too big");
    }

    #[test]
    fn errors_are_contract_objects_on_stdout() {
        let out = Output {
            format: OutputFormat::Json,
            pretty: false,
        };
        let mut buf = Vec::new();
        out.error(&mut buf, &PlanError::invalid("pod", "bad"))
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&buf).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"error": {"kind": "InvalidInput", "path": "pod", "message": "bad"}})
        );
        let text = Output {
            format: OutputFormat::Text,
            pretty: false,
        };
        let mut buf = Vec::new();
        text.error(&mut buf, &PlanError::invalid("pod", "bad"))
            .unwrap();
        assert!(buf.is_empty());
    }
}
