//! `podplan webhook`: the HTTPS admission webhook ([`podplan_host::webhook`]) from the
//! command line: flags, settings, the policy module, the runtime and the signals.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use podplan_core::lint::LintSettings;
use podplan_host::wasm::wapc::PolicyModule;
use podplan_host::wasm::{EngineSettings, HostEngine};
use podplan_host::webhook::{Config, Judge, Server};
use serde_json::Value;

use super::exit::{CliError, Status};

const AFTER_HELP: &str = "\
Endpoints:
  POST /validate   an admission.k8s.io/v1 AdmissionReview (Content-Type: application/json);
                   answered with the AdmissionReview and its response (200), as `podplan admit`
                   answers it: the uid echoed, `allowed`, `status.message` and `warnings`
  GET  /healthz    `ok` (liveness)
  GET  /readyz     `ok` (readiness)

Errors: 400 a review that cannot be read (the body is a refusal that names the problem),
415 a content type other than application/json, 413 a body over 8 MiB, 405 a wrong method,
404 another path, 500 a failing policy module.

The certificate and key are PEM files (a kubernetes.io/tls Secret mounted as a volume).
They are re-read every --cert-reload-interval; a changed pair is served to new connections
without a restart; a pair that does not load is logged and the previous one kept.
SIGTERM or Ctrl-C stops accepting and lets open requests finish (--shutdown-grace).
Logs (tracing) go to stderr: -v info (start, reloads, shutdown), -vv every review.

Examples:
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key \\
      --settings-json '{\"rules\": {\"probe-ends-pod\": \"deny\"}}'
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key \\
      --policy podplan_kubewarden.wasm
Manifests: deploy/webhook/ (docs/admission.md).";

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
    /// The port to serve HTTPS on (0: any free port, printed at start).
    #[arg(long, default_value_t = 8443)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "0.0.0.0")]
    pub bind_address: IpAddr,
    /// Lint settings (`{"rules": {"<id>": "deny"|"warn"|"off"}}`), as a file.
    #[arg(long, conflicts_with = "settings_json", value_name = "FILE")]
    pub settings: Option<PathBuf>,
    /// Lint settings as a JSON string.
    #[arg(long, value_name = "JSON")]
    pub settings_json: Option<String>,
    /// Answer through this Kubewarden policy module (waPC) instead of the native lint.
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
    /// Seconds between re-reads of the certificate and key.
    #[arg(long, default_value_t = 10, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub cert_reload_interval: u64,
    /// Seconds open connections may take to finish after SIGTERM.
    #[arg(long, default_value_t = 10, value_name = "SECONDS")]
    pub shutdown_grace: u64,
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
                Some(b) => LintSettings::from_json(&b)
                    .map_err(|e| CliError::usage(format!("{}: {}", e.path, e.message)))?,
                None => LintSettings::default(),
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

/// Runs `podplan webhook` until SIGTERM.
pub fn run(args: &WebhookArgs) -> Result<Status, CliError> {
    let judge = judge(args)?;
    let mut config = Config::new(
        SocketAddr::new(args.bind_address, args.port),
        args.tls_cert_file.clone(),
        args.tls_private_key_file.clone(),
    );
    config.reload_interval = Duration::from_secs(args.cert_reload_interval);
    config.shutdown_grace = Duration::from_secs(args.shutdown_grace);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::usage(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let server = Server::bind(config, judge)
            .await
            .map_err(|e| CliError::usage(e.to_string()))?;
        let addr = server
            .local_addr()
            .map_err(|e| CliError::usage(format!("no local address: {e}")))?;
        eprintln!("podplan webhook: serving https://{addr}/validate");
        server.run(shutdown_signal()).await;
        Ok(Status::Success)
    })
}
