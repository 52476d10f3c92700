//! Hot swap: candidates are checked before they go live, failed candidates leave the
//! live module serving, swaps under load lose no call, rollback, shadow runs, the
//! module-file watcher.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use crate::support::{abi_module, cache, engine, fixed_answer_body, module, variant};
use podplan_wasmhost::{
    embedded, slot_for_file, HostError, ModuleSlot, ModuleWatcher, ShadowPolicy, SlotConfig,
};

fn slot(bytes: &[u8], config: SlotConfig, deadline: Duration) -> ModuleSlot {
    ModuleSlot::new(engine(deadline), Some(cache()), config, bytes, "embedded").unwrap()
}

fn small_config() -> SlotConfig {
    SlotConfig {
        self_test_sample: 4,
        ..SlotConfig::default()
    }
}

#[test]
fn hostile_candidates_are_rejected_and_the_live_module_keeps_serving() {
    let Some(good) = module() else { return };
    let slot = slot(good, small_config(), Duration::from_millis(300));
    let request = &embedded::sample_requests(1)[0].request;
    let expected = podplan_core::plan_json(request);
    let live_sha = slot.status().sha256;

    let wrong_answer = r#"{"actions":{"killPod":true,"createSandbox":true}}"#;
    type Expect = fn(&HostError) -> bool;
    let candidates: Vec<(&str, Vec<u8>, Expect)> = vec![
        (
            "loop",
            abi_module(0x1_0000, "(loop $l (br $l)) (i64.const 0)", ""),
            |e| matches!(e, HostError::SelfTest { first, .. } if first.contains("deadline")),
        ),
        (
            "grow",
            abi_module(
                0x1_0000,
                "(loop $l (drop (memory.grow (i32.const 16))) (br $l)) (i64.const 0)",
                "",
            ),
            |e| matches!(e, HostError::SelfTest { first, .. } if first.contains("memory")),
        ),
        (
            "abi2",
            abi_module(0x2_0000, &fixed_answer_body(wrong_answer), wrong_answer),
            |e| matches!(e, HostError::AbiVersion { found_major: 2, .. }),
        ),
        (
            "wrong",
            abi_module(0x1_0000, &fixed_answer_body(wrong_answer), wrong_answer),
            |e| {
                matches!(
                    e,
                    HostError::SelfTest {
                        failed: 4,
                        total: 4,
                        ..
                    }
                )
            },
        ),
        ("garbage", b"not wasm".to_vec(), |e| {
            matches!(e, HostError::Compile(_))
        }),
    ];
    for (i, (name, bytes, expect)) in candidates.iter().enumerate() {
        let err = slot.swap(bytes, name).unwrap_err();
        assert!(expect(&err), "{name}: unexpected rejection {err}");
        let status = slot.status();
        assert_eq!(status.generation, 1, "{name}");
        assert_eq!(status.sha256, live_sha, "{name}");
        assert_eq!(status.rejections, i as u64 + 1);
        assert!(status
            .last_rejection
            .as_deref()
            .is_some_and(|r| r.starts_with(name)));
        assert_eq!(slot.plan_json(request).unwrap(), expected, "after {name}");
    }
    assert_eq!(slot.status().swaps, 0);
    assert_eq!(slot.status().failed_calls, 0);
}

#[test]
fn a_swap_activates_a_new_generation_and_rollback_restores_the_previous() {
    let Some(good) = module() else { return };
    let slot = slot(good, small_config(), Duration::from_secs(10));
    let a = slot.status().sha256;
    assert_eq!(slot.rollback().unwrap_err(), HostError::NoPrevious);
    let b_bytes = variant(good, "b");
    let report = slot.swap(&b_bytes, "b.wasm").unwrap();
    assert_eq!(report.generation, 2);
    assert_eq!(report.self_test.total, 4);
    assert!(report.self_test.failures.is_empty());
    let b = slot.status().sha256;
    assert_ne!(a, b);
    assert_eq!(slot.status().previous_generation, Some(1));
    // A call that started on generation 2 finishes on it, even after a swap.
    let held = slot.live();
    assert_eq!(slot.rollback().unwrap(), 3);
    let status = slot.status();
    assert_eq!(
        (
            status.generation,
            status.sha256.as_str(),
            status.rollbacks,
            status.swaps
        ),
        (3, a.as_str(), 1, 2)
    );
    assert!(status.source.contains("rollback to generation 1"));
    assert_eq!(held.number, 2);
    assert_eq!(held.module.sha256_hex(), b);
    let request = &embedded::sample_requests(1)[0].request;
    assert_eq!(
        held.module.plan_json(request).unwrap(),
        podplan_core::plan_json(request)
    );
    // Rolling back again goes forward to b.
    assert_eq!(slot.rollback().unwrap(), 4);
    assert_eq!(slot.status().sha256, b);
}

#[test]
fn the_watcher_offers_each_new_version_of_the_file_once() {
    let Some(good) = module() else { return };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("podplan_abi.wasm");
    // No file yet: the built-in module serves, and there is nothing to offer.
    let slot = slot_for_file(
        engine(Duration::from_secs(10)),
        Some(cache()),
        small_config(),
        &path,
    )
    .unwrap();
    assert_eq!(slot.status().source, "embedded");
    let mut watcher = ModuleWatcher::new(&path, &slot);
    assert_eq!(watcher.path(), path);
    assert!(watcher.poll(&slot).is_none());
    // The live module's own bytes are not offered again.
    std::fs::write(&path, good).unwrap();
    assert!(watcher.poll(&slot).is_none());
    assert_eq!(slot.status().generation, 1);
    // A new version goes live once; an unchanged file is not offered twice.
    std::fs::write(&path, variant(good, "b")).unwrap();
    let report = watcher.poll(&slot).unwrap().unwrap();
    assert_eq!(report.generation, 2);
    assert!(watcher.poll(&slot).is_none());
    // A bad version is offered, rejected, and the live module keeps serving.
    std::fs::write(&path, b"not a wasm module").unwrap();
    assert!(watcher.poll(&slot).unwrap().is_err());
    assert_eq!(slot.status().generation, 2);
    assert_eq!(slot.status().rejections, 1);
    assert!(watcher.poll(&slot).is_none());
    // (Lengths differ so the change shows even with a coarse modification time.)
    std::fs::write(&path, variant(good, "cc")).unwrap();
    assert_eq!(watcher.poll(&slot).unwrap().unwrap().generation, 3);
    // A slot for a file that holds a valid module starts with it.
    let from_file = slot_for_file(
        engine(Duration::from_secs(10)),
        Some(cache()),
        small_config(),
        &path,
    )
    .unwrap();
    assert_eq!(from_file.status().source, path.display().to_string());
    assert_eq!(from_file.status().sha256, slot.status().sha256);
}

#[test]
fn swapping_back_and_forth_under_load_loses_no_call() {
    let Some(good) = module() else { return };
    let slot = Arc::new(slot(
        good,
        SlotConfig {
            self_test_sample: 2,
            ..SlotConfig::default()
        },
        Duration::from_secs(30),
    ));
    let b = variant(good, "b");
    // Warm the cache for b so the swaps measure swapping, not compiling.
    slot.swap(&b, "b").unwrap();
    slot.rollback().unwrap();
    let first_generation = slot.status().generation;

    let requests: Vec<(Vec<u8>, Vec<u8>)> = embedded::sample_requests(8)
        .into_iter()
        .map(|s| {
            let native = podplan_core::plan_json(&s.request);
            (s.request, native)
        })
        .collect();
    let requests = Arc::new(requests);
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..3)
        .map(|w| {
            let (slot, requests, stop) =
                (Arc::clone(&slot), Arc::clone(&requests), Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut seen = BTreeSet::new();
                let mut calls = 0usize;
                let mut i = w;
                while !stop.load(Ordering::Relaxed) || calls < 10 {
                    let (request, native) = &requests[i % requests.len()];
                    let (generation, answer) = slot.plan_json_on_generation(request);
                    let answer = answer
                        .unwrap_or_else(|e| panic!("call failed on generation {generation}: {e}"));
                    assert_eq!(&answer, native, "wrong answer from generation {generation}");
                    seen.insert(generation);
                    calls += 1;
                    i += 1;
                }
                (calls, seen)
            })
        })
        .collect();
    for n in 0..100 {
        let (bytes, name) = if n % 2 == 0 {
            (&b[..], "b")
        } else {
            (good, "a")
        };
        let report = slot
            .swap(bytes, name)
            .unwrap_or_else(|e| panic!("swap {n} to {name}: {e}"));
        assert_eq!(report.generation, first_generation + n + 1);
    }
    stop.store(true, Ordering::Relaxed);
    let mut total = 0;
    let mut generations = BTreeSet::new();
    for worker in workers {
        let (calls, seen) = worker.join().unwrap();
        total += calls;
        generations.extend(seen);
    }
    let status = slot.status();
    assert_eq!(status.generation, first_generation + 100);
    assert_eq!(status.failed_calls, 0);
    assert_eq!(status.rejections, 0);
    assert!(generations
        .iter()
        .all(|g| (first_generation..=status.generation).contains(g)));
    eprintln!(
        "{total} calls over {} generations while swapping 100 times",
        generations.len()
    );
    assert!(total >= 30);
}

#[test]
fn shadow_runs_report_or_reject_different_decisions_on_recent_requests() {
    let Some(good) = module() else { return };
    let recent: Vec<Vec<u8>> = embedded::sample_requests(5)
        .into_iter()
        .map(|s| s.request)
        .collect();
    // No self-test sample, so only the shadow run can tell the candidate is wrong.
    let config = |shadow| SlotConfig {
        self_test_sample: 0,
        shadow,
        ..SlotConfig::default()
    };
    let wrong_answer = r#"{"actions":{"killPod":true,"createSandbox":true}}"#;
    let wrong = abi_module(0x1_0000, &fixed_answer_body(wrong_answer), wrong_answer);

    let rejecting = slot(good, config(ShadowPolicy::Reject), Duration::from_secs(10));
    for r in &recent {
        rejecting.plan_json(r).unwrap();
    }
    let err = rejecting.swap(&wrong, "wrong").unwrap_err();
    assert!(
        matches!(err, HostError::ShadowDiff { differing, total: 5 } if differing >= 4),
        "{err}"
    );
    assert_eq!(rejecting.status().generation, 1);
    // The same module again is accepted (identical decisions).
    let report = rejecting.swap(&variant(good, "same"), "same").unwrap();
    assert_eq!(
        report.shadow.as_ref().map(|s| (s.total, s.differing.len())),
        Some((5, 0))
    );

    let reporting = slot(good, config(ShadowPolicy::Report), Duration::from_secs(10));
    for r in &recent {
        reporting.plan_json(r).unwrap();
    }
    let report = reporting.swap(&wrong, "wrong").unwrap();
    let shadow = report.shadow.unwrap();
    assert_eq!(shadow.total, 5);
    assert!(shadow.differing.len() >= 4);
    assert_eq!(reporting.status().generation, 2);
}

#[test]
fn serve_answers_each_line_like_the_native_core() {
    let Some(good) = module() else { return };
    let slot = slot(good, small_config(), Duration::from_secs(10));
    let requests: Vec<Vec<u8>> = embedded::sample_requests(3)
        .into_iter()
        .map(|s| s.request)
        .collect();
    let mut input = Vec::new();
    for r in &requests {
        input.extend_from_slice(r);
        input.extend_from_slice(b"\n\n");
    }
    input.extend_from_slice(b"not json\n");
    let mut output = Vec::new();
    podplan_wasmhost::serve_json_lines(&slot, &input[..], &mut output).unwrap();
    let lines: Vec<&[u8]> = output
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 4);
    for (line, request) in lines.iter().zip(&requests) {
        assert_eq!(*line, &podplan_core::plan_json(request)[..]);
    }
    assert_eq!(lines[3], &podplan_core::plan_json(b"not json")[..]);
}
