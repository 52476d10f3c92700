//! `podplan demo`: an example pod walked through a scripted lifecycle. Each scene is
//! an event (a container exits, a probe reports, time passes, the spec changes, the
//! sandbox dies) followed by the kubelet's next sync as podplan plans it; the plan's
//! steps are then carried out by the pure runtime model [`podplan_core::sim`].
//!
//! Everything is embedded: the demo reads no files.

use std::io::{self, Write};

use clap::Args;
use podplan_core::request::{ProbeResult, ProbeResults};
use podplan_core::runtime::{ContainerState, ContainerStatus, SandboxState};
use podplan_core::sim::{self, script};
use podplan_core::{Plan, PlanRequest};
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

/// Something that happens to the pod between two syncs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Virtual time passes.
    Advance {
        /// Seconds.
        seconds: i64,
    },
    /// The newest running instance of a container exits.
    Exit {
        /// Container name.
        container: &'static str,
        /// Exit code.
        code: i32,
    },
    /// The prober records a startup-probe result for a running container.
    Startup {
        /// Container name.
        container: &'static str,
        /// The result.
        result: ProbeResult,
    },
    /// The prober records a liveness-probe result for a running container.
    Liveness {
        /// Container name.
        container: &'static str,
        /// The result.
        result: ProbeResult,
    },
    /// The pod spec changes a container's image.
    SetImage {
        /// Container name.
        container: &'static str,
        /// The new image.
        image: &'static str,
    },
    /// The latest sandbox dies (with every container in it).
    SandboxLost,
}

/// One scene of the script: what happens, then a sync.
#[derive(Debug, Clone, Copy)]
pub struct Scene {
    /// The header.
    pub title: &'static str,
    /// The events before the sync.
    pub events: &'static [Event],
}

/// The demo's virtual start time: 2025-01-01T09:00:00Z.
const START: i64 = 1_735_722_000;

/// The script.
pub const SCRIPT: &[Scene] = &[
    Scene {
        title: "The pod is created: nothing exists yet",
        events: &[],
    },
    Scene {
        title: "init-db finishes (exit 0)",
        events: &[
            Event::Advance { seconds: 4 },
            Event::Exit {
                container: "init-db",
                code: 0,
            },
        ],
    },
    Scene {
        title: "The sidecar log-shipper passes its startup probe",
        events: &[
            Event::Advance { seconds: 3 },
            Event::Startup {
                container: "log-shipper",
                result: ProbeResult::Success,
            },
        ],
    },
    Scene {
        title: "app is running: a steady sync",
        events: &[Event::Advance { seconds: 30 }],
    },
    Scene {
        title: "app crashes (exit 1)",
        events: &[
            Event::Advance { seconds: 60 },
            Event::Exit {
                container: "app",
                code: 1,
            },
        ],
    },
    Scene {
        title: "app crashes again 5 s after its restart: crash-loop back-off",
        events: &[
            Event::Advance { seconds: 5 },
            Event::Exit {
                container: "app",
                code: 1,
            },
        ],
    },
    Scene {
        title: "10 s later: the back-off has expired",
        events: &[Event::Advance { seconds: 10 }],
    },
    Scene {
        title: "15 minutes later app's liveness probe fails",
        events: &[
            Event::Advance { seconds: 900 },
            Event::Liveness {
                container: "app",
                result: ProbeResult::Failure,
            },
        ],
    },
    Scene {
        title: "The pod's app image changes: nginx:1.27 -> nginx:1.28",
        events: &[
            Event::Advance { seconds: 60 },
            Event::SetImage {
                container: "app",
                image: "nginx:1.28",
            },
        ],
    },
    Scene {
        title: "The sandbox is lost (its containers die with it)",
        events: &[Event::Advance { seconds: 120 }, Event::SandboxLost],
    },
    Scene {
        title: "init-db finishes again in the new sandbox",
        events: &[
            Event::Advance { seconds: 4 },
            Event::Exit {
                container: "init-db",
                code: 0,
            },
        ],
    },
    Scene {
        title: "log-shipper passes its startup probe again",
        events: &[
            Event::Advance { seconds: 15 },
            Event::Startup {
                container: "log-shipper",
                result: ProbeResult::Success,
            },
        ],
    },
    Scene {
        title: "Everything runs again: a steady sync",
        events: &[Event::Advance { seconds: 30 }],
    },
];

/// The example pod: an init container, a sidecar with a startup probe, an app with a
/// liveness probe.
pub fn example_pod() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default", "uid": "8d6c1f4e-demo-4c1b-9a57-podplan0001",
                     "creationTimestamp": "2025-01-01T09:00:00Z"},
        "spec": {
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "initContainers": [
                {"name": "init-db", "image": "busybox:1.36",
                 "command": ["sh", "-c", "until nc -z db 5432; do sleep 1; done"]},
                {"name": "log-shipper", "image": "fluent/fluent-bit:3.1", "restartPolicy": "Always",
                 "startupProbe": {"exec": {"command": ["test", "-e", "/tmp/ready"]},
                                  "periodSeconds": 1, "failureThreshold": 30}}
            ],
            "containers": [
                {"name": "app", "image": "nginx:1.27",
                 "ports": [{"name": "http", "containerPort": 80, "protocol": "TCP"}],
                 "livenessProbe": {"httpGet": {"path": "/healthz", "port": 80},
                                   "periodSeconds": 10, "failureThreshold": 3}}
            ]
        }
    })
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
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if !args.jsonl {
        write_text(
            &mut out,
            &format!(
                "podplan demo: the pod default/web (init-db, sidecar log-shipper, app) through \
                 {} syncs.\nEach step is an event, then the kubelet's next sync as podplan plans \
                 it; its steps are then carried out by a model runtime.\n\n",
                SCRIPT.len()
            ),
        )?;
    }
    drive(|record| {
        let text = if args.jsonl {
            let line = json!({
                "step": record.step, "title": record.scene.title, "notes": record.notes,
                "request": record.request, "plan": record.plan,
            });
            serde_json::to_string(&line)
                .map_err(|e| CliError::Io(format!("cannot serialise step {}: {e}", record.step)))?
        } else {
            render(&record)
        };
        write_text(&mut out, &text)
    })?;
    out.flush()?;
    Ok(Status::Success)
}

/// What happened in one step.
#[derive(Debug)]
struct StepRecord {
    step: usize,
    scene: &'static Scene,
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

/// Plays the script: the events, a sync, the plan carried out by [`sim::next_request`].
fn drive(mut emit: impl FnMut(StepRecord) -> Result<(), CliError>) -> Result<(), CliError> {
    let start = jiff::Timestamp::from_second(START).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
    let mut now = start;
    let mut request = podplan_core::api::parse_request_value(
        json!({ "pod": example_pod(), "apiDefaults": true, "node": demo_node() }),
    )
    .map_err(|e| CliError::Io(format!("the demo pod is invalid: {}", one_line(&e))))?;
    for (index, scene) in SCRIPT.iter().enumerate() {
        let step = index + 1;
        let notes: Vec<String> = scene
            .events
            .iter()
            .filter_map(|event| apply(&mut request, &mut now, *event))
            .collect();
        request.now = Some(now);
        let before = describe(&request);
        let plan = podplan_core::plan(&request).map_err(|e| {
            CliError::Io(format!(
                "demo step {step}: the engine rejected the request: {}",
                one_line(&e)
            ))
        })?;
        let next = sim::next_request(&request, &plan, now);
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

/// Applies one event to the request; returns a note when it could not happen as scripted.
fn apply(request: &mut PlanRequest, now: &mut jiff::Timestamp, event: Event) -> Option<String> {
    match event {
        Event::Advance { seconds } => {
            *now = now
                .checked_add(jiff::SignedDuration::from_secs(seconds))
                .unwrap_or(*now);
            None
        }
        Event::Exit { container, code } => {
            (!script::exit_container(request, container, code, *now))
                .then(|| format!("{container} is not running, so it cannot exit"))
        }
        Event::Startup { container, result } => probe(request, container, "startup", result),
        Event::Liveness { container, result } => probe(request, container, "liveness", result),
        Event::SetImage { container, image } => {
            let target = request.pod.spec.as_mut().and_then(|spec| {
                spec.containers
                    .iter_mut()
                    .chain(spec.init_containers.iter_mut().flatten())
                    .find(|c| c.name == container)
            });
            match target {
                Some(c) => {
                    c.image = Some(image.to_string());
                    None
                }
                None => Some(format!("the pod has no container {container}")),
            }
        }
        Event::SandboxLost => {
            let has_sandbox = request
                .runtime_status
                .as_ref()
                .is_some_and(|s| !s.sandbox_statuses.is_empty());
            if has_sandbox {
                script::kill_sandbox(request, *now);
                None
            } else {
                Some("there is no sandbox to lose".into())
            }
        }
    }
}

/// Records a probe result for the newest instance of `container`, if it runs.
fn probe(
    request: &mut PlanRequest,
    container: &str,
    kind: &str,
    result: ProbeResult,
) -> Option<String> {
    let running = request.runtime_status.as_ref().is_some_and(|s| {
        s.container_statuses
            .iter()
            .find(|c| c.name == container)
            .is_some_and(|c| c.state == ContainerState::Running)
    });
    if !running {
        return Some(format!(
            "{container} is not running, so it has no {kind} probe"
        ));
    }
    let (liveness, startup) = if kind == "liveness" {
        (Some(result), None)
    } else {
        (None, Some(result))
    };
    script::set_probe(request, container, liveness, startup);
    None
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
fn render(record: &StepRecord) -> String {
    let mut text = format!(
        "=== Step {}/{}: {} ===\n",
        record.step,
        SCRIPT.len(),
        record.scene.title
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
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn the_example_pod_is_a_valid_request() {
        let request = json!({ "pod": example_pod() });
        let parsed = podplan_core::api::parse_request_value(request);
        assert!(parsed.is_ok_and(|r| podplan_core::plan(&r).is_ok()));
    }

    #[test]
    fn every_scene_names_containers_of_the_pod() {
        let pod = example_pod();
        let names: Vec<&str> = ["/spec/initContainers", "/spec/containers"]
            .iter()
            .filter_map(|p| pod.pointer(p).and_then(Value::as_array))
            .flatten()
            .filter_map(|c| c.get("name").and_then(Value::as_str))
            .collect();
        for scene in SCRIPT {
            for event in scene.events {
                let named = match event {
                    Event::Exit { container, .. }
                    | Event::Startup { container, .. }
                    | Event::Liveness { container, .. }
                    | Event::SetImage { container, .. } => Some(*container),
                    Event::Advance { .. } | Event::SandboxLost => None,
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
        let mut records = Vec::new();
        drive(|r| {
            records.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(records.len(), SCRIPT.len());
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
