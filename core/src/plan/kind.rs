//! Which list of the pod spec a container comes from.

use serde::{Deserialize, Serialize};

/// Which list of the pod spec a container comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContainerKind {
    /// `spec.initContainers`.
    Init,
    /// `spec.containers`.
    Regular,
    /// `spec.ephemeralContainers`.
    Ephemeral,
}

impl ContainerKind {
    /// The contract's name (`init`, `regular`, `ephemeral`).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Init => "init",
            Self::Regular => "regular",
            Self::Ephemeral => "ephemeral",
        }
    }

    /// The kubelet's words for this kind ("init container", ...).
    #[must_use]
    pub(crate) fn noun(self) -> &'static str {
        match self {
            Self::Init => "init container",
            Self::Regular => "container",
            Self::Ephemeral => "ephemeral container",
        }
    }
}
