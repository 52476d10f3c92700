//! Shared helpers of the wasm host tests.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use podplan_wasmhost::{embedded, EngineSettings, HostEngine, ModuleCache};

/// The embedded plain-ABI module; `None` (the test is skipped, loudly) when the host
/// was built without it, unless `PODPLAN_REQUIRE_WASM` is set (CI), which fails instead.
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

/// A compiled-module cache shared by the test runs (compiling the module in a debug
/// build takes a while).
pub fn cache() -> ModuleCache {
    ModuleCache::new(PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("podplan-module-cache"))
        .unwrap()
}

/// An engine with small pools and the given deadline.
pub fn engine(deadline: Duration) -> Arc<HostEngine> {
    HostEngine::new(EngineSettings {
        deadline,
        max_instances: 16,
        ..EngineSettings::default()
    })
    .unwrap()
}

/// `bytes` plus a custom section: a different module (another SHA-256) that behaves the same.
pub fn variant(bytes: &[u8], tag: &str) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let name = b"podplan-test";
    let payload_len = 1 + name.len() + tag.len();
    out.push(0); // custom section id
    leb128(&mut out, payload_len);
    leb128(&mut out, name.len());
    out.extend_from_slice(name);
    out.extend_from_slice(tag.as_bytes());
    out
}

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
