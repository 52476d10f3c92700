//! Criterion benchmark of the lifecycle lint (`podplan_core::lint::lint_object`) on a
//! typical Deployment (target: ≤ 50 µs native).
//!
//! `cargo bench -p podplan-benches --bench lint`

#![expect(
    missing_docs,
    reason = "criterion_main! generates an undocumented `main`"
)]

use std::hint::black_box;

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

criterion_group!(benches, lint);
criterion_main!(benches);
