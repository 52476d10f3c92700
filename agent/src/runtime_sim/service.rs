//! The generated `RuntimeService` and `ImageService` server traits on [`SimRuntime`]:
//! each call counts against the scripted faults, lets the node's time pass to the clock's
//! `now`, then carries out one operation of the model.

use podplan_core::cri as c;
use podplan_cri::pb;
use podplan_cri::pb::image_service_server::ImageService;
use podplan_cri::pb::runtime_service_server::RuntimeService;
use tonic::{Request, Response, Status};

use super::messages;
use super::SimRuntime;

/// The CRI API version the simulated runtime speaks.
const API_VERSION: &str = "v1";

fn bad_config(err: podplan_cri::ConvertError) -> Status {
    Status::invalid_argument(err.to_string())
}

#[tonic::async_trait]
impl RuntimeService for SimRuntime {
    async fn version(
        &self,
        _: Request<pb::VersionRequest>,
    ) -> Result<Response<pb::VersionResponse>, Status> {
        let name = self.call("Version", |node, _| Ok(node.runtime_name().to_string()))?;
        Ok(Response::new(pb::VersionResponse {
            version: "0.1.0".into(),
            runtime_name: name,
            runtime_version: podplan_core::sim::node::RUNTIME_VERSION.into(),
            runtime_api_version: API_VERSION.into(),
        }))
    }

    async fn status(
        &self,
        _: Request<pb::StatusRequest>,
    ) -> Result<Response<pb::StatusResponse>, Status> {
        self.call("Status", |_, _| Ok(()))?;
        let condition = |kind: &str| pb::RuntimeCondition {
            r#type: kind.into(),
            status: true,
            ..Default::default()
        };
        Ok(Response::new(pb::StatusResponse {
            status: Some(pb::RuntimeStatus {
                conditions: vec![condition("RuntimeReady"), condition("NetworkReady")],
            }),
            runtime_handlers: vec![pb::RuntimeHandler {
                name: String::new(),
                features: Some(pb::RuntimeHandlerFeatures::default()),
            }],
            features: Some(pb::RuntimeFeatures::default()),
            ..Default::default()
        }))
    }

    async fn runtime_config(
        &self,
        _: Request<pb::RuntimeConfigRequest>,
    ) -> Result<Response<pb::RuntimeConfigResponse>, Status> {
        self.call("RuntimeConfig", |_, _| Ok(()))?;
        Ok(Response::new(pb::RuntimeConfigResponse {
            linux: Some(pb::LinuxRuntimeConfiguration {
                cgroup_driver: self.cgroup_driver() as i32,
            }),
        }))
    }

    async fn run_pod_sandbox(
        &self,
        request: Request<pb::RunPodSandboxRequest>,
    ) -> Result<Response<pb::RunPodSandboxResponse>, Status> {
        let request = request.into_inner();
        let config = c::PodSandboxConfig::try_from(request.config.unwrap_or_default())
            .map_err(bad_config)?;
        let id = self.call("RunPodSandbox", |node, now| {
            node.run_pod_sandbox(&config, &request.runtime_handler, now)
        })?;
        Ok(Response::new(pb::RunPodSandboxResponse {
            pod_sandbox_id: id,
        }))
    }

    async fn stop_pod_sandbox(
        &self,
        request: Request<pb::StopPodSandboxRequest>,
    ) -> Result<Response<pb::StopPodSandboxResponse>, Status> {
        let id = request.into_inner().pod_sandbox_id;
        self.call("StopPodSandbox", |node, now| {
            node.stop_pod_sandbox(&id, now)
        })?;
        Ok(Response::new(pb::StopPodSandboxResponse {}))
    }

    async fn remove_pod_sandbox(
        &self,
        request: Request<pb::RemovePodSandboxRequest>,
    ) -> Result<Response<pb::RemovePodSandboxResponse>, Status> {
        let id = request.into_inner().pod_sandbox_id;
        self.call("RemovePodSandbox", |node, now| {
            node.remove_pod_sandbox(&id, now)
        })?;
        Ok(Response::new(pb::RemovePodSandboxResponse {}))
    }

    async fn pod_sandbox_status(
        &self,
        request: Request<pb::PodSandboxStatusRequest>,
    ) -> Result<Response<pb::PodSandboxStatusResponse>, Status> {
        let id = request.into_inner().pod_sandbox_id;
        let (status, now) = self.call("PodSandboxStatus", |node, now| {
            Ok((messages::sandbox_status(node.sandbox(&id)?), now))
        })?;
        Ok(Response::new(pb::PodSandboxStatusResponse {
            status: Some(status),
            timestamp: i64::try_from(now.as_nanosecond()).unwrap_or(0),
            ..Default::default()
        }))
    }

    async fn list_pod_sandbox(
        &self,
        request: Request<pb::ListPodSandboxRequest>,
    ) -> Result<Response<pb::ListPodSandboxResponse>, Status> {
        let filter = request.into_inner().filter;
        let items = self.call("ListPodSandbox", |node, _| {
            Ok(node
                .sandboxes()
                .filter(|s| messages::sandbox_matches(*s, filter.as_ref()))
                .map(messages::sandbox_item)
                .collect())
        })?;
        Ok(Response::new(pb::ListPodSandboxResponse { items }))
    }

    async fn create_container(
        &self,
        request: Request<pb::CreateContainerRequest>,
    ) -> Result<Response<pb::CreateContainerResponse>, Status> {
        let request = request.into_inner();
        let config =
            c::ContainerConfig::try_from(request.config.unwrap_or_default()).map_err(bad_config)?;
        let id = self.call("CreateContainer", |node, now| {
            node.create_container(&request.pod_sandbox_id, &config, now)
        })?;
        Ok(Response::new(pb::CreateContainerResponse {
            container_id: id,
        }))
    }

    async fn start_container(
        &self,
        request: Request<pb::StartContainerRequest>,
    ) -> Result<Response<pb::StartContainerResponse>, Status> {
        let id = request.into_inner().container_id;
        self.call("StartContainer", |node, now| node.start_container(&id, now))?;
        Ok(Response::new(pb::StartContainerResponse {}))
    }

    async fn stop_container(
        &self,
        request: Request<pb::StopContainerRequest>,
    ) -> Result<Response<pb::StopContainerResponse>, Status> {
        let request = request.into_inner();
        let id = request.container_id;
        // A container that ignores SIGTERM is killed (137) when the grace period is over:
        // the call returns then. Any other exits on SIGTERM (143), when the node's script
        // says (`stopSeconds`) or at once.
        if self.slow_script(&id).ignore_sigterm {
            self.take(u64::try_from(request.timeout).unwrap_or(0)).await;
            self.call("StopContainer", |node, now| node.kill_container(&id, now))?;
        } else {
            self.call("StopContainer", |node, now| {
                node.stop_container(&id, request.timeout, now).map(drop)
            })?;
        }
        Ok(Response::new(pb::StopContainerResponse {}))
    }

    async fn remove_container(
        &self,
        request: Request<pb::RemoveContainerRequest>,
    ) -> Result<Response<pb::RemoveContainerResponse>, Status> {
        let id = request.into_inner().container_id;
        self.call("RemoveContainer", |node, now| {
            node.remove_container(&id, now)
        })?;
        Ok(Response::new(pb::RemoveContainerResponse {}))
    }

    async fn list_containers(
        &self,
        request: Request<pb::ListContainersRequest>,
    ) -> Result<Response<pb::ListContainersResponse>, Status> {
        let filter = request.into_inner().filter;
        let containers = self.call("ListContainers", |node, _| {
            Ok(node
                .containers()
                .filter(|c| messages::container_matches(*c, filter.as_ref()))
                .map(messages::container_item)
                .collect())
        })?;
        Ok(Response::new(pb::ListContainersResponse { containers }))
    }

    async fn container_status(
        &self,
        request: Request<pb::ContainerStatusRequest>,
    ) -> Result<Response<pb::ContainerStatusResponse>, Status> {
        let id = request.into_inner().container_id;
        let status = self.call("ContainerStatus", |node, _| {
            let view = node.container(&id)?;
            let log_directory = node
                .sandbox(&view.record.sandbox_id)
                .map(|s| s.record.config.log_directory.clone())
                .unwrap_or_default();
            Ok(messages::container_status(view, &log_directory))
        })?;
        Ok(Response::new(pb::ContainerStatusResponse {
            status: Some(status),
            ..Default::default()
        }))
    }

    async fn update_container_resources(
        &self,
        request: Request<pb::UpdateContainerResourcesRequest>,
    ) -> Result<Response<pb::UpdateContainerResourcesResponse>, Status> {
        let request = request.into_inner();
        let resources = c::LinuxContainerResources::try_from(request.linux.unwrap_or_default())
            .map_err(bad_config)?;
        self.call("UpdateContainerResources", |node, now| {
            node.update_container_resources(&request.container_id, resources, now)
        })?;
        Ok(Response::new(pb::UpdateContainerResourcesResponse {}))
    }

    async fn update_pod_sandbox_resources(
        &self,
        request: Request<pb::UpdatePodSandboxResourcesRequest>,
    ) -> Result<Response<pb::UpdatePodSandboxResourcesResponse>, Status> {
        let request = request.into_inner();
        let resources = c::LinuxContainerResources::try_from(request.resources.unwrap_or_default())
            .map_err(bad_config)?;
        self.call("UpdatePodSandboxResources", |node, now| {
            node.update_pod_sandbox_resources(&request.pod_sandbox_id, resources, now)
        })?;
        Ok(Response::new(pb::UpdatePodSandboxResourcesResponse {}))
    }

    async fn exec_sync(
        &self,
        request: Request<pb::ExecSyncRequest>,
    ) -> Result<Response<pb::ExecSyncResponse>, Status> {
        let id = request.into_inner().container_id;
        self.take(self.slow_script(&id).exec_seconds).await;
        let result = self.call("ExecSync", |node, now| node.exec_sync(&id, now))?;
        Ok(Response::new(pb::ExecSyncResponse {
            stdout: result.stdout.into_bytes(),
            stderr: result.stderr.into_bytes(),
            exit_code: result.exit_code,
        }))
    }
}

#[tonic::async_trait]
impl ImageService for SimRuntime {
    async fn list_images(
        &self,
        request: Request<pb::ListImagesRequest>,
    ) -> Result<Response<pb::ListImagesResponse>, Status> {
        let wanted = request
            .into_inner()
            .filter
            .and_then(|f| f.image)
            .map(|i| i.image)
            .filter(|i| !i.is_empty());
        let images = self.call("ListImages", |node, _| {
            Ok(match wanted.as_deref() {
                Some(reference) => node
                    .image_status(reference)
                    .map(messages::image)
                    .into_iter()
                    .collect(),
                None => node.images().map(messages::image).collect(),
            })
        })?;
        Ok(Response::new(pb::ListImagesResponse { images }))
    }

    async fn image_status(
        &self,
        request: Request<pb::ImageStatusRequest>,
    ) -> Result<Response<pb::ImageStatusResponse>, Status> {
        let reference = request
            .into_inner()
            .image
            .map(|i| i.image)
            .unwrap_or_default();
        let image = self.call("ImageStatus", |node, _| {
            Ok(node.image_status(&reference).map(messages::image))
        })?;
        Ok(Response::new(pb::ImageStatusResponse {
            image,
            ..Default::default()
        }))
    }

    async fn pull_image(
        &self,
        request: Request<pb::PullImageRequest>,
    ) -> Result<Response<pb::PullImageResponse>, Status> {
        let reference = request
            .into_inner()
            .image
            .map(|i| i.image)
            .unwrap_or_default();
        let image_ref = self.call("PullImage", |node, now| node.pull_image(&reference, now))?;
        Ok(Response::new(pb::PullImageResponse { image_ref }))
    }
}
