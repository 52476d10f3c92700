//! `podplan runtime-sim` as a binary (the simulated runtime's library tests are
//! podplan-agent's).

use std::time::Duration;

use podplan_cri::client::{self};
use podplan_cri::pb;

#[test]
fn the_binary_serves_until_sigterm_and_removes_its_socket() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("sim.sock");
    let endpoint = format!("unix://{}", socket.display());
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_podplan"))
        .args([
            "runtime-sim",
            "--listen",
            &endpoint,
            "--runtime-name",
            "containerd",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !socket.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "no socket at {}",
            socket.display()
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let name = runtime.block_on(async {
        let mut client = client::runtime_client(client::connect(&endpoint).await.unwrap());
        client
            .version(pb::VersionRequest::default())
            .await
            .unwrap()
            .into_inner()
            .runtime_name
    });
    assert_eq!(name, "containerd");
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("serving CRI runtime.v1 on unix://"),
        "{stderr}"
    );
    assert!(!socket.exists());
}

#[test]
fn a_bad_scenario_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = dir.path().join("scenario.yaml");
    std::fs::write(&scenario, "containers:\n  app: {exit: {code: one}}\n").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_podplan"))
        .args([
            "runtime-sim",
            "--listen",
            "unix:///nonexistent/sim.sock",
            "--scenario",
        ])
        .arg(&scenario)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not a runtime-sim scenario"), "{stderr}");
}
