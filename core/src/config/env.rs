//! Container environment (`makeEnvironmentVariables`, spec §7): service links, `envFrom`,
//! `env` with `$(VAR)` expansion, the downward API, ConfigMap/Secret keys and env files.
//!
//! The kubelet assembles the list from Go maps, so its order is unspecified; podplan
//! emits it sorted by name (byte order).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Container, FileKeySelector, ObjectFieldSelector, Pod, ResourceFieldSelector, Service,
};

use crate::cri::EnvBytes;
use crate::features::{FeatureGates, Gate};
use crate::quantity::Quantity;

use super::errors::ConfigError;
use super::expand::expand_bytes;
use super::mounts::volume_info;
use super::paths::{clean, join_all};
use super::ports::is_ipv6;
use crate::go::encoding::go_quote;
use crate::pod::is_static_pod;
use crate::request::node::NodeContext;

/// One environment variable: its name and its value's bytes (CRI `KeyValue.value` is
/// `bytes`: binary Secret data passes through unchanged, as in the kubelet).
pub(crate) type EnvVar = (String, EnvBytes);

/// The env list of `container` (sorted by name), or the error that stops its creation.
pub fn make_environment_variables(
    pod: &Pod,
    container: &Container,
    pod_ips: &[String],
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<Vec<EnvVar>, ConfigError> {
    let spec = pod
        .spec
        .as_ref()
        .ok_or_else(|| ConfigError::Input("the pod has no spec".into()))?;
    let Some(enable_service_links) = spec.enable_service_links else {
        return Err(ConfigError::NilEnableServiceLinks);
    };
    if !is_static_pod(pod) && !node.services_synced() {
        return Err(ConfigError::ServicesNotSynced);
    }
    let namespace = pod.metadata.namespace.clone().unwrap_or_default();
    let service_env = service_env_map(&node.services, &namespace, enable_service_links);

    let mut tmp: BTreeMap<String, EnvBytes> = BTreeMap::new();
    for from in container.env_from.iter().flatten() {
        let prefix = from.prefix.clone().unwrap_or_default();
        if let Some(cm) = &from.config_map_ref {
            match node.config_maps.get(&cm.name) {
                Some(obj) => {
                    for (k, v) in obj.data.iter().flatten() {
                        tmp.insert(format!("{prefix}{k}"), EnvBytes::from(v.as_str()));
                    }
                }
                None if cm.optional == Some(true) => {}
                None => {
                    return Err(ConfigError::NotFound {
                        kind: "configmaps",
                        name: cm.name.clone(),
                    })
                }
            }
        } else if let Some(sr) = &from.secret_ref {
            match node.secrets.get(&sr.name) {
                Some(obj) => {
                    for (k, v) in obj.data.iter().flatten() {
                        tmp.insert(format!("{prefix}{k}"), EnvBytes(v.0.clone()));
                    }
                }
                None if sr.optional == Some(true) => {}
                None => {
                    return Err(ConfigError::NotFound {
                        kind: "secrets",
                        name: sr.name.clone(),
                    })
                }
            }
        }
    }

    for var in container.env.iter().flatten() {
        let value = var.value.as_deref().unwrap_or_default();
        let resolved = if !value.is_empty() {
            Some(EnvBytes(expand_bytes(value, |name| {
                tmp.get(name)
                    .map(|v| v.as_bytes().to_vec())
                    .or_else(|| service_env.get(name).map(|v| v.as_bytes().to_vec()))
            })))
        } else if let Some(from) = &var.value_from {
            if let Some(f) = &from.field_ref {
                Some(field_ref_value(f, pod, pod_ips, node)?.into())
            } else if let Some(r) = &from.resource_field_ref {
                Some(resource_field_value(r, pod, container, node)?.into())
            } else if let Some(k) = &from.config_map_key_ref {
                let optional = k.optional == Some(true);
                match node.config_maps.get(&k.name) {
                    None if optional => None,
                    None => {
                        return Err(ConfigError::NotFound {
                            kind: "configmaps",
                            name: k.name.clone(),
                        })
                    }
                    Some(obj) => match obj.data.as_ref().and_then(|d| d.get(&k.key)) {
                        Some(v) => Some(EnvBytes::from(v.as_str())),
                        None if optional => None,
                        None => {
                            return Err(ConfigError::MissingKey {
                                kind: "ConfigMap",
                                key: k.key.clone(),
                                namespace: namespace.clone(),
                                name: k.name.clone(),
                            })
                        }
                    },
                }
            } else if let Some(k) = &from.secret_key_ref {
                let optional = k.optional == Some(true);
                match node.secrets.get(&k.name) {
                    None if optional => None,
                    None => {
                        return Err(ConfigError::NotFound {
                            kind: "secrets",
                            name: k.name.clone(),
                        })
                    }
                    Some(obj) => match obj.data.as_ref().and_then(|d| d.get(&k.key)) {
                        Some(v) => Some(EnvBytes(v.0.clone())),
                        None if optional => None,
                        None => {
                            return Err(ConfigError::MissingKey {
                                kind: "Secret",
                                key: k.key.clone(),
                                namespace: namespace.clone(),
                                name: k.name.clone(),
                            })
                        }
                    },
                }
            } else if let (Some(k), true) = (&from.file_key_ref, gates.enabled(Gate::EnvFiles)) {
                file_key_value(pod, k, node)?.map(EnvBytes::from)
            } else {
                Some(EnvBytes::default())
            }
        } else {
            Some(EnvBytes::default())
        };
        if let Some(v) = resolved {
            tmp.insert(var.name.clone(), v);
        }
    }

    let mut out = tmp;
    for (k, v) in service_env {
        out.entry(k).or_insert_with(|| EnvBytes::from(v));
    }
    Ok(out.into_iter().collect())
}

/// `fileKeyRef` (EnvFiles), as the 1.37 kubelet resolves it: the volume must be mounted
/// (else `cannot find the volume "<v>" referenced by FileKeyRef`, optional or not); the
/// file is `<volume host path>/<path>` (securejoin); a file that cannot be read fails
/// with `couldn't parse env file`; a key that is absent **or empty** is skipped when
/// optional, else `environment variable key "<k>" not found in file "<file>"`.
/// `node.envFiles` holds the parsed files: a path missing there is a missing file.
fn file_key_value(
    pod: &Pod,
    k: &FileKeySelector,
    node: &NodeContext,
) -> Result<Option<String>, ConfigError> {
    let Some(volume) = volume_info(pod, &k.volume_name, node).filter(|v| v.image.is_none()) else {
        return Err(ConfigError::EnvFile(format!(
            "cannot find the volume {} referenced by FileKeyRef",
            go_quote(&k.volume_name)
        )));
    };
    let Some(file) = node
        .env_files
        .get(&k.volume_name)
        .and_then(|files| files.get(&k.path))
    else {
        return Err(ConfigError::EnvFile("couldn't parse env file".into()));
    };
    match file.get(&k.key).filter(|v| !v.is_empty()) {
        Some(v) => Ok(Some(v.clone())),
        None if k.optional == Some(true) => Ok(None),
        None => Err(ConfigError::EnvFile(format!(
            "environment variable key {} not found in file {}",
            go_quote(&k.key),
            go_quote(&secure_join(&volume.host_path, &k.path))
        ))),
    }
}

/// `securejoin.SecureJoin` without a filesystem: `unsafe` is resolved lexically inside
/// `root` (`..` cannot climb above it).
fn secure_join(root: &str, unsafe_path: &str) -> String {
    join_all(&[root, &clean(&format!("/{unsafe_path}"))])
}

/// `getServiceEnvVarMap`: the `kubernetes` service of `default` always; services of the
/// pod's namespace when service links are enabled. Services without a cluster IP are
/// skipped.
#[must_use]
pub fn service_env_map(
    services: &[Service],
    namespace: &str,
    enable_service_links: bool,
) -> BTreeMap<String, String> {
    let mut chosen: BTreeMap<String, &Service> = BTreeMap::new();
    for s in services {
        let ip = s
            .spec
            .as_ref()
            .and_then(|sp| sp.cluster_ip.as_deref())
            .unwrap_or("");
        if ip.is_empty() || ip == "None" {
            continue;
        }
        let name = s.metadata.name.clone().unwrap_or_default();
        let ns = s.metadata.namespace.as_deref().unwrap_or("");
        if ns == "default" && name == "kubernetes" {
            chosen.entry(name).or_insert(s);
        } else if ns == namespace && enable_service_links {
            chosen.insert(name, s);
        }
    }
    let mut m = BTreeMap::new();
    for (name, s) in chosen {
        for (k, v) in service_vars(&name, s) {
            m.insert(k, v);
        }
    }
    m
}

fn env_name(s: &str) -> String {
    s.replace('-', "_").to_uppercase()
}

/// `envvars.FromServices` for one service.
fn service_vars(name: &str, s: &Service) -> Vec<(String, String)> {
    let Some(spec) = s.spec.as_ref() else {
        return Vec::new();
    };
    let ip = spec.cluster_ip.clone().unwrap_or_default();
    let ports = spec.ports.as_deref().unwrap_or_default();
    let prefix = env_name(name);
    let mut out = vec![(format!("{prefix}_SERVICE_HOST"), ip.clone())];
    let port_var = format!("{prefix}_SERVICE_PORT");
    if let Some(first) = ports.first() {
        out.push((port_var.clone(), first.port.to_string()));
    }
    for p in ports {
        if let Some(pn) = p.name.as_deref().filter(|n| !n.is_empty()) {
            out.push((format!("{port_var}_{}", env_name(pn)), p.port.to_string()));
        }
    }
    for (i, p) in ports.iter().enumerate() {
        let protocol = p
            .protocol
            .clone()
            .filter(|p| !p.is_empty())
            .unwrap_or_else(|| "TCP".to_string());
        let host_port = if is_ipv6(&ip) {
            format!("[{ip}]:{}", p.port)
        } else {
            format!("{ip}:{}", p.port)
        };
        let lower = protocol.to_lowercase();
        if i == 0 {
            out.push((format!("{prefix}_PORT"), format!("{lower}://{host_port}")));
        }
        let pp = format!("{prefix}_PORT_{}_{}", p.port, protocol.to_uppercase());
        out.push((pp.clone(), format!("{lower}://{host_port}")));
        out.push((format!("{pp}_PROTO"), lower.clone()));
        out.push((format!("{pp}_PORT"), p.port.to_string()));
        out.push((format!("{pp}_ADDR"), ip.clone()));
    }
    out
}

/// `sortPodIPs`: the first IP of the node's primary family, then the first of the other.
#[must_use]
pub(crate) fn sort_pod_ips(pod_ips: &[String], node_ips: &[String]) -> Vec<String> {
    let v6_first = node_ips.first().is_some_and(|ip| is_ipv6(ip));
    let is_v4 = |s: &String| matches!(s.parse::<std::net::IpAddr>(), Ok(std::net::IpAddr::V4(_)));
    let is_v6 = |s: &String| is_ipv6(s);
    type IpTest<'a> = &'a dyn Fn(&String) -> bool;
    let (primary, secondary): (IpTest<'_>, IpTest<'_>) = if v6_first {
        (&is_v6, &is_v4)
    } else {
        (&is_v4, &is_v6)
    };
    let mut out = Vec::new();
    if let Some(ip) = pod_ips.iter().find(|ip| primary(ip)) {
        out.push(ip.clone());
    }
    if let Some(ip) = pod_ips.iter().find(|ip| secondary(ip)) {
        out.push(ip.clone());
    }
    out
}

/// `SplitMaybeSubscriptedPath`: `metadata.labels['k']` → (`metadata.labels`, `k`).
fn split_subscript(path: &str) -> Option<(&str, &str)> {
    let s = path.strip_suffix("']")?;
    let (head, key) = s.split_once("['")?;
    (!head.is_empty()).then_some((head, key))
}

fn format_map(m: Option<&BTreeMap<String, String>>) -> String {
    m.into_iter()
        .flatten()
        .map(|(k, v)| format!("{k}={}", go_quote(v)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `podFieldSelectorRuntimeValue`: a `fieldRef` value.
pub(crate) fn field_ref_value(
    f: &ObjectFieldSelector,
    pod: &Pod,
    pod_ips: &[String],
    node: &NodeContext,
) -> Result<String, ConfigError> {
    let version = f.api_version.as_deref().unwrap_or("");
    if version != "v1" {
        return Err(ConfigError::FieldPath(format!(
            "unsupported pod version: {version}"
        )));
    }
    let label = f.field_path.as_str();
    let path = if let Some((head, _)) = split_subscript(label) {
        if head != "metadata.annotations" && head != "metadata.labels" {
            return Err(ConfigError::FieldPath(format!(
                "field label does not support subscript: {label}"
            )));
        }
        label
    } else {
        match label {
            "spec.host" => "spec.nodeName",
            "metadata.annotations"
            | "metadata.labels"
            | "metadata.name"
            | "metadata.namespace"
            | "metadata.uid"
            | "spec.nodeName"
            | "spec.restartPolicy"
            | "spec.serviceAccountName"
            | "spec.schedulerName"
            | "status.phase"
            | "status.hostIP"
            | "status.hostIPs"
            | "status.podIP"
            | "status.podIPs" => label,
            _ => {
                return Err(ConfigError::FieldPath(format!(
                    "field label not supported: {label}"
                )))
            }
        }
    };
    let sorted = sort_pod_ips(pod_ips, &node.node_ips);
    let pod_ip = sorted
        .first()
        .or_else(|| pod_ips.first())
        .cloned()
        .unwrap_or_default();
    let spec = pod.spec.as_ref();
    match path {
        "spec.nodeName" => return Ok(spec.and_then(|s| s.node_name.clone()).unwrap_or_default()),
        "spec.serviceAccountName" => {
            return Ok(spec
                .and_then(|s| s.service_account_name.clone())
                .unwrap_or_default())
        }
        "status.hostIP" => return Ok(node.host_ips.first().cloned().unwrap_or_default()),
        "status.hostIPs" => return Ok(node.host_ips.join(",")),
        "status.podIP" => return Ok(pod_ip),
        "status.podIPs" => return Ok(sorted.join(",")),
        _ => {}
    }
    let meta = &pod.metadata;
    if let Some((head, key)) = split_subscript(path) {
        let map = if head == "metadata.annotations" {
            meta.annotations.as_ref()
        } else {
            meta.labels.as_ref()
        };
        let check = if head == "metadata.annotations" {
            key.to_lowercase()
        } else {
            key.to_string()
        };
        if let Err(why) = qualified_name(&check) {
            return Err(ConfigError::FieldPath(format!(
                "invalid key subscript in {path}: {why}"
            )));
        }
        return Ok(map.and_then(|m| m.get(key)).cloned().unwrap_or_default());
    }
    match path {
        "metadata.annotations" => Ok(format_map(meta.annotations.as_ref())),
        "metadata.labels" => Ok(format_map(meta.labels.as_ref())),
        "metadata.name" => Ok(meta.name.clone().unwrap_or_default()),
        "metadata.namespace" => Ok(meta.namespace.clone().unwrap_or_default()),
        "metadata.uid" => Ok(meta.uid.clone().unwrap_or_default()),
        other => Err(ConfigError::FieldPath(format!(
            "unsupported fieldPath: {other}"
        ))),
    }
}

/// `IsQualifiedName` (a simplified message on failure).
fn qualified_name(s: &str) -> Result<(), String> {
    let (prefix, name) = match s.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, s),
    };
    let name_ok = !name.is_empty()
        && name.len() <= 63
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
        && name
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric())
        && name
            .bytes()
            .last()
            .is_some_and(|b| b.is_ascii_alphanumeric());
    if !name_ok {
        return Err("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character".into());
    }
    if let Some(p) = prefix {
        if p.is_empty() || super::hostname::dns1123_subdomain(p).is_err() {
            return Err("prefix part must be a valid DNS subdomain".into());
        }
    }
    Ok(())
}

/// `containerResourceRuntimeValue` after `defaultPodLimitsForDownwardAPI`.
pub(crate) fn resource_field_value(
    r: &ResourceFieldSelector,
    pod: &Pod,
    container: &Container,
    node: &NodeContext,
) -> Result<String, ConfigError> {
    let target_name = r.container_name.as_deref().unwrap_or("");
    let (limits, requests) = if target_name.is_empty() {
        (defaulted_limits(container, node), requests_of(container))
    } else {
        let spec = pod.spec.as_ref();
        if let Some(c) = spec.and_then(|s| s.containers.iter().find(|c| c.name == target_name)) {
            (defaulted_limits(c, node), requests_of(c))
        } else if let Some(c) = spec.and_then(|s| {
            s.init_containers
                .iter()
                .flatten()
                .find(|c| c.name == target_name)
        }) {
            (limits_of(c), requests_of(c))
        } else {
            return Err(ConfigError::ContainerNotFound(target_name.to_string()));
        }
    };
    let divisor = r
        .divisor
        .as_ref()
        .and_then(|d| Quantity::parse(&d.0).ok())
        .filter(|q| q.milli_value() != 0);
    let (div_milli, div_value) = divisor.map_or((1000, 1), |d| (d.milli_value(), d.value()));
    let get = |m: &BTreeMap<String, Quantity>, k: &str| m.get(k).copied();
    let cpu = |q: Option<Quantity>| ceil_div(q.map_or(0, |q| q.milli_value()), div_milli);
    let bytes = |q: Option<Quantity>| ceil_div(q.map_or(0, |q| q.value()), div_value);
    let res = r.resource.as_str();
    let out = match res {
        "limits.cpu" => cpu(get(&limits, "cpu")),
        "limits.memory" => bytes(get(&limits, "memory")),
        "limits.ephemeral-storage" => bytes(get(&limits, "ephemeral-storage")),
        "requests.cpu" => cpu(get(&requests, "cpu")),
        "requests.memory" => bytes(get(&requests, "memory")),
        "requests.ephemeral-storage" => bytes(get(&requests, "ephemeral-storage")),
        _ => {
            if let Some(h) = res
                .strip_prefix("requests.")
                .filter(|n| n.starts_with("hugepages-"))
            {
                bytes(get(&requests, h))
            } else if let Some(h) = res
                .strip_prefix("limits.")
                .filter(|n| n.starts_with("hugepages-"))
            {
                bytes(get(&limits, h))
            } else {
                return Err(ConfigError::UnsupportedResource(res.to_string()));
            }
        }
    };
    Ok(out.to_string())
}

fn ceil_div(a: i64, b: i64) -> i64 {
    if b == 0 {
        return 0;
    }
    (a as f64 / b as f64).ceil() as i64
}

fn parse_list(
    rl: Option<&BTreeMap<String, k8s_openapi::apimachinery::pkg::api::resource::Quantity>>,
) -> BTreeMap<String, Quantity> {
    rl.into_iter()
        .flatten()
        .filter_map(|(k, v)| Quantity::parse(&v.0).ok().map(|q| (k.clone(), q)))
        .collect()
}

fn requests_of(c: &Container) -> BTreeMap<String, Quantity> {
    parse_list(c.resources.as_ref().and_then(|r| r.requests.as_ref()))
}

fn limits_of(c: &Container) -> BTreeMap<String, Quantity> {
    parse_list(c.resources.as_ref().and_then(|r| r.limits.as_ref()))
}

/// `MergeContainerResourceLimits`: missing or zero cpu, memory and ephemeral-storage
/// limits take the node's allocatable value.
fn defaulted_limits(c: &Container, node: &NodeContext) -> BTreeMap<String, Quantity> {
    let mut limits = limits_of(c);
    for name in ["cpu", "memory", "ephemeral-storage"] {
        let missing = limits.get(name).is_none_or(|q| q.milli_value() == 0);
        if missing {
            if let Some(q) = node
                .allocatable
                .get(name)
                .and_then(|q| Quantity::parse(&q.0).ok())
            {
                limits.insert(name.to_string(), q);
            }
        }
    }
    limits
}
