//! Runs every vendored conformance vector (`conformance/` at the repo root), one
//! generated test per file. Vectors listed in `conformance/deviations.json` are places
//! where 1.37 behaves differently from the vector's (older) expectation: they must
//! *fail* against that expectation, and a listed vector that starts passing fails the
//! suite, as does any unlisted vector that fails. A listed vector with `expected137`
//! must, in addition, *pass* against that 1.37 expectation.

use std::path::Path;

/// Listed deviations: vector name → the 1.37 expectation, if recorded.
fn deviations() -> Vec<(String, Option<serde_json::Value>)> {
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
                .filter_map(|d| {
                    let name = d.get("vector").and_then(|v| v.as_str())?.to_string();
                    Some((name, d.get("expected137").cloned()))
                })
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn check(path: &Path, contents: String) -> datatest_stable::Result<()> {
    let vector: serde_json::Value = serde_json::from_str(&contents)?;
    let outcome = podplan_core::conformance::run_vector(&vector);
    let listed = deviations().into_iter().find(|(n, _)| *n == outcome.name);
    if let (false, Some((_, Some(expected137)))) = (outcome.passed, &listed) {
        let mut v137 = vector.clone();
        if let Some(o) = v137.as_object_mut() {
            o.insert("expected".to_string(), expected137.clone());
        }
        let again = podplan_core::conformance::run_vector(&v137);
        if !again.passed {
            return Err(format!(
                "{} ({}) differs from its 1.37 expectation (deviations.json):\n{}",
                outcome.name,
                path.display(),
                again.diff
            )
            .into());
        }
    }
    match (outcome.passed, listed.is_some()) {
        (true, false) | (false, true) => Ok(()),
        (false, false) => Err(format!("{} ({}) differs:\n{}", outcome.name, path.display(), outcome.diff).into()),
        (true, true) => Err(format!(
            "{} is listed in conformance/deviations.json but now passes its original expectation: remove it from the list",
            outcome.name
        )
        .into()),
    }
}
