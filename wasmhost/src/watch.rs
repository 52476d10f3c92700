//! Feeding a [`ModuleSlot`] from a module file: [`ModuleWatcher`] polls the file and
//! offers every new version to [`ModuleSlot::swap`]; [`WatchThread`] runs it in the
//! background. `podplan serve-module --watch FILE` is built on it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::{embedded, HostEngine, HostError, ModuleCache, ModuleSlot, SlotConfig, SwapReport};

/// A slot serving the module in `path` when it holds a valid one, else the built-in
/// module (logged), so a watcher can swap the file's module in once it is valid.
///
/// # Errors
///
/// Neither the file nor the built-in module can serve.
pub fn slot_for_file(
    engine: Arc<HostEngine>,
    cache: Option<ModuleCache>,
    config: SlotConfig,
    path: &Path,
) -> Result<ModuleSlot, HostError> {
    let source = path.display().to_string();
    let from_file = std::fs::read(path)
        .map_err(|e| HostError::io(path, &e))
        .and_then(|bytes| {
            ModuleSlot::new(
                Arc::clone(&engine),
                cache.clone(),
                config.clone(),
                &bytes,
                &source,
            )
        });
    match from_file {
        Ok(slot) => Ok(slot),
        Err(why) => {
            tracing::warn!("{why}; serving the built-in module until {source} holds a valid one");
            ModuleSlot::new(engine, cache, config, embedded::module_bytes()?, "embedded")
        }
    }
}

/// Watches one module file: each [`ModuleWatcher::poll`] offers the file to the slot
/// when it changed (modification time or size) and holds bytes not offered before.
#[derive(Debug)]
pub struct ModuleWatcher {
    path: PathBuf,
    seen: Option<(SystemTime, u64)>,
    tried: Option<[u8; 32]>,
}

impl ModuleWatcher {
    /// A watcher of `path` for `slot`; the slot's live module counts as offered already.
    #[must_use]
    pub fn new(path: impl Into<PathBuf>, slot: &ModuleSlot) -> Self {
        Self {
            path: path.into(),
            seen: None,
            tried: Some(*slot.live().module.sha256()),
        }
    }

    /// The watched file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Looks at the file once. `None` when there is nothing new to offer (missing or
    /// unreadable file, unchanged, or the same bytes as an earlier offer); otherwise
    /// the outcome of [`ModuleSlot::swap`] (a rejection leaves the live module serving).
    pub fn poll(&mut self, slot: &ModuleSlot) -> Option<Result<SwapReport, HostError>> {
        let meta = std::fs::metadata(&self.path).ok()?;
        let stamp = (
            meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
            meta.len(),
        );
        if self.seen == Some(stamp) {
            return None;
        }
        self.seen = Some(stamp);
        let bytes = std::fs::read(&self.path).ok()?;
        let sha: [u8; 32] = Sha256::digest(&bytes).into();
        if self.tried == Some(sha) {
            return None;
        }
        self.tried = Some(sha);
        Some(slot.swap(&bytes, &self.path.display().to_string()))
    }

    /// Polls every `every` on a thread of its own until the returned handle is
    /// stopped or dropped, logging the slot's status after each offer.
    ///
    /// # Errors
    ///
    /// The thread cannot be started.
    pub fn spawn(
        mut self,
        slot: Arc<ModuleSlot>,
        every: Duration,
    ) -> Result<WatchThread, HostError> {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let every = every.max(Duration::from_millis(1));
        let handle = std::thread::Builder::new()
            .name("podplan-watch".into())
            .spawn(move || {
                while !flag.load(Ordering::Relaxed) {
                    std::thread::sleep(every);
                    // Rejections are logged by the slot; the live module keeps serving.
                    if self.poll(&slot).is_some() {
                        let status = slot.status();
                        tracing::info!(
                            generation = status.generation,
                            swaps = status.swaps,
                            rejections = status.rejections,
                            status = %serde_json::to_string(&status).unwrap_or_default(),
                            "module slot status"
                        );
                    }
                }
            })
            .map_err(|e| HostError::Engine(format!("cannot start the watcher: {e}")))?;
        Ok(WatchThread {
            stop,
            handle: Some(handle),
        })
    }
}

/// A running [`ModuleWatcher`]; stopping or dropping it ends the thread (after its
/// current sleep).
#[derive(Debug)]
pub struct WatchThread {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<()>>,
}

impl WatchThread {
    /// Stops the watcher and waits for its thread.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(handle) = self.handle.take() {
            // A panicking watcher has nothing left to clean up.
            let _ = handle.join();
        }
    }
}

impl Drop for WatchThread {
    fn drop(&mut self) {
        self.shutdown();
    }
}
