//! `podplan webhook`'s server: an HTTPS admission webhook that answers
//! `admission.k8s.io/v1` AdmissionReviews with the same engine path as `podplan admit`
//! ([`crate::admission`]): the native lint, or a Kubewarden policy module through the
//! waPC host.
//!
//! - Endpoints: `POST /validate` (the review), `GET /healthz` and `GET /readyz` (`ok`).
//! - Errors: a review that cannot be read is answered `400` with a refusal review that
//!   names the problem, a content type other than `application/json` `415`, a body over
//!   the core's limit ([`MAX_REQUEST_BYTES`]) `413`, a method other than POST `405`, an
//!   unknown path `404`, a failing policy module `500`. A review that is judged (allowed or
//!   denied) is `200`.
//! - TLS: rustls on the `ring` provider, certificate and key from PEM files, re-read
//!   while serving ([`tls`]): a rotated certificate is served to new connections
//!   without a restart.
//! - Shutdown: [`Server::run`] stops accepting when its `shutdown` future resolves and
//!   lets open connections finish their requests (up to [`Config::shutdown_grace`]).
//!
//! Built on tokio, hyper 1 and tokio-rustls; no command line here (`src/cli/webhook.rs`).

mod handler;
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use podplan_core::limits::MAX_REQUEST_BYTES;
use podplan_core::lint::LintSettings;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

use crate::admission::{check_policy_settings, review, review_with_policy, Answer, PolicyError};
use crate::wasm::wapc::PolicyModule;
use crate::wasm::HostError;

/// One review for the policy thread, and where its answer goes.
type PolicyJob = (Vec<u8>, mpsc::SyncSender<Result<Answer, PolicyError>>);

/// What judges the reviews: the same two paths as `podplan admit`.
#[derive(Debug)]
pub enum Judge {
    /// The core's lint, natively.
    Native(LintSettings),
    /// A Kubewarden policy module through the waPC host, on a thread of its own (a
    /// `WapcHost` cannot move between threads); see [`Judge::policy`].
    Policy(Mutex<mpsc::Sender<PolicyJob>>),
}

impl Judge {
    /// A policy judge: `load` runs on the policy's own thread, then the module's
    /// `validate_settings` must accept `settings`, which go with every request.
    ///
    /// # Errors
    ///
    /// [`PolicyError::Host`] when the module does not load or fails,
    /// [`PolicyError::Settings`] when the settings are refused.
    pub fn policy<F>(load: F, settings: Value) -> Result<Self, PolicyError>
    where
        F: FnOnce() -> Result<PolicyModule, HostError> + Send + 'static,
    {
        let (jobs, inbox) = mpsc::channel::<PolicyJob>();
        let (ready_tx, ready) = mpsc::sync_channel::<Result<(), PolicyError>>(1);
        std::thread::Builder::new()
            .name("podplan-policy".into())
            .spawn(move || {
                let module = match load()
                    .map_err(PolicyError::from)
                    .and_then(|m| check_policy_settings(&m, &settings).map(|()| m))
                {
                    Ok(m) => {
                        let _ = ready_tx.send(Ok(()));
                        m
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                for (body, reply) in inbox {
                    let _ = reply.send(review_with_policy(&module, &settings, &body));
                }
            })
            .map_err(|e| PolicyError::Answer(format!("cannot start the policy thread: {e}")))?;
        ready
            .recv()
            .map_err(|_| PolicyError::Answer("the policy thread stopped".into()))??;
        Ok(Self::Policy(Mutex::new(jobs)))
    }

    /// Answers one review body (blocking: call it off the async workers).
    ///
    /// # Errors
    ///
    /// As [`review_with_policy`]; the native lint never fails.
    pub fn answer(&self, body: &[u8]) -> Result<Answer, PolicyError> {
        match self {
            Self::Native(settings) => Ok(review(body, settings)),
            Self::Policy(jobs) => {
                let (reply, answer) = mpsc::sync_channel(1);
                let stopped = || PolicyError::Answer("the policy thread stopped".into());
                jobs.lock()
                    .map_err(|_| stopped())?
                    .send((body.to_vec(), reply))
                    .map_err(|_| stopped())?;
                answer.recv().map_err(|_| stopped())?
            }
        }
    }
}

/// The server's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen (port 0: any free port; see [`Server::local_addr`]).
    pub addr: SocketAddr,
    /// The PEM certificate chain (leaf first).
    pub cert_file: PathBuf,
    /// The PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key_file: PathBuf,
    /// How often the two files are re-read for a rotated certificate.
    pub reload_interval: Duration,
    /// How long open connections may take to finish after shutdown begins.
    pub shutdown_grace: Duration,
    /// The largest review body accepted (at most the core's [`MAX_REQUEST_BYTES`]).
    pub max_body_bytes: usize,
}

impl Config {
    /// Defaults for a certificate and key: 10 s reloads, 10 s shutdown grace, the
    /// core's body limit.
    #[must_use]
    pub fn new(addr: SocketAddr, cert_file: PathBuf, key_file: PathBuf) -> Self {
        Self {
            addr,
            cert_file,
            key_file,
            reload_interval: Duration::from_secs(10),
            shutdown_grace: Duration::from_secs(10),
            max_body_bytes: MAX_REQUEST_BYTES,
        }
    }
}

/// Why the webhook could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    /// The certificate or key could not be loaded.
    #[error(transparent)]
    Tls(#[from] tls::TlsError),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {message}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// The OS error.
        message: String,
    },
}

/// A bound webhook, ready to [`run`](Server::run).
pub struct Server {
    listener: TcpListener,
    acceptor: TlsAcceptor,
    certs: Arc<tls::CertReloader>,
    state: Arc<handler::State>,
    config: Config,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("listener", &self.listener)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl Server {
    /// Loads the certificate and binds the address (inside a tokio runtime).
    ///
    /// # Errors
    ///
    /// [`WebhookError::Tls`] when the certificate or key cannot be loaded,
    /// [`WebhookError::Bind`] when the address cannot be bound.
    pub async fn bind(config: Config, judge: Judge) -> Result<Self, WebhookError> {
        let certs = Arc::new(tls::CertReloader::load(
            config.cert_file.clone(),
            config.key_file.clone(),
        )?);
        let acceptor = TlsAcceptor::from(tls::server_config(Arc::clone(&certs))?);
        let listener = TcpListener::bind(config.addr)
            .await
            .map_err(|e| WebhookError::Bind {
                addr: config.addr,
                message: e.to_string(),
            })?;
        let state = Arc::new(handler::State {
            judge,
            max_body_bytes: config.max_body_bytes.min(MAX_REQUEST_BYTES),
        });
        Ok(Self {
            listener,
            acceptor,
            certs,
            state,
            config,
        })
    }

    /// The address actually bound.
    ///
    /// # Errors
    ///
    /// The OS error, if the socket has none.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` resolves, then stops accepting and waits (up to the
    /// grace period) for open connections to finish.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let Self {
            listener,
            acceptor,
            certs,
            state,
            config,
        } = self;
        let reload = tokio::spawn(tls::watch(Arc::clone(&certs), config.reload_interval));
        let graceful = GracefulShutdown::new();
        tokio::pin!(shutdown);
        tracing::info!(addr = ?listener.local_addr().ok(), "webhook serving");
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let (tcp, peer) = match accepted {
                        Ok(a) => a,
                        Err(e) => {
                            tracing::warn!(error = %e, "accept failed");
                            tokio::time::sleep(Duration::from_millis(50)).await;
                            continue;
                        }
                    };
                    let acceptor = acceptor.clone();
                    let state = Arc::clone(&state);
                    let watcher = graceful.watcher();
                    tokio::spawn(async move {
                        let tls = match tokio::time::timeout(
                            Duration::from_secs(10),
                            acceptor.accept(tcp),
                        )
                        .await
                        {
                            Ok(Ok(s)) => s,
                            Ok(Err(e)) => {
                                tracing::debug!(%peer, error = %e, "TLS handshake failed");
                                return;
                            }
                            Err(_) => {
                                tracing::debug!(%peer, "TLS handshake timed out");
                                return;
                            }
                        };
                        let service = service_fn(move |req| {
                            handler::handle(req, Arc::clone(&state))
                        });
                        let conn = http1::Builder::new()
                            .timer(TokioTimer::new())
                            .header_read_timeout(Duration::from_secs(10))
                            .serve_connection(TokioIo::new(tls), service);
                        if let Err(e) = watcher.watch(conn).await {
                            tracing::debug!(%peer, error = %e, "connection ended with an error");
                        }
                    });
                }
                () = &mut shutdown => break,
            }
        }
        drop(listener);
        reload.abort();
        tracing::info!("shutting down: no new connections; waiting for open ones");
        tokio::select! {
            () = graceful.shutdown() => tracing::info!("all connections closed"),
            () = tokio::time::sleep(config.shutdown_grace) => {
                tracing::warn!(grace = ?config.shutdown_grace, "connections still open after the grace period");
            }
        }
    }
}
