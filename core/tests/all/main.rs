//! podplan-core's integration tests, in one test binary (one link instead of one per file,
//! as ripgrep and wasmtime do). Each module is one former `core/tests/*.rs` file; run one
//! with a filter, e.g. `cargo test -p podplan-core --test all -- module_graph:: --nocapture`.
//! The per-file vector tests (`conformance/`, `core/tests/vectors/`) are the other binary,
//! `vector_files` (`datatest-stable` generates one test per file, which needs its own
//! `harness = false` main).
//!
//! Index:

mod config_attach; // configs of hand-made plans carried out by `steps::build`: which containers get configs, restart counts, per-container errors, SyncPod's early stop
mod config_generators; // single CRI config generators (dns, env, hostname, mounts, security) against the kubelet rules they implement
mod config_properties; // property tests: arbitrary pods never make the config generators panic; configs round-trip through JSON; env order is deterministic
mod decision_effects; // every decision of every action vector is marked effective / superseded / notCarriedOut / noop consistently with actions and steps
mod hooks_sim; // lifecycle hooks end to end: hook steps in plans, run by the model runtime, read back via `hookResults`
mod image_plans; // image pulls in plans: `EnsureImageExists` in the start pass when the request reports the node's images
mod images_properties; // property tests of the image manager (references, back-off) and hooks: bad input never panics, answers are structured
mod lint_vectors; // the lint vectors (`core/tests/lint/*.json`): exact findings per object, and each vector shown in `docs/lint.md`
mod module_graph; // no import cycles in `core/src`: among its files, and among its modules at every level of nesting
mod properties; // property tests of `plan`: arbitrary requests never panic, plans are deterministic, round-trip through JSON and keep structural invariants
mod replay; // the vendored action vectors replayed under the extra gates the kubelet re-runs its tables with
mod runtime_fidelity; // what a real runtime (containerd 1.6) showed about plans, checked against podplan's output
mod simulation; // convergence: carrying out each plan in the model runtime reaches a fixpoint in bounded syncs
mod simulation_images; // image pulls in the model runtime: ErrImagePull → ImagePullBackOff → running, with the kubelet's events
mod vendored_in_sync; // the vendored `conformance/` matches `../shared/conformance` when that exists
