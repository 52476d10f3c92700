//! [`Planner`]: the one choice of engine, the native core linked in or a wasm module
//! under wasmtime. Both speak the same contract; the CLI's `--engine native|wasm`
//! and `--module FILE` select one.

use std::path::Path;
use std::sync::Arc;

use podplan_core::{Plan, PlanError, PlanRequest};

use super::{embedded, EngineSettings, HostEngine, HostError, ModuleCache, ModuleSlot, SlotConfig};

/// A ready engine: the native core, or a wasm module in a [`ModuleSlot`].
#[derive(Debug, Clone)]
pub enum Planner {
    /// `podplan_core` linked in.
    Native,
    /// A module under wasmtime.
    Wasm(Arc<ModuleSlot>),
}

impl Planner {
    /// A wasm planner running the module file `module` (or the built-in module when
    /// `None`), with compiled code from `cache` when given.
    ///
    /// # Errors
    ///
    /// Loading the module (missing file, not a plan module, failed self-test), or
    /// [`HostError::NoEmbeddedModule`].
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

    /// As [`Planner::plan`], with a failure of the wasm module itself (trap, deadline,
    /// memory limit, a malformed answer) reported as the engine's `LimitExceeded` error
    /// naming the cause, so a caller handles one error type.
    ///
    /// # Errors
    ///
    /// The engine's answer to bad input, or the module's failure as `LimitExceeded`.
    pub fn plan_or_limit(&self, request: &PlanRequest) -> Result<Plan, PlanError> {
        self.plan(request)
            .unwrap_or_else(|e| Err(PlanError::limit("", format!("the wasm engine failed: {e}"))))
    }
}
