//! Probes: run when due with the kubelet's thresholds; HTTPS probes do not check the
//! certificate.

use super::*;

/// A one-thread HTTP server on 127.0.0.1 answering every request with `code`.
fn http_server(code: u16) -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 1024];
            let _ = std::io::Read::read(&mut stream, &mut buf);
            let _ = std::io::Write::write_all(
                &mut stream,
                format!("HTTP/1.1 {code} X\r\nContent-Length: 0\r\n\r\n").as_bytes(),
            );
        }
    });
    port
}

/// Pod `p`'s status on the runtime: `web` (`sim://w1`) and `db` (`sim://d1`) running
/// since [`t0`], on 127.0.0.1.
fn web_and_db_running() -> RuntimeStatus {
    serde_json::from_value(serde_json::json!({
        "id": "u1", "name": "p", "namespace": "default", "ips": ["127.0.0.1"],
        "containerStatuses": [
            {"id": "sim://w1", "name": "web", "state": "running", "startedAt": t0()},
            {"id": "sim://d1", "name": "db", "state": "running", "startedAt": t0()}
        ]
    }))
    .unwrap()
}

#[test]
fn probes_run_when_due_with_the_kubelets_thresholds() {
    use podplan_agent::prober::Prober;
    use podplan_core::request::ProbeResult;
    let ok = http_server(200);
    let failing = http_server(500);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "p", "uid": "u1"},
        "spec": {"containers": [
            {"name": "web", "image": "x",
             "readinessProbe": {"httpGet": {"host": "127.0.0.1", "port": ok, "path": "/ready"}, "periodSeconds": 1},
             "livenessProbe": {"httpGet": {"host": "127.0.0.1", "port": failing}, "periodSeconds": 1, "failureThreshold": 2}},
            {"name": "db", "image": "x",
             "startupProbe": {"tcpSocket": {"host": "127.0.0.1", "port": closed}, "periodSeconds": 1, "initialDelaySeconds": 2},
             "livenessProbe": {"tcpSocket": {"host": "127.0.0.1", "port": ok}}}
        ]}
    }))
    .unwrap();
    let status = web_and_db_running();
    let mut prober = Prober::default();
    let mut cri = Recorder::default();
    let at = |s: i64| t0() + jiff::SignedDuration::from_secs(s);
    // Nothing ran yet: web's probes are due at the start (no initial delay).
    assert_eq!(prober.next_due(&pod, &status), Some(at(0)));
    let first = prober.probe_pod(&mut cri, &pod, &status, at(0));
    // Then web's, a period (1 s) after their run; db's startup probe at its delay (2 s).
    assert_eq!(prober.next_due(&pod, &status), Some(at(1)));
    let web = first["sim://w1"];
    assert_eq!(web.readiness, Some(ProbeResult::Success));
    // One failure of two: still the initial success.
    assert_eq!(web.liveness, Some(ProbeResult::Success));
    // Before initialDelaySeconds: unknown; liveness waits for the startup probe.
    assert_eq!(first["sim://d1"].startup, Some(ProbeResult::Unknown));
    assert_eq!(first["sim://d1"].liveness, Some(ProbeResult::Success));
    // Not due again within the period: nothing changes.
    let same = prober.probe_pod(&mut cri, &pod, &status, at(0));
    assert_eq!(same["sim://w1"].liveness, Some(ProbeResult::Success));
    let second = prober.probe_pod(&mut cri, &pod, &status, at(1));
    assert_eq!(second["sim://w1"].liveness, Some(ProbeResult::Failure));
    let two = prober.probe_pod(&mut cri, &pod, &status, at(2));
    let three = prober.probe_pod(&mut cri, &pod, &status, at(3));
    assert_eq!(two["sim://d1"].startup, Some(ProbeResult::Unknown));
    assert_eq!(
        three["sim://d1"].startup,
        Some(ProbeResult::Unknown),
        "two refusals of three"
    );
    let four = prober.probe_pod(&mut cri, &pod, &status, at(4));
    assert_eq!(
        four["sim://d1"].startup,
        Some(ProbeResult::Failure),
        "three refused connections"
    );
    // Web's liveness and db's startup probes failed: on hold (until a restart); db's
    // liveness waits for a startup that will not come. Only web's readiness is left.
    assert_eq!(prober.next_due(&pod, &status), Some(at(5)));
    let stopped = RuntimeStatus {
        container_statuses: vec![],
        ..status.clone()
    };
    assert_eq!(prober.next_due(&pod, &stopped), None, "no container runs");
    assert!(cri.calls.is_empty(), "no exec probe: {:?}", cri.calls);
}

/// An HTTPS server on 127.0.0.1 answering `code`, with a self-signed certificate for a
/// name that is not the address probed: the kubelet's prober does not check it.
fn https_server(code: u16) -> u16 {
    use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
    use tokio_rustls::rustls::{ServerConfig, ServerConnection, StreamOwned};
    let ck = rcgen::generate_simple_self_signed(vec!["not-the-probed-host.example".to_string()])
        .unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let config = Arc::new(
        ServerConfig::builder_with_provider(Arc::new(
            tokio_rustls::rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![ck.cert.der().clone()], key)
        .unwrap(),
    );
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let Ok(conn) = ServerConnection::new(Arc::clone(&config)) else {
                continue;
            };
            let mut tls = StreamOwned::new(conn, stream);
            let mut buf = [0u8; 1024];
            if std::io::Read::read(&mut tls, &mut buf).unwrap_or(0) == 0 {
                continue;
            }
            let _ = std::io::Write::write_all(
                &mut tls,
                format!("HTTP/1.1 {code} X\r\nContent-Length: 0\r\n\r\n").as_bytes(),
            );
            let _ = std::io::Write::flush(&mut tls);
            tls.conn.send_close_notify();
            let _ = std::io::Write::flush(&mut tls);
        }
    });
    port
}

#[test]
fn https_probes_do_not_check_the_certificate_as_the_kubelets() {
    use podplan_agent::prober::Prober;
    use podplan_core::request::ProbeResult;
    let ok = https_server(200);
    let failing = https_server(503);
    // A plain HTTP server probed over HTTPS: the handshake fails, so does the probe.
    let plain = http_server(200);
    let pod: k8s_openapi::api::core::v1::Pod = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "p", "uid": "u1"},
        "spec": {"containers": [
            {"name": "web", "image": "x",
             "readinessProbe": {"httpGet": {"scheme": "HTTPS", "port": ok, "path": "/readyz"}, "periodSeconds": 1},
             "livenessProbe": {"httpGet": {"scheme": "HTTPS", "port": failing}, "periodSeconds": 1, "failureThreshold": 1}},
            {"name": "db", "image": "x",
             "readinessProbe": {"httpGet": {"scheme": "https", "host": "127.0.0.1", "port": plain}, "periodSeconds": 1}}
        ]}
    }))
    .unwrap();
    let status = web_and_db_running();
    let mut prober = Prober::default();
    let mut cri = Recorder::default();
    let results = prober.probe_pod(&mut cri, &pod, &status, t0());
    assert_eq!(results["sim://w1"].readiness, Some(ProbeResult::Success));
    assert_eq!(results["sim://w1"].liveness, Some(ProbeResult::Failure));
    assert_eq!(results["sim://d1"].readiness, Some(ProbeResult::Failure));
}
