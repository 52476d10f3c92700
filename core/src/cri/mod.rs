//! CRI `runtime.v1` messages in proto3-JSON form (`crictl inspect` style): lowerCamelCase
//! field names, enums as value names (numbers are accepted on input), int64 as JSON
//! numbers, default values omitted.
//!
//! Only the messages the kubelet sends when it creates a sandbox or a container are
//! typed: [`PodSandboxConfig`] and [`ContainerConfig`] with everything they contain.
//!
//! ```
//! use podplan_core::cri::{PodSandboxConfig, PodSandboxMetadata};
//! let c = PodSandboxConfig {
//!     metadata: Some(PodSandboxMetadata { name: "web".into(), attempt: 0, ..Default::default() }),
//!     ..Default::default()
//! };
//! assert_eq!(serde_json::to_string(&c).unwrap(), r#"{"metadata":{"name":"web"}}"#);
//! ```

mod bytes;
mod common;
mod container;
mod enums;
pub mod proto3;
mod sandbox;
mod update;

pub use bytes::EnvBytes;
pub use common::{
    HugepageLimit, IdMapping, Int64Value, LinuxContainerResources, NamespaceOption, SeLinuxOption,
    SecurityProfile, UserNamespace,
};
pub use container::{
    Capability, CdiDevice, ContainerConfig, ContainerMetadata, Device, ImageSpec, KeyValue,
    LinuxContainerConfig, LinuxContainerSecurityContext, Mount, WindowsContainerConfig,
    WindowsContainerResources, WindowsContainerSecurityContext, WindowsCpuGroupAffinity,
};
pub use enums::{
    CriEnum, MountPropagation, NamespaceMode, ProfileType, Protocol, Signal,
    SupplementalGroupsPolicy,
};
pub use sandbox::{
    DnsConfig, LinuxPodSandboxConfig, LinuxSandboxSecurityContext, PodSandboxConfig,
    PodSandboxMetadata, PortMapping, WindowsNamespaceOption, WindowsPodSandboxConfig,
    WindowsSandboxSecurityContext,
};
pub use update::{StepRequest, UpdateContainerResourcesRequest, UpdatePodSandboxResourcesRequest};
