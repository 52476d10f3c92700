//! `hooks` vectors (the project's own, `core/tests/vectors/hooks/`): lifecycle hooks as
//! `startContainer` / `killContainer` would run them, see [`crate::hooks`].
//!
//! * `killContainer`: input `{pod, container, reason?, gracePeriodOverride?,
//!   preStopMillis?, podIP?}` → `{gracePeriodSeconds, preStopRuns, preStopTimeoutSeconds,
//!   preStopElapsedSeconds, stopGracePeriodSeconds, preStop: step | null}`.
//! * `postStartHook`: input `{pod, container, podIP?}` → `{postStart: step | null}`.
//! * `hookFailureMessage`: input `{pod, container, hook: postStart|preStop, podIP?,
//!   error, output?}` → `{message}`: what `handlerRunner.Run` returns when the handler
//!   fails with `error` (and exec `output`); a handler that cannot run gives its own.
//!
//! Comparison: every expected top-level field must equal the produced one (`subset`:
//! nested objects may be subsets).

use k8s_openapi::api::core::v1::{Container, Pod};
use serde_json::{json, Value};

use crate::hooks::{
    describe_handler, failure_message, kill_grace, post_start_step, pre_stop_step,
    termination_grace_period,
};
use crate::plan::KillReason;

use super::diff::json_diff;

/// The functions this module answers.
pub(crate) const FUNCTIONS: &[&str] = &["killContainer", "postStartHook", "hookFailureMessage"];

fn container<'a>(pod: &'a Pod, name: &str) -> Result<&'a Container, String> {
    let spec = pod.spec.as_ref().ok_or("the pod has no spec")?;
    spec.containers
        .iter()
        .chain(spec.init_containers.iter().flatten())
        .find(|c| c.name == name)
        .ok_or_else(|| format!("the pod has no container {name:?}"))
}

fn subset(e: &Value, a: &Value) -> bool {
    match (e, a) {
        (Value::Object(eo), Value::Object(ao)) => eo
            .iter()
            .all(|(k, v)| ao.get(k).is_some_and(|av| subset(v, av))),
        (Value::Array(ea), Value::Array(aa)) => {
            ea.len() == aa.len() && ea.iter().zip(aa).all(|(x, y)| subset(x, y))
        }
        _ => e == a,
    }
}

fn produce(function: &str, input: &Value) -> Result<Value, String> {
    let pod: Pod = serde_json::from_value(input.get("pod").cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("input.pod: {e}"))?;
    let name = input
        .get("container")
        .and_then(Value::as_str)
        .ok_or("input.container missing")?;
    let c = container(&pod, name)?;
    let pod_ip = input.get("podIP").and_then(Value::as_str);
    match function {
        "killContainer" => {
            let reason: KillReason = match input.get("reason") {
                None | Some(Value::Null) => KillReason::None,
                Some(v) => {
                    serde_json::from_value(v.clone()).map_err(|e| format!("input.reason: {e}"))?
                }
            };
            let override_seconds = input.get("gracePeriodOverride").and_then(Value::as_i64);
            let millis = input
                .get("preStopMillis")
                .and_then(Value::as_u64)
                .unwrap_or(0);
            let grace = termination_grace_period(&pod, Some(c), reason, override_seconds);
            let has_pre_stop = c.lifecycle.as_ref().is_some_and(|l| l.pre_stop.is_some());
            let g = kill_grace(grace, has_pre_stop, millis);
            let mut v = serde_json::to_value(&g).map_err(|e| e.to_string())?;
            let step = pre_stop_step(c, pod_ip, grace);
            if let Some(o) = v.as_object_mut() {
                o.insert(
                    "preStop".into(),
                    serde_json::to_value(&step).map_err(|e| e.to_string())?,
                );
            }
            Ok(v)
        }
        "postStartHook" => {
            let step = post_start_step(c, pod_ip);
            Ok(json!({"postStart": serde_json::to_value(&step).map_err(|e| e.to_string())?}))
        }
        "hookFailureMessage" => {
            let hook = input
                .get("hook")
                .and_then(Value::as_str)
                .unwrap_or("postStart");
            let handler = c
                .lifecycle
                .as_ref()
                .and_then(|l| match hook {
                    "preStop" => l.pre_stop.as_ref(),
                    _ => l.post_start.as_ref(),
                })
                .ok_or_else(|| format!("container {name} declares no {hook} hook"))?;
            let text = |k: &str| input.get(k).and_then(Value::as_str).unwrap_or_default();
            let message = match describe_handler(handler, c, pod_ip) {
                Ok(h) => failure_message(&h, name, &pod, text("error"), text("output")),
                Err(e) => e.to_string(),
            };
            Ok(json!({ "message": message }))
        }
        other => Err(format!("not a hooks function: {other}")),
    }
}

/// Checks one hooks vector; `Err` carries a readable diff.
pub(crate) fn check(vector: &Value) -> Result<(), String> {
    let function = vector
        .get("function")
        .and_then(Value::as_str)
        .ok_or("vector has no `function`")?;
    let input = vector.get("input").ok_or("vector has no `input`")?;
    let expected = vector.get("expected").ok_or("vector has no `expected`")?;
    let exact = vector.get("compare").and_then(Value::as_str) != Some("subset");
    let actual = produce(function, input)?;
    let e = expected.as_object().ok_or("`expected` is not an object")?;
    let mut diffs = Vec::new();
    for (k, ev) in e {
        let av = actual.get(k).cloned().unwrap_or(Value::Null);
        let ok = if exact { *ev == av } else { subset(ev, &av) };
        if !ok {
            diffs.push(json_diff(
                &json!({k.clone(): ev.clone()}),
                &json!({k.clone(): av}),
            ));
        }
    }
    if diffs.is_empty() {
        Ok(())
    } else {
        Err(diffs.join("\n"))
    }
}
