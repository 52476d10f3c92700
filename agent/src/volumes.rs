//! The pod's emptyDir volumes on the node, and the pod's files after its removal.
//!
//! * emptyDir (`pkg/volume/emptydir/empty_dir.go`, medium default): the directory
//!   `<root-dir>/pods/<uid>/volumes/kubernetes.io~empty-dir/<name>`, made before the first
//!   container starts with mode 0777 (`setupDir`: every user of the pod can write it, as
//!   containerd would otherwise make a missing bind source 0755 root); when the pod sets
//!   `securityContext.fsGroup`, `SetVolumeOwnership` (`pkg/volume/volume_linux.go`) gives
//!   it to that group, with `rw` for the group and the setgid bit, so that files made in
//!   it belong to the group. A volume without a source is an emptyDir (API defaults).
//!   `medium: Memory` gets a directory too (no tmpfs).
//! * After a pod is removed, its directory (`<root-dir>/pods/<uid>`: volumes, hosts file,
//!   container files) and its log directory (`<pod-logs-dir>/<ns>_<name>_<uid>`) are
//!   removed, as the kubelet's housekeeping does (`cleanupOrphanedPodDirs`, the log
//!   manager): a pod made again with the same UID starts with empty volumes and logs.

use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::{Pod, Volume};

/// The emptyDir plugin's directory name.
const EMPTY_DIR_PLUGIN: &str = "kubernetes.io~empty-dir";

fn is_empty_dir(v: &Volume) -> bool {
    if v.empty_dir.is_some() {
        return true;
    }
    // API defaults: a volume without a source is an emptyDir.
    let value = serde_json::to_value(v).unwrap_or_default();
    value
        .as_object()
        .is_some_and(|o| o.keys().all(|k| k == "name"))
}

/// The pod's directory: `<root_dir>/pods/<uid>`.
#[must_use]
pub fn pod_dir(root_dir: &str, uid: &str) -> PathBuf {
    Path::new(root_dir).join("pods").join(uid)
}

/// The pod's log directory: `<pod_logs_dir>/<ns>_<name>_<uid>`.
#[must_use]
pub fn pod_logs_dir(pod_logs_dir: &str, namespace: &str, name: &str, uid: &str) -> PathBuf {
    Path::new(pod_logs_dir).join(format!("{namespace}_{name}_{uid}"))
}

/// Makes the emptyDir volumes of `pod` under `root_dir` that do not exist yet.
///
/// # Errors
///
/// A directory that cannot be made or given its mode or group (the message names it).
pub fn set_up_empty_dirs(pod: &Pod, root_dir: &str) -> Result<(), String> {
    let Some(spec) = pod.spec.as_ref() else {
        return Ok(());
    };
    let uid = pod.metadata.uid.as_deref().unwrap_or_default();
    let fs_group = spec
        .security_context
        .as_ref()
        .and_then(|s| s.fs_group)
        .and_then(|g| u32::try_from(g).ok());
    let base = pod_dir(root_dir, uid)
        .join("volumes")
        .join(EMPTY_DIR_PLUGIN);
    for v in spec.volumes.iter().flatten().filter(|v| is_empty_dir(v)) {
        let dir = base.join(&v.name);
        if dir.is_dir() {
            continue;
        }
        set_up(&dir, fs_group)
            .map_err(|e| format!("emptyDir {:?} at {}: {e}", v.name, dir.display()))?;
    }
    Ok(())
}

#[cfg(unix)]
fn set_up(dir: &Path, fs_group: Option<u32>) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir)?;
    // `setupDir`: 0777, whatever the umask.
    let mut mode = 0o777;
    if let Some(gid) = fs_group {
        // `SetVolumeOwnership`: the group, and for a directory rwx for it plus setgid.
        std::os::unix::fs::chown(dir, None, Some(gid))?;
        mode |= 0o2770;
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_up(dir: &Path, _fs_group: Option<u32>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Removes a removed pod's directory and log directory (what is missing is fine).
///
/// # Errors
///
/// What could not be removed.
pub fn clean_up(dirs: &[PathBuf]) -> Result<(), String> {
    let mut errors = Vec::new();
    for dir in dirs {
        match std::fs::remove_dir_all(dir) {
            Ok(()) => tracing::debug!(dir = %dir.display(), "removed"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => errors.push(format!("{}: {e}", dir.display())),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_dirs_are_world_writable_and_owned_by_the_fs_group() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let root = tempfile::tempdir().unwrap();
        let gid = std::fs::metadata(root.path()).unwrap().gid();
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"uid": "u1"},
            "spec": {"securityContext": {"fsGroup": gid},
                     "volumes": [{"name": "scratch", "emptyDir": {}}, {"name": "bare"},
                                 {"name": "host", "hostPath": {"path": "/tmp"}}],
                     "containers": []}
        }))
        .unwrap();
        let dir = root.path().display().to_string();
        set_up_empty_dirs(&pod, &dir).unwrap();
        let base = root.path().join("pods/u1/volumes/kubernetes.io~empty-dir");
        for name in ["scratch", "bare"] {
            let meta = std::fs::metadata(base.join(name)).unwrap();
            assert_eq!(meta.permissions().mode() & 0o7777, 0o2777, "{name}");
            assert_eq!(meta.gid(), gid);
        }
        assert!(!base.join("host").exists());
        clean_up(&[pod_dir(&dir, "u1")]).unwrap();
        assert!(!root.path().join("pods/u1").exists());
    }
}
