//! The command line: argument parsing (clap derive), logging, and dispatch to one
//! module per subcommand.

mod admit;
mod agent;
mod conformance;
mod crictl;
mod demo;
mod engine;
mod exit;
mod explain;
mod input;
mod lint;
mod output;
mod plan;
mod playground;
mod runtime_sim;
mod serve_module;
mod version;
mod webhook;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use exit::{CliError, Status};

const ABOUT: &str = "The kubelet's pod-lifecycle decisions (Kubernetes 1.37) as a pure engine";

const LONG_ABOUT: &str = "\
podplan computes what the kubelet would do on its next sync of a pod: given the pod and
what the container runtime reports, it answers with the pod actions (kill or create the
sandbox, which containers to start or kill and why), the CRI requests that carry them
out, and the ordered steps. Nothing is run: a plan is a decision, not an effect.";

const AFTER_HELP: &str = "\
Exit codes: 0 ok, 1 conformance failures or a denying lint finding, 2 bad input or usage.

Examples:
  podplan demo                                   walk a pod through its lifecycle
  podplan plan pod.yaml --output text            what happens to a new pod, in words
  podplan plan request.json                      the plan as the contract's JSON
  podplan plan --jsonl requests.jsonl            one plan per input line
  podplan lint deploy.yaml                       what the kubelet will make of a manifest
  podplan admit review.json                      answer an AdmissionReview
  podplan webhook --tls-cert-file tls.crt --tls-private-key-file tls.key
                                                 the admission webhook over HTTPS
  podplan conformance conformance/               run the conformance vectors
  kubectl get pod web -o yaml | podplan explain -   why a real pod is in its state
  podplan playground                             the browser playground on 127.0.0.1
  podplan runtime-sim --listen unix:///tmp/sim.sock   a simulated CRI runtime";

/// The `podplan` command line.
#[derive(Debug, Parser)]
#[command(
    name = "podplan",
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = AFTER_HELP,
    propagate_version = true
)]
pub struct Cli {
    /// Log what podplan does on stderr (-v info, -vv debug, -vvv trace).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,

    /// The command.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Plan the next sync of a pod: a request (JSON or YAML, file or stdin) in, the plan out.
    Plan(plan::PlanArgs),
    /// Lint manifests (Pods and workloads) with the kubelet's logic; exit 1 when a finding denies.
    Lint(lint::LintArgs),
    /// Answer an admission.k8s.io/v1 AdmissionReview (file or stdin) with the lint's verdict.
    Admit(admit::AdmitArgs),
    /// Serve HTTPS admission reviews (POST /validate; /healthz, /readyz) with the lint's
    /// verdict, as `podplan admit` answers them; the certificate is reloaded when it changes.
    Webhook(Box<webhook::WebhookArgs>),
    /// Run conformance vectors and report per suite; exit 1 on any failure.
    Conformance(conformance::ConformanceArgs),
    /// Walk an example pod through a scripted lifecycle, printing each sync's plan.
    Demo(demo::DemoArgs),
    /// Explain real pods (`kubectl get pod NAME -o yaml`, `kubectl get pods -o json`, the
    /// kubelet's /pods): the runtime state the kubelet saw, reconstructed from each
    /// status, and what happens next (the kubelet's next sync, the scheduler, termination).
    Explain(explain::ExplainArgs),
    /// Show podplan's version, the plan contract version and the Kubernetes target.
    Version(version::VersionArgs),
    /// Serve plans (JSON lines on stdin → stdout) from a wasm module that is swapped
    /// in whenever the watched file changes.
    ServeModule(serve_module::ServeModuleArgs),
    /// Serve the browser playground (embedded web/dist) on 127.0.0.1 and print its address.
    Playground(playground::PlaygroundArgs),
    /// Run static pods (--pod-manifest-path) over the CRI, planning every sync with the
    /// engine; `podplan agent status` prints the last round.
    Agent(Box<agent::AgentArgs>),
    /// Serve a simulated CRI runtime (containerd's answers, no containers) on a unix socket.
    #[command(long_about = runtime_sim::LONG_ABOUT)]
    RuntimeSim(runtime_sim::RuntimeSimArgs),
}

/// Parses the command line, runs the command and returns the exit code.
pub fn main() -> ExitCode {
    let cli = match command()
        .try_get_matches()
        .and_then(|matches| Cli::from_arg_matches(&matches))
    {
        Ok(cli) => cli,
        // Help and --version exit 0, usage errors 2 (clap's own codes).
        Err(err) => err.exit(),
    };
    // The agent reports warnings (bad manifests, failed calls) without -v; the webhook,
    // a server, logs its start, limits, reloads and shutdown (info) without -v.
    let (floor, json) = match &cli.command {
        Command::Agent(_) => (Some(tracing::Level::WARN), false),
        Command::Webhook(args) => (
            Some(tracing::Level::INFO),
            args.log_format == webhook::LogFormat::Json,
        ),
        _ => (None, false),
    };
    init_logging(cli.verbose, floor, json);
    tracing::debug!(?cli, "parsed the command line");
    exit::exit_code(run(&cli.command))
}

/// The clap command with the version line attached.
fn command() -> clap::Command {
    Cli::command().version(version::line())
}

fn run(command: &Command) -> Result<Status, CliError> {
    match command {
        Command::Plan(args) => plan::run(args),
        Command::Conformance(args) => conformance::run(args),
        Command::Lint(args) => lint::run(args),
        Command::Admit(args) => admit::run(args),
        Command::Webhook(args) => webhook::run(args),
        Command::Demo(args) => demo::run(args),
        Command::Explain(args) => explain::run(args),
        Command::Version(args) => version::run(args),
        Command::ServeModule(args) => serve_module::run(args),
        Command::Playground(args) => playground::run(args),
        Command::Agent(args) => agent::run(args),
        Command::RuntimeSim(args) => runtime_sim::run(args),
    }
}

/// Logs go to stderr, when asked for with `-v` or when the command has a `floor`; as
/// text, or as one JSON object per line (`json`).
fn init_logging(verbose: u8, floor: Option<tracing::Level>, json: bool) {
    let asked = match verbose {
        0 => None,
        1 => Some(tracing::Level::INFO),
        2 => Some(tracing::Level::DEBUG),
        _ => Some(tracing::Level::TRACE),
    };
    // More verbose levels compare greater (TRACE > DEBUG > INFO > WARN).
    let level = match (asked, floor) {
        (None, None) => return,
        (Some(a), Some(f)) => a.max(f),
        (Some(l), None) | (None, Some(l)) => l,
    };
    // A webhook at -v logs every review (debug): one more step than the floor.
    let level = match (floor, verbose) {
        (Some(tracing::Level::INFO), 1) => tracing::Level::DEBUG,
        _ => level,
    };
    let builder = tracing_subscriber::fmt()
        .with_max_level(level)
        .with_writer(std::io::stderr)
        .with_target(false);
    if json {
        builder.json().with_current_span(false).init();
    } else {
        builder.init();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_definition_is_consistent() {
        command().debug_assert();
    }
}
