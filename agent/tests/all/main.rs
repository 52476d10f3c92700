//! podplan-agent's integration tests, in one binary, a module per area:
//!
//! - [`agent`]: the node agent, by topic (its `mod.rs` holds the shared fixtures: manifests,
//!   the recording fake runtime, the in-process harness):
//!   - `agent::manifest`: the kubelet's file source: defaults, conflicts, bad manifests.
//!   - `agent::executor`: a plan's steps on the recording fake runtime in `SyncPod`'s
//!     order; failed sandboxes and starts; `KillPod`; a pod directory that cannot be made.
//!   - `agent::status_file`: `status.json`, written atomically, read back, stale.
//!   - `agent::sync`: end to end on the in-process simulated node: the relist and sync
//!     loop, back-off, removal, retried calls, module swaps mid-sync, adoption after a
//!     restart, clean-up of a removed pod's directories.
//!   - `agent::probes`: startup/liveness/readiness probes when due, with the kubelet's
//!     thresholds; HTTPS probes that do not check the certificate.
//!   - `agent::images`: pulls: auth entries in order, the node's docker config, a missing
//!     image pulled, `ErrImagePull` then `ImagePullBackOff`.
//!   - `agent::hooks`: postStart and preStop hooks: a failed postStart, preStop before the
//!     stop with the grace that is left, preStop after an agent restart.
//!   - `agent::workers`: independent pod workers on the virtual clock: one pod's slow
//!     termination or probe does not delay another; an edited static pod waits for its
//!     previous incarnation.
//! - [`manifest_url`]: the `--manifest-url` source against a server on 127.0.0.1.
//! - [`runtime_sim`]: the simulated CRI runtime over gRPC (a unix socket, in process) and
//!   the CRI status conversion against its model.
//!
//! `podplan agent` and `podplan runtime-sim` as binaries are tested in podplan-host's
//! `tests/all/` (`agent_cli`, `manifest_url_cli`, `runtime_sim_cli`).

// An integration test is always built with `cfg(test)`; saying so on the modules makes
// clippy treat their helpers as test code too, so clippy.toml's `allow-*-in-tests`
// (unwrap, expect, panic, indexing) covers them, not only the `#[test]` functions.
#[cfg(test)]
mod agent;
#[cfg(test)]
mod manifest_url;
#[cfg(test)]
mod runtime_sim;
