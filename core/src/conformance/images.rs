//! `images` vectors: `applyDefaultImageTag`, `evalCRIPullErr` and `ensureImageExists`
//! (sequences of calls against a fake runtime, state threaded between steps), see
//! `conformance/images/README.md`.
//!
//! The fake runtime of the kubelet's tests: `ImageStatus` finds the listed images (or
//! fails with `inspectError` when an image is not listed), every `PullImage` fails with
//! `pullError` or succeeds returning the requested name as imageRef (and adds it to the
//! list); an optional QPS limiter sits in front of `PullImage`.
//!
//! Comparison: `exact` — every expected field equal; `subset` — expected objects may be
//! subsets of the produced ones. `messagePrefix` / `messageContains` check `message` by
//! prefix / substring wherever they appear.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{Pod, Secret};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::events::Event;
use crate::features::FeatureGates;
use crate::images::backoff::{ImageBackoff, ImageBackoffPolicy, ImageBackoffRecord};
use crate::images::credentials::TrackedCredential;
use crate::images::throttle::{PullThrottle, PullThrottleConfig, QPS_EXCEEDED};
use crate::images::{
    self, complete_pull, ensure_image_exists, reference, EnsureInput, ImageError, NodeImages,
    Outcome, PullRecordCheck, PullRecordOracle, PullResult,
};

use super::diff::json_diff;

/// The functions this module answers.
pub(crate) const FUNCTIONS: &[&str] = &[
    "applyDefaultImageTag",
    "evalCRIPullErr",
    "ensureImageExists",
];

/// Checks one images vector; `Err` carries a readable diff.
pub(crate) fn check(vector: &Value) -> Result<(), String> {
    let function = vector
        .get("function")
        .and_then(Value::as_str)
        .ok_or("vector has no `function`")?;
    let input = vector.get("input").ok_or("vector has no `input`")?;
    let exact = vector.get("compare").and_then(Value::as_str) == Some("exact");
    match function {
        "applyDefaultImageTag" | "evalCRIPullErr" => {
            let expected = vector.get("expected").ok_or("vector has no `expected`")?;
            let produced = run_simple(function, input)?;
            compare(expected, &produced, exact)
        }
        "ensureImageExists" => {
            let steps = vector
                .get("steps")
                .and_then(Value::as_array)
                .ok_or("ensureImageExists vector has no `steps`")?;
            let produced = run_steps(input, steps)?;
            let mut diffs = Vec::new();
            for (i, (step, got)) in steps.iter().zip(&produced).enumerate() {
                let expected = step.get("expected").ok_or("step has no `expected`")?;
                if let Err(d) = compare(expected, got, exact) {
                    diffs.push(format!("  step {i}:\n{d}"));
                }
            }
            if diffs.is_empty() {
                Ok(())
            } else {
                Err(diffs.join("\n"))
            }
        }
        other => Err(format!("not an images function: {other}")),
    }
}

fn error_value(e: &ImageError) -> Value {
    json!({"error": {"kind": e.kind.as_str()}, "message": e.message})
}

fn run_simple(function: &str, input: &Value) -> Result<Value, String> {
    let image = input
        .get("image")
        .and_then(Value::as_str)
        .ok_or("input.image missing")?;
    Ok(match function {
        "applyDefaultImageTag" => match reference::apply_default_image_tag(image) {
            Ok(i) => json!({"image": i}),
            Err(e) => json!({"error": {"kind": "InvalidImageName"}, "message": e.to_string()}),
        },
        _ => {
            let err = input
                .get("pullError")
                .and_then(Value::as_str)
                .ok_or("input.pullError missing")?;
            error_value(&images::eval_cri_pull_err(image, err))
        }
    })
}

fn opt<T: DeserializeOwned + Default>(input: &Value, key: &str) -> Result<T, String> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("input.{key}: {e}")),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FakeImage {
    image: String,
    image_ref: String,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FakeRuntime {
    #[serde(default)]
    images: Vec<FakeImage>,
    #[serde(default)]
    inspect_error: Option<String>,
    #[serde(default)]
    pull_error: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct BackoffConfig {
    initial_seconds: u64,
    max_seconds: u64,
}

/// Initial engine state: `backoff` as records (a list, or a map key → record) and
/// `prevPullErrors` as key → text.
fn initial_backoff(input: &Value, policy: ImageBackoffPolicy) -> Result<ImageBackoff, String> {
    let state = input.get("state").cloned().unwrap_or(Value::Null);
    let mut records: Vec<ImageBackoffRecord> = Vec::new();
    match state.get("backoff") {
        Some(Value::Array(list)) => {
            for r in list {
                records.push(
                    serde_json::from_value(r.clone()).map_err(|e| format!("state.backoff: {e}"))?,
                );
            }
        }
        Some(Value::Object(map)) => {
            for (k, r) in map {
                let mut r = r.clone();
                if let Some(o) = r.as_object_mut() {
                    o.insert("key".into(), Value::String(k.clone()));
                }
                records.push(
                    serde_json::from_value(r).map_err(|e| format!("state.backoff.{k}: {e}"))?,
                );
            }
        }
        _ => {}
    }
    let prev: BTreeMap<String, String> = opt(&state, "prevPullErrors")?;
    let (mut b, _) = ImageBackoff::new(policy, &records);
    for (k, v) in prev {
        b.set_previous_error(&k, Some(v));
    }
    Ok(b)
}

fn event_value(e: &Event) -> Value {
    json!({"type": e.kind, "reason": e.reason, "message": e.message})
}

fn run_steps(input: &Value, steps: &[Value]) -> Result<Vec<Value>, String> {
    let pod: Pod = serde_json::from_value(input.get("pod").cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("input.pod: {e}"))?;
    let name = input
        .get("container")
        .and_then(Value::as_str)
        .ok_or("input.container missing")?;
    let spec = pod.spec.clone().unwrap_or_default();
    let container = spec
        .containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .find(|c| c.name == name)
        .cloned()
        .ok_or_else(|| format!("the pod has no container {name:?}"))?;
    let secrets: Vec<Secret> = opt(input, "pullSecrets")?;
    let node_credentials: BTreeMap<String, Vec<TrackedCredential>> = opt(input, "nodeCredentials")?;
    let gate_overrides: BTreeMap<String, bool> = opt(input, "featureGates")?;
    let gates = FeatureGates::resolve(&gate_overrides);
    let runtime_handler: String = opt(input, "podRuntimeHandler")?;
    let policy = match input.get("backoffConfig") {
        None | Some(Value::Null) => ImageBackoffPolicy::default(),
        Some(_) => {
            let c: BackoffConfig = opt(input, "backoffConfig")?;
            ImageBackoffPolicy {
                initial_seconds: c.initial_seconds,
                max_seconds: c.max_seconds,
            }
        }
    };
    let throttle_config: Option<PullThrottleConfig> = match input.get("pullThrottle") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            serde_json::from_value(v.clone()).map_err(|e| format!("input.pullThrottle: {e}"))?,
        ),
    };
    let mut throttle = throttle_config.map(PullThrottle::new);
    let runtime: FakeRuntime = opt(input, "runtime")?;
    let oracle: PullRecordOracle = match input.get("pullManager") {
        None | Some(Value::Null) => PullRecordOracle {
            allow_all: true,
            ..PullRecordOracle::default()
        },
        Some(v) => {
            serde_json::from_value(v.clone()).map_err(|e| format!("input.pullManager: {e}"))?
        }
    };
    let records = PullRecordCheck::Oracle(oracle);
    let mut backoff = initial_backoff(input, policy)?;
    let mut node_images = NodeImages::default();
    let mut listed: Vec<(String, String)> = Vec::new();
    for i in &runtime.images {
        node_images
            .images
            .insert(i.image.clone(), i.image_ref.clone());
        listed.push((i.image.clone(), i.image_ref.clone()));
    }
    let base_now: Option<jiff::Timestamp> = opt(input, "now")?;
    let mut out = Vec::new();
    for step in steps {
        let now: jiff::Timestamp = step
            .get("input")
            .and_then(|i| i.get("now"))
            .and_then(Value::as_str)
            .map(str::parse)
            .transpose()
            .map_err(|e| format!("steps[].input.now: {e}"))?
            .or(base_now)
            .ok_or("no `now`")?;
        // `inspectError` answers ImageStatus for images that are not listed.
        if let Some(e) = &runtime.inspect_error {
            let tagged =
                reference::apply_default_image_tag(&container.image.clone().unwrap_or_default())
                    .unwrap_or_default();
            if !node_images.images.contains_key(&tagged) {
                node_images.errors.insert(tagged, e.clone());
            }
        }
        let image = container.image.clone().unwrap_or_default();
        let ensure = EnsureInput {
            pod: &pod,
            container: &container.name,
            image: &image,
            pull_policy: container.image_pull_policy.as_deref(),
            pull_secrets: &secrets,
            node_credentials: &node_credentials,
            runtime_handler: &runtime_handler,
            gates: &gates,
            node_images: &node_images,
            pull_records: &records,
            now,
        };
        let d = ensure_image_exists(&ensure, &mut backoff);
        let mut calls: Vec<&str> = Vec::new();
        if d.image_status_called {
            calls.push("GetImageRef");
        }
        let mut events: Vec<Value> = d.events.iter().map(event_value).collect();
        let mut result = Map::new();
        result.insert("pull".into(), json!(matches!(d.outcome, Outcome::Pull(_))));
        let mut pull_request = Value::Null;
        match &d.outcome {
            Outcome::Present { image_ref, message } => {
                result.insert("imageRef".into(), json!(image_ref));
                result.insert("message".into(), json!(message));
                result.insert("error".into(), Value::Null);
            }
            Outcome::Failed(e) => {
                result.insert("imageRef".into(), json!(""));
                result.insert("message".into(), json!(e.message));
                result.insert("error".into(), json!({"kind": e.kind.as_str()}));
            }
            Outcome::Pull(order) => {
                pull_request = serde_json::to_value(&order.spec).map_err(|e| e.to_string())?;
                let accepted = throttle.as_mut().is_none_or(|t| t.try_accept(now));
                let answer = if !accepted {
                    PullResult {
                        image_ref: None,
                        error: Some(QPS_EXCEEDED.into()),
                        pull_millis: 0,
                        total_millis: 0,
                        image_size: 0,
                    }
                } else {
                    calls.push("PullImage");
                    match &runtime.pull_error {
                        Some(e) => PullResult {
                            image_ref: None,
                            error: Some(e.clone()),
                            pull_millis: 0,
                            total_millis: 0,
                            image_size: 0,
                        },
                        None => {
                            calls.push("GetImageSize");
                            PullResult {
                                image_ref: Some(order.spec.image.clone()),
                                error: None,
                                pull_millis: 0,
                                total_millis: 0,
                                image_size: 0,
                            }
                        }
                    }
                };
                let (res, evs) = complete_pull(order, &container.name, &answer, &mut backoff, now);
                events.extend(evs.iter().map(event_value));
                match res {
                    Ok(image_ref) => {
                        if !node_images.images.contains_key(&order.spec.image) {
                            node_images
                                .images
                                .insert(order.spec.image.clone(), image_ref.clone());
                            node_images.errors.remove(&order.spec.image);
                            listed.push((order.spec.image.clone(), image_ref.clone()));
                        }
                        result.insert("imageRef".into(), json!(image_ref));
                        result.insert("message".into(), json!(""));
                        result.insert("error".into(), Value::Null);
                    }
                    Err(e) => {
                        result.insert("imageRef".into(), json!(""));
                        result.insert("message".into(), json!(e.message));
                        result.insert("error".into(), json!({"kind": e.kind.as_str()}));
                    }
                }
            }
        }
        result.insert("runtimeCalls".into(), json!(calls));
        result.insert("events".into(), Value::Array(events));
        result.insert(
            "metric".into(),
            serde_json::to_value(&d.metric).map_err(|e| e.to_string())?,
        );
        result.insert(
            "credentialCheck".into(),
            serde_json::to_value(&d.credential_check).map_err(|e| e.to_string())?,
        );
        result.insert("pullRequest".into(), pull_request);
        result.insert(
            "runtimeImagesAfter".into(),
            Value::Array(
                listed
                    .iter()
                    .map(|(i, r)| json!({"image": i, "imageRef": r}))
                    .collect(),
            ),
        );
        out.push(Value::Object(result));
    }
    Ok(out)
}

/// Whether `actual` satisfies `expected` (see the module docs).
fn matches(expected: &Value, actual: &Value, exact: bool) -> bool {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            let msg = a.get("message").and_then(Value::as_str);
            for (k, ev) in e {
                let ok = match k.as_str() {
                    "messagePrefix" => ev
                        .as_str()
                        .is_some_and(|p| msg.is_some_and(|m| m.starts_with(p))),
                    "messageContains" => ev
                        .as_str()
                        .is_some_and(|p| msg.is_some_and(|m| m.contains(p))),
                    _ => a.get(k).is_some_and(|av| matches(ev, av, exact)),
                };
                if !ok {
                    return false;
                }
            }
            if exact {
                // Every produced key must be expected (message may be checked by prefix).
                a.keys().all(|k| {
                    e.contains_key(k)
                        || (k == "message"
                            && (e.contains_key("messagePrefix")
                                || e.contains_key("messageContains")))
                })
            } else {
                true
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            e.len() == a.len() && e.iter().zip(a).all(|(x, y)| matches(x, y, exact))
        }
        _ => expected == actual,
    }
}

/// Compares the expected fields (top level: only the named ones).
fn compare(expected: &Value, actual: &Value, exact: bool) -> Result<(), String> {
    let Some(e) = expected.as_object() else {
        return Err("`expected` is not an object".into());
    };
    let mut diffs = Vec::new();
    for (k, ev) in e {
        let ok = match k.as_str() {
            "messagePrefix" | "messageContains" => {
                matches(&json!({k.clone(): ev.clone()}), actual, false)
            }
            _ => actual.get(k).is_some_and(|av| matches(ev, av, exact)),
        };
        if !ok {
            let shown_key = if k.starts_with("message") {
                "message"
            } else {
                k.as_str()
            };
            let got = actual.get(shown_key).cloned().unwrap_or(Value::Null);
            diffs.push(json_diff(
                &json!({k.clone(): ev.clone()}),
                &json!({k.clone(): got}),
            ));
        }
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(diffs.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(expected: Value, runtime: Value, policy: &str) -> Value {
        json!({
            "name": "t", "function": "ensureImageExists", "compare": "subset",
            "input": {
                "pod": {"metadata": {"name": "p", "namespace": "n", "uid": "u"},
                        "spec": {"containers": [{"name": "c", "image": "img", "imagePullPolicy": policy}]}},
                "container": "c", "featureGates": {"KubeletEnsureSecretPulledImages": false},
                "backoffConfig": {"initialSeconds": 1, "maxSeconds": 60},
                "runtime": runtime, "now": "2026-01-01T00:00:00Z"
            },
            "steps": [{"input": {"now": "2026-01-01T00:00:01Z"}, "expected": expected}]
        })
    }

    #[test]
    fn a_wrong_expectation_fails() {
        let rt = json!({"images": [], "pullError": "boom"});
        let good = json!({"pull": true, "message": "boom", "error": {"kind": "ErrImagePull"},
            "events": [{"type": "Normal", "reason": "Pulling", "messagePrefix": "Pulling image"},
                       {"type": "Warning", "reason": "Failed", "message": "Failed to pull image \"img\": boom"}]});
        assert_eq!(check(&vector(good, rt.clone(), "IfNotPresent")), Ok(()));
        for bad in [
            json!({"pull": false}),
            json!({"messagePrefix": "nope"}),
            json!({"error": {"kind": "ImagePullBackOff"}}),
            json!({"events": [{"reason": "Pulling"}]}),
            json!({"runtimeCalls": ["PullImage"]}),
        ] {
            assert!(check(&vector(bad, rt.clone(), "IfNotPresent")).is_err());
        }
    }

    #[test]
    fn never_with_an_absent_image() {
        let v = vector(
            json!({"pull": false, "runtimeCalls": ["GetImageRef"], "error": {"kind": "ErrImageNeverPull"},
                   "message": "Container image \"img\" is not present with pull policy of Never"}),
            json!({"images": []}),
            "Never",
        );
        assert_eq!(check(&v), Ok(()));
    }
}
