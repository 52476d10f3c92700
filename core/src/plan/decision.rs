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
    /// The contract's name (`killPod`, ...).
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
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
    /// Whether the decision took effect (extension; see [`Effect`]).
    #[serde(default)]
    pub effect: Effect,
    /// [`Effect::Superseded`] (and [`Effect::NotCarriedOut`] when a decision explains
    /// why): the index in `decisions` of the later decision that overrode this one
    /// (extension).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<usize>,
    /// The index in `steps` of the step that carries the decision out, if any
    /// (extension). Sorting by it gives the order in which the kubelet acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
}

/// What became of a decision by the end of the sync (extension).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Effect {
    /// `effective`: `podActions` holds it and `SyncPod` carries it out (or, for a
    /// non-action such as `wait` or `keepContainer`, it holds).
    #[default]
    Effective,
    /// `superseded`: a later rule of `computePodActions` overrode it
    /// (`supersededBy`); `podActions` does not hold it.
    Superseded,
    /// `notCarriedOut`: `podActions` holds it but `SyncPod` does not carry it out on
    /// this sync (crash-loop back-off, a config error, an init container before it that
    /// could not start).
    NotCarriedOut,
    /// `noop`: set, but there is nothing to do (e.g. `killPod` before anything exists).
    Noop,
}

impl Effect {
    /// The contract's name (`effective`, ...).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Effective => "effective",
            Self::Superseded => "superseded",
            Self::NotCarriedOut => "notCarriedOut",
            Self::Noop => "noop",
        }
    }
}
