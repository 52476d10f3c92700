//! A minimal model of a container runtime plus the kubelet's bookkeeping, enough to
//! drive the demo: it answers "what does the runtime report" as a plan request and
//! carries out a plan's actions (kill, create the sandbox, start containers).
//!
//! The model reads plans only through the contract's JSON field names, so it works
//! with whatever the engine decides (an empty plan simply changes nothing).

use std::collections::BTreeMap;

use serde_json::{json, Value};

/// Exit code the model gives a container that was killed.
const KILLED_EXIT_CODE: i32 = 137;

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
        /// `success`, `failure` or `unknown`.
        result: &'static str,
    },
    /// The prober records a liveness-probe result for a running container.
    Liveness {
        /// Container name.
        container: &'static str,
        /// `success`, `failure` or `unknown`.
        result: &'static str,
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Exited,
}

#[derive(Debug, Clone)]
struct Sandbox {
    id: String,
    attempt: u64,
    ready: bool,
    created: i64,
    ip: String,
}

#[derive(Debug, Clone)]
struct Container {
    id: String,
    name: String,
    sandbox: String,
    state: State,
    created: i64,
    finished: Option<i64>,
    exit_code: i32,
    reason: &'static str,
    image: String,
    hash: u64,
    restart_count: i64,
}

/// The runtime and kubelet state of one pod, in virtual time.
#[derive(Debug, Clone)]
pub struct Runtime {
    start: i64,
    now: i64,
    pod: Value,
    /// Newest first.
    sandboxes: Vec<Sandbox>,
    /// Newest first.
    containers: Vec<Container>,
    /// Prober results by container id, then probe kind.
    probes: BTreeMap<String, BTreeMap<&'static str, &'static str>>,
    /// The back-off records of the last plan, passed back on the next request.
    backoff: Value,
    serial: u32,
}

impl Runtime {
    /// A runtime where nothing exists yet, at `start` (seconds since the epoch).
    pub fn new(pod: Value, start: i64) -> Self {
        Self {
            start,
            now: start,
            pod,
            sandboxes: Vec::new(),
            containers: Vec::new(),
            probes: BTreeMap::new(),
            backoff: Value::Array(Vec::new()),
            serial: 0,
        }
    }

    /// Seconds of virtual time since the start.
    pub fn elapsed(&self) -> i64 {
        self.now - self.start
    }

    /// Applies an event; returns a note when it could not happen as described.
    pub fn apply(&mut self, event: Event) -> Option<String> {
        match event {
            Event::Advance { seconds } => {
                self.now += seconds;
                None
            }
            Event::Exit { container, code } => {
                let now = self.now;
                let Some(c) = self.running_mut(container) else {
                    return Some(format!("{container} is not running, so it cannot exit"));
                };
                c.state = State::Exited;
                c.exit_code = code;
                c.finished = Some(now);
                c.reason = if code == 0 { "Completed" } else { "Error" };
                let id = c.id.clone();
                self.probes.remove(&id);
                None
            }
            Event::Startup { container, result } => self.probe(container, "startup", result),
            Event::Liveness { container, result } => self.probe(container, "liveness", result),
            Event::SetImage { container, image } => {
                let Some(spec) = self.pod.get_mut("spec") else {
                    return Some("the pod has no spec".into());
                };
                let target = spec
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|spec| spec.iter_mut())
                    .filter(|(list, _)| *list == "containers" || *list == "initContainers")
                    .filter_map(|(_, list)| list.as_array_mut())
                    .flatten()
                    .find(|c| c.get("name").and_then(Value::as_str) == Some(container))
                    .and_then(Value::as_object_mut);
                match target {
                    Some(c) => {
                        c.insert("image".into(), json!(image));
                        None
                    }
                    None => Some(format!("the pod has no container {container}")),
                }
            }
            Event::SandboxLost => {
                let now = self.now;
                let Some(sandbox) = self.sandboxes.first_mut() else {
                    return Some("there is no sandbox to lose".into());
                };
                sandbox.ready = false;
                let id = sandbox.id.clone();
                let lost: Vec<String> = self
                    .containers
                    .iter_mut()
                    .filter(|c| c.sandbox == id && c.state == State::Running)
                    .map(|c| {
                        c.state = State::Exited;
                        c.exit_code = KILLED_EXIT_CODE;
                        c.finished = Some(now);
                        c.reason = "Error";
                        c.id.clone()
                    })
                    .collect();
                for id in lost {
                    self.probes.remove(&id);
                }
                None
            }
        }
    }

    fn probe(
        &mut self,
        container: &str,
        kind: &'static str,
        result: &'static str,
    ) -> Option<String> {
        let Some(id) = self.running_mut(container).map(|c| c.id.clone()) else {
            return Some(format!(
                "{container} is not running, so it has no {kind} probe"
            ));
        };
        self.probes.entry(id).or_default().insert(kind, result);
        None
    }

    fn running_mut(&mut self, name: &str) -> Option<&mut Container> {
        self.containers
            .iter_mut()
            .find(|c| c.name == name && c.state == State::Running)
    }

    /// The plan request for a sync now: the pod, what the runtime reports, the probe
    /// results, the time and the back-off records.
    pub fn request(&self) -> Value {
        let mut request = json!({ "pod": self.pod, "now": rfc3339(self.now) });
        let Some(object) = request.as_object_mut() else {
            return request;
        };
        if !self.sandboxes.is_empty() {
            let meta = |key: &str| self.pod.pointer(&format!("/metadata/{key}")).cloned();
            let sandboxes: Vec<Value> = self
                .sandboxes
                .iter()
                .map(|s| {
                    json!({
                        "id": s.id,
                        "metadata": {"name": meta("name"), "uid": meta("uid"),
                                     "namespace": meta("namespace"), "attempt": s.attempt},
                        "state": if s.ready { "SANDBOX_READY" } else { "SANDBOX_NOTREADY" },
                        "createdAt": s.created.saturating_mul(1_000_000_000),
                        "network": {"ip": s.ip},
                    })
                })
                .collect();
            let containers: Vec<Value> = self.containers.iter().map(container_status).collect();
            let ips: Vec<&str> = self
                .sandboxes
                .first()
                .filter(|s| s.ready)
                .map(|s| vec![s.ip.as_str()])
                .unwrap_or_default();
            object.insert(
                "runtimeStatus".into(),
                json!({
                    "id": meta("uid"), "name": meta("name"), "namespace": meta("namespace"),
                    "ips": ips, "sandboxStatuses": sandboxes, "containerStatuses": containers,
                }),
            );
        }
        if !self.probes.is_empty() {
            object.insert("probes".into(), json!(self.probes));
        }
        if self.backoff.as_array().is_some_and(|b| !b.is_empty()) {
            object.insert("backoff".into(), self.backoff.clone());
        }
        request
    }

    /// Carries out a plan (the contract's JSON form); returns what was done, in order.
    pub fn execute(&mut self, plan: &Value) -> Vec<String> {
        let mut done = Vec::new();
        let actions = plan.get("actions").cloned().unwrap_or(Value::Null);
        let flag = |key: &str| actions.get(key).and_then(Value::as_bool).unwrap_or(false);
        let create_sandbox = flag("createSandbox");

        if flag("killPod") {
            let killed = self.kill_where(|_| true);
            if !killed.is_empty() {
                done.push(format!("killed {}", killed.join(", ")));
            }
            for s in self.sandboxes.iter_mut().filter(|s| s.ready) {
                s.ready = false;
                done.push(format!("stopped {}", s.id));
            }
            if create_sandbox {
                let init = self.names("/spec/initContainers");
                self.containers.retain(|c| !init.contains(&c.name));
            }
        } else if let Some(kill) = actions.get("containersToKill").and_then(Value::as_object) {
            for (id, info) in kill {
                let killed = self.kill_where(|c| &c.id == id);
                let why = info
                    .get("message")
                    .and_then(Value::as_str)
                    .filter(|m| !m.is_empty())
                    .map(|m| format!(" ({m})"))
                    .unwrap_or_default();
                for name in killed {
                    done.push(format!("killed {name}{why}"));
                }
            }
        }

        if create_sandbox {
            let n = self.sandboxes.len() + 1;
            let attempt = actions.get("attempt").and_then(Value::as_u64).unwrap_or(0);
            let sandbox = Sandbox {
                id: format!("sandbox-{n}"),
                attempt,
                ready: true,
                created: self.now,
                ip: format!("10.88.0.{}", n % 250 + 2),
            };
            done.push(format!("created {} (attempt {attempt})", sandbox.id));
            self.sandboxes.insert(0, sandbox);
        }

        let held: Vec<String> = plan
            .get("heldBack")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(|h| h.get("container").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        for (list, key) in [
            ("/spec/ephemeralContainers", "ephemeralContainersToStart"),
            ("/spec/initContainers", "initContainersToStart"),
            ("/spec/containers", "containersToStart"),
        ] {
            let indices = actions
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for index in indices.iter().filter_map(Value::as_u64) {
                let spec = self
                    .pod
                    .pointer(&format!("{list}/{index}"))
                    .cloned()
                    .unwrap_or(Value::Null);
                let Some(name) = spec.get("name").and_then(Value::as_str) else {
                    done.push(format!("no container at {key}[{index}]: skipped"));
                    continue;
                };
                if held.iter().any(|h| h == name) {
                    done.push(format!("held back {name} (crash-loop back-off)"));
                    continue;
                }
                done.push(self.start(&spec, name));
            }
        }
        self.prune();
        self.backoff = plan
            .get("backoff")
            .filter(|b| b.is_array())
            .cloned()
            .unwrap_or_else(|| Value::Array(Vec::new()));
        done
    }

    fn start(&mut self, spec: &Value, name: &str) -> String {
        let Some(sandbox) = self
            .sandboxes
            .first()
            .filter(|s| s.ready)
            .map(|s| s.id.clone())
        else {
            return format!("cannot start {name}: no ready sandbox");
        };
        let image = spec
            .get("image")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let restart_count = self
            .containers
            .iter()
            .find(|c| c.name == name)
            .map_or(0, |c| c.restart_count + 1);
        self.serial += 1;
        let id = format!("containerd://{name}-{}", self.serial);
        let mut probes = BTreeMap::new();
        // The prober's initial values: startup results start unknown, liveness success.
        if spec.get("startupProbe").is_some() {
            probes.insert("startup", "unknown");
        }
        if spec.get("livenessProbe").is_some() {
            probes.insert("liveness", "success");
        }
        if !probes.is_empty() {
            self.probes.insert(id.clone(), probes);
        }
        self.containers.insert(
            0,
            Container {
                id: id.clone(),
                name: name.to_string(),
                sandbox,
                state: State::Running,
                created: self.now,
                finished: None,
                exit_code: 0,
                reason: "",
                hash: podplan_core::hash::container_hash(name, &image),
                image,
                restart_count,
            },
        );
        format!("started {name} ({id}, restart {restart_count})")
    }

    /// Kills the running containers that match; returns their names.
    fn kill_where(&mut self, mut matches: impl FnMut(&Container) -> bool) -> Vec<String> {
        let now = self.now;
        let mut killed = Vec::new();
        for c in self
            .containers
            .iter_mut()
            .filter(|c| c.state == State::Running)
        {
            if matches(c) {
                c.state = State::Exited;
                c.exit_code = KILLED_EXIT_CODE;
                c.finished = Some(now);
                c.reason = "Error";
                killed.push((c.id.clone(), c.name.clone()));
            }
        }
        for (id, _) in &killed {
            self.probes.remove(id);
        }
        killed.into_iter().map(|(_, name)| name).collect()
    }

    /// Garbage collection: keep every running container and the newest exited one per name.
    fn prune(&mut self) {
        let mut seen_exited = Vec::new();
        self.containers.retain(|c| {
            if c.state == State::Running {
                return true;
            }
            if seen_exited.contains(&c.name) {
                return false;
            }
            seen_exited.push(c.name.clone());
            true
        });
    }

    fn names(&self, list: &str) -> Vec<String> {
        self.pod
            .pointer(list)
            .and_then(Value::as_array)
            .map(|l| {
                l.iter()
                    .filter_map(|c| c.get("name").and_then(Value::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// One line describing what the runtime holds.
    pub fn describe(&self) -> String {
        if self.sandboxes.is_empty() {
            return "nothing".into();
        }
        let mut parts: Vec<String> = self
            .sandboxes
            .iter()
            .take(2)
            .map(|s| {
                format!(
                    "{} (attempt {}) {}",
                    s.id,
                    s.attempt,
                    if s.ready { "ready" } else { "not ready" }
                )
            })
            .collect();
        let latest = self.sandboxes.first().map(|s| s.id.as_str());
        for c in self.containers.iter().rev() {
            let state = match c.state {
                State::Running => "running".to_string(),
                State::Exited => format!("exited ({})", c.exit_code),
            };
            let probes = self
                .probes
                .get(&c.id)
                .map(|p| {
                    p.iter()
                        .map(|(k, v)| format!(", {k} {v}"))
                        .collect::<String>()
                })
                .unwrap_or_default();
            let old = if Some(c.sandbox.as_str()) == latest {
                ""
            } else {
                ", old sandbox"
            };
            parts.push(format!(
                "{} {state} [restarts {}{probes}{old}]",
                c.name, c.restart_count
            ));
        }
        parts.join("; ")
    }
}

fn container_status(c: &Container) -> Value {
    let mut status = json!({
        "id": c.id,
        "name": c.name,
        "podSandboxId": c.sandbox,
        "state": match c.state { State::Running => "running", State::Exited => "exited" },
        "createdAt": rfc3339(c.created),
        "startedAt": rfc3339(c.created),
        "exitCode": c.exit_code,
        "image": c.image,
        "imageRef": c.image,
        "hash": c.hash,
        "restartCount": c.restart_count,
    });
    if let Some(object) = status.as_object_mut() {
        if let Some(finished) = c.finished {
            object.insert("finishedAt".into(), json!(rfc3339(finished)));
        }
        if !c.reason.is_empty() {
            object.insert("reason".into(), json!(c.reason));
        }
    }
    status
}

/// RFC 3339 form of a time in seconds since the epoch.
pub fn rfc3339(seconds: i64) -> String {
    jiff::Timestamp::from_second(seconds)
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
        .to_string()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn pod() -> Value {
        json!({
            "metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {
                "initContainers": [{"name": "init", "image": "busybox"}],
                "containers": [{"name": "app", "image": "nginx", "livenessProbe": {"exec": {"command": ["true"]}}}]
            }
        })
    }

    fn actions(extra: Value) -> Value {
        let mut a = json!({"killPod": false, "createSandbox": false, "attempt": 0,
                           "initContainersToStart": [], "containersToStart": [], "containersToKill": {}});
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        json!({ "actions": a })
    }

    #[test]
    fn nothing_exists_at_first() {
        let rt = Runtime::new(pod(), 0);
        let req = rt.request();
        assert!(req.get("runtimeStatus").is_none());
        assert_eq!(req["now"], "1970-01-01T00:00:00Z");
    }

    #[test]
    fn plans_are_carried_out() {
        let mut rt = Runtime::new(pod(), 0);
        let done = rt.execute(&actions(
            json!({"createSandbox": true, "initContainersToStart": [0]}),
        ));
        assert_eq!(done.len(), 2, "{done:?}");
        let req = rt.request();
        let status = &req["runtimeStatus"];
        assert_eq!(status["sandboxStatuses"][0]["state"], "SANDBOX_READY");
        assert_eq!(status["containerStatuses"][0]["name"], "init");
        assert_eq!(status["containerStatuses"][0]["state"], "running");
        assert_eq!(
            status["containerStatuses"][0]["hash"],
            podplan_core::hash::container_hash("init", "busybox")
        );
        // The request the model builds is one the engine accepts.
        assert!(podplan_core::api::parse_request_value(req).is_ok());

        assert_eq!(
            rt.apply(Event::Exit {
                container: "init",
                code: 0
            }),
            None
        );
        rt.execute(&actions(json!({"containersToStart": [0]})));
        let req = rt.request();
        let app_id = req["runtimeStatus"]["containerStatuses"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(req["probes"][&app_id]["liveness"], "success");

        rt.apply(Event::Liveness {
            container: "app",
            result: "failure",
        });
        assert_eq!(rt.request()["probes"][&app_id]["liveness"], "failure");
        let kill = json!({ &app_id: {"name": "app", "message": "liveness failed"} });
        let done = rt.execute(&actions(
            json!({"containersToKill": kill, "containersToStart": [0]}),
        ));
        assert_eq!(
            done.first().map(String::as_str),
            Some("killed app (liveness failed)")
        );
        let req = rt.request();
        let statuses = req["runtimeStatus"]["containerStatuses"]
            .as_array()
            .unwrap();
        assert_eq!(statuses[0]["state"], "running");
        assert_eq!(statuses[0]["restartCount"], 1);
        assert_eq!(statuses[1]["state"], "exited");
        assert_eq!(statuses[1]["exitCode"], KILLED_EXIT_CODE);
    }

    #[test]
    fn held_back_starts_do_not_happen() {
        let mut rt = Runtime::new(pod(), 0);
        rt.execute(&actions(json!({"createSandbox": true})));
        let mut plan = actions(json!({"containersToStart": [0]}));
        plan["heldBack"] = json!([{"container": "app", "waitSeconds": 10}]);
        let done = rt.execute(&plan);
        assert_eq!(
            done,
            vec!["held back app (crash-loop back-off)".to_string()]
        );
    }

    #[test]
    fn events_that_cannot_happen_say_so() {
        let mut rt = Runtime::new(pod(), 0);
        assert!(rt
            .apply(Event::Exit {
                container: "app",
                code: 1
            })
            .is_some());
        assert!(rt.apply(Event::SandboxLost).is_some());
        assert!(rt
            .apply(Event::SetImage {
                container: "nope",
                image: "x"
            })
            .is_some());
        assert_eq!(
            rt.apply(Event::SetImage {
                container: "app",
                image: "nginx:2"
            }),
            None
        );
        assert_eq!(
            rt.request()["pod"]["spec"]["containers"][0]["image"],
            "nginx:2"
        );
    }

    #[test]
    fn losing_the_sandbox_stops_its_containers() {
        let mut rt = Runtime::new(pod(), 0);
        rt.execute(&actions(
            json!({"createSandbox": true, "containersToStart": [0]}),
        ));
        assert_eq!(rt.apply(Event::SandboxLost), None);
        let req = rt.request();
        assert_eq!(
            req["runtimeStatus"]["sandboxStatuses"][0]["state"],
            "SANDBOX_NOTREADY"
        );
        assert_eq!(
            req["runtimeStatus"]["containerStatuses"][0]["state"],
            "exited"
        );
        assert!(req.get("probes").is_none());
    }
}
