//! `podplan serve-module --watch FILE`: a long-running planner whose wasm module can be
//! replaced while it serves.
//!
//! Requests are read as JSON lines on stdin; each gets one line on stdout: the
//! engine's answer (a plan or `{"error": ...}`), or `{"hostError": {...}}` when the
//! module itself failed (trap, deadline, memory limit). The watched file is polled;
//! every new version is loaded, checked (ABI, self-test against the native core,
//! shadow run on recent requests) and swapped in atomically, or rejected while the
//! live module keeps serving. Swaps, rejections and the slot status are logged on
//! stderr (`-v`).

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::wasm::{
    embedded, EngineSettings, HostEngine, HostError, ModuleCache, ModuleSlot, ShadowPolicy,
    SlotConfig,
};

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

/// Options of `podplan serve-module`.
#[derive(Debug, Clone, clap::Args)]
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
}

/// Serves stdin to stdout until stdin ends, swapping modules as the watched file changes.
///
/// # Errors
///
/// The engine cannot be created, neither the watched file nor the built-in module can
/// serve, or stdin/stdout fail.
pub fn run(args: &ServeModuleArgs) -> Result<(), HostError> {
    let slot = Arc::new(start(args)?);
    let stop = Arc::new(AtomicBool::new(false));
    let watcher = {
        let (slot, stop, path) = (Arc::clone(&slot), Arc::clone(&stop), args.watch.clone());
        let poll = Duration::from_millis(args.poll_ms.max(1));
        std::thread::Builder::new()
            .name("podplan-watch".into())
            .spawn(move || watch(&slot, &path, poll, &stop))
            .map_err(|e| HostError::Engine(format!("cannot start the watcher: {e}")))?
    };
    let served = serve(&slot, std::io::stdin().lock(), std::io::stdout().lock());
    stop.store(true, Ordering::Relaxed);
    let _ = watcher.join();
    served
}

/// The slot, live with the watched file's module when it is valid, else the built-in one.
fn start(args: &ServeModuleArgs) -> Result<ModuleSlot, HostError> {
    let engine = HostEngine::new(EngineSettings {
        deadline: Duration::from_millis(args.deadline_ms),
        memory_limit: args.memory_mib.saturating_mul(1 << 20),
        ..EngineSettings::default()
    })?;
    let cache = if args.no_module_cache {
        None
    } else {
        args.module_cache
            .clone()
            .or_else(ModuleCache::default_dir)
            .and_then(|dir| {
                ModuleCache::new(dir)
                    .inspect_err(|e| tracing::warn!("module cache disabled: {e}"))
                    .ok()
            })
    };
    let config = SlotConfig {
        self_test_sample: args.self_test,
        shadow: match args.shadow {
            ShadowArg::Off => ShadowPolicy::Off,
            ShadowArg::Report => ShadowPolicy::Report,
            ShadowArg::Reject => ShadowPolicy::Reject,
        },
        ..SlotConfig::default()
    };
    let source = args.watch.display().to_string();
    let from_file = std::fs::read(&args.watch)
        .map_err(|e| HostError::io(&args.watch, &e))
        .and_then(|bytes| {
            ModuleSlot::new(
                Arc::clone(&engine),
                cache.clone(),
                config.clone(),
                &bytes,
                &source,
            )
        });
    match from_file {
        Ok(slot) => Ok(slot),
        Err(why) => {
            tracing::warn!("{why}; serving the built-in module until {source} holds a valid one");
            ModuleSlot::new(engine, cache, config, embedded::module_bytes()?, "embedded")
        }
    }
}

/// Answers each JSON line of `input` with one line on `output`.
///
/// # Errors
///
/// Reading or writing fails.
pub fn serve(
    slot: &ModuleSlot,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<(), HostError> {
    let io = |e: std::io::Error| HostError::io("<stdio>", &e);
    for line in input.split(b'\n') {
        let line = line.map_err(io)?;
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let (generation, answer) = slot.plan_json_on_generation(&line);
        let answer = answer.unwrap_or_else(|err| {
            serde_json::to_vec(&serde_json::json!({
                "hostError": {"message": err.to_string(), "generation": generation}
            }))
            .unwrap_or_default()
        });
        output.write_all(&answer).map_err(io)?;
        output.write_all(b"\n").map_err(io)?;
        output.flush().map_err(io)?;
    }
    Ok(())
}

/// Polls `path` and offers every new version to the slot.
fn watch(slot: &ModuleSlot, path: &Path, poll: Duration, stop: &AtomicBool) {
    let mut seen: Option<(SystemTime, u64)> = None;
    let mut tried: Option<[u8; 32]> = Some(*slot.live().module.sha256());
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(poll);
        let Ok(meta) = std::fs::metadata(path) else {
            continue;
        };
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        if seen == Some(stamp) {
            continue;
        }
        seen = Some(stamp);
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let sha: [u8; 32] = Sha256::digest(&bytes).into();
        if tried == Some(sha) {
            continue;
        }
        tried = Some(sha);
        // Rejections are logged by the slot; the live module keeps serving either way.
        let _ = slot.swap(&bytes, &path.display().to_string());
        let status = slot.status();
        tracing::info!(
            generation = status.generation,
            swaps = status.swaps,
            rejections = status.rejections,
            status = %serde_json::to_string(&status).unwrap_or_default(),
            "module slot status"
        );
    }
}
