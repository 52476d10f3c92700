//! # podplan-testsupport
//!
//! Test support shared by podplan's crates; a dev-dependency only, never published.
//!
//! - [`corpus`]: the request corpus every runner of the engine is checked on (the native
//!   core, the wasm module under wasmtime in `podplan-wasmhost`'s tests, the JS build under
//!   Node through `podplan-wasm`'s `native-plans` example).

pub mod corpus;
