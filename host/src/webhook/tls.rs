//! The webhook's certificate: PEM files loaded into a rustls [`CertifiedKey`] (ring
//! provider), served through a resolver whose key is swapped when the files change, so a
//! rotated certificate (cert-manager, a re-projected Secret) reaches new connections
//! without a restart. A half-written or mismatched pair is logged and the previous
//! certificate kept.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use arc_swap::ArcSwap;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::ServerConfig;

/// Why a certificate could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("cannot read {path}: {message}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// A file holds no usable PEM certificate or key.
    #[error("{path}: {message}")]
    Pem {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The key does not fit the certificate, or rustls refuses them.
    #[error("the certificate and key cannot be used: {0}")]
    Key(String),
}

/// The files' contents, as last loaded.
#[derive(Debug, PartialEq, Eq)]
struct Source {
    cert: Vec<u8>,
    key: Vec<u8>,
}

fn read(path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|e| TlsError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Parses a PEM chain and key into a [`CertifiedKey`], checking that they match.
///
/// # Errors
///
/// [`TlsError::Pem`] for files without a certificate or key, [`TlsError::Key`] when the
/// key is unusable or does not match the certificate.
pub fn certified_key(
    cert_pem: &[u8],
    key_pem: &[u8],
    cert_path: &Path,
    key_path: &Path,
) -> Result<CertifiedKey, TlsError> {
    let certs = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TlsError::Pem {
            path: cert_path.to_path_buf(),
            message: format!("not a PEM certificate chain: {e}"),
        })?;
    if certs.is_empty() {
        return Err(TlsError::Pem {
            path: cert_path.to_path_buf(),
            message: "no CERTIFICATE block".into(),
        });
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::Pem {
        path: key_path.to_path_buf(),
        message: format!("no PEM private key: {e}"),
    })?;
    CertifiedKey::from_der(certs, key, &ring::default_provider())
        .map_err(|e| TlsError::Key(e.to_string()))
}

/// The current certificate, and the files it comes from.
#[derive(Debug)]
pub struct CertReloader {
    cert_file: PathBuf,
    key_file: PathBuf,
    current: ArcSwap<CertifiedKey>,
    source: std::sync::Mutex<Source>,
}

impl CertReloader {
    /// Loads the pair.
    ///
    /// # Errors
    ///
    /// As [`certified_key`], or [`TlsError::Read`].
    pub fn load(cert_file: PathBuf, key_file: PathBuf) -> Result<Self, TlsError> {
        let source = Source {
            cert: read(&cert_file)?,
            key: read(&key_file)?,
        };
        let key = certified_key(&source.cert, &source.key, &cert_file, &key_file)?;
        Ok(Self {
            cert_file,
            key_file,
            current: ArcSwap::from_pointee(key),
            source: std::sync::Mutex::new(source),
        })
    }

    /// Re-reads the files; when they changed and load, the new certificate is served
    /// from now on. `Ok(true)` when it was swapped.
    ///
    /// # Errors
    ///
    /// As [`load`](Self::load); the previous certificate stays in use.
    pub fn reload(&self) -> Result<bool, TlsError> {
        let source = Source {
            cert: read(&self.cert_file)?,
            key: read(&self.key_file)?,
        };
        let mut last = self
            .source
            .lock()
            .map_err(|_| TlsError::Key("the certificate state is poisoned".into()))?;
        if *last == source {
            return Ok(false);
        }
        let key = certified_key(&source.cert, &source.key, &self.cert_file, &self.key_file)?;
        self.current.store(Arc::new(key));
        *last = source;
        Ok(true)
    }
}

impl ResolvesServerCert for CertReloader {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.load_full())
    }
}

/// A rustls server config (ring provider, TLS 1.2 and 1.3, HTTP/1.1) serving `certs`.
///
/// # Errors
///
/// [`TlsError::Key`] if rustls refuses the provider's protocol versions.
pub fn server_config(certs: Arc<CertReloader>) -> Result<Arc<ServerConfig>, TlsError> {
    let mut config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Key(e.to_string()))?
        .with_no_client_auth()
        .with_cert_resolver(certs);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Re-reads the files every `interval`, forever (the server aborts it on shutdown).
pub async fn watch(certs: Arc<CertReloader>, interval: Duration) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        match certs.reload() {
            Ok(true) => tracing::info!(cert = %certs.cert_file.display(), "certificate reloaded"),
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(error = %e, "certificate not reloaded; keeping the previous one")
            }
        }
    }
}
