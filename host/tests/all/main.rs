//! podplan-host's integration tests: the `podplan` binary as people and scripts run it,
//! in one binary, a module per area (each library's own tests are in its crate's
//! `tests/all/`: podplan-wasmhost, podplan-agent, podplan-admission):
//!
//! - [`admission`]: `podplan admit` on recorded reviews and `podplan lint` on manifests.
//! - [`agent_cli`]: `podplan agent`: `--once`, bad manifests, an unreachable runtime, end
//!   to end over a unix socket with the `podplan runtime-sim` binary.
//! - [`cli`]: the `podplan` binary as people and scripts run it.
//! - [`manifest_url_cli`]: `podplan agent --manifest-url` against a server on 127.0.0.1.
//! - [`explain`]: `podplan explain` on recorded pods (`tests/data/explain/`).
//! - [`explain_pasted`]: `podplan explain` on pods as people paste them
//!   (`test_data/explain/`): kind-less pods, lists, multi-document files, manifests,
//!   unscheduled, terminal and terminating pods, objects podplan cannot see.
//! - [`wapc_policy_cli`]: `podplan admit --policy` with the Kubewarden policy module.
//! - [`wasm_cli`]: the CLI's wasm hooks (`plan --engine wasm`, `serve-module`).
//! - [`realworld`]: the real-world corpus (`test_data/realworld/`): public manifests through
//!   `podplan lint`, recorded pods through `podplan explain`.
//! - [`runtime_sim_cli`]: the `podplan runtime-sim` binary.
//! - [`webhook_cli`]: `podplan webhook` as a process: flags, deploy/ manifests, signals,
//!   memory, logs.
//! - [`support`]: the `podplan` command and a run of it fed on stdin.

// An integration test is always built with `cfg(test)`; saying so on the modules makes
// clippy treat their helpers as test code too, so clippy.toml's `allow-*-in-tests`
// (unwrap, expect, panic, indexing) covers them, not only the `#[test]` functions.
#[cfg(test)]
mod admission;
#[cfg(test)]
mod agent_cli;
#[cfg(test)]
mod cli;
#[cfg(test)]
mod explain;
#[cfg(test)]
mod explain_pasted;
#[cfg(test)]
mod manifest_url_cli;
#[cfg(test)]
mod realworld;
#[cfg(test)]
mod runtime_sim_cli;
#[cfg(test)]
mod support;
#[cfg(test)]
mod wapc_policy_cli;
#[cfg(test)]
mod wasm_cli;
#[cfg(test)]
mod webhook_cli;
