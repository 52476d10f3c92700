//! A small structural JSON diff for readable failure reports.

use serde_json::Value;

/// Lists the differences between `expected` and `actual` as `path: expected X, got Y`
/// lines (empty when equal).
#[must_use]
pub fn json_diff(expected: &Value, actual: &Value) -> String {
    let mut out = Vec::new();
    walk("", expected, actual, &mut out);
    out.join("\n")
}

fn walk(path: &str, e: &Value, a: &Value, out: &mut Vec<String>) {
    match (e, a) {
        (Value::Object(eo), Value::Object(ao)) => {
            let keys: std::collections::BTreeSet<&String> = eo.keys().chain(ao.keys()).collect();
            for k in keys {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match (eo.get(k), ao.get(k)) {
                    (Some(ev), Some(av)) => walk(&p, ev, av, out),
                    (Some(ev), None) => out.push(format!("  {p}: expected {ev}, got nothing")),
                    (None, Some(av)) => out.push(format!("  {p}: expected nothing, got {av}")),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(ea), Value::Array(aa))
            if ea.len() == aa.len() && ea.iter().any(|v| v.is_object()) =>
        {
            for (i, (ev, av)) in ea.iter().zip(aa).enumerate() {
                walk(&format!("{path}[{i}]"), ev, av, out);
            }
        }
        _ if e == a => {}
        _ => out.push(format!(
            "  {}: expected {e}, got {a}",
            if path.is_empty() { "<root>" } else { path }
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_each_difference() {
        let d = json_diff(
            &json!({"a": [0, 1], "b": {"c": true}}),
            &json!({"a": [0], "b": {"c": true}, "x": 1}),
        );
        assert_eq!(
            d,
            "  a: expected [0,1], got [0]\n  x: expected nothing, got 1"
        );
    }
}
