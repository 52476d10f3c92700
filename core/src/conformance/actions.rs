//! `actions` vectors: a request and the `podActions` the kubelet computes for it.
//!
//! Comparison follows the contract: `reason` and `message` of `containersToKill`
//! entries are not compared; absent lists and maps equal empty ones, absent booleans
//! false, `null` equals absent (e.g. the retired `nextInitContainerToStart`).

use serde_json::{Map, Value};

use super::diff::json_diff;

/// Checks one actions vector; `Err` carries a readable diff.
pub(crate) fn check(vector: &Value) -> Result<(), String> {
    let request = vector.get("request").ok_or("vector has no `request`")?;
    let expected = vector
        .get("expected")
        .and_then(|e| e.get("actions"))
        .ok_or("vector has no `expected.actions`")?;
    let bytes = serde_json::to_vec(request).map_err(|e| e.to_string())?;
    let answer: Value =
        serde_json::from_slice(&crate::api::plan_json(&bytes)).map_err(|e| e.to_string())?;
    if let Some(err) = answer.get("error") {
        return Err(format!("  the engine rejected the request: {err}"));
    }
    let actual = answer.get("actions").ok_or("the plan has no `actions`")?;
    let (e, a) = (normalize(expected), normalize(actual));
    if e == a {
        Ok(())
    } else {
        Err(json_diff(&e, &a))
    }
}

/// The comparable form of a `podActions` object.
#[must_use]
pub fn normalize(actions: &Value) -> Value {
    let mut out = Map::new();
    if let Some(obj) = actions.as_object() {
        for (k, v) in obj {
            let v = if k == "containersToKill" {
                strip_kill_info(v)
            } else {
                v.clone()
            };
            let empty = match &v {
                Value::Null => true,
                Value::Bool(b) => !b,
                Value::Array(a) => a.is_empty(),
                Value::Object(o) => o.is_empty(),
                _ => false,
            };
            if !empty {
                out.insert(k.clone(), v);
            }
        }
    }
    Value::Object(out)
}

fn strip_kill_info(v: &Value) -> Value {
    match v.as_object() {
        Some(map) => Value::Object(
            map.iter()
                .map(|(id, info)| {
                    let name = info.get("name").cloned().unwrap_or(Value::Null);
                    (id.clone(), serde_json::json!({ "name": name }))
                })
                .collect(),
        ),
        None => v.clone(),
    }
}
