//! The kubelet's small pod helpers, each in one place: `format.Pod`,
//! `IsRestartableInitContainer`, a spec container by (kind, index), the
//! `AllContainersRestarting` condition, `IsStaticPod`, the images a pod uses.

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec, ResourceRequirements};

use crate::features::{FeatureGates, Gate};
use crate::plan::ContainerKind;

/// Annotation naming a pod's config source (`kubernetes.io/config.source`).
pub(crate) const CONFIG_SOURCE_ANNOTATION: &str = "kubernetes.io/config.source";
/// Annotation marking a mirror pod (`kubernetes.io/config.mirror`).
pub(crate) const CONFIG_MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";
/// The pod condition type of a RestartAllContainers restart in progress.
pub(crate) const ALL_CONTAINERS_RESTARTING: &str = "AllContainersRestarting";

/// `format.Pod`: `<name>_<namespace>(<uid>)`.
#[must_use]
pub(crate) fn format_pod(pod: &Pod) -> String {
    let m = &pod.metadata;
    format!(
        "{}_{}({})",
        m.name.as_deref().unwrap_or(""),
        m.namespace.as_deref().unwrap_or(""),
        m.uid.as_deref().unwrap_or("")
    )
}

/// `IsRestartableInitContainer`: an init container with `restartPolicy: Always` (a sidecar).
#[must_use]
pub(crate) fn is_restartable_init(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// One annotation of the pod.
#[must_use]
pub(crate) fn annotation<'a>(pod: &'a Pod, key: &str) -> Option<&'a str> {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// `IsStaticPod`: the config-source annotation is present and is not `api`.
#[must_use]
pub(crate) fn is_static_pod(pod: &Pod) -> bool {
    annotation(pod, CONFIG_SOURCE_ANNOTATION).is_some_and(|source| source != "api")
}

/// Whether the pod carries the condition `AllContainersRestarting=True`.
#[must_use]
pub(crate) fn all_containers_restarting(pod: &Pod) -> bool {
    pod.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|conds| {
            conds
                .iter()
                .any(|c| c.type_ == ALL_CONTAINERS_RESTARTING && c.status == "True")
        })
}

/// What the start of a spec container needs to know about it, whatever its list.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpecContainer<'a> {
    /// Container name.
    pub name: &'a str,
    /// Image ("" when unset).
    pub image: &'a str,
    /// Declared resources.
    pub resources: Option<&'a ResourceRequirements>,
    /// An init container with `restartPolicy: Always`.
    pub sidecar: bool,
}

/// The spec container `index` of list `kind`, if there is one.
#[must_use]
pub(crate) fn spec_container(
    spec: &PodSpec,
    kind: ContainerKind,
    index: usize,
) -> Option<SpecContainer<'_>> {
    match kind {
        ContainerKind::Init => spec
            .init_containers
            .as_deref()
            .unwrap_or_default()
            .get(index)
            .map(|c| SpecContainer {
                name: &c.name,
                image: c.image.as_deref().unwrap_or(""),
                resources: c.resources.as_ref(),
                sidecar: is_restartable_init(c),
            }),
        ContainerKind::Regular => spec.containers.get(index).map(|c| SpecContainer {
            name: &c.name,
            image: c.image.as_deref().unwrap_or(""),
            resources: c.resources.as_ref(),
            sidecar: false,
        }),
        ContainerKind::Ephemeral => spec
            .ephemeral_containers
            .as_deref()
            .unwrap_or_default()
            .get(index)
            .map(|c| SpecContainer {
                name: &c.name,
                image: c.image.as_deref().unwrap_or(""),
                resources: c.resources.as_ref(),
                sidecar: false,
            }),
    }
}

/// The init or regular spec container named `name`.
#[must_use]
pub(crate) fn init_or_regular_named<'a>(spec: &'a PodSpec, name: &str) -> Option<&'a Container> {
    spec.init_containers
        .as_deref()
        .unwrap_or_default()
        .iter()
        .chain(spec.containers.iter())
        .find(|c| c.name == name)
}

/// `IsInPlacePodVerticalScalingAllowed` (Linux): the gate is on and the pod is not static.
#[must_use]
pub(crate) fn resize_allowed(pod: &Pod, gates: &FeatureGates) -> bool {
    gates.enabled(Gate::InPlacePodVerticalScaling) && !is_static_pod(pod)
}

/// The images the pod's containers use, as written (init, regular, ephemeral), each once,
/// in that order.
#[must_use]
pub fn images(pod: &Pod) -> Vec<String> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let written = spec
        .init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .filter_map(|c| c.image.as_deref())
        .chain(
            spec.ephemeral_containers
                .iter()
                .flatten()
                .filter_map(|c| c.image.as_deref()),
        );
    let mut images: Vec<String> = Vec::new();
    for image in written {
        if !images.iter().any(|i| i == image) {
            images.push(image.to_string());
        }
    }
    images
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_follow_the_kubelet() {
        let mut pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "web", "namespace": "ns", "uid": "u",
                         "annotations": {"kubernetes.io/config.source": "file"}},
            "spec": {"initContainers": [{"name": "s", "image": "x", "restartPolicy": "Always"}],
                     "containers": [{"name": "a"}]},
            "status": {"conditions": [{"type": "AllContainersRestarting", "status": "True"}]}
        }))
        .unwrap_or_default();
        assert_eq!(format_pod(&pod), "web_ns(u)");
        assert!(is_static_pod(&pod));
        assert!(all_containers_restarting(&pod));
        let spec = pod.spec.clone().unwrap_or_default();
        let s = spec_container(&spec, ContainerKind::Init, 0);
        assert!(s.is_some_and(|s| s.sidecar && s.name == "s" && s.image == "x"));
        assert!(
            spec_container(&spec, ContainerKind::Regular, 0).is_some_and(|c| c.image.is_empty())
        );
        assert!(spec_container(&spec, ContainerKind::Ephemeral, 0).is_none());
        assert!(init_or_regular_named(&spec, "a").is_some());
        pod.metadata.annotations = None;
        assert!(!is_static_pod(&pod));
    }

    #[test]
    fn images_are_listed_once_in_spec_order() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "spec": {"initContainers": [{"name": "i", "image": "busybox"}],
                     "containers": [{"name": "a", "image": "nginx"}, {"name": "b", "image": "busybox"},
                                    {"name": "c"}],
                     "ephemeralContainers": [{"name": "d", "image": "debug"}]}
        }))
        .unwrap_or_default();
        assert_eq!(images(&pod), ["busybox", "nginx", "debug"]);
        assert!(images(&Pod::default()).is_empty());
    }
}
