//! The one wasmtime [`Engine`] of a host: pooling allocator, epoch interruption, and
//! the background ticker that advances the epoch so calls can be given deadlines.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

use sha2::{Digest, Sha256};
use wasmtime::{
    Config, Enabled, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig,
    ProfilingStrategy,
};

use super::HostError;

/// Limits and sizes of a [`HostEngine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineSettings {
    /// Most linear memory one call may use, in bytes.
    pub memory_limit: usize,
    /// Wall-clock budget of one call (instantiation included).
    pub deadline: Duration,
    /// How often the epoch advances; deadlines are rounded up to whole ticks.
    pub tick: Duration,
    /// Most calls running at once (pool slots for instances, memories and tables).
    pub max_instances: u32,
    /// Most native stack a module may use, in bytes (wasmtime's `max_wasm_stack`).
    pub max_wasm_stack: usize,
    /// Bytes of each pooled linear memory kept resident between calls and reset with
    /// `memset` (only the dirty pages, where Linux's `PAGEMAP_SCAN` is available) instead
    /// of being returned to the kernel: a call then takes no page faults on memory its
    /// predecessor in the slot touched. 0 = always return memory to the kernel.
    pub keep_resident: usize,
    /// Whether each call gets a fresh instance or a warm one is reused (see
    /// [`Isolation`]).
    pub isolation: Isolation,
}

/// How calls into a module are isolated from each other.
///
/// Whatever the choice, every call has the engine's memory limit and deadline, every
/// pointer the module returns is bounds-checked, and an instance whose call failed in
/// any way (trap, deadline, memory limit, bad answer) is dropped, never reused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// Every call runs in a fresh store and instance with freshly initialised linear
    /// memory: nothing a call leaves in the module's memory can reach another call,
    /// even if the module is buggy or hostile.
    PerCall,
    /// Calls reuse warm instances (one per concurrently running call, at most
    /// [`WarmPool::max_idle`] kept): the module frees the request and the answer after
    /// each call and keeps its allocator warm. The module still cannot see the host or
    /// other modules, but a module that keeps state between calls could carry data
    /// from one request into a later answer; with the podplan module (pure, no globals
    /// besides its allocator) answers are identical to [`Isolation::PerCall`]'s.
    Pooled(WarmPool),
}

impl Default for Isolation {
    /// [`Isolation::Pooled`] with [`WarmPool::default`].
    fn default() -> Self {
        Self::Pooled(WarmPool::default())
    }
}

/// Limits of [`Isolation::Pooled`]: when a warm instance is recycled (dropped and
/// replaced by a fresh one on a later call).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WarmPool {
    /// Most idle warm instances kept per module (each holds a pool slot).
    pub max_idle: usize,
    /// An instance is recycled after this many calls.
    pub max_calls: u32,
    /// An instance whose linear memory has grown past this many bytes is recycled after
    /// its call (memory never shrinks; this returns a big request's memory).
    pub max_memory: usize,
}

impl Default for WarmPool {
    /// 8 idle instances, recycled after 10,000 calls or past 32 MiB of memory.
    fn default() -> Self {
        Self {
            max_idle: 8,
            max_calls: 10_000,
            max_memory: 32 << 20,
        }
    }
}

impl Default for EngineSettings {
    /// 256 MiB of memory and 5 s per call, 10 ms ticks, 64 concurrent calls, 1 MiB
    /// stack, 16 MiB kept resident per memory slot, pooled warm instances.
    fn default() -> Self {
        Self {
            memory_limit: 256 << 20,
            deadline: Duration::from_secs(5),
            tick: Duration::from_millis(10),
            max_instances: 64,
            max_wasm_stack: 1 << 20,
            keep_resident: 16 << 20,
            isolation: Isolation::default(),
        }
    }
}

impl EngineSettings {
    /// The deadline in epoch ticks (at least one).
    #[must_use]
    pub fn deadline_ticks(&self) -> u64 {
        let tick = self.tick.as_nanos().max(1);
        let ticks = self.deadline.as_nanos().div_ceil(tick);
        u64::try_from(ticks).unwrap_or(u64::MAX).max(1)
    }
}

/// A wasmtime engine configured for plan modules, with its epoch ticker.
///
/// Cheap to share (`Arc<HostEngine>`); every module loaded for it, every store and
/// every call uses the same engine. Dropping the last handle stops the ticker.
pub struct HostEngine {
    engine: Engine,
    settings: EngineSettings,
    fingerprint: [u8; 32],
    ticker: Ticker,
}

impl std::fmt::Debug for HostEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostEngine")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl HostEngine {
    /// Creates the engine and starts its epoch ticker.
    ///
    /// # Errors
    ///
    /// [`HostError::Engine`] when wasmtime rejects the configuration (e.g. the pooling
    /// allocator cannot reserve its address space).
    pub fn new(settings: EngineSettings) -> Result<Arc<Self>, HostError> {
        let mut pool = PoolingAllocationConfig::new();
        pool.total_core_instances(settings.max_instances)
            .total_memories(settings.max_instances)
            .total_tables(settings.max_instances)
            .max_memory_size(settings.memory_limit)
            // Each instance has one memory and one table; keep a few warm slots.
            .max_unused_warm_slots(settings.max_instances.min(8))
            .linear_memory_keep_resident(settings.keep_resident)
            .pagemap_scan(Enabled::Auto);
        let mut config = Config::new();
        config
            .epoch_interruption(true)
            .cranelift_opt_level(OptLevel::Speed)
            .max_wasm_stack(settings.max_wasm_stack)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
        if std::env::var_os("PODPLAN_WASM_PERFMAP").is_some() {
            // For profiling the module's code: /tmp/perf-PID.map names every compiled
            // function (perf reads it; so does a script mapping callgrind's addresses).
            config.profiler(ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&config).map_err(|e| HostError::Engine(format!("{e:#}")))?;
        let fingerprint = fingerprint(&engine);
        let ticker = Ticker::start(&engine, settings.tick)
            .map_err(|e| HostError::Engine(format!("cannot start the epoch ticker: {e}")))?;
        Ok(Arc::new(Self {
            engine,
            settings,
            fingerprint,
            ticker,
        }))
    }

    /// The wasmtime engine.
    #[must_use]
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The limits this engine was created with.
    #[must_use]
    pub fn settings(&self) -> &EngineSettings {
        &self.settings
    }

    /// SHA-256 of everything that makes a compiled module valid for this engine
    /// (wasmtime's version and compilation settings, the host CPU features): part of
    /// the on-disk cache key.
    #[must_use]
    pub fn fingerprint(&self) -> &[u8; 32] {
        &self.fingerprint
    }

    /// Whether the epoch ticker thread is still running.
    #[must_use]
    pub fn ticker_running(&self) -> bool {
        self.ticker
            .handle
            .as_ref()
            .is_some_and(|h| !h.is_finished())
    }
}

fn fingerprint(engine: &Engine) -> [u8; 32] {
    let mut hasher = ShaHasher(Sha256::new());
    "podplan-wasmhost module cache v1".hash(&mut hasher);
    engine.precompile_compatibility_hash().hash(&mut hasher);
    hasher.0.finalize().into()
}

/// Feeds a [`Hash`] value's bytes into SHA-256 (a stable digest, unlike `DefaultHasher`).
struct ShaHasher(Sha256);

impl Hasher for ShaHasher {
    fn finish(&self) -> u64 {
        0 // only the digest is used
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// The background thread that advances the engine's epoch every tick.
struct Ticker {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: &Engine, tick: Duration) -> std::io::Result<Self> {
        let stop = Arc::new(AtomicBool::new(false));
        let weak = engine.weak();
        let flag = Arc::clone(&stop);
        let handle = std::thread::Builder::new()
            .name("podplan-epoch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(tick);
                    match weak.upgrade() {
                        Some(engine) => engine.increment_epoch(),
                        None => break,
                    }
                }
            })?;
        Ok(Self {
            stop,
            handle: Some(handle),
        })
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_rounds_up_to_whole_ticks() {
        let s = EngineSettings {
            deadline: Duration::from_millis(25),
            tick: Duration::from_millis(10),
            ..EngineSettings::default()
        };
        assert_eq!(s.deadline_ticks(), 3);
        let zero = EngineSettings {
            deadline: Duration::ZERO,
            ..s
        };
        assert_eq!(zero.deadline_ticks(), 1);
    }

    #[test]
    fn the_fingerprint_follows_compilation_settings() {
        let engine = |level| {
            let mut config = Config::new();
            config.cranelift_opt_level(level);
            Engine::new(&config).unwrap_or_else(|e| unreachable!("{e}"))
        };
        let speed = fingerprint(&engine(OptLevel::Speed));
        assert_eq!(speed, fingerprint(&engine(OptLevel::Speed)));
        assert_ne!(speed, fingerprint(&engine(OptLevel::None)));
    }
}
