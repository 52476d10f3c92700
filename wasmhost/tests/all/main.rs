//! podplan-wasmhost's integration tests, in one binary (one link of wasmtime), a module
//! per area:
//!
//! - [`wasm_host`]: the embedded module under wasmtime against the native core; hostile
//!   modules; the compiled-module cache.
//! - [`wasm_slot`]: hot swap, rollback, shadow runs, the module-file watcher.
//! - [`support`]: helpers of the wasm tests.
//!
//! The CLI's wasm hooks (`plan --engine wasm`, `serve-module`) are tested with the binary,
//! in podplan-host's `tests/all/wasm_cli.rs`.

// An integration test is always built with `cfg(test)`; saying so on the modules makes
// clippy treat their helpers as test code too, so clippy.toml's `allow-*-in-tests`
// (unwrap, expect, panic, indexing) covers them, not only the `#[test]` functions.
#[cfg(test)]
mod support;
#[cfg(test)]
mod wasm_host;
#[cfg(test)]
mod wasm_slot;
