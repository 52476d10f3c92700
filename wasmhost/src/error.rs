//! Everything that can go wrong running a plan module, as values.
//!
//! A module is untrusted code: every failure it can cause (a trap, a runaway loop, a
//! memory grab, a malformed answer) is one of these errors, never a host crash.

use std::path::PathBuf;
use std::time::Duration;

/// An error from loading or running a plan module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HostError {
    /// The bytes are not a valid WebAssembly module, or wasmtime could not compile them.
    #[error("the module does not compile: {0}")]
    Compile(String),
    /// The module imports something; plan modules must be self-contained.
    #[error("the module imports {0:?}; a plan module must have no imports")]
    Imports(Vec<String>),
    /// A required export is missing or has the wrong type.
    #[error("the module's export `{name}` is missing or has the wrong type (want {want})")]
    Export {
        /// The export's name.
        name: &'static str,
        /// Its expected type.
        want: &'static str,
    },
    /// The module speaks an ABI major version this host does not.
    #[error(
        "the module speaks ABI {found_major}.{found_minor}; this host speaks ABI {want_major}.x"
    )]
    AbiVersion {
        /// The module's major version.
        found_major: u32,
        /// The module's minor version.
        found_minor: u32,
        /// The major version this host speaks.
        want_major: u32,
    },
    /// The call ran past its deadline and was interrupted.
    #[error("the module ran past its {:?} deadline and was stopped", .0)]
    Deadline(Duration),
    /// The module tried to grow its memory past the limit.
    #[error("the module tried to use more than {limit_bytes} bytes of memory and was stopped")]
    MemoryLimit {
        /// The limit, in bytes.
        limit_bytes: usize,
    },
    /// The module trapped (e.g. `unreachable`, an out-of-bounds access, stack overflow).
    #[error("the module trapped: {0}")]
    Trap(String),
    /// The module could not be instantiated (e.g. every pool slot is busy).
    #[error("the module could not be instantiated: {0}")]
    Instantiate(String),
    /// The module's answer does not fit the ABI (pointer or length out of bounds).
    #[error("the module's answer is malformed: {0}")]
    BadAnswer(String),
    /// The request is larger than the ABI can carry (4 GiB).
    #[error("the request is {0} bytes; the ABI carries at most 4 GiB")]
    RequestTooLarge(usize),
    /// This binary was built without the embedded module.
    #[error(
        "this podplan binary was built without the embedded wasm module \
         (run scripts/build-wasm, then rebuild podplan: podplan-wasmhost embeds it), or pass --module FILE"
    )]
    NoEmbeddedModule,
    /// Reading a module file failed.
    #[error("cannot read {path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        message: String,
    },
    /// The engine could not be set up (e.g. the pooling allocator's reservation failed).
    #[error("the wasm engine could not be created: {0}")]
    Engine(String),
    /// A candidate module failed its self-test against the native core.
    #[error("the module disagrees with the native core on {failed} of {total} self-test requests; first: {first}")]
    SelfTest {
        /// How many sample requests disagreed.
        failed: usize,
        /// How many were run.
        total: usize,
        /// The first disagreement, readable.
        first: String,
    },
    /// Shadow-running the candidate on recent inputs found differences and the slot is
    /// configured to reject on differences.
    #[error("the module decides differently from the live module on {differing} of {total} recent requests")]
    ShadowDiff {
        /// How many recent requests got different decisions.
        differing: usize,
        /// How many were replayed.
        total: usize,
    },
    /// No previous generation to roll back to.
    #[error("there is no previous module generation to roll back to")]
    NoPrevious,
}

impl HostError {
    /// An [`HostError::Io`] for `path`.
    pub(crate) fn io(path: impl Into<PathBuf>, err: &std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            message: err.to_string(),
        }
    }
}
