//! The wasm engine against the native one, and the costs of the host's machinery:
//!
//! - `plan_json/{native,wasmtime-pooled,wasmtime-per-call,...}/*`: JSON request → plan
//!   bytes; wasmtime with warm instances (the default isolation) and with a fresh
//!   instance per call.
//! - `instantiate`: a fresh store + instance from the `InstancePre` (paid per call with
//!   per-call isolation).
//! - `load/{precompiled,compile}`: a module from the on-disk cache vs from `.wasm`.
//! - `swap/*`: from a new module file to its generation live, with a cache hit
//!   (load, ABI check, self-test, activation).
//!
//! Needs the embedded module (`scripts/build-wasm` before building the benches).
//! Quick run: `cargo bench -p podplan-benches --bench wasm -- --quick`.

#![expect(
    missing_docs,
    reason = "criterion_main! generates an undocumented `main`"
)]
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    reason = "a benchmark whose setup fails (no module, a bad fixture) is broken: stop loudly"
)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use podplan_wasmhost::{
    embedded, time_instantiation, EngineSettings, HostEngine, Isolation, ModuleCache, ModuleSlot,
    PlanModule, SlotConfig,
};

const NEW_POD: &[u8] = br#"{"pod":{"metadata":{"name":"web","namespace":"default","uid":"u1"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}}"#;

fn module_bytes() -> &'static [u8] {
    embedded::module_bytes().unwrap_or_else(|e| panic!("{e}"))
}

/// `bytes` with a custom section appended: another module (another hash), same behaviour.
fn variant(bytes: &[u8], tag: u8) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.extend_from_slice(&[0, 3, 1, b'v', tag]);
    out
}

fn requests() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![("new-pod".to_string(), NEW_POD.to_vec())];
    // The largest built-in vector request: the heaviest decision in the set.
    if let Some(big) = embedded::sample_requests(usize::MAX)
        .into_iter()
        .max_by_key(|s| s.request.len())
    {
        out.push(("largest-vector".to_string(), big.request));
    }
    out
}

fn plan_json(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let cache = ModuleCache::new(dir.path()).unwrap();
    let engine = HostEngine::new(EngineSettings::default()).unwrap();
    let module = PlanModule::load(&engine, module_bytes(), Some(&cache)).unwrap();
    let per_call_engine = HostEngine::new(EngineSettings {
        isolation: Isolation::PerCall,
        ..EngineSettings::default()
    })
    .unwrap();
    let per_call = PlanModule::load(&per_call_engine, module_bytes(), Some(&cache)).unwrap();
    // Per call, with pool slots that hand their memory back to the kernel after every call.
    let cold_engine = HostEngine::new(EngineSettings {
        keep_resident: 0,
        isolation: Isolation::PerCall,
        ..EngineSettings::default()
    })
    .unwrap();
    let cold = PlanModule::load(&cold_engine, module_bytes(), Some(&cache)).unwrap();
    let mut group = c.benchmark_group("plan_json");
    for (name, request) in requests() {
        assert_eq!(
            module.plan_json(&request).unwrap(),
            podplan_core::plan_json(&request)
        );
        group.bench_with_input(BenchmarkId::new("native", &name), &request, |b, r| {
            b.iter(|| podplan_core::plan_json(r))
        });
        group.bench_with_input(
            BenchmarkId::new("wasmtime-pooled", &name),
            &request,
            |b, r| b.iter(|| module.plan_json(r).unwrap()),
        );
        group.bench_with_input(
            BenchmarkId::new("wasmtime-per-call", &name),
            &request,
            |b, r| b.iter(|| per_call.plan_json(r).unwrap()),
        );
        let id = BenchmarkId::new("wasmtime-per-call-keep-resident-0", &name);
        group.bench_with_input(id, &request, |b, r| b.iter(|| cold.plan_json(r).unwrap()));
    }
    group.finish();
    c.bench_function("instantiate", |b| {
        b.iter(|| time_instantiation(&module).unwrap())
    });
}

fn load(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let cache = ModuleCache::new(dir.path()).unwrap();
    let engine = HostEngine::new(EngineSettings::default()).unwrap();
    PlanModule::load(&engine, module_bytes(), Some(&cache)).unwrap();
    let mut group = c.benchmark_group("load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    group.bench_function("precompiled", |b| {
        b.iter(|| PlanModule::load(&engine, module_bytes(), Some(&cache)).unwrap())
    });
    group.bench_function("compile", |b| {
        b.iter(|| PlanModule::load(&engine, module_bytes(), None).unwrap())
    });
    group.finish();
}

fn swap(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let cache = ModuleCache::new(dir.path().join("cache")).unwrap();
    let engine = HostEngine::new(EngineSettings::default()).unwrap();
    let files: Vec<_> = [1u8, 2]
        .iter()
        .map(|tag| {
            let path = dir.path().join(format!("module-{tag}.wasm"));
            std::fs::write(&path, variant(module_bytes(), *tag)).unwrap();
            path
        })
        .collect();
    let mut group = c.benchmark_group("swap");
    group.sample_size(10);
    for self_test in [12usize, 0] {
        let config = SlotConfig {
            self_test_sample: self_test,
            ..SlotConfig::default()
        };
        let slot = ModuleSlot::new(
            engine.clone(),
            Some(cache.clone()),
            config,
            module_bytes(),
            "embedded",
        )
        .unwrap();
        for file in &files {
            slot.swap_file(file).unwrap(); // warm the cache
        }
        let mut n = 0usize;
        group.bench_function(
            BenchmarkId::new("file_to_live_cache_hit", format!("self-test-{self_test}")),
            |b| {
                b.iter(|| {
                    n += 1;
                    let report = slot.swap_file(&files[n % 2]).unwrap();
                    assert_eq!(report.cache, podplan_wasmhost::CacheOutcome::Hit);
                    report
                })
            },
        );
    }
    group.finish();
}

criterion_group!(benches, plan_json, load, swap);
criterion_main!(benches);
