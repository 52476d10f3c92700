//! The rules, each read off an engine output.

use std::borrow::Cow;
use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{
    Container, EnvFromSource, EnvVar, Pod, Service, ServicePort, ServiceSpec,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::Rule;
use crate::config::container::ephemeral_as_container;
use crate::config::{self, ConfigError, ContainerKind, NodeContext};
use crate::features::FeatureGates;
use crate::hooks::kill_container;
use crate::plan::{KillReason, PodActions};
use crate::request::{PlanRequest, ProbeResult};
use crate::sim::{script, Simulation};

/// A finding before settings and the object's path prefix: the path is an engine path
/// (`pod.spec...`).
pub(super) struct Raw {
    pub rule: Rule,
    pub path: String,
    pub message: String,
}

/// Runs the rules `enabled` selects on `pod`.
pub(super) fn run(pod: Pod, enabled: impl Fn(Rule) -> bool) -> Vec<Raw> {
    let mut out = Vec::new();
    let request = PlanRequest {
        pod,
        ..PlanRequest::default()
    };
    let pod = &request.pod;
    let valid = match crate::validate::validate(&request) {
        Ok(_) => true,
        Err(e) => {
            out.push(Raw {
                rule: Rule::Invalid,
                path: e.path,
                message: e.message,
            });
            false
        }
    };
    if !enabled(Rule::Invalid) {
        out.clear();
    }
    let Some(spec) = pod.spec.as_ref() else {
        return out;
    };
    let gates = FeatureGates::resolve(&request.feature_gates);
    let containers = containers(spec);
    if enabled(Rule::ConfigError) {
        config_errors(&request, &gates, &containers, &mut out);
    }
    if enabled(Rule::UnexpandedVariable) {
        let service = master_service_variables(pod);
        for c in &containers {
            unexpanded(&service, c, &mut out);
        }
    }
    if enabled(Rule::ProbeEndsPod) && valid {
        probes_end_pod(&request, &containers, &mut out);
    }
    if enabled(Rule::GraceRaised) {
        grace_raised(pod, &containers, &mut out);
    }
    out
}

/// `probe-ends-pod` for every declared liveness and startup probe: the pod is run to a
/// steady state once, and each probe failure starts from that state (a copy of it, but
/// for the last).
fn probes_end_pod(request: &PlanRequest, containers: &[Entry<'_>], out: &mut Vec<Raw>) {
    let scenarios: Vec<(&Entry<'_>, &'static str, KillReason)> = containers
        .iter()
        .filter(|c| c.kind != ContainerKind::Ephemeral)
        .flat_map(|c| {
            let declared = [
                (
                    "livenessProbe",
                    KillReason::LivenessProbe,
                    c.container.liveness_probe.is_some(),
                ),
                (
                    "startupProbe",
                    KillReason::StartupProbe,
                    c.container.startup_probe.is_some(),
                ),
            ];
            declared
                .into_iter()
                .filter(|(_, _, d)| *d)
                .map(move |(field, reason, _)| (c, field, reason))
        })
        .collect();
    if scenarios.is_empty() {
        return;
    }
    let Some(mut settled) = settle(request.clone()) else {
        return;
    };
    let last = scenarios.len() - 1;
    for (i, (entry, field, reason)) in scenarios.into_iter().enumerate() {
        let ends = if i == last {
            ends_for_good(&mut settled, entry, reason)
        } else {
            ends_for_good(&mut settled.clone(), entry, reason)
        };
        if ends {
            out.push(Raw {
                rule: Rule::ProbeEndsPod,
                path: format!("{}.{field}", entry.path),
                message: format!(
                    "when its {field} fails, the kubelet kills container {:?} and does not start it again",
                    entry.container.name
                ),
            });
        }
    }
}

/// One container of the pod with its kind, index and path.
struct Entry<'a> {
    kind: ContainerKind,
    index: usize,
    path: String,
    container: Cow<'a, Container>,
}

fn containers(spec: &k8s_openapi::api::core::v1::PodSpec) -> Vec<Entry<'_>> {
    let mut out = Vec::new();
    let lists = [
        (
            ContainerKind::Init,
            "initContainers",
            spec.init_containers.as_deref().unwrap_or_default(),
        ),
        (
            ContainerKind::Regular,
            "containers",
            spec.containers.as_slice(),
        ),
    ];
    for (kind, list, cs) in lists {
        for (index, c) in cs.iter().enumerate() {
            out.push(Entry {
                kind,
                index,
                path: format!("pod.spec.{list}[{index}]"),
                container: Cow::Borrowed(c),
            });
        }
    }
    for (index, e) in spec.ephemeral_containers.iter().flatten().enumerate() {
        out.push(Entry {
            kind: ContainerKind::Ephemeral,
            index,
            path: format!("pod.spec.ephemeralContainers[{index}]"),
            container: Cow::Owned(ephemeral_as_container(e)),
        });
    }
    out
}

/// Config errors that depend on cluster or runtime state rather than on the pod: not
/// the pod's fault at admission.
fn depends_on_cluster_state(e: &ConfigError) -> bool {
    matches!(
        e,
        ConfigError::NotFound { .. }
            | ConfigError::MissingKey { .. }
            | ConfigError::ServicesNotSynced
            | ConfigError::EnvFile(_)
            | ConfigError::TargetNotFound(_)
            | ConfigError::Input(_)
    )
}

/// Whether an env or envFrom entry of a container refers to a ConfigMap or a Secret
/// (what [`with_optional_refs`] changes).
fn refers_to_objects(pod: &Pod) -> bool {
    let Some(spec) = pod.spec.as_ref() else {
        return false;
    };
    let refers = |env_from: &Option<Vec<EnvFromSource>>, env: &Option<Vec<EnvVar>>| {
        env_from
            .iter()
            .flatten()
            .any(|f| f.config_map_ref.is_some() || f.secret_ref.is_some())
            || env.iter().flatten().any(|v| {
                v.value_from
                    .as_ref()
                    .is_some_and(|f| f.config_map_key_ref.is_some() || f.secret_key_ref.is_some())
            })
    };
    spec.init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .any(|c| refers(&c.env_from, &c.env))
        || spec
            .ephemeral_containers
            .iter()
            .flatten()
            .any(|e| refers(&e.env_from, &e.env))
}

/// The pod with every ConfigMap and Secret reference of its env optional: at admission
/// those objects are unknown, and a missing one must not hide what comes after it in
/// `generateContainerConfig` (mounts, security context).
fn with_optional_refs(pod: &Pod) -> Pod {
    let mut pod = pod.clone();
    let Some(spec) = pod.spec.as_mut() else {
        return pod;
    };
    let optional = |c: &mut Container| {
        for from in c.env_from.iter_mut().flatten() {
            if let Some(r) = from.config_map_ref.as_mut() {
                r.optional = Some(true);
            }
            if let Some(r) = from.secret_ref.as_mut() {
                r.optional = Some(true);
            }
        }
        for var in c.env.iter_mut().flatten() {
            if let Some(from) = var.value_from.as_mut() {
                if let Some(r) = from.config_map_key_ref.as_mut() {
                    r.optional = Some(true);
                }
                if let Some(r) = from.secret_key_ref.as_mut() {
                    r.optional = Some(true);
                }
            }
        }
    };
    spec.init_containers.iter_mut().flatten().for_each(optional);
    spec.containers.iter_mut().for_each(optional);
    for e in spec.ephemeral_containers.iter_mut().flatten() {
        for from in e.env_from.iter_mut().flatten() {
            if let Some(r) = from.config_map_ref.as_mut() {
                r.optional = Some(true);
            }
            if let Some(r) = from.secret_ref.as_mut() {
                r.optional = Some(true);
            }
        }
        for var in e.env.iter_mut().flatten() {
            if let Some(from) = var.value_from.as_mut() {
                if let Some(r) = from.config_map_key_ref.as_mut() {
                    r.optional = Some(true);
                }
                if let Some(r) = from.secret_key_ref.as_mut() {
                    r.optional = Some(true);
                }
            }
        }
    }
    pod
}

/// `config-error`: `generatePodSandboxConfig` and `generateContainerConfig` for the pod
/// as new, on a node with default facts.
fn config_errors(
    request: &PlanRequest,
    gates: &FeatureGates,
    containers: &[Entry<'_>],
    out: &mut Vec<Raw>,
) {
    // A pod without ConfigMap or Secret references is used as it is.
    let optional;
    let request = if refers_to_objects(&request.pod) {
        optional = PlanRequest {
            pod: with_optional_refs(&request.pod),
            ..PlanRequest::default()
        };
        &optional
    } else {
        request
    };
    if let Err(e) = config::sandbox::generate_pod_sandbox_config(
        &request.pod,
        0,
        &NodeContext::default(),
        gates,
    ) {
        if !depends_on_cluster_state(&e) {
            out.push(Raw {
                rule: Rule::ConfigError,
                path: "pod.spec".into(),
                message: format!("{}: {e}", config::errors::CREATE_POD_SANDBOX_ERROR),
            });
        }
    }
    for c in containers {
        if let Err((_, e)) = config::generate_for(&request, gates, c.kind, c.index, None) {
            if !depends_on_cluster_state(&e) {
                out.push(Raw {
                    rule: Rule::ConfigError,
                    path: c.path.clone(),
                    message: format!("{}: {e}", config::errors::CREATE_CONTAINER_CONFIG_ERROR),
                });
            }
        }
    }
}

/// The variables every container gets from the `kubernetes` Service of `default`
/// (`getServiceEnvVarMap`), whatever the pod's namespace.
fn master_service_variables(pod: &Pod) -> BTreeSet<String> {
    let service = Service {
        metadata: ObjectMeta {
            name: Some("kubernetes".into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        spec: Some(ServiceSpec {
            cluster_ip: Some("10.96.0.1".into()),
            ports: Some(vec![ServicePort {
                name: Some("https".into()),
                port: 443,
                protocol: Some("TCP".into()),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    };
    let namespace = pod.metadata.namespace.as_deref().unwrap_or("default");
    config::env::service_env_map(&[service], namespace, false)
        .into_keys()
        .collect()
}

/// `unexpanded-variable`: every `$(VAR)` `config::expand::expand` asks for and gets no
/// value for stays as written. Env values see the variables declared before them, the
/// command and args all of them (`makeEnvironmentVariables`, `ExpandContainerCommandAndArgs`).
/// A container with `envFrom` is skipped: its variables are not known at admission.
fn unexpanded(service: &BTreeSet<String>, entry: &Entry<'_>, out: &mut Vec<Raw>) {
    let c = entry.container.as_ref();
    if c.env_from.as_ref().is_some_and(|f| !f.is_empty()) {
        return;
    }
    let mut known = service.clone();
    let mut check = |path: String, input: &str, known: &BTreeSet<String>| {
        let mut missing = Vec::new();
        let _ = config::expand::expand(input, |name| {
            if known.contains(name) {
                Some(String::new())
            } else {
                missing.push(name.to_string());
                None
            }
        });
        for name in missing {
            out.push(Raw {
                rule: Rule::UnexpandedVariable,
                path: path.clone(),
                message: format!(
                    "$({name}) names no variable of container {:?}; the kubelet passes it on as written",
                    c.name
                ),
            });
        }
    };
    for (i, var) in c.env.iter().flatten().enumerate() {
        if let Some(value) = var.value.as_deref() {
            check(format!("{}.env[{i}].value", entry.path), value, &known);
        }
        known.insert(var.name.clone());
    }
    for (list, values) in [("command", &c.command), ("args", &c.args)] {
        for (i, value) in values.iter().flatten().enumerate() {
            check(format!("{}.{list}[{i}]", entry.path), value, &known);
        }
    }
}

fn t0() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_750_000_000).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

/// Syncs the simulation gives a pod to settle, and the kubelet to restart a container.
const SETTLE_SYNCS: usize = 16;
const RESTART_SYNCS: usize = 4;

/// The request's pod, new, run by the runtime model until its plans change nothing.
/// The plans need no API status: the kubelet's decisions never read it.
fn settle(request: PlanRequest) -> Option<Simulation> {
    let mut sim = Simulation::new(request, t0());
    sim.statuses = false;
    sim.run_until_stable(SETTLE_SYNCS).ok().map(|_| sim)
}

/// `probe-ends-pod` for one probe: the prober fails the container's liveness (or
/// startup) probe in the settled pod, and the engine kills the container and never
/// decides to start it again. Only the decisions are read; a sync's full plan is made
/// when it is carried out.
fn ends_for_good(sim: &mut Simulation, entry: &Entry<'_>, reason: KillReason) -> bool {
    let name = entry.container.name.as_str();
    if !running(sim, name) {
        return false;
    }
    let failure = Some(ProbeResult::Failure);
    match reason {
        KillReason::StartupProbe => script::set_probe(&mut sim.request, name, None, failure),
        _ => script::set_probe(&mut sim.request, name, failure, None),
    }
    sim.prepare();
    let Ok(actions) = sim.decide() else {
        return false;
    };
    let killed = actions
        .containers_to_kill
        .values()
        .any(|k| k.name == name && k.reason == reason);
    // The kubelet restarts a container in the sync that kills it, when it restarts it.
    if !killed || starts(&actions, entry) {
        return false;
    }
    for _ in 0..RESTART_SYNCS {
        let Ok(plan) = sim.plan() else {
            return false;
        };
        sim.carry_out(&plan);
        sim.prepare();
        match sim.decide() {
            Ok(actions) if starts(&actions, entry) => return false,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    true
}

fn running(sim: &Simulation, name: &str) -> bool {
    sim.request.runtime_status.as_ref().is_some_and(|s| {
        s.container_statuses
            .iter()
            .any(|s| s.name == name && s.state == crate::runtime::ContainerState::Running)
    })
}

/// The kubelet decides to start the container. That covers a start its crash-loop
/// (or image) back-off holds back: `SyncPod` checks the back-off when it starts a
/// container the decision lists (a plan's `heldBack` names only such containers).
fn starts(actions: &PodActions, entry: &Entry<'_>) -> bool {
    let to_start = match entry.kind {
        ContainerKind::Init => &actions.init_containers_to_start,
        _ => &actions.containers_to_start,
    };
    to_start.contains(&entry.index)
}

/// `grace-raised`: a declared grace period below what `hooks::kill_container` gives for a
/// kill (the kubelet's 2 s floor).
fn grace_raised(pod: &Pod, containers: &[Entry<'_>], out: &mut Vec<Raw>) {
    let declared = pod
        .spec
        .as_ref()
        .and_then(|s| s.termination_grace_period_seconds);
    if let Some(declared) = declared {
        let used = kill_container(pod, None, "", KillReason::None, None, None).0;
        if used > declared {
            out.push(Raw {
                rule: Rule::GraceRaised,
                path: "pod.spec.terminationGracePeriodSeconds".into(),
                message: format!(
                    "terminationGracePeriodSeconds is {declared}; the kubelet gives containers {used} s when it kills them"
                ),
            });
        }
    }
    for entry in containers {
        let c = entry.container.as_ref();
        let probes = [
            (
                "livenessProbe",
                KillReason::LivenessProbe,
                c.liveness_probe.as_ref(),
            ),
            (
                "startupProbe",
                KillReason::StartupProbe,
                c.startup_probe.as_ref(),
            ),
        ];
        for (field, reason, probe) in probes {
            let Some(declared) = probe.and_then(|p| p.termination_grace_period_seconds) else {
                continue;
            };
            let used = kill_container(pod, Some(c), "", reason, None, None).0;
            if used > declared {
                out.push(Raw {
                    rule: Rule::GraceRaised,
                    path: format!("{}.{field}.terminationGracePeriodSeconds", entry.path),
                    message: format!(
                        "{field}.terminationGracePeriodSeconds is {declared}; the kubelet gives container {:?} {used} s when the probe kills it",
                        c.name
                    ),
                });
            }
        }
    }
}
