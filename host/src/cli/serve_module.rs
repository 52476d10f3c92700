//! `podplan serve-module --watch FILE`: a long-running planner whose wasm module can be
//! replaced while it serves.
//!
//! Requests are read as JSON lines on stdin; each gets one line on stdout: the
//! engine's answer (a plan or `{"error": ...}`), or `{"hostError": {...}}` when the
//! module itself failed (trap, deadline, memory limit). The watched file is polled;
//! every new version is loaded, checked (ABI, self-test against the native core,
//! shadow run on recent requests) and swapped in atomically, or rejected while the
//! live module keeps serving. Swaps, rejections and the slot status are logged on
//! stderr (`-v`). The pieces are the library's: [`podplan_wasmhost::ModuleWatcher`]
//! and [`podplan_wasmhost::serve_json_lines`].

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;
use podplan_wasmhost::{
    serve_json_lines, slot_for_file, EngineSettings, HostEngine, HostError, ModuleCache,
    ModuleWatcher, ShadowPolicy, SlotConfig,
};

use super::exit::{CliError, Status};

/// Shadow-run policy on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ShadowArg {
    /// No shadow run.
    Off,
    /// Replay recent requests on the candidate and log differing decisions.
    Report,
    /// As `report`, and reject a candidate that decides any of them differently.
    Reject,
}

impl From<ShadowArg> for ShadowPolicy {
    fn from(arg: ShadowArg) -> Self {
        match arg {
            ShadowArg::Off => Self::Off,
            ShadowArg::Report => Self::Report,
            ShadowArg::Reject => Self::Reject,
        }
    }
}

/// Options of `podplan serve-module`.
#[derive(Debug, Clone, Args)]
pub struct ServeModuleArgs {
    /// The module file to serve and watch; each new version is checked and swapped in.
    /// Until it exists (or while it is invalid) the built-in module serves.
    #[arg(long, value_name = "FILE")]
    pub watch: PathBuf,
    /// How often to look at the file, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 500)]
    pub poll_ms: u64,
    /// Shadow-run candidates beside the live module on recent requests.
    #[arg(long, value_enum, default_value_t = ShadowArg::Report)]
    pub shadow: ShadowArg,
    /// How many built-in conformance vectors a candidate is self-tested on.
    #[arg(long, value_name = "N", default_value_t = 12)]
    pub self_test: usize,
    /// Wall-clock limit of one call, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub deadline_ms: u64,
    /// Memory limit of one call, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 256)]
    pub memory_mib: usize,
    /// Directory of compiled modules (default: $PODPLAN_CACHE_DIR or ~/.cache/podplan/modules).
    #[arg(long, value_name = "DIR")]
    pub module_cache: Option<PathBuf>,
    /// Compile every module; no on-disk cache.
    #[arg(long)]
    pub no_module_cache: bool,
    /// Reuse warm module instances (`pooled`, the default) or give every request a
    /// fresh one (`per-call`).
    #[arg(long, value_enum, default_value_t = super::engine::IsolationFlag::Pooled)]
    pub isolation: super::engine::IsolationFlag,
}

/// Serves stdin to stdout until stdin ends, swapping modules as the watched file changes.
pub fn run(args: &ServeModuleArgs) -> Result<Status, CliError> {
    serve(args)
        .map(|()| Status::Success)
        .map_err(|e| CliError::usage(e.to_string()))
}

fn serve(args: &ServeModuleArgs) -> Result<(), HostError> {
    let engine = HostEngine::new(EngineSettings {
        deadline: Duration::from_millis(args.deadline_ms),
        memory_limit: args.memory_mib.saturating_mul(1 << 20),
        isolation: args.isolation.into(),
        ..EngineSettings::default()
    })?;
    let cache = if args.no_module_cache {
        None
    } else {
        ModuleCache::open_or_default(args.module_cache.clone())
    };
    let config = SlotConfig {
        self_test_sample: args.self_test,
        shadow: args.shadow.into(),
        ..SlotConfig::default()
    };
    let slot = Arc::new(slot_for_file(engine, cache, config, &args.watch)?);
    let watcher = ModuleWatcher::new(&args.watch, &slot)
        .spawn(Arc::clone(&slot), Duration::from_millis(args.poll_ms))?;
    let served = serve_json_lines(&slot, std::io::stdin().lock(), std::io::stdout().lock());
    watcher.stop();
    served
}
