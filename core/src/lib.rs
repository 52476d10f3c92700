//! # podplan-core
//!
//! The kubelet's pod-lifecycle brain (Kubernetes **1.37**) as a pure function.
//!
//! Given a pod and what the container runtime reports about it, [`plan()`] computes
//! what the kubelet would do on its next sync: the `podActions` (kill or create the
//! sandbox, which init containers, sidecars and containers to start or kill and why,
//! ephemeral containers, in-place resizes), the CRI requests that carry them out,
//! and the ordered list of steps. The crate does no I/O, never panics on any input
//! and is deterministic: time is an input ([`PlanRequest::now`]).
//!
//! There is one JSON call/answer API ([`plan_json`]) that every front end (the CLI,
//! the wasm module, the wasmtime host, the browser playground) speaks; the typed API
//! ([`plan()`]) is the same function without the JSON.
//!
//! ```
//! let answer = podplan_core::plan_json(br#"{
//!   "pod": {"metadata": {"name": "web", "namespace": "default", "uid": "u1"},
//!           "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
//! }"#);
//! let plan: serde_json::Value = serde_json::from_slice(&answer).unwrap();
//! assert_eq!(plan["actions"]["createSandbox"], true);
//! assert_eq!(plan["actions"]["containersToStart"], serde_json::json!([0]));
//! ```

// Visibility rule: an item is `pub` only if another crate uses it (host, wasm,
// wasm/kubewarden, cri, testsupport, benches, typegen). Items that only core's own
// integration tests (`tests/`) use are reached through [`unstable`], behind the feature
// `unstable` (core's tests turn it on through a dev-dependency on the crate itself): each
// is `pub` inside a crate-private module, so that a build without the feature reports it
// dead once the crate stops using it. Doc examples use the public API only; what they
// showed of crate-private items is a unit test beside the item. Everything else is
// `pub(crate)` or private, so the compiler reports dead code.
//
// The documented public API: the call ([`api`]), its request ([`request`]) and answer
// ([`plan`]), and the runtime model that carries a plan out ([`sim`]).
pub mod api;
pub mod plan;
pub mod request;
pub mod sim;

// Types the request and the plan carry, and the answer's errors.
pub mod cri;
pub mod error;
pub mod features;
pub mod limits;
pub mod runtime;

// Tools over the API: the plan in words, the conformance-vector runner.
pub mod conformance;
pub mod explain;
pub mod lint;
// The admission judge over the lint (the webhook, `podplan admit`, the Kubewarden policy).
pub mod admission;

// What users see: the pod's API status and its `kubectl get pods` row (the plan's
// `status` and `kubectl`); `explain` holds the reconstruction of a real pod.
pub mod status;

// The generators surface: what the conformance runner and tools call on their own
// (CRI config generators, the steps of hand-made actions, the container hash, the
// decision alone). Not part of the plan contract.
pub mod config;
pub mod generators;
pub mod steps;
mod terminate;

// Image pulls and lifecycle hooks as values (the plan's `PullImage` and hook steps), and
// the kubelet's small pod helpers the hosts share (a pod's images, `format.Pod`, ...).
pub mod hooks;
pub mod images;
pub mod pod;

// Go's own encodings and durations, as the kubelet writes them (leaves).
pub mod go;

// Core's own integration tests' way in (see the visibility rule above).
#[cfg(feature = "unstable")]
pub mod unstable;

// Internal.
mod backoff;
mod decision;
mod defaults;
mod events;
mod hash;
mod json_path;
mod json_value;
mod kubecontainer;
mod pipeline;
mod quantity;
mod validate;

pub use api::{
    complete_json, plan, plan_json, plan_value, version, VersionInfo, CONTRACT_VERSION,
    KUBERNETES_TARGET,
};
pub use error::{ErrorKind, PlanError};
pub use plan::{Plan, PodActions};
pub use request::PlanRequest;
