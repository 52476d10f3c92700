//! The kubelet's container hash (`kubecontainer.HashContainer`, 1.31+).
//!
//! FNV-1a 32 over go-spew's `%#v` rendering of the JSON `{"image":..,"name":..}`.

use crate::go::encoding::{go_json_string, is_plain_go_json};

/// FNV-64 offset basis.
pub(crate) const FNV64_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV64_PRIME: u64 = 0x0000_0100_0000_01b3;

/// FNV-1a (64 bit) of `bytes`, continuing from `h` (start with [`FNV64_OFFSET`]).
#[must_use]
pub(crate) fn fnv64a_extend(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, b| (h ^ u64::from(*b)).wrapping_mul(FNV64_PRIME))
}

const FNV_OFFSET: u32 = 0x811c_9dc5;
const FNV_PRIME: u32 = 0x0100_0193;

/// The JSON bytes the kubelet hashes: `{"image":"<image>","name":"<name>"}`.
#[must_use]
pub(crate) fn hashed_json(name: &str, image: &str) -> String {
    let mut out = String::with_capacity(name.len() + image.len() + 24);
    out.push_str("{\"image\":");
    out.push_str(&go_json_string(image));
    out.push_str(",\"name\":");
    out.push_str(&go_json_string(name));
    out.push('}');
    out
}

/// FNV-1a 32 over the go-spew `%#v` text of `bytes`: `([]uint8)[b0 b1 ...]`.
#[must_use]
pub(crate) fn deep_hash_bytes(bytes: &[u8]) -> u32 {
    let mut h = SpewHasher::new();
    h.write(bytes);
    h.finish()
}

/// `HashContainer(c)`: the hash stored with a container and compared on every sync.
///
/// ```
/// assert_eq!(podplan_core::generators::container_hash("test_container", "foo/image:v1"), 0x8e45cbd0);
/// ```
#[must_use]
pub fn container_hash(name: &str, image: &str) -> u64 {
    // The common case (nothing to escape) streams the JSON without building it.
    if !(is_plain_go_json(name) && is_plain_go_json(image)) {
        return u64::from(deep_hash_bytes(hashed_json(name, image).as_bytes()));
    }
    let mut h = SpewHasher::new();
    for part in ["{\"image\":\"", image, "\",\"name\":\"", name, "\"}"] {
        h.write(part.as_bytes());
    }
    u64::from(h.finish())
}

/// How many containers [`hash_lanes`] hashes side by side.
pub(crate) const LANES: usize = 4;

/// [`container_hash`] of up to [`LANES`] `(name, image)` pairs (slots past the input
/// are 0). The hash is one long chain of dependent multiplications, which leaves the
/// processor mostly waiting; the chains of these containers are interleaved so that they
/// run side by side. Pairs that need JSON escaping (rare) are hashed one by one.
#[must_use]
pub(crate) fn hash_lanes(chunk: &[(&str, &str)]) -> [u64; LANES] {
    let mut out = [0; LANES];
    let plain = chunk.len() <= LANES
        && chunk
            .iter()
            .all(|(name, image)| is_plain_go_json(name) && is_plain_go_json(image));
    if !plain {
        for (slot, (name, image)) in out.iter_mut().zip(chunk) {
            *slot = container_hash(name, image);
        }
        return out;
    }
    // The hashed JSON texts, one after another; `spans` are their byte ranges.
    let mut text: Vec<u8> = Vec::with_capacity(
        chunk
            .iter()
            .map(|(name, image)| name.len() + image.len() + 22)
            .sum(),
    );
    let mut spans = [(0usize, 0usize); LANES];
    for (span, (name, image)) in spans.iter_mut().zip(chunk) {
        let start = text.len();
        for part in ["{\"image\":\"", image, "\",\"name\":\"", name, "\"}"] {
            text.extend_from_slice(part.as_bytes());
        }
        *span = (start, text.len());
    }
    // Every text starts with `{`, rendered without a leading space.
    let mut first = SpewHasher::new();
    first.write(b"{");
    let mut lanes = [first.h; LANES];
    let longest = spans
        .iter()
        .map(|(start, end)| end - start)
        .max()
        .unwrap_or(0);
    for offset in 1..longest {
        for (h, (start, end)) in lanes.iter_mut().zip(&spans) {
            let at = start + offset;
            if let Some(byte) = text.get(at).filter(|_| at < *end) {
                *h = spaced_decimal(*h, *byte);
            }
        }
    }
    for (slot, h) in out.iter_mut().zip(lanes).take(chunk.len()) {
        *slot = u64::from(step(h, b']'));
    }
    out
}

/// One FNV-1a step.
fn step(h: u32, c: u8) -> u32 {
    (h ^ u32::from(c)).wrapping_mul(FNV_PRIME)
}

/// FNV-1a over ` <decimal of byte>` (1 to 3 digits), without branching on the number
/// of digits (steps for absent digits are computed and discarded), so that
/// interleaved chains never stall on a mispredicted branch.
fn spaced_decimal(h: u32, byte: u8) -> u32 {
    let ([d0, d1, d2], len) = DECIMAL.get(usize::from(byte)).copied().unwrap_or_default();
    let h = step(step(h, b' '), d0);
    let two = step(h, d1);
    let h = if len >= 2 { two } else { h };
    let three = step(h, d2);
    if len >= 3 {
        three
    } else {
        h
    }
}

/// The decimal digits of every byte value, as go-spew prints them: `(digits, len)`.
const DECIMAL: [([u8; 3], u8); 256] = decimal_table();

// Evaluated at compile time: an out-of-range index would fail the build, not panic.
#[expect(
    clippy::indexing_slicing,
    reason = "const evaluation: an out-of-range index fails the build"
)]
const fn decimal_table() -> [([u8; 3], u8); 256] {
    let mut table = [([0u8; 3], 0u8); 256];
    let mut n = 0;
    while n < 256 {
        let (d0, d1, d2) = ((n / 100) as u8, (n / 10 % 10) as u8, (n % 10) as u8);
        table[n] = if n >= 100 {
            ([b'0' + d0, b'0' + d1, b'0' + d2], 3)
        } else if n >= 10 {
            ([b'0' + d1, b'0' + d2, 0], 2)
        } else {
            ([b'0' + d2, 0, 0], 1)
        };
        n += 1;
    }
    table
}

/// FNV-1a 32 fed with go-spew's rendering of a byte slice, one chunk at a time.
struct SpewHasher {
    h: u32,
    first: bool,
}

impl SpewHasher {
    fn new() -> Self {
        let mut hasher = Self {
            h: FNV_OFFSET,
            first: true,
        };
        hasher.feed(b"([]uint8)[");
        hasher
    }

    fn feed(&mut self, text: &[u8]) {
        for b in text {
            self.h ^= u32::from(*b);
            self.h = self.h.wrapping_mul(FNV_PRIME);
        }
    }

    /// Appends bytes of the hashed slice (`b0 b1 ...`, space-separated decimals).
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            if !self.first {
                self.feed(b" ");
            }
            self.first = false;
            let (digits, len) = DECIMAL.get(usize::from(*byte)).copied().unwrap_or_default();
            self.feed(digits.get(..usize::from(len)).unwrap_or_default());
        }
    }

    fn finish(mut self) -> u32 {
        self.feed(b"]");
        self.h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(
            container_hash("test_container", "foo/image:v1"),
            0x8e45_cbd0
        );
        assert_eq!(container_hash("foo", "bar"), 0x11a6_d6d6);
        assert_eq!(container_hash("foo1", "busybox"), 1_043_764_558);
        assert_eq!(container_hash("debug", "busybox"), 1_270_942_399);
    }

    #[test]
    fn streamed_hash_equals_the_hash_of_the_built_json() {
        for (name, image) in [
            ("app", "nginx"),
            ("", ""),
            ("a<b", "x\"y"),
            ("\u{1}", "é"),
            ("sidecar", "registry.example/app@sha256:0123456789abcdef"),
            ("x\u{2028}", "ü&"),
        ] {
            assert_eq!(
                container_hash(name, image),
                u64::from(reference_hash(hashed_json(name, image).as_bytes())),
                "{name} {image}"
            );
        }
    }

    /// The go-spew text built in full, then hashed.
    fn reference_hash(bytes: &[u8]) -> u32 {
        let text = format!(
            "([]uint8)[{}]",
            bytes
                .iter()
                .map(u8::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        );
        text.bytes().fold(FNV_OFFSET, |h, b| {
            (h ^ u32::from(b)).wrapping_mul(FNV_PRIME)
        })
    }

    #[test]
    fn batched_hashes_equal_single_hashes() {
        let long = "registry.example.com/team/a-very-long-image-name:1.2.3-with-a-tag";
        let pairs = [
            ("app", "nginx"),
            ("", ""),
            ("worker", long),
            ("c", "x\"y"),
            ("sidecar", "envoyproxy/envoy:v1.31"),
            ("é", "ü:1"),
            ("x", ""),
            ("mesh-proxy", "a"),
            ("last", long),
        ];
        for n in 0..=pairs.len() {
            let some = pairs.get(..n).unwrap_or_default();
            let single: Vec<u64> = some.iter().map(|(a, b)| container_hash(a, b)).collect();
            let lanes: Vec<u64> = some
                .chunks(LANES)
                .flat_map(|chunk| hash_lanes(chunk).into_iter().take(chunk.len()))
                .collect();
            assert_eq!(lanes, single, "{n}");
        }
    }

    #[test]
    fn go_escaping() {
        assert_eq!(
            hashed_json("a<b", "x\"y"),
            r#"{"image":"x\"y","name":"a\u003cb"}"#
        );
        assert_eq!(
            hashed_json("\u{1}", "é"),
            "{\"image\":\"é\",\"name\":\"\\u0001\"}"
        );
    }
}
