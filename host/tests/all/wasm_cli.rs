//! The CLI's wasm hooks: `plan --engine wasm` and `serve-module --watch FILE`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use podplan_wasmhost::testing::{module, variant};

fn podplan() -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_podplan"));
    cmd.env(
        "PODPLAN_CACHE_DIR",
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("podplan-module-cache"),
    );
    cmd
}

fn vectors() -> Vec<Vec<u8>> {
    podplan_wasmhost::embedded::sample_requests(6)
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

/// Runs `podplan plan ARGS` on `stdin`; (exit code, stdout, stderr).
fn plan_run(args: &[&str], stdin: &[u8]) -> (Option<i32>, Vec<u8>, String) {
    let mut child = podplan()
        .arg("plan")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The lines of a JSON Lines stream that `--jsonl` answers, and what each must print:
/// `podplan_core::plan_json` of the line (what the native engine printed before the
/// answer bytes were passed through: the typed plan, re-serialised), or its error.
fn jsonl_lines() -> Vec<Vec<u8>> {
    let mut lines = vectors();
    let first = lines[0].clone();
    // A bare pod (no `pod` key): API defaults applied.
    lines.push(br#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx"}]}}"#.to_vec());
    // Not JSON; then a request that fails validation (a pod without a spec).
    lines.push(br#"{"pod": oops"#.to_vec());
    lines.push(br#"{"pod":{"metadata":{"name":"x"}}}"#.to_vec());
    // The request's own proto3Json; and a line with a byte-order mark.
    let mut strict: serde_json::Value = serde_json::from_slice(&first).unwrap();
    strict["proto3Json"] = serde_json::json!(true);
    lines.push(serde_json::to_vec(&strict).unwrap());
    lines.push([&b"\xEF\xBB\xBF"[..], &first].concat());
    lines
}

#[test]
fn jsonl_prints_the_engines_answer_bytes_identically_for_both_engines() {
    let lines = jsonl_lines();
    let mut input = Vec::new();
    for line in &lines {
        input.extend_from_slice(line);
        input.extend_from_slice(b"\r\n\n");
    }
    let expected: Vec<u8> = lines
        .iter()
        .flat_map(|line| {
            let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
            let mut answer = podplan_core::plan_json(line);
            answer.push(b'\n');
            answer
        })
        .collect();
    let (code, native, stderr) = plan_run(&["--jsonl", "--engine", "native"], &input);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(
        String::from_utf8_lossy(&native),
        String::from_utf8_lossy(&expected)
    );
    let errors = native
        .split(|&b| b == b'\n')
        .filter(|l| l.starts_with(br#"{"error":"#))
        .count();
    assert_eq!(errors, 2, "the two bad lines get their error objects");
    // Each bad line is named on stderr (line numbers count the blank lines).
    let bad = lines.len() - 4;
    for n in [2 * bad + 1, 2 * bad + 3] {
        assert!(
            stderr.contains(&format!("line {n}: invalid input")),
            "{stderr}"
        );
    }
    if module().is_none() {
        return;
    }
    for isolation in ["pooled", "per-call"] {
        let (code, wasm, wasm_stderr) = plan_run(
            &["--jsonl", "--engine", "wasm", "--isolation", isolation],
            &input,
        );
        assert_eq!(code, Some(0), "{wasm_stderr}");
        assert_eq!(
            String::from_utf8_lossy(&wasm),
            String::from_utf8_lossy(&native),
            "{isolation}"
        );
        assert_eq!(wasm_stderr, stderr, "{isolation}");
    }
    // --proto3-json takes the typed path: still the same bytes from both engines.
    let (_, native, _) = plan_run(&["--jsonl", "--proto3-json"], &input);
    let (_, wasm, _) = plan_run(&["--jsonl", "--proto3-json", "--engine", "wasm"], &input);
    assert_eq!(
        String::from_utf8_lossy(&wasm),
        String::from_utf8_lossy(&native)
    );
    assert_ne!(native, expected, "--proto3-json changes the configs");
}

#[test]
fn one_document_prints_the_same_bytes_and_exit_code_from_both_engines() {
    let Some(_) = module() else { return };
    let lines = jsonl_lines();
    let cases: Vec<(Vec<&str>, &[u8])> = vec![
        (vec![], &lines[0]),
        (vec!["--pretty"], &lines[0]),
        (vec!["--proto3-json"], &lines[0]),
        (vec![], &lines[lines.len() - 4]), // not JSON
        (vec![], &lines[lines.len() - 3]), // invalid
        (vec![], &lines[lines.len() - 1]), // a byte-order mark
        (
            vec!["--input-format", "yaml"],
            b"pod:\n  spec:\n    containers: [{name: a, image: busybox}]\n",
        ),
    ];
    for (flags, document) in cases {
        let run = |engine: &str| {
            let mut args = vec!["--engine", engine];
            args.extend(&flags);
            plan_run(&args, document)
        };
        let native = run("native");
        let wasm = run("wasm");
        assert_eq!(
            (wasm.0, String::from_utf8_lossy(&wasm.1), &wasm.2),
            (native.0, String::from_utf8_lossy(&native.1), &native.2),
            "{flags:?} {}",
            String::from_utf8_lossy(document)
        );
        assert!(!native.1.is_empty());
    }
}
