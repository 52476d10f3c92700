//! `--engine native|wasm`, `--module FILE` and `--isolation per-call|pooled`: the flags
//! that pick the library's [`Planner`].

use std::path::Path;

use clap::ValueEnum;
use podplan_wasmhost::{EngineSettings, Isolation, ModuleCache, Planner, WarmPool};

use super::exit::CliError;

/// The `--engine` flag's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineFlag {
    /// The engine compiled into this binary.
    Native,
    /// The podplan wasm module given with `--module` (default: the one built in), run
    /// under wasmtime.
    Wasm,
}

/// The `--isolation` flag's values: how calls into a wasm module are kept apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, ValueEnum)]
pub enum IsolationFlag {
    /// Warm instances are reused (recycled after many calls, on a memory bound, and after
    /// any failure): the fastest; a pure module leaks nothing between calls.
    #[default]
    Pooled,
    /// A fresh instance and fresh memory for every call: nothing a call leaves behind
    /// can reach the next, even from a buggy module; about twice the cost per call.
    PerCall,
}

impl From<IsolationFlag> for Isolation {
    fn from(flag: IsolationFlag) -> Self {
        match flag {
            IsolationFlag::Pooled => Isolation::Pooled(WarmPool::default()),
            IsolationFlag::PerCall => Isolation::PerCall,
        }
    }
}

/// Checks the `--engine`/`--module` combination and prepares the planner; a wasm
/// planner uses the default compiled-module cache and the given isolation.
pub fn planner(
    engine: EngineFlag,
    module: Option<&Path>,
    isolation: IsolationFlag,
) -> Result<Planner, CliError> {
    match (engine, module) {
        (EngineFlag::Native, None) => Ok(Planner::Native),
        (EngineFlag::Native, Some(_)) => {
            Err(CliError::usage("--module is only used with --engine wasm"))
        }
        (EngineFlag::Wasm, module) => Planner::wasm(
            module,
            ModuleCache::open_or_default(None),
            EngineSettings {
                isolation: isolation.into(),
                ..EngineSettings::default()
            },
        )
        .map_err(|e| CliError::usage(e.to_string())),
    }
}

/// The engine flags as one group (`#[command(flatten)]`): `--engine`, `--module`,
/// `--isolation`.
#[derive(Debug, Clone, clap::Args)]
pub struct EngineArgs {
    /// The engine: `native` (compiled in) or `wasm` (the podplan module under wasmtime).
    #[arg(long, value_enum, default_value_t = EngineFlag::Native)]
    pub engine: EngineFlag,
    /// The wasm module for `--engine wasm` (default: the one built in).
    #[arg(long, value_name = "FILE")]
    pub module: Option<std::path::PathBuf>,
    /// How calls into a wasm module are kept apart.
    #[arg(long, value_enum, default_value_t = IsolationFlag::Pooled)]
    pub isolation: IsolationFlag,
}

impl EngineArgs {
    /// The planner these flags select.
    pub fn planner(&self) -> Result<Planner, CliError> {
        planner(self.engine, self.module.as_deref(), self.isolation)
    }
}
