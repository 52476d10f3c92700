//! HTTPS on 127.0.0.1 for the webhook's tests (the server's in podplan-admission, the
//! `podplan webhook` process's in podplan-host): throwaway certificates (rcgen on ring), a
//! rustls client that trusts them, and HTTP/1.1 requests over it.

use std::net::SocketAddr;
use std::sync::Arc;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName};
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

/// A connection's request half.
pub type Sender = SendRequest<Full<Bytes>>;

/// A self-signed certificate for `localhost` and 127.0.0.1: (cert PEM, key PEM, DER).
///
/// # Panics
///
/// When rcgen cannot make one.
#[must_use]
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
pub fn certificate() -> (String, String, CertificateDer<'static>) {
    let ck =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("a self-signed certificate");
    (
        ck.cert.pem(),
        ck.signing_key.serialize_pem(),
        ck.cert.der().clone(),
    )
}

/// A TLS client (ring) that trusts `roots` and resumes no session.
///
/// # Panics
///
/// When a root is not a certificate rustls accepts.
#[must_use]
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
pub fn connector(roots: &[&CertificateDer<'static>]) -> TlsConnector {
    let mut store = RootCertStore::empty();
    for root in roots {
        store.add((*root).clone()).expect("a root certificate");
    }
    let mut config = ClientConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("ring's default protocol versions")
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

/// An HTTPS connection to `addr` (as `localhost`); also the certificate the server
/// presented.
///
/// # Panics
///
/// When the connection or the handshake fails.
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
#[expect(
    clippy::indexing_slicing,
    reason = "a TLS server presents a certificate"
)]
pub async fn connect(addr: SocketAddr, tls: &TlsConnector) -> (Sender, CertificateDer<'static>) {
    let tcp = TcpStream::connect(addr).await.expect("connect");
    let stream = tls
        .connect(
            ServerName::try_from("localhost").expect("a server name"),
            tcp,
        )
        .await
        .expect("a TLS handshake");
    let presented = stream
        .get_ref()
        .1
        .peer_certificates()
        .expect("the server's certificates")[0]
        .clone();
    let (sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("an HTTP/1.1 handshake");
    tokio::spawn(conn);
    (sender, presented)
}

/// POSTs `body` to `path` (with `content_type`, if any): the status and the body.
///
/// # Panics
///
/// When the request fails.
pub async fn post(
    sender: &mut Sender,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> (StatusCode, Vec<u8>) {
    let mut request = Request::post(path).header("host", "localhost");
    if let Some(ct) = content_type {
        request = request.header("content-type", ct);
    }
    send(sender, request.body(Full::new(Bytes::from(body)))).await
}

/// GETs `path`: the status and the body.
///
/// # Panics
///
/// When the request fails.
pub async fn get(sender: &mut Sender, path: &str) -> (StatusCode, Vec<u8>) {
    let request = Request::get(path)
        .header("host", "localhost")
        .body(Full::new(Bytes::new()));
    send(sender, request).await
}

#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
async fn send(
    sender: &mut Sender,
    request: hyper::http::Result<Request<Full<Bytes>>>,
) -> (StatusCode, Vec<u8>) {
    let request = request.expect("a request");
    sender.ready().await.expect("the connection is ready");
    let response = sender.send_request(request).await.expect("a response");
    let status = response.status();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("the response's body")
        .to_bytes();
    (status, body.to_vec())
}

/// A tokio runtime with two worker threads, as the webhook's tests run the server and
/// its clients.
///
/// # Panics
///
/// When the runtime cannot start.
#[must_use]
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failure fails the test"
)]
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}
