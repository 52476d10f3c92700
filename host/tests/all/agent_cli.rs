//! `podplan agent` as a binary: `--once`, bad manifests, an unreachable socket, and end
//! to end over a unix socket with the `podplan runtime-sim` binary (the agent's library
//! tests are podplan-agent's).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use podplan_agent::status::{self};
use podplan_testsupport::manifests::{write, WEB};

use crate::support::podplan;

// ---------------------------------------------------------------- manifest source

/// `podplan agent` on the in-process simulated runtime, its root and log directories
/// under `dir` (`root`, `logs`); the caller adds the rest.
pub fn agent_in(dir: &Path) -> Command {
    let mut cmd = podplan();
    cmd.arg("agent")
        .arg("--root-dir")
        .arg(dir.join("root"))
        .arg("--pod-logs-dir")
        .arg(dir.join("logs"))
        .env_remove("CONTAINER_RUNTIME_ENDPOINT");
    cmd
}

#[test]
fn once_prints_every_plan_and_dry_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("m");
    std::fs::create_dir(&manifests).unwrap();
    write(&manifests, "web.yaml", WEB);
    let out = agent_in(dir.path())
        .args([
            "--once",
            "--dry-run",
            "--node-name",
            "n1",
            "--pod-manifest-path",
        ])
        .arg(&manifests)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("in-process simulated runtime"), "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["pod"], "default/web-n1");
    let ops: Vec<&str> = lines[0]["plan"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["op"].as_str().unwrap())
        .collect();
    assert!(
        ops.contains(&"RunPodSandbox") && ops.contains(&"CreateContainer"),
        "{ops:?}"
    );
    assert!(!dir.path().join("root").exists(), "--dry-run wrote nothing");
    assert!(!dir.path().join("logs").exists());
}

#[test]
fn bad_manifests_and_an_unreachable_runtime_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "bad.yaml", "kind: Pod\nmetadata: {name: b}\nspec: {containers: [{name: a, image: x}, {name: a, image: y}]}\n");
    let out = podplan()
        .args([
            "agent",
            "--once",
            "--dry-run",
            "--node-name",
            "n1",
            "--pod-manifest-path",
        ])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("bad.yaml: pod.spec.containers[1].name"),
        "{stderr}"
    );

    let out = podplan()
        .args([
            "agent",
            "--once",
            "--node-name",
            "n1",
            "--container-runtime-endpoint",
            "unix:///nonexistent/podplan.sock",
            "--pod-manifest-path",
        ])
        .arg(dir.path())
        .arg("--root-dir")
        .arg(dir.path().join("root"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("cannot reach the CRI runtime at unix:///nonexistent/podplan.sock"),
        "{stderr}"
    );
}

/// Kills a child process when dropped (the test's own processes only).
struct Child(std::process::Child);

impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn wait_for(what: &str, timeout: Duration, mut check: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !check() {
        assert!(start.elapsed() < timeout, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn e2e_over_a_unix_socket_with_the_agent_and_runtime_sim_binaries() {
    let dir = tempfile::tempdir().unwrap();
    let manifests = dir.path().join("pods");
    std::fs::create_dir(&manifests).unwrap();
    write(&manifests, "web.yaml", WEB);
    let scenario = dir.path().join("scenario.json");
    std::fs::write(
        &scenario,
        r#"{"images": {"preloaded": ["busybox:1.36", "nginx:1.27"]}}"#,
    )
    .unwrap();
    let socket = format!("unix://{}", dir.path().join("cri.sock").display());
    let _sim = Child(
        podplan()
            .args(["runtime-sim", "--listen", &socket, "--scenario"])
            .arg(&scenario)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    wait_for("the runtime-sim socket", Duration::from_secs(20), || {
        dir.path().join("cri.sock").exists()
    });
    let root = dir.path().join("root");
    // The agent on the runtime-sim's socket, `root` and `logs` under `dir`.
    let agent_cmd = || {
        let mut cmd = agent_in(dir.path());
        cmd.args(["--node-name", "n1", "--container-runtime-endpoint", &socket])
            .arg("--pod-manifest-path")
            .arg(&manifests);
        cmd
    };
    let spawn_agent = || {
        Child(
            agent_cmd()
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap(),
        )
    };
    let mut agent = spawn_agent();
    let pod_row = |field: &str| -> Option<String> {
        let s = status::read(&root).ok()?;
        let pod = s.pods.iter().find(|p| p["pod"] == "default/web-n1")?;
        pod["kubectl"][field].as_str().map(str::to_string)
    };
    wait_for("the pod to run", Duration::from_secs(30), || {
        pod_row("status").as_deref() == Some("Running")
            && pod_row("ready").as_deref() == Some("2/2")
    });
    let s = status::read(&root).unwrap();
    assert_eq!(s.endpoint, socket);
    assert!(s.errors.is_empty(), "{:?}", s.errors);
    assert!(
        dir.path()
            .join("logs/default_web-n1_")
            .parent()
            .unwrap()
            .read_dir()
            .unwrap()
            .count()
            >= 1
    );
    // SIGTERM stops the agent and leaves the pod running: a new agent finds nothing to do.
    let pid = agent.0.id().to_string();
    assert!(Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap()
        .success());
    agent.0.wait().unwrap();
    let out = agent_cmd().args(["--once", "--dry-run"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["plan"]["steps"], serde_json::json!([]), "{line}");
    // (Its status is not the running agent's: a restarted agent has no probe results yet,
    // and --dry-run runs no probe, so the sidecar counts as not started, as after a
    // kubelet restart; nothing is killed or created for it.)
    let _agent = spawn_agent();
    std::fs::remove_file(manifests.join("web.yaml")).unwrap();
    wait_for("the pod to go", Duration::from_secs(30), || {
        status::read(&root).is_ok_and(|s| s.pods.is_empty())
    });
    let out = podplan()
        .args(["agent", "status", "--root-dir"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
