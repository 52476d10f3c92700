//! `podplan runtime-sim --listen unix:///PATH`: the simulated CRI runtime as a server.

use std::path::PathBuf;

use clap::Args;
use podplan_agent::runtime_sim::{self, Clock, Scenario, SimOptions, SimRuntime};
use podplan_cri::pb::CgroupDriver;

use super::exit::{CliError, Status};

/// The long help of `podplan runtime-sim`.
pub const LONG_ABOUT: &str = "\
Serve a simulated container runtime on a unix socket: the CRI RuntimeService and
ImageService (runtime.v1) as containerd answers them, so that `podplan agent` (or crictl,
or a kubelet) can run pods without containers. Nothing is executed: sandboxes and
containers live in podplan's runtime model, with containerd's ids, name reservation
(a second CreateContainer with a taken name fails), exit codes (137 when stopped),
timestamps (the wall clock), images (any image pulls, named as containerd normalises
them) and the io.kubernetes.* labels and annotations echoed in statuses.

What happens on its own is scripted, by a scenario file (--scenario, JSON or YAML):

  containers:            # by container name, or namespace/pod/container
    app:
      exit: {code: 1, afterSeconds: 5, times: 3}   # the first 3 instances exit 1 after 5 s
      exec: {exitCode: 1, afterSeconds: 30}        # exec probes fail from 30 s after start
  sandboxes:             # by pod name, or namespace/pod
    web: {lostAfterSeconds: 60}                    # the sandbox dies, its containers with it
  faults:                # the next calls of an RPC fail with a gRPC code
    - {rpc: CreateContainer, code: UNAVAILABLE, count: 2}
  images:
    preloaded: [busybox]
    unpullable: [registry.invalid/app]             # PullImage fails with NOT_FOUND
    registry:                                      # the next 2 pulls of nginx fail as
      nginx: {fault: registryDown, times: 2}       # containerd reports an unreachable registry

or by pod annotations, which the kubelet copies to the sandbox:
  runtime-sim.podplan.io/container.<name>: '{\"exit\": {\"code\": 1, \"afterSeconds\": 5}}'
  runtime-sim.podplan.io/sandbox: '{\"lostAfterSeconds\": 60}'

It serves until SIGINT or SIGTERM, then removes its socket.";

/// Options of `podplan runtime-sim`.
#[derive(Debug, Clone, Args)]
pub struct RuntimeSimArgs {
    /// The socket to serve on: unix:///PATH (a stale socket file there is replaced).
    #[arg(long, value_name = "unix:///PATH")]
    pub listen: String,
    /// A scenario file (JSON or YAML) scripting exits, exec probes, lost sandboxes,
    /// RPC failures and images.
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// The runtime name `Version` reports: container ids read `<name>://<id>`.
    #[arg(long, value_name = "NAME", default_value = podplan_core::sim::node::DEFAULT_RUNTIME_NAME)]
    pub runtime_name: String,
    /// The cgroup driver `RuntimeConfig` reports.
    #[arg(long, value_enum, default_value_t = CgroupDriverArg::Cgroupfs)]
    pub cgroup_driver: CgroupDriverArg,
}

/// A cgroup driver on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CgroupDriverArg {
    /// systemd.
    Systemd,
    /// cgroupfs (containerd's default).
    Cgroupfs,
}

fn read_scenario(path: &PathBuf) -> Result<Scenario, CliError> {
    let text = std::fs::read_to_string(path).map_err(|e| CliError::io(path.display(), &e))?;
    serde_yaml_ng::from_str(&text).map_err(|e| {
        CliError::usage(format!(
            "{}: not a runtime-sim scenario: {e}",
            path.display()
        ))
    })
}

/// Serves until SIGINT or SIGTERM.
pub fn run(args: &RuntimeSimArgs) -> Result<Status, CliError> {
    let scenario = args
        .scenario
        .as_ref()
        .map(read_scenario)
        .transpose()?
        .unwrap_or_default();
    let options = SimOptions {
        runtime_name: args.runtime_name.clone(),
        cgroup_driver: match args.cgroup_driver {
            CgroupDriverArg::Systemd => CgroupDriver::Systemd,
            CgroupDriverArg::Cgroupfs => CgroupDriver::Cgroupfs,
        },
        scenario,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| CliError::io("cannot start the async runtime", &e))?;
    runtime.block_on(async {
        let listener =
            runtime_sim::bind(&args.listen).map_err(|e| CliError::usage(e.to_string()))?;
        let path = podplan_cri::client::socket_path(&args.listen)
            .map_err(|e| CliError::usage(e.to_string()))?;
        eprintln!("runtime-sim: serving CRI runtime.v1 on {}", args.listen);
        let sim = SimRuntime::new(options, Clock::Wall);
        // On a signal the server stops at once: open connections (an agent keeps one)
        // are not waited for.
        let served = tokio::select! {
            served = runtime_sim::serve(&sim, listener, std::future::pending()) => served,
            () = shutdown_signal() => Ok(()),
        };
        let _ = std::fs::remove_file(&path);
        served.map_err(|e| CliError::Io(e.to_string()))?;
        eprintln!("runtime-sim: stopped");
        Ok(Status::Success)
    })
}

/// SIGINT or SIGTERM.
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    match signal(SignalKind::terminate()) {
        Ok(mut term) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = term.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}
