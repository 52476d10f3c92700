//! The one wasmtime [`ResourceLimiter`] of the host's stores: the plan modules' (one
//! store per call or per warm instance, `module`) and the waPC policies' (`wapc`).

use wasmtime::{ResourceLimiter, StoreLimits, StoreLimitsBuilder};

/// Most table elements a module may have (the Rust modules use a few hundred).
const TABLE_LIMIT: usize = 100_000;

/// wasmtime's [`StoreLimits`] (memory, table elements, one instance, one memory, one
/// table), remembering whether the memory limit was hit so a trap can be reported as
/// [`super::HostError::MemoryLimit`].
#[derive(Debug)]
pub(super) struct Limiter {
    limits: StoreLimits,
    memory_limit: usize,
    hit: bool,
}

impl Limiter {
    /// A limiter allowing `memory_limit` bytes of linear memory.
    pub(super) fn new(memory_limit: usize) -> Self {
        let limits = StoreLimitsBuilder::new()
            .memory_size(memory_limit)
            .table_elements(TABLE_LIMIT)
            .instances(1)
            .memories(1)
            .tables(1)
            // A refused grow traps rather than returning -1, so a module that ignores
            // the failure and tries again cannot spin until the deadline.
            .trap_on_grow_failure(true)
            .build();
        Self {
            limits,
            memory_limit,
            hit: false,
        }
    }

    /// Whether a memory grow was refused.
    pub(super) fn hit(&self) -> bool {
        self.hit
    }

    /// The memory limit, in bytes.
    pub(super) fn memory_limit(&self) -> usize {
        self.memory_limit
    }
}

impl ResourceLimiter for Limiter {
    fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        let allowed = self.limits.memory_growing(current, desired, maximum);
        if !matches!(allowed, Ok(true)) {
            self.hit = true;
        }
        allowed
    }

    fn table_growing(
        &mut self,
        current: usize,
        desired: usize,
        maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        self.limits.table_growing(current, desired, maximum)
    }

    fn instances(&self) -> usize {
        self.limits.instances()
    }

    fn tables(&self) -> usize {
        self.limits.tables()
    }

    fn memories(&self) -> usize {
        self.limits.memories()
    }
}
