//! podplan-admission's integration tests, in one binary, a module per area:
//!
//! - [`wapc_policy`]: the Kubewarden policy module through the waPC host, against the
//!   native lint.
//! - [`webhook`]: the webhook's server over HTTPS on 127.0.0.1, in process.
//!
//! `podplan admit` and `podplan webhook` as binaries are tested in podplan-host's
//! `tests/all/` (`admission`, `wapc_policy_cli`, `webhook_cli`).

// An integration test is always built with `cfg(test)`; saying so on the modules makes
// clippy treat their helpers as test code too, so clippy.toml's `allow-*-in-tests`
// (unwrap, expect, panic, indexing) covers them, not only the `#[test]` functions.
#[cfg(test)]
mod wapc_policy;
#[cfg(test)]
mod webhook;
