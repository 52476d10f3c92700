//! `podplan explain POD.yaml`: a pod as the API server serves it (`kubectl get pod NAME
//! -o yaml`), the runtime status the kubelet saw reconstructed from it, and what the
//! kubelet will do on its next sync and why. The reconstruction is core's
//! (`podplan_core::explain::reconstruct`); its assumptions are printed with the answer.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::PathBuf;

use clap::Args;
use k8s_openapi::api::core::v1::Pod;
use podplan_core::explain::next::{self as reconstruct_next, Next};
use podplan_core::explain::reconstruct;
use podplan_core::status::{kubectl_pod_row, text};

use super::exit::{CliError, Status};
use super::input::Source;
use super::output::{one_line, write_text};

const AFTER_HELP: &str = "\
Input: pods as people paste them: `kubectl get pod NAME -o yaml` (or -o json), a pod
without `kind` (the kubelet's /pods items, must-gather, client-go dumps: read as a Pod, with
a note), a List or PodList (`kubectl get pods -o json`, the kubelet's /pods) or several
YAML documents. One pod gets the full answer; several get one line each (name, kubectl
row, what happens next), and `--pod NAME` (or NAMESPACE/NAME) picks one for the full
answer. Anything else (a Deployment, a plan request) is refused.

What an API status cannot say is assumed (one sandbox with an unknown id and attempt 0,
hashes matching the spec unless the reported image differs, back-off doubled since the
first restart, ConfigMaps and Secrets the pod reads exist unless its status shows the
kubelet's error, a kubeadm-like node with cluster DNS, ...); every assumption is printed.
See docs/explain.md.

Examples:
  kubectl get pod web -o yaml | podplan explain -
  kubectl get pods -o json | podplan explain -
  kubectl get pods -o json | podplan explain - --pod web-5d8f7c9b6-x2x7k
  podplan explain web.yaml --now 2026-01-01T00:05:00Z
  podplan explain web.yaml --output json";

/// Output of `podplan explain`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExplainOutput {
    /// Readable text.
    Text,
    /// One pod: `{"next", "request", "plan", "assumptions", "warnings", "notes",
    /// "backoffRemaining", "imageBackoffRemaining"}`; several: `{"pods": [...], "notes"}`.
    Json,
}

/// Arguments of `podplan explain`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct ExplainArgs {
    /// The pod(s) (YAML or JSON), or `-` for standard input.
    #[arg(value_name = "POD", default_value = "-")]
    pub input: PathBuf,

    /// The time of the next sync (RFC 3339). Default: the current time.
    #[arg(long, value_name = "TIME")]
    pub now: Option<String>,

    /// How to print the answer.
    #[arg(short, long, value_enum, default_value_t = ExplainOutput::Text)]
    pub output: ExplainOutput,

    /// With several pods in the input: the one to explain in full (NAME or NAMESPACE/NAME).
    #[arg(long, value_name = "NAME")]
    pub pod: Option<String>,
}

/// One pod read from the input.
#[derive(Debug, Clone)]
pub struct Found {
    /// The pod.
    pub pod: Pod,
    /// The document as given (for the checks of fields a served pod always has).
    pub raw: serde_json::Value,
    /// How it was read, when that is worth saying (no `kind`, an item of a list).
    pub notes: Vec<String>,
}

impl Found {
    /// `NAMESPACE/NAME` (namespace `default` when absent).
    pub fn full_name(&self) -> String {
        format!(
            "{}/{}",
            self.pod.metadata.namespace.as_deref().unwrap_or("default"),
            self.pod.metadata.name.as_deref().unwrap_or("")
        )
    }
}

/// The documents of the input, read as kubectl reads them ([`super::input::documents`]:
/// one JSON value, a stream of JSON values, or YAML documents separated by `---`).
fn documents(bytes: &[u8], what: &str) -> Result<Vec<serde_json::Value>, CliError> {
    super::input::documents(bytes).map_err(|mut e| {
        e.message = format!("{what}: {}", e.message);
        CliError::Input(e)
    })
}

/// A document without `kind` that is evidently a pod: it has a spec with containers, or
/// pod metadata and a pod status.
fn looks_like_pod(v: &serde_json::Value) -> bool {
    v.get("spec")
        .and_then(|s| s.get("containers"))
        .is_some_and(serde_json::Value::is_array)
        || (v.get("metadata").is_some()
            && v.get("status")
                .is_some_and(|s| s.get("phase").is_some() || s.get("containerStatuses").is_some()))
}

fn to_pod(mut value: serde_json::Value, what: &str) -> Result<Found, CliError> {
    let raw = value.clone();
    if let Some(obj) = value.as_object_mut() {
        obj.insert("apiVersion".into(), "v1".into());
        obj.insert("kind".into(), "Pod".into());
    }
    if value.get("spec").is_none_or(serde_json::Value::is_null) {
        return Err(CliError::usage(format!(
            "{what} has no spec (pod.spec): a served pod always has one; the document looks truncated"
        )));
    }
    let pod = serde_json::from_value(value)
        .map_err(|e| CliError::usage(format!("{what} is not a valid v1.Pod: {e}")))?;
    Ok(Found {
        pod,
        raw,
        notes: Vec::new(),
    })
}

const KINDLESS: &str = "the document has no `kind`; read as a Pod (as the kubelet's /pods items, must-gather and client-go dumps write pods)";

/// Reads every pod of the input: `kind: Pod`, kind-less pods, `List`/`PodList` items and
/// multi-document files. Anything else alone is refused with a message that says what it
/// is; inside a list or a multi-document file it is skipped with a note.
pub fn read_pods(bytes: &[u8], what: &str) -> Result<(Vec<Found>, Vec<String>), CliError> {
    let docs = documents(bytes, what)?;
    let single = docs.len() == 1;
    let mut pods = Vec::new();
    let mut notes = Vec::new();
    let mut refused = None;
    for (d, doc) in docs.into_iter().enumerate() {
        let at = if single {
            what.to_string()
        } else {
            format!("{what}, document {}", d + 1)
        };
        let kind = doc
            .get("kind")
            .and_then(|k| k.as_str())
            .unwrap_or("")
            .to_string();
        let items = doc
            .get("items")
            .and_then(serde_json::Value::as_array)
            .cloned();
        if kind == "Pod" {
            pods.push(to_pod(doc, &at)?);
        } else if kind.is_empty() && doc.get("pod").is_some() {
            refused = Some("a plan request (use `podplan plan` for it)".to_string());
        } else if kind == "List" || kind.ends_with("List") || (kind.is_empty() && items.is_some()) {
            let items = items.unwrap_or_default();
            let before = pods.len();
            for (i, item) in items.into_iter().enumerate() {
                let ik = item
                    .get("kind")
                    .and_then(|k| k.as_str())
                    .unwrap_or("")
                    .to_string();
                let item_at = format!("{at}, item {i}");
                if ik == "Pod" || (ik.is_empty() && looks_like_pod(&item)) {
                    let mut found = to_pod(item, &item_at)?;
                    if ik.is_empty() && kind == "List" {
                        found.notes.push(KINDLESS.to_string());
                    }
                    pods.push(found);
                } else {
                    notes.push(format!(
                        "{item_at} is {}: skipped (explain reads pods)",
                        if ik.is_empty() {
                            "not a pod".to_string()
                        } else {
                            format!("a {ik}")
                        }
                    ));
                }
            }
            if pods.len() == before {
                refused = Some(format!(
                    "a {} without any Pod; pass one pod (kubectl get pod NAME -o yaml) or a list of pods",
                    if kind.is_empty() { "list" } else { &kind }
                ));
            }
        } else if kind.is_empty() && looks_like_pod(&doc) {
            let mut found = to_pod(doc, &at)?;
            found.notes.push(KINDLESS.to_string());
            pods.push(found);
        } else {
            let got = if kind.is_empty() {
                "a document without `kind` that is not a pod".to_string()
            } else {
                format!("a {kind}")
            };
            if !single {
                notes.push(format!("{at} is {got}: skipped (explain reads pods)"));
            }
            refused = Some(got);
        }
    }
    if pods.is_empty() {
        let got = refused.unwrap_or_else(|| "empty".to_string());
        return Err(CliError::usage(format!(
            "explain takes one Pod as `kubectl get pod NAME -o yaml` prints it (or a list of pods); {what} is {got}"
        )));
    }
    Ok((pods, notes))
}

/// Runs `podplan explain`.
pub fn run(args: &ExplainArgs) -> Result<Status, CliError> {
    let source = Source::from_arg(&args.input);
    let bytes = source.read_document()?;
    let (mut pods, notes) = read_pods(&bytes, &source.describe())?;
    let now = match &args.now {
        Some(text) => text
            .parse::<jiff::Timestamp>()
            .map_err(|e| CliError::usage(format!("--now {text:?} is not an RFC 3339 time: {e}")))?,
        None => wall_clock()?,
    };
    if let Some(wanted) = &args.pod {
        let matches = |f: &Found| {
            f.full_name() == *wanted || f.pod.metadata.name.as_deref() == Some(wanted.as_str())
        };
        let chosen: Vec<Found> = pods.iter().filter(|f| matches(f)).cloned().collect();
        match chosen.len() {
            1 => pods = chosen,
            0 => {
                let names: Vec<String> = pods.iter().map(Found::full_name).collect();
                return Err(CliError::usage(format!(
                    "--pod {wanted}: no such pod in {}; it holds {}",
                    source.describe(),
                    names.join(", ")
                )));
            }
            n => {
                return Err(CliError::usage(format!(
                    "--pod {wanted}: {n} pods of that name (in different namespaces); pass NAMESPACE/NAME"
                )))
            }
        }
    }
    let text = if let [one] = pods.as_slice() {
        let mut one = one.clone();
        one.notes.extend(notes);
        explain_found(&one, now, args.output)?
    } else {
        summarize(&pods, &notes, now, args.output, &source.describe())?
    };
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

/// Everything explain works out for one pod.
struct Answer {
    r: reconstruct::Reconstruction,
    plan: Option<podplan_core::Plan>,
    plan_error: Option<String>,
    next: Next,
}

fn answer(found: &Found, now: jiff::Timestamp) -> Answer {
    let mut r = reconstruct::reconstruct(&found.pod, now);
    let mut input_warnings = reconstruct_next::input_warnings(&found.raw);
    input_warnings.append(&mut r.warnings);
    r.warnings = input_warnings;
    let outlook = reconstruct_next::next(&found.pod, now);
    let unscheduled = outlook
        .as_ref()
        .is_some_and(|n| n.stage == reconstruct_next::Stage::Unscheduled);
    let (plan, plan_error) = if unscheduled {
        (None, None)
    } else {
        match podplan_core::plan(&r.request) {
            Ok(mut plan) => {
                podplan_core::explain::word_readiness(&mut plan, &r.readiness_failing);
                (Some(plan), None)
            }
            Err(e) => (None, Some(one_line(&e))),
        }
    };
    let mut next = outlook.unwrap_or_else(|| Next {
        summary: match (&plan, &plan_error) {
            (Some(p), _) => podplan_core::explain::next_summary(
                p,
                &r.request.pod,
                &r.reported_config_errors,
                &r.readiness_failing,
            ),
            (None, Some(e)) => format!("cannot be planned: {e}"),
            (None, None) => String::new(),
        },
        ..Next::default()
    });
    next.readiness_failing.clone_from(&r.readiness_failing);
    if next.stage == reconstruct_next::Stage::Sync {
        for c in &r.readiness_failing {
            next.details.push(format!(
                "{c}: readiness is failing; the kubelet never restarts for readiness (only a failed liveness or startup probe kills a container): it keeps running, not ready"
            ));
        }
        for (c, m) in &r.reported_config_errors {
            next.details.push(format!(
                "{c}: the pod's status shows the kubelet's CreateContainerConfigError ({m}): it is retried on every sync until the object it needs exists"
            ));
        }
    }
    Answer {
        r,
        plan,
        plan_error,
        next,
    }
}

/// Whether a plan agrees with a pod that is terminating: it starts nothing and kills
/// what runs (the pod worker's `SyncTerminatingPod`), rather than `SyncPod`'s keep/start.
fn terminates(plan: &podplan_core::Plan) -> bool {
    let a = &plan.actions;
    !a.create_sandbox
        && a.containers_to_start.is_empty()
        && a.init_containers_to_start.is_empty()
        && a.ephemeral_containers_to_start.is_empty()
        && (a.kill_pod || !a.containers_to_kill.is_empty())
}

fn remaining_json(list: &[(String, i64, jiff::Timestamp)]) -> Vec<serde_json::Value> {
    list.iter()
        .map(|(c, s, until)| serde_json::json!({"container": c, "seconds": s, "until": until}))
        .collect()
}

/// The full answer for one pod read from the input.
pub fn explain_found(
    found: &Found,
    now: jiff::Timestamp,
    output: ExplainOutput,
) -> Result<String, CliError> {
    let pod = &found.pod;
    let Answer {
        r,
        plan,
        plan_error,
        next,
    } = answer(found, now);
    if next.stage == reconstruct_next::Stage::Sync {
        if let Some(e) = &plan_error {
            return Err(CliError::usage(format!("the pod cannot be planned: {e}")));
        }
    }
    if output == ExplainOutput::Json {
        let v = serde_json::json!({
            "next": next,
            "request": r.request, "plan": plan, "assumptions": r.assumptions,
            "warnings": r.warnings, "notes": found.notes,
            "backoffRemaining": remaining_json(&r.backoff_remaining),
            "imageBackoffRemaining": remaining_json(&r.image_backoff_remaining),
        });
        return serde_json::to_string_pretty(&v)
            .map_err(|e| CliError::Io(format!("cannot serialise the answer: {e}")));
    }
    let mut out = String::new();
    let _ = writeln!(out, "Pod {} at {now}", found.full_name());
    for n in &found.notes {
        let _ = writeln!(out, "Note: {n}");
    }
    let _ = writeln!(out, "\nWhat kubectl shows now (from the pod's own status)");
    if pod.status.is_none() {
        let _ = writeln!(
            out,
            "  (no status: a manifest, not a pod from the API server; the row of its first sync is below)"
        );
    } else {
        for line in text::row_table(&kubectl_pod_row(pod, Some(now), false)).lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = writeln!(out, "\nWhat happens next: {}", next.summary);
    for d in &next.details {
        let _ = writeln!(out, "  - {d}");
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(
            out,
            "\nWarnings about the input (it contradicts itself or looks truncated)"
        );
        for w in &r.warnings {
            let _ = writeln!(out, "  - {}: {}", w.path, w.message);
        }
    }
    if next.stage == reconstruct_next::Stage::Unscheduled {
        return Ok(out);
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
                "  - crash-loop back-off: nothing holds {c} back (the back-off ended or expired; last exit {until})"
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
    let _ = writeln!(out, "\nAssumed / unknown (the API status does not say)");
    for a in &r.assumptions {
        let _ = writeln!(out, "  - {a}");
    }
    let Some(plan) = plan else {
        if let Some(e) = plan_error {
            let _ = writeln!(out, "\nThe kubelet's SyncPod plan: cannot be computed: {e}");
        }
        return Ok(out);
    };
    if next.stage != reconstruct_next::Stage::Sync && !terminates(&plan) {
        let _ = writeln!(
            out,
            "\nSyncPod's plan is not shown: the pod worker terminates this pod (see \"What happens next\"); --output json carries it as `plan`"
        );
        return Ok(out);
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

/// One line per pod: name, kubectl row, what happens next.
fn summarize(
    pods: &[Found],
    notes: &[String],
    now: jiff::Timestamp,
    output: ExplainOutput,
    what: &str,
) -> Result<String, CliError> {
    let mut rows = Vec::new();
    for f in pods {
        let a = answer(f, now);
        let row = if f.pod.status.is_some() {
            kubectl_pod_row(&f.pod, Some(now), false)
        } else {
            a.plan
                .as_ref()
                .and_then(|p| p.kubectl.clone())
                .unwrap_or_else(|| kubectl_pod_row(&f.pod, Some(now), false))
        };
        rows.push((f, row, a));
    }
    if output == ExplainOutput::Json {
        let list: Vec<serde_json::Value> = rows
            .iter()
            .map(|(f, row, a)| {
                serde_json::json!({
                    "namespace": f.pod.metadata.namespace.as_deref().unwrap_or("default"),
                    "name": f.pod.metadata.name.as_deref().unwrap_or(""),
                    "kubectl": row, "next": a.next, "notes": f.notes,
                    "warnings": a.r.warnings,
                })
            })
            .collect();
        let v = serde_json::json!({"pods": list, "notes": notes});
        return serde_json::to_string_pretty(&v)
            .map_err(|e| CliError::Io(format!("cannot serialise the answer: {e}")));
    }
    let header = ["NAMESPACE/NAME", "READY", "STATUS", "RESTARTS", "AGE"];
    let cells: Vec<[String; 5]> = rows
        .iter()
        .map(|(f, row, _)| {
            [
                f.full_name(),
                row.ready.clone(),
                row.status.clone(),
                row.restarts.clone(),
                row.age.clone(),
            ]
        })
        .collect();
    let mut widths = header.map(str::len);
    for c in &cells {
        for (w, cell) in widths.iter_mut().zip(c.iter()) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let _ = writeln!(out, "{} pods in {what} at {now}", pods.len());
    for n in notes {
        let _ = writeln!(out, "Note: {n}");
    }
    if pods.iter().any(|f| f.notes.iter().any(|n| n == KINDLESS)) {
        let _ = writeln!(out, "Note: {KINDLESS}");
    }
    out.push('\n');
    let line = |cells: [&str; 5], next: &str| {
        let mut l = String::new();
        for (w, c) in widths.iter().zip(cells) {
            let _ = write!(l, "{c:<w$}   ");
        }
        l.push_str(next);
        l.trim_end().to_string()
    };
    let _ = writeln!(out, "{}", line(header, "NEXT"));
    for (c, (_, _, a)) in cells.iter().zip(&rows) {
        let refs = [
            c[0].as_str(),
            c[1].as_str(),
            c[2].as_str(),
            c[3].as_str(),
            c[4].as_str(),
        ];
        let warn = if a.r.warnings.is_empty() {
            String::new()
        } else {
            format!(" [{} input warning(s)]", a.r.warnings.len())
        };
        let _ = writeln!(out, "{}", line(refs, &format!("{}{warn}", a.next.summary)));
    }
    let _ = writeln!(
        out,
        "\nFull detail of one pod: podplan explain ... --pod NAME (or NAMESPACE/NAME)"
    );
    Ok(out)
}
