//! Events the kubelet would record during the sync (spec §6.5), in the order `SyncPod`
//! records them. Start events (`Created`, `Started`) are predictions: they assume the
//! runtime accepts the request.

use serde::{Deserialize, Serialize};

/// One event.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// `Normal` or `Warning`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Event reason, e.g. `SandboxChanged`.
    pub reason: String,
    /// Event message.
    pub message: String,
    /// The container the event is about (absent for pod-level events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
}

impl Event {
    /// A `Normal` event.
    #[must_use]
    pub(crate) fn normal(
        reason: &str,
        message: impl Into<String>,
        container: Option<&str>,
    ) -> Self {
        Self {
            kind: "Normal".into(),
            reason: reason.into(),
            message: message.into(),
            container: container.map(str::to_string),
        }
    }

    /// A `Warning` event.
    #[must_use]
    pub(crate) fn warning(
        reason: &str,
        message: impl Into<String>,
        container: Option<&str>,
    ) -> Self {
        Self {
            kind: "Warning".into(),
            reason: reason.into(),
            message: message.into(),
            container: container.map(str::to_string),
        }
    }
}

/// `SandboxChanged`: a sandbox with a known id is re-created.
#[must_use]
pub(crate) fn sandbox_changed() -> Event {
    Event::normal(
        "SandboxChanged",
        "Pod sandbox changed, it will be killed and re-created.",
        None,
    )
}

/// `Killing` with the planner's message (`Stopping container <c>` when it has none).
#[must_use]
pub(crate) fn killing(container: &str, message: &str) -> Event {
    let message = if message.is_empty() {
        format!("Stopping container {container}")
    } else {
        message.to_string()
    };
    Event::normal("Killing", message, Some(container))
}

/// `BackOff`: crash-loop back-off blocks a start. `pod` is `format.Pod` (`name_ns(uid)`).
#[must_use]
pub(crate) fn back_off(container: &str, pod: &str) -> Event {
    Event::warning(
        "BackOff",
        format!("Back-off restarting failed container {container} in pod {pod}"),
        Some(container),
    )
}

/// `Created` (predicted).
#[must_use]
pub(crate) fn created(container: &str) -> Event {
    Event::normal("Created", "Container created", Some(container))
}

/// `Started` (predicted).
#[must_use]
pub(crate) fn started(container: &str) -> Event {
    Event::normal("Started", "Container started", Some(container))
}

/// `FailedCreatePodSandBox`: `createPodSandbox` failed (here: the sandbox config).
#[must_use]
pub(crate) fn failed_create_pod_sandbox(cause: &str) -> Event {
    Event::warning(
        "FailedCreatePodSandBox",
        format!("Failed to create pod sandbox: {cause}"),
        None,
    )
}

/// `Failed`: a create/start error, e.g. a config error.
#[must_use]
pub(crate) fn failed(container: &str, message: &str) -> Event {
    Event::warning("Failed", format!("Error: {message}"), Some(container))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubelet_wording() {
        assert_eq!(killing("app", "").message, "Stopping container app");
        assert_eq!(
            killing(
                "app",
                "Container app failed liveness probe, will be restarted"
            )
            .message,
            "Container app failed liveness probe, will be restarted"
        );
        let b = back_off("app", "web_default(u1)");
        assert_eq!(
            (b.kind.as_str(), b.message.as_str()),
            (
                "Warning",
                "Back-off restarting failed container app in pod web_default(u1)"
            )
        );
        assert_eq!(sandbox_changed().kind, "Normal");
    }
}
