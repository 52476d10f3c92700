//! Linux cgroup settings (spec §8): CPU shares and CFS quota, memory limit, OOM score,
//! huge pages, `unified` (OOM group, MemoryQoS), swap, and the sandbox's resources.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Container, Pod};

use crate::cri::{HugepageLimit, LinuxContainerResources};
use crate::features::{FeatureGates, Gate};
use crate::pod::is_restartable_init;
use crate::quantity::Quantity;

use super::pod_resources::{
    self, milli_to_value, pod_level, pod_level_requests_set, pod_level_set, QosClass,
};
use crate::request::node::NodeContext;

/// Fewest CPU shares.
pub(crate) const MIN_SHARES: i64 = 2;
/// Most CPU shares.
pub(crate) const MAX_SHARES: i64 = 262_144;
/// Shares per CPU.
pub(crate) const SHARES_PER_CPU: i64 = 1024;
/// Default CFS period, µs.
pub(crate) const QUOTA_PERIOD: i64 = 100_000;
/// Smallest CFS quota, µs.
pub(crate) const MIN_QUOTA_PERIOD: i64 = 1000;
/// OOM score of Guaranteed and node-critical containers.
pub(crate) const GUARANTEED_OOM_SCORE_ADJ: i64 = -997;
/// OOM score of BestEffort containers.
pub(crate) const BESTEFFORT_OOM_SCORE_ADJ: i64 = 1000;

/// `MilliCPUToShares`.
#[must_use]
pub(crate) fn milli_cpu_to_shares(milli_cpu: i64) -> i64 {
    if milli_cpu == 0 {
        return MIN_SHARES;
    }
    let shares = i128::from(milli_cpu) * i128::from(SHARES_PER_CPU) / 1000;
    pod_resources::to_i64(shares.clamp(i128::from(MIN_SHARES), i128::from(MAX_SHARES)))
}

/// `milliCPUToQuota`: 0 for no limit, else `limit·period/1000` and at least 1000. Without
/// the custom-period gate the period is always 100000.
#[must_use]
pub(crate) fn milli_cpu_to_quota(milli_cpu: i64, period: i64, custom_period: bool) -> i64 {
    if milli_cpu == 0 {
        return 0;
    }
    let period = if custom_period { period } else { QUOTA_PERIOD };
    let quota = pod_resources::to_i64(i128::from(milli_cpu) * i128::from(period) / 1000);
    quota.max(MIN_QUOTA_PERIOD)
}

/// Inputs of `calculateLinuxResources`, in milli-units for CPU and bytes for memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct CpuMemory {
    /// CPU request (`None` = no request key).
    pub cpu_request_milli: Option<i64>,
    /// CPU limit (0 = none).
    pub cpu_limit_milli: i64,
    /// Memory limit in bytes (0 = none).
    pub memory_limit: i64,
}

/// `calculateLinuxResources`: shares, memory limit, CFS quota/period and the OOM group.
#[must_use]
pub(crate) fn calculate_linux_resources(
    input: CpuMemory,
    disable_cpu_quota: bool,
    node: &NodeContext,
    gates: &FeatureGates,
) -> LinuxContainerResources {
    let mut r = LinuxContainerResources {
        cpu_shares: milli_cpu_to_shares(input.cpu_request_milli.unwrap_or(input.cpu_limit_milli)),
        ..LinuxContainerResources::default()
    };
    if input.memory_limit != 0 {
        r.memory_limit_in_bytes = input.memory_limit;
    }
    if node.cpu_cfs_quota() {
        let custom = gates.enabled(Gate::CustomCPUCFSQuotaPeriod);
        let period = if custom {
            node.cpu_cfs_quota_period_us()
        } else {
            QUOTA_PERIOD
        };
        r.cpu_quota = if disable_cpu_quota {
            -1
        } else {
            milli_cpu_to_quota(input.cpu_limit_milli, period, custom)
        };
        r.cpu_period = period;
    }
    if node.cgroup_v2() && !node.single_process_oom_kill() {
        r.unified
            .insert("memory.oom.group".to_string(), "1".to_string());
    }
    r
}

fn get(list: &pod_resources::MilliList, key: &str) -> i128 {
    list.get(key).copied().unwrap_or(0)
}

/// The CPU and memory inputs for a container: its own request, and its limits, or the
/// pod-level limits where the container has none (PodLevelResources).
#[must_use]
pub(crate) fn container_cpu_memory(pod: &Pod, c: &Container, gates: &FeatureGates) -> CpuMemory {
    let lims = pod_resources::raw_limits(c);
    let pod_lims = if gates.enabled(Gate::PodLevelResources) && pod_level_set(pod) {
        pod_level(pod).and_then(|r| r.limits.as_ref())
    } else {
        None
    };
    let pick = |key: &str| {
        let own = pod_resources::milli_in(lims, key).unwrap_or(0);
        if own == 0 {
            pod_resources::milli_in(pod_lims, key).unwrap_or(0)
        } else {
            own
        }
    };
    CpuMemory {
        cpu_request_milli: pod_resources::milli_in(pod_resources::raw_requests(c), "cpu")
            .map(pod_resources::to_i64),
        cpu_limit_milli: pod_resources::to_i64(pick("cpu")),
        memory_limit: milli_to_value(pick("memory")),
    }
}

/// `GetHugepageLimitsFromResources`: one entry per host page size (limit 0), set from
/// `hugepages-<size>` limits whose size matches.
#[must_use]
pub(crate) fn hugepage_limits(
    limits: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
    page_sizes: &[String],
) -> Vec<HugepageLimit> {
    let mut required: BTreeMap<String, u64> = BTreeMap::new();
    for (name, amount) in limits.into_iter().flatten() {
        let Some(unit) = huge_page_resource_unit(name) else {
            continue;
        };
        // Go converts the int64 value to uint64 (a negative value wraps).
        required.insert(unit, pod_resources::value(amount) as u64);
    }
    page_sizes
        .iter()
        .map(|p| HugepageLimit {
            page_size: p.clone(),
            limit: required.get(p).copied().unwrap_or(0),
        })
        .collect()
}

/// The page size of a `hugepages-<size>` resource name as the cgroup files name it
/// (`hugepages-2Mi` → `2MB`); `None` for any other name or an unreadable size.
#[must_use]
pub(crate) fn huge_page_resource_unit(name: &str) -> Option<String> {
    let size = Quantity::parse(name.strip_prefix("hugepages-")?).ok()?;
    huge_page_unit_size(size.value())
}

/// `HugePageUnitSizeFromByteSize`: `2097152` → `2MB`; `None` when not expressible.
#[must_use]
pub fn huge_page_unit_size(mut size: i64) -> Option<String> {
    const UNITS: [&str; 6] = ["B", "KB", "MB", "GB", "TB", "PB"];
    let mut idx = 0;
    while size % 1024 == 0 && idx < UNITS.len() - 1 {
        size /= 1024;
        idx += 1;
    }
    if size > 1024 && idx < UNITS.len() - 1 {
        return None;
    }
    UNITS.get(idx).map(|u| format!("{size}{u}"))
}

/// Memory share of pod-level requests not claimed by containers, per container.
fn remaining_pod_mem_per_container(pod: &Pod) -> i64 {
    let Some(spec) = pod.spec.as_ref() else {
        return 0;
    };
    let pod_mem = pod_level(pod)
        .and_then(|r| r.requests.as_ref())
        .and_then(|r| r.get("memory"))
        .map_or(0, pod_resources::value);
    if pod_mem == 0 {
        return 0;
    }
    let n = spec.containers.len() + spec.init_containers.as_ref().map_or(0, Vec::len);
    let Ok(n) = i64::try_from(n) else { return 0 };
    if n == 0 {
        return 0;
    }
    let aggregated = milli_to_value(get(
        &pod_resources::aggregate(pod, pod_resources::raw_requests),
        "memory",
    ));
    (pod_mem - aggregated) / n
}

fn container_memory_request(c: &Container) -> i64 {
    milli_to_value(pod_resources::milli_in(pod_resources::raw_requests(c), "memory").unwrap_or(0))
}

fn container_memory_limit(c: &Container) -> i64 {
    milli_to_value(pod_resources::milli_in(pod_resources::raw_limits(c), "memory").unwrap_or(0))
}

fn is_sidecar(pod: &Pod, c: &Container) -> bool {
    pod.spec.as_ref().is_some_and(|s| {
        s.init_containers
            .as_deref()
            .unwrap_or_default()
            .iter()
            .any(|i| i.name == c.name)
    }) && is_restartable_init(c)
}

/// `GetContainerOOMScoreAdjust` given the pod's QoS class (`GetPodQOS`), which a caller planning
/// every container of a pod computes once: it reads every container.
#[must_use]
pub(crate) fn oom_score_adj_with_qos(
    pod: &Pod,
    c: &Container,
    memory_capacity: i64,
    gates: &FeatureGates,
    qos: QosClass,
) -> i64 {
    if pod_resources::is_node_critical_pod(pod) {
        return GUARANTEED_OOM_SCORE_ADJ;
    }
    match qos {
        QosClass::Guaranteed => return GUARANTEED_OOM_SCORE_ADJ,
        QosClass::BestEffort => return BESTEFFORT_OOM_SCORE_ADJ,
        QosClass::Burstable => {}
    }
    let capacity = i128::from(memory_capacity.max(1));
    let remaining = if gates.enabled(Gate::PodLevelResources) && pod_level_requests_set(pod) {
        remaining_pod_mem_per_container(pod)
    } else {
        0
    };
    let adj_for = |mem: i64| 1000 - pod_resources::to_i64(1000 * i128::from(mem) / capacity);
    let mut adj = adj_for(container_memory_request(c).saturating_add(remaining));
    if gates.enabled(Gate::SidecarContainers) && is_sidecar(pod, c) {
        let min_regular = pod
            .spec
            .as_ref()
            .and_then(|s| s.containers.iter().map(container_memory_request).min())
            .unwrap_or(0);
        adj = adj.min(adj_for(min_regular.saturating_add(remaining)));
    }
    if adj < 1000 + GUARANTEED_OOM_SCORE_ADJ {
        return 1000 + GUARANTEED_OOM_SCORE_ADJ;
    }
    if adj == BESTEFFORT_OOM_SCORE_ADJ {
        return adj - 1;
    }
    adj
}

/// Swap behaviours.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SwapBehavior {
    /// No swap.
    NoSwap,
    /// Swap in proportion to the memory request.
    LimitedSwap,
}

/// `GetContainerSwapBehavior`.
#[must_use]
pub(crate) fn container_swap_behavior(
    pod: &Pod,
    c: &Container,
    node: &NodeContext,
    gates: &FeatureGates,
) -> SwapBehavior {
    if node.memory_swap_behavior() != "LimitedSwap" {
        return SwapBehavior::NoSwap;
    }
    if !gates.enabled(Gate::NodeSwap) || !node.swap_controller() || !node.cgroup_v2() {
        return SwapBehavior::NoSwap;
    }
    if pod_resources::is_critical_pod(pod) {
        return SwapBehavior::NoSwap;
    }
    let qos = pod_resources::pod_qos(pod, gates.enabled(Gate::PodLevelResources));
    let req = pod_resources::milli_in(pod_resources::raw_requests(c), "memory").unwrap_or(0);
    let lim = pod_resources::milli_in(pod_resources::raw_limits(c), "memory").unwrap_or(0);
    if qos != QosClass::Burstable || (req == 0 && lim == 0) || req == lim {
        return SwapBehavior::NoSwap;
    }
    SwapBehavior::LimitedSwap
}

/// `configureContainerSwapResources`.
pub(crate) fn configure_swap(
    r: &mut LinuxContainerResources,
    pod: &Pod,
    c: &Container,
    node: &NodeContext,
    gates: &FeatureGates,
) {
    if !node.swap_controller() {
        return;
    }
    let no_swap = |r: &mut LinuxContainerResources| {
        if node.cgroup_v2() {
            r.unified
                .insert("memory.swap.max".to_string(), "0".to_string());
        } else {
            r.memory_swap_limit_in_bytes = r.memory_limit_in_bytes;
        }
    };
    match container_swap_behavior(pod, c, node, gates) {
        SwapBehavior::NoSwap => no_swap(r),
        SwapBehavior::LimitedSwap => {
            let request = container_memory_request(c);
            match calc_swap_for_burstable(request, node.memory_capacity(), node.swap_capacity()) {
                Some(limit) => {
                    r.unified
                        .insert("memory.swap.max".to_string(), limit.to_string());
                }
                None => no_swap(r),
            }
        }
    }
}

/// `calcSwapForBurstablePods`: request / capacity · swap, in float, truncated.
#[must_use]
pub(crate) fn calc_swap_for_burstable(request: i64, capacity: i64, swap: i64) -> Option<i64> {
    if capacity <= 0 || request > capacity {
        return None;
    }
    let v = (request as f64 / capacity as f64) * swap as f64;
    Some(v as i64)
}

/// MemoryQoS (cgroup v2 with the gate on), as in 1.37: reservation only with
/// `memoryReservationPolicy: TieredReservation` (`memory.min` = request for Guaranteed
/// pods, `memory.low` = request for Burstable pods); throttling only with a
/// `memoryThrottlingFactor`: `memory.high` = request + factor·(limit or allocatable −
/// request), rounded down to pages, for every container whose memory is not
/// guaranteed (request ≠ limit, or no request).
pub(crate) fn apply_memory_qos(
    r: &mut LinuxContainerResources,
    pod: &Pod,
    c: &Container,
    node: &NodeContext,
    gates: &FeatureGates,
) {
    let request = container_memory_request(c);
    let limit = container_memory_limit(c);
    if node.memory_reservation_policy() == "TieredReservation" && request != 0 {
        match pod_resources::pod_qos(pod, gates.enabled(Gate::PodLevelResources)) {
            QosClass::Guaranteed => {
                r.unified
                    .insert("memory.min".to_string(), request.to_string());
            }
            QosClass::Burstable => {
                r.unified
                    .insert("memory.low".to_string(), request.to_string());
            }
            QosClass::BestEffort => {}
        }
    }
    let Some(factor) = node.memory_throttling_factor() else {
        return;
    };
    if request != limit || request == 0 {
        let page = node.page_size();
        let ceiling = if limit != 0 {
            limit
        } else {
            node.allocatable
                .get("memory")
                .map_or(0, pod_resources::value)
        };
        let high = if ceiling > 0 {
            let v = ((request as f64 + (ceiling as f64 - request as f64) * factor) / page as f64)
                .floor() as i64;
            v.saturating_mul(page)
        } else {
            0
        };
        if high != 0 && high > request {
            r.unified
                .insert("memory.high".to_string(), high.to_string());
        }
    }
}

/// `generateLinuxContainerResources`: everything except the cpusets.
#[must_use]
pub(crate) fn container_resources(
    pod: &Pod,
    c: &Container,
    node: &NodeContext,
    gates: &FeatureGates,
) -> LinuxContainerResources {
    let qos = pod_resources::pod_qos(pod, gates.enabled(Gate::PodLevelResources));
    container_resources_with_qos(pod, c, node, gates, qos)
}

/// [`container_resources`] given the pod's QoS class (`GetPodQOS`), computed once per
/// pod by a caller that generates every container's config (computing it per
/// container made a pod's configs quadratic in its container count).
#[must_use]
pub(crate) fn container_resources_with_qos(
    pod: &Pod,
    c: &Container,
    node: &NodeContext,
    gates: &FeatureGates,
    qos: QosClass,
) -> LinuxContainerResources {
    let disable_quota =
        gates.enabled(Gate::DisableCPUQuotaWithExclusiveCPUs) && node.has_exclusive_cpus(&c.name);
    let mut r = calculate_linux_resources(
        container_cpu_memory(pod, c, gates),
        disable_quota,
        node,
        gates,
    );
    r.oom_score_adj = oom_score_adj_with_qos(pod, c, node.memory_capacity(), gates, qos);
    r.hugepage_limits = hugepage_limits(
        c.resources.as_ref().and_then(|r| r.limits.as_ref()),
        &node.huge_page_sizes,
    );
    configure_swap(&mut r, pod, c, node, gates);
    if gates.enabled(Gate::MemoryQoS) && node.cgroup_v2() {
        apply_memory_qos(&mut r, pod, c, node, gates);
    }
    r
}

/// `calculateSandboxResources`: the pod's aggregated requests and limits without
/// overhead (pod-level values when PodLevelResources is on).
#[must_use]
pub(crate) fn sandbox_resources(
    pod: &Pod,
    node: &NodeContext,
    gates: &FeatureGates,
) -> LinuxContainerResources {
    let pod_level_on = gates.enabled(Gate::PodLevelResources);
    let req = pod_resources::pod_requests(pod, pod_level_on, true);
    let lim = pod_resources::pod_limits(pod, pod_level_on, true);
    let pod_exclusive = pod.spec.as_ref().is_some_and(|s| {
        s.containers
            .iter()
            .chain(s.init_containers.as_deref().unwrap_or_default())
            .any(|c| node.has_exclusive_cpus(&c.name))
    });
    let disable_quota = gates.enabled(Gate::DisableCPUQuotaWithExclusiveCPUs) && pod_exclusive;
    calculate_linux_resources(
        CpuMemory {
            cpu_request_milli: req.get("cpu").map(|m| pod_resources::to_i64(*m)),
            cpu_limit_milli: pod_resources::to_i64(get(&lim, "cpu")),
            memory_limit: milli_to_value(get(&lim, "memory")),
        },
        disable_quota,
        node,
        gates,
    )
}

/// `convertOverheadToLinuxResources`: overhead as request = limit; empty when unset.
#[must_use]
pub(crate) fn sandbox_overhead(
    pod: &Pod,
    node: &NodeContext,
    gates: &FeatureGates,
) -> LinuxContainerResources {
    if pod
        .spec
        .as_ref()
        .and_then(|s| s.overhead.as_ref())
        .is_none()
    {
        return LinuxContainerResources::default();
    }
    let o = pod_resources::overhead(pod);
    let cpu = pod_resources::to_i64(get(&o, "cpu"));
    calculate_linux_resources(
        CpuMemory {
            cpu_request_milli: Some(cpu),
            cpu_limit_milli: cpu,
            memory_limit: milli_to_value(get(&o, "memory")),
        },
        false,
        node,
        gates,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milli_cpu_to_quota_examples() {
        assert_eq!(milli_cpu_to_quota(250, 100_000, false), 25_000);
        assert_eq!(milli_cpu_to_quota(5, 100_000, false), 1_000);
        assert_eq!(milli_cpu_to_quota(250, 50_000, true), 12_500);
    }

    #[test]
    fn milli_cpu_to_shares_examples() {
        assert_eq!(milli_cpu_to_shares(0), 2);
        assert_eq!(milli_cpu_to_shares(250), 256);
        assert_eq!(milli_cpu_to_shares(1_000_000), 262_144);
    }

    #[test]
    fn huge_page_units() {
        assert_eq!(huge_page_unit_size(2_097_152).as_deref(), Some("2MB"));
        assert_eq!(huge_page_unit_size(1 << 30).as_deref(), Some("1GB"));
        assert_eq!(huge_page_unit_size(2_000_000), None);
        assert_eq!(huge_page_unit_size(512).as_deref(), Some("512B"));
    }

    #[test]
    fn swap_share() {
        assert_eq!(
            calc_swap_for_burstable(1 << 30, 40 << 30, 5 << 30),
            Some(134_217_728)
        );
        assert_eq!(calc_swap_for_burstable(1, 0, 5), None);
    }
}
