//! `status` vectors: `podPhase`, `podCondition`, `apiContainerStatuses` and
//! `kubectlPodRow` (see `conformance/status/README.md` and `README-kubectl.md`).
//!
//! Comparison: an absent member equals its zero value (`null`, `""`, `0`, `false`, `[]`,
//! `{}`); timestamps compare at whole seconds in UTC. `subset` compares only the members
//! the expectation lists, except that container `state`/`lastState` objects are compared
//! whole; `ignore` paths are skipped on both sides.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{ContainerStatus, Pod, PodCondition, PodStatus};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::diff::json_diff;
use crate::features::FeatureGates;
use crate::kubecontainer::pod_status::StatusView;
use crate::request::ProbeResults;
use crate::runtime::RuntimeStatus;
use crate::status::{self, conditions, containers, ips, Probes, ReasonCache, StatusInput};

/// Functions this module runs.
pub(crate) const FUNCTIONS: &[&str] = &[
    "podPhase",
    "podCondition",
    "apiContainerStatuses",
    "kubectlPodRow",
];

fn opt_field<T: DeserializeOwned>(input: &Value, key: &str) -> Result<Option<T>, String> {
    match input.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v.clone())
            .map(Some)
            .map_err(|e| format!("input.{key}: {e}")),
    }
}

fn gates(input: &Value) -> Result<FeatureGates, String> {
    let o: Option<BTreeMap<String, bool>> = opt_field(input, "featureGates")?;
    Ok(FeatureGates::resolve(&o.unwrap_or_default()))
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, String> {
    serde_json::to_value(v).map_err(|e| e.to_string())
}

/// Runs the vector's function on its input.
pub(crate) fn produce(function: &str, input: &Value) -> Result<Value, String> {
    let pod: Pod = opt_field(input, "pod")?.unwrap_or_default();
    let g = gates(input)?;
    match function {
        "podPhase" => {
            let statuses: Vec<ContainerStatus> =
                opt_field(input, "containerStatuses")?.unwrap_or_default();
            let terminal: bool = opt_field(input, "podIsTerminal")?.unwrap_or(false);
            let initialized: bool = opt_field(input, "podHasInitialized")?.unwrap_or(false);
            let phase = status::get_phase(&pod, &statuses, terminal, initialized, &g);
            Ok(json!({"phase": phase.as_str()}))
        }
        "podCondition" => pod_condition(&pod, input, &g),
        "apiContainerStatuses" => api_statuses(&pod, input, &g),
        "kubectlPodRow" => {
            let now: Option<jiff::Timestamp> = opt_field(input, "now")?;
            let wide: bool = opt_field(input, "wide")?.unwrap_or(false);
            to_value(&status::kubectl_pod_row(&pod, now, wide))
        }
        other => Err(format!("unknown status function {other:?}")),
    }
}

fn pod_condition(pod: &Pod, input: &Value, g: &FeatureGates) -> Result<Value, String> {
    let kind: String = opt_field(input, "conditionType")?.unwrap_or_default();
    let statuses: Option<Vec<ContainerStatus>> = opt_field(input, "containerStatuses")?;
    let phase: String = opt_field(input, "podPhase")?.unwrap_or_default();
    let old: Option<PodStatus> = opt_field(input, "previousStatus")?;
    let runtime: Option<RuntimeStatus> = opt_field(input, "runtimeStatus")?;
    let view = StatusView::of(runtime.as_ref());
    let list = statuses.as_deref().map(conditions::Statuses::from);
    let list = list.as_ref();
    let c: PodCondition = match kind.as_str() {
        "ContainersReady" => conditions::containers_ready(pod, old.as_ref(), list, &phase, g),
        "Ready" => {
            let conds: Vec<PodCondition> = opt_field(input, "conditions")?.unwrap_or_default();
            conditions::ready(pod, old.as_ref(), &conds, list, &phase, g)
        }
        "Initialized" => conditions::initialized(pod, old.as_ref(), list, &phase, g),
        "PodReadyToStartContainers" => {
            conditions::ready_to_start_containers(pod, old.as_ref(), &view, g)
        }
        "AllContainersRestarting" => {
            conditions::all_containers_restarting(pod, &view, old.as_ref(), &phase)
        }
        other => return Err(format!("unknown conditionType {other:?}")),
    };
    to_value(&c)
}

fn api_statuses(pod: &Pod, input: &Value, g: &FeatureGates) -> Result<Value, String> {
    let runtime: Option<RuntimeStatus> = opt_field(input, "runtimeStatus")?;
    let view = StatusView::of(runtime.as_ref());
    let old: Option<PodStatus> = opt_field(input, "previousStatus")?;
    let cache: ReasonCache = opt_field(input, "reasonCache")?.unwrap_or_default();
    if let Some(list) = opt_field::<String>(input, "containerList")? {
        let spec = pod.spec.clone().unwrap_or_default();
        let (containers, key) = match list.as_str() {
            "containers" => (spec.containers, "containerStatuses"),
            "initContainers" => (
                spec.init_containers.unwrap_or_default(),
                "initContainerStatuses",
            ),
            other => return Err(format!("unknown containerList {other:?}")),
        };
        let previous: Vec<ContainerStatus> = old
            .as_ref()
            .map(to_value)
            .transpose()?
            .and_then(|o| o.get(key).cloned())
            .map(serde_json::from_value)
            .transpose()
            .map_err(|e| e.to_string())?
            .unwrap_or_default();
        let out = containers::convert(&containers::ConvertArgs {
            pod,
            view: &view,
            previous: &previous,
            containers: &containers,
            has_init_containers: opt_field(input, "hasInitContainers")?.unwrap_or(false),
            is_init_container: opt_field(input, "isInitContainer")?.unwrap_or(false),
            pod_restarting: opt_field(input, "podRestarting")?.unwrap_or(false),
            reason_cache: &cache,
            gates: g,
        });
        return Ok(json!({ key: to_value(&out)? }));
    }
    let probes: BTreeMap<String, ProbeResults> = opt_field(input, "probes")?.unwrap_or_default();
    let fake = opt_field::<String>(input, "probeManager")?.as_deref() == Some("fake");
    let node: Value = opt_field(input, "node")?.unwrap_or(Value::Null);
    let node_ips: Vec<String> = opt_field(&node, "nodeIPs")?.unwrap_or_default();
    let addresses: Vec<BTreeMap<String, String>> =
        opt_field(&node, "addresses")?.unwrap_or_default();
    let host_ips = ips::node_host_ips(addresses.iter().map(|a| {
        (
            a.get("type").map_or("", String::as_str),
            a.get("address").map_or("", String::as_str),
        )
    }));
    let runtime_ips = runtime.as_ref().map_or(&[][..], |r| r.ips.as_slice());
    let s = status::generate_api_pod_status(&StatusInput {
        pod,
        view: &view,
        ips: runtime_ips,
        previous: old.as_ref(),
        reason_cache: &cache,
        probes: if fake {
            Probes::Fake
        } else {
            Probes::Real(&probes)
        },
        pod_is_terminal: opt_field(input, "podIsTerminal")?.unwrap_or(false),
        node_ips: &node_ips,
        host_ips: &host_ips,
        gates: g,
    });
    to_value(&s)
}

/// Checks one status vector against its `expected`; `Err` carries a readable diff.
pub(crate) fn check(vector: &Value) -> Result<(), String> {
    let function = vector
        .get("function")
        .and_then(Value::as_str)
        .ok_or("vector has no `function`")?;
    let input = vector.get("input").ok_or("vector has no `input`")?;
    let expected = vector.get("expected").ok_or("vector has no `expected`")?;
    let compare = vector
        .get("compare")
        .and_then(Value::as_str)
        .unwrap_or("exact");
    let ignore: Vec<String> = vector
        .get("ignore")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let mut actual = produce(function, input)?;
    let mut expected = expected.clone();
    for path in &ignore {
        let parts: Vec<&str> = path.split('.').collect();
        remove_path(&mut actual, &parts);
        remove_path(&mut expected, &parts);
    }
    let e = normalize(&expected);
    let a = normalize(&actual);
    let same = match compare {
        "exact" => e == a,
        "subset" => subset(&expected, &a, false),
        other => return Err(format!("unknown compare mode {other:?}")),
    };
    if same {
        Ok(())
    } else if compare == "subset" {
        Err(json_diff(&e, &project(&expected, &a)))
    } else {
        Err(json_diff(&e, &a))
    }
}

fn remove_path(v: &mut Value, parts: &[&str]) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    let (key, all) = match first.strip_suffix("[*]") {
        Some(k) => (k, true),
        None => (*first, false),
    };
    let Some(obj) = v.as_object_mut() else {
        return;
    };
    if rest.is_empty() && !all {
        obj.remove(key);
        return;
    }
    let Some(child) = obj.get_mut(key) else {
        return;
    };
    if all {
        if let Some(items) = child.as_array_mut() {
            for item in items {
                if rest.is_empty() {
                    *item = Value::Null;
                } else {
                    remove_path(item, rest);
                }
            }
        }
    } else {
        remove_path(child, rest);
    }
}

/// Zero values become `null`, `null` members are dropped, timestamps lose sub-seconds.
fn normalize(v: &Value) -> Value {
    match v {
        Value::Object(o) => {
            let m: Map<String, Value> = o
                .iter()
                .map(|(k, v)| (k.clone(), normalize(v)))
                .filter(|(_, v)| !v.is_null())
                .collect();
            if m.is_empty() {
                Value::Null
            } else {
                Value::Object(m)
            }
        }
        Value::Array(a) if a.is_empty() => Value::Null,
        Value::Array(a) => Value::Array(a.iter().map(normalize).collect()),
        Value::String(s) if s.is_empty() => Value::Null,
        Value::String(s) => match s.parse::<jiff::Timestamp>() {
            Ok(t) if s.contains('T') => {
                let whole = jiff::Timestamp::from_second(t.as_second()).unwrap_or(t);
                Value::String(whole.to_string())
            }
            _ => v.clone(),
        },
        Value::Bool(false) => Value::Null,
        Value::Number(n) if n.as_f64() == Some(0.0) => Value::Null,
        _ => v.clone(),
    }
}

/// `expected` (raw) ⊆ `actual` (normalised). `exact_states`: compare whole.
fn subset(expected: &Value, actual: &Value, exact: bool) -> bool {
    if exact {
        return normalize(expected) == *actual;
    }
    match expected {
        Value::Object(eo) => {
            let n = normalize(expected);
            if n.is_null() {
                return actual.is_null() || actual.as_object().is_some_and(|_| eo.is_empty());
            }
            eo.iter().all(|(k, ev)| {
                let av = actual.get(k).unwrap_or(&Value::Null);
                subset(ev, av, k == "state" || k == "lastState")
            })
        }
        Value::Array(ea) => {
            if ea.is_empty() {
                return actual.is_null();
            }
            let Some(aa) = actual.as_array() else {
                return false;
            };
            aa.len() == ea.len() && ea.iter().zip(aa).all(|(e, a)| subset(e, a, false))
        }
        _ => normalize(expected) == *actual,
    }
}

/// The parts of `actual` that `expected` names (for readable diffs).
fn project(expected: &Value, actual: &Value) -> Value {
    match (expected, actual) {
        (Value::Object(eo), Value::Object(_)) => {
            let mut m = Map::new();
            for (k, ev) in eo {
                let av = actual.get(k).unwrap_or(&Value::Null);
                let p = if k == "state" || k == "lastState" {
                    av.clone()
                } else {
                    project(ev, av)
                };
                if !p.is_null() {
                    m.insert(k.clone(), p);
                }
            }
            Value::Object(m)
        }
        (Value::Array(ea), Value::Array(aa)) if ea.len() == aa.len() => {
            Value::Array(ea.iter().zip(aa).map(|(e, a)| project(e, a)).collect())
        }
        _ => actual.clone(),
    }
}
