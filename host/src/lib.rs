//! podplan-host: the `podplan` CLI, the wasmtime embedding and the node agent.

pub mod playground;
