//! [`SimRuntime`]: the [`CriRuntime`] calls on the core's simulated node
//! (`podplan_core::sim::cri::Node`, the one runtime model) in-process, with a clock the
//! caller owns ([`Clock`]: the wall clock for `--container-runtime-endpoint sim`, a
//! virtual one in tests).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use podplan_core::cri::{
    ContainerConfig, PodSandboxConfig, UpdateContainerResourcesRequest,
    UpdatePodSandboxResourcesRequest,
};
use podplan_core::runtime::{RuntimeStatus, SandboxStatus};
use podplan_core::sim::cri::{self as sim, Node};

use super::runtime::{bare_id, CriCode, CriError, CriRuntime, ExecResult};

/// A clock: the wall clock, or a virtual one moved by hand.
#[derive(Debug, Clone)]
pub enum Clock {
    /// `jiff::Timestamp::now()`.
    Wall,
    /// A shared virtual time.
    Virtual(Arc<Mutex<jiff::Timestamp>>),
}

impl Clock {
    /// A virtual clock starting at `start`.
    #[must_use]
    pub fn virtual_at(start: jiff::Timestamp) -> Self {
        Self::Virtual(Arc::new(Mutex::new(start)))
    }

    /// The time now.
    #[must_use]
    pub fn now(&self) -> jiff::Timestamp {
        match self {
            Self::Wall => jiff::Timestamp::now(),
            Self::Virtual(t) => *t.lock().unwrap_or_else(PoisonError::into_inner),
        }
    }

    /// Moves a virtual clock forward (a wall clock is not moved).
    pub fn advance(&self, by: Duration) {
        if let Self::Virtual(t) = self {
            let mut t = t.lock().unwrap_or_else(PoisonError::into_inner);
            let by = jiff::SignedDuration::try_from(by).unwrap_or(jiff::SignedDuration::ZERO);
            *t = t.checked_add(by).unwrap_or(*t);
        }
    }
}

/// The simulated node behind the CRI calls.
#[derive(Debug, Clone)]
pub struct SimRuntime {
    node: Arc<Mutex<Node>>,
    clock: Clock,
}

fn code(c: sim::CriCode) -> CriCode {
    match c {
        sim::CriCode::Unavailable => CriCode::Unavailable,
        sim::CriCode::Unimplemented => CriCode::Unimplemented,
        sim::CriCode::NotFound => CriCode::NotFound,
        sim::CriCode::DeadlineExceeded => CriCode::DeadlineExceeded,
        _ => CriCode::Other,
    }
}

fn error(call: &'static str, e: &sim::CriError) -> CriError {
    CriError::new(call, code(e.code), format!("{:?}: {}", e.code, e.message))
}

impl SimRuntime {
    /// A runtime over `node`, its calls made at `clock`'s time.
    #[must_use]
    pub fn new(node: Arc<Mutex<Node>>, clock: Clock) -> Self {
        Self { node, clock }
    }

    /// The node (tests script exits and faults on it).
    #[must_use]
    pub fn node(&self) -> Arc<Mutex<Node>> {
        Arc::clone(&self.node)
    }

    /// The clock.
    #[must_use]
    pub fn clock(&self) -> &Clock {
        &self.clock
    }

    fn call<T>(
        &self,
        rpc: &'static str,
        f: impl FnOnce(&mut Node, jiff::Timestamp) -> Result<T, sim::CriError>,
    ) -> Result<T, CriError> {
        let mut node = self.node.lock().unwrap_or_else(PoisonError::into_inner);
        let now = self.clock.now();
        node.advance(now);
        node.check_fault(rpc).map_err(|e| error(rpc, &e))?;
        f(&mut node, now).map_err(|e| error(rpc, &e))
    }
}

impl CriRuntime for SimRuntime {
    fn relist(&mut self) -> Result<Vec<RuntimeStatus>, CriError> {
        self.call("ListPodSandbox", |node, _| {
            let uids: Vec<String> = node.pod_uids().map(str::to_string).collect();
            Ok(uids
                .iter()
                .filter_map(|uid| node.pod_status(uid).cloned())
                .collect())
        })
    }

    fn run_pod_sandbox(
        &mut self,
        config: &PodSandboxConfig,
        runtime_handler: &str,
    ) -> Result<String, CriError> {
        self.call("RunPodSandbox", |node, now| {
            node.run_pod_sandbox(config, runtime_handler, now)
        })
    }

    fn pod_sandbox_status(&mut self, sandbox_id: &str) -> Result<SandboxStatus, CriError> {
        self.call("PodSandboxStatus", |node, _| {
            node.sandbox(sandbox_id).map(|v| v.status.clone())
        })
    }

    fn stop_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError> {
        self.call("StopPodSandbox", |node, now| {
            node.stop_pod_sandbox(sandbox_id, now)
        })
    }

    fn remove_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError> {
        self.call("RemovePodSandbox", |node, now| {
            node.remove_pod_sandbox(sandbox_id, now)
        })
    }

    fn create_container(
        &mut self,
        sandbox_id: &str,
        config: &ContainerConfig,
        _sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        self.call("CreateContainer", |node, now| {
            node.create_container(sandbox_id, config, now)
        })
    }

    fn start_container(&mut self, container_id: &str) -> Result<(), CriError> {
        self.call("StartContainer", |node, now| {
            node.start_container(bare_id(container_id), now)
        })
    }

    fn stop_container(&mut self, container_id: &str, _timeout: i64) -> Result<(), CriError> {
        self.call("StopContainer", |node, now| {
            node.stop_container(bare_id(container_id), now)
        })
    }

    fn remove_container(&mut self, container_id: &str) -> Result<(), CriError> {
        self.call("RemoveContainer", |node, now| {
            node.remove_container(bare_id(container_id), now)
        })
    }

    fn update_container_resources(
        &mut self,
        request: &UpdateContainerResourcesRequest,
    ) -> Result<(), CriError> {
        self.call("UpdateContainerResources", |node, now| {
            node.update_container_resources(
                bare_id(&request.container_id),
                request.linux.clone(),
                now,
            )
        })
    }

    fn update_pod_sandbox_resources(
        &mut self,
        request: &UpdatePodSandboxResourcesRequest,
    ) -> Result<(), CriError> {
        self.call("UpdatePodSandboxResources", |node, now| {
            node.update_pod_sandbox_resources(
                &request.pod_sandbox_id,
                request.resources.clone(),
                now,
            )
        })
    }

    fn exec_sync(
        &mut self,
        container_id: &str,
        _cmd: &[String],
        _timeout: Duration,
    ) -> Result<ExecResult, CriError> {
        self.call("ExecSync", |node, now| {
            node.exec_sync(bare_id(container_id), now)
                .map(|r| ExecResult {
                    exit_code: r.exit_code,
                    stdout: r.stdout.into_bytes(),
                    stderr: r.stderr.into_bytes(),
                })
        })
    }
}
