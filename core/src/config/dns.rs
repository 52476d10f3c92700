//! The sandbox's DNS settings (`GetPodDNS`, spec §4.5).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Pod;

use crate::cri::DnsConfig;

use super::ports::is_ipv6;
use crate::request::node::NodeContext;

/// Most name servers kept.
pub(crate) const MAX_DNS_NAMESERVERS: usize = 3;
/// Most search domains kept.
pub(crate) const MAX_DNS_SEARCH_PATHS: usize = 32;
/// Longest space-joined search line.
pub(crate) const MAX_DNS_SEARCH_LIST_CHARS: usize = 2048;
/// Longest single search domain (`DNS1123SubdomainMaxLength`).
pub(crate) const MAX_SEARCH_DOMAIN_LEN: usize = 253;

/// Why the DNS settings were cut or changed (the kubelet records these as events).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DnsNotes {
    /// `MissingClusterDNS` warning: ClusterFirst without cluster DNS servers.
    pub missing_cluster_dns: bool,
    /// `DNSConfigForming` warnings.
    pub limits_exceeded: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DnsType {
    None,
    Cluster,
    Host,
}

fn dns_type(pod: &Pod) -> DnsType {
    let spec = pod.spec.as_ref();
    let host_network = spec.and_then(|s| s.host_network) == Some(true);
    match spec.and_then(|s| s.dns_policy.as_deref()).unwrap_or("") {
        "None" => DnsType::None,
        "ClusterFirstWithHostNet" => DnsType::Cluster,
        "ClusterFirst" if !host_network => DnsType::Cluster,
        "ClusterFirst" | "Default" => DnsType::Host,
        _ => DnsType::Cluster,
    }
}

fn omit_duplicates(list: Vec<String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    list.into_iter()
        .filter(|s| seen.insert(s.clone()))
        .collect()
}

/// The host's resolv.conf as the kubelet reads it: search domains lose a trailing dot
/// and `.` entries are dropped.
fn host_dns(node: &NodeContext) -> DnsConfig {
    if node.resolv_conf().is_empty() {
        return DnsConfig::default();
    }
    let h = node.host_dns.clone().unwrap_or_default();
    DnsConfig {
        servers: h.servers,
        searches: h
            .searches
            .iter()
            .filter(|s| s.as_str() != ".")
            .map(|s| s.strip_suffix('.').unwrap_or(s).to_string())
            .collect(),
        options: h.options,
    }
}

/// `GetPodDNS`: the sandbox's `DNSConfig`, with notes for the events the kubelet records.
/// Merged `dnsConfig.options` are emitted sorted by name (the kubelet uses Go map order).
#[must_use]
pub fn pod_dns(pod: &Pod, node: &NodeContext) -> (DnsConfig, DnsNotes) {
    let mut notes = DnsNotes::default();
    let mut cfg = host_dns(node);
    let namespace = pod.metadata.namespace.as_deref().unwrap_or_default();
    let mut kind = dns_type(pod);
    if kind == DnsType::Cluster && node.cluster_dns().is_empty() {
        notes.missing_cluster_dns = true;
        kind = DnsType::Host;
    }
    match kind {
        DnsType::None => cfg = DnsConfig::default(),
        DnsType::Cluster => {
            cfg.servers = node.cluster_dns().to_vec();
            let domain = node.cluster_domain();
            if !domain.is_empty() {
                let mut searches = vec![
                    format!("{namespace}.svc.{domain}"),
                    format!("svc.{domain}"),
                    domain.to_string(),
                ];
                searches.append(&mut cfg.searches);
                cfg.searches = omit_duplicates(searches);
            }
            cfg.options = vec!["ndots:5".to_string()];
        }
        DnsType::Host => {
            if node.resolv_conf().is_empty() {
                for ip in &node.node_ips {
                    cfg.servers
                        .push(if is_ipv6(ip) { "::1" } else { "127.0.0.1" }.to_string());
                }
                if cfg.servers.is_empty() {
                    cfg.servers.push("127.0.0.1".to_string());
                }
                cfg.searches = vec![".".to_string()];
            }
        }
    }
    if let Some(pc) = pod.spec.as_ref().and_then(|s| s.dns_config.as_ref()) {
        let mut servers = std::mem::take(&mut cfg.servers);
        servers.extend(pc.nameservers.iter().flatten().cloned());
        cfg.servers = omit_duplicates(servers);
        let mut searches = std::mem::take(&mut cfg.searches);
        searches.extend(pc.searches.iter().flatten().cloned());
        cfg.searches = omit_duplicates(searches);
        let mut opts: BTreeMap<String, String> = BTreeMap::new();
        for op in &cfg.options {
            match op.split_once(':') {
                Some((n, v)) => opts.insert(n.to_string(), v.to_string()),
                None => opts.insert(op.clone(), String::new()),
            };
        }
        for op in pc.options.iter().flatten() {
            opts.insert(
                op.name.clone().unwrap_or_default(),
                op.value.clone().unwrap_or_default(),
            );
        }
        cfg.options = opts
            .into_iter()
            .map(|(n, v)| if v.is_empty() { n } else { format!("{n}:{v}") })
            .collect();
    }
    if cfg.servers.len() > MAX_DNS_NAMESERVERS {
        cfg.servers.truncate(MAX_DNS_NAMESERVERS);
        notes.limits_exceeded.push(format!(
            "Nameserver limits were exceeded, some nameservers have been omitted, the applied nameserver line is: {}",
            cfg.servers.join(" ")
        ));
    }
    let mut cut = false;
    if cfg.searches.len() > MAX_DNS_SEARCH_PATHS {
        cfg.searches.truncate(MAX_DNS_SEARCH_PATHS);
        cut = true;
    }
    let before = cfg.searches.len();
    cfg.searches.retain(|s| s.len() <= MAX_SEARCH_DOMAIN_LEN);
    cut |= cfg.searches.len() != before;
    let line_len = |s: &[String]| s.join(" ").len();
    let total = line_len(&cfg.searches);
    if total > MAX_DNS_SEARCH_LIST_CHARS {
        let mut cut_len = 0;
        let mut cut_num = 0;
        for s in cfg.searches.iter().rev() {
            cut_len += s.len() + 1;
            cut_num += 1;
            if total.saturating_sub(cut_len) <= MAX_DNS_SEARCH_LIST_CHARS {
                break;
            }
        }
        let keep = cfg.searches.len().saturating_sub(cut_num);
        cfg.searches.truncate(keep);
        cut = true;
    }
    if cut {
        notes.limits_exceeded.push(format!(
            "Search Line limits were exceeded, some search paths have been omitted, the applied search line is: {}",
            cfg.searches.join(" ")
        ));
    }
    (cfg, notes)
}
