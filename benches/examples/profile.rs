//! Plans one benchmark fixture many times with the native core, for profilers:
//! `valgrind --tool=callgrind --toggle-collect='*run_fixture*' target/release/examples/profile steady 1000`
//! counts the instructions of exactly those calls (divide by the count).
//!
//! `PROFILE_PART=parse` counts only the strict request parse; `PROFILE_PART=parse-plain`
//! serde_json's plain parse of the same bytes (what strictness costs).
//!
//! Fixtures: `new`, `steady`, `crash_looping`, `config_heavy`, `wide-N` (new, `N`
//! containers), `wide-steady-N`.

/// With `--features mimalloc`: the allocator of the `podplan` binary.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::process::ExitCode;

#[inline(never)]
fn run_fixture(request: &[u8], times: usize) -> usize {
    let mut n = 0;
    match std::env::var("PROFILE_PART").as_deref() {
        // Only the strict parse of the request (`parse_request`).
        Ok("parse") => {
            for _ in 0..times {
                n += usize::from(
                    black_box(podplan_core::api::parse_request(black_box(request))).is_ok(),
                );
            }
        }
        // serde_json's plain (non-strict) parse of the same request, for comparison.
        Ok("parse-plain") => {
            for _ in 0..times {
                n += usize::from(
                    black_box(serde_json::from_slice::<podplan_core::PlanRequest>(
                        black_box(request),
                    ))
                    .is_ok(),
                );
            }
        }
        _ => {
            for _ in 0..times {
                n += black_box(podplan_core::plan_json(black_box(request))).len();
            }
        }
    }
    n
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "steady".into());
    let times: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(1000);
    let request = if let Some(n) = name.strip_prefix("wide-steady-") {
        n.parse().ok().map(|n| podplan_benches::wide_pod(n, true))
    } else if let Some(n) = name.strip_prefix("wide-") {
        n.parse().ok().map(|n| podplan_benches::wide_pod(n, false))
    } else {
        podplan_benches::fixtures()
            .into_iter()
            .find(|f| f.name == name)
            .map(|f| f.request)
    };
    let Some(request) = request else {
        eprintln!("profile: unknown fixture {name}");
        return ExitCode::FAILURE;
    };
    let bytes = serde_json::to_vec(&request).unwrap_or_default();
    let started = std::time::Instant::now();
    let out = run_fixture(&bytes, times);
    let took = started.elapsed();
    println!(
        "{name}: {} request bytes, {} answer bytes, {:.2} µs per call (wall)",
        bytes.len(),
        out / times.max(1),
        took.as_secs_f64() * 1e6 / times.max(1) as f64
    );
    ExitCode::SUCCESS
}
