//! `podplan demo`: an example pod walked through a scripted lifecycle. Each scene is
//! an event (a container exits, a probe result, time passes, the spec changes, the
//! sandbox dies) followed by the kubelet's next sync as podplan plans it; the plan is
//! then carried out by a small runtime model ([`super::demo_runtime`]).
//!
//! Everything is embedded: the demo reads no files.

use std::io::{self, Write};

use clap::Args;
use serde_json::{json, Value};

use super::demo_runtime::{Event, Runtime};
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
    /// {"step", "title", "request", "plan", "carriedOut"}.
    #[arg(long)]
    pub jsonl: bool,
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
                result: "success",
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
                result: "failure",
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
                result: "success",
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
        "metadata": {"name": "web", "namespace": "default", "uid": "8d6c1f4e-demo-4c1b-9a57-podplan0001"},
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
                 it, then what the runtime did.\n\n",
                SCRIPT.len()
            ),
        )?;
    }
    drive(
        |request| {
            podplan_core::api::parse_request_value(request.clone())
                .and_then(|r| podplan_core::plan(&r))
                .map_err(|e| one_line(&e))
        },
        |record| {
            let text = if args.jsonl {
                let line = json!({
                    "step": record.step, "title": record.scene.title, "notes": record.notes,
                    "request": record.request, "plan": record.plan_json,
                    "carriedOut": record.done,
                });
                serde_json::to_string(&line).map_err(|e| {
                    CliError::Io(format!("cannot serialise step {}: {e}", record.step))
                })?
            } else {
                render(&record)
            };
            write_text(&mut out, &text)
        },
    )?;
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
    request: Value,
    plan: podplan_core::Plan,
    plan_json: Value,
    /// What the runtime model carried out.
    done: Vec<String>,
}

/// Plays the script: events, a sync planned by `planner`, the plan carried out.
fn drive(
    mut planner: impl FnMut(&Value) -> Result<podplan_core::Plan, String>,
    mut emit: impl FnMut(StepRecord) -> Result<(), CliError>,
) -> Result<(), CliError> {
    let mut runtime = Runtime::new(example_pod(), START);
    for (index, scene) in SCRIPT.iter().enumerate() {
        let step = index + 1;
        let notes: Vec<String> = scene
            .events
            .iter()
            .filter_map(|event| runtime.apply(*event))
            .collect();
        let before = runtime.describe();
        let request = runtime.request();
        let plan = planner(&request).map_err(|e| {
            CliError::Io(format!(
                "demo step {step}: the engine rejected the request: {e}"
            ))
        })?;
        let plan_json = serde_json::to_value(&plan)
            .map_err(|e| CliError::Io(format!("cannot serialise the plan: {e}")))?;
        let done = runtime.execute(&plan_json);
        tracing::debug!(step, ?done, "carried out the plan");
        emit(StepRecord {
            step,
            scene,
            elapsed: runtime.elapsed(),
            notes,
            before,
            request,
            plan,
            plan_json,
            done,
        })?;
    }
    Ok(())
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
    text.push_str("plan:\n");
    let explained = podplan_core::explain::to_text(&record.plan);
    for line in explained.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    if record.done.is_empty() {
        text.push_str("carried out: nothing to do\n");
    } else {
        text.push_str(&format!("carried out: {}\n", record.done.join("; ")));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use podplan_core::plan::ContainerToKill;
    use podplan_core::Plan;

    /// A toy kubelet that knows just enough about this one pod to tell the script's
    /// story (no back-off): it checks that the script and the runtime model fit
    /// together, independently of the real engine.
    fn toy_kubelet(request: &Value) -> Result<Plan, String> {
        let mut plan = Plan::default();
        let sandbox = request.pointer("/runtimeStatus/sandboxStatuses/0");
        if !sandbox.is_some_and(|s| s["state"] == "SANDBOX_READY") {
            plan.actions.kill_pod = sandbox.is_some();
            plan.actions.create_sandbox = true;
            plan.actions.attempt = sandbox
                .and_then(|s| s.pointer("/metadata/attempt"))
                .and_then(Value::as_u64)
                .map_or(0, |a| u32::try_from(a + 1).unwrap());
            plan.actions.init_containers_to_start = vec![0];
            return Ok(plan);
        }
        let sandbox_id = &sandbox.unwrap()["id"];
        let statuses = request["runtimeStatus"]["containerStatuses"]
            .as_array()
            .unwrap();
        let newest = |name: &str| {
            statuses
                .iter()
                .find(|c| c["name"] == name && &c["podSandboxId"] == sandbox_id)
        };
        let probe =
            |c: &Value, kind: &str| request["probes"][c["id"].as_str().unwrap()][kind].clone();
        match newest("init-db") {
            Some(c) if c["state"] == "exited" && c["exitCode"] == 0 => {}
            Some(_) => return Ok(plan),
            None => {
                plan.actions.init_containers_to_start = vec![0];
                return Ok(plan);
            }
        }
        match newest("log-shipper") {
            Some(c) if c["state"] == "running" => {
                if probe(c, "startup") != "success" {
                    return Ok(plan);
                }
            }
            _ => {
                plan.actions.init_containers_to_start = vec![1];
                return Ok(plan);
            }
        }
        let image = request["pod"]["spec"]["containers"][0]["image"]
            .as_str()
            .unwrap();
        match newest("app") {
            Some(c) if c["state"] == "running" => {
                let changed = c["hash"] != podplan_core::hash::container_hash("app", image);
                if changed || probe(c, "liveness") == "failure" {
                    plan.actions.containers_to_kill.insert(
                        c["id"].as_str().unwrap().to_string(),
                        ContainerToKill {
                            name: "app".into(),
                            ..ContainerToKill::default()
                        },
                    );
                    plan.actions.containers_to_start = vec![0];
                }
            }
            _ => plan.actions.containers_to_start = vec![0],
        }
        Ok(plan)
    }

    #[test]
    fn the_script_fits_a_kubelet_like_engine() {
        let mut records = Vec::new();
        drive(toy_kubelet, |r| {
            records.push(r);
            Ok(())
        })
        .unwrap();
        assert_eq!(records.len(), SCRIPT.len());
        for r in &records {
            assert!(r.notes.is_empty(), "step {}: {:?}", r.step, r.notes);
            assert!(podplan_core::api::parse_request_value(r.request.clone()).is_ok());
        }
        let done = |step: usize| records[step - 1].done.join("; ");
        assert!(
            done(1).contains("created sandbox-1 (attempt 0)")
                && done(1).contains("started init-db"),
            "{}",
            done(1)
        );
        assert!(done(2).contains("started log-shipper"), "{}", done(2));
        assert!(done(3).contains("started app"), "{}", done(3));
        assert_eq!(done(4), "");
        assert!(done(5).contains("started app"), "{}", done(5));
        assert!(
            done(8).contains("killed app") && done(8).contains("started app"),
            "{}",
            done(8)
        );
        assert!(
            done(9).contains("killed app") && done(9).contains("started app"),
            "{}",
            done(9)
        );
        assert!(
            done(10).contains("created sandbox-2 (attempt 1)")
                && done(10).contains("started init-db"),
            "{}",
            done(10)
        );
        let last = records.last().unwrap();
        assert_eq!(last.done, Vec::<String>::new());
        let after = last.before.clone();
        for running in ["init-db exited (0)", "log-shipper running", "app running"] {
            assert!(after.contains(running), "{after}");
        }
        assert!(last.request.to_string().contains("nginx:1.28"));
    }

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
}
