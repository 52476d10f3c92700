//! [`EnvBytes`]: the value of a CRI `KeyValue`, which is `bytes` in the 1.37 cri-api
//! (kubernetes PR #139168: binary Secret data in env vars is passed through unchanged).

use std::borrow::Cow;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

/// An environment value's bytes.
///
/// JSON (podplan's readable form): a string when the bytes are UTF-8 (every value that
/// does not come from binary Secret data), else `{"base64": "<standard base64>"}`. The
/// strict proto3 form (base64 string always) is produced by [`crate::cri::proto3`].
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EnvBytes(pub Vec<u8>);

impl EnvBytes {
    /// The bytes.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Whether the value is empty.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value as text; bytes that are not UTF-8 become U+FFFD (only for places where
    /// the kubelet itself needs a string, e.g. `$(VAR)` in a command).
    #[must_use]
    pub(crate) fn as_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }

    /// The value as text if it is UTF-8.
    #[must_use]
    pub(crate) fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(&self.0).ok()
    }

    /// Standard base64 (RFC 4648, padded): proto3 JSON of `bytes`.
    #[must_use]
    pub(crate) fn to_base64(&self) -> String {
        base64_encode(&self.0)
    }
}

impl From<String> for EnvBytes {
    fn from(s: String) -> Self {
        Self(s.into_bytes())
    }
}

impl From<&str> for EnvBytes {
    fn from(s: &str) -> Self {
        Self(s.as_bytes().to_vec())
    }
}

impl From<Vec<u8>> for EnvBytes {
    fn from(b: Vec<u8>) -> Self {
        Self(b)
    }
}

impl PartialEq<str> for EnvBytes {
    fn eq(&self, other: &str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl PartialEq<&str> for EnvBytes {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl Serialize for EnvBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.to_str() {
            Some(text) => s.serialize_str(text),
            None => {
                let mut map = s.serialize_map(Some(1))?;
                map.serialize_entry("base64", &self.to_base64())?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for EnvBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = EnvBytes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string or {\"base64\": string}")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<EnvBytes, E> {
                Ok(EnvBytes::from(v))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EnvBytes, A::Error> {
                let mut out = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key != "base64" || out.is_some() {
                        return Err(de::Error::custom(format!(
                            "unexpected key {key:?}: a binary value is {{\"base64\": string}}"
                        )));
                    }
                    let text: String = map.next_value()?;
                    let bytes = base64_decode(&text).ok_or_else(|| {
                        de::Error::custom("the value of \"base64\" is not standard base64")
                    })?;
                    out = Some(EnvBytes(bytes));
                }
                out.ok_or_else(|| de::Error::missing_field("base64"))
            }
        }
        d.deserialize_any(V)
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard padded base64 of `bytes`.
#[must_use]
pub(crate) fn base64_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        let sym = |shift: u32| {
            let idx = usize::try_from((n >> shift) & 63).unwrap_or(0);
            char::from(ALPHABET.get(idx).copied().unwrap_or(b'A'))
        };
        out.push(sym(18));
        out.push(sym(12));
        out.push(if chunk.len() > 1 { sym(6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(0) } else { '=' });
    }
    out
}

/// Decodes standard base64 (padding optional); `None` for anything else.
#[must_use]
pub(crate) fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let trimmed = text.trim_end_matches('=');
    if text.len() - trimmed.len() > 2 {
        return None;
    }
    let mut out = Vec::with_capacity(trimmed.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    for c in trimmed.bytes() {
        let v = u32::try_from(ALPHABET.iter().position(|a| *a == c)?).ok()?;
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push(u8::try_from((acc >> bits) & 0xff).ok()?);
        }
    }
    // Leftover bits must be zero padding (4 or 2 bits), never a whole symbol.
    if bits >= 6 || acc & ((1 << bits) - 1) != 0 {
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_round_trips() {
        for (raw, b64) in [
            (&b""[..], ""),
            (b"f", "Zg=="),
            (b"fo", "Zm8="),
            (b"foo", "Zm9v"),
            (b"abcd", "YWJjZA=="),
            (&[0xff, 0x00, 0xfe][..], "/wD+"),
        ] {
            assert_eq!(base64_encode(raw), b64);
            assert_eq!(base64_decode(b64).as_deref(), Some(raw));
        }
        assert_eq!(base64_decode("Zg"), Some(b"f".to_vec()));
        assert_eq!(base64_decode("Zh=="), None); // non-zero padding bits
        assert_eq!(base64_decode("a!=="), None);
        assert_eq!(base64_decode("Z"), None);
    }

    #[test]
    fn readable_json_is_text_or_base64_object() {
        let text = EnvBytes::from("abcd");
        assert_eq!(serde_json::to_string(&text).unwrap(), "\"abcd\"");
        let binary = EnvBytes(vec![0xff, 0x00, 0xfe]);
        let j = serde_json::to_string(&binary).unwrap();
        assert_eq!(j, r#"{"base64":"/wD+"}"#);
        assert_eq!(serde_json::from_str::<EnvBytes>(&j).unwrap(), binary);
        assert_eq!(serde_json::from_str::<EnvBytes>("\"abcd\"").unwrap(), text);
        assert!(serde_json::from_str::<EnvBytes>(r#"{"hex":"00"}"#).is_err());
    }
}
