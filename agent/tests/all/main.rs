//! podplan-agent's integration tests, in one binary, a module per area:
//!
//! - [`agent`]: the node agent: manifests, the executor on a recording fake, status.json,
//!   end to end on the in-process simulated node.
//! - [`manifest_url`]: the `--manifest-url` source against a server on 127.0.0.1.
//! - [`runtime_sim`]: the simulated CRI runtime over gRPC (a unix socket, in process) and
//!   the CRI status conversion against its model.
//! - [`support`]: the embedded wasm module and an engine for the tests that plan with it.
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
#[cfg(test)]
mod support;
