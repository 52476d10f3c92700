//! # podplan-testsupport
//!
//! Test support shared by podplan's crates; a dev-dependency only, never published.
//!
//! - [`corpus`]: the request corpus every runner of the engine is checked on (the native
//!   core, the wasm module under wasmtime in `podplan-wasmhost`'s tests, the JS build under
//!   Node through `podplan-wasm`'s `native-plans` example).
//! - [`manifests`]: static-pod manifests the agent's tests share.
//! - [`reviews`]: AdmissionReviews the webhook's tests send.
//! - [`served`]: a plain-HTTP server on 127.0.0.1 whose answer a test sets
//!   (`--manifest-url`).
//! - `https` (feature `https`): throwaway certificates and an HTTPS client for the
//!   webhook's tests.
//! - [`test_data`]: a file of the repository's `test_data/`.
//!
//! What this crate may depend on: `podplan-core` and light crates only, never
//! `podplan-wasmhost`, `podplan-agent` or `podplan-admission` (that would put wasmtime
//! under every test build that uses it). Helpers that need the wasm engine are
//! `podplan_wasmhost::testing` (its feature `testing`); helpers that need one crate's
//! types stay in that crate's `tests/`.

pub mod corpus;
#[cfg(feature = "https")]
pub mod https;
pub mod manifests;
pub mod reviews;
pub mod served;

/// The bytes of `test_data/<path>` (the repository's shared test data).
///
/// # Panics
///
/// When the file cannot be read.
#[must_use]
#[expect(
    clippy::panic,
    reason = "a test fixture: a missing file fails the test"
)]
pub fn test_data(path: &str) -> Vec<u8> {
    let file = corpus::repo_root().join("test_data").join(path);
    std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}
