//! podplan-host's integration tests, in one binary (one link of wasmtime), a module per
//! area:
//!
//! - [`agent`]: `podplan agent`: manifests, the executor on a recording fake, status.json,
//!   end to end on the in-process simulated node.
//! - [`admission`]: `podplan admit` on recorded reviews and `podplan lint` on manifests.
//! - [`cli`]: the `podplan` binary as people and scripts run it.
//! - [`manifest_url`]: `podplan agent --manifest-url` against a server on 127.0.0.1.
//! - [`explain`]: `podplan explain` on recorded pods (`tests/data/explain/`).
//! - [`explain_pasted`]: `podplan explain` on pods as people paste them
//!   (`test_data/explain/`): kind-less pods, lists, multi-document files, manifests,
//!   unscheduled, terminal and terminating pods, objects podplan cannot see.
//! - [`wapc_policy`]: the Kubewarden policy module through the waPC host.
//! - [`wasm_cli`]: the CLI's wasm hooks (`plan --engine wasm`, `serve-module`).
//! - [`wasm_host`]: the embedded module under wasmtime against the native core; hostile
//!   modules; the compiled-module cache.
//! - [`wasm_slot`]: hot swap, rollback, shadow runs, the module-file watcher.
//! - [`realworld`]: the real-world corpus (`test_data/realworld/`): public manifests through
//!   `podplan lint`, recorded pods through `podplan explain`.
//! - [`runtime_sim`]: the simulated CRI runtime over gRPC (a unix socket, in process, the
//!   `podplan runtime-sim` binary) and the CRI status conversion against its model.
//! - [`webhook`]: `podplan webhook`'s server over HTTPS on 127.0.0.1.
//! - [`support`]: helpers of the wasm tests.

// An integration test is always built with `cfg(test)`; saying so on the modules makes
// clippy treat their helpers as test code too, so clippy.toml's `allow-*-in-tests`
// (unwrap, expect, panic, indexing) covers them, not only the `#[test]` functions.
#[cfg(test)]
mod admission;
#[cfg(test)]
mod agent;
#[cfg(test)]
mod cli;
#[cfg(test)]
mod explain;
#[cfg(test)]
mod explain_pasted;
#[cfg(test)]
mod manifest_url;
#[cfg(test)]
mod realworld;
#[cfg(test)]
mod runtime_sim;
#[cfg(test)]
mod support;
#[cfg(test)]
mod wapc_policy;
#[cfg(test)]
mod wasm_cli;
#[cfg(test)]
mod wasm_host;
#[cfg(test)]
mod wasm_slot;
#[cfg(test)]
mod webhook;
