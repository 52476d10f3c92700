//! Hot swap: a [`ModuleSlot`] holds the live module generation and replaces it
//! atomically with candidates that pass their checks.
//!
//! A candidate is loaded (compiled or taken from the cache), its ABI version is
//! checked, it is self-tested against the native core on a built-in sample of
//! conformance vectors, and (optionally) shadow-run beside the live module on recent
//! real requests. Only then is it activated, as a new generation, with one atomic
//! pointer swap: calls already running finish on the generation they started on. The
//! previous generation is kept for [`ModuleSlot::rollback`]. A rejected candidate
//! changes nothing; the live module keeps serving.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use arc_swap::ArcSwap;
use serde::Serialize;

use super::cache::CacheOutcome;
use super::embedded::{sample_requests, SampleRequest};
use super::verify::{self, SelfTestReport, ShadowReport};
use super::{AbiVersion, HostEngine, HostError, ModuleCache, PlanModule};

/// What to do with differences found by shadow-running a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ShadowPolicy {
    /// Do not shadow-run.
    #[default]
    Off,
    /// Shadow-run and report (log) differences; activate anyway.
    Report,
    /// Shadow-run and reject a candidate that decides any recent request differently.
    Reject,
}

/// How a slot judges candidates and what it remembers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotConfig {
    /// How many built-in conformance vectors a candidate is self-tested on.
    pub self_test_sample: usize,
    /// Shadow-run policy.
    pub shadow: ShadowPolicy,
    /// How many recent requests to keep for shadow runs (0 = none).
    pub recent_requests: usize,
    /// Requests larger than this are not kept.
    pub max_recorded_bytes: usize,
}

impl Default for SlotConfig {
    /// 12 self-test vectors, no shadow run, 32 recent requests of up to 1 MiB.
    fn default() -> Self {
        Self {
            self_test_sample: 12,
            shadow: ShadowPolicy::Off,
            recent_requests: 32,
            max_recorded_bytes: 1 << 20,
        }
    }
}

/// One activated module.
#[derive(Debug)]
pub struct Generation {
    /// Activation number: 1 for the first module, +1 for each activation (rollbacks included).
    pub number: u64,
    /// The module.
    pub module: Arc<PlanModule>,
    /// Where it came from (a path, `embedded`, `rollback to N`).
    pub source: String,
    /// When it went live.
    pub activated_at: SystemTime,
}

/// What a successful swap did.
#[derive(Debug, Clone)]
pub struct SwapReport {
    /// The new generation's number.
    pub generation: u64,
    /// SHA-256 of the new module, hex.
    pub sha256: String,
    /// Whether compiled code came from the cache.
    pub cache: CacheOutcome,
    /// The self-test.
    pub self_test: SelfTestReport,
    /// The shadow run, when one was made.
    pub shadow: Option<ShadowReport>,
    /// Time to load (compile or deserialise) and validate.
    pub load_time: Duration,
    /// Time from the start of the swap to activation.
    pub total_time: Duration,
}

/// Counters and facts for monitoring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SlotStatus {
    /// The live generation.
    pub generation: u64,
    /// Its module's SHA-256, hex.
    pub sha256: String,
    /// Its ABI version, `major.minor`.
    pub abi: String,
    /// Where it came from.
    pub source: String,
    /// The generation kept for rollback, if any.
    pub previous_generation: Option<u64>,
    /// Successful activations after the first (swaps and rollbacks).
    pub swaps: u64,
    /// Rejected candidates.
    pub rejections: u64,
    /// Rollbacks.
    pub rollbacks: u64,
    /// Calls served.
    pub calls: u64,
    /// Calls that failed (trap, deadline, memory).
    pub failed_calls: u64,
    /// Why the last candidate was rejected.
    pub last_rejection: Option<String>,
}

#[derive(Default)]
struct Counters {
    swaps: AtomicU64,
    rejections: AtomicU64,
    rollbacks: AtomicU64,
    calls: AtomicU64,
    failed_calls: AtomicU64,
    generations: AtomicU64,
}

/// The live module and its swap machinery. Share it as `Arc<ModuleSlot>`.
pub struct ModuleSlot {
    engine: Arc<HostEngine>,
    cache: Option<ModuleCache>,
    config: SlotConfig,
    sample: Vec<SampleRequest>,
    live: ArcSwap<Generation>,
    previous: Mutex<Option<Arc<Generation>>>,
    /// Serialises swaps and rollbacks (calls never take it).
    swapping: Mutex<()>,
    recent: Mutex<VecDeque<Arc<[u8]>>>,
    last_rejection: Mutex<Option<String>>,
    counters: Counters,
}

impl std::fmt::Debug for ModuleSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModuleSlot")
            .field("status", &self.status())
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ModuleSlot {
    /// A slot whose first generation is `bytes`, after the same checks as any
    /// candidate (load, ABI, self-test; no shadow run, as nothing is live yet).
    ///
    /// # Errors
    ///
    /// Whatever rejects the module.
    pub fn new(
        engine: Arc<HostEngine>,
        cache: Option<ModuleCache>,
        config: SlotConfig,
        bytes: &[u8],
        source: &str,
    ) -> Result<Self, HostError> {
        let sample = sample_requests(config.self_test_sample);
        let module = PlanModule::load(&engine, bytes, cache.as_ref())?;
        verify::self_test(&module, &sample).into_result()?;
        let first = Generation {
            number: 1,
            module: Arc::new(module),
            source: source.to_string(),
            activated_at: SystemTime::now(),
        };
        tracing::info!(generation = 1, sha256 = %first.module.sha256_hex(), source, "module live");
        let counters = Counters::default();
        counters.generations.store(1, Ordering::Relaxed);
        Ok(Self {
            engine,
            cache,
            config,
            sample,
            live: ArcSwap::from_pointee(first),
            previous: Mutex::new(None),
            swapping: Mutex::new(()),
            recent: Mutex::new(VecDeque::new()),
            last_rejection: Mutex::new(None),
            counters,
        })
    }

    /// Plans one request on the live generation.
    ///
    /// # Errors
    ///
    /// As [`PlanModule::plan_json`].
    pub fn plan_json(&self, request: &[u8]) -> Result<Vec<u8>, HostError> {
        self.plan_json_on_generation(request).1
    }

    /// Plans one request and says which generation answered.
    pub fn plan_json_on_generation(&self, request: &[u8]) -> (u64, Result<Vec<u8>, HostError>) {
        let generation = self.live.load_full();
        self.record(request);
        self.counters.calls.fetch_add(1, Ordering::Relaxed);
        let answer = generation.module.plan_json(request);
        if answer.is_err() {
            self.counters.failed_calls.fetch_add(1, Ordering::Relaxed);
        }
        (generation.number, answer)
    }

    fn record(&self, request: &[u8]) {
        if self.config.recent_requests == 0
            || request.len() > self.config.max_recorded_bytes
            || self.config.shadow == ShadowPolicy::Off
        {
            return;
        }
        let mut recent = lock(&self.recent);
        if recent.len() >= self.config.recent_requests {
            recent.pop_front();
        }
        recent.push_back(Arc::from(request));
    }

    /// Reads a module file and offers it as a candidate.
    ///
    /// # Errors
    ///
    /// [`HostError::Io`], or whatever rejects the candidate.
    pub fn swap_file(&self, path: &Path) -> Result<SwapReport, HostError> {
        let bytes = std::fs::read(path).map_err(|e| HostError::io(path, &e))?;
        self.swap(&bytes, &path.display().to_string())
    }

    /// Offers `bytes` as a candidate; activates it when it passes every check.
    ///
    /// # Errors
    ///
    /// Why the candidate was rejected; the live generation is unchanged.
    pub fn swap(&self, bytes: &[u8], source: &str) -> Result<SwapReport, HostError> {
        let _swapping = lock(&self.swapping);
        let started = Instant::now();
        match self.check(bytes) {
            Ok((module, self_test, shadow, load_time)) => {
                let cache = module.cache_outcome();
                let sha256 = module.sha256_hex();
                let generation = self.activate(module, source.to_string());
                let report = SwapReport {
                    generation,
                    sha256,
                    cache,
                    self_test,
                    shadow,
                    load_time,
                    total_time: started.elapsed(),
                };
                tracing::info!(
                    generation,
                    sha256 = %report.sha256,
                    source,
                    cache = ?report.cache,
                    self_tested = report.self_test.total,
                    shadow_differences = report.shadow.as_ref().map_or(0, |s| s.differing.len()),
                    load_ms = report.load_time.as_secs_f64() * 1e3,
                    total_ms = report.total_time.as_secs_f64() * 1e3,
                    "module swapped in"
                );
                Ok(report)
            }
            Err(err) => {
                self.counters.rejections.fetch_add(1, Ordering::Relaxed);
                *lock(&self.last_rejection) = Some(format!("{source}: {err}"));
                tracing::warn!(source, error = %err, "candidate module rejected; the live module keeps serving");
                Err(err)
            }
        }
    }

    fn check(
        &self,
        bytes: &[u8],
    ) -> Result<(PlanModule, SelfTestReport, Option<ShadowReport>, Duration), HostError> {
        let started = Instant::now();
        let candidate = PlanModule::load(&self.engine, bytes, self.cache.as_ref())?;
        let load_time = started.elapsed();
        let self_test = verify::self_test(&candidate, &self.sample).into_result()?;
        let shadow = match self.config.shadow {
            ShadowPolicy::Off => None,
            policy => {
                let recent: Vec<Arc<[u8]>> = lock(&self.recent).iter().cloned().collect();
                let live = self.live.load_full();
                let report = verify::shadow_run(&live.module, &candidate, &recent);
                for (index, why) in &report.differing {
                    tracing::warn!(
                        request = index,
                        "shadow run: the candidate decides differently: {why}"
                    );
                }
                if policy == ShadowPolicy::Reject && !report.differing.is_empty() {
                    return Err(HostError::ShadowDiff {
                        differing: report.differing.len(),
                        total: report.total,
                    });
                }
                Some(report)
            }
        };
        Ok((candidate, self_test, shadow, load_time))
    }

    /// Makes `module` live as a new generation; the old live one becomes `previous`.
    fn activate(&self, module: PlanModule, source: String) -> u64 {
        let number = self.counters.generations.fetch_add(1, Ordering::Relaxed) + 1;
        self.activate_generation(Arc::new(module), source, number);
        self.counters.swaps.fetch_add(1, Ordering::Relaxed);
        number
    }

    fn activate_generation(&self, module: Arc<PlanModule>, source: String, number: u64) {
        let next = Arc::new(Generation {
            number,
            module,
            source,
            activated_at: SystemTime::now(),
        });
        let old = self.live.swap(next);
        // The old generation only finishes the calls already running on it: its idle
        // warm instances would hold pool slots until it is dropped.
        old.module.drop_warm_instances();
        *lock(&self.previous) = Some(old);
    }

    /// Makes the previous generation's module live again (as a new generation number);
    /// the generation it replaces becomes the previous one.
    ///
    /// # Errors
    ///
    /// [`HostError::NoPrevious`] when there is none.
    pub fn rollback(&self) -> Result<u64, HostError> {
        let _swapping = lock(&self.swapping);
        let previous = lock(&self.previous).clone().ok_or(HostError::NoPrevious)?;
        let number = self.counters.generations.fetch_add(1, Ordering::Relaxed) + 1;
        self.activate_generation(
            Arc::clone(&previous.module),
            format!(
                "rollback to generation {} ({})",
                previous.number, previous.source
            ),
            number,
        );
        self.counters.swaps.fetch_add(1, Ordering::Relaxed);
        self.counters.rollbacks.fetch_add(1, Ordering::Relaxed);
        tracing::info!(
            generation = number,
            restored = previous.number,
            "module rolled back"
        );
        Ok(number)
    }

    /// The live generation.
    #[must_use]
    pub fn live(&self) -> Arc<Generation> {
        self.live.load_full()
    }

    /// Counters and facts.
    #[must_use]
    pub fn status(&self) -> SlotStatus {
        let live = self.live.load_full();
        let abi: AbiVersion = live.module.abi();
        SlotStatus {
            generation: live.number,
            sha256: live.module.sha256_hex(),
            abi: abi.to_string(),
            source: live.source.clone(),
            previous_generation: lock(&self.previous).as_ref().map(|g| g.number),
            swaps: self.counters.swaps.load(Ordering::Relaxed),
            rejections: self.counters.rejections.load(Ordering::Relaxed),
            rollbacks: self.counters.rollbacks.load(Ordering::Relaxed),
            calls: self.counters.calls.load(Ordering::Relaxed),
            failed_calls: self.counters.failed_calls.load(Ordering::Relaxed),
            last_rejection: lock(&self.last_rejection).clone(),
        }
    }

    /// The engine modules of this slot run on.
    #[must_use]
    pub fn engine(&self) -> &Arc<HostEngine> {
        &self.engine
    }
}
