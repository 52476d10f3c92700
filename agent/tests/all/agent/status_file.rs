//! `status.json`: written atomically, read back, stale.

use super::*;

#[test]
fn the_status_file_is_written_atomically_and_read_back_and_goes_stale() {
    let dir = tempfile::tempdir().unwrap();
    let s = AgentStatus {
        written_at: Some(t0()),
        node: "n1".into(),
        endpoint: "sim".into(),
        engine: serde_json::json!("native"),
        rounds: 3,
        errors: vec!["boom".into()],
        ..AgentStatus::default()
    };
    status::write(dir.path(), &s).unwrap();
    let files: Vec<_> = std::fs::read_dir(dir.path().join("podplan-agent"))
        .unwrap()
        .collect();
    assert_eq!(files.len(), 1, "no temporary file left behind");
    assert_eq!(status::read(dir.path()).unwrap(), s);
    assert_eq!(
        status::staleness(&s, t0() + jiff::SignedDuration::from_secs(2)),
        None
    );
    assert_eq!(
        status::staleness(&s, t0() + jiff::SignedDuration::from_secs(42)),
        Some(42)
    );
    assert!(status::read(&dir.path().join("nowhere"))
        .unwrap_err()
        .contains("is `podplan agent` running"));
}
