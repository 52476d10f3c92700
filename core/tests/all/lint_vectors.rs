//! The lint vectors (`core/tests/lint/*.json`): each object, API-defaulted as the
//! CLI does for files, gives exactly the expected findings (rule and path). Each vector
//! is also shown in `docs/lint.md`.
#![expect(
    clippy::expect_used,
    reason = "test helpers outside #[test] fns fail by panicking"
)]

use std::collections::BTreeSet;
use std::path::Path;

use podplan_core::lint::{lint_object, LintSettings};
use serde_json::Value;

fn vectors() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint");
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .expect("vector dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let name = p.file_stem().expect("stem").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).expect("read vector");
            (name, serde_json::from_str(&text).expect("vector JSON"))
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

fn pairs(findings: &Value) -> BTreeSet<(String, String)> {
    findings
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| {
            (
                f.get("rule")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                f.get("path")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn every_vector_gives_its_findings() {
    let vectors = vectors();
    assert!(vectors.len() >= 10, "{} vectors", vectors.len());
    for (name, v) in &vectors {
        let settings: LintSettings = match v.get("settings") {
            Some(s) => serde_json::from_value(s.clone()).expect("settings"),
            None => LintSettings::default(),
        };
        let object = v.get("object").expect("object");
        let findings =
            lint_object(object, &settings, true).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = pairs(&serde_json::to_value(&findings).expect("findings"));
        let want = pairs(v.get("expect").expect("expect"));
        assert_eq!(got, want, "{name}: {findings:#?}");
    }
}

#[test]
fn every_rule_has_a_failing_and_a_passing_vector() {
    let names: BTreeSet<String> = vectors().into_iter().map(|(n, _)| n).collect();
    for rule in podplan_core::lint::Rule::ALL {
        for end in ["fail", "pass"] {
            let name = format!("{}-{end}", rule.id());
            assert!(names.contains(&name), "missing vector {name}");
        }
    }
}

/// Each vector's object appears, as JSON, in `docs/lint.md` under a heading that names
/// the vector file.
#[test]
fn docs_show_every_vector() {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/lint.md"))
            .expect("docs/lint.md");
    for (name, v) in vectors() {
        let marker = format!("`{name}.json`");
        let at = docs
            .find(&marker)
            .unwrap_or_else(|| panic!("docs/lint.md does not name {marker}"));
        let rest = docs.get(at..).unwrap_or_default();
        let block = rest
            .split("```json")
            .nth(1)
            .and_then(|b| b.split("```").next())
            .unwrap_or_else(|| panic!("no JSON block after {marker}"));
        let shown: Value = serde_json::from_str(block).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            Some(&shown),
            v.get("object"),
            "{name}: docs differ from the vector"
        );
    }
}
