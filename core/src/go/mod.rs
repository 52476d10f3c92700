//! Go's own encodings that the kubelet's output carries, byte for byte: `encoding/json` of
//! the v1 structs and `strconv.Quote` (`encoding.rs`), and `time.Duration` ([`duration`]).
//! Leaves: they know nothing of pods or plans.

pub mod duration;
pub(crate) mod encoding;
