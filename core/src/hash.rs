//! The kubelet's container hash (`kubecontainer.HashContainer`, 1.31+).
//!
//! FNV-1a 32 over go-spew's `%#v` rendering of the JSON `{"image":..,"name":..}`.

use crate::config::gojson::{go_json_string, is_plain_go_json};

const FNV_OFFSET: u32 = 0x811c_9dc5;
const FNV_PRIME: u32 = 0x0100_0193;

/// The JSON bytes the kubelet hashes: `{"image":"<image>","name":"<name>"}`.
#[must_use]
pub fn hashed_json(name: &str, image: &str) -> String {
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
pub fn deep_hash_bytes(bytes: &[u8]) -> u32 {
    let mut h = SpewHasher::new();
    h.write(bytes);
    h.finish()
}

/// `HashContainer(c)`: the hash stored with a container and compared on every sync.
///
/// ```
/// assert_eq!(podplan_core::hash::container_hash("test_container", "foo/image:v1"), 0x8e45cbd0);
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

/// The decimal digits of every byte value, as go-spew prints them: `(digits, len)`.
const DECIMAL: [([u8; 3], u8); 256] = decimal_table();

// Evaluated at compile time: an out-of-range index would fail the build, not panic.
#[allow(clippy::indexing_slicing)]
const fn decimal_table() -> [([u8; 3], u8); 256] {
    let mut table = [([0u8; 3], 0u8); 256];
    let mut n = 0;
    while n < 256 {
        #[allow(clippy::cast_possible_truncation)]
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
