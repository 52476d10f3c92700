//! The kubelet's `getPhase`: the pod phase from the API container statuses.

use k8s_openapi::api::core::v1::{Container, ContainerState, ContainerStatus, Pod};

use super::conditions::Statuses;
use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::restart::{
    container_should_restart, is_restartable_init, pod_restart_policy,
};

/// A pod phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Not every container is running yet (or some init container has work left).
    Pending,
    /// Something runs, or will run again.
    Running,
    /// Every container exited 0 and nothing restarts.
    Succeeded,
    /// Some container failed and nothing restarts it.
    Failed,
}

impl Phase {
    /// The API string.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "Pending",
            Self::Running => "Running",
            Self::Succeeded => "Succeeded",
            Self::Failed => "Failed",
        }
    }
}

/// A pod is static when its config source annotation names something other than `api`.
#[must_use]
pub(crate) fn is_static_pod(pod: &Pod) -> bool {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get("kubernetes.io/config.source"))
        .is_some_and(|s| s != "api")
}

fn state(s: &ContainerStatus) -> Option<&ContainerState> {
    s.state.as_ref()
}

fn last_terminated(s: &ContainerStatus) -> Option<(i32, &str)> {
    s.last_state
        .as_ref()
        .and_then(|l| l.terminated.as_ref())
        .map(|t| (t.exit_code, t.reason.as_deref().unwrap_or("")))
}

/// `getPhase(pod, statuses, podIsTerminal, podHasInitialized)` (spec §3).
#[must_use]
pub(crate) fn get_phase(
    pod: &Pod,
    statuses: &[ContainerStatus],
    pod_is_terminal: bool,
    pod_has_initialized: bool,
    gates: &FeatureGates,
) -> Phase {
    get_phase_of(
        pod,
        &statuses.into(),
        pod_is_terminal,
        pod_has_initialized,
        gates,
    )
}

/// [`get_phase`] over a list given as two slices.
#[must_use]
pub(crate) fn get_phase_of(
    pod: &Pod,
    statuses: &Statuses<'_>,
    pod_is_terminal: bool,
    pod_has_initialized: bool,
    gates: &FeatureGates,
) -> Phase {
    let crr = gates.enabled(Gate::ContainerRestartRules);
    let rac = gates.enabled(Gate::RestartAllContainersOnContainerExits);
    let find = |name: &str| statuses.find(name);
    let restartable = |c: &Container, code: i32, reason: &str| {
        container_should_restart(c, pod, code, gates).yes
            || (rac && reason == "RestartingAllContainers")
    };
    let spec_inits = pod
        .spec
        .as_ref()
        .and_then(|s| s.init_containers.as_deref())
        .unwrap_or_default();
    let spec_containers = pod
        .spec
        .as_ref()
        .map_or(&[][..], |s| s.containers.as_slice());

    let (mut pending_init, mut failed_init, mut failed_init_nr) = (0, 0, 0);
    for c in spec_inits.iter().filter(|c| !is_restartable_init(c)) {
        let Some(st) = find(&c.name).and_then(|s| state(s).map(|st| (s, st))) else {
            pending_init += 1;
            continue;
        };
        let (s, st) = st;
        if st.running.is_some() {
            pending_init += 1;
        } else if let Some(t) = &st.terminated {
            if t.exit_code != 0 {
                failed_init += 1;
                if crr && !restartable(c, t.exit_code, t.reason.as_deref().unwrap_or("")) {
                    failed_init_nr += 1;
                }
            }
        } else if st.waiting.is_some() {
            match last_terminated(s) {
                Some((0, _)) => {}
                Some((code, reason)) => {
                    failed_init += 1;
                    if !restartable(c, code, reason) {
                        failed_init_nr += 1;
                    }
                }
                None => pending_init += 1,
            }
        } else {
            pending_init += 1;
        }
    }

    let (mut unknown, mut running, mut waiting, mut stopped, mut stopped_nr, mut succeeded) =
        (0, 0, 0, 0, 0, 0);
    let mut pending_sidecar = 0;
    for c in spec_inits.iter().filter(|c| is_restartable_init(c)) {
        let Some(s) = find(&c.name) else {
            unknown += 1;
            continue;
        };
        match state(s) {
            Some(st) if st.running.is_some() => {
                running += 1;
                if s.started != Some(true) {
                    pending_sidecar += 1;
                }
            }
            Some(st) if st.terminated.is_some() => {}
            Some(st) if st.waiting.is_some() => {
                if last_terminated(s).is_none() {
                    pending_sidecar += 1;
                    waiting += 1;
                }
            }
            _ => {
                pending_sidecar += 1;
                unknown += 1;
            }
        }
    }

    for c in spec_containers {
        let Some(s) = find(&c.name) else {
            unknown += 1;
            continue;
        };
        match state(s) {
            Some(st) if st.running.is_some() => running += 1,
            Some(st) if st.terminated.is_some() => {
                if let Some(t) = &st.terminated {
                    stopped += 1;
                    if crr && !restartable(c, t.exit_code, t.reason.as_deref().unwrap_or("")) {
                        stopped_nr += 1;
                    }
                    if t.exit_code == 0 {
                        succeeded += 1;
                    }
                }
            }
            Some(st) if st.waiting.is_some() => match last_terminated(s) {
                Some((code, reason)) => {
                    stopped += 1;
                    if crr && !restartable(c, code, reason) {
                        stopped_nr += 1;
                    }
                }
                None => waiting += 1,
            },
            _ => unknown += 1,
        }
    }

    if crr {
        if failed_init_nr > 0 {
            return Phase::Failed;
        }
    } else if failed_init > 0 && pod_restart_policy(pod) == "Never" {
        return Phase::Failed;
    }
    if pending_init > 0 || (pending_sidecar > 0 && !pod_has_initialized) || waiting > 0 {
        return Phase::Pending;
    }
    if running > 0 && unknown == 0 {
        return Phase::Running;
    }
    if running == 0 && stopped > 0 && unknown == 0 {
        if pod_is_terminal && !is_static_pod(pod) {
            return if stopped == succeeded {
                Phase::Succeeded
            } else {
                Phase::Failed
            };
        }
        if crr {
            if stopped != stopped_nr {
                return Phase::Running;
            }
            return if stopped == succeeded {
                Phase::Succeeded
            } else {
                Phase::Failed
            };
        }
        return match pod_restart_policy(pod) {
            "Always" => Phase::Running,
            _ if stopped == succeeded => Phase::Succeeded,
            "Never" => Phase::Failed,
            _ => Phase::Running,
        };
    }
    Phase::Pending
}
