//! Bounds on hostile input. Everything the engine allocates is proportional to the
//! input, and the input itself is bounded here.

/// Largest accepted request document, in bytes.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// Deepest accepted JSON nesting: serde_json's own recursion limit (128), which turns
/// deeper input into an error before it can exhaust the stack.
pub const MAX_DEPTH: usize = 128;

/// Most containers of one kind (init, regular, ephemeral) in one pod.
pub(crate) const MAX_CONTAINERS: usize = 1024;

/// Most runtime container statuses or sandbox statuses in one request.
pub(crate) const MAX_STATUSES: usize = 16384;

/// Most crash-loop back-off records in one request.
pub(crate) const MAX_BACKOFF_RECORDS: usize = 16384;
