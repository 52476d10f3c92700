//! The kubelet's pull-record manager (`pkg/kubelet/images/pullmanager`, gate
//! KubeletEnsureSecretPulledImages): the records it keeps of which credentials pulled which
//! image, and `MustAttemptImagePull` over them. Spec §3 of `image-pull.md`.
//!
//! * Verification policy: `NeverVerify` never verifies; `NeverVerifyPreloadedImages` (the
//!   default) verifies only images the kubelet pulled; `NeverVerifyAllowlistedImages` verifies
//!   unless the image matches the allow-list; `AlwaysVerify` always does.
//! * "Pulled by the kubelet": a pulled record for the imageRef whose mapping for this image is
//!   not `preloaded` (or, with no mapping for it, any non-preloaded mapping), or a pull
//!   intent for the image.
//! * Verification: no record → pull; no mapping for the image → pull; `nodePodsAccessible` →
//!   no pull; neither secrets nor service accounts → pull; a pod secret with the same
//!   non-empty credential hash, or the same coordinates (while fewer than 100 secrets are
//!   recorded), → no pull; the pod's service account recorded → no pull; else pull.
//!
//! Image names in the mapping are the normalised repository without tag or digest
//! (`ParseImageName`'s first result); the kubelet's `trimImageTagDigest` may key them
//! differently (not verified).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

#[cfg(test)]
use super::credentials::CredentialSource;
use super::credentials::{pod_sources, Coordinates, CredentialCheck, TrackedCredential};
use super::reference::parse_image_name;

/// Above this many recorded secrets, a coordinates-only match no longer counts
/// (`writeRecordWhileMatchingLimit`).
const WRITE_RECORD_WHILE_MATCHING_LIMIT: usize = 100;

/// `imagePullCredentialsVerificationPolicy`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum VerificationPolicy {
    /// Never verify.
    NeverVerify,
    /// Verify images the kubelet pulled (default).
    #[default]
    NeverVerifyPreloadedImages,
    /// Verify unless allow-listed.
    NeverVerifyAllowlistedImages,
    /// Always verify.
    AlwaysVerify,
}

/// A recorded secret.
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordedSecret {
    /// Namespace.
    #[serde(default)]
    pub namespace: String,
    /// Name.
    #[serde(default)]
    pub name: String,
    /// UID.
    #[serde(default)]
    pub uid: String,
    /// The credential's hash.
    #[serde(default)]
    pub credential_hash: String,
}

/// `ImagePullCredentials`: who may use an image.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CredentialMapping {
    /// Not pulled by the kubelet (seen present and exempt from verification).
    #[serde(default)]
    pub preloaded: bool,
    /// Pulled without pod-specific credentials: every pod may use it.
    #[serde(default)]
    pub node_pods_accessible: bool,
    /// Secrets that pulled it (sorted, unique).
    #[serde(default)]
    pub kubernetes_secrets: Vec<RecordedSecret>,
    /// Service accounts that pulled it (sorted, unique).
    #[serde(default)]
    pub kubernetes_service_accounts: Vec<Coordinates>,
}

/// The manager's state: pulled records per imageRef, pull intents, policy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PullRecords {
    /// The verification policy.
    #[serde(default)]
    pub policy: VerificationPolicy,
    /// `preloadedImagesVerificationAllowlist`: exact names or `prefix/*` patterns.
    #[serde(default)]
    pub allowlist: Vec<String>,
    /// imageRef → image name → mapping.
    #[serde(default)]
    pub pulled: BTreeMap<String, BTreeMap<String, CredentialMapping>>,
    /// Images with a pull intent (a pull in flight or interrupted).
    #[serde(default)]
    pub intents: BTreeSet<String>,
}

/// The pod's credentials as the check sees them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct PodCredentials {
    /// Secret-sourced credentials with their hashes.
    pub secrets: Vec<RecordedSecret>,
    /// The first service-account-sourced credential.
    pub service_account: Option<Coordinates>,
}

impl PodCredentials {
    /// From a keyring answer.
    #[must_use]
    pub(crate) fn from_credentials(creds: &[TrackedCredential]) -> Self {
        let (secrets, service_account) = pod_sources(creds);
        Self {
            secrets: secrets
                .into_iter()
                .map(|(s, c)| RecordedSecret {
                    namespace: s.namespace.clone(),
                    name: s.name.clone(),
                    uid: s.uid.clone(),
                    credential_hash: c.auth_config_hash.clone(),
                })
                .collect(),
            service_account: service_account.cloned(),
        }
    }
}

impl CredentialCheck {
    /// Filters a keyring answer as `EnsureImageExists`'s `getPodCredentials` does: the
    /// pod's credentials as the pull-record check sees them, without their hashes.
    #[must_use]
    pub(crate) fn from_credentials(creds: &[TrackedCredential]) -> Self {
        let pod = PodCredentials::from_credentials(creds);
        Self {
            secrets: pod
                .secrets
                .into_iter()
                .map(|s| Coordinates {
                    namespace: s.namespace,
                    name: s.name,
                    uid: s.uid,
                })
                .collect(),
            service_account: pod.service_account,
        }
    }
}

fn image_name(image: &str) -> Option<String> {
    parse_image_name(image).ok().map(|(name, _, _)| name)
}

fn allowlisted(allowlist: &[String], name: &str) -> bool {
    allowlist
        .iter()
        .any(|entry| match entry.strip_suffix("/*") {
            Some(prefix) => name.starts_with(&format!("{prefix}/")),
            None => entry == name,
        })
}

impl PullRecords {
    fn pulled_by_kubelet(&self, image: &str, name: Option<&str>, image_ref: &str) -> bool {
        if let Some(record) = self.pulled.get(image_ref) {
            let Some(name) = name else { return true };
            match record.get(name) {
                Some(m) if !m.preloaded => return true,
                None if record.values().any(|m| !m.preloaded) => return true,
                _ => {}
            }
        }
        self.intents.contains(image)
    }

    /// `MustAttemptImagePull(image, imageRef, podCredentials)`.
    #[must_use]
    pub(crate) fn must_attempt_pull(
        &self,
        image: &str,
        image_ref: &str,
        pod: &PodCredentials,
    ) -> bool {
        if image_ref.is_empty() {
            return true;
        }
        let name = image_name(image);
        let by_kubelet = self.pulled_by_kubelet(image, name.as_deref(), image_ref);
        let verify = match self.policy {
            VerificationPolicy::NeverVerify => false,
            VerificationPolicy::NeverVerifyPreloadedImages => by_kubelet,
            VerificationPolicy::NeverVerifyAllowlistedImages => !name
                .as_deref()
                .is_some_and(|n| allowlisted(&self.allowlist, n)),
            VerificationPolicy::AlwaysVerify => true,
        };
        if !verify {
            return false;
        }
        let Some(record) = self.pulled.get(image_ref) else {
            return true;
        };
        let Some(name) = name else { return true };
        let Some(cached) = record.get(&name) else {
            return true;
        };
        if cached.node_pods_accessible {
            return false;
        }
        if cached.kubernetes_secrets.is_empty() && cached.kubernetes_service_accounts.is_empty() {
            return true;
        }
        let few = cached.kubernetes_secrets.len() < WRITE_RECORD_WHILE_MATCHING_LIMIT;
        for p in &pod.secrets {
            for c in &cached.kubernetes_secrets {
                let hashes =
                    !c.credential_hash.is_empty() && p.credential_hash == c.credential_hash;
                let coords = p.uid == c.uid && p.namespace == c.namespace && p.name == c.name;
                if hashes || (coords && few) {
                    return false;
                }
            }
        }
        !pod.service_account
            .as_ref()
            .is_some_and(|sa| cached.kubernetes_service_accounts.contains(sa))
    }

    /// `RecordImagePulled`: after a successful pull with `used` (the credential that
    /// worked; `None` = anonymous), merge it into the record for `image_ref`.
    #[cfg(test)]
    pub(crate) fn record_pulled(
        &mut self,
        image: &str,
        image_ref: &str,
        used: Option<&TrackedCredential>,
    ) {
        self.intents.remove(image);
        let Some(name) = image_name(image) else {
            return;
        };
        let new = match used.and_then(|c| c.source.as_ref().map(|s| (c, s))) {
            Some((
                c,
                CredentialSource {
                    secret: Some(s), ..
                },
            )) => CredentialMapping {
                kubernetes_secrets: vec![RecordedSecret {
                    namespace: s.namespace.clone(),
                    name: s.name.clone(),
                    uid: s.uid.clone(),
                    credential_hash: c.auth_config_hash.clone(),
                }],
                ..CredentialMapping::default()
            },
            Some((
                _,
                CredentialSource {
                    service_account: Some(sa),
                    ..
                },
            )) => CredentialMapping {
                kubernetes_service_accounts: vec![sa.clone()],
                ..CredentialMapping::default()
            },
            _ => CredentialMapping {
                node_pods_accessible: true,
                ..CredentialMapping::default()
            },
        };
        let record = self.pulled.entry(image_ref.to_string()).or_default();
        let Some(cur) = record.get_mut(&name) else {
            record.insert(name, new);
            return;
        };
        if cur.node_pods_accessible {
            return;
        }
        cur.preloaded = false;
        if new.node_pods_accessible {
            *cur = new;
            return;
        }
        for s in new.kubernetes_secrets {
            cur.kubernetes_secrets
                .retain(|x| (&x.namespace, &x.name, &x.uid) != (&s.namespace, &s.name, &s.uid));
            cur.kubernetes_secrets.push(s);
        }
        cur.kubernetes_secrets.sort();
        for sa in new.kubernetes_service_accounts {
            if !cur.kubernetes_service_accounts.contains(&sa) {
                cur.kubernetes_service_accounts.push(sa);
            }
        }
        cur.kubernetes_service_accounts.sort();
    }

    #[cfg(test)]
    /// `RecordPullIntent`.
    fn record_intent(&mut self, image: &str) {
        self.intents.insert(image.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(uid: &str, hash: &str) -> RecordedSecret {
        RecordedSecret {
            namespace: "ns".into(),
            name: "s".into(),
            uid: uid.into(),
            credential_hash: hash.into(),
        }
    }

    fn pod(secrets: Vec<RecordedSecret>) -> PodCredentials {
        PodCredentials {
            secrets,
            service_account: None,
        }
    }

    #[test]
    fn preloaded_images_are_not_verified_by_default() {
        let r = PullRecords::default();
        assert!(!r.must_attempt_pull("busybox", "sha256:1", &pod(vec![])));
        let always = PullRecords {
            policy: VerificationPolicy::AlwaysVerify,
            ..PullRecords::default()
        };
        assert!(always.must_attempt_pull("busybox", "sha256:1", &pod(vec![])));
        let mut intent = PullRecords::default();
        intent.record_intent("busybox");
        assert!(intent.must_attempt_pull("busybox", "sha256:1", &pod(vec![])));
        assert!(r.must_attempt_pull("busybox", "", &pod(vec![])));
    }

    #[test]
    fn secrets_match_by_hash_or_coordinates() {
        let mut r = PullRecords::default();
        let used = TrackedCredential {
            source: Some(CredentialSource {
                secret: Some(Coordinates {
                    namespace: "ns".into(),
                    name: "s".into(),
                    uid: "u1".into(),
                }),
                service_account: None,
            }),
            auth_config_hash: "h1".into(),
            ..TrackedCredential::default()
        };
        r.record_intent("busybox");
        r.record_pulled("busybox", "sha256:1", Some(&used));
        assert!(r.intents.is_empty());
        assert!(!r.must_attempt_pull("busybox:1", "sha256:1", &pod(vec![secret("u1", "other")])));
        assert!(!r.must_attempt_pull("busybox", "sha256:1", &pod(vec![secret("u2", "h1")])));
        assert!(r.must_attempt_pull("busybox", "sha256:1", &pod(vec![secret("u2", "h2")])));
        assert!(r.must_attempt_pull("busybox", "sha256:1", &pod(vec![])));
        // An anonymous pull makes the image node-wide accessible.
        r.record_pulled("busybox", "sha256:1", None);
        assert!(!r.must_attempt_pull("busybox", "sha256:1", &pod(vec![])));
    }

    #[test]
    fn allowlist_patterns() {
        let r = PullRecords {
            policy: VerificationPolicy::NeverVerifyAllowlistedImages,
            allowlist: vec!["registry.k8s.io/pause".into(), "quay.io/org/*".into()],
            ..PullRecords::default()
        };
        assert!(!r.must_attempt_pull("registry.k8s.io/pause:3.10", "x", &pod(vec![])));
        assert!(!r.must_attempt_pull("quay.io/org/app:1", "x", &pod(vec![])));
        assert!(r.must_attempt_pull("quay.io/other/app:1", "x", &pod(vec![])));
    }
}
