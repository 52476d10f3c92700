//! The CLI's wasm hooks: `plan --engine wasm` and `serve-module --watch FILE`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::support::{module, variant};

fn podplan() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_podplan"));
    cmd.env(
        "PODPLAN_CACHE_DIR",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("podplan-module-cache"),
    );
    cmd
}

fn vectors() -> Vec<Vec<u8>> {
    podplan_host::wasm::embedded::sample_requests(6)
        .into_iter()
        .map(|s| s.request)
        .collect()
}

#[test]
fn plan_with_the_wasm_engine_prints_what_the_native_engine_prints() {
    if module().is_none() {
        return;
    }
    for request in vectors() {
        let run = |engine: &str, isolation: &str| {
            let mut child = podplan()
                .args(["plan", "--engine", engine, "--isolation", isolation])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&request).unwrap();
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{engine}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            out.stdout
        };
        let native = run("native", "pooled");
        assert!(!native.is_empty());
        assert_eq!(run("wasm", "pooled"), native);
        assert_eq!(run("wasm", "per-call"), native);
    }
}

#[test]
fn serve_module_swaps_valid_modules_in_and_keeps_serving_through_bad_ones() {
    let Some(good) = module() else { return };
    let dir = tempfile::tempdir().unwrap();
    let watched = dir.path().join("podplan.wasm");
    let mut child = podplan()
        .args([
            "-v",
            "serve-module",
            "--watch",
            watched.to_str().unwrap(),
            "--poll-ms",
            "50",
            "--self-test",
            "3",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let (log_tx, log_rx) = mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    let logger = std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = log_tx.send(line);
        }
    });
    let wait_for = |needle: &str| {
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            if let Ok(line) = log_rx.recv_timeout(Duration::from_millis(200)) {
                if line.contains(needle) {
                    return line;
                }
            }
        }
        panic!("no log line containing {needle:?}");
    };
    let requests = vectors();
    let mut ask = |request: &[u8]| {
        stdin.write_all(request).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        stdout.read_line(&mut line).unwrap();
        assert_eq!(
            line.trim_end().as_bytes(),
            &podplan_core::plan_json(request)[..]
        );
    };

    // Nothing at the watched path yet: the built-in module serves.
    wait_for("module live");
    for r in &requests {
        ask(r);
    }
    // A valid module appears: it is checked and swapped in.
    std::fs::write(&watched, variant(good, "served")).unwrap();
    let swapped = wait_for("module swapped in");
    assert!(swapped.contains("generation=2"), "{swapped}");
    for r in &requests {
        ask(r);
    }
    // A broken one: rejected, and generation 2 keeps serving.
    std::fs::write(&watched, b"\0asm\x01\0\0\0broken").unwrap();
    wait_for("candidate module rejected");
    let status = wait_for("module slot status");
    assert!(status.contains("rejections=1"), "{status}");
    for r in &requests {
        ask(r);
    }
    drop(stdin);
    let exit = child.wait().unwrap();
    assert!(exit.success());
    logger.join().unwrap();
}
