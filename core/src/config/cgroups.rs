//! The cgroups the kubelet's container manager configures with `--cgroups-per-qos` (the
//! default), as values, and the files a cgroupfs driver writes for them:
//!
//! * the pod's cgroup, `ResourceConfigForPod` (`pkg/kubelet/cm/helpers_linux.go`), made
//!   before the pod's sandbox by `podContainerManager.EnsureExists`
//!   (`pod_container_manager_linux.go`, called from `SyncPod` in `kubelet.go`), with
//!   `--pod-max-pids` as its pids limit;
//! * the QoS tiers `burstable` and `besteffort` (`qos_container_manager_linux.go`
//!   `setCPUCgroupConfig`, `setHugePagesUnbounded`): BestEffort always 2 CPU shares,
//!   Burstable the shares of the sum of its active pods' CPU requests, huge pages
//!   unbounded; the Guaranteed tier is the root itself;
//! * the node-allocatable root `kubepods` (`node_container_manager_linux.go`
//!   `getCgroupConfigInternal`): memory, CPU shares, pids and huge pages of the node's
//!   allocatable;
//! * [`cgroup_files`]: what libcontainer's `fs` (cgroup v1) and `fs2` (v2) managers write
//!   for a [`ResourceConfig`] (`cgroupCommon.toResources`, `maybeSetHugetlb`; the v2 CPU
//!   weight by `ConvertCPUSharesToCgroupV2Value` of `opencontainers/cgroups`).
//!
//! A node agent creates the directories and writes the files; the values are decided here.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};
use serde::{Deserialize, Serialize};

use super::pod_resources::{self, milli_to_value, pod_qos, to_i64, QosClass};
use super::resources::{
    huge_page_resource_unit, milli_cpu_to_quota, milli_cpu_to_shares, MIN_SHARES,
};
use crate::features::{FeatureGates, Gate};
pub use crate::plan::{PodCgroup, ResourceConfig};
use crate::request::node::{CgroupDriver, CgroupVersion, NodeContext};

/// The two QoS tiers the QoS container manager keeps (the Guaranteed tier is the
/// node-allocatable root).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QosTiers {
    /// `kubepods/burstable`.
    pub burstable: ResourceConfig,
    /// `kubepods/besteffort`.
    pub best_effort: ResourceConfig,
}

/// The limit the QoS tiers get for every huge page size (`int64(1 << 62)`: unbounded).
pub(crate) const HUGE_PAGES_UNBOUNDED: i64 = 1 << 62;

/// `ResourceConfigForPod` plus `EnsureExists`'s pids limit: the pod cgroup's config.
/// `pod_pids_limit` is `--pod-max-pids` (only a positive value is set).
#[must_use]
pub(crate) fn resource_config_for_pod(
    pod: &Pod,
    node: &NodeContext,
    gates: &FeatureGates,
    pod_pids_limit: i64,
) -> ResourceConfig {
    let pod_level = gates.enabled(Gate::PodLevelResources);
    let reqs = pod_resources::pod_requests(pod, pod_level, false);
    let limits = pod_resources::pod_limits(pod, pod_level, false);
    // `PodLimits`'s ContainerFn: a container without a CPU (memory) limit leaves the pod's
    // CPU (memory) unlimited.
    let (mut cpu_declared, mut memory_declared) = (true, true);
    if let Some(spec) = pod.spec.as_ref() {
        for c in spec
            .containers
            .iter()
            .chain(spec.init_containers.iter().flatten())
        {
            cpu_declared &= limit_set(c, "cpu");
            memory_declared &= limit_set(c, "memory");
        }
    }
    if pod_level && pod_resources::pod_level_set(pod) {
        let pod_limit = |name: &str| {
            pod_resources::pod_level(pod)
                .and_then(|r| r.limits.as_ref())
                .and_then(|l| l.get(name))
                .is_some_and(|q| pod_resources::milli(q) != 0)
        };
        cpu_declared |= pod_limit("cpu");
        memory_declared |= pod_limit("memory");
    }
    let get = |list: &pod_resources::MilliList, name: &str| list.get(name).copied().unwrap_or(0);
    let cpu_shares = milli_cpu_to_shares(to_i64(get(&reqs, "cpu")));
    let period = node.cpu_cfs_quota_period_us();
    let mut cpu_quota = milli_cpu_to_quota(
        to_i64(get(&limits, "cpu")),
        period,
        gates.enabled(Gate::CustomCPUCFSQuotaPeriod),
    );
    if !node.cpu_cfs_quota() {
        cpu_quota = -1;
    }
    let memory = milli_to_value(get(&limits, "memory"));
    let shares = u64::try_from(cpu_shares).unwrap_or(0);
    let period = u64::try_from(period).unwrap_or(0);
    let qos = pod_qos(pod, pod_level);
    let mut result = ResourceConfig::default();
    match qos {
        QosClass::Guaranteed => {
            result.cpu_shares = Some(shares);
            result.cpu_quota = Some(cpu_quota);
            result.cpu_period = Some(period);
            result.memory = Some(memory);
        }
        QosClass::Burstable => {
            result.cpu_shares = Some(shares);
            if cpu_declared {
                result.cpu_quota = Some(cpu_quota);
                result.cpu_period = Some(period);
            }
            if memory_declared {
                result.memory = Some(memory);
            }
        }
        QosClass::BestEffort => {
            result.cpu_shares = Some(u64::try_from(MIN_SHARES).unwrap_or(2));
        }
    }
    result.huge_page_limits = huge_page_amounts(&reqs);
    // MemoryQoS (cgroup v2, gate on) with `memoryReservationPolicy: TieredReservation`:
    // the pod's memory request protected, hard for Guaranteed pods, soft for Burstable
    // ones (as the containers' `memory.min` / `memory.low`, `apply_memory_qos`).
    if gates.enabled(Gate::MemoryQoS)
        && node.cgroup_v2()
        && node.memory_reservation_policy() == "TieredReservation"
    {
        let request = milli_to_value(get(&reqs, "memory"));
        let file = match qos {
            QosClass::Guaranteed => Some("memory.min"),
            QosClass::Burstable => Some("memory.low"),
            QosClass::BestEffort => None,
        };
        if let (Some(file), true) = (file, request > 0) {
            result.unified.insert(file.to_string(), request.to_string());
        }
    }
    if pod_pids_limit > 0 {
        result.pids_limit = Some(pod_pids_limit);
    }
    result
}

/// `PodCgroup` of a pod: [`resource_config_for_pod`] under the name the sandbox's cgroup
/// parent has ([`super::sandbox::cgroup_parent`]).
#[must_use]
pub(crate) fn pod_cgroup(
    pod: &Pod,
    node: &NodeContext,
    gates: &FeatureGates,
    pod_pids_limit: i64,
) -> PodCgroup {
    PodCgroup {
        name: super::sandbox::cgroup_parent(pod, node, gates),
        resources: resource_config_for_pod(pod, node, gates, pod_pids_limit),
    }
}

/// `setCPUCgroupConfig` and `setHugePagesConfig` over the node's active pods.
/// `huge_page_sizes`: the node's page sizes as the cgroup files name them (`2MB`).
#[must_use]
pub fn qos_tiers<'a>(
    active_pods: impl IntoIterator<Item = &'a Pod>,
    gates: &FeatureGates,
    huge_page_sizes: &[String],
) -> QosTiers {
    let pod_level = gates.enabled(Gate::PodLevelResources);
    let burstable_cpu: i128 = active_pods
        .into_iter()
        .filter(|p| pod_qos(p, pod_level) == QosClass::Burstable)
        .map(|p| {
            pod_resources::pod_requests(p, pod_level, false)
                .get("cpu")
                .copied()
                .unwrap_or(0)
        })
        .sum();
    let unbounded: BTreeMap<String, i64> = huge_page_sizes
        .iter()
        .map(|s| (s.clone(), HUGE_PAGES_UNBOUNDED))
        .collect();
    QosTiers {
        burstable: ResourceConfig {
            cpu_shares: u64::try_from(milli_cpu_to_shares(to_i64(burstable_cpu))).ok(),
            huge_page_limits: unbounded.clone(),
            ..ResourceConfig::default()
        },
        best_effort: ResourceConfig {
            cpu_shares: u64::try_from(MIN_SHARES).ok(),
            huge_page_limits: unbounded,
            ..ResourceConfig::default()
        },
    }
}

/// `getCgroupConfigInternal(allocatable, false)`: the node-allocatable root's config from
/// the node's allocatable resources in milli-units (`cpu`, `memory`, `pid`,
/// `hugepages-<size>`).
#[must_use]
pub fn node_allocatable_config(allocatable: &pod_resources::MilliList) -> ResourceConfig {
    ResourceConfig {
        cpu_shares: allocatable
            .get("cpu")
            .and_then(|m| u64::try_from(milli_cpu_to_shares(to_i64(*m))).ok()),
        memory: allocatable.get("memory").map(|m| milli_to_value(*m)),
        pids_limit: allocatable.get("pid").map(|m| milli_to_value(*m)),
        huge_page_limits: huge_page_amounts(allocatable),
        ..ResourceConfig::default()
    }
}

/// The cgroup names of the node-allocatable root and its QoS tiers, as the driver spells
/// them: `(root, burstable, besteffort)`.
#[must_use]
pub fn qos_cgroup_names(driver: CgroupDriver) -> (&'static str, &'static str, &'static str) {
    match driver {
        CgroupDriver::Cgroupfs => ("/kubepods", "/kubepods/burstable", "/kubepods/besteffort"),
        CgroupDriver::Systemd => (
            "/kubepods.slice",
            "/kubepods.slice/kubepods-burstable.slice",
            "/kubepods.slice/kubepods-besteffort.slice",
        ),
    }
}

/// One file a cgroupfs driver writes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CgroupFile {
    /// The v1 controller (hierarchy) the file is in (`cpu`, `memory`, `pids`, `hugetlb`);
    /// on v2 the controller that must be enabled for it.
    pub controller: String,
    /// The file's name (`cpu.shares`, `memory.max`).
    pub file: String,
    /// What is written.
    pub value: String,
}

/// The files libcontainer's cgroupfs managers write for `config`, in their order (`fs`:
/// cpu period before quota; `fs2`: `cpu.weight`, `cpu.max`, `memory.max`, `pids.max`,
/// huge pages, then the unified files). Unset values write nothing, as libcontainer
/// skips zero values. `host_page_sizes`: the host's huge page sizes (`2MB`) when it has
/// the hugetlb controller, else empty; a size the config omits is limited to 0
/// (`maybeSetHugetlb`).
#[must_use]
pub fn cgroup_files(
    config: &ResourceConfig,
    version: CgroupVersion,
    host_page_sizes: &[String],
) -> Vec<CgroupFile> {
    let mut huge_pages = config.huge_page_limits.clone();
    if host_page_sizes.is_empty() {
        huge_pages.clear();
    }
    for size in host_page_sizes {
        huge_pages.entry(size.clone()).or_insert(0);
    }
    let mut out = Vec::new();
    let mut push = |controller: &str, file: String, value: String| {
        out.push(CgroupFile {
            controller: controller.to_string(),
            file,
            value,
        });
    };
    let quota = config.cpu_quota.unwrap_or(0);
    let period = config.cpu_period.unwrap_or(0);
    let memory = config.memory.unwrap_or(0);
    let pids = config.pids_limit.unwrap_or(0);
    match version {
        CgroupVersion::V1 => {
            if let Some(shares) = config.cpu_shares.filter(|s| *s != 0) {
                push("cpu", "cpu.shares".into(), shares.to_string());
            }
            if period != 0 {
                push("cpu", "cpu.cfs_period_us".into(), period.to_string());
            }
            if quota != 0 {
                push("cpu", "cpu.cfs_quota_us".into(), quota.to_string());
            }
            if memory != 0 {
                push("memory", "memory.limit_in_bytes".into(), memory.to_string());
            }
            if pids != 0 {
                push("pids", "pids.max".into(), pids_value(pids));
            }
            for (size, limit) in &huge_pages {
                push(
                    "hugetlb",
                    format!("hugetlb.{size}.limit_in_bytes"),
                    limit.to_string(),
                );
            }
        }
        CgroupVersion::V2 => {
            if let Some(shares) = config.cpu_shares.filter(|s| *s != 0) {
                push(
                    "cpu",
                    "cpu.weight".into(),
                    cpu_shares_to_weight(shares).to_string(),
                );
            }
            if quota != 0 || period != 0 {
                let q = if quota > 0 {
                    quota.to_string()
                } else {
                    "max".to_string()
                };
                let value = if period != 0 {
                    format!("{q} {period}")
                } else {
                    q
                };
                push("cpu", "cpu.max".into(), value);
            }
            if memory != 0 {
                let v = if memory < 0 {
                    "max".to_string()
                } else {
                    memory.to_string()
                };
                push("memory", "memory.max".into(), v);
            }
            if pids != 0 {
                push("pids", "pids.max".into(), pids_value(pids));
            }
            for (size, limit) in &huge_pages {
                push("hugetlb", format!("hugetlb.{size}.max"), limit.to_string());
            }
            for (file, value) in &config.unified {
                let controller = file.split('.').next().unwrap_or_default();
                push(controller, file.clone(), value.clone());
            }
        }
    }
    out
}

/// `pids.max`: a limit ≤ 0 is unlimited.
fn pids_value(limit: i64) -> String {
    if limit > 0 {
        limit.to_string()
    } else {
        "max".to_string()
    }
}

/// `ConvertCPUSharesToCgroupV2Value` (`opencontainers/cgroups`): shares 2…262144 to a
/// weight 1…10000 on the quadratic curve through (2, 1), (1024, 100) and (262144, 10000).
#[must_use]
pub(crate) fn cpu_shares_to_weight(shares: u64) -> u64 {
    if shares == 0 {
        return 0;
    }
    if shares <= 2 {
        return 1;
    }
    if shares >= 262_144 {
        return 10_000;
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "shares are below 2^18, exact in an f64"
    )]
    let l = (shares as f64).log2();
    let exponent = (l * l + 125.0 * l) / 612.0 - 7.0 / 34.0;
    #[expect(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "the curve stays within 1..=10000 on 3..262143"
    )]
    let weight = 10f64.powf(exponent).ceil() as u64;
    weight
}

/// `HugePageLimits`: `hugepages-<size>` amounts by the page size as the cgroup files
/// name it, summed per size.
fn huge_page_amounts(list: &pod_resources::MilliList) -> BTreeMap<String, i64> {
    let mut out: BTreeMap<String, i64> = BTreeMap::new();
    for (name, amount) in list {
        let Some(unit) = huge_page_resource_unit(name) else {
            continue;
        };
        let v = out.entry(unit).or_insert(0);
        *v = v.saturating_add(milli_to_value(*amount));
    }
    out
}

/// Whether the container has a non-zero limit of `name`.
fn limit_set(c: &Container, name: &str) -> bool {
    pod_resources::milli_in(pod_resources::raw_limits(c), name).is_some_and(|m| m != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cpu_shares_to_weight_examples() {
        assert_eq!(cpu_shares_to_weight(2), 1);
        assert_eq!(cpu_shares_to_weight(1024), 100);
        assert_eq!(cpu_shares_to_weight(262_144), 10_000);
    }

    fn pod(containers: serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "p", "namespace": "default", "uid": "u1"},
            "spec": {"containers": containers}
        }))
        .unwrap()
    }

    fn res(requests: serde_json::Value, limits: serde_json::Value) -> serde_json::Value {
        json!({"requests": requests, "limits": limits})
    }

    #[test]
    fn guaranteed_pod_gets_shares_quota_and_memory() {
        let p = pod(json!([
            {"name": "a", "image": "i", "resources": res(json!({"cpu": "500m", "memory": "64Mi"}), json!({"cpu": "500m", "memory": "64Mi"}))},
            {"name": "b", "image": "i", "resources": res(json!({"cpu": "250m", "memory": "32Mi"}), json!({"cpu": "250m", "memory": "32Mi"}))}
        ]));
        let c = resource_config_for_pod(&p, &NodeContext::default(), &FeatureGates::default(), 0);
        assert_eq!(c.cpu_shares, Some(768));
        assert_eq!(c.cpu_quota, Some(75_000));
        assert_eq!(c.cpu_period, Some(100_000));
        assert_eq!(c.memory, Some(96 * 1024 * 1024));
        assert_eq!(c.pids_limit, None);
        let files = cgroup_files(&c, CgroupVersion::V1, &[]);
        let names: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            names,
            [
                "cpu.shares",
                "cpu.cfs_period_us",
                "cpu.cfs_quota_us",
                "memory.limit_in_bytes"
            ]
        );
        let v2 = cgroup_files(&c, CgroupVersion::V2, &[]);
        assert_eq!(v2[1].value, "75000 100000");
        assert_eq!(v2[0].file, "cpu.weight");
        let with_huge_pages = cgroup_files(&c, CgroupVersion::V1, &["2MB".into()]);
        let last = with_huge_pages.last().unwrap();
        assert_eq!(
            (
                last.controller.as_str(),
                last.file.as_str(),
                last.value.as_str()
            ),
            ("hugetlb", "hugetlb.2MB.limit_in_bytes", "0"),
            "a page size the pod does not ask for is limited to 0"
        );
    }

    #[test]
    fn burstable_pod_limits_only_what_every_container_limits() {
        let p = pod(json!([
            {"name": "a", "image": "i", "resources": res(json!({"cpu": "100m"}), json!({"cpu": "200m", "memory": "64Mi"}))},
            {"name": "b", "image": "i", "resources": res(json!({"cpu": "100m"}), json!({"cpu": "300m"}))}
        ]));
        let c =
            resource_config_for_pod(&p, &NodeContext::default(), &FeatureGates::default(), 1024);
        assert_eq!(c.cpu_shares, Some(204));
        assert_eq!(c.cpu_quota, Some(50_000));
        assert_eq!(c.memory, None, "container b sets no memory limit");
        assert_eq!(c.pids_limit, Some(1024));
        let mut node = NodeContext::default();
        node.kubelet.cpu_cfs_quota = Some(false);
        let c = resource_config_for_pod(&p, &node, &FeatureGates::default(), 0);
        assert_eq!(c.cpu_quota, Some(-1));
        let v2 = cgroup_files(&c, CgroupVersion::V2, &[]);
        assert!(v2
            .iter()
            .any(|f| f.file == "cpu.max" && f.value == "max 100000"));
    }

    #[test]
    fn best_effort_pod_gets_two_shares_and_tiers_sum_burstable_requests() {
        let be = pod(json!([{"name": "a", "image": "i"}]));
        let c = resource_config_for_pod(&be, &NodeContext::default(), &FeatureGates::default(), 0);
        assert_eq!(
            c,
            ResourceConfig {
                cpu_shares: Some(2),
                ..ResourceConfig::default()
            }
        );
        let b1 = pod(
            json!([{"name": "a", "image": "i", "resources": res(json!({"cpu": "250m"}), json!({}))}]),
        );
        let b2 = pod(
            json!([{"name": "a", "image": "i", "resources": res(json!({"cpu": "750m"}), json!({}))}]),
        );
        let g = pod(
            json!([{"name": "a", "image": "i", "resources": res(json!({"cpu": "2", "memory": "1Gi"}), json!({"cpu": "2", "memory": "1Gi"}))}]),
        );
        let tiers = qos_tiers(
            [&be, &b1, &b2, &g],
            &FeatureGates::default(),
            &["2MB".into()],
        );
        assert_eq!(tiers.burstable.cpu_shares, Some(1024));
        assert_eq!(tiers.best_effort.cpu_shares, Some(2));
        assert_eq!(
            tiers.best_effort.huge_page_limits["2MB"],
            HUGE_PAGES_UNBOUNDED
        );
        let none = qos_tiers([], &FeatureGates::default(), &[]);
        assert_eq!(none.burstable.cpu_shares, Some(2));
    }

    #[test]
    fn node_allocatable_and_weights() {
        let mut alloc = pod_resources::MilliList::new();
        alloc.insert("cpu".into(), 2000);
        alloc.insert("memory".into(), 8 * 1024 * 1024 * 1024 * 1000);
        alloc.insert("pid".into(), 4_194_304_000);
        alloc.insert("hugepages-2Mi".into(), 0);
        let c = node_allocatable_config(&alloc);
        assert_eq!(c.cpu_shares, Some(2048));
        assert_eq!(c.memory, Some(8 * 1024 * 1024 * 1024));
        assert_eq!(c.pids_limit, Some(4_194_304));
        assert_eq!(c.huge_page_limits["2MB"], 0);
        assert_eq!(cpu_shares_to_weight(0), 0);
        assert_eq!(cpu_shares_to_weight(2048), 174);
        assert_eq!(cpu_shares_to_weight(102), 17);
    }

    #[test]
    fn tiered_memory_reservation_on_v2() {
        let p = pod(
            json!([{"name": "a", "image": "i", "resources": res(json!({"cpu": "1", "memory": "1Gi"}), json!({"cpu": "1", "memory": "1Gi"}))}]),
        );
        let mut node = NodeContext::default();
        node.kubelet.memory_reservation_policy = Some("TieredReservation".into());
        let gates = FeatureGates::resolve(&[("MemoryQoS".to_string(), true)].into());
        let c = resource_config_for_pod(&p, &node, &gates, 0);
        assert_eq!(
            c.unified.get("memory.min").map(String::as_str),
            Some("1073741824")
        );
        node.cgroup_version = Some(CgroupVersion::V1);
        assert!(resource_config_for_pod(&p, &node, &gates, 0)
            .unified
            .is_empty());
    }

    #[test]
    fn sidecar_limits_count() {
        let p: Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "uid": "u"},
            "spec": {
                "initContainers": [{"name": "s", "image": "i", "restartPolicy": "Always",
                    "resources": res(json!({"cpu": "100m"}), json!({}))}],
                "containers": [{"name": "a", "image": "i",
                    "resources": res(json!({"cpu": "100m"}), json!({"cpu": "100m"}))}]
            }
        }))
        .unwrap();
        assert!(crate::pod::is_restartable_init(
            &p.spec.as_ref().unwrap().init_containers.as_ref().unwrap()[0]
        ));
        let c = resource_config_for_pod(&p, &NodeContext::default(), &FeatureGates::default(), 0);
        assert_eq!(c.cpu_quota, None, "the sidecar sets no CPU limit");
        assert_eq!(c.cpu_shares, Some(204));
    }
    #[test]
    fn plan_carries_the_pod_cgroup_only_when_the_kubelet_manages_cgroups() {
        let request = |per_qos: Option<bool>| -> crate::PlanRequest {
            let mut node = json!({"kubelet": {"podPidsLimit": 100}});
            if let Some(v) = per_qos {
                node["kubelet"]["cgroupsPerQOS"] = json!(v);
            }
            serde_json::from_value(json!({
                "pod": {"metadata": {"name": "p", "namespace": "default", "uid": "u1"},
                        "spec": {"containers": [{"name": "a", "image": "busybox"}]}},
                "node": node
            }))
            .unwrap()
        };
        let plan = crate::plan(&request(Some(true))).unwrap();
        let cgroup = plan.pod_cgroup.expect("a sandbox is created");
        assert_eq!(cgroup.name, "/kubepods/besteffort/podu1");
        assert_eq!(cgroup.resources.cpu_shares, Some(2));
        assert_eq!(cgroup.resources.pids_limit, Some(100));
        assert_eq!(
            plan.sandbox_config.unwrap().linux.unwrap().cgroup_parent,
            cgroup.name
        );
        assert!(crate::plan(&request(None)).unwrap().pod_cgroup.is_none());
        assert!(crate::plan(&request(Some(false)))
            .unwrap()
            .pod_cgroup
            .is_none());
    }
}
