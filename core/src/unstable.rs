//! Items that only podplan-core's own integration tests (and tools like them) use, behind
//! the feature `unstable`: no stability promise, and not part of the API the other crates
//! use.
//!
//! Each item is declared `pub` inside a crate-private module, so without the feature its
//! reach is the crate's own and the compiler reports it dead once nothing in the crate
//! uses it; this module is the only public path to it. (A `pub(crate)` item cannot be
//! re-exported with `pub use`.) Core's integration tests turn the feature on through a
//! dev-dependency on the crate itself (`core/Cargo.toml`).

/// The image manager as decision values: `EnsureImageExists` and a carried-out pull's
/// outcome, with the node's images, the pull-record check and the image-pull back-off
/// they read.
pub mod images {
    pub use crate::images::backoff::{BackoffWarning, ImageBackoff, ImageBackoffPolicy};
    pub use crate::images::manager::{
        complete_pull, ensure_image_exists, usable_pull_results, EnsureInput, NodeImages, Outcome,
        PullRecordCheck,
    };
}

/// The runtime model's image pulls.
pub mod sim {
    /// The runtime's error text for a registry fault, as the kubelet sees containerd's
    /// answer to the node's `PullImage` (`rpc error: code = … desc = …`).
    #[must_use]
    pub fn fault_text(fault: crate::plan::PullFault, image: &str) -> String {
        crate::sim::images::rpc_error_text(&crate::sim::node::images::registry_error(fault, image))
    }
}
