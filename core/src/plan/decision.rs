//! Why an action was chosen: [`Decision`] and the list of [`Action`]s.

use std::borrow::Cow;
use std::fmt;

use serde::{Deserialize, Serialize};

/// What a decision is about, serialised as the contract's camelCase string.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// `killPod`: stop the whole pod (containers, then sandbox).
    KillPod,
    /// `createSandbox`: run a new sandbox.
    CreateSandbox,
    /// `startInitContainer`: start an init container (classic or sidecar).
    StartInitContainer,
    /// `startContainer`: start a regular container.
    StartContainer,
    /// `startEphemeralContainer`: start an ephemeral container.
    StartEphemeralContainer,
    /// `killContainer`: stop one container.
    KillContainer,
    /// `updateResources`: resize a container or the pod in place.
    UpdateResources,
    /// `resetContainer`: kill and remove a container (RestartAllContainers).
    ResetContainer,
    /// `keepContainer`: a notable non-action, the container is left as it is.
    KeepContainer,
    /// `wait`: nothing can be done on this sync (a probe, a back-off, a failing init
    /// container).
    #[default]
    Wait,
    /// `doNotRestart`: the restart policy says the exited container stays exited.
    DoNotRestart,
}

impl Action {
    /// Every action, in the order of this list.
    pub const ALL: [Self; 11] = [
        Self::KillPod,
        Self::CreateSandbox,
        Self::StartInitContainer,
        Self::StartContainer,
        Self::StartEphemeralContainer,
        Self::KillContainer,
        Self::UpdateResources,
        Self::ResetContainer,
        Self::KeepContainer,
        Self::Wait,
        Self::DoNotRestart,
    ];

    /// The contract's name (`killPod`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::KillPod => "killPod",
            Self::CreateSandbox => "createSandbox",
            Self::StartInitContainer => "startInitContainer",
            Self::StartContainer => "startContainer",
            Self::StartEphemeralContainer => "startEphemeralContainer",
            Self::KillContainer => "killContainer",
            Self::UpdateResources => "updateResources",
            Self::ResetContainer => "resetContainer",
            Self::KeepContainer => "keepContainer",
            Self::Wait => "wait",
            Self::DoNotRestart => "doNotRestart",
        }
    }
}

impl fmt::Display for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<&str> for Action {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Why an action was chosen: a machine-readable reason and a human message naming the rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// The action ([`Action`]).
    pub action: Action,
    /// The container concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// Machine-readable reason, e.g. `LivenessProbeFailed`.
    pub reason: Cow<'static, str>,
    /// Human explanation naming the rule that fired.
    pub message: String,
}
