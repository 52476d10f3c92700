//! podplan's lifecycle lint ([`podplan_core::lint`]) as a Kubewarden policy: a waPC
//! guest for `wasm32-unknown-unknown` that registers `validate`, `validate_settings` and
//! `protocol_version`.
//!
//! `validate` hands the payload to the core's admission judge
//! ([`podplan_core::admission::judge_payload`], the same judge as `podplan admit` and the
//! webhook): the pod (or a workload's pod template) of the request's object is read by
//! JSON path, defaulted and linted, and the request accepted (with the warning findings
//! as `warnings`) or rejected (the denying findings, each naming its rule and path, as
//! the message); operations, exemptions, UPDATEs and warn mode as the core decides. A
//! payload, object or settings that cannot be read is rejected with a message that
//! names the problem; the policy never traps on input.

use kubewarden_policy_sdk::response::ValidationResponse;
use kubewarden_policy_sdk::settings::Validatable;
use kubewarden_policy_sdk::wapc_guest as guest;
use podplan_core::admission::{judge_payload, refusal, AdmissionSettings};
use podplan_core::lint::Verdict;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The policy's settings, the core's [`AdmissionSettings`] (`rules`, `mode`,
/// `exemptNamespaces`, `exemptSelector`; docs/admission.md). Read loosely (any JSON) so
/// that [`Validatable::validate`] can refuse unknown keys, rule ids, actions and modes
/// with a message rather than a deserialisation error.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Settings(pub Value);

impl Settings {
    /// The admission settings, or why these settings are refused.
    pub fn admission(&self) -> Result<AdmissionSettings, String> {
        AdmissionSettings::from_value(&self.0).map_err(|e| {
            if e.path.is_empty() || e.path == "settings" {
                e.message
            } else {
                format!("{}: {}", e.path, e.message)
            }
        })
    }
}

impl Validatable for Settings {
    fn validate(&self) -> Result<(), String> {
        self.admission().map(|_| ())
    }
}

/// The verdict on a `validate` payload (`{"settings", "request"}`), by the core's
/// admission judge ([`podplan_core::admission`]), or why it cannot be judged.
pub fn judge(payload: &[u8]) -> Result<Verdict, String> {
    judge_payload(payload).map_err(|e| {
        if e.path.starts_with("settings") {
            format!("bad settings: {}", e.message)
        } else if e.path.is_empty() && e.message.starts_with("the validation request") {
            e.message
        } else {
            refusal(&e)
        }
    })
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
