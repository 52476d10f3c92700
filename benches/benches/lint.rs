//! Criterion benchmark of the lifecycle lint (`podplan_core::lint::lint_object`) on a
//! typical Deployment (target: ≤ 50 µs native).
//!
//! Natively the lint runs in the `podplan` binary (`podplan lint`, `admit`, `webhook`),
//! whose global allocator is mimalloc; this bench uses the same allocator, so its figure
//! is what those commands spend per object. (A lint allocates and frees many small
//! values: with glibc's malloc the same work costs about 40 % more; the instruction
//! counts of `benches/examples/lint_instructions` use glibc's.)
//!
//! `cargo bench -p podplan-benches --bench lint`

#![expect(
    missing_docs,
    reason = "criterion_main! generates an undocumented `main`"
)]

use std::hint::black_box;

/// The allocator of the `podplan` binary (host/src/main.rs).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{criterion_group, criterion_main, Criterion};
use podplan_core::lint::{lint_object, LintSettings};

fn lint(c: &mut Criterion) {
    let object = podplan_benches::lint_deployment();
    let settings = LintSettings::default();
    c.bench_function("lint/deployment", |b| {
        b.iter(|| lint_object(black_box(&object), black_box(&settings), true));
    });
    let mut no_probe = settings.clone();
    no_probe
        .rules
        .insert("probe-ends-pod".into(), podplan_core::lint::Action::Off);
    c.bench_function("lint/deployment-without-probe-ends-pod", |b| {
        b.iter(|| lint_object(black_box(&object), black_box(&no_probe), true));
    });
}

fn lint_containers(c: &mut Criterion) {
    let settings = LintSettings::default();
    let mut group = c.benchmark_group("lint/containers");
    group.sample_size(10);
    for n in [10, 100, 1000] {
        let object = podplan_benches::wide_deployment(n);
        group.throughput(criterion::Throughput::Elements(
            u64::try_from(n).unwrap_or(u64::MAX),
        ));
        group.bench_function(n.to_string(), |b| {
            b.iter(|| lint_object(black_box(&object), black_box(&settings), true));
        });
    }
    group.finish();
}

criterion_group!(benches, lint, lint_containers);
criterion_main!(benches);
