//! Helpers of the wasm host tests: the shared ones from `podplan_wasmhost::testing` (the
//! embedded module, an engine, module variants), a module cache under this build's
//! temporary directory, and hand-written ABI modules.

use std::path::Path;

use podplan_wasmhost::ModuleCache;

pub use podplan_wasmhost::testing::{engine, module, variant};

/// A compiled-module cache shared by the test runs (compiling the module in a debug
/// build takes a while).
pub fn cache() -> ModuleCache {
    podplan_wasmhost::testing::cache(Path::new(env!("CARGO_TARGET_TMPDIR")))
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
