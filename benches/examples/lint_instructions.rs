//! Lints the benchmark Deployment N times (default 100), for instruction counts:
//! `valgrind --tool=callgrind target/release/examples/lint_instructions 100 [RULE-OFF]`.
//! With `CONTAINERS=C` it lints `wide_deployment(C)` (the `lint/containers` group's
//! input) instead: instructions per container at 10, 100 and 1,000 show whether the
//! lint is linear in the pod's size, without a timer.

use podplan_core::lint::{lint_object, LintSettings};

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    let object = match std::env::var("CONTAINERS")
        .ok()
        .and_then(|c| c.parse().ok())
    {
        Some(c) => podplan_benches::wide_deployment(c),
        None => podplan_benches::lint_deployment(),
    };
    // A second argument names a rule to turn off (e.g. probe-ends-pod).
    let mut settings = LintSettings::default();
    if let Some(rule) = std::env::args().nth(2) {
        settings.rules.insert(rule, podplan_core::lint::Action::Off);
    }
    let mut findings = 0;
    for _ in 0..n {
        findings += lint_object(&object, &settings, true).map_or(0, |f| f.len());
    }
    println!("{n} lints, {findings} findings");
}
