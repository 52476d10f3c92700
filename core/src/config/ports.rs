//! Port mappings (`MakePortMappings`, `toRuntimeProtocol`).

use std::collections::BTreeSet;
use std::net::IpAddr;

use k8s_openapi::api::core::v1::{Container, Pod};

use crate::cri::{PortMapping, Protocol};

/// `toRuntimeProtocol`: `TCP`, `UDP`, `SCTP`; anything else (including "") is TCP.
#[must_use]
pub(crate) fn to_runtime_protocol(protocol: &str) -> Protocol {
    match protocol {
        "UDP" => Protocol::Udp,
        "SCTP" => Protocol::Sctp,
        _ => Protocol::Tcp,
    }
}

/// `MakePortMappings(container)`: one mapping per port, dropping later duplicates of the
/// same name, or (unnamed) of the same family, protocol, host IP, container and host port.
#[must_use]
pub(crate) fn make_port_mappings(container: &Container) -> Vec<PortMapping> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for p in container.ports.as_deref().unwrap_or_default() {
        let protocol = p.protocol.clone().unwrap_or_default();
        let host_ip = p.host_ip.clone().unwrap_or_default();
        let host_port = p.host_port.unwrap_or(0);
        let family = if host_ip.is_empty() {
            "any"
        } else if host_ip.parse::<std::net::Ipv6Addr>().is_ok() {
            "v6"
        } else {
            "v4"
        };
        let name = p.name.clone().unwrap_or_default();
        let key = if name.is_empty() {
            format!(
                "{family}-{protocol}-{host_ip}:{}:{host_port}",
                p.container_port
            )
        } else {
            name
        };
        if !seen.insert(key) {
            continue;
        }
        out.push(PortMapping {
            protocol: to_runtime_protocol(&protocol),
            container_port: p.container_port,
            host_port,
            host_ip,
        });
    }
    out
}

/// The sandbox's port mappings: those of every regular container, in order.
#[must_use]
pub(crate) fn sandbox_port_mappings(pod: &Pod) -> Vec<PortMapping> {
    pod.spec
        .as_ref()
        .map(|s| s.containers.iter().flat_map(make_port_mappings).collect())
        .unwrap_or_default()
}

/// Whether a string is an IPv6 address (helper shared with env and DNS).
#[must_use]
pub(crate) fn is_ipv6(s: &str) -> bool {
    matches!(s.parse::<IpAddr>(), Ok(IpAddr::V6(_)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_runtime_protocol_examples() {
        use crate::cri::Protocol;
        assert_eq!(to_runtime_protocol("UDP"), Protocol::Udp);
        assert_eq!(to_runtime_protocol("icmp"), Protocol::Tcp);
    }
}
