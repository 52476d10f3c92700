//! Wire types of image pulls: what the request reports about the node's images
//! and past pulls, and what a `PullImage` step carries. Computed by `crate::images` and
//! `crate::steps`; a leaf like the rest of `plan`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What the node's image service reports (request field `images`): tag-defaulted name →
/// imageRef, as CRI `ImageStatus` / `ListImages` answer them. Giving it turns the image
/// manager on.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImagesReport {
    /// Tag-defaulted name (`busybox:latest`, not normalised) → imageRef.
    #[serde(default)]
    pub present: BTreeMap<String, String>,
    /// Names whose `ImageStatus` fails, with the error text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub inspect_errors: BTreeMap<String, String>,
    /// Model runtime only (`core::sim`): scripted registry faults by image as written
    /// (the playground's and tests' "pull fails" control). `plan` ignores it; a real
    /// executor never sends it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub registry: BTreeMap<String, RegistryFault>,
}

/// How the model registry answers pulls of one image (`core::sim`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegistryFault {
    /// What goes wrong.
    pub fault: PullFault,
    /// How many more pulls fail; absent = every pull until the fault is cleared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub times: Option<u32>,
}

/// A scripted pull failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PullFault {
    /// The registry cannot be reached.
    RegistryDown,
    /// The registry does not have the image (wrong name or tag).
    NotFound,
}

/// An annotation of the `ImageSpec`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Annotation {
    /// Key.
    pub name: String,
    /// Value.
    pub value: String,
}

/// The `ImageSpec` sent with `ImageStatus` and `PullImage`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageSpec {
    /// The tag-defaulted image (`busybox` → `busybox:latest`; not normalised).
    pub image: String,
    /// Every pod annotation (sorted by name; the kubelet iterates a Go map).
    pub annotations: Vec<Annotation>,
    /// The runtime handler `startContainer` resolved (`""` = default).
    pub runtime_handler: String,
}

/// CRI `AuthConfig` of one `PullImage` request (the fields the keyring fills).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthConfig {
    /// User name.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub username: String,
    /// Password or token.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub password: String,
}

/// One image back-off entry, threaded request → plan → next request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageBackoffRecord {
    /// `"<pod UID>_<image as written>"`.
    pub key: String,
    /// The current period in seconds.
    pub delay_seconds: u64,
    /// When the entry was last updated (the time of the last failed pull).
    pub last_update: jiff::Timestamp,
    /// `"<error kind>: <message>"` of the last failed pull, until the next pull attempt
    /// (the kubelet's `prevPullErrMsg`); appended to the back-off message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_error: Option<String>,
}

/// What the runtime answered to a `PullImage` (or the QPS limiter in front of it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PullResult {
    /// The imageRef on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_ref: Option<String>,
    /// The error text on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How long the pull took, milliseconds (event text).
    #[serde(default)]
    pub pull_millis: u64,
    /// Including the wait in the puller's queue, milliseconds.
    #[serde(default)]
    pub total_millis: u64,
    /// `GetImageSize` (bytes).
    #[serde(default)]
    pub image_size: u64,
}

/// A pull result as the executor reports it in the next request (`pullResults[]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PullResultRecord {
    /// The image as written in the container.
    pub image: String,
    /// The `PullImage` step's back-off key (`<pod UID>_<image>`); absent = derived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff_key: Option<String>,
    /// When the pull ended.
    pub at: jiff::Timestamp,
    /// The outcome.
    #[serde(flatten)]
    pub result: PullResult,
}
