//! `podplan webhook`: the HTTPS admission webhook ([`podplan_admission::webhook`]) from the
//! command line: flags, settings, the policy module, the runtime and the signals.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};
use podplan_admission::webhook::{Config, Judge, Server};
use podplan_core::admission::AdmissionSettings;
use podplan_wasmhost::wapc::PolicyModule;
use podplan_wasmhost::{EngineSettings, HostEngine};
use serde_json::Value;

use super::exit::{CliError, Status};

const AFTER_HELP: &str = "\
Endpoints (HTTPS on --port):
  POST /validate   an admission.k8s.io/v1 AdmissionReview (Content-Type: application/json);
                   answered with the AdmissionReview and its response (200), as `podplan admit`
                   answers it: the uid echoed, `allowed`, `status.message` and `warnings`
  GET  /healthz    `ok` (liveness)
  GET  /readyz     `ok`; 503 while draining or when the certificate is expired (readiness)
  GET  /metrics    Prometheus metrics (podplan_webhook_*)
--metrics-bind-address serves /metrics, /healthz and /readyz over plain HTTP too.

Errors: 400 a review that cannot be read (the body is a refusal that names the problem),
415 a content type other than application/json, 413 a body over --max-body-bytes, 408 a
body not received within --body-read-timeout (the connection is closed), 429 more than
--max-in-flight reviews for over a second, 403 no client certificate (--client-ca-file),
405 a wrong method, 404 another path, 500 a failing policy module.
A review not judged within --review-timeout is answered allowed with the warning
\"podplan did not finish in 4s: not checked\" (counted in podplan_webhook_deadline_exceeded_total).

Bounds: --threads async workers, --lint-workers judges at once sharing --judge-memory-bytes
(a judge takes up to ~128x its review), --max-in-flight reviews held (at most max-in-flight x
max-body-bytes of bodies), --max-connections open
connections, each closed after --max-requests-per-connection requests or when idle for
--header-read-timeout.

The certificate and key are PEM files (a kubernetes.io/tls Secret mounted as a volume).
They are re-read every --cert-reload-interval; a changed pair is served to new connections
without a restart; a pair that does not load is logged and the previous one kept.
SIGTERM or Ctrl-C: /readyz turns 503 at once and answers close their connections, new
connections are accepted for --drain-period (the Service's endpoints update), then the
listeners close and open requests finish; the process exits at the latest --shutdown-grace
after the signal. Durations: 4s, 500ms, 1m, or plain seconds.
Logs (tracing) go to stderr, info by default (-v debug: every review), as text or as
JSON lines (--log-format json).

Examples:
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key \\
      --settings-json '{\"rules\": {\"probe-ends-pod\": \"deny\"}}' --log-format json
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key \\
      --policy podplan_kubewarden.wasm --metrics-bind-address :8080
Manifests: deploy/webhook/ (docs/admission.md).";

/// How the logs are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// One human-readable line per event.
    Text,
    /// One JSON object per line (timestamp, level, fields, message).
    Json,
}

/// A duration: a Go duration (`time.ParseDuration`: `4s`, `500ms`, `1m`, `1m30s`), or
/// plain seconds (`10`, `2.5`).
fn duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let plain_seconds = !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit() || b == b'.');
    if plain_seconds {
        return podplan_core::go::duration::parse_go_duration_std(&format!("{text}s"))
            .map_err(|_| format!("{text:?} is not a duration (4s, 500ms, 1m, 10)"));
    }
    podplan_core::go::duration::parse_go_duration_std(text)
        .map_err(|e| format!("{e} (a duration like 4s, 500ms, 1m, or plain seconds: 10)"))
}

/// An optional listen address (`0`: none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListenAddress(pub Option<SocketAddr>);

/// A listen address: `HOST:PORT`, `:PORT` (all interfaces), or `0` (off).
fn listen_address(text: &str) -> Result<ListenAddress, String> {
    if text == "0" || text.is_empty() {
        return Ok(ListenAddress(None));
    }
    let full = match text.strip_prefix(':') {
        Some(port) => format!("0.0.0.0:{port}"),
        None => text.to_string(),
    };
    full.parse()
        .map(|a| ListenAddress(Some(a)))
        .map_err(|e| format!("{text:?} is not HOST:PORT or :PORT: {e}"))
}

/// `podplan webhook`.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct WebhookArgs {
    /// The serving certificate chain (PEM, leaf first), e.g. a mounted Secret's tls.crt.
    #[arg(long, value_name = "FILE")]
    pub tls_cert_file: PathBuf,
    /// The certificate's private key (PEM: PKCS#8, PKCS#1 or SEC1), e.g. tls.key.
    #[arg(long, value_name = "FILE")]
    pub tls_private_key_file: PathBuf,
    /// CA certificates (PEM): /validate then needs a client certificate they verify
    /// (the probes and /metrics do not).
    #[arg(long, value_name = "FILE")]
    pub client_ca_file: Option<PathBuf>,
    /// The port to serve HTTPS on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8443)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    pub bind_address: IpAddr,
    /// Also serve /metrics, /healthz and /readyz over plain HTTP here (`:8080`,
    /// `127.0.0.1:8080`; `0`: off).
    #[arg(long, default_value = "0", value_name = "ADDR", value_parser = listen_address)]
    pub metrics_bind_address: ListenAddress,
    /// Lint settings (`{"rules": {"<id>": "deny"|"warn"|"off"}}`), as a file.
    #[arg(long, conflicts_with = "settings_json", value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// Lint settings as a JSON string.
    #[arg(long, value_name = "JSON")]
    pub settings_json: Option<String>,
    /// Answer through this Kubewarden policy module (waPC) instead of the native lint.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// How often the certificate and key are re-read.
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = duration)]
    pub cert_reload_interval: Duration,
    /// Async worker threads (tokio).
    #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: u16,
    /// Reviews judged at once (threads of the blocking pool).
    #[arg(long, default_value_t = 2, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub lint_workers: u16,
    /// Reviews read or judged at once; more wait up to a second, then get 429.
    #[arg(long, default_value_t = 16, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub max_in_flight: u16,
    /// The memory the judges may take at once (each up to ~128 times its review).
    #[arg(long, default_value_t = podplan_admission::webhook::DEFAULT_JUDGE_MEMORY_BYTES as u64, value_name = "BYTES",
          value_parser = clap::value_parser!(u64).range(1024..))]
    pub judge_memory_bytes: u64,
    /// The largest review body (at most 8 MiB, the core's limit).
    #[arg(long, default_value_t = podplan_admission::webhook::DEFAULT_MAX_BODY_BYTES as u64, value_name = "BYTES",
          value_parser = clap::value_parser!(u64).range(1..=podplan_core::limits::MAX_REQUEST_BYTES as u64))]
    pub max_body_bytes: u64,
    /// Open connections at most (more wait in the listen backlog).
    #[arg(long, default_value_t = 256, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,
    /// Requests on one connection before it is closed.
    #[arg(long, default_value_t = 1000, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_requests_per_connection: u32,
    /// A review not judged by then is answered allowed with a warning (keep it below the
    /// webhook's timeoutSeconds).
    #[arg(long, default_value = "4s", value_name = "DURATION", value_parser = duration)]
    pub review_timeout: Duration,
    /// The TLS handshake and each request's headers must arrive within this; a
    /// keep-alive connection idle this long is closed.
    #[arg(long, default_value = "10s", value_name = "DURATION", value_parser = duration)]
    pub header_read_timeout: Duration,
    /// A review's body must arrive within this, else 408 and the connection is closed.
    #[arg(long, default_value = "5s", value_name = "DURATION", value_parser = duration)]
    pub body_read_timeout: Duration,
    /// After SIGTERM: how long to keep accepting connections while readiness is false.
    #[arg(long, default_value = "5s", value_name = "DURATION", value_parser = duration)]
    pub drain_period: Duration,
    /// After SIGTERM: the process exits by then (drain included); requests still in
    /// flight are dropped and logged. Keep it below terminationGracePeriodSeconds.
    #[arg(long, default_value = "15s", value_name = "DURATION", value_parser = duration)]
    pub shutdown_grace: Duration,
    /// The log format on stderr.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
}

fn settings_bytes(args: &WebhookArgs) -> Result<Option<Vec<u8>>, CliError> {
    match (&args.settings, &args.settings_json) {
        (Some(path), _) => std::fs::read(path)
            .map(Some)
            .map_err(|e| CliError::usage(format!("cannot read {}: {e}", path.display()))),
        (None, Some(text)) => Ok(Some(text.clone().into_bytes())),
        (None, None) => Ok(None),
    }
}

fn judge(args: &WebhookArgs) -> Result<Judge, CliError> {
    let settings = settings_bytes(args)?;
    match &args.policy {
        None => {
            let settings = match settings {
                Some(b) => AdmissionSettings::from_json(&b)
                    .map_err(|e| CliError::usage(format!("{}: {}", e.path, e.message)))?,
                None => AdmissionSettings::default(),
            };
            Ok(Judge::Native(settings))
        }
        Some(path) => {
            let settings: Value = match settings {
                Some(b) => serde_json::from_slice(&b)
                    .map_err(|e| CliError::usage(format!("the settings are not JSON: {e}")))?,
                None => Value::Object(serde_json::Map::new()),
            };
            let path = path.clone();
            Judge::policy(
                move || {
                    let engine = HostEngine::new(EngineSettings::default())?;
                    PolicyModule::load_file(&engine, &path)
                },
                settings,
            )
            .map_err(|e| CliError::usage(e.to_string()))
        }
    }
}

/// Resolves on SIGTERM or Ctrl-C.
async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = term.recv() => tracing::info!("SIGTERM"),
                _ = ctrl_c => tracing::info!("interrupted"),
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "no SIGTERM handler; Ctrl-C only");
            let _ = ctrl_c.await;
        }
    }
}

/// The server's settings from the flags.
fn config(args: &WebhookArgs) -> Config {
    let mut config = Config::new(
        SocketAddr::new(args.bind_address, args.port),
        args.tls_cert_file.clone(),
        args.tls_private_key_file.clone(),
    );
    config.client_ca_file.clone_from(&args.client_ca_file);
    config.metrics_addr = args.metrics_bind_address.0;
    config.reload_interval = args.cert_reload_interval.max(Duration::from_millis(100));
    config.drain_period = args.drain_period;
    config.shutdown_grace = args.shutdown_grace;
    config.max_body_bytes = usize::try_from(args.max_body_bytes).unwrap_or(usize::MAX);
    config.max_in_flight = usize::from(args.max_in_flight);
    config.lint_workers = usize::from(args.lint_workers);
    config.judge_memory_bytes = usize::try_from(args.judge_memory_bytes).unwrap_or(usize::MAX);
    config.review_timeout = args.review_timeout;
    config.header_read_timeout = args.header_read_timeout;
    config.body_read_timeout = args.body_read_timeout;
    config.max_connections = usize::try_from(args.max_connections).unwrap_or(usize::MAX);
    config.max_requests_per_connection = args.max_requests_per_connection;
    config
}

/// Runs `podplan webhook` until SIGTERM (and its drain) is over.
pub fn run(args: &WebhookArgs) -> Result<Status, CliError> {
    let judge = judge(args)?;
    let config = config(args);
    let budget = config.max_body_bytes.saturating_mul(config.max_in_flight);
    // A fixed, small runtime: `--threads` async workers, and a blocking pool no larger
    // than the judges it runs (each judge thread keeps its own allocator heap).
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(usize::from(args.threads))
        .max_blocking_threads(usize::from(args.lint_workers))
        .thread_name("podplan-webhook")
        .enable_all()
        .build()
        .map_err(|e| CliError::usage(format!("cannot start the runtime: {e}")))?;
    let result = runtime.block_on(async {
        let server = Server::bind(config, judge)
            .await
            .map_err(|e| CliError::usage(e.to_string()))?;
        let addr = server
            .local_addr()
            .map_err(|e| CliError::usage(format!("no local address: {e}")))?;
        eprintln!("podplan webhook: serving https://{addr}/validate");
        if let Some(metrics) = server.metrics_addr() {
            tracing::info!(%metrics, "metrics and probes over plain HTTP");
        }
        tracing::info!(
            bytes = budget,
            "review bodies held at most (max-in-flight x max-body-bytes)"
        );
        server.run(shutdown_signal()).await;
        Ok(Status::Success)
    });
    // The grace is a bound: judges still running on the blocking pool are not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_addresses_parse() {
        assert_eq!(duration("4s"), Ok(Duration::from_secs(4)));
        assert_eq!(duration("10"), Ok(Duration::from_secs(10)));
        assert_eq!(duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(duration("2.5"), Ok(Duration::from_millis(2500)));
        assert_eq!(duration("1m30s"), Ok(Duration::from_secs(90)));
        assert!(duration("4d").is_err());
        assert!(duration("s").is_err());
        assert!(duration(".").is_err());
        assert!(duration("-1s").is_err());
        assert_eq!(
            listen_address(":8080"),
            Ok(ListenAddress(Some("0.0.0.0:8080".parse().unwrap())))
        );
        assert_eq!(listen_address("0"), Ok(ListenAddress(None)));
        assert!(listen_address("nope").is_err());
    }
}
