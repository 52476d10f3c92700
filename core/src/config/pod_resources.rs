//! Resource lists in exact milli-units: container and pod aggregation
//! (`component-helpers/resource`), QoS class (`ComputePodQOS`) and criticality.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::pod::{annotation, is_restartable_init, is_static_pod, CONFIG_MIRROR_ANNOTATION};
use crate::quantity::Quantity;

/// A resource list: name → value in thousandths (`MilliValue()`).
pub type MilliList = BTreeMap<String, i128>;

/// `MilliValue()` of a quantity (0 when unreadable; validation rejects those earlier).
#[must_use]
pub(crate) fn milli(q: &K8sQuantity) -> i128 {
    Quantity::parse(&q.0).map_or(0, |q| i128::from(q.milli_value()))
}

/// `Value()` (bytes, rounded up) of a quantity.
#[must_use]
pub(crate) fn value(q: &K8sQuantity) -> i64 {
    Quantity::parse(&q.0).map_or(0, |q| q.value())
}

/// Bytes (`Value()`) from a milli amount, rounded up.
#[must_use]
pub(crate) fn milli_to_value(m: i128) -> i64 {
    let v = if m >= 0 { (m + 999) / 1000 } else { m / 1000 };
    i64::try_from(v).unwrap_or(if v > 0 { i64::MAX } else { i64::MIN })
}

/// Saturating conversion of a milli amount to `i64`.
#[must_use]
pub(crate) fn to_i64(m: i128) -> i64 {
    i64::try_from(m).unwrap_or(if m > 0 { i64::MAX } else { i64::MIN })
}

/// Reads a `v1.ResourceList`.
#[must_use]
pub(crate) fn list(rl: Option<&BTreeMap<String, K8sQuantity>>) -> MilliList {
    rl.map(|m| m.iter().map(|(k, v)| (k.clone(), milli(v))).collect())
        .unwrap_or_default()
}

fn add(into: &mut MilliList, from: &MilliList) {
    for (k, v) in from {
        *into.entry(k.clone()).or_insert(0) += v;
    }
}

/// A raw `v1.ResourceList`.
pub(crate) type ResourceList = BTreeMap<String, K8sQuantity>;

/// A container's raw requests.
#[must_use]
pub(crate) fn raw_requests(c: &Container) -> Option<&ResourceList> {
    c.resources.as_ref().and_then(|r| r.requests.as_ref())
}

/// A container's raw limits.
#[must_use]
pub(crate) fn raw_limits(c: &Container) -> Option<&ResourceList> {
    c.resources.as_ref().and_then(|r| r.limits.as_ref())
}

/// `MilliValue()` of one resource of a raw list, if the list has it.
#[must_use]
pub(crate) fn milli_in(rl: Option<&ResourceList>, name: &str) -> Option<i128> {
    rl.and_then(|m| m.get(name)).map(milli)
}

/// A resource list being summed, keyed by names borrowed from the pod.
type Sums<'a> = BTreeMap<&'a str, i128>;

fn add_sums<'a>(into: &mut Sums<'a>, from: &Sums<'a>) {
    for (k, v) in from {
        *into.entry(k).or_insert(0) += v;
    }
}

fn max_sums<'a>(into: &mut Sums<'a>, from: &Sums<'a>) {
    for (k, v) in from {
        let e = into.entry(k).or_insert(*v);
        if *v > *e {
            *e = *v;
        }
    }
}

fn sums(rl: Option<&ResourceList>) -> Sums<'_> {
    rl.into_iter()
        .flatten()
        .map(|(k, v)| (k.as_str(), milli(v)))
        .collect()
}

/// `AggregateContainerRequests` / `AggregateContainerLimits`: the sum over regular
/// containers and sidecars, or the largest init-phase total if that is bigger.
/// `pick` selects the list ([`raw_requests`] or [`raw_limits`]).
#[must_use]
pub(crate) fn aggregate(pod: &Pod, pick: fn(&Container) -> Option<&ResourceList>) -> MilliList {
    let Some(spec) = pod.spec.as_ref() else {
        return MilliList::new();
    };
    let mut total = Sums::new();
    for c in &spec.containers {
        for (k, v) in pick(c).into_iter().flatten() {
            *total.entry(k).or_insert(0) += milli(v);
        }
    }
    let mut sidecars = Sums::new();
    let mut init_max = Sums::new();
    for c in spec.init_containers.as_deref().unwrap_or_default() {
        let own = sums(pick(c));
        if is_restartable_init(c) {
            add_sums(&mut total, &own);
            add_sums(&mut sidecars, &own);
            max_sums(&mut init_max, &sidecars);
        } else {
            let mut phase = own;
            add_sums(&mut phase, &sidecars);
            max_sums(&mut init_max, &phase);
        }
    }
    max_sums(&mut total, &init_max);
    total.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The pod-level resources, if any.
#[must_use]
pub(crate) fn pod_level(pod: &Pod) -> Option<&ResourceRequirements> {
    pod.spec.as_ref().and_then(|s| s.resources.as_ref())
}

/// Pod-level resources are supported for these names.
#[must_use]
pub(crate) fn is_supported_pod_level(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

fn has_supported(rl: Option<&BTreeMap<String, K8sQuantity>>) -> bool {
    rl.is_some_and(|m| m.keys().any(|k| is_supported_pod_level(k)))
}

/// `IsPodLevelRequestsSet`.
#[must_use]
pub(crate) fn pod_level_requests_set(pod: &Pod) -> bool {
    has_supported(pod_level(pod).and_then(|r| r.requests.as_ref()))
}

/// `IsPodLevelLimitsSet`.
#[must_use]
pub(crate) fn pod_level_limits_set(pod: &Pod) -> bool {
    has_supported(pod_level(pod).and_then(|r| r.limits.as_ref()))
}

/// `IsPodLevelResourcesSet`.
#[must_use]
pub(crate) fn pod_level_set(pod: &Pod) -> bool {
    pod_level_requests_set(pod) || pod_level_limits_set(pod)
}

/// `PodRequests(pod, {ExcludeOverhead, SkipPodLevelResources: !podLevel})`.
#[must_use]
pub(crate) fn pod_requests(
    pod: &Pod,
    pod_level_enabled: bool,
    exclude_overhead: bool,
) -> MilliList {
    pod_totals(
        pod,
        raw_requests,
        |r| r.requests.as_ref(),
        pod_level_enabled,
        exclude_overhead,
    )
}

/// `PodLimits(pod, {ExcludeOverhead, SkipPodLevelResources: !podLevel})`.
#[must_use]
pub(crate) fn pod_limits(pod: &Pod, pod_level_enabled: bool, exclude_overhead: bool) -> MilliList {
    pod_totals(
        pod,
        raw_limits,
        |r| r.limits.as_ref(),
        pod_level_enabled,
        exclude_overhead,
    )
}

/// The containers' aggregate of one side (requests or limits), overridden by the
/// supported pod-level values when pod-level resources are on and set, plus overhead.
fn pod_totals(
    pod: &Pod,
    per_container: fn(&Container) -> Option<&ResourceList>,
    pod_side: fn(&ResourceRequirements) -> Option<&ResourceList>,
    pod_level_enabled: bool,
    exclude_overhead: bool,
) -> MilliList {
    let mut totals = aggregate(pod, per_container);
    let pod_level_values = pod_level(pod).and_then(pod_side);
    if pod_level_enabled && has_supported(pod_level_values) {
        for (k, v) in list(pod_level_values) {
            if is_supported_pod_level(&k) {
                totals.insert(k, v);
            }
        }
    }
    if !exclude_overhead {
        add(&mut totals, &overhead(pod));
    }
    totals
}

/// `spec.overhead`.
#[must_use]
pub(crate) fn overhead(pod: &Pod) -> MilliList {
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
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Guaranteed => "Guaranteed",
            Self::Burstable => "Burstable",
            Self::BestEffort => "BestEffort",
        }
    }
}

/// `GetPodQOS`: `status.qosClass` if set, else `ComputePodQOS`.
#[must_use]
pub(crate) fn pod_qos(pod: &Pod, pod_level_enabled: bool) -> QosClass {
    match pod.status.as_ref().and_then(|s| s.qos_class.as_deref()) {
        Some("Guaranteed") => QosClass::Guaranteed,
        Some("Burstable") => QosClass::Burstable,
        Some("BestEffort") => QosClass::BestEffort,
        _ => compute_pod_qos(pod, pod_level_enabled),
    }
}

/// `ComputePodQOS` (cpu and memory only; ephemeral containers never count).
#[must_use]
pub(crate) fn compute_pod_qos(pod: &Pod, pod_level_enabled: bool) -> QosClass {
    let mut reqs = CpuMemory::default();
    let mut lims = CpuMemory::default();
    let mut guaranteed = true;
    let pod_resources = if pod_level_enabled {
        pod_level(pod)
    } else {
        None
    };
    if let Some(pr) = pod_resources {
        reqs.add(CpuMemory::positive(pr.requests.as_ref()));
        if let Some(l) = pr.limits.as_ref().filter(|l| !l.is_empty()) {
            lims.add(CpuMemory::positive(Some(l)));
            if !(l.contains_key("cpu") && l.contains_key("memory")) {
                guaranteed = false;
            }
        }
    } else if let Some(spec) = pod.spec.as_ref() {
        let all = spec
            .containers
            .iter()
            .chain(spec.init_containers.as_deref().unwrap_or_default());
        for c in all {
            let r = c.resources.as_ref();
            reqs.add(CpuMemory::positive(r.and_then(|r| r.requests.as_ref())));
            let lp = CpuMemory::positive(r.and_then(|r| r.limits.as_ref()));
            if lp.cpu.is_none() || lp.memory.is_none() {
                guaranteed = false;
            }
            lims.add(lp);
        }
    }
    if reqs.len() == 0 && lims.len() == 0 {
        return QosClass::BestEffort;
    }
    // Every request has an equal limit, and there are as many limits as requests.
    let matched = |r: Option<i128>, l: Option<i128>| r.is_none() || r == l;
    guaranteed = guaranteed && matched(reqs.cpu, lims.cpu) && matched(reqs.memory, lims.memory);
    if guaranteed && reqs.len() == lims.len() {
        QosClass::Guaranteed
    } else {
        QosClass::Burstable
    }
}

/// The cpu and memory totals `ComputePodQOS` keeps (milli), absent until something
/// positive is added.
#[derive(Debug, Clone, Copy, Default)]
struct CpuMemory {
    cpu: Option<i128>,
    memory: Option<i128>,
}

impl CpuMemory {
    /// The cpu and memory values of a resource list that are above zero.
    fn positive(rl: Option<&BTreeMap<String, K8sQuantity>>) -> Self {
        let pick = |name: &str| rl.and_then(|m| m.get(name)).map(milli).filter(|v| *v > 0);
        Self {
            cpu: pick("cpu"),
            memory: pick("memory"),
        }
    }

    fn add(&mut self, other: Self) {
        let sum = |a: Option<i128>, b: Option<i128>| match (a, b) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        self.cpu = sum(self.cpu, other.cpu);
        self.memory = sum(self.memory, other.memory);
    }

    /// How many of the two are present.
    fn len(self) -> usize {
        usize::from(self.cpu.is_some()) + usize::from(self.memory.is_some())
    }
}

/// `IsCriticalPod`: static, mirror, or priority ≥ 2000000000.
#[must_use]
pub(crate) fn is_critical_pod(pod: &Pod) -> bool {
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
pub(crate) fn is_node_critical_pod(pod: &Pod) -> bool {
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

    fn qos_resource(name: &str) -> bool {
        name == "cpu" || name == "memory"
    }

    /// The map-based `ComputePodQOS` this module had before: the reference.
    fn reference_qos(pod: &Pod, pod_level_enabled: bool) -> QosClass {
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
                let resources = c.resources.as_ref();
                add(
                    &mut reqs,
                    &positive(&list(resources.and_then(|r| r.requests.as_ref()))),
                );
                let lp = positive(&list(resources.and_then(|r| r.limits.as_ref())));
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

    #[test]
    fn qos_agrees_with_the_map_based_reference() {
        let values = [
            None,
            Some("0"),
            Some("100m"),
            Some("1"),
            Some("1Gi"),
            Some("-1"),
        ];
        let resources = |cpu: Option<&str>, memory: Option<&str>| {
            let mut m = serde_json::Map::new();
            if let Some(v) = cpu {
                m.insert("cpu".into(), v.into());
            }
            if let Some(v) = memory {
                m.insert("memory".into(), v.into());
            }
            m.insert("ephemeral-storage".into(), "1Gi".into());
            serde_json::Value::Object(m)
        };
        let mut checked = 0;
        for (i, rc) in values.iter().enumerate() {
            for lc in &values {
                for (j, rm) in values.iter().enumerate() {
                    let lm = values.get((i + j) % values.len()).copied().flatten();
                    let c = serde_json::json!({"name": "a", "resources": {
                        "requests": resources(*rc, *rm), "limits": resources(*lc, lm)}});
                    let other = serde_json::json!({"name": "b", "resources": {
                        "requests": resources(*rm, None), "limits": resources(*lc, *rm)}});
                    for p in [
                        pod(serde_json::json!({"spec": {"containers": [c.clone()]}})),
                        pod(
                            serde_json::json!({"spec": {"containers": [c.clone()], "initContainers": [other.clone()]}}),
                        ),
                        pod(serde_json::json!({"spec": {"containers": [other.clone()],
                            "resources": {"requests": resources(*rc, *rm), "limits": resources(*lc, lm)}}})),
                        pod(serde_json::json!({"spec": {"containers": [other.clone()],
                            "resources": {"requests": resources(*rc, None)}}})),
                    ] {
                        for level in [true, false] {
                            assert_eq!(
                                compute_pod_qos(&p, level),
                                reference_qos(&p, level),
                                "{p:?}"
                            );
                            checked += 1;
                        }
                    }
                }
            }
        }
        assert!(checked > 1000);
    }

    #[test]
    fn aggregation_counts_sidecars_and_init_peaks() {
        let p = pod(serde_json::json!({"spec": {
            "initContainers": [
                {"name": "i", "resources": {"requests": {"memory": "500Mi"}}},
                {"name": "s", "restartPolicy": "Always", "resources": {"requests": {"memory": "100Mi"}}}],
            "containers": [{"name": "a", "resources": {"requests": {"memory": "200Mi"}}}]}}));
        let r = aggregate(&p, raw_requests);
        assert_eq!(
            r.get("memory").copied().map(milli_to_value),
            Some(500 * 1024 * 1024)
        );
    }
}
