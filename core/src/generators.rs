//! The generators the conformance runner, the benchmarks and tools call on their own,
//! outside [`crate::api::plan`]: one surface, clearly not the plan contract.
//!
//! * CRI config generators: [`crate::config`] (its modules, [`crate::config::generate_for`]).
//! * The steps of hand-made actions and the kill grace period: [`crate::steps`].
//! * `computePodActions` alone: [`decide`]; the container hash: [`container_hash`];
//!   the crash-loop back-off key: [`backoff_key`].

pub use crate::backoff::backoff_key;
pub use crate::decision::decide;
pub use crate::hash::container_hash;
