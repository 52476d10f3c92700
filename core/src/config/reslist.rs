//! Resource lists in exact milli-units: container and pod aggregation
//! (`component-helpers/resource`), QoS class (`ComputePodQOS`) and criticality.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::quantity::Quantity;

/// A resource list: name → value in thousandths (`MilliValue()`).
pub type MilliList = BTreeMap<String, i128>;

/// `MilliValue()` of a quantity (0 when unreadable; validation rejects those earlier).
#[must_use]
pub fn milli(q: &K8sQuantity) -> i128 {
    Quantity::parse(&q.0).map_or(0, |q| i128::from(q.milli_value()))
}

/// `Value()` (bytes, rounded up) of a quantity.
#[must_use]
pub fn value(q: &K8sQuantity) -> i64 {
    Quantity::parse(&q.0).map_or(0, |q| q.value())
}

/// Bytes (`Value()`) from a milli amount, rounded up.
#[must_use]
pub fn milli_to_value(m: i128) -> i64 {
    let v = if m >= 0 { (m + 999) / 1000 } else { m / 1000 };
    i64::try_from(v).unwrap_or(if v > 0 { i64::MAX } else { i64::MIN })
}

/// Saturating conversion of a milli amount to `i64`.
#[must_use]
pub fn to_i64(m: i128) -> i64 {
    i64::try_from(m).unwrap_or(if m > 0 { i64::MAX } else { i64::MIN })
}

/// Reads a `v1.ResourceList`.
#[must_use]
pub fn list(rl: Option<&BTreeMap<String, K8sQuantity>>) -> MilliList {
    rl.map(|m| m.iter().map(|(k, v)| (k.clone(), milli(v))).collect())
        .unwrap_or_default()
}

/// A container's requests.
#[must_use]
pub fn requests(c: &Container) -> MilliList {
    list(c.resources.as_ref().and_then(|r| r.requests.as_ref()))
}

/// A container's limits.
#[must_use]
pub fn limits(c: &Container) -> MilliList {
    list(c.resources.as_ref().and_then(|r| r.limits.as_ref()))
}

fn add(into: &mut MilliList, from: &MilliList) {
    for (k, v) in from {
        *into.entry(k.clone()).or_insert(0) += v;
    }
}

fn max_into(into: &mut MilliList, from: &MilliList) {
    for (k, v) in from {
        let e = into.entry(k.clone()).or_insert(*v);
        if *v > *e {
            *e = *v;
        }
    }
}

/// Whether an init container is restartable (a sidecar).
#[must_use]
pub fn is_restartable_init(c: &Container) -> bool {
    c.restart_policy.as_deref() == Some("Always")
}

/// `AggregateContainerRequests` / `AggregateContainerLimits`: the sum over regular
/// containers and sidecars, or the largest init-phase total if that is bigger.
#[must_use]
pub fn aggregate(pod: &Pod, pick: fn(&Container) -> MilliList) -> MilliList {
    let Some(spec) = pod.spec.as_ref() else {
        return MilliList::new();
    };
    let mut total = MilliList::new();
    for c in &spec.containers {
        add(&mut total, &pick(c));
    }
    let mut sidecars = MilliList::new();
    let mut init_max = MilliList::new();
    for c in spec.init_containers.as_deref().unwrap_or_default() {
        let own = pick(c);
        let phase = if is_restartable_init(c) {
            add(&mut total, &own);
            add(&mut sidecars, &own);
            sidecars.clone()
        } else {
            let mut tmp = own;
            add(&mut tmp, &sidecars);
            tmp
        };
        max_into(&mut init_max, &phase);
    }
    max_into(&mut total, &init_max);
    total
}

/// The pod-level resources, if any.
#[must_use]
pub fn pod_level(pod: &Pod) -> Option<&ResourceRequirements> {
    pod.spec.as_ref().and_then(|s| s.resources.as_ref())
}

/// Pod-level resources are supported for these names.
#[must_use]
pub fn is_supported_pod_level(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

fn has_supported(rl: Option<&BTreeMap<String, K8sQuantity>>) -> bool {
    rl.is_some_and(|m| m.keys().any(|k| is_supported_pod_level(k)))
}

/// `IsPodLevelRequestsSet`.
#[must_use]
pub fn pod_level_requests_set(pod: &Pod) -> bool {
    has_supported(pod_level(pod).and_then(|r| r.requests.as_ref()))
}

/// `IsPodLevelLimitsSet`.
#[must_use]
pub fn pod_level_limits_set(pod: &Pod) -> bool {
    has_supported(pod_level(pod).and_then(|r| r.limits.as_ref()))
}

/// `IsPodLevelResourcesSet`.
#[must_use]
pub fn pod_level_set(pod: &Pod) -> bool {
    pod_level_requests_set(pod) || pod_level_limits_set(pod)
}

/// `PodRequests(pod, {ExcludeOverhead, SkipPodLevelResources: !podLevel})`.
#[must_use]
pub fn pod_requests(pod: &Pod, pod_level_enabled: bool, exclude_overhead: bool) -> MilliList {
    let mut reqs = aggregate(pod, requests);
    if pod_level_enabled && pod_level_requests_set(pod) {
        let pl = list(pod_level(pod).and_then(|r| r.requests.as_ref()));
        for (k, v) in pl {
            if is_supported_pod_level(&k) {
                reqs.insert(k, v);
            }
        }
    }
    if !exclude_overhead {
        add(&mut reqs, &overhead(pod));
    }
    reqs
}

/// `PodLimits(pod, {ExcludeOverhead, SkipPodLevelResources: !podLevel})`.
#[must_use]
pub fn pod_limits(pod: &Pod, pod_level_enabled: bool, exclude_overhead: bool) -> MilliList {
    let mut lims = aggregate(pod, limits);
    if pod_level_enabled && pod_level_limits_set(pod) {
        let pl = list(pod_level(pod).and_then(|r| r.limits.as_ref()));
        for (k, v) in pl {
            if is_supported_pod_level(&k) {
                lims.insert(k, v);
            }
        }
    }
    if !exclude_overhead {
        add(&mut lims, &overhead(pod));
    }
    lims
}

/// `spec.overhead`.
#[must_use]
pub fn overhead(pod: &Pod) -> MilliList {
    list(pod.spec.as_ref().and_then(|s| s.overhead.as_ref()))
}

/// A pod's QoS class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QosClass {
    /// Requests equal limits for cpu and memory everywhere.
    Guaranteed,
    /// Anything in between.
    Burstable,
    /// No cpu or memory request or limit anywhere.
    BestEffort,
}

impl QosClass {
    /// The API string.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Guaranteed => "Guaranteed",
            Self::Burstable => "Burstable",
            Self::BestEffort => "BestEffort",
        }
    }
}

fn qos_resource(name: &str) -> bool {
    name == "cpu" || name == "memory"
}

/// `GetPodQOS`: `status.qosClass` if set, else `ComputePodQOS`.
#[must_use]
pub fn pod_qos(pod: &Pod, pod_level_enabled: bool) -> QosClass {
    match pod.status.as_ref().and_then(|s| s.qos_class.as_deref()) {
        Some("Guaranteed") => QosClass::Guaranteed,
        Some("Burstable") => QosClass::Burstable,
        Some("BestEffort") => QosClass::BestEffort,
        _ => compute_pod_qos(pod, pod_level_enabled),
    }
}

/// `ComputePodQOS` (cpu and memory only; ephemeral containers never count).
#[must_use]
pub fn compute_pod_qos(pod: &Pod, pod_level_enabled: bool) -> QosClass {
    let mut reqs = MilliList::new();
    let mut lims = MilliList::new();
    let mut guaranteed = true;
    let positive = |rl: &MilliList| -> MilliList {
        rl.iter()
            .filter(|(k, v)| qos_resource(k) && **v > 0)
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    let pod_resources = if pod_level_enabled {
        pod_level(pod)
    } else {
        None
    };
    if let Some(pr) = pod_resources {
        let r = list(pr.requests.as_ref());
        if !r.is_empty() {
            add(&mut reqs, &positive(&r));
        }
        let l = list(pr.limits.as_ref());
        if !l.is_empty() {
            let lp = positive(&l);
            add(&mut lims, &lp);
            let has_all = l.contains_key("cpu") && l.contains_key("memory");
            if !has_all {
                guaranteed = false;
            }
        }
    } else if let Some(spec) = pod.spec.as_ref() {
        let all = spec
            .containers
            .iter()
            .chain(spec.init_containers.as_deref().unwrap_or_default());
        for c in all {
            add(&mut reqs, &positive(&requests(c)));
            let lp = positive(&limits(c));
            if !(lp.contains_key("cpu") && lp.contains_key("memory")) {
                guaranteed = false;
            }
            add(&mut lims, &lp);
        }
    }
    if reqs.is_empty() && lims.is_empty() {
        return QosClass::BestEffort;
    }
    if guaranteed {
        for (k, r) in &reqs {
            if lims.get(k) != Some(r) {
                guaranteed = false;
                break;
            }
        }
    }
    if guaranteed && reqs.len() == lims.len() {
        QosClass::Guaranteed
    } else {
        QosClass::Burstable
    }
}

/// Annotation naming a static pod's source.
pub const CONFIG_SOURCE_ANNOTATION: &str = "kubernetes.io/config.source";
/// Annotation marking a mirror pod.
pub const CONFIG_MIRROR_ANNOTATION: &str = "kubernetes.io/config.mirror";

fn annotation<'a>(pod: &'a Pod, key: &str) -> Option<&'a str> {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// `IsStaticPod`: the source annotation is present and not `api`.
#[must_use]
pub fn is_static_pod(pod: &Pod) -> bool {
    annotation(pod, CONFIG_SOURCE_ANNOTATION).is_some_and(|s| s != "api")
}

/// `IsCriticalPod`: static, mirror, or priority ≥ 2000000000.
#[must_use]
pub fn is_critical_pod(pod: &Pod) -> bool {
    is_static_pod(pod)
        || annotation(pod, CONFIG_MIRROR_ANNOTATION).is_some()
        || pod
            .spec
            .as_ref()
            .and_then(|s| s.priority)
            .is_some_and(|p| p >= 2_000_000_000)
}

/// `IsNodeCriticalPod`: critical and of priority class `system-node-critical`.
#[must_use]
pub fn is_node_critical_pod(pod: &Pod) -> bool {
    is_critical_pod(pod)
        && pod
            .spec
            .as_ref()
            .and_then(|s| s.priority_class_name.as_deref())
            == Some("system-node-critical")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod(json: serde_json::Value) -> Pod {
        serde_json::from_value(json).unwrap_or_default()
    }

    #[test]
    fn qos_classes() {
        let g = pod(serde_json::json!({"spec": {"containers": [{"name": "a",
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "1000m", "memory": "1Gi"}}}]}}));
        assert_eq!(compute_pod_qos(&g, true), QosClass::Guaranteed);
        let b = pod(serde_json::json!({"spec": {"containers": [{"name": "a",
            "resources": {"requests": {"memory": "1Gi"}}}]}}));
        assert_eq!(compute_pod_qos(&b, true), QosClass::Burstable);
        let e = pod(serde_json::json!({"spec": {"containers": [{"name": "a"}]}}));
        assert_eq!(compute_pod_qos(&e, true), QosClass::BestEffort);
        // Limits without requests: the raw object is Burstable (no API defaulting).
        let l = pod(serde_json::json!({"spec": {"containers": [{"name": "a",
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}}]}}));
        assert_eq!(compute_pod_qos(&l, true), QosClass::Burstable);
    }

    #[test]
    fn aggregation_counts_sidecars_and_init_peaks() {
        let p = pod(serde_json::json!({"spec": {
            "initContainers": [
                {"name": "i", "resources": {"requests": {"memory": "500Mi"}}},
                {"name": "s", "restartPolicy": "Always", "resources": {"requests": {"memory": "100Mi"}}}],
            "containers": [{"name": "a", "resources": {"requests": {"memory": "200Mi"}}}]}}));
        let r = aggregate(&p, requests);
        assert_eq!(
            r.get("memory").copied().map(milli_to_value),
            Some(500 * 1024 * 1024)
        );
    }
}
