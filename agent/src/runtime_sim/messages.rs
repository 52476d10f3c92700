//! The model's views ([`podplan_core::sim::node`]) as CRI answers, as containerd fills
//! them, and the list filters.

use podplan_core::runtime::{ContainerState, NamespaceMode, SandboxState, SandboxStatus};
use podplan_core::sim::node::{ContainerView, CriCode, CriError, ImageRecord, SandboxView};
use podplan_cri::pb;

/// A model error as a gRPC status.
pub fn status_of(err: CriError) -> tonic::Status {
    let code = match err.code {
        CriCode::Cancelled => tonic::Code::Cancelled,
        CriCode::Unknown => tonic::Code::Unknown,
        CriCode::InvalidArgument => tonic::Code::InvalidArgument,
        CriCode::DeadlineExceeded => tonic::Code::DeadlineExceeded,
        CriCode::NotFound => tonic::Code::NotFound,
        CriCode::AlreadyExists => tonic::Code::AlreadyExists,
        CriCode::PermissionDenied => tonic::Code::PermissionDenied,
        CriCode::ResourceExhausted => tonic::Code::ResourceExhausted,
        CriCode::FailedPrecondition => tonic::Code::FailedPrecondition,
        CriCode::Aborted => tonic::Code::Aborted,
        CriCode::OutOfRange => tonic::Code::OutOfRange,
        CriCode::Unimplemented => tonic::Code::Unimplemented,
        CriCode::Internal => tonic::Code::Internal,
        CriCode::Unavailable => tonic::Code::Unavailable,
        CriCode::DataLoss => tonic::Code::DataLoss,
        CriCode::Unauthenticated => tonic::Code::Unauthenticated,
    };
    tonic::Status::new(code, err.message)
}

fn nanos(t: Option<jiff::Timestamp>) -> i64 {
    t.and_then(|t| i64::try_from(t.as_nanosecond()).ok())
        .unwrap_or(0)
}

fn mode(m: NamespaceMode) -> i32 {
    match m {
        NamespaceMode::Pod => pb::NamespaceMode::Pod as i32,
        NamespaceMode::Container => pb::NamespaceMode::Container as i32,
        NamespaceMode::Node => pb::NamespaceMode::Node as i32,
        NamespaceMode::Target => pb::NamespaceMode::Target as i32,
    }
}

fn sandbox_state(s: SandboxState) -> i32 {
    match s {
        SandboxState::Ready => pb::PodSandboxState::SandboxReady as i32,
        SandboxState::NotReady => pb::PodSandboxState::SandboxNotready as i32,
    }
}

fn metadata(s: &SandboxStatus) -> Option<pb::PodSandboxMetadata> {
    s.metadata.as_ref().map(|m| pb::PodSandboxMetadata {
        name: m.name.clone(),
        uid: m.uid.clone(),
        namespace: m.namespace.clone(),
        attempt: m.attempt,
    })
}

/// `PodSandboxStatus`: the inverse of [`podplan_cri::status::sandbox_status`].
#[must_use]
pub fn sandbox_status(view: SandboxView<'_>) -> pb::PodSandboxStatus {
    let s = view.status;
    pb::PodSandboxStatus {
        id: s.id.clone(),
        metadata: metadata(s),
        state: sandbox_state(s.state),
        created_at: s.created_at,
        network: s.network.as_ref().map(|n| pb::PodSandboxNetworkStatus {
            ip: n.ip.clone(),
            additional_ips: n
                .additional_ips
                .iter()
                .map(|ip| pb::PodIp { ip: ip.ip.clone() })
                .collect(),
        }),
        linux: s.linux.as_ref().map(|l| pb::LinuxPodSandboxStatus {
            namespaces: l.namespaces.as_ref().map(|n| pb::Namespace {
                options: n.options.as_ref().map(|o| pb::NamespaceOption {
                    network: mode(o.network),
                    pid: mode(o.pid),
                    ipc: mode(o.ipc),
                    target_id: o.target_id.clone(),
                    userns_options: None,
                }),
            }),
        }),
        labels: s.labels.clone(),
        annotations: s.annotations.clone(),
        runtime_handler: s.runtime_handler.clone(),
    }
}

/// A `ListPodSandbox` item.
#[must_use]
pub fn sandbox_item(view: SandboxView<'_>) -> pb::PodSandbox {
    let s = view.status;
    pb::PodSandbox {
        id: s.id.clone(),
        metadata: metadata(s),
        state: sandbox_state(s.state),
        created_at: s.created_at,
        labels: s.labels.clone(),
        annotations: s.annotations.clone(),
        runtime_handler: s.runtime_handler.clone(),
    }
}

fn container_metadata(view: ContainerView<'_>) -> Option<pb::ContainerMetadata> {
    view.record
        .config
        .metadata
        .as_ref()
        .map(|m| pb::ContainerMetadata {
            name: m.name.clone(),
            attempt: m.attempt,
        })
}

/// `ContainerStatus` as containerd fills it: the image's tag as `image`, its digest as
/// `imageRef`, its id as `imageId`, the config's labels and annotations, the absolute
/// log path, the current resources.
#[must_use]
pub fn container_status(view: ContainerView<'_>, log_directory: &str) -> pb::ContainerStatus {
    let s = view.status;
    let config = &view.record.config;
    let log_path = if config.log_path.is_empty() || log_directory.is_empty() {
        config.log_path.clone()
    } else {
        std::path::Path::new(log_directory)
            .join(&config.log_path)
            .to_string_lossy()
            .into_owned()
    };
    pb::ContainerStatus {
        id: view.id.to_string(),
        metadata: container_metadata(view),
        state: podplan_cri::status::container_state_number(s.state),
        created_at: nanos(s.created_at),
        started_at: nanos(s.started_at),
        finished_at: nanos(s.finished_at),
        exit_code: s.exit_code,
        image: Some(pb::ImageSpec {
            image: s.image.clone(),
            ..Default::default()
        }),
        image_ref: s.image_ref.clone(),
        reason: if s.state == ContainerState::Exited {
            s.reason.clone()
        } else {
            String::new()
        },
        message: s.message.clone(),
        labels: config.labels.clone(),
        annotations: config.annotations.clone(),
        mounts: config.mounts.iter().map(pb::Mount::from).collect(),
        log_path,
        resources: Some(pb::ContainerResources {
            linux: view.record.resources.as_ref().map(Into::into),
            windows: None,
        }),
        image_id: s.image_id.clone(),
        user: None,
        stop_signal: podplan_core::cri::CriEnum::number(config.stop_signal),
    }
}

/// A `ListContainers` item.
#[must_use]
pub fn container_item(view: ContainerView<'_>) -> pb::Container {
    let s = view.status;
    pb::Container {
        id: view.id.to_string(),
        pod_sandbox_id: view.record.sandbox_id.clone(),
        metadata: container_metadata(view),
        image: view.record.config.image.as_ref().map(Into::into),
        image_ref: s.image_ref.clone(),
        state: podplan_cri::status::container_state_number(s.state),
        created_at: nanos(s.created_at),
        labels: view.record.config.labels.clone(),
        annotations: view.record.config.annotations.clone(),
        image_id: s.image_id.clone(),
    }
}

/// An `Image`.
#[must_use]
pub fn image(record: &ImageRecord) -> pb::Image {
    pb::Image {
        id: record.id.clone(),
        repo_tags: record.repo_tags.clone(),
        repo_digests: record.repo_digests.clone(),
        size: record.size,
        uid: None,
        username: String::new(),
        spec: Some(pb::ImageSpec {
            image: record.id.clone(),
            ..Default::default()
        }),
        pinned: false,
    }
}

fn labels_match(
    labels: &std::collections::BTreeMap<String, String>,
    selector: &std::collections::BTreeMap<String, String>,
) -> bool {
    selector.iter().all(|(k, v)| labels.get(k) == Some(v))
}

/// Whether a sandbox passes a `ListPodSandbox` filter (every set field must match).
#[must_use]
pub fn sandbox_matches(view: SandboxView<'_>, filter: Option<&pb::PodSandboxFilter>) -> bool {
    let Some(f) = filter else {
        return true;
    };
    (f.id.is_empty() || view.status.id == f.id)
        && f.state
            .as_ref()
            .is_none_or(|s| s.state == sandbox_state(view.status.state))
        && labels_match(&view.status.labels, &f.label_selector)
}

/// Whether a container passes a `ListContainers` filter (every set field must match).
#[must_use]
pub fn container_matches(view: ContainerView<'_>, filter: Option<&pb::ContainerFilter>) -> bool {
    let Some(f) = filter else {
        return true;
    };
    (f.id.is_empty() || view.id == f.id)
        && (f.pod_sandbox_id.is_empty() || view.record.sandbox_id == f.pod_sandbox_id)
        && f.state.as_ref().is_none_or(|s| {
            s.state == podplan_cri::status::container_state_number(view.status.state)
        })
        && labels_match(&view.record.config.labels, &f.label_selector)
}
