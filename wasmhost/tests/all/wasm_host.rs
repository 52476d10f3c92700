//! The wasmtime host: the embedded module answers exactly like the native core on the
//! whole corpus; hostile modules are stopped and rejected while the good module keeps
//! working; the compiled-module cache.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::support::{abi_module, cache, engine, fixed_answer_body, module, variant};
use podplan_wasmhost::{
    CacheOutcome, EngineSettings, HostEngine, HostError, Isolation, ModuleCache, PlanModule,
    ABI_MAJOR,
};

const SIMPLE: &[u8] = br#"{"pod":{"metadata":{"name":"web","namespace":"default","uid":"u1"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}"#;

#[test]
fn the_module_has_no_imports_and_speaks_abi_1() {
    let Some(bytes) = module() else { return };
    let engine = engine(Duration::from_secs(5));
    let raw = wasmtime::Module::from_binary(engine.engine(), bytes).unwrap();
    assert_eq!(
        raw.imports().count(),
        0,
        "imports: {:?}",
        raw.imports()
            .map(|i| i.name().to_string())
            .collect::<Vec<_>>()
    );
    let exports: Vec<&str> = raw.exports().map(|e| e.name()).collect();
    for name in [
        "memory",
        "podplan_abi_version",
        "podplan_alloc",
        "podplan_free",
        "podplan_plan",
    ] {
        assert!(exports.contains(&name), "{name} missing from {exports:?}");
    }
    let module = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();
    assert_eq!(module.abi().major, ABI_MAJOR);
    assert_eq!(
        module.abi().major << 16 | module.abi().minor,
        podplan_wasm::ABI_VERSION
    );
}

#[test]
fn wasmtime_answers_exactly_like_the_native_core_on_the_whole_corpus() {
    let Some(bytes) = module() else { return };
    let engine = engine(Duration::from_secs(30));
    let module = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();
    let cases =
        podplan_testsupport::corpus::load(&podplan_testsupport::corpus::repo_root()).unwrap();
    assert!(
        cases
            .iter()
            .filter(|c| c.name.starts_with("conformance/actions/"))
            .count()
            >= 50
    );
    let mut differing = Vec::new();
    for case in &cases {
        let native = podplan_core::plan_json(&case.request);
        match module.plan_json(&case.request) {
            Ok(answer) if answer == native => {}
            Ok(answer) => differing.push(format!(
                "{}:\n  native: {}\n  wasm:   {}",
                case.name,
                String::from_utf8_lossy(&native)
                    .chars()
                    .take(400)
                    .collect::<String>(),
                String::from_utf8_lossy(&answer)
                    .chars()
                    .take(400)
                    .collect::<String>()
            )),
            Err(e) => differing.push(format!("{}: {e}", case.name)),
        }
    }
    assert!(
        differing.is_empty(),
        "{} of {} requests differ (a stale module? rerun scripts/build-wasm):\n{}",
        differing.len(),
        cases.len(),
        differing.join("\n")
    );
}

/// Plans `SIMPLE` with the good module and checks the answer.
fn good_module_still_plans(good: &PlanModule) {
    assert_eq!(
        good.plan_json(SIMPLE).unwrap(),
        podplan_core::plan_json(SIMPLE)
    );
}

#[test]
fn an_infinite_loop_is_stopped_at_the_deadline() {
    let Some(bytes) = module() else { return };
    let engine = engine(Duration::from_millis(200));
    let good = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();
    let looping = PlanModule::load(
        &engine,
        &abi_module(0x1_0000, "(loop $l (br $l)) (i64.const 0)", ""),
        None,
    )
    .unwrap();
    let start = Instant::now();
    let err = looping.plan_json(SIMPLE).unwrap_err();
    let took = start.elapsed();
    assert_eq!(err, HostError::Deadline(Duration::from_millis(200)));
    assert!(
        took >= Duration::from_millis(150) && took < Duration::from_secs(5),
        "stopped after {took:?}"
    );
    good_module_still_plans(&good);
    // Again, concurrently with good calls.
    let looping = Arc::new(looping);
    let handle = {
        let looping = Arc::clone(&looping);
        std::thread::spawn(move || looping.plan_json(SIMPLE))
    };
    good_module_still_plans(&good);
    assert!(matches!(
        handle.join().unwrap(),
        Err(HostError::Deadline(_))
    ));
}

#[test]
fn unbounded_memory_growth_is_stopped_at_the_limit() {
    let Some(bytes) = module() else { return };
    let engine = engine(Duration::from_secs(5));
    let good = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();
    let limit = engine.settings().memory_limit;
    // Grows until refused: the refusal traps.
    let grower = abi_module(
        0x1_0000,
        "(loop $l (drop (memory.grow (i32.const 16))) (br $l)) (i64.const 0)",
        "",
    );
    let grower = PlanModule::load(&engine, &grower, None).unwrap();
    assert_eq!(
        grower.plan_json(SIMPLE).unwrap_err(),
        HostError::MemoryLimit { limit_bytes: limit }
    );
    good_module_still_plans(&good);
    // Asks for more than the limit up front: refused at instantiation.
    let wat = format!(
        r#"(module (memory (export "memory") {pages})
          (func (export "podplan_abi_version") (result i32) (i32.const 0x10000))
          (func (export "podplan_alloc") (param i32) (result i32) (i32.const 0))
          (func (export "podplan_free") (param i32 i32))
          (func (export "podplan_plan") (param i32 i32) (result i64) (i64.const 0)))"#,
        pages = limit / 65536 + 1
    );
    let err = PlanModule::load(&engine, &wat::parse_str(wat).unwrap(), None).unwrap_err();
    // (wasmtime refuses it when compiling for the pool, whose slots are the limit's size)
    assert!(
        matches!(
            &err,
            HostError::MemoryLimit { .. } | HostError::Instantiate(_)
        ) || matches!(&err, HostError::Compile(m) if m.contains("exceeds the limit")),
        "{err}"
    );
    good_module_still_plans(&good);
}

#[test]
fn a_wrong_abi_version_is_rejected_at_load() {
    let Some(bytes) = module() else { return };
    let engine = engine(Duration::from_secs(5));
    let good = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();
    let answer = "{}";
    let v2 = abi_module(0x2_0000, &fixed_answer_body(answer), answer);
    assert_eq!(
        PlanModule::load(&engine, &v2, None).unwrap_err(),
        HostError::AbiVersion {
            found_major: 2,
            found_minor: 0,
            want_major: 1
        }
    );
    let v0 = abi_module(0x0_0007, &fixed_answer_body(answer), answer);
    assert!(matches!(
        PlanModule::load(&engine, &v0, None),
        Err(HostError::AbiVersion {
            found_major: 0,
            found_minor: 7,
            ..
        })
    ));
    // A newer minor of the same major is accepted.
    let v1_3 = abi_module(0x1_0003, &fixed_answer_body(answer), answer);
    assert_eq!(
        PlanModule::load(&engine, &v1_3, None).unwrap().abi().minor,
        3
    );
    good_module_still_plans(&good);
}

#[test]
fn malformed_modules_are_errors_not_crashes() {
    let Some(bytes) = module() else { return };
    let engine = engine(Duration::from_secs(5));
    let good = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();

    assert!(matches!(
        PlanModule::load(&engine, b"\0asm garbage", None),
        Err(HostError::Compile(_))
    ));
    assert!(matches!(
        PlanModule::load(&engine, &[], None),
        Err(HostError::Compile(_))
    ));

    let with_import = wat::parse_str(
        r#"(module (import "env" "clock" (func (result i64))) (memory (export "memory") 1)
          (func (export "podplan_abi_version") (result i32) (i32.const 0x10000))
          (func (export "podplan_alloc") (param i32) (result i32) (i32.const 0))
          (func (export "podplan_free") (param i32 i32))
          (func (export "podplan_plan") (param i32 i32) (result i64) (i64.const 0)))"#,
    )
    .unwrap();
    assert_eq!(
        PlanModule::load(&engine, &with_import, None).unwrap_err(),
        HostError::Imports(vec!["env::clock".into()])
    );

    let missing = wat::parse_str(r#"(module (memory (export "memory") 1) (func (export "podplan_abi_version") (result i32) (i32.const 0x10000)))"#).unwrap();
    assert!(matches!(
        PlanModule::load(&engine, &missing, None),
        Err(HostError::Export {
            name: "podplan_alloc",
            ..
        })
    ));

    let wrong_type = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "podplan_abi_version") (result i32) (i32.const 0x10000))
          (func (export "podplan_alloc") (param i32) (result i32) (i32.const 0))
          (func (export "podplan_free") (param i32 i32))
          (func (export "podplan_plan") (param i32 i32) (result i32) (i32.const 0)))"#,
    )
    .unwrap();
    assert!(matches!(
        PlanModule::load(&engine, &wrong_type, None),
        Err(HostError::Export {
            name: "podplan_plan",
            ..
        })
    ));

    // Traps, at load (in the version call) and per call.
    assert!(matches!(
        PlanModule::load(&engine, &abi_module_trapping_version(), None),
        Err(HostError::Trap(_))
    ));
    let trapping =
        PlanModule::load(&engine, &abi_module(0x1_0000, "unreachable", ""), None).unwrap();
    assert!(
        matches!(trapping.plan_json(SIMPLE), Err(HostError::Trap(m)) if m.contains("unreachable"))
    );

    // Answers outside memory.
    let out_of_bounds = PlanModule::load(
        &engine,
        &abi_module(0x1_0000, "(i64.const 0xffff000000000010)", ""),
        None,
    )
    .unwrap();
    assert!(matches!(
        out_of_bounds.plan_json(SIMPLE),
        Err(HostError::BadAnswer(_))
    ));
    // An allocator that answers 0 is out of memory.
    let zero_alloc = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "podplan_abi_version") (result i32) (i32.const 0x10000))
          (func (export "podplan_alloc") (param i32) (result i32) (i32.const 0))
          (func (export "podplan_free") (param i32 i32))
          (func (export "podplan_plan") (param i32 i32) (result i64) (i64.const 0)))"#,
    )
    .unwrap();
    let zero_alloc = PlanModule::load(&engine, &zero_alloc, None).unwrap();
    assert!(matches!(
        zero_alloc.plan_json(SIMPLE),
        Err(HostError::MemoryLimit { .. })
    ));
    // An empty request needs no allocation; an empty answer is passed through.
    assert_eq!(zero_alloc.plan_json(b"").unwrap(), b"");

    good_module_still_plans(&good);
}

fn abi_module_trapping_version() -> Vec<u8> {
    wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "podplan_abi_version") (result i32) unreachable)
          (func (export "podplan_alloc") (param i32) (result i32) (i32.const 0))
          (func (export "podplan_free") (param i32 i32))
          (func (export "podplan_plan") (param i32 i32) (result i64) (i64.const 0)))"#,
    )
    .unwrap()
}

#[test]
fn calls_do_not_share_state() {
    let Some(bytes) = module() else { return };
    let engine = HostEngine::new(EngineSettings {
        isolation: Isolation::PerCall,
        max_instances: 16,
        ..EngineSettings::default()
    })
    .unwrap();
    // A module whose allocator state would leak between calls if instances were reused:
    // with per-call isolation each call starts from a fresh instance, so the answer is
    // always at the same place.
    let counter = abi_module(
        0x1_0000,
        "(i64.or (i64.shl (i64.extend_i32_u (global.get $next)) (i64.const 32)) (i64.const 0))",
        "",
    );
    let counter = PlanModule::load(&engine, &counter, None).unwrap();
    let first = counter.plan_json(SIMPLE).unwrap();
    let second = counter.plan_json(SIMPLE).unwrap();
    assert_eq!(first, second);
    let good = PlanModule::load(&engine, bytes, Some(&cache())).unwrap();
    for _ in 0..3 {
        good_module_still_plans(&good);
    }
}

#[test]
fn compiled_modules_are_cached_by_content_and_engine() {
    let Some(bytes) = module() else { return };
    let dir = tempfile::tempdir().unwrap();
    let cache = ModuleCache::new(dir.path()).unwrap();
    let engine = engine(Duration::from_secs(5));
    // A small module keeps this fast; the real one goes through the same code.
    let answer = r#"{"error":{"kind":"InvalidInput","path":"","message":"x"}}"#;
    let small = abi_module(0x1_0000, &fixed_answer_body(answer), answer);
    let first = PlanModule::load(&engine, &small, Some(&cache)).unwrap();
    assert_eq!(first.cache_outcome(), CacheOutcome::Miss);
    let again = PlanModule::load(&engine, &small, Some(&cache)).unwrap();
    assert_eq!(again.cache_outcome(), CacheOutcome::Hit);
    assert_eq!(again.plan_json(b"{}").unwrap(), answer.as_bytes());
    // Another module is another entry.
    let other = variant(&small, "other");
    assert_eq!(
        PlanModule::load(&engine, &other, Some(&cache))
            .unwrap()
            .cache_outcome(),
        CacheOutcome::Miss
    );
    // Runtime limits do not change compiled code: an engine with other limits shares
    // the entry (compilation settings are in the key; see engine.rs's unit test).
    let other_engine = podplan_wasmhost::HostEngine::new(podplan_wasmhost::EngineSettings {
        max_wasm_stack: 256 << 10,
        max_instances: 4,
        memory_limit: 64 << 20,
        ..Default::default()
    })
    .unwrap();
    assert_eq!(other_engine.fingerprint(), engine.fingerprint());
    assert_eq!(
        PlanModule::load(&other_engine, &small, Some(&cache))
            .unwrap()
            .cache_outcome(),
        CacheOutcome::Hit
    );
    // A damaged entry is detected and replaced.
    let sha: [u8; 32] = sha2_digest(&small);
    let entry = cache.entry_path(&engine, &sha);
    let mut data = std::fs::read(&entry).unwrap();
    let last = data.len() - 1;
    data[last] ^= 0xff;
    std::fs::write(&entry, &data).unwrap();
    let repaired = PlanModule::load(&engine, &small, Some(&cache)).unwrap();
    assert_eq!(repaired.cache_outcome(), CacheOutcome::Replaced);
    assert_eq!(
        PlanModule::load(&engine, &small, Some(&cache))
            .unwrap()
            .cache_outcome(),
        CacheOutcome::Hit
    );
    std::fs::write(&entry, b"short").unwrap();
    assert_eq!(
        PlanModule::load(&engine, &small, Some(&cache))
            .unwrap()
            .cache_outcome(),
        CacheOutcome::Replaced
    );
    // The real module round-trips through the cache too.
    let real = PlanModule::load(&engine, bytes, Some(&cache)).unwrap();
    assert_eq!(
        PlanModule::load(&engine, bytes, Some(&cache))
            .unwrap()
            .cache_outcome(),
        CacheOutcome::Hit
    );
    good_module_still_plans(&real);
}

fn sha2_digest(bytes: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(bytes).into()
}

/// A planner on a slot holding `bytes` (no self-test: hand-written modules are allowed).
fn planner(bytes: &[u8]) -> podplan_wasmhost::Planner {
    let slot = podplan_wasmhost::ModuleSlot::new(
        engine(Duration::from_secs(30)),
        Some(cache()),
        podplan_wasmhost::SlotConfig {
            self_test_sample: 0,
            ..podplan_wasmhost::SlotConfig::default()
        },
        bytes,
        "test",
    )
    .unwrap();
    podplan_wasmhost::Planner::Wasm(Arc::new(slot))
}

#[test]
fn the_typed_planner_decodes_the_modules_answer_as_the_native_core_plans() {
    let Some(bytes) = module() else { return };
    let wasm = planner(bytes);
    let native = podplan_wasmhost::Planner::Native;
    let mut requests: Vec<podplan_core::PlanRequest> =
        podplan_wasmhost::embedded::sample_requests(12)
            .iter()
            .map(|s| podplan_core::api::parse_request(&s.request).unwrap())
            .collect();
    // And one the engine refuses: a pod without a spec.
    requests
        .push(podplan_core::api::parse_request(br#"{"pod":{"metadata":{"name":"x"}}}"#).unwrap());
    for request in &requests {
        let answer = wasm.plan(request).unwrap();
        assert_eq!(answer, native.plan(request).unwrap());
        assert_eq!(answer, podplan_core::plan(request));
    }
    assert!(wasm.plan(requests.last().unwrap()).unwrap().is_err());
}

#[test]
fn an_answer_that_is_neither_plan_nor_error_is_the_modules_failure() {
    for answer in ["[]", "{}", "{\"actions\":\n{}}", "{\"error\": 7}"] {
        let wasm = planner(&abi_module(0x10000, &fixed_answer_body(answer), answer));
        let request = podplan_core::api::parse_request(SIMPLE).unwrap();
        assert!(
            matches!(wasm.plan(&request), Err(HostError::BadAnswer(_))),
            "{answer}"
        );
        // Bytes out: passed on when it is one JSON object with a key on one line, else
        // the engine's LimitExceeded error naming the module's failure.
        let out = wasm.plan_json_or_limit(SIMPLE);
        if answer == "{\"error\": 7}" {
            assert_eq!(out, answer.as_bytes());
        } else {
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["error"]["kind"], "LimitExceeded", "{answer}");
            assert!(
                v["error"]["message"]
                    .as_str()
                    .unwrap()
                    .contains("the wasm engine failed"),
                "{v}"
            );
        }
    }
}
