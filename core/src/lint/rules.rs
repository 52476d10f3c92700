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
    let scenarios = if enabled(Rule::ProbeEndsPod) && valid {
        probe_scenarios(&containers)
    } else {
        Vec::new()
    };
    let mut grace = Vec::new();
    if enabled(Rule::GraceRaised) {
        grace_raised(pod, &containers, &mut grace);
    }
    // The simulation takes the request: the findings of `grace-raised` come after.
    probes_end_pod(request, &scenarios, &mut out);
    out.append(&mut grace);
    out
}

/// One probe failure `probe-ends-pod` tries: the probe's container and field.
struct Scenario {
    kind: ContainerKind,
    index: usize,
    name: String,
    path: String,
    field: &'static str,
    reason: KillReason,
}

/// The declared liveness and startup probes of the pod's init and regular containers.
fn probe_scenarios(containers: &[Entry<'_>]) -> Vec<Scenario> {
    let mut out = Vec::new();
    for c in containers
        .iter()
        .filter(|c| c.kind != ContainerKind::Ephemeral)
    {
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
        for (field, reason, _) in declared.into_iter().filter(|(_, _, d)| *d) {
            out.push(Scenario {
                kind: c.kind,
                index: c.index,
                name: c.container.name.clone(),
                path: c.path.clone(),
                field,
                reason,
            });
        }
    }
    out
}

/// `probe-ends-pod` for every scenario: the pod is run to a steady state once, and each
/// probe failure starts from that state.
fn probes_end_pod(request: PlanRequest, scenarios: &[Scenario], out: &mut Vec<Raw>) {
    if scenarios.is_empty() {
        return;
    }
    let Some(mut settled) = settle(request) else {
        return;
    };
    let last = scenarios.len() - 1;
    for (i, s) in scenarios.iter().enumerate() {
        if ends_for_good(&mut settled, s, i == last) {
            out.push(Raw {
                rule: Rule::ProbeEndsPod,
                path: format!("{}.{}", s.path, s.field),
                message: format!(
                    "when its {} fails, the kubelet kills container {:?} and does not start it again",
                    s.field, s.name
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
        if let Err((_, e)) = config::generate_for(request, gates, c.kind, c.index, None) {
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
/// when it is carried out. Unless `last`, `settled` is left as it was.
fn ends_for_good(settled: &mut Simulation, s: &Scenario, last: bool) -> bool {
    let name = s.name.as_str();
    if !running(settled, name) {
        return false;
    }
    let saved = (!last).then(|| Scratch::save(&settled.request));
    let failure = Some(ProbeResult::Failure);
    match s.reason {
        KillReason::StartupProbe => script::set_probe(&mut settled.request, name, None, failure),
        _ => script::set_probe(&mut settled.request, name, failure, None),
    }
    settled.prepare();
    let ends = match settled.decide() {
        Err(_) => false,
        // The kubelet restarts a container in the sync that kills it, when it restarts it.
        Ok(actions) if !kills(&actions, s) || starts(&actions, s) => false,
        Ok(_) if last => never_restarted(settled, s),
        Ok(_) => never_restarted(&mut settled.clone(), s),
    };
    if let Some(saved) = saved {
        saved.restore(&mut settled.request);
    }
    ends
}

/// What [`script::set_probe`] and [`Simulation::prepare`] change in a request.
struct Scratch {
    now: Option<jiff::Timestamp>,
    probes: std::collections::BTreeMap<String, crate::request::ProbeResults>,
    runtime_status: Option<crate::runtime::RuntimeStatus>,
}

impl Scratch {
    fn save(request: &PlanRequest) -> Self {
        Self {
            now: request.now,
            probes: request.probes.clone(),
            runtime_status: request.runtime_status.clone(),
        }
    }

    fn restore(self, request: &mut PlanRequest) {
        request.now = self.now;
        request.probes = self.probes;
        request.runtime_status = self.runtime_status;
    }
}

/// The killing sync (prepared and decided in `sim`) is carried out, then up to
/// [`RESTART_SYNCS`] more: none decides to start the container.
fn never_restarted(sim: &mut Simulation, s: &Scenario) -> bool {
    for _ in 0..RESTART_SYNCS {
        let Ok(plan) = sim.plan() else {
            return false;
        };
        sim.carry_out(&plan);
        sim.prepare();
        match sim.decide() {
            Ok(actions) if starts(&actions, s) => return false,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
    true
}

/// The decision kills the container for the scenario's probe.
fn kills(actions: &PodActions, s: &Scenario) -> bool {
    actions
        .containers_to_kill
        .values()
        .any(|k| k.name == s.name && k.reason == s.reason)
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
fn starts(actions: &PodActions, s: &Scenario) -> bool {
    let to_start = match s.kind {
        ContainerKind::Init => &actions.init_containers_to_start,
        _ => &actions.containers_to_start,
    };
    to_start.contains(&s.index)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn settled(restart_policy: &str) -> Option<Simulation> {
        let mut pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "namespace": "default", "uid": "u"},
            "spec": {"restartPolicy": restart_policy,
              "initContainers": [{"name": "i", "image": "busybox"}],
              "containers": [{"name": "a", "image": "busybox",
                "livenessProbe": {"exec": {"command": ["true"]}},
                "startupProbe": {"exec": {"command": ["true"]}}}]}
        }))
        .ok()?;
        let gates = FeatureGates::resolve(&PlanRequest::default().feature_gates);
        crate::defaults::apply_api_defaults_with(&mut pod, &gates);
        settle(PlanRequest {
            pod,
            ..PlanRequest::default()
        })
    }

    #[test]
    fn a_scenario_that_is_not_the_last_leaves_the_settled_pod_as_it_was() {
        for policy in ["Always", "OnFailure", "Never"] {
            let Some(mut base) = settled(policy) else {
                panic!("{policy}: the pod does not settle");
            };
            let before = base.request.clone();
            for (field, reason) in [
                ("livenessProbe", KillReason::LivenessProbe),
                ("startupProbe", KillReason::StartupProbe),
            ] {
                let s = Scenario {
                    kind: ContainerKind::Regular,
                    index: 0,
                    name: "a".into(),
                    path: "pod.spec.containers[0]".into(),
                    field,
                    reason,
                };
                let on_copy = ends_for_good(&mut base.clone(), &s, true);
                assert_eq!(
                    ends_for_good(&mut base, &s, false),
                    on_copy,
                    "{policy} {field}"
                );
                assert_eq!(base.request, before, "{policy} {field}");
                assert_eq!(on_copy, policy == "Never", "{policy} {field}");
            }
        }
    }
}
