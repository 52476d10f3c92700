//! `podplan agent`: a thin node agent that runs static pods (`--pod-manifest-path`) over
//! the CRI, asking the planner (the native core or the hot-swappable wasm module) before
//! every request it issues. See `docs/agent.md`.
//!
//! - [`manifest`]: the kubelet's file source (defaults, conflicts, bad manifests).
//! - [`runtime`]: the CRI calls as a trait ([`runtime::CriRuntime`]).
//! - [`executor`]: carrying out a plan's steps in `SyncPod`'s order.
//! - [`images`]: the node's images in each request, and `PullImage` steps.
//! - [`credentials`]: the node's docker keyring (pull credentials) in each request.
//! - [`hooks`]: postStart and preStop hooks as the plan's hook steps describe them.
//! - [`prober`]: startup, liveness and readiness probes.
//! - [`sync`]: the relist and sync loop ([`sync::Agent`]).
//! - [`status`]: the `status.json` file.
//! - [`volumes`]: emptyDir volumes, and a removed pod's directories.
//! - [`cgroups`]: a removed pod's cgroup.
//! - [`runtime_sim`]: the simulated CRI runtime (`podplan runtime-sim`, or in process):
//!   the core's runtime model behind tonic `RuntimeService`/`ImageService` servers.

pub mod cgroups;
pub mod credentials;
pub mod executor;
pub mod grpc;
pub mod hooks;
pub mod images;
pub mod manifest;
pub mod manifest_url;
mod pool;
mod probe_tls;
pub mod prober;
pub mod runtime;
pub mod runtime_sim;
pub mod status;
pub mod sync;
pub mod volumes;

pub use executor::{execute, Execution};
pub use manifest::{ManifestSet, ManifestSource, StaticPod};
pub use runtime::{CriCode, CriError, CriRuntime};
pub use sync::{Agent, AgentConfig};

/// Reads a `resolv.conf` into the node's DNS facts (`nameserver`, `search`, `options`).
#[must_use]
pub fn parse_resolv_conf(text: &str) -> podplan_core::request::node::HostDns {
    let mut dns = podplan_core::request::node::HostDns::default();
    for line in text.lines() {
        let line = line.split(['#', ';']).next().unwrap_or("");
        let mut words = line.split_whitespace();
        match words.next() {
            Some("nameserver") => dns.servers.extend(words.next().map(str::to_string)),
            Some("search") => dns.searches = words.map(str::to_string).collect(),
            Some("options") => dns.options.extend(words.map(str::to_string)),
            _ => {}
        }
    }
    dns
}

#[cfg(test)]
mod tests {
    #[test]
    fn resolv_conf() {
        let dns = super::parse_resolv_conf(
            "# comment\nnameserver 10.0.0.10\nnameserver 8.8.8.8 # google\nsearch a.local b.local\noptions ndots:5 edns0\n",
        );
        assert_eq!(dns.servers, ["10.0.0.10", "8.8.8.8"]);
        assert_eq!(dns.searches, ["a.local", "b.local"]);
        assert_eq!(dns.options, ["ndots:5", "edns0"]);
    }
}
