//! Warm instances for [`Isolation::Pooled`](super::Isolation::Pooled): a call takes an
//! idle instance (or starts one), runs with a fresh deadline, frees its buffers in the
//! module, and puts the instance back unless it failed or reached a recycling limit.

use std::sync::{Mutex, PoisonError};

use wasmtime::Store;

use super::call::AbiFuncs;
use super::module::CallState;
use super::{HostError, PlanModule, WarmPool};

/// One warm instance: its store, its typed ABI functions, and how many calls it served.
struct Warm {
    store: Store<CallState>,
    funcs: AbiFuncs,
    calls: u32,
}

/// The idle warm instances of one module.
#[derive(Default)]
pub(super) struct WarmInstances {
    idle: Mutex<Vec<Warm>>,
}

impl WarmInstances {
    /// Plans `request` on a warm instance of `module`.
    pub(super) fn plan_json(
        &self,
        module: &PlanModule,
        limits: &WarmPool,
        request: &[u8],
    ) -> Result<Vec<u8>, HostError> {
        let settings = module.engine().settings();
        let mut warm = match self.take() {
            Some(mut warm) => {
                warm.store.set_epoch_deadline(settings.deadline_ticks());
                warm
            }
            None => {
                let (mut store, instance) = module.instantiate()?;
                let funcs = AbiFuncs::lookup(&mut store, &instance, module.exports())?;
                Warm {
                    store,
                    funcs,
                    calls: 0,
                }
            }
        };
        // Any error drops `warm`: an instance whose call failed is never reused.
        let call = warm
            .funcs
            .plan(&mut warm.store, request, settings.memory_limit)?;
        if let Err(err) = warm.funcs.free(&mut warm.store, &call) {
            // The answer was read already; only the instance is unusable.
            tracing::warn!(error = %err, "podplan_free failed; the instance is dropped");
            return Ok(call.answer);
        }
        warm.calls = warm.calls.saturating_add(1);
        if warm.calls < limits.max_calls && warm.funcs.memory_size(&warm.store) <= limits.max_memory
        {
            self.give_back(warm, limits.max_idle);
        }
        Ok(call.answer)
    }

    fn take(&self) -> Option<Warm> {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
    }

    fn give_back(&self, warm: Warm, max_idle: usize) {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < max_idle {
            idle.push(warm);
        }
        // else: dropped after the lock is released (it is declared before the guard).
    }

    /// Drops every idle instance.
    pub(super) fn clear(&self) {
        let drained: Vec<Warm> =
            std::mem::take(&mut *self.idle.lock().unwrap_or_else(PoisonError::into_inner));
        drop(drained);
    }

    /// How many idle instances are kept.
    pub(super) fn idle(&self) -> usize {
        self.idle
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[cfg(test)]
mod tests {

    use std::sync::Arc;
    use std::time::Duration;

    use super::super::{EngineSettings, HostEngine, Isolation};
    use super::*;

    /// A module whose answer is the first `n` bytes of "123456789" where `n` counts the
    /// calls this instance served; `extra` runs first in `podplan_plan` (with `$n` = the
    /// count so far).
    fn counting_module(extra: &str) -> Vec<u8> {
        wat::parse_str(format!(
            r#"(module
              (memory (export "memory") 1)
              (data (i32.const 16) "123456789")
              (global $n (mut i32) (i32.const 0))
              (global $next (mut i32) (i32.const 4096))
              (func (export "podplan_abi_version") (result i32) (i32.const 0x10000))
              (func (export "podplan_alloc") (param $len i32) (result i32) (local $p i32)
                (local.set $p (global.get $next))
                (global.set $next (i32.add (global.get $next) (local.get $len)))
                (local.get $p))
              (func (export "podplan_free") (param i32 i32))
              (func (export "podplan_plan") (param $ptr i32) (param $len i32) (result i64)
                {extra}
                (global.set $n (i32.add (global.get $n) (i32.const 1)))
                (i64.or (i64.const 0x10_0000_0000) (i64.extend_i32_u (global.get $n)))))"#
        ))
        .unwrap()
    }

    fn engine(pool: WarmPool) -> Arc<HostEngine> {
        HostEngine::new(EngineSettings {
            deadline: Duration::from_millis(200),
            max_instances: 8,
            isolation: Isolation::Pooled(pool),
            ..EngineSettings::default()
        })
        .unwrap()
    }

    fn answers(module: &PlanModule, n: usize) -> Vec<String> {
        (0..n)
            .map(|_| match module.plan_json(b"{}") {
                Ok(answer) => String::from_utf8(answer).unwrap(),
                Err(err) => format!("error: {err}"),
            })
            .collect()
    }

    #[test]
    fn warm_instances_are_reused_and_recycled_after_max_calls() {
        let pool = WarmPool {
            max_idle: 1,
            max_calls: 3,
            max_memory: 1 << 20,
        };
        let module = PlanModule::load(&engine(pool), &counting_module(""), None).unwrap();
        // (the version check at load ran on its own instance, not kept)
        assert_eq!(module.idle_instances(), 0);
        assert_eq!(
            answers(&module, 7),
            ["1", "12", "123", "1", "12", "123", "1"]
        );
        assert_eq!(module.idle_instances(), 1);
        module.drop_warm_instances();
        assert_eq!(module.idle_instances(), 0);
        assert_eq!(answers(&module, 1), ["1"]);
    }

    #[test]
    fn per_call_isolation_never_reuses() {
        let engine = HostEngine::new(EngineSettings {
            max_instances: 8,
            isolation: Isolation::PerCall,
            ..EngineSettings::default()
        })
        .unwrap();
        let module = PlanModule::load(&engine, &counting_module(""), None).unwrap();
        assert_eq!(answers(&module, 3), ["1", "1", "1"]);
        assert_eq!(module.idle_instances(), 0);
    }

    #[test]
    fn an_instance_that_trapped_is_never_reused() {
        // Every instance traps on its first call (after counting it); a reused instance
        // would answer on its second call.
        let module = PlanModule::load(
            &engine(WarmPool::default()),
            &counting_module(
                "(if (i32.eqz (global.get $n)) (then (global.set $n (i32.const 1)) unreachable))",
            ),
            None,
        )
        .unwrap();
        for answer in answers(&module, 4) {
            assert!(answer.starts_with("error: "), "{answer}");
        }
        assert_eq!(module.idle_instances(), 0);
    }

    #[test]
    fn every_call_on_a_warm_instance_gets_a_fresh_deadline() {
        // The second call of an instance loops forever: stopped at the deadline.
        let module = PlanModule::load(
            &engine(WarmPool::default()),
            &counting_module(
                "(if (i32.eq (global.get $n) (i32.const 1)) (then (loop $l (br $l))))",
            ),
            None,
        )
        .unwrap();
        assert_eq!(answers(&module, 1), ["1"]);
        // Longer than the deadline: the warm instance's next call still gets all of it.
        std::thread::sleep(Duration::from_millis(300));
        let started = std::time::Instant::now();
        assert_eq!(
            module.plan_json(b"{}"),
            Err(HostError::Deadline(Duration::from_millis(200)))
        );
        assert!(started.elapsed() >= Duration::from_millis(150));
        // The looping instance is gone: a new one answers.
        assert_eq!(answers(&module, 1), ["1"]);
    }

    #[test]
    fn an_instance_past_the_memory_bound_is_recycled() {
        // Each call grows memory by one page (64 KiB).
        let pool = WarmPool {
            max_idle: 1,
            max_calls: 100,
            max_memory: 3 << 16,
        };
        let module = PlanModule::load(
            &engine(pool),
            &counting_module("(drop (memory.grow (i32.const 1)))"),
            None,
        )
        .unwrap();
        // Pages after each call: 2, 3, 4 (> 3: recycled), then a fresh instance.
        assert_eq!(answers(&module, 4), ["1", "12", "123", "1"]);
    }

    #[test]
    fn concurrent_calls_get_their_own_instances() {
        let pool = WarmPool {
            max_idle: 2,
            ..WarmPool::default()
        };
        let module = Arc::new(PlanModule::load(&engine(pool), &counting_module(""), None).unwrap());
        let threads: Vec<_> = (0..4)
            .map(|_| {
                let module = Arc::clone(&module);
                std::thread::spawn(move || answers(&module, 20))
            })
            .collect();
        let mut calls = 0;
        for t in threads {
            for answer in t.join().unwrap() {
                assert!(!answer.starts_with("error"), "{answer}");
                calls += 1;
            }
        }
        assert_eq!(calls, 80);
        assert!(module.idle_instances() <= 2);
    }
}
