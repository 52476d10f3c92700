//! podplan-host: the wasmtime embedding and the playground server behind the `podplan`
//! CLI (whose command line lives in the binary, `src/cli/`).
//!
//! - [`wasm`]: runs podplan's wasm module under wasmtime, with limits, a compiled-module
//!   cache and hot swap; [`wasm::Planner`] is the one engine choice (native core or a
//!   module), [`wasm::ModuleWatcher`] feeds a module file to a [`wasm::ModuleSlot`].
//! - [`admission`]: AdmissionReview in, AdmissionReview out, through the core's lint.
//! - [`playground`]: the server of `podplan playground`, the embedded browser playground.
//! - [`runtime_sim`]: the simulated CRI runtime (`podplan runtime-sim`, or in process):
//!   the core's runtime model behind tonic `RuntimeService`/`ImageService` servers.
//! - [`webhook`]: the HTTPS admission webhook of `podplan webhook`.

pub mod admission;
pub mod agent;
pub mod playground;
pub mod runtime_sim;
pub mod wasm;
pub mod webhook;
pub mod yaml;
