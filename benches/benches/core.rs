//! Criterion benchmarks of the core engine: the kubelet's `computePodActions` on
//! already-parsed input (`decide`), the full typed plan with steps and CRI configs
//! (`plan`), the JSON-bytes-to-plan-bytes call every front end makes (`plan_json`), and
//! the API status plus kubectl row of the steady pod (`status`).
//!
//! `pod_size/{new,steady}/N`: `plan_json` on pods of N = 1, 10, 100, 1,000 containers,
//! with throughput in containers, so criterion reports the cost per container (which
//! should stay flat as pods grow).
//!
//! `sim/{fixture}`: the runtime model (`podplan_core::sim::Simulation`, what the demo and
//! the playground run) carrying the fixture's pod from its request to a stable runtime:
//! plan, carry out every step, relist, until a sync changes nothing (at most 8 syncs).
//!
//! `cargo bench -p podplan-benches` (add `-- --quick` for a fast run).

#![expect(
    missing_docs,
    reason = "criterion_main! generates an undocumented `main`"
)]
#![expect(
    clippy::expect_used,
    reason = "a fixture that is not a valid request is a broken benchmark: stop loudly"
)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use podplan_benches::{fixtures, wide_pod, POD_SIZES};
use podplan_core::features::FeatureGates;

fn decide(c: &mut Criterion) {
    let mut group = c.benchmark_group("decide");
    for fixture in fixtures() {
        let request = fixture.typed().expect("every fixture is a valid request");
        let gates = FeatureGates::resolve(&request.feature_gates);
        group.bench_with_input(
            BenchmarkId::from_parameter(fixture.name),
            &(request, gates),
            |b, (r, g)| {
                b.iter(|| podplan_core::generators::decide(black_box(r), black_box(g)));
            },
        );
    }
    group.finish();
}

fn typed(c: &mut Criterion) {
    let mut group = c.benchmark_group("plan");
    for fixture in fixtures() {
        let request = fixture.typed().expect("every fixture is a valid request");
        group.bench_with_input(
            BenchmarkId::from_parameter(fixture.name),
            &request,
            |b, r| {
                b.iter(|| podplan_core::plan(black_box(r)));
            },
        );
    }
    group.finish();
}

fn json_bytes(c: &mut Criterion) {
    let mut group = c.benchmark_group("plan_json");
    for fixture in fixtures() {
        let bytes = fixture.bytes();
        group.throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_with_input(
            BenchmarkId::from_parameter(fixture.name),
            &bytes,
            |b, input| {
                b.iter(|| podplan_core::plan_json(black_box(input)));
            },
        );
    }
    group.finish();
}

/// The API status and the kubectl row of the steady pod: what the plan's `status` and
/// `kubectl` add to a typed plan (target: at most 1 µs).
fn status(c: &mut Criterion) {
    let mut group = c.benchmark_group("status");
    for fixture in fixtures().into_iter().filter(|f| f.name == "steady") {
        let request = fixture.typed().expect("every fixture is a valid request");
        let gates = FeatureGates::resolve(&request.feature_gates);
        group.bench_with_input(
            BenchmarkId::from_parameter(fixture.name),
            &(request, gates),
            |b, (r, g)| {
                b.iter(|| podplan_core::status::for_request(black_box(r), black_box(g)));
            },
        );
    }
    group.finish();
}

fn pod_size(c: &mut Criterion) {
    let mut group = c.benchmark_group("pod_size");
    for steady in [false, true] {
        let kind = if steady { "steady" } else { "new" };
        for n in POD_SIZES {
            let bytes = serde_json::to_vec(&wide_pod(n, steady)).expect("a fixture serialises");
            group.throughput(Throughput::Elements(n as u64));
            if n >= 100 {
                group.sample_size(20);
            }
            group.bench_with_input(BenchmarkId::new(kind, n), &bytes, |b, input| {
                b.iter(|| podplan_core::plan_json(black_box(input)));
            });
        }
    }
    group.finish();
}

fn simulation(c: &mut Criterion) {
    let mut group = c.benchmark_group("sim");
    let start: jiff::Timestamp = "2025-01-01T00:00:00Z".parse().expect("a valid timestamp");
    for fixture in fixtures() {
        let request = fixture.typed().expect("every fixture is a valid request");
        group.bench_with_input(
            BenchmarkId::from_parameter(fixture.name),
            &request,
            |b, r| {
                b.iter(|| {
                    let mut sim = podplan_core::sim::Simulation::new(black_box(r).clone(), start);
                    black_box(sim.run_until_stable(8).map(|plans| plans.len()))
                });
            },
        );
    }
    group.finish();
}

criterion_group!(benches, decide, typed, json_bytes, status, pod_size, simulation);
criterion_main!(benches);
