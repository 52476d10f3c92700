//! podplan's lifecycle lint ([`podplan_core::lint`]) as a Kubewarden policy: a waPC
//! guest for `wasm32-unknown-unknown` that registers `validate`, `validate_settings` and
//! `protocol_version`.
//!
//! `validate` reads the pod (or a workload's pod template) of the request's object by
//! JSON path in the core, lints it, and accepts (with the warning findings as
//! `warnings`) or rejects (the denying findings, each naming its rule and path, as the
//! message). A payload, object or settings that cannot be read is rejected with a message
//! that names the problem; the policy never traps on input.

use std::collections::BTreeMap;

use kubewarden_policy_sdk::response::ValidationResponse;
use kubewarden_policy_sdk::settings::Validatable;
use kubewarden_policy_sdk::wapc_guest as guest;
use podplan_core::lint::{lint_object, verdict, Action, LintSettings, Rule, Verdict};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The policy's settings: `{"rules": {"<id>": "deny"|"warn"|"off"}}`. Read loosely
/// (any JSON) so that [`Validatable::validate`] can refuse unknown keys, rule ids and
/// actions with a message rather than a deserialisation error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The rules' actions, as given.
    #[serde(default)]
    pub rules: BTreeMap<String, Value>,
    /// Anything else (refused).
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

impl Settings {
    /// The lint settings, or why these settings are refused.
    pub fn lint_settings(&self) -> Result<LintSettings, String> {
        if let Some(key) = self.other.keys().next() {
            return Err(format!(
                "unknown setting {key:?}; the only setting is \"rules\""
            ));
        }
        let mut rules = BTreeMap::new();
        for (id, action) in &self.rules {
            if Rule::from_id(id).is_none() {
                return Err(format!(
                    "unknown lint rule {id:?}; the rules are {}",
                    Rule::ALL.map(Rule::id).join(", ")
                ));
            }
            let action: Action = serde_json::from_value(action.clone()).map_err(|_| {
                format!("rule {id:?}: unknown action {action}; the actions are deny, warn, off")
            })?;
            rules.insert(id.clone(), action);
        }
        Ok(LintSettings { rules })
    }
}

impl Validatable for Settings {
    fn validate(&self) -> Result<(), String> {
        self.lint_settings().map(|_| ())
    }
}

/// What `validate` reads of its payload: the settings and, of the request, the uid,
/// the kind and the object (the rest of the AdmissionRequest is not needed).
#[derive(Debug, Deserialize)]
struct Payload {
    #[serde(default)]
    settings: Settings,
    request: Request,
}

#[derive(Debug, Deserialize)]
struct Request {
    #[serde(default)]
    kind: Kind,
    #[serde(default)]
    object: Value,
}

#[derive(Debug, Default, Deserialize)]
struct Kind {
    #[serde(default)]
    kind: String,
}

/// The verdict on a `validate` payload, or why it cannot be judged.
pub fn judge(payload: &[u8]) -> Result<Verdict, String> {
    let payload: Payload = serde_json::from_slice(payload)
        .map_err(|e| format!("the validation request cannot be read: {e}"))?;
    let settings = payload
        .settings
        .lint_settings()
        .map_err(|e| format!("bad settings: {e}"))?;
    let mut object = payload.request.object;
    if object.is_null() {
        // DELETE and CONNECT carry no object: nothing to lint.
        return Ok(Verdict {
            allowed: true,
            ..Verdict::default()
        });
    }
    if let Some(fields) = object.as_object_mut() {
        fields
            .entry("kind")
            .or_insert_with(|| Value::String(payload.request.kind.kind.clone()));
    }
    lint_object(&object, &settings, false)
        .map(|findings| verdict(&findings))
        .map_err(|e| format!("the object cannot be linted: {e}"))
}

/// The response for a verdict (or a refusal): Kubewarden's `ValidationResponse`.
#[must_use]
pub fn response(judged: Result<Verdict, String>) -> ValidationResponse {
    let (accepted, message, warnings) = match judged {
        Ok(v) => (
            v.allowed,
            v.message,
            (!v.warnings.is_empty()).then_some(v.warnings),
        ),
        Err(message) => (false, Some(message), None),
    };
    ValidationResponse {
        accepted,
        code: (!accepted).then_some(400),
        message,
        mutated_object: None,
        audit_annotations: None,
        warnings,
    }
}

/// The waPC `validate` function.
pub fn validate(payload: &[u8]) -> guest::CallResult {
    Ok(serde_json::to_vec(&response(judge(payload)))?)
}

/// Registers the policy's functions with the waPC guest runtime.
#[no_mangle]
#[expect(
    unsafe_code,
    reason = "the waPC host calls the guest's exported `wapc_init` by name"
)]
pub extern "C" fn wapc_init() {
    guest::register_function("validate", validate);
    guest::register_function(
        "validate_settings",
        kubewarden_policy_sdk::validate_settings::<Settings>,
    );
    guest::register_function(
        "protocol_version",
        kubewarden_policy_sdk::protocol_version_guest,
    );
}

#[cfg(test)]
mod tests;
