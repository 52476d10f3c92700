//! The kubelet's container hash (`kubecontainer.HashContainer`, 1.31+).
//!
//! FNV-1a 32 over go-spew's `%#v` rendering of the JSON `{"image":..,"name":..}`.

use crate::config::gojson::go_json_string;

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
    let mut h = FNV_OFFSET;
    let mut feed = |b: u8| {
        h ^= u32::from(b);
        h = h.wrapping_mul(FNV_PRIME);
    };
    b"([]uint8)[".iter().for_each(|b| feed(*b));
    let mut digits = [0u8; 3];
    for (i, byte) in bytes.iter().enumerate() {
        if i > 0 {
            feed(b' ');
        }
        let mut n = *byte;
        let mut len = 0;
        loop {
            if let Some(slot) = digits.get_mut(len) {
                *slot = b'0' + n % 10;
            }
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for d in digits.iter().take(len).rev() {
            feed(*d);
        }
    }
    feed(b']');
    h
}

/// `HashContainer(c)`: the hash stored with a container and compared on every sync.
///
/// ```
/// assert_eq!(podplan_core::hash::container_hash("test_container", "foo/image:v1"), 0x8e45cbd0);
/// ```
#[must_use]
pub fn container_hash(name: &str, image: &str) -> u64 {
    u64::from(deep_hash_bytes(hashed_json(name, image).as_bytes()))
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
