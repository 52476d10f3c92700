//! The one call/answer API: a request in, a plan (or a structured error) out, and the
//! calls around it.
//!
//! Every front end wraps these functions; none adds logic of its own. Each call has a
//! typed form (Rust values in and out, a [`PlanError`] for bad input) and a JSON form
//! (text or bytes in, JSON out: the answer, or `{"error": {"kind", "path", "message"}}`
//! with `path` naming the offending field). The wasm module's exports (`wasm/`: the JS
//! build's names, the plain ABI's functions) and the CLI call these and only marshal.
//!
//! | call (JS / ABI name) | input | output | typed form | JSON form |
//! |---|---|---|---|---|
//! | plan (`plan`, `planJson`; `podplan_plan`) | a request ([`PlanRequest`]; a bare `v1.Pod` too) | the [`Plan`] | [`plan()`] | [`plan_json`], [`plan_value`] |
//! | complete (`complete`, `completeJson`; `podplan_complete`) | `{request, sandboxStatus}` | the request's plan with every `dependsOnNewSandbox` config and file step regenerated from the new sandbox's status | `complete()` | [`complete_json`] |
//! | sim apply (`simApply`, `simApplyJson`) | `{request, plan, hooks?}` (`calls::SimApply`) | `{request, changed, blockedMillis}` (`calls::SimAnswer`): the next sync's request (with the hooks' `hookResults`); `changed`: the plan changed the runtime (a PLEG event: the kubelet syncs again at once); `blockedMillis`: how long carrying it out took (preStop hooks, stops waited for, image pulls), by which a caller's clock moves before the next sync | `calls::sim_apply` | [`calls::sim_apply_json`] |
//! | sim step (`simStep`, `simStepJson`) | `{request, step, index?, hooks?, blockedMillis?}` (`calls::SimStep`) | `{request, changed, blockedMillis}` (`calls::SimAnswer`): the request with the runtime status, actuated resources and `hookResults` after that one step | `calls::sim_step` | [`calls::sim_step_json`] |
//! | sim event (`simEvent`, `simEventJson`) | `{request, event, hooks?}` (`calls::SimEvent`) | `{request, hooks, note?}` (`calls::SimEventAnswer`) | `calls::sim_event` | [`calls::sim_event_json`] |
//! | crictl (`crictl`, `crictlJson`) | `{sandboxConfig}` or `{containerConfig}` (CRI proto3 JSON; `calls::CrictlConfig`) | `{crictl}`: the file crictl reads | `calls::crictl` | [`calls::crictl_json`] |
//! | lint | `{object, settings?, facts?, apiDefaults?}` | `{findings, verdict}` | [`crate::lint::lint_object`] | |
//! | admission (`podplan admit`, the webhook, the Kubewarden policy's `validate`) | `{request, settings?}` (an `AdmissionRequest`) | `{verdict: {allowed, message?, warnings?}}` | [`crate::admission::judge`] | [`crate::admission::judge_payload`] (bytes in, a verdict out) |
//! | version (`version`; `podplan_abi_version` is the ABI's own) | nothing | `{podplan, contract, kubernetes}` | [`version()`] | |
//!
//! The lint and admission calls live beside their rules ([`crate::lint`],
//! [`crate::admission`]), which read their inputs through this module's reader.

use serde::Serialize;

use crate::config;
use crate::error::{ErrorEnvelope, PlanError};
use crate::features::FeatureGates;
use crate::limits::MAX_REQUEST_BYTES;
use crate::plan::Plan;
use crate::request::PlanRequest;

pub mod calls;
mod deny_ignored;

pub(crate) use crate::json_value::to_json_value;

/// Computes the plan for a typed request.
///
/// The request is validated first; invalid input gives a [`PlanError`] and no plan.
pub fn plan(request: &PlanRequest) -> Result<Plan, PlanError> {
    crate::pipeline::plan_to(request, crate::pipeline::Stage::Status)
}

/// The pod as the API server would store it: refused as a request with `apiDefaults` is
/// (a pod without containers or images), else with the API server's defaults for these
/// feature gates: what the engine does to a request's pod with `apiDefaults`, so a
/// request that carries the result with `apiDefaults: false` gets the plan that the
/// original pod gets with `apiDefaults: true`. A host that plans one pod on every sync
/// (the agent) defaults it once.
///
/// # Errors
/// What [`plan`] answers for the pod with `apiDefaults` when the API server would refuse it.
pub fn api_server_pod(
    pod: &k8s_openapi::api::core::v1::Pod,
    feature_gates: &std::collections::BTreeMap<String, bool>,
) -> Result<k8s_openapi::api::core::v1::Pod, PlanError> {
    let request = PlanRequest {
        pod: pod.clone(),
        api_defaults: true,
        ..PlanRequest::default()
    };
    crate::validate::api_server(&request)?;
    let mut pod = request.pod;
    crate::defaults::apply_api_defaults_with(&mut pod, &FeatureGates::resolve(feature_gates));
    Ok(pod)
}

/// Reads a request from JSON bytes. A bare `v1.Pod` (a document without a `pod` key
/// that has a `spec`) is accepted: it means "nothing exists yet", and, being a manifest
/// rather than what the API server serves, it gets the API server's defaults
/// (`apiDefaults`).
pub fn parse_request(bytes: &[u8]) -> Result<PlanRequest, PlanError> {
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(PlanError::limit(
            "",
            format!(
                "request is {} bytes; the limit is {MAX_REQUEST_BYTES}",
                bytes.len()
            ),
        ));
    }
    match strict_from_slice::<PlanRequest>(bytes) {
        Ok(request) => Ok(request),
        Err(_) if looks_like_bare_pod(bytes) => parse_bare_pod(bytes),
        Err(err) => Err(err),
    }
}

/// Reads a bare pod as the request `{"pod": <bytes>}`, through the very deserializer a
/// full request goes through. (Deserialising a `Pod` on its own would instantiate every
/// Kubernetes deserializer a second time: about a fifth of the wasm module.) Positions
/// in messages are given back in the caller's bytes: on the first line, serde_json's
/// columns count the 7 bytes of `{"pod":`.
fn parse_bare_pod(bytes: &[u8]) -> Result<PlanRequest, PlanError> {
    const PREFIX: &[u8] = br#"{"pod":"#;
    let mut wrapped = Vec::with_capacity(PREFIX.len() + bytes.len() + 1);
    wrapped.extend_from_slice(PREFIX);
    wrapped.extend_from_slice(bytes);
    wrapped.push(b'}');
    strict_from_slice::<PlanRequest>(&wrapped)
        .map(|request| PlanRequest {
            api_defaults: true,
            ..request
        })
        .map_err(|mut e| {
            e.message = unshift_first_line_column(&e.message, PREFIX.len());
            e
        })
}

/// `"... at line 1 column N"` → `"... at line 1 column N-by"`; other messages unchanged.
fn unshift_first_line_column(message: &str, by: usize) -> String {
    let shifted = message.rsplit_once(" column ").and_then(|(head, column)| {
        let column = column.parse::<usize>().ok()?.checked_sub(by)?;
        head.ends_with(" at line 1")
            .then(|| format!("{head} column {column}"))
    });
    shifted.unwrap_or_else(|| message.to_string())
}

/// A document without a `pod` key but with a `spec` is a bare `v1.Pod`.
/// (Only consulted on the error path, so plain requests are parsed once.)
fn looks_like_bare_pod(bytes: &[u8]) -> bool {
    serde_json::from_slice::<std::collections::BTreeMap<String, serde::de::IgnoredAny>>(bytes)
        .is_ok_and(|keys| !keys.contains_key("pod") && keys.contains_key("spec"))
}

/// Reads a request from an already-parsed JSON value (e.g. converted from YAML).
/// Errors name the JSON path; they carry no line and column, which would point into
/// the value's JSON text rather than the caller's document.
pub fn parse_request_value(
    value: impl std::borrow::Borrow<serde_json::Value>,
) -> Result<PlanRequest, PlanError> {
    let bytes = serde_json::to_vec(value.borrow())
        .map_err(|e| PlanError::invalid("", format!("the request cannot be read: {e}")))?;
    parse_request(&bytes).map_err(|mut e| {
        e.message = without_position(&e.message).to_string();
        e
    })
}

/// `"... at line N column M"` without the position.
fn without_position(message: &str) -> &str {
    match message.rsplit_once(" at line ") {
        Some((head, tail)) if tail.contains(" column ") => head,
        _ => message,
    }
}

/// JSON bytes in, JSON bytes out: the plan, or `{"error": {...}}`. Never panics.
///
/// ```
/// let out = podplan_core::plan_json(b"not json");
/// let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
/// assert_eq!(v["error"]["kind"], "InvalidInput");
/// ```
#[must_use]
pub fn plan_json(bytes: &[u8]) -> Vec<u8> {
    match parse_request(bytes) {
        Ok(request) if request.proto3_json => {
            let answer = plan(&request).map(|p| strict_value(&p));
            match answer {
                Ok(v) => serde_json::to_vec(&v).unwrap_or_default(),
                Err(e) => answer_bytes(Err(e)),
            }
        }
        Ok(request) => answer_bytes(plan(&request)),
        Err(e) => answer_bytes(Err(e)),
    }
}

/// Completes a plan from the status of the sandbox it created (`RunPodSandbox` then
/// `PodSandboxStatus`): JSON `{"request": <request>, "sandboxStatus": <sandbox status>}`
/// in, the request's plan with every `dependsOnNewSandbox` config and file step
/// regenerated with the new sandbox's pod IPs out (or `{"error": ...}`). See
/// `crate::config::complete`.
#[must_use]
pub fn complete_json(bytes: &[u8]) -> Vec<u8> {
    match complete_request(bytes) {
        Ok((plan, true)) => serde_json::to_vec(&strict_value(&plan)).unwrap_or_default(),
        Ok((plan, false)) => answer_bytes(Ok(plan)),
        Err(e) => answer_bytes(Err(e)),
    }
}

fn complete_request(bytes: &[u8]) -> Result<(Plan, bool), PlanError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct CompleteRequest {
        request: serde_json::Value,
        sandbox_status: crate::runtime::SandboxStatus,
    }
    if bytes.len() > MAX_REQUEST_BYTES {
        return Err(PlanError::limit(
            "",
            format!(
                "request is {} bytes; the limit is {MAX_REQUEST_BYTES}",
                bytes.len()
            ),
        ));
    }
    let input: CompleteRequest = serde_json::from_slice(bytes)
        .map_err(|e| PlanError::invalid("", format!("not a completion request: {e}")))?;
    let request = parse_request_value(input.request).map_err(|mut e| {
        e.path = if e.path.is_empty() {
            "request".to_string()
        } else {
            format!("request.{}", e.path)
        };
        e
    })?;
    let answer = complete(&request, &input.sandbox_status)?;
    Ok((answer, request.proto3_json))
}

/// Completes a plan from the status of the sandbox it created: the request's plan with
/// every `dependsOnNewSandbox` config and file step regenerated with the new sandbox's
/// pod IPs (`config::complete::complete_plan`); the typed form of
/// [`complete_json`]. A request with `apiDefaults` gets the API server's defaults first.
///
/// # Errors
/// The request cannot be planned.
pub fn complete(
    request: &PlanRequest,
    sandbox_status: &crate::runtime::SandboxStatus,
) -> Result<Plan, PlanError> {
    let gates = FeatureGates::resolve(&request.feature_gates);
    let defaulted;
    let request = if request.api_defaults {
        let mut with_defaults = request.clone();
        crate::defaults::apply_api_defaults_with(&mut with_defaults.pod, &gates);
        with_defaults.api_defaults = false;
        defaulted = with_defaults;
        &defaulted
    } else {
        request
    };
    let mut answer = plan(request)?;
    config::complete::complete_plan(request, &gates, &mut answer, sandbox_status);
    Ok(answer)
}

/// The plan's JSON with its configs in strict proto3 JSON ([`crate::cri::proto3`]).
#[must_use]
pub fn strict_value(plan: &Plan) -> serde_json::Value {
    let mut v = to_value_or_error(plan);
    strict_plan(&mut v, plan);
    v
}

/// The plan JSON `v` (of `typed`) with every container config's env values in strict form
/// ([`crate::cri::proto3::strict_envs`]). Here, not in `cri`: the CRI messages are leaves
/// that know nothing of the plan.
fn strict_plan(v: &mut serde_json::Value, typed: &Plan) {
    let Some(entries) = v
        .get_mut("containerConfigs")
        .and_then(serde_json::Value::as_array_mut)
    else {
        return;
    };
    for (json, entry) in entries.iter_mut().zip(&typed.container_configs) {
        if let Some(config) = json.get_mut("config") {
            crate::cri::proto3::strict_envs(config, &entry.config);
        }
    }
}

/// A JSON value in, a JSON value out: the plan, or `{"error": {...}}`.
#[must_use]
pub fn plan_value(value: serde_json::Value) -> serde_json::Value {
    let request = parse_request_value(value);
    let strict = request.as_ref().is_ok_and(|r| r.proto3_json);
    match request.and_then(|r| plan(&r)) {
        Ok(plan) if strict => strict_value(&plan),
        Ok(plan) => to_value_or_error(&plan),
        Err(error) => to_value_or_error(&ErrorEnvelope { error }),
    }
}

/// Serialises a result as the contract's answer bytes.
#[must_use]
pub fn answer_bytes(result: Result<Plan, PlanError>) -> Vec<u8> {
    let serialized = match &result {
        Ok(plan) => to_vec_sized(plan),
        Err(error) => serde_json::to_vec(&ErrorEnvelope {
            error: error.clone(),
        }),
    };
    serialized.unwrap_or_else(|e| {
        // Serialising our own types cannot fail; answer with a structured error anyway.
        let fallback = ErrorEnvelope {
            error: PlanError::invalid("", format!("could not serialise the plan: {e}")),
        };
        serde_json::to_vec(&fallback).unwrap_or_default()
    })
}

/// A plan's JSON, written into a buffer sized for a typical plan rather than grown from
/// 128 bytes by doubling.
fn to_vec_sized(plan: &Plan) -> serde_json::Result<Vec<u8>> {
    const TYPICAL_PLAN_BYTES: usize = 4096;
    let mut out = Vec::with_capacity(TYPICAL_PLAN_BYTES);
    serde_json::to_writer(&mut out, plan)?;
    Ok(out)
}

fn to_value_or_error<T: Serialize>(value: &T) -> serde_json::Value {
    to_json_value(value).unwrap_or_else(|e| {
        serde_json::json!({"error": {"kind": "InvalidInput", "path": "", "message": e.to_string()}})
    })
}

/// The Kubernetes release whose kubelet this engine re-implements.
pub const KUBERNETES_TARGET: &str = "1.37";

/// Version of the JSON plan contract spoken by [`plan_json`] (see `docs/contract.md`).
pub const CONTRACT_VERSION: &str = "1";

/// Version facts of this build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionInfo {
    /// podplan's own version.
    pub podplan: &'static str,
    /// The plan contract version.
    pub contract: &'static str,
    /// The Kubernetes release whose kubelet is re-implemented.
    pub kubernetes: &'static str,
}

/// The version facts of this build.
#[must_use]
pub fn version() -> VersionInfo {
    VersionInfo {
        podplan: env!("CARGO_PKG_VERSION"),
        contract: CONTRACT_VERSION,
        kubernetes: KUBERNETES_TARGET,
    }
}

/// Reads JSON text into `T` as serde does on its own (fields `T` does not know are
/// skipped). Front ends read their other inputs (a plan, an event, a CRI config) with it
/// rather than with `serde_json::from_str` or `from_value`: it goes through the
/// deserializer requests go through, so the wasm module carries one family of
/// deserialisers, not one per deserializer type. The message of an error has no line and
/// column.
pub(crate) fn from_json_text<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_str(text);
    deny_ignored::deserialize_lenient(&mut de)
        .and_then(|value| de.end().map(|()| value))
        .map_err(|e| without_position(&e.to_string()).to_string())
}

/// Deserialises JSON bytes strictly: unknown fields anywhere are errors, and every
/// error names the JSON path of the value it concerns.
fn strict_from_slice<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, PlanError> {
    // Parsing from `str` spares serde_json re-validating the UTF-8 of every string.
    let Ok(text) = std::str::from_utf8(bytes) else {
        let err = serde_json::from_slice::<serde::de::IgnoredAny>(bytes).err();
        let message = err.as_ref().map_or_else(
            || "the request is not UTF-8".to_string(),
            ToString::to_string,
        );
        return Err(error_at(bytes, err.as_ref(), message));
    };
    let mut de = serde_json::Deserializer::from_str(text);
    match deny_ignored::deserialize(&mut de) {
        Ok(value) => match de.end() {
            Ok(()) => Ok(value),
            Err(e) => Err(error_at(bytes, Some(&e), e.to_string())),
        },
        Err(deny_ignored::Failure::Other(e)) => Err(error_at(bytes, Some(&e), e.to_string())),
        Err(deny_ignored::Failure::Unknown(e)) => {
            let mut err = error_at(bytes, Some(&e), String::new());
            let (parent, field) = match err.path.rsplit_once('.') {
                Some((p, f)) if !f.contains('[') => (p.to_string(), f.to_string()),
                _ => (String::new(), err.path.clone()),
            };
            err.message = if parent.is_empty() {
                format!("unknown field `{field}`")
            } else {
                format!("unknown field `{field}` in {parent}")
            };
            Err(err)
        }
    }
}

/// An [`ErrorKind::InvalidInput`](crate::ErrorKind) error at the JSON path of the
/// position serde_json reported.
fn error_at(bytes: &[u8], err: Option<&serde_json::Error>, message: String) -> PlanError {
    let path = err.map_or_else(String::new, |e| {
        let offset = crate::json_path::offset_of(bytes, e.line(), e.column());
        crate::json_path::path_at(bytes, offset)
    });
    PlanError::invalid(path, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_fields_are_named_with_their_path() {
        let err =
            parse_request(br#"{"pod":{"spec":{"containers":[{"name":"a","imag":"x"}]}}}"#).err();
        let err = err.map(|e| (e.path, e.message));
        assert_eq!(
            err,
            Some((
                "pod.spec.containers[0].imag".into(),
                "unknown field `imag` in pod.spec.containers[0]".into()
            ))
        );
        let err = parse_request(br#"{"pod":{},"bogus":1}"#)
            .err()
            .map(|e| e.message);
        assert!(err.is_some_and(|m| m.contains("unknown field `bogus`")));
    }

    #[test]
    fn a_struct_given_as_an_array_is_a_type_error_at_its_path() {
        // (serde_json alone would read a derived struct from an array, field by position.)
        for (json, path) in [
            (
                &br#"{"pod":{"spec":{"containers":[["a","x"]]}}}"#[..],
                "pod.spec.containers[0]",
            ),
            (br#"{"pod":{},"node":[{}]}"#, "node"),
        ] {
            let err = parse_request(json).err().map(|e| (e.path, e.message));
            assert!(
                matches!(&err, Some((p, m)) if p == path && m.starts_with("invalid type: sequence, expected")),
                "{err:?}"
            );
        }
    }

    #[test]
    fn wrong_types_name_their_path() {
        let err = parse_request(br#"{"pod":{"spec":{"containers":[{"name":5}]}}}"#).err();
        assert_eq!(
            err.map(|e| e.path),
            Some("pod.spec.containers[0].name".into())
        );
    }

    #[test]
    fn bare_pod_is_a_request_with_nothing_running() {
        let r = parse_request(
            br#"{"kind":"Pod","apiVersion":"v1","spec":{"containers":[{"name":"a"}]}}"#,
        );
        assert!(r.is_ok_and(|r| r.runtime_status.is_none() && r.pod.spec.is_some()));
    }

    #[test]
    fn bare_pod_errors_name_the_pod_path_and_the_callers_position() {
        let err = parse_request(br#"{"spec":{"containers":[{"name":5}]}}"#).err();
        assert_eq!(
            err.map(|e| (e.path, e.message)),
            Some((
                "pod.spec.containers[0].name".into(),
                "invalid type: integer `5`, expected a string at line 1 column 32".into()
            ))
        );
        let err = parse_request(b"{\"spec\":\n {\"containers\": [{\"name\": true}]}}").err();
        assert!(err.is_some_and(|e| e.message.ends_with("at line 2 column 30")));
        let err = parse_request(br#"{"spec":{"containers":[{"name":"a","imag":"x"}]}}"#).err();
        assert_eq!(
            err.map(|e| (e.path, e.message)),
            Some((
                "pod.spec.containers[0].imag".into(),
                "unknown field `imag` in pod.spec.containers[0]".into()
            ))
        );
        assert_eq!(
            unshift_first_line_column("x at line 11 column 9", 7),
            "x at line 11 column 9"
        );
        assert_eq!(
            unshift_first_line_column("x at line 1 column 3", 7),
            "x at line 1 column 3"
        );
        assert_eq!(unshift_first_line_column("no position", 7), "no position");
    }

    #[test]
    fn oversize_input_is_a_limit_error() {
        let big = vec![b' '; MAX_REQUEST_BYTES + 1];
        assert_eq!(
            parse_request(&big).err().map(|e| e.kind),
            Some(crate::ErrorKind::LimitExceeded)
        );
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let mut s = String::from(r#"{"pod":{"metadata":{"annotations":"#);
        s.push_str(&"[".repeat(100_000));
        assert!(parse_request(s.as_bytes()).is_err());
    }
}
