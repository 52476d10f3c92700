//! What the kubelet reads that admission cannot know, and the alternatives the lint
//! evaluates when a caller does not supply it.
//!
//! `generateContainerConfig` (`pkg/kubelet/kuberuntime/kuberuntime_container.go`) reads
//! the image's user (`getImageUser`, from CRI `ImageStatus`), the ConfigMaps and
//! Secrets the env refers to (`makeEnvironmentVariables`), and the runtime handler's
//! features (`GetOrCreateUserNamespaceMappings`); the volume manager reads the
//! ConfigMaps and Secrets volumes project. A fact the caller supplies is used as given;
//! a missing one is evaluated both ways ([`World`]), and a finding that appears only in
//! some of them is conditional (severity `info`, never `deny`).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::{ConfigMap, Container, Pod, Secret, Volume};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::ByteString;
use serde::{Deserialize, Serialize};

use crate::error::PlanError;
use crate::request::node::{ImageInfo, RuntimeHandlerFeatures};
use crate::request::NodeContext;

/// Facts about the cluster the lint cannot see, supplied by the caller. JSON:
/// `{"images": {"<image>": {"uid": 1000} | {"username": "app"}}, "configMaps": {"<name>":
/// ["key", ...] | null}, "secrets": {...}, "node": {<NodeContext fields>}}`. Every part is
/// optional; what is not given is unknown, never assumed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LintFacts {
    /// The USER of images (what CRI `ImageStatus` reports), by the container's `image`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub images: BTreeMap<String, ImageUserFact>,
    /// ConfigMaps of the pod's namespace: the keys of one that exists, `null` for one
    /// that does not. A name not listed is unknown.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub config_maps: BTreeMap<String, Option<Vec<String>>>,
    /// Secrets of the pod's namespace, as `configMaps`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub secrets: BTreeMap<String, Option<Vec<String>>>,
    /// The node, as the plan request's `node` (a partial `NodeContext`; fields not given
    /// take its defaults). When given, the node is known: its runtime handler features
    /// are what it says (or the defaults).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<serde_json::Value>,
}

impl LintFacts {
    /// No fact given.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self == &LintFacts::default()
    }
}

/// An image's USER: a numeric uid, or a user name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageUserFact {
    /// The numeric uid (wins over the name, as in `getImageUser`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<i64>,
    /// The user name, when the image's USER is not numeric.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub username: Option<String>,
}

/// A fact a conditional finding depends on. JSON: an object with one key, e.g.
/// `{"imageUser": "nginx:1.25"}`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Unknown {
    /// The USER of this image (`facts.images`).
    ImageUser(String),
    /// Whether this ConfigMap exists, and its keys (`facts.configMaps`).
    ConfigMap(String),
    /// Whether this Secret exists, and its keys (`facts.secrets`).
    Secret(String),
    /// A node fact, by its path in `facts.node` (e.g.
    /// `runtimeHandlerFeatures.userNamespaces`, `os`).
    Node(String),
    /// Whether the cluster's API (and kubelet) knows this field, by its path in the
    /// object: a field newer than the 1.37 API podplan reads.
    Field(String),
}

/// One set of answers to the unknowns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum World {
    /// Every unknown as the pod needs it: images run as a non-root uid, referenced
    /// objects exist with every referenced key, the runtime handler supports what the
    /// pod asks for.
    Favourable,
    /// As `Favourable`, but unknown images run as root (uid 0; for Windows,
    /// `ContainerAdministrator`).
    RootImages,
    /// As `Favourable`, but unknown ConfigMaps and Secrets do not exist.
    MissingObjects,
    /// As `Favourable`, but an unknown node has the default node's runtime handler
    /// features.
    DefaultNode,
}

/// A uid that is not root, for images whose USER is unknown.
const NON_ROOT_UID: i64 = 65_532;
/// The value of keys assumed to exist.
const UNKNOWN_VALUE: &str = "podplan-unknown-value";

/// The objects a pod refers to, by name, with the keys it names.
#[derive(Debug, Default)]
pub(super) struct References {
    /// ConfigMap name → keys.
    pub config_maps: BTreeMap<String, BTreeSet<String>>,
    /// Secret name → keys.
    pub secrets: BTreeMap<String, BTreeSet<String>>,
    /// The containers' images.
    pub images: BTreeSet<String>,
}

impl References {
    /// The references of `pod`'s containers' env and of its volumes.
    pub(super) fn of(pod: &Pod) -> Self {
        let mut out = References::default();
        let Some(spec) = pod.spec.as_ref() else {
            return out;
        };
        let mut env = |env_from: Option<&Vec<k8s_openapi::api::core::v1::EnvFromSource>>,
                       env: Option<&Vec<k8s_openapi::api::core::v1::EnvVar>>,
                       image: Option<&String>| {
            out.images.extend(image.cloned());
            for f in env_from.into_iter().flatten() {
                if let Some(r) = &f.config_map_ref {
                    out.config_maps.entry(r.name.clone()).or_default();
                }
                if let Some(r) = &f.secret_ref {
                    out.secrets.entry(r.name.clone()).or_default();
                }
            }
            for v in env.into_iter().flatten() {
                let Some(from) = &v.value_from else { continue };
                if let Some(r) = &from.config_map_key_ref {
                    let keys = out.config_maps.entry(r.name.clone()).or_default();
                    keys.insert(r.key.clone());
                }
                if let Some(r) = &from.secret_key_ref {
                    let keys = out.secrets.entry(r.name.clone()).or_default();
                    keys.insert(r.key.clone());
                }
            }
        };
        for c in spec
            .init_containers
            .iter()
            .flatten()
            .chain(spec.containers.iter())
        {
            env(c.env_from.as_ref(), c.env.as_ref(), c.image.as_ref());
        }
        for e in spec.ephemeral_containers.iter().flatten() {
            env(e.env_from.as_ref(), e.env.as_ref(), e.image.as_ref());
        }
        for v in spec.volumes.iter().flatten() {
            for r in volume_references(v) {
                let map = match r.kind {
                    ObjectKind::ConfigMap => &mut out.config_maps,
                    ObjectKind::Secret => &mut out.secrets,
                };
                map.entry(r.name).or_default().extend(r.keys);
            }
        }
        out
    }
}

/// ConfigMap or Secret.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ObjectKind {
    /// A ConfigMap.
    ConfigMap,
    /// A Secret.
    Secret,
}

/// An object a volume projects.
#[derive(Debug)]
pub(super) struct VolumeReference {
    pub kind: ObjectKind,
    pub name: String,
    /// The `items[].key` it names.
    pub keys: Vec<String>,
    pub optional: bool,
}

/// The ConfigMaps and Secrets a volume projects (`configMap`, `secret`, `projected`).
pub(super) fn volume_references(v: &Volume) -> Vec<VolumeReference> {
    let mut out = Vec::new();
    let keys = |items: &Option<Vec<k8s_openapi::api::core::v1::KeyToPath>>| {
        items.iter().flatten().map(|i| i.key.clone()).collect()
    };
    if let Some(cm) = &v.config_map {
        out.push(VolumeReference {
            kind: ObjectKind::ConfigMap,
            name: cm.name.clone(),
            keys: keys(&cm.items),
            optional: cm.optional == Some(true),
        });
    }
    if let Some(s) = &v.secret {
        out.push(VolumeReference {
            kind: ObjectKind::Secret,
            name: s.secret_name.clone().unwrap_or_default(),
            keys: keys(&s.items),
            optional: s.optional == Some(true),
        });
    }
    for source in v.projected.iter().flat_map(|p| p.sources.iter().flatten()) {
        if let Some(cm) = &source.config_map {
            out.push(VolumeReference {
                kind: ObjectKind::ConfigMap,
                name: cm.name.clone(),
                keys: keys(&cm.items),
                optional: cm.optional == Some(true),
            });
        }
        if let Some(s) = &source.secret {
            out.push(VolumeReference {
                kind: ObjectKind::Secret,
                name: s.name.clone(),
                keys: keys(&s.items),
                optional: s.optional == Some(true),
            });
        }
    }
    out
}

/// The facts with the node read.
pub(super) struct Known<'a> {
    pub facts: &'a LintFacts,
    pub node: Option<NodeContext>,
    pub references: References,
}

impl<'a> Known<'a> {
    /// Reads `facts.node` and the references of `pod`.
    pub(super) fn new(facts: &'a LintFacts, pod: &Pod) -> Result<Self, PlanError> {
        let node = match &facts.node {
            None => None,
            Some(v) => Some(crate::api::from_json_text(&v.to_string()).map_err(|e| {
                PlanError::invalid("settings.facts.node", format!("bad node facts: {e}"))
            })?),
        };
        Ok(Self {
            facts,
            node,
            references: References::of(pod),
        })
    }

    /// Whether the image's USER is known (a fact, or the node facts' images).
    pub(super) fn image_known(&self, image: &str) -> bool {
        self.facts.images.contains_key(image)
            || self
                .node
                .as_ref()
                .is_some_and(|n| n.images.contains_key(image))
    }

    /// Whether an object is known (listed in the facts, or in the node facts).
    pub(super) fn object_known(&self, kind: ObjectKind, name: &str) -> bool {
        match kind {
            ObjectKind::ConfigMap => {
                self.facts.config_maps.contains_key(name)
                    || self
                        .node
                        .as_ref()
                        .is_some_and(|n| n.config_maps.contains_key(name))
            }
            ObjectKind::Secret => {
                self.facts.secrets.contains_key(name)
                    || self
                        .node
                        .as_ref()
                        .is_some_and(|n| n.secrets.contains_key(name))
            }
        }
    }

    /// The keys of a known object (`None`: it does not exist or is unknown).
    pub(super) fn object_keys(&self, kind: ObjectKind, name: &str) -> Option<BTreeSet<String>> {
        let listed = match kind {
            ObjectKind::ConfigMap => self.facts.config_maps.get(name),
            ObjectKind::Secret => self.facts.secrets.get(name),
        };
        if let Some(listed) = listed {
            return listed.as_ref().map(|k| k.iter().cloned().collect());
        }
        let node = self.node.as_ref()?;
        match kind {
            ObjectKind::ConfigMap => node.config_maps.get(name).map(|c| {
                c.data
                    .iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
                    .chain(c.binary_data.iter().flatten().map(|(k, _)| k.clone()))
                    .collect()
            }),
            ObjectKind::Secret => node.secrets.get(name).map(|s| {
                s.data
                    .iter()
                    .flatten()
                    .map(|(k, _)| k.clone())
                    .chain(s.string_data.iter().flatten().map(|(k, _)| k.clone()))
                    .collect()
            }),
        }
    }

    /// Whether some fact the pod's findings could depend on is unknown.
    pub(super) fn node_known(&self) -> bool {
        self.node.is_some()
    }

    /// The node of a world.
    pub(super) fn node(&self, world: World) -> NodeContext {
        let mut node = self.node.clone().unwrap_or_default();
        if self.node.is_none() && world != World::DefaultNode {
            node.runtime_handler_features = Some(RuntimeHandlerFeatures {
                recursive_read_only_mounts: true,
                user_namespaces: true,
            });
        }
        for (image, fact) in &self.facts.images {
            let info = node.images.entry(image.clone()).or_default();
            info.uid = fact.uid;
            info.username = fact.username.clone().unwrap_or_default();
        }
        for image in &self.references.images {
            if self.image_known(image) {
                continue;
            }
            let uid = if world == World::RootImages {
                0
            } else {
                NON_ROOT_UID
            };
            node.images.insert(
                image.clone(),
                ImageInfo {
                    uid: Some(uid),
                    ..ImageInfo::default()
                },
            );
        }
        for (name, keys) in &self.facts.config_maps {
            match keys {
                Some(keys) => {
                    node.config_maps
                        .insert(name.clone(), config_map(name, keys.iter()));
                }
                None => {
                    node.config_maps.remove(name);
                }
            }
        }
        for (name, keys) in &self.facts.secrets {
            match keys {
                Some(keys) => {
                    node.secrets.insert(name.clone(), secret(name, keys.iter()));
                }
                None => {
                    node.secrets.remove(name);
                }
            }
        }
        if world != World::MissingObjects {
            for (name, keys) in &self.references.config_maps {
                if self.object_known(ObjectKind::ConfigMap, name) {
                    continue;
                }
                node.config_maps
                    .insert(name.clone(), config_map(name, keys.iter()));
            }
            for (name, keys) in &self.references.secrets {
                if self.object_known(ObjectKind::Secret, name) {
                    continue;
                }
                node.secrets.insert(name.clone(), secret(name, keys.iter()));
            }
        }
        node
    }
}

/// A ConfigMap `name` whose `keys` hold values the lint does not know.
fn config_map<'k>(name: &str, keys: impl Iterator<Item = &'k String>) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..ObjectMeta::default()
        },
        data: Some(
            keys.map(|k| (k.clone(), UNKNOWN_VALUE.to_string()))
                .collect(),
        ),
        ..ConfigMap::default()
    }
}

/// A Secret `name` whose `keys` hold values the lint does not know.
fn secret<'k>(name: &str, keys: impl Iterator<Item = &'k String>) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(name.to_string()),
            ..ObjectMeta::default()
        },
        data: Some(
            keys.map(|k| (k.clone(), ByteString(UNKNOWN_VALUE.as_bytes().to_vec())))
                .collect(),
        ),
        ..Secret::default()
    }
}

/// The pod is scheduled to a Windows node (`spec.os.name: windows`).
pub(super) fn windows_pod(pod: &Pod) -> bool {
    pod.spec
        .as_ref()
        .and_then(|s| s.os.as_ref())
        .is_some_and(|o| o.name == "windows")
}

/// The pod may run on Windows: it says so, or says nothing of its OS while the
/// container's effective security context sets `windowsOptions.runAsUserName`.
pub(super) fn maybe_windows(pod: &Pod, c: &Container) -> bool {
    let os = pod
        .spec
        .as_ref()
        .and_then(|s| s.os.as_ref())
        .map(|o| o.name.as_str());
    match os {
        Some("windows") => true,
        Some(_) => false,
        None => crate::config::security::effective_security_context(pod, c)
            .windows_options
            .is_some_and(|w| w.run_as_user_name.is_some()),
    }
}

/// `verifyRunAsNonRoot` of `security_context_windows.go`: `runAsUserName` (or, without
/// it, the image's user) must not be `ContainerAdministrator`. `image_user` is `None`
/// when unknown.
pub(super) fn windows_non_root(
    pod: &Pod,
    c: &Container,
    image_user: Option<&str>,
) -> WindowsVerdict {
    let eff = crate::config::security::effective_security_context(pod, c);
    if eff.run_as_non_root != Some(true) {
        return WindowsVerdict::Allowed;
    }
    let administrator = |u: &str| u.eq_ignore_ascii_case("ContainerAdministrator");
    if let Some(name) = eff.windows_options.and_then(|w| w.run_as_user_name) {
        return if administrator(&name) {
            WindowsVerdict::Refused(format!(
                "container's runAsUserName ({name}) which will be regarded as root identity and will break non-root policy (pod: {:?}, container: {})",
                crate::pod::format_pod(pod),
                c.name
            ))
        } else {
            WindowsVerdict::Allowed
        };
    }
    match image_user {
        Some(u) if administrator(u) => WindowsVerdict::Refused(format!(
            "container's runAsUserName ({u}) which will be regarded as root identity and will break non-root policy (pod: {:?}, container: {})",
            crate::pod::format_pod(pod),
            c.name
        )),
        Some(_) => WindowsVerdict::Allowed,
        None => WindowsVerdict::DependsOnImage,
    }
}

/// What the Windows kubelet's `verifyRunAsNonRoot` answers.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum WindowsVerdict {
    /// The container is allowed.
    Allowed,
    /// Refused, with the kubelet's message.
    Refused(String),
    /// Refused if the image's user is `ContainerAdministrator`.
    DependsOnImage,
}
