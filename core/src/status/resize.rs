//! In-place resize as the status manager and the event recorder see it (gate
//! `InPlacePodVerticalScaling`): the `PodResizeInProgress` condition and the
//! `ResizeStarted` / `ResizeCompleted` events.
//!
//! The kubelet of 1.37:
//! * the allocation manager (`handlePodResourcesResize` in
//!   `pkg/kubelet/allocation/allocation_manager.go`), when the desired resources of a pod
//!   differ from the allocated ones and the resize fits, allocates them, clears and sets
//!   `PodResizeInProgress` (with the pod's generation) and records `ResizeStarted`
//!   (`events.PodResizeStartedMsg`);
//! * `SyncPod` (`pkg/kubelet/kubelet.go`), before it generates the status, keeps
//!   `PodResizeInProgress` while a running resizable container's actuated CPU or memory
//!   differs from its allocation (`IsPodResizeInProgress`), else clears it and, when it
//!   was set, records `ResizeCompleted` (`events.PodResizeCompletedMsg`) with the
//!   condition's generation;
//! * `generateAPIPodStatus` (`pkg/kubelet/kubelet_pods.go`) puts the status manager's
//!   resize conditions after the conditions it does not own, none for a terminal pod.
//!
//! The model: every resize fits (no node capacity is modelled: no `PodResizePending`), the
//! allocation is the pod's spec, and what was allocated before this sync is known only
//! through the previous status: a resize is requested when a running resizable
//! container's resources differ from the actuated-resources checkpoint and the previous
//! status has no `PodResizeInProgress` condition of the pod's generation. Without a
//! checkpoint (`actuatedResources` absent: nothing actuated yet) nothing is reported.

use k8s_openapi::api::core::v1::{Container, PodCondition, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

use crate::events::Event;
use crate::features::{FeatureGates, Gate};
use crate::kubecontainer::restart::is_restartable_init;
use crate::request::PlanRequest;
use crate::runtime::ContainerState;

/// The condition type.
pub(crate) const IN_PROGRESS: &str = "PodResizeInProgress";

/// What in-place resize adds to one sync.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Resize {
    /// The `PodResizeInProgress` condition the status manager holds when the status is
    /// generated (its `observedGeneration` the generation of the resize).
    pub condition: Option<PodCondition>,
    /// `ResizeStarted` / `ResizeCompleted`, in the order the kubelet records them (both
    /// before `SyncPod` acts on the runtime).
    pub events: Vec<Event>,
}

/// CPU and memory requests and limits: (cpu request, cpu limit) in millicores, (memory
/// request, memory limit) in bytes. `Quantity.Equal` compares these values.
fn cpu_memory(r: Option<&ResourceRequirements>) -> (i64, i64, i64, i64) {
    let v = crate::decision::resize::container_resources(&FeatureGates::default(), None, r);
    (v.cpu_request, v.cpu_limit, v.memory_request, v.memory_limit)
}

/// The pod's containers `IsResizableContainer` admits: regular containers and sidecars
/// (restartable init containers); classic init and ephemeral containers are not resized.
fn resizable(request: &PlanRequest) -> Vec<&Container> {
    let Some(spec) = request.pod.spec.as_ref() else {
        return Vec::new();
    };
    spec.init_containers
        .iter()
        .flatten()
        .filter(|c| is_restartable_init(c))
        .chain(spec.containers.iter())
        .collect()
}

/// `IsPodResizeInProgress`: a running resizable container whose allocated (the spec's)
/// CPU or memory differs from its actuated resources.
#[must_use]
pub(crate) fn in_progress(request: &PlanRequest) -> bool {
    let Some(actuated) = request.actuated_resources.as_ref() else {
        return false;
    };
    let statuses = request.container_statuses();
    resizable(request).into_iter().any(|c| {
        // The newest instance (the runtime lists newest first).
        let running = statuses
            .iter()
            .find(|s| s.name == c.name)
            .is_some_and(|s| s.state == ContainerState::Running);
        running && cpu_memory(c.resources.as_ref()) != cpu_memory(actuated.containers.get(&c.name))
    })
}

/// `podResizeMessage`: the prefix, then the pod's init containers' and containers'
/// resources and the generation as JSON (`makeResourceSummaryFromSpec` in
/// `pkg/kubelet/events`; Go's field order, map keys sorted; quantities as the API holds
/// them).
fn message(request: &PlanRequest, prefix: &str, generation: i64) -> String {
    let entry = |c: &Container| {
        let list = |l: Option<
            &std::collections::BTreeMap<
                String,
                k8s_openapi::apimachinery::pkg::api::resource::Quantity,
            >,
        >| {
            l.filter(|l| !l.is_empty()).map(|l| {
                let items: Vec<String> = l
                    .iter()
                    .map(|(k, q)| format!("{}:{}", json(k), json(&q.0)))
                    .collect();
                format!("{{{}}}", items.join(","))
            })
        };
        let r = c.resources.as_ref();
        let mut parts = Vec::new();
        if let Some(l) = list(r.and_then(|r| r.limits.as_ref())) {
            parts.push(format!("\"limits\":{l}"));
        }
        if let Some(l) = list(r.and_then(|r| r.requests.as_ref())) {
            parts.push(format!("\"requests\":{l}"));
        }
        format!(
            "{{\"name\":{},\"resources\":{{{}}}}}",
            json(&c.name),
            parts.join(",")
        )
    };
    let spec = request.pod.spec.as_ref();
    let inits: Vec<String> = spec
        .and_then(|s| s.init_containers.as_ref())
        .into_iter()
        .flatten()
        .map(entry)
        .collect();
    let containers: Vec<String> = spec
        .map(|s| s.containers.iter().map(entry).collect())
        .unwrap_or_default();
    let mut fields = Vec::new();
    if !inits.is_empty() {
        fields.push(format!("\"initContainers\":[{}]", inits.join(",")));
    }
    if !containers.is_empty() {
        fields.push(format!("\"containers\":[{}]", containers.join(",")));
    }
    fields.push(format!("\"generation\":{generation}"));
    format!("{prefix}: {{{}}}", fields.join(","))
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("\"{s}\""))
}

/// `updatedPodResizeCondition`: a new `PodResizeInProgress` (status True, no reason) at
/// `now` (without times when the request has no `now`, as the other conditions).
fn new_condition(generation: i64, now: Option<jiff::Timestamp>) -> PodCondition {
    PodCondition {
        type_: IN_PROGRESS.to_string(),
        status: "True".to_string(),
        last_probe_time: now.map(Time),
        last_transition_time: now.map(Time),
        observed_generation: (generation != 0).then_some(generation),
        ..PodCondition::default()
    }
}

/// What in-place resize adds to the sync of `request` (see the module documentation).
#[must_use]
pub(crate) fn resize(request: &PlanRequest, gates: &FeatureGates) -> Resize {
    let mut out = Resize::default();
    if !gates.enabled(Gate::InPlacePodVerticalScaling) || request.actuated_resources.is_none() {
        return out;
    }
    let generation = request.pod.metadata.generation.unwrap_or(0);
    let now = request.now;
    let old = request
        .previous_status
        .as_ref()
        .or(request.pod.status.as_ref())
        .and_then(|s| s.conditions.as_ref())
        .and_then(|c| {
            c.iter()
                .find(|c| c.type_ == IN_PROGRESS && c.status == "True")
        })
        .cloned();
    let differs = in_progress(request);
    let mut condition = old.clone();
    // The allocation manager: a new allocation (the desired resources differ from what was
    // allocated: no resize of this generation is in progress).
    let requested = differs
        && old
            .as_ref()
            .is_none_or(|c| c.observed_generation.unwrap_or(0) != generation);
    if requested {
        out.events.push(Event::normal(
            "ResizeStarted",
            message(request, "Pod resize started", generation),
            None,
        ));
        condition = Some(new_condition(generation, now));
    }
    // SyncPod: keep the condition while the resize is in progress, else clear it.
    if differs {
        if condition.is_none() {
            condition = Some(new_condition(generation, now));
        }
    } else if let Some(cleared) = condition.take() {
        out.events.push(Event::normal(
            "ResizeCompleted",
            message(
                request,
                "Pod resize completed",
                cleared.observed_generation.unwrap_or(0),
            ),
            None,
        ));
    }
    out.condition = condition;
    out
}

#[cfg(test)]
mod tests {
    use crate::sim::Simulation;

    fn conditions(plan: &crate::Plan) -> Vec<(String, String)> {
        plan.status
            .as_ref()
            .and_then(|s| s.conditions.as_ref())
            .into_iter()
            .flatten()
            .map(|c| (c.type_.clone(), c.status.clone()))
            .collect()
    }

    fn resize_events(plan: &crate::Plan) -> Vec<(String, String)> {
        plan.events
            .iter()
            .filter(|e| e.reason.starts_with("Resize"))
            .map(|e| (e.reason.clone(), e.message.clone()))
            .collect()
    }

    #[test]
    fn an_in_place_resize_starts_is_in_progress_then_completes() {
        let Ok(request) = crate::api::parse_request(
            br#"{"pod": {"metadata": {"name": "calc", "uid": "u", "generation": 1},
                 "spec": {"containers": [{"name": "app", "image": "x",
                   "resizePolicy": [{"resourceName": "cpu", "restartPolicy": "NotRequired"}],
                   "resources": {"requests": {"cpu": "500m", "memory": "256Mi"},
                                 "limits": {"cpu": "500m", "memory": "256Mi"}}}]}},
                 "apiDefaults": true}"#,
        ) else {
            panic!("bad request");
        };
        let start =
            jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH);
        let mut sim = Simulation::new(request, start);
        let Ok(plans) = sim.run_until_stable(5) else {
            panic!("no plans");
        };
        assert!(plans.iter().all(|p| resize_events(p).is_empty()));
        assert!(plans
            .iter()
            .all(|p| !conditions(p).iter().any(|(t, _)| t == super::IN_PROGRESS)));
        // The resize: cpu 500m -> 750m, generation 2.
        let pod = &mut sim.request.pod;
        pod.metadata.generation = Some(2);
        if let Some(r) = pod
            .spec
            .as_mut()
            .and_then(|s| s.containers.first_mut())
            .and_then(|c| c.resources.as_mut())
        {
            for list in [r.requests.as_mut(), r.limits.as_mut()]
                .into_iter()
                .flatten()
            {
                list.insert(
                    "cpu".into(),
                    k8s_openapi::apimachinery::pkg::api::resource::Quantity("750m".into()),
                );
            }
        }
        let Ok(started) = sim.sync() else {
            panic!("no plan");
        };
        assert_eq!(
            resize_events(&started),
            vec![(
                "ResizeStarted".to_string(),
                r#"Pod resize started: {"containers":[{"name":"app","resources":{"limits":{"cpu":"750m","memory":"256Mi"},"requests":{"cpu":"750m","memory":"256Mi"}}}],"generation":2}"#.to_string()
            )]
        );
        assert_eq!(
            started.events.first().map(|e| e.reason.as_str()),
            Some("ResizeStarted")
        );
        assert!(
            conditions(&started).contains(&(super::IN_PROGRESS.to_string(), "True".to_string()))
        );
        assert!(started
            .steps
            .iter()
            .any(|s| s.op() == crate::plan::StepOp::UpdateContainerResources));
        // Actuated: the next sync clears the condition and says so.
        let Ok(done) = sim.sync() else {
            panic!("no plan");
        };
        let events = resize_events(&done);
        assert_eq!(events.len(), 1, "{events:?}");
        assert_eq!(events[0].0, "ResizeCompleted");
        assert!(
            events[0].1.starts_with("Pod resize completed: {")
                && events[0].1.ends_with(r#""generation":2}"#),
            "{}",
            events[0].1
        );
        assert!(!conditions(&done)
            .iter()
            .any(|(t, _)| t == super::IN_PROGRESS));
        // Nothing more to say.
        let Ok(quiet) = sim.sync() else {
            panic!("no plan");
        };
        assert!(resize_events(&quiet).is_empty());
    }
}
