//! Pod hostname, domain and kernel nodename (`GeneratePodHostNameAndDomain`,
//! `truncatePodHostnameIfNeeded`, `GetNodenameForKernel`).

use k8s_openapi::api::core::v1::Pod;

use crate::features::{FeatureGates, Gate};

use super::errors::ConfigError;

const DNS1123_LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1123_SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";

fn label_ok(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-')
        && b.first().is_some_and(|c| *c != b'-')
        && b.last().is_some_and(|c| *c != b'-')
}

/// `IsDNS1123Label`: the validation messages, or `Ok`.
pub(crate) fn dns1123_label(s: &str) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !label_ok(s) {
        errs.push(DNS1123_LABEL_MSG.to_string());
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

/// `IsDNS1123Subdomain`: the validation messages, or `Ok`.
pub(crate) fn dns1123_subdomain(s: &str) -> Result<(), Vec<String>> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".to_string());
    }
    if !s.split('.').all(label_ok) {
        errs.push(DNS1123_SUBDOMAIN_MSG.to_string());
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs)
    }
}

/// Longest hostname (the kernel's 64 bytes minus the terminator).
pub(crate) const HOSTNAME_MAX_LEN: usize = 63;
/// Longest FQDN nodename.
pub(crate) const FQDN_MAX_LEN: usize = 64;

/// `truncatePodHostnameIfNeeded`.
pub(crate) fn truncate_hostname(pod_name: &str, hostname: &str) -> Result<String, ConfigError> {
    if hostname.len() <= HOSTNAME_MAX_LEN {
        return Ok(hostname.to_string());
    }
    let mut cut = HOSTNAME_MAX_LEN;
    while !hostname.is_char_boundary(cut) {
        cut -= 1;
    }
    let truncated = hostname
        .get(..cut)
        .unwrap_or_default()
        .trim_end_matches(['-', '.']);
    if truncated.is_empty() {
        return Err(ConfigError::Hostname(format!(
            "hostname for pod {pod_name:?} was invalid: {hostname:?}"
        )));
    }
    Ok(truncated.to_string())
}

/// `GeneratePodHostNameAndDomain`: (hostname, domain).
pub fn pod_hostname_and_domain(
    pod: &Pod,
    cluster_domain: &str,
    gates: &FeatureGates,
) -> Result<(String, String), ConfigError> {
    let pod_name = pod.metadata.name.clone().unwrap_or_default();
    let spec = pod.spec.as_ref();
    if gates.enabled(Gate::HostnameOverride) {
        if let Some(over) = spec.and_then(|s| s.hostname_override.as_deref()) {
            if let Err(msgs) = dns1123_subdomain(over) {
                return Err(ConfigError::Hostname(format!(
                    "pod HostnameOverride {over:?} is not a valid DNS subdomain: {}",
                    msgs.join(";")
                )));
            }
            return Ok((truncate_hostname(&pod_name, over)?, String::new()));
        }
    }
    let mut hostname = pod_name.clone();
    if let Some(h) = spec
        .and_then(|s| s.hostname.as_deref())
        .filter(|h| !h.is_empty())
    {
        if let Err(msgs) = dns1123_label(h) {
            return Err(ConfigError::Hostname(format!(
                "pod Hostname {h:?} is not a valid DNS label: {}",
                msgs.join(";")
            )));
        }
        hostname = h.to_string();
    }
    let hostname = truncate_hostname(&pod_name, &hostname)?;
    let mut domain = String::new();
    if let Some(sub) = spec
        .and_then(|s| s.subdomain.as_deref())
        .filter(|s| !s.is_empty())
    {
        if let Err(msgs) = dns1123_label(sub) {
            return Err(ConfigError::Hostname(format!(
                "pod Subdomain {sub:?} is not a valid DNS label: {}",
                msgs.join(";")
            )));
        }
        domain = format!(
            "{sub}.{}.svc.{cluster_domain}",
            pod.metadata.namespace.as_deref().unwrap_or_default()
        );
    }
    Ok((hostname, domain))
}

/// `GetNodenameForKernel`: the FQDN when `setHostnameAsFQDN` and a domain exist.
pub(crate) fn nodename_for_kernel(
    hostname: &str,
    domain: &str,
    set_hostname_as_fqdn: Option<bool>,
) -> Result<String, ConfigError> {
    if !domain.is_empty() && set_hostname_as_fqdn == Some(true) {
        let fqdn = format!("{hostname}.{domain}");
        if fqdn.len() > FQDN_MAX_LEN {
            return Err(ConfigError::Hostname(format!(
                "failed to construct FQDN from pod hostname and cluster domain, FQDN {fqdn} is too long ({FQDN_MAX_LEN} characters is the max, {} characters requested)",
                fqdn.len()
            )));
        }
        return Ok(fqdn);
    }
    Ok(hostname.to_string())
}

/// The sandbox hostname: hostname (or FQDN) for pod-network pods, empty on the host network.
pub fn sandbox_hostname(
    pod: &Pod,
    cluster_domain: &str,
    gates: &FeatureGates,
) -> Result<String, ConfigError> {
    if pod.spec.as_ref().and_then(|s| s.host_network) == Some(true) {
        return Ok(String::new());
    }
    let (h, d) = pod_hostname_and_domain(pod, cluster_domain, gates)?;
    nodename_for_kernel(
        &h,
        &d,
        pod.spec.as_ref().and_then(|s| s.set_hostname_as_fqdn),
    )
}
