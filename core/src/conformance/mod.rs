//! Conformance vectors (`conformance/` in the repo): run one vector, say whether the
//! engine agrees with the kubelet, and show a readable diff when it does not.
//!
//! Pure: callers read the files. Two kinds of vector exist: `actions`
//! (`{name, source, request, expected: {actions}}`) and `config`
//! (`{name, source, function, input, expected, compare?}`).

pub mod actions;
pub mod config;
mod diff;

pub use diff::json_diff;

/// The result of running one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The vector's `name`.
    pub name: String,
    /// The vector's kind: `actions`, `config`, or `unknown`.
    pub kind: &'static str,
    /// Whether the engine agrees with the expectation.
    pub passed: bool,
    /// What differs (empty when passed).
    pub diff: String,
}

/// Runs one vector of either kind. A vector that cannot be interpreted fails.
#[must_use]
pub fn run_vector(vector: &serde_json::Value) -> Outcome {
    let name = vector
        .get("name")
        .and_then(|v| v.as_str())
        .unwrap_or("<unnamed>")
        .to_string();
    let result = if vector.get("function").is_some() {
        ("config", config::check(vector))
    } else if vector.get("request").is_some() {
        ("actions", actions::check(vector))
    } else {
        (
            "unknown",
            Err("not a conformance vector: it has neither `request` nor `function`".to_string()),
        )
    };
    match result {
        (kind, Ok(())) => Outcome {
            name,
            kind,
            passed: true,
            diff: String::new(),
        },
        (kind, Err(diff)) => Outcome {
            name,
            kind,
            passed: false,
            diff,
        },
    }
}
