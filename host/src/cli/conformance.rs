//! `podplan conformance DIR...`: run conformance vectors and report like a test suite.
//!
//! Every `*.json` file under the directories (recursively, sorted) is a vector, except
//! `deviations.json`. A file that is not JSON or not a vector fails. A
//! `deviations.json` in a given directory or its parent lists vectors (by `name`)
//! where Kubernetes 1.37 differs from the vector's older expectation: such a vector is
//! expected to *fail* that expectation and is reported apart as a deviation; if it
//! passes, that is a failure (the list is stale).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use podplan_core::conformance::run_vector;

use super::exit::{CliError, Status};
use super::output::write_text;

const DEVIATIONS_FILE: &str = "deviations.json";

const AFTER_HELP: &str = "\
Output:
  Per suite (the vector file's directory name) the passed/failed counts (and vectors
  pending because their function is not implemented yet), then every
  failure with a readable diff (expected vs. the engine's answer), then the deviations,
  and last a line `N passed, M failed` on its own (`, K skipped` when vectors are pending).

Exit codes:
  0 every vector agrees (deviations included), 1 some vector failed,
  2 a directory does not exist or holds no vectors.

Examples:
  podplan conformance conformance/
  podplan conformance conformance/actions conformance/config/TestMapping
  podplan conformance conformance/ --summary";

/// Arguments of `podplan conformance`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ConformanceArgs {
    /// Directories searched recursively for `*.json` vectors (a single vector file
    /// works too).
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<PathBuf>,

    /// Print the counts only, not each failure's diff.
    #[arg(long)]
    pub summary: bool,
}

/// One vector's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Passed,
    Failed(String),
    /// Listed in deviations.json and fails its original expectation, as it should.
    Deviation,
    /// The vector's function is not implemented yet: not run.
    Pending,
}

/// Counts for one suite.
#[derive(Debug, Default, Clone, Copy)]
struct Counts {
    passed: usize,
    failed: usize,
    deviations: usize,
    pending: usize,
}

/// A deviation entry: why 1.37 differs (if the file says).
type Deviations = BTreeMap<String, String>;

/// Runs `podplan conformance`.
pub fn run(args: &ConformanceArgs) -> Result<Status, CliError> {
    let mut files = BTreeSet::new();
    let mut deviations = Deviations::new();
    for dir in &args.dirs {
        let meta = fs::metadata(dir)
            .map_err(|e| CliError::usage(format!("no such directory: {} ({e})", dir.display())))?;
        let base = if meta.is_dir() {
            collect(dir, &mut files)?;
            Some(dir.as_path())
        } else {
            files.insert(dir.clone());
            dir.parent()
        };
        if let Some(base) = base {
            load_deviations(base, &mut deviations)?;
            if let Some(parent) = base.parent() {
                load_deviations(parent, &mut deviations)?;
            }
        }
    }
    if files.is_empty() {
        return Err(CliError::usage(format!(
            "no conformance vectors (*.json) found in {}",
            args.dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    tracing::info!(
        vectors = files.len(),
        deviations = deviations.len(),
        "running conformance"
    );

    let mut suites: Vec<(String, Counts)> = Vec::new();
    let mut failures = String::new();
    let mut deviated = String::new();
    let mut total = Counts::default();
    for path in &files {
        let (name, verdict) = judge(path, &deviations);
        let suite = suite_of(path);
        let counts = match suites.iter_mut().find(|(s, _)| *s == suite) {
            Some((_, counts)) => counts,
            None => {
                suites.push((suite, Counts::default()));
                match suites.last_mut() {
                    Some((_, counts)) => counts,
                    None => continue,
                }
            }
        };
        match verdict {
            Verdict::Passed => {
                counts.passed += 1;
                total.passed += 1;
            }
            Verdict::Pending => {
                counts.pending += 1;
                total.pending += 1;
            }
            Verdict::Deviation => {
                counts.deviations += 1;
                total.deviations += 1;
                let why = deviations
                    .get(&name)
                    .map(String::as_str)
                    .unwrap_or_default();
                let _ = write!(deviated, "  {} ({name})", path.display());
                let _ = if why.is_empty() {
                    writeln!(deviated)
                } else {
                    writeln!(deviated, ": {why}")
                };
            }
            Verdict::Failed(diff) => {
                counts.failed += 1;
                total.failed += 1;
                if !args.summary {
                    let _ = writeln!(failures, "FAIL {} ({name})", path.display());
                    if diff.trim().is_empty() {
                        failures.push_str("    (the vector failed without a diff)\n");
                    }
                    for line in diff.lines() {
                        let _ = writeln!(failures, "    {}", line.trim_start());
                    }
                    failures.push('\n');
                }
            }
        }
    }

    let mut table = String::new();
    let width = suites.iter().map(|(s, _)| s.len()).max().unwrap_or(0);
    for (suite, c) in &suites {
        let _ = write!(
            table,
            "{suite:<width$}  {:>4} passed  {:>4} failed",
            c.passed, c.failed
        );
        if c.deviations > 0 {
            let _ = write!(table, "  {:>3} deviations (1.37 differs)", c.deviations);
        }
        if c.pending > 0 {
            let _ = write!(table, "  {:>4} pending (not implemented yet)", c.pending);
        }
        table.push('\n');
    }
    let mut sections = vec![table];
    if !failures.is_empty() {
        sections.push(format!("{}\n", failures.trim_end()));
    }
    if total.deviations > 0 {
        sections.push(format!(
            "deviations (1.37 differs): {}\n{deviated}",
            total.deviations
        ));
    }
    if total.pending > 0 {
        sections.push(format!(
            "pending: {} vectors were not run: their functions are not implemented yet\n",
            total.pending
        ));
        sections.push(format!(
            "{} passed, {} failed, {} skipped\n",
            total.passed, total.failed, total.pending
        ));
    } else {
        sections.push(format!(
            "{} passed, {} failed\n",
            total.passed, total.failed
        ));
    }
    let report = sections.join("\n");
    let stdout = io::stdout();
    let mut out = stdout.lock();
    write_text(&mut out, &report)?;
    out.flush()?;
    Ok(if total.failed == 0 {
        Status::Success
    } else {
        Status::Failures
    })
}

/// Reads and runs one vector file. Returns the vector's name (or the file name) and
/// the verdict.
fn judge(path: &Path, deviations: &Deviations) -> (String, Verdict) {
    let fallback = path.display().to_string();
    let text = match fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            return (
                fallback,
                Verdict::Failed(format!("cannot read the file: {e}")),
            )
        }
    };
    let vector: serde_json::Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return (fallback, Verdict::Failed(format!("not valid JSON: {e}"))),
    };
    let outcome = run_vector(&vector);
    if outcome.pending {
        return (outcome.name, Verdict::Pending);
    }
    let listed = deviations.contains_key(&outcome.name);
    let verdict = match (outcome.passed, listed) {
        (true, false) => Verdict::Passed,
        (false, true) => Verdict::Deviation,
        (false, false) => Verdict::Failed(outcome.diff),
        (true, true) => Verdict::Failed(format!(
            "listed in {DEVIATIONS_FILE} as a place where 1.37 differs, but it now passes \
             its original expectation: remove it from the list"
        )),
    };
    (outcome.name, verdict)
}

/// The suite of a vector: the name of the directory that holds it.
fn suite_of(path: &Path) -> String {
    path.parent()
        .and_then(Path::file_name)
        .map_or_else(|| ".".to_string(), |n| n.to_string_lossy().into_owned())
}

/// Collects `*.json` files under `dir` (real directories only; symlinked files count).
fn collect(dir: &Path, files: &mut BTreeSet<PathBuf>) -> Result<(), CliError> {
    let entries = fs::read_dir(dir)
        .map_err(|e| CliError::usage(format!("cannot read directory {}: {e}", dir.display())))?;
    for entry in entries {
        let entry = entry.map_err(|e| {
            CliError::usage(format!("cannot read directory {}: {e}", dir.display()))
        })?;
        let path = entry.path();
        let file_type = entry
            .file_type()
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display())))?;
        if file_type.is_dir() {
            collect(&path, files)?;
        } else if is_vector_file(&path) && fs::metadata(&path).is_ok_and(|m| m.is_file()) {
            files.insert(path);
        }
    }
    Ok(())
}

fn is_vector_file(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
        && path.file_name().is_some_and(|n| n != DEVIATIONS_FILE)
}

/// Adds the entries of `dir/deviations.json`, if that file exists.
/// Format: `{"deviations": [{"vector": "<name>", "reason": "..."}]}`.
fn load_deviations(dir: &Path, into: &mut Deviations) -> Result<(), CliError> {
    let path = dir.join(DEVIATIONS_FILE);
    let text = match fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(CliError::usage(format!(
                "cannot read {}: {e}",
                path.display()
            )))
        }
    };
    let parsed: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| CliError::usage(format!("{} is not valid JSON: {e}", path.display())))?;
    let Some(list) = parsed
        .get("deviations")
        .and_then(serde_json::Value::as_array)
    else {
        return Err(CliError::usage(format!(
            "{} has no `deviations` list",
            path.display()
        )));
    };
    for entry in list {
        let Some(name) = entry.get("vector").and_then(serde_json::Value::as_str) else {
            return Err(CliError::usage(format!(
                "{}: every deviation needs a `vector` (the vector's name)",
                path.display()
            )));
        };
        let why = ["reason", "why", "note"]
            .iter()
            .find_map(|k| entry.get(*k).and_then(serde_json::Value::as_str))
            .unwrap_or_default();
        into.insert(name.to_string(), why.replace('\n', " "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suites_are_parent_directory_names() {
        assert_eq!(suite_of(Path::new("c/actions/TestX/01-a.json")), "TestX");
        assert_eq!(suite_of(Path::new("01-a.json")), ".");
    }

    #[test]
    fn the_deviation_list_is_not_a_vector() {
        assert!(!is_vector_file(Path::new("c/deviations.json")));
        assert!(is_vector_file(Path::new("c/x/01.json")));
        assert!(!is_vector_file(Path::new("c/README.md")));
    }
}
