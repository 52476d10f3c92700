//! The on-disk cache of compiled modules: compiling a module with Cranelift takes
//! seconds, loading a precompiled one takes milliseconds.
//!
//! Key: SHA-256 of (the engine's fingerprint, SHA-256 of the module bytes), so a new
//! module, a new wasmtime or different compilation settings never hit a stale entry.
//! Entry: a magic line, the CRC-32 of the payload (little-endian), and the payload
//! (`Module::serialize`). Entries are written to a temporary file and renamed into
//! place, so readers never see half an entry; an entry that fails its checksum or
//! that wasmtime refuses is recompiled and rewritten. The checksum guards against
//! truncation and bit rot, not against an attacker (the directory is private to the
//! user, and the entry's name binds it to the module's SHA-256): CRC-32 checks the
//! ~10 MB payload in about a millisecond, where SHA-256 was a quarter of a CLI run's
//! start-up.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Module;

use super::{HostEngine, HostError};

/// The entry format; version 1 (a SHA-256 checksum) entries are replaced on first use.
const MAGIC: &[u8; 16] = b"podplan-cwasm-2\n";

/// How a module was obtained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheOutcome {
    /// Loaded from a cache entry.
    Hit,
    /// Compiled and stored in the cache.
    Miss,
    /// Compiled; the existing entry was unusable (corrupt or incompatible) and was replaced.
    Replaced,
    /// Compiled without a cache.
    Uncached,
}

/// A directory of compiled modules.
#[derive(Debug, Clone)]
pub struct ModuleCache {
    dir: PathBuf,
}

impl ModuleCache {
    /// Uses (and creates, private to the user) `dir`.
    ///
    /// # Errors
    ///
    /// [`HostError::Io`] when the directory cannot be created.
    pub fn new(dir: impl Into<PathBuf>) -> Result<Self, HostError> {
        let dir = dir.into();
        std::fs::create_dir_all(&dir).map_err(|e| HostError::io(&dir, &e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| HostError::io(&dir, &e))?;
        }
        Ok(Self { dir })
    }

    /// `$PODPLAN_CACHE_DIR`, else `$XDG_CACHE_HOME/podplan/modules`, else
    /// `~/.cache/podplan/modules`.
    #[must_use]
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("PODPLAN_CACHE_DIR") {
            return Some(PathBuf::from(dir));
        }
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))?;
        Some(base.join("podplan").join("modules"))
    }

    /// The cache in `dir`, or in [`ModuleCache::default_dir`] when `dir` is `None`.
    /// A cache that cannot be used is not an error: it is logged and `None` is
    /// returned, and modules are then compiled on every load.
    #[must_use]
    pub fn open_or_default(dir: Option<PathBuf>) -> Option<Self> {
        dir.or_else(Self::default_dir).and_then(|dir| {
            Self::new(dir)
                .inspect_err(|e| tracing::warn!("module cache disabled: {e}"))
                .ok()
        })
    }

    /// The cache directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The entry file for a module (by the SHA-256 of its bytes) on `engine`.
    #[must_use]
    pub fn entry_path(&self, engine: &HostEngine, module_sha256: &[u8; 32]) -> PathBuf {
        let mut key = Sha256::new();
        key.update(engine.fingerprint());
        key.update(module_sha256);
        self.dir.join(format!("{}.cwasm", hex(&key.finalize())))
    }

    /// The compiled module for `bytes` (whose SHA-256 is `module_sha256`): from the
    /// cache when possible, else compiled and stored.
    ///
    /// # Errors
    ///
    /// [`HostError::Compile`] when the bytes do not compile. Failing to write the
    /// cache is not an error (it is logged).
    pub fn load_or_compile(
        &self,
        engine: &HostEngine,
        bytes: &[u8],
        module_sha256: &[u8; 32],
    ) -> Result<(Module, CacheOutcome), HostError> {
        let path = self.entry_path(engine, module_sha256);
        let mut outcome = CacheOutcome::Miss;
        if let Ok(entry) = std::fs::read(&path) {
            match load_entry(engine, &entry) {
                Ok(module) => return Ok((module, CacheOutcome::Hit)),
                Err(why) => {
                    tracing::warn!(path = %path.display(), "unusable module cache entry ({why}); recompiling");
                    outcome = CacheOutcome::Replaced;
                }
            }
        }
        let module = compile(engine, bytes)?;
        match module.serialize() {
            Ok(payload) => {
                if let Err(e) = self.store(&path, &payload) {
                    tracing::warn!(path = %path.display(), "cannot write the module cache: {e}");
                }
            }
            Err(e) => tracing::warn!("cannot serialise the compiled module: {e}"),
        }
        Ok((module, outcome))
    }

    fn store(&self, path: &Path, payload: &[u8]) -> std::io::Result<()> {
        let mut entry = Vec::with_capacity(MAGIC.len() + 4 + payload.len());
        entry.extend_from_slice(MAGIC);
        entry.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
        entry.extend_from_slice(payload);
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = self
            .dir
            .join(format!(".tmp-{}-{n}.cwasm", std::process::id()));
        std::fs::write(&tmp, &entry)?;
        std::fs::rename(&tmp, path).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

/// Compiles module bytes for `engine`.
///
/// # Errors
///
/// [`HostError::Compile`] when the bytes are not a valid module.
pub fn compile(engine: &HostEngine, bytes: &[u8]) -> Result<Module, HostError> {
    Module::from_binary(engine.engine(), bytes).map_err(|e| HostError::Compile(format!("{e:#}")))
}

/// Checks an entry's framing and checksum, then deserialises its payload.
fn load_entry(engine: &HostEngine, entry: &[u8]) -> Result<Module, String> {
    let (magic, rest) = entry.split_at_checked(MAGIC.len()).ok_or("too short")?;
    if magic != MAGIC {
        return Err("not a podplan cache entry".into());
    }
    let (checksum, payload) = rest.split_at_checked(4).ok_or("too short")?;
    if checksum != crc32fast::hash(payload).to_le_bytes().as_slice() {
        return Err("checksum mismatch".into());
    }
    // SAFETY: `Module::deserialize` trusts its input to be machine code that wasmtime
    // produced. The payload is exactly what `Module::serialize` gave this process (or
    // an earlier run): the entry sits in a directory private to this user (0700),
    // its name binds it to the module bytes and the engine configuration, and its
    // checksum has just been verified, so truncation and bit rot are caught above.
    // wasmtime itself then refuses payloads from another version or configuration.
    #[expect(
        unsafe_code,
        reason = "Module::deserialize is an unsafe fn: it trusts the bytes to be wasmtime's code"
    )]
    let module = unsafe { Module::deserialize(engine.engine(), payload) };
    module.map_err(|e| format!("{e:#}"))
}

/// Lowercase hex.
#[must_use]
pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}
