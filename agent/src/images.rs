//! The agent's side of image pulls: what it reports about the node's images in each
//! request (`images`, from CRI `ImageStatus`) and how it carries out a plan's `PullImage`
//! step (CRI `PullImage`), reporting the result in the next request's `pullResults`. The
//! decisions (whether to pull, back-off, the errors and events) are the engine's
//! (`podplan_core::images`); this module only asks and reports, as the model runtime does
//! (`podplan_core::sim::images`).

use std::collections::BTreeMap;
use std::time::Instant;

use k8s_openapi::api::core::v1::Pod;
use podplan_core::cri::{ImageSpec, PodSandboxConfig};
use podplan_core::images::reference::apply_default_image_tag;
use podplan_core::plan::{ImagesReport, PullImageStep, PullResult, PullResultRecord};

use super::runtime::{CriError, CriRuntime};

/// The pod's annotations as an `ImageSpec` carries them.
fn annotations(pod: &Pod) -> BTreeMap<String, String> {
    pod.metadata.annotations.clone().unwrap_or_default()
}

/// The pod's images as the node's image service is asked about them: tag-defaulted,
/// each once, in the pod's order; images whose name is not a valid reference are left
/// out (the engine reports `InvalidImageName`).
#[must_use]
pub fn names(pod: &Pod) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for image in podplan_core::pod::images(pod) {
        if let Ok(name) = apply_default_image_tag(&image) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// What the node's image service says about the pod's images (request field `images`):
/// `ImageStatus` of each of [`names`] (the pod's annotations in the spec, as
/// `EnsureImageExists` sends them); an image the node has → its id (the kubelet's
/// `GetImageRef`), an `ImageStatus` error → `inspectErrors`.
pub fn report(cri: &mut dyn CriRuntime, pod: &Pod, names: &[String]) -> ImagesReport {
    let mut report = ImagesReport::default();
    let annotations = annotations(pod);
    for name in names {
        let spec = ImageSpec {
            image: name.clone(),
            annotations: annotations.clone(),
            ..ImageSpec::default()
        };
        match cri.image_status(&spec) {
            Ok(Some(info)) => {
                report.present.insert(name.clone(), info.id);
            }
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(image = %name, "ImageStatus failed: {}", e.message);
                report.inspect_errors.insert(name.clone(), e.message);
            }
        }
    }
    report
}

/// `utilerrors.NewAggregate(errs).Error()`: one distinct message as it is, several as
/// `[a, b]`.
fn aggregate(errors: &[CriError]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for e in errors {
        if !seen.contains(&e.message.as_str()) {
            seen.push(&e.message);
        }
    }
    match seen.as_slice() {
        [one] => (*one).to_string(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// Carries out a `PullImage` step (the kubelet's `pullImage`): one `PullImage` request
/// per `auth` entry, in order, stopping at the first success (no entry: one anonymous
/// request), with the step's image spec and the plan's sandbox config. The result, at
/// `now`, is what the next request's `pullResults` reports: the imageRef (and the
/// image's size, `GetImageSize`) or the errors as the kubelet aggregates them.
pub fn pull(
    cri: &mut dyn CriRuntime,
    step: &PullImageStep,
    sandbox_config: &PodSandboxConfig,
    now: jiff::Timestamp,
) -> PullResultRecord {
    let image = step.image.clone().unwrap_or_default();
    let spec = step.image_spec.as_ref().map_or_else(
        || ImageSpec {
            image: apply_default_image_tag(&image).unwrap_or_else(|_| image.clone()),
            ..ImageSpec::default()
        },
        |s| ImageSpec {
            image: s.image.clone(),
            annotations: s
                .annotations
                .iter()
                .map(|a| (a.name.clone(), a.value.clone()))
                .collect(),
            runtime_handler: s.runtime_handler.clone(),
            ..ImageSpec::default()
        },
    );
    let started = Instant::now();
    let mut errors = Vec::new();
    let mut image_ref = None;
    let auths: Vec<Option<&podplan_core::plan::AuthConfig>> = if step.auth.is_empty() {
        vec![None]
    } else {
        step.auth.iter().map(Some).collect()
    };
    for auth in auths {
        match cri.pull_image(&spec, auth, sandbox_config) {
            Ok(r) if r.is_empty() => errors.push(CriError::new(
                "PullImage",
                super::runtime::CriCode::Other,
                format!("imageRef of image {:?} is not set", spec.image),
            )),
            Ok(r) => {
                image_ref = Some(r);
                break;
            }
            Err(e) => errors.push(e),
        }
    }
    let millis = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
    let result = match image_ref {
        Some(image_ref) => {
            // `GetImageSize`: a failure only loses the size in the event's text.
            let lookup = ImageSpec {
                image: image_ref.clone(),
                ..ImageSpec::default()
            };
            let image_size = cri
                .image_status(&lookup)
                .ok()
                .flatten()
                .map_or(0, |i| i.size);
            PullResult {
                image_ref: Some(image_ref),
                error: None,
                pull_millis: millis,
                total_millis: millis,
                image_size,
            }
        }
        None => PullResult {
            image_ref: None,
            error: Some(aggregate(&errors)),
            pull_millis: 0,
            total_millis: 0,
            image_size: 0,
        },
    };
    PullResultRecord {
        image,
        backoff_key: step.backoff_key.clone(),
        at: now,
        result,
    }
}

#[cfg(test)]
mod tests {
    use super::{aggregate, CriError};
    use crate::runtime::CriCode;

    #[test]
    fn errors_aggregate_as_the_kubelet_words_them() {
        let e = |m: &str| CriError::new("PullImage", CriCode::Other, m);
        assert_eq!(aggregate(&[e("a")]), "a");
        assert_eq!(aggregate(&[e("a"), e("a")]), "a");
        assert_eq!(aggregate(&[e("a"), e("b")]), "[a, b]");
    }
}
