//! Which engine computes the plans: the native core linked into this binary, or (once
//! it is built in) the wasm module run under wasmtime. Both speak the same contract.

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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// `podplan_core` linked in.
    Native,
}

impl Engine {
    /// Checks the `--engine`/`--module` combination and prepares the engine.
    pub fn select(kind: EngineKind, module: Option<&Path>) -> Result<Self, CliError> {
        match (kind, module) {
            (EngineKind::Native, None) => Ok(Self::Native),
            (EngineKind::Native, Some(_)) => {
                Err(CliError::usage("--module is only used with --engine wasm"))
            }
            (EngineKind::Wasm, None) => Err(CliError::usage(
                "--engine wasm needs the module to run: --module FILE",
            )),
            (EngineKind::Wasm, Some(_)) => Err(CliError::usage(
                "the wasm engine is not built into this podplan binary yet; \
                 use --engine native (the default)",
            )),
        }
    }

    /// Plans one typed request.
    pub fn plan(self, request: &PlanRequest) -> Result<Plan, PlanError> {
        match self {
            Self::Native => podplan_core::plan(request),
        }
    }
}
