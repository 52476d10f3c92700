//! The request corpus every runner of the engine is checked on (native, wasmtime, Node):
//! the request of every action vector (the vendored `conformance/actions` and the
//! project's own `core/tests/vectors/actions`), plus edge cases (bad and hostile input).
//!
//! Requests are bytes, so each runner is given exactly the same input.

use std::path::{Path, PathBuf};

/// One request of the corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Where it comes from: the vector's path relative to the repo root, or `edge/<name>`.
    pub name: String,
    /// The request bytes (JSON, or deliberately not).
    pub request: Vec<u8>,
}

/// The repository root (this crate's parent directory).
#[must_use]
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// Directories (under the repository root) whose `**/*.json` action vectors are in the corpus.
pub const VECTOR_DIRS: &[&str] = &["conformance/actions", "core/tests/vectors/actions"];

/// Every action vector's request (by directory of [`VECTOR_DIRS`], sorted by path), then
/// the edge cases. A missing directory is skipped; the first one must exist.
///
/// # Errors
///
/// A vector that cannot be read or has no `request`.
pub fn load(root: &Path) -> Result<Vec<Case>, String> {
    let mut files = Vec::new();
    for (i, dir) in VECTOR_DIRS.iter().enumerate() {
        let dir = root.join(dir);
        if i == 0 || dir.is_dir() {
            let mut found = Vec::new();
            collect_json(&dir, &mut found)?;
            found.sort();
            files.extend(found);
        }
    }
    let mut cases = Vec::with_capacity(files.len() + 16);
    for file in files {
        let text = std::fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let vector: serde_json::Value =
            serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", file.display()))?;
        let request = vector
            .get("request")
            .ok_or_else(|| format!("{}: no `request`", file.display()))?;
        let name = file
            .strip_prefix(root)
            .unwrap_or(&file)
            .to_string_lossy()
            .into_owned();
        let request = serde_json::to_vec(request).map_err(|e| format!("{name}: {e}"))?;
        cases.push(Case { name, request });
    }
    cases.extend(edge_cases());
    Ok(cases)
}

/// Bad, odd and hostile requests: every runner must answer them exactly as the native
/// core does (errors included), and none may crash.
#[must_use]
pub fn edge_cases() -> Vec<Case> {
    // `resources` of a container status is free-form JSON: the deepest legal nesting
    // (just inside serde_json's limit of 128) and far past it.
    let status = |resources: &str| {
        format!(
            r#"{{"pod":{{"spec":{{"containers":[{{"name":"app","image":"busybox"}}]}}}},"runtimeStatus":{{"sandboxStatuses":[{{"id":"s1","state":"SANDBOX_READY"}}],"containerStatuses":[{{"id":"://c1","name":"app","state":"running","resources":{resources}}}]}}}}"#
        )
        .into_bytes()
    };
    let deep_ok = status(&format!("{}1{}", "[".repeat(120), "]".repeat(120)));
    let too_deep = status(&"[".repeat(100_000));
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", Vec::new()),
        ("not-json", b"not json".to_vec()),
        ("truncated", br#"{"pod":{"spec":{"containers":[{"name":"a""#.to_vec()),
        ("trailing-garbage", br#"{"pod":{}} x"#.to_vec()),
        ("array", b"[1,2,3]".to_vec()),
        ("null", b"null".to_vec()),
        ("empty-object", b"{}".to_vec()),
        ("minimal-pod", br#"{"pod":{}}"#.to_vec()),
        (
            "bare-pod",
            br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"default","uid":"u1"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}"#.to_vec(),
        ),
        (
            "unknown-field",
            br#"{"pod":{"spec":{"containers":[{"name":"a","imag":"x"}]}}}"#.to_vec(),
        ),
        ("wrong-type", br#"{"pod":{"spec":{"containers":[{"name":5}]}}}"#.to_vec()),
        (
            "unicode",
            "{\"pod\":{\"metadata\":{\"name\":\"p\u{e9}d-\u{1F680}\",\"annotations\":{\"a\":\"\\u0000\\n\\\"\"}},\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"busybox\"}]}}}"
                .as_bytes()
                .to_vec(),
        ),
        ("invalid-utf8", b"{\"pod\":{\"metadata\":{\"name\":\"\xff\xfe\"}}}".to_vec()),
        ("deep-nesting", {
            let mut s = br#"{"pod":{"metadata":{"annotations":"#.to_vec();
            s.extend(std::iter::repeat_n(b'[', 100_000));
            s
        }),
        ("deep-free-form-120", deep_ok),
        ("deep-free-form-100000", too_deep),
        ("oversize", {
            let mut s = br#"{"pod":{},"now":""#.to_vec();
            s.extend(std::iter::repeat_n(b' ', podplan_core::limits::MAX_REQUEST_BYTES));
            s.extend(br#""}"#);
            s
        }),
    ];
    cases
        .into_iter()
        .map(|(name, request)| Case {
            name: format!("edge/{name}"),
            request,
        })
        .collect()
}

fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect_json(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpus_has_every_action_vector_and_the_edge_cases() {
        let cases = load(&repo_root()).unwrap_or_default();
        let vendored = cases
            .iter()
            .filter(|c| c.name.starts_with("conformance/actions/"))
            .count();
        assert!(
            vendored >= 50,
            "only {vendored} vendored action vectors found"
        );
        let vectors = cases
            .iter()
            .filter(|c| VECTOR_DIRS.iter().any(|d| c.name.starts_with(d)))
            .count();
        assert_eq!(cases.len(), vectors + edge_cases().len());
        assert!(edge_cases().iter().all(|e| e.name.starts_with("edge/")));
    }
}
