//! The CLI's entry point to the engines: `--engine native|wasm` and `--module FILE`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use podplan_core::{Plan, PlanError, PlanRequest};

use super::{embedded, EngineSettings, HostEngine, HostError, ModuleCache, ModuleSlot, SlotConfig};

/// Which engine computes plans.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum EngineChoice {
    /// The core compiled into this binary.
    #[default]
    Native,
    /// The wasm module (built in, or `--module FILE`) under wasmtime.
    Wasm,
}

/// Command-line options selecting the engine; `#[command(flatten)]` them into a command.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct EngineArgs {
    /// Which engine computes the plans.
    #[arg(long, value_enum, default_value_t = EngineChoice::Native)]
    pub engine: EngineChoice,
    /// The plain-ABI wasm module to run with `--engine wasm` (default: the one built in).
    #[arg(long, value_name = "FILE")]
    pub module: Option<PathBuf>,
    /// Directory of compiled modules (default: $PODPLAN_CACHE_DIR or ~/.cache/podplan/modules).
    #[arg(long, value_name = "DIR")]
    pub module_cache: Option<PathBuf>,
    /// Compile the module every time; no on-disk cache.
    #[arg(long)]
    pub no_module_cache: bool,
}

/// A ready engine: the native core, or a wasm module in a [`ModuleSlot`].
#[derive(Debug, Clone)]
pub enum Planner {
    /// `podplan_core` linked in.
    Native,
    /// A module under wasmtime.
    Wasm(Arc<ModuleSlot>),
}

impl Planner {
    /// The planner the options ask for.
    ///
    /// # Errors
    ///
    /// Loading the module (missing file, not a plan module, failed self-test), or
    /// [`HostError::NoEmbeddedModule`]. `--module` with `--engine native` is a usage
    /// error the CLI reports itself (see [`EngineArgs::conflict`]).
    pub fn from_args(args: &EngineArgs) -> Result<Self, HostError> {
        match args.engine {
            EngineChoice::Native => Ok(Self::Native),
            EngineChoice::Wasm => {
                let cache = if args.no_module_cache {
                    None
                } else {
                    args.module_cache
                        .clone()
                        .or_else(ModuleCache::default_dir)
                        .and_then(|dir| {
                            ModuleCache::new(&dir)
                                .inspect_err(|e| tracing::warn!("module cache disabled: {e}"))
                                .ok()
                        })
                };
                Self::wasm(args.module.as_deref(), cache, EngineSettings::default())
            }
        }
    }

    /// A wasm planner running `module` (or the built-in module).
    ///
    /// # Errors
    ///
    /// As [`Planner::from_args`].
    pub fn wasm(
        module: Option<&Path>,
        cache: Option<ModuleCache>,
        settings: EngineSettings,
    ) -> Result<Self, HostError> {
        let engine = HostEngine::new(settings)?;
        let (bytes, source) = match module {
            Some(path) => (
                std::fs::read(path).map_err(|e| HostError::io(path, &e))?,
                path.display().to_string(),
            ),
            None => (embedded::module_bytes()?.to_vec(), "embedded".to_string()),
        };
        let slot = ModuleSlot::new(engine, cache, SlotConfig::default(), &bytes, &source)?;
        Ok(Self::Wasm(Arc::new(slot)))
    }

    /// JSON request bytes in, the answer bytes out (a plan, or `{"error": ...}` for bad
    /// input, exactly as `podplan_core::plan_json`).
    ///
    /// # Errors
    ///
    /// Only for the wasm engine: the module failed (trap, deadline, memory limit).
    pub fn plan_json(&self, request: &[u8]) -> Result<Vec<u8>, HostError> {
        match self {
            Self::Native => Ok(podplan_core::plan_json(request)),
            Self::Wasm(slot) => slot.plan_json(request),
        }
    }

    /// The typed call: a request in, the plan or the engine's structured error out.
    ///
    /// # Errors
    ///
    /// The outer error is the host's (the module failed, or answered something that is
    /// neither a plan nor an error); the inner one is the engine's answer to bad input.
    pub fn plan(&self, request: &PlanRequest) -> Result<Result<Plan, PlanError>, HostError> {
        match self {
            Self::Native => Ok(podplan_core::plan(request)),
            Self::Wasm(slot) => {
                let bytes = serde_json::to_vec(request).map_err(|e| {
                    HostError::BadAnswer(format!("cannot serialise the request: {e}"))
                })?;
                let answer = slot.plan_json(&bytes)?;
                #[derive(serde::Deserialize)]
                #[serde(untagged)]
                enum Answer {
                    Error { error: PlanError },
                    Plan(Box<Plan>),
                }
                match serde_json::from_slice::<Answer>(&answer) {
                    Ok(Answer::Plan(plan)) => Ok(Ok(*plan)),
                    Ok(Answer::Error { error }) => Ok(Err(error)),
                    Err(e) => Err(HostError::BadAnswer(format!(
                        "the answer is neither a plan nor an error: {e}"
                    ))),
                }
            }
        }
    }
}

impl EngineArgs {
    /// A usage problem with the combination of options, if any.
    #[must_use]
    pub fn conflict(&self) -> Option<&'static str> {
        (self.engine == EngineChoice::Native && self.module.is_some())
            .then_some("--module is only used with --engine wasm")
    }
}
