//! [`NodeContext`], the request's `node`: the node and kubelet facts that config
//! generation reads besides the pod (spec `cri-config.md` §2): what the kubelet holds in
//! its `KubeletConfiguration` (`pkg/kubelet/apis/config/types.go`), its node's status and
//! its container manager (`pkg/kubelet/cm`). Every key is optional; an absent key takes the
//! value a stock kubelet would use. `docs/node-context.md` documents each key. Part of the
//! request (a leaf of it), read by `config` and `lint`.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ConfigMap, Secret, Service};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use serde::{Deserialize, Deserializer, Serialize};

use crate::cri::UserNamespace;

/// Default kubelet root directory.
pub const DEFAULT_ROOT_DIR: &str = "/var/lib/kubelet";
/// Default container log root.
pub const DEFAULT_POD_LOGS_DIR: &str = "/var/log/pods";
/// Default resolv.conf path.
pub const DEFAULT_RESOLV_CONF: &str = "/etc/resolv.conf";
/// Default machine memory when `memoryCapacity` is absent (16 GiB).
pub(crate) const DEFAULT_MEMORY_CAPACITY: i64 = 17_179_869_184;
/// Default OS page size.
pub(crate) const DEFAULT_PAGE_SIZE: i64 = 4096;

/// Node and kubelet facts for config generation (spec §2). Every key is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct NodeContext {
    /// Node name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Node addresses as the kubelet picks them (first: primary). Default `[]`.
    #[serde(rename = "hostIPs", skip_serializing_if = "Vec::is_empty")]
    pub host_ips: Vec<String>,
    /// `--node-ip` values; only the family of the first matters. Default `[]` (IPv4 first).
    #[serde(rename = "nodeIPs", skip_serializing_if = "Vec::is_empty")]
    pub node_ips: Vec<String>,
    /// Node allocatable resources. Default `{}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allocatable: BTreeMap<String, K8sQuantity>,
    /// Machine memory in bytes. Default 16 GiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_capacity: Option<i64>,
    /// Machine swap in bytes. Default 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap_capacity: Option<i64>,
    /// `v1` or `v2`. Default `v2`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup_version: Option<CgroupVersion>,
    /// The swap cgroup controller exists. Default false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swap_controller_available: Option<bool>,
    /// Huge page sizes the host supports, in host order. Default `[]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub huge_page_sizes: Vec<String>,
    /// OS page size. Default 4096.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_size: Option<i64>,
    /// SELinux is enabled on the host. Default false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selinux_enabled: Option<bool>,
    /// Literal pod cgroup parent. Default: derived from the QoS class and `cgroupDriver`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_cgroup_parent: Option<String>,
    /// `cgroupfs` or `systemd`, used to derive the cgroup parent. Default `cgroupfs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cgroup_driver: Option<CgroupDriver>,
    /// KubeletConfiguration values.
    #[serde(skip_serializing_if = "is_default_kubelet")]
    pub kubelet: KubeletSettings,
    /// Content of the node's `/etc/hosts`, which host-network pods get (behind the
    /// kubelet's header). Default: unknown (the plan's file step then copies the node's
    /// file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub etc_hosts: Option<String>,
    /// The host's parsed resolv.conf. Default: empty.
    #[serde(rename = "hostDNS", skip_serializing_if = "Option::is_none")]
    pub host_dns: Option<HostDns>,
    /// Services visible to the kubelet (all namespaces). Default `[]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub services: Vec<Service>,
    /// The service lister has synced. Default true.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub services_synced: Option<bool>,
    /// ConfigMaps of the pod's namespace by name (absent = NotFound). Default `{}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub config_maps: BTreeMap<String, ConfigMap>,
    /// Secrets of the pod's namespace by name (absent = NotFound). Default `{}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub secrets: BTreeMap<String, Secret>,
    /// Mounted volumes by pod volume name. Default: derived (see [`VolumeInfo`]).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub volumes: BTreeMap<String, VolumeInfo>,
    /// Prepared subPath host paths by `<container>/<mountIndex>`. Default: derived.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub sub_path_host_paths: BTreeMap<String, String>,
    /// Pull and ImageStatus results by `container.image`. Default: ref = the image, no user.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub images: BTreeMap<String, ImageInfo>,
    /// RuntimeClass handler. Default "".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_handler: Option<String>,
    /// Features the runtime handler reports (CRI `Status`). Default: recursive read-only
    /// mounts supported, user namespaces not supported.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runtime_handler_features: Option<RuntimeHandlerFeatures>,
    /// The user-namespace mapping allocated for a `hostUsers: false` pod. Default none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_namespace: Option<UserNamespace>,
    /// GIDs from the pod's PV `pv.beta.kubernetes.io/gid` annotations. Default `[]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extra_supplemental_groups: Vec<i64>,
    /// Device-plugin / DRA results per container name. Default `{}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub device_allocations: BTreeMap<String, DeviceAllocation>,
    /// CPU manager: container has exclusive CPUs. Default false for every container.
    #[serde(rename = "exclusiveCPUs", skip_serializing_if = "BTreeMap::is_empty")]
    pub exclusive_cpus: BTreeMap<String, bool>,
    /// CPU/memory manager cpusets per container. Default none.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cpusets: BTreeMap<String, CpuSet>,
    /// Termination-log file ids (8 hex digits) per container. Default `00000000`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub termination_log_ids: BTreeMap<String, String>,
    /// Names of the files in each container's log directory (restart-count fallback).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub log_files: BTreeMap<String, Vec<String>>,
    /// Parsed env files for `fileKeyRef` (EnvFiles): volume name → path → key → value.
    /// A path missing here is a file the kubelet cannot read (`couldn't parse env file`);
    /// the volume itself must be mounted (`volumes` or a volume the pod declares).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub env_files: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>>,
}

fn is_default_kubelet(k: &KubeletSettings) -> bool {
    *k == KubeletSettings::default()
}

/// cgroup hierarchy version.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CgroupVersion {
    /// Legacy hierarchy.
    V1,
    /// Unified hierarchy (the 1.37 default; v1 needs `failCgroupV1: false`).
    #[default]
    V2,
}

/// Cgroup driver (only used to render the default cgroup parent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CgroupDriver {
    /// `/kubepods/burstable/pod<uid>`.
    #[default]
    Cgroupfs,
    /// `/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice`.
    Systemd,
}

/// KubeletConfiguration values used by config generation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct KubeletSettings {
    /// Root directory. Default `/var/lib/kubelet`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_dir: Option<String>,
    /// Pod log root. Default `/var/log/pods`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_logs_dir: Option<String>,
    /// Cluster domain. Default "" (stock kubelet; kubeadm sets `cluster.local`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_domain: Option<String>,
    /// Cluster DNS servers. Default `[]`.
    #[serde(rename = "clusterDNS", skip_serializing_if = "Option::is_none")]
    pub cluster_dns: Option<Vec<String>>,
    /// resolv.conf path ("" = none). Default `/etc/resolv.conf`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolv_conf: Option<String>,
    /// Enforce CFS quota. Default true.
    #[serde(rename = "cpuCFSQuota", skip_serializing_if = "Option::is_none")]
    pub cpu_cfs_quota: Option<bool>,
    /// CFS period (a Go duration, used with CustomCPUCFSQuotaPeriod). Default `100ms`.
    #[serde(rename = "cpuCFSQuotaPeriod", skip_serializing_if = "Option::is_none")]
    pub cpu_cfs_quota_period: Option<String>,
    /// RuntimeDefault seccomp when a pod sets none. Default false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seccomp_default: Option<bool>,
    /// Seccomp profile root. Default `<rootDir>/seccomp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seccomp_profile_root: Option<String>,
    /// `memorySwap.swapBehavior`: "", `NoSwap` or `LimitedSwap`. Default "" (NoSwap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_swap_behavior: Option<String>,
    /// MemoryQoS throttling factor for `memory.high`. Default none (1.37: no throttling).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_throttling_factor: Option<f64>,
    /// MemoryQoS reservation: `None` or `TieredReservation` (`memory.min` for
    /// Guaranteed, `memory.low` for Burstable). Default `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub memory_reservation_policy: Option<String>,
    /// `cgroupsPerQOS`: the kubelet makes the pod and QoS cgroups itself. Absent: the
    /// plan does not describe them (a caller that does not manage cgroups); `true`: a plan
    /// that creates the sandbox carries the pod's cgroup (`Plan::pod_cgroup`); `false`:
    /// no pod cgroups.
    #[serde(rename = "cgroupsPerQOS", skip_serializing_if = "Option::is_none")]
    pub cgroups_per_qos: Option<bool>,
    /// `podPidsLimit` (`--pod-max-pids`): the pod cgroup's pids limit; -1 or absent:
    /// unlimited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_pids_limit: Option<i64>,
    /// Absent: resolved as the kubelet does at start (true on cgroup v1, false on v2).
    /// `null`: an unresolved nil, which the code treats as true.
    #[serde(
        rename = "singleProcessOOMKill",
        default,
        deserialize_with = "tri_state",
        skip_serializing_if = "Option::is_none"
    )]
    pub single_process_oom_kill: Option<Option<bool>>,
}

/// Distinguishes an absent key (`None`) from an explicit `null` (`Some(None)`).
fn tri_state<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<bool>>, D::Error> {
    Option::<bool>::deserialize(d).map(Some)
}

/// The host's parsed `resolv.conf`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct HostDns {
    /// `nameserver` lines.
    pub servers: Vec<String>,
    /// `search` entries.
    pub searches: Vec<String>,
    /// `options` entries.
    pub options: Vec<String>,
}

/// A mounted volume as the volume manager reports it.
///
/// A pod volume without an entry is taken as mounted at the kubelet's standard path
/// `<rootDir>/pods/<uid>/volumes/<plugin>/<name>` (plugin `kubernetes.io~<kind>`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct VolumeInfo {
    /// Host path of the mounted volume.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host_path: String,
    /// The volume itself is read-only.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
    /// The volume needs SELinux relabelling.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub selinux_relabel: bool,
    /// Device symlink for a block volume (`volumeDevices`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block_device_path: Option<String>,
    /// Image reference for an image volume.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// Result of pulling an image and of CRI ImageStatus.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageInfo {
    /// Image reference the pull returned. Default: the container's image.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image_ref: Option<String>,
    /// Numeric user of the image, if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<i64>,
    /// User name of the image (when it is not numeric).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub username: String,
}

/// Features the runtime handler reports (CRI `RuntimeHandlerFeatures`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct RuntimeHandlerFeatures {
    /// Recursive read-only mounts.
    pub recursive_read_only_mounts: bool,
    /// User namespaces.
    pub user_namespaces: bool,
}

/// What device plugins and DRA give one container (`RunContainerOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct DeviceAllocation {
    /// Devices.
    pub devices: Vec<AllocatedDevice>,
    /// Mounts.
    pub mounts: Vec<AllocatedMount>,
    /// Environment variables (before the pod's).
    pub envs: Vec<NameValue>,
    /// Annotations.
    pub annotations: Vec<NameValue>,
    /// CDI device names.
    pub cdi_devices: Vec<String>,
}

/// A device from a device plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct AllocatedDevice {
    /// Host path.
    pub path_on_host: String,
    /// Container path.
    pub path_in_container: String,
    /// cgroup permissions.
    pub permissions: String,
}

/// A mount from a device plugin.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct AllocatedMount {
    /// Host path.
    pub host_path: String,
    /// Container path.
    pub container_path: String,
    /// Read-only.
    pub read_only: bool,
}

/// A name/value pair.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct NameValue {
    /// Name.
    pub name: String,
    /// Value.
    pub value: String,
}

/// cpuset values the CPU and memory managers apply before creation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct CpuSet {
    /// `cpusetCpus`.
    pub cpus: String,
    /// `cpusetMems`.
    pub mems: String,
}

impl NodeContext {
    /// Kubelet root directory.
    #[must_use]
    pub(crate) fn root_dir(&self) -> &str {
        self.kubelet.root_dir.as_deref().unwrap_or(DEFAULT_ROOT_DIR)
    }

    /// Pod log root.
    #[must_use]
    pub(crate) fn pod_logs_dir(&self) -> &str {
        self.kubelet
            .pod_logs_dir
            .as_deref()
            .unwrap_or(DEFAULT_POD_LOGS_DIR)
    }

    /// Cluster domain.
    #[must_use]
    pub(crate) fn cluster_domain(&self) -> &str {
        self.kubelet.cluster_domain.as_deref().unwrap_or("")
    }

    /// Cluster DNS servers.
    #[must_use]
    pub(crate) fn cluster_dns(&self) -> &[String] {
        self.kubelet.cluster_dns.as_deref().unwrap_or_default()
    }

    /// resolv.conf path.
    #[must_use]
    pub(crate) fn resolv_conf(&self) -> &str {
        self.kubelet
            .resolv_conf
            .as_deref()
            .unwrap_or(DEFAULT_RESOLV_CONF)
    }

    /// Whether cgroup v2 (unified) is in use.
    #[must_use]
    pub(crate) fn cgroup_v2(&self) -> bool {
        self.cgroup_version.unwrap_or_default() == CgroupVersion::V2
    }

    /// Whether the swap controller exists.
    #[must_use]
    pub(crate) fn swap_controller(&self) -> bool {
        self.swap_controller_available.unwrap_or(false)
    }

    /// Machine memory, bytes.
    #[must_use]
    pub(crate) fn memory_capacity(&self) -> i64 {
        self.memory_capacity.unwrap_or(DEFAULT_MEMORY_CAPACITY)
    }

    /// Machine swap, bytes.
    #[must_use]
    pub(crate) fn swap_capacity(&self) -> i64 {
        self.swap_capacity.unwrap_or(0)
    }

    /// OS page size.
    #[must_use]
    pub(crate) fn page_size(&self) -> i64 {
        self.page_size
            .filter(|p| *p > 0)
            .unwrap_or(DEFAULT_PAGE_SIZE)
    }

    /// Host SELinux state.
    #[must_use]
    pub(crate) fn selinux(&self) -> bool {
        self.selinux_enabled.unwrap_or(false)
    }

    /// `cpuCFSQuota`.
    #[must_use]
    pub(crate) fn cpu_cfs_quota(&self) -> bool {
        self.kubelet.cpu_cfs_quota.unwrap_or(true)
    }

    /// `cpuCFSQuotaPeriod` in microseconds (100000 when absent or unreadable).
    #[must_use]
    pub(crate) fn cpu_cfs_quota_period_us(&self) -> i64 {
        self.kubelet
            .cpu_cfs_quota_period
            .as_deref()
            .and_then(crate::go::duration::parse_go_duration_us)
            .unwrap_or(100_000)
    }

    /// `seccompDefault`.
    #[must_use]
    pub(crate) fn seccomp_default(&self) -> bool {
        self.kubelet.seccomp_default.unwrap_or(false)
    }

    /// Seccomp profile root.
    #[must_use]
    pub(crate) fn seccomp_profile_root(&self) -> String {
        match &self.kubelet.seccomp_profile_root {
            Some(root) => root.clone(),
            None => join_path(self.root_dir(), "seccomp"),
        }
    }

    /// Swap behaviour string.
    #[must_use]
    pub(crate) fn memory_swap_behavior(&self) -> &str {
        self.kubelet.memory_swap_behavior.as_deref().unwrap_or("")
    }

    /// MemoryQoS throttling factor (none = no `memory.high`).
    #[must_use]
    pub(crate) fn memory_throttling_factor(&self) -> Option<f64> {
        self.kubelet.memory_throttling_factor
    }

    /// MemoryQoS reservation policy (`None` or `TieredReservation`).
    #[must_use]
    pub(crate) fn memory_reservation_policy(&self) -> &str {
        self.kubelet
            .memory_reservation_policy
            .as_deref()
            .unwrap_or("None")
    }

    /// `singleProcessOOMKill` as the code reads it (`ptr.Deref(v, true)`), after the
    /// start-up resolution of an absent value.
    #[must_use]
    pub(crate) fn single_process_oom_kill(&self) -> bool {
        match self.kubelet.single_process_oom_kill {
            None => !self.cgroup_v2(),
            Some(v) => v.unwrap_or(true),
        }
    }

    /// Whether the services lister has synced.
    #[must_use]
    pub(crate) fn services_synced(&self) -> bool {
        self.services_synced.unwrap_or(true)
    }

    /// The runtime handler's features. Without `runtimeHandlerFeatures`, user namespaces
    /// are NOT supported: a runtime that does not report them (containerd 1.6) silently
    /// ignores the user-namespace options and runs a `hostUsers: false` pod as real root,
    /// so only the runtime's CRI `Status` may turn them on. Recursive read-only mounts
    /// default to supported (a current containerd or CRI-O on a recent kernel).
    #[must_use]
    pub(crate) fn handler_features(&self) -> RuntimeHandlerFeatures {
        self.runtime_handler_features
            .unwrap_or(RuntimeHandlerFeatures {
                recursive_read_only_mounts: true,
                user_namespaces: false,
            })
    }

    /// Whether the CPU manager gave `container` exclusive CPUs.
    #[must_use]
    pub(crate) fn has_exclusive_cpus(&self, container: &str) -> bool {
        self.exclusive_cpus.get(container).copied().unwrap_or(false)
    }
}

/// Joins two path parts with one `/` (like Go's `filepath.Join` for clean inputs).
#[must_use]
pub(crate) fn join_path(a: &str, b: &str) -> String {
    let a = a.trim_end_matches('/');
    let b = b.trim_start_matches('/');
    if a.is_empty() {
        format!("/{b}")
    } else if b.is_empty() {
        a.to_string()
    } else {
        format!("{a}/{b}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_process_oom_kill_tri_state() {
        let absent: NodeContext =
            serde_json::from_str(r#"{"cgroupVersion":"v2"}"#).unwrap_or_default();
        assert!(!absent.single_process_oom_kill());
        let null: NodeContext = serde_json::from_str(
            r#"{"cgroupVersion":"v2","kubelet":{"singleProcessOOMKill":null}}"#,
        )
        .unwrap_or_default();
        assert!(null.single_process_oom_kill());
        let v1: NodeContext = serde_json::from_str(r#"{"cgroupVersion":"v1"}"#).unwrap_or_default();
        assert!(v1.single_process_oom_kill());
    }

    #[test]
    fn unknown_keys_are_rejected() {
        assert!(serde_json::from_str::<NodeContext>(r#"{"bogus":1}"#).is_err());
        assert!(serde_json::from_str::<NodeContext>(r#"{"kubelet":{"bogus":1}}"#).is_err());
    }
}
