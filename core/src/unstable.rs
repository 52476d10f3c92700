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

/// The runtime model's parts that core's simulation tests drive one at a time: an event
/// without the simulated world's hook behaviour, the scripted changes between syncs, and
/// the text of a scripted pull failure.
pub mod sim {
    pub use crate::sim::event::apply_event;

    /// The runtime's error text for a registry fault, as the kubelet sees containerd's
    /// answer to the node's `PullImage` (`rpc error: code = … desc = …`).
    #[must_use]
    pub fn fault_text(fault: crate::plan::PullFault, image: &str) -> String {
        crate::sim::images::rpc_error_text(&crate::sim::node::images::registry_error(fault, image))
    }

    /// What happens between syncs, applied to a request.
    pub mod script {
        pub use crate::sim::script::{begin_restart_all, exit_container, kill_sandbox};
    }
}

/// The CRI config generators one at a time (`generatePodSandboxConfig`'s and
/// `generateContainerConfig`'s parts), as core's generator tests call them; the plan calls
/// them through [`crate::config::generate_for`] and the sandbox config.
pub mod config {
    /// `pkg/kubelet/network/dns`: the pod's DNS config.
    pub mod dns {
        pub use crate::config::dns::pod_dns;
    }
    /// `makeEnvironmentVariables` and the service environment.
    pub mod env {
        pub use crate::config::env::{make_environment_variables, service_env_map};
    }
    /// The pod's hostname, domain and sandbox hostname.
    pub mod hostname {
        pub use crate::config::hostname::{pod_hostname_and_domain, sandbox_hostname};
    }
    /// `makeMounts`.
    pub mod mounts {
        pub use crate::config::mounts::make_mounts;
    }
    /// `generatePodSandboxConfig`.
    pub mod sandbox {
        pub use crate::config::sandbox::generate_pod_sandbox_config;
    }
    /// The effective security context and the namespace modes.
    pub mod security {
        pub use crate::config::security::{
            effective_security_context, ipc_namespace, pid_namespace,
        };
    }
}

/// Go's encodings of the API types the kubelet writes into annotations.
pub mod go {
    /// `json.Marshal` of container ports and lifecycle handlers.
    pub mod encoding {
        pub use crate::go::encoding::{container_ports_json, lifecycle_handler_json};
    }
}
