//! Errors that stop a sandbox's or a container's creation, with the kubelet's messages.

use thiserror::Error;

/// Reason the kubelet reports when a container's config cannot be generated.
pub(crate) const CREATE_CONTAINER_CONFIG_ERROR: &str = "CreateContainerConfigError";
/// Reason the kubelet reports when the sandbox config cannot be generated.
pub(crate) const CREATE_POD_SANDBOX_ERROR: &str = "CreatePodSandboxError";

/// Why a config could not be generated. `Display` is the kubelet's `err.Error()` text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ConfigError {
    /// `spec.enableServiceLinks` is nil.
    #[error("nil pod.spec.enableServiceLinks encountered, cannot construct envvars")]
    NilEnableServiceLinks,
    /// The service lister has not synced (non-static pod).
    #[error("services have not yet been read at least once, cannot construct envvars")]
    ServicesNotSynced,
    /// A referenced object does not exist (`configmap "x" not found`).
    #[error("{kind} {name:?} not found")]
    NotFound {
        /// `configmap` or `secret`.
        kind: &'static str,
        /// Object name.
        name: String,
    },
    /// A referenced key does not exist.
    #[error("couldn't find key {key} in {kind} {namespace}/{name}")]
    MissingKey {
        /// `ConfigMap` or `Secret`.
        kind: &'static str,
        /// Key.
        key: String,
        /// Namespace.
        namespace: String,
        /// Object name.
        name: String,
    },
    /// A `fileKeyRef` could not be resolved (EnvFiles).
    #[error("{0}")]
    EnvFile(String),
    /// A `fieldRef` path the kubelet does not support.
    #[error("{0}")]
    FieldPath(String),
    /// An unsupported `resourceFieldRef` resource.
    #[error("unsupported container resource : {0}")]
    UnsupportedResource(String),
    /// `resourceFieldRef.containerName` names no container.
    #[error("container {0} not found")]
    ContainerNotFound(String),
    /// A resource value could not be read.
    #[error("{0}")]
    Quantity(String),
    /// Invalid hostname, subdomain, hostnameOverride or FQDN.
    #[error("{0}")]
    Hostname(String),
    /// A volume is not mounted.
    #[error("cannot find volume {volume:?} to mount into container {container:?}")]
    VolumeNotFound {
        /// Volume name.
        volume: String,
        /// Container name.
        container: String,
    },
    /// A block volume cannot be passed.
    #[error("cannot find volume {volume:?} to pass into container {container:?}")]
    BlockVolumeNotFound {
        /// Volume name.
        volume: String,
        /// Container name.
        container: String,
    },
    /// `volumeDevices[].devicePath` is relative.
    #[error("error DevicePath `{0}` must be an absolute path")]
    RelativeDevicePath(String),
    /// `subPathExpr` references a missing or empty variable.
    #[error("missing value for {0}")]
    MissingSubPathValue(String),
    /// An absolute subPath.
    #[error("error SubPath `{0}` must not be an absolute path")]
    AbsoluteSubPath(String),
    /// A subPath with `..`.
    #[error("unable to provision SubPath `{path}`: {reason}")]
    BackstepSubPath {
        /// The subPath.
        path: String,
        /// Why.
        reason: String,
    },
    /// An unknown mount propagation.
    #[error("invalid MountPropagation mode: {0:?}")]
    MountPropagation(String),
    /// A recursive read-only mount that cannot be honoured.
    #[error("failed to resolve recursive read-only mode: {0}")]
    RecursiveReadOnly(String),
    /// runAsNonRoot violated or unverifiable.
    #[error("{0}")]
    NonRoot(String),
    /// Localhost seccomp profile without a name.
    #[error("localhostProfile must be set if seccompProfile type is Localhost.")]
    SeccompLocalhostMissing,
    /// Localhost AppArmor profile without a name.
    #[error("missing localhost apparmor profile name")]
    AppArmorLocalhostMissing,
    /// Unknown AppArmor profile type.
    #[error("unknown apparmor profile type: {0:?}")]
    AppArmorType(String),
    /// Unknown supplementalGroupsPolicy.
    #[error("unsupported supplementalGroupsPolicy: {0}")]
    SupplementalGroupsPolicy(String),
    /// An ephemeral container's target has no runtime status.
    #[error("unable to find target container {0}")]
    TargetNotFound(String),
    /// The pod has no spec or the container index is out of range.
    #[error("{0}")]
    Input(String),
}

/// A sandbox config failure as `SyncPod` reports it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("Failed to generate sandbox config for pod {pod:?}: {cause}")]
pub(crate) struct SandboxConfigError {
    /// `<name>_<namespace>(<uid>)`.
    pub pod: String,
    /// The generator's error.
    pub cause: ConfigError,
}
