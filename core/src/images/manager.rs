//! The image manager proper: `EnsureImageExists` (the decision before a container
//! starts) and what a carried-out pull turns into (see the parent module's docs).

use std::collections::BTreeMap;
use std::fmt;

use k8s_openapi::api::core::v1::{Pod, Secret};
use serde::{Deserialize, Serialize};

use crate::events::Event;
use crate::features::{FeatureGates, Gate};
pub(crate) use crate::plan::{Annotation, ImageSpec};

use super::backoff::ImageBackoff;
use super::credentials::{pod_credentials, Coordinates, CredentialCheck, TrackedCredential};
use super::{pull_records, reference};
use crate::plan::{PullResult, PullResultRecord};

/// The error strings (= waiting reasons) of a failed `EnsureImageExists`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ImageErrorKind {
    /// A pull failed (`ErrImagePull`).
    ErrImagePull,
    /// Pulls are held back (`ImagePullBackOff`).
    ImagePullBackOff,
    /// `imagePullPolicy: Never` and the image is absent or not accessible to the pod.
    ErrImageNeverPull,
    /// `ImageStatus` failed.
    ImageInspectError,
    /// The image reference does not parse.
    InvalidImageName,
    /// The runtime said the registry is unavailable.
    RegistryUnavailable,
    /// The runtime said the image signature is invalid.
    SignatureValidationFailed,
    /// The pod's pull credentials could not be resolved (a malformed pull secret). The
    /// kubelet's waiting reason is then the underlying Go error text, which podplan
    /// does not reproduce.
    CredentialLookupError,
}

impl ImageErrorKind {
    /// The error string.
    #[must_use]
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::ErrImagePull => "ErrImagePull",
            Self::ImagePullBackOff => "ImagePullBackOff",
            Self::ErrImageNeverPull => "ErrImageNeverPull",
            Self::ImageInspectError => "ImageInspectError",
            Self::InvalidImageName => "InvalidImageName",
            Self::RegistryUnavailable => "RegistryUnavailable",
            Self::SignatureValidationFailed => "SignatureValidationFailed",
            Self::CredentialLookupError => "CredentialLookupError",
        }
    }
}

impl fmt::Display for ImageErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed `EnsureImageExists`: the error (waiting reason) and the returned message
/// (waiting message).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageError {
    /// The error string.
    pub kind: ImageErrorKind,
    /// The message `EnsureImageExists` returns.
    pub message: String,
}

/// `imagePullPolicy` as the kubelet receives it (it never defaults it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PullPolicy {
    /// `Always`.
    Always,
    /// `IfNotPresent`.
    IfNotPresent,
    /// `Never`.
    Never,
    /// Empty or unknown: matches no case of the precheck (no lookup; pulled like
    /// `Always`, reported as not present).
    Other(String),
}

impl PullPolicy {
    /// From the container's field.
    #[must_use]
    pub(crate) fn parse(s: Option<&str>) -> Self {
        match s {
            Some("Always") => Self::Always,
            Some("IfNotPresent") => Self::IfNotPresent,
            Some("Never") => Self::Never,
            other => Self::Other(other.unwrap_or("").to_string()),
        }
    }

    fn metric_label(&self) -> String {
        match self {
            Self::Always => "always".into(),
            Self::IfNotPresent => "ifnotpresent".into(),
            Self::Never => "never".into(),
            Self::Other(s) => s.to_lowercase(),
        }
    }
}

/// What the node's `ImageStatus` answers for a tag-defaulted image name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ImageLookup {
    /// The image is present with this imageRef.
    Present(String),
    /// Not present.
    Absent,
    /// `ImageStatus` failed with this text.
    Error(String),
}

/// The node's images: tag-defaulted name → imageRef, as `ImageStatus` / `ListImages`
/// report them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeImages {
    /// name → imageRef.
    pub images: BTreeMap<String, String>,
    /// Names whose `ImageStatus` fails, with the error text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub errors: BTreeMap<String, String>,
}

impl NodeImages {
    /// `GetImageRef(spec)`.
    #[must_use]
    pub(crate) fn lookup(&self, image: &str) -> ImageLookup {
        if let Some(e) = self.errors.get(image) {
            return ImageLookup::Error(e.clone());
        }
        match self.images.get(image) {
            Some(r) if !r.is_empty() => ImageLookup::Present(r.clone()),
            _ => ImageLookup::Absent,
        }
    }
}

/// The pull-record check (`ImagePullManager.MustAttemptImagePull`, gate
/// KubeletEnsureSecretPulledImages): must a present image be pulled again to verify the
/// pod's credentials?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", untagged)]
pub enum PullRecordCheck {
    /// Fixed answers.
    Oracle(PullRecordOracle),
    /// The kubelet's own records and verification policy.
    Records(pull_records::PullRecords),
}

impl Default for PullRecordCheck {
    fn default() -> Self {
        Self::Oracle(PullRecordOracle {
            allow_all: true,
            ..PullRecordOracle::default()
        })
    }
}

/// The answers of the kubelet's test mock and of a caller that knows them: all images
/// accessible, accessible to given secrets / service accounts per image (as written), or
/// one fixed answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PullRecordOracle {
    /// Every present image is accessible (no verification pull). This is also the
    /// answer of the real manager's default policy for preloaded images.
    #[serde(default)]
    pub allow_all: bool,
    /// Image → secrets whose coordinates make it accessible.
    #[serde(default)]
    pub allowed_secrets: BTreeMap<String, Vec<Coordinates>>,
    /// Image → service accounts that make it accessible.
    #[serde(default)]
    pub allowed_service_accounts: BTreeMap<String, Vec<Coordinates>>,
    /// Always this answer to "must pull?".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixed_answer: Option<bool>,
}

impl PullRecordCheck {
    /// `MustAttemptImagePull(image, imageRef, credentials)`.
    #[must_use]
    pub(crate) fn must_attempt_pull(
        &self,
        image: &str,
        image_ref: &str,
        creds: &CredentialCheck,
        tracked: &[TrackedCredential],
    ) -> bool {
        let o = match self {
            Self::Oracle(o) => o,
            Self::Records(r) => {
                return r.must_attempt_pull(
                    image,
                    image_ref,
                    &pull_records::PodCredentials::from_credentials(tracked),
                )
            }
        };
        if image_ref.is_empty() {
            return true;
        }
        if o.allow_all {
            return false;
        }
        if let Some(b) = o.fixed_answer {
            return b;
        }
        let secret_ok = o
            .allowed_secrets
            .get(image)
            .is_some_and(|allowed| creds.secrets.iter().any(|s| allowed.contains(s)));
        let sa_ok = creds.service_account.as_ref().is_some_and(|sa| {
            o.allowed_service_accounts
                .get(image)
                .is_some_and(|allowed| allowed.contains(sa))
        });
        !(secret_ok || sa_ok)
    }
}

/// Labels of `kubelet_image_manager_ensure_image_requests_total` for one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EnsureMetric {
    /// The pull policy, lower-case.
    pub pull_policy: String,
    /// `true` / `false` / `unknown`.
    pub present_locally: String,
    /// `true` / `false` / `unknown`.
    pub pull_required: String,
}

fn tri(b: Option<bool>) -> String {
    match b {
        Some(true) => "true".into(),
        Some(false) => "false".into(),
        None => "unknown".into(),
    }
}

/// What to send to the runtime: one `PullImage` per credential in order (anonymous when
/// there is none), stopping at the first success.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullOrder {
    /// The image as written in the container (messages, back-off key).
    pub image: String,
    /// The `ImageSpec`.
    pub spec: ImageSpec,
    /// Credentials in keyring order (pod pull secrets, then the node's).
    pub credentials: Vec<TrackedCredential>,
    /// The back-off key (`<pod UID>_<image>`).
    pub backoff_key: String,
}

/// The decision of one `EnsureImageExists` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Use the present image.
    Present {
        /// Its imageRef (goes into `ContainerConfig.image.image`).
        image_ref: String,
        /// The "already present" message.
        message: String,
    },
    /// Pull first.
    Pull(PullOrder),
    /// The start fails.
    Failed(ImageError),
}

/// The whole answer of [`ensure_image_exists`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[must_use]
pub struct ImageDecision {
    /// The decision.
    pub outcome: Outcome,
    /// Whether `ImageStatus` was asked (not for `Always` or invalid names).
    pub image_status_called: bool,
    /// The credentials handed to the pull-record check, if it was consulted.
    pub credential_check: Option<CredentialCheck>,
    /// Events recorded so far (a pull adds `Pulled` or `Failed` in [`complete_pull`]).
    pub events: Vec<Event>,
    /// Metric labels.
    pub metric: EnsureMetric,
}

/// Inputs of one `EnsureImageExists` call.
#[derive(Debug, Clone, Copy)]
pub struct EnsureInput<'a> {
    /// The pod (UID for the back-off key, annotations for the `ImageSpec`).
    pub pod: &'a Pod,
    /// The container's name (events).
    pub container: &'a str,
    /// `container.image` as written.
    pub image: &'a str,
    /// `container.imagePullPolicy` as received.
    pub pull_policy: Option<&'a str>,
    /// The pod's pull secrets (resolved `imagePullSecrets`).
    pub pull_secrets: &'a [Secret],
    /// Node keyring / credential-provider credentials by registry key.
    pub node_credentials: &'a BTreeMap<String, Vec<TrackedCredential>>,
    /// The runtime handler resolved by `startContainer`.
    pub runtime_handler: &'a str,
    /// Feature gates.
    pub gates: &'a FeatureGates,
    /// The node's images.
    pub node_images: &'a NodeImages,
    /// The pull-record check (gate KubeletEnsureSecretPulledImages).
    pub pull_records: &'a PullRecordCheck,
    /// The clock.
    pub now: jiff::Timestamp,
}

/// `"<pod UID>_<image>"`.
#[must_use]
pub(crate) fn backoff_key(pod: &Pod, image: &str) -> String {
    format!("{}_{}", pod.metadata.uid.as_deref().unwrap_or(""), image)
}

/// The `ImageSpec` for a tag-defaulted image.
#[must_use]
pub(crate) fn image_spec(pod: &Pod, image: String, runtime_handler: &str) -> ImageSpec {
    ImageSpec {
        image,
        annotations: pod
            .metadata
            .annotations
            .iter()
            .flatten()
            .map(|(k, v)| Annotation {
                name: k.clone(),
                value: v.clone(),
            })
            .collect(),
        runtime_handler: runtime_handler.to_string(),
    }
}

fn never_pull(image: &str, container: &str) -> (ImageError, Event) {
    let msg = format!("Container image {image:?} is not present with pull policy of Never");
    (
        ImageError {
            kind: ImageErrorKind::ErrImageNeverPull,
            message: msg.clone(),
        },
        Event::warning("ErrImageNeverPull", msg, Some(container)),
    )
}

/// `EnsureImageExists` up to the pull: spec §2 steps (a)–(e). Mutates `backoff` as the
/// kubelet does before pulling (the stored previous error of the key is dropped when a
/// pull is attempted).
pub fn ensure_image_exists(input: &EnsureInput<'_>, backoff: &mut ImageBackoff) -> ImageDecision {
    let image = input.image;
    let container = Some(input.container);
    let policy = PullPolicy::parse(input.pull_policy);
    let mut d = ImageDecision {
        outcome: Outcome::Failed(ImageError {
            kind: ImageErrorKind::ErrImagePull,
            message: String::new(),
        }),
        image_status_called: false,
        credential_check: None,
        events: Vec::new(),
        metric: EnsureMetric {
            pull_policy: policy.metric_label(),
            present_locally: tri(None),
            pull_required: tri(None),
        },
    };
    let fail = |mut d: ImageDecision, err: ImageError, ev: Option<Event>| {
        d.events.extend(ev);
        d.outcome = Outcome::Failed(err);
        d
    };
    // (a) tag defaulting.
    let tagged = match reference::apply_default_image_tag(image) {
        Ok(t) => t,
        Err(e) => {
            let msg = format!("Failed to apply default image tag {image:?}: {e}");
            let ev = Event::warning("InspectFailed", msg.clone(), container);
            return fail(
                d,
                ImageError {
                    kind: ImageErrorKind::InvalidImageName,
                    message: msg,
                },
                Some(ev),
            );
        }
    };
    let spec = image_spec(input.pod, tagged, input.runtime_handler);
    // (b) precheck.
    let mut image_ref = String::new();
    if !matches!(policy, PullPolicy::Always) {
        if matches!(policy, PullPolicy::IfNotPresent | PullPolicy::Never) {
            d.image_status_called = true;
            match input.node_images.lookup(&spec.image) {
                ImageLookup::Present(r) => image_ref = r,
                ImageLookup::Absent => {}
                ImageLookup::Error(e) => {
                    let msg = format!("Failed to inspect image \"\": {e}");
                    let ev = Event::warning("InspectFailed", msg.clone(), container);
                    return fail(
                        d,
                        ImageError {
                            kind: ImageErrorKind::ImageInspectError,
                            message: msg,
                        },
                        Some(ev),
                    );
                }
            }
        }
        d.metric.present_locally = tri(Some(!image_ref.is_empty()));
        if image_ref.is_empty() && policy == PullPolicy::Never {
            let (err, ev) = never_pull(image, input.container);
            return fail(d, err, Some(ev));
        }
    }
    // Credentials, resolved at most once.
    let repository = reference::parse_image_name(&spec.image).map(|(r, _, _)| r);
    let creds = match repository {
        Ok(repo) => pod_credentials(&repo, input.pull_secrets, input.node_credentials),
        Err(e) => Err(e.to_string()),
    };
    let cred_error = |d: ImageDecision, e: &str| {
        fail(
            d,
            ImageError {
                kind: ImageErrorKind::CredentialLookupError,
                message: e.to_string(),
            },
            None,
        )
    };
    // (c) present image.
    if !image_ref.is_empty() {
        d.metric.pull_required = tri(Some(false));
        if !input.gates.enabled(Gate::KubeletEnsureSecretPulledImages) {
            let msg = format!("Container image {image:?} already present on machine");
            d.events
                .push(Event::normal("Pulled", msg.clone(), container));
            d.outcome = Outcome::Present {
                image_ref,
                message: msg,
            };
            return d;
        }
        let (check, tracked) = match &creds {
            Ok(c) => (CredentialCheck::from_credentials(c), c.as_slice()),
            Err(e) => {
                d.metric.pull_required = tri(None);
                return cred_error(d, e);
            }
        };
        let must = input
            .pull_records
            .must_attempt_pull(image, &image_ref, &check, tracked);
        d.credential_check = Some(check);
        if !must {
            let msg = format!(
                "Container image {image:?} already present on machine and can be accessed by the pod"
            );
            d.events
                .push(Event::normal("Pulled", msg.clone(), container));
            d.outcome = Outcome::Present {
                image_ref,
                message: msg,
            };
            return d;
        }
    }
    d.metric.pull_required = tri(Some(true));
    // (d) Never: present but not accessible looks like absent.
    if policy == PullPolicy::Never {
        let (err, ev) = never_pull(image, input.container);
        return fail(d, err, Some(ev));
    }
    let credentials = match creds {
        Ok(c) => c,
        Err(e) => return cred_error(d, &e),
    };
    // (e) back-off.
    let key = backoff_key(input.pod, image);
    if backoff.in_backoff(&key, input.now).is_some() {
        let mut msg = format!("Back-off pulling image {image:?}");
        d.events
            .push(Event::normal("BackOff", msg.clone(), container));
        if let Some(prev) = backoff.previous_error(&key) {
            msg = format!("{msg}: {prev}");
        }
        return fail(
            d,
            ImageError {
                kind: ImageErrorKind::ImagePullBackOff,
                message: msg,
            },
            None,
        );
    }
    backoff.set_previous_error(&key, None);
    // (f) pull.
    d.events.push(Event::normal(
        "Pulling",
        format!("Pulling image {image:?}"),
        container,
    ));
    d.outcome = Outcome::Pull(PullOrder {
        image: image.to_string(),
        spec,
        credentials,
        backoff_key: key,
    });
    d
}

/// `evalCRIPullErr`: classifies a runtime's pull error text. Returns (kind, message).
#[must_use]
pub(crate) fn eval_cri_pull_err(image: &str, error: &str) -> ImageError {
    for (prefix, kind, what) in [
        (
            "RegistryUnavailable",
            ImageErrorKind::RegistryUnavailable,
            "the registry is unavailable",
        ),
        (
            "SignatureValidationFailed",
            ImageErrorKind::SignatureValidationFailed,
            "the signature validation failed",
        ),
    ] {
        if let Some(rest) = error.strip_prefix(prefix) {
            return ImageError {
                kind,
                message: format!("image pull failed for {image} because {what}{rest}"),
            };
        }
    }
    ImageError {
        kind: ImageErrorKind::ErrImagePull,
        message: error.to_string(),
    }
}

/// The end of `pullImage`: a failure records `Failed`, advances the back-off and stores
/// the error for the back-off message; a success records `Pulled` and garbage-collects the
/// back-off (without resetting this key). Returns the imageRef or the error, and the
/// events of this stage.
pub fn complete_pull(
    order: &PullOrder,
    container: &str,
    result: &PullResult,
    backoff: &mut ImageBackoff,
    now: jiff::Timestamp,
) -> (Result<String, ImageError>, Vec<Event>) {
    let image = &order.image;
    match (&result.image_ref, &result.error) {
        (Some(image_ref), None) => {
            let ev = Event::normal(
                "Pulled",
                format!(
                    "Successfully pulled image {image:?} in {} ({} including waiting). Image size: {} bytes.",
                    crate::go::duration::go_duration_millis(result.pull_millis),
                    crate::go::duration::go_duration_millis(result.total_millis.max(result.pull_millis)),
                    result.image_size
                ),
                Some(container),
            );
            backoff.gc(now);
            (Ok(image_ref.clone()), vec![ev])
        }
        (_, error) => {
            let text = error.clone().unwrap_or_default();
            let ev = Event::warning(
                "Failed",
                format!("Failed to pull image {image:?}: {text}"),
                Some(container),
            );
            backoff.next(&order.backoff_key, now);
            let err = eval_cri_pull_err(image, &text);
            backoff.set_previous_error(
                &order.backoff_key,
                Some(format!("{}: {}", err.kind, err.message)),
            );
            (Err(err), vec![ev])
        }
    }
}

/// A pull result that cannot be used (reported as a warning, never an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PullResultWarning {
    /// No container of the pod uses the image.
    #[error("pullResults[{index}]: no container of the pod uses image {image:?}; ignored")]
    ImageNotUsed {
        /// Position in the list.
        index: usize,
        /// The image.
        image: String,
    },
    /// The back-off key belongs to another pod or image.
    #[error(
        "pullResults[{index}]: back-off key {key:?} is not this pod's key for {image:?}; ignored"
    )]
    ForeignKey {
        /// Position in the list.
        index: usize,
        /// The key given.
        key: String,
        /// The image.
        image: String,
    },
    /// Both or neither of `imageRef` and `error`.
    #[error("pullResults[{index}]: exactly one of imageRef and error must be given; ignored")]
    Ambiguous {
        /// Position in the list.
        index: usize,
    },
    /// A later result for the same image replaces this one.
    #[error("pullResults[{index}]: a later result for image {image:?} replaces this one")]
    Superseded {
        /// Position in the list.
        index: usize,
        /// The image.
        image: String,
    },
}

/// The usable pull results by image (the latest per image), with warnings for the rest.
#[must_use]
pub fn usable_pull_results<'a>(
    pod: &Pod,
    results: &'a [PullResultRecord],
) -> (
    BTreeMap<String, &'a PullResultRecord>,
    Vec<PullResultWarning>,
) {
    let spec = pod.spec.as_ref();
    let used: Vec<&str> = spec
        .into_iter()
        .flat_map(|s| {
            s.containers
                .iter()
                .map(|c| c.image.as_deref())
                .chain(
                    s.init_containers
                        .iter()
                        .flatten()
                        .map(|c| c.image.as_deref()),
                )
                .chain(
                    s.ephemeral_containers
                        .iter()
                        .flatten()
                        .map(|c| c.image.as_deref()),
                )
        })
        .flatten()
        .collect();
    let mut out: BTreeMap<String, (usize, &PullResultRecord)> = BTreeMap::new();
    let mut warnings = Vec::new();
    for (index, r) in results.iter().enumerate() {
        if !used.contains(&r.image.as_str()) {
            warnings.push(PullResultWarning::ImageNotUsed {
                index,
                image: r.image.clone(),
            });
            continue;
        }
        if let Some(key) = &r.backoff_key {
            if *key != backoff_key(pod, &r.image) {
                warnings.push(PullResultWarning::ForeignKey {
                    index,
                    key: key.clone(),
                    image: r.image.clone(),
                });
                continue;
            }
        }
        if r.result.image_ref.is_some() == r.result.error.is_some() {
            warnings.push(PullResultWarning::Ambiguous { index });
            continue;
        }
        if let Some((old, prev)) = out.get(&r.image) {
            let (old, prev_at) = (*old, prev.at);
            if r.at < prev_at {
                warnings.push(PullResultWarning::Superseded {
                    index,
                    image: r.image.clone(),
                });
                continue;
            }
            warnings.push(PullResultWarning::Superseded {
                index: old,
                image: r.image.clone(),
            });
        }
        out.insert(r.image.clone(), (index, r));
    }
    (
        out.into_iter().map(|(k, (_, r))| (k, r)).collect(),
        warnings,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The figure at the function level: a pull that fails twice, then succeeds,
    /// goes ErrImagePull → ImagePullBackOff (10 s, then 20 s) → present, with the
    /// kubelet's events.
    #[test]
    fn fails_twice_then_succeeds() {
        let pod: Pod = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "p", "namespace": "n", "uid": "u"},
            "spec": {"containers": [{"name": "c", "image": "app:1", "imagePullPolicy": "IfNotPresent"}]}
        }))
        .unwrap();
        let gates = FeatureGates::default();
        let creds = BTreeMap::new();
        let check = PullRecordCheck::default();
        let mut node = NodeImages::default();
        let (mut backoff, _) =
            ImageBackoff::new(crate::images::backoff::ImageBackoffPolicy::default(), &[]);
        let mut failures_left = 2;
        let mut seen = Vec::new();
        for t in [0, 5, 10, 20, 29, 30, 35] {
            let now = jiff::Timestamp::from_second(1_800_000_000 + t).unwrap();
            let input = EnsureInput {
                pod: &pod,
                container: "c",
                image: "app:1",
                pull_policy: Some("IfNotPresent"),
                pull_secrets: &[],
                node_credentials: &creds,
                runtime_handler: "",
                gates: &gates,
                node_images: &node,
                pull_records: &check,
                now,
            };
            let d = ensure_image_exists(&input, &mut backoff);
            let mut reasons: Vec<String> = d.events.iter().map(|e| e.reason.clone()).collect();
            let outcome = match &d.outcome {
                Outcome::Present { .. } => "present".to_string(),
                Outcome::Failed(e) => e.kind.to_string(),
                Outcome::Pull(order) => {
                    let result = if failures_left > 0 {
                        failures_left -= 1;
                        PullResult {
                            image_ref: None,
                            error: Some("rpc error: not found".into()),
                            pull_millis: 0,
                            total_millis: 0,
                            image_size: 0,
                        }
                    } else {
                        PullResult {
                            image_ref: Some("sha256:abc".into()),
                            error: None,
                            pull_millis: 1500,
                            total_millis: 1500,
                            image_size: 42,
                        }
                    };
                    let (res, evs) = complete_pull(order, "c", &result, &mut backoff, now);
                    reasons.extend(evs.iter().map(|e| e.reason.clone()));
                    match res {
                        Ok(r) => {
                            node.images.insert(order.spec.image.clone(), r);
                            "pulled".to_string()
                        }
                        Err(e) => e.kind.to_string(),
                    }
                }
            };
            seen.push(format!("{t}:{outcome}:{}", reasons.join("+")));
            if t == 5 {
                assert_eq!(
                    d.outcome,
                    Outcome::Failed(ImageError {
                        kind: ImageErrorKind::ImagePullBackOff,
                        message:
                            "Back-off pulling image \"app:1\": ErrImagePull: rpc error: not found"
                                .into(),
                    })
                );
            }
        }
        assert_eq!(
            seen,
            [
                "0:ErrImagePull:Pulling+Failed",
                "5:ImagePullBackOff:BackOff",
                "10:ErrImagePull:Pulling+Failed",
                "20:ImagePullBackOff:BackOff",
                "29:ImagePullBackOff:BackOff",
                "30:pulled:Pulling+Pulled",
                "35:present:Pulled",
            ]
        );
        assert_eq!(backoff.delay_seconds("u_app:1"), Some(20));
    }

    #[test]
    fn cri_errors_keep_the_rest_of_the_text() {
        let e = eval_cri_pull_err("img", "RegistryUnavailable: down");
        assert_eq!(e.kind, ImageErrorKind::RegistryUnavailable);
        assert_eq!(
            e.message,
            "image pull failed for img because the registry is unavailable: down"
        );
        let e = eval_cri_pull_err("img", "[RegistryUnavailable, x]");
        assert_eq!(e.kind, ImageErrorKind::ErrImagePull);
    }
}
