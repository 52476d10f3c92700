//! The kubelet's image manager (`pkg/kubelet/images`, 1.37) as decision values:
//! `EnsureImageExists`, the first step of `startContainer`.
//!
//! The engine never pulls. `ensure_image_exists` decides, from the container, the pod's
//! credentials, what the node's `ImageStatus` answers, the pull-record check and the
//! image-pull back-off, whether the image is usable as it is (`Outcome::Present`), must be
//! pulled (`Outcome::Pull`: the `PullImage` request to send) or fails
//! (`Outcome::Failed`). When the caller has carried a pull out, `complete_pull` turns
//! its result into the kubelet's outcome (imageRef, or `ErrImagePull` & co.), events and
//! back-off update. Rules: `docs/spec/image-pull.md` (sections cited below).

pub(crate) mod backoff;
pub mod credentials;
pub(crate) mod pull_records;
pub mod reference;
pub(crate) mod throttle;
// The image manager (`EnsureImageExists`, completing pulls): crate-private, re-exported
// by `crate::unstable` for core's own tests.
pub(crate) mod manager;

pub use crate::plan::{PullResult, PullResultRecord};
pub(crate) use manager::*;
