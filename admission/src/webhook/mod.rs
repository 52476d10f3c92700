//! `podplan webhook`'s server: an HTTPS admission webhook that answers
//! `admission.k8s.io/v1` AdmissionReviews with the same engine path as `podplan admit`
//! ([`crate`]): the native lint, or a Kubewarden policy module through the
//! waPC host.
//!
//! - Endpoints: `POST /validate` (the review), `GET /healthz` (liveness), `GET /readyz`
//!   (readiness: `503` while draining), `GET /metrics` (Prometheus, [`metrics`]); the last
//!   three also on the optional plain-HTTP [`Config::metrics_addr`].
//! - Errors: a review that cannot be read is answered `400` with a refusal review that
//!   names the problem, a content type other than `application/json` `415`, a body over
//!   [`Config::max_body_bytes`] `413`, a body not received within
//!   [`Config::body_read_timeout`] `408`, more than [`Config::max_in_flight`] reviews at
//!   once (after [`Config::queue_wait`]) `429`, a method other than POST `405`, an unknown
//!   path `404`, without a client certificate when [`Config::client_ca_file`] is set `403`,
//!   a failing policy module `500`. A review that is judged (allowed or denied) is `200`;
//!   one whose judge overruns [`Config::review_timeout`] is answered allowed with a
//!   warning that says it was not checked.
//! - Bounds: the tokio workers are the caller's (the CLI's `--threads`); judges run on
//!   the blocking pool, at most [`Config::lint_workers`] at once; the memory a review can
//!   hold is bounded by `max_in_flight × max_body_bytes` plus the workers' parse;
//!   connections by [`Config::max_connections`], their requests by
//!   [`Config::max_requests_per_connection`], their idle and header time by
//!   [`Config::header_read_timeout`] (hyper's timer runs while a connection waits for its
//!   next request's head).
//! - TLS: rustls on the `ring` provider, certificate and key from PEM files, re-read
//!   while serving ([`tls`]): a rotated certificate is served to new connections
//!   without a restart.
//! - Shutdown: when [`Server::run`]'s `shutdown` future resolves, readiness turns false
//!   and every answer closes its connection, while new connections are still accepted for
//!   [`Config::drain_period`] (the endpoints controller takes the pod out of the Service);
//!   then the listeners close, open connections finish their requests, and `run` returns
//!   at the latest [`Config::shutdown_grace`] after the signal (what is still in flight
//!   then is dropped and logged).
//!
//! Built on tokio, hyper 1 and tokio-rustls; no command line here (`src/cli/webhook.rs`).

mod handler;
pub mod metrics;
pub mod tls;

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use podplan_core::admission::AdmissionSettings;
use podplan_core::limits::MAX_REQUEST_BYTES;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_rustls::TlsAcceptor;

use crate::{check_policy_settings, review, review_with_policy, Answer, PolicyError};
use podplan_wasmhost::wapc::PolicyModule;
use podplan_wasmhost::HostError;

/// One review for the policy thread, and where its answer goes.
type PolicyJob = (Vec<u8>, mpsc::SyncSender<Result<Answer, PolicyError>>);

/// What judges the reviews: the same two paths as `podplan admit`.
#[derive(Debug)]
pub enum Judge {
    /// The core's lint, natively.
    Native(AdmissionSettings),
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

/// The default body limit: 1 MiB. A judge takes up to ~128 times its review at its peak
/// (see [`Config::judge_memory_bytes`]), so with the default budget one review of this
/// size is judged at a time within the Deployment's 256 Mi. Larger reviews (objects near
/// etcd's 1.5 MiB) are refused `413`, which the webhook's `failurePolicy: Ignore` lets
/// through unchecked; raise both limits together for them.
pub const DEFAULT_MAX_BODY_BYTES: usize = 1 << 20;

/// The default memory budget of the judges: 160 MiB.
pub const DEFAULT_JUDGE_MEMORY_BYTES: usize = 160 << 20;

/// The server's settings.
#[derive(Debug, Clone)]
pub struct Config {
    /// Where to listen (port 0: any free port; see [`Server::local_addr`]).
    pub addr: SocketAddr,
    /// The PEM certificate chain (leaf first).
    pub cert_file: PathBuf,
    /// The PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub key_file: PathBuf,
    /// PEM CA certificates: when set, `POST /validate` needs a client certificate they
    /// verify (the API server's `--admission-control-config-file` kubeconfig); the probes
    /// and `/metrics` do not.
    pub client_ca_file: Option<PathBuf>,
    /// A plain-HTTP address for `/metrics`, `/healthz` and `/readyz` (no reviews).
    pub metrics_addr: Option<SocketAddr>,
    /// How often the two files are re-read for a rotated certificate.
    pub reload_interval: Duration,
    /// How long after the shutdown signal new connections are still accepted (readiness
    /// is false from the signal on, so the endpoints controller takes the pod out).
    pub drain_period: Duration,
    /// The bound on shutdown, from the signal: what is in flight then is dropped.
    pub shutdown_grace: Duration,
    /// The largest review body accepted (at most the core's [`MAX_REQUEST_BYTES`]).
    pub max_body_bytes: usize,
    /// Reviews read or judged at once; past it a review waits [`Self::queue_wait`] for a
    /// place, then gets `429`.
    pub max_in_flight: usize,
    /// How long a review waits for a place among the in-flight ones.
    pub queue_wait: Duration,
    /// Judges (lint or policy calls) running at once on the blocking pool.
    pub lint_workers: usize,
    /// The memory the judges may take at once: each takes up to ~128 times its review's
    /// size (measured), at most all of it, so large reviews wait for each other.
    pub judge_memory_bytes: usize,
    /// A review not judged this long after its headers arrived is answered allowed with a
    /// warning (below the API server's 10 s default webhook timeout).
    pub review_timeout: Duration,
    /// The TLS handshake and a request's headers must arrive within this; it also closes
    /// a keep-alive connection idle this long.
    pub header_read_timeout: Duration,
    /// A review's body must arrive within this (after its headers); else `408` and the
    /// connection is closed.
    pub body_read_timeout: Duration,
    /// Open connections at most; more wait in the listen backlog.
    pub max_connections: usize,
    /// Requests served on one connection before it is closed (`Connection: close`).
    pub max_requests_per_connection: u32,
}

impl Config {
    /// Defaults for a certificate and key: 10 s reloads, a 5 s drain in a 15 s shutdown
    /// grace, 1 MiB bodies, 16 reviews in flight (1 s queue), 2 lint workers sharing
    /// 160 MiB, a 4 s review
    /// deadline, 10 s for headers (and idle connections), 5 s for bodies, 256 connections,
    /// 1000 requests per connection.
    #[must_use]
    pub fn new(addr: SocketAddr, cert_file: PathBuf, key_file: PathBuf) -> Self {
        Self {
            addr,
            cert_file,
            key_file,
            client_ca_file: None,
            metrics_addr: None,
            reload_interval: Duration::from_secs(10),
            drain_period: Duration::from_secs(5),
            shutdown_grace: Duration::from_secs(15),
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            max_in_flight: 16,
            queue_wait: Duration::from_secs(1),
            lint_workers: 2,
            judge_memory_bytes: DEFAULT_JUDGE_MEMORY_BYTES,
            review_timeout: Duration::from_secs(4),
            header_read_timeout: Duration::from_secs(10),
            body_read_timeout: Duration::from_secs(5),
            max_connections: 256,
            max_requests_per_connection: 1000,
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
    /// A limit is zero.
    #[error("{0} must be at least 1")]
    Limit(&'static str),
}

/// A bound webhook, ready to [`run`](Server::run).
pub struct Server {
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
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

async fn bind(addr: SocketAddr) -> Result<TcpListener, WebhookError> {
    TcpListener::bind(addr)
        .await
        .map_err(|e| WebhookError::Bind {
            addr,
            message: e.to_string(),
        })
}

impl Server {
    /// Loads the certificate (and client CA) and binds the addresses (inside a tokio
    /// runtime).
    ///
    /// # Errors
    ///
    /// [`WebhookError::Tls`] when the certificate, key or client CA cannot be loaded,
    /// [`WebhookError::Bind`] when an address cannot be bound, [`WebhookError::Limit`]
    /// for a zero limit.
    pub async fn bind(config: Config, judge: Judge) -> Result<Self, WebhookError> {
        for (value, name) in [
            (config.max_in_flight, "the in-flight limit"),
            (config.lint_workers, "the lint workers"),
            (config.max_connections, "the connection limit"),
            (config.max_body_bytes, "the body limit"),
            (
                usize::try_from(config.max_requests_per_connection).unwrap_or(usize::MAX),
                "the requests per connection",
            ),
        ] {
            if value == 0 {
                return Err(WebhookError::Limit(name));
            }
        }
        let judge_memory_kib = u32::try_from(config.judge_memory_bytes / 1024)
            .unwrap_or(u32::MAX)
            .max(1);
        let certs = Arc::new(tls::CertReloader::load(
            config.cert_file.clone(),
            config.key_file.clone(),
        )?);
        let acceptor = TlsAcceptor::from(tls::server_config(
            Arc::clone(&certs),
            config.client_ca_file.as_deref(),
        )?);
        let listener = bind(config.addr).await?;
        let metrics_listener = match config.metrics_addr {
            Some(addr) => Some(bind(addr).await?),
            None => None,
        };
        let state = Arc::new(handler::State {
            judge: Arc::new(judge),
            limits: handler::Limits {
                max_body_bytes: config.max_body_bytes.min(MAX_REQUEST_BYTES),
                queue_wait: config.queue_wait,
                review_timeout: config.review_timeout,
                body_read_timeout: config.body_read_timeout,
                max_requests_per_connection: config.max_requests_per_connection,
            },
            in_flight: Arc::new(Semaphore::new(config.max_in_flight)),
            workers: Arc::new(Semaphore::new(config.lint_workers)),
            judge_memory: Arc::new(Semaphore::new(
                usize::try_from(judge_memory_kib).unwrap_or(usize::MAX),
            )),
            judge_memory_kib,
            metrics: metrics::Metrics::new(),
            draining: false.into(),
            certs: Arc::clone(&certs),
            client_auth: config.client_ca_file.is_some(),
        });
        Ok(Self {
            listener,
            metrics_listener,
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

    /// The plain-HTTP metrics address actually bound, when one was asked for.
    #[must_use]
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
    }

    /// Serves until `shutdown` resolves, drains for [`Config::drain_period`], then stops
    /// accepting and waits for open connections to finish, returning at the latest
    /// [`Config::shutdown_grace`] after `shutdown` resolved.
    pub async fn run(self, shutdown: impl Future<Output = ()>) {
        let Self {
            listener,
            metrics_listener,
            acceptor,
            certs,
            state,
            config,
        } = self;
        let reload = {
            let state = Arc::clone(&state);
            tokio::spawn(tls::watch(
                Arc::clone(&certs),
                config.reload_interval,
                move |ok| state.metrics.reload(ok),
            ))
        };
        let graceful = GracefulShutdown::new();
        let slots = Arc::new(Semaphore::new(config.max_connections));
        tracing::info!(
            addr = ?listener.local_addr().ok(),
            metrics_addr = ?metrics_listener.as_ref().and_then(|l| l.local_addr().ok()),
            max_in_flight = config.max_in_flight,
            max_body_bytes = config.max_body_bytes,
            lint_workers = config.lint_workers,
            review_timeout = ?config.review_timeout,
            "webhook serving"
        );
        let mut accepting = Box::pin(accept_all(
            listener,
            metrics_listener,
            acceptor,
            Arc::clone(&state),
            &config,
            &graceful,
            slots,
        ));
        tokio::pin!(shutdown);
        tokio::select! {
            () = &mut accepting => {}
            () = &mut shutdown => {}
        }
        let signalled = Instant::now();
        state.draining.store(true, Ordering::Relaxed);
        state.metrics.set_draining();
        let drain = config.drain_period.min(config.shutdown_grace);
        tracing::info!(drain_period = ?drain, grace = ?config.shutdown_grace, "draining: readiness false, still serving");
        tokio::select! {
            () = &mut accepting => {}
            () = tokio::time::sleep(drain) => {}
        }
        drop(accepting); // the listeners close
        reload.abort();
        let open = graceful.count();
        tracing::info!(
            connections = open,
            in_flight = state.metrics.in_flight.get(),
            "no new connections; finishing the open ones"
        );
        let rest = config.shutdown_grace.saturating_sub(signalled.elapsed());
        tokio::select! {
            () = graceful.shutdown() => tracing::info!("all connections closed"),
            () = tokio::time::sleep(rest) => {
                tracing::warn!(
                    grace = ?config.shutdown_grace,
                    connections = state.metrics.connections.get(),
                    in_flight = state.metrics.in_flight.get(),
                    "shutdown grace passed: dropping what is still in flight"
                );
            }
        }
    }
}

/// Accepts on both listeners until dropped.
async fn accept_all(
    listener: TcpListener,
    metrics_listener: Option<TcpListener>,
    acceptor: TlsAcceptor,
    state: Arc<handler::State>,
    config: &Config,
    graceful: &GracefulShutdown,
    slots: Arc<Semaphore>,
) {
    let tls = async {
        while let Some((slot, tcp, peer)) = accept_next(&listener, &slots, "").await {
            let acceptor = acceptor.clone();
            let state = Arc::clone(&state);
            let watcher = graceful.watcher();
            let timeout = config.header_read_timeout;
            tokio::spawn(async move {
                let tls = match tokio::time::timeout(timeout, acceptor.accept(tcp)).await {
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
                let connection = handler::Connection {
                    client_verified: tls.get_ref().1.peer_certificates().is_some(),
                    ..handler::Connection::default()
                };
                serve(tls, connection, state, watcher, timeout, slot, peer).await;
            });
        }
    };
    let plain = async {
        let Some(listener) = metrics_listener else {
            return std::future::pending::<()>().await;
        };
        while let Some((slot, tcp, peer)) = accept_next(&listener, &slots, " (metrics)").await {
            let connection = handler::Connection {
                plain: true,
                ..handler::Connection::default()
            };
            let state = Arc::clone(&state);
            let watcher = graceful.watcher();
            let timeout = config.header_read_timeout;
            tokio::spawn(serve(tcp, connection, state, watcher, timeout, slot, peer));
        }
    };
    tokio::join!(tls, plain);
}

/// The next connection on `listener` once a connection slot is free; `None` when the
/// slots are closed. A failed accept is logged (`accept failed{what}`) and retried after
/// 50 ms.
async fn accept_next(
    listener: &TcpListener,
    slots: &Arc<Semaphore>,
    what: &str,
) -> Option<(OwnedSemaphorePermit, TcpStream, SocketAddr)> {
    let slot = Arc::clone(slots).acquire_owned().await.ok()?;
    loop {
        match listener.accept().await {
            Ok((tcp, peer)) => return Some((slot, tcp, peer)),
            Err(e) => {
                tracing::warn!(error = %e, "accept failed{what}");
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
}

/// Serves HTTP/1.1 on one connection until it closes.
async fn serve<I>(
    io: I,
    connection: handler::Connection,
    state: Arc<handler::State>,
    watcher: Watcher,
    header_read_timeout: Duration,
    slot: OwnedSemaphorePermit,
    peer: SocketAddr,
) where
    I: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let _slot = slot;
    state.metrics.connections.inc();
    let connection = Arc::new(connection);
    let service = {
        let state = Arc::clone(&state);
        service_fn(move |req| handler::handle(req, Arc::clone(&state), Arc::clone(&connection)))
    };
    let conn = http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(header_read_timeout)
        .serve_connection(TokioIo::new(io), service);
    if let Err(e) = watcher.watch(conn).await {
        tracing::debug!(%peer, error = %e, "connection ended with an error");
    }
    state.metrics.connections.dec();
}
