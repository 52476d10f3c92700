//! AppArmor profiles (`apparmor.GetProfile`, `getAppArmorProfile`).

use k8s_openapi::api::core::v1::{AppArmorProfile, Container, Pod};

use crate::cri::{ProfileType, SecurityProfile};

use super::errors::ConfigError;

/// Prefix of the deprecated per-container AppArmor annotation.
pub(crate) const ANNOTATION_PREFIX: &str = "container.apparmor.security.beta.kubernetes.io/";

/// The profile that applies: the container's field, the deprecated annotation, or the
/// pod's field.
#[must_use]
pub(crate) fn effective_profile(pod: &Pod, c: &Container) -> Option<AppArmorProfile> {
    if let Some(p) = c
        .security_context
        .as_ref()
        .and_then(|s| s.app_armor_profile.as_ref())
    {
        return Some(p.clone());
    }
    let key = format!("{ANNOTATION_PREFIX}{}", c.name);
    if let Some(val) = pod.metadata.annotations.as_ref().and_then(|a| a.get(&key)) {
        let from_annotation = match val.as_str() {
            "runtime/default" => Some(AppArmorProfile {
                type_: "RuntimeDefault".into(),
                localhost_profile: None,
            }),
            "unconfined" => Some(AppArmorProfile {
                type_: "Unconfined".into(),
                localhost_profile: None,
            }),
            v => v.strip_prefix("localhost/").map(|name| AppArmorProfile {
                type_: "Localhost".into(),
                localhost_profile: Some(name.to_string()),
            }),
        };
        if from_annotation.is_some() {
            return from_annotation;
        }
    }
    pod.spec
        .as_ref()
        .and_then(|s| s.security_context.as_ref())
        .and_then(|s| s.app_armor_profile.clone())
}

/// The CRI profile and the deprecated profile string (`runtime/default`, `unconfined`,
/// `localhost/<name>`); `(None, "")` when no profile applies.
pub(crate) fn apparmor_profile(
    pod: &Pod,
    c: &Container,
) -> Result<(Option<SecurityProfile>, String), ConfigError> {
    let Some(p) = effective_profile(pod, c) else {
        return Ok((None, String::new()));
    };
    let plain = |profile_type| SecurityProfile {
        profile_type,
        localhost_ref: String::new(),
    };
    match p.type_.as_str() {
        "RuntimeDefault" => Ok((
            Some(plain(ProfileType::RuntimeDefault)),
            "runtime/default".into(),
        )),
        "Unconfined" => Ok((Some(plain(ProfileType::Unconfined)), "unconfined".into())),
        "Localhost" => match p.localhost_profile {
            Some(name) => Ok((
                Some(SecurityProfile {
                    profile_type: ProfileType::Localhost,
                    localhost_ref: name.clone(),
                }),
                format!("localhost/{name}"),
            )),
            None => Err(ConfigError::AppArmorLocalhostMissing),
        },
        other => Err(ConfigError::AppArmorType(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apparmor_profile_examples() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"annotations": {"container.apparmor.security.beta.kubernetes.io/c": "localhost/p"}},
            "spec": {"containers": [{"name": "c"}]}})).unwrap();
        let c = &pod.spec.as_ref().unwrap().containers[0];
        let (p, s) = apparmor_profile(&pod, c).unwrap();
        assert_eq!(p.unwrap().localhost_ref, "p");
        assert_eq!(s, "localhost/p");
    }
}
