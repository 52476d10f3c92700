//! Independent pod workers on the virtual clock: a slow termination or probe of one pod
//! does not delay another; an edited static pod waits for its previous incarnation.

use super::*;

/// The run loop on the virtual clock: probe workers of their own, a relist (`tick`) every
/// virtual second, the clock moved 100 ms every 4 ms of real time (25× faster), until
/// `done` says so or `limit` (virtual) has passed. The time it stopped at.
fn run_until(
    h: &mut Harness,
    limit: Duration,
    mut done: impl FnMut(&mut Harness, jiff::Timestamp) -> bool,
) -> jiff::Timestamp {
    let end = h.clock.now() + jiff::SignedDuration::try_from(limit).unwrap();
    let mut step = 0u32;
    loop {
        let now = h.clock.now();
        if step.is_multiple_of(10) {
            let set = h.source.load(now);
            let _ = h.agent.tick(&set, now);
        }
        if done(h, now) || now >= end {
            return now;
        }
        step += 1;
        std::thread::sleep(Duration::from_millis(4));
        h.clock.advance(Duration::from_millis(100));
    }
}

fn running_instance(h: &Harness, uid: &str, name: &str, restarts: i32) -> bool {
    h.status(uid).container_statuses.iter().any(|c| {
        c.name == name && c.restart_count == restarts && c.state == ContainerState::Running
    })
}

fn uid_of(h: &mut Harness, name: &str) -> String {
    let set = h.source.load(h.clock.now());
    set.pods
        .iter()
        .find(|p| p.pod.metadata.name.as_deref() == Some(format!("{name}-n1").as_str()))
        .map(|p| p.uid().to_string())
        .unwrap()
}

const STUBBORN: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: stubborn
  annotations:
    runtime-sim.podplan.io/slow.app: '{"ignoreSigterm": true}'
spec:
  terminationGracePeriodSeconds: 20
  containers:
    - name: app
      image: busybox:1.36
"#;

const CRASHER: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: crasher
  annotations:
    runtime-sim.podplan.io/container.app: '{"exit": {"code": 1, "afterSeconds": 6, "times": 1}}'
spec:
  containers:
    - name: app
      image: busybox:1.36
"#;

#[test]
fn a_pod_ignoring_sigterm_being_removed_does_not_delay_another_pods_restart() {
    let mut h = harness(
        Planner::Native,
        &[("a.yaml", STUBBORN), ("b.yaml", CRASHER)],
    );
    h.agent.start_probe_workers(h.clock.clone());
    let (a, b) = (uid_of(&mut h, "stubborn"), uid_of(&mut h, "crasher"));
    run_until(&mut h, Duration::from_secs(10), |h, _| {
        running_instance(h, &a, "app", 0) && running_instance(h, &b, "app", 0)
    });
    let b_started = h.status(&b).container_statuses[0].started_at.unwrap();
    // Remove A 2 s before B crashes: A's stop takes its whole grace period (20 s).
    run_until(&mut h, Duration::from_secs(10), |_, now| {
        now >= b_started + jiff::SignedDuration::from_secs(4)
    });
    std::fs::remove_file(h.manifests.join("a.yaml")).unwrap();
    let removed_at = h.clock.now();
    let crashed_at = b_started + jiff::SignedDuration::from_secs(6);
    let restarted = run_until(&mut h, Duration::from_secs(15), |h, _| {
        running_instance(h, &b, "app", 1)
    });
    let delay = restarted.duration_since(crashed_at).as_secs_f64();
    assert!(
        running_instance(&h, &b, "app", 1),
        "B was not restarted within 15 s"
    );
    assert!(delay <= 3.0, "B restarted {delay:.1}s after its crash");
    // A is still being stopped (its grace period is not over).
    assert!(
        !h.status(&a).container_statuses.is_empty(),
        "A's stop should still be waiting for its grace period"
    );
    let gone = run_until(&mut h, Duration::from_secs(30), |h, _| {
        h.status(&a).container_statuses.is_empty() && h.status(&a).sandbox_statuses.is_empty()
    });
    let took = gone.duration_since(removed_at).as_secs_f64();
    assert!((20.0..=24.0).contains(&took), "A's removal took {took:.1}s");
    eprintln!("B restarted {delay:.1}s after its crash; A removed after {took:.1}s");
}

const SLOW_PROBE: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: slowprobe
  annotations:
    runtime-sim.podplan.io/slow.app: '{"execSeconds": 16}'
spec:
  containers:
    - name: app
      image: busybox:1.36
      readinessProbe:
        exec: {command: ["true"]}
        periodSeconds: 1
        timeoutSeconds: 60
"#;

#[test]
fn a_slow_exec_probe_does_not_delay_another_pod() {
    let mut h = harness(
        Planner::Native,
        &[("a.yaml", SLOW_PROBE), ("b.yaml", CRASHER)],
    );
    h.agent.start_probe_workers(h.clock.clone());
    let (a, b) = (uid_of(&mut h, "slowprobe"), uid_of(&mut h, "crasher"));
    run_until(&mut h, Duration::from_secs(10), |h, _| {
        running_instance(h, &a, "app", 0) && running_instance(h, &b, "app", 0)
    });
    let b_started = h.status(&b).container_statuses[0].started_at.unwrap();
    let crashed_at = b_started + jiff::SignedDuration::from_secs(6);
    let restarted = run_until(&mut h, Duration::from_secs(20), |h, _| {
        running_instance(h, &b, "app", 1)
    });
    assert!(running_instance(&h, &b, "app", 1));
    let delay = restarted.duration_since(crashed_at).as_secs_f64();
    assert!(delay <= 3.0, "B restarted {delay:.1}s after its crash");
    // The slow probe did answer (16 s after it was called): A becomes ready.
    run_until(&mut h, Duration::from_secs(30), |h, _| {
        h.agent
            .reports()
            .iter()
            .any(|r| r.uid == a && r.kubectl.as_ref().is_some_and(|k| k.ready == "1/1"))
    });
    let ready = h
        .agent
        .reports()
        .iter()
        .any(|r| r.uid == a && r.kubectl.as_ref().is_some_and(|k| k.ready == "1/1"));
    assert!(ready, "{:?}", h.agent.reports());
}

#[test]
fn an_edited_static_pod_waits_until_its_previous_incarnation_is_gone() {
    let stubborn = STUBBORN.replace(
        "terminationGracePeriodSeconds: 20",
        "terminationGracePeriodSeconds: 10",
    );
    let mut h = harness(Planner::Native, &[("s.yaml", &stubborn)]);
    h.agent.start_probe_workers(h.clock.clone());
    let old = uid_of(&mut h, "stubborn");
    run_until(&mut h, Duration::from_secs(10), |h, _| {
        running_instance(h, &old, "app", 0)
    });
    // An edit without a uid: a new pod (a new UID) of the same full name.
    write(
        &h.manifests,
        "s.yaml",
        &stubborn.replace("busybox:1.36", "nginx:1.27"),
    );
    let edited_at = h.clock.now();
    let new = uid_of(&mut h, "stubborn");
    assert_ne!(new, old);
    let mut waited = false;
    let started = run_until(&mut h, Duration::from_secs(30), |h, _| {
        waited |= h
            .agent
            .reports()
            .iter()
            .any(|r| r.uid == new && r.waiting.is_some());
        // The new pod's sandbox never exists while the old pod still has containers.
        let new_sandboxes = h.status(&new).sandbox_statuses.len();
        let old_left = h.status(&old).container_statuses.len();
        assert!(
            new_sandboxes == 0 || old_left == 0,
            "the new incarnation started while the old one was terminating"
        );
        running_instance(h, &new, "app", 0)
    });
    assert!(running_instance(&h, &new, "app", 0));
    assert!(waited, "the new pod's report never said it waits");
    let took = started.duration_since(edited_at).as_secs_f64();
    assert!(
        took >= 10.0,
        "the new pod started {took:.1}s after the edit"
    );
}
