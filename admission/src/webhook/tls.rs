//! The webhook's certificate: PEM files loaded into a rustls [`CertifiedKey`] (ring
//! provider), served through a resolver whose key is swapped when the files change, so a
//! rotated certificate (cert-manager, a re-projected Secret) reaches new connections
//! without a restart. A half-written or mismatched pair is logged and the previous
//! certificate kept. The certificate's validity period is read from its DER, so readiness
//! can say when the served certificate has expired or is not valid yet. With a client CA
//! ([`server_config`]), clients' certificates are verified by rustls' `WebPkiClientVerifier`.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwap;
use tokio_rustls::rustls::crypto::ring;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::rustls::server::{ClientHello, ResolvesServerCert, WebPkiClientVerifier};
use tokio_rustls::rustls::sign::CertifiedKey;
use tokio_rustls::rustls::{RootCertStore, ServerConfig};

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
    /// The served leaf's validity (Unix seconds), when its DER could be read.
    validity: ArcSwap<Option<(i64, i64)>>,
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
        let validity = key.cert.first().and_then(|c| validity(c.as_ref()));
        Ok(Self {
            cert_file,
            key_file,
            current: ArcSwap::from_pointee(key),
            validity: ArcSwap::from_pointee(validity),
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
        let validity = key.cert.first().and_then(|c| validity(c.as_ref()));
        self.current.store(Arc::new(key));
        self.validity.store(Arc::new(validity));
        *last = source;
        Ok(true)
    }
}

impl CertReloader {
    /// `Ok` while the served certificate is within its validity period (or its period
    /// could not be read); else why not.
    ///
    /// # Errors
    ///
    /// A message naming the expiry or start time.
    pub fn check_validity(&self) -> Result<(), String> {
        let Some((not_before, not_after)) = **self.validity.load() else {
            return Ok(());
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        if now > not_after {
            Err(format!(
                "the serving certificate {} expired (notAfter {not_after}, Unix seconds)",
                self.cert_file.display()
            ))
        } else if now < not_before {
            Err(format!(
                "the serving certificate {} is not valid yet (notBefore {not_before}, Unix seconds)",
                self.cert_file.display()
            ))
        } else {
            Ok(())
        }
    }
}

impl ResolvesServerCert for CertReloader {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.current.load_full())
    }
}

/// A rustls server config (ring provider, TLS 1.2 and 1.3, HTTP/1.1) serving `certs`.
/// With `client_ca` (PEM CA certificates), a client certificate is asked for and, when
/// presented, verified against them (rustls' `WebPkiClientVerifier`); clients without one
/// still connect (the probes), and the handler refuses them `/validate`.
///
/// # Errors
///
/// [`TlsError::Key`] if rustls refuses the provider's protocol versions or the CAs,
/// [`TlsError::Read`] / [`TlsError::Pem`] for a client CA file without certificates.
pub fn server_config(
    certs: Arc<CertReloader>,
    client_ca: Option<&Path>,
) -> Result<Arc<ServerConfig>, TlsError> {
    let provider = Arc::new(ring::default_provider());
    let builder = ServerConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| TlsError::Key(e.to_string()))?;
    let builder = match client_ca {
        None => builder.with_no_client_auth(),
        Some(path) => {
            let pem = read(path)?;
            let mut roots = RootCertStore::empty();
            for cert in CertificateDer::pem_slice_iter(&pem) {
                let cert = cert.map_err(|e| TlsError::Pem {
                    path: path.to_path_buf(),
                    message: format!("not a PEM certificate: {e}"),
                })?;
                roots.add(cert).map_err(|e| TlsError::Pem {
                    path: path.to_path_buf(),
                    message: format!("not a usable CA certificate: {e}"),
                })?;
            }
            if roots.is_empty() {
                return Err(TlsError::Pem {
                    path: path.to_path_buf(),
                    message: "no CERTIFICATE block".into(),
                });
            }
            let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
                .allow_unauthenticated()
                .build()
                .map_err(|e| TlsError::Key(e.to_string()))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder.with_cert_resolver(certs);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// Re-reads the files every `interval`, forever (the server aborts it on shutdown);
/// `on_reload(true)` after a swap, `on_reload(false)` after a pair that did not load.
pub async fn watch(certs: Arc<CertReloader>, interval: Duration, on_reload: impl Fn(bool)) {
    let mut tick = tokio::time::interval(interval);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tick.tick().await;
        match certs.reload() {
            Ok(true) => {
                on_reload(true);
                tracing::info!(cert = %certs.cert_file.display(), "certificate reloaded");
            }
            Ok(false) => {}
            Err(e) => {
                on_reload(false);
                tracing::warn!(error = %e, "certificate not reloaded; keeping the previous one");
            }
        }
    }
}

/// One DER element: its tag, its contents, and what follows it.
fn der(input: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 {
            return None;
        }
        let (bytes, rest) = rest.split_at_checked(n)?;
        let len = bytes
            .iter()
            .fold(0usize, |acc, &b| (acc << 8) | usize::from(b));
        (len, rest)
    };
    let (contents, rest) = rest.split_at_checked(len)?;
    Some((tag, contents, rest))
}

/// Unix seconds of an ASN.1 UTCTime (`YYMMDDHHMMSSZ`) or GeneralizedTime
/// (`YYYYMMDDHHMMSSZ`), as RFC 5280 section 4.1.2.5 allows them.
fn asn1_time(tag: u8, text: &[u8]) -> Option<i64> {
    let text = std::str::from_utf8(text).ok()?.strip_suffix('Z')?;
    let num = |s: Option<&str>| s.and_then(|s| s.parse::<i64>().ok());
    let (year, rest) = match tag {
        0x17 => {
            let yy = num(text.get(0..2))?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, text.get(2..)?)
        }
        0x18 => (num(text.get(0..4))?, text.get(4..)?),
        _ => return None,
    };
    let (month, day) = (num(rest.get(0..2))?, num(rest.get(2..4))?);
    let (hour, minute, second) = (
        num(rest.get(4..6))?,
        num(rest.get(6..8))?,
        num(rest.get(8..10))?,
    );
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + hour * 3_600 + minute * 60 + second)
}

/// A certificate's validity period (notBefore, notAfter) in Unix seconds.
fn validity(cert: &[u8]) -> Option<(i64, i64)> {
    let (_, certificate, _) = der(cert)?;
    let (_, tbs, _) = der(certificate)?;
    let (tag, _, mut rest) = der(tbs)?;
    // [0] version is optional; then serialNumber.
    if tag == 0xa0 {
        rest = der(rest)?.2;
    }
    let rest = der(rest)?.2; // signature algorithm
    let rest = der(rest)?.2; // issuer
    let (_, validity, _) = der(rest)?;
    let (tag_before, before, rest) = der(validity)?;
    let (tag_after, after, _) = der(rest)?;
    Some((asn1_time(tag_before, before)?, asn1_time(tag_after, after)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asn1_times_read_as_unix_seconds() {
        assert_eq!(asn1_time(0x17, b"700101000000Z"), Some(0));
        assert_eq!(asn1_time(0x17, b"240229120000Z"), Some(1_709_208_000));
        assert_eq!(asn1_time(0x18, b"20500101000000Z"), Some(2_524_608_000));
        assert_eq!(asn1_time(0x17, b"2402291200Z"), None);
        assert_eq!(der(&[0x30, 0x82, 0x01]), None);
    }
}
