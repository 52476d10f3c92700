//! podplan-host: the `podplan` CLI, the wasmtime embedding and the node agent.
//!
//! - [`wasm`]: runs podplan's wasm module under wasmtime, with limits, a compiled-module
//!   cache and hot swap; [`wasm::Planner`] is the CLI's `--engine native|wasm` switch.
//! - [`admission`]: AdmissionReview in, AdmissionReview out, through the core's lint.
//! - [`cli_serve_module`]: the `podplan serve-module --watch FILE` command.
//! - [`playground`]: `podplan playground`, the embedded browser playground.

pub mod admission;
pub mod cli_serve_module;
pub mod playground;
pub mod wasm;
