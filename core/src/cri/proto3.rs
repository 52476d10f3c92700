//! Strict proto3 JSON of the configs.
//!
//! podplan's readable JSON of a config is proto3 JSON except for one field: the 1.37
//! cri-api's `KeyValue.value` is `bytes`, whose proto3 JSON is base64, while the readable
//! form shows an env value as text (or `{"base64": ...}` when it is not UTF-8). The
//! functions here give the strict form, which a standard proto3 JSON parser reads
//! against the 1.37 `runtime.v1` messages.

use serde_json::Value;

use super::{ContainerConfig, PodSandboxConfig};

/// A `ContainerConfig` as strict proto3 JSON (env values base64).
///
/// ```
/// use podplan_core::cri::{ContainerConfig, KeyValue};
/// let c = ContainerConfig {
///     envs: vec![KeyValue { key: "A".into(), value: "abcd".into() }],
///     ..Default::default()
/// };
/// let j = podplan_core::cri::proto3::container_config(&c);
/// assert_eq!(j["envs"][0]["value"], "YWJjZA==");
/// ```
#[must_use]
pub fn container_config(config: &ContainerConfig) -> Value {
    let mut v = crate::json_value::to_json_value(config).unwrap_or_default();
    strict_envs(&mut v, config);
    v
}

/// A `PodSandboxConfig` as strict proto3 JSON (the readable form already is).
#[must_use]
pub fn sandbox_config(config: &PodSandboxConfig) -> Value {
    crate::json_value::to_json_value(config).unwrap_or_default()
}

/// Replaces the readable env values of `v` (the JSON of `config`) by base64.
pub(crate) fn strict_envs(v: &mut Value, config: &ContainerConfig) {
    let Some(envs) = v.get_mut("envs").and_then(Value::as_array_mut) else {
        return;
    };
    for (json, kv) in envs.iter_mut().zip(&config.envs) {
        if let Some(obj) = json.as_object_mut() {
            if !kv.value.is_empty() {
                obj.insert("value".into(), Value::String(kv.value.to_base64()));
            }
        }
    }
}
