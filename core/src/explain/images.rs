//! `podplan explain` for a pod waiting on its image (`ErrImagePull`, `ImagePullBackOff`,
//! `ErrImageNeverPull`, ...): the image manager's inputs reconstructed from the API status.
//!
//! When a container waits with an image error, the reconstruction turns the image manager
//! on (`images`): the failing images are not on the node, every other image of the pod is
//! (with the `imageID` its status reports, when it has one). For `ErrImagePull` /
//! `ImagePullBackOff` (and the `RegistryUnavailable` / `SignatureValidationFailed` pull
//! errors) the image-pull back-off is rebuilt from the pod's `startTime`: the first pull at
//! `startTime`, each retry as soon as the previous period (10 s doubling to 300 s) ended, so
//! the last failure is the last such time not after `now`. The previous pull error is
//! the one the waiting message carries. Every assumption is listed.

use k8s_openapi::api::core::v1::{ContainerStatus, Pod};

use crate::images::backoff::ImageBackoffPolicy;
use crate::images::{backoff_key, reference};
use crate::plan::{ImageBackoffRecord, ImagesReport};

/// The waiting reasons of a failed `EnsureImageExists` (`startContainer` step 1).
pub(crate) const IMAGE_ERRORS: [&str; 7] = [
    "ErrImagePull",
    "ImagePullBackOff",
    "ErrImageNeverPull",
    "InvalidImageName",
    "ImageInspectError",
    "RegistryUnavailable",
    "SignatureValidationFailed",
];

/// Waiting reasons after a failed pull (they leave an image back-off entry).
const PULL_FAILURES: [&str; 4] = [
    "ErrImagePull",
    "ImagePullBackOff",
    "RegistryUnavailable",
    "SignatureValidationFailed",
];

/// The image manager's reconstructed inputs.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ImagesGuess {
    /// The node's images (`None`: no container waits on its image; the manager stays off).
    pub images: Option<ImagesReport>,
    /// The image-pull back-off records.
    pub image_backoff: Vec<ImageBackoffRecord>,
    /// Back-off still to wait per container: (name, seconds, until).
    pub remaining: Vec<(String, i64, jiff::Timestamp)>,
    /// What was assumed, in words.
    pub assumptions: Vec<String>,
}

fn find<'a>(list: Option<&'a Vec<ContainerStatus>>, name: &str) -> Option<&'a ContainerStatus> {
    list.and_then(|l| l.iter().find(|s| s.name == name))
}

/// Every container of the pod with its status: (name, image as written, status).
fn containers(pod: &Pod) -> Vec<(String, String, Option<&ContainerStatus>)> {
    let (Some(spec), status) = (pod.spec.as_ref(), pod.status.as_ref()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for c in spec.init_containers.iter().flatten() {
        let s = find(
            status.and_then(|s| s.init_container_statuses.as_ref()),
            &c.name,
        );
        out.push((c.name.clone(), c.image.clone().unwrap_or_default(), s));
    }
    for c in &spec.containers {
        let s = find(status.and_then(|s| s.container_statuses.as_ref()), &c.name);
        out.push((c.name.clone(), c.image.clone().unwrap_or_default(), s));
    }
    for c in spec.ephemeral_containers.iter().flatten() {
        let s = find(
            status.and_then(|s| s.ephemeral_container_statuses.as_ref()),
            &c.name,
        );
        out.push((c.name.clone(), c.image.clone().unwrap_or_default(), s));
    }
    out
}

fn waiting(s: Option<&ContainerStatus>) -> Option<(String, String)> {
    let w = s?.state.as_ref()?.waiting.as_ref()?;
    Some((
        w.reason.clone().unwrap_or_default(),
        w.message.clone().unwrap_or_default(),
    ))
}

/// The image manager's inputs for a pod, if a container waits on its image.
#[must_use]
pub(crate) fn images(pod: &Pod, now: jiff::Timestamp) -> ImagesGuess {
    let all = containers(pod);
    let failing: Vec<(&str, &str, String, String)> = all
        .iter()
        .filter_map(|(name, image, s)| {
            let (reason, message) = waiting(*s)?;
            IMAGE_ERRORS.contains(&reason.as_str()).then_some((
                name.as_str(),
                image.as_str(),
                reason,
                message,
            ))
        })
        .collect();
    let mut guess = ImagesGuess::default();
    if failing.is_empty() {
        return guess;
    }
    let mut report = ImagesReport::default();
    for (_, image, s) in &all {
        if failing.iter().any(|(_, i, _, _)| i == image) {
            continue;
        }
        let Ok(name) = reference::apply_default_image_tag(image) else {
            continue;
        };
        let image_ref = s
            .map(|s| s.image_id.clone())
            .filter(|r| !r.is_empty())
            .unwrap_or_else(|| image.clone());
        report.present.insert(name, image_ref);
    }
    let start = pod
        .status
        .as_ref()
        .and_then(|s| s.start_time.as_ref())
        .map(|t| t.0);
    let policy = ImageBackoffPolicy::default();
    for (name, image, reason, message) in &failing {
        guess.assumptions.push(format!(
            "container {name} waits with {reason}: its image {image:?} is not on the node; every other image of the pod is"
        ));
        if !PULL_FAILURES.contains(&reason.as_str()) {
            continue;
        }
        let key = backoff_key(pod, image);
        if guess.image_backoff.iter().any(|r| r.key == key) {
            continue;
        }
        let Some(start) = start else {
            guess.assumptions.push(format!(
                "container {name}: the pod has no startTime, so the image-pull back-off cannot be dated: taken as expired (the next sync pulls again)"
            ));
            continue;
        };
        let (last, delay, failures) = last_failure(start, now, policy);
        let previous = previous_error(image, reason, message);
        guess.image_backoff.push(ImageBackoffRecord {
            key,
            delay_seconds: delay,
            last_update: last,
            previous_error: previous,
        });
        let until = last
            .checked_add(jiff::SignedDuration::from_secs(
                i64::try_from(delay).unwrap_or(i64::MAX),
            ))
            .unwrap_or(last);
        guess.remaining.push((
            (*name).to_string(),
            (until.as_second() - now.as_second()).max(0),
            until,
        ));
        guess.assumptions.push(format!(
            "container {name}: image pulls failed at startTime {start} and at each end of the back-off since ({failures} failures): the last at {last}, back-off {delay}s"
        ));
    }
    guess.images = Some(report);
    guess
}

/// The last pull failure before `now` (a sync at `now` is the next attempt) when the first was at `start` and every retry
/// came as soon as the back-off allowed: (time, period, number of failures).
fn last_failure(
    start: jiff::Timestamp,
    now: jiff::Timestamp,
    policy: ImageBackoffPolicy,
) -> (jiff::Timestamp, u64, u64) {
    let (mut at, mut delay, mut failures) = (start.as_second(), policy.initial_seconds, 1_u64);
    let now_s = now.as_second();
    loop {
        let next = at.saturating_add(i64::try_from(delay).unwrap_or(i64::MAX));
        if next >= now_s || delay == 0 {
            break;
        }
        at = next;
        delay = delay.saturating_mul(2).min(policy.max_seconds);
        failures += 1;
    }
    let last = jiff::Timestamp::from_second(at).unwrap_or(start);
    (last, delay, failures)
}

/// The error the back-off message appends: `<kind>: <message>` of the last failure.
fn previous_error(image: &str, reason: &str, message: &str) -> Option<String> {
    if reason == "ImagePullBackOff" {
        let prefix = format!("Back-off pulling image {image:?}: ");
        return message.strip_prefix(&prefix).map(str::to_string);
    }
    (!message.is_empty()).then(|| format!("{reason}: {message}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_failure_follows_the_doubling_retries() {
        let t = |s: i64| jiff::Timestamp::from_second(1_800_000_000 + s).unwrap_or_default();
        let p = ImageBackoffPolicy::default();
        assert_eq!(last_failure(t(0), t(5), p), (t(0), 10, 1));
        // A sync at the very end of a period is the retry itself.
        assert_eq!(last_failure(t(0), t(10), p), (t(0), 10, 1));
        assert_eq!(last_failure(t(0), t(11), p), (t(10), 20, 2));
        assert_eq!(last_failure(t(0), t(35), p), (t(30), 40, 3));
        // 0, 10, 30, 70, 150, 310, then every 300 s.
        assert_eq!(last_failure(t(0), t(700), p), (t(610), 300, 7));
    }

    #[test]
    fn the_previous_error_comes_from_the_waiting_message() {
        assert_eq!(
            previous_error(
                "x:1",
                "ImagePullBackOff",
                "Back-off pulling image \"x:1\": ErrImagePull: boom"
            ),
            Some("ErrImagePull: boom".to_string())
        );
        assert_eq!(
            previous_error("x:1", "ImagePullBackOff", "Back-off pulling image \"x:1\""),
            None
        );
        assert_eq!(
            previous_error("x:1", "ErrImagePull", "boom"),
            Some("ErrImagePull: boom".to_string())
        );
    }
}
