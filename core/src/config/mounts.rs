//! Mounts and devices (spec §6): volume mounts with subPath, propagation and recursive
//! read-only; `/etc/hosts`; the termination-message mount; block volumes; CRI conversion.

use std::cell::OnceCell;

use k8s_openapi::api::core::v1::{Container, Pod, Volume, VolumeMount};
use serde::{Deserialize, Serialize};

use crate::cri::{Device, ImageSpec, Mount, MountPropagation};
use crate::features::{FeatureGates, Gate};

use super::errors::ConfigError;
use super::expand::{check_sub_path, mount_sub_path, EnvLookup};
use super::paths::{clean, join_all};
use crate::request::node::{NodeContext, VolumeInfo};

/// Container path of the managed hosts file.
pub(crate) const ETC_HOSTS_PATH: &str = "/etc/hosts";
/// Name of the managed hosts-file mount.
pub(crate) const ETC_HOSTS_MOUNT_NAME: &str = "k8s-managed-etc-hosts";

/// A mount as the kubelet hands it to the runtime manager (`kubecontainer.Mount`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct RunMount {
    /// Volume name.
    pub name: String,
    /// Path in the container.
    pub container_path: String,
    /// Path on the host.
    pub host_path: String,
    /// Read-only.
    pub read_only: bool,
    /// The volume wants SELinux relabelling (sent only if SELinux is on).
    #[serde(rename = "selinuxRelabel")]
    pub selinux_relabel: bool,
    /// Propagation.
    pub propagation: MountPropagation,
    /// Recursive read-only.
    pub recursive_read_only: bool,
    /// Image volume.
    pub image: Option<ImageSpec>,
    /// Sub path inside the image volume.
    pub image_sub_path: String,
}

/// The kubelet's pod directory, `<rootDir>/pods/<uid>`.
#[must_use]
pub(crate) fn pod_dir(pod: &Pod, node: &NodeContext) -> String {
    join_all(&[
        node.root_dir(),
        "pods",
        pod.metadata.uid.as_deref().unwrap_or_default(),
    ])
}

fn plugin_dir(v: &Volume) -> Option<&'static str> {
    Some(if v.empty_dir.is_some() {
        "kubernetes.io~empty-dir"
    } else if v.config_map.is_some() {
        "kubernetes.io~configmap"
    } else if v.secret.is_some() {
        "kubernetes.io~secret"
    } else if v.projected.is_some() {
        "kubernetes.io~projected"
    } else if v.downward_api.is_some() {
        "kubernetes.io~downward-api"
    } else if v.nfs.is_some() {
        "kubernetes.io~nfs"
    } else if v.persistent_volume_claim.is_some()
        || v.csi.is_some()
        || v.ephemeral.is_some()
        || migrated_to_csi(v)
    {
        "kubernetes.io~csi"
    } else if v.iscsi.is_some() {
        "kubernetes.io~iscsi"
    } else if v.fc.is_some() {
        "kubernetes.io~fc"
    } else if v.git_repo.is_some() {
        "kubernetes.io~git-repo"
    } else {
        return removed_plugin_dir(v);
    })
}

/// In-tree sources whose inline volumes the kubelet mounts through their CSI driver
/// (CSI migration, complete in 1.37: `pkg/volume/csimigration`), at the CSI plugin's
/// pod directory `volumes/kubernetes.io~csi/<volume>/mount`.
fn migrated_to_csi(v: &Volume) -> bool {
    v.aws_elastic_block_store.is_some()
        || v.azure_disk.is_some()
        || v.azure_file.is_some()
        || v.cinder.is_some()
        || v.gce_persistent_disk.is_some()
        || v.vsphere_volume.is_some()
        || v.portworx_volume.is_some()
}

/// Sources whose in-tree plugins are gone (cephfs, rbd, glusterfs, scaleIO, storageos,
/// quobyte, flocker, photonPersistentDisk): the API still accepts them, and the pod
/// directory is the one their plugin used (`volumes/kubernetes.io~<plugin>/<volume>`).
fn removed_plugin_dir(v: &Volume) -> Option<&'static str> {
    Some(if v.cephfs.is_some() {
        "kubernetes.io~cephfs"
    } else if v.rbd.is_some() {
        "kubernetes.io~rbd"
    } else if v.glusterfs.is_some() {
        "kubernetes.io~glusterfs"
    } else if v.scale_io.is_some() {
        "kubernetes.io~scaleio"
    } else if v.storageos.is_some() {
        "kubernetes.io~storageos"
    } else if v.quobyte.is_some() {
        "kubernetes.io~quobyte"
    } else if v.flocker.is_some() {
        "kubernetes.io~flocker"
    } else if v.photon_persistent_disk.is_some() {
        "kubernetes.io~photon-pd"
    } else {
        return None;
    })
}

/// The `readOnly` of a source other than the ones [`VolumeLookup::info`] reads itself
/// (the mounter's `GetAttributes().ReadOnly`).
fn source_read_only(v: &Volume) -> bool {
    let flags = [
        v.aws_elastic_block_store.as_ref().and_then(|s| s.read_only),
        v.azure_disk.as_ref().and_then(|s| s.read_only),
        v.azure_file.as_ref().and_then(|s| s.read_only),
        v.cinder.as_ref().and_then(|s| s.read_only),
        v.gce_persistent_disk.as_ref().and_then(|s| s.read_only),
        v.portworx_volume.as_ref().and_then(|s| s.read_only),
        v.iscsi.as_ref().and_then(|s| s.read_only),
        v.fc.as_ref().and_then(|s| s.read_only),
        v.flex_volume.as_ref().and_then(|s| s.read_only),
        v.cephfs.as_ref().and_then(|s| s.read_only),
        v.rbd.as_ref().and_then(|s| s.read_only),
        v.glusterfs.as_ref().and_then(|s| s.read_only),
        v.scale_io.as_ref().and_then(|s| s.read_only),
        v.storageos.as_ref().and_then(|s| s.read_only),
        v.quobyte.as_ref().and_then(|s| s.read_only),
    ];
    flags.into_iter().any(|f| f == Some(true))
}

/// The mounted volume: the `node.volumes` entry, or the volume manager's standard
/// location for a volume the pod declares (`None` when the pod has no such volume).
#[must_use]
pub(crate) fn volume_info(pod: &Pod, name: &str, node: &NodeContext) -> Option<VolumeInfo> {
    VolumeLookup::new(pod, node).info(name)
}

/// [`volume_info`] for several volumes of one pod: the pod directory is built once.
pub(crate) struct VolumeLookup<'a> {
    pod: &'a Pod,
    node: &'a NodeContext,
    pod_dir: OnceCell<String>,
}

impl<'a> VolumeLookup<'a> {
    /// Lookups for `pod` on `node`.
    #[must_use]
    pub(crate) fn new(pod: &'a Pod, node: &'a NodeContext) -> Self {
        Self {
            pod,
            node,
            pod_dir: OnceCell::new(),
        }
    }

    fn pod_dir(&self) -> &str {
        self.pod_dir.get_or_init(|| pod_dir(self.pod, self.node))
    }

    /// [`volume_info`] of the volume `name`.
    #[must_use]
    pub(crate) fn info(&self, name: &str) -> Option<VolumeInfo> {
        if let Some(v) = self.node.volumes.get(name) {
            return Some(v.clone());
        }
        let vol = self
            .pod
            .spec
            .as_ref()?
            .volumes
            .as_ref()?
            .iter()
            .find(|v| v.name == name)?;
        if let Some(img) = &vol.image {
            return Some(VolumeInfo {
                image: Some(img.reference.clone().unwrap_or_default()),
                read_only: true,
                ..VolumeInfo::default()
            });
        }
        if let Some(hp) = &vol.host_path {
            return Some(VolumeInfo {
                host_path: hp.path.clone(),
                ..VolumeInfo::default()
            });
        }
        // A FlexVolume's pod directory is named after its driver, escaped
        // (`utilstrings.EscapeQualifiedName`: `vendor/driver` → `vendor~driver`).
        let flex = vol.flex_volume.as_ref().map(|f| f.driver.replace('/', "~"));
        let plugin = match flex.as_deref() {
            Some(driver) => driver,
            None => plugin_dir(vol)?,
        };
        let managed_ro = vol.config_map.is_some()
            || vol.secret.is_some()
            || vol.projected.is_some()
            || vol.downward_api.is_some();
        let relabel = managed_ro || vol.empty_dir.is_some();
        let base = join_all(&[self.pod_dir(), "volumes", plugin, name]);
        let host_path = if plugin == "kubernetes.io~csi" {
            join_all(&[&base, "mount"])
        } else {
            base
        };
        let pvc_ro = vol
            .persistent_volume_claim
            .as_ref()
            .and_then(|p| p.read_only)
            == Some(true);
        let block_device_path = vol
            .persistent_volume_claim
            .as_ref()
            .map(|_| join_all(&[self.pod_dir(), "volumeDevices", "kubernetes.io~csi", name]));
        let source_ro =
            vol.persistent_volume_claim.is_none() && vol.nfs.is_none() && source_read_only(vol);
        Some(VolumeInfo {
            host_path,
            read_only: managed_ro || pvc_ro || source_ro,
            selinux_relabel: relabel,
            block_device_path,
            image: None,
        })
    }
}

fn translate_propagation(mode: Option<&str>) -> Result<MountPropagation, ConfigError> {
    match mode {
        None | Some("None") => Ok(MountPropagation::Private),
        Some("HostToContainer") => Ok(MountPropagation::HostToContainer),
        Some("Bidirectional") => Ok(MountPropagation::Bidirectional),
        Some(other) => Err(ConfigError::MountPropagation(other.to_string())),
    }
}

/// `resolveRecursiveReadOnly`.
fn resolve_rro(m: &VolumeMount, runtime_supports: bool) -> Result<bool, ConfigError> {
    let mode = match m.recursive_read_only.as_deref() {
        None | Some("Disabled") => return Ok(false),
        Some(mode) => mode,
    };
    let fail = |msg: String| Err(ConfigError::RecursiveReadOnly(msg));
    if m.read_only != Some(true) {
        return fail(format!(
            "volume {:?} requested recursive read-only mode, but it is not read-only",
            m.name
        ));
    }
    if let Some(p) = m.mount_propagation.as_deref().filter(|p| *p != "None") {
        return fail(format!(
            "volume {:?} requested recursive read-only mode, but it is not compatible with propagation {p:?}",
            m.name
        ));
    }
    match mode {
        "IfPossible" => Ok(runtime_supports),
        "Enabled" if runtime_supports => Ok(true),
        "Enabled" => fail(format!(
            "volume {:?} requested recursive read-only mode, but it is not supported by the runtime",
            m.name
        )),
        other => fail(format!("unknown recursive read-only mode {other:?}")),
    }
}

/// `shouldMountHostsFile` (Linux): the kubelet-managed `/etc/hosts` is mounted once the
/// pod has an IP, and always for host-network pods (1.37; before, host-network pods
/// without reported IPs got no hosts mount). A container that mounts a volume at
/// `/etc/hosts` itself gets none (checked in [`make_mounts`]).
#[must_use]
pub(crate) fn should_mount_hosts_file(pod: &Pod, pod_ips: &[String]) -> bool {
    !pod_ips.is_empty() || pod.spec.as_ref().and_then(|s| s.host_network) == Some(true)
}

/// `makeMounts` (kubelet side): the container's volume mounts, then `/etc/hosts`.
pub fn make_mounts(
    pod: &Pod,
    c: &Container,
    pod_ips: &[String],
    env: &(impl EnvLookup + ?Sized),
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<Vec<RunMount>, ConfigError> {
    let mut mount_hosts = should_mount_hosts_file(pod, pod_ips);
    let supports_rro = node.handler_features().recursive_read_only_mounts;
    let mut out = Vec::new();
    let volumes = VolumeLookup::new(pod, node);
    for (i, m) in c.volume_mounts.iter().flatten().enumerate() {
        mount_hosts = mount_hosts && m.mount_path != ETC_HOSTS_PATH;
        let not_found = || ConfigError::VolumeNotFound {
            volume: m.name.clone(),
            container: c.name.clone(),
        };
        let vol = volumes.info(&m.name).ok_or_else(not_found)?;
        if let Some(image) = vol
            .image
            .as_ref()
            .filter(|_| gates.enabled(Gate::ImageVolume))
        {
            let sub_path = m.sub_path.clone().unwrap_or_default();
            check_sub_path(&sub_path)?;
            out.push(RunMount {
                name: m.name.clone(),
                container_path: m.mount_path.clone(),
                image: Some(ImageSpec {
                    image: image.clone(),
                    ..ImageSpec::default()
                }),
                image_sub_path: sub_path,
                ..RunMount::default()
            });
            continue;
        }
        if vol.image.is_some() {
            return Err(not_found());
        }
        let sub_path = mount_sub_path(m, env)?;
        let mut host_path = vol.host_path.clone();
        if !sub_path.is_empty() {
            check_sub_path(&sub_path)?;
            host_path = node
                .sub_path_host_paths
                .get(&format!("{}/{i}", c.name))
                .cloned()
                .unwrap_or_else(|| {
                    join_all(&[
                        &pod_dir(pod, node),
                        "volume-subpaths",
                        &m.name,
                        &c.name,
                        &i.to_string(),
                    ])
                });
        }
        let container_path = if m.mount_path.starts_with('/') {
            m.mount_path.clone()
        } else {
            clean(&format!("/{}", m.mount_path))
        };
        let propagation = translate_propagation(m.mount_propagation.as_deref())?;
        let rro = resolve_rro(m, supports_rro)?;
        if rro && !gates.enabled(Gate::RecursiveReadOnlyMounts) {
            return Err(ConfigError::RecursiveReadOnly(
                "recursive read-only mount needs feature gate \"RecursiveReadOnlyMounts\" to be enabled"
                    .into(),
            ));
        }
        out.push(RunMount {
            name: m.name.clone(),
            container_path,
            host_path,
            read_only: m.read_only == Some(true) || vol.read_only,
            selinux_relabel: vol.selinux_relabel,
            propagation,
            recursive_read_only: rro,
            image: None,
            image_sub_path: String::new(),
        });
    }
    if mount_hosts {
        out.push(RunMount {
            name: ETC_HOSTS_MOUNT_NAME.to_string(),
            container_path: ETC_HOSTS_PATH.to_string(),
            host_path: join_all(&[&pod_dir(pod, node), "etc-hosts"]),
            read_only: false,
            selinux_relabel: true,
            ..RunMount::default()
        });
    }
    Ok(out)
}

/// `makeBlockVolumes`: devices for `volumeDevices`.
pub(crate) fn block_devices(
    pod: &Pod,
    c: &Container,
    node: &NodeContext,
) -> Result<Vec<Device>, ConfigError> {
    let mut out = Vec::new();
    for d in c.volume_devices.iter().flatten() {
        if !d.device_path.starts_with('/') {
            return Err(ConfigError::RelativeDevicePath(d.device_path.clone()));
        }
        let vol = volume_info(pod, &d.name, node);
        let Some((vol, link)) = vol.and_then(|v| v.block_device_path.clone().map(|p| (v, p)))
        else {
            return Err(ConfigError::BlockVolumeNotFound {
                volume: d.name.clone(),
                container: c.name.clone(),
            });
        };
        out.push(Device {
            container_path: d.device_path.clone(),
            host_path: link,
            permissions: if vol.read_only { "r" } else { "mrw" }.to_string(),
        });
    }
    Ok(out)
}

/// The per-container directory for termination-log files.
#[must_use]
pub(crate) fn pod_container_dir(pod: &Pod, c: &Container, node: &NodeContext) -> String {
    join_all(&[&pod_dir(pod, node), "containers", &c.name])
}

/// `makeMounts` (runtime-manager side): CRI mounts from the run options (their paths move
/// into the CRI mounts), then the termination-message mount.
pub(crate) fn cri_mounts_from(
    mounts: Vec<RunMount>,
    c: &Container,
    pod_container_dir: &str,
    termination_log_id: &str,
    selinux_enabled: bool,
) -> Vec<Mount> {
    let mut out: Vec<Mount> = mounts
        .into_iter()
        .map(|m| Mount {
            container_path: m.container_path,
            host_path: m.host_path,
            readonly: m.read_only,
            selinux_relabel: m.selinux_relabel && selinux_enabled,
            propagation: m.propagation,
            uid_mappings: Vec::new(),
            gid_mappings: Vec::new(),
            recursive_read_only: m.recursive_read_only,
            image: m.image,
            image_sub_path: m.image_sub_path,
        })
        .collect();
    let path = c.termination_message_path.as_deref().unwrap_or_default();
    if !pod_container_dir.is_empty() && !path.is_empty() {
        out.push(Mount {
            host_path: join_all(&[pod_container_dir, termination_log_id]),
            container_path: clean(&format!("/{path}")),
            selinux_relabel: selinux_enabled,
            ..Mount::default()
        });
    }
    out
}
