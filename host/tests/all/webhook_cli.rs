//! `podplan webhook` as a binary: its help and flags, SIGTERM and the drain, the shutdown
//! grace and JSON logs, 64 connections of recorded reviews under the memory limit (the
//! server's library tests are podplan-admission's).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::{Request, StatusCode};
use podplan_admission::review;
use podplan_core::lint::LintSettings;
use podplan_testsupport::https::{certificate, connect, connector, get, post, runtime, Sender};
use podplan_testsupport::reviews::large_pod_review;
use serde_json::Value;
use tokio_rustls::rustls::pki_types::CertificateDer;

use crate::support::podplan;

fn data(name: &str) -> Vec<u8> {
    podplan_testsupport::test_data(&format!("admission/{name}"))
}

#[test]
fn the_command_explains_itself_and_refuses_a_missing_certificate() {
    let help = podplan().args(["webhook", "--help"]).output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    for needle in [
        "--tls-cert-file",
        "--tls-private-key-file",
        "--port",
        "/validate",
        "/healthz",
        "413",
        "SIGTERM",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
    let missing = podplan()
        .args([
            "webhook",
            "--tls-cert-file",
            "/nonexistent/tls.crt",
            "--tls-private-key-file",
            "/nonexistent/tls.key",
            "--port",
            "0",
        ])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("/nonexistent/tls.crt"));
}

/// The binary serves, answers, and exits 0 on SIGTERM.
#[test]
fn the_binary_serves_and_stops_on_sigterm() {
    let mut process = spawn_webhook(&[]);
    runtime().block_on(async {
        let (mut client, _) = connect(process.addr, &connector(&[&process.der])).await;
        let (status, body) = post(
            &mut client,
            "/validate",
            Some("application/json"),
            data("pod-rejected-nonroot.review.json"),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["response"]["allowed"], false);
    });
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &process.child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = process.child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

/// A `podplan webhook` process on 127.0.0.1 with throwaway certificates.
struct Process {
    child: std::process::Child,
    addr: SocketAddr,
    der: CertificateDer<'static>,
    _dir: tempfile::TempDir,
    /// The rest of stderr, drained by a thread (the logs).
    logs: std::sync::mpsc::Receiver<String>,
}

fn spawn_webhook(extra: &[&str]) -> Process {
    use std::io::{BufRead, BufReader};
    let (cert, key, der) = certificate();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tls.crt"), cert).unwrap();
    std::fs::write(dir.path().join("tls.key"), key).unwrap();
    let mut child = podplan()
        .args(["webhook", "--bind-address", "127.0.0.1", "--port", "0"])
        .arg("--tls-cert-file")
        .arg(dir.path().join("tls.crt"))
        .arg("--tls-private-key-file")
        .arg(dir.path().join("tls.key"))
        .args(extra)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("podplan webhook: serving https://")
        .and_then(|rest| rest.strip_suffix("/validate"))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .parse()
        .unwrap();
    let (tx, logs) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Process {
        child,
        addr,
        der,
        _dir: dir,
        logs,
    }
}

/// A process's peak resident set (VmHWM), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Every recorded review of test_data/admission/ and the status and verdict the
/// default settings give it.
fn recorded_reviews() -> Vec<(Vec<u8>, StatusCode, Option<bool>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test_data/admission");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".review.json"))
        .collect();
    names.sort();
    assert!(names.len() >= 15, "{names:?}");
    names
        .iter()
        .map(|n| {
            let body = data(n);
            let answer = review(&body, &LintSettings::default());
            let status = match answer.outcome {
                podplan_admission::Outcome::Malformed => StatusCode::BAD_REQUEST,
                _ => StatusCode::OK,
            };
            let allowed = answer.review.response.as_ref().map(|r| r.allowed);
            (body, status, allowed)
        })
        .collect()
}

/// 64 connections of real reviews against the binary: bounded in count (64 × 40) and
/// time (120 s), no error, and the server's peak RSS under the Deployment's 256 Mi limit.
#[test]
fn sixty_four_connections_of_real_reviews_stay_under_the_memory_limit() {
    const CONNECTIONS: usize = 64;
    const PER_CONNECTION: usize = 40;
    let mut server = spawn_webhook(&[]);
    let cases = Arc::new(recorded_reviews());
    let tls = connector(&[&server.der]);
    let addr = server.addr;
    let (failures, elapsed, latencies) = runtime().block_on(async {
        let started = Instant::now();
        let mut tasks = Vec::new();
        for worker in 0..CONNECTIONS {
            let tls = tls.clone();
            let cases = Arc::clone(&cases);
            tasks.push(tokio::spawn(async move {
                let (mut client, _) = connect(addr, &tls).await;
                let mut failures = Vec::new();
                let mut latencies = Vec::new();
                for i in 0..PER_CONNECTION {
                    let (body, status, allowed) = &cases[(worker + i) % cases.len()];
                    let t = Instant::now();
                    let (got, answer) = post(
                        &mut client,
                        "/validate",
                        Some("application/json"),
                        body.clone(),
                    )
                    .await;
                    latencies.push(t.elapsed());
                    let answer: Value = serde_json::from_slice(&answer).unwrap_or(Value::Null);
                    if got != *status
                        || answer["response"]["allowed"].as_bool() != *allowed
                        || answer["response"]["warnings"].as_array().is_some_and(|w| {
                            w.iter()
                                .any(|w| w.as_str().unwrap_or("").contains("not checked"))
                        })
                    {
                        failures.push(format!("{got} {answer}"));
                    }
                }
                (failures, latencies)
            }));
        }
        let all = async {
            let mut failures = Vec::new();
            let mut latencies = Vec::new();
            for task in tasks {
                let (f, l) = task.await.unwrap();
                failures.extend(f);
                latencies.extend(l);
            }
            (failures, latencies)
        };
        let (failures, latencies) = tokio::time::timeout(Duration::from_secs(120), all)
            .await
            .expect("the load did not finish in 120 s");
        (failures, started.elapsed(), latencies)
    });
    let peak = peak_rss_kib(server.child.id());
    let mut latencies = latencies;
    latencies.sort();
    println!(
        "webhook load: {} reviews over {CONNECTIONS} connections in {elapsed:.1?} ({:.0}/s), \
         p50 {:.2?}, p99 {:.2?}; server peak RSS {} KiB ({} MiB)",
        latencies.len(),
        latencies.len() as f64 / elapsed.as_secs_f64(),
        latencies[latencies.len() / 2],
        latencies[latencies.len() * 99 / 100],
        peak,
        peak / 1024
    );
    unsafe_kill(&server.child, "TERM");
    assert_eq!(server.child.wait().unwrap().code(), Some(0));
    assert!(
        failures.is_empty(),
        "{} failures: {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    assert_eq!(latencies.len(), CONNECTIONS * PER_CONNECTION);
    assert!(peak < 256 * 1024, "peak RSS {peak} KiB");
}

fn unsafe_kill(child: &std::process::Child, signal: &str) {
    let killed = std::process::Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
}

/// SIGTERM under load: readiness turns 503 at once, every request sent during the drain
/// period is answered, and the process exits 0 within its grace.
#[test]
fn sigterm_under_load_loses_no_request_during_the_drain() {
    const CLIENTS: usize = 16;
    let drain = Duration::from_secs(2);
    let mut server = spawn_webhook(&["--drain-period", "2s", "--shutdown-grace", "6s"]);
    let tls = connector(&[&server.der]);
    let addr = server.addr;
    let body = data("deployment-accepted.review.json");
    let pid = server.child.id();
    let (sent, lost, reconnects, ready_after, signalled) = runtime().block_on(async {
        let stop_at = Arc::new(std::sync::Mutex::new(None::<Instant>));
        let mut tasks = Vec::new();
        for _ in 0..CLIENTS {
            let tls = tls.clone();
            let body = body.clone();
            let stop_at = Arc::clone(&stop_at);
            tasks.push(tokio::spawn(async move {
                let (mut sent, mut lost, mut reconnects) = (0usize, Vec::new(), 0usize);
                let mut client: Option<Sender> = None;
                loop {
                    if stop_at.lock().unwrap().is_some_and(|t| Instant::now() >= t) {
                        break;
                    }
                    let mut sender = match client.take() {
                        Some(s) if !s.is_closed() => s,
                        _ => {
                            reconnects += 1;
                            connect(addr, &tls).await.0
                        }
                    };
                    if sender.ready().await.is_err() {
                        continue; // closed before a request was written: reconnect
                    }
                    let request = Request::post("/validate")
                        .header("host", "localhost")
                        .header("content-type", "application/json")
                        .body(Full::new(Bytes::from(body.clone())))
                        .unwrap();
                    sent += 1;
                    match sender.send_request(request).await {
                        Ok(response) => {
                            let status = response.status();
                            let close = response
                                .headers()
                                .get("connection")
                                .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"));
                            let ok = response.into_body().collect().await.is_ok();
                            if status != StatusCode::OK || !ok {
                                lost.push(format!("{status}"));
                            }
                            if !close {
                                client = Some(sender);
                            }
                        }
                        Err(e) => lost.push(e.to_string()),
                    }
                }
                (sent, lost, reconnects)
            }));
        }
        tokio::time::sleep(Duration::from_millis(700)).await;
        // Taken before the signal: `kill` returns after the signal is delivered, and the
        // drain period is counted from its delivery.
        let signalled = Instant::now();
        unsafe_kill(&server.child, "TERM");
        // Clients go on until just before the drain period ends.
        *stop_at.lock().unwrap() = Some(signalled + drain - Duration::from_millis(300));
        let mut ready_after = None;
        while signalled.elapsed() < Duration::from_secs(1) {
            let (mut probe, _) = connect(addr, &tls).await;
            if get(&mut probe, "/readyz").await.0 == StatusCode::SERVICE_UNAVAILABLE {
                ready_after = Some(signalled.elapsed());
                break;
            }
        }
        let (mut sent, mut lost, mut reconnects) = (0, Vec::new(), 0);
        for task in tasks {
            let (s, l, r) = task.await.unwrap();
            sent += s;
            lost.extend(l);
            reconnects += r;
        }
        (sent, lost, reconnects, ready_after, signalled)
    });
    let status = server.child.wait().unwrap();
    let exited = signalled.elapsed();
    let logs: Vec<String> = server.logs.try_iter().collect();
    println!(
        "SIGTERM under load: {sent} requests, {} lost, {reconnects} connections, readiness 503 \
         after {ready_after:?}, exit {exited:.2?} after the signal",
        lost.len()
    );
    assert_eq!(status.code(), Some(0), "{logs:?}");
    assert!(lost.is_empty(), "{lost:?}");
    assert!(sent > 50, "{sent}");
    assert!(
        ready_after.is_some_and(|t| t < Duration::from_millis(500)),
        "{ready_after:?}"
    );
    assert!(
        exited >= drain && exited < Duration::from_secs(6) + Duration::from_secs(1),
        "{exited:?}"
    );
    assert!(logs.iter().any(|l| l.contains("draining")), "{logs:?}");
    let _ = pid;
}

/// `--shutdown-grace` bounds the exit even with a judge still running: the review in
/// flight is dropped and logged. JSON logs are one object per line.
#[test]
fn the_shutdown_grace_bounds_the_exit_and_logs_are_json() {
    let mut server = spawn_webhook(&[
        "--drain-period",
        "0s",
        "--shutdown-grace",
        "1s",
        "--review-timeout",
        "30s",
        "--log-format",
        "json",
    ]);
    let tls = connector(&[&server.der]);
    let addr = server.addr;
    let signalled = runtime().block_on(async {
        // A large review keeps a judge busy (debug build) while the signal arrives.
        let (mut client, _) = connect(addr, &tls).await;
        let body = large_pod_review("u-grace", 3000);
        let request = Request::post("/validate")
            .header("host", "localhost")
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body)))
            .unwrap();
        // The answer never comes: the process exits with the judge still running.
        let pending = tokio::spawn(async move { client.send_request(request).await.is_ok() });
        tokio::time::sleep(Duration::from_millis(300)).await;
        unsafe_kill(&server.child, "TERM");
        let signalled = Instant::now();
        let _ = tokio::time::timeout(Duration::from_secs(5), pending).await;
        signalled
    });
    let status = server.child.wait().unwrap();
    let exited = signalled.elapsed();
    assert_eq!(status.code(), Some(0));
    assert!(exited < Duration::from_millis(2500), "{exited:?}");
    let logs: Vec<String> = server.logs.try_iter().collect();
    assert!(!logs.is_empty());
    for line in &logs {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        assert!(
            v["level"].is_string() && v["timestamp"].is_string(),
            "{line}"
        );
    }
    println!("exit {exited:.2?} after SIGTERM; logs: {logs:?}");
}
