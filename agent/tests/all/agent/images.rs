//! Image pulls: auth entries in order, the node's docker config, a missing image pulled,
//! `ErrImagePull` then `ImagePullBackOff`.

use super::*;

#[test]
fn a_pull_tries_each_auth_entry_in_order_until_one_succeeds_and_reports_the_result() {
    let dir = tempfile::tempdir().unwrap();
    let req = request(two_apps(), dir.path());
    let mut plan = podplan_core::Plan {
        steps: vec![step_json(serde_json::json!({
            "op": "PullImage", "container": "a", "image": "busybox",
            "imageSpec": {"image": "busybox:latest", "annotations": [], "runtimeHandler": ""},
            "auth": [{"username": "u1", "password": "p1"}, {"username": "u2", "password": "p2"},
                     {"username": "u3", "password": "p3"}],
            "sandboxConfig": "plan.sandboxConfig", "backoffKey": "u1_busybox"
        }))],
        ..podplan_core::Plan::default()
    };
    let mut cri = Recorder::failing("PullImage busybox:latest as u1", CriCode::Other);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(
        cri.calls,
        [
            "PullImage busybox:latest as u1",
            "PullImage busybox:latest as u2",
            "ImageStatus sha256:14",
        ]
    );
    let [r] = exec.pull_results.as_slice() else {
        panic!("{:?}", exec.pull_results)
    };
    assert_eq!(r.image, "busybox");
    assert_eq!(r.backoff_key.as_deref(), Some("u1_busybox"));
    assert_eq!(r.at, t0());
    assert_eq!(r.result.image_ref.as_deref(), Some("sha256:14"));
    assert_eq!(r.result.image_size, 7);
    assert!(r.result.error.is_none());

    // Every entry fails: the errors as the kubelet aggregates them; none: one anonymous pull.
    let mut cri = Recorder::failing("PullImage", CriCode::NotFound);
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls.len(), 3);
    assert_eq!(
        exec.pull_results[0].result.error.as_deref(),
        Some("injected")
    );
    assert!(exec.pull_results[0].result.image_ref.is_none());
    if let podplan_core::plan::Step::PullImage(pull) = &mut plan.steps[0] {
        pull.auth.clear();
    }
    let mut cri = Recorder::default();
    let exec = execute(&mut cri, &req, &mut plan);
    assert_eq!(cri.calls[0], "PullImage busybox:latest as anonymous");
    assert!(exec.ok());
}

fn harness_with(planner: Planner, files: &[(&str, &str)], images: ImagesScript) -> Harness {
    let mut h = harness(planner, files);
    let scenario = Scenario {
        images,
        ..Scenario::default()
    };
    h.sim = SimRuntime::new(
        SimOptions {
            scenario,
            ..SimOptions::default()
        },
        h.clock.clone(),
    );
    let config = h.agent.config().clone();
    let cri = GrpcRuntime::in_process(&h.sim, Duration::from_secs(5)).unwrap();
    h.agent = Agent::new(config, Planner::Native, cri);
    h
}

const PULLED: &str = r#"
apiVersion: v1
kind: Pod
metadata: {name: pulled}
spec:
  containers:
    - name: app
      image: alpine:3.20
"#;

#[test]
fn pulls_carry_the_nodes_docker_config_credentials() {
    let mut h = harness_with(
        Planner::Native,
        &[("p.yaml", PULLED)],
        ImagesScript::default(),
    );
    // The kubelet's node keyring: `config.json` in --root-dir (here user:password for
    // Docker Hub, where alpine comes from, and another user for a registry not used).
    let root = std::path::PathBuf::from(&h.agent.config().root_dir);
    std::fs::create_dir_all(&root).unwrap();
    write(
        &root,
        "config.json",
        r#"{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpwYXNzd29yZA=="},
                      "quay.io": {"username": "other", "password": "x"}}}"#,
    );
    let rounds = h.rounds(1, Duration::from_secs(1));
    let pull = rounds[0]
        .1
        .synced
        .iter()
        .flat_map(|(_, p)| &p.steps)
        .find_map(|s| match s {
            podplan_core::plan::Step::PullImage(pull) => Some(pull),
            _ => None,
        })
        .expect("a PullImage step");
    let auth: Vec<(&str, &str)> = pull
        .auth
        .iter()
        .map(|a| (a.username.as_str(), a.password.as_str()))
        .collect();
    assert_eq!(auth, [("user", "password")], "{pull:?}");
}

#[test]
fn e2e_a_missing_image_is_pulled_then_the_container_started() {
    let mut h = harness_with(
        Planner::Native,
        &[("p.yaml", PULLED)],
        ImagesScript::default(),
    );
    let rounds = h.rounds(3, Duration::from_secs(1));
    let plans: Vec<&podplan_core::Plan> = rounds[0].1.synced.iter().map(|(_, p)| p).collect();
    assert!(plans.len() >= 2, "{plans:?}");
    let ops = |p: &podplan_core::Plan| p.steps.iter().map(|s| s.op()).collect::<Vec<_>>();
    assert!(
        ops(plans[0]).contains(&StepOp::PullImage),
        "{:?}",
        ops(plans[0])
    );
    assert!(!ops(plans[0]).contains(&StepOp::CreateContainer));
    // The re-plan at once, with the pull's result: create and start with the imageRef.
    assert!(
        ops(plans[1]).contains(&StepOp::CreateContainer),
        "{:?}",
        ops(plans[1])
    );
    assert!(
        plans[1].events.iter().any(|e| e.reason == "Pulled"),
        "{:?}",
        plans[1].events
    );
    let config = &plans[1].container_configs[0].config;
    let image = config.image.as_ref().unwrap();
    assert!(image.image.starts_with("sha256:"), "{image:?}");
    assert_eq!(image.user_specified_image, "alpine:3.20");
    let uid = h.uid();
    let status = h.status(&uid);
    assert_eq!(status.container_statuses[0].state, ContainerState::Running);
    assert!(h.sim.with_node(|n| n.image_status("alpine:3.20").is_some()));
    // Later syncs do not pull again (the image is present).
    let later = h.rounds(3, Duration::from_secs(1));
    assert!(later.iter().all(|(_, r)| r
        .synced
        .iter()
        .all(|(_, p)| !ops(p).contains(&StepOp::PullImage))));
    assert!(rounds
        .iter()
        .chain(&later)
        .all(|(_, r)| r.errors.is_empty()));
}

#[test]
fn e2e_a_failed_pull_shows_err_image_pull_then_image_pull_back_off() {
    let images = ImagesScript {
        preloaded: vec![],
        unpullable: vec!["alpine:3.20".into()],
        ..ImagesScript::default()
    };
    let mut h = harness_with(Planner::Native, &[("p.yaml", PULLED)], images);
    let mut statuses: Vec<String> = Vec::new();
    let mut pulls: Vec<jiff::Timestamp> = Vec::new();
    for _ in 0..32 {
        let rounds = h.rounds(1, Duration::from_secs(1));
        for (t, r) in &rounds {
            for (_, p) in &r.synced {
                if p.steps.iter().any(|s| s.op() == StepOp::PullImage) {
                    pulls.push(*t);
                }
            }
        }
        if let Some(row) = h.agent.reports().first().and_then(|r| r.kubectl.clone()) {
            if statuses.last() != Some(&row.status) {
                statuses.push(row.status);
            }
        }
    }
    let err = statuses.iter().position(|s| s == "ErrImagePull");
    let backoff = statuses.iter().position(|s| s == "ImagePullBackOff");
    assert!(
        matches!((err, backoff), (Some(e), Some(b)) if e < b),
        "{statuses:?}"
    );
    // Pulls back off: 10 s, then 20 s (the kubelet's image back-off).
    let gaps: Vec<i64> = pulls
        .windows(2)
        .map(|w| (w[1] - w[0]).get_seconds())
        .collect();
    assert!(
        gaps.len() >= 2 && gaps[0] >= 10 && gaps[1] >= 20,
        "{pulls:?}"
    );
    let uid = h.uid();
    assert!(h.status(&uid).container_statuses.is_empty());
}
