//! The simulated CRI runtime: the core's one runtime model
//! ([`podplan_core::sim::node::Node`]) behind the generated `RuntimeService` and
//! `ImageService` gRPC servers, answering as containerd does.
//!
//! * `podplan runtime-sim --listen unix:///PATH` serves it on a unix socket with the wall
//!   clock ([`serve`]).
//! * In process, [`SimRuntime::in_process`] gives a tonic [`Channel`] to it (the same
//!   client code as for a real runtime), usually with a virtual [`Clock`] that moves
//!   only when told: tests and benches never sleep.
//! * What happens on its own is scripted by a [`Scenario`] (or pod annotations): exits
//!   after N seconds, failing exec probes, lost sandboxes, failing RPCs
//!   ([`SimRuntime::fail_next`]).
//!
//! ```no_run
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! use podplan_agent::runtime_sim::{Clock, SimRuntime};
//! let start = jiff::Timestamp::from_second(1_750_000_000)?;
//! let sim = SimRuntime::new(Default::default(), Clock::virtual_at(start));
//! let mut runtime = podplan_cri::client::runtime_client(sim.in_process());
//! let version = runtime.version(podplan_cri::pb::VersionRequest::default()).await?;
//! assert_eq!(version.into_inner().runtime_name, "sim");
//! sim.clock().advance(std::time::Duration::from_secs(10));
//! # Ok(()) }
//! ```

mod clock;
mod messages;
mod service;

use std::future::Future;
use std::path::Path;
use std::sync::{Arc, Mutex, PoisonError};

use hyper_util::rt::TokioIo;
use podplan_core::sim::node::{CriCode, CriError, Node};
use podplan_cri::client::MAX_MESSAGE_SIZE;
use podplan_cri::pb::image_service_server::ImageServiceServer;
use podplan_cri::pb::runtime_service_server::RuntimeServiceServer;
use podplan_cri::pb::CgroupDriver;
use tokio_stream::StreamExt as _;
use tonic::transport::{Channel, Endpoint, Server, Uri};

pub use clock::Clock;
pub use podplan_core::sim::node::{
    ContainerScript, ExecScript, ExitScript, Fault, ImagesScript, SandboxScript, Scenario,
};

/// The pod annotation prefix that makes one container slow, as some real ones are:
/// `runtime-sim.podplan.io/slow.<container>: '{"ignoreSigterm": true, "execSeconds": 16}'`
/// ([`SlowScript`]). Time passes on the runtime's [`Clock`]: on a virtual clock the call
/// waits until the clock has been moved far enough.
pub const SLOW_ANNOTATION_PREFIX: &str = "runtime-sim.podplan.io/slow.";

/// How a container is slow to answer (the model answers every call at once).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SlowScript {
    /// The container ignores SIGTERM: `StopContainer` returns only when the request's
    /// grace period (`timeout`) has passed, then the container is killed.
    #[serde(default)]
    pub ignore_sigterm: bool,
    /// `ExecSync` in the container answers this many seconds after the call.
    #[serde(default)]
    pub exec_seconds: u64,
}

/// How the simulated runtime is set up.
#[derive(Debug, Clone)]
pub struct SimOptions {
    /// The runtime name (`Version`): the prefix of container ids as the kubelet writes them.
    pub runtime_name: String,
    /// The cgroup driver `RuntimeConfig` reports.
    pub cgroup_driver: CgroupDriver,
    /// The script.
    pub scenario: Scenario,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            runtime_name: podplan_core::sim::node::DEFAULT_RUNTIME_NAME.into(),
            // containerd's default (`SystemdCgroup = false`).
            cgroup_driver: CgroupDriver::Cgroupfs,
            scenario: Scenario::default(),
        }
    }
}

/// The simulated runtime; clones share one node and one clock.
#[derive(Debug, Clone)]
pub struct SimRuntime {
    node: Arc<Mutex<Node>>,
    clock: Clock,
    cgroup_driver: CgroupDriver,
}

impl SimRuntime {
    /// A runtime with nothing in it (but the scenario's preloaded images).
    #[must_use]
    pub fn new(options: SimOptions, clock: Clock) -> Self {
        Self {
            node: Arc::new(Mutex::new(Node::new(
                &options.runtime_name,
                options.scenario,
            ))),
            clock,
            cgroup_driver: options.cgroup_driver,
        }
    }

    /// Its clock (advance a virtual one to let scripted events happen).
    #[must_use]
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    /// The cgroup driver it reports.
    #[must_use]
    pub fn cgroup_driver(&self) -> CgroupDriver {
        self.cgroup_driver
    }

    /// Looks at (or changes) the model directly, after letting its time pass to the
    /// clock's `now`.
    pub fn with_node<T>(&self, f: impl FnOnce(&mut Node) -> T) -> T {
        let mut node = self.node.lock().unwrap_or_else(PoisonError::into_inner);
        node.advance(self.clock.now());
        f(&mut node)
    }

    /// The next `count` calls of `rpc` (a method name such as `CreateContainer`) fail
    /// with `code`.
    pub fn fail_next(&self, rpc: &str, code: CriCode, count: u32) {
        self.with_node(|node| node.fail_next(rpc, code, count, ""));
    }

    /// The [`SlowScript`] of a container (by its bare id), from its pod's annotations.
    fn slow_script(&self, container_id: &str) -> SlowScript {
        let node = self.node.lock().unwrap_or_else(PoisonError::into_inner);
        let Ok(view) = node.container(container_id) else {
            return SlowScript::default();
        };
        let name = view
            .record
            .config
            .metadata
            .as_ref()
            .map(|m| m.name.clone())
            .unwrap_or_default();
        let Ok(sandbox) = node.sandbox(&view.record.sandbox_id) else {
            return SlowScript::default();
        };
        sandbox
            .record
            .config
            .annotations
            .get(&format!("{SLOW_ANNOTATION_PREFIX}{name}"))
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default()
    }

    /// Waits `seconds` on the runtime's clock (no lock held: other calls go on).
    async fn take(&self, seconds: u64) {
        if seconds > 0 {
            self.clock
                .sleep(std::time::Duration::from_secs(seconds))
                .await;
        }
    }

    /// One RPC: the scripted faults, then `f` on the node at the clock's `now`.
    fn call<T>(
        &self,
        rpc: &str,
        f: impl FnOnce(&mut Node, jiff::Timestamp) -> Result<T, CriError>,
    ) -> Result<T, tonic::Status> {
        let now = self.clock.now();
        let mut node = self.node.lock().unwrap_or_else(PoisonError::into_inner);
        node.check_fault(rpc).map_err(messages::status_of)?;
        node.advance(now);
        let result = f(&mut node, now).map_err(messages::status_of);
        match &result {
            Ok(_) => tracing::debug!(rpc, "runtime-sim call"),
            Err(status) => {
                tracing::info!(rpc, code = ?status.code(), message = status.message(), "runtime-sim call failed")
            }
        }
        result
    }

    /// The tonic router serving both services with the 16 MiB limits.
    fn router(&self) -> tonic::transport::server::Router {
        Server::builder()
            .add_service(
                RuntimeServiceServer::new(self.clone())
                    .max_decoding_message_size(MAX_MESSAGE_SIZE)
                    .max_encoding_message_size(MAX_MESSAGE_SIZE),
            )
            .add_service(
                ImageServiceServer::new(self.clone())
                    .max_decoding_message_size(MAX_MESSAGE_SIZE)
                    .max_encoding_message_size(MAX_MESSAGE_SIZE),
            )
    }

    /// A channel to this runtime in the same process (no socket): each connection is an
    /// in-memory pipe served by a task on the current tokio runtime. Must be called
    /// within a tokio runtime.
    #[must_use]
    pub fn in_process(&self) -> Channel {
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<tokio::io::DuplexStream>();
        let router = self.router();
        tokio::spawn(async move {
            let incoming = tokio_stream::wrappers::UnboundedReceiverStream::new(rx)
                .map(Ok::<_, std::io::Error>);
            if let Err(err) = router.serve_with_incoming(incoming).await {
                tracing::warn!(%err, "in-process runtime-sim stopped");
            }
        });
        Endpoint::from_static("http://runtime-sim.in-process").connect_with_connector_lazy(
            tower::service_fn(move |_: Uri| {
                let tx = tx.clone();
                async move {
                    let (client, server) = tokio::io::duplex(64 * 1024);
                    tx.send(server)
                        .map_err(|_| std::io::Error::other("the in-process runtime-sim stopped"))?;
                    Ok::<_, std::io::Error>(TokioIo::new(client))
                }
            }),
        )
    }
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The endpoint is not `unix:///PATH`.
    #[error(transparent)]
    Endpoint(#[from] podplan_cri::client::ConnectError),
    /// The socket could not be made.
    #[error("cannot listen on {path}: {source}")]
    Bind {
        /// The socket path.
        path: String,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
    /// The server failed.
    #[error("runtime-sim: {0}")]
    Transport(#[from] tonic::transport::Error),
}

/// Binds the unix socket of `endpoint` (`unix:///PATH`), replacing a stale socket file
/// as containerd does.
pub fn bind(endpoint: &str) -> Result<tokio::net::UnixListener, ServeError> {
    let path = podplan_cri::client::socket_path(endpoint)?;
    let bind_error = |source| ServeError::Bind {
        path: path.display().to_string(),
        source,
    };
    if is_socket(&path) {
        std::fs::remove_file(&path).map_err(bind_error)?;
    }
    tokio::net::UnixListener::bind(&path).map_err(bind_error)
}

fn is_socket(path: &Path) -> bool {
    use std::os::unix::fs::FileTypeExt as _;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket())
}

/// Serves `sim` on `listener` until `shutdown` completes.
pub async fn serve(
    sim: &SimRuntime,
    listener: tokio::net::UnixListener,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServeError> {
    let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener);
    sim.router()
        .serve_with_incoming_shutdown(incoming, shutdown)
        .await?;
    Ok(())
}
