//! # podplan-wasm
//!
//! `podplan-core`'s one JSON call/answer API as WebAssembly, in two flavours built from
//! this crate (see `scripts/build-wasm`):
//!
//! - **JS build** (cargo feature `js`): wasm-bindgen exports `plan(request)` (a JS object
//!   in, a JS object out), `planJson(string)` and `version()`, for browsers and Node, and
//!   the runtime-model and crictl calls of [`podplan_core::api::calls`] (`simApply`,
//!   `simStep`, `simEvent`, `crictl`, each also as `…Json` on text), and `complete`.
//! - **Plan-only JS build** (cargo feature `js-plan`, implied by `js`): the same
//!   wasm-bindgen module with `plan`, `planJson` and `version` only, for a browser's
//!   first paint; the linker drops everything the other calls need.
//! - **Plain ABI build** (no feature): a module with no imports at all, for wasmtime and
//!   any other host; the exports are described in `ABI.md`.
//!
//! Neither flavour adds logic: every answer is what a call of [`podplan_core::api`] (its
//! module docs hold the call table) gives for the same input: [`podplan_core::plan_json`],
//! [`podplan_core::complete_json`], or the JSON forms of [`podplan_core::api::calls`].
//!
//! ```
//! // What both flavours wrap (the native call):
//! let answer = podplan_core::plan_json(b"{}");
//! assert!(!answer.is_empty());
//! assert_eq!(podplan_wasm::ABI_VERSION >> 16, podplan_wasm::ABI_MAJOR);
//! ```

#[cfg(all(target_arch = "wasm32", not(feature = "js-plan")))]
mod abi;
#[cfg(feature = "js-plan")]
mod js;

/// Major version of the plain ABI (see `ABI.md`): bumped on every breaking change.
pub const ABI_MAJOR: u32 = 1;
/// Minor version of the plain ABI: bumped on additive, backwards-compatible changes.
pub const ABI_MINOR: u32 = 1;
/// The value `podplan_abi_version()` returns: `major << 16 | minor`.
pub const ABI_VERSION: u32 = (ABI_MAJOR << 16) | ABI_MINOR;

/// Packs an answer's address and length into the `u64` that `podplan_plan` returns:
/// the pointer in the high 32 bits, the length in the low 32 bits.
///
/// ```
/// assert_eq!(podplan_wasm::pack(0x10, 3), 0x10_0000_0003);
/// assert_eq!(podplan_wasm::unpack(podplan_wasm::pack(7, 9)), (7, 9));
/// ```
#[must_use]
pub const fn pack(ptr: u32, len: u32) -> u64 {
    ((ptr as u64) << 32) | len as u64
}

/// Splits a packed answer into `(ptr, len)` (the inverse of [`pack`]).
#[must_use]
pub const fn unpack(packed: u64) -> (u32, u32) {
    ((packed >> 32) as u32, packed as u32)
}
