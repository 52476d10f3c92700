//! Seccomp profiles (`getSeccompProfile`).

use k8s_openapi::api::core::v1::{PodSecurityContext, SeccompProfile, SecurityContext};

use crate::cri::{ProfileType, SecurityProfile};

use super::errors::ConfigError;
use super::paths::clean_join;

/// The container's seccomp profile: the container's field, else the pod's, else
/// RuntimeDefault when `seccompDefault` is on, else Unconfined. Annotations are ignored.
pub(crate) fn container_seccomp(
    pod_sc: Option<&PodSecurityContext>,
    container_sc: Option<&SecurityContext>,
    profile_root: &str,
    seccomp_default: bool,
) -> Result<SecurityProfile, ConfigError> {
    if let Some(p) = container_sc.and_then(|s| s.seccomp_profile.as_ref()) {
        return field_profile(p, profile_root);
    }
    if let Some(p) = pod_sc.and_then(|s| s.seccomp_profile.as_ref()) {
        return field_profile(p, profile_root);
    }
    Ok(profile(if seccomp_default {
        ProfileType::RuntimeDefault
    } else {
        ProfileType::Unconfined
    }))
}

fn profile(profile_type: ProfileType) -> SecurityProfile {
    SecurityProfile {
        profile_type,
        localhost_ref: String::new(),
    }
}

fn field_profile(p: &SeccompProfile, root: &str) -> Result<SecurityProfile, ConfigError> {
    match p.type_.as_str() {
        "RuntimeDefault" => Ok(profile(ProfileType::RuntimeDefault)),
        "Localhost" => match p.localhost_profile.as_deref() {
            Some(name) if !name.is_empty() => Ok(SecurityProfile {
                profile_type: ProfileType::Localhost,
                localhost_ref: clean_join(root, name),
            }),
            _ => Err(ConfigError::SeccompLocalhostMissing),
        },
        _ => Ok(profile(ProfileType::Unconfined)),
    }
}
