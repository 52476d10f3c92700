//! The plain ABI (see `ABI.md`): five exports, no imports.
//!
//! Memory is handed across the boundary as `(ptr, len)` pairs of bytes in the module's
//! linear memory. Buffers are byte arrays (alignment 1); a zero length never allocates.
//! Everything else is `podplan_core::plan_json`.

// One of the two places in the workspace that use `unsafe` (see the root Cargo.toml):
// exporting a raw memory interface means building slices from pointers the host passes
// in and allocating/freeing on its behalf. Each block states what it relies on.
#![expect(
    unsafe_code,
    reason = "the plain ABI hands raw pointers across the wasm boundary"
)]

use std::alloc::{alloc, dealloc, Layout};

/// `major << 16 | minor`: hosts refuse a module whose major they do not speak.
#[no_mangle]
pub extern "C" fn podplan_abi_version() -> u32 {
    crate::ABI_VERSION
}

/// Allocates `len` bytes for the host to write a request into. Returns 0 for `len == 0`
/// and when the allocation fails.
#[no_mangle]
pub extern "C" fn podplan_alloc(len: u32) -> u32 {
    let Ok(layout) = Layout::array::<u8>(len as usize) else {
        return 0;
    };
    if layout.size() == 0 {
        return 0;
    }
    // SAFETY: the layout has a non-zero size. A null result (out of memory) becomes 0.
    unsafe { alloc(layout) as u32 }
}

/// Frees `len` bytes at `ptr` that came from `podplan_alloc(len)` or from an answer of
/// `podplan_plan`. Does nothing for `ptr == 0` or `len == 0`.
///
/// # Safety
///
/// `ptr`/`len` must describe a live buffer handed out by this module, freed once.
#[no_mangle]
pub unsafe extern "C" fn podplan_free(ptr: u32, len: u32) {
    let Ok(layout) = Layout::array::<u8>(len as usize) else {
        return;
    };
    if ptr == 0 || layout.size() == 0 {
        return;
    }
    // SAFETY: the caller passes a buffer this module allocated with this very layout
    // (answers are boxed byte slices, whose layout is `[u8; len]` too).
    unsafe { dealloc(ptr as *mut u8, layout) }
}

/// Plans the request in `len` bytes at `ptr` (JSON, as for `podplan_core::plan_json`)
/// and returns the answer as `ptr << 32 | len`. The request buffer stays the host's;
/// the answer buffer is the host's to free with `podplan_free`.
///
/// # Safety
///
/// `ptr`/`len` must describe `len` initialised bytes in this module's memory
/// (for `len == 0`, `ptr` is ignored).
#[no_mangle]
pub unsafe extern "C" fn podplan_plan(ptr: u32, len: u32) -> u64 {
    // SAFETY: as required of the caller above.
    unsafe { answer(ptr, len, podplan_core::plan_json) }
}

/// `podplan_core::complete_json` (ABI 1.1): `{request, sandboxStatus}` in, the plan
/// completed from the new sandbox's status out; same buffer rules as `podplan_plan`.
///
/// # Safety
///
/// As for [`podplan_plan`].
#[no_mangle]
pub unsafe extern "C" fn podplan_complete(ptr: u32, len: u32) -> u64 {
    // SAFETY: as required of the caller above.
    unsafe { answer(ptr, len, podplan_core::complete_json) }
}

/// Runs `f` on the request bytes at `ptr`/`len` and hands the answer over.
///
/// # Safety
///
/// As for [`podplan_plan`].
unsafe fn answer(ptr: u32, len: u32, f: fn(&[u8]) -> Vec<u8>) -> u64 {
    let request: &[u8] = if len == 0 || ptr == 0 {
        &[]
    } else {
        // SAFETY: the host wrote `len` bytes at `ptr` (from `podplan_alloc(len)`).
        unsafe { std::slice::from_raw_parts(ptr as *const u8, len as usize) }
    };
    let answer = f(request).into_boxed_slice();
    let answer_len = answer.len() as u32;
    if answer_len == 0 {
        return 0;
    }
    let answer_ptr = Box::into_raw(answer) as *mut u8 as u32;
    crate::pack(answer_ptr, answer_len)
}
