//! Labels and annotations of sandboxes and containers (`labels.go`).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};

use crate::go::encoding::{container_ports_json, lifecycle_handler_json};
use crate::request::node::NameValue;

/// Pod name label.
pub const POD_NAME_LABEL: &str = "io.kubernetes.pod.name";
/// Pod namespace label.
pub const POD_NAMESPACE_LABEL: &str = "io.kubernetes.pod.namespace";
/// Pod UID label.
pub const POD_UID_LABEL: &str = "io.kubernetes.pod.uid";
/// Container name label.
pub const CONTAINER_NAME_LABEL: &str = "io.kubernetes.container.name";
/// Container hash annotation.
pub const CONTAINER_HASH: &str = "io.kubernetes.container.hash";
/// Restart count annotation.
pub const CONTAINER_RESTART_COUNT: &str = "io.kubernetes.container.restartCount";
/// Termination message path annotation.
pub(crate) const TERMINATION_MESSAGE_PATH: &str = "io.kubernetes.container.terminationMessagePath";
/// Termination message policy annotation.
pub(crate) const TERMINATION_MESSAGE_POLICY: &str =
    "io.kubernetes.container.terminationMessagePolicy";
/// Deletion grace period annotation.
pub const POD_DELETION_GRACE_PERIOD: &str = "io.kubernetes.pod.deletionGracePeriod";
/// Termination grace period annotation.
pub const POD_TERMINATION_GRACE_PERIOD: &str = "io.kubernetes.pod.terminationGracePeriod";
/// preStop handler annotation.
pub const CONTAINER_PRESTOP_HANDLER: &str = "io.kubernetes.container.preStopHandler";
/// Container ports annotation.
pub(crate) const CONTAINER_PORTS: &str = "io.kubernetes.container.ports";

fn pod_identity(pod: &Pod) -> [(&'static str, String); 3] {
    [
        (
            POD_NAME_LABEL,
            pod.metadata.name.clone().unwrap_or_default(),
        ),
        (
            POD_NAMESPACE_LABEL,
            pod.metadata.namespace.clone().unwrap_or_default(),
        ),
        (POD_UID_LABEL, pod.metadata.uid.clone().unwrap_or_default()),
    ]
}

/// `newPodLabels`: the pod's labels plus name, namespace and uid (which win).
#[must_use]
pub(crate) fn sandbox_labels(pod: &Pod) -> BTreeMap<String, String> {
    let mut labels = pod.metadata.labels.clone().unwrap_or_default();
    for (k, v) in pod_identity(pod) {
        labels.insert(k.to_string(), v);
    }
    labels
}

/// `newPodAnnotations`: the pod's annotations as they are.
#[must_use]
pub(crate) fn sandbox_annotations(pod: &Pod) -> BTreeMap<String, String> {
    pod.metadata.annotations.clone().unwrap_or_default()
}

/// `newContainerLabels`: exactly the pod identity and the container name.
#[must_use]
pub(crate) fn container_labels(pod: &Pod, c: &Container) -> BTreeMap<String, String> {
    let mut labels: BTreeMap<String, String> = pod_identity(pod)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    labels.insert(CONTAINER_NAME_LABEL.to_string(), c.name.clone());
    labels
}

/// `newContainerAnnotations`: device-plugin annotations, then the kubelet's own.
#[must_use]
pub(crate) fn container_annotations(
    pod: &Pod,
    c: &Container,
    restart_count: i32,
    extra: &[NameValue],
) -> BTreeMap<String, String> {
    let mut a: BTreeMap<String, String> = extra
        .iter()
        .map(|nv| (nv.name.clone(), nv.value.clone()))
        .collect();
    let hash = crate::hash::container_hash(&c.name, c.image.as_deref().unwrap_or_default());
    a.insert(CONTAINER_HASH.to_string(), format!("{hash:x}"));
    a.insert(
        CONTAINER_RESTART_COUNT.to_string(),
        restart_count.to_string(),
    );
    a.insert(
        TERMINATION_MESSAGE_PATH.to_string(),
        c.termination_message_path.clone().unwrap_or_default(),
    );
    a.insert(
        TERMINATION_MESSAGE_POLICY.to_string(),
        c.termination_message_policy.clone().unwrap_or_default(),
    );
    if let Some(g) = pod.metadata.deletion_grace_period_seconds {
        a.insert(POD_DELETION_GRACE_PERIOD.to_string(), g.to_string());
    }
    if let Some(g) = pod
        .spec
        .as_ref()
        .and_then(|s| s.termination_grace_period_seconds)
    {
        a.insert(POD_TERMINATION_GRACE_PERIOD.to_string(), g.to_string());
    }
    if let Some(pre) = c.lifecycle.as_ref().and_then(|l| l.pre_stop.as_ref()) {
        a.insert(
            CONTAINER_PRESTOP_HANDLER.to_string(),
            lifecycle_handler_json(pre),
        );
    }
    if let Some(ports) = c.ports.as_ref().filter(|p| !p.is_empty()) {
        a.insert(CONTAINER_PORTS.to_string(), container_ports_json(ports));
    }
    a
}
