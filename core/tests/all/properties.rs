//! Property tests: arbitrary (small) requests never panic, plans are deterministic and
//! round-trip through JSON, and structural invariants of plans hold.

// serde_json `Value` indexing builds test inputs; a wrong shape is a test bug.
#![expect(clippy::indexing_slicing, reason = "tests fail by panicking")]

use std::collections::BTreeSet;

use podplan_core::plan::{Step, StepOp};
use podplan_core::{plan, plan_json, Plan};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const INIT: [&str; 3] = ["i0", "i1", "i2"];
const REGULAR: [&str; 3] = ["a", "b", "c"];
const EPHEMERAL: [&str; 2] = ["e0", "e1"];
const IMAGES: [&str; 2] = ["img:1", "img:2"];
const GATES: [&str; 8] = [
    "ContainerRestartRules",
    "RestartAllContainersOnContainerExits",
    "InPlacePodVerticalScaling",
    "InPlacePodVerticalScalingInitContainers",
    "InPlacePodLevelResourcesVerticalScaling",
    "PodLevelResources",
    "ReduceDefaultCrashLoopBackOffDecay",
    "SidecarContainers",
];

fn opt<T: std::fmt::Debug + Clone + 'static>(
    s: impl Strategy<Value = T> + 'static,
) -> BoxedStrategy<Option<T>> {
    prop_oneof![Just(None), s.prop_map(Some)].boxed()
}

fn resources() -> BoxedStrategy<Value> {
    let q = |vals: &'static [&'static str]| prop::sample::select(vals.to_vec());
    (
        opt(q(&["100m", "200m", "1"])),
        opt(q(&["64Mi", "128Mi"])),
        opt(q(&["100m", "250m"])),
        opt(q(&["32Mi", "64Mi"])),
    )
        .prop_map(|(cl, ml, cr, mr)| {
            let mut limits = Map::new();
            let mut requests = Map::new();
            if let Some(v) = cl {
                limits.insert("cpu".into(), json!(v));
            }
            if let Some(v) = ml {
                limits.insert("memory".into(), json!(v));
            }
            if let Some(v) = cr {
                requests.insert("cpu".into(), json!(v));
            }
            if let Some(v) = mr {
                requests.insert("memory".into(), json!(v));
            }
            json!({"limits": limits, "requests": requests})
        })
        .boxed()
}

fn container(name: &'static str, sidecar_possible: bool) -> BoxedStrategy<Value> {
    let policy = if sidecar_possible {
        prop::sample::select(vec![None, Some("Always"), Some("Always"), Some("Never")]).boxed()
    } else {
        prop::sample::select(vec![
            None,
            None,
            Some("Always"),
            Some("OnFailure"),
            Some("Never"),
        ])
        .boxed()
    };
    (
        prop::sample::select(IMAGES.to_vec()),
        policy,
        opt((
            prop::sample::select(vec!["Restart", "RestartAllContainers"]),
            prop::sample::select(vec!["In", "NotIn"]),
            prop::collection::vec(0i32..3, 0..3),
        )),
        any::<bool>(),
        any::<bool>(),
        opt(resources()),
        opt(prop::sample::select(vec!["NotRequired", "RestartContainer"])),
    )
        .prop_map(move |(image, policy, rule, startup, liveness, res, resize)| {
            let mut c = json!({"name": name, "image": image});
            if let Some(p) = policy {
                c["restartPolicy"] = json!(p);
            }
            if let Some((action, op, values)) = rule {
                c["restartPolicyRules"] =
                    json!([{"action": action, "exitCodes": {"operator": op, "values": values}}]);
            }
            if startup {
                c["startupProbe"] = json!({"exec": {"command": ["true"]}});
            }
            if liveness {
                c["livenessProbe"] = json!({"exec": {"command": ["true"]}});
            }
            if let Some(r) = res {
                c["resources"] = r;
            }
            if let Some(p) = resize {
                c["resizePolicy"] = json!([{"resourceName": "cpu", "restartPolicy": p},
                                           {"resourceName": "memory", "restartPolicy": "NotRequired"}]);
            }
            c
        })
        .boxed()
}

fn containers(
    names: &'static [&'static str],
    min: usize,
    sidecars: bool,
) -> BoxedStrategy<Vec<Value>> {
    (min..=names.len())
        .prop_flat_map(move |n| {
            names
                .iter()
                .take(n)
                .map(|name| container(name, sidecars))
                .collect::<Vec<_>>()
        })
        .boxed()
}

fn sandbox(id: &'static str) -> BoxedStrategy<Value> {
    (
        0u32..4,
        prop::sample::select(vec!["SANDBOX_READY", "SANDBOX_NOTREADY"]),
        prop::sample::select(vec![None, Some(""), Some("10.0.0.1")]),
        any::<bool>(),
    )
        .prop_map(move |(attempt, state, ip, node_ns)| {
            let mut s = json!({"id": id, "metadata": {"name": "p", "uid": "su", "namespace": "ns", "attempt": attempt}, "state": state});
            if let Some(ip) = ip {
                s["network"] = json!({"ip": ip});
            }
            if node_ns {
                s["linux"] = json!({"namespaces": {"options": {"network": "NODE"}}});
            }
            s
        })
        .boxed()
}

fn status(i: usize) -> BoxedStrategy<Value> {
    let names: Vec<&'static str> = INIT
        .iter()
        .chain(REGULAR.iter())
        .chain(EPHEMERAL.iter())
        .copied()
        .chain(["ghost"])
        .collect();
    (
        prop::sample::select(names),
        prop::sample::select(vec!["created", "running", "exited", "unknown"]),
        0i32..3,
        prop::sample::select(vec![0usize, 1, 1, 2]),
        prop::sample::select(vec![None, Some("s0"), Some("s1")]),
        any::<bool>(),
        opt(0i64..100),
    )
        .prop_map(move |(name, state, exit, hash_kind, sb, oom, finished)| {
            let hash = match hash_kind {
                0 => 0,
                k => podplan_core::generators::container_hash(
                    name,
                    IMAGES.get(k - 1).copied().unwrap_or(""),
                ),
            };
            let mut s = json!({"id": format!("x://{i}"), "name": name, "state": state,
                               "exitCode": exit, "hash": hash, "restartCount": i});
            if let Some(sb) = sb {
                s["podSandboxId"] = json!(sb);
            }
            if oom {
                s["reason"] = json!("OOMKilled");
            }
            if let Some(f) = finished {
                s["finishedAt"] = json!(format!("2025-01-01T00:{:02}:{:02}Z", f / 60, f % 60));
            }
            s
        })
        .boxed()
}

fn request() -> BoxedStrategy<Value> {
    let spec = (
        containers(&INIT, 0, true),
        containers(&REGULAR, 1, false),
        containers(&EPHEMERAL, 0, false),
        prop::sample::select(vec![None, Some("Always"), Some("OnFailure"), Some("Never")]),
        opt(resources()),
        any::<bool>(),
    );
    let runtime = (0usize..3, prop::collection::vec(any::<u8>(), 0..8)).prop_flat_map(
        |(n_sandboxes, seeds)| {
            let sandboxes: Vec<_> = ["s0", "s1"]
                .iter()
                .take(n_sandboxes)
                .map(|id| sandbox(id))
                .collect();
            let statuses: Vec<_> = (0..seeds.len()).map(status).collect();
            (sandboxes, statuses)
        },
    );
    let extras = (
        prop::collection::btree_map(prop::sample::select(GATES.to_vec()), any::<bool>(), 0..4),
        prop::collection::vec(
            (
                0usize..8,
                opt(prop::sample::select(vec!["success", "failure", "unknown"])),
                opt(prop::sample::select(vec!["success", "failure", "unknown"])),
            ),
            0..5,
        ),
        prop::bool::weighted(0.15),
        opt(0i64..200),
        prop::bool::weighted(0.1),
        prop::sample::select(vec![None, Some("api"), Some("file")]),
        opt(prop::collection::btree_map(
            prop::sample::select(
                REGULAR
                    .iter()
                    .chain(INIT.iter())
                    .copied()
                    .collect::<Vec<_>>(),
            ),
            resources(),
            0..3,
        )),
        any::<bool>(),
    );
    // Most generated pods have a healthy latest sandbox, so that the deeper decisions
    // (init progress, probes, resize) are reached often.
    let healthy = prop::bool::weighted(0.75);
    (spec, runtime, extras, healthy)
        .prop_map(|((init, regular, ephemeral, policy, pod_res, host), (mut sandboxes, statuses), (gates, probes, restart_all, now, deleting, source, actuated, backoff), healthy)| {
            if healthy {
                if let Some(s0) = sandboxes.first_mut() {
                    s0["state"] = json!("SANDBOX_READY");
                    s0["network"] = json!({"ip": "10.0.0.1"});
                    s0["linux"] = json!({"namespaces": {"options": {"network": if host { "NODE" } else { "POD" }}}});
                }
                if let Some(s1) = sandboxes.get_mut(1) {
                    s1["state"] = json!("SANDBOX_NOTREADY");
                }
            }
            let mut spec = json!({"containers": regular});
            if !init.is_empty() {
                spec["initContainers"] = json!(init);
            }
            if !ephemeral.is_empty() {
                spec["ephemeralContainers"] = json!(ephemeral);
            }
            if let Some(p) = policy {
                spec["restartPolicy"] = json!(p);
            }
            if let Some(r) = pod_res {
                spec["resources"] = r;
            }
            if host {
                spec["hostNetwork"] = json!(true);
            }
            let mut metadata = json!({"name": "p", "namespace": "ns", "uid": "u"});
            if deleting {
                metadata["deletionTimestamp"] = json!("2025-01-01T00:00:00Z");
            }
            if let Some(s) = source {
                metadata["annotations"] = json!({"kubernetes.io/config.source": s});
            }
            let mut req = json!({
                "pod": {"metadata": metadata, "spec": spec},
                "featureGates": gates,
                "restartAllContainers": restart_all,
            });
            if !sandboxes.is_empty() || !statuses.is_empty() {
                req["runtimeStatus"] = json!({"sandboxStatuses": sandboxes, "containerStatuses": statuses});
            }
            let mut probe_map = Map::new();
            for (i, l, s) in probes {
                let mut r = Map::new();
                if let Some(l) = l {
                    r.insert("liveness".into(), json!(l));
                }
                if let Some(s) = s {
                    r.insert("startup".into(), json!(s));
                }
                probe_map.insert(format!("x://{i}"), Value::Object(r));
            }
            req["probes"] = Value::Object(probe_map);
            if let Some(n) = now {
                req["now"] = json!(format!("2025-01-01T00:{:02}:{:02}Z", n / 60, n % 60));
            }
            if let Some(a) = actuated {
                req["actuatedResources"] = json!({"containers": a});
            }
            if backoff {
                req["backoff"] = json!([{"key": "ffff", "container": "a", "delaySeconds": 300, "lastUpdate": "2025-01-01T00:00:00Z"}]);
            }
            req
        })
        .boxed()
}

/// The typed request; when the value asks for back-off records, they get the engine's
/// real keys so that held-back starts are exercised.
fn typed(value: &Value) -> podplan_core::PlanRequest {
    let mut request = podplan_core::api::parse_request_value(value.clone()).unwrap_or_default();
    if !request.backoff.is_empty() {
        let template = request.backoff.first().cloned().unwrap_or_default();
        let pod = request.pod.clone();
        request.backoff = pod
            .spec
            .iter()
            .flat_map(|s| {
                s.init_containers
                    .iter()
                    .flatten()
                    .chain(s.containers.iter())
            })
            .map(|c| podplan_core::plan::BackoffRecord {
                key: podplan_core::generators::backoff_key(
                    &pod,
                    &c.name,
                    c.image.as_deref().unwrap_or(""),
                    c.resources.as_ref(),
                ),
                container: c.name.clone(),
                ..template.clone()
            })
            .collect();
    }
    request
}

fn check_invariants(value: &Value, plan: &Plan) -> Result<(), TestCaseError> {
    let spec = &value["pod"]["spec"];
    let len = |k: &str| spec[k].as_array().map_or(0, Vec::len);
    let a = &plan.actions;
    prop_assert!(a
        .init_containers_to_start
        .iter()
        .all(|i| *i < len("initContainers")));
    prop_assert!(a.containers_to_start.iter().all(|i| *i < len("containers")));
    prop_assert!(a
        .ephemeral_containers_to_start
        .iter()
        .all(|i| *i < len("ephemeralContainers")));
    let ids: BTreeSet<String> = value["runtimeStatus"]["containerStatuses"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|s| s["id"].as_str().map(str::to_string))
        .collect();
    prop_assert!(a.containers_to_kill.keys().all(|id| ids.contains(id)));
    prop_assert!(a
        .containers_to_reset
        .iter()
        .all(|r| ids.contains(&r.container_id)));
    // Every action is explained.
    for (id, k) in &a.containers_to_kill {
        prop_assert!(
            plan.decisions
                .iter()
                .any(|d| d.action == "killContainer"
                    && d.container.as_deref() == Some(k.name.as_str())),
            "kill of {id} has no decision"
        );
        prop_assert!(!k.message.is_empty());
    }
    for (action, list, key) in [
        (
            "startInitContainer",
            &a.init_containers_to_start,
            "initContainers",
        ),
        ("startContainer", &a.containers_to_start, "containers"),
        (
            "startEphemeralContainer",
            &a.ephemeral_containers_to_start,
            "ephemeralContainers",
        ),
    ] {
        for i in list {
            let name = spec[key][*i]["name"].as_str().unwrap_or("");
            prop_assert!(
                plan.decisions
                    .iter()
                    .any(|d| d.action == action && d.container.as_deref() == Some(name)),
                "{action} {name} has no decision: {:?}",
                plan.decisions
            );
        }
    }
    prop_assert!(!a.kill_pod || plan.decisions.iter().any(|d| d.action == "killPod"));
    prop_assert!(!a.create_sandbox || plan.decisions.iter().any(|d| d.action == "createSandbox"));
    // Kill steps are sorted by id; every create is followed by the start of that container.
    let kill_ids: Vec<&String> = plan
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::KillContainer(k) if k.reason.as_deref() != Some("RestartAllContainers") => {
                k.container_id.as_ref()
            }
            _ => None,
        })
        .collect();
    prop_assert!(kill_ids.windows(2).all(|w| w.first() < w.get(1)));
    for (i, s) in plan.steps.iter().enumerate() {
        if s.op() == StepOp::CreateContainer {
            let next = plan.steps.get(i + 1);
            prop_assert!(next.is_some_and(
                |n| n.op() == StepOp::StartContainer && n.container() == s.container()
            ));
            prop_assert!(!plan
                .held_back
                .iter()
                .any(|h| Some(h.container.as_str()) == s.container()));
        }
    }
    if value.get("now").is_none() {
        prop_assert!(plan.held_back.is_empty());
    }
    // Steps follow the SyncPod phases.
    let phase = |op: StepOp| match op {
        StepOp::KillPod | StepOp::KillContainer => 0,
        StepOp::RemoveContainer => 1,
        StepOp::RunPodSandbox => 2,
        StepOp::UpdatePodSandboxResources | StepOp::UpdateContainerResources => 3,
        StepOp::PullImage
        | StepOp::CreateContainer
        | StepOp::StartContainer
        | StepOp::WriteNodeFiles => 4,
        StepOp::RemovePodSandbox | StepOp::CleanupPod => 5,
    };
    // Node files are written right before the call they prepare: RunPodSandbox or
    // CreateContainer; they take that call's phase.
    for (i, s) in plan.steps.iter().enumerate() {
        if s.op() == StepOp::WriteNodeFiles {
            let next = plan.steps.get(i + 1).map(|n| n.op());
            prop_assert!(
                matches!(next, Some(StepOp::RunPodSandbox | StepOp::CreateContainer)),
                "node files must precede RunPodSandbox or CreateContainer: {:?}",
                plan.steps
            );
        }
    }
    let phases: Vec<u8> = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| match s.op() {
            StepOp::WriteNodeFiles => plan.steps.get(i + 1).map_or(4, |n| phase(n.op())),
            op => phase(op),
        })
        .collect();
    let reset_interleaves = !a.containers_to_reset.is_empty();
    // A terminated pod's cleanup (SyncTerminatedPod, then garbage collection) is not
    // SyncPod: its own order is checked by the termination tests.
    let syncing = plan.worker_phase == podplan_core::plan::WorkerPhase::Syncing;
    if !reset_interleaves && syncing {
        prop_assert!(
            phases.windows(2).all(|w| w.first() <= w.get(1)),
            "steps out of order: {:?}",
            plan.steps
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_requests_plan_deterministically_and_round_trip(value in request()) {
        let request = typed(&value);
        let first = plan(&request);
        prop_assert!(first.is_ok(), "rejected: {:?}", first.err());
        let first = first.unwrap_or_default();
        let second = plan(&request).unwrap_or_default();
        prop_assert_eq!(&first, &second);
        let bytes = serde_json::to_vec(&value).unwrap_or_default();
        prop_assert_eq!(plan_json(&bytes), plan_json(&bytes));
        let text = serde_json::to_string(&first).unwrap_or_default();
        let back: Plan = serde_json::from_str(&text).unwrap_or_default();
        prop_assert_eq!(&back, &first);
        check_invariants(&value, &first)?;
        if !first.held_back.is_empty() {
            prop_assert!(first.events.iter().any(|e| e.reason == "BackOff"));
        }
        let explained = podplan_core::explain::to_text(&first);
        prop_assert!(explained.starts_with("Plan\n"));
    }

    /// Defaulting once (`api::api_server_pod`, as the agent does per manifest) gives the
    /// plan that `apiDefaults` on every request gives, or the same refusal.
    #[test]
    fn a_pod_defaulted_once_plans_as_api_defaults_do(value in request()) {
        let mut request = typed(&value);
        request.api_defaults = true;
        let with_defaults = plan(&request);
        match podplan_core::api::api_server_pod(&request.pod, &request.feature_gates) {
            Ok(pod) => {
                request.pod = pod;
                request.api_defaults = false;
                prop_assert_eq!(plan(&request), with_defaults);
            }
            Err(refused) => prop_assert_eq!(with_defaults.err(), Some(refused)),
        }
    }

    #[test]
    fn arbitrary_bytes_give_json_answers(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        let out: Value = serde_json::from_slice(&plan_json(&bytes)).unwrap_or(Value::Null);
        prop_assert!(out.get("error").is_some() || out.get("actions").is_some());
    }

    #[test]
    fn mutated_requests_give_json_answers(value in request(), cut in 0usize..400, byte in any::<u8>()) {
        let mut bytes = serde_json::to_vec(&value).unwrap_or_default();
        if !bytes.is_empty() {
            let at = cut % bytes.len();
            if let Some(b) = bytes.get_mut(at) {
                *b = byte;
            }
        }
        let out: Value = serde_json::from_slice(&plan_json(&bytes)).unwrap_or(Value::Null);
        prop_assert!(out.get("error").is_some() || out.get("actions").is_some());
    }
}

/// The generator reaches the interesting parts of the decision (guards against a
/// generator that only produces trivial pods).
#[test]
fn generator_covers_the_decision_space() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = request();
    let (mut kills, mut starts, mut inits, mut held, mut resets, mut recreate, mut updates) =
        (0, 0, 0, 0, 0, 0, 0);
    for _ in 0..1000 {
        let Ok(tree) = strategy.new_tree(&mut runner) else {
            continue;
        };
        let value = tree.current();
        let Ok(p) = plan(&typed(&value)) else {
            continue;
        };
        let a = &p.actions;
        kills += usize::from(!a.containers_to_kill.is_empty());
        starts += usize::from(!a.containers_to_start.is_empty() && !a.create_sandbox);
        inits += usize::from(!a.init_containers_to_start.is_empty() && !a.create_sandbox);
        held += usize::from(!p.held_back.is_empty());
        resets += usize::from(!a.containers_to_reset.is_empty());
        recreate += usize::from(a.create_sandbox && !a.sandbox_id.is_empty());
        updates += usize::from(p.decisions.iter().any(|d| d.reason.starts_with("Resize")));
    }
    eprintln!("coverage: kills {kills} starts {starts} inits {inits} held {held} resets {resets} recreate {recreate} resizes {updates}");
    for (what, n) in [
        ("kills", kills),
        ("starts", starts),
        ("init starts", inits),
        ("held back", held),
        ("resets", resets),
        ("recreates", recreate),
        ("resizes", updates),
    ] {
        assert!(n >= 5, "only {n} plans with {what}");
    }
}
