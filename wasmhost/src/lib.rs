//! The wasmtime host: runs podplan's plain-ABI wasm module (`wasm/ABI.md`) safely and
//! swaps it for new versions without stopping.
//!
//! - [`HostEngine`] (engine.rs): one wasmtime engine with the pooling allocator and
//!   epoch interruption, plus the ticker thread that makes deadlines work.
//! - [`ModuleCache`] (cache.rs): compiled modules on disk, keyed by SHA-256 of the
//!   module bytes and the engine configuration.
//! - [`PlanModule`] (module.rs): a validated module and its `InstancePre`; every call
//!   runs with a memory limit and a deadline, on a warm instance ([`Isolation::Pooled`],
//!   the default; warm.rs) or on a fresh store ([`Isolation::PerCall`]). Traps,
//!   timeouts and memory exhaustion are [`HostError`]s, never crashes, and an instance
//!   that failed is never reused. call.rs: one ABI call on an instance.
//! - [`ModuleSlot`] (slot.rs): the live generation, hot swap with self-test and shadow
//!   run, rollback, status.
//! - [`Planner`] (planner.rs): the one engine choice, the native core or a module in a
//!   slot (the CLI's `--engine native|wasm` / `--module FILE`). [`answer`]: an answer's
//!   bytes told apart (plan or error) by their first key, and decoded in one pass.
//! - [`ModuleWatcher`] (watch.rs): polls a module file and feeds each new version to
//!   [`ModuleSlot::swap`]; [`serve_json_lines`] (lines.rs): JSON lines through a slot
//!   (both behind `podplan serve-module`).
//! - [`wapc::PolicyModule`] (wapc.rs): a waPC guest (a Kubewarden policy) on the same
//!   engine, with the same deadline and memory limit per call.
//! - `testing` (feature `testing`, for other crates' tests and this crate's examples):
//!   the embedded module or a skip, a small engine, a module cache, module variants.
//!
//! ```no_run
//! use podplan_wasmhost::{EngineSettings, Planner};
//! let planner = Planner::wasm(None, None, EngineSettings::default())?; // the built-in module
//! let answer = planner.plan_json(br#"{"pod":{"spec":{"containers":[{"name":"a"}]}}}"#)?;
//! assert_eq!(answer, podplan_core::plan_json(br#"{"pod":{"spec":{"containers":[{"name":"a"}]}}}"#));
//! # Ok::<(), podplan_wasmhost::HostError>(())
//! ```

pub mod answer;
mod cache;
mod call;
pub mod embedded;
mod engine;
mod error;
mod limiter;
mod lines;
mod module;
mod planner;
mod slot;
#[cfg(feature = "testing")]
pub mod testing;
pub mod verify;
pub mod wapc;
mod warm;
mod watch;

pub use cache::{compile, hex, CacheOutcome, ModuleCache};
pub use engine::{EngineSettings, HostEngine, Isolation, WarmPool};
pub use error::HostError;
pub use lines::serve_json_lines;
pub use module::{time_instantiation, AbiVersion, PlanModule, ABI_MAJOR};
pub use planner::Planner;
pub use slot::{Generation, ModuleSlot, ShadowPolicy, SlotConfig, SlotStatus, SwapReport};
pub use watch::{slot_for_file, ModuleWatcher, WatchThread};
