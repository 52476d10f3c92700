//! `podplan agent`: run the static pods of `--pod-manifest-path` and `--manifest-url`
//! over the CRI, planning every sync with the engine (see `docs/agent.md`); `podplan agent
//! status` prints the last round's `status.json`.
//!
//! Flags carry the kubelet's names where the kubelet has the flag.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand, ValueEnum};
use podplan_agent::credentials::DockerConfigSearch;
use podplan_agent::grpc::GrpcRuntime;
use podplan_agent::manifest::ManifestProblem;
use podplan_agent::manifest_url::{parse_headers, UrlSource};
use podplan_agent::runtime_sim::{Clock, ImagesScript, Scenario, SimOptions, SimRuntime};
use podplan_agent::status::{self, AgentStatus};
use podplan_agent::{Agent, AgentConfig, CriCode, ManifestSet, ManifestSource};
use podplan_core::request::node::{CgroupDriver, CgroupVersion};
use podplan_wasmhost::{
    slot_for_file, EngineSettings, HostEngine, ModuleCache, ModuleWatcher, Planner, SlotConfig,
};

use super::engine::EngineArgs;
use super::exit::{CliError, Status};

/// `podplan agent [status]`.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct AgentArgs {
    /// `status`: print the running agent's last round.
    #[command(subcommand)]
    pub command: Option<AgentCommand>,
    /// The agent's flags.
    #[command(flatten)]
    pub run: RunArgs,
}

/// The subcommands of `podplan agent`.
#[derive(Debug, Subcommand)]
pub enum AgentCommand {
    /// Print the `status.json` of the agent's last round (exit 1 when it is stale).
    Status(StatusArgs),
}

/// `podplan agent status`.
#[derive(Debug, Args)]
pub struct StatusArgs {
    /// The agent's `--root-dir` [default: /var/lib/kubelet when it has a status, else the
    /// simulated runtime's default, $TMPDIR/podplan-agent-sim/root].
    #[arg(long, value_name = "DIR")]
    pub root_dir: Option<PathBuf>,
}

/// `--cgroup-driver`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CgroupDriverFlag {
    /// cgroupfs (the kubelet's default).
    Cgroupfs,
    /// systemd.
    Systemd,
}

/// The agent's flags.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Directory of static pod manifests: one v1.Pod (YAML or JSON) per non-hidden file.
    #[arg(long, value_name = "DIR")]
    pub pod_manifest_path: Option<PathBuf>,
    /// How often the manifest directory is re-read (a change is also seen within a second).
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_duration)]
    pub file_check_frequency: Duration,
    /// URL of static pods: a GET answered by one v1.Pod or a v1.PodList (YAML or JSON),
    /// beside or instead of --pod-manifest-path. A failed read keeps the last good pods;
    /// an empty answer removes them.
    #[arg(long, value_name = "URL")]
    pub manifest_url: Option<String>,
    /// Headers for --manifest-url: `name:value` pairs separated by commas; repeatable (a
    /// name given again adds a value), e.g. `--manifest-url-header 'a:hello,b:again'
    /// --manifest-url-header 'b:beautiful'`.
    #[arg(long, value_name = "NAME:VALUE,...")]
    pub manifest_url_header: Vec<String>,
    /// How often --manifest-url is read.
    #[arg(long, value_name = "DURATION", default_value = "20s", value_parser = parse_duration)]
    pub http_check_frequency: Duration,
    /// The CRI runtime: `unix:///PATH`, or `sim` for the in-process simulated runtime
    /// [default: $CONTAINER_RUNTIME_ENDPOINT, else sim].
    #[arg(long, value_name = "ENDPOINT")]
    pub container_runtime_endpoint: Option<String>,
    /// The kubelet's root directory (pod directories, podplan-agent/status.json, and the
    /// first place the node's pull credentials are looked for: config.json, as the kubelet's
    /// docker keyring) [default: /var/lib/kubelet; with the `sim` endpoint
    /// $TMPDIR/podplan-agent-sim/root].
    #[arg(long, value_name = "DIR")]
    pub root_dir: Option<PathBuf>,
    /// Where container logs go (`<dir>/<namespace>_<name>_<uid>/<container>/<n>.log`)
    /// [default: /var/log/pods; with the `sim` endpoint $TMPDIR/podplan-agent-sim/logs].
    #[arg(long, value_name = "DIR")]
    pub pod_logs_dir: Option<PathBuf>,
    /// The node's name (default: the host name, lower case).
    #[arg(long, value_name = "NAME")]
    pub node_name: Option<String>,
    /// Feature gates, `Name=true,Other=false` (over the 1.37 defaults).
    #[arg(long, value_name = "GATES", value_parser = parse_gates, default_value = "")]
    pub feature_gates: BTreeMap<String, bool>,
    /// Timeout of every CRI call but the long-running ones.
    #[arg(long, value_name = "DURATION", default_value = "2m", value_parser = parse_duration)]
    pub runtime_request_timeout: Duration,
    /// A pod whose inputs did not change is still synced this often.
    #[arg(long, value_name = "DURATION", default_value = "1m", value_parser = parse_duration)]
    pub sync_frequency: Duration,
    /// The cgroup driver of the runtime.
    #[arg(long, value_enum, default_value_t = CgroupDriverFlag::Cgroupfs)]
    pub cgroup_driver: CgroupDriverFlag,
    /// Make the QoS cgroups (kubepods, burstable, besteffort) and each pod's cgroup with
    /// its limits before the pod's sandbox, as the kubelet does (cgroupfs driver, real
    /// runtime only). `--cgroups-per-qos=false` leaves them to the runtime.
    #[arg(long, default_value_t = true, action = clap::ArgAction::Set, value_name = "BOOL")]
    pub cgroups_per_qos: bool,
    /// The most processes each pod may run (its cgroup's pids.max); -1: no limit.
    #[arg(long, default_value_t = -1, allow_negative_numbers = true, value_name = "N")]
    pub pod_max_pids: i64,
    /// The node's resolv.conf (pods with dnsPolicy Default and ClusterFirst use it).
    #[arg(long, value_name = "FILE", default_value = podplan_core::request::node::DEFAULT_RESOLV_CONF)]
    pub resolv_conf: PathBuf,
    /// The engine.
    #[command(flatten)]
    pub engine: EngineArgs,
    /// A wasm module file to plan with, swapped in (after its self-test) whenever it
    /// changes; implies `--engine wasm`.
    #[arg(long, value_name = "FILE")]
    pub watch_module: Option<PathBuf>,
    /// Sync every pod once, print each plan as a JSON line on stdout, and exit.
    #[arg(long)]
    pub once: bool,
    /// Plan, but change nothing (no CRI call but the listing, no file written).
    #[arg(long)]
    pub dry_run: bool,
    /// The node's IP address: the pods' `status.hostIP` (and `hostIPs`), what the
    /// `status.hostIP` downward API gives, and hostNetwork pods' IP.
    #[arg(long, value_name = "IP")]
    pub node_ip: Option<std::net::IpAddr>,
}

/// A Go duration (`time.ParseDuration`, as the kubelet's own flags): `500ms`, `20s`, `1m`,
/// `1m30s`, `2h`.
fn parse_duration(text: &str) -> Result<Duration, String> {
    podplan_core::go::duration::parse_go_duration_std(text.trim())
        .map_err(|e| format!("{e} (a duration like 20s or 1m30s)"))
}

/// `--feature-gates A=true,B=false`.
fn parse_gates(text: &str) -> Result<BTreeMap<String, bool>, String> {
    let mut gates = BTreeMap::new();
    for pair in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("{pair:?}: expected Name=true or Name=false"))?;
        let value: bool = value
            .trim()
            .parse()
            .map_err(|_| format!("{pair:?}: the value is true or false"))?;
        gates.insert(name.trim().to_string(), value);
    }
    Ok(gates)
}

/// Runs the command.
pub fn run(args: &AgentArgs) -> Result<Status, CliError> {
    match &args.command {
        Some(AgentCommand::Status(s)) => print_status(&status_root(s.root_dir.as_deref())),
        None => run_agent(&args.run),
    }
}

/// The simulated runtime's default directories: nothing runs for real, so nothing is
/// written to the node's kubelet directories unless asked for.
fn sim_dir(leaf: &str) -> PathBuf {
    std::env::temp_dir().join("podplan-agent-sim").join(leaf)
}

/// `status`'s root: the flag, else the kubelet's default when it has a status, else the
/// simulated runtime's default.
fn status_root(flag: Option<&Path>) -> PathBuf {
    if let Some(dir) = flag {
        return dir.to_path_buf();
    }
    let kubelet = PathBuf::from(podplan_core::request::node::DEFAULT_ROOT_DIR);
    if status::status_path(&kubelet).exists() {
        kubelet
    } else {
        sim_dir("root")
    }
}

fn print_status(root_dir: &Path) -> Result<Status, CliError> {
    let status = status::read(root_dir).map_err(CliError::Usage)?;
    let mut out = std::io::stdout().lock();
    let text = serde_json::to_string_pretty(&status).map_err(|e| CliError::Io(e.to_string()))?;
    writeln!(out, "{text}")?;
    match status::staleness(&status, jiff::Timestamp::now()) {
        Some(age) => {
            let when = status
                .written_at
                .map_or_else(|| "never".to_string(), |t| t.to_string());
            eprintln!(
                "podplan agent status: STALE: the last round was written at {when} ({age}s ago); is the agent (pid {}) still running?",
                status.pid
            );
            Ok(Status::Failures)
        }
        None => Ok(Status::Success),
    }
}

fn node_name(flag: Option<&String>) -> String {
    if let Some(name) = flag {
        return name.clone();
    }
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_lowercase())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

fn run_agent(args: &RunArgs) -> Result<Status, CliError> {
    if args.pod_manifest_path.is_none() && args.manifest_url.is_none() {
        return Err(CliError::usage(
            "podplan agent needs --pod-manifest-path DIR (one Pod manifest per file) or --manifest-url URL; see docs/agent.md",
        ));
    }
    let node = node_name(args.node_name.as_ref());
    // The URL source reads on a thread of its own (a slow server never delays a relist).
    let url_pods = match &args.manifest_url {
        Some(url) => {
            let headers = parse_headers(&args.manifest_url_header)
                .map_err(|e| CliError::usage(e.to_string()))?;
            let source = UrlSource::new(url, headers, node.clone())
                .map_err(|e| CliError::usage(e.to_string()))?;
            Some(spawn_url_source(source, args.http_check_frequency))
        }
        None => None,
    };
    let host_dns = std::fs::read_to_string(&args.resolv_conf)
        .ok()
        .map(|t| podplan_agent::parse_resolv_conf(&t));
    let endpoint = args
        .container_runtime_endpoint
        .clone()
        .or_else(|| {
            std::env::var("CONTAINER_RUNTIME_ENDPOINT")
                .ok()
                .filter(|e| !e.is_empty())
        })
        .unwrap_or_else(|| "sim".into());
    let sim = endpoint == "sim";
    let root_dir = args.root_dir.clone().unwrap_or_else(|| {
        if sim {
            sim_dir("root")
        } else {
            PathBuf::from(podplan_core::request::node::DEFAULT_ROOT_DIR)
        }
    });
    let pod_logs_dir = args.pod_logs_dir.clone().unwrap_or_else(|| {
        if sim {
            sim_dir("logs")
        } else {
            PathBuf::from(podplan_core::request::node::DEFAULT_POD_LOGS_DIR)
        }
    });
    let config = AgentConfig {
        node_name: node.clone(),
        root_dir: absolute(&root_dir).display().to_string(),
        pod_logs_dir: absolute(&pod_logs_dir).display().to_string(),
        feature_gates: args.feature_gates.clone(),
        cgroup_driver: match args.cgroup_driver {
            CgroupDriverFlag::Cgroupfs => CgroupDriver::Cgroupfs,
            CgroupDriverFlag::Systemd => CgroupDriver::Systemd,
        },
        // The simulated node models the engine's default (v2); a real one is detected.
        cgroup_version: (!sim).then(detect_cgroup_version),
        host_dns,
        sync_frequency_seconds: i64::try_from(args.sync_frequency.as_secs()).unwrap_or(60),
        dry_run: args.dry_run,
        docker_config: DockerConfigSearch::kubelet(&absolute(&root_dir)),
        node_ip: args.node_ip.map(|ip| ip.to_string()),
        // Pod cgroups are kept, and removed with their pods, on a real node only.
        cgroup_root: (!sim).then(|| PathBuf::from("/sys/fs/cgroup")),
        cgroups_per_qos: args.cgroups_per_qos,
        pod_max_pids: args.pod_max_pids,
    };
    // The planner, and the module watcher feeding its slot.
    let (planner, _watcher) = match &args.watch_module {
        Some(path) => {
            let engine = HostEngine::new(EngineSettings {
                isolation: args.engine.isolation.into(),
                ..EngineSettings::default()
            })
            .map_err(|e| CliError::usage(e.to_string()))?;
            let slot = Arc::new(
                slot_for_file(
                    engine,
                    ModuleCache::open_or_default(None),
                    SlotConfig::default(),
                    path,
                )
                .map_err(|e| CliError::usage(e.to_string()))?,
            );
            let watcher = ModuleWatcher::new(path, &slot)
                .spawn(Arc::clone(&slot), Duration::from_millis(200))
                .map_err(|e| CliError::usage(e.to_string()))?;
            (Planner::Wasm(slot), Some(watcher))
        }
        None => (args.engine.planner()?, None),
    };
    let cri: GrpcRuntime = if sim {
        eprintln!(
            "podplan agent: no --container-runtime-endpoint given: using the in-process simulated runtime (sim); nothing runs for real; pod and log directories under {} and {}",
            root_dir.display(),
            pod_logs_dir.display()
        );
        let first = args
            .pod_manifest_path
            .as_ref()
            .map(|dir| ManifestSource::new(dir, node.clone()).load(jiff::Timestamp::now()));
        sim_runtime(
            &merge(first.unwrap_or_default(), url_pods.as_ref()),
            args.runtime_request_timeout,
        )?
    } else {
        GrpcRuntime::connect(&endpoint, args.runtime_request_timeout).map_err(CliError::Usage)?
    };
    let mut agent = Agent::new(config, planner, cri);
    let mut source = args.pod_manifest_path.as_ref().map(|dir| {
        let source = ManifestSource::new(dir, node.clone());
        if args.dry_run {
            source
        } else {
            source.with_first_seen_file(root_dir.join("podplan-agent/first-seen.json"))
        }
    });
    let load = |source: &mut Option<ManifestSource>, now| {
        source.as_mut().map(|s| s.load(now)).unwrap_or_default()
    };
    let mut files = load(&mut source, jiff::Timestamp::now());
    let mut manifests = merge(files.clone(), url_pods.as_ref());
    if args.once {
        return run_once(&mut agent, &manifests, &endpoint, &root_dir, args.dry_run);
    }
    // The run loop: probes on workers of their own, pods on theirs; this thread relists
    // every second and hands out the updates, a writer thread writes status.json every
    // second whatever the pods are doing.
    agent.start_probe_workers(Clock::Wall);
    let shared = Arc::new(std::sync::Mutex::new(LoopState::default()));
    if !args.dry_run {
        spawn_status_writer(StatusWriter {
            root_dir: root_dir.clone(),
            node: node.clone(),
            endpoint: endpoint.clone(),
            planner: agent.planner().clone(),
            reports: agent.reports_handle(),
            state: Arc::clone(&shared),
            dry_run: args.dry_run,
        });
    }
    let mut last_load = Instant::now();
    let stamp_of = |source: &Option<ManifestSource>| source.as_ref().map(|s| dir_stamp(s.dir()));
    let mut stamp = stamp_of(&source);
    let mut reported_problems = Vec::new();
    let mut unreachable_since: Option<Instant> = None;
    loop {
        let started = Instant::now();
        let now = jiff::Timestamp::now();
        let current = stamp_of(&source);
        if current != stamp || last_load.elapsed() >= args.file_check_frequency {
            files = load(&mut source, now);
            last_load = Instant::now();
            stamp = current;
        }
        manifests = merge(files.clone(), url_pods.as_ref());
        if manifests.problems != reported_problems {
            for p in &manifests.problems {
                eprintln!("podplan agent: bad manifest skipped: {p}");
            }
            reported_problems.clone_from(&manifests.problems);
        }
        let relist_started = Instant::now();
        let ticked = agent.tick(&manifests, now);
        if relist_started.elapsed() > Duration::from_secs(2) {
            tracing::warn!(
                "relisting the runtime took {:.1}s",
                relist_started.elapsed().as_secs_f64()
            );
        }
        let errors = match ticked {
            Ok(()) => {
                if let Some(since) = unreachable_since.take() {
                    eprintln!(
                        "podplan agent: the runtime at {endpoint} answers again after {:.1}s",
                        since.elapsed().as_secs_f64()
                    );
                }
                Vec::new()
            }
            Err(e) => {
                let msg = if matches!(e.code, CriCode::Unavailable | CriCode::DeadlineExceeded) {
                    podplan_agent::executor::unreachable(&endpoint, &e)
                } else {
                    format!("listing the runtime at {endpoint} failed: {e}")
                };
                // The kubelet's PLEG relists every second whatever happened: so does
                // the agent, and a restarted runtime is seen within a second.
                if unreachable_since.is_none() {
                    eprintln!("podplan agent: {msg}; relisting every second");
                    unreachable_since = Some(Instant::now());
                }
                vec![msg]
            }
        };
        {
            let mut state = shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            state.rounds += 1;
            state.errors = errors;
            state.manifest_problems = manifests
                .problems
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .collect();
        }
        std::thread::sleep(Duration::from_secs(1).saturating_sub(started.elapsed()));
    }
}

/// What the run loop tells the status writer.
#[derive(Debug, Default)]
struct LoopState {
    rounds: u64,
    errors: Vec<String>,
    manifest_problems: Vec<serde_json::Value>,
}

/// The status writer's inputs.
struct StatusWriter {
    root_dir: PathBuf,
    node: String,
    endpoint: String,
    planner: Planner,
    reports: podplan_agent::sync::Reports,
    state: Arc<std::sync::Mutex<LoopState>>,
    dry_run: bool,
}

/// Writes `status.json` every second on a thread of its own: never stale because a pod
/// (or the runtime) is slow; the pods' rows are their workers' last reports.
fn spawn_status_writer(w: StatusWriter) {
    let spawned = std::thread::Builder::new()
        .name("podplan-status".into())
        .spawn(move || loop {
            let now = jiff::Timestamp::now();
            let (rounds, errors, manifest_problems) = {
                let s = w
                    .state
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                (s.rounds, s.errors.clone(), s.manifest_problems.clone())
            };
            let mut pod_errors: Vec<String> = Vec::new();
            let pods: Vec<serde_json::Value> = w
                .reports
                .at(now)
                .iter()
                .inspect(|r| {
                    pod_errors.extend(
                        r.failures
                            .iter()
                            .map(|f| format!("{}: {}: {}", r.pod, f.reason, f.message)),
                    );
                    pod_errors.extend(r.error.clone());
                })
                .filter_map(|r| serde_json::to_value(r).ok())
                .collect();
            let report = AgentStatus {
                written_at: Some(now),
                pid: std::process::id(),
                node: w.node.clone(),
                endpoint: w.endpoint.clone(),
                engine: engine_status(&w.planner),
                rounds,
                dry_run: w.dry_run,
                pods,
                manifest_problems,
                errors: errors.into_iter().chain(pod_errors).collect(),
            };
            if let Err(e) = status::write(&w.root_dir, &report) {
                tracing::warn!("cannot write the status file: {e}");
            }
            std::thread::sleep(Duration::from_secs(1));
        });
    if let Err(e) = spawned {
        eprintln!("podplan agent: cannot start the status writer: {e}");
    }
}

fn engine_status(planner: &Planner) -> serde_json::Value {
    match planner {
        Planner::Native => serde_json::json!("native"),
        Planner::Wasm(slot) => serde_json::to_value(slot.status()).unwrap_or_default(),
    }
}

/// `--once`: one round (every pod synced), the plans on stdout.
fn run_once(
    agent: &mut Agent,
    manifests: &podplan_agent::ManifestSet,
    endpoint: &str,
    root_dir: &Path,
    dry_run: bool,
) -> Result<Status, CliError> {
    for p in &manifests.problems {
        eprintln!("podplan agent: bad manifest skipped: {p}");
    }
    let now = jiff::Timestamp::now();
    let round = agent.round(manifests, now, true);
    if !dry_run {
        let report = AgentStatus {
            written_at: Some(jiff::Timestamp::now()),
            pid: std::process::id(),
            node: agent.config().node_name.clone(),
            endpoint: endpoint.to_string(),
            engine: engine_status(agent.planner()),
            rounds: 1,
            dry_run,
            pods: agent
                .reports_at(now)
                .iter()
                .filter_map(|r| serde_json::to_value(r).ok())
                .collect(),
            manifest_problems: manifests
                .problems
                .iter()
                .filter_map(|p| serde_json::to_value(p).ok())
                .collect(),
            errors: round.as_ref().map(|r| r.errors.clone()).unwrap_or_default(),
        };
        if let Err(e) = status::write(root_dir, &report) {
            tracing::warn!("cannot write the status file: {e}");
        }
    }
    let round =
        round.map_err(|e| CliError::Usage(podplan_agent::executor::unreachable(endpoint, &e)))?;
    let mut out = std::io::stdout().lock();
    for (sp, plan) in &round.synced {
        let line = serde_json::json!({
            "pod": sp.full_name(),
            "uid": sp.uid(),
            "file": sp.file.display().to_string(),
            "plan": plan,
        });
        writeln!(out, "{line}")?;
    }
    Ok(
        if round.errors.is_empty() && manifests.problems.is_empty() {
            Status::Success
        } else {
            Status::Failures
        },
    )
}

/// Names, sizes and modification times of the directory's entries: a change triggers a
/// re-read before `--file-check-frequency` is up.
/// The URL source's last good set, shared with the thread that reads it.
type UrlPods = Arc<std::sync::Mutex<ManifestSet>>;

/// Reads `source` now and then every `every` on a thread of its own, logging failures
/// as the kubelet does (the first three, then one line saying it goes quiet, then only
/// at -vv; one line when reading works again).
fn spawn_url_source(mut source: UrlSource, every: Duration) -> UrlPods {
    let shared: UrlPods = Arc::default();
    let out = Arc::clone(&shared);
    let read = move |source: &mut UrlSource, failures: &mut u32| {
        let result = source.fetch(jiff::Timestamp::now());
        *out.lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = source.set().clone();
        match result {
            Ok(()) => {
                if *failures > 0 {
                    eprintln!("podplan agent: read pods from {} again", source.url());
                }
                *failures = 0;
            }
            Err(e) => {
                match *failures {
                    0..=2 => eprintln!("podplan agent: failed to read pods from URL: {e}"),
                    3 => eprintln!("podplan agent: failed to read pods from URL (further failures are logged at -vv): {e}"),
                    _ => tracing::debug!("failed to read pods from URL: {e}"),
                }
                *failures += 1;
            }
        }
    };
    let mut failures = 0;
    read(&mut source, &mut failures);
    std::thread::spawn(move || loop {
        std::thread::sleep(every);
        read(&mut source, &mut failures);
    });
    shared
}

/// The pods of both sources: the files' first; a URL pod with the full name or UID of a
/// file pod is skipped and reported.
fn merge(mut files: ManifestSet, url: Option<&UrlPods>) -> ManifestSet {
    let Some(url) = url else {
        return files;
    };
    let from_url = url
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    files.problems.extend(from_url.problems);
    for pod in from_url.pods {
        let clash = files
            .pods
            .iter()
            .find(|f| f.full_name() == pod.full_name() || f.uid() == pod.uid());
        if let Some(first) = clash {
            files.problems.push(ManifestProblem {
                file: pod.file.clone(),
                path: String::new(),
                message: format!(
                    "the pod {} (uid {}) is already defined by {}; the URL's is ignored",
                    pod.full_name(),
                    pod.uid(),
                    first.file.display()
                ),
            });
            continue;
        }
        files.pods.push(pod);
    }
    files
}

fn dir_stamp(dir: &Path) -> Vec<(std::ffi::OsString, u64, Option<std::time::SystemTime>)> {
    let mut stamp: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let meta = std::fs::metadata(e.path()).ok()?;
            Some((e.file_name(), meta.len(), meta.modified().ok()))
        })
        .collect();
    stamp.sort();
    stamp
}

/// The simulated runtime (`podplan runtime-sim`'s) in this process (`sim`), on the wall
/// clock, reached over an in-memory gRPC channel. The node starts with the images of the
/// manifests present (announced), so that the pods start at once; an image added to a
/// manifest later is pulled (the simulated registry has every image).
fn sim_runtime(
    manifests: &podplan_agent::ManifestSet,
    timeout: Duration,
) -> Result<GrpcRuntime, CliError> {
    let mut images: Vec<String> = manifests
        .pods
        .iter()
        .filter_map(|p| p.pod.spec.as_ref())
        .flat_map(|s| {
            s.init_containers
                .iter()
                .flatten()
                .chain(s.containers.iter())
        })
        .filter_map(|c| c.image.clone())
        .collect();
    images.sort();
    images.dedup();
    if !images.is_empty() {
        eprintln!(
            "podplan agent: the simulated node has the manifests' images: {}",
            images.join(", ")
        );
    }
    let scenario = Scenario {
        images: ImagesScript {
            preloaded: images,
            ..ImagesScript::default()
        },
        ..Scenario::default()
    };
    let sim = SimRuntime::new(
        SimOptions {
            scenario,
            ..SimOptions::default()
        },
        Clock::Wall,
    );
    GrpcRuntime::in_process(&sim, timeout).map_err(CliError::Usage)
}

/// The host's cgroup hierarchy, as the kubelet detects it (`libcontainer/cgroups.IsCgroup2UnifiedMode`
/// checks the filesystem type of /sys/fs/cgroup): the unified hierarchy has
/// `cgroup.controllers` at its root.
fn detect_cgroup_version() -> CgroupVersion {
    if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
        CgroupVersion::V2
    } else {
        CgroupVersion::V1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_duration("20s"), Ok(Duration::from_secs(20)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert!(parse_duration("5x").is_err());
        assert!(parse_duration("").is_err());
        // Go's grammar (`time.ParseDuration`), and its messages.
        assert_eq!(parse_duration("1.5us"), Ok(Duration::from_nanos(1500)));
        assert_eq!(
            parse_duration("5x"),
            Err(r#"time: unknown unit "x" in duration "5x" (a duration like 20s or 1m30s)"#.into())
        );
        assert!(parse_duration("10").is_err());
        assert!(parse_duration("-1s").is_err());
    }

    #[test]
    fn feature_gates() {
        let gates = parse_gates("A=true, B=false").unwrap_or_default();
        assert_eq!(gates.get("A"), Some(&true));
        assert_eq!(gates.get("B"), Some(&false));
        assert!(parse_gates("A").is_err());
        assert!(parse_gates("A=yes").is_err());
    }
}
