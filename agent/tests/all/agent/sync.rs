//! End to end on the in-process simulated node: the relist and sync loop, restarts with
//! back-off, removal, retries, module swaps, adoption after a restart, clean-up.

use podplan_wasmhost::testing;

use super::*;

#[test]
fn e2e_init_then_sidecar_with_startup_probe_then_app_in_the_kubelets_order() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    let rounds = h.rounds(12, Duration::from_millis(500));
    assert!(
        rounds.iter().all(|(_, r)| r.errors.is_empty()),
        "{:?}",
        rounds.iter().map(|(_, r)| &r.errors).collect::<Vec<_>>()
    );
    let order: Vec<String> = creates(&rounds, &h.agent)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(order, ["init-db", "log-shipper", "app"]);
    let uid = h.uid();
    let status = h.status(&uid);
    let state = |name: &str| {
        status
            .container_statuses
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.state)
    };
    assert_eq!(state("init-db"), Some(ContainerState::Exited));
    assert_eq!(state("log-shipper"), Some(ContainerState::Running));
    assert_eq!(state("app"), Some(ContainerState::Running));
    assert_eq!(status.sandbox_statuses.len(), 1);
    // The app started only after the sidecar's startup probe passed (a later round).
    let times: BTreeMap<String, jiff::Timestamp> = creates(&rounds, &h.agent)
        .into_iter()
        .map(|(t, c)| (c, t))
        .collect();
    assert!(times["init-db"] + jiff::SignedDuration::from_secs(2) <= times["log-shipper"]);
    assert!(times["log-shipper"] < times["app"]);
    let report = h.agent.reports().into_iter().next().unwrap();
    let row = report.kubectl.unwrap();
    assert_eq!(row.status, "Running");
    // AGE counts from the first sight of the manifest (the mirror pod's creation).
    assert!(row.age.ends_with('s') && row.age != "0s", "{row:?}");
}

#[test]
fn a_steady_pod_is_synced_only_when_due() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    let rounds = h.rounds(150, Duration::from_secs(1));
    let synced: Vec<(i64, usize)> = rounds
        .iter()
        .filter(|(_, r)| !r.synced.is_empty())
        .map(|(t, r)| {
            let steps = r.synced.iter().map(|(_, p)| p.steps.len()).sum();
            (t.duration_since(t0()).as_secs(), steps)
        })
        .collect();
    // Once the pod has nothing to do (the init container done, the sidecar's startup
    // probe passed, the app running), it is synced once more (the relist shows the last
    // start), then only at --sync-frequency (60 s): nothing it reads changes and its
    // only probe is done.
    let last_acting = synced
        .iter()
        .rposition(|(_, steps)| *steps > 0)
        .unwrap_or_else(|| panic!("nothing started: {synced:?}"));
    let quiet: Vec<i64> = synced[last_acting + 1..].iter().map(|(t, _)| *t).collect();
    assert!(quiet.len() >= 3, "{synced:?}");
    assert!(quiet[0] - synced[last_acting].0 <= 2, "{synced:?}");
    assert!(
        quiet.windows(2).all(|w| w[1] - w[0] == 60),
        "syncs every 60 s once steady: {synced:?}"
    );
    assert!(rounds.iter().all(|(_, r)| r.errors.is_empty()));
}

#[test]
fn e2e_a_crashing_app_restarts_with_back_off() {
    let crashing = WEB.replace(
        "  annotations:\n",
        "  annotations:\n    runtime-sim.podplan.io/container.app: '{\"exit\": {\"code\": 1, \"afterSeconds\": 0}}'\n",
    );
    let mut h = harness(Planner::Native, &[("web.yaml", &crashing)]);
    let rounds = h.rounds(40, Duration::from_millis(250));
    let app: Vec<jiff::Timestamp> = creates(&rounds, &h.agent)
        .into_iter()
        .filter(|(_, c)| c == "app")
        .map(|(t, _)| t)
        .collect();
    assert!(app.len() >= 5, "{app:?}");
    let gaps: Vec<f64> = app
        .windows(2)
        .map(|w| w[1].duration_since(w[0]).as_secs_f64())
        .collect();
    // The first restart at once, then back-off 1 s, 2 s, 4 s
    // (ReduceDefaultCrashLoopBackOffDecay), seen at a 250 ms relist.
    assert!(gaps[0] < 1.0, "gaps {gaps:?}");
    for (gap, want) in gaps.iter().skip(1).zip([1.0, 2.0, 4.0]) {
        assert!(*gap >= want && *gap <= want + 0.75, "gaps {gaps:?}");
    }
    // Attempts come from the runtime: every instance has its own restart count, and GC
    // keeps only the newest exited one.
    let uid = h.uid();
    let status = h.status(&uid);
    let apps: Vec<_> = status
        .container_statuses
        .iter()
        .filter(|c| c.name == "app")
        .collect();
    assert!(apps.len() <= 2, "{apps:?}");
    let counts: Vec<i32> = apps.iter().map(|c| c.restart_count).collect();
    let mut dedup = counts.clone();
    dedup.dedup();
    assert_eq!(counts, dedup);
    assert!(rounds.iter().all(|(_, r)| r.errors.is_empty()));
}

#[test]
fn e2e_removing_the_manifest_kills_and_removes_the_pod() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    h.rounds(12, Duration::from_millis(500));
    let uid = h.uid();
    assert!(!h.status(&uid).container_statuses.is_empty());
    std::fs::remove_file(h.manifests.join("web.yaml")).unwrap();
    let rounds = h.rounds(2, Duration::from_millis(500));
    assert_eq!(rounds[0].1.removed, ["default/web-n1"]);
    let status = h.status(&uid);
    assert!(status.container_statuses.is_empty(), "{status:?}");
    assert!(status.sandbox_statuses.is_empty(), "{status:?}");
}

#[test]
fn e2e_a_failed_call_is_retried_next_sync_and_never_duplicated() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    h.sim
        .fail_next("CreateContainer", simcri::CriCode::Unavailable, 1);
    let rounds = h.rounds(14, Duration::from_millis(500));
    assert!(!rounds[0].1.errors.is_empty(), "the first create failed");
    assert!(
        rounds[0].1.errors[0].contains("CreateContainerError"),
        "{:?}",
        rounds[0].1.errors
    );
    let uid = h.uid();
    let status = h.status(&uid);
    for name in ["init-db", "log-shipper", "app"] {
        let n = status
            .container_statuses
            .iter()
            .filter(|c| c.name == name)
            .count();
        assert_eq!(n, 1, "{name}: {status:?}");
    }
    assert_eq!(status.sandbox_statuses.len(), 1);
}

#[test]
fn e2e_pods_without_the_agents_label_are_left_alone() {
    let mut h = harness(Planner::Native, &[]);
    let config: PodSandboxConfig = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "foreign", "uid": "f1", "namespace": "default", "attempt": 0},
        "labels": {"io.kubernetes.pod.uid": "f1"}
    }))
    .unwrap();
    let id = h
        .sim
        .with_node(|node| node.run_pod_sandbox(&config, "", t0()))
        .unwrap();
    let rounds = h.rounds(3, Duration::from_secs(1));
    assert!(rounds
        .iter()
        .all(|(_, r)| r.removed.is_empty() && r.errors.is_empty()));
    let state = h
        .sim
        .with_node(|node| node.sandbox(&id).unwrap().status.state);
    assert_eq!(state, podplan_core::runtime::SandboxState::Ready);
}

#[test]
fn e2e_module_swaps_during_syncs_cause_no_failed_sync() {
    let Some(module) = testing::module() else {
        return;
    };
    let engine = testing::engine(Duration::from_secs(10));
    let slot = Arc::new(
        podplan_wasmhost::ModuleSlot::new(
            engine,
            Some(testing::cache(Path::new(env!("CARGO_TARGET_TMPDIR")))),
            podplan_wasmhost::SlotConfig {
                self_test_sample: 2,
                ..podplan_wasmhost::SlotConfig::default()
            },
            module,
            "embedded",
        )
        .unwrap(),
    );
    let crashing = WEB.replace(
        "  annotations:\n",
        "  annotations:\n    runtime-sim.podplan.io/container.app: '{\"exit\": {\"code\": 1, \"afterSeconds\": 3}}'\n",
    );
    let mut h = harness(Planner::Wasm(Arc::clone(&slot)), &[("web.yaml", &crashing)]);
    // Two variants of the module and a broken candidate, offered in turn while the agent
    // syncs. The variants are compiled into the cache first: what is under test is a swap
    // during syncs, not how long a debug build takes to compile a module on a busy CI box
    // (two compiles took most of four minutes there).
    let variants = [
        testing::variant(module, "a"),
        b"\0asm broken".to_vec(),
        testing::variant(module, "b"),
    ];
    for bytes in [&variants[0], &variants[2]] {
        let sha: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(bytes).into();
        testing::cache(Path::new(env!("CARGO_TARGET_TMPDIR")))
            .load_or_compile(slot.engine(), bytes, &sha)
            .unwrap();
    }
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (slot, stop) = (Arc::clone(&slot), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut n = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let bytes = &variants[n % variants.len()];
                let _ = slot.swap(bytes, &format!("candidate {n}"));
                n += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            n
        })
    };
    let mut rounds = Vec::new();
    let start = std::time::Instant::now();
    while rounds.len() < 16
        || (slot.status().swaps < 3 || slot.status().rejections < 1)
            && start.elapsed() < Duration::from_secs(600)
    {
        rounds.extend(h.rounds(1, Duration::from_millis(500)));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let offered = swapper.join().unwrap();
    let slot_status = slot.status();
    assert!(
        slot_status.swaps >= 3,
        "{slot_status:?} after {offered} offers"
    );
    assert!(slot_status.rejections >= 1, "{slot_status:?}");
    for (_, r) in &rounds {
        assert!(r.errors.is_empty(), "{:?}", r.errors);
    }
    let order: Vec<String> = creates(&rounds, &h.agent)
        .into_iter()
        .map(|(_, c)| c)
        .collect();
    assert_eq!(&order[..3], ["init-db", "log-shipper", "app"]);
}

#[test]
fn e2e_an_image_change_in_a_manifest_with_a_uid_replaces_only_that_container() {
    let with_uid = WEB.replace("  name: web\n", "  name: web\n  uid: web-uid\n");
    let mut h = harness(Planner::Native, &[("web.yaml", &with_uid)]);
    h.rounds(12, Duration::from_millis(500));
    let before = h.status("web-uid");
    let id = |s: &RuntimeStatus, name: &str| {
        s.container_statuses
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.id.clone())
    };
    write(
        &h.manifests,
        "web.yaml",
        &with_uid.replace("nginx:1.27", "busybox:1.36"),
    );
    let rounds = h.rounds(6, Duration::from_millis(500));
    assert!(rounds
        .iter()
        .all(|(_, r)| r.errors.is_empty() && r.removed.is_empty()));
    let after = h.status("web-uid");
    assert_eq!(after.sandbox_statuses.len(), 1, "the same sandbox");
    assert_eq!(after.sandbox_statuses[0].id, before.sandbox_statuses[0].id);
    assert_eq!(id(&after, "log-shipper"), id(&before, "log-shipper"));
    assert_ne!(id(&after, "app"), id(&before, "app"));
    let app = after
        .container_statuses
        .iter()
        .find(|c| c.name == "app")
        .unwrap();
    assert_eq!(app.state, ContainerState::Running);
    assert!(app.image.contains("busybox"), "{app:?}");
}

#[test]
fn e2e_a_restarted_agent_adopts_its_pods_from_the_runtime() {
    let mut h = harness(Planner::Native, &[("web.yaml", WEB)]);
    // Stopped mid-way (init container running), then again after the sidecar started.
    for partial in [1, 6] {
        h.rounds(partial, Duration::from_millis(500));
        let planner = Planner::Native;
        let config = h.agent.config().clone();
        let cri = GrpcRuntime::in_process(&h.sim, Duration::from_secs(5)).unwrap();
        // No database: the new agent knows only what the runtime reports.
        h.agent = Agent::new(config, planner, cri);
    }
    let rounds = h.rounds(10, Duration::from_millis(500));
    assert!(rounds.iter().all(|(_, r)| r.errors.is_empty()));
    let uid = h.uid();
    let status = h.status(&uid);
    let ready = status
        .sandbox_statuses
        .iter()
        .filter(|s| s.state == podplan_core::runtime::SandboxState::Ready)
        .count();
    assert_eq!(ready, 1, "{status:?}");
    let mut seen = std::collections::BTreeSet::new();
    for c in &status.container_statuses {
        assert!(
            seen.insert((c.name.clone(), c.restart_count)),
            "two {} with attempt {}",
            c.name,
            c.restart_count
        );
    }
    let running: Vec<&str> = status
        .container_statuses
        .iter()
        .filter(|c| c.state == ContainerState::Running)
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(running.len(), 2, "{running:?}");
}

#[test]
fn e2e_a_removed_pods_directories_are_cleaned_up() {
    let pod = r#"
apiVersion: v1
kind: Pod
metadata: {name: vols, uid: fixed-uid}
spec:
  securityContext: {fsGroup: 2000}
  volumes: [{name: scratch, emptyDir: {}}]
  containers:
    - name: app
      image: busybox:1.36
      volumeMounts: [{name: scratch, mountPath: /scratch}]
"#;
    let mut h = harness(Planner::Native, &[("v.yaml", pod)]);
    h.rounds(3, Duration::from_secs(1));
    let root = std::path::PathBuf::from(&h.agent.config().root_dir);
    let logs = std::path::PathBuf::from(&h.agent.config().pod_logs_dir);
    let scratch = root.join("pods/fixed-uid/volumes/kubernetes.io~empty-dir/scratch");
    {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let meta = std::fs::metadata(&scratch).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, 0o2777);
        assert_eq!(meta.gid(), 2000);
    }
    std::fs::write(scratch.join("left-over"), "old").unwrap();
    let log_dir = logs.join("default_vols-n1_fixed-uid");
    assert!(log_dir.is_dir());
    std::fs::remove_file(h.manifests.join("v.yaml")).unwrap();
    // The pod worker stops the pod, then cleans up: a few rounds, more on a loaded machine
    // (bounded).
    let pod_dir = root.join("pods/fixed-uid");
    let gone = (0..20).any(|_| {
        h.rounds(1, Duration::from_secs(1));
        !pod_dir.exists() && !log_dir.exists()
    });
    assert!(
        gone,
        "pod dir {pod_dir:?} or log dir {log_dir:?} still there"
    );
    // The same UID again, once its old worker is done: a fresh emptyDir.
    write(&h.manifests, "v.yaml", pod);
    let back = (0..20).any(|_| {
        h.rounds(1, Duration::from_secs(1));
        scratch.is_dir()
    });
    assert!(back, "{scratch:?} was not made again");
    assert!(!scratch.join("left-over").exists());
}
