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
        let plan = podplan_core::api::parse_request_value(request.clone())
            .and_then(|r| podplan_core::plan(&r))
            .map_err(|e| {
                CliError::Io(format!(
                    "demo step {step}: the engine rejected the request: {}",
                    one_line(&e)
                ))
            })?;
        let plan_json = serde_json::to_value(&plan)
            .map_err(|e| CliError::Io(format!("cannot serialise the plan: {e}")))?;
        let done = runtime.execute(&plan_json);
        tracing::debug!(step, ?done, "carried out the plan");
        let text = if args.jsonl {
            let record = json!({
                "step": step, "title": scene.title, "notes": notes,
                "request": request, "plan": plan_json, "carriedOut": done,
            });
            serde_json::to_string(&record)
                .map_err(|e| CliError::Io(format!("cannot serialise step {step}: {e}")))?
        } else {
            render(step, scene, &runtime, &notes, &before, &plan, &done)
        };
        write_text(&mut out, &text)?;
    }
    out.flush()?;
    Ok(Status::Success)
}

/// One step as text.
fn render(
    step: usize,
    scene: &Scene,
    runtime: &Runtime,
    notes: &[String],
    before: &str,
    plan: &podplan_core::Plan,
    done: &[String],
) -> String {
    let mut text = format!("=== Step {step}/{}: {} ===\n", SCRIPT.len(), scene.title);
    let seconds = runtime.elapsed();
    text.push_str(&format!(
        "time +{}m{:02}s · runtime before the sync: {before}\n",
        seconds / 60,
        seconds % 60
    ));
    for note in notes {
        text.push_str(&format!("note: {note}\n"));
    }
    text.push_str("plan:\n");
    let explained = podplan_core::explain::to_text(plan);
    for line in explained.lines() {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    if done.is_empty() {
        text.push_str("carried out: nothing to do\n");
    } else {
        text.push_str(&format!("carried out: {}\n", done.join("; ")));
    }
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
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
}
