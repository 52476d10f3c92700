//! One loaded plan module: compiled, checked against the ABI (`wasm/ABI.md`), and
//! pre-linked (`InstancePre`), ready to run calls, each in a fresh, bounded store.

use std::sync::Arc;
use std::time::Instant;

use sha2::{Digest, Sha256};
use wasmtime::{
    ExternType, FuncType, InstancePre, Linker, Module, ModuleExport, Store, Trap, ValType,
};

use super::cache::{compile, hex, CacheOutcome, ModuleCache};
use super::call::AbiFuncs;
use super::limiter::Limiter;
use super::warm::WarmInstances;
use super::{HostEngine, HostError, Isolation};

/// The ABI major version this host speaks (see `wasm/ABI.md`).
pub const ABI_MAJOR: u32 = 1;

/// A module's ABI version, as `podplan_abi_version()` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbiVersion {
    /// Breaking changes.
    pub major: u32,
    /// Additive changes.
    pub minor: u32,
}

impl std::fmt::Display for AbiVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Per-call store state: the memory limiter, and the deadline for error reports.
pub(super) struct CallState {
    limiter: Limiter,
    deadline: std::time::Duration,
}

/// The exports of the ABI, looked up once per module.
pub(super) struct Exports {
    pub(super) memory: ModuleExport,
    pub(super) alloc: ModuleExport,
    pub(super) free: ModuleExport,
    pub(super) plan: ModuleExport,
}

/// A compiled, validated plan module.
pub struct PlanModule {
    engine: Arc<HostEngine>,
    pre: InstancePre<CallState>,
    exports: Exports,
    warm: WarmInstances,
    abi: AbiVersion,
    sha256: [u8; 32],
    size: usize,
    cache: CacheOutcome,
}

impl std::fmt::Debug for PlanModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanModule")
            .field("sha256", &self.sha256_hex())
            .field("abi", &self.abi)
            .field("size", &self.size)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

impl PlanModule {
    /// Compiles (or loads from `cache`) and validates a module: no imports, the ABI
    /// exports with their exact types, and an ABI major this host speaks.
    ///
    /// # Errors
    ///
    /// [`HostError::Compile`], [`HostError::Imports`], [`HostError::Export`],
    /// [`HostError::AbiVersion`], or the error of the trial call that reads the version.
    pub fn load(
        engine: &Arc<HostEngine>,
        bytes: &[u8],
        cache: Option<&ModuleCache>,
    ) -> Result<Self, HostError> {
        let sha256: [u8; 32] = Sha256::digest(bytes).into();
        let (module, outcome) = match cache {
            Some(cache) => cache.load_or_compile(engine, bytes, &sha256)?,
            None => (compile(engine, bytes)?, CacheOutcome::Uncached),
        };
        Self::from_module(engine, &module, sha256, bytes.len(), outcome)
    }

    fn from_module(
        engine: &Arc<HostEngine>,
        module: &Module,
        sha256: [u8; 32],
        size: usize,
        cache: CacheOutcome,
    ) -> Result<Self, HostError> {
        let imports: Vec<String> = module
            .imports()
            .map(|i| format!("{}::{}", i.module(), i.name()))
            .collect();
        if !imports.is_empty() {
            return Err(HostError::Imports(imports));
        }
        let exports = Exports {
            memory: export(module, "memory", "memory", |t| {
                matches!(t, ExternType::Memory(_))
            })?,
            alloc: func_export(
                module,
                "podplan_alloc",
                "func (i32) -> i32",
                &[ValType::I32],
                &[ValType::I32],
            )?,
            plan: func_export(
                module,
                "podplan_plan",
                "func (i32, i32) -> i64",
                &[ValType::I32, ValType::I32],
                &[ValType::I64],
            )?,
            free: func_export(
                module,
                "podplan_free",
                "func (i32, i32)",
                &[ValType::I32, ValType::I32],
                &[],
            )?,
        };
        let version = func_export(
            module,
            "podplan_abi_version",
            "func () -> i32",
            &[],
            &[ValType::I32],
        )?;
        let pre = Linker::new(engine.engine())
            .instantiate_pre(module)
            .map_err(|e| HostError::Instantiate(format!("{e:#}")))?;
        let mut this = Self {
            engine: Arc::clone(engine),
            pre,
            exports,
            warm: WarmInstances::default(),
            abi: AbiVersion { major: 0, minor: 0 },
            sha256,
            size,
            cache,
        };
        let raw = this.with_instance(|store, instance| {
            let func = instance
                .get_module_export(&mut *store, &version)
                .and_then(|e| e.into_func())
                .ok_or(HostError::Export {
                    name: "podplan_abi_version",
                    want: "func () -> i32",
                })?;
            let typed = func
                .typed::<(), u32>(&*store)
                .map_err(|_| HostError::Export {
                    name: "podplan_abi_version",
                    want: "func () -> i32",
                })?;
            typed.call(&mut *store, ()).map_err(|e| classify(store, &e))
        })?;
        this.abi = AbiVersion {
            major: raw >> 16,
            minor: raw & 0xffff,
        };
        if this.abi.major != ABI_MAJOR {
            return Err(HostError::AbiVersion {
                found_major: this.abi.major,
                found_minor: this.abi.minor,
                want_major: ABI_MAJOR,
            });
        }
        Ok(this)
    }

    /// Plans one request: JSON bytes in, the module's answer bytes out (a plan or
    /// `{"error": ...}`, exactly as `podplan_core::plan_json` answers).
    ///
    /// Each call runs with the engine's memory limit and deadline, in a fresh store or
    /// in a warm instance, as the engine's [`Isolation`](super::Isolation) says.
    ///
    /// # Errors
    ///
    /// [`HostError::Deadline`], [`HostError::MemoryLimit`], [`HostError::Trap`],
    /// [`HostError::Instantiate`], [`HostError::BadAnswer`], [`HostError::RequestTooLarge`].
    pub fn plan_json(&self, request: &[u8]) -> Result<Vec<u8>, HostError> {
        match self.engine.settings().isolation {
            Isolation::PerCall => self.plan_json_fresh(request),
            Isolation::Pooled(limits) => self.warm.plan_json(self, &limits, request),
        }
    }

    /// Drops the idle warm instances (their pool slots go back to the engine); later
    /// calls start new ones. For a module that stops being live.
    pub fn drop_warm_instances(&self) {
        self.warm.clear();
    }

    /// How many idle warm instances this module keeps (always 0 with
    /// [`Isolation::PerCall`]).
    #[must_use]
    pub fn idle_instances(&self) -> usize {
        self.warm.idle()
    }

    /// [`Self::plan_json`] in a fresh store and instance, dropped afterwards (nothing
    /// is freed: the whole memory goes).
    fn plan_json_fresh(&self, request: &[u8]) -> Result<Vec<u8>, HostError> {
        self.with_instance(|store, instance| {
            let funcs = AbiFuncs::lookup(store, instance, &self.exports)?;
            funcs
                .plan(store, request, self.engine.settings().memory_limit)
                .map(|call| call.answer)
        })
    }

    /// Runs `f` on a fresh instance in a fresh, bounded store.
    fn with_instance<T>(
        &self,
        f: impl FnOnce(&mut Store<CallState>, &wasmtime::Instance) -> Result<T, HostError>,
    ) -> Result<T, HostError> {
        let (mut store, instance) = self.instantiate()?;
        f(&mut store, &instance)
    }

    /// A fresh instance in a fresh store with the engine's memory limit and a deadline
    /// starting now.
    pub(super) fn instantiate(&self) -> Result<(Store<CallState>, wasmtime::Instance), HostError> {
        let settings = self.engine.settings();
        let mut store = Store::new(
            self.engine.engine(),
            CallState {
                limiter: Limiter::new(settings.memory_limit),
                deadline: settings.deadline,
            },
        );
        store.limiter(|state| &mut state.limiter);
        store.set_epoch_deadline(settings.deadline_ticks());
        let instance =
            self.pre
                .instantiate(&mut store)
                .map_err(|e| match classify(&store, &e) {
                    HostError::Trap(message) => HostError::Instantiate(message),
                    other => other,
                })?;
        Ok((store, instance))
    }

    /// The ABI exports' indexes.
    pub(super) fn exports(&self) -> &Exports {
        &self.exports
    }

    /// The module's ABI version.
    #[must_use]
    pub fn abi(&self) -> AbiVersion {
        self.abi
    }

    /// SHA-256 of the module bytes.
    #[must_use]
    pub fn sha256(&self) -> &[u8; 32] {
        &self.sha256
    }

    /// SHA-256 of the module bytes, lowercase hex.
    #[must_use]
    pub fn sha256_hex(&self) -> String {
        hex(&self.sha256)
    }

    /// Size of the module bytes.
    #[must_use]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether the compiled code came from the cache.
    #[must_use]
    pub fn cache_outcome(&self) -> CacheOutcome {
        self.cache
    }

    /// The engine this module runs on.
    #[must_use]
    pub fn engine(&self) -> &Arc<HostEngine> {
        &self.engine
    }
}

/// Times one instantiation from the `InstancePre` (for benchmarks and diagnostics).
///
/// # Errors
///
/// As for a call's instantiation.
pub fn time_instantiation(module: &PlanModule) -> Result<std::time::Duration, HostError> {
    let start = Instant::now();
    module.with_instance(|_, _| Ok(()))?;
    Ok(start.elapsed())
}

fn export(
    module: &Module,
    name: &'static str,
    want: &'static str,
    ok: impl Fn(&ExternType) -> bool,
) -> Result<ModuleExport, HostError> {
    let fits = module.get_export(name).is_some_and(|t| ok(&t));
    module
        .get_export_index(name)
        .filter(|_| fits)
        .ok_or(HostError::Export { name, want })
}

fn func_export(
    module: &Module,
    name: &'static str,
    want: &'static str,
    params: &[ValType],
    results: &[ValType],
) -> Result<ModuleExport, HostError> {
    export(module, name, want, |t| match t {
        ExternType::Func(f) => same_signature(f, params, results),
        _ => false,
    })
}

fn same_signature(f: &FuncType, params: &[ValType], results: &[ValType]) -> bool {
    let eq = |a: ValType, b: &ValType| ValType::eq(&a, b);
    f.params().len() == params.len()
        && f.results().len() == results.len()
        && f.params().zip(params).all(|(a, b)| eq(a, b))
        && f.results().zip(results).all(|(a, b)| eq(a, b))
}

/// Turns a wasmtime error from a call into a [`HostError`].
pub(super) fn classify(store: &Store<CallState>, err: &wasmtime::Error) -> HostError {
    if store.data().limiter.hit() {
        return HostError::MemoryLimit {
            limit_bytes: store.data().limiter.memory_limit(),
        };
    }
    if err.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
        return HostError::Deadline(store.data().deadline);
    }
    HostError::Trap(format!("{err:#}"))
}
