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

/// A hand-written ABI module: `version` from `podplan_abi_version`, `plan_body` as the
/// body of `podplan_plan (param $ptr i32) (param $len i32) (result i64)`, an `answer`
/// string at offset 16, and a bump allocator from offset 4096 in one page.
pub fn abi_module(version: u32, plan_body: &str, answer: &str) -> Vec<u8> {
    let escaped: String = answer.bytes().map(|b| format!("\\{b:02x}")).collect();
    let wat = format!(
        r#"(module
  (memory (export "memory") 1)
  (global $next (mut i32) (i32.const 4096))
  (func (export "podplan_abi_version") (result i32) (i32.const {version}))
  (func (export "podplan_alloc") (param $len i32) (result i32) (local $p i32)
    (local.set $p (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get $len)))
    (local.get $p))
  (func (export "podplan_free") (param i32 i32))
  (func (export "podplan_plan") (param $ptr i32) (param $len i32) (result i64)
    {plan_body})
  (data (i32.const 16) "{escaped}"))"#
    );
    wat::parse_str(wat).unwrap()
}

/// The body that answers the fixed `answer` string.
pub fn fixed_answer_body(answer: &str) -> String {
    format!(
        "(i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const {}))",
        answer.len()
    )
}
