//! The exact payloads of an in-place resize's CRI calls.
//!
//! `updatePodContainerResources` sends, for each container of a resource's update list,
//! `UpdateContainerResources(id, generateContainerResources(pod, c'))`, where `c'` is the
//! container whose resources are replaced by cpu and memory only: the resized resource
//! at its desired value, the other at the *current* one (the kubelet's most recently
//! configured values). After each accepted call the current values of the resized
//! resource become the desired ones; a container's current values are shared by its
//! memory and cpu entries, and `doPodResizeAction` resizes memory before cpu.
//! `UpdatePodSandboxResources` carries `generateUpdatePodSandboxResourcesRequest`'s
//! overhead and pod resources.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

pub(crate) use crate::cri::{UpdateContainerResourcesRequest, UpdatePodSandboxResourcesRequest};
use crate::features::FeatureGates;
use crate::plan::{ContainerToUpdate, ResizeResources};

use super::resources::{container_resources, sandbox_overhead, sandbox_resources};
use crate::request::node::NodeContext;

/// The order in which `doPodResizeAction` resizes the resources.
pub(crate) const RESIZE_ORDER: [&str; 2] = ["memory", "cpu"];

/// One planned `UpdateContainerResources` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ContainerUpdateCall {
    /// `memory` or `cpu`.
    pub resource: String,
    /// Container name.
    pub container: String,
    /// The request.
    pub request: UpdateContainerResourcesRequest,
}

/// The runtime's id of a `type://id` container id.
#[must_use]
pub(crate) fn runtime_id(container_id: &str) -> &str {
    container_id
        .split_once("://")
        .map_or(container_id, |(_, id)| id)
}

/// `c` with its resources replaced by `values` (cpu and memory, limits and requests),
/// as `updatePodContainerResources` builds it.
#[must_use]
pub(crate) fn with_resize_values(c: &Container, values: &ResizeResources) -> Container {
    let cpu = |m: i64| K8sQuantity(format!("{m}m"));
    let mem = |b: i64| K8sQuantity(b.to_string());
    let mut out = c.clone();
    out.resources = Some(ResourceRequirements {
        limits: Some(BTreeMap::from([
            ("cpu".to_string(), cpu(values.cpu_limit)),
            ("memory".to_string(), mem(values.memory_limit)),
        ])),
        requests: Some(BTreeMap::from([
            ("cpu".to_string(), cpu(values.cpu_request)),
            ("memory".to_string(), mem(values.memory_request)),
        ])),
        ..out.resources.unwrap_or_default()
    });
    out
}

fn spec_container<'a>(pod: &'a Pod, name: &str) -> Option<&'a Container> {
    let spec = pod.spec.as_ref()?;
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .find(|c| c.name == name)
}

/// Every `UpdateContainerResources` call of a resize, in call order, with its payload.
#[must_use]
pub(crate) fn container_update_calls(
    pod: &Pod,
    to_update: &BTreeMap<String, Vec<ContainerToUpdate>>,
    node: &NodeContext,
    gates: &FeatureGates,
) -> Vec<ContainerUpdateCall> {
    // The kubelet's per-container `currentContainerResources`, shared by both resources.
    let mut current: BTreeMap<&str, ResizeResources> = BTreeMap::new();
    for list in to_update.values() {
        for u in list {
            current.entry(u.name.as_str()).or_insert(u.current);
        }
    }
    let mut calls = Vec::new();
    for resource in RESIZE_ORDER {
        for u in to_update.get(resource).into_iter().flatten() {
            let fallback = Container {
                name: u.name.clone(),
                ..Container::default()
            };
            let c = spec_container(pod, &u.name).unwrap_or(&fallback);
            let now = current.get(u.name.as_str()).copied().unwrap_or(u.current);
            let mut values = now;
            if resource == "memory" {
                values.memory_limit = u.desired.memory_limit;
                values.memory_request = u.desired.memory_request;
            } else {
                values.cpu_limit = u.desired.cpu_limit;
                values.cpu_request = u.desired.cpu_request;
            }
            let linux = container_resources(pod, &with_resize_values(c, &values), node, gates);
            calls.push(ContainerUpdateCall {
                resource: resource.to_string(),
                container: u.name.clone(),
                request: UpdateContainerResourcesRequest {
                    container_id: runtime_id(&u.container_id).to_string(),
                    linux,
                },
            });
            // Accepted: the resized resource is now configured at its desired values.
            current.insert(u.name.as_str(), values);
        }
    }
    calls
}

/// The `UpdatePodSandboxResources` request for the pod as it is desired.
#[must_use]
pub(crate) fn sandbox_update_request(
    pod: &Pod,
    sandbox_id: &str,
    node: &NodeContext,
    gates: &FeatureGates,
) -> UpdatePodSandboxResourcesRequest {
    UpdatePodSandboxResourcesRequest {
        pod_sandbox_id: sandbox_id.to_string(),
        overhead: sandbox_overhead(pod, node, gates),
        resources: sandbox_resources(pod, node, gates),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn res(
        cpu_limit: i64,
        cpu_request: i64,
        memory_limit: i64,
        memory_request: i64,
    ) -> ResizeResources {
        ResizeResources {
            memory_limit,
            memory_request,
            cpu_limit,
            cpu_request,
        }
    }

    #[test]
    fn each_call_uses_the_current_values_of_the_other_resource_updated_as_it_goes() {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "uid": "u"},
            "spec": {"containers": [{"name": "a", "image": "x",
                "resources": {"limits": {"cpu": "2", "memory": "512Mi", "hugepages-2Mi": "2Mi"},
                              "requests": {"cpu": "1", "memory": "256Mi"}}}]}
        }))
        .unwrap();
        let mib = 1 << 20;
        let current = res(1000, 500, 128 * mib, 128 * mib);
        let desired = res(2000, 1000, 512 * mib, 256 * mib);
        let entry = ContainerToUpdate {
            name: "a".into(),
            container_id: "containerd://abc".into(),
            desired,
            current,
        };
        let to_update = BTreeMap::from([
            ("cpu".to_string(), vec![entry.clone()]),
            ("memory".to_string(), vec![entry]),
        ]);
        let node = NodeContext {
            cgroup_version: Some(crate::request::node::CgroupVersion::V1),
            huge_page_sizes: vec!["2MB".into()],
            ..NodeContext::default()
        };
        let calls = container_update_calls(&pod, &to_update, &node, &FeatureGates::default());
        let order: Vec<(&str, &str)> = calls
            .iter()
            .map(|c| (c.resource.as_str(), c.request.container_id.as_str()))
            .collect();
        assert_eq!(order, vec![("memory", "abc"), ("cpu", "abc")]);
        // Memory first: memory at desired, cpu still at current (1 CPU limit, 500m request).
        let m = &calls[0].request.linux;
        assert_eq!(m.memory_limit_in_bytes, 512 * mib);
        assert_eq!(m.cpu_quota, 100_000);
        assert_eq!(m.cpu_shares, 512);
        // The replaced resources hold cpu and memory only: hugepages go to 0.
        assert_eq!(m.hugepage_limits.len(), 1);
        assert_eq!(m.hugepage_limits[0].limit, 0);
        // Then cpu at desired, with memory as just configured (desired).
        let c = &calls[1].request.linux;
        assert_eq!(c.cpu_quota, 200_000);
        assert_eq!(c.cpu_shares, 1024);
        assert_eq!(c.memory_limit_in_bytes, 512 * mib);
    }

    #[test]
    fn sandbox_request_carries_overhead_and_pod_resources() {
        let pod: Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "uid": "u"},
            "spec": {"overhead": {"cpu": "250m", "memory": "64Mi"},
                     "containers": [{"name": "a", "image": "x",
                "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}
        }))
        .unwrap();
        let r = sandbox_update_request(
            &pod,
            "sb1",
            &NodeContext::default(),
            &FeatureGates::default(),
        );
        assert_eq!(r.pod_sandbox_id, "sb1");
        assert_eq!(r.overhead.cpu_shares, 256);
        assert_eq!(r.overhead.memory_limit_in_bytes, 64 << 20);
        assert_eq!(r.resources.memory_limit_in_bytes, 1 << 30);
        assert_eq!(r.resources.cpu_quota, 100_000);
    }
}
