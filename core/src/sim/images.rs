//! The kubelet's side of the model runtime's image service: the node's images as the
//! request reports them, the pulls' results, and the playground's registry controls.
//!
//! The store is the request's `images` (what `ImageStatus` reports, the kubelet's view of
//! the node's store); a `PullImage` step is the node's `PullImage`
//! (`node::Node::pull_image`), which stores the image (imageRef: its id in the node's
//! store, which the model's containers report as `imageId`) or fails as the registry's
//! scripted fault says (`images.registry`, the node's `ImagesScript::registry`: "registry
//! down", "image not found", for the next N pulls or until cleared). Each pull's result is what the executor reports in the next request's
//! `pullResults`. Without `images` in the request the image manager is off: there is no
//! store and the model never sees a `PullImage` step.

use std::collections::BTreeMap;

use super::node::records::{image_record, normalize_image};
use super::node::CriError;
use crate::images::reference;
use crate::plan::{
    ImagesReport, PullFault, PullImageStep, PullResult, PullResultRecord, RegistryFault,
};
use crate::request::PlanRequest;

/// Milliseconds a model pull takes unless the world says otherwise
/// ([`HookControls::pull_seconds`](super::HookControls::pull_seconds), the playground's
/// "pull takes N s" control): the `Pulled` event's text and the time the pull keeps the
/// sync busy. The kubelet pulls inside `SyncPod` (`EnsureImageExists` in
/// `pkg/kubelet/images/image_manager.go`, serially by default: `serializeImagePulls`),
/// so the sync, and everything after the pull, waits for it.
pub(crate) const PULL_MILLIS: u64 = 1500;

/// Milliseconds a model pull takes to fail: the registry's answer (a name that does not
/// resolve, a manifest that is not found) comes back after a round trip, not at once.
pub(crate) const FAILED_PULL_MILLIS: u64 = 500;

/// The node's images and the pulls carried out since the last sync.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ImageStore {
    report: Option<ImagesReport>,
    results: Vec<PullResultRecord>,
}

/// The model's imageRef of an image (as written): what `PullImage` answers, the image's
/// id in the node's store (`node::Node::pull_image` answers the same id, and the
/// containers created from it report it as `imageId`).
#[must_use]
pub(crate) fn image_ref_of(image: &str) -> String {
    image_record(&normalize_image(image)).id
}

/// A CRI error as the kubelet's gRPC client words it.
pub(crate) fn rpc_error_text(e: &CriError) -> String {
    format!("rpc error: code = {:?} desc = {}", e.code, e.message)
}

impl ImageStore {
    /// The store the request reports (none: the image manager is off).
    #[must_use]
    pub(crate) fn from_request(request: &PlanRequest) -> Self {
        Self {
            report: request.images.clone(),
            results: Vec::new(),
        }
    }

    /// Whether the kubelet sees `image` (as written) as present on the node: in the
    /// request's `images` (by its tag-defaulted name), or any image when the image
    /// manager is off.
    #[must_use]
    pub(crate) fn present(&self, image: &str) -> bool {
        self.report.as_ref().is_none_or(|r| {
            r.present.contains_key(image)
                || reference::apply_default_image_tag(image)
                    .is_ok_and(|name| r.present.contains_key(&name))
        })
    }

    /// The registry's scripted faults the request carries (the node's registry script).
    #[must_use]
    pub(crate) fn registry(&self) -> BTreeMap<String, RegistryFault> {
        self.report
            .as_ref()
            .map(|r| r.registry.clone())
            .unwrap_or_default()
    }

    /// Records a `PullImage` step carried out at `now` with the node's answer (the
    /// image's id and size, or containerd's error): a successful pull is in the store
    /// from then on and takes `pull_millis` ([`PULL_MILLIS`] when `None`), a failed one
    /// [`FAILED_PULL_MILLIS`]. Returns how long the pull took, milliseconds.
    pub(crate) fn record_pull(
        &mut self,
        step: &PullImageStep,
        now: jiff::Timestamp,
        answer: Result<(String, u64), CriError>,
        pull_millis: Option<u64>,
    ) -> u64 {
        let image = step.image.clone().unwrap_or_default();
        let name = step
            .image_spec
            .as_ref()
            .map_or_else(|| image.clone(), |s| s.image.clone());
        let report = self.report.get_or_insert_with(ImagesReport::default);
        let (result, took) = match answer {
            Ok((image_ref, image_size)) => {
                let took = pull_millis.unwrap_or(PULL_MILLIS);
                report.present.insert(name, image_ref.clone());
                let result = PullResult {
                    image_ref: Some(image_ref),
                    error: None,
                    pull_millis: took,
                    total_millis: took,
                    image_size,
                };
                (result, took)
            }
            Err(e) => {
                let result = PullResult {
                    image_ref: None,
                    error: Some(rpc_error_text(&e)),
                    pull_millis: 0,
                    total_millis: 0,
                    image_size: 0,
                };
                (result, FAILED_PULL_MILLIS)
            }
        };
        self.results.push(PullResultRecord {
            image,
            backoff_key: step.backoff_key.clone(),
            at: now,
            result,
        });
        took
    }

    /// The store (with the registry faults still scripted, `registry`) and the pull
    /// results, as parts.
    #[must_use]
    pub(crate) fn into_parts(
        mut self,
        registry: &BTreeMap<String, RegistryFault>,
    ) -> (Option<ImagesReport>, Vec<PullResultRecord>) {
        if let Some(report) = self.report.as_mut() {
            report.registry.clone_from(registry);
        }
        (self.report, self.results)
    }
}

/// Turns the image manager on for a request that has no `images`: the images of the
/// containers the runtime already has count as present (they were pulled), by the name
/// the pod writes them with (the runtime reports the normalised name).
fn ensure_store(request: &mut PlanRequest) -> &mut ImagesReport {
    let written = crate::pod::images(&request.pod);
    let existing: Vec<String> = request
        .runtime_status
        .as_ref()
        .map(|s| {
            s.container_statuses
                .iter()
                .map(|c| {
                    let normalized = normalize_image(&c.image);
                    written
                        .iter()
                        .find(|w| normalize_image(w) == normalized)
                        .cloned()
                        .unwrap_or_else(|| c.image.clone())
                })
                .collect()
        })
        .unwrap_or_default();
    request.images.get_or_insert_with(|| {
        let mut report = ImagesReport::default();
        for image in existing {
            if let Ok(name) = reference::apply_default_image_tag(&image) {
                report.present.insert(name, image_ref_of(&image));
            }
        }
        report
    })
}

/// The scripted control: the next `times` pulls of `image` (all, when `None`) fail with
/// `fault`. Returns a note when the pod does not use the image.
pub(crate) fn set_fault(
    request: &mut PlanRequest,
    image: &str,
    fault: PullFault,
    times: Option<u32>,
) -> Option<String> {
    if !crate::pod::images(&request.pod).iter().any(|i| i == image) {
        return Some(format!("no container of the pod uses image {image}"));
    }
    if times == Some(0) {
        return Some("a fault for 0 pulls changes nothing".into());
    }
    ensure_store(request)
        .registry
        .insert(image.to_string(), RegistryFault { fault, times });
    None
}

/// Clears the scripted fault of `image`; a note when there is none.
pub(crate) fn clear_fault(request: &mut PlanRequest, image: &str) -> Option<String> {
    let removed = request
        .images
        .as_mut()
        .and_then(|r| r.registry.remove(image));
    match removed {
        Some(_) => None,
        None => Some(format!("pulls of {image} do not fail")),
    }
}

/// Removes `image` from the node's store (image garbage collection): the next start of a
/// container using it pulls it again (policy `IfNotPresent`). A note when the pod does
/// not use the image.
pub(crate) fn remove_image(request: &mut PlanRequest, image: &str) -> Option<String> {
    if !crate::pod::images(&request.pod).iter().any(|i| i == image) {
        return Some(format!("no container of the pod uses image {image}"));
    }
    let name = reference::apply_default_image_tag(image).unwrap_or_else(|_| image.to_string());
    ensure_store(request).present.remove(&name);
    None
}
