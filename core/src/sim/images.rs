//! The model runtime's image service: the node's image store and a scripted registry.
//!
//! The store is the request's `images` (what `ImageStatus` reports); a `PullImage` step
//! adds its image (imageRef: the image's id in the node's store, `node::records`, as
//! `node::Node::pull_image` answers it and the model's containers report it as `imageId`) or fails as the registry's scripted fault says
//! (`images.registry`: "registry down", "image not found", for the next N pulls or until
//! cleared). Each pull's result is what the executor reports in the next request's
//! `pullResults`. Without `images` in the request the image manager is off: there is no
//! store and the model never sees a `PullImage` step.

use super::node::records::{image_record, normalize_image};
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

/// The model image's size in bytes (the `Pulled` event's text), as the node's store
/// records it.
#[must_use]
pub(crate) fn image_size_of(image: &str) -> u64 {
    image_record(&normalize_image(image)).size
}

/// The runtime's error text for a fault, as containerd words it.
#[must_use]
pub fn fault_text(fault: PullFault, image: &str) -> String {
    let (repo, tag, _) = reference::parse_image_name(image)
        .unwrap_or_else(|_| (image.to_string(), "latest".to_string(), String::new()));
    let full = format!("{repo}:{tag}");
    match fault {
        PullFault::NotFound => format!(
            "rpc error: code = NotFound desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": {full}: not found"
        ),
        PullFault::RegistryDown => {
            let (host, path) = repo.split_once('/').unwrap_or(("docker.io", repo.as_str()));
            let host = if host == "docker.io" { "registry-1.docker.io" } else { host };
            format!(
                "rpc error: code = Unknown desc = failed to pull and unpack image \"{full}\": failed to resolve reference \"{full}\": failed to do request: Head \"https://{host}/v2/{path}/manifests/{tag}\": dial tcp: lookup {host}: no such host"
            )
        }
    }
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

    /// Carries out a `PullImage` step at `now`: the registry's fault, if one is scripted
    /// for the image (counting down its `times`), else the image is stored. A successful
    /// pull takes `pull_millis` ([`PULL_MILLIS`] when `None`), a failed one
    /// [`FAILED_PULL_MILLIS`]. Returns how long the pull took, milliseconds.
    pub(crate) fn pull(
        &mut self,
        step: &PullImageStep,
        now: jiff::Timestamp,
        pull_millis: Option<u64>,
    ) -> u64 {
        let took = pull_millis.unwrap_or(PULL_MILLIS);
        let image = step.image.clone().unwrap_or_default();
        let name = step
            .image_spec
            .as_ref()
            .map_or_else(|| image.clone(), |s| s.image.clone());
        let report = self.report.get_or_insert_with(ImagesReport::default);
        let fault = report.registry.get(&image).copied();
        let result = match fault {
            Some(RegistryFault { fault, times }) if times != Some(0) => {
                match times {
                    Some(1) => {
                        report.registry.remove(&image);
                    }
                    Some(n) => {
                        report.registry.insert(
                            image.clone(),
                            RegistryFault {
                                fault,
                                times: Some(n - 1),
                            },
                        );
                    }
                    None => {}
                }
                PullResult {
                    image_ref: None,
                    error: Some(fault_text(fault, &name)),
                    pull_millis: 0,
                    total_millis: 0,
                    image_size: 0,
                }
            }
            _ => {
                let image_ref = image_ref_of(&image);
                report.present.insert(name, image_ref.clone());
                PullResult {
                    image_ref: Some(image_ref),
                    error: None,
                    pull_millis: took,
                    total_millis: took,
                    image_size: image_size_of(&image),
                }
            }
        };
        let took = if result.error.is_some() {
            FAILED_PULL_MILLIS
        } else {
            took
        };
        self.results.push(PullResultRecord {
            image,
            backoff_key: step.backoff_key.clone(),
            at: now,
            result,
        });
        took
    }

    /// Whether the last pull carried out succeeded.
    #[must_use]
    pub(crate) fn last_pull_succeeded(&self) -> bool {
        self.results
            .last()
            .is_some_and(|r| r.result.error.is_none())
    }

    /// The store and results as parts.
    #[must_use]
    pub(crate) fn into_parts(self) -> (Option<ImagesReport>, Vec<PullResultRecord>) {
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
