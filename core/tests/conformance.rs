//! Runs every vendored conformance vector (`conformance/` at the repo root), one
//! generated test per file. Vectors listed in `conformance/deviations.json` are places
//! where 1.37 behaves differently from the vector's (older) expectation: they must
//! *fail* against that expectation, and a listed vector that starts passing fails the
//! suite, as does any unlisted vector that fails.

use std::path::Path;

fn deviations() -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/deviations.json");
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let parsed: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    parsed
        .get("deviations")
        .and_then(|d| d.as_array())
        .map(|list| {
            list.iter()
                .filter_map(|d| d.get("vector").and_then(|v| v.as_str()).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn check(path: &Path, contents: String) -> datatest_stable::Result<()> {
    let vector: serde_json::Value = serde_json::from_str(&contents)?;
    let outcome = podplan_core::conformance::run_vector(&vector);
    let listed = deviations().contains(&outcome.name);
    match (outcome.passed, listed) {
        (true, false) | (false, true) => Ok(()),
        (false, false) => Err(format!("{} ({}) differs:\n{}", outcome.name, path.display(), outcome.diff).into()),
        (true, true) => Err(format!(
            "{} is listed in conformance/deviations.json but now passes its original expectation: remove it from the list",
            outcome.name
        )
        .into()),
    }
}

datatest_stable::harness! {
    { test = check, root = "../conformance", pattern = r"^(actions|config)/.*\.json$" },
}
