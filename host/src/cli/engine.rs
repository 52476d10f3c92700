//! `--engine native|wasm`, `--module FILE` and `--isolation per-call|pooled`: the flags
//! that pick the library's [`Planner`].

use std::path::Path;

use clap::ValueEnum;
use podplan_host::wasm::{EngineSettings, Isolation, ModuleCache, Planner, WarmPool};

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
