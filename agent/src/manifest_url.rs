//! The kubelet's second static-pod source, `--manifest-url` (`pkg/kubelet/config/http.go`):
//! a GET of one URL every `--http-check-frequency` (20 s), with the headers of
//! `--manifest-url-header`, answered by one `v1.Pod` or a `v1.PodList` (YAML or JSON).
//!
//! As the kubelet's `sourceURL.extractFromURL`:
//! * a failed request, a status other than 200, or a body that is neither a pod nor a pod
//!   list changes nothing: the pods of the last good answer keep running, and the error
//!   is reported;
//! * an empty body (200) is an empty set: every pod of the URL is removed (and reported,
//!   `zero-length data received`);
//! * an unchanged body is not decoded again;
//! * a list with one pod the engine refuses is refused whole (`tryDecodePodList`); of
//!   two items with one full name the first is kept (`filterInvalidPods`).
//!
//! Pods get the URL source's defaults ([`super::manifest::apply_defaults`] with
//! [`Origin::Url`]): a UID hashed with `url:<url>`, `kubernetes.io/config.source: http`,
//! and no `NoExecute` toleration (the kubelet gives that to file pods only). Bodies are
//! read up to 10 MiB (the file source's limit); a request times out after 10 s (the
//! kubelet's client). `https` URLs are verified against the system's roots (as Go's
//! client does; `SSL_CERT_FILE` is honoured).

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Empty, Limited};
use hyper::body::Bytes;
use hyper::header::{HeaderName, HeaderValue, HOST, USER_AGENT};
use hyper::{Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_rustls::rustls::pki_types::ServerName;
use tokio_rustls::rustls::{ClientConfig, RootCertStore};
use tokio_rustls::TlsConnector;

use super::manifest::{
    full_name, pod_from_value, ManifestProblem, ManifestSet, Origin, StaticPod,
    CONFIG_SEEN_ANNOTATION, MAX_MANIFEST_BYTES,
};

/// The kubelet's timeout for reading the manifest URL (`http.Client{Timeout: 10s}`).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// Why the URL gave no (new) set of pods.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlSourceError {
    /// The flag's value is not an `http` or `https` URL with a host.
    #[error("--manifest-url {url:?}: {reason}")]
    BadUrl {
        /// The flag's value.
        url: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A `--manifest-url-header` entry is not `name:value`, or not a valid header.
    #[error("--manifest-url-header {entry:?}: {reason}")]
    BadHeader {
        /// The entry.
        entry: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The request failed (connection, TLS, timeout, body too large).
    #[error("reading pods from {url} failed: {reason}")]
    Request {
        /// The URL.
        url: String,
        /// The failure.
        reason: String,
    },
    /// The server answered with a status other than 200.
    #[error("{url}: {status}")]
    Status {
        /// The URL.
        url: String,
        /// The status line's code and reason.
        status: String,
    },
    /// A 200 with an empty body: the URL's pods were removed.
    #[error("zero-length data received from {url}")]
    Empty {
        /// The URL.
        url: String,
    },
    /// The body is neither a pod nor a pod list, or holds a pod the engine refuses.
    #[error("{url}: {path}{sep}{message}", sep = if path.is_empty() { "" } else { ": " })]
    Refused {
        /// The URL.
        url: String,
        /// The engine's JSON path of the problem (empty when the whole body is wrong).
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// Parses `--manifest-url-header` values as the kubelet's
/// `ColonSeparatedMultimapStringString`: each value a comma-separated list of
/// `name:value` (split at the first colon, both trimmed; empty entries skipped); a name
/// given again adds a value after the earlier ones.
///
/// # Errors
///
/// An entry without a colon, or a name or value HTTP does not allow.
pub fn parse_headers(values: &[String]) -> Result<Vec<(HeaderName, HeaderValue)>, UrlSourceError> {
    let mut out = Vec::new();
    for value in values {
        for entry in value.split(',').filter(|e| !e.is_empty()) {
            let bad = |reason: &str| UrlSourceError::BadHeader {
                entry: entry.to_string(),
                reason: reason.to_string(),
            };
            let (name, val) = entry
                .split_once(':')
                .ok_or_else(|| bad("malformed pair, expect string:string"))?;
            let name = HeaderName::from_bytes(name.trim().as_bytes())
                .map_err(|_| bad("not a valid header name"))?;
            let val =
                HeaderValue::from_str(val.trim()).map_err(|_| bad("not a valid header value"))?;
            out.push((name, val));
        }
    }
    Ok(out)
}

/// The `--manifest-url` source of one node: the last good set of pods, and when each
/// pod was first seen (AGE counts from it).
pub struct UrlSource {
    url: String,
    uri: Uri,
    headers: Vec<(HeaderName, HeaderValue)>,
    node: String,
    /// The last body read (an unchanged body is not decoded again).
    data: Option<Bytes>,
    set: ManifestSet,
    first_seen: HashMap<String, jiff::Timestamp>,
    runtime: tokio::runtime::Runtime,
    tls: TlsConnector,
}

impl std::fmt::Debug for UrlSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UrlSource")
            .field("url", &self.url)
            .field("headers", &self.headers.len())
            .field("node", &self.node)
            .field("pods", &self.set.pods.len())
            .finish_non_exhaustive()
    }
}

impl UrlSource {
    /// The source of `url` for the node `node`, sending `headers` with every request.
    ///
    /// # Errors
    ///
    /// [`UrlSourceError::BadUrl`] when `url` is not `http(s)://host[:port]/...`, or the
    /// request runtime cannot be made.
    pub fn new(
        url: &str,
        headers: Vec<(HeaderName, HeaderValue)>,
        node: impl Into<String>,
    ) -> Result<Self, UrlSourceError> {
        let bad = |reason: String| UrlSourceError::BadUrl {
            url: url.to_string(),
            reason,
        };
        let uri: Uri = url.parse().map_err(|e| bad(format!("{e}")))?;
        match uri.scheme_str() {
            Some("http" | "https") => {}
            _ => return Err(bad("the scheme must be http or https".into())),
        }
        if uri.host().is_none_or(str::is_empty) {
            return Err(bad("the URL has no host".into()));
        }
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| bad(format!("cannot start the request runtime: {e}")))?;
        Ok(Self {
            url: url.to_string(),
            uri,
            headers,
            node: node.into(),
            data: None,
            set: ManifestSet::default(),
            first_seen: HashMap::new(),
            runtime,
            tls: TlsConnector::from(Arc::new(client_config().map_err(bad)?)),
        })
    }

    /// The URL.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The pods of the last good answer (none before the first).
    #[must_use]
    pub fn set(&self) -> &ManifestSet {
        &self.set
    }

    /// Reads the URL now and updates [`UrlSource::set`] as the kubelet does; `now`
    /// stamps pods seen for the first time.
    ///
    /// # Errors
    ///
    /// Why the answer gave no new set; the previous set stands, except after an empty
    /// body ([`UrlSourceError::Empty`]), which empties it.
    pub fn fetch(&mut self, now: jiff::Timestamp) -> Result<(), UrlSourceError> {
        let (status, body) = self.get()?;
        if status != StatusCode::OK {
            return Err(UrlSourceError::Status {
                url: self.url.clone(),
                status: status.to_string(),
            });
        }
        if body.is_empty() {
            self.set = ManifestSet::default();
            self.data = Some(body);
            return Err(UrlSourceError::Empty {
                url: self.url.clone(),
            });
        }
        if self.data.as_ref() == Some(&body) {
            return Ok(());
        }
        self.data = Some(body.clone());
        let pods = self.decode(&body)?;
        self.set = self.stamp(pods, now);
        Ok(())
    }

    /// The pods of one body: one pod, or every item of a pod list.
    fn decode(&self, body: &[u8]) -> Result<Vec<k8s_openapi::api::core::v1::Pod>, UrlSourceError> {
        let refused = |path: String, message: String| UrlSourceError::Refused {
            url: self.url.clone(),
            path,
            message,
        };
        let value: serde_json::Value = serde_yaml_ng::from_slice(body)
            .map_err(|e| refused(String::new(), format!("not a YAML or JSON document: {e}")))?;
        let origin = Origin::Url(&self.url);
        let kind = value
            .get("kind")
            .and_then(|k| k.as_str())
            .map(str::to_string);
        match kind.as_deref() {
            Some("PodList") => {
                let items = match value.get("items") {
                    Some(serde_json::Value::Array(items)) => items.clone(),
                    None | Some(serde_json::Value::Null) => Vec::new(),
                    Some(_) => {
                        return Err(refused("items".into(), "expected a list of pods".into()))
                    }
                };
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, item)| {
                        pod_from_value(item, &origin, &self.node).map_err(|(path, message)| {
                            refused(
                                format!("items[{i}]{}", path.strip_prefix("pod").unwrap_or(&path)),
                                message,
                            )
                        })
                    })
                    .collect()
            }
            Some("Pod") | None => pod_from_value(value, &origin, &self.node)
                .map(|pod| vec![pod])
                .map_err(|(path, message)| refused(path, message)),
            Some(other) => Err(refused(
                "kind".into(),
                format!("received a {other}, but a Pod or a PodList was expected"),
            )),
        }
    }

    /// The set of `pods`: duplicates of a full name dropped (the first kept), first-seen
    /// times stamped.
    fn stamp(
        &mut self,
        pods: Vec<k8s_openapi::api::core::v1::Pod>,
        now: jiff::Timestamp,
    ) -> ManifestSet {
        let mut set = ManifestSet::default();
        let mut names = BTreeSet::new();
        let mut uids = BTreeSet::new();
        for mut pod in pods {
            let name = full_name(&pod);
            let uid = pod.metadata.uid.clone().unwrap_or_default();
            if !names.insert(name.clone()) || !uids.insert(uid.clone()) {
                set.problems.push(ManifestProblem {
                    file: PathBuf::from(&self.url),
                    path: String::new(),
                    message: format!(
                        "the pod {name} (uid {uid}) is listed twice; the second is ignored"
                    ),
                });
                continue;
            }
            let seen = *self.first_seen.entry(uid).or_insert(now);
            pod.metadata
                .annotations
                .get_or_insert_with(Default::default)
                .insert(CONFIG_SEEN_ANNOTATION.into(), seen.to_string());
            pod.metadata.creation_timestamp.get_or_insert(Time(seen));
            set.pods.push(Arc::new(StaticPod {
                file: PathBuf::from(&self.url),
                pod,
            }));
        }
        set
    }

    /// One GET of the URL: the status and the body (at most 10 MiB).
    fn get(&self) -> Result<(StatusCode, Bytes), UrlSourceError> {
        let failed = |reason: String| UrlSourceError::Request {
            url: self.url.clone(),
            reason,
        };
        self.runtime.block_on(async {
            match tokio::time::timeout(REQUEST_TIMEOUT, self.request()).await {
                Ok(result) => result.map_err(failed),
                Err(_) => Err(failed(format!(
                    "no answer within {}s",
                    REQUEST_TIMEOUT.as_secs()
                ))),
            }
        })
    }

    async fn request(&self) -> Result<(StatusCode, Bytes), String> {
        let https = self.uri.scheme_str() == Some("https");
        let host = self.uri.host().unwrap_or_default();
        let port = self.uri.port_u16().unwrap_or(if https { 443 } else { 80 });
        // An IPv6 literal keeps its brackets in the URI; the socket wants it bare.
        let bare = host.trim_start_matches('[').trim_end_matches(']');
        let tcp = tokio::net::TcpStream::connect((bare, port))
            .await
            .map_err(|e| format!("cannot connect to {host}:{port}: {e}"))?;
        if https {
            let name = ServerName::try_from(bare.to_string())
                .map_err(|e| format!("{host} is not a valid server name: {e}"))?;
            let tls = self
                .tls
                .connect(name, tcp)
                .await
                .map_err(|e| format!("TLS: {e}"))?;
            self.exchange(tls).await
        } else {
            self.exchange(tcp).await
        }
    }

    async fn exchange<T>(&self, io: T) -> Result<(StatusCode, Bytes), String>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(io))
            .await
            .map_err(|e| e.to_string())?;
        let driver = tokio::spawn(connection);
        let path = self
            .uri
            .path_and_query()
            .map_or("/", hyper::http::uri::PathAndQuery::as_str);
        let mut request = Request::get(path)
            .header(HOST, self.uri.authority().map_or("", |a| a.as_str()))
            .header(
                USER_AGENT,
                concat!("podplan-agent/", env!("CARGO_PKG_VERSION")),
            )
            .body(Empty::<Bytes>::new())
            .map_err(|e| e.to_string())?;
        for (name, value) in &self.headers {
            request.headers_mut().append(name.clone(), value.clone());
        }
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| e.to_string())?;
        let status = response.status();
        let limit = usize::try_from(MAX_MANIFEST_BYTES).unwrap_or(usize::MAX);
        let body = Limited::new(response.into_body(), limit)
            .collect()
            .await
            .map_err(|e| format!("reading the body: {e} (the limit is {limit} bytes)"))?
            .to_bytes();
        driver.abort();
        Ok((status, body))
    }
}

/// A client configuration verifying servers against the system's roots.
fn client_config() -> Result<ClientConfig, String> {
    let mut roots = RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        // A system certificate rustls cannot use is skipped, as Go skips it.
        let _ = roots.add(cert);
    }
    let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}
