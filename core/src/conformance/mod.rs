//! Conformance vectors (`conformance/` in the repo): run one vector, say whether the
//! engine agrees with the kubelet, and show a readable diff when it does not.
//!
//! Pure: callers read the files. Two kinds of vector exist: `actions`
//! (`{name, source, request, expected: {actions}}`) and function-level vectors
//! (`{name, source, function, input, expected, compare?}`: `config`, `status`, `images`).
//!
//! A function-level vector whose function the engine does not implement yet is
//! *pending*: it is neither passed nor failed, and runners report it apart.

pub mod actions;
pub mod config;
mod diff;
pub(crate) mod hooks;
pub(crate) mod images;
pub(crate) mod status;
pub(crate) mod terminate;

pub use diff::json_diff;

/// Functions of the vendored `status/` and `images/` suites that the engine does not
/// implement yet. Their vectors are reported as pending, never as passed; a function
/// leaves this list when it is implemented.
pub(crate) const PENDING_FUNCTIONS: &[&str] = &[];

/// The result of running one vector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The vector's `name`.
    pub name: String,
    /// The vector's kind: `actions`, `config`, `images`, `hooks`, `termination`, `status`, `pending`, or `unknown`.
    pub kind: &'static str,
    /// Whether the engine agrees with the expectation (false when pending).
    pub passed: bool,
    /// The vector's function is not implemented yet: not run, neither passed nor failed.
    pub pending: bool,
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
    let function = vector.get("function").and_then(|v| v.as_str());
    if function.is_some_and(|f| PENDING_FUNCTIONS.contains(&f)) {
        return Outcome {
            name,
            kind: "pending",
            passed: false,
            pending: true,
            diff: String::new(),
        };
    }
    let result = if function.is_some_and(|f| hooks::FUNCTIONS.contains(&f)) {
        ("hooks", hooks::check(vector))
    } else if function.is_some_and(|f| terminate::FUNCTIONS.contains(&f)) {
        ("termination", terminate::check(vector))
    } else if function.is_some_and(|f| images::FUNCTIONS.contains(&f)) {
        ("images", images::check(vector))
    } else if function.is_some_and(|f| status::FUNCTIONS.contains(&f)) {
        ("status", status::check(vector))
    } else if function.is_some() {
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
            pending: false,
            diff: String::new(),
        },
        (kind, Err(diff)) => Outcome {
            name,
            kind,
            passed: false,
            pending: false,
            diff,
        },
    }
}
