//! `podplan explain POD.yaml`: a pod as the API server serves it (`kubectl get pod NAME
//! -o yaml`), the runtime status the kubelet saw reconstructed from it, and what the
//! kubelet will do on its next sync and why. The reconstruction is core's
//! (`podplan_core::status::reconstruct`); its assumptions are printed with the answer.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use k8s_openapi::api::core::v1::Pod;
use podplan_core::status::{kubectl_pod_row, reconstruct, text};

use super::exit::{CliError, Status};
use super::input::{yaml_document, Source};
use super::output::{one_line, write_text};

const AFTER_HELP: &str = "\
Input: one v1.Pod with its status, as `kubectl get pod NAME -o yaml` (or -o json) prints
it. Anything else (a List, a Deployment, a plan request) is refused.

What an API status cannot say is assumed (one sandbox with an unknown id and attempt 0,
hashes matching the spec unless the reported image differs, back-off doubled since the
first restart, ...); every assumption is printed. See docs/explain.md.

Examples:
  kubectl get pod web -o yaml | podplan explain -
  podplan explain web.yaml --now 2026-01-01T00:05:00Z
  podplan explain web.yaml --output json";

/// Output of `podplan explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainOutput {
    /// Readable text.
    Text,
    /// `{"request", "plan", "assumptions", "backoffRemaining"}`.
    Json,
}

/// Arguments of `podplan explain`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ExplainArgs {
    /// The pod (YAML or JSON), or `-` for standard input.
    #[arg(value_name = "POD", default_value = "-")]
    pub input: PathBuf,

    /// The time of the next sync (RFC 3339). Default: the current time.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,

    /// How to print the answer.
    #[arg(short, long, value_enum, default_value_t = ExplainOutput::Text)]
    pub output: ExplainOutput,
}

/// Reads a document as a Pod, refusing anything else with a clear message.
pub fn read_pod(bytes: &[u8], what: &str) -> Result<Pod, CliError> {
    let value = yaml_document(bytes).map_err(|mut e| {
        e.message = format!("{what}: {}", e.message);
        CliError::Input(e)
    })?;
    let kind = value.get("kind").and_then(|k| k.as_str()).unwrap_or("");
    if kind != "Pod" {
        let got = if kind.is_empty() {
            if value.get("pod").is_some() {
                "a plan request (use `podplan plan` for it)".to_string()
            } else {
                "a document without `kind`".to_string()
            }
        } else if kind == "List" || kind.ends_with("List") {
            format!("a {kind}; pass one pod: kubectl get pod NAME -o yaml")
        } else {
            format!("a {kind}")
        };
        return Err(CliError::usage(format!(
            "explain takes one Pod as `kubectl get pod NAME -o yaml` prints it; {what} is {got}"
        )));
    }
    serde_json::from_value(value)
        .map_err(|e| CliError::usage(format!("{what} is not a valid v1.Pod: {e}")))
}

/// Runs `podplan explain`.
pub fn run(args: &ExplainArgs) -> Result<Status, CliError> {
    let source = Source::from_arg(&args.input);
    let bytes = source.read_document()?;
    let pod = read_pod(&bytes, &source.describe())?;
    let now = match &args.now {
        Some(text) => text
            .parse::<jiff::Timestamp>()
            .map_err(|e| CliError::usage(format!("--now {text:?} is not an RFC 3339 time: {e}")))?,
        None => wall_clock()?,
    };
    let text = explain(&pod, now, args.output)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    write_text(&mut out, &text)?;
    out.flush()?;
    Ok(Status::Success)
}

/// The current time (read here, in the CLI: the core never reads a clock).
fn wall_clock() -> Result<jiff::Timestamp, CliError> {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_err(|e| CliError::Io(format!("the system clock is before 1970: {e}")))?;
    jiff::Timestamp::from_nanosecond(i128::try_from(since.as_nanos()).unwrap_or(i128::MAX))
        .map_err(|e| CliError::Io(format!("the system clock is out of range: {e}")))
}

/// The answer for one pod at `now`.
pub fn explain(pod: &Pod, now: jiff::Timestamp, output: ExplainOutput) -> Result<String, CliError> {
    let r = reconstruct::reconstruct(pod, now);
    let plan = podplan_core::plan(&r.request)
        .map_err(|e| CliError::usage(format!("the pod cannot be planned: {}", one_line(&e))))?;
    if output == ExplainOutput::Json {
        let remaining: Vec<serde_json::Value> = r
            .backoff_remaining
            .iter()
            .map(|(c, s, until)| serde_json::json!({"container": c, "seconds": s, "until": until}))
            .collect();
        let image_remaining: Vec<serde_json::Value> = r
            .image_backoff_remaining
            .iter()
            .map(|(c, s, until)| serde_json::json!({"container": c, "seconds": s, "until": until}))
            .collect();
        let v = serde_json::json!({
            "request": r.request, "plan": plan, "assumptions": r.assumptions,
            "warnings": r.warnings, "backoffRemaining": remaining,
            "imageBackoffRemaining": image_remaining,
        });
        return serde_json::to_string_pretty(&v)
            .map_err(|e| CliError::Io(format!("cannot serialise the answer: {e}")));
    }
    let mut out = String::new();
    let name = format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or("default"),
        pod.metadata.name.as_deref().unwrap_or("")
    );
    let _ = writeln!(out, "Pod {name} at {now}");
    let _ = writeln!(out, "\nWhat kubectl shows now (from the pod's own status)");
    for line in text::row_table(&kubectl_pod_row(pod, Some(now), false)).lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out, "\nWhat the runtime reports, as reconstructed");
    if let Some(rs) = &r.request.runtime_status {
        for s in &rs.sandbox_statuses {
            let ip = s.network.as_ref().map_or("host network".to_string(), |n| {
                if n.ip.is_empty() {
                    "no IP".to_string()
                } else {
                    format!("IP {}", n.ip)
                }
            });
            let _ = writeln!(out, "  - sandbox {} {:?}, {ip}", s.id, s.state);
        }
        if rs.sandbox_statuses.is_empty() {
            let _ = writeln!(out, "  - no sandbox");
        }
        for c in &rs.container_statuses {
            let mut line = format!("  - {} {}", c.name, c.state.as_str());
            if c.state == podplan_core::runtime::ContainerState::Exited {
                let _ = write!(line, " (exit {}", c.exit_code);
                if !c.reason.is_empty() {
                    let _ = write!(line, ", {}", c.reason);
                }
                if let Some(f) = c.finished_at {
                    let _ = write!(line, ", finished {f}");
                }
                line.push(')');
            }
            let _ = write!(line, ", restartCount {}, id {}", c.restart_count, c.id);
            let _ = writeln!(out, "{line}");
        }
    }
    for (c, e) in &r.request.reason_cache {
        let _ = writeln!(out, "  - reason cache: {c}: {} {}", e.reason, e.message);
        if e.reason == podplan_core::hooks::ERR_POST_START_HOOK {
            let _ = writeln!(
                out,
                "    {c}'s postStart hook failed: the kubelet recorded FailedPostStartHook, killed the container (reason FailedPostStartHook, its preStop first) and failed the start; it restarts under crash-loop back-off"
            );
        }
    }
    for (c, secs, until) in &r.backoff_remaining {
        if *secs > 0 {
            let _ = writeln!(
                out,
                "  - crash-loop back-off: {c} may restart in {secs}s (at {until})"
            );
        } else {
            let _ = writeln!(
                out,
                "  - crash-loop back-off: {c}'s back-off ended at {until}"
            );
        }
    }
    for (c, secs, until) in &r.image_backoff_remaining {
        if *secs > 0 {
            let _ = writeln!(
                out,
                "  - image-pull back-off: {c} waits for its image; the next pull in {secs}s (at {until})"
            );
        } else {
            let _ = writeln!(
                out,
                "  - image-pull back-off: {c}'s back-off ended at {until}: the next sync pulls again"
            );
        }
    }
    let _ = writeln!(out, "\nAssumed (the API status does not say)");
    for a in &r.assumptions {
        let _ = writeln!(out, "  - {a}");
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(out, "\nThe status contradicts the spec");
        for w in &r.warnings {
            let _ = writeln!(out, "  - {}: {}", w.path, w.message);
        }
    }
    let _ = writeln!(out, "\nThe kubelet's next sync");
    for line in podplan_core::explain::to_text(&plan).lines() {
        if line.is_empty() {
            out.push('\n');
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
    Ok(out)
}
