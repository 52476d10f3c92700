//! The CRI calls the agent makes, as a small trait ([`CriRuntime`]) over the core's
//! types: the executor and the sync loop are written against it, the gRPC client and the
//! in-process simulated runtime implement it, and unit tests use a recording fake.
//!
//! Ids: the runtime status the agent plans with names containers `<runtime>://<id>`
//! (as the kubelet's `kubecontainer.ContainerID`); the calls take the bare CRI id
//! ([`bare_id`]).

use std::collections::BTreeMap;
use std::time::Duration;

use podplan_core::cri::{
    ContainerConfig, ImageSpec, PodSandboxConfig, UpdateContainerResourcesRequest,
    UpdatePodSandboxResourcesRequest,
};
use podplan_core::plan::AuthConfig;
use podplan_core::runtime::{RuntimeStatus, SandboxStatus};

/// The gRPC status class of a failed call, as far as the agent tells them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum CriCode {
    /// The runtime cannot be reached (`Unavailable`, a refused or missing socket).
    Unavailable,
    /// The runtime does not implement the call (`Unimplemented`).
    Unimplemented,
    /// The object does not exist (`NotFound`).
    NotFound,
    /// The call took longer than `--runtime-request-timeout` (`DeadlineExceeded`).
    DeadlineExceeded,
    /// Anything else.
    Other,
}

/// A failed CRI call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call}: {message}")]
pub struct CriError {
    /// The RPC (`RunPodSandbox`, ...).
    pub call: &'static str,
    /// Its status class.
    pub code: CriCode,
    /// The runtime's message.
    pub message: String,
}

impl CriError {
    /// A failure of `call` with `code`.
    #[must_use]
    pub fn new(call: &'static str, code: CriCode, message: impl Into<String>) -> Self {
        Self {
            call,
            code,
            message: message.into(),
        }
    }
}

/// What `ExecSync` answered.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecResult {
    /// The command's exit code.
    pub exit_code: i32,
    /// Its standard output.
    pub stdout: Vec<u8>,
    /// Its standard error.
    pub stderr: Vec<u8>,
}

/// What `ImageStatus` says about an image the node has.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ImageInfo {
    /// The image's id (`sha256:…`): the imageRef the kubelet's `GetImageRef` returns.
    pub id: String,
    /// Its size in bytes (`GetImageSize`).
    pub size: u64,
}

/// The CRI calls of the agent (`RuntimeService`, and `ImageService`'s `ImageStatus` and
/// `PullImage`).
pub trait CriRuntime: Send {
    /// The runtime's name (`Version`): the `<runtime>://` prefix of the container ids
    /// the kubelet writes (and `hookResults` carries).
    ///
    /// # Errors
    ///
    /// The runtime failed or cannot be reached.
    fn runtime_name(&mut self) -> Result<String, CriError>;

    /// `ImageStatus` of an image spec: `None` when the node does not have the image.
    ///
    /// # Errors
    ///
    /// The runtime's answer (the kubelet's `ImageInspectError`); its `message` is the
    /// error as the kubelet words a gRPC error (`rpc error: code = … desc = …`).
    fn image_status(&mut self, image: &ImageSpec) -> Result<Option<ImageInfo>, CriError>;

    /// `PullImage` with one auth entry (`None`: anonymous) and the pod's sandbox config:
    /// the imageRef the runtime answers.
    ///
    /// # Errors
    ///
    /// The runtime's answer; its `message` is the error as the kubelet words a gRPC
    /// error (`rpc error: code = … desc = …`), what `pullResults[].error` carries.
    fn pull_image(
        &mut self,
        image: &ImageSpec,
        auth: Option<&AuthConfig>,
        sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError>;

    /// Every sandbox and container the runtime has, as one [`RuntimeStatus`] per pod UID
    /// (`ListPodSandbox`, `ListContainers` and their statuses), sandboxes and containers
    /// newest first, sandbox labels kept.
    ///
    /// # Errors
    ///
    /// The runtime failed or cannot be reached.
    fn relist(&mut self) -> Result<Vec<RuntimeStatus>, CriError>;

    /// `RunPodSandbox`: the new sandbox's id.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn run_pod_sandbox(
        &mut self,
        config: &PodSandboxConfig,
        runtime_handler: &str,
    ) -> Result<String, CriError>;

    /// `PodSandboxStatus` of one sandbox.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn pod_sandbox_status(&mut self, sandbox_id: &str) -> Result<SandboxStatus, CriError>;

    /// `StopPodSandbox`.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn stop_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError>;

    /// `RemovePodSandbox`.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn remove_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError>;

    /// `CreateContainer` in a sandbox: the new container's bare id.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn create_container(
        &mut self,
        sandbox_id: &str,
        config: &ContainerConfig,
        sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError>;

    /// `StartContainer`.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn start_container(&mut self, container_id: &str) -> Result<(), CriError>;

    /// `StopContainer` with a grace period (`timeout`, seconds).
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn stop_container(&mut self, container_id: &str, timeout: i64) -> Result<(), CriError>;

    /// `RemoveContainer`.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn remove_container(&mut self, container_id: &str) -> Result<(), CriError>;

    /// `UpdateContainerResources`.
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn update_container_resources(
        &mut self,
        request: &UpdateContainerResourcesRequest,
    ) -> Result<(), CriError>;

    /// `UpdatePodSandboxResources` (`Unimplemented` from runtimes before CRI 1.33).
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn update_pod_sandbox_resources(
        &mut self,
        request: &UpdatePodSandboxResourcesRequest,
    ) -> Result<(), CriError>;

    /// `ExecSync`: run `cmd` in a container, waiting at most `timeout`.
    ///
    /// # Errors
    ///
    /// The runtime's answer (a command that ran and failed is an `Ok` with its exit code).
    fn exec_sync(
        &mut self,
        container_id: &str,
        cmd: &[String],
        timeout: Duration,
    ) -> Result<ExecResult, CriError>;

    /// [`CriRuntime::exec_sync`], the caller waiting at most `wait` for the answer (a
    /// preStop hook is waited for until the grace period is over, then the stop goes on,
    /// as `killContainer` does; the command may go on in the runtime).
    ///
    /// # Errors
    ///
    /// The runtime's answer, or `DeadlineExceeded` when it did not answer in time.
    fn exec_sync_within(
        &mut self,
        container_id: &str,
        cmd: &[String],
        timeout: Duration,
        wait: Duration,
    ) -> Result<ExecResult, CriError> {
        let _ = wait;
        self.exec_sync(container_id, cmd, timeout)
    }

    /// The annotations of a container (`ContainerStatus`): what the kubelet wrote when it
    /// created it (`io.kubernetes.container.preStopHandler`, the grace period, ...), read
    /// back for a container whose pod is no longer known (`restoreSpecsFromContainerLabels`).
    ///
    /// # Errors
    ///
    /// The runtime's answer.
    fn container_annotations(
        &mut self,
        container_id: &str,
    ) -> Result<BTreeMap<String, String>, CriError> {
        let _ = container_id;
        Ok(BTreeMap::new())
    }
}

/// The bare CRI id of a `<runtime>://<id>` container id (or of a bare id).
#[must_use]
pub fn bare_id(id: &str) -> &str {
    id.split_once("://").map_or(id, |(_, bare)| bare)
}

#[cfg(test)]
mod tests {
    use super::bare_id;

    #[test]
    fn bare_ids() {
        assert_eq!(bare_id("containerd://abc"), "abc");
        assert_eq!(bare_id("abc"), "abc");
    }
}
