//! `podplan agent --manifest-url` as a binary: bad flags, and the agent running the pods
//! of a URL served on 127.0.0.1 (the URL source's library tests are podplan-agent's).

use std::process::Command;

use podplan_agent::manifest_url::{parse_headers, UrlSource, UrlSourceError};
use podplan_testsupport::served::{server, set};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: nginx:1.27\n";

#[test]
fn bad_flags_are_refused_with_the_flag_named() {
    assert!(matches!(
        UrlSource::new("ftp://example.invalid/pods", Vec::new(), "n1"),
        Err(UrlSourceError::BadUrl { .. })
    ));
    let e = parse_headers(&["novalue".into()]).unwrap_err();
    assert!(e.to_string().contains("--manifest-url-header"), "{e}");
    let out = Command::new(env!("CARGO_BIN_EXE_podplan"))
        .args([
            "agent",
            "--once",
            "--dry-run",
            "--manifest-url",
            "not a url",
        ])
        .env_remove("CONTAINER_RUNTIME_ENDPOINT")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--manifest-url"));
}

#[test]
fn the_agent_runs_the_pods_of_its_manifest_url() {
    let (url, served) = server();
    set(&served, 200, POD);
    let dir = tempfile::tempdir().unwrap();
    let out = crate::agent_cli::agent_in(dir.path())
        .args([
            "--once",
            "--dry-run",
            "--node-name",
            "n1",
            "--manifest-url",
            &url,
        ])
        .args(["--manifest-url-header", "Authorization:Bearer t0ken"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["pod"], "default/web-n1");
    assert_eq!(lines[0]["file"], url);
    let requests = &served.lock().unwrap().requests;
    assert!(
        requests[0]
            .iter()
            .any(|l| l.eq_ignore_ascii_case("authorization: Bearer t0ken")),
        "{requests:?}"
    );
}
