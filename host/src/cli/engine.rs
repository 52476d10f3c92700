//! Which engine computes the plans: the native core linked into this binary, or the
//! wasm module run under wasmtime (`podplan_host::wasm`). Both speak the same contract.

use std::path::Path;

use clap::ValueEnum;
use podplan_core::{Plan, PlanError, PlanRequest};

use super::exit::CliError;

/// The `--engine` choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// The engine compiled into this binary.
    Native,
    /// The podplan wasm module given with `--module`, run under wasmtime.
    Wasm,
}

/// A ready-to-use engine.
#[derive(Debug, Clone)]
pub enum Engine {
    /// `podplan_core` linked in.
    Native,
    /// The wasm module under wasmtime.
    Wasm(podplan_host::wasm::Planner),
}

impl Engine {
    /// Checks the `--engine`/`--module` combination and prepares the engine.
    pub fn select(kind: EngineKind, module: Option<&Path>) -> Result<Self, CliError> {
        match (kind, module) {
            (EngineKind::Native, None) => Ok(Self::Native),
            (EngineKind::Native, Some(_)) => {
                Err(CliError::usage("--module is only used with --engine wasm"))
            }
            // Without --module, the module built into this binary.
            (EngineKind::Wasm, module) => {
                let args = podplan_host::wasm::EngineArgs {
                    engine: podplan_host::wasm::EngineChoice::Wasm,
                    module: module.map(Path::to_path_buf),
                    ..Default::default()
                };
                podplan_host::wasm::Planner::from_args(&args)
                    .map(Self::Wasm)
                    .map_err(|e| CliError::usage(e.to_string()))
            }
        }
    }

    /// Plans one typed request. A failure of the wasm module itself (trap, deadline,
    /// memory limit) is reported as a `LimitExceeded` error naming the cause.
    pub fn plan(&self, request: &PlanRequest) -> Result<Plan, PlanError> {
        match self {
            Self::Native => podplan_core::plan(request),
            Self::Wasm(planner) => planner.plan(request).unwrap_or_else(|e| {
                Err(PlanError::limit("", format!("the wasm engine failed: {e}")))
            }),
        }
    }
}
