//! Semantic validation of a parsed request: what serde's types cannot express.
//!
//! Errors stop the plan; odd-but-possible inputs become plan warnings.

use std::collections::BTreeSet;

use k8s_openapi::api::core::v1::{Container, ResourceRequirements};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;
use std::collections::BTreeMap;

use crate::error::PlanError;
use crate::features::FeatureGates;
use crate::limits::{MAX_BACKOFF_RECORDS, MAX_CONTAINERS, MAX_STATUSES};
use crate::plan::Warning;
use crate::quantity::Quantity;
use crate::request::PlanRequest;
use crate::runtime::RuntimeStatus;

/// Checks a request; returns warnings for odd but possible inputs.
pub(crate) fn validate(request: &PlanRequest) -> Result<Vec<Warning>, PlanError> {
    let mut warnings = Vec::new();
    let Some(spec) = request.pod.spec.as_ref() else {
        return Err(PlanError::invalid("pod.spec", "a pod needs a spec"));
    };
    let pod_path = Path::root("pod");
    let spec_path = pod_path.key("spec");
    if let Some(policy) = spec.restart_policy.as_deref() {
        one_of(
            spec_path.key("restartPolicy"),
            policy,
            &["", "Always", "OnFailure", "Never"],
        )?;
    }
    let init = spec.init_containers.as_deref().unwrap_or_default();
    let ephemeral = spec.ephemeral_containers.as_deref().unwrap_or_default();
    for (list, len) in [
        ("initContainers", init.len()),
        ("containers", spec.containers.len()),
        ("ephemeralContainers", ephemeral.len()),
    ] {
        if len > MAX_CONTAINERS {
            return Err(PlanError::limit(
                spec_path.key(list).to_string(),
                format!("{len} containers; the limit is {MAX_CONTAINERS}"),
            ));
        }
    }
    let mut names = BTreeSet::new();
    for (list, containers) in [("initContainers", init), ("containers", &spec.containers)] {
        let list_path = spec_path.key(list);
        for (i, c) in containers.iter().enumerate() {
            let path = list_path.index(i);
            check_name(&mut names, path, &c.name)?;
            check_container(path, c)?;
        }
    }
    let ephemeral_path = spec_path.key("ephemeralContainers");
    for (i, c) in ephemeral.iter().enumerate() {
        let path = ephemeral_path.index(i);
        check_name(&mut names, path, &c.name)?;
        check_resources(path.key("resources"), c.resources.as_ref())?;
    }
    check_resources(spec_path.key("resources"), spec.resources.as_ref())?;

    if let Some(actuated) = &request.actuated_resources {
        let path = Path::root("actuatedResources");
        let containers = path.key("containers");
        for (name, r) in &actuated.containers {
            check_resources(containers.key(name), Some(r))?;
        }
        check_resources(path.key("pod"), actuated.pod.as_ref())?;
    }

    if request.backoff.len() > MAX_BACKOFF_RECORDS {
        return Err(PlanError::limit(
            "backoff",
            format!(
                "{} records; the limit is {MAX_BACKOFF_RECORDS}",
                request.backoff.len()
            ),
        ));
    }

    if let Some(status) = &request.runtime_status {
        check_statuses(status, &names, &mut warnings)?;
    }
    for name in request.feature_gates.keys() {
        if !FeatureGates::knows(name) {
            warnings.push(Warning {
                path: format!("featureGates.{name}"),
                message: format!(
                    "feature gate {name:?} is not known to the engine and changes no decision"
                ),
            });
        }
    }
    Ok(warnings)
}

/// A container name must be set and unique across init, regular and ephemeral containers.
/// What the API server refuses in a pod as it is submitted (`ValidatePodCreate`) and the
/// kubelet's own test tables leave out: at least one container, and an `image` in every
/// init, regular and ephemeral container. Applied to requests that stand for a pod as
/// submitted to a cluster, the ones with `apiDefaults` (bare pods included); the
/// kubelet's unit tables (and the vectors taken from them) build pods without images.
pub(crate) fn api_server(request: &PlanRequest) -> Result<(), PlanError> {
    let Some(spec) = request.pod.spec.as_ref() else {
        return Err(PlanError::invalid("pod.spec", "a pod needs a spec"));
    };
    let spec_path = Path::root("pod");
    let spec_path = spec_path.key("spec");
    if spec.containers.is_empty() {
        return Err(PlanError::invalid(
            spec_path.key("containers").to_string(),
            "Required value: a pod needs at least one container (the API server refuses `containers: []`)",
        ));
    }
    let init = spec.init_containers.as_deref().unwrap_or_default();
    let ephemeral = spec.ephemeral_containers.as_deref().unwrap_or_default();
    let lists = [
        (
            "initContainers",
            init.iter().map(|c| c.image.as_deref()).collect::<Vec<_>>(),
        ),
        (
            "containers",
            spec.containers.iter().map(|c| c.image.as_deref()).collect(),
        ),
        (
            "ephemeralContainers",
            ephemeral.iter().map(|c| c.image.as_deref()).collect(),
        ),
    ];
    for (list, images) in lists {
        let list_path = spec_path.key(list);
        for (i, image) in images.into_iter().enumerate() {
            if image.is_none_or(|s| s.trim().is_empty()) {
                return Err(PlanError::invalid(
                    list_path.index(i).key("image").to_string(),
                    "Required value: a container needs an image (the API server refuses a pod without one)",
                ));
            }
        }
    }
    Ok(())
}

fn check_name<'a>(
    names: &mut BTreeSet<&'a str>,
    path: Path<'_>,
    name: &'a str,
) -> Result<(), PlanError> {
    if name.is_empty() {
        return Err(PlanError::invalid(
            path.key("name").to_string(),
            "container name must not be empty",
        ));
    }
    if !names.insert(name) {
        return Err(PlanError::invalid(
            path.key("name").to_string(),
            format!("duplicate container name {name:?}: names must be unique across init, regular and ephemeral containers"),
        ));
    }
    Ok(())
}

/// Runtime status bounds, duplicate ids, and statuses of containers not in the spec.
fn check_statuses(
    status: &RuntimeStatus,
    names: &BTreeSet<&str>,
    warnings: &mut Vec<Warning>,
) -> Result<(), PlanError> {
    for (list, len) in [
        ("sandboxStatuses", status.sandbox_statuses.len()),
        ("containerStatuses", status.container_statuses.len()),
    ] {
        if len > MAX_STATUSES {
            return Err(PlanError::limit(
                format!("runtimeStatus.{list}"),
                format!("{len} entries; the limit is {MAX_STATUSES}"),
            ));
        }
    }
    let mut sandbox_ids = BTreeSet::new();
    for (i, s) in status.sandbox_statuses.iter().enumerate() {
        if !s.id.is_empty() && !sandbox_ids.insert(s.id.as_str()) {
            return Err(PlanError::invalid(
                format!("runtimeStatus.sandboxStatuses[{i}].id"),
                format!("sandbox id {:?} is listed twice", s.id),
            ));
        }
    }
    let mut ids = BTreeSet::new();
    for (i, c) in status.container_statuses.iter().enumerate() {
        if !c.id.is_empty() && !ids.insert(c.id.as_str()) {
            return Err(PlanError::invalid(
                format!("runtimeStatus.containerStatuses[{i}].id"),
                format!("container id {:?} is listed twice", c.id),
            ));
        }
        if !names.contains(c.name.as_str()) {
            warnings.push(Warning {
                path: format!("runtimeStatus.containerStatuses[{i}]"),
                message: format!(
                    "the runtime reports container {:?} ({}), which is not in the pod spec; the kubelet's planner ignores it",
                    c.name, c.id
                ),
            });
        }
    }
    Ok(())
}

fn one_of(path: Path<'_>, value: &str, allowed: &[&str]) -> Result<(), PlanError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        let shown: Vec<String> = allowed
            .iter()
            .filter(|a| !a.is_empty())
            .map(|a| format!("{a:?}"))
            .collect();
        Err(PlanError::invalid(
            path.to_string(),
            format!(
                "unsupported value {value:?}: supported values are {}",
                shown.join(", ")
            ),
        ))
    }
}

fn check_container(path: Path<'_>, c: &Container) -> Result<(), PlanError> {
    if let Some(policy) = c.restart_policy.as_deref() {
        one_of(
            path.key("restartPolicy"),
            policy,
            &["Always", "OnFailure", "Never"],
        )?;
    }
    for (i, rule) in c
        .restart_policy_rules
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let rules = path.key("restartPolicyRules");
        let rpath = rules.index(i);
        one_of(
            rpath.key("action"),
            &rule.action,
            &["Restart", "RestartAllContainers"],
        )?;
        if let Some(codes) = &rule.exit_codes {
            one_of(
                rpath.key("exitCodes").key("operator"),
                &codes.operator,
                &["In", "NotIn"],
            )?;
        }
    }
    for (i, p) in c
        .resize_policy
        .as_deref()
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        one_of(
            path.key("resizePolicy").index(i).key("restartPolicy"),
            &p.restart_policy,
            &["NotRequired", "RestartContainer"],
        )?;
    }
    check_resources(path.key("resources"), c.resources.as_ref())
}

fn check_quantities(
    path: Path<'_>,
    map: Option<&BTreeMap<String, K8sQuantity>>,
) -> Result<(), PlanError> {
    for (name, q) in map.into_iter().flatten() {
        let qpath = path.key(name);
        let parsed = Quantity::parse(&q.0)
            .map_err(|e| PlanError::invalid(qpath.to_string(), e.to_string()))?;
        if parsed.is_negative() {
            return Err(PlanError::invalid(
                qpath.to_string(),
                format!("quantity {:?} must not be negative", q.0),
            ));
        }
    }
    Ok(())
}

fn check_resources(path: Path<'_>, r: Option<&ResourceRequirements>) -> Result<(), PlanError> {
    if let Some(r) = r {
        check_quantities(path.key("requests"), r.requests.as_ref())?;
        check_quantities(path.key("limits"), r.limits.as_ref())?;
    }
    Ok(())
}

/// A JSON path into the request, built on the stack and rendered only for an error
/// (`pod.spec.containers[0].name`): valid input costs no formatting.
#[derive(Clone, Copy)]
struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy)]
enum Segment<'a> {
    Key(&'a str),
    Index(usize),
}

impl<'a> Path<'a> {
    /// A top-level key.
    fn root(key: &'a str) -> Self {
        Path {
            parent: None,
            segment: Segment::Key(key),
        }
    }

    /// `self.key`.
    fn key<'b>(&'b self, key: &'b str) -> Path<'b> {
        Path {
            parent: Some(self),
            segment: Segment::Key(key),
        }
    }

    /// `self[index]`.
    fn index(&self, index: usize) -> Path<'_> {
        Path {
            parent: Some(self),
            segment: Segment::Index(index),
        }
    }
}

impl std::fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match (self.segment, self.parent) {
            (Segment::Key(key), None) => f.write_str(key),
            (Segment::Key(key), Some(_)) => write!(f, ".{key}"),
            (Segment::Index(index), _) => write!(f, "[{index}]"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::parse_request;

    fn check(json: &str) -> Result<Vec<Warning>, PlanError> {
        validate(&parse_request(json.as_bytes())?)
    }

    #[test]
    fn the_api_server_checks_apply_to_submitted_pods_only() {
        let no_image =
            r#"{"pod": {"spec": {"containers": [{"name": "a", "image": "x"}, {"name": "b"}]}}}"#;
        let empty = r#"{"pod": {"spec": {"containers": []}}}"#;
        let blank_init = r#"{"pod": {"spec": {"initContainers": [{"name": "i", "image": " "}], "containers": [{"name": "a", "image": "x"}]}}}"#;
        // The kubelet's tables build such pods: a request as given is planned.
        for raw in [no_image, empty, blank_init] {
            let r = crate::api::parse_request(raw.as_bytes()).unwrap();
            assert!(crate::api::plan(&r).is_ok(), "{raw}");
        }
        let submitted = |raw: &str| {
            let mut r = crate::api::parse_request(raw.as_bytes()).unwrap();
            r.api_defaults = true;
            crate::api::plan(&r).unwrap_err()
        };
        assert_eq!(submitted(no_image).path, "pod.spec.containers[1].image");
        assert_eq!(submitted(empty).path, "pod.spec.containers");
        assert_eq!(
            submitted(blank_init).path,
            "pod.spec.initContainers[0].image"
        );
        // A bare pod is a manifest: it implies apiDefaults.
        let bare =
            crate::api::parse_request(br#"{"spec": {"containers": [{"name": "a"}]}}"#).unwrap();
        assert_eq!(
            crate::api::plan(&bare).unwrap_err().path,
            "pod.spec.containers[0].image"
        );
    }

    #[test]
    fn duplicate_names_across_kinds_are_rejected() {
        let e = check(
            r#"{"pod":{"spec":{"initContainers":[{"name":"a"}],"containers":[{"name":"a"}]}}}"#,
        )
        .err();
        assert_eq!(
            e.map(|e| e.path),
            Some("pod.spec.containers[0].name".into())
        );
    }

    #[test]
    fn enum_values_are_checked() {
        let e =
            check(r#"{"pod":{"spec":{"restartPolicy":"Sometimes","containers":[{"name":"a"}]}}}"#)
                .err();
        assert_eq!(e.map(|e| e.path), Some("pod.spec.restartPolicy".into()));
        let e = check(r#"{"pod":{"spec":{"containers":[{"name":"a","resources":{"limits":{"cpu":"lots"}}}]}}}"#).err();
        assert_eq!(
            e.map(|e| e.path),
            Some("pod.spec.containers[0].resources.limits.cpu".into())
        );
    }

    #[test]
    fn foreign_statuses_are_warnings() {
        let w = check(
            r#"{"pod":{"spec":{"containers":[{"name":"a"}]}},
                "runtimeStatus":{"containerStatuses":[{"id":"x://1","name":"ghost","state":"running"}]}}"#,
        );
        assert!(
            w.is_ok_and(|w| w.len() == 1 && w.first().is_some_and(|w| w.message.contains("ghost")))
        );
    }
}
