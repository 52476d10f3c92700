//! `podplan explain`: the node a served pod runs on, as a plausible cluster node, and the
//! objects podplan cannot see (ConfigMaps, Secrets, the image's USER).
//!
//! * The kubelet is configured as kubeadm sets one up: `clusterDNS: [10.96.0.10]`,
//!   `clusterDomain: cluster.local` (a stock kubelet has neither, and a `ClusterFirst` pod
//!   would get `MissingClusterDNS`, which no real cluster node reports). The host IPs and
//!   the node name are the pod's own (`status.hostIPs`, `spec.nodeName`).
//! * Every ConfigMap and Secret the containers' environment reads
//!   (`env[].valueFrom.configMapKeyRef`/`secretKeyRef`, `envFrom[]`) is **assumed to
//!   exist** with the keys read, unless the pod's status shows the kubelet's error for it
//!   (`CreateContainerConfigError` with `configmap "x" not found` or `couldn't find key k
//!   in ConfigMap ns/x`): "unknown is not false". A container that was created evidently
//!   had them.
//! * The image's USER is unknown: `runAsNonRoot` is taken as satisfied unless the status
//!   shows the kubelet's `runAsNonRoot` error (`image will run as root`, `non-numeric
//!   user`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{ConfigMap, Container, ContainerStatus, Pod, Secret};
use k8s_openapi::ByteString;

use crate::request::node::{ImageInfo, KubeletSettings, NodeContext};

/// The cluster DNS service IP assumed for the node (kubeadm's default service CIDR).
pub(crate) const CLUSTER_DNS: &str = "10.96.0.10";
/// The cluster domain assumed for the node.
pub(crate) const CLUSTER_DOMAIN: &str = "cluster.local";

/// The reconstructed node with what was assumed.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NodeGuess {
    /// The node context of the request.
    pub node: NodeContext,
    /// What was assumed or is unknown, in words.
    pub assumptions: Vec<String>,
    /// Objects the kubelet reported missing in the pod's status: (container, message).
    pub reported: Vec<(String, String)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum ObjKind {
    ConfigMap,
    Secret,
}

impl ObjKind {
    fn word(self) -> &'static str {
        match self {
            Self::ConfigMap => "configmap",
            Self::Secret => "secret",
        }
    }
}

#[derive(Debug, Default)]
struct Reference {
    keys: BTreeSet<String>,
    users: BTreeSet<String>,
    /// Every reference is `optional: true`.
    optional: bool,
    /// A container that reads it without `optional` was created (running or exited).
    evidenced_by: BTreeSet<String>,
}

/// What a status says about the kubelet's config errors: missing objects, missing keys,
/// the image user.
#[derive(Debug, Default)]
struct Evidence {
    missing: BTreeMap<(ObjKind, String), (String, String)>,
    missing_keys: BTreeMap<(ObjKind, String), BTreeSet<String>>,
    root_images: BTreeMap<String, (String, String)>,
    named_users: BTreeMap<String, (String, String)>,
}

fn kind_of(word: &str) -> Option<ObjKind> {
    match word {
        "configmap" | "configmaps" | "ConfigMap" => Some(ObjKind::ConfigMap),
        "secret" | "secrets" | "Secret" => Some(ObjKind::Secret),
        _ => None,
    }
}

/// `configmap "x" not found` (the kubelet's object managers name the resource in the
/// singular; the API server's own message uses the plural).
fn parse_not_found(message: &str) -> Option<(ObjKind, String)> {
    let head = message.trim().strip_suffix(" not found")?;
    let (word, quoted) = head.rsplit_once(' ').map_or((head, ""), |(w, q)| (w, q));
    let word = word.rsplit(' ').next().unwrap_or(word);
    let name = quoted.strip_prefix('"')?.strip_suffix('"')?;
    Some((kind_of(word)?, name.to_string()))
}

/// `couldn't find key K in ConfigMap ns/name`.
fn parse_missing_key(message: &str) -> Option<(ObjKind, String, String)> {
    let rest = message.trim().strip_prefix("couldn't find key ")?;
    let (key, rest) = rest.split_once(" in ")?;
    let (kind, object) = rest.split_once(' ')?;
    let name = object.rsplit('/').next().unwrap_or(object);
    Some((kind_of(kind)?, name.to_string(), key.to_string()))
}

fn find<'a>(list: Option<&'a Vec<ContainerStatus>>, name: &str) -> Option<&'a ContainerStatus> {
    list.and_then(|l| l.iter().find(|s| s.name == name))
}

fn containers(pod: &Pod) -> Vec<(Container, Option<&ContainerStatus>)> {
    let Some(spec) = pod.spec.as_ref() else {
        return Vec::new();
    };
    let status = pod.status.as_ref();
    let mut out = Vec::new();
    for c in spec.init_containers.iter().flatten() {
        let s = find(
            status.and_then(|s| s.init_container_statuses.as_ref()),
            &c.name,
        );
        out.push((c.clone(), s));
    }
    for c in &spec.containers {
        let s = find(status.and_then(|s| s.container_statuses.as_ref()), &c.name);
        out.push((c.clone(), s));
    }
    for e in spec.ephemeral_containers.iter().flatten() {
        let s = find(
            status.and_then(|s| s.ephemeral_container_statuses.as_ref()),
            &e.name,
        );
        let c = Container {
            name: e.name.clone(),
            image: e.image.clone(),
            env: e.env.clone(),
            env_from: e.env_from.clone(),
            security_context: e.security_context.clone(),
            ..Container::default()
        };
        out.push((c, s));
    }
    out
}

/// The container was created in the runtime (its config, env included, was generated).
fn was_created(s: Option<&ContainerStatus>) -> bool {
    s.is_some_and(|s| {
        let st = s.state.as_ref();
        st.is_some_and(|st| st.running.is_some() || st.terminated.is_some())
            || s.last_state
                .as_ref()
                .is_some_and(|l| l.terminated.is_some())
    })
}

fn evidence(all: &[(Container, Option<&ContainerStatus>)]) -> Evidence {
    let mut ev = Evidence::default();
    for (c, s) in all {
        let Some(w) = s
            .and_then(|s| s.state.as_ref())
            .and_then(|st| st.waiting.as_ref())
        else {
            continue;
        };
        if w.reason.as_deref() != Some(crate::config::errors::CREATE_CONTAINER_CONFIG_ERROR) {
            continue;
        }
        let message = w.message.clone().unwrap_or_default();
        let image = c.image.clone().unwrap_or_default();
        let seen = (c.name.clone(), message.clone());
        if let Some((kind, name)) = parse_not_found(&message) {
            ev.missing.insert((kind, name), seen);
        } else if let Some((kind, name, key)) = parse_missing_key(&message) {
            ev.missing_keys.entry((kind, name)).or_default().insert(key);
        } else if message.contains("image will run as root") {
            ev.root_images.insert(image, seen);
        } else if let Some(user) = message
            .split_once("image has non-numeric user (")
            .and_then(|(_, rest)| rest.split_once(')'))
            .map(|(u, _)| u.to_string())
        {
            ev.named_users.insert(image, (user, message));
        }
    }
    ev
}

fn references(
    all: &[(Container, Option<&ContainerStatus>)],
) -> BTreeMap<(ObjKind, String), Reference> {
    let mut refs: BTreeMap<(ObjKind, String), Reference> = BTreeMap::new();
    let mut add = |kind: ObjKind,
                   name: &str,
                   key: Option<&str>,
                   optional: bool,
                   c: &Container,
                   created: bool| {
        let fresh = !refs.contains_key(&(kind, name.to_string()));
        let r = refs.entry((kind, name.to_string())).or_default();
        r.optional = if fresh {
            optional
        } else {
            r.optional && optional
        };
        if let Some(k) = key {
            r.keys.insert(k.to_string());
        }
        r.users.insert(c.name.clone());
        if created && !optional {
            r.evidenced_by.insert(c.name.clone());
        }
    };
    for (c, s) in all {
        let created = was_created(*s);
        for from in c.env_from.iter().flatten() {
            if let Some(cm) = &from.config_map_ref {
                let optional = cm.optional == Some(true);
                add(ObjKind::ConfigMap, &cm.name, None, optional, c, created);
            }
            if let Some(sr) = &from.secret_ref {
                let optional = sr.optional == Some(true);
                add(ObjKind::Secret, &sr.name, None, optional, c, created);
            }
        }
        for var in c.env.iter().flatten() {
            let Some(from) = &var.value_from else {
                continue;
            };
            if let Some(k) = &from.config_map_key_ref {
                let optional = k.optional == Some(true);
                add(
                    ObjKind::ConfigMap,
                    &k.name,
                    Some(&k.key),
                    optional,
                    c,
                    created,
                );
            }
            if let Some(k) = &from.secret_key_ref {
                let optional = k.optional == Some(true);
                add(ObjKind::Secret, &k.name, Some(&k.key), optional, c, created);
            }
        }
    }
    refs
}

fn list(items: &BTreeSet<String>) -> String {
    items.iter().cloned().collect::<Vec<_>>().join(", ")
}

/// `runAsNonRoot` in effect for a container with no `runAsUser` (the image user decides).
fn image_user_matters(pod: &Pod, c: &Container) -> bool {
    let psc = pod.spec.as_ref().and_then(|s| s.security_context.as_ref());
    let csc = c.security_context.as_ref();
    let non_root = csc
        .and_then(|s| s.run_as_non_root)
        .or_else(|| psc.and_then(|s| s.run_as_non_root));
    let user = csc
        .and_then(|s| s.run_as_user)
        .or_else(|| psc.and_then(|s| s.run_as_user));
    non_root == Some(true) && user.is_none()
}

/// The node context for `pod` and what it assumes.
#[must_use]
pub(crate) fn node(pod: &Pod, host_ips: Vec<String>) -> NodeGuess {
    let all = containers(pod);
    let ev = evidence(&all);
    let mut guess = NodeGuess::default();
    let mut node = NodeContext {
        name: pod.spec.as_ref().and_then(|s| s.node_name.clone()),
        host_ips,
        kubelet: KubeletSettings {
            cluster_dns: Some(vec![CLUSTER_DNS.to_string()]),
            cluster_domain: Some(CLUSTER_DOMAIN.to_string()),
            ..KubeletSettings::default()
        },
        ..NodeContext::default()
    };
    guess.assumptions.push(format!(
        "node {}: a cluster node as kubeadm sets one up (clusterDNS {CLUSTER_DNS}, clusterDomain {CLUSTER_DOMAIN}); the pod's volumes (ServiceAccount token, projected ConfigMaps and Secrets included) are taken as mounted; every other node and kubelet fact (memory, cgroups, devices) takes the stock kubelet's default",
        node.name.as_deref().unwrap_or("(none)")
    ));
    for ((kind, name), r) in references(&all) {
        let what = format!("{} {name:?}", kind.word());
        let users = list(&r.users);
        if let Some((container, message)) = ev.missing.get(&(kind, name.clone())) {
            guess.assumptions.push(format!(
                "{what} (read by {users}): missing: the kubelet reported it (container {container}: CreateContainerConfigError: {message})"
            ));
            guess.reported.push((container.clone(), message.clone()));
            continue;
        }
        let missing_keys = ev
            .missing_keys
            .get(&(kind, name.clone()))
            .cloned()
            .unwrap_or_default();
        let keys: Vec<String> = r
            .keys
            .iter()
            .filter(|k| !missing_keys.contains(*k))
            .cloned()
            .collect();
        match kind {
            ObjKind::ConfigMap => {
                let data = keys.iter().map(|k| (k.clone(), String::new())).collect();
                node.config_maps.insert(
                    name.clone(),
                    ConfigMap {
                        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                            name: Some(name.clone()),
                            namespace: pod.metadata.namespace.clone(),
                            ..Default::default()
                        },
                        data: Some(data),
                        ..ConfigMap::default()
                    },
                );
            }
            ObjKind::Secret => {
                let data = keys
                    .iter()
                    .map(|k| (k.clone(), ByteString(Vec::new())))
                    .collect();
                node.secrets.insert(
                    name.clone(),
                    Secret {
                        metadata: k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta {
                            name: Some(name.clone()),
                            namespace: pod.metadata.namespace.clone(),
                            ..Default::default()
                        },
                        data: Some(data),
                        ..Secret::default()
                    },
                );
            }
        }
        let keys_words = if r.keys.is_empty() {
            String::new()
        } else {
            format!(", keys {}", list(&r.keys))
        };
        let why = if !missing_keys.is_empty() {
            format!(
                "exists, but the kubelet reported the keys {} missing (CreateContainerConfigError)",
                list(&missing_keys)
            )
        } else if !r.evidenced_by.is_empty() {
            format!(
                "assumed to exist: podplan cannot see it, and {} was created with it, so it evidently does",
                list(&r.evidenced_by)
            )
        } else if r.optional {
            "assumed to exist (podplan cannot see it; every reference is optional)".to_string()
        } else {
            "assumed to exist: podplan cannot see it, and the pod's status reports no error for it"
                .to_string()
        };
        guess
            .assumptions
            .push(format!("{what} (read by {users}{keys_words}): {why}"));
    }
    let mut seen = BTreeSet::new();
    for (c, _) in &all {
        let image = c.image.clone().unwrap_or_default();
        if !image_user_matters(pod, c) || !seen.insert(image.clone()) {
            continue;
        }
        if let Some((container, message)) = ev.root_images.get(&image) {
            node.images.insert(
                image.clone(),
                ImageInfo {
                    uid: Some(0),
                    ..ImageInfo::default()
                },
            );
            guess.assumptions.push(format!(
                "image {image:?}: runs as root: the kubelet reported it (container {container}: {message})"
            ));
            guess.reported.push((container.clone(), message.clone()));
        } else if let Some((user, message)) = ev.named_users.get(&image) {
            node.images.insert(
                image.clone(),
                ImageInfo {
                    username: user.clone(),
                    ..ImageInfo::default()
                },
            );
            guess.reported.push((c.name.clone(), message.clone()));
            guess.assumptions.push(format!(
                "image {image:?}: its USER {user:?} is not numeric: the kubelet reported it ({message})"
            ));
        } else {
            guess.assumptions.push(format!(
                "image {image:?}: its USER is unknown (podplan cannot read images): runAsNonRoot is taken as satisfied, as the pod's status reports no error for it"
            ));
        }
    }
    guess.node = node;
    guess
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kubelet_messages_are_parsed() {
        assert_eq!(
            parse_not_found("configmap \"app-config\" not found"),
            Some((ObjKind::ConfigMap, "app-config".to_string()))
        );
        assert_eq!(
            parse_not_found("secrets \"db\" not found"),
            Some((ObjKind::Secret, "db".to_string()))
        );
        assert_eq!(parse_not_found("container \"x\" not found"), None);
        assert_eq!(
            parse_missing_key("couldn't find key LEVEL in ConfigMap shop/app-config"),
            Some((
                ObjKind::ConfigMap,
                "app-config".to_string(),
                "LEVEL".to_string()
            ))
        );
    }
}
