//! Strict deserialisation without path tracking: input that the target type would
//! silently ignore (a field a Kubernetes type does not know) becomes an error at the
//! place it is read.
//!
//! The wrapper hooks the places `serde_ignored` hooks (every value deserialiser reached
//! through a sequence element, map value, `Some`, newtype or enum variant, and the root)
//! and fails in `deserialize_ignored_any`, which is where a type skips what it does not
//! know. serde_json then stamps the error with the position of the offending key, and
//! [`crate::json_path`] turns that position into a JSON path. One thin wrapper keeps
//! valid requests fast and the wasm module small: no per-key allocations, no path
//! bookkeeping, no second family of deserialisers.

use std::cell::Cell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};

/// Why a strict deserialisation failed.
pub(super) enum Failure<E> {
    /// The input has a field the target type does not know; the error carries where.
    Unknown(E),
    /// Any other deserialisation error.
    Other(E),
}

/// Deserialises `T`, failing on the first input the type would ignore.
pub(super) fn deserialize<'de, D, T>(deserializer: D) -> Result<T, Failure<D::Error>>
where
    D: Deserializer<'de>,
    T: de::Deserialize<'de>,
{
    let state = State {
        strict: true,
        ignored: Cell::new(false),
    };
    T::deserialize(Watch::new(deserializer, &state)).map_err(|e| {
        if state.ignored.get() {
            Failure::Unknown(e)
        } else {
            Failure::Other(e)
        }
    })
}

/// Deserialises `T` as serde does on its own (what the type does not know is skipped),
/// through the very wrapper [`deserialize`] uses: the deserialisers of types that strict
/// and lenient reads share are instantiated once in the wasm module, not once per
/// deserializer type.
pub(super) fn deserialize_lenient<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: de::Deserialize<'de>,
{
    let state = State {
        strict: false,
        ignored: Cell::new(false),
    };
    T::deserialize(Watch::new(deserializer, &state))
}

/// Whether ignored input fails, and whether some did.
struct State {
    strict: bool,
    ignored: Cell<bool>,
}

/// Wraps a deserialiser, visitor, seed or access object so that every nested value
/// deserialiser is wrapped too.
struct Watch<'a, X> {
    inner: X,
    ignored: &'a State,
}

impl<'a, X> Watch<'a, X> {
    fn new(inner: X, ignored: &'a State) -> Self {
        Self { inner, ignored }
    }
}

/// Forwards `deserialize_*` methods with the visitor wrapped.
macro_rules! forward_deserialize {
    ($($method:ident($($arg:ident: $ty:ty),*)),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* Watch::new(visitor, self.ignored))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Watch<'_, D> {
    type Error = D::Error;

    forward_deserialize! {
        deserialize_any(), deserialize_bool(), deserialize_i8(), deserialize_i16(),
        deserialize_i32(), deserialize_i64(), deserialize_i128(), deserialize_u8(),
        deserialize_u16(), deserialize_u32(), deserialize_u64(), deserialize_u128(),
        deserialize_f32(), deserialize_f64(), deserialize_char(), deserialize_str(),
        deserialize_string(), deserialize_bytes(), deserialize_byte_buf(),
        deserialize_option(), deserialize_unit(), deserialize_unit_struct(name: &'static str),
        deserialize_newtype_struct(name: &'static str), deserialize_seq(),
        deserialize_tuple(len: usize), deserialize_tuple_struct(name: &'static str, len: usize),
        deserialize_map(),
        deserialize_enum(name: &'static str, variants: &'static [&'static str]),
        deserialize_identifier(),
    }

    /// A struct is read from a JSON object only: serde_json's `deserialize_struct` also
    /// takes an array (the fields by position), which no contract document uses and the
    /// API server refuses, at the cost of a sequence path for every struct type in the
    /// wasm module.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner
            .deserialize_map(Watch::new(visitor, self.ignored))
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        if !self.ignored.strict {
            return self
                .inner
                .deserialize_ignored_any(Watch::new(visitor, self.ignored));
        }
        self.ignored.ignored.set(true);
        Err(de::Error::custom("unknown field"))
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// Forwards `visit_*` methods that carry a plain value.
macro_rules! forward_visit {
    ($($method:ident($ty:ty)),* $(,)?) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<Self::Value, E> {
            self.inner.$method(v)
        }
    )*};
}

impl<'de, X: Visitor<'de>> Visitor<'de> for Watch<'_, X> {
    type Value = X::Value;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(formatter)
    }

    forward_visit! {
        visit_bool(bool), visit_i8(i8), visit_i16(i16), visit_i32(i32), visit_i64(i64),
        visit_i128(i128), visit_u8(u8), visit_u16(u16), visit_u32(u32), visit_u64(u64),
        visit_u128(u128), visit_f32(f32), visit_f64(f64), visit_char(char), visit_str(&str),
        visit_borrowed_str(&'de str), visit_string(String), visit_bytes(&[u8]),
        visit_borrowed_bytes(&'de [u8]), visit_byte_buf(Vec<u8>),
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        self.inner.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_some(Watch::new(d, self.ignored))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.visit_newtype_struct(Watch::new(d, self.ignored))
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_seq(Watch::new(seq, self.ignored))
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_map(Watch::new(map, self.ignored))
    }

    fn visit_enum<A: de::EnumAccess<'de>>(self, data: A) -> Result<Self::Value, A::Error> {
        self.inner.visit_enum(Watch::new(data, self.ignored))
    }
}

impl<'de, X: DeserializeSeed<'de>> DeserializeSeed<'de> for Watch<'_, X> {
    type Value = X::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        self.inner.deserialize(Watch::new(d, self.ignored))
    }
}

impl<'de, X: de::SeqAccess<'de>> de::SeqAccess<'de> for Watch<'_, X> {
    type Error = X::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, X::Error> {
        self.inner.next_element_seed(Watch::new(seed, self.ignored))
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'de, X: de::MapAccess<'de>> de::MapAccess<'de> for Watch<'_, X> {
    type Error = X::Error;

    /// Keys are not values: like `serde_ignored`, never fail inside a key.
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, X::Error> {
        self.inner.next_key_seed(seed)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, X::Error> {
        self.inner.next_value_seed(Watch::new(seed, self.ignored))
    }

    fn size_hint(&self) -> Option<usize> {
        self.inner.size_hint()
    }
}

impl<'a, 'de, X: de::EnumAccess<'de>> de::EnumAccess<'de> for Watch<'a, X> {
    type Error = X::Error;
    type Variant = Watch<'a, X::Variant>;

    fn variant_seed<V: DeserializeSeed<'de>>(
        self,
        seed: V,
    ) -> Result<(V::Value, Self::Variant), X::Error> {
        let ignored = self.ignored;
        let (value, variant) = self.inner.variant_seed(seed)?;
        Ok((value, Watch::new(variant, ignored)))
    }
}

impl<'de, X: de::VariantAccess<'de>> de::VariantAccess<'de> for Watch<'_, X> {
    type Error = X::Error;

    fn unit_variant(self) -> Result<(), X::Error> {
        self.inner.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, X::Error> {
        self.inner
            .newtype_variant_seed(Watch::new(seed, self.ignored))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, X::Error> {
        self.inner
            .tuple_variant(len, Watch::new(visitor, self.ignored))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, X::Error> {
        self.inner
            .struct_variant(fields, Watch::new(visitor, self.ignored))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Inner {
        a: Option<u32>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Choice {
        Unit,
        Wrapped(Inner),
        Fields { inner: Inner },
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        list: Vec<Inner>,
        map: BTreeMap<String, Inner>,
        maybe: Option<Inner>,
        choice: Option<Choice>,
    }

    /// Whether strict deserialisation fails for an unknown field (None: other failure).
    fn unknown(json: &str) -> Option<bool> {
        match deserialize::<_, Outer>(&mut serde_json::Deserializer::from_str(json)) {
            Ok(_) => Some(false),
            Err(Failure::Unknown(_)) => Some(true),
            Err(Failure::Other(_)) => None,
        }
    }

    #[test]
    fn fails_on_every_input_a_type_would_ignore() {
        let base = r#""list":[{"a":1}],"map":{"k":{"a":2}},"maybe":{"a":3}"#;
        for (json, expect) in [
            (format!("{{{base},\"choice\":\"Unit\"}}"), false),
            (format!("{{{base},\"extra\":1}}"), true),
            (
                r#"{"list":[{"a":1,"b":[1,2]}],"map":{},"maybe":null}"#.to_string(),
                true,
            ),
            (
                r#"{"list":[],"map":{"k":{"zz":{}}},"maybe":null}"#.to_string(),
                true,
            ),
            (
                r#"{"list":[],"map":{},"maybe":{"a":null,"q":1}}"#.to_string(),
                true,
            ),
            (
                format!("{{{base},\"choice\":{{\"Wrapped\":{{\"x\":1}}}}}}"),
                true,
            ),
            (
                format!("{{{base},\"choice\":{{\"Fields\":{{\"inner\":{{\"y\":1}}}}}}}}"),
                true,
            ),
            (
                format!("{{{base},\"choice\":{{\"Wrapped\":{{\"a\":7}}}}}}"),
                false,
            ),
        ] {
            assert_eq!(unknown(&json), Some(expect), "{json}");
        }
    }

    #[test]
    fn lenient_reads_skip_what_a_plain_parse_skips() {
        let json = r#"{"list":[{"a":1,"b":[1,{"c":2}]}],"map":{"k":{"a":2,"z":null}},"maybe":null,"choice":"Unit","extra":{"x":[true]}}"#;
        let lenient =
            deserialize_lenient::<_, Outer>(&mut serde_json::Deserializer::from_str(json)).ok();
        assert!(lenient.is_some());
        assert_eq!(lenient, serde_json::from_str::<Outer>(json).ok());
        assert_eq!(unknown(json), Some(true));
    }

    #[test]
    fn values_are_those_of_a_plain_parse() {
        let json = r#"{"list":[{"a":1}],"map":{"k":{"a":2}},"maybe":null,"choice":{"Fields":{"inner":{"a":4}}}}"#;
        let fast = deserialize::<_, Outer>(&mut serde_json::Deserializer::from_str(json)).ok();
        assert_eq!(fast, serde_json::from_str::<Outer>(json).ok());
    }
}
