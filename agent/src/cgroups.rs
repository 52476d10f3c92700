//! The node's pod cgroups, as the kubelet's container manager keeps them with
//! `--cgroups-per-qos` (the default) on the cgroupfs driver:
//!
//! * [`NodeCgroups::start`]: the node-allocatable root `kubepods` and its QoS tiers
//!   `burstable` and `besteffort` (`createNodeAllocatableCgroups`,
//!   `enforceNodeAllocatableCgroups`, `qosContainerManager.Start`);
//! * [`NodeCgroups::update_qos`]: the tiers' CPU shares from the active pods
//!   (`UpdateQOSCgroups`, which `SyncPod` calls before it makes a pod's cgroup);
//! * [`NodeCgroups::ensure_pod`]: the pod's cgroup before its sandbox
//!   (`podContainerManager.EnsureExists`), as the plan's `podCgroup` says;
//! * [`remove_pod_cgroup`]: the cgroup of a pod that is gone (`cleanupOrphanedPodCgroups`,
//!   `pod_container_manager_linux.go`); runc removes only the containers' own.
//!
//! What each cgroup gets is the engine's (`podplan_core::config::cgroups`); this module
//! makes the directories and writes the files. The pod's cgroup is where the engine's
//! sandbox config puts it (`linux.cgroupParent`), under the QoS class's cgroup:
//!
//! * cgroupfs: `kubepods/pod<uid>` (Guaranteed), `kubepods/burstable/pod<uid>`,
//!   `kubepods/besteffort/pod<uid>`;
//! * systemd: `kubepods.slice/kubepods-pod<uid_>.slice`,
//!   `kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid_>.slice` (`-` of the UID
//!   as `_`); with the systemd driver systemd owns the slices and the agent only removes
//!   what is left of them;
//!
//! in every controller's hierarchy on cgroup v1, in the unified one on v2.

use std::path::{Path, PathBuf};

use std::sync::Mutex;

use k8s_openapi::api::core::v1::Pod;
use podplan_core::config::cgroups::{
    cgroup_files, node_allocatable_config, qos_cgroup_names, qos_tiers, CgroupFile, PodCgroup,
    QosTiers, ResourceConfig,
};
use podplan_core::config::pod_resources::MilliList;
use podplan_core::features::FeatureGates;
use podplan_core::request::node::{CgroupDriver, CgroupVersion};

/// The v2 controllers the agent enables down to a cgroup it makes (those the parent offers).
const V2_CONTROLLERS: [&str; 6] = ["cpu", "cpuset", "memory", "pids", "hugetlb", "io"];

/// The node's cgroup tree the agent keeps (cgroupfs driver).
#[derive(Debug)]
pub struct NodeCgroups {
    root: PathBuf,
    version: CgroupVersion,
    /// The host's huge page sizes (`2MB`) when it has the hugetlb controller.
    page_sizes: Vec<String>,
    /// The feature gates the tiers are computed with.
    gates: FeatureGates,
    /// What the tiers were last computed from, and what was written.
    qos: Mutex<QosState>,
}

/// The QoS tiers last written, for which pods, and when they were computed.
#[derive(Debug, Default)]
struct QosState {
    tiers: Option<QosTiers>,
    uids: Vec<String>,
    computed: Option<std::time::Instant>,
}

/// How often the tiers are computed again for an unchanged set of pods
/// (`periodicQOSCgroupUpdateInterval`).
const QOS_UPDATE_INTERVAL: std::time::Duration = std::time::Duration::from_secs(60);

impl NodeCgroups {
    /// The tree under `root` (`/sys/fs/cgroup`); `None` for the systemd driver (systemd
    /// owns the slices; the kubelet talks to it over D-Bus, which the agent does not).
    #[must_use]
    pub fn new(
        root: &Path,
        driver: CgroupDriver,
        version: CgroupVersion,
        gates: FeatureGates,
    ) -> Option<Self> {
        if driver != CgroupDriver::Cgroupfs {
            return None;
        }
        let hugetlb = match version {
            CgroupVersion::V1 => root.join("hugetlb").is_dir(),
            CgroupVersion::V2 => std::fs::read_to_string(root.join("cgroup.controllers"))
                .is_ok_and(|c| c.split_whitespace().any(|w| w == "hugetlb")),
        };
        let page_sizes = if hugetlb {
            host_huge_page_sizes()
        } else {
            Vec::new()
        };
        Some(Self {
            root: root.to_path_buf(),
            version,
            page_sizes,
            gates,
            qos: Mutex::new(QosState::default()),
        })
    }

    /// The root `kubepods` with the node's allocatable (no reservations: the machine's
    /// CPUs, memory, process IDs and huge pages), then the QoS tiers for no pods.
    ///
    /// # Errors
    ///
    /// A cgroup that could not be made or written.
    pub fn start(&self) -> Result<(), String> {
        let (root, _, _) = qos_cgroup_names(CgroupDriver::Cgroupfs);
        self.ensure(root, &node_allocatable_config(&machine_allocatable()))?;
        self.update_qos(std::iter::empty())
    }

    /// The QoS tiers for the node's active pods (UID and pod), computed when the set of
    /// pods changed or a minute after the last time (as `UpdateQOSCgroups` runs when a
    /// pod's cgroup is made and every minute), written when they changed.
    ///
    /// # Errors
    ///
    /// A tier that could not be made or written.
    pub fn update_qos<'a>(
        &self,
        active_pods: impl IntoIterator<Item = (&'a str, &'a Pod)>,
    ) -> Result<(), String> {
        let pods: Vec<(&str, &Pod)> = active_pods.into_iter().collect();
        let mut state = super::sync::lock(&self.qos);
        let same_pods = state
            .uids
            .iter()
            .map(String::as_str)
            .eq(pods.iter().map(|p| p.0));
        if same_pods
            && state
                .computed
                .is_some_and(|t| t.elapsed() < QOS_UPDATE_INTERVAL)
        {
            return Ok(());
        }
        state.uids = pods.iter().map(|p| p.0.to_string()).collect();
        state.computed = Some(std::time::Instant::now());
        let tiers = qos_tiers(pods.iter().map(|p| p.1), &self.gates, &self.page_sizes);
        if state.tiers.as_ref() == Some(&tiers) {
            return Ok(());
        }
        let (_, burstable, best_effort) = qos_cgroup_names(CgroupDriver::Cgroupfs);
        self.ensure(burstable, &tiers.burstable)?;
        self.ensure(best_effort, &tiers.best_effort)?;
        tracing::debug!(
            burstable_shares = tiers.burstable.cpu_shares,
            "QoS cgroups updated"
        );
        state.tiers = Some(tiers);
        Ok(())
    }

    /// The pod's cgroup as the plan gives it: made when missing, configured.
    ///
    /// # Errors
    ///
    /// The cgroup could not be made or written (the kubelet's "unable to ensure pod
    /// container exists").
    pub fn ensure_pod(&self, cgroup: &PodCgroup) -> Result<(), String> {
        self.ensure(&cgroup.name, &cgroup.resources)
    }

    /// Makes the cgroup `name` (`/kubepods/burstable`) in every hierarchy and writes
    /// `config`'s files.
    fn ensure(&self, name: &str, config: &ResourceConfig) -> Result<(), String> {
        let relative = name.trim_start_matches('/');
        let files = cgroup_files(config, self.version, &self.page_sizes);
        match self.version {
            CgroupVersion::V2 => {
                let dir = self.root.join(relative);
                make_v2(&self.root, relative)?;
                write_files(&files, |_| Some(dir.clone()))
            }
            CgroupVersion::V1 => {
                for hierarchy in hierarchies(&self.root) {
                    make_v1(&hierarchy, relative)?;
                }
                write_files(&files, |controller| {
                    let h = controller_hierarchy(&self.root, controller)?;
                    Some(h.join(relative))
                })
            }
        }
    }
}

/// Writes each file in the directory `dir_of` gives for its controller (a controller the
/// host does not have is skipped, as libcontainer skips a missing subsystem).
fn write_files(
    files: &[CgroupFile],
    dir_of: impl Fn(&str) -> Option<PathBuf>,
) -> Result<(), String> {
    for f in files {
        let Some(dir) = dir_of(&f.controller) else {
            continue;
        };
        let path = dir.join(&f.file);
        if !path.exists() {
            continue;
        }
        std::fs::write(&path, &f.value)
            .map_err(|e| format!("writing {} to {}: {e}", f.value, path.display()))?;
    }
    Ok(())
}

/// The v1 hierarchies under `root`: its directories (a combined one such as
/// `cpu,cpuacct` once; the `cpu` and `cpuacct` symlinks to it are not directories).
fn hierarchies(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .map(|e| e.path())
        .collect()
}

/// The v1 hierarchy that holds `controller` (`root/cpu`, or a combined `cpu,cpuacct`).
fn controller_hierarchy(root: &Path, controller: &str) -> Option<PathBuf> {
    let direct = root.join(controller);
    if direct.is_dir() {
        return Some(direct);
    }
    hierarchies(root).into_iter().find(|h| {
        h.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.split(',').any(|c| c == controller))
    })
}

/// `mkdir -p` of `relative` in a v1 hierarchy; in the cpuset hierarchy each new level
/// gets its parent's CPUs and memory nodes (an empty cpuset admits no process).
fn make_v1(hierarchy: &Path, relative: &str) -> Result<(), String> {
    let mut dir = hierarchy.to_path_buf();
    for part in Path::new(relative).components() {
        let parent = dir.clone();
        dir.push(part);
        if dir.is_dir() {
            continue;
        }
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for file in ["cpuset.cpus", "cpuset.mems"] {
            let own = dir.join(file);
            let empty = std::fs::read_to_string(&own).map_or(true, |v| v.trim().is_empty());
            if empty && parent.join(file).exists() {
                if let Ok(v) = std::fs::read_to_string(parent.join(file)) {
                    std::fs::write(&own, v.trim())
                        .map_err(|e| format!("{}: {e}", own.display()))?;
                }
            }
        }
    }
    Ok(())
}

/// `mkdir -p` of `relative` in the unified hierarchy, enabling the controllers the agent
/// writes in each ancestor's `cgroup.subtree_control` (as libcontainer's fs2 does).
fn make_v2(root: &Path, relative: &str) -> Result<(), String> {
    let mut dir = root.to_path_buf();
    for part in Path::new(relative).components() {
        let offered = std::fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
        let control = dir.join("cgroup.subtree_control");
        for c in V2_CONTROLLERS {
            if offered.split_whitespace().any(|o| o == c) {
                // A controller that cannot be enabled here is left as it is.
                let _ = std::fs::write(&control, format!("+{c}"));
            }
        }
        dir.push(part);
        if !dir.is_dir() {
            std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
    }
    Ok(())
}

/// The machine's capacity as the kubelet's `internalCapacity` has it (cadvisor's machine
/// info): online CPUs, `MemTotal`, `kernel.pid_max`, and each huge page size's pages.
fn machine_allocatable() -> MilliList {
    let mut out = MilliList::new();
    if let Ok(online) = std::fs::read_to_string("/sys/devices/system/cpu/online") {
        out.insert("cpu".into(), i128::from(count_cpus(&online)) * 1000);
    }
    if let Some(kb) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|m| {
        m.lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<i128>().ok())
    }) {
        out.insert("memory".into(), kb * 1024 * 1000);
    }
    if let Some(max) = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .ok()
        .and_then(|v| v.trim().parse::<i128>().ok())
    {
        out.insert("pid".into(), max * 1000);
    }
    for (kb, dir) in huge_page_dirs() {
        let pages = std::fs::read_to_string(dir.join("nr_hugepages"))
            .ok()
            .and_then(|v| v.trim().parse::<i128>().ok())
            .unwrap_or(0);
        out.insert(
            format!("hugepages-{kb}Ki"),
            pages * i128::from(kb) * 1024 * 1000,
        );
    }
    out
}

/// `/sys/kernel/mm/hugepages/hugepages-<kB>kB` directories: (size in KiB, directory).
fn huge_page_dirs() -> Vec<(i64, PathBuf)> {
    std::fs::read_dir("/sys/kernel/mm/hugepages")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let kb = name
                .strip_prefix("hugepages-")?
                .strip_suffix("kB")?
                .parse()
                .ok()?;
            Some((kb, e.path()))
        })
        .collect()
}

/// The host's huge page sizes as cgroup files name them (`2MB`).
fn host_huge_page_sizes() -> Vec<String> {
    huge_page_dirs()
        .into_iter()
        .filter_map(|(kb, _)| {
            podplan_core::config::resources::huge_page_unit_size(kb.saturating_mul(1024))
        })
        .collect()
}

/// CPUs in a kernel CPU list (`0-3,6`).
fn count_cpus(list: &str) -> i64 {
    list.trim()
        .split(',')
        .filter(|r| !r.is_empty())
        .map(|r| match r.split_once('-') {
            Some((a, b)) => match (a.parse::<i64>(), b.parse::<i64>()) {
                (Ok(a), Ok(b)) if b >= a => b - a + 1,
                _ => 0,
            },
            None => i64::from(r.parse::<i64>().is_ok()),
        })
        .sum()
}

/// The pod's cgroup directories that may exist under `root` (`/sys/fs/cgroup`).
#[must_use]
pub fn pod_cgroup_candidates(root: &Path, driver: CgroupDriver, uid: &str) -> Vec<PathBuf> {
    let relative: Vec<PathBuf> = match driver {
        CgroupDriver::Systemd => {
            let u = uid.replace('-', "_");
            vec![
                PathBuf::from(format!("kubepods.slice/kubepods-pod{u}.slice")),
                PathBuf::from(format!(
                    "kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod{u}.slice"
                )),
                PathBuf::from(format!(
                    "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod{u}.slice"
                )),
            ]
        }
        _ => ["", "burstable/", "besteffort/"]
            .iter()
            .map(|qos| PathBuf::from(format!("kubepods/{qos}pod{uid}")))
            .collect(),
    };
    // v2: the unified hierarchy at the root; v1: one hierarchy per controller directory.
    let dirs = if root.join("cgroup.controllers").exists() {
        vec![root.to_path_buf()]
    } else {
        hierarchies(root)
    };
    let mut out = Vec::new();
    for h in &dirs {
        for r in &relative {
            out.push(h.join(r));
        }
    }
    out
}

/// Removes the pod's cgroups (their child cgroups first); what does not exist is fine.
///
/// # Errors
///
/// A cgroup that could not be removed (still has processes).
pub fn remove_pod_cgroup(root: &Path, driver: CgroupDriver, uid: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    for dir in pod_cgroup_candidates(root, driver, uid) {
        if !dir.is_dir() {
            continue;
        }
        remove_tree(&dir, &mut errors);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// `rmdir` depth first (a cgroup directory is removed with rmdir, never its files).
fn remove_tree(dir: &Path, errors: &mut Vec<String>) {
    for child in std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
    {
        if child.file_type().is_ok_and(|t| t.is_dir()) {
            remove_tree(&child.path(), errors);
        }
    }
    match std::fs::remove_dir(dir) {
        Ok(()) => tracing::debug!(cgroup = %dir.display(), "removed"),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => errors.push(format!("{}: {e}", dir.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_per_driver_and_version() {
        let v2 = tempfile::tempdir().unwrap();
        std::fs::write(v2.path().join("cgroup.controllers"), "cpu memory").unwrap();
        let c = pod_cgroup_candidates(v2.path(), CgroupDriver::Cgroupfs, "a-b");
        assert_eq!(c.len(), 3);
        assert!(c[1].ends_with("kubepods/burstable/poda-b"));
        let s = pod_cgroup_candidates(v2.path(), CgroupDriver::Systemd, "a-b");
        assert!(s[2].ends_with(
            "kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-poda_b.slice"
        ));
        let v1 = tempfile::tempdir().unwrap();
        for controller in ["cpu", "memory"] {
            std::fs::create_dir_all(
                v1.path()
                    .join(controller)
                    .join("kubepods/besteffort/podu1/c1"),
            )
            .unwrap();
        }
        remove_pod_cgroup(v1.path(), CgroupDriver::Cgroupfs, "u1").unwrap();
        assert!(!v1.path().join("cpu/kubepods/besteffort/podu1").exists());
        assert!(v1.path().join("memory/kubepods/besteffort").exists());
    }
    /// A v1 tree as the kernel shows it after a mkdir: the controller files exist.
    fn v1_files(root: &Path, relative: &str) {
        for (controller, files) in [
            (
                "cpu,cpuacct",
                &["cpu.shares", "cpu.cfs_period_us", "cpu.cfs_quota_us"][..],
            ),
            ("memory", &["memory.limit_in_bytes"][..]),
            ("pids", &["pids.max"][..]),
        ] {
            let dir = root.join(controller).join(relative);
            std::fs::create_dir_all(&dir).unwrap();
            for f in files {
                std::fs::write(dir.join(f), "").unwrap();
            }
        }
    }

    #[test]
    fn v1_pod_cgroup_gets_the_engines_values_in_each_hierarchy() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("cpuset")).unwrap();
        std::fs::write(root.path().join("cpuset/cpuset.cpus"), "0-1\n").unwrap();
        std::fs::write(root.path().join("cpuset/cpuset.mems"), "0\n").unwrap();
        std::fs::create_dir_all(root.path().join("cpu,cpuacct")).unwrap();
        std::os::unix::fs::symlink("cpu,cpuacct", root.path().join("cpu")).unwrap();
        let cgroups = NodeCgroups::new(
            root.path(),
            CgroupDriver::Cgroupfs,
            CgroupVersion::V1,
            FeatureGates::default(),
        )
        .unwrap();
        v1_files(root.path(), "kubepods/podu1");
        let pod = PodCgroup {
            name: "/kubepods/podu1".into(),
            resources: ResourceConfig {
                cpu_shares: Some(512),
                cpu_quota: Some(50_000),
                cpu_period: Some(100_000),
                memory: Some(64 << 20),
                pids_limit: Some(100),
                ..ResourceConfig::default()
            },
        };
        cgroups.ensure_pod(&pod).unwrap();
        let read = |p: &str| std::fs::read_to_string(root.path().join(p)).unwrap();
        assert_eq!(read("cpu/kubepods/podu1/cpu.shares"), "512");
        assert_eq!(read("cpu,cpuacct/kubepods/podu1/cpu.cfs_quota_us"), "50000");
        assert_eq!(
            read("memory/kubepods/podu1/memory.limit_in_bytes"),
            "67108864"
        );
        assert_eq!(read("pids/kubepods/podu1/pids.max"), "100");
        // The cpuset levels made here got their parent's CPUs and memory nodes.
        assert_eq!(read("cpuset/kubepods/cpuset.cpus"), "0-1");
        assert_eq!(read("cpuset/kubepods/podu1/cpuset.mems"), "0");
    }

    #[test]
    fn qos_tiers_are_written_when_they_change() {
        let root = tempfile::tempdir().unwrap();
        for tier in ["kubepods/burstable", "kubepods/besteffort"] {
            v1_files(root.path(), tier);
        }
        let cgroups = NodeCgroups::new(
            root.path(),
            CgroupDriver::Cgroupfs,
            CgroupVersion::V1,
            FeatureGates::default(),
        )
        .unwrap();
        let burstable: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "b", "uid": "b"},
            "spec": {"containers": [{"name": "a", "image": "i",
                "resources": {"requests": {"cpu": "500m"}}}]}
        }))
        .unwrap();
        cgroups.update_qos([("b", &burstable)]).unwrap();
        let shares = |tier: &str| {
            std::fs::read_to_string(
                root.path()
                    .join(format!("cpu,cpuacct/kubepods/{tier}/cpu.shares")),
            )
            .unwrap()
        };
        assert_eq!(shares("burstable"), "512");
        assert_eq!(shares("besteffort"), "2");
        cgroups.update_qos(std::iter::empty()).unwrap();
        assert_eq!(shares("burstable"), "2");
    }

    #[test]
    fn v2_enables_controllers_down_to_the_pod() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("cgroup.controllers"),
            "cpuset cpu io memory pids",
        )
        .unwrap();
        let cgroups = NodeCgroups::new(
            root.path(),
            CgroupDriver::Cgroupfs,
            CgroupVersion::V2,
            FeatureGates::default(),
        )
        .unwrap();
        let dir = root.path().join("kubepods/besteffort/podu2");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("cpu.weight"), "").unwrap();
        let pod = PodCgroup {
            name: "/kubepods/besteffort/podu2".into(),
            resources: ResourceConfig {
                cpu_shares: Some(2),
                ..ResourceConfig::default()
            },
        };
        cgroups.ensure_pod(&pod).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("cpu.weight")).unwrap(),
            "1"
        );
        // The root offers controllers: the last one enabled is what the fake file holds.
        assert!(
            std::fs::read_to_string(root.path().join("cgroup.subtree_control"))
                .unwrap()
                .starts_with('+')
        );
        assert!(NodeCgroups::new(
            root.path(),
            CgroupDriver::Systemd,
            CgroupVersion::V2,
            FeatureGates::default()
        )
        .is_none());
        assert_eq!(count_cpus("0-3,6\n"), 5);
    }
}
