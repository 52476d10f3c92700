//! JSON values built through JSON text.

use serde::Serialize;

/// `serde_json::to_value`, through JSON text: the value is serialised by the serializer
/// answers are written with, so the wasm module carries one family of serialisers (not a
/// second one, per type, for serde_json's `Value` serializer). The same value as
/// `to_value` (object keys sorted, numbers as written).
pub(crate) fn to_json_value<T: Serialize + ?Sized>(
    value: &T,
) -> serde_json::Result<serde_json::Value> {
    serde_json::from_str(&serde_json::to_string(value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_of_to_value() {
        #[derive(Serialize)]
        struct S {
            b: Vec<f64>,
            a: Option<u64>,
            c: &'static str,
        }
        let s = S {
            b: vec![0.1, 1e300, -2.5],
            a: Some(u64::MAX),
            c: "\u{1}\"x",
        };
        assert_eq!(to_json_value(&s).ok(), serde_json::to_value(&s).ok());
    }
}
