//! Helpers for the tests of the crates that run the wasm module (podplan-wasmhost,
//! podplan-agent, podplan-admission, podplan-host) and for this crate's examples; behind
//! the feature `testing`, which only dev-dependencies turn on. Not part of the stable API.
//!
//! They live here, not in `podplan-testsupport`, because they need the engine: that crate
//! stays free of wasmtime, so the tests that need no module do not build it.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::{embedded, EngineSettings, HostEngine, ModuleCache};

/// The embedded plain-ABI module; `None` (the test is skipped, loudly) when the host
/// was built without it, unless `PODPLAN_REQUIRE_WASM` is set (CI), which fails instead.
///
/// # Panics
///
/// Without the module when `PODPLAN_REQUIRE_WASM` is set.
#[must_use]
#[expect(clippy::panic, reason = "a missing module fails the test in CI")]
pub fn module() -> Option<&'static [u8]> {
    match embedded::module_bytes() {
        Ok(bytes) => Some(bytes),
        Err(e) if std::env::var_os("PODPLAN_REQUIRE_WASM").is_some() => {
            panic!("{e} (PODPLAN_REQUIRE_WASM is set)")
        }
        Err(e) => {
            eprintln!("SKIPPED: {e}");
            None
        }
    }
}

/// A compiled-module cache in `dir/podplan-module-cache`, shared by the test runs that
/// pass the same `dir` (compiling the module in a debug build takes a while).
///
/// # Panics
///
/// When the cache directory cannot be made.
#[must_use]
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
pub fn cache(dir: &Path) -> ModuleCache {
    ModuleCache::new(dir.join("podplan-module-cache")).expect("a module cache")
}

/// An engine with small pools and the given deadline.
///
/// # Panics
///
/// When the engine cannot be made.
#[must_use]
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
pub fn engine(deadline: Duration) -> Arc<HostEngine> {
    HostEngine::new(EngineSettings {
        deadline,
        max_instances: 16,
        ..EngineSettings::default()
    })
    .expect("a wasm engine")
}

/// `bytes` plus a custom section `podplan-test` holding `tag`: a different module (another
/// SHA-256) that behaves the same.
#[must_use]
pub fn variant(bytes: &[u8], tag: &str) -> Vec<u8> {
    with_custom_section(bytes, "podplan-test", tag.as_bytes())
}

/// `bytes` with a custom section `name` holding `payload` appended.
#[must_use]
pub fn with_custom_section(bytes: &[u8], name: &str, payload: &[u8]) -> Vec<u8> {
    let mut section = Vec::new();
    leb128(&mut section, name.len());
    section.extend_from_slice(name.as_bytes());
    section.extend_from_slice(payload);
    let mut out = bytes.to_vec();
    out.push(0); // custom section id
    leb128(&mut out, section.len());
    out.extend_from_slice(&section);
    out
}

/// `n` as unsigned LEB128 (a wasm section's sizes).
fn leb128(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A waPC guest (`wapc_init`, `__guest_call`) whose `__guest_call` has the body `body`
/// in WAT, e.g. `unreachable` (a trap) or a loop (past the deadline).
///
/// # Panics
///
/// When the WAT does not parse.
#[must_use]
#[expect(clippy::expect_used, reason = "a test fixture: bad WAT fails the test")]
pub fn wapc_guest(body: &str) -> Vec<u8> {
    wat::parse_str(format!(
        r#"(module
          (memory (export "memory") 1)
          (func (export "wapc_init"))
          (func (export "__guest_call") (param i32 i32) (result i32) {body}))"#
    ))
    .expect("the guest's WAT")
}
