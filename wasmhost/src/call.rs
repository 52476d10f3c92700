//! One call of the ABI (`wasm/ABI.md`) on an instance: allocate the request in the
//! module's memory, plan it, bounds-check and copy the answer out.

use wasmtime::{Instance, Memory, Store, TypedFunc};

use super::module::{classify, CallState, Exports};
use super::HostError;

/// An instance's ABI functions, typed.
pub(super) struct AbiFuncs {
    memory: Memory,
    alloc: TypedFunc<u32, u32>,
    free: TypedFunc<(u32, u32), ()>,
    plan: TypedFunc<(u32, u32), u64>,
}

/// What one call left in the module's memory, for a host that frees it.
pub(super) struct Call {
    /// The answer, copied out.
    pub answer: Vec<u8>,
    /// The request buffer (`0` when the request was empty).
    pub request: (u32, u32),
    /// The answer buffer, as the module returned it.
    pub answer_buffer: (u32, u32),
}

impl AbiFuncs {
    /// Looks the exports up on `instance` (the module's export types were checked at
    /// load).
    pub(super) fn lookup(
        store: &mut Store<CallState>,
        instance: &Instance,
        exports: &Exports,
    ) -> Result<Self, HostError> {
        let memory = instance
            .get_module_export(&mut *store, &exports.memory)
            .and_then(|e| e.into_memory())
            .ok_or(HostError::Export {
                name: "memory",
                want: "memory",
            })?;
        let alloc = instance
            .get_module_export(&mut *store, &exports.alloc)
            .and_then(|e| e.into_func())
            .and_then(|f| f.typed::<u32, u32>(&*store).ok())
            .ok_or(HostError::Export {
                name: "podplan_alloc",
                want: "func (i32) -> i32",
            })?;
        let free = instance
            .get_module_export(&mut *store, &exports.free)
            .and_then(|e| e.into_func())
            .and_then(|f| f.typed::<(u32, u32), ()>(&*store).ok())
            .ok_or(HostError::Export {
                name: "podplan_free",
                want: "func (i32, i32)",
            })?;
        let plan = instance
            .get_module_export(&mut *store, &exports.plan)
            .and_then(|e| e.into_func())
            .and_then(|f| f.typed::<(u32, u32), u64>(&*store).ok())
            .ok_or(HostError::Export {
                name: "podplan_plan",
                want: "func (i32, i32) -> i64",
            })?;
        Ok(Self {
            memory,
            alloc,
            free,
            plan,
        })
    }

    /// Plans `request`: JSON bytes in, the answer bytes out.
    pub(super) fn plan(
        &self,
        store: &mut Store<CallState>,
        request: &[u8],
        memory_limit: usize,
    ) -> Result<Call, HostError> {
        let len =
            u32::try_from(request.len()).map_err(|_| HostError::RequestTooLarge(request.len()))?;
        let ptr = if len == 0 {
            0
        } else {
            let ptr = self
                .alloc
                .call(&mut *store, len)
                .map_err(|e| classify(store, &e))?;
            if ptr == 0 {
                return Err(HostError::MemoryLimit {
                    limit_bytes: memory_limit,
                });
            }
            self.memory
                .write(&mut *store, ptr as usize, request)
                .map_err(|_| {
                    HostError::BadAnswer(format!(
                        "podplan_alloc({len}) returned {ptr}, outside memory"
                    ))
                })?;
            ptr
        };
        let packed = self
            .plan
            .call(&mut *store, (ptr, len))
            .map_err(|e| classify(store, &e))?;
        let (answer_ptr, answer_len) = podplan_unpack(packed);
        let data = self.memory.data(&*store);
        let start = answer_ptr as usize;
        let answer = data
            .get(start..start.saturating_add(answer_len as usize))
            .map(<[u8]>::to_vec)
            .ok_or_else(|| {
                HostError::BadAnswer(format!(
                    "answer at {answer_ptr} of {answer_len} bytes is outside the module's {} bytes of memory",
                    data.len()
                ))
            })?;
        Ok(Call {
            answer,
            request: (ptr, len),
            answer_buffer: (answer_ptr, answer_len),
        })
    }

    /// Hands a call's buffers back to the module's allocator.
    pub(super) fn free(&self, store: &mut Store<CallState>, call: &Call) -> Result<(), HostError> {
        for (ptr, len) in [call.answer_buffer, call.request] {
            if ptr != 0 && len != 0 {
                self.free
                    .call(&mut *store, (ptr, len))
                    .map_err(|e| classify(store, &e))?;
            }
        }
        Ok(())
    }

    /// The module's current linear memory size in bytes.
    pub(super) fn memory_size(&self, store: &Store<CallState>) -> usize {
        self.memory.data_size(store)
    }
}

/// `ptr << 32 | len` → `(ptr, len)`.
fn podplan_unpack(packed: u64) -> (u32, u32) {
    ((packed >> 32) as u32, (packed & 0xffff_ffff) as u32)
}
