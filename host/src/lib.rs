//! podplan-host: the wasmtime embedding and the playground server behind the `podplan`
//! CLI (whose command line lives in the binary, `src/cli/`).
//!
//! - [`wasm`]: runs podplan's wasm module under wasmtime, with limits, a compiled-module
//!   cache and hot swap; [`wasm::Planner`] is the one engine choice (native core or a
//!   module), [`wasm::ModuleWatcher`] feeds a module file to a [`wasm::ModuleSlot`].
//! - [`admission`]: AdmissionReview in, AdmissionReview out, through the core's lint.
//! - [`playground`]: the server of `podplan playground`, the embedded browser playground.
//! - [`webhook`]: the HTTPS admission webhook of `podplan webhook`.

pub mod admission;
pub mod playground;
pub mod wasm;
pub mod webhook;
