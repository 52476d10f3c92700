//! The one call/answer API: a request in, a plan (or a structured error) out.
//!
//! Every front end wraps these functions; none adds logic of its own.

use serde::Serialize;

use crate::error::{ErrorEnvelope, PlanError};
use crate::features::FeatureGates;
use crate::limits::MAX_REQUEST_BYTES;
use crate::plan::Plan;
use crate::request::PlanRequest;
use crate::{config, decision, steps, validate};

mod unused;

/// Computes the plan for a typed request.
///
/// The request is validated first; invalid input gives a [`PlanError`] and no plan.
pub fn plan(request: &PlanRequest) -> Result<Plan, PlanError> {
    if request.api_defaults {
        let mut defaulted = request.clone();
        crate::defaults::apply_api_defaults(&mut defaulted.pod);
        defaulted.api_defaults = false;
        return plan(&defaulted);
    }
    let warnings = validate::validate(request)?;
    let gates = FeatureGates::resolve(&request.feature_gates);
    let mut plan = decision::decide(request, &gates);
    config::attach(request, &gates, &mut plan);
    steps::build(request, &gates, &mut plan);
    config::retain_created(&mut plan);
    plan.warnings.extend(warnings);
    Ok(plan)
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
    match strict_from_slice::<PlanRequest>(bytes, "") {
        Ok(request) => Ok(request),
        Err(_) if looks_like_bare_pod(bytes) => {
            let pod = strict_from_slice(bytes, "pod")?;
            Ok(PlanRequest {
                pod,
                api_defaults: true,
                ..PlanRequest::default()
            })
        }
        Err(err) => Err(err),
    }
}

/// A document without a `pod` key but with a `spec` is a bare `v1.Pod`.
/// (Only consulted on the error path, so plain requests are parsed once.)
fn looks_like_bare_pod(bytes: &[u8]) -> bool {
    serde_json::from_slice::<std::collections::BTreeMap<String, serde::de::IgnoredAny>>(bytes)
        .is_ok_and(|keys| !keys.contains_key("pod") && keys.contains_key("spec"))
}

/// Reads a request from an already-parsed JSON value (e.g. converted from YAML).
pub fn parse_request_value(value: serde_json::Value) -> Result<PlanRequest, PlanError> {
    let is_bare_pod = value
        .as_object()
        .is_some_and(|o| !o.contains_key("pod") && o.contains_key("spec"));
    if is_bare_pod {
        let pod = strict_from_value(value, "pod")?;
        return Ok(PlanRequest {
            pod,
            api_defaults: true,
            ..PlanRequest::default()
        });
    }
    strict_from_value(value, "")
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
    answer_bytes(parse_request(bytes).and_then(|r| plan(&r)))
}

/// A JSON value in, a JSON value out: the plan, or `{"error": {...}}`.
#[must_use]
pub fn plan_value(value: serde_json::Value) -> serde_json::Value {
    match parse_request_value(value).and_then(|r| plan(&r)) {
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
    serde_json::to_value(value).unwrap_or_else(|e| {
        serde_json::json!({"error": {"kind": "InvalidInput", "path": "", "message": e.to_string()}})
    })
}

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
        contract: crate::CONTRACT_VERSION,
        kubernetes: crate::KUBERNETES_TARGET,
    }
}

fn join_path(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty() || path == ".") {
        (_, true) => prefix.to_string(),
        (true, false) => path.to_string(),
        (false, false) if path.starts_with('[') => format!("{prefix}{path}"),
        (false, false) => format!("{prefix}.{path}"),
    }
}

/// Deserialises with exact error paths, rejecting fields the target type does not know.
fn strict<'de, D, T>(de: D, prefix: &str) -> Result<T, PlanError>
where
    D: serde::Deserializer<'de, Error = serde_json::Error>,
    T: serde::de::DeserializeOwned,
{
    let mut unknown: Option<String> = None;
    let mut track = serde_path_to_error::Track::new();
    let tracked = serde_path_to_error::Deserializer::new(de, &mut track);
    let result: Result<T, _> = serde_ignored::deserialize(tracked, |path| {
        if unknown.is_none() {
            unknown = Some(render_ignored(&path));
        }
    });
    match result {
        Ok(value) => match unknown {
            None => Ok(value),
            Some(path) => {
                let (parent, field) = match path.rsplit_once('.') {
                    Some((p, f)) if !f.contains('[') => (p.to_string(), f.to_string()),
                    _ => (String::new(), path.clone()),
                };
                Err(PlanError::invalid(
                    join_path(prefix, &path),
                    format!(
                        "unknown field `{field}`{}",
                        if parent.is_empty() {
                            String::new()
                        } else {
                            format!(" in {}", join_path(prefix, &parent))
                        }
                    ),
                ))
            }
        },
        Err(err) => {
            let path = track.path().to_string();
            Err(PlanError::invalid(
                join_path(prefix, &path),
                err.to_string(),
            ))
        }
    }
}

/// Renders a `serde_ignored` path as `a.b[0].c`.
fn render_ignored(path: &serde_ignored::Path<'_>) -> String {
    use serde_ignored::Path;
    match path {
        Path::Root => String::new(),
        Path::Seq { parent, index } => format!("{}[{index}]", render_ignored(parent)),
        Path::Map { parent, key } => join_path(&render_ignored(parent), key),
        Path::Some { parent }
        | Path::NewtypeStruct { parent }
        | Path::NewtypeVariant { parent } => render_ignored(parent),
    }
}

/// [`strict`] on JSON bytes. Valid input takes a fast path that tracks no paths; input
/// the fast path rejects (bad UTF-8 or JSON, a wrong type, an unknown field, trailing
/// data) is parsed again with path tracking, which produces the error.
fn strict_from_slice<T: serde::de::DeserializeOwned>(
    bytes: &[u8],
    prefix: &str,
) -> Result<T, PlanError> {
    if let Some(value) = fast_from_slice(bytes) {
        return Ok(value);
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = strict(&mut de, prefix)?;
    de.end()
        .map_err(|e| PlanError::invalid(prefix, e.to_string()))?;
    Ok(value)
}

/// The value, when `bytes` are valid UTF-8 holding exactly one JSON document that
/// deserialises into `T` without ignoring anything. Parsing from `str` spares serde_json
/// re-validating the UTF-8 of every string.
fn fast_from_slice<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Option<T> {
    let text = std::str::from_utf8(bytes).ok()?;
    let mut de = serde_json::Deserializer::from_str(text);
    let (value, ignored) = unused::deserialize(&mut de).ok()?;
    de.end().ok()?;
    (!ignored).then_some(value)
}

fn strict_from_value<T: serde::de::DeserializeOwned>(
    value: serde_json::Value,
    prefix: &str,
) -> Result<T, PlanError> {
    strict(value, prefix)
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
