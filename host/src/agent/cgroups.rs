//! Pod cgroups after the pod is removed: the kubelet's pod container manager removes the
//! cgroup of a pod that is gone (`cleanupOrphanedPodCgroups`, `pod_container_manager_linux.go`);
//! runc removes only the containers' own. The pod's cgroup is where the engine's sandbox
//! config puts it (`linux.cgroupParent`), under the QoS class's cgroup:
//!
//! * cgroupfs: `kubepods/pod<uid>` (Guaranteed), `kubepods/burstable/pod<uid>`,
//!   `kubepods/besteffort/pod<uid>`;
//! * systemd: `kubepods.slice/kubepods-pod<uid_>.slice`,
//!   `kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid_>.slice` (`-` of the UID
//!   as `_`);
//!
//! in every controller's hierarchy on cgroup v1, in the unified one on v2.

use std::path::{Path, PathBuf};

use podplan_core::request::node::CgroupDriver;

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
    let mut hierarchies = vec![root.to_path_buf()];
    if !root.join("cgroup.controllers").exists() {
        hierarchies = std::fs::read_dir(root)
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
    }
    let mut out = Vec::new();
    for h in &hierarchies {
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
}
