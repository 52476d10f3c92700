//! The prober: startup, liveness and readiness probes of running containers, run when due
//! (the kubelet's `prober/worker.go`), their results fed into the next plan request.
//!
//! Per container instance (runtime id) and probe kind: the initial result (startup
//! `unknown`, liveness `success`, readiness `failure`); nothing before
//! `initialDelaySeconds`; liveness and readiness only once the startup probe succeeded;
//! a result changes after `failureThreshold` / `successThreshold` equal results in a row;
//! a succeeded startup probe and a failed liveness or startup probe stop probing that
//! instance. Actions: `exec` (`ExecSync`), `httpGet` (HTTP/1.1 GET, over TLS for
//! `scheme: HTTPS` without a certificate check as the kubelet's; 2xx and 3xx pass),
//! `tcpSocket` (a connection), `grpc` (not supported: unknown).

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, Pod, Probe};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use podplan_core::request::{ProbeResult, ProbeResults};
use podplan_core::runtime::{ContainerState, RuntimeStatus};

use super::runtime::{bare_id, CriRuntime};

/// The three probe kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `startupProbe`.
    Startup,
    /// `livenessProbe`.
    Liveness,
    /// `readinessProbe`.
    Readiness,
}

#[derive(Debug, Clone)]
struct Worker {
    last_run: Option<jiff::Timestamp>,
    result: ProbeResult,
    last: Option<ProbeResult>,
    run: i32,
    on_hold: bool,
}

impl Worker {
    fn new(kind: Kind) -> Self {
        Self {
            last_run: None,
            result: initial(kind),
            last: None,
            run: 0,
            on_hold: false,
        }
    }

    /// One probe's result: the worker's result changes after `failureThreshold` /
    /// `successThreshold` equal results in a row; a failed liveness or startup probe
    /// puts the worker on hold (until the container is restarted: a new worker).
    fn record(&mut self, result: ProbeResult, probe: &Probe, kind: Kind, name: &str, id: &str) {
        if self.last == Some(result) {
            self.run += 1;
        } else {
            self.last = Some(result);
            self.run = 1;
        }
        let failure_threshold = probe.failure_threshold.unwrap_or(3).max(1);
        let success_threshold = probe.success_threshold.unwrap_or(1).max(1);
        let settled = match result {
            ProbeResult::Failure => self.run >= failure_threshold,
            ProbeResult::Success => self.run >= success_threshold,
            ProbeResult::Unknown => true,
        };
        if settled {
            if self.result != result {
                tracing::info!(container = %name, id = %id, ?kind, ?result, "probe result changed");
            }
            self.result = result;
            if result == ProbeResult::Failure && kind != Kind::Readiness {
                self.run = 0;
                self.on_hold = true;
            }
        }
    }
}

/// The probe workers of every container instance.
#[derive(Debug, Default)]
pub struct Prober {
    workers: HashMap<(String, Kind), Worker>,
}

fn initial(kind: Kind) -> ProbeResult {
    match kind {
        Kind::Startup => ProbeResult::Unknown,
        Kind::Liveness => ProbeResult::Success,
        Kind::Readiness => ProbeResult::Failure,
    }
}

fn probe_of(c: &Container, kind: Kind) -> Option<&Probe> {
    match kind {
        Kind::Startup => c.startup_probe.as_ref(),
        Kind::Liveness => c.liveness_probe.as_ref(),
        Kind::Readiness => c.readiness_probe.as_ref(),
    }
}

fn spec_containers(pod: &Pod) -> impl Iterator<Item = &Container> {
    let spec = pod.spec.as_ref();
    let init = spec
        .and_then(|s| s.init_containers.as_ref())
        .into_iter()
        .flatten();
    // Probes of init containers run only for restartable ones (sidecars).
    let sidecars = init.filter(|c| c.restart_policy.as_deref() == Some("Always"));
    sidecars.chain(spec.map(|s| s.containers.iter()).into_iter().flatten())
}

impl Prober {
    /// Runs the due probes of `pod`'s running containers at `now` and answers every
    /// container's current results, keyed by runtime id (the request's `probes`).
    pub fn probe_pod(
        &mut self,
        cri: &mut dyn CriRuntime,
        pod: &Pod,
        status: &RuntimeStatus,
        now: jiff::Timestamp,
    ) -> BTreeMap<String, ProbeResults> {
        let mut out = BTreeMap::new();
        let pod_ip = status.ips.first().cloned();
        for c in spec_containers(pod) {
            // The newest instance of the name is the one probed.
            let Some(instance) = status.container_statuses.iter().find(|s| s.name == c.name) else {
                continue;
            };
            if instance.state != ContainerState::Running {
                continue;
            }
            let id = instance.id.clone();
            let mut results = ProbeResults::default();
            let startup_done = c.startup_probe.is_none()
                || self
                    .workers
                    .get(&(id.clone(), Kind::Startup))
                    .is_some_and(|w| w.result == ProbeResult::Success);
            for kind in [Kind::Startup, Kind::Liveness, Kind::Readiness] {
                let Some(probe) = probe_of(c, kind) else {
                    continue;
                };
                let worker = self
                    .workers
                    .entry((id.clone(), kind))
                    .or_insert_with(|| Worker::new(kind));
                let due = !worker.on_hold
                    && (kind == Kind::Startup || startup_done)
                    && !(kind == Kind::Startup && worker.result == ProbeResult::Success)
                    && instance.started_at.is_none_or(|t| {
                        (now - t).get_seconds()
                            >= i64::from(probe.initial_delay_seconds.unwrap_or(0))
                    })
                    && worker.last_run.is_none_or(|t| {
                        (now - t).get_seconds()
                            >= i64::from(probe.period_seconds.unwrap_or(10).max(1))
                    });
                if due {
                    worker.last_run = Some(now);
                    // A probe error (not a failure) is thrown away (`worker.go`).
                    if let Some(result) = run_probe(cri, &id, c, probe, pod_ip.as_deref()) {
                        worker.record(result, probe, kind, &c.name, &id);
                    }
                }
                match kind {
                    Kind::Startup => results.startup = Some(worker.result),
                    Kind::Liveness => results.liveness = Some(worker.result),
                    Kind::Readiness => results.readiness = Some(worker.result),
                }
            }
            if results != ProbeResults::default() {
                out.insert(id, results);
            }
        }
        out
    }

    /// When [`Prober::probe_pod`] next runs a probe of `pod`'s running containers
    /// (`None`: none until a container changes): the earliest of each probe's
    /// `initialDelaySeconds` after the start and `periodSeconds` after its last run. A
    /// probe on hold, a startup probe that succeeded, and liveness and readiness probes
    /// waiting for the startup probe (whose own run comes first) are not counted.
    #[must_use]
    pub fn next_due(&self, pod: &Pod, status: &RuntimeStatus) -> Option<jiff::Timestamp> {
        let mut next: Option<jiff::Timestamp> = None;
        for c in spec_containers(pod) {
            let Some(instance) = status.container_statuses.iter().find(|s| s.name == c.name) else {
                continue;
            };
            if instance.state != ContainerState::Running {
                continue;
            }
            let worker = |kind| self.workers.get(&(instance.id.clone(), kind));
            let startup_done = c.startup_probe.is_none()
                || worker(Kind::Startup).is_some_and(|w| w.result == ProbeResult::Success);
            for kind in [Kind::Startup, Kind::Liveness, Kind::Readiness] {
                let Some(probe) = probe_of(c, kind) else {
                    continue;
                };
                let w = worker(kind);
                let result = w.map_or_else(|| initial(kind), |w| w.result);
                if w.is_some_and(|w| w.on_hold)
                    || (kind != Kind::Startup && !startup_done)
                    || (kind == Kind::Startup && result == ProbeResult::Success)
                {
                    continue;
                }
                let delay_end = instance
                    .started_at
                    .map(|t| after(t, i64::from(probe.initial_delay_seconds.unwrap_or(0))));
                let period_end = w
                    .and_then(|w| w.last_run)
                    .map(|t| after(t, i64::from(probe.period_seconds.unwrap_or(10).max(1))));
                // Neither: due at once.
                let at = match (delay_end, period_end) {
                    (Some(a), Some(b)) => a.max(b),
                    (a, b) => a.or(b).unwrap_or(jiff::Timestamp::MIN),
                };
                next = Some(next.map_or(at, |n| n.min(at)));
            }
        }
        next
    }

    /// Forgets the workers of container instances not in `live` (their runtime ids).
    pub fn retain(&mut self, live: &std::collections::BTreeSet<String>) {
        self.workers.retain(|(id, _), _| live.contains(id));
    }
}

/// Runs one probe: `None` when the probe could not be run (an RPC error, not the
/// command's failure): the kubelet's worker throws such a result away (`worker.go`
/// `doProbe`: "Prober error, throw away the result"). A timed-out exec is a failure
/// (`pkg/probe/exec`).
fn run_probe(
    cri: &mut dyn CriRuntime,
    id: &str,
    c: &Container,
    probe: &Probe,
    pod_ip: Option<&str>,
) -> Option<ProbeResult> {
    let timeout =
        Duration::from_secs(u64::try_from(probe.timeout_seconds.unwrap_or(1).max(1)).unwrap_or(1));
    if let Some(exec) = &probe.exec {
        let cmd = exec.command.clone().unwrap_or_default();
        return match cri.exec_sync(bare_id(id), &cmd, timeout) {
            Ok(r) if r.exit_code == 0 => Some(ProbeResult::Success),
            Ok(_) => Some(ProbeResult::Failure),
            Err(e) if e.code == super::runtime::CriCode::DeadlineExceeded => {
                tracing::debug!(container = %c.name, "exec probe timed out: {e}");
                Some(ProbeResult::Failure)
            }
            Err(e) => {
                tracing::debug!(container = %c.name, "exec probe errored (result discarded): {e}");
                None
            }
        };
    }
    if let Some(http) = &probe.http_get {
        let Some(port) = resolve_port(&http.port, c) else {
            return Some(ProbeResult::Failure);
        };
        let https = http
            .scheme
            .as_deref()
            .is_some_and(|s| s.eq_ignore_ascii_case("HTTPS"));
        let host = http
            .host
            .clone()
            .or_else(|| pod_ip.map(str::to_string))
            .unwrap_or_else(|| "127.0.0.1".into());
        let path = http.path.clone().unwrap_or_else(|| "/".into());
        return Some(http_get(&host, port, &path, https, timeout));
    }
    if let Some(tcp) = &probe.tcp_socket {
        let Some(port) = resolve_port(&tcp.port, c) else {
            return Some(ProbeResult::Failure);
        };
        let host = tcp
            .host
            .clone()
            .or_else(|| pod_ip.map(str::to_string))
            .unwrap_or_else(|| "127.0.0.1".into());
        return match addr(&host, port).and_then(|a| TcpStream::connect_timeout(&a, timeout).ok()) {
            Some(_) => Some(ProbeResult::Success),
            None => Some(ProbeResult::Failure),
        };
    }
    Some(ProbeResult::Unknown)
}

fn resolve_port(port: &IntOrString, c: &Container) -> Option<u16> {
    match port {
        IntOrString::Int(n) => u16::try_from(*n).ok(),
        IntOrString::String(name) => c
            .ports
            .iter()
            .flatten()
            .find(|p| p.name.as_deref() == Some(name.as_str()))
            .and_then(|p| u16::try_from(p.container_port).ok())
            .or_else(|| name.parse().ok()),
    }
}

fn addr(host: &str, port: u16) -> Option<SocketAddr> {
    (host, port).to_socket_addrs().ok()?.next()
}

/// An `httpGet` probe: one HTTP/1.1 GET (over TLS when `https`, without checking the
/// certificate, as the kubelet does); a status of 200-399 passes
/// (`pkg/probe/http/http.go`).
fn http_get(host: &str, port: u16, path: &str, https: bool, timeout: Duration) -> ProbeResult {
    let Some(a) = addr(host, port) else {
        return ProbeResult::Failure;
    };
    let Ok(stream) = TcpStream::connect_timeout(&a, timeout) else {
        return ProbeResult::Failure;
    };
    let _ = stream.set_read_timeout(Some(timeout));
    let _ = stream.set_write_timeout(Some(timeout));
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUser-Agent: kube-probe/1.37\r\nAccept: */*\r\nConnection: close\r\n\r\n"
    );
    let code = if https {
        // A failed handshake is a failed probe.
        match super::probe_tls::wrap(stream, host) {
            Some(mut tls) => status_code(&mut tls, &request),
            None => 0,
        }
    } else {
        let mut stream = stream;
        status_code(&mut stream, &request)
    };
    if (200..400).contains(&code) {
        ProbeResult::Success
    } else {
        ProbeResult::Failure
    }
}

/// Sends `request` and reads the status code of the answer (0 when there is none).
fn status_code(stream: &mut (impl Read + Write), request: &str) -> u16 {
    if stream.write_all(request.as_bytes()).is_err() || stream.flush().is_err() {
        return 0;
    }
    let mut head = [0u8; 64];
    let n = stream.read(&mut head).unwrap_or(0);
    let line = String::from_utf8_lossy(head.get(..n).unwrap_or_default());
    line.split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// The probe workers' results, shared: the run loop's probe workers write them, the pod
/// workers' syncs read them.
pub type ProbeTable = Prober;

impl Prober {
    /// Every running container's current results, as [`Prober::probe_pod`] answers them,
    /// without running any probe (the probe workers run them).
    pub fn results(&mut self, pod: &Pod, status: &RuntimeStatus) -> BTreeMap<String, ProbeResults> {
        let mut out = BTreeMap::new();
        for c in spec_containers(pod) {
            let Some(instance) = status.container_statuses.iter().find(|s| s.name == c.name) else {
                continue;
            };
            if instance.state != ContainerState::Running {
                continue;
            }
            let mut results = ProbeResults::default();
            for kind in [Kind::Startup, Kind::Liveness, Kind::Readiness] {
                if probe_of(c, kind).is_none() {
                    continue;
                }
                let worker = self
                    .workers
                    .entry((instance.id.clone(), kind))
                    .or_insert_with(|| Worker::new(kind));
                match kind {
                    Kind::Startup => results.startup = Some(worker.result),
                    Kind::Liveness => results.liveness = Some(worker.result),
                    Kind::Readiness => results.readiness = Some(worker.result),
                }
            }
            if results != ProbeResults::default() {
                out.insert(instance.id.clone(), results);
            }
        }
        out
    }
}

/// One probe worker per probe of each running container (`prober_manager.go`), each a
/// tokio task on its own period: a slow probe delays only itself.
pub struct ProbeManager {
    table: Arc<Mutex<ProbeTable>>,
    factory: super::sync::CriFactory,
    clock: crate::runtime_sim::Clock,
    handle: tokio::runtime::Handle,
    tasks: HashMap<(String, Kind), tokio::task::JoinHandle<()>>,
}

impl std::fmt::Debug for ProbeManager {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProbeManager")
            .field("tasks", &self.tasks.len())
            .finish_non_exhaustive()
    }
}

impl ProbeManager {
    /// Probe workers writing `table`, each with a CRI client from `factory`, sleeping on
    /// `clock`, spawned on `handle`.
    #[must_use]
    pub fn new(
        table: Arc<Mutex<ProbeTable>>,
        factory: super::sync::CriFactory,
        clock: crate::runtime_sim::Clock,
        handle: tokio::runtime::Handle,
    ) -> Self {
        Self {
            table,
            factory,
            clock,
            handle,
            tasks: HashMap::new(),
        }
    }

    /// Starts the workers of the probes of the wanted pods' running containers that have
    /// none, and stops those of containers no longer running.
    pub fn sync(
        &mut self,
        manifests: &super::manifest::ManifestSet,
        listed: &BTreeMap<String, RuntimeStatus>,
    ) {
        let mut live = std::collections::BTreeSet::new();
        for sp in &manifests.pods {
            let Some(status) = listed.get(sp.uid()) else {
                continue;
            };
            let pod_ip = status.ips.first().cloned();
            for c in spec_containers(&sp.pod) {
                let Some(instance) = status.container_statuses.iter().find(|s| s.name == c.name)
                else {
                    continue;
                };
                if instance.state != ContainerState::Running {
                    continue;
                }
                live.insert(instance.id.clone());
                for kind in [Kind::Startup, Kind::Liveness, Kind::Readiness] {
                    let Some(probe) = probe_of(c, kind) else {
                        continue;
                    };
                    let key = (instance.id.clone(), kind);
                    if self.tasks.contains_key(&key) {
                        continue;
                    }
                    let target = Target {
                        id: instance.id.clone(),
                        kind,
                        container: c.clone(),
                        probe: probe.clone(),
                        started_at: instance.started_at,
                        pod_ip: pod_ip.clone(),
                    };
                    let task = self.handle.spawn(probe_loop(
                        target,
                        Arc::clone(&self.table),
                        Arc::clone(&self.factory),
                        self.clock.clone(),
                    ));
                    self.tasks.insert(key, task);
                }
            }
        }
        self.tasks.retain(|(id, _), task| {
            let keep = live.contains(id);
            if !keep {
                task.abort();
            }
            keep
        });
        super::sync::lock(&self.table).retain(&live);
    }
}

impl Drop for ProbeManager {
    fn drop(&mut self) {
        for task in self.tasks.values() {
            task.abort();
        }
    }
}

/// What one probe worker probes.
#[derive(Debug, Clone)]
struct Target {
    id: String,
    kind: Kind,
    container: Container,
    probe: Probe,
    started_at: Option<jiff::Timestamp>,
    pod_ip: Option<String>,
}

fn after(t: jiff::Timestamp, seconds: i64) -> jiff::Timestamp {
    t.checked_add(jiff::SignedDuration::from_secs(seconds))
        .unwrap_or(t)
}

/// A probe worker (`worker.go` `run`): waits for the initial delay, then probes every
/// period; liveness and readiness wait for the startup probe to succeed; a succeeded
/// startup probe ends the worker.
async fn probe_loop(
    target: Target,
    table: Arc<Mutex<ProbeTable>>,
    factory: super::sync::CriFactory,
    clock: crate::runtime_sim::Clock,
) {
    let period = i64::from(target.probe.period_seconds.unwrap_or(10).max(1));
    let delay = i64::from(target.probe.initial_delay_seconds.unwrap_or(0).max(0));
    let mut cri: Option<Box<dyn CriRuntime>> = None;
    let mut next = after(target.started_at.unwrap_or_else(|| clock.now()), delay);
    loop {
        clock.sleep_until(next).await;
        let now = clock.now();
        next = after(now, period);
        let (on_hold, startup_done, succeeded) = {
            let mut t = super::sync::lock(&table);
            let startup_done = target.container.startup_probe.is_none()
                || t.workers
                    .get(&(target.id.clone(), Kind::Startup))
                    .is_some_and(|w| w.result == ProbeResult::Success);
            let w = t
                .workers
                .entry((target.id.clone(), target.kind))
                .or_insert_with(|| Worker::new(target.kind));
            (w.on_hold, startup_done, w.result == ProbeResult::Success)
        };
        if target.kind == Kind::Startup && succeeded {
            return;
        }
        if on_hold || (target.kind != Kind::Startup && !startup_done) {
            continue;
        }
        let mut client = cri.take().unwrap_or_else(|| factory());
        let t2 = target.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let result = run_probe(
                client.as_mut(),
                &t2.id,
                &t2.container,
                &t2.probe,
                t2.pod_ip.as_deref(),
            );
            (client, result)
        })
        .await;
        let Ok((client, result)) = joined else {
            return;
        };
        cri = Some(client);
        if let Some(result) = result {
            let mut t = super::sync::lock(&table);
            let w = t
                .workers
                .entry((target.id.clone(), target.kind))
                .or_insert_with(|| Worker::new(target.kind));
            w.last_run = Some(now);
            w.record(
                result,
                &target.probe,
                target.kind,
                &target.container.name,
                &target.id,
            );
        }
    }
}
