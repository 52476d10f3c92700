//! The rules' catalog: each [`Rule`], its id and its [`Severity`]. A leaf: the rules
//! (`rules.rs`) and the settings (`lint.rs`) both name rules by it.

use serde::{Deserialize, Serialize};

/// How serious a finding is; it selects the default [`Action`](super::Action).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; changes nothing by itself.
    Info,
    /// The pod runs, but probably not as its author meant.
    Warning,
    /// The kubelet will refuse the pod or a container of it.
    Error,
}

/// The lint rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// `generateContainerConfig` / `generatePodSandboxConfig` fails for the pod as new.
    ConfigError,
    /// Request validation rejects the pod.
    Invalid,
    /// A `$(VAR)` in command, args or env that expansion leaves as written.
    UnexpandedVariable,
    /// A failing liveness or startup probe ends the container for good.
    ProbeEndsPod,
    /// A grace period below the kubelet's 2 s floor.
    GraceRaised,
    /// A probe names a port the container does not declare: it fails every time.
    ProbePortName,
    /// An env variable declared twice: the last one wins.
    DuplicateEnv,
}

impl Rule {
    /// Every rule, in documentation order.
    pub const ALL: [Rule; 7] = [
        Rule::ConfigError,
        Rule::Invalid,
        Rule::UnexpandedVariable,
        Rule::ProbeEndsPod,
        Rule::GraceRaised,
        Rule::ProbePortName,
        Rule::DuplicateEnv,
    ];

    /// The rule's id (`config-error`, ...).
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Rule::ConfigError => "config-error",
            Rule::Invalid => "invalid",
            Rule::UnexpandedVariable => "unexpanded-variable",
            Rule::ProbeEndsPod => "probe-ends-pod",
            Rule::GraceRaised => "grace-raised",
            Rule::ProbePortName => "probe-port-name",
            Rule::DuplicateEnv => "duplicate-env",
        }
    }

    /// The rule with this id.
    #[must_use]
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    /// The rule's severity.
    #[must_use]
    pub(crate) fn severity(self) -> Severity {
        match self {
            Rule::ConfigError | Rule::Invalid => Severity::Error,
            Rule::UnexpandedVariable
            | Rule::ProbeEndsPod
            | Rule::ProbePortName
            | Rule::DuplicateEnv => Severity::Warning,
            Rule::GraceRaised => Severity::Info,
        }
    }
}
