//! `podplan webhook`'s server ([`podplan_host::webhook`]) over real HTTPS on 127.0.0.1,
//! with throwaway certificates (rcgen on ring) and a rustls client: allowed and denied
//! reviews answered as `podplan admit` answers them, 400/413/415/404/405, a certificate
//! rotation picked up while serving (a mismatched half-written pair is not), a graceful
//! shutdown, and 10,000 reviews at 32 concurrent connections with zero failures.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use podplan_core::lint::LintSettings;
use podplan_host::admission::review;
use podplan_host::webhook::{Config, Judge, Server};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../test_data/admission")
            .join(name),
    )
    .unwrap()
}

/// A self-signed certificate for `localhost` and 127.0.0.1: (cert PEM, key PEM, DER).
fn certificate() -> (String, String, CertificateDer<'static>) {
    let ck =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .unwrap();
    (
        ck.cert.pem(),
        ck.signing_key.serialize_pem(),
        ck.cert.der().clone(),
    )
}

struct Running {
    addr: SocketAddr,
    stop: tokio::sync::oneshot::Sender<()>,
    done: tokio::task::JoinHandle<()>,
    _dir: tempfile::TempDir,
    cert_file: PathBuf,
    key_file: PathBuf,
}

async fn start(cert: &str, key: &str, judge: Judge) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let cert_file = dir.path().join("tls.crt");
    let key_file = dir.path().join("tls.key");
    std::fs::write(&cert_file, cert).unwrap();
    std::fs::write(&key_file, key).unwrap();
    let mut config = Config::new(
        "127.0.0.1:0".parse().unwrap(),
        cert_file.clone(),
        key_file.clone(),
    );
    config.reload_interval = Duration::from_millis(100);
    config.shutdown_grace = Duration::from_secs(5);
    let server = Server::bind(config, judge).await.unwrap();
    let addr = server.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let done = tokio::spawn(server.run(async {
        let _ = stopped.await;
    }));
    Running {
        addr,
        stop,
        done,
        _dir: dir,
        cert_file,
        key_file,
    }
}

fn connector(roots: &[&CertificateDer<'static>]) -> TlsConnector {
    let mut store = RootCertStore::empty();
    for root in roots {
        store.add((*root).clone()).unwrap();
    }
    let mut config = ClientConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(store)
    .with_no_client_auth();
    // Every connection a full handshake: a resumed TLS 1.3 session reports the
    // certificate of the session it resumes, not the one the server serves now, and
    // whether a ticket is there to resume depends on how fast each connection's task
    // read it (the rotation test saw only the old certificate for 10 s on a loaded CI
    // machine).
    config.resumption = tokio_rustls::rustls::client::Resumption::disabled();
    TlsConnector::from(Arc::new(config))
}

/// An HTTPS connection; also the certificate the server presented.
async fn connect(
    addr: SocketAddr,
    tls: &TlsConnector,
) -> (SendRequest<Full<Bytes>>, CertificateDer<'static>) {
    let tcp = TcpStream::connect(addr).await.unwrap();
    let stream = tls
        .connect(ServerName::try_from("localhost").unwrap(), tcp)
        .await
        .unwrap();
    let presented = stream.get_ref().1.peer_certificates().unwrap()[0].clone();
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(conn);
    (sender, presented)
}

async fn post(
    sender: &mut SendRequest<Full<Bytes>>,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> (StatusCode, Vec<u8>) {
    let mut request = Request::post(path).header("host", "localhost");
    if let Some(ct) = content_type {
        request = request.header("content-type", ct);
    }
    let request = request.body(Full::new(Bytes::from(body))).unwrap();
    sender.ready().await.unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, body.to_vec())
}

async fn get(sender: &mut SendRequest<Full<Bytes>>, path: &str) -> (StatusCode, Vec<u8>) {
    let request = Request::get(path)
        .header("host", "localhost")
        .body(Full::new(Bytes::new()))
        .unwrap();
    sender.ready().await.unwrap();
    let response = sender.send_request(request).await.unwrap();
    let status = response.status();
    let body = response.into_body().collect().await.unwrap().to_bytes();
    (status, body.to_vec())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn reviews_are_answered_as_podplan_admit_answers_them() {
    runtime().block_on(async {
        let (cert, key, der) = certificate();
        let server = start(&cert, &key, Judge::Native(LintSettings::default())).await;
        let (mut client, _) = connect(server.addr, &connector(&[&der])).await;
        for (case, allowed) in [
            ("deployment-accepted", true),
            ("pod-rejected-nonroot", false),
            ("pod-warned-probe", true),
            ("cronjob-rejected-seccomp", false),
        ] {
            let body = data(&format!("{case}.review.json"));
            let (status, answer) = post(
                &mut client,
                "/validate",
                Some("application/json; charset=utf-8"),
                body.clone(),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{case}");
            let answer: Value = serde_json::from_slice(&answer).unwrap();
            assert_eq!(answer["response"]["allowed"], allowed, "{case}: {answer}");
            let native =
                serde_json::to_value(review(&body, &LintSettings::default()).review).unwrap();
            assert_eq!(answer, native, "{case}");
        }
        let _ = server.stop.send(());
        server.done.await.unwrap();
    });
}

#[test]
fn bad_requests_get_400_413_415_404_405_with_messages() {
    runtime().block_on(async {
        let (cert, key, der) = certificate();
        let server = start(&cert, &key, Judge::Native(LintSettings::default())).await;
        let tls = connector(&[&der]);
        let (mut client, _) = connect(server.addr, &tls).await;

        let (status, body) = post(
            &mut client,
            "/validate",
            Some("application/json"),
            b"{".to_vec(),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(body["response"]["allowed"], false);
        assert!(body["response"]["status"]["message"]
            .as_str()
            .unwrap()
            .contains("cannot be read"));

        let (status, body) = post(
            &mut client,
            "/validate",
            Some("application/json"),
            data("malformed-no-request.review.json"),
        )
        .await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "{}",
            String::from_utf8_lossy(&body)
        );

        let (status, body) =
            post(&mut client, "/validate", Some("text/plain"), b"{}".to_vec()).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert!(String::from_utf8_lossy(&body).contains("application/json"));
        let (status, _) = post(&mut client, "/validate", None, b"{}".to_vec()).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE);

        let (status, _) = post(
            &mut client,
            "/mutate",
            Some("application/json"),
            b"{}".to_vec(),
        )
        .await;
        assert_eq!(status, StatusCode::NOT_FOUND);

        assert_eq!(
            get(&mut client, "/validate").await.0,
            StatusCode::METHOD_NOT_ALLOWED
        );
        assert_eq!(
            get(&mut client, "/healthz").await,
            (StatusCode::OK, b"ok\n".to_vec())
        );
        assert_eq!(get(&mut client, "/readyz").await.0, StatusCode::OK);

        // Over the core's 8 MiB limit: the server reads past the limit (discarding), so the
        // client can finish sending and read the 413, then closes the connection.
        let (mut big, _) = connect(server.addr, &tls).await;
        let over = vec![b' '; podplan_core::limits::MAX_REQUEST_BYTES + 1];
        let (status, body) = post(&mut big, "/validate", Some("application/json"), over).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(String::from_utf8_lossy(&body).contains("limit"));

        let _ = server.stop.send(());
        server.done.await.unwrap();
    });
}

#[test]
fn a_rotated_certificate_is_served_without_a_restart() {
    runtime().block_on(async {
        let (cert_a, key_a, der_a) = certificate();
        let (cert_b, key_b, der_b) = certificate();
        let server = start(&cert_a, &key_a, Judge::Native(LintSettings::default())).await;
        let tls = connector(&[&der_a, &der_b]);
        let (mut before, presented) = connect(server.addr, &tls).await;
        assert_eq!(presented, der_a);

        // Half-way through a rotation the pair does not match: the old one stays.
        std::fs::write(&server.cert_file, &cert_b).unwrap();
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(connect(server.addr, &tls).await.1, der_a);

        std::fs::write(&server.key_file, &key_b).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let (_, presented) = connect(server.addr, &tls).await;
            if presented == der_b {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the new certificate was not picked up"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // The connection opened before the rotation still works.
        let (status, _) = post(
            &mut before,
            "/validate",
            Some("application/json"),
            data("deployment-accepted.review.json"),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let _ = server.stop.send(());
        server.done.await.unwrap();
    });
}

#[test]
fn shutdown_stops_accepting_and_returns() {
    runtime().block_on(async {
        let (cert, key, der) = certificate();
        let server = start(&cert, &key, Judge::Native(LintSettings::default())).await;
        let tls = connector(&[&der]);
        let (mut client, _) = connect(server.addr, &tls).await;
        let (status, _) = post(
            &mut client,
            "/validate",
            Some("application/json"),
            data("job-accepted.review.json"),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        let _ = server.stop.send(());
        tokio::time::timeout(Duration::from_secs(10), server.done)
            .await
            .unwrap()
            .unwrap();
        assert!(TcpStream::connect(server.addr).await.is_err());
    });
}

#[test]
fn ten_thousand_reviews_at_32_concurrent_without_a_failure() {
    const TOTAL: usize = 10_000;
    const CONCURRENCY: usize = 32;
    runtime().block_on(async {
        let (cert, key, der) = certificate();
        let server = start(&cert, &key, Judge::Native(LintSettings::default())).await;
        let tls = connector(&[&der]);
        let cases: Arc<Vec<(Vec<u8>, bool)>> = Arc::new(vec![
            (data("deployment-accepted.review.json"), true),
            (data("pod-rejected-nonroot.review.json"), false),
            (data("statefulset-warned.review.json"), true),
            (data("replicaset-rejected-invalid.review.json"), false),
        ]);
        let started = Instant::now();
        let mut tasks = Vec::new();
        for worker in 0..CONCURRENCY {
            let tls = tls.clone();
            let cases = Arc::clone(&cases);
            let addr = server.addr;
            tasks.push(tokio::spawn(async move {
                let (mut client, _) = connect(addr, &tls).await;
                let mut latencies = Vec::new();
                let mut failures = 0usize;
                for i in (worker..TOTAL).step_by(CONCURRENCY) {
                    let (body, allowed) = &cases[i % cases.len()];
                    let t = Instant::now();
                    let (status, answer) = post(
                        &mut client,
                        "/validate",
                        Some("application/json"),
                        body.clone(),
                    )
                    .await;
                    latencies.push(t.elapsed());
                    let ok = status == StatusCode::OK
                        && serde_json::from_slice::<Value>(&answer)
                            .is_ok_and(|a| a["response"]["allowed"] == *allowed);
                    if !ok {
                        failures += 1;
                    }
                }
                (latencies, failures)
            }));
        }
        let mut latencies = Vec::new();
        let mut failures = 0;
        for task in tasks {
            let (l, f) = task.await.unwrap();
            latencies.extend(l);
            failures += f;
        }
        let elapsed = started.elapsed();
        latencies.sort();
        let at =
            |q: f64| latencies[((latencies.len() as f64 * q) as usize).min(latencies.len() - 1)];
        println!(
            "webhook load: {} reviews, {CONCURRENCY} concurrent, {:.1?} total, {:.0} reviews/s, \
             p50 {:.2?}, p99 {:.2?}, max {:.2?}",
            latencies.len(),
            elapsed,
            latencies.len() as f64 / elapsed.as_secs_f64(),
            at(0.50),
            at(0.99),
            latencies[latencies.len() - 1],
        );
        assert_eq!(latencies.len(), TOTAL);
        assert_eq!(failures, 0);
        let _ = server.stop.send(());
        server.done.await.unwrap();
    });
}

/// The manifests of `deploy/webhook/` parse into k8s-openapi types, with the settings
/// the docs promise, and podplan's own Deployment passes podplan's lint.
#[test]
fn the_manifests_parse_and_the_deployment_passes_the_lint() {
    use k8s_openapi::api::admissionregistration::v1::ValidatingWebhookConfiguration;
    use k8s_openapi::api::apps::v1::Deployment;
    use k8s_openapi::api::core::v1::Service;

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/webhook");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();

    let vwc: ValidatingWebhookConfiguration =
        serde_yaml_ng::from_str(&read("validatingwebhookconfiguration.yaml")).unwrap();
    let hooks = vwc.webhooks.unwrap();
    assert_eq!(hooks.len(), 1);
    let hook = &hooks[0];
    assert_eq!(hook.failure_policy.as_deref(), Some("Ignore"));
    assert_eq!(hook.side_effects, "None");
    assert_eq!(hook.admission_review_versions, vec!["v1".to_string()]);
    assert_eq!(hook.timeout_seconds, Some(5));
    let service = hook.client_config.service.as_ref().unwrap();
    assert_eq!(service.path.as_deref(), Some("/validate"));
    let excluded = &hook
        .namespace_selector
        .as_ref()
        .unwrap()
        .match_expressions
        .as_ref()
        .unwrap()[0];
    assert_eq!(excluded.operator, "NotIn");
    assert!(excluded
        .values
        .as_ref()
        .unwrap()
        .contains(&"kube-system".to_string()));
    let resources: Vec<String> = hook
        .rules
        .as_ref()
        .unwrap()
        .iter()
        .flat_map(|r| r.resources.clone().unwrap_or_default())
        .collect();
    for kind in [
        "pods",
        "deployments",
        "replicasets",
        "statefulsets",
        "daemonsets",
        "jobs",
        "cronjobs",
        "replicationcontrollers",
    ] {
        assert!(resources.iter().any(|r| r == kind), "{kind}");
    }

    let svc: Service = serde_yaml_ng::from_str(&read("service.yaml")).unwrap();
    assert_eq!(svc.metadata.name.as_deref(), Some(service.name.as_str()));
    assert_eq!(
        svc.metadata.namespace.as_deref(),
        Some(service.namespace.as_str())
    );

    let text = read("deployment.yaml");
    let deployment: Deployment = serde_yaml_ng::from_str(&text).unwrap();
    let spec = deployment.spec;
    let container = &spec.template.spec.as_ref().unwrap().containers[0];
    let args = container.args.clone().unwrap();
    assert!(args.iter().any(|a| a.starts_with("--tls-cert-file=")));
    assert!(args
        .iter()
        .any(|a| a.starts_with("--tls-private-key-file=")));
    assert_eq!(
        container
            .readiness_probe
            .as_ref()
            .unwrap()
            .http_get
            .as_ref()
            .unwrap()
            .path
            .as_deref(),
        Some("/readyz")
    );
    let object: Value = serde_yaml_ng::from_str(&text).unwrap();
    let findings =
        podplan_core::lint::lint_object(&object, &LintSettings::default(), true).unwrap();
    assert!(findings.is_empty(), "{findings:?}");
}

fn podplan() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_podplan"))
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
    runtime().block_on(async {
        let (mut client, _) = connect(addr, &connector(&[&der])).await;
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
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
}

/// With `--policy`, the webhook answers through the Kubewarden module (waPC host) exactly
/// as the native lint does; settings its `validate_settings` refuses stop the start.
#[test]
fn the_policy_module_answers_as_the_native_lint() {
    let policy = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../wasm/pkg/kubewarden/podplan_kubewarden.wasm");
    assert!(
        policy.exists(),
        "{} is missing: run scripts/build-wasm",
        policy.display()
    );
    let load = |policy: PathBuf| {
        move || {
            let engine =
                podplan_host::wasm::HostEngine::new(podplan_host::wasm::EngineSettings::default())?;
            podplan_host::wasm::wapc::PolicyModule::load_file(&engine, &policy)
        }
    };
    let refused = Judge::policy(
        load(policy.clone()),
        serde_json::from_slice(&data("bad-settings-unknown-rule.settings.json")).unwrap(),
    );
    assert!(
        matches!(
            refused,
            Err(podplan_host::admission::PolicyError::Settings(_))
        ),
        "{refused:?}"
    );
    let judge = Judge::policy(load(policy), serde_json::json!({})).unwrap();
    runtime().block_on(async {
        let (cert, key, der) = certificate();
        let server = start(&cert, &key, judge).await;
        let (mut client, _) = connect(server.addr, &connector(&[&der])).await;
        for case in [
            "deployment-accepted",
            "pod-rejected-nonroot",
            "statefulset-warned",
            "cronjob-rejected-seccomp",
        ] {
            let body = data(&format!("{case}.review.json"));
            let (status, answer) = post(
                &mut client,
                "/validate",
                Some("application/json"),
                body.clone(),
            )
            .await;
            assert_eq!(status, StatusCode::OK, "{case}");
            let answer: Value = serde_json::from_slice(&answer).unwrap();
            let native =
                serde_json::to_value(review(&body, &LintSettings::default()).review).unwrap();
            assert_eq!(answer, native, "{case}");
        }
        let (status, _) = post(
            &mut client,
            "/validate",
            Some("application/json"),
            b"[]".to_vec(),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let _ = server.stop.send(());
        server.done.await.unwrap();
    });
}
