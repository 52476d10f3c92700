//! Lifecycle lint: what the 1.37 kubelet will do with a pod, judged before it reaches a
//! node (admission).
//!
//! Every rule reads an engine output — the CRI config generators, request validation,
//! `$(VAR)` expansion, the runtime model and the kill grace period — and none repeats the
//! kubelet's logic. [`lint`] checks a typed pod; [`lint_object`] checks an admitted
//! object (a Pod or a workload's pod template, read by JSON path) and gives paths into
//! that object; [`verdict`] turns findings into an admission answer. The rules and
//! their examples are in `docs/lint.md`.

mod object;
mod rules;

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use serde::{Deserialize, Serialize};

use crate::error::PlanError;

pub use object::{pod_template, PodTemplate};

/// How serious a finding is; it selects the default [`Action`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; changes nothing by itself.
    Info,
    /// The pod runs, but probably not as its author meant.
    Warning,
    /// The kubelet will refuse the pod or a container of it.
    Error,
}

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

/// The lint rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// `generateContainerConfig` / `generatePodSandboxConfig` fails for the pod as new.
    ConfigError,
    /// Request validation rejects the pod.
    Invalid,
    /// A `$(VAR)` in command, args or env that expansion leaves as written.
    UnexpandedVariable,
    /// A failing liveness or startup probe ends the container for good.
    ProbeEndsPod,
    /// A grace period below the kubelet's 2 s floor.
    GraceRaised,
}

impl Rule {
    /// Every rule, in documentation order.
    pub const ALL: [Rule; 5] = [
        Rule::ConfigError,
        Rule::Invalid,
        Rule::UnexpandedVariable,
        Rule::ProbeEndsPod,
        Rule::GraceRaised,
    ];

    /// The rule's id (`config-error`, ...).
    #[must_use]
    pub fn id(self) -> &'static str {
        match self {
            Rule::ConfigError => "config-error",
            Rule::Invalid => "invalid",
            Rule::UnexpandedVariable => "unexpanded-variable",
            Rule::ProbeEndsPod => "probe-ends-pod",
            Rule::GraceRaised => "grace-raised",
        }
    }

    /// The rule with this id.
    #[must_use]
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::ALL.into_iter().find(|r| r.id() == id)
    }

    /// The rule's severity.
    #[must_use]
    pub fn severity(self) -> Severity {
        match self {
            Rule::ConfigError | Rule::Invalid => Severity::Error,
            Rule::UnexpandedVariable | Rule::ProbeEndsPod => Severity::Warning,
            Rule::GraceRaised => Severity::Info,
        }
    }
}

/// Which rules deny, warn or are off. JSON: `{"rules": {"<id>": "deny"|"warn"|"off"}}`;
/// a rule not named keeps its default (errors deny, warnings and infos warn).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LintSettings {
    /// Actions by rule id.
    #[serde(default)]
    pub rules: BTreeMap<String, Action>,
}

impl LintSettings {
    /// Reads settings from JSON, refusing unknown keys, rule ids and actions.
    pub fn from_json(bytes: &[u8]) -> Result<Self, PlanError> {
        let settings: LintSettings = serde_json::from_slice(bytes)
            .map_err(|e| PlanError::invalid("settings", format!("bad lint settings: {e}")))?;
        settings.validate()?;
        Ok(settings)
    }

    /// Refuses unknown rule ids.
    pub fn validate(&self) -> Result<(), PlanError> {
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
    pub fn action(&self, rule: Rule) -> Action {
        match self.rules.get(rule.id()) {
            Some(a) => *a,
            None if rule.severity() == Severity::Error => Action::Deny,
            None => Action::Warn,
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
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}: {}", self.rule.id(), self.path, self.message)
    }
}

/// Lints a pod whose paths start at `spec` (a Pod object). The pod is used as given:
/// apply API defaults first for a manifest ([`lint_object`] can).
#[must_use]
pub fn lint(pod: &Pod, settings: &LintSettings) -> Vec<Finding> {
    lint_at(pod, settings, "")
}

/// [`lint`] with every path prefixed by `prefix` (e.g. `spec.template.`).
#[must_use]
pub fn lint_at(pod: &Pod, settings: &LintSettings, prefix: &str) -> Vec<Finding> {
    lint_owned(pod.clone(), settings, prefix)
}

/// [`lint_at`] with the pod given away (no copy of it is made).
fn lint_owned(pod: Pod, settings: &LintSettings, prefix: &str) -> Vec<Finding> {
    let raw = rules::run(pod, |rule| settings.action(rule) != Action::Off);
    raw.into_iter()
        .filter_map(|r| {
            let action = settings.action(r.rule);
            (action != Action::Off).then(|| Finding {
                rule: r.rule,
                severity: r.rule.severity(),
                action,
                path: object_path(prefix, &r.path),
                message: r.message,
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
    match crate::api::parse_request_value(serde_json::Value::Object(request)) {
        Ok(mut request) => {
            if request.api_defaults {
                let gates = crate::features::FeatureGates::resolve(&request.feature_gates);
                crate::defaults::apply_api_defaults_with(&mut request.pod, &gates);
            }
            Ok(lint_owned(request.pod, settings, &template.prefix))
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
                })
                .into_iter()
                .collect())
        }
    }
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
pub fn verdict(findings: &[Finding]) -> Verdict {
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

/// The JSON form: `{"object": ..., "settings"?: ..., "apiDefaults"?: bool}` in,
/// `{"findings": [...], "verdict": {...}}` or `{"error": {...}}` out. Never panics.
#[must_use]
pub fn lint_json(bytes: &[u8]) -> Vec<u8> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields, rename_all = "camelCase")]
    struct Input {
        object: serde_json::Value,
        #[serde(default)]
        settings: LintSettings,
        #[serde(default)]
        api_defaults: bool,
    }
    #[derive(Serialize)]
    struct Output {
        findings: Vec<Finding>,
        verdict: Verdict,
    }
    let answer = serde_json::from_slice::<Input>(bytes)
        .map_err(|e| PlanError::invalid("", format!("the lint request cannot be read: {e}")))
        .and_then(|input| {
            input.settings.validate()?;
            lint_object(&input.object, &input.settings, input.api_defaults)
        });
    let value = match answer {
        Ok(findings) => {
            let verdict = verdict(&findings);
            serde_json::to_vec(&Output { findings, verdict })
        }
        Err(error) => serde_json::to_vec(&crate::error::ErrorEnvelope { error }),
    };
    value.unwrap_or_else(|_| {
        br#"{"error":{"kind":"InvalidInput","path":"","message":"unserialisable answer"}}"#.to_vec()
    })
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

    #[test]
    fn json_form_answers_findings_or_errors() {
        let out = lint_json(
            br#"{"object": {"kind": "Pod", "metadata": {"name": "p"},
                 "spec": {"terminationGracePeriodSeconds": 1, "containers": [{"name": "a", "image": "x"}]}},
                 "apiDefaults": true}"#,
        );
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
        assert_eq!(v["findings"][0]["rule"], "grace-raised", "{v}");
        assert_eq!(v["verdict"]["allowed"], true);
        let out = lint_json(b"[]");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap_or_default();
        assert_eq!(v["error"]["kind"], "InvalidInput");
    }
}
