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
/// kind, `None` for other kinds. A template's pod takes the workload's name and
/// namespace when it has none (they name the pod in the kubelet's messages).
pub fn pod_template(object: &Value) -> Result<Option<PodTemplate>, PlanError> {
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
        let outer = object.get("metadata");
        for key in ["name", "namespace"] {
            if let Some(v) = outer.and_then(|m| m.get(key)) {
                metadata.entry(key).or_insert_with(|| v.clone());
            }
        }
    }
    let mut pod = Map::new();
    pod.insert("metadata".into(), Value::Object(metadata));
    pod.insert(
        "spec".into(),
        template.get("spec").cloned().unwrap_or(Value::Null),
    );
    Ok(Some(PodTemplate {
        pod: Value::Object(pod),
        prefix,
    }))
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
        assert_eq!(t.pod["metadata"]["name"], "c");
        assert_eq!(t.pod["spec"], json!({"containers": []}));
        assert_eq!(pod_template(&json!({"kind": "Service"})), Ok(None));
        let bad = pod_template(&json!({"kind": "Deployment", "spec": {}}));
        assert_eq!(bad.map_err(|e| e.path), Err("spec.template".to_string()));
        assert!(pod_template(&json!([1])).is_err());
    }
}
