//! TLS for `httpGet` probes with `scheme: HTTPS`, as the kubelet's prober does it
//! (`pkg/kubelet/prober/prober.go`, `newProber`: `tls.Config{InsecureSkipVerify: true}`):
//! the server's certificate is not checked against any authority or name, since a pod's
//! serving certificate is rarely issued for its IP; the handshake itself is verified
//! (the server proves it holds the key of the certificate it shows).

use std::net::TcpStream;
use std::sync::{Arc, OnceLock};

use tokio_rustls::rustls::client::danger::{
    HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier,
};
use tokio_rustls::rustls::crypto::{self, CryptoProvider, WebPkiSupportedAlgorithms};
use tokio_rustls::rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use tokio_rustls::rustls::{
    ClientConfig, ClientConnection, DigitallySignedStruct, SignatureScheme, StreamOwned,
};

/// Accepts any certificate (the kubelet's `InsecureSkipVerify`) but checks the
/// handshake's signatures with the certificate's key.
#[derive(Debug)]
struct SkipCertificateCheck(WebPkiSupportedAlgorithms);

impl ServerCertVerifier for SkipCertificateCheck {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, tokio_rustls::rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        crypto::verify_tls12_signature(message, cert, dss, &self.0)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        crypto::verify_tls13_signature(message, cert, dss, &self.0)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_schemes()
    }
}

/// The probes' client configuration, made once.
fn config() -> Option<Arc<ClientConfig>> {
    static CONFIG: OnceLock<Option<Arc<ClientConfig>>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = Arc::new(crypto::ring::default_provider());
            let algorithms = provider.signature_verification_algorithms;
            let config =
                ClientConfig::builder_with_provider(Arc::<CryptoProvider>::clone(&provider))
                    .with_safe_default_protocol_versions()
                    .ok()?
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(SkipCertificateCheck(algorithms)))
                    .with_no_client_auth();
            Some(Arc::new(config))
        })
        .clone()
}

/// A TLS client stream over `tcp` for a probe of `host` (an IP or a name; sent as SNI
/// when it is a name). `None` when `host` is not a valid server name or no configuration
/// can be made (the probe then fails, as a failed handshake does).
pub fn wrap(tcp: TcpStream, host: &str) -> Option<StreamOwned<ClientConnection, TcpStream>> {
    let name = ServerName::try_from(host.to_string()).ok()?;
    let connection = ClientConnection::new(config()?, name).ok()?;
    Some(StreamOwned::new(connection, tcp))
}
