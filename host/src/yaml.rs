//! YAML read as `kubectl` reads it: `sigs.k8s.io/yaml` over go-yaml v2, i.e. YAML 1.1
//! scalars turned into JSON (`sigs.k8s.io/yaml`'s `YAMLToJSON`).
//!
//! The events come from `saphyr-parser` (a pure-Rust YAML parser that never recurses);
//! this module resolves them as go-yaml v2 does (`resolve.go`, `decode.go`):
//!
//! - plain scalars: `~`, `null`, empty → null; `y|Y|yes|Yes|YES|on|On|ON|true|True|TRUE`
//!   → true and the `n`/`no`/`off`/`false` forms → false; integers through Go's
//!   `strconv.ParseInt(s, 0, 64)` after removing `_` (`0400` is octal 256, `0o400`,
//!   `0x1F`, `0b101`, signs), then `ParseUint`, then floats (`1e3`, `.5`, `08`); a float
//!   with an integral value becomes a JSON integer, as Go's `json.Marshal` writes it;
//!   `.nan` and `.inf` are refused (JSON has neither); date-like scalars stay strings;
//! - quoted and block scalars are strings; explicit tags `!!str`, `!!int`, `!!float`,
//!   `!!bool`, `!!null`, `!!binary` are honoured;
//! - merge keys `<<` (a mapping, an alias of one, or a sequence of them: earlier maps
//!   win) are applied in place, as go-yaml v2 applies them;
//! - anchors and aliases are expanded, bounded as go-yaml v2 bounds them ("excessive
//!   aliasing");
//! - mapping keys become JSON strings (`1` → `"1"`, `yes` → `"true"`, as
//!   `convertToJSONableObject` does); a duplicate key is refused as `kubectl apply`
//!   refuses it: `line 12: mapping key "image" already defined at line 9`;
//! - nesting deeper than [`MAX_DEPTH`] is refused as soon as it is seen.
//!
//! Empty and `null` documents of a stream are skipped, as `kubectl` skips them.

use std::collections::HashMap;

use podplan_core::limits::MAX_DEPTH;
use podplan_core::PlanError;
use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde_json::{Map, Number, Value};

/// go-yaml v2 allows 99% of decoded nodes to come from alias expansion up to this
/// many decoded nodes (`alias_ratio_range_low`, `decode.go`)...
const ALIAS_RATIO_RANGE_LOW: f64 = 400_000.0;
/// ... and 10% from this many on (`alias_ratio_range_high`), scaling in between.
const ALIAS_RATIO_RANGE_HIGH: f64 = 4_000_000.0;

/// The documents of a YAML stream, as JSON (empty and `null` documents left out).
///
/// # Errors
///
/// A syntax error, a duplicate key, an unsupported key or value (`.nan`, a null key),
/// excessive aliasing (`InvalidInput`), or nesting deeper than [`MAX_DEPTH`]
/// (`LimitExceeded`); each message names its line.
pub fn documents(text: &str) -> Result<Vec<Value>, PlanError> {
    let mut builder = Builder::default();
    let mut parser = Parser::new_from_str(text);
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| {
            if e.info().contains("recursion limit") {
                // The scanner's own bound on flow nesting (it reads ahead of the
                // events, so it can meet it before the builder meets MAX_DEPTH).
                return PlanError::limit(
                    "",
                    format!(
                        "line {}: the YAML nests deeper than the limit of {MAX_DEPTH} levels",
                        e.marker().line()
                    ),
                );
            }
            PlanError::invalid(
                "",
                format!(
                    "invalid YAML at line {} column {}: {}",
                    e.marker().line(),
                    e.marker().col() + 1,
                    e.info()
                ),
            )
        })?;
        builder.event(event, span)?;
    }
    Ok(builder.documents)
}

/// The one document of a YAML text.
///
/// # Errors
///
/// As [`documents`]; also when the text holds no document or more than one.
pub fn document(text: &str) -> Result<Value, PlanError> {
    let mut docs = documents(text)?;
    match docs.len() {
        0 => Err(PlanError::invalid(
            "",
            "the input is empty: it holds no YAML document",
        )),
        1 => Ok(docs.pop().unwrap_or(Value::Null)),
        n => Err(PlanError::invalid(
            "",
            format!("the input holds {n} YAML documents; one is expected"),
        )),
    }
}

/// A finished node: its value, how many nodes it holds, how deep it nests, and what
/// a mapping needs to use it as a key.
struct Node {
    value: Value,
    nodes: usize,
    height: usize,
    /// The scalar's text, for a scalar written in the document (not an alias).
    text: Option<String>,
    /// A plain `<<` (or `!!merge`): a merge key.
    merge: bool,
    /// The node is an alias (a merge of an aliased sequence is refused).
    alias: bool,
    line: usize,
}

/// What a mapping holds between a key and its value.
enum Key {
    Name(String),
    Merge,
}

enum Frame {
    Seq {
        items: Vec<Value>,
        anchor: usize,
        nodes: usize,
        height: usize,
    },
    Map {
        map: Map<String, Value>,
        anchor: usize,
        nodes: usize,
        height: usize,
        key: Option<Key>,
        /// The keys as written, and the line of each (duplicate detection).
        seen: HashMap<String, usize>,
    },
}

#[derive(Default)]
struct Builder {
    documents: Vec<Value>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, (Value, usize, usize)>,
    root: Option<Value>,
    decoded: usize,
    aliased: usize,
    duplicates: Vec<String>,
}

fn invalid(line: usize, message: impl std::fmt::Display) -> PlanError {
    PlanError::invalid("", format!("line {line}: {message}"))
}

impl Builder {
    fn event(&mut self, event: Event<'_>, span: Span) -> Result<(), PlanError> {
        let line = span.start.line();
        match event {
            Event::DocumentStart(_) => {
                self.anchors.clear();
                self.root = None;
                self.decoded = 0;
                self.aliased = 0;
                self.duplicates.clear();
            }
            Event::DocumentEnd => {
                if !self.duplicates.is_empty() {
                    return Err(PlanError::invalid("", self.duplicates.join("; ")));
                }
                if let Some(root) = self.root.take() {
                    if !root.is_null() {
                        self.documents.push(root);
                    }
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.count(1, false, line)?;
                if self.stack.len() >= MAX_DEPTH {
                    return Err(PlanError::limit(
                        "",
                        format!(
                            "line {line}: the YAML nests deeper than the limit of {MAX_DEPTH} levels"
                        ),
                    ));
                }
                self.stack
                    .push(if matches!(event, Event::SequenceStart(..)) {
                        Frame::Seq {
                            items: Vec::new(),
                            anchor,
                            nodes: 1,
                            height: 1,
                        }
                    } else {
                        Frame::Map {
                            map: Map::new(),
                            anchor,
                            nodes: 1,
                            height: 1,
                            key: None,
                            seen: HashMap::new(),
                        }
                    });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (value, anchor, nodes, height) = match self.stack.pop() {
                    Some(Frame::Seq {
                        items,
                        anchor,
                        nodes,
                        height,
                    }) => (Value::Array(items), anchor, nodes, height),
                    Some(Frame::Map {
                        map,
                        anchor,
                        nodes,
                        height,
                        ..
                    }) => (Value::Object(map), anchor, nodes, height),
                    None => return Err(invalid(line, "unbalanced YAML collection")),
                };
                self.finish(
                    anchor,
                    Node {
                        value,
                        nodes,
                        height,
                        text: None,
                        merge: false,
                        alias: false,
                        line,
                    },
                )?;
            }
            Event::Scalar(text, style, anchor, tag) => {
                self.count(1, false, line)?;
                let plain = style == ScalarStyle::Plain;
                let merge = text == "<<"
                    && (tag.is_none() && plain
                        || tag.as_deref().is_some_and(|t| core_tag(t) == Some("merge")));
                let value = scalar(&text, plain, tag.as_deref()).map_err(|m| invalid(line, m))?;
                self.finish(
                    anchor,
                    Node {
                        value,
                        nodes: 1,
                        height: 0,
                        text: Some(text.into_owned()),
                        merge,
                        alias: false,
                        line,
                    },
                )?;
            }
            Event::Alias(id) => {
                let Some((value, nodes, height)) = self.anchors.get(&id).cloned() else {
                    return Err(invalid(
                        line,
                        "an alias refers to an anchor that is not defined before it",
                    ));
                };
                self.count(nodes, true, line)?;
                if self.stack.len().saturating_add(height) > MAX_DEPTH {
                    return Err(PlanError::limit(
                        "",
                        format!(
                            "line {line}: the YAML nests deeper than the limit of {MAX_DEPTH} levels (through an alias)"
                        ),
                    ));
                }
                self.finish(
                    0,
                    Node {
                        value,
                        nodes,
                        height,
                        text: None,
                        merge: false,
                        alias: true,
                        line,
                    },
                )?;
            }
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
        }
        Ok(())
    }

    /// Counts decoded nodes, refusing excessive aliasing as go-yaml v2 does
    /// (`decoder.unmarshal`, `allowedAliasRatio`).
    fn count(&mut self, nodes: usize, alias: bool, line: usize) -> Result<(), PlanError> {
        self.decoded = self.decoded.saturating_add(nodes);
        if alias {
            self.aliased = self.aliased.saturating_add(nodes);
        }
        let (decoded, aliased) = (self.decoded as f64, self.aliased as f64);
        let allowed = if decoded <= ALIAS_RATIO_RANGE_LOW {
            0.99
        } else if decoded >= ALIAS_RATIO_RANGE_HIGH {
            0.10
        } else {
            0.99 - 0.89
                * ((decoded - ALIAS_RATIO_RANGE_LOW)
                    / (ALIAS_RATIO_RANGE_HIGH - ALIAS_RATIO_RANGE_LOW))
        };
        if self.aliased > 100 && self.decoded > 1000 && aliased / decoded > allowed {
            return Err(invalid(
                line,
                format!(
                    "the document contains excessive aliasing ({} of {} nodes come from aliases)",
                    self.aliased, self.decoded
                ),
            ));
        }
        Ok(())
    }

    /// Records an anchored node and hands the node to its parent (or the document).
    fn finish(&mut self, anchor: usize, node: Node) -> Result<(), PlanError> {
        if anchor != 0 {
            self.anchors
                .insert(anchor, (node.value.clone(), node.nodes, node.height));
        }
        let Some(top) = self.stack.last_mut() else {
            self.root = Some(node.value);
            return Ok(());
        };
        match top {
            Frame::Seq {
                items,
                nodes,
                height,
                ..
            } => {
                *nodes = nodes.saturating_add(node.nodes);
                *height = (*height).max(node.height.saturating_add(1));
                items.push(node.value);
            }
            Frame::Map {
                map,
                nodes,
                height,
                key,
                seen,
                ..
            } => {
                *nodes = nodes.saturating_add(node.nodes);
                *height = (*height).max(node.height.saturating_add(1));
                match key.take() {
                    None => {
                        if let Some(text) = &node.text {
                            // go-yaml v3's check, which `kubectl apply` reports:
                            // keys compare by their text.
                            if let Some(first) = seen.get(text) {
                                self.duplicates.push(format!(
                                    "line {}: mapping key {text:?} already defined at line {first}",
                                    node.line
                                ));
                            } else {
                                seen.insert(text.clone(), node.line);
                            }
                        }
                        *key = Some(if node.merge {
                            Key::Merge
                        } else {
                            Key::Name(json_key(node.value).map_err(|m| invalid(node.line, m))?)
                        });
                    }
                    Some(Key::Name(name)) => {
                        map.insert(name, node.value);
                    }
                    Some(Key::Merge) => merge(map, node).map_err(|m| invalid(m.0, m.1))?,
                }
            }
        }
        Ok(())
    }
}

/// Applies a merge key's value to `map` in place, as go-yaml v2's `decoder.merge`
/// does: the merged keys are set as they come (a later explicit key overrides them, an
/// earlier one is overridden); of a sequence of maps, the earlier map wins.
fn merge(map: &mut Map<String, Value>, node: Node) -> Result<(), (usize, String)> {
    const WANT: &str = "map merge requires map or sequence of maps as the value";
    match node.value {
        Value::Object(fields) => {
            for (k, v) in fields {
                map.insert(k, v);
            }
            Ok(())
        }
        Value::Array(items) if !node.alias => {
            if !items.iter().all(Value::is_object) {
                return Err((node.line, WANT.into()));
            }
            for item in items.into_iter().rev() {
                if let Value::Object(fields) = item {
                    for (k, v) in fields {
                        map.insert(k, v);
                    }
                }
            }
            Ok(())
        }
        _ => Err((node.line, WANT.into())),
    }
}

/// A mapping key as a JSON key (`sigs.k8s.io/yaml`'s `convertToJSONableObject`).
fn json_key(value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        Value::Bool(b) => Ok(b.to_string()),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => Ok(i.to_string()),
            (None, Some(u), _) => Err(format!("unsupported map key of type uint64: {u}")),
            (None, None, Some(f)) => Ok(float_key(f)),
            _ => Err("unsupported map key".into()),
        },
        Value::Null => Err("unsupported map key: null (JSON keys are strings)".into()),
        Value::Array(_) | Value::Object(_) => {
            Err("invalid map key: a sequence or mapping cannot be a key".into())
        }
    }
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 32)`: the shortest float32 digits, in
/// exponent form when the exponent is below -4 or at least 21 (as `%g` with the
/// shortest precision decides it).
fn float_key(f: f64) -> String {
    let short = f as f32;
    let abs = short.abs();
    if abs != 0.0 && !(1e-4..1e21).contains(&abs) {
        let s = format!("{short:e}");
        // Rust writes `1e21`, Go `1e+21`.
        match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e:0>2}"),
            Some((m, e)) => format!("{m}e-{:0>2}", e.trim_start_matches('-')),
            None => s,
        }
    } else {
        format!("{short}")
    }
}

/// The short name of a core-schema tag (`!!int` → `int`).
fn core_tag(tag: &Tag) -> Option<&str> {
    tag.is_yaml_core_schema().then_some(tag.suffix.as_str())
}

/// A scalar as JSON (go-yaml v2's `decoder.scalar` and `resolve`).
fn scalar(text: &str, plain: bool, tag: Option<&Tag>) -> Result<Value, String> {
    let Some(tag) = tag else {
        return if plain {
            resolved_json(resolve(text), text)
        } else {
            Ok(Value::String(text.to_string()))
        };
    };
    let Some(name) = core_tag(tag) else {
        // A tag go-yaml does not resolve: the text.
        return Ok(Value::String(text.to_string()));
    };
    let resolved = resolve(text);
    let ok = match name {
        "str" => return Ok(Value::String(text.to_string())),
        "binary" => return binary(text).map(Value::String),
        "int" => matches!(resolved, Resolved::Int(_) | Resolved::Uint(_)),
        "float" => {
            return match resolved {
                Resolved::Int(i) => resolved_json(Resolved::Float(i as f64), text),
                Resolved::Uint(u) => resolved_json(Resolved::Float(u as f64), text),
                Resolved::Float(_) => resolved_json(resolved, text),
                _ => Err(format!(
                    "cannot decode {} `{text}` as a !!float",
                    resolved.tag()
                )),
            }
        }
        "bool" => matches!(resolved, Resolved::Bool(_)),
        "null" => matches!(resolved, Resolved::Null),
        "timestamp" => return Ok(Value::String(text.to_string())),
        _ => return Ok(Value::String(text.to_string())),
    };
    if ok {
        resolved_json(resolved, text)
    } else {
        Err(format!(
            "cannot decode {} `{text}` as a !!{name}",
            resolved.tag()
        ))
    }
}

/// A plain scalar resolved by go-yaml v2's rules.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str,
}

impl Resolved {
    fn tag(self) -> &'static str {
        match self {
            Resolved::Null => "!!null",
            Resolved::Bool(_) => "!!bool",
            Resolved::Int(_) | Resolved::Uint(_) => "!!int",
            Resolved::Float(_) => "!!float",
            Resolved::Str => "!!str",
        }
    }
}

/// go-yaml v2's `resolve` for an untagged plain scalar.
fn resolve(text: &str) -> Resolved {
    let hint = match text.as_bytes().first() {
        None => b'N',
        Some(b'+' | b'-') => b'S',
        Some(b'0'..=b'9') => b'D',
        Some(b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~') => b'M',
        Some(b'.') => b'.',
        Some(_) => return Resolved::Str,
    };
    match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Resolved::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match hint {
        b'.' => match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Resolved::Float(f),
            _ => Resolved::Str,
        },
        b'D' | b'S' => {
            let plain = text.replace('_', "");
            if let Some(i) = go_parse_int(&plain) {
                return Resolved::Int(i);
            }
            if let Some(u) = go_parse_uint(&plain) {
                return Resolved::Uint(u);
            }
            if yaml_style_float(&plain) {
                if let Ok(f) = plain.parse::<f64>() {
                    if f.is_finite() {
                        return Resolved::Float(f);
                    }
                }
            }
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// Go's `strconv.ParseUint(s, 0, 64)` (underscores already removed): `0x`, `0o`,
/// `0b` prefixes, a leading `0` for octal.
fn go_parse_uint(s: &str) -> Option<u64> {
    let bytes = s.as_bytes();
    let (radix, digits) = match bytes {
        [] => return None,
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'b') => (2, s.get(2..)?),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'o') => (8, s.get(2..)?),
        [b'0', p, _, ..] if p.eq_ignore_ascii_case(&b'x') => (16, s.get(2..)?),
        [b'0', ..] => (8, s.get(1..)?),
        _ => (10, s),
    };
    if digits.is_empty() {
        // "0" alone.
        return (radix == 8).then_some(0);
    }
    if !digits.bytes().all(|b| char::from(b).is_digit(radix)) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

/// Go's `strconv.ParseInt(s, 0, 64)`.
fn go_parse_int(s: &str) -> Option<i64> {
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, s.get(1..)?),
        Some(b'-') => (true, s.get(1..)?),
        _ => (false, s),
    };
    let magnitude = go_parse_uint(rest)?;
    if negative {
        if magnitude == 1u64 << 63 {
            Some(i64::MIN)
        } else {
            i64::try_from(magnitude).ok().map(|m| -m)
        }
    } else {
        i64::try_from(magnitude).ok()
    }
}

/// go-yaml v2's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn yaml_style_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i - start
    };
    if matches!(b.first(), Some(b'+' | b'-')) {
        i += 1;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if digits(&mut i) == 0 {
            return false;
        }
    } else {
        if digits(&mut i) == 0 {
            return false;
        }
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i);
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if digits(&mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// A resolved scalar as JSON, as `json.Marshal` writes Go's value (an integral float
/// below 1e21 is written without a fraction, and so read back as an integer).
fn resolved_json(resolved: Resolved, text: &str) -> Result<Value, String> {
    Ok(match resolved {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::from(i),
        Resolved::Uint(u) => Value::from(u),
        Resolved::Str => Value::String(text.to_string()),
        Resolved::Float(f) => {
            if !f.is_finite() {
                return Err(format!(
                    "unsupported value `{text}`: JSON has no NaN or infinity"
                ));
            }
            integral(f).unwrap_or_else(|| Number::from_f64(f).map_or(Value::Null, Value::Number))
        }
    })
}

/// `f` as a JSON integer when Go would write it without a fraction or exponent.
fn integral(f: f64) -> Option<Value> {
    if f.fract() != 0.0 || f.abs() >= 1e21 {
        return None;
    }
    if (-9.223_372_036_854_776e18..9.223_372_036_854_776e18).contains(&f) {
        return Some(Value::from(f as i64));
    }
    if (0.0..1.844_674_407_370_955_2e19).contains(&f) {
        return Some(Value::from(f as u64));
    }
    None
}

/// `!!binary`: base64 (line breaks ignored, as Go's decoder ignores them), the bytes
/// as a string (invalid UTF-8 replaced, as `json.Marshal` replaces it).
fn binary(text: &str) -> Result<String, String> {
    const ERR: &str = "!!binary value contains invalid base64 data";
    let clean: Vec<u8> = text
        .bytes()
        .filter(|b| *b != b'\n' && *b != b'\r')
        .collect();
    if !clean.len().is_multiple_of(4) {
        return Err(ERR.into());
    }
    let sextet = |b: u8| -> Option<u32> {
        Some(u32::from(match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        }))
    };
    let mut out = Vec::with_capacity(clean.len() / 4 * 3);
    let chunks = clean.chunks_exact(4);
    let last = chunks.len().saturating_sub(1);
    for (n, chunk) in chunks.enumerate() {
        let pad = chunk.iter().rev().take_while(|b| **b == b'=').count();
        if pad > 2 || (pad > 0 && n != last) {
            return Err(ERR.into());
        }
        let mut word = 0u32;
        for (i, b) in chunk.iter().enumerate() {
            let v = if i >= 4 - pad {
                0
            } else {
                sextet(*b).ok_or(ERR)?
            };
            word = (word << 6) | v;
        }
        let bytes = word.to_be_bytes();
        out.extend(bytes.iter().skip(1).take(3 - pad));
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn one(text: &str) -> Value {
        document(text).unwrap_or_else(|e| panic!("{text}: {e:?}"))
    }

    #[test]
    fn octal_hex_and_underscored_ints_resolve_as_go_yaml_v2() {
        let v = one(
            "a: 0400\nb: 0o400\nc: 0x1F\nd: 0b101\ne: 1_000\nf: -0400\ng: 08\nh: 0\ni: +12\nj: 0.5\nk: 1e3\nl: 9223372036854775808\nm: '0400'\nz: 0x\n",
        );
        assert_eq!(
            v,
            json!({"a": 256, "b": 256, "c": 31, "d": 5, "e": 1000, "f": -256, "g": 8,
                   "h": 0, "i": 12, "j": 0.5, "k": 1000, "l": 9_223_372_036_854_775_808_u64,
                   "m": "0400", "z": "0x"})
        );
    }

    #[test]
    fn yaml_1_1_booleans_and_nulls() {
        let v = one("a: yes\nb: No\nc: on\nd: OFF\ne: y\nf: ~\ng:\nh: 'yes'\ni: True\nj: yEs\n");
        assert_eq!(
            v,
            json!({"a": true, "b": false, "c": true, "d": false, "e": true, "f": null,
                   "g": null, "h": "yes", "i": true, "j": "yEs"})
        );
        // `y` and `n` are booleans as keys too.
        assert_eq!(one("y: 1\nn: 2\n"), json!({"true": 1, "false": 2}));
        // Keys too: `on:` is the key "true", as kubectl reads it.
        assert_eq!(one("on: 1\n3: x\n"), json!({"true": 1, "3": "x"}));
    }

    #[test]
    fn timestamps_and_versions_stay_strings() {
        let v = one("a: 2001-12-14\nb: 1.2.3\nc: 12:30\nd: -x\n");
        assert_eq!(
            v,
            json!({"a": "2001-12-14", "b": "1.2.3", "c": "12:30", "d": "-x"})
        );
    }

    #[test]
    fn merge_keys_follow_go_yaml_v2() {
        let v = one("base: &b {x: 1, w: 2}\nother: &o {w: 3, z: 4}\n\
             one: {<<: *b, w: 9}\n\
             list: {<<: [*b, *o]}\n\
             before: {w: 9, <<: *b}\n");
        assert_eq!(v["one"], json!({"x": 1, "w": 9}));
        // Of a sequence of maps, the earlier map wins.
        assert_eq!(v["list"], json!({"x": 1, "w": 2, "z": 4}));
        // go-yaml v2 sets merged keys as they come: a merge after a key overrides it.
        assert_eq!(v["before"], json!({"x": 1, "w": 2}));
        let err = document("a: &a [1]\nb: {<<: *a}\n").unwrap_err();
        assert!(
            err.message.contains("map merge requires"),
            "{}",
            err.message
        );
        // A quoted "<<" is an ordinary key.
        assert_eq!(one("'<<': {a: 1}\n"), json!({"<<": {"a": 1}}));
    }

    #[test]
    fn duplicate_keys_are_refused_as_kubectl_reports_them() {
        let err = document("a: 1\nb:\n  c: 1\n  c: 2\n").unwrap_err();
        assert_eq!(
            err.message,
            "line 4: mapping key \"c\" already defined at line 3"
        );
        assert_eq!(err.kind, podplan_core::ErrorKind::InvalidInput);
    }

    #[test]
    fn streams_skip_empty_documents() {
        let docs = documents("---\na: 1\n---\n---\n~\n---\nb: 2\n...\n").unwrap();
        assert_eq!(docs, vec![json!({"a": 1}), json!({"b": 2})]);
        assert!(document("").is_err());
        assert!(document("a: 1\n---\nb: 2\n").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_fast_naming_the_limit() {
        let deep = "[".repeat(200_000);
        let start = std::time::Instant::now();
        let err = document(&deep).unwrap_err();
        assert_eq!(
            err.kind,
            podplan_core::ErrorKind::LimitExceeded,
            "{}",
            err.message
        );
        assert!(
            err.message.contains(&MAX_DEPTH.to_string()),
            "{}",
            err.message
        );
        assert!(start.elapsed() < std::time::Duration::from_secs(2));
        let mut block = String::new();
        for i in 0..150 {
            block.push_str(&" ".repeat(i));
            block.push_str("a:\n");
        }
        let err = document(&block).unwrap_err();
        assert_eq!(
            err.kind,
            podplan_core::ErrorKind::LimitExceeded,
            "{}",
            err.message
        );
        // An alias may not carry a value past the limit either.
        let mut nested = String::from("a: &a ");
        nested.push_str(&"[".repeat(100));
        nested.push_str(&"]".repeat(100));
        nested.push_str("\nb: ");
        nested.push_str(&"[".repeat(60));
        nested.push_str("*a");
        nested.push_str(&"]".repeat(60));
        assert!(document(&nested).is_err());
    }

    #[test]
    fn billion_laughs_is_refused() {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        let err = document(&text).unwrap_err();
        assert!(
            err.message.contains("excessive aliasing"),
            "{}",
            err.message
        );
        // Ordinary reuse is fine.
        assert_eq!(
            one("a: &a {x: 1}\nb: *a\nc: *a\n"),
            json!({"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}})
        );
    }

    #[test]
    fn tags_nan_and_binary() {
        assert_eq!(
            one("a: !!str 0400\nb: !!int \"0400\"\nc: !!float 1\nd: !custom yes\ne: !!binary aGk=\n"),
            json!({"a": "0400", "b": 256, "c": 1, "d": "yes", "e": "hi"})
        );
        assert!(document("a: !!int abc\n").is_err());
        assert!(document("a: .nan\n").unwrap_err().message.contains("NaN"));
        assert!(document("~: 1\n").is_err());
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let err = document("a: [1, 2\nb: 3\n").unwrap_err();
        assert!(err.message.contains("line"), "{}", err.message);
        assert!(err.message.contains("column"), "{}", err.message);
    }

    #[test]
    fn float_keys_format_as_go_float32() {
        assert_eq!(float_key(1.5), "1.5");
        assert_eq!(float_key(1e21), "1e+21");
        assert_eq!(float_key(1e-5), "1e-05");
    }
}
