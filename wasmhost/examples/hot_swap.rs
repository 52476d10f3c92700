//! Hot-swapping podplan's wasm module: a [`ModuleSlot`] serves the built-in module, takes
//! a new version (checked first: load, ABI, self-test on conformance vectors), refuses a
//! broken one while the live module keeps serving, and rolls back.
//!
//! ```sh
//! scripts/build-wasm                                  # the module (wasm/pkg/abi)
//! cargo run -p podplan-wasmhost --example hot_swap
//! ```
//!
//! Without the module built in, it says so and exits 0 (1 when `PODPLAN_REQUIRE_WASM` is
//! set, as in CI).

use std::process::ExitCode;

use podplan_wasmhost::{embedded, EngineSettings, HostEngine, HostError, ModuleCache};
use podplan_wasmhost::{testing, ModuleSlot, SlotConfig};

const REQUEST: &[u8] =
    br#"{"pod":{"metadata":{"name":"web","namespace":"default","uid":"u-1"},"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}"#;

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let module = match embedded::module_bytes() {
        Ok(bytes) => bytes,
        Err(HostError::NoEmbeddedModule) => return Ok(skipped()),
        Err(e) => return Err(e.into()),
    };
    let engine = HostEngine::new(EngineSettings::default())?;
    let cache = ModuleCache::open_or_default(None);
    let slot = ModuleSlot::new(engine, cache, SlotConfig::default(), module, "embedded")?;
    let (generation, answer) = slot.plan_json_on_generation(REQUEST);
    println!("generation {generation} answered ({} bytes)", answer?.len());

    // A new version of the module: the same code with an extra custom section, so another
    // SHA-256 (made with the test helpers of the feature `testing`, which this crate's
    // examples have; a real deployment swaps in a file it was given). It goes live only
    // after the slot's checks.
    let next = testing::with_custom_section(module, "podplan-example", b"v2");
    let report = slot.swap(&next, "v2")?;
    println!(
        "swapped in generation {} (sha256 {}..., self-test on {} vectors, loaded in {:?})",
        report.generation,
        report.sha256.get(..12).unwrap_or_default(),
        report.self_test.total,
        report.load_time
    );

    // A broken candidate is refused; the live generation keeps serving.
    let refused = slot.swap(b"\0asm\x01\0\0\0broken", "broken");
    println!("broken candidate refused: {}", refused.is_err());
    let (generation, answer) = slot.plan_json_on_generation(REQUEST);
    println!(
        "generation {generation} still answers ({} bytes)",
        answer?.len()
    );

    // Back to the first module (a rollback is a new generation).
    let back = slot.rollback()?;
    let status = slot.status();
    println!(
        "rolled back: generation {back} from {}; {} swaps, {} rejections, {} rollbacks, {} calls",
        status.source, status.swaps, status.rejections, status.rollbacks, status.calls
    );
    let expected = podplan_core::plan_json(REQUEST);
    if slot.plan_json(REQUEST)? != expected || refused.is_ok() {
        eprintln!("unexpected: the slot's answers or checks are wrong");
        return Ok(ExitCode::FAILURE);
    }
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
