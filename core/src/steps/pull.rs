//! `startContainer` step 1, "pull the image", in a plan: `EnsureImageExists`
//! ([`crate::images`]) wired into the start pass, when the request reports the node's
//! images (`images`). Without them the image manager is not consulted and every image
//! counts as present (the plans of every request that says nothing about images).
//!
//! The engine never pulls: a needed pull is a `PullImage` step that replaces the
//! container's `CreateContainer`/`StartContainer` in this plan ("pull, then re-plan"). The
//! executor reports the result in the next request's `pullResults`; that plan completes
//! the pull (`Pulled` and the resolved imageRef, or `Failed` + `ErrImagePull` & co. and
//! the image back-off) before anything else is decided for the image. Rules:
//! `docs/spec/image-pull.md`, `docs/contract.md` ("Image pulls").

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::PodSpec;

use crate::events::Event;
use crate::features::{FeatureGates, Gate};
use crate::images::backoff::{ImageBackoff, ImageBackoffPolicy};
use crate::images::{
    backoff_key, complete_pull, ensure_image_exists, reference, EnsureInput, ImageError,
    ImageErrorKind, NodeImages, Outcome, PullOrder, PullRecordCheck, PullResultRecord,
};
use crate::plan::{AuthConfig, ContainerKind, ImageBackoffRecord, PullImageStep, Step, Warning};
use crate::request::PlanRequest;

/// What the image stage decided for one container's start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum ImageStart {
    /// Create the container with this imageRef.
    Ready(String),
    /// Pull first: the `PullImage` step to add, or `None` when an earlier container of
    /// this plan already pulls the same image (its result serves both).
    Pull(Option<Box<Step>>),
    /// Held back by the image-pull back-off (`ImagePullBackOff`).
    BackOff {
        /// The error (`ImagePullBackOff`, with the back-off message).
        error: ImageError,
        /// When the back-off expires.
        until: jiff::Timestamp,
        /// The current period in seconds.
        delay_seconds: u64,
    },
    /// The start fails with this error (`ErrImagePull`, `ErrImageNeverPull`, ...).
    Failed(ImageError),
}

/// The image manager's state for one plan: the node's images (as `ImageStatus` answers,
/// updated by the pulls this plan completes), the image back-off, and the pull results
/// not yet used.
pub(super) struct ImageStage<'a> {
    request: &'a PlanRequest,
    gates: &'a FeatureGates,
    node: NodeImages,
    backoff: ImageBackoff,
    records: PullRecordCheck,
    results: BTreeMap<String, &'a PullResultRecord>,
    /// Images whose pull result this plan has used.
    consumed: BTreeSet<String>,
    /// Back-off keys with a `PullImage` step in this plan.
    pulling: BTreeSet<String>,
    runtime_handler: String,
}

impl<'a> ImageStage<'a> {
    /// The stage for a request that reports the node's images, with the warnings about
    /// its image inputs; `None` (the image manager is off) when it does not. Then the
    /// other image fields are ignored, with a warning.
    pub(super) fn new(
        request: &'a PlanRequest,
        gates: &'a FeatureGates,
    ) -> (Option<Self>, Vec<Warning>) {
        let mut warnings = Vec::new();
        let Some(images) = request.images.as_ref() else {
            let ignored: Vec<&str> = [
                ("pullResults", !request.pull_results.is_empty()),
                ("imageBackoff", !request.image_backoff.is_empty()),
                ("pullSecrets", !request.pull_secrets.is_empty()),
                ("nodeCredentials", !request.node_credentials.is_empty()),
                ("pullRecords", request.pull_records.is_some()),
            ]
            .into_iter()
            .filter_map(|(name, given)| given.then_some(name))
            .collect();
            if !ignored.is_empty() {
                warnings.push(Warning {
                    path: "images".into(),
                    message: format!(
                        "no `images` in the request: the image manager is not consulted and every image counts as present; {} ignored",
                        ignored.join(", ")
                    ),
                });
            }
            return (None, warnings);
        };
        let (backoff, backoff_warnings) =
            ImageBackoff::new(ImageBackoffPolicy::default(), &request.image_backoff);
        let clock_warnings = request
            .now
            .map(|now| backoff.check_clock(now))
            .unwrap_or_default();
        warnings.extend(
            backoff_warnings
                .into_iter()
                .chain(clock_warnings)
                .map(|w| Warning {
                    path: "imageBackoff".into(),
                    message: w.to_string(),
                }),
        );
        let (results, result_warnings) =
            crate::images::usable_pull_results(&request.pod, &request.pull_results);
        warnings.extend(result_warnings.into_iter().map(|w| Warning {
            path: "pullResults".into(),
            message: w.to_string(),
        }));
        let runtime_handler = runtime_handler(request, gates);
        let stage = Self {
            request,
            gates,
            node: NodeImages {
                images: images.present.clone(),
                errors: images.inspect_errors.clone(),
            },
            backoff,
            records: request.pull_records.clone().unwrap_or_default(),
            results,
            consumed: BTreeSet::new(),
            pulling: BTreeSet::new(),
            runtime_handler,
        };
        (Some(stage), warnings)
    }

    /// `EnsureImageExists` for one container to start, with the events it records.
    pub(super) fn ensure(
        &mut self,
        kind: ContainerKind,
        index: usize,
        name: &str,
        image: &str,
    ) -> (ImageStart, Vec<Event>) {
        let pod = &self.request.pod;
        let policy = pull_policy(pod.spec.as_ref(), kind, index);
        let key = backoff_key(pod, image);
        // The previous plan's pull of this image, carried out: complete it first.
        if let Some(done) = self.unused_result(image, &key) {
            self.consumed.insert(image.to_string());
            let order = PullOrder {
                image: image.to_string(),
                spec: crate::images::ImageSpec::default(),
                credentials: Vec::new(),
                backoff_key: key,
            };
            let (result, events) =
                complete_pull(&order, name, &done.result, &mut self.backoff, done.at);
            return match result {
                Ok(image_ref) => {
                    if let Ok(tagged) = reference::apply_default_image_tag(image) {
                        self.node.images.insert(tagged, image_ref.clone());
                    }
                    (ImageStart::Ready(image_ref), events)
                }
                Err(error) => (ImageStart::Failed(error), events),
            };
        }
        // An earlier container of this plan pulls the same image: wait for its result.
        if self.pulling.contains(&key) {
            return (ImageStart::Pull(None), Vec::new());
        }
        let now = self.request.now.unwrap_or(jiff::Timestamp::MAX);
        let input = EnsureInput {
            pod,
            container: name,
            image,
            pull_policy: policy,
            pull_secrets: &self.request.pull_secrets,
            node_credentials: &self.request.node_credentials,
            runtime_handler: &self.runtime_handler,
            gates: self.gates,
            node_images: &self.node,
            pull_records: &self.records,
            now,
        };
        let decision = ensure_image_exists(&input, &mut self.backoff);
        let start = match decision.outcome {
            Outcome::Present { image_ref, .. } => ImageStart::Ready(image_ref),
            Outcome::Pull(order) => {
                self.pulling.insert(order.backoff_key.clone());
                ImageStart::Pull(Some(Box::new(pull_step(kind, index, name, order))))
            }
            Outcome::Failed(error) if error.kind == ImageErrorKind::ImagePullBackOff => {
                let until = self
                    .backoff
                    .in_backoff(&key, now)
                    .unwrap_or(jiff::Timestamp::MAX);
                let delay_seconds = self.backoff.delay_seconds(&key).unwrap_or(0);
                ImageStart::BackOff {
                    error,
                    until,
                    delay_seconds,
                }
            }
            Outcome::Failed(error) => ImageStart::Failed(error),
        };
        (start, decision.events)
    }

    /// The pull result for `image` this plan has not used yet. A failure the back-off
    /// already counts (its entry was updated at or after the failure) was reported before
    /// and is not counted twice.
    fn unused_result(&self, image: &str, key: &str) -> Option<&'a PullResultRecord> {
        if self.consumed.contains(image) {
            return None;
        }
        let done = *self.results.get(image)?;
        let counted = done.result.error.is_some()
            && self.backoff.last_update(key).is_some_and(|t| t >= done.at);
        (!counted).then_some(done)
    }

    /// Whether this plan continues a start whose pull the previous plan made: a pull
    /// result for `image` waits to be used. The kubelet pulls within the start that
    /// passed `doBackOff`, so the re-plan does not check the crash-loop back-off again.
    pub(super) fn continues(&self, image: &str) -> bool {
        self.unused_result(image, &backoff_key(&self.request.pod, image))
            .is_some()
    }

    /// Warnings for the pull results no start of this plan used (the container is no
    /// longer started, or the result was already counted).
    pub(super) fn unused_warnings(&self) -> Vec<Warning> {
        self.results
            .keys()
            .filter(|image| !self.consumed.contains(*image))
            .map(|image| Warning {
                path: "pullResults".into(),
                message: format!(
                    "the pull result for image {image:?} was not used: no container starting on this sync completes it (or the image back-off already counts it)"
                ),
            })
            .collect()
    }

    /// The back-off records for the next request.
    pub(super) fn into_records(self) -> Vec<ImageBackoffRecord> {
        self.backoff.records()
    }
}

/// `getPodRuntimeHandler`: the RuntimeClass handler when `RuntimeClassInImageCriAPI` is
/// on and the pod names a RuntimeClass (the node's `runtimeHandler`), else `""`.
fn runtime_handler(request: &PlanRequest, gates: &FeatureGates) -> String {
    let named = request
        .pod
        .spec
        .as_ref()
        .and_then(|s| s.runtime_class_name.as_deref())
        .is_some_and(|n| !n.is_empty());
    if gates.enabled(Gate::RuntimeClassInImageCriAPI) && named {
        request
            .node
            .as_ref()
            .and_then(|n| n.runtime_handler.clone())
            .unwrap_or_default()
    } else {
        String::new()
    }
}

/// `imagePullPolicy` of the container `index` of list `kind`, as received.
fn pull_policy(spec: Option<&PodSpec>, kind: ContainerKind, index: usize) -> Option<&str> {
    let spec = spec?;
    match kind {
        ContainerKind::Init => spec
            .init_containers
            .as_deref()?
            .get(index)?
            .image_pull_policy
            .as_deref(),
        ContainerKind::Regular => spec.containers.get(index)?.image_pull_policy.as_deref(),
        ContainerKind::Ephemeral => spec
            .ephemeral_containers
            .as_deref()?
            .get(index)?
            .image_pull_policy
            .as_deref(),
    }
}

/// The `PullImage` step of a pull order.
fn pull_step(kind: ContainerKind, index: usize, name: &str, order: PullOrder) -> Step {
    Step::PullImage(PullImageStep {
        container: Some(name.to_string()),
        kind: Some(kind),
        index: Some(index),
        message: Some(format!(
            "pull image {:?} for {} {name}, then re-plan: the container is created by the next plan",
            order.image,
            kind.noun()
        )),
        auth: order
            .credentials
            .iter()
            .map(|c| AuthConfig {
                username: c.username.clone(),
                password: c.password.clone(),
            })
            .collect(),
        image: Some(order.image),
        image_spec: Some(order.spec),
        sandbox_config: Some("plan.sandboxConfig".into()),
        backoff_key: Some(order.backoff_key),
    })
}
