//! `convertToAPIContainerStatuses` (spec §5): API container statuses from the runtime
//! statuses, the old API statuses and the reason cache.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Container, ContainerState, ContainerStateRunning, ContainerStateTerminated,
    ContainerStateWaiting, ContainerStatus, Pod,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::pod_status::StatusView;
use crate::kubecontainer::restart::{is_restartable_init, should_container_be_restarted};
use crate::plan::ReasonCache;
use crate::runtime::{ContainerState as RtState, ContainerStatus as RtStatus};

/// Waiting reason of a container that has not been created yet (pod without init containers).
pub(crate) const CONTAINER_CREATING: &str = "ContainerCreating";
/// Waiting reason of a container that has not been created yet (pod with init containers).
pub(crate) const POD_INITIALIZING: &str = "PodInitializing";
const RESTARTING_ALL: &str = "RestartingAllContainers";
const RESTARTING_ALL_MESSAGE: &str =
    "The container is removed because RestartAllContainers in place";

/// The arguments of one `convertToAPIContainerStatuses` call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConvertArgs<'a> {
    /// The API pod.
    pub pod: &'a Pod,
    /// The runtime status.
    pub view: &'a StatusView<'a>,
    /// The matching list of the old API status.
    pub previous: &'a [ContainerStatus],
    /// The spec list to convert.
    pub containers: &'a [Container],
    /// The pod has init containers.
    pub has_init_containers: bool,
    /// `containers` is the init list.
    pub is_init_container: bool,
    /// The pod is restarting all its containers (gate RAC and `ShouldAllContainersRestart`).
    pub pod_restarting: bool,
    /// The reason cache (start errors of the previous sync).
    pub reason_cache: &'a ReasonCache,
    /// Feature gates.
    pub gates: &'a FeatureGates,
}

/// A `metav1.Time` as the API stores it: whole seconds.
fn time(t: Option<jiff::Timestamp>) -> Option<Time> {
    t.map(|t| Time(jiff::Timestamp::from_second(t.as_second()).unwrap_or(t)))
}

fn waiting(reason: &str, message: &str) -> ContainerState {
    ContainerState {
        waiting: Some(ContainerStateWaiting {
            reason: (!reason.is_empty()).then(|| reason.to_string()),
            message: (!message.is_empty()).then(|| message.to_string()),
        }),
        ..ContainerState::default()
    }
}

fn terminated(reason: &str, message: &str, exit_code: i32) -> ContainerState {
    ContainerState {
        terminated: Some(ContainerStateTerminated {
            reason: Some(reason.to_string()),
            message: Some(message.to_string()),
            exit_code,
            ..ContainerStateTerminated::default()
        }),
        ..ContainerState::default()
    }
}

fn is_terminated(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.terminated.is_some())
}

fn is_running(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.running.is_some())
}

fn is_waiting(s: &ContainerStatus) -> bool {
    s.state.as_ref().is_some_and(|st| st.waiting.is_some())
}

fn convert_one(
    cs: &RtStatus,
    old: Option<&ContainerStatus>,
    args: &ConvertArgs<'_>,
) -> ContainerStatus {
    let rac = args
        .gates
        .enabled(Gate::RestartAllContainersOnContainerExits);
    let cid = if cs.id.is_empty() {
        "://".to_string()
    } else {
        cs.id.clone()
    };
    let mut status = ContainerStatus {
        name: cs.name.clone(),
        restart_count: cs.restart_count,
        image: cs.image.clone(),
        image_id: cs.image_ref.clone(),
        container_id: Some(cid.clone()),
        ..ContainerStatus::default()
    };
    if let Some(o) = old {
        status.volume_mounts.clone_from(&o.volume_mounts);
        if rac {
            status.restart_count = status.restart_count.max(o.restart_count);
            let old_terminated = o.state.as_ref().and_then(|st| st.terminated.as_ref());
            let old_last = o.last_state.as_ref().and_then(|l| l.terminated.as_ref());
            if let (Some(t), true) = (
                old_terminated,
                o.container_id.as_deref() != Some(cid.as_str()),
            ) {
                status.last_state = Some(ContainerState {
                    terminated: Some(t.clone()),
                    ..ContainerState::default()
                });
            } else if let Some(t) = old_last {
                status.last_state = Some(ContainerState {
                    terminated: Some(t.clone()),
                    ..ContainerState::default()
                });
            }
        }
    }
    match cs.state {
        RtState::Running => {
            status.state = Some(ContainerState {
                running: Some(ContainerStateRunning {
                    started_at: time(cs.started_at),
                }),
                ..ContainerState::default()
            });
            if let Some(o) = old {
                if rac && is_terminated(o) && o.restart_count >= cs.restart_count {
                    status.restart_count = o.restart_count.saturating_add(1);
                }
            }
        }
        RtState::Created => status.state = Some(waiting("", "")),
        RtState::Exited => {
            status.state = Some(ContainerState {
                terminated: Some(ContainerStateTerminated {
                    exit_code: cs.exit_code,
                    reason: (!cs.reason.is_empty()).then(|| cs.reason.clone()),
                    message: (!cs.message.is_empty()).then(|| cs.message.clone()),
                    started_at: time(cs.started_at),
                    finished_at: time(cs.finished_at),
                    container_id: Some(cid.clone()),
                    signal: None,
                }),
                ..ContainerState::default()
            });
        }
        RtState::Unknown => match old.filter(|o| is_running(o)) {
            Some(o) => {
                let reason = if rac && args.pod_restarting {
                    RESTARTING_ALL
                } else {
                    "ContainerStatusUnknown"
                };
                status.state = Some(terminated(
                    reason,
                    "The container could not be located when the pod was terminated",
                    137,
                ));
                status.restart_count = o.restart_count.saturating_add(1);
            }
            None => status.state = Some(waiting("", "")),
        },
    }
    if cs.state == RtState::Running
        && !args
            .gates
            .enabled(Gate::ChangeContainerStatusOnKubeletRestart)
    {
        if let Some(started) = old.and_then(|o| o.started) {
            status.started = Some(started);
        }
    }
    status
}

/// `convertToAPIContainerStatuses`: one status per spec container of `args.containers`,
/// init containers in spec order, others sorted by name.
#[must_use]
pub(crate) fn convert(args: &ConvertArgs<'_>) -> Vec<ContainerStatus> {
    let pod = args.pod;
    let rac = args
        .gates
        .enabled(Gate::RestartAllContainersOnContainerExits);
    let old_by_name: BTreeMap<&str, &ContainerStatus> =
        args.previous.iter().map(|s| (s.name.as_str(), s)).collect();
    let default_reason = if args.has_init_containers {
        POD_INITIALIZING
    } else {
        CONTAINER_CREATING
    };
    let mut statuses: BTreeMap<&str, ContainerStatus> = BTreeMap::new();
    for c in args.containers {
        let mut status = ContainerStatus {
            name: c.name.clone(),
            image: c.image.clone().unwrap_or_default(),
            state: Some(waiting(default_reason, "")),
            ..ContainerStatus::default()
        };
        if let Some(o) = old_by_name.get(c.name.as_str()) {
            if is_terminated(o) {
                status = (*o).clone();
            } else {
                status.restart_count = o.restart_count;
                status.last_state.clone_from(&o.last_state);
            }
        }
        statuses.insert(c.name.as_str(), status);
    }

    // Containers the runtime no longer reports.
    let runtime = args.view.containers();
    for c in args.containers {
        if args.view.find(&c.name).is_some() {
            continue;
        }
        let Some(o) = old_by_name.get(c.name.as_str()) else {
            continue;
        };
        let Some(status) = statuses.get_mut(c.name.as_str()) else {
            continue;
        };
        if rac && args.pod_restarting && !is_waiting(o) {
            status.state = Some(waiting(RESTARTING_ALL, RESTARTING_ALL_MESSAGE));
            status.last_state = Some(terminated(RESTARTING_ALL, RESTARTING_ALL_MESSAGE, 137));
            status.restart_count = o.restart_count.saturating_add(1);
            continue;
        }
        if is_terminated(o) || !is_running(o) {
            continue;
        }
        let is_default = status
            .state
            .as_ref()
            .and_then(|st| st.waiting.as_ref())
            .is_some_and(|w| w.reason.as_deref() == Some(default_reason));
        let has_last = status
            .last_state
            .as_ref()
            .is_some_and(|l| l.terminated.is_some());
        if !is_default || has_last {
            continue;
        }
        status.last_state = Some(terminated(
            "ContainerStatusUnknown",
            "The container could not be located when the pod was deleted.  The container used to be Running",
            137,
        ));
        if pod.metadata.deletion_timestamp.is_none() {
            status.restart_count = status.restart_count.saturating_add(1);
        }
    }

    // Runtime statuses, newest first by creation time; at most two per name.
    let mut sorted: Vec<&RtStatus> = runtime.iter().collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.created_at));
    let mut seen: BTreeMap<&str, u8> = BTreeMap::new();
    for cs in sorted {
        if !statuses.contains_key(cs.name.as_str()) {
            continue;
        }
        let count = seen.entry(cs.name.as_str()).or_insert(0);
        if *count >= 2 {
            continue;
        }
        let converted = convert_one(cs, old_by_name.get(cs.name.as_str()).copied(), args);
        if let Some(slot) = statuses.get_mut(cs.name.as_str()) {
            if *count == 0 {
                *slot = converted;
            } else {
                slot.last_state = converted.state;
            }
        }
        *count += 1;
    }

    // Waiting reasons from the reason cache.
    let spec_containers = pod
        .spec
        .as_ref()
        .map_or(&[][..], |s| s.containers.as_slice());
    let any_regular_created = spec_containers.iter().any(|c| {
        args.view.find(&c.name).is_some_and(|s| {
            matches!(
                s.state,
                RtState::Created | RtState::Running | RtState::Exited
            )
        })
    });
    for c in args.containers {
        if args.is_init_container {
            let s = args.view.find(&c.name);
            if s.is_some_and(|s| s.state == RtState::Exited && s.exit_code == 0) {
                continue;
            }
            if s.is_none() && any_regular_created && !is_restartable_init(c) {
                if let Some(status) = statuses
                    .get_mut(c.name.as_str())
                    .filter(|st| is_waiting(st))
                {
                    status.state = Some(terminated(
                        "Completed",
                        "Unable to get init container status from container runtime and pod has been initialized, treat it as exited normally",
                        0,
                    ));
                    continue;
                }
            }
        }
        // (The cache lookup first: it is cheaper, and both must hold.)
        let Some(entry) = args.reason_cache.get(&c.name) else {
            continue;
        };
        if !should_container_be_restarted(c, pod, args.view, args.gates).yes {
            continue;
        }
        let Some(status) = statuses.get_mut(c.name.as_str()) else {
            continue;
        };
        if is_terminated(status) {
            status.last_state = status.state.take();
        }
        status.state = Some(waiting(&entry.reason, &entry.message));
    }

    if args.is_init_container {
        args.containers
            .iter()
            .filter_map(|c| statuses.get(c.name.as_str()).cloned())
            .collect()
    } else {
        statuses.into_values().collect()
    }
}
