//! podplan-host: the library half of the `podplan` CLI (whose command line lives in the
//! binary, `src/cli/`); the engines and servers it runs are crates of their own
//! (podplan-wasmhost, podplan-agent, podplan-admission).
//!
//! - [`playground`]: the server of `podplan playground`, the embedded browser playground.
//! - [`yaml`]: YAML read as kubectl reads it.

pub mod playground;
pub mod yaml;
