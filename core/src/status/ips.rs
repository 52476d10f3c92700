//! Pod and host IPs (`sortPodIPs`, `GetNodeHostIPs`, spec §7).

use std::net::IpAddr;

/// Parses an IP the way Go's `ParseIPSloppy` does (IPv4 parts may have leading zeros);
/// IPv4-mapped IPv6 addresses count as IPv4.
#[must_use]
pub(crate) fn parse_ip_sloppy(s: &str) -> Option<IpAddr> {
    if s.contains(':') {
        let v6: std::net::Ipv6Addr = s.parse().ok()?;
        return Some(v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4));
    }
    let mut octets = [0_u8; 4];
    let mut parts = s.split('.');
    for o in &mut octets {
        let p = parts.next()?;
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        *o = p.parse().ok()?;
    }
    if parts.next().is_some() {
        return None;
    }
    Some(IpAddr::V4(octets.into()))
}

/// `sortPodIPs`: the first IP of the primary family (IPv6 when the first `--node-ip` is
/// IPv6), then the first of the other family; canonical text.
#[must_use]
pub(crate) fn sort_pod_ips(ips: &[String], node_ips: &[String]) -> Vec<String> {
    let v6_primary = node_ips
        .first()
        .and_then(|ip| parse_ip_sloppy(ip))
        .is_some_and(|ip| ip.is_ipv6());
    let parsed: Vec<IpAddr> = ips.iter().filter_map(|ip| parse_ip_sloppy(ip)).collect();
    let primary = parsed.iter().find(|ip| ip.is_ipv6() == v6_primary);
    let secondary = parsed.iter().find(|ip| ip.is_ipv6() != v6_primary);
    primary
        .into_iter()
        .chain(secondary)
        .map(ToString::to_string)
        .collect()
}

/// `GetNodeHostIPs`: all `InternalIP` then all `ExternalIP` addresses (unparsable ones
/// skipped); the first, plus the first of the other family. Empty when none is usable.
#[must_use]
pub(crate) fn node_host_ips<'a>(
    addresses: impl Iterator<Item = (&'a str, &'a str)> + Clone,
) -> Vec<String> {
    let internal = addresses.clone().filter(|(t, _)| *t == "InternalIP");
    let external = addresses.filter(|(t, _)| *t == "ExternalIP");
    let all: Vec<IpAddr> = internal
        .chain(external)
        .filter_map(|(_, a)| parse_ip_sloppy(a))
        .collect();
    pick_two(&all)
}

/// The first address, plus the first of the other family.
#[must_use]
pub(crate) fn pick_two(all: &[IpAddr]) -> Vec<String> {
    let Some(first) = all.first() else {
        return Vec::new();
    };
    let other = all.iter().find(|ip| ip.is_ipv6() != first.is_ipv6());
    std::iter::once(first)
        .chain(other)
        .map(ToString::to_string)
        .collect()
}

/// Whether a textual IP is IPv4 (unparsable counts as not IPv4).
#[must_use]
pub(crate) fn is_ipv4(s: &str) -> bool {
    parse_ip_sloppy(s).is_some_and(|ip| ip.is_ipv4())
}
