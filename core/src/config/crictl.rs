//! The JSON crictl's own loader decodes (`crictl runp pod-config.json`,
//! `crictl create <pod> container.json pod-config.json`).
//!
//! crictl reads these files with `sigs.k8s.io/yaml` into the generated Go structs, i.e.
//! with `encoding/json` and the structs' tags: proto field names (`log_directory`,
//! `CDI_devices`, `uidMappings`), enums as numbers, int64 as numbers, `bytes` (env
//! values, `KeyValue.value` in the 1.37 cri-api) as base64. Map keys (labels,
//! annotations, sysctls, unified) are kept as they are.

use serde_json::{Map, Value};

use crate::cri::{
    ContainerConfig, CriEnum, MountPropagation, NamespaceMode, PodSandboxConfig, ProfileType,
    Protocol, Signal, SupplementalGroupsPolicy,
};

/// Fields whose values are string maps: their keys are data, not field names.
const MAP_FIELDS: &[&str] = &["labels", "annotations", "sysctls", "unified"];

/// `PodSandboxConfig` as crictl's loader reads it.
///
/// ```
/// use podplan_core::cri::{PodSandboxConfig, PortMapping, Protocol};
/// let c = PodSandboxConfig {
///     log_directory: "/var/log/pods/ns_p_u".into(),
///     port_mappings: vec![PortMapping { protocol: Protocol::Udp, container_port: 53, ..Default::default() }],
///     ..Default::default()
/// };
/// let j = podplan_core::config::crictl::sandbox_json(&c);
/// assert_eq!(j.pointer("/log_directory").cloned().unwrap_or_default(), "/var/log/pods/ns_p_u");
/// assert_eq!(j.pointer("/port_mappings/0/protocol").cloned().unwrap_or_default(), 1);
/// ```
#[must_use]
pub fn sandbox_json(config: &PodSandboxConfig) -> Value {
    to_crictl(crate::json_value::to_json_value(config).unwrap_or_default())
}

/// `ContainerConfig` as crictl's loader reads it.
#[must_use]
pub fn container_json(config: &ContainerConfig) -> Value {
    // `KeyValue.value` is `bytes`: Go's encoding/json reads a `[]byte` from base64.
    to_crictl(crate::cri::proto3::container_config(config))
}

fn snake(key: &str) -> String {
    match key {
        "CDIDevices" => return "CDI_devices".to_string(),
        "uidMappings" | "gidMappings" => return key.to_string(),
        _ => {}
    }
    let mut out = String::with_capacity(key.len() + 4);
    for ch in key.chars() {
        if ch.is_ascii_uppercase() {
            out.push('_');
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    out
}

fn enum_number(key: &str, name: &str) -> Option<i32> {
    match key {
        "protocol" => Protocol::from_name(name).map(CriEnum::number),
        "propagation" => MountPropagation::from_name(name).map(CriEnum::number),
        "network" | "pid" | "ipc" | "mode" => NamespaceMode::from_name(name).map(CriEnum::number),
        "supplementalGroupsPolicy" => {
            SupplementalGroupsPolicy::from_name(name).map(CriEnum::number)
        }
        "profileType" => ProfileType::from_name(name).map(CriEnum::number),
        "stopSignal" => Signal::from_name(name).map(CriEnum::number),
        _ => None,
    }
}

fn to_crictl(v: Value) -> Value {
    match v {
        Value::Object(obj) => {
            let mut out = Map::new();
            for (k, val) in obj {
                let converted = if MAP_FIELDS.contains(&k.as_str()) {
                    val
                } else if let Some(n) = val.as_str().and_then(|s| enum_number(&k, s)) {
                    Value::from(n)
                } else {
                    to_crictl(val)
                };
                out.insert(snake(&k), converted);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.into_iter().map(to_crictl).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cri::{
        CdiDevice, IdMapping, LinuxContainerConfig, LinuxContainerSecurityContext, Mount,
        NamespaceOption,
    };

    #[test]
    fn names_and_enums() {
        let c = ContainerConfig {
            cdi_devices: vec![CdiDevice {
                name: "v/gpu=0".into(),
            }],
            mounts: vec![Mount {
                container_path: "/d".into(),
                propagation: MountPropagation::Bidirectional,
                uid_mappings: vec![IdMapping {
                    host_id: 1,
                    container_id: 0,
                    length: 2,
                }],
                ..Default::default()
            }],
            labels: [("someKey".to_string(), "v".to_string())]
                .into_iter()
                .collect(),
            linux: Some(LinuxContainerConfig {
                resources: None,
                security_context: Some(LinuxContainerSecurityContext {
                    namespace_options: Some(NamespaceOption {
                        pid: NamespaceMode::Container,
                        ..Default::default()
                    }),
                    ..Default::default()
                }),
            }),
            ..Default::default()
        };
        let j = container_json(&c);
        assert_eq!(
            j.pointer("/CDI_devices/0/name")
                .cloned()
                .unwrap_or_default(),
            serde_json::json!("v/gpu=0")
        );
        assert_eq!(
            j.pointer("/mounts/0/container_path")
                .cloned()
                .unwrap_or_default(),
            "/d"
        );
        assert_eq!(
            j.pointer("/mounts/0/propagation")
                .cloned()
                .unwrap_or_default(),
            2
        );
        assert_eq!(
            j.pointer("/mounts/0/uidMappings/0/host_id")
                .cloned()
                .unwrap_or_default(),
            1
        );
        assert_eq!(
            j.pointer("/labels/someKey").cloned().unwrap_or_default(),
            "v"
        );
        assert_eq!(
            j.pointer("/linux/security_context/namespace_options/pid")
                .cloned()
                .unwrap_or_default(),
            1
        );
    }

    #[test]
    fn env_values_are_base64_bytes() {
        use crate::cri::{EnvBytes, KeyValue};
        let c = ContainerConfig {
            envs: vec![
                KeyValue {
                    key: "TEXT".into(),
                    value: "abcd".into(),
                },
                KeyValue {
                    key: "BINARY".into(),
                    value: EnvBytes(vec![0xff, 0x00, 0xfe]),
                },
                KeyValue {
                    key: "EMPTY".into(),
                    value: EnvBytes::default(),
                },
            ],
            ..Default::default()
        };
        let j = container_json(&c);
        assert_eq!(
            j.pointer("/envs/0/value").cloned().unwrap_or_default(),
            "YWJjZA=="
        );
        assert_eq!(
            j.pointer("/envs/1/value").cloned().unwrap_or_default(),
            "/wD+"
        );
        assert_eq!(
            j.pointer("/envs/2/key").cloned().unwrap_or_default(),
            "EMPTY"
        );
        assert!(j.pointer("/envs/2/value").is_none());
    }
}
