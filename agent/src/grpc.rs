//! [`GrpcRuntime`]: the [`CriRuntime`] calls over CRI gRPC (`podplan_cri`'s tonic client),
//! blocking on a tokio runtime of its own, every call bounded by
//! `--runtime-request-timeout`.
//!
//! `relist` is the kubelet's `GetPods` + `GetPodStatus`: `ListPodSandbox` and
//! `ListContainers` (all of them, so that pods without the agent's label can be warned
//! about), then `PodSandboxStatus` and `ContainerStatus` of each, converted with
//! `podplan_cri::status::pod_status`.

use std::collections::BTreeMap;
use std::future::Future;
use std::time::Duration;

use podplan_core::config::labels::{POD_NAMESPACE_LABEL, POD_NAME_LABEL, POD_UID_LABEL};
use podplan_core::cri::{
    ContainerConfig, ImageSpec, PodSandboxConfig, UpdateContainerResourcesRequest,
    UpdatePodSandboxResourcesRequest,
};
use podplan_core::plan::AuthConfig;
use podplan_core::runtime::{RuntimeStatus, SandboxStatus};
use podplan_cri::client::{ImageClient, RuntimeClient};
use podplan_cri::status::{ListedContainer, PodRef};
use podplan_cri::{pb, requests};

use super::runtime::{CriCode, CriError, CriRuntime, ExecResult, ImageInfo};

/// How much longer than `--runtime-request-timeout` a `PullImage` may take (the kubelet
/// gives pulls no deadline; a hung runtime must not hold the agent forever).
const PULL_TIMEOUT_FACTOR: u32 = 10;

/// CRI calls over a tonic channel. Clones share the channel and the tokio runtime, so
/// that each pod worker has its own handle and calls of different pods run at once.
#[derive(Clone)]
pub struct GrpcRuntime {
    rt: std::sync::Arc<ClientRuntime>,
    client: RuntimeClient,
    images: ImageClient,
    timeout: Duration,
    runtime_name: Option<String>,
}

impl std::fmt::Debug for GrpcRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrpcRuntime")
            .field("timeout", &self.timeout)
            .field("runtime_name", &self.runtime_name)
            .finish_non_exhaustive()
    }
}

fn code(status: &tonic::Status) -> CriCode {
    match status.code() {
        tonic::Code::Unavailable => CriCode::Unavailable,
        tonic::Code::Unimplemented => CriCode::Unimplemented,
        tonic::Code::NotFound => CriCode::NotFound,
        tonic::Code::DeadlineExceeded | tonic::Code::Cancelled => CriCode::DeadlineExceeded,
        _ => CriCode::Other,
    }
}

fn error(call: &'static str, status: &tonic::Status) -> CriError {
    let message = if status.message().is_empty() {
        format!("{:?}", status.code())
    } else {
        format!("{:?}: {}", status.code(), status.message())
    };
    CriError::new(call, code(status), message)
}

/// A failed `ImageService` call, its message worded as the kubelet's gRPC client words
/// it (`rpc error: code = NotFound desc = …`): what `pullResults[].error` and
/// `images.inspectErrors` carry.
fn image_error(call: &'static str, status: &tonic::Status) -> CriError {
    let message = format!(
        "rpc error: code = {:?} desc = {}",
        status.code(),
        status.message()
    );
    CriError::new(call, code(status), message)
}

/// The client's tokio runtime, shut down without blocking when the last client goes
/// (`shutdown_background`): a pod worker's client may be dropped anywhere, in a task of
/// the agent's own runtime too (dropping a runtime there panics: "Cannot drop a runtime
/// in a context where blocking is not allowed").
struct ClientRuntime {
    handle: tokio::runtime::Handle,
    runtime: Option<tokio::runtime::Runtime>,
}

impl ClientRuntime {
    fn new(runtime: tokio::runtime::Runtime) -> Self {
        Self {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
        }
    }
}

impl std::ops::Deref for ClientRuntime {
    type Target = tokio::runtime::Handle;
    fn deref(&self) -> &Self::Target {
        &self.handle
    }
}

impl Drop for ClientRuntime {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// The CRI client's runtime: two threads drive every call of every pod worker.
fn client_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("podplan-cri")
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the tokio runtime: {e}"))
}

/// How long the client waits for a request: its `grpc-timeout`, else `fallback`.
fn deadline<T>(request: &tonic::Request<T>, fallback: Duration) -> Duration {
    request
        .metadata()
        .get("grpc-timeout")
        .and_then(|v| v.to_str().ok())
        .and_then(grpc_timeout)
        .unwrap_or(fallback)
}

/// A `grpc-timeout` header value (`<digits><unit>`, units H M S m u n).
fn grpc_timeout(text: &str) -> Option<Duration> {
    let (digits, unit) = text.split_at(text.len().checked_sub(1)?);
    let n: u64 = digits.parse().ok()?;
    Some(match unit {
        "H" => Duration::from_secs(n.saturating_mul(3600)),
        "M" => Duration::from_secs(n.saturating_mul(60)),
        "S" => Duration::from_secs(n),
        "m" => Duration::from_millis(n),
        "u" => Duration::from_micros(n),
        "n" => Duration::from_nanos(n),
        _ => return None,
    })
}

fn timed<T>(timeout: Duration, message: T) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(timeout);
    request
}

impl GrpcRuntime {
    /// A runtime on the unix socket `endpoint` (`unix:///PATH`); the connection is made
    /// on first use and remade after a failure.
    ///
    /// # Errors
    ///
    /// Not a unix endpoint, or the tokio runtime cannot start.
    pub fn connect(endpoint: &str, timeout: Duration) -> Result<Self, String> {
        let rt = client_runtime()?;
        let channel = {
            let _guard = rt.enter();
            podplan_cri::client::connect_lazy(endpoint).map_err(|e| e.to_string())?
        };
        Ok(Self::with_client(
            rt,
            podplan_cri::client::runtime_client(channel.clone()),
            podplan_cri::client::image_client(channel),
            timeout,
        ))
    }

    /// The simulated runtime `sim` (`podplan runtime-sim`'s model) in this process, over
    /// an in-memory gRPC channel: the same calls as over a socket.
    ///
    /// # Errors
    ///
    /// The tokio runtime cannot start.
    pub fn in_process(
        sim: &crate::runtime_sim::SimRuntime,
        timeout: Duration,
    ) -> Result<Self, String> {
        let rt = client_runtime()?;
        let channel = {
            let _guard = rt.enter();
            sim.in_process()
        };
        Ok(Self::with_client(
            rt,
            podplan_cri::client::runtime_client(channel.clone()),
            podplan_cri::client::image_client(channel),
            timeout,
        ))
    }

    /// A runtime on an existing client (an in-process server, a test channel).
    #[must_use]
    pub fn with_client(
        rt: tokio::runtime::Runtime,
        client: RuntimeClient,
        images: ImageClient,
        timeout: Duration,
    ) -> Self {
        Self {
            rt: std::sync::Arc::new(ClientRuntime::new(rt)),
            client,
            images,
            timeout,
            runtime_name: None,
        }
    }

    fn request<T>(&self, message: T) -> tonic::Request<T> {
        timed(self.timeout, message)
    }

    /// One `RuntimeService` call: `rpc` on a clone of the client, blocking until it
    /// answers; a failure is a [`CriError`] named `call`.
    fn runtime_call<Req, Ans, Fut>(
        &self,
        call: &'static str,
        request: tonic::Request<Req>,
        rpc: impl FnOnce(RuntimeClient, tonic::Request<Req>) -> Fut,
    ) -> Result<Ans, CriError>
    where
        Fut: Future<Output = Result<tonic::Response<Ans>, tonic::Status>>,
    {
        let wait = deadline(&request, self.timeout);
        self.block_on(wait, rpc(self.client.clone(), request))
            .map_err(|s| error(call, &s))
    }

    /// One `ImageService` call, as [`Self::runtime_call`]; a failure is worded as the
    /// kubelet's gRPC client words it ([`image_error`]).
    fn image_call<Req, Ans, Fut>(
        &self,
        call: &'static str,
        request: tonic::Request<Req>,
        rpc: impl FnOnce(ImageClient, tonic::Request<Req>) -> Fut,
    ) -> Result<Ans, CriError>
    where
        Fut: Future<Output = Result<tonic::Response<Ans>, tonic::Status>>,
    {
        let wait = deadline(&request, self.timeout);
        self.block_on(wait, rpc(self.images.clone(), request))
            .map_err(|s| image_error(call, &s))
    }

    /// Waits for one call's answer on the client's tokio runtime, at most `wait`: the
    /// client stops waiting then even when the runtime does not honour the deadline
    /// (containerd's `ExecSync` waits for the command's output to close).
    fn block_on<Ans>(
        &self,
        wait: Duration,
        call: impl Future<Output = Result<tonic::Response<Ans>, tonic::Status>>,
    ) -> Result<Ans, tonic::Status> {
        self.rt
            .block_on(async move {
                match tokio::time::timeout(wait, call).await {
                    Ok(answer) => answer,
                    Err(_) => Err(tonic::Status::deadline_exceeded(format!(
                        "no answer within {}s",
                        wait.as_secs_f64()
                    ))),
                }
            })
            .map(tonic::Response::into_inner)
    }
}

impl CriRuntime for GrpcRuntime {
    fn runtime_name(&mut self) -> Result<String, CriError> {
        if let Some(name) = &self.runtime_name {
            return Ok(name.clone());
        }
        let request = self.request(pb::VersionRequest::default());
        let answer =
            self.runtime_call(
                "Version",
                request,
                |mut c, r| async move { c.version(r).await },
            )?;
        self.runtime_name = Some(answer.runtime_name.clone());
        Ok(answer.runtime_name)
    }

    fn image_status(&mut self, image: &ImageSpec) -> Result<Option<ImageInfo>, CriError> {
        let request = self.request(pb::ImageStatusRequest {
            image: Some(image.into()),
            verbose: false,
        });
        let answer = self.image_call("ImageStatus", request, |mut c, r| async move {
            c.image_status(r).await
        })?;
        Ok(answer.image.map(|i| ImageInfo {
            id: i.id,
            size: i.size,
        }))
    }

    fn pull_image(
        &mut self,
        image: &ImageSpec,
        auth: Option<&AuthConfig>,
        sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        let mut message = podplan_cri::requests::pull_image(image, sandbox_config);
        message.auth = auth.map(|a| pb::AuthConfig {
            username: a.username.clone(),
            password: a.password.clone(),
            ..pb::AuthConfig::default()
        });
        let mut request = tonic::Request::new(message);
        request.set_timeout(self.timeout * PULL_TIMEOUT_FACTOR);
        self.image_call("PullImage", request, |mut c, r| async move {
            c.pull_image(r).await
        })
        .map(|a| a.image_ref)
    }
    fn relist(&mut self) -> Result<Vec<RuntimeStatus>, CriError> {
        let runtime_name = self.runtime_name()?;
        let mut client = self.client.clone();
        let timeout = self.timeout;
        self.rt.block_on(async move {
            let sandboxes = client
                .list_pod_sandbox(timed(timeout, requests::list_pod_sandbox([])))
                .await
                .map_err(|s| error("ListPodSandbox", &s))?
                .into_inner()
                .items;
            let containers = client
                .list_containers(timed(timeout, requests::list_containers([])))
                .await
                .map_err(|s| error("ListContainers", &s))?
                .into_inner()
                .containers;
            // uid → (name, namespace, sandbox statuses, containers)
            type Group = (
                String,
                String,
                Vec<pb::PodSandboxStatus>,
                Vec<ListedContainer>,
            );
            let mut pods: BTreeMap<String, Group> = BTreeMap::new();
            for sb in sandboxes {
                let meta = sb.metadata.clone().unwrap_or_default();
                let status = match client
                    .pod_sandbox_status(timed(
                        timeout,
                        pb::PodSandboxStatusRequest {
                            pod_sandbox_id: sb.id.clone(),
                            verbose: false,
                        },
                    ))
                    .await
                {
                    Ok(answer) => answer.into_inner().status,
                    Err(s) if s.code() == tonic::Code::NotFound => continue,
                    Err(s) => return Err(error("PodSandboxStatus", &s)),
                };
                let Some(status) = status else { continue };
                let group = pods
                    .entry(meta.uid.clone())
                    .or_insert_with(|| (meta.name.clone(), meta.namespace.clone(), vec![], vec![]));
                group.2.push(status);
            }
            for c in containers {
                let uid = c.labels.get(POD_UID_LABEL).cloned().unwrap_or_default();
                let status = match client
                    .container_status(timed(
                        timeout,
                        pb::ContainerStatusRequest {
                            container_id: c.id.clone(),
                            verbose: false,
                        },
                    ))
                    .await
                {
                    Ok(answer) => answer.into_inner().status,
                    Err(s) if s.code() == tonic::Code::NotFound => continue,
                    Err(s) => return Err(error("ContainerStatus", &s)),
                };
                let Some(status) = status else { continue };
                let group = pods.entry(uid).or_insert_with(|| {
                    (
                        c.labels.get(POD_NAME_LABEL).cloned().unwrap_or_default(),
                        c.labels
                            .get(POD_NAMESPACE_LABEL)
                            .cloned()
                            .unwrap_or_default(),
                        vec![],
                        vec![],
                    )
                });
                group.3.push(ListedContainer {
                    pod_sandbox_id: c.pod_sandbox_id.clone(),
                    status,
                });
            }
            Ok(pods
                .iter()
                .map(|(uid, (name, namespace, sbs, cs))| {
                    podplan_cri::status::pod_status(
                        &runtime_name,
                        PodRef {
                            uid,
                            name,
                            namespace,
                        },
                        sbs,
                        cs,
                    )
                })
                .collect())
        })
    }

    fn run_pod_sandbox(
        &mut self,
        config: &PodSandboxConfig,
        runtime_handler: &str,
    ) -> Result<String, CriError> {
        let request = self.request(requests::run_pod_sandbox(config, runtime_handler));
        self.runtime_call("RunPodSandbox", request, |mut c, r| async move {
            c.run_pod_sandbox(r).await
        })
        .map(|a| a.pod_sandbox_id)
    }

    fn pod_sandbox_status(&mut self, sandbox_id: &str) -> Result<SandboxStatus, CriError> {
        let request = self.request(pb::PodSandboxStatusRequest {
            pod_sandbox_id: sandbox_id.to_string(),
            verbose: false,
        });
        let answer = self.runtime_call("PodSandboxStatus", request, |mut c, r| async move {
            c.pod_sandbox_status(r).await
        })?;
        answer
            .status
            .map(|s| podplan_cri::status::sandbox_status(&s))
            .ok_or_else(|| {
                CriError::new(
                    "PodSandboxStatus",
                    CriCode::Other,
                    "no status in the answer",
                )
            })
    }

    fn stop_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError> {
        let request = self.request(requests::stop_pod_sandbox(sandbox_id));
        self.runtime_call("StopPodSandbox", request, |mut c, r| async move {
            c.stop_pod_sandbox(r).await
        })
        .map(drop)
    }

    fn remove_pod_sandbox(&mut self, sandbox_id: &str) -> Result<(), CriError> {
        let request = self.request(requests::remove_pod_sandbox(sandbox_id));
        self.runtime_call("RemovePodSandbox", request, |mut c, r| async move {
            c.remove_pod_sandbox(r).await
        })
        .map(drop)
    }

    fn create_container(
        &mut self,
        sandbox_id: &str,
        config: &ContainerConfig,
        sandbox_config: &PodSandboxConfig,
    ) -> Result<String, CriError> {
        let request = self.request(requests::create_container(
            sandbox_id,
            config,
            sandbox_config,
        ));
        self.runtime_call("CreateContainer", request, |mut c, r| async move {
            c.create_container(r).await
        })
        .map(|a| a.container_id)
    }

    fn start_container(&mut self, container_id: &str) -> Result<(), CriError> {
        let request = self.request(requests::start_container(container_id));
        self.runtime_call("StartContainer", request, |mut c, r| async move {
            c.start_container(r).await
        })
        .map(drop)
    }

    fn stop_container(&mut self, container_id: &str, timeout: i64) -> Result<(), CriError> {
        // The call may take the whole grace period, plus the usual request timeout.
        let mut request = tonic::Request::new(requests::stop_container(container_id, timeout));
        request.set_timeout(
            self.timeout + Duration::from_secs(u64::try_from(timeout.max(0)).unwrap_or(0)),
        );
        self.runtime_call("StopContainer", request, |mut c, r| async move {
            c.stop_container(r).await
        })
        .map(drop)
    }

    fn remove_container(&mut self, container_id: &str) -> Result<(), CriError> {
        let request = self.request(requests::remove_container(container_id));
        self.runtime_call("RemoveContainer", request, |mut c, r| async move {
            c.remove_container(r).await
        })
        .map(drop)
    }

    fn update_container_resources(
        &mut self,
        request: &UpdateContainerResourcesRequest,
    ) -> Result<(), CriError> {
        let request = self.request(pb::UpdateContainerResourcesRequest::from(request));
        self.runtime_call("UpdateContainerResources", request, |mut c, r| async move {
            c.update_container_resources(r).await
        })
        .map(drop)
    }

    fn update_pod_sandbox_resources(
        &mut self,
        request: &UpdatePodSandboxResourcesRequest,
    ) -> Result<(), CriError> {
        let request = self.request(pb::UpdatePodSandboxResourcesRequest::from(request));
        self.runtime_call(
            "UpdatePodSandboxResources",
            request,
            |mut c, r| async move { c.update_pod_sandbox_resources(r).await },
        )
        .map(drop)
    }

    fn exec_sync(
        &mut self,
        container_id: &str,
        cmd: &[String],
        timeout: Duration,
    ) -> Result<ExecResult, CriError> {
        // The kubelet's CRI client: the command's timeout plus the request timeout.
        let wait = self.timeout + timeout;
        self.exec_sync_within(container_id, cmd, timeout, wait)
    }

    fn container_annotations(
        &mut self,
        container_id: &str,
    ) -> Result<BTreeMap<String, String>, CriError> {
        let request = self.request(pb::ContainerStatusRequest {
            container_id: container_id.to_string(),
            verbose: false,
        });
        let answer = self.runtime_call("ContainerStatus", request, |mut c, r| async move {
            c.container_status(r).await
        })?;
        Ok(answer.status.map(|s| s.annotations).unwrap_or_default())
    }

    fn exec_sync_within(
        &mut self,
        container_id: &str,
        cmd: &[String],
        timeout: Duration,
        wait: Duration,
    ) -> Result<ExecResult, CriError> {
        let seconds = i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX);
        let mut request = tonic::Request::new(requests::exec_sync(container_id, cmd, seconds));
        request.set_timeout(wait.max(Duration::from_millis(1)));
        self.runtime_call("ExecSync", request, |mut c, r| async move {
            c.exec_sync(r).await
        })
        .map(|a| ExecResult {
            exit_code: a.exit_code,
            stdout: a.stdout,
            stderr: a.stderr,
        })
    }
}
