//! `termination` vectors (the project's own, `core/tests/vectors/termination/`): the pod
//! worker's phases and the pod kill, see [`crate::terminate`].
//!
//! * `effectiveGracePeriod`: input `{pod, workerGracePeriodSeconds?,
//!   gracePeriodOverride?}` → `{gracePeriodSeconds}` (`calculateEffectiveGracePeriod`).
//! * `allowPodStart`: input `{pod, podSyncStatuses: {uid: {fullname,
//!   terminationRequested?, terminated?}}, startedStaticPodsByFullname?,
//!   waitingToStartStaticPodsByFullname?}` → `{allowed, allowedEver,
//!   startedStaticPodsByFullname, waitingToStartStaticPodsByFullname}` (absent and empty
//!   maps compare equal, as the Go test's check does).
//! * `terminationOrdering`: input `{pod, running?: [name], gracePeriodSeconds: n | {name:
//!   n}, exitMillis?: {name: ms}, hookMillis?: {name: ms}}` → `{delays: {name: whole
//!   seconds waited}, order: {name: n}, waitFor: {name: [name]}}`: every running
//!   container's kill started at once, each exiting `exitMillis` after its turn
//!   (`newTerminationOrdering` + `waitForTurn`).
//! * `podWorkerPlan`: input a plan request → the plan's fields, compared as subsets
//!   (`steps` compared by position, each step as a subset).
//!
//! Comparison: every expected top-level field must equal the produced one (`compare:
//! "subset"`: objects may be subsets).

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::Pod;
use serde_json::{json, Map, Value};

use crate::plan::{PodWorkerState, WorkerPodStatus};
use crate::terminate::{allow_pod_start, effective_grace_period, kill_timeline, pod_kills};

use super::diff::json_diff;

/// The functions this module answers.
pub(crate) const FUNCTIONS: &[&str] = &[
    "effectiveGracePeriod",
    "allowPodStart",
    "terminationOrdering",
    "podWorkerPlan",
];

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

fn read<T: serde::de::DeserializeOwned + Default>(input: &Value, key: &str) -> Result<T, String> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(T::default()),
        Some(v) => serde_json::from_value(v.clone()).map_err(|e| format!("input.{key}: {e}")),
    }
}

fn pod_of(input: &Value) -> Result<Pod, String> {
    serde_json::from_value(input.get("pod").cloned().unwrap_or(Value::Null))
        .map_err(|e| format!("input.pod: {e}"))
}

/// Empty maps as absent: the Go test compares the maps only when one is non-empty.
fn non_empty(v: Value) -> Value {
    match v {
        Value::Object(m) if m.is_empty() => Value::Null,
        other => other,
    }
}

fn produce(function: &str, input: &Value) -> Result<Value, String> {
    match function {
        "effectiveGracePeriod" => {
            let pod = pod_of(input)?;
            let worker = input
                .get("workerGracePeriodSeconds")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            let o = input.get("gracePeriodOverride").and_then(Value::as_i64);
            Ok(json!({"gracePeriodSeconds": effective_grace_period(&pod, worker, o)}))
        }
        "allowPodStart" => {
            let pod = pod_of(input)?;
            let state = PodWorkerState {
                pods: read::<BTreeMap<String, WorkerPodStatus>>(input, "podSyncStatuses")?,
                started_static_pods: read(input, "startedStaticPodsByFullname")?,
                waiting_to_start_static_pods: read(input, "waitingToStartStaticPodsByFullname")?,
                ..PodWorkerState::default()
            };
            let out = allow_pod_start(&pod, &state);
            Ok(json!({
                "allowed": out.can_start,
                "allowedEver": out.can_ever_start,
                "startedStaticPodsByFullname": non_empty(json!(out.started_static_pods)),
                "waitingToStartStaticPodsByFullname": non_empty(json!(out.waiting_to_start_static_pods)),
            }))
        }
        "terminationOrdering" => {
            let pod = pod_of(input)?;
            let spec = pod.spec.as_ref().ok_or("input.pod has no spec")?;
            let all: Vec<String> = spec
                .init_containers
                .iter()
                .flatten()
                .chain(spec.containers.iter())
                .map(|c| c.name.clone())
                .collect();
            let names: Vec<String> = match input.get("running") {
                Some(v) => {
                    serde_json::from_value(v.clone()).map_err(|e| format!("input.running: {e}"))?
                }
                None => all,
            };
            let ids: Vec<String> = names.iter().map(|n| format!("://{n}")).collect();
            let running: Vec<(&str, &str)> = names
                .iter()
                .zip(&ids)
                .map(|(n, i)| (n.as_str(), i.as_str()))
                .collect();
            let mut kills = pod_kills(&pod, &running, None, None);
            let grace = input.get("gracePeriodSeconds");
            for k in &mut kills {
                let g = match grace {
                    Some(Value::Object(m)) => m.get(&k.container).and_then(Value::as_i64),
                    Some(v) => v.as_i64(),
                    None => None,
                };
                if let Some(g) = g {
                    k.grace_period_seconds = g;
                }
                k.pre_stop = None;
            }
            let hooks: BTreeMap<String, u64> = read(input, "hookMillis")?;
            let exits: BTreeMap<String, u64> = read(input, "exitMillis")?;
            let timeline = kill_timeline(&kills, &hooks, &exits);
            let mut delays = Map::new();
            let mut order = Map::new();
            let mut wait_for = Map::new();
            for (k, t) in kills.iter().zip(&timeline) {
                delays.insert(k.container.clone(), json!(t.waited_millis / 1000));
                order.insert(k.container.clone(), json!(k.order));
                wait_for.insert(k.container.clone(), json!(k.wait_for));
            }
            Ok(json!({"delays": delays, "order": order, "waitFor": wait_for}))
        }
        "podWorkerPlan" => {
            let bytes = serde_json::to_vec(input).map_err(|e| e.to_string())?;
            let answer: Value = serde_json::from_slice(&crate::api::plan_json(&bytes))
                .map_err(|e| e.to_string())?;
            Ok(answer)
        }
        other => Err(format!("not a termination function: {other}")),
    }
}

/// Checks one termination vector; `Err` carries a readable diff.
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
        let ev = non_empty(ev.clone());
        let ok = if exact { ev == av } else { subset(&ev, &av) };
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
