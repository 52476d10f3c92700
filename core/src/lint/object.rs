//! The pod of an admitted object, read by JSON path: workload types are never
//! deserialised (that keeps the wasm modules small).

use serde_json::{Map, Value};

use crate::error::PlanError;

/// A pod read out of an object, and where it sits in that object.
#[derive(Debug, Clone, PartialEq)]
pub struct PodTemplate {
    /// The pod (`metadata` and `spec`) as JSON.
    pub pod: Value,
    /// The path of the pod's `spec`'s parent, ending in `.` (empty for a Pod).
    pub prefix: String,
}

/// The path of the pod template in each workload kind.
fn template_path(kind: &str) -> Option<&'static [&'static str]> {
    match kind {
        "Pod" => Some(&[]),
        "Deployment"
        | "ReplicaSet"
        | "StatefulSet"
        | "DaemonSet"
        | "Job"
        | "ReplicationController" => Some(&["spec", "template"]),
        "CronJob" => Some(&["spec", "jobTemplate", "spec", "template"]),
        _ => None,
    }
}

/// The pod of `object`: the object itself for a Pod, the pod template for a workload
/// kind, `None` for other kinds. The pod is the one the kubelet would get: named as the
/// API server and the workload's controller name it (`name_pod`), in the workload's
/// namespace when it has none, with what the controller adds (`controller_effects`).
pub(crate) fn pod_template(object: &Value) -> Result<Option<PodTemplate>, PlanError> {
    let Some(fields) = object.as_object() else {
        return Err(PlanError::invalid("", "the object is not a JSON object"));
    };
    let kind = match fields.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => return Err(PlanError::invalid("kind", "kind is not a string")),
        None => return Err(PlanError::invalid("kind", "the object has no kind")),
    };
    let Some(path) = template_path(kind) else {
        return Ok(None);
    };
    let mut at = object;
    let mut prefix = String::new();
    for key in path {
        prefix.push_str(key);
        prefix.push('.');
        at = at.get(key).ok_or_else(|| {
            PlanError::invalid(
                prefix.trim_end_matches('.'),
                format!("a {kind} needs {}", prefix.trim_end_matches('.')),
            )
        })?;
    }
    let Some(template) = at.as_object() else {
        return Err(PlanError::invalid(
            prefix.trim_end_matches('.'),
            "the pod template is not a JSON object",
        ));
    };
    let mut metadata = match template.get("metadata") {
        Some(Value::Object(m)) => m.clone(),
        Some(Value::Null) | None => Map::new(),
        Some(_) => {
            return Err(PlanError::invalid(
                format!("{prefix}metadata"),
                "metadata is not a JSON object",
            ))
        }
    };
    if !path.is_empty() {
        if let Some(v) = object.get("metadata").and_then(|m| m.get("namespace")) {
            metadata.entry("namespace").or_insert_with(|| v.clone());
        }
    }
    let mut spec = template.get("spec").cloned().unwrap_or(Value::Null);
    name_pod(kind, object, &mut metadata);
    controller_effects(kind, object, &mut metadata, &mut spec);
    let mut pod = Map::new();
    pod.insert("metadata".into(), Value::Object(metadata));
    pod.insert("spec".into(), spec);
    Ok(Some(PodTemplate {
        pod: Value::Object(pod),
        prefix,
    }))
}

/// What the API server's name generator appends to a `generateName`
/// (`names.SimpleNameGenerator`: 5 characters of `rand.String`'s alphabet); podplan uses
/// a fixed one.
const RANDOM_SUFFIX: &str = "bcdfg";
/// A ReplicaSet's `pod-template-hash` (`rand.SafeEncodeString` of a 32-bit hash, up to
/// 10 characters), fixed.
const TEMPLATE_HASH: &str = "7b9c6d5f48";
/// A CronJob's Job name suffix: the scheduled time in minutes (`getJobName`), fixed.
const SCHEDULED_MINUTES: &str = "29000000";

/// `names.SimpleNameGenerator.GenerateName`: the base cut to 58 characters, then the
/// random suffix.
fn generated(base: &str) -> String {
    let cut: String = base.chars().take(58).collect();
    format!("{cut}{RANDOM_SUFFIX}")
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter().try_fold(v, |at, key| at.get(key))?.as_str()
}

/// The name the pod gets: its own, or the one its `generateName` gives (the API server's
/// `BeforeCreate`); for a workload, the name its controller's pods get
/// (`GetPodFromTemplate` in `pkg/controller/controller_utils.go` gives the generateName
/// `<owner>-`; a Deployment's ReplicaSet is `<deployment>-<pod-template-hash>`, a
/// CronJob's Job `<cronjob>-<scheduled minutes>`, a StatefulSet names its pods
/// `<set>-<ordinal>` in `pkg/controller/statefulset/stateful_set_utils.go`).
fn name_pod(kind: &str, object: &Value, metadata: &mut Map<String, Value>) {
    let owner = str_at(object, &["metadata", "name"]).unwrap_or_default();
    let name = match kind {
        "Pod" => match (
            str_at(object, &["metadata", "name"]),
            str_at(object, &["metadata", "generateName"]),
        ) {
            (Some(_), _) | (None, None) => return,
            (None, Some(prefix)) => generated(prefix),
        },
        _ if owner.is_empty() => match str_at(object, &["metadata", "generateName"]) {
            // The owner's own name is generated first.
            Some(prefix) => {
                return name_pod(kind, &with_name(object, &generated(prefix)), metadata)
            }
            None => return,
        },
        "StatefulSet" => format!("{owner}-0"),
        "Deployment" => generated(&format!("{owner}-{TEMPLATE_HASH}-")),
        "CronJob" => generated(&format!("{owner}-{SCHEDULED_MINUTES}-")),
        "Job" if indexed(object) => generated(&format!("{owner}-0-")),
        _ => generated(&format!("{owner}-")),
    };
    metadata.remove("generateName");
    metadata.insert("name".into(), Value::String(name));
}

fn with_name(object: &Value, name: &str) -> Value {
    let mut copy = object.clone();
    if let Some(m) = copy.get_mut("metadata").and_then(Value::as_object_mut) {
        m.insert("name".into(), Value::String(name.to_string()));
    }
    copy
}

/// An Indexed Job (`spec.completionMode: Indexed`).
fn indexed(object: &Value) -> bool {
    str_at(object, &["spec", "completionMode"]) == Some("Indexed")
}

/// What the workload's controller writes into the pod beyond its template, where the
/// kubelet reads it:
/// - StatefulSet (`updateStorage`, `updateIdentity` in `stateful_set_utils.go`): a
///   `persistentVolumeClaim` volume per `volumeClaimTemplates` entry, claim
///   `<template>-<set>-<ordinal>` (replacing a template volume of that name, the others
///   appended after the template's so paths into the template stay right); `hostname`
///   the pod's name, `subdomain` the set's `serviceName`.
/// - Job, Indexed (`addCompletionIndexEnvVariables`, `addCompletionIndexAnnotation` in
///   `pkg/controller/job/indexed_job_utils.go`): `JOB_COMPLETION_INDEX` appended to every
///   init and regular container's env that lacks it, the completion index as annotation
///   and label, `hostname` `<job>-<index>`. CronJob templates are Jobs.
/// - Deployment and ReplicaSet: the `pod-template-hash` label.
fn controller_effects(
    kind: &str,
    object: &Value,
    metadata: &mut Map<String, Value>,
    spec: &mut Value,
) {
    let owner = str_at(object, &["metadata", "name"])
        .unwrap_or_default()
        .to_string();
    let Some(spec) = spec.as_object_mut() else {
        return;
    };
    let ordinal = 0;
    match kind {
        "StatefulSet" => {
            let claims = object
                .get("spec")
                .and_then(|s| s.get("volumeClaimTemplates"))
                .and_then(Value::as_array);
            let mut added = Vec::new();
            for claim in claims.into_iter().flatten() {
                let Some(name) = str_at(claim, &["metadata", "name"]) else {
                    continue;
                };
                let volume = serde_json::json!({"name": name, "persistentVolumeClaim": {
                    "claimName": format!("{name}-{owner}-{ordinal}")}});
                let volumes = spec
                    .entry("volumes")
                    .or_insert_with(|| Value::Array(Vec::new()));
                if let Some(list) = volumes.as_array_mut() {
                    match list
                        .iter_mut()
                        .find(|v| v.get("name").and_then(Value::as_str) == Some(name))
                    {
                        Some(existing) => *existing = volume,
                        None => added.push(volume),
                    }
                }
            }
            if let Some(list) = spec.get_mut("volumes").and_then(Value::as_array_mut) {
                list.extend(added);
            }
            if let Some(name) = metadata.get("name").cloned() {
                spec.insert("hostname".into(), name);
            }
            if let Some(service) = object.get("spec").and_then(|s| s.get("serviceName")) {
                if service.as_str().is_some_and(|s| !s.is_empty()) {
                    spec.insert("subdomain".into(), service.clone());
                }
            }
        }
        "Job" | "CronJob" => {
            let job = match kind {
                "CronJob" => object
                    .get("spec")
                    .and_then(|s| s.get("jobTemplate"))
                    .cloned()
                    .unwrap_or(Value::Null),
                _ => object.clone(),
            };
            if !indexed(&job) {
                return;
            }
            const KEY: &str = "batch.kubernetes.io/job-completion-index";
            for list in ["initContainers", "containers"] {
                for c in spec
                    .get_mut(list)
                    .and_then(Value::as_array_mut)
                    .into_iter()
                    .flatten()
                {
                    let Some(c) = c.as_object_mut() else { continue };
                    let env = c.entry("env").or_insert_with(|| Value::Array(Vec::new()));
                    let Some(env) = env.as_array_mut() else {
                        continue;
                    };
                    if env.iter().any(|v| {
                        v.get("name").and_then(Value::as_str) == Some("JOB_COMPLETION_INDEX")
                    }) {
                        continue;
                    }
                    env.push(serde_json::json!({"name": "JOB_COMPLETION_INDEX",
                        "valueFrom": {"fieldRef": {"fieldPath": format!("metadata.labels['{KEY}']")}}}));
                }
            }
            for field in ["annotations", "labels"] {
                let map = metadata
                    .entry(field)
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(map) = map.as_object_mut() {
                    map.insert(KEY.into(), Value::String(ordinal.to_string()));
                }
            }
            let job_name = match kind {
                "CronJob" => format!("{owner}-{SCHEDULED_MINUTES}"),
                _ => owner,
            };
            spec.insert(
                "hostname".into(),
                Value::String(format!("{job_name}-{ordinal}")),
            );
        }
        "Deployment" | "ReplicaSet" => {
            let labels = metadata
                .entry("labels")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(labels) = labels.as_object_mut() {
                labels
                    .entry("pod-template-hash")
                    .or_insert_with(|| Value::String(TEMPLATE_HASH.into()));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_templates_by_kind() {
        let cron = json!({"kind": "CronJob", "metadata": {"name": "c", "namespace": "n"},
            "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": []}}}}}});
        let t = pod_template(&cron).ok().flatten();
        let t = t.unwrap_or_else(|| PodTemplate {
            pod: Value::Null,
            prefix: String::new(),
        });
        assert_eq!(t.prefix, "spec.jobTemplate.spec.template.");
        assert_eq!(t.pod["metadata"]["name"], "c-29000000-bcdfg");
        assert_eq!(t.pod["spec"], json!({"containers": []}));
        assert_eq!(pod_template(&json!({"kind": "Service"})), Ok(None));
        let bad = pod_template(&json!({"kind": "Deployment", "spec": {}}));
        assert_eq!(bad.map_err(|e| e.path), Err("spec.template".to_string()));
        assert!(pod_template(&json!([1])).is_err());
    }

    #[test]
    fn controllers_add_what_their_pods_get() {
        let sts = json!({"kind": "StatefulSet", "metadata": {"name": "db"},
            "spec": {"serviceName": "db-h", "volumeClaimTemplates": [{"metadata": {"name": "data"}}],
              "template": {"spec": {"volumes": [{"name": "tmp", "emptyDir": {}}], "containers": []}}}});
        let t = pod_template(&sts)
            .ok()
            .flatten()
            .map(|t| t.pod)
            .unwrap_or_default();
        assert_eq!(t["metadata"]["name"], "db-0");
        assert_eq!(t["spec"]["hostname"], "db-0");
        assert_eq!(t["spec"]["subdomain"], "db-h");
        assert_eq!(t["spec"]["volumes"][0]["name"], "tmp");
        assert_eq!(
            t["spec"]["volumes"][1]["persistentVolumeClaim"]["claimName"],
            "data-db-0"
        );
        let job = json!({"kind": "Job", "metadata": {"name": "j"},
            "spec": {"completionMode": "Indexed", "template": {"spec": {"containers": [{"name": "a"}]}}}});
        let t = pod_template(&job)
            .ok()
            .flatten()
            .map(|t| t.pod)
            .unwrap_or_default();
        assert_eq!(
            t["spec"]["containers"][0]["env"][0]["name"],
            "JOB_COMPLETION_INDEX"
        );
        assert_eq!(t["spec"]["hostname"], "j-0");
        assert_eq!(t["metadata"]["name"], "j-0-bcdfg");
        let pod = json!({"kind": "Pod", "metadata": {"generateName": "web-"}, "spec": {}});
        let t = pod_template(&pod)
            .ok()
            .flatten()
            .map(|t| t.pod)
            .unwrap_or_default();
        assert_eq!(t["metadata"]["name"], "web-bcdfg");
        let deploy = json!({"kind": "Deployment", "metadata": {"name": "web"},
            "spec": {"template": {"spec": {}}}});
        let t = pod_template(&deploy)
            .ok()
            .flatten()
            .map(|t| t.pod)
            .unwrap_or_default();
        assert_eq!(t["metadata"]["name"], "web-7b9c6d5f48-bcdfg");
        assert_eq!(t["metadata"]["labels"]["pod-template-hash"], "7b9c6d5f48");
    }
}
