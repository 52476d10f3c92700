//! `--engine native|wasm` and `--module FILE`: the flags that pick the library's
//! [`Planner`].

use std::path::Path;

use clap::ValueEnum;
use podplan_host::wasm::{EngineSettings, ModuleCache, Planner};

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

/// Checks the `--engine`/`--module` combination and prepares the planner; a wasm
/// planner uses the default compiled-module cache.
pub fn planner(engine: EngineFlag, module: Option<&Path>) -> Result<Planner, CliError> {
    match (engine, module) {
        (EngineFlag::Native, None) => Ok(Planner::Native),
        (EngineFlag::Native, Some(_)) => {
            Err(CliError::usage("--module is only used with --engine wasm"))
        }
        (EngineFlag::Wasm, module) => Planner::wasm(
            module,
            ModuleCache::open_or_default(None),
            EngineSettings::default(),
        )
        .map_err(|e| CliError::usage(e.to_string())),
    }
}
