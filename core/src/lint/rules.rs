//! The rules, each read off an engine output.

use std::borrow::Cow;
use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Container, Pod, Service, ServicePort, ServiceSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

use super::catalog::Rule;
use super::facts::{self, Known, LintFacts, ObjectKind, Unknown, WindowsVerdict, World};
use crate::config::container::ephemeral_as_container;
use crate::config::{self, ConfigError, ContainerKind};
use crate::features::FeatureGates;
use crate::hooks::kill_container;
use crate::plan::{KillReason, PodActions};
use crate::request::NodeContext;
use crate::request::{PlanRequest, ProbeResult};
use crate::sim::{script, Simulation};

/// A finding before settings and the object's path prefix: the path is an engine path
/// (`pod.spec...`).
pub(super) struct Raw {
    pub rule: Rule,
    pub path: String,
    pub message: String,
    /// The unknowns a conditional finding depends on (empty: certain).
    pub depends_on: Vec<Unknown>,
}

/// Runs the rules `enabled` selects on `pod`.
pub(super) fn run(pod: Pod, facts: &LintFacts, enabled: impl Fn(Rule) -> bool) -> Vec<Raw> {
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
                depends_on: Vec::new(),
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
    if enabled(Rule::ConfigError) {
        // Node facts that cannot be read were refused by `LintSettings::validate`.
        let empty = LintFacts::default();
        let known = Known::new(facts, pod)
            .or_else(|_| Known::new(&empty, pod))
            .ok();
        if let Some(known) = known {
            config_errors(&request, &known, &gates, &containers(spec), &mut out);
            volume_objects(&request.pod, &known, &mut out);
        }
    }
    let containers = containers(spec);
    if enabled(Rule::UnexpandedVariable) {
        let service = master_service_variables(pod);
        for c in &containers {
            unexpanded(&service, c, &mut out);
        }
    }
    if enabled(Rule::ProbePortName) {
        containers
            .iter()
            .for_each(|c| probe_port_names(c, &mut out));
    }
    if enabled(Rule::DuplicateEnv) {
        containers.iter().for_each(|c| duplicate_env(c, &mut out));
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
    /// What the kubelet's restart decision for the container reads besides the pod
    /// (`ShouldContainerBeRestarted`: its kind, probe and restart policy and rules):
    /// scenarios with the same key end the same way, and only one is simulated.
    key: String,
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
            let key = format!(
                "{:?}/{field}/{:?}/{}",
                c.kind,
                c.container.restart_policy,
                serde_json::to_string(&c.container.restart_policy_rules).unwrap_or_default()
            );
            out.push(Scenario {
                key,
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
    // One simulation per kind of scenario: linear in the number of containers. Each
    // simulation but the last leaves `settled` as it was, so what runs there is read
    // once (a scan per scenario would be quadratic).
    let up = running_names(&settled);
    let mut decided: std::collections::BTreeMap<&str, bool> = std::collections::BTreeMap::new();
    for s in scenarios {
        if !up.contains(s.name.as_str()) {
            continue;
        }
        let ends = match decided.get(s.key.as_str()) {
            Some(&ends) => ends,
            None => {
                let ends = ends_for_good(&mut settled, s, false);
                decided.insert(s.key.as_str(), ends);
                ends
            }
        };
        if ends {
            out.push(Raw {
                rule: Rule::ProbeEndsPod,
                path: format!("{}.{}", s.path, s.field),
                message: format!(
                    "when its {} fails, the kubelet kills container {:?} and does not start it again",
                    s.field, s.name
                ),
                depends_on: Vec::new(),
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

/// Config errors that depend on runtime state rather than on the pod or the facts: not
/// the pod's fault at admission (an unsynced service lister, an env file, an ephemeral
/// container's target).
fn depends_on_runtime_state(e: &ConfigError) -> bool {
    matches!(
        e,
        ConfigError::ServicesNotSynced | ConfigError::EnvFile(_) | ConfigError::TargetNotFound(_)
    )
}

/// The worlds the unknowns of `known` ask for, the favourable one first. A world is
/// left out when nothing of `pod` (its `containers`) reads the unknown it varies, so its outcome would be
/// the favourable one's: only `verifyRunAsNonRoot` reads the image's user
/// ([`reads_image_user`]); only `hostUsers: false` reads the handler's user-namespace
/// support (the one feature the default node lacks).
fn worlds(known: &Known<'_>, pod: &Pod, containers: &[Entry<'_>]) -> Vec<World> {
    let mut out = vec![World::Favourable];
    if containers
        .iter()
        .any(|c| reads_image_user(pod, &c.container))
        && known
            .references
            .images
            .iter()
            .any(|i| !known.image_known(i))
    {
        out.push(World::RootImages);
    }
    let unknown_object = known
        .references
        .config_maps
        .keys()
        .any(|n| !known.object_known(ObjectKind::ConfigMap, n))
        || known
            .references
            .secrets
            .keys()
            .any(|n| !known.object_known(ObjectKind::Secret, n));
    if unknown_object {
        out.push(World::MissingObjects);
    }
    if !known.node_known() && pod.spec.as_ref().and_then(|s| s.host_users) == Some(false) {
        out.push(World::DefaultNode);
    }
    out
}

/// The sandbox's and each container's config error in one world.
struct Outcome {
    sandbox: Option<ConfigError>,
    containers: Vec<Option<ConfigError>>,
}

fn outcome(
    request: &PlanRequest,
    node: &NodeContext,
    gates: &FeatureGates,
    containers: &[Entry<'_>],
    world: World,
) -> Outcome {
    let pod = &request.pod;
    // Only what reads the unknown a world varies can end otherwise than in the
    // favourable world; the rest is not generated again (`None`: as favourable).
    let sandbox = matches!(world, World::Favourable | World::DefaultNode)
        .then(|| config::sandbox::generate_pod_sandbox_config(pod, 0, node, gates).err())
        .flatten();
    // The pod's QoS class reads every container: once, not once per container.
    let pod_qos = Some(config::pod_qos_of(request, gates));
    let containers = containers
        .iter()
        .map(|c| {
            let reads = match world {
                World::Favourable | World::DefaultNode => true,
                World::RootImages => reads_image_user(pod, &c.container),
                World::MissingObjects => reads_objects(&c.container),
            };
            if !reads {
                return None;
            }
            config::generate_on(request, node, gates, c.kind, c.index, pod_qos)
                .err()
                .map(|(_, e)| e)
        })
        .collect();
    Outcome {
        sandbox,
        containers,
    }
}

/// Whether the kubelet reads `c`'s image user (`verifyRunAsNonRoot`): only when
/// `runAsNonRoot` is in effect and no `runAsUser` is (the container's security context
/// over the pod's).
fn reads_image_user(pod: &Pod, c: &Container) -> bool {
    let pod_sc = pod.spec.as_ref().and_then(|s| s.security_context.as_ref());
    let sc = c.security_context.as_ref();
    let non_root = sc
        .and_then(|s| s.run_as_non_root)
        .or_else(|| pod_sc.and_then(|s| s.run_as_non_root))
        == Some(true);
    let user = sc
        .and_then(|s| s.run_as_user)
        .or_else(|| pod_sc.and_then(|s| s.run_as_user));
    non_root && user.is_none()
}

/// Whether `c`'s config reads ConfigMaps or Secrets: its env (`valueFrom`, `envFrom`) or
/// its volume mounts.
fn reads_objects(c: &Container) -> bool {
    c.env_from.as_ref().is_some_and(|e| !e.is_empty())
        || c.env.iter().flatten().any(|v| v.value_from.is_some())
        || c.volume_mounts.as_ref().is_some_and(|m| !m.is_empty())
}

/// What a config error becomes on a node whose OS may be Windows: `verifyRunAsNonRoot`
/// there (`security_context_windows.go`) reads `windowsOptions.runAsUserName` and the
/// image's user name, not uids. `None`: no error on Windows.
fn on_windows(
    known: &Known<'_>,
    pod: &Pod,
    c: &Container,
    world: World,
    e: &ConfigError,
) -> Option<WindowsVerdict> {
    if !matches!(e, ConfigError::NonRoot(_)) || !facts::maybe_windows(pod, c) {
        return None;
    }
    let image = c.image.clone().unwrap_or_default();
    let user = match known.facts.images.get(&image) {
        Some(f) => Some(f.username.clone().unwrap_or_default()),
        None => known
            .node
            .as_ref()
            .and_then(|n| n.images.get(&image))
            .map(|i| i.username.clone()),
    };
    let user = match (user, world) {
        (Some(u), _) => Some(u),
        (None, World::RootImages) => Some("ContainerAdministrator".to_string()),
        (None, _) => None,
    };
    Some(facts::windows_non_root(pod, c, user.as_deref()))
}

/// `config-error`: `generatePodSandboxConfig` and `generateContainerConfig` for the pod
/// as new, in every world the unknowns ask for ([`worlds`]). An error of the favourable
/// world is certain (every world fails); one of another world only is conditional on
/// the unknown that world changes.
fn config_errors(
    request: &PlanRequest,
    known: &Known<'_>,
    gates: &FeatureGates,
    containers: &[Entry<'_>],
    out: &mut Vec<Raw>,
) {
    let worlds = worlds(known, &request.pod, containers);
    let mut outcomes = Vec::with_capacity(worlds.len());
    for &world in &worlds {
        let node = known.node(world);
        outcomes.push((world, outcome(request, &node, gates, containers, world)));
    }
    let pod = &request.pod;
    // The sandbox.
    let mut reported = false;
    for (world, o) in &outcomes {
        let Some(e) = o.sandbox.as_ref().filter(|e| !depends_on_runtime_state(e)) else {
            continue;
        };
        let message = format!("{}: {e}", config::errors::CREATE_POD_SANDBOX_ERROR);
        if *world == World::Favourable {
            out.push(raw(
                Rule::ConfigError,
                "pod.spec".into(),
                message,
                Vec::new(),
            ));
            break;
        }
        if !reported {
            reported = true;
            let (unknown, wording) = node_unknown(e);
            out.push(raw(
                Rule::ConfigError,
                "pod.spec".into(),
                format!("depends on {wording}: the kubelet refuses the pod if it does not ({message}), creates it otherwise"),
                vec![unknown],
            ));
        }
    }
    for (i, c) in containers.iter().enumerate() {
        let container = c.container.as_ref();
        // A Windows pod is refused for its runAsUserName whatever the image, which the
        // Linux check (the one the worlds run) does not see.
        if facts::windows_pod(pod) {
            let refusal = ConfigError::NonRoot(String::new());
            if let Some(WindowsVerdict::Refused(text)) =
                on_windows(known, pod, container, World::Favourable, &refusal)
            {
                let message = format!("{}: {text}", config::errors::CREATE_CONTAINER_CONFIG_ERROR);
                out.push(raw(Rule::ConfigError, c.path.clone(), message, Vec::new()));
                continue;
            }
        }
        let mut conditional: Vec<(Vec<Unknown>, String)> = Vec::new();
        for (world, o) in &outcomes {
            let Some(e) = o
                .containers
                .get(i)
                .and_then(Option::as_ref)
                .filter(|e| !depends_on_runtime_state(e))
            else {
                continue;
            };
            let event =
                |text: &str| format!("{}: {text}", config::errors::CREATE_CONTAINER_CONFIG_ERROR);
            let mut message = event(&e.to_string());
            let mut extra = Vec::new();
            match on_windows(known, pod, container, *world, e) {
                None => {}
                Some(WindowsVerdict::Allowed) if facts::windows_pod(pod) => continue,
                Some(WindowsVerdict::Allowed) => extra.push(Unknown::Node("os".into())),
                Some(WindowsVerdict::Refused(text)) => message = event(&text),
                Some(WindowsVerdict::DependsOnImage) => {
                    extra.push(Unknown::ImageUser(
                        container.image.clone().unwrap_or_default(),
                    ));
                }
            }
            if *world == World::Favourable && extra.is_empty() {
                out.push(raw(Rule::ConfigError, c.path.clone(), message, Vec::new()));
                conditional.clear();
                break;
            }
            let image = container.image.clone().unwrap_or_default();
            let windows = facts::maybe_windows(pod, container);
            let image_dependent = *world == World::RootImages
                || extra.iter().any(|u| matches!(u, Unknown::ImageUser(_)));
            let (mut unknowns, wording) = match world {
                _ if image_dependent => (
                    vec![Unknown::ImageUser(image.clone())],
                    if windows {
                        format!("depends on the image's USER ({image}): the kubelet refuses the container if it is ContainerAdministrator ({message}), allows it otherwise")
                    } else {
                        format!("depends on the image's USER ({image}): the kubelet refuses the container if it is 0 or non-numeric ({message}), allows it otherwise")
                    },
                ),
                World::MissingObjects => {
                    let unknowns = object_unknowns(known, container, e);
                    let names: Vec<String> = unknowns.iter().map(describe).collect();
                    (
                        unknowns,
                        format!("depends on {}: the kubelet refuses the container while it is missing ({message}), creates it otherwise", names.join(" and ")),
                    )
                }
                World::DefaultNode => {
                    let (unknown, wording) = node_unknown(e);
                    (
                        vec![unknown],
                        format!("depends on {wording}: the kubelet refuses the container if it does not ({message}), creates it otherwise"),
                    )
                }
                World::Favourable | World::RootImages => (
                    Vec::new(),
                    format!("depends on the node's OS: on Linux the kubelet refuses the container ({message}), on Windows it allows it"),
                ),
            };
            for u in extra {
                if !unknowns.contains(&u) {
                    unknowns.push(u);
                }
            }
            if !conditional.iter().any(|(_, m)| *m == wording) {
                conditional.push((unknowns, wording));
            }
        }
        for (unknowns, message) in conditional {
            out.push(raw(Rule::ConfigError, c.path.clone(), message, unknowns));
        }
    }
}

fn raw(rule: Rule, path: String, message: String, depends_on: Vec<Unknown>) -> Raw {
    Raw {
        rule,
        path,
        message,
        depends_on,
    }
}

/// The node fact a config error of the default node reads, and how to say it.
fn node_unknown(e: &ConfigError) -> (Unknown, &'static str) {
    match e {
        ConfigError::RecursiveReadOnly(_) => (
            Unknown::Node("runtimeHandlerFeatures.recursiveReadOnlyMounts".into()),
            "whether the node's runtime handler supports recursive read-only mounts",
        ),
        _ => (
            Unknown::Node("runtimeHandlerFeatures.userNamespaces".into()),
            "whether the node's runtime handler supports user namespaces",
        ),
    }
}

/// The objects an error of the missing-objects world names, or else the unknown
/// objects the container's env refers to.
fn object_unknowns(known: &Known<'_>, c: &Container, e: &ConfigError) -> Vec<Unknown> {
    let named = match e {
        ConfigError::NotFound { kind, name } if kind.starts_with("configmap") => {
            Some(Unknown::ConfigMap(name.clone()))
        }
        ConfigError::NotFound { name, .. } => Some(Unknown::Secret(name.clone())),
        ConfigError::MissingKey { kind, name, .. } if *kind == "ConfigMap" => {
            Some(Unknown::ConfigMap(name.clone()))
        }
        ConfigError::MissingKey { name, .. } => Some(Unknown::Secret(name.clone())),
        _ => None,
    };
    if let Some(u) = named {
        return vec![u];
    }
    let single = Pod {
        spec: Some(k8s_openapi::api::core::v1::PodSpec {
            containers: vec![c.clone()],
            ..Default::default()
        }),
        ..Pod::default()
    };
    let refs = facts::References::of(&single);
    refs.config_maps
        .keys()
        .filter(|n| !known.object_known(ObjectKind::ConfigMap, n))
        .map(|n| Unknown::ConfigMap(n.clone()))
        .chain(
            refs.secrets
                .keys()
                .filter(|n| !known.object_known(ObjectKind::Secret, n))
                .map(|n| Unknown::Secret(n.clone())),
        )
        .collect()
}

fn describe(u: &Unknown) -> String {
    match u {
        Unknown::ImageUser(i) => format!("the USER of image {i:?}"),
        Unknown::ConfigMap(n) => format!("ConfigMap {n:?}"),
        Unknown::Secret(n) => format!("Secret {n:?}"),
        Unknown::Node(f) => format!("the node's {f}"),
        Unknown::Field(f) => format!("the field {f}"),
    }
}

/// The ConfigMaps and Secrets the pod's volumes project: the volume manager cannot
/// mount a volume whose non-optional object, or a key its `items` name, is missing
/// (`pkg/volume/configmap/configmap.go`, `pkg/volume/secret/secret.go`,
/// `pkg/volume/projected/projected.go` SetUpAt), and the pod waits in ContainerCreating.
/// Certain when the facts say so, conditional when the object is unknown.
fn volume_objects(pod: &Pod, known: &Known<'_>, out: &mut Vec<Raw>) {
    let Some(spec) = pod.spec.as_ref() else {
        return;
    };
    for (i, v) in spec.volumes.iter().flatten().enumerate() {
        let path = format!("pod.spec.volumes[{i}]");
        for r in facts::volume_references(v) {
            if r.optional {
                continue;
            }
            let (kind, unknown) = match r.kind {
                ObjectKind::ConfigMap => ("configmap", Unknown::ConfigMap(r.name.clone())),
                ObjectKind::Secret => ("secret", Unknown::Secret(r.name.clone())),
            };
            let failed = |cause: String| {
                format!(
                    "FailedMount: MountVolume.SetUp failed for volume {:?} : {cause}; the pod waits in ContainerCreating",
                    v.name
                )
            };
            if !known.object_known(r.kind, &r.name) {
                out.push(raw(
                    Rule::ConfigError,
                    path.clone(),
                    format!(
                        "depends on {}: the kubelet cannot mount volume {:?} while it is missing{}, mounts it otherwise",
                        describe(&unknown),
                        v.name,
                        if r.keys.is_empty() {
                            String::new()
                        } else {
                            format!(" or lacks a key of {}", r.keys.join(", "))
                        }
                    ),
                    vec![unknown],
                ));
                continue;
            }
            match known.object_keys(r.kind, &r.name) {
                None => out.push(raw(
                    Rule::ConfigError,
                    path.clone(),
                    failed(format!("{kind} {:?} not found", r.name)),
                    Vec::new(),
                )),
                Some(keys) => {
                    if let Some(key) = r.keys.iter().find(|k| !keys.contains(*k)) {
                        let cause = match r.kind {
                            ObjectKind::ConfigMap => {
                                format!("configmap references non-existent config key: {key}")
                            }
                            ObjectKind::Secret => {
                                format!("references non-existent secret key: {key}")
                            }
                        };
                        out.push(raw(
                            Rule::ConfigError,
                            path.clone(),
                            failed(cause),
                            Vec::new(),
                        ));
                    }
                }
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

/// `unexpanded-variable`: a `$(VAR)` that `config::expand::expand` leaves as written
/// where the kubelet visibly differs from what the author meant: in an env value, a
/// variable the env list declares only after it (`makeEnvironmentVariables` expands a
/// value with the variables before it), or, anywhere, a near miss of a declared name
/// (case, or one or two edits). Not reported: shell syntax (`$(hostname)`, `$((1+2))`,
/// a name that is not an identifier, anything in a `sh -c`-style script), service-link
/// variables (`FOO_SERVICE_HOST`, `FOO_PORT_80_TCP`: Services podplan cannot see), and
/// every `$(VAR)` of a container with `envFrom` (its names are unknown).
fn unexpanded(service: &BTreeSet<String>, entry: &Entry<'_>, out: &mut Vec<Raw>) {
    let c = entry.container.as_ref();
    if c.env_from.as_ref().is_some_and(|f| !f.is_empty()) {
        return;
    }
    let env = c.env.as_deref().unwrap_or_default();
    let all: BTreeSet<&str> = env
        .iter()
        .map(|v| v.name.as_str())
        .chain(service.iter().map(String::as_str))
        .collect();
    let mut before: BTreeSet<&str> = service.iter().map(String::as_str).collect();
    let mut check = |path: String, input: &str, known: &BTreeSet<&str>, later: bool| {
        let mut missing = Vec::new();
        let _ = config::expand::expand(input, |name| {
            if !known.contains(name) {
                missing.push(name.to_string());
            }
            None
        });
        for name in missing {
            if !is_identifier(&name) || is_service_link(&name) {
                continue;
            }
            let message = if later && all.contains(name.as_str()) {
                format!(
                    "$({name}) names a variable the env list declares after this one; the kubelet expands an env value with the variables declared before it, so it passes $({name}) on as written"
                )
            } else if let Some(near) = all.iter().find(|d| near_miss(&name, d)) {
                format!(
                    "$({name}) names no variable of container {:?} (did you mean {near}?); the kubelet passes it on as written",
                    c.name
                )
            } else {
                continue;
            };
            out.push(raw(
                Rule::UnexpandedVariable,
                path.clone(),
                message,
                Vec::new(),
            ));
        }
    };
    for (i, var) in env.iter().enumerate() {
        if let Some(value) = var.value.as_deref() {
            check(
                format!("{}.env[{i}].value", entry.path),
                value,
                &before,
                true,
            );
        }
        before.insert(var.name.as_str());
    }
    let command = c.command.as_deref().unwrap_or_default();
    let args = c.args.as_deref().unwrap_or_default();
    if runs_a_shell_script(command, args) {
        return;
    }
    for (list, values) in [("command", command), ("args", args)] {
        for (i, value) in values.iter().enumerate() {
            check(format!("{}.{list}[{i}]", entry.path), value, &all, false);
        }
    }
}

/// A C identifier (what a variable named on purpose looks like; `$(date +%s)` is not).
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A variable the kubelet's service links give (`FOO_SERVICE_HOST`, `FOO_SERVICE_PORT`,
/// `FOO_SERVICE_PORT_HTTP`, `FOO_PORT`, `FOO_PORT_80_TCP[_PROTO|_PORT|_ADDR]`:
/// `pkg/kubelet/envvars/envvars.go`).
fn is_service_link(name: &str) -> bool {
    name.contains("_SERVICE_HOST")
        || name.contains("_SERVICE_PORT")
        || name.ends_with("_PORT")
        || name
            .split_once("_PORT_")
            .is_some_and(|(_, rest)| rest.chars().next().is_some_and(|c| c.is_ascii_digit()))
}

/// The command runs a shell on a script (`sh -c`, `bash -lc`, ...): `$(...)` in it is
/// the shell's command substitution as often as a kubelet reference.
fn runs_a_shell_script(command: &[String], args: &[String]) -> bool {
    let words: Vec<&str> = command.iter().chain(args).map(String::as_str).collect();
    let shell = |w: &str| {
        let base = w.rsplit('/').next().unwrap_or(w);
        matches!(
            base,
            "sh" | "bash" | "ash" | "dash" | "zsh" | "ksh" | "busybox"
        )
    };
    words.iter().any(|w| shell(w))
        && words
            .iter()
            .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains('c'))
}

/// `name` differs from the declared `declared` only in case or by one or two edits.
fn near_miss(name: &str, declared: &str) -> bool {
    if name == declared {
        return false;
    }
    if name.eq_ignore_ascii_case(declared) {
        return true;
    }
    let (a, b): (Vec<char>, Vec<char>) = (name.chars().collect(), declared.chars().collect());
    // Short names are too close to everything.
    if a.len().min(b.len()) < 4 || a.len().abs_diff(b.len()) > 2 {
        return false;
    }
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row.first().copied().unwrap_or_default();
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let above = row.get(j + 1).copied().unwrap_or_default();
            let left = row.get(j).copied().unwrap_or_default();
            let cost = usize::from(ca != cb);
            let value = (diagonal + cost).min(above + 1).min(left + 1);
            diagonal = above;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = value;
            }
        }
    }
    row.last().is_some_and(|d| *d <= 2)
}

/// `probe-port-name`: a liveness, readiness or startup probe whose `httpGet` or
/// `tcpSocket` port is a name the container's `ports` do not declare.
/// `probe.ResolveContainerPort` (`pkg/probe/util.go`) finds no such port, then tries the
/// name as a number and fails; the prober (`pkg/kubelet/prober/prober.go`) reports the
/// probe as errored, which counts as a failure, on every run.
fn probe_port_names(entry: &Entry<'_>, out: &mut Vec<Raw>) {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
    let c = entry.container.as_ref();
    let probes = [
        ("livenessProbe", c.liveness_probe.as_ref()),
        ("readinessProbe", c.readiness_probe.as_ref()),
        ("startupProbe", c.startup_probe.as_ref()),
    ];
    for (field, probe) in probes {
        let Some(probe) = probe else { continue };
        let ports = [
            ("httpGet", probe.http_get.as_ref().map(|h| &h.port)),
            ("tcpSocket", probe.tcp_socket.as_ref().map(|t| &t.port)),
        ];
        for (handler, port) in ports {
            let Some(IntOrString::String(name)) = port else {
                continue;
            };
            let declared = c
                .ports
                .iter()
                .flatten()
                .any(|p| p.name.as_deref() == Some(name.as_str()));
            if declared || name.parse::<i64>().is_ok() {
                continue;
            }
            out.push(raw(
                Rule::ProbePortName,
                format!("{}.{field}.{handler}.port", entry.path),
                format!(
                    "container {:?} declares no port named {name:?}: the kubelet cannot resolve the {field}'s port (Probe errored: strconv.Atoi: parsing {name:?}: invalid syntax) and counts the probe as failed every time",
                    c.name
                ),
                Vec::new(),
            ));
        }
    }
}

/// `duplicate-env`: an env name declared again later in the list. `makeEnvironmentVariables`
/// (`pkg/kubelet/kubelet_pods.go`) keeps one value per name, the last one declared.
fn duplicate_env(entry: &Entry<'_>, out: &mut Vec<Raw>) {
    let c = entry.container.as_ref();
    let env = c.env.as_deref().unwrap_or_default();
    let mut last = std::collections::BTreeMap::new();
    for (i, v) in env.iter().enumerate() {
        last.insert(v.name.as_str(), i);
    }
    for (i, v) in env.iter().enumerate() {
        match last.get(v.name.as_str()) {
            Some(&winner) if winner != i => out.push(raw(
                Rule::DuplicateEnv,
                format!("{}.env[{i}]", entry.path),
                format!(
                    "env {:?} of container {:?} is declared again at env[{winner}]; the kubelet keeps the last value",
                    v.name, c.name
                ),
                Vec::new(),
            )),
            _ => {}
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
    // Init containers start one per sync: a pod with many needs as many more syncs
    // (no silent cut-off for large pods).
    let inits = request
        .pod
        .spec
        .as_ref()
        .and_then(|s| s.init_containers.as_ref())
        .map_or(0, Vec::len);
    let mut sim = Simulation::new(request, t0());
    sim.statuses = false;
    sim.run_until_stable(SETTLE_SYNCS + 2 * inits)
        .ok()
        .map(|_| sim)
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

/// The names of the containers that run in `sim`'s runtime.
fn running_names(sim: &Simulation) -> std::collections::BTreeSet<String> {
    sim.request
        .runtime_status
        .iter()
        .flat_map(|s| s.container_statuses.iter())
        .filter(|s| s.state == crate::runtime::ContainerState::Running)
        .map(|s| s.name.clone())
        .collect()
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
                depends_on: Vec::new(),
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
                    depends_on: Vec::new(),
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
                    key: String::new(),
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
