//! Admission: an `admission.k8s.io/v1` AdmissionRequest (as JSON) and the policy's
//! settings in, the verdict out. The one judge behind `podplan admit`, the webhook and
//! the Kubewarden policy; it reads JSON and does no I/O.
//!
//! What is judged, in order (each step can end it):
//!
//! 1. `DELETE` and `CONNECT` are allowed, and so is any subresource (`status`, `scale`,
//!    ...): none of them changes a pod template.
//! 2. A request without an object, or whose object has `metadata.deletionTimestamp`
//!    (a terminating object: the garbage collector removing a finalizer), is allowed.
//! 3. Exemptions: the namespace is in `exemptNamespaces`, the object's labels match
//!    `exemptSelector`, or the annotation `podplan.io/ignore: "*"` is on the object (or
//!    on its pod template). `podplan.io/ignore: "rule-id,rule-id"` turns those rules
//!    off for this object.
//! 4. The object gets the API server's defaults (idempotent: an object the API server
//!    already defaulted is unchanged) and is linted ([`crate::lint::lint_object`]).
//! 5. `UPDATE`: a change that leaves the pod spec as it was (status, labels,
//!    annotations, finalizers, replicas) is allowed without findings. Otherwise the old
//!    object is linted too, and a denying finding that it already had (same rule, same
//!    path) only warns: an update is denied only for what it breaks.
//! 6. `mode: "warn"` turns every denial into a warning (as Pod Security's `warn` mode:
//!    the request is allowed and told what would have been denied).
//!
//! Unknown fields in the object never deny: the pod is read with the API's types,
//! which ignore fields they do not know.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::PlanError;
use crate::lint::{lint_object, pod_template, verdict, Action, LintSettings, Rule, Verdict};

/// The annotation that exempts an object from rules: `"*"` (all) or `"id,id"`.
pub(crate) const IGNORE_ANNOTATION: &str = "podplan.io/ignore";

/// What a denying finding does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Deny the request (the default).
    #[default]
    Deny,
    /// Allow it, with the would-be denials as warnings.
    Warn,
}

/// A label selector (`metav1.LabelSelector`): `matchLabels` and `matchExpressions`,
/// all of which must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LabelSelector {
    /// Labels that must be present with these values.
    #[serde(default)]
    pub match_labels: BTreeMap<String, String>,
    /// Expressions over labels.
    #[serde(default)]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

/// One `matchExpressions` entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LabelSelectorRequirement {
    /// The label key.
    pub key: String,
    /// `In`, `NotIn`, `Exists` or `DoesNotExist`.
    pub operator: String,
    /// The values (`In`, `NotIn`: at least one; `Exists`, `DoesNotExist`: none).
    #[serde(default)]
    pub values: Vec<String>,
}

impl LabelSelector {
    /// Whether `labels` match (`labels.SelectorFromSet` / `LabelSelectorAsSelector`).
    #[must_use]
    pub(crate) fn matches(&self, labels: &BTreeMap<String, String>) -> bool {
        self.match_labels
            .iter()
            .all(|(k, v)| labels.get(k) == Some(v))
            && self.match_expressions.iter().all(|r| {
                let value = labels.get(&r.key);
                match r.operator.as_str() {
                    "In" => value.is_some_and(|v| r.values.contains(v)),
                    "NotIn" => value.is_none_or(|v| !r.values.contains(v)),
                    "Exists" => value.is_some(),
                    "DoesNotExist" => value.is_none(),
                    _ => false,
                }
            })
    }

    fn validate(&self, path: &str) -> Result<(), PlanError> {
        for (i, r) in self.match_expressions.iter().enumerate() {
            let at = format!("{path}.matchExpressions[{i}]");
            match r.operator.as_str() {
                "In" | "NotIn" if r.values.is_empty() => {
                    return Err(PlanError::invalid(
                        format!("{at}.values"),
                        format!("operator {} needs at least one value", r.operator),
                    ))
                }
                "Exists" | "DoesNotExist" if !r.values.is_empty() => {
                    return Err(PlanError::invalid(
                        format!("{at}.values"),
                        format!("operator {} takes no values", r.operator),
                    ))
                }
                "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
                other => {
                    return Err(PlanError::invalid(
                        format!("{at}.operator"),
                        format!(
                            "unknown operator {other:?}; the operators are In, NotIn, Exists, DoesNotExist"
                        ),
                    ))
                }
            }
        }
        Ok(())
    }
}

/// The policy's settings (JSON, unknown keys refused):
///
/// ```json
/// {"rules": {"probe-ends-pod": "deny"}, "mode": "warn",
///  "exemptNamespaces": ["kube-system"],
///  "exemptSelector": {"matchLabels": {"podplan.io/exempt": "true"}}}
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AdmissionSettings {
    /// Actions by rule id (`deny`, `warn`, `off`), as [`LintSettings::rules`].
    #[serde(default)]
    pub rules: BTreeMap<String, Action>,
    /// `deny` (default) or `warn`: allow everything, denials become warnings.
    #[serde(default)]
    pub mode: Mode,
    /// Namespaces whose requests are allowed unjudged.
    #[serde(default)]
    pub exempt_namespaces: Vec<String>,
    /// Objects whose labels match are allowed unjudged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exempt_selector: Option<LabelSelector>,
    /// What conditional findings (those that depend on an unknown) do, as
    /// [`LintSettings::conditionals`]; they never deny.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditionals: Option<Action>,
    /// Facts the cluster knows and the lint would otherwise take as unknown (image users,
    /// ConfigMaps and Secrets, the node), as [`LintSettings::facts`].
    #[serde(default, skip_serializing_if = "crate::lint::LintFacts::is_empty")]
    pub facts: crate::lint::LintFacts,
}

impl From<LintSettings> for AdmissionSettings {
    fn from(lint: LintSettings) -> Self {
        Self {
            rules: lint.rules,
            conditionals: lint.conditionals,
            facts: lint.facts,
            ..Self::default()
        }
    }
}

impl AdmissionSettings {
    /// Reads settings from JSON, refusing unknown keys, rule ids, actions and modes.
    ///
    /// # Errors
    ///
    /// An `InvalidInput` error naming the setting.
    pub fn from_json(bytes: &[u8]) -> Result<Self, PlanError> {
        let settings: Self = serde_json::from_slice(bytes).map_err(settings_error)?;
        settings.validate()?;
        Ok(settings)
    }

    /// [`Self::from_json`] for a JSON value; `null` is the default settings.
    ///
    /// # Errors
    ///
    /// As [`Self::from_json`].
    pub fn from_value(value: &Value) -> Result<Self, PlanError> {
        if value.is_null() {
            return Ok(Self::default());
        }
        let settings = Self::deserialize(value).map_err(settings_error)?;
        settings.validate()?;
        Ok(settings)
    }

    /// Refuses unknown rule ids and bad selectors.
    ///
    /// # Errors
    ///
    /// An `InvalidInput` error naming the setting.
    pub(crate) fn validate(&self) -> Result<(), PlanError> {
        self.lint().validate()?;
        if let Some((i, _)) = self
            .exempt_namespaces
            .iter()
            .enumerate()
            .find(|(_, n)| n.is_empty())
        {
            return Err(PlanError::invalid(
                format!("settings.exemptNamespaces[{i}]"),
                "a namespace name cannot be empty",
            ));
        }
        if let Some(selector) = &self.exempt_selector {
            selector.validate("settings.exemptSelector")?;
        }
        Ok(())
    }

    /// The lint settings (the rules' actions).
    #[must_use]
    pub(crate) fn lint(&self) -> LintSettings {
        LintSettings {
            rules: self.rules.clone(),
            conditionals: self.conditionals,
            facts: self.facts.clone(),
        }
    }
}

fn settings_error(e: serde_json::Error) -> PlanError {
    PlanError::invalid(
        "settings",
        format!(
            "bad settings: {e}; the settings are rules, mode, exemptNamespaces, exemptSelector"
        ),
    )
}

/// The string at `path` in `value`.
fn str_at<'a>(value: &'a Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |at, key| at.get(key))
        .and_then(Value::as_str)
}

/// The string map at `metadata.<field>` of `value` (labels, annotations); non-string
/// values are left out.
fn string_map(value: &Value, field: &str) -> BTreeMap<String, String> {
    value
        .get("metadata")
        .and_then(|m| m.get(field))
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_str().map(|v| (k.clone(), v.to_string())))
                .collect()
        })
        .unwrap_or_default()
}

fn allowed() -> Verdict {
    Verdict {
        allowed: true,
        ..Verdict::default()
    }
}

/// What the ignore annotation asks for.
enum Ignore {
    All,
    Rules(BTreeSet<Rule>, Vec<String>),
}

/// The `podplan.io/ignore` annotations of the object and of its pod template.
fn ignored(object: &Value, template: Option<&Value>) -> Ignore {
    let mut rules = BTreeSet::new();
    let mut warnings = Vec::new();
    for source in [Some(object), template].into_iter().flatten() {
        let Some(text) = string_map(source, "annotations").remove(IGNORE_ANNOTATION) else {
            continue;
        };
        for id in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if id == "*" {
                return Ignore::All;
            }
            match Rule::from_id(id) {
                Some(rule) => {
                    rules.insert(rule);
                }
                None => warnings.push(format!(
                    "{IGNORE_ANNOTATION}: unknown lint rule {id:?} (ignored); the rules are {}",
                    Rule::ALL.map(Rule::id).join(", ")
                )),
            }
        }
    }
    Ignore::Rules(rules, warnings)
}

/// The pod spec inside an object (a Pod's `spec`, a workload template's `spec`).
fn pod_spec(object: &Value) -> Option<Value> {
    pod_template(object)
        .ok()
        .flatten()
        .and_then(|t| t.pod.get("spec").cloned())
}

/// The object of a request as linted: the request's kind filled in when the object
/// does not say it.
fn with_kind(object: &Value, request: &Value) -> Value {
    let mut object = object.clone();
    if let (Some(fields), Some(kind)) = (object.as_object_mut(), str_at(request, &["kind", "kind"]))
    {
        fields
            .entry("kind")
            .or_insert_with(|| Value::String(kind.to_string()));
    }
    object
}

/// The object with the fields its pod's API types do not know left out (a field
/// newer than 1.37, an extension): the API server accepted the object, so a field
/// podplan does not know says nothing against it. A pod whose known fields have the
/// wrong shape is left as it is (the lint reports it).
fn known_fields_only(mut object: Value) -> Value {
    use k8s_openapi::api::core::v1::{Pod, PodTemplateSpec};
    fn pruned<T: serde::de::DeserializeOwned + Serialize>(value: &Value) -> Option<Value> {
        let text = serde_json::to_string(value).ok()?;
        let typed: T = crate::api::from_json_text(&text).ok()?;
        serde_json::to_value(typed).ok()
    }
    let path: &[&str] = match str_at(&object, &["kind"]) {
        Some("Pod") => {
            return match pruned::<Pod>(&object) {
                // Keep `kind` and `apiVersion` as sent.
                Some(Value::Object(mut pod)) => {
                    for key in ["kind", "apiVersion"] {
                        if let Some(v) = object.get(key) {
                            pod.insert(key.into(), v.clone());
                        }
                    }
                    Value::Object(pod)
                }
                _ => object,
            };
        }
        Some(
            "Deployment"
            | "ReplicaSet"
            | "StatefulSet"
            | "DaemonSet"
            | "Job"
            | "ReplicationController",
        ) => &["spec", "template"],
        Some("CronJob") => &["spec", "jobTemplate", "spec", "template"],
        _ => return object,
    };
    let at = path
        .iter()
        .try_fold(&mut object, |at, key| at.get_mut(*key));
    if let Some(template) = at {
        if let Some(known) = pruned::<PodTemplateSpec>(template) {
            *template = known;
        }
    }
    object
}

/// Judges an AdmissionRequest (`request` of an AdmissionReview, as JSON).
///
/// # Errors
///
/// The request or its object cannot be read (not an object, a workload without a pod
/// template): the caller refuses it naming the problem.
pub fn judge(request: &Value, settings: &AdmissionSettings) -> Result<Verdict, PlanError> {
    if !request.is_object() {
        return Err(PlanError::invalid(
            "request",
            "the AdmissionRequest is not a JSON object",
        ));
    }
    let operation = str_at(request, &["operation"]).unwrap_or("");
    if matches!(operation, "DELETE" | "CONNECT") {
        return Ok(allowed());
    }
    if str_at(request, &["subResource"]).is_some_and(|s| !s.is_empty()) {
        return Ok(allowed());
    }
    let object = match request.get("object") {
        None | Some(Value::Null) => return Ok(allowed()),
        Some(o) => known_fields_only(with_kind(o, request)),
    };
    if object
        .get("metadata")
        .and_then(|m| m.get("deletionTimestamp"))
        .is_some_and(|t| !t.is_null())
    {
        return Ok(allowed());
    }
    let namespace = str_at(request, &["namespace"])
        .filter(|n| !n.is_empty())
        .or_else(|| str_at(&object, &["metadata", "namespace"]));
    if namespace.is_some_and(|n| settings.exempt_namespaces.iter().any(|e| e == n)) {
        return Ok(allowed());
    }
    if let Some(selector) = &settings.exempt_selector {
        if selector.matches(&string_map(&object, "labels")) {
            return Ok(allowed());
        }
    }
    let template = pod_template(&object)?;
    let (off, mut notes) = match ignored(&object, template.as_ref().map(|t| &t.pod)) {
        Ignore::All => return Ok(allowed()),
        Ignore::Rules(rules, warnings) => (rules, warnings),
    };
    let mut lint = settings.lint();
    for rule in off {
        lint.rules.insert(rule.id().to_string(), Action::Off);
    }
    let old = match (operation, request.get("oldObject")) {
        ("UPDATE", Some(old)) if old.is_object() => {
            Some(known_fields_only(with_kind(old, request)))
        }
        _ => None,
    };
    if let Some(old) = &old {
        if template.is_some() && pod_spec(old) == template.and_then(|t| t.pod.get("spec").cloned())
        {
            // Status, metadata or replicas only: the pod as the kubelet sees it is the
            // same.
            return Ok(allowed());
        }
    }
    let mut findings = lint_object(&object, &lint, true)?;
    if let Some(old) = &old {
        // What the old object already had is not this update's doing; an old object
        // that cannot be read had nothing.
        let before: BTreeSet<(Rule, String)> = lint_object(old, &lint, true)
            .unwrap_or_default()
            .into_iter()
            .map(|f| (f.rule, f.path))
            .collect();
        for f in &mut findings {
            if f.action == Action::Deny && before.contains(&(f.rule, f.path.clone())) {
                f.action = Action::Warn;
                f.message
                    .push_str(" (already so before this update; not denied)");
            }
        }
    }
    if settings.mode == Mode::Warn {
        for f in &mut findings {
            f.action = demote(f.action);
        }
    }
    let mut answer = verdict(&findings);
    answer.warnings.append(&mut notes);
    Ok(answer)
}

fn demote(action: Action) -> Action {
    match action {
        Action::Deny => Action::Warn,
        other => other,
    }
}

/// The message that refuses a request [`judge`] could not read (the same words from
/// every front end).
#[must_use]
pub fn refusal(error: &PlanError) -> String {
    format!("the object cannot be linted: {error}")
}

/// The verdict on a `{"request", "settings"?}` payload (other top-level keys are
/// ignored: they are the caller's).
///
/// # Errors
///
/// The payload, its settings or its request cannot be read.
pub fn judge_payload(bytes: &[u8]) -> Result<Verdict, PlanError> {
    let payload: Value = serde_json::from_slice(bytes).map_err(|e| {
        PlanError::invalid("", format!("the validation request cannot be read: {e}"))
    })?;
    let settings = AdmissionSettings::from_value(payload.get("settings").unwrap_or(&Value::Null))?;
    let request = payload
        .get("request")
        .ok_or_else(|| PlanError::invalid("request", "the validation request has no request"))?;
    judge(request, &settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(operation: &str, object: Value, old: Option<Value>) -> Value {
        let mut r = json!({"uid": "u", "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "operation": operation, "namespace": "default", "object": object});
        if let Some(old) = old {
            r["oldObject"] = old;
        }
        r
    }

    fn pod(container: Value) -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [container]}})
    }

    fn nonroot() -> Value {
        pod(json!({"name": "a", "image": "x",
                   "securityContext": {"runAsNonRoot": true, "runAsUser": 0}}))
    }

    fn ok() -> Value {
        pod(json!({"name": "a", "image": "x"}))
    }

    fn judged(r: &Value, s: &AdmissionSettings) -> Verdict {
        judge(r, s).unwrap_or_else(|e| panic!("{e:?}"))
    }

    #[test]
    fn an_undefaulted_pod_is_defaulted_and_allowed() {
        // No enableServiceLinks, no terminationMessagePath, no imagePullPolicy.
        let v = judged(
            &request("CREATE", ok(), None),
            &AdmissionSettings::default(),
        );
        assert!(v.allowed, "{v:?}");
        assert!(v.warnings.is_empty(), "{v:?}");
        let v = judged(
            &request("CREATE", nonroot(), None),
            &AdmissionSettings::default(),
        );
        assert!(!v.allowed);
    }

    #[test]
    fn api_defaults_are_idempotent() {
        let mut once: k8s_openapi::api::core::v1::Pod =
            serde_json::from_value(nonroot()).unwrap_or_default();
        crate::defaults::apply_api_defaults(&mut once);
        let mut twice = once.clone();
        crate::defaults::apply_api_defaults(&mut twice);
        assert_eq!(once, twice);
        // A defaulted object is judged as the undefaulted one.
        let defaulted = serde_json::to_value(&once).unwrap_or_default();
        let s = AdmissionSettings::default();
        assert_eq!(
            judged(&request("CREATE", defaulted, None), &s),
            judged(&request("CREATE", nonroot(), None), &s)
        );
    }

    #[test]
    fn delete_connect_subresources_and_terminating_objects_are_allowed() {
        let s = AdmissionSettings::default();
        for op in ["DELETE", "CONNECT"] {
            assert!(judged(&request(op, nonroot(), None), &s).allowed, "{op}");
        }
        let mut r = request("UPDATE", nonroot(), None);
        r["subResource"] = json!("status");
        assert!(judged(&r, &s).allowed);
        let mut gone = nonroot();
        gone["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
        gone["metadata"]["finalizers"] = json!([]);
        assert!(judged(&request("UPDATE", gone, Some(nonroot())), &s).allowed);
    }

    #[test]
    fn updates_are_judged_on_what_they_change() {
        let s = AdmissionSettings::default();
        // Metadata only: allowed, silently.
        let mut relabelled = nonroot();
        relabelled["metadata"]["labels"] = json!({"a": "b"});
        let v = judged(&request("UPDATE", relabelled, Some(nonroot())), &s);
        assert_eq!(v, allowed());
        // A change that keeps an old denial: a warning, not a denial.
        let mut changed = nonroot();
        changed["spec"]["containers"][0]["image"] = json!("y");
        let v = judged(&request("UPDATE", changed.clone(), Some(nonroot())), &s);
        assert!(v.allowed, "{v:?}");
        assert!(
            v.warnings
                .iter()
                .any(|w| w.starts_with("config-error at spec.containers[0]")
                    && w.contains("already so before")),
            "{v:?}"
        );
        // A change that introduces it: denied.
        let v = judged(&request("UPDATE", changed, Some(ok())), &s);
        assert!(!v.allowed, "{v:?}");
        // A CREATE never looks at an old object.
        assert!(!judged(&request("CREATE", nonroot(), Some(nonroot())), &s).allowed);
    }

    #[test]
    fn exemptions_and_warn_mode() {
        let bad = request("CREATE", nonroot(), None);
        let ns = AdmissionSettings {
            exempt_namespaces: vec!["default".into()],
            ..AdmissionSettings::default()
        };
        assert_eq!(judged(&bad, &ns), allowed());
        let warn = AdmissionSettings {
            mode: Mode::Warn,
            ..AdmissionSettings::default()
        };
        let v = judged(&bad, &warn);
        assert!(v.allowed && v.message.is_none(), "{v:?}");
        assert!(
            v.warnings.iter().any(|w| w.starts_with("config-error")),
            "{v:?}"
        );

        let selector = AdmissionSettings::from_json(
            br#"{"exemptSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["dev"]}]}}"#,
        )
        .unwrap_or_default();
        let mut labelled = nonroot();
        labelled["metadata"]["labels"] = json!({"tier": "dev"});
        assert!(judged(&request("CREATE", labelled, None), &selector).allowed);
        assert!(!judged(&bad, &selector).allowed);
    }

    #[test]
    fn the_ignore_annotation_turns_rules_off() {
        let s = AdmissionSettings::default();
        for (value, allowed) in [
            ("*", true),
            ("config-error", true),
            ("grace-raised, config-error", true),
            ("grace-raised", false),
            ("no-such-rule", false),
        ] {
            let mut p = nonroot();
            p["metadata"]["annotations"] = json!({IGNORE_ANNOTATION: value});
            let v = judged(&request("CREATE", p, None), &s);
            assert_eq!(v.allowed, allowed, "{value}: {v:?}");
            if value == "no-such-rule" {
                assert!(
                    v.warnings.iter().any(|w| w.contains("no-such-rule")),
                    "{v:?}"
                );
            }
        }
        // On a workload's pod template, too.
        let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "d", "namespace": "default"},
            "spec": {"template": {"metadata": {"annotations": {IGNORE_ANNOTATION: "*"}},
                "spec": nonroot()["spec"].clone()}}});
        let mut r = request("CREATE", deploy, None);
        r["kind"]["kind"] = json!("Deployment");
        assert!(judged(&r, &s).allowed);
    }

    #[test]
    fn unknown_fields_never_deny() {
        let mut p = ok();
        p["spec"]["futureField"] = json!({"x": 1});
        p["spec"]["containers"][0]["someNewField"] = json!(true);
        p["status"] = json!({"newStatus": [1, 2]});
        let v = judged(&request("CREATE", p, None), &AdmissionSettings::default());
        assert!(v.allowed, "{v:?}");
    }

    #[test]
    fn settings_are_strict() {
        for bad in [
            &br#"{"rulez": {}}"#[..],
            br#"{"rules": {"nope": "deny"}}"#,
            br#"{"rules": {"invalid": "block"}}"#,
            br#"{"mode": "audit"}"#,
            br#"{"exemptNamespaces": [""]}"#,
            br#"{"exemptSelector": {"matchExpressions": [{"key": "a", "operator": "Is"}]}}"#,
            br#"{"exemptSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}"#,
            br#"{"exemptSelector": {"matchLabel": {}}}"#,
        ] {
            assert!(
                AdmissionSettings::from_json(bad).is_err(),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
        let s = AdmissionSettings::from_json(
            br#"{"rules": {"grace-raised": "off"}, "mode": "warn", "exemptNamespaces": ["kube-system"]}"#,
        );
        assert_eq!(s.map(|s| s.mode), Ok(Mode::Warn));
    }
}
