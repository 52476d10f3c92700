//! Runs the request corpus (`podplan_testsupport::corpus`: every action vector's request; with
//! `--edge-cases` also the bad and hostile inputs, whose 8 MiB and 100,000-deep requests
//! would dominate the mean) through one engine and prints the CPU cost per request, as one JSON
//! line. The same loop for every engine, so runs compare; `scripts/bench-report` and
//! `scripts/build-wasm` use it, and it is the unit measured under callgrind
//! (`--toggle-collect='*run_corpus*'` counts only the planning loop).
//!
//! ```text
//! cargo run --release -p podplan-benches --example corpus -- \
//!     [--engine native|wasm] [--module FILE] [--isolation pooled|per-call] \
//!     [--repeat N] [--check] [--cache DIR] [--max-instances N] [--edge-cases]
//! ```
//!
//! `--check` compares every answer with the native core's first (and fails on a
//! difference); `--module` defaults to the module built into podplan-wasmhost.

/// With `--features mimalloc`: the allocator of the `podplan` binary.
#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::hint::black_box;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use podplan_wasmhost::{
    embedded, EngineSettings, HostEngine, Isolation, ModuleCache, PlanModule, WarmPool,
};

struct Args {
    engine: String,
    module: Option<PathBuf>,
    isolation: String,
    repeat: usize,
    check: bool,
    cache: Option<PathBuf>,
    max_instances: Option<u32>,
    edge_cases: bool,
}

fn parse() -> Result<Args, String> {
    let mut args = Args {
        engine: "native".into(),
        module: None,
        isolation: "pooled".into(),
        repeat: 1,
        check: false,
        cache: None,
        max_instances: None,
        edge_cases: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = || it.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--engine" => args.engine = value()?,
            "--module" => args.module = Some(value()?.into()),
            "--isolation" => args.isolation = value()?,
            "--repeat" => args.repeat = value()?.parse().map_err(|e| format!("--repeat: {e}"))?,
            "--check" => args.check = true,
            "--edge-cases" => args.edge_cases = true,
            "--cache" => args.cache = Some(value()?.into()),
            "--max-instances" => {
                args.max_instances = Some(
                    value()?
                        .parse()
                        .map_err(|e| format!("--max-instances: {e}"))?,
                );
            }
            "--bench" => {} // passed by `cargo bench`
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(args)
}

type Plan<'a> = Box<dyn Fn(&[u8]) -> Result<Vec<u8>, String> + 'a>;

/// The measured loop (its name is what callgrind's `--toggle-collect` matches).
#[inline(never)]
fn run_corpus(plan: &Plan<'_>, requests: &[Vec<u8>], repeat: usize) -> Result<usize, String> {
    let mut bytes = 0;
    for _ in 0..repeat {
        for request in requests {
            bytes += black_box(plan(black_box(request))?).len();
        }
    }
    Ok(bytes)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("corpus: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse()?;
    let mut cases = podplan_testsupport::corpus::load(&podplan_testsupport::corpus::repo_root())?;
    if !args.edge_cases {
        cases.retain(|c| !c.name.starts_with("edge/"));
    }
    let requests: Vec<Vec<u8>> = cases.iter().map(|c| c.request.clone()).collect();
    let isolation = match args.isolation.as_str() {
        "pooled" => Isolation::Pooled(WarmPool::default()),
        "per-call" => Isolation::PerCall,
        other => return Err(format!("--isolation {other}: pooled or per-call")),
    };
    let module = match args.engine.as_str() {
        "native" => None,
        "wasm" => {
            let bytes = match &args.module {
                Some(path) => {
                    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?
                }
                None => embedded::module_bytes()
                    .map_err(|e| e.to_string())?
                    .to_vec(),
            };
            let defaults = EngineSettings::default();
            let engine = HostEngine::new(EngineSettings {
                isolation,
                // (under valgrind, the default pool's address space cannot be reserved)
                max_instances: args.max_instances.unwrap_or(defaults.max_instances),
                ..defaults
            })
            .map_err(|e| e.to_string())?;
            let cache = args
                .cache
                .as_ref()
                .map(ModuleCache::new)
                .transpose()
                .map_err(|e| e.to_string())?;
            Some(PlanModule::load(&engine, &bytes, cache.as_ref()).map_err(|e| e.to_string())?)
        }
        other => return Err(format!("--engine {other}: native or wasm")),
    };
    let plan: Plan<'_> = match &module {
        None => Box::new(|r: &[u8]| Ok(podplan_core::plan_json(r))),
        Some(m) => Box::new(move |r: &[u8]| m.plan_json(r).map_err(|e| e.to_string())),
    };
    if args.check {
        for (case, request) in cases.iter().zip(&requests) {
            if plan(request)? != podplan_core::plan_json(request) {
                return Err(format!(
                    "{}: the answer differs from the native core's",
                    case.name
                ));
            }
        }
    }
    // One warm-up pass (page faults, warm instances, caches), then the measured loop.
    run_corpus(&plan, &requests, 1)?;
    let started = Instant::now();
    let cpu_started = cpu_time();
    let bytes = run_corpus(&plan, &requests, args.repeat)?;
    let wall = started.elapsed().as_secs_f64();
    let cpu = cpu_time() - cpu_started;
    let n = (requests.len() * args.repeat) as f64;
    let request_bytes: usize = requests.iter().map(Vec::len).sum();
    println!(
        "{}",
        serde_json::json!({
            "engine": args.engine,
            "isolation": if module.is_some() { args.isolation.as_str() } else { "-" },
            "module": args.module.as_ref().map(|p| p.display().to_string()),
            "requests": requests.len(),
            "repeat": args.repeat,
            "meanRequestBytes": request_bytes / requests.len().max(1),
            "answerBytes": bytes,
            "wallUsPerRequest": (wall * 1e6 / n * 100.0).round() / 100.0,
            "cpuUsPerRequest": (cpu * 1e6 / n * 100.0).round() / 100.0,
        })
    );
    Ok(())
}

/// This process's CPU time (user + system), in seconds: less noisy than wall time on a
/// shared machine.
fn cpu_time() -> f64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            let rest = s.rsplit_once(')')?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            // utime and stime are fields 14 and 15 of the line (11 and 12 after the name).
            let utime: f64 = fields.get(11)?.parse().ok()?;
            let stime: f64 = fields.get(12)?.parse().ok()?;
            Some((utime + stime) / 100.0)
        })
        .unwrap_or(0.0)
}
