//! # podplan-cri
//!
//! The CRI `runtime.v1` messages podplan produces — `PodSandboxConfig` (RunPodSandbox)
//! and `ContainerConfig` (CreateContainer) with everything they contain — as protobuf
//! types ([`pb`], generated with prost from this crate's own `.proto`), and lossless
//! conversion to and from podplan-core's proto3-JSON types ([`podplan_core::cri`]).
//!
//! ```
//! use podplan_core::cri::{ContainerConfig, ContainerMetadata};
//! let c = ContainerConfig {
//!     metadata: Some(ContainerMetadata { name: "app".into(), attempt: 2 }),
//!     ..Default::default()
//! };
//! let bytes = podplan_cri::encode_container_config(&c);
//! assert_eq!(podplan_cri::decode_container_config(&bytes).unwrap(), c);
//! ```

mod convert;

pub use convert::ConvertError;

/// The generated `runtime.v1` protobuf messages.
#[allow(
    missing_docs,
    clippy::all,
    clippy::pedantic,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]
pub mod pb {
    include!(concat!(env!("OUT_DIR"), "/runtime.v1.rs"));
}

use podplan_core::cri;
use prost::Message;

/// Why protobuf bytes could not be read as a config.
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    /// Not a valid protobuf message.
    #[error("invalid protobuf: {0}")]
    Protobuf(#[from] prost::DecodeError),
    /// Valid protobuf that podplan's types cannot hold (e.g. an unknown enum number).
    #[error(transparent)]
    Convert(#[from] ConvertError),
}

/// Encodes a sandbox config as protobuf bytes.
#[must_use]
pub fn encode_sandbox_config(config: &cri::PodSandboxConfig) -> Vec<u8> {
    pb::PodSandboxConfig::from(config).encode_to_vec()
}

/// Decodes protobuf bytes into a sandbox config.
pub fn decode_sandbox_config(bytes: &[u8]) -> Result<cri::PodSandboxConfig, DecodeError> {
    Ok(cri::PodSandboxConfig::try_from(
        pb::PodSandboxConfig::decode(bytes)?,
    )?)
}

/// Encodes a container config as protobuf bytes.
#[must_use]
pub fn encode_container_config(config: &cri::ContainerConfig) -> Vec<u8> {
    pb::ContainerConfig::from(config).encode_to_vec()
}

/// Decodes protobuf bytes into a container config.
pub fn decode_container_config(bytes: &[u8]) -> Result<cri::ContainerConfig, DecodeError> {
    Ok(cri::ContainerConfig::try_from(
        pb::ContainerConfig::decode(bytes)?,
    )?)
}
