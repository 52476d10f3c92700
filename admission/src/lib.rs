//! Admission: an `admission.k8s.io/v1` AdmissionReview in, the AdmissionReview with its
//! `response` out, judged by the core's admission judge ([`podplan_core::admission`]:
//! API defaults, operations, exemptions, UPDATE judged on what it changes, warn mode),
//! which the Kubewarden policy calls too.
//!
//! The review types are `kube-core`'s. The request is judged as JSON: the pod (or a
//! workload's pod template) is found by path in the core, workload types are never
//! deserialised. `podplan admit` and the webhook answer through [`review`]; the waPC
//! policy answers the same reviews through the Kubewarden module.
//!
//! - [`webhook`]: the HTTPS admission webhook of `podplan webhook`.

use std::borrow::Cow;

use kube_core::admission::{AdmissionRequest, AdmissionResponse, AdmissionReview};
use kube_core::DynamicObject;
use podplan_core::admission::AdmissionSettings;
use podplan_core::limits::MAX_REQUEST_BYTES;
use podplan_core::lint::{LintSettings, Verdict};
use serde_json::Value;

use podplan_wasmhost::wapc::PolicyModule;
use podplan_wasmhost::HostError;

pub mod webhook;

/// How a review was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Allowed (perhaps with warnings).
    Allowed,
    /// Denied by a finding.
    Denied,
    /// The review (or its object) could not be read; the response says why.
    Malformed,
}

/// The answer: the AdmissionReview to send back, and how it went.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The AdmissionReview with `response`.
    pub review: AdmissionReview<DynamicObject>,
    /// How it went.
    pub outcome: Outcome,
}

/// Reads an AdmissionReview, refusing oversized and malformed ones with a message.
pub fn parse_review(bytes: &[u8]) -> Result<AdmissionRequest<DynamicObject>, String> {
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(format!(
            "the review is {} bytes; the limit is {MAX_REQUEST_BYTES}",
            bytes.len()
        ));
    }
    let review: AdmissionReview<DynamicObject> = serde_json::from_slice(bytes)
        .map_err(|e| format!("the AdmissionReview cannot be read: {e}"))?;
    if review.types.api_version != "admission.k8s.io/v1" || review.types.kind != "AdmissionReview" {
        return Err(format!(
            "expected an admission.k8s.io/v1 AdmissionReview, got {}/{}",
            review.types.api_version, review.types.kind
        ));
    }
    review
        .try_into()
        .map_err(|_| "the AdmissionReview has no request".to_string())
}

/// Settings a review is judged with: the core's [`AdmissionSettings`], or bare
/// [`LintSettings`] (the rules only: no exemptions, mode `deny`).
pub trait ReviewSettings {
    /// The admission settings.
    fn admission(&self) -> Cow<'_, AdmissionSettings>;
}

impl ReviewSettings for AdmissionSettings {
    fn admission(&self) -> Cow<'_, AdmissionSettings> {
        Cow::Borrowed(self)
    }
}

impl ReviewSettings for LintSettings {
    fn admission(&self) -> Cow<'_, AdmissionSettings> {
        Cow::Owned(AdmissionSettings::from(self.clone()))
    }
}

/// The verdict on a request (the `request` of the review, as JSON), by the core's
/// admission judge ([`podplan_core::admission::judge`]), or why it cannot be judged.
pub fn judge(request: &Value, settings: &AdmissionSettings) -> Result<Verdict, String> {
    podplan_core::admission::judge(request, settings).map_err(|e| refusal(&e))
}

/// The refusal message for a request that cannot be judged (as the Kubewarden policy
/// words it).
#[must_use]
pub fn refusal(error: &podplan_core::PlanError) -> String {
    podplan_core::admission::refusal(error)
}

/// The response for a request and a verdict: uid echoed, `allowed`, `status.message`
/// and `warnings`.
pub fn response(request: &AdmissionRequest<DynamicObject>, verdict: &Verdict) -> AdmissionResponse {
    let mut response = AdmissionResponse::from(request);
    if !verdict.allowed {
        response = response.deny(verdict.message.clone().unwrap_or_default());
        response.result.code = 400;
        response.result.reason = "podplan lint".into();
    }
    if !verdict.warnings.is_empty() {
        response.warnings = Some(verdict.warnings.clone());
    }
    response
}

/// The response for a request from a Kubewarden policy's `ValidationResponse` JSON
/// (`accepted`, `message`, `code`, `warnings`), as [`response`] makes it from a verdict.
pub fn response_from_policy(
    request: &AdmissionRequest<DynamicObject>,
    answer: &[u8],
) -> Result<(AdmissionResponse, Outcome), String> {
    let v: Value = serde_json::from_slice(answer)
        .map_err(|e| format!("the policy's answer is not JSON: {e}"))?;
    let accepted = v
        .get("accepted")
        .and_then(Value::as_bool)
        .ok_or_else(|| format!("the policy's answer has no `accepted`: {v}"))?;
    let verdict = Verdict {
        allowed: accepted,
        message: v.get("message").and_then(Value::as_str).map(str::to_string),
        warnings: v
            .get("warnings")
            .and_then(Value::as_array)
            .map(|w| {
                w.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    };
    let mut r = response(request, &verdict);
    if let Some(code) = v.get("code").and_then(Value::as_u64) {
        if !accepted {
            r.result.code = u16::try_from(code).unwrap_or(400);
        }
    }
    let outcome = if accepted {
        Outcome::Allowed
    } else {
        Outcome::Denied
    };
    Ok((r, outcome))
}

/// Answers a review: parse, judge, respond. Never fails: a malformed review gets a
/// refusal that names the problem (with the uid when it could be read).
#[must_use]
pub fn review<S: ReviewSettings + ?Sized>(bytes: &[u8], settings: &S) -> Answer {
    let request = match parse_review(bytes) {
        Ok(r) => r,
        Err(message) => {
            return Answer {
                review: AdmissionResponse::invalid(message).into_review(),
                outcome: Outcome::Malformed,
            }
        }
    };
    // The core judges the request as JSON: the review as sent (it was read above).
    let raw = serde_json::from_slice::<Value>(bytes)
        .ok()
        .and_then(|mut v| v.get_mut("request").map(Value::take))
        .unwrap_or(Value::Null);
    match judge(&raw, &settings.admission()) {
        Ok(v) => Answer {
            review: response(&request, &v).into_review(),
            outcome: if v.allowed {
                Outcome::Allowed
            } else {
                Outcome::Denied
            },
        },
        Err(message) => {
            let mut response = AdmissionResponse::invalid(message);
            response.uid.clone_from(&request.uid);
            Answer {
                review: response.into_review(),
                outcome: Outcome::Malformed,
            }
        }
    }
}

/// Why a policy module could not answer: its settings were refused, or it failed.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// `validate_settings` refused the settings (its message), or they are not JSON.
    #[error("the policy refuses the settings: {0}")]
    Settings(String),
    /// The module trapped, overran its deadline or memory, or answered nonsense.
    #[error("the policy module failed: {0}")]
    Host(#[from] HostError),
    /// The module's answer could not be read.
    #[error("{0}")]
    Answer(String),
}

/// Checks `settings` with the policy's `validate_settings`.
///
/// # Errors
///
/// [`PolicyError::Settings`] when the policy refuses them, [`PolicyError::Host`] when it fails.
pub fn check_policy_settings(module: &PolicyModule, settings: &Value) -> Result<(), PolicyError> {
    let checked = module.call("validate_settings", settings.to_string().as_bytes())?;
    let checked: Value = serde_json::from_slice(&checked).map_err(|e| {
        PolicyError::Answer(format!("the policy's settings answer is not JSON: {e}"))
    })?;
    if checked.get("valid") == Some(&Value::Bool(true)) {
        Ok(())
    } else {
        let message = checked.get("message").and_then(Value::as_str).unwrap_or("");
        Err(PolicyError::Settings(message.to_string()))
    }
}

/// Answers a review through a Kubewarden policy module (settings already checked with
/// [`check_policy_settings`]): a malformed review is refused before the module runs, as
/// [`review`] refuses it; the module's `validate` judges the request.
///
/// # Errors
///
/// [`PolicyError::Host`] when the module fails, [`PolicyError::Answer`] when its answer
/// cannot be read.
pub fn review_with_policy(
    module: &PolicyModule,
    settings: &Value,
    bytes: &[u8],
) -> Result<Answer, PolicyError> {
    let request = match parse_review(bytes) {
        Ok(r) => r,
        Err(message) => {
            return Ok(Answer {
                review: AdmissionResponse::invalid(message).into_review(),
                outcome: Outcome::Malformed,
            })
        }
    };
    let raw: Value = serde_json::from_slice(bytes).unwrap_or(Value::Null);
    let payload = serde_json::json!({"settings": settings, "request": raw.get("request")});
    let answer = module.call("validate", payload.to_string().as_bytes())?;
    let (response, outcome) =
        response_from_policy(&request, &answer).map_err(PolicyError::Answer)?;
    Ok(Answer {
        review: response.into_review(),
        outcome,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pod_review(spec: &str) -> Vec<u8> {
        format!(
            r#"{{"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
            "request": {{"uid": "u-1", "kind": {{"group": "", "version": "v1", "kind": "Pod"}},
            "resource": {{"group": "", "version": "v1", "resource": "pods"}},
            "operation": "CREATE", "userInfo": {{}}, "namespace": "default",
            "object": {{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "p", "namespace": "default"}},
            "spec": {spec}}}}}}}"#
        )
        .into_bytes()
    }

    fn as_json(answer: &Answer) -> Value {
        serde_json::to_value(&answer.review).unwrap_or_default()
    }

    #[test]
    fn denies_with_rule_and_path_and_echoes_the_uid() {
        let answer = review(
            &pod_review(
                r#"{"enableServiceLinks": true, "containers": [{"name": "a", "image": "x",
                "securityContext": {"runAsNonRoot": true, "runAsUser": 0}}]}"#,
            ),
            &LintSettings::default(),
        );
        let v = as_json(&answer);
        assert_eq!(answer.outcome, Outcome::Denied, "{v}");
        assert_eq!(v["response"]["uid"], "u-1");
        assert_eq!(v["response"]["allowed"], false);
        let message = v["response"]["status"]["message"].as_str().unwrap_or("");
        assert!(
            message.starts_with("config-error at spec.containers[0]: "),
            "{message}"
        );
    }

    #[test]
    fn malformed_reviews_are_refused_with_a_message() {
        let answer = review(b"{\"kind\": 3}", &LintSettings::default());
        let v = as_json(&answer);
        assert_eq!(answer.outcome, Outcome::Malformed);
        assert_eq!(v["response"]["allowed"], false);
        assert!(v["response"]["status"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cannot be read")));
    }
}
