//! # podplan-core
//!
//! The kubelet's pod-lifecycle brain (Kubernetes **1.37**) as a pure function.
//!
//! Given a pod and what the container runtime reports about it, [`plan`] computes
//! what the kubelet would do on its next sync: the `podActions` (kill or create the
//! sandbox, which init containers, sidecars and containers to start or kill and why,
//! ephemeral containers, in-place resizes), the CRI requests that carry them out,
//! and the ordered list of steps. The crate does no I/O, never panics on any input
//! and is deterministic: time is an input ([`PlanRequest::now`]).
//!
//! There is one JSON call/answer API ([`plan_json`]) that every front end (the CLI,
//! the wasm module, the wasmtime host, the browser playground) speaks; the typed API
//! ([`plan`]) is the same function without the JSON.
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

pub mod api;
pub mod backoff;
pub mod config;
pub mod conformance;
pub mod cri;
pub mod decision;
pub mod defaults;
pub mod error;
pub mod events;
pub mod explain;
pub mod features;
pub mod hash;
pub mod json_path;
pub mod limits;
pub mod plan;
pub mod quantity;
pub mod request;
pub mod runtime;
pub mod sim;
pub mod status;
pub mod steps;
pub mod validate;

pub use api::{plan, plan_json, plan_value, version, VersionInfo};
pub use error::{ErrorKind, PlanError};
pub use plan::{Plan, PodActions};
pub use request::PlanRequest;

/// The Kubernetes release whose kubelet this engine re-implements.
pub const KUBERNETES_TARGET: &str = "1.37";

/// Version of the JSON plan contract spoken by [`plan_json`] (see `docs/contract.md`).
pub const CONTRACT_VERSION: &str = "1";
