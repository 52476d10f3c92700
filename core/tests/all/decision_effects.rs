//! Every decision of every action vector (`conformance/actions/`, `core/tests/vectors/actions/`)
//! is marked effective / superseded / notCarriedOut / noop consistently with the plan's
//! `actions` and `steps`, and the step indices order decisions as the kubelet acts.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "tests fail by panicking"
)]

use std::path::{Path, PathBuf};

use podplan_core::plan::{Action, Decision, Effect, Plan, Step, StepOp};
use serde_json::Value;

fn vector_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            vector_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

fn plans() -> Vec<(String, Plan)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    vector_files(&root.join("../conformance/actions"), &mut files);
    vector_files(&root.join("tests/vectors/actions"), &mut files);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let vector: Value = serde_json::from_str(&text).unwrap();
        let Some(request) = vector.get("request") else {
            continue;
        };
        let bytes = serde_json::to_vec(request).unwrap();
        let parsed = podplan_core::api::parse_request(&bytes).unwrap();
        let plan = podplan_core::api::plan(&parsed).unwrap();
        out.push((file.display().to_string(), plan));
        // The same request as a cluster serves it (API defaults: the configs can be
        // generated, so the starts are carried out).
        let mut defaulted = parsed;
        defaulted.api_defaults = true;
        if let Ok(plan) = podplan_core::api::plan(&defaulted) {
            out.push((format!("{} (apiDefaults)", file.display()), plan));
        }
    }
    out
}

fn spec_index(plan: &Plan, d: &Decision) -> Option<usize> {
    // The steps name containers with their spec index; find it through any step of the
    // same container and kind, else through the config entries.
    let kind = match d.action {
        Action::StartInitContainer => "init",
        Action::StartContainer => "regular",
        Action::StartEphemeralContainer => "ephemeral",
        _ => return None,
    };
    plan.steps
        .iter()
        .filter(|s| s.container() == d.container.as_deref())
        .find_map(|s| {
            let (k, index) = match s {
                Step::CreateContainer(s) => (s.kind?, s.index?),
                Step::StartContainer(s) => (s.kind?, s.index?),
                Step::PullImage(s) => (s.kind?, s.index?),
                Step::WriteNodeFiles(s) => (s.kind?, s.index?),
                _ => return None,
            };
            (k.as_str() == kind).then_some(index)
        })
}

fn check_plan(name: &str, p: &Plan) {
    let a = &p.actions;
    for (i, d) in p.decisions.iter().enumerate() {
        let at = format!("{name}: decision {i} {} {}", d.action, d.reason);
        match d.effect {
            Effect::Superseded => {
                // Never contradicts `actions`: what it asked for is not there.
                match d.action {
                    Action::CreateSandbox => assert!(!a.create_sandbox, "{at}"),
                    Action::KillPod => panic!("{at}: a pod kill is never superseded"),
                    Action::StartInitContainer | Action::StartContainer => {
                        let list = if d.action == Action::StartContainer {
                            &a.containers_to_start
                        } else {
                            &a.init_containers_to_start
                        };
                        assert!(
                            spec_index(p, d).is_none_or(|idx| !list.contains(&idx)),
                            "{at}"
                        );
                        assert!(
                            !p.steps.iter().any(|s| s.op() == StepOp::StartContainer
                                && s.container() == d.container.as_deref()
                                && !a.kill_pod),
                            "{at}: superseded but started"
                        );
                    }
                    Action::KeepContainer => assert!(a.kill_pod, "{at}"),
                    Action::KillContainer => {
                        assert!(!a.kill_pod, "{at}");
                        assert!(
                            !a.containers_to_kill
                                .values()
                                .any(|k| Some(&k.name) == d.container.as_ref()),
                            "{at}"
                        );
                    }
                    _ => {}
                }
                let by = d.superseded_by.unwrap_or_else(|| panic!("{at}: by whom?"));
                assert!(by > i, "{at}: superseded by an earlier decision");
                let later = &p.decisions[by];
                assert_eq!(later.action, Action::KillPod, "{at}");
                assert_eq!(later.effect, Effect::Effective, "{at}");
                assert!(d.step.is_none(), "{at}");
            }
            Effect::Noop => {
                assert_eq!(d.action, Action::KillPod, "{at}");
                let step = &p.steps[d.step.unwrap()];
                assert!(
                    matches!(step, Step::KillPod(k) if k.containers.is_empty() && k.sandbox_id.is_none()),
                    "{at}"
                );
            }
            Effect::NotCarriedOut => {
                assert!(d.step.is_none(), "{at}");
                let held = match d.action {
                    Action::StartContainer => !a.containers_to_start.is_empty(),
                    Action::StartInitContainer => !a.init_containers_to_start.is_empty(),
                    Action::StartEphemeralContainer => !a.ephemeral_containers_to_start.is_empty(),
                    _ => true,
                };
                assert!(held, "{at}");
                if let Some(by) = d.superseded_by {
                    assert_eq!(p.decisions[by].action, Action::Wait, "{at}");
                }
            }
            Effect::Effective => {
                let want: &[StepOp] = match d.action {
                    Action::KillPod => &[StepOp::KillPod],
                    Action::CreateSandbox => &[StepOp::RunPodSandbox],
                    Action::StartInitContainer
                    | Action::StartContainer
                    | Action::StartEphemeralContainer => &[StepOp::CreateContainer],
                    Action::KillContainer => &[StepOp::KillContainer, StepOp::KillPod],
                    Action::ResetContainer => &[StepOp::KillContainer, StepOp::RemoveContainer],
                    Action::UpdateResources => &[
                        StepOp::UpdateContainerResources,
                        StepOp::UpdatePodSandboxResources,
                    ],
                    Action::KeepContainer | Action::Wait | Action::DoNotRestart => &[],
                };
                match d.step {
                    Some(s) => {
                        let step = &p.steps[s];
                        assert!(want.contains(&step.op()), "{at}: step {s} is {}", step.op());
                        if step.op() != StepOp::KillPod
                            && d.container.is_some()
                            && step.container().is_some()
                        {
                            assert_eq!(step.container(), d.container.as_deref(), "{at}");
                        }
                    }
                    None => assert!(want.is_empty(), "{at}: effective without a step"),
                }
                match d.action {
                    Action::CreateSandbox => assert!(a.create_sandbox, "{at}"),
                    Action::KillPod => assert!(a.kill_pod, "{at}"),
                    Action::KeepContainer if d.container.is_some() => assert!(!a.kill_pod, "{at}"),
                    _ => {}
                }
            }
        }
    }
    // Every sandbox run, pod kill and container start is explained by an effective
    // (or no-op) decision pointing at it.
    for (s, step) in p.steps.iter().enumerate() {
        if matches!(
            step.op(),
            StepOp::RunPodSandbox | StepOp::KillPod | StepOp::CreateContainer
        ) {
            assert!(
                p.decisions
                    .iter()
                    .any(|d| d.step == Some(s) && d.effect != Effect::Superseded),
                "{name}: step {s} {} {:?} has no decision",
                step.op(),
                step.container()
            );
        }
    }
}

#[test]
fn every_action_vector_marks_its_decisions_consistently() {
    let plans = plans();
    assert!(
        plans.len() > 100,
        "only {} action vectors found",
        plans.len()
    );
    let mut counts = std::collections::BTreeMap::new();
    for (name, plan) in &plans {
        check_plan(name, plan);
        for d in &plan.decisions {
            *counts.entry(d.effect.as_str()).or_insert(0usize) += 1;
        }
    }
    // The vectors exercise every kind of mark.
    for effect in ["effective", "superseded", "noop"] {
        assert!(
            counts.get(effect).copied().unwrap_or(0) > 0,
            "{effect}: {counts:?}"
        );
    }
    eprintln!("{} plans; decisions by effect: {counts:?}", plans.len());
}

#[test]
fn kills_come_before_starts_in_step_order() {
    let mut pairs = 0;
    for (name, p) in plans() {
        for (i, kill) in p.decisions.iter().enumerate() {
            if kill.action != Action::KillContainer || kill.effect != Effect::Effective {
                continue;
            }
            for start in &p.decisions {
                let is_start = matches!(
                    start.action,
                    Action::StartContainer | Action::StartInitContainer
                );
                if is_start
                    && start.container == kill.container
                    && start.effect == Effect::Effective
                {
                    pairs += 1;
                    assert!(
                        kill.step < start.step,
                        "{name}: decision {i} kill of {:?} is not before its start",
                        kill.container
                    );
                }
            }
        }
    }
    assert!(pairs > 5, "only {pairs} kill/start pairs");
}

fn plan_of(request: Value) -> Plan {
    let request = podplan_core::api::parse_request_value(request).unwrap();
    podplan_core::api::plan(&request).unwrap()
}

#[test]
fn a_first_sync_kill_is_a_noop_and_the_sandbox_comes_first() {
    let p = plan_of(serde_json::json!({"apiDefaults": true, "pod": {
        "metadata": {"name": "p", "namespace": "d", "uid": "u"},
        "spec": {"containers": [{"name": "app", "image": "nginx"}]}}}));
    let kill = p
        .decisions
        .iter()
        .find(|d| d.action == Action::KillPod)
        .unwrap();
    assert_eq!(kill.effect, Effect::Noop);
    let create = p
        .decisions
        .iter()
        .find(|d| d.action == Action::CreateSandbox)
        .unwrap();
    let start = p
        .decisions
        .iter()
        .find(|d| d.action == Action::StartContainer)
        .unwrap();
    assert_eq!(
        (create.effect, start.effect),
        (Effect::Effective, Effect::Effective)
    );
    assert!(create.step < start.step);
}

#[test]
fn never_pod_with_a_dead_sandbox_does_not_create_one() {
    let p = plan_of(serde_json::json!({"apiDefaults": true, "pod": {
        "metadata": {"name": "p", "namespace": "d", "uid": "u"},
        "spec": {"restartPolicy": "Never", "containers": [{"name": "app", "image": "nginx"}]}},
        "runtimeStatus": {"sandboxStatuses": [{"id": "sb", "metadata": {"attempt": 0}, "state": "SANDBOX_NOTREADY"}],
          "containerStatuses": [{"id": "c1", "name": "app", "state": "exited", "exitCode": 1,
            "finishedAt": "2025-01-01T00:00:00Z"}]}}));
    assert!(!p.actions.create_sandbox);
    let create = p
        .decisions
        .iter()
        .position(|d| d.action == Action::CreateSandbox)
        .unwrap();
    let d = &p.decisions[create];
    assert_eq!(d.effect, Effect::Superseded);
    let by = &p.decisions[d.superseded_by.unwrap()];
    assert_eq!(
        (by.action, by.reason.as_ref()),
        (Action::KillPod, "RestartPolicyNever")
    );
    assert!(!p.steps.iter().any(|s| s.op() == StepOp::RunPodSandbox));
}

#[test]
fn a_start_held_back_by_back_off_is_not_carried_out_and_says_why() {
    use podplan_core::sim::next_request_with;
    use podplan_core::sim::Event;
    use podplan_core::unstable::sim::apply_event;
    let mut request = podplan_core::api::parse_request_value(serde_json::json!({
        "apiDefaults": true, "now": "2026-01-01T00:00:00Z",
        "pod": {"metadata": {"name": "p", "namespace": "d", "uid": "u"},
                "spec": {"containers": [{"name": "app", "image": "busybox"}]}}}))
    .unwrap();
    let exit = Event::Exit {
        container: "app".into(),
        code: 1,
    };
    let mut held = None;
    for _ in 0..4 {
        let plan = podplan_core::api::plan(&request).unwrap();
        if !plan.held_back.is_empty() {
            held = Some(plan);
            break;
        }
        request = next_request_with(&request, &plan, request.now.unwrap(), &Default::default());
        let _ = apply_event(&mut request, &exit);
    }
    let Some(plan) = held else {
        panic!("the crash loop holds no start back")
    };
    assert!(plan.actions.containers_to_start.contains(&0));
    let start = plan
        .decisions
        .iter()
        .find(|d| d.action == Action::StartContainer)
        .unwrap();
    assert_eq!((start.effect, start.step), (Effect::NotCarriedOut, None));
    let why = &plan.decisions[start.superseded_by.unwrap()];
    assert_eq!(
        (why.action, why.reason.as_ref()),
        (Action::Wait, "CrashLoopBackOff")
    );
    check_plan("crash loop", &plan);
}
