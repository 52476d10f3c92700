//! The real-world corpus (`test_data/realworld/`, sources in its `SOURCES.md`, vocabulary in
//! its `README.md`): public projects' manifests through `podplan lint`, and pods as the API
//! server served them through `podplan explain`.
//!
//! - [`corpus_is_complete`] (always run): every data file has an expectation, every
//!   expectation a file, every action is in the vocabulary, and the corpus is as large as
//!   promised.
//! - [`realworld_manifests_are_not_denied`]: every object must lint without a deny.
//! - [`realworld_pods_explain_as_expected`]: the class of the next sync's action (read from
//!   `--output json`) must be the one written in `expected.json` from the pod's status.
//!
//! Both report counts and list every disagreement before failing; `scripts/realworld-report`
//! prints the same report.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The action classes of `test_data/realworld/README.md`.
const VOCABULARY: &[&str] = &[
    "nothing",
    "start",
    "restart-after-backoff",
    "pull-after-backoff",
    "create-sandbox",
    "kill",
    "terminating",
    "terminal",
    "not-on-node",
];

const MIN_MANIFESTS: usize = 90;
const MIN_PODS: usize = 45;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../test_data/realworld")
}

fn podplan(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_podplan"))
        .args(args)
        .output()
        .expect("run podplan")
}

/// One corpus entry: `<project>/<file>`, its path and its expectation.
struct Entry {
    id: String,
    path: PathBuf,
    expect: Value,
}

/// The entries of `manifests/` or `pods/`: each project folder's `expected.json`, checked
/// against the folder's files (a file without an expectation or an expectation without a
/// file is a corpus error, returned as text).
fn entries(area: &str) -> (Vec<Entry>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let base = root().join(area);
    let mut projects: Vec<PathBuf> = std::fs::read_dir(&base)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    projects.sort();
    for dir in projects {
        let project = dir.file_name().unwrap().to_string_lossy().to_string();
        let expected: BTreeMap<String, Value> =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap_or_else(|e| panic!("{area}/{project}/expected.json: {e}"));
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n != "expected.json")
            .collect();
        files.sort();
        for f in &files {
            match expected.get(f) {
                Some(v) => out.push(Entry {
                    id: format!("{project}/{f}"),
                    path: dir.join(f),
                    expect: v.clone(),
                }),
                None => errors.push(format!("{area}/{project}/{f}: no expectation")),
            }
        }
        for f in expected.keys() {
            if !files.contains(f) {
                errors.push(format!("{area}/{project}/expected.json: {f} has no file"));
            }
        }
    }
    (out, errors)
}

#[test]
fn corpus_is_complete() {
    let (manifests, mut errors) = entries("manifests");
    let (pods, pod_errors) = entries("pods");
    errors.extend(pod_errors);
    for m in &manifests {
        if m.expect["deny"] != Value::Bool(false) || !m.expect["object"].is_string() {
            errors.push(format!(
                "{}: expectation needs object and deny: false",
                m.id
            ));
        }
    }
    for p in &pods {
        let action = p.expect["action"].as_str().unwrap_or("");
        if !VOCABULARY.contains(&action) {
            errors.push(format!(
                "{}: action {action:?} is not in the vocabulary",
                p.id
            ));
        }
        let now = p.expect["now"].as_str().unwrap_or("");
        if now.parse::<jiff::Timestamp>().is_err() {
            errors.push(format!("{}: now {now:?} is not an RFC 3339 time", p.id));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    assert!(
        manifests.len() >= MIN_MANIFESTS,
        "{} manifests",
        manifests.len()
    );
    assert!(pods.len() >= MIN_PODS, "{} pods", pods.len());
}

/// What `podplan lint` said about one file.
struct Linted {
    id: String,
    objects: Vec<String>,
    /// `(rule, action, path, message)` per finding.
    findings: Vec<(String, String, String, String)>,
    /// The CLI refused the file (exit code 2): its stderr.
    error: Option<String>,
}

fn lint(entry: &Entry) -> Linted {
    let out = podplan(&["lint", entry.path.to_str().unwrap(), "--output", "json"]);
    let mut linted = Linted {
        id: entry.id.clone(),
        objects: Vec::new(),
        findings: Vec::new(),
        error: None,
    };
    if !matches!(out.status.code(), Some(0 | 1)) {
        linted.error = Some(format!(
            "exit {:?}: {}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
        return linted;
    }
    let reports: Value = match serde_json::from_slice(&out.stdout) {
        Ok(v) => v,
        Err(e) => {
            linted.error = Some(format!("unreadable JSON answer: {e}"));
            return linted;
        }
    };
    for r in reports.as_array().into_iter().flatten() {
        linted.objects.push(format!(
            "{}/{}",
            r["kind"].as_str().unwrap_or(""),
            r["name"].as_str().unwrap_or("")
        ));
        for f in r["findings"].as_array().into_iter().flatten() {
            let s = |k: &str| f[k].as_str().unwrap_or("").to_string();
            linted
                .findings
                .push((s("rule"), s("action"), s("path"), s("message")));
        }
    }
    linted
}

/// The lint report: counts, findings by rule, and every denied or refused object with its
/// findings. Returns the report and the number of failures (denied + refused + mismatched
/// objects).
pub fn lint_report() -> (String, usize) {
    let (manifests, errors) = entries("manifests");
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let mut by_rule: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut findings = 0;
    let mut denied = 0;
    let mut refused = 0;
    for m in &manifests {
        let l = lint(m);
        if let Some(e) = &l.error {
            refused += 1;
            failures.push(format!("{} refused: {e}", l.id));
            continue;
        }
        let want = m.expect["object"].as_str().unwrap_or("");
        if l.objects != [want] {
            failures.push(format!(
                "{}: linted {:?}, expected the one object {want}",
                l.id, l.objects
            ));
        }
        findings += l.findings.len();
        for (rule, action, _, _) in &l.findings {
            *by_rule.entry((rule.clone(), action.clone())).or_default() += 1;
        }
        if l.findings.iter().any(|f| f.1 == "deny") {
            denied += 1;
            let mut text = format!("{} ({want}) denied:", l.id);
            for (rule, action, path, message) in &l.findings {
                let _ = write!(text, "\n    {rule} ({action}) {path}: {message}");
            }
            failures.push(text);
        }
    }
    let mut r = String::new();
    let _ = writeln!(
        r,
        "lint: {} objects, {findings} findings, {denied} denied, {refused} refused",
        manifests.len()
    );
    for ((rule, action), n) in &by_rule {
        let _ = writeln!(r, "  {rule:<28} {action:<5} {n}");
    }
    for f in &failures {
        let _ = writeln!(r, "  FAIL {f}");
    }
    (r, failures.len())
}

/// Every manifest of the corpus works in its project: any deny (or refusal) is false.
#[test]
fn realworld_manifests_are_not_denied() {
    let (report, failures) = lint_report();
    println!("{report}");
    assert_eq!(failures, 0, "{report}");
}

/// The class of the next sync's action in an explain answer, and the containers it acts
/// on (README.md, "Reading podplan's answer").
fn classify(pod: &Value, answer: &Value) -> (String, Vec<String>) {
    let plan = &answer["plan"];
    let actions = &plan["actions"];
    let names = |list: &str, key: &str| -> Vec<String> {
        actions[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| {
                let i = usize::try_from(i.as_u64()?).ok()?;
                pod["spec"][list][i]["name"].as_str().map(String::from)
            })
            .collect()
    };
    let terminal = matches!(
        plan["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    let held: Vec<&Value> = plan["heldBack"].as_array().into_iter().flatten().collect();
    let mut starts = names("initContainers", "initContainersToStart");
    starts.extend(names("containers", "containersToStart"));
    starts.extend(names("ephemeralContainers", "ephemeralContainersToStart"));
    let kills: Vec<String> = actions["containersToKill"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(_, k)| k["name"].as_str().unwrap_or("").to_string())
        .collect();
    let container = |h: &&Value| h["container"].as_str().unwrap_or("").to_string();
    // Who acts next, as explain states it (`next.stage`): the scheduler, or the pod
    // worker terminating the pod, before any SyncPod plan.
    match answer["next"]["stage"].as_str() {
        Some("unscheduled") => return ("not-on-node".into(), Vec::new()),
        Some("terminal") => return ("terminal".into(), Vec::new()),
        // A pod being deleted is `terminating` unless it is already terminal (the
        // vocabulary's reading: nothing runs any more, only clean-up is left).
        Some("deleting") => {
            let class = if terminal { "terminal" } else { "terminating" };
            return (class.into(), Vec::new());
        }
        _ => {}
    }
    if actions["createSandbox"] == Value::Bool(true) {
        return ("create-sandbox".into(), Vec::new());
    }
    if !held.is_empty() {
        let image: Vec<String> = held
            .iter()
            .filter(|h| h["reason"].is_string())
            .map(container)
            .collect();
        if !image.is_empty() {
            return ("pull-after-backoff".into(), image);
        }
        return (
            "restart-after-backoff".into(),
            held.iter().map(container).collect(),
        );
    }
    if actions["killPod"] == Value::Bool(true) {
        let class = if terminal { "terminal" } else { "terminating" };
        return (class.into(), Vec::new());
    }
    if !starts.is_empty() {
        return ("start".into(), starts);
    }
    if !kills.is_empty() {
        return ("kill".into(), kills);
    }
    if terminal {
        return ("terminal".into(), Vec::new());
    }
    ("nothing".into(), Vec::new())
}

/// Whether podplan's class agrees with the expected one: the same class acting on every
/// expected container, or (for an expected back-off) a start of those containers, which is
/// what the kubelet does once the back-off is over at `now`.
fn agrees(want: &str, want_containers: &[String], got: &str, got_containers: &[String]) -> bool {
    let covers = want_containers.iter().all(|c| got_containers.contains(c));
    if want == got {
        return covers;
    }
    matches!(want, "restart-after-backoff" | "pull-after-backoff") && got == "start" && covers
}

fn read_pod(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    if text.trim_start().starts_with('{') {
        serde_json::from_str(&text).unwrap()
    } else {
        serde_yaml_ng::from_str(&text).unwrap()
    }
}

/// The explain report: a table of expected and computed classes per pod, and counts.
/// Returns the report and the number of disagreements (refusals included).
pub fn explain_report() -> (String, usize) {
    let (pods, errors) = entries("pods");
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let mut rows = Vec::new();
    let mut agree = 0;
    let mut by_class: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for p in &pods {
        let want = p.expect["action"].as_str().unwrap_or("").to_string();
        let want_containers: Vec<String> = p.expect["containers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str().map(String::from))
            .collect();
        let now = p.expect["now"].as_str().unwrap_or("");
        let out = podplan(&[
            "explain",
            p.path.to_str().unwrap(),
            "--now",
            now,
            "--output",
            "json",
        ]);
        let (got, got_containers) = if out.status.success() {
            match serde_json::from_slice::<Value>(&out.stdout) {
                Ok(answer) => classify(&read_pod(&p.path), &answer),
                Err(e) => (format!("error: unreadable JSON ({e})"), Vec::new()),
            }
        } else {
            let err = String::from_utf8_lossy(&out.stderr);
            // The first line, without the file's path (the table names the pod).
            let first: String = err
                .lines()
                .next()
                .unwrap_or("")
                .replace(p.path.to_str().unwrap(), "FILE")
                .chars()
                .take(110)
                .collect();
            (
                format!("error: exit {:?}: {first}", out.status.code()),
                Vec::new(),
            )
        };
        let ok = agrees(&want, &want_containers, &got, &got_containers);
        let entry = by_class.entry(want.clone()).or_default();
        entry.0 += 1;
        if ok {
            agree += 1;
            entry.1 += 1;
        }
        let show = |c: &str, cs: &[String]| {
            if cs.is_empty() {
                c.to_string()
            } else {
                format!("{c} {}", cs.join(","))
            }
        };
        rows.push(format!(
            "  {} {:<70} {:<36} {}",
            if ok { "ok  " } else { "DIFF" },
            p.id,
            show(&want, &want_containers),
            show(&got, &got_containers)
        ));
    }
    let mut r = String::new();
    let _ = writeln!(
        r,
        "explain: {agree}/{} pods agree with the expected next action",
        pods.len()
    );
    for (class, (n, ok)) in &by_class {
        let _ = writeln!(r, "  {class:<24} {ok}/{n}");
    }
    let _ = writeln!(r, "  {:<4} {:<70} {:<36} podplan", "", "pod", "expected");
    for row in rows {
        let _ = writeln!(r, "{row}");
    }
    (r, pods.len() - agree)
}

/// Every pod's next action, as `explain` computes it from the dump, is the one its status
/// shows the kubelet took.
#[test]
fn realworld_pods_explain_as_expected() {
    let (report, disagreements) = explain_report();
    println!("{report}");
    assert_eq!(disagreements, 0, "{report}");
}

/// `scripts/realworld-report`: both reports, never failing (run with `--ignored`).
#[test]
#[ignore = "run by scripts/realworld-report"]
fn realworld_report() {
    let (lint, _) = lint_report();
    let (explain, _) = explain_report();
    println!("realworld report\n{lint}{explain}end of realworld report");
}
