//! Embedding podplan's engine through wasmtime: load the plain-ABI module built into
//! podplan-wasmhost, plan one request with it, and check that the answer is the native
//! core's, byte for byte.
//!
//! ```sh
//! scripts/build-wasm                                  # the module (wasm/pkg/abi)
//! cargo run -p podplan-wasmhost --example embed
//! ```
//!
//! Without the module built in, it says so and exits 0 (1 when `PODPLAN_REQUIRE_WASM` is
//! set, as in CI).

use std::process::ExitCode;

use podplan_wasmhost::{EngineSettings, HostError, ModuleCache, Planner};

/// A pod with one container that nothing has started yet: the plan creates its sandbox
/// and starts the container.
const REQUEST: &str = r#"{
  "pod": {
    "metadata": {"name": "web", "namespace": "default", "uid": "0b3c7a52-1f7e-4c8e-9a55-5d9e2c6b1a01"},
    "spec": {"containers": [{"name": "app", "image": "nginx:1.27"}]}
  }
}"#;

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    // One wasmtime engine (pooling allocator, epoch deadlines), the built-in module, and
    // compiled code from the on-disk cache when there is one.
    let planner = match Planner::wasm(
        None,
        ModuleCache::open_or_default(None),
        EngineSettings::default(),
    ) {
        Ok(planner) => planner,
        Err(HostError::NoEmbeddedModule) => return Ok(skipped()),
        Err(e) => return Err(e.into()),
    };
    let answer = planner.plan_json(REQUEST.as_bytes())?;
    let native = podplan_core::plan_json(REQUEST.as_bytes());
    if answer != native {
        eprintln!("the module's answer differs from the native core's");
        return Ok(ExitCode::FAILURE);
    }
    let plan: serde_json::Value = serde_json::from_slice(&answer)?;
    let ops: Vec<&str> = plan
        .get("steps")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|step| step.get("op").and_then(serde_json::Value::as_str))
        .collect();
    println!(
        "planned default/web under wasmtime ({} bytes, identical to the native core's)",
        answer.len()
    );
    println!("steps: {}", ops.join(", "));
    Ok(ExitCode::SUCCESS)
}

/// No module was built in: fine locally, an error in CI.
fn skipped() -> ExitCode {
    eprintln!(
        "SKIPPED: {} (run scripts/build-wasm)",
        HostError::NoEmbeddedModule
    );
    if std::env::var_os("PODPLAN_REQUIRE_WASM").is_some() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
