//! Lifecycle lint: what the 1.37 kubelet will do with a pod, judged before it reaches a
//! node (admission).
//!
//! Every rule reads an engine output — the CRI config generators, request validation,
//! `$(VAR)` expansion, the runtime model and the kill grace period — and none repeats the
//! kubelet's logic. [`lint_object`] checks an admitted
//! object (a Pod or a workload's pod template, read by JSON path) and gives paths into
//! that object; `verdict` turns findings into an admission answer. The rules and
//! their examples are in `docs/lint.md`.

mod catalog;
mod facts;
mod object;
mod rules;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use serde::{Deserialize, Serialize};

use crate::error::PlanError;

pub use catalog::{Rule, Severity};
pub use facts::ImageUserFact;
pub(crate) use facts::{LintFacts, Unknown};
pub(crate) use object::pod_template;

/// What a rule's findings do to an admission request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// Reject the request.
    Deny,
    /// Accept it with a warning.
    Warn,
    /// Drop the finding.
    Off,
}

/// Which rules deny, warn or are off. JSON: `{"rules": {"<id>": "deny"|"warn"|"off"},
/// "conditionals"?: "warn"|"off", "facts"?: {...}}`; a rule not named keeps its default
/// (errors deny, warnings and infos warn).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintSettings {
    /// Actions by rule id.
    #[serde(default)]
    pub rules: BTreeMap<String, Action>,
    /// What conditional findings (those with `dependsOn`) do: `warn` (the default; `deny`
    /// counts as `warn`: an unknown is never a verdict) or `off`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditionals: Option<Action>,
    /// Facts about the cluster the lint cannot see (image users, ConfigMaps, Secrets,
    /// the node). What is not given is unknown.
    #[serde(default, skip_serializing_if = "LintFacts::is_empty")]
    pub facts: LintFacts,
}

impl LintSettings {
    /// Reads settings from JSON, refusing unknown keys, rule ids and actions.
    pub fn from_json(bytes: &[u8]) -> Result<Self, PlanError> {
        let settings: LintSettings = serde_json::from_slice(bytes)
            .map_err(|e| PlanError::invalid("settings", format!("bad lint settings: {e}")))?;
        settings.validate()?;
        Ok(settings)
    }

    /// Refuses unknown rule ids and node facts that cannot be read.
    pub(crate) fn validate(&self) -> Result<(), PlanError> {
        if let Some(node) = &self.facts.node {
            crate::api::from_json_text::<crate::request::NodeContext>(&node.to_string()).map_err(
                |e| PlanError::invalid("settings.facts.node", format!("bad node facts: {e}")),
            )?;
        }
        match self.rules.keys().find(|id| Rule::from_id(id).is_none()) {
            Some(id) => Err(PlanError::invalid(
                format!("settings.rules.{id}"),
                format!(
                    "unknown lint rule {id:?}; the rules are {}",
                    Rule::ALL.map(Rule::id).join(", ")
                ),
            )),
            None => Ok(()),
        }
    }

    /// The action for `rule`.
    #[must_use]
    pub(crate) fn action(&self, rule: Rule) -> Action {
        match self.rules.get(rule.id()) {
            Some(a) => *a,
            None if rule.severity() == Severity::Error => Action::Deny,
            None => Action::Warn,
        }
    }

    /// The action of a finding of `rule` that depends on `unknowns`: a conditional
    /// finding never denies.
    #[must_use]
    pub(crate) fn action_for(&self, rule: Rule, unknowns: &[Unknown]) -> Action {
        let action = self.action(rule);
        if unknowns.is_empty() || action == Action::Off {
            return action;
        }
        match self.conditionals {
            Some(Action::Off) => Action::Off,
            _ => Action::Warn,
        }
    }
}

/// One finding: which rule, how serious, what it does, where, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// The rule id.
    pub rule: Rule,
    /// The rule's severity.
    pub severity: Severity,
    /// What the settings make of it (never `off`: those are dropped).
    pub action: Action,
    /// JSON path into the linted object, e.g. `spec.template.spec.containers[1]`.
    pub path: String,
    /// What the engine says.
    pub message: String,
    /// What a conditional finding depends on (absent: the finding is certain). A
    /// conditional finding has severity `info` and never denies; supplying the facts
    /// (`LintSettings::facts`) makes the answer exact.
    #[serde(default, rename = "dependsOn", skip_serializing_if = "Vec::is_empty")]
    pub depends_on: Vec<Unknown>,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}: {}", self.rule.id(), self.path, self.message)
    }
}

/// Lints a pod whose paths start at `spec`, every path prefixed by `prefix` (e.g.
/// `spec.template.`); the pod is given away (no copy of it is made).
fn lint_owned(pod: Pod, settings: &LintSettings, prefix: &str) -> Vec<Finding> {
    let raw = rules::run(pod, &settings.facts, |rule| {
        settings.action(rule) != Action::Off
    });
    raw.into_iter()
        .filter_map(|r| {
            let action = settings.action_for(r.rule, &r.depends_on);
            let severity = if r.depends_on.is_empty() {
                r.rule.severity()
            } else {
                Severity::Info
            };
            (action != Action::Off).then(|| Finding {
                rule: r.rule,
                severity,
                action,
                path: object_path(prefix, &r.path),
                message: r.message,
                depends_on: r.depends_on,
            })
        })
        .collect()
}

/// Lints an admitted object (Pod, Deployment, ReplicaSet, StatefulSet, DaemonSet, Job,
/// CronJob, ReplicationController). Other kinds have no pod and give no findings. A pod
/// that cannot be read is an `invalid` finding; an object of a known kind without a pod
/// template is an error. `api_defaults` applies the API server's defaults first (files;
/// reviewed objects are already defaulted).
pub fn lint_object(
    object: &serde_json::Value,
    settings: &LintSettings,
    api_defaults: bool,
) -> Result<Vec<Finding>, PlanError> {
    let Some(template) = pod_template(object)? else {
        return Ok(Vec::new());
    };
    // The request `{"pod": ..., "apiDefaults": ...}`, with the pod moved in (`json!`
    // would copy it through a serializer).
    let mut request = serde_json::Map::new();
    request.insert("pod".into(), template.pod);
    request.insert("apiDefaults".into(), api_defaults.into());
    let mut request = serde_json::Value::Object(request);
    // Fields the 1.37 API does not know: each is dropped (the kubelet of a cluster that
    // knows it is newer than podplan; one that does not drops it too) and named.
    let mut unknown_fields = Vec::new();
    let parsed = loop {
        match crate::api::parse_request_value(&request) {
            Err(e)
                if e.message.starts_with("unknown field `")
                    && unknown_fields.len() < MAX_UNKNOWN_FIELDS
                    && remove_at(&mut request, &e.path) =>
            {
                unknown_fields.push(e.path);
            }
            other => break other,
        }
    };
    let mut findings: Vec<Finding> = unknown_fields
        .into_iter()
        .filter_map(|path| {
            let path = object_path(&template.prefix, &path);
            let depends_on = vec![Unknown::Field(path.clone())];
            let action = settings.action_for(Rule::Invalid, &depends_on);
            (action != Action::Off).then(|| Finding {
                rule: Rule::Invalid,
                severity: Severity::Info,
                action,
                message: format!(
                    "{path} is not a field of the Kubernetes 1.37 API podplan reads; a newer API server and kubelet may act on it, an older one drops it: it is not linted"
                ),
                path,
                depends_on,
            })
        })
        .collect();
    match parsed {
        Ok(mut request) => {
            // The API server's defaults fill only what is missing (idempotent on an
            // admitted, already-defaulted pod), so they are applied whether or not the
            // caller asked: a reviewed object built without them (a test, a mutating
            // webhook's output) must not read as `nil pod.spec.enableServiceLinks`.
            let gates = crate::features::FeatureGates::resolve(&request.feature_gates);
            crate::defaults::apply_api_defaults_with(&mut request.pod, &gates);
            findings.extend(lint_owned(request.pod, settings, &template.prefix));
            Ok(findings)
        }
        Err(e) => {
            let action = settings.action(Rule::Invalid);
            Ok((action != Action::Off)
                .then(|| Finding {
                    rule: Rule::Invalid,
                    severity: Severity::Error,
                    action,
                    path: object_path(&template.prefix, &e.path),
                    message: e.message,
                    depends_on: Vec::new(),
                })
                .into_iter()
                .chain(findings)
                .collect())
        }
    }
}

/// At most this many unknown fields are dropped from one object; the next one is an
/// `invalid` error.
const MAX_UNKNOWN_FIELDS: usize = 256;

/// Removes the value at a JSON path (`pod.spec.containers[0].field`) from an object; false
/// when the path does not lead to an object's key.
fn remove_at(value: &mut serde_json::Value, path: &str) -> bool {
    let Some((parent, key)) = path.rsplit_once('.') else {
        return value
            .as_object_mut()
            .is_some_and(|m| m.remove(path).is_some());
    };
    let mut at = value;
    for segment in parent.split('.') {
        let mut parts = segment.split('[');
        let name = parts.next().unwrap_or_default();
        if !name.is_empty() {
            let Some(next) = at.get_mut(name) else {
                return false;
            };
            at = next;
        }
        for index in parts {
            let Some(i) = index
                .strip_suffix(']')
                .and_then(|i| i.parse::<usize>().ok())
            else {
                return false;
            };
            let Some(next) = at.get_mut(i) else {
                return false;
            };
            at = next;
        }
    }
    at.as_object_mut().is_some_and(|m| m.remove(key).is_some())
}

/// An engine path (`pod.spec.containers[1]`) as a path into the object.
fn object_path(prefix: &str, engine_path: &str) -> String {
    let rest = engine_path
        .strip_prefix("pod.")
        .or_else(|| engine_path.strip_prefix("pod"))
        .unwrap_or(engine_path);
    let joined = format!("{prefix}{rest}");
    joined.trim_end_matches('.').to_string()
}

/// An admission answer made of findings.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    /// No finding denies.
    pub allowed: bool,
    /// The denying findings, one per line (`rule at path: message`); absent when allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The warning findings (`rule at path: message`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// The admission answer for `findings`: denied when any finding denies (the message
/// lists them), with the others as warnings.
#[must_use]
pub(crate) fn verdict(findings: &[Finding]) -> Verdict {
    let denying: Vec<String> = findings
        .iter()
        .filter(|f| f.action == Action::Deny)
        .map(ToString::to_string)
        .collect();
    Verdict {
        allowed: denying.is_empty(),
        message: (!denying.is_empty()).then(|| denying.join("\n")),
        warnings: findings
            .iter()
            .filter(|f| f.action == Action::Warn)
            .map(ToString::to_string)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_refuse_unknown_rules_and_actions() {
        assert!(LintSettings::from_json(br#"{"rules": {"nope": "deny"}}"#).is_err());
        assert!(LintSettings::from_json(br#"{"rules": {"invalid": "maybe"}}"#).is_err());
        assert!(LintSettings::from_json(br#"{"rulez": {}}"#).is_err());
        let s = LintSettings::from_json(br#"{"rules": {"invalid": "warn"}}"#);
        assert_eq!(s.map(|s| s.action(Rule::Invalid)), Ok(Action::Warn));
    }

    #[test]
    fn defaults_deny_errors_and_warn_the_rest() {
        let s = LintSettings::default();
        assert_eq!(s.action(Rule::ConfigError), Action::Deny);
        assert_eq!(s.action(Rule::ProbeEndsPod), Action::Warn);
        assert_eq!(s.action(Rule::GraceRaised), Action::Warn);
    }

    #[test]
    fn engine_paths_become_object_paths() {
        assert_eq!(
            object_path("spec.template.", "pod.spec.containers[1].name"),
            "spec.template.spec.containers[1].name"
        );
        assert_eq!(object_path("", "pod.spec"), "spec");
        assert_eq!(object_path("spec.template.", "pod"), "spec.template");
    }

    fn lint_with(pod: serde_json::Value, facts: serde_json::Value) -> Vec<Finding> {
        let settings = LintSettings {
            facts: serde_json::from_value(facts).unwrap_or_default(),
            ..LintSettings::default()
        };
        lint_object(&pod, &settings, true).unwrap_or_default()
    }

    fn non_root_pod(security: serde_json::Value) -> serde_json::Value {
        serde_json::json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "a", "image": "nginx:1.25", "securityContext": security}]}})
    }

    #[test]
    fn an_unknown_image_user_is_a_condition_not_a_verdict() {
        let pod = non_root_pod(serde_json::json!({"runAsNonRoot": true}));
        let f = lint_with(pod.clone(), serde_json::json!({}));
        assert_eq!(f.len(), 1, "{f:#?}");
        assert_eq!(f[0].severity, Severity::Info);
        assert_eq!(f[0].action, Action::Warn);
        assert_eq!(
            f[0].depends_on,
            vec![Unknown::ImageUser("nginx:1.25".into())]
        );
        assert!(
            f[0].message.contains("0 or non-numeric"),
            "{}",
            f[0].message
        );
        assert!(verdict(&f).allowed);
        let v = serde_json::to_value(&f[0]).unwrap_or_default();
        assert_eq!(
            v["dependsOn"],
            serde_json::json!([{"imageUser": "nginx:1.25"}])
        );
        // With the fact the answer is exact.
        for (fact, denied) in [
            (serde_json::json!({"uid": 0}), true),
            (serde_json::json!({"username": "app"}), true),
            (serde_json::json!({"uid": 101}), false),
        ] {
            let f = lint_with(
                pod.clone(),
                serde_json::json!({"images": {"nginx:1.25": fact}}),
            );
            assert_eq!(!verdict(&f).allowed, denied, "{fact}: {f:#?}");
            assert!(f.iter().all(|f| f.depends_on.is_empty()), "{f:#?}");
        }
        // A certain refusal stays one.
        let f = lint_with(
            non_root_pod(serde_json::json!({"runAsNonRoot": true, "runAsUser": 0})),
            serde_json::json!({}),
        );
        assert!(!verdict(&f).allowed, "{f:#?}");
    }

    #[test]
    fn windows_pods_are_judged_by_the_windows_rule() {
        let mut pod = non_root_pod(serde_json::json!({"runAsNonRoot": true,
            "windowsOptions": {"runAsUserName": "app"}}));
        pod["spec"]["os"] = serde_json::json!({"name": "windows"});
        let f = lint_with(
            pod.clone(),
            serde_json::json!({"images": {"nginx:1.25": {"uid": 0}}}),
        );
        assert!(f.is_empty(), "{f:#?}");
        pod["spec"]["containers"][0]["securityContext"]["windowsOptions"]["runAsUserName"] =
            "ContainerAdministrator".into();
        let f = lint_with(pod, serde_json::json!({}));
        assert!(!verdict(&f).allowed, "{f:#?}");
    }

    #[test]
    fn objects_the_env_and_volumes_name_are_conditions_until_supplied() {
        let pod = serde_json::json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"volumes": [{"name": "v", "secret": {"secretName": "s"}}],
              "containers": [{"name": "a", "image": "x", "env": [{"name": "K",
                "valueFrom": {"configMapKeyRef": {"name": "cfg", "key": "k"}}}]}]}});
        let f = lint_with(pod.clone(), serde_json::json!({}));
        assert!(verdict(&f).allowed, "{f:#?}");
        let deps: Vec<&Unknown> = f.iter().flat_map(|f| &f.depends_on).collect();
        assert!(deps.contains(&&Unknown::ConfigMap("cfg".into())), "{f:#?}");
        assert!(deps.contains(&&Unknown::Secret("s".into())), "{f:#?}");
        let exists = serde_json::json!({"configMaps": {"cfg": ["k"]}, "secrets": {"s": []}});
        assert!(lint_with(pod.clone(), exists).is_empty());
        let f = lint_with(
            pod.clone(),
            serde_json::json!({"configMaps": {"cfg": ["other"]}, "secrets": {"s": []}}),
        );
        assert!(!verdict(&f).allowed, "{f:#?}");
        let f = lint_with(
            pod.clone(),
            serde_json::json!({"configMaps": {"cfg": ["k"]}, "secrets": {"s": null}}),
        );
        assert!(!verdict(&f).allowed, "{f:#?}");
        assert_eq!(f[0].path, "spec.volumes[0]");
        let off = LintSettings {
            conditionals: Some(Action::Off),
            ..LintSettings::default()
        };
        assert_eq!(lint_object(&pod, &off, true).map(|f| f.len()), Ok(0));
    }

    #[test]
    fn node_support_for_user_namespaces_is_a_condition() {
        let pod = serde_json::json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"hostUsers": false, "containers": [{"name": "a", "image": "x"}]}});
        let f = lint_with(pod.clone(), serde_json::json!({}));
        assert!(verdict(&f).allowed, "{f:#?}");
        assert!(
            f.iter().any(|f| f.depends_on
                == vec![Unknown::Node(
                    "runtimeHandlerFeatures.userNamespaces".into()
                )]),
            "{f:#?}"
        );
        let f = lint_with(pod.clone(), serde_json::json!({"node": {}}));
        assert!(!verdict(&f).allowed, "{f:#?}");
        let f = lint_with(
            pod,
            serde_json::json!({"node": {"runtimeHandlerFeatures": {"userNamespaces": true, "recursiveReadOnlyMounts": true}}}),
        );
        assert!(f.is_empty(), "{f:#?}");
        assert!(LintSettings::from_json(br#"{"facts": {"node": {"nope": 1}}}"#).is_err());
    }

    #[test]
    fn every_volume_source_is_mounted() {
        let sources = serde_json::json!({
            "iscsi": {"targetPortal": "10.0.0.1:3260", "iqn": "iqn.2001-04.com.example:storage", "lun": 0},
            "fc": {"targetWWNs": ["500a0982991b8dc5"], "lun": 2},
            "flexVolume": {"driver": "example.com/lvm"},
            "gcePersistentDisk": {"pdName": "d"},
            "cinder": {"volumeID": "v"},
            "azureDisk": {"diskName": "d", "diskURI": "u"},
            "azureFile": {"secretName": "s", "shareName": "x"},
            "cephfs": {"monitors": ["m"]},
            "rbd": {"monitors": ["m"], "image": "i"},
            "glusterfs": {"endpoints": "e", "path": "p"},
            "nfs": {"server": "s", "path": "/p"},
            "portworxVolume": {"volumeID": "v"},
            "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "s"}},
            "storageos": {"volumeName": "v"},
            "quobyte": {"registry": "r", "volume": "v"},
            "photonPersistentDisk": {"pdID": "p"},
            "vsphereVolume": {"volumePath": "/p"},
            "awsElasticBlockStore": {"volumeID": "v"},
            "flocker": {"datasetName": "d"},
            "gitRepo": {"repository": "r"},
            "csi": {"driver": "d"},
            "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}}}},
            "image": {"reference": "r"},
            "downwardAPI": {},
            "hostPath": {"path": "/tmp"},
        });
        let mut volumes = Vec::new();
        let mut mounts = Vec::new();
        for (i, (source, value)) in sources.as_object().into_iter().flatten().enumerate() {
            let name = format!("v{i}");
            let mut v = serde_json::json!({"name": name});
            v[source] = value.clone();
            volumes.push(v);
            mounts.push(serde_json::json!({"name": name, "mountPath": format!("/m/{i}")}));
        }
        let pod = serde_json::json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"volumes": volumes, "containers": [{"name": "a", "image": "x", "volumeMounts": mounts}]}});
        let f = lint_with(pod, serde_json::json!({}));
        assert!(
            f.iter()
                .all(|f| !f.message.contains("cannot find volume") && f.action != Action::Deny),
            "{f:#?}"
        );
    }

    #[test]
    fn newer_fields_are_named_never_denied() {
        let pod = serde_json::json!({"kind": "Deployment", "metadata": {"name": "d"},
            "spec": {"template": {"spec": {"futureField": 1,
              "containers": [{"name": "a", "image": "x", "alsoNew": {"x": 1}}]}}}});
        let f = lint_with(pod, serde_json::json!({}));
        assert!(verdict(&f).allowed, "{f:#?}");
        let paths: Vec<&str> = f.iter().map(|f| f.path.as_str()).collect();
        assert!(paths.contains(&"spec.template.spec.futureField"), "{f:#?}");
        assert!(
            paths.contains(&"spec.template.spec.containers[0].alsoNew"),
            "{f:#?}"
        );
        assert!(f.iter().all(|f| f.severity == Severity::Info));
        // A malformed value stays an error.
        let bad = serde_json::json!({"kind": "Pod", "metadata": {"name": "p"},
            "spec": {"containers": [{"name": "a", "image": 3}]}});
        assert!(!verdict(&lint_with(bad, serde_json::json!({}))).allowed);
    }

    #[test]
    fn undefaulted_objects_lint_as_defaulted_ones() {
        let pod = serde_json::json!({"kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "a", "image": "x"}]}});
        let s = LintSettings::default();
        assert_eq!(lint_object(&pod, &s, false), Ok(Vec::new()));
        assert_eq!(lint_object(&pod, &s, false), lint_object(&pod, &s, true));
    }
}
