//! A waPC host for Kubewarden policies (`wasm/kubewarden`): `wapc`'s [`WapcHost`] with a
//! [`WebAssemblyEngineProvider`] built on the existing [`HostEngine`] — the same wasmtime
//! engine, pooling allocator and epoch ticker as the plan modules, no second wasmtime
//! build and no extra wasmtime features.
//!
//! The provider links the `wapc` imports (`__guest_request`, `__guest_response`,
//! `__guest_error`, `__host_call`, `__host_response(_len)`, `__host_error(_len)`,
//! `__console_log`), runs `wapc_init` (or `_start`), and calls `__guest_call` with the
//! plan calls' deadline and memory limit. A trap, an overrun deadline or a memory grab
//! is a [`HostError`].

use std::error::Error as StdError;
use std::sync::{Arc, Mutex};

use wapc::{ModuleState, WapcHost, WebAssemblyEngineProvider};
use wasmtime::{Caller, Extern, Instance, Linker, Memory, Module, Store, Trap, TypedFunc};

use super::limiter::Limiter;
use super::{HostEngine, HostError};

type BoxError = Box<dyn StdError + Send + Sync>;

/// Per-store state: the waPC conversation and the memory limiter.
struct State {
    wapc: Arc<ModuleState>,
    limiter: Limiter,
}

/// The last failure, classified, shared between the provider and [`PolicyModule`].
type LastError = Arc<Mutex<Option<HostError>>>;

/// The waPC engine provider on a [`HostEngine`].
struct Provider {
    engine: Arc<HostEngine>,
    module: Module,
    store: Option<Store<State>>,
    guest_call: Option<TypedFunc<(i32, i32), i32>>,
    last_error: LastError,
}

fn memory(caller: &mut Caller<'_, State>) -> wasmtime::Result<Memory> {
    match caller.get_export("memory") {
        Some(Extern::Memory(m)) => Ok(m),
        _ => Err(wasmtime::Error::msg("the guest exports no memory")),
    }
}

fn read(caller: &mut Caller<'_, State>, ptr: i32, len: i32) -> wasmtime::Result<Vec<u8>> {
    let mem = memory(caller)?;
    let (ptr, len) = (ptr as u32 as usize, len as u32 as usize);
    mem.data(&*caller)
        .get(ptr..ptr.saturating_add(len))
        .map(<[u8]>::to_vec)
        .ok_or_else(|| wasmtime::Error::msg("the guest passed a buffer outside its memory"))
}

fn write(caller: &mut Caller<'_, State>, ptr: i32, bytes: &[u8]) -> wasmtime::Result<()> {
    let mem = memory(caller)?;
    mem.write(&mut *caller, ptr as u32 as usize, bytes)
        .map_err(|_| wasmtime::Error::msg("the guest asked for a write outside its memory"))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn len_i32(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// The `wapc` imports.
fn linker(engine: &wasmtime::Engine) -> wasmtime::Result<Linker<State>> {
    let mut l = Linker::new(engine);
    l.func_wrap(
        "wapc",
        "__guest_request",
        |mut c: Caller<'_, State>, op_ptr: i32, ptr: i32| -> wasmtime::Result<()> {
            if let Some(inv) = c.data().wapc.get_guest_request() {
                write(&mut c, op_ptr, inv.operation.as_bytes())?;
                write(&mut c, ptr, &inv.msg)?;
            }
            Ok(())
        },
    )?;
    l.func_wrap(
        "wapc",
        "__guest_response",
        |mut c: Caller<'_, State>, ptr: i32, len: i32| -> wasmtime::Result<()> {
            let bytes = read(&mut c, ptr, len)?;
            c.data().wapc.set_guest_response(bytes);
            Ok(())
        },
    )?;
    l.func_wrap(
        "wapc",
        "__guest_error",
        |mut c: Caller<'_, State>, ptr: i32, len: i32| -> wasmtime::Result<()> {
            let bytes = read(&mut c, ptr, len)?;
            c.data().wapc.set_guest_error(text(&bytes));
            Ok(())
        },
    )?;
    l.func_wrap(
        "wapc",
        "__host_call",
        |mut c: Caller<'_, State>,
         bd_ptr: i32,
         bd_len: i32,
         ns_ptr: i32,
         ns_len: i32,
         op_ptr: i32,
         op_len: i32,
         ptr: i32,
         len: i32|
         -> wasmtime::Result<i32> {
            let binding = text(&read(&mut c, bd_ptr, bd_len)?);
            let namespace = text(&read(&mut c, ns_ptr, ns_len)?);
            let operation = text(&read(&mut c, op_ptr, op_len)?);
            let payload = read(&mut c, ptr, len)?;
            Ok(c.data()
                .wapc
                .do_host_call(&binding, &namespace, &operation, &payload)
                .unwrap_or(0))
        },
    )?;
    l.func_wrap(
        "wapc",
        "__host_response",
        |mut c: Caller<'_, State>, ptr: i32| -> wasmtime::Result<()> {
            let wapc = Arc::clone(&c.data().wapc);
            match wapc.with_host_response(<[u8]>::to_vec) {
                Some(bytes) => write(&mut c, ptr, &bytes),
                None => Ok(()),
            }
        },
    )?;
    l.func_wrap(
        "wapc",
        "__host_response_len",
        |c: Caller<'_, State>| -> i32 { len_i32(c.data().wapc.host_response_len()) },
    )?;
    l.func_wrap("wapc", "__host_error_len", |c: Caller<'_, State>| -> i32 {
        len_i32(c.data().wapc.get_host_error().map_or(0, |e| e.len()))
    })?;
    l.func_wrap(
        "wapc",
        "__host_error",
        |mut c: Caller<'_, State>, ptr: i32| -> wasmtime::Result<()> {
            match c.data().wapc.get_host_error() {
                Some(e) => write(&mut c, ptr, e.as_bytes()),
                None => Ok(()),
            }
        },
    )?;
    l.func_wrap(
        "wapc",
        "__console_log",
        |mut c: Caller<'_, State>, ptr: i32, len: i32| -> wasmtime::Result<()> {
            let bytes = read(&mut c, ptr, len)?;
            c.data().wapc.do_console_log(&text(&bytes));
            Ok(())
        },
    )?;
    Ok(l)
}

impl Provider {
    /// Classifies a wasmtime failure and remembers it for [`PolicyModule`].
    fn fail(&self, store: Option<&Store<State>>, err: &wasmtime::Error) -> BoxError {
        let settings = self.engine.settings();
        let classified = if store.is_some_and(|s| s.data().limiter.hit()) {
            HostError::MemoryLimit {
                limit_bytes: settings.memory_limit,
            }
        } else if err.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
            HostError::Deadline(settings.deadline)
        } else {
            HostError::Trap(format!("{err:#}"))
        };
        let message = classified.to_string();
        if let Ok(mut last) = self.last_error.lock() {
            *last = Some(classified);
        }
        message.into()
    }

    fn instantiate(&mut self, wapc: Arc<ModuleState>) -> Result<(), BoxError> {
        let settings = *self.engine.settings();
        let engine = self.engine.engine();
        let mut store = Store::new(
            engine,
            State {
                wapc,
                limiter: Limiter::new(settings.memory_limit),
            },
        );
        store.limiter(|s| &mut s.limiter);
        store.set_epoch_deadline(settings.deadline_ticks());
        let linker = linker(engine).map_err(|e| self.fail(None, &e))?;
        let instance: Instance = linker
            .instantiate(&mut store, &self.module)
            .map_err(|e| self.fail(Some(&store), &e))?;
        for start in ["_start", "wapc_init"] {
            if let Ok(f) = instance.get_typed_func::<(), ()>(&mut store, start) {
                f.call(&mut store, ())
                    .map_err(|e| self.fail(Some(&store), &e))?;
            }
        }
        let guest_call = instance
            .get_typed_func::<(i32, i32), i32>(&mut store, "__guest_call")
            .map_err(|e| self.fail(Some(&store), &e))?;
        self.store = Some(store);
        self.guest_call = Some(guest_call);
        Ok(())
    }
}

impl WebAssemblyEngineProvider for Provider {
    fn init(&mut self, host: Arc<ModuleState>) -> Result<(), BoxError> {
        self.instantiate(host)
    }

    fn call(&mut self, op_length: i32, msg_length: i32) -> Result<i32, BoxError> {
        let ticks = self.engine.settings().deadline_ticks();
        let (Some(mut store), Some(f)) = (self.store.take(), self.guest_call.clone()) else {
            return Err("the policy module is not instantiated (a previous call failed)".into());
        };
        store.set_epoch_deadline(ticks);
        match f.call(&mut store, (op_length, msg_length)) {
            Ok(r) => {
                self.store = Some(store);
                Ok(r)
            }
            // A failed instance is dropped: its memory may be in any state.
            Err(e) => Err(self.fail(Some(&store), &e)),
        }
    }

    fn replace(&mut self, bytes: &[u8]) -> Result<(), BoxError> {
        let module = Module::new(self.engine.engine(), bytes)
            .map_err(|e| -> BoxError { HostError::Compile(format!("{e:#}")).to_string().into() })?;
        let wapc = self
            .store
            .as_ref()
            .map(|s| Arc::clone(&s.data().wapc))
            .ok_or("the policy module is not instantiated")?;
        self.module = module;
        self.instantiate(wapc)
    }
}

/// A Kubewarden policy module (a waPC guest) loaded into a [`WapcHost`].
pub struct PolicyModule {
    host: WapcHost,
    last_error: LastError,
}

impl std::fmt::Debug for PolicyModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicyModule").finish_non_exhaustive()
    }
}

impl PolicyModule {
    /// Compiles `bytes` on `engine` and instantiates it (running `wapc_init`).
    ///
    /// # Errors
    ///
    /// [`HostError::Compile`] for bytes that are not a module; [`HostError::Trap`],
    /// [`HostError::Deadline`] or [`HostError::MemoryLimit`] when instantiation or
    /// `wapc_init` fails.
    pub fn load(engine: &Arc<HostEngine>, bytes: &[u8]) -> Result<Self, HostError> {
        let module = Module::new(engine.engine(), bytes)
            .map_err(|e| HostError::Compile(format!("{e:#}")))?;
        let last_error = LastError::default();
        let provider = Provider {
            engine: Arc::clone(engine),
            module,
            store: None,
            guest_call: None,
            last_error: Arc::clone(&last_error),
        };
        let host = WapcHost::new(Box::new(provider), None).map_err(|e| {
            take(&last_error).unwrap_or_else(|| HostError::Instantiate(e.to_string()))
        })?;
        Ok(Self { host, last_error })
    }

    /// Reads a module file and [`load`](Self::load)s it.
    ///
    /// # Errors
    ///
    /// [`HostError::Io`] when the file cannot be read, else as [`load`](Self::load).
    pub fn load_file(engine: &Arc<HostEngine>, path: &std::path::Path) -> Result<Self, HostError> {
        let bytes = std::fs::read(path).map_err(|e| HostError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?;
        Self::load(engine, &bytes)
    }

    /// Calls the guest function `op` with `payload`. A guest that answers with a waPC
    /// error (not a trap) gives [`HostError::BadAnswer`].
    ///
    /// # Errors
    ///
    /// [`HostError::Trap`], [`HostError::Deadline`], [`HostError::MemoryLimit`],
    /// [`HostError::BadAnswer`].
    pub fn call(&self, op: &str, payload: &[u8]) -> Result<Vec<u8>, HostError> {
        let _ = take(&self.last_error);
        self.host.call(op, payload).map_err(|e| {
            take(&self.last_error).unwrap_or_else(|| HostError::BadAnswer(format!("{op}: {e}")))
        })
    }
}

fn take(last: &LastError) -> Option<HostError> {
    last.lock().ok().and_then(|mut l| l.take())
}
