//! `podplan demo`: an example pod walked through a scripted lifecycle. Each scene is
//! an event (a container exits, a probe reports, time passes, the spec changes, the
//! sandbox dies) followed by the kubelet's next sync as podplan plans it; the plan's
//! steps are then carried out by the pure runtime model [`podplan_core::sim`].
//!
//! The script is data: `demo_scenario.json` (embedded; the playground's agreement test
//! reads the same file), with [`podplan_core::sim::Event`]s for the events. The demo reads
//! no files at run time.

use std::io::{self, Write};

use clap::Args;
use podplan_core::request::{ProbeResult, ProbeResults};
use podplan_core::runtime::{ContainerState, ContainerStatus, SandboxState};
use podplan_core::sim::{self, Event};
use podplan_core::{Plan, PlanRequest};
use serde::Deserialize;
use serde_json::{json, Value};

use super::exit::{CliError, Status};
use super::output::{one_line, write_text};

const AFTER_HELP: &str = "\
The pod `web` has an init container (init-db), a sidecar with a startup probe
(log-shipper) and an app with a liveness probe. The script: start, init done, sidecar
started, app running, app crash and restart, a second crash held back by crash-loop
back-off, time passes, a liveness failure, an image change, the sandbox lost and
everything recreated. Time is virtual; nothing runs.

Examples:
  podplan demo
  podplan demo --jsonl | head -1        the first sync's request and plan as JSON
  cargo run -p podplan-host --release -- demo";

/// Arguments of `podplan demo`.
#[derive(Debug, Args)]
#[command(after_long_help = AFTER_HELP)]
pub struct DemoArgs {
    /// Print one JSON object per sync instead of text:
    /// {"step", "title", "notes", "request", "plan"}.
    #[arg(long)]
    pub jsonl: bool,
}

/// The demo's script as JSON (see [`Scenario`]).
pub const SCENARIO_JSON: &str = include_str!("demo_scenario.json");

/// A scripted lifecycle: a pod, a start time and scenes.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// What the file is (for people reading it).
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "documentation inside the JSON file; the demo does not print it"
    )]
    pub about: String,
    /// The virtual start time (RFC 3339).
    pub start: String,
    /// The pod (a `v1.Pod`; the request sets `apiDefaults`).
    pub pod: Value,
    /// The scenes, one sync each.
    pub scenes: Vec<Scene>,
}

/// One scene of the script: what happens, then a sync.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// The header.
    pub title: String,
    /// The events before the sync.
    pub events: Vec<Event>,
}

/// The demo's script.
pub fn scenario() -> Result<Scenario, CliError> {
    serde_json::from_str(SCENARIO_JSON)
        .map_err(|e| CliError::Io(format!("the demo's script is invalid: {e}")))
}

/// The demo's node: a kubeadm-style kubelet (cluster DNS 10.96.0.10, domain
/// `cluster.local`) on a node with host IP 192.168.49.2.
pub fn demo_node() -> Value {
    json!({
        "name": "node-1",
        "hostIPs": ["192.168.49.2"],
        "kubelet": {"clusterDNS": ["10.96.0.10"], "clusterDomain": "cluster.local"}
    })
}

/// Runs `podplan demo`.
pub fn run(args: &DemoArgs) -> Result<Status, CliError> {
    let scenario = scenario()?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if !args.jsonl {
        write_text(
            &mut out,
            &format!(
                "podplan demo: the pod default/web (init-db, sidecar log-shipper, app) through \
                 {} syncs.\nEach step is an event, then the kubelet's next sync as podplan plans \
                 it; its steps are then carried out by a model runtime.\n\n",
                scenario.scenes.len()
            ),
        )?;
    }
    let total = scenario.scenes.len();
    drive(&scenario, |record| {
        let text = if args.jsonl {
            let line = json!({
                "step": record.step, "title": record.scene.title, "notes": record.notes,
                "request": record.request, "plan": record.plan,
            });
            serde_json::to_string(&line)
                .map_err(|e| CliError::Io(format!("cannot serialise step {}: {e}", record.step)))?
        } else {
            render(&record, total)
        };
        write_text(&mut out, &text)
    })?;
    out.flush()?;
    Ok(Status::Success)
}

/// What happened in one step.
#[derive(Debug)]
struct StepRecord<'a> {
    step: usize,
    scene: &'a Scene,
    /// Seconds of virtual time since the start.
    elapsed: i64,
    /// Events that could not happen as scripted.
    notes: Vec<String>,
    /// The runtime before the sync, in words.
    before: String,
    /// The request of the sync.
    request: PlanRequest,
    /// Its plan.
    plan: Plan,
}

/// Plays the script: the events ([`sim::apply_event_with`]; hook events set the world's
/// hook behaviour), a sync, the plan carried out by [`sim::next_request_with`].
fn drive<'a>(
    scenario: &'a Scenario,
    mut emit: impl FnMut(StepRecord<'a>) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let start: jiff::Timestamp = scenario
        .start
        .parse()
        .map_err(|e| CliError::Io(format!("the demo's start time is invalid: {e}")))?;
    let mut request = podplan_core::api::parse_request_value(
        json!({ "pod": scenario.pod, "apiDefaults": true, "node": demo_node() }),
    )
    .map_err(|e| CliError::Io(format!("the demo pod is invalid: {}", one_line(&e))))?;
    request.now = Some(start);
    let mut hooks = sim::HookControls::default();
    for (index, scene) in scenario.scenes.iter().enumerate() {
        let step = index + 1;
        let notes: Vec<String> = scene
            .events
            .iter()
            .filter_map(|event| sim::apply_event_with(&mut request, &mut hooks, event))
            .collect();
        let now = request.now.unwrap_or(start);
        let before = describe(&request);
        let plan = podplan_core::plan(&request).map_err(|e| {
            CliError::Io(format!(
                "demo step {step}: the engine rejected the request: {}",
                one_line(&e)
            ))
        })?;
        let next = sim::next_request_with(&request, &plan, now, &hooks);
        tracing::debug!(step, steps = plan.steps.len(), "carried out the plan");
        emit(StepRecord {
            step,
            scene,
            elapsed: now.as_second() - start.as_second(),
            notes,
            before,
            request: std::mem::replace(&mut request, next),
            plan,
        })?;
    }
    Ok(())
}

fn probe_word(result: ProbeResult) -> &'static str {
    match result {
        ProbeResult::Success => "success",
        ProbeResult::Failure => "failure",
        ProbeResult::Unknown => "unknown",
    }
}

/// One line describing what the runtime reports.
fn describe(request: &PlanRequest) -> String {
    let Some(status) = request
        .runtime_status
        .as_ref()
        .filter(|s| !s.sandbox_statuses.is_empty())
    else {
        return "nothing".into();
    };
    let latest = status.sandbox_statuses.first().map(|s| s.id.as_str());
    let mut parts: Vec<String> = status
        .sandbox_statuses
        .iter()
        .take(2)
        .map(|s| {
            let attempt = s.metadata.as_ref().map_or(0, |m| m.attempt);
            let state = match s.state {
                SandboxState::Ready => "ready",
                SandboxState::NotReady => "not ready",
            };
            format!("{} (attempt {attempt}) {state}", s.id)
        })
        .collect();
    // The newest instance of each container (older, exited ones are only counted).
    let mut newest: Vec<&ContainerStatus> = Vec::new();
    for c in &status.container_statuses {
        if !newest.iter().any(|n| n.name == c.name) {
            newest.push(c);
        }
    }
    let older = status.container_statuses.len() - newest.len();
    for c in newest.iter().rev() {
        let state = match c.state {
            ContainerState::Exited => format!("exited ({})", c.exit_code),
            other => other.as_str().to_string(),
        };
        let mut facts = vec![format!("restarts {}", c.restart_count)];
        if let Some(ProbeResults {
            liveness, startup, ..
        }) = request.probes.get(&c.id)
        {
            if let Some(r) = startup {
                facts.push(format!("startup {}", probe_word(*r)));
            }
            if let Some(r) = liveness {
                facts.push(format!("liveness {}", probe_word(*r)));
            }
        }
        if c.pod_sandbox_id
            .as_deref()
            .is_some_and(|id| Some(id) != latest)
        {
            facts.push("old sandbox".into());
        }
        parts.push(format!("{} {state} [{}]", c.name, facts.join(", ")));
    }
    if older > 0 {
        parts.push(format!("{older} older exited instance(s)"));
    }
    parts.join("; ")
}

/// One step as text.
fn render(record: &StepRecord<'_>, total: usize) -> String {
    let mut text = format!(
        "=== Step {}/{}: {} ===\n",
        record.step, total, record.scene.title
    );
    let seconds = record.elapsed;
    text.push_str(&format!(
        "time +{}m{:02}s · runtime before the sync: {}\n",
        seconds / 60,
        seconds % 60,
        record.before
    ));
    for note in &record.notes {
        text.push_str(&format!("note: {note}\n"));
    }
    if let Some(row) = &record.plan.kubectl {
        text.push_str(&format!(
            "kubectl get pods -w: {}  {}  {}  {}  {}\n",
            row.name, row.ready, row.status, row.restarts, row.age
        ));
    }
    let explained = podplan_core::explain::to_text(&record.plan);
    for line in explained.lines() {
        if line.trim().is_empty() {
            text.push('\n');
        } else {
            text.push_str("  ");
            text.push_str(line);
            text.push('\n');
        }
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_pod_is_a_valid_request() {
        let request = json!({ "pod": scenario().unwrap().pod });
        let parsed = podplan_core::api::parse_request_value(request);
        assert!(parsed.is_ok_and(|r| podplan_core::plan(&r).is_ok()));
    }

    #[test]
    fn every_scene_names_containers_of_the_pod() {
        let scenario = scenario().unwrap();
        let names: Vec<&str> = ["/spec/initContainers", "/spec/containers"]
            .iter()
            .filter_map(|p| scenario.pod.pointer(p).and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("name").and_then(Value::as_str))
            .collect();
        for scene in &scenario.scenes {
            for event in &scene.events {
                let named = match event {
                    Event::Exit { container, .. }
                    | Event::Probe { container, .. }
                    | Event::SetImage { container, .. }
                    | Event::PostStartFails { container, .. }
                    | Event::PreStopTakes { container, .. }
                    | Event::OomKill { container }
                    | Event::StopTakes { container, .. } => Some(container.as_str()),
                    Event::Advance { .. }
                    | Event::SandboxDies
                    | Event::SandboxLosesIp
                    | Event::PullFails { .. }
                    | Event::PullWorks { .. }
                    | Event::RemoveImage { .. }
                    | Event::PullTakes { .. }
                    | Event::SetCondition { .. }
                    | Event::Delete { .. }
                    | Event::Evict { .. } => None,
                };
                if let Some(name) = named {
                    assert!(names.contains(&name), "{}: {name}", scene.title);
                }
            }
        }
    }

    /// The demo tells the story its headers announce.
    #[test]
    fn the_story_happens_as_the_headers_say() {
        let scenario = scenario().unwrap();
        let mut records = Vec::new();
        drive(&scenario, |r| {
            records.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(records.len(), scenario.scenes.len());
        for r in &records {
            assert!(r.notes.is_empty(), "step {}: {:?}", r.step, r.notes);
        }
        let step = |title: &str| {
            records
                .iter()
                .find(|r| r.scene.title.contains(title))
                .unwrap_or_else(|| unreachable!("no step {title}"))
        };
        let created = &step("nothing exists yet").plan.actions;
        assert!(created.create_sandbox);
        assert_eq!(created.init_containers_to_start, vec![0]);
        assert_eq!(
            step("init-db finishes (exit 0)")
                .plan
                .actions
                .init_containers_to_start,
            vec![1]
        );
        assert_eq!(
            step("passes its startup probe")
                .plan
                .actions
                .containers_to_start,
            vec![0]
        );
        assert_eq!(
            step("steady").plan.actions.containers_to_start,
            Vec::<usize>::new()
        );
        assert!(step("crashes (exit 1)").plan.held_back.is_empty());
        let backoff = &step("crash-loop back-off").plan;
        assert!(
            backoff.held_back.iter().any(|h| h.container == "app"),
            "{backoff:?}"
        );
        assert!(step("back-off has expired").plan.held_back.is_empty());
        for title in ["liveness probe fails", "image changes"] {
            let actions = &step(title).plan.actions;
            assert!(
                actions.containers_to_kill.values().any(|k| k.name == "app"),
                "{title}: {actions:?}"
            );
            assert_eq!(actions.containers_to_start, vec![0], "{title}");
        }
        let lost = &step("sandbox is lost").plan.actions;
        assert!(
            lost.kill_pod && lost.create_sandbox && lost.attempt == 1,
            "{lost:?}"
        );
        let last = records.last().unwrap();
        assert!(last.before.contains("log-shipper running") && last.before.contains("app running"));
        assert!(!last.before.contains("app exited"), "{}", last.before);
    }
}
