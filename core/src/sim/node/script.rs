//! What happens on the node on its own, as data: a [`Scenario`] for the whole node and
//! the pod annotations that script one pod (`CONTAINER_ANNOTATION_PREFIX`,
//! `SANDBOX_ANNOTATION`), and the RPC faults the node queues (`Node::fail_next`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::error::{CriCode, CriError};

/// The pod annotation prefix that scripts one container: `runtime-sim.podplan.io/container.<name>`
/// holds a [`ContainerScript`] as JSON. The kubelet copies pod annotations to the sandbox.
pub(crate) const CONTAINER_ANNOTATION_PREFIX: &str = "runtime-sim.podplan.io/container.";
/// The pod annotation that scripts the pod's sandboxes: a [`SandboxScript`] as JSON.
pub(crate) const SANDBOX_ANNOTATION: &str = "runtime-sim.podplan.io/sandbox";

/// A container exits on its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExitScript {
    /// The exit code.
    pub code: i32,
    /// Seconds after its start (0 = at once).
    #[serde(default)]
    pub after_seconds: i64,
    /// Only the first `times` instances (restart count below it) exit; absent = all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// What `ExecSync` answers in a container (exec probes).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExecScript {
    /// The exit code once the container has run `after_seconds` (0 before).
    pub exit_code: i32,
    /// Seconds after the container's start from which `exit_code` is answered.
    #[serde(default)]
    pub after_seconds: i64,
    /// Standard output then.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stdout: String,
    /// Standard error then.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
}

/// What one container does on its own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContainerScript {
    /// It exits after a while.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitScript>,
    /// `ExecSync` answers (absent: exit 0, no output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exec: Option<ExecScript>,
    /// How long it takes to exit on `StopContainer`'s stop signal (SIGTERM), seconds:
    /// within the stop's timeout it exits 143, else it is killed (SIGKILL) when the
    /// timeout ends and exits 137, as containerd's `StopContainer` does. Absent: at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_seconds: Option<u64>,
}

/// What a pod's sandboxes do on their own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxScript {
    /// The sandbox is lost (not ready, its containers killed) this many seconds after
    /// its creation.
    pub lost_after_seconds: i64,
    /// Only sandboxes with an attempt below `times` are lost; absent = all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// The next `count` calls of an RPC fail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Fault {
    /// The RPC's method name (`CreateContainer`, `PullImage`, ...).
    pub rpc: String,
    /// The gRPC code of the failures.
    pub code: CriCode,
    /// How many calls fail (default 1).
    #[serde(default = "one")]
    pub count: u32,
    /// The message (default: `injected fault`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub message: String,
}

fn one() -> u32 {
    1
}

/// Images the node has or cannot get.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagesScript {
    /// Present from the start.
    #[serde(default)]
    pub preloaded: Vec<String>,
    /// `PullImage` fails with `NOT_FOUND` for these.
    #[serde(default)]
    pub unpullable: Vec<String>,
    /// What the registry answers for some images (by reference, matched as containerd
    /// normalises it): the next `times` pulls (every pull, when absent) fail with the
    /// fault, each counting down.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub registry: BTreeMap<String, crate::plan::RegistryFault>,
}

/// A script for the whole node (`podplan runtime-sim --scenario`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// Container scripts by `namespace/pod/container`, or by container name for every
    /// pod (a pod annotation wins over both).
    #[serde(default)]
    pub containers: BTreeMap<String, ContainerScript>,
    /// Sandbox scripts by `namespace/pod`, or by pod name.
    #[serde(default)]
    pub sandboxes: BTreeMap<String, SandboxScript>,
    /// RPC failures, in order.
    #[serde(default)]
    pub faults: Vec<Fault>,
    /// Images.
    #[serde(default)]
    pub images: ImagesScript,
}

pub(super) fn parse_script<T: serde::de::DeserializeOwned>(
    key: &str,
    value: &str,
) -> Result<T, CriError> {
    serde_json::from_str(value).map_err(|e| {
        CriError::new(
            CriCode::InvalidArgument,
            format!("annotation {key}: not a valid script: {e}"),
        )
    })
}
