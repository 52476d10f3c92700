//! The wasmtime host: runs podplan's plain-ABI wasm module (`wasm/ABI.md`) safely and
//! swaps it for new versions without stopping.
//!
//! - [`HostEngine`] (engine.rs): one wasmtime engine with the pooling allocator and
//!   epoch interruption, plus the ticker thread that makes deadlines work.
//! - [`ModuleCache`] (cache.rs): compiled modules on disk, keyed by SHA-256 of the
//!   module bytes and the engine configuration.
//! - [`PlanModule`] (module.rs): a validated module and its `InstancePre`; every call
//!   gets a fresh store with a memory limit and a deadline. Traps, timeouts and
//!   memory exhaustion are [`HostError`]s, never crashes.
//! - [`ModuleSlot`] (slot.rs): the live generation, hot swap with self-test and shadow
//!   run, rollback, status.
//! - [`wapc::PolicyModule`] (wapc.rs): a waPC guest (a Kubewarden policy) on the same
//!   engine, with the same deadline and memory limit per call.
//! - [`Planner`] (planner.rs): `--engine native|wasm` / `--module FILE` for the CLI.
//!
//! ```no_run
//! use podplan_host::wasm::{EngineSettings, Planner};
//! let planner = Planner::wasm(None, None, EngineSettings::default())?; // the built-in module
//! let answer = planner.plan_json(br#"{"pod":{"spec":{"containers":[{"name":"a"}]}}}"#)?;
//! assert_eq!(answer, podplan_core::plan_json(br#"{"pod":{"spec":{"containers":[{"name":"a"}]}}}"#));
//! # Ok::<(), podplan_host::wasm::HostError>(())
//! ```

mod cache;
pub mod embedded;
mod engine;
mod error;
mod module;
mod planner;
mod slot;
pub mod verify;
pub mod wapc;

pub use cache::{compile, hex, CacheOutcome, ModuleCache};
pub use engine::{EngineSettings, HostEngine};
pub use error::HostError;
pub use module::{time_instantiation, AbiVersion, PlanModule, ABI_MAJOR};
pub use planner::{EngineArgs, EngineChoice, Planner};
pub use slot::{Generation, ModuleSlot, ShadowPolicy, SlotConfig, SlotStatus, SwapReport};
