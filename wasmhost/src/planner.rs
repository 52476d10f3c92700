//! [`Planner`]: the one choice of engine, the native core linked in or a wasm module
//! under wasmtime. Both speak the same contract; the CLI's `--engine native|wasm`
//! and `--module FILE` select one.

use std::path::Path;
use std::sync::Arc;

use podplan_core::{Plan, PlanError, PlanRequest};

use super::{
    answer, embedded, EngineSettings, HostEngine, HostError, ModuleCache, ModuleSlot, SlotConfig,
};

/// A plan request's JSON is a few KiB (the conformance corpus: 1 KiB on average; an
/// agent's request carries the runtime status too): start its buffer there rather than
/// growing it from nothing by doubling.
const TYPICAL_REQUEST_BYTES: usize = 4096;

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

    /// As [`Planner::plan_json`], with a failure of the wasm module itself (trap,
    /// deadline, memory limit) answered as the engine's `LimitExceeded` error envelope
    /// naming the cause (as [`Planner::plan_or_limit`] does), so a caller that passes
    /// answers on handles one kind: bytes. [`super::answer::is_error`] tells an error
    /// answer from a plan without decoding the plan.
    ///
    /// A module's answer is passed on as it is, after two cheap checks that keep the
    /// output well-formed line by line: it is a JSON object (it starts with a key) and it
    /// holds no newline (compact JSON never does). An answer that fails them is the
    /// module's failure too.
    #[must_use]
    pub fn plan_json_or_limit(&self, request: &[u8]) -> Vec<u8> {
        let Self::Wasm(slot) = self else {
            return podplan_core::plan_json(request);
        };
        let answer = slot.plan_json(request).and_then(|answer| {
            if answer::first_key(&answer).is_some() && !answer.contains(&b'\n') {
                Ok(answer)
            } else {
                Err(HostError::BadAnswer(
                    "the answer is not one JSON object on one line".to_string(),
                ))
            }
        });
        answer.unwrap_or_else(|e| podplan_core::api::answer_bytes(Err(module_failed(&e))))
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
                // One JSON pass each way: the request written into a buffer sized for a
                // typical request, the answer read straight into `Plan` (or the error
                // envelope), told apart by its first key (answer.rs).
                let mut bytes = Vec::with_capacity(TYPICAL_REQUEST_BYTES);
                serde_json::to_writer(&mut bytes, request).map_err(|e| {
                    HostError::BadAnswer(format!("cannot serialise the request: {e}"))
                })?;
                answer::decode(&slot.plan_json(&bytes)?)
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
            .unwrap_or_else(|e| Err(module_failed(&e)))
    }
}

/// A failure of the wasm module itself as the engine's `LimitExceeded` error.
fn module_failed(error: &HostError) -> PlanError {
    PlanError::limit("", format!("the wasm engine failed: {error}"))
}
