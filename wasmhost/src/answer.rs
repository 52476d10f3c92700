//! Reading a plan answer's bytes (`podplan_core::plan_json`'s, a module's) cheaply.
//!
//! An answer is a plan object or the error envelope `{"error": {...}}`; the engine
//! writes the envelope's only key first, and a plan has no `error` key. So the first key
//! tells the two apart without parsing the plan: callers that pass the bytes on
//! ([`is_error`]) never decode it, and a caller that wants the typed plan ([`decode`])
//! deserialises it once, straight into [`Plan`] (a serde `untagged` enum would first
//! buffer the whole plan into serde's generic content tree, then decode it from there).

use podplan_core::error::ErrorEnvelope;
use podplan_core::{Plan, PlanError};

use super::HostError;

/// The JSON object's first key, unescaped; `None` when `json` does not start (after
/// whitespace) with an object that has a key.
#[must_use]
pub fn first_key(json: &[u8]) -> Option<std::borrow::Cow<'_, str>> {
    let rest = skip_whitespace(json).strip_prefix(b"{")?;
    let rest = skip_whitespace(rest);
    if rest.first() != Some(&b'"') {
        return None;
    }
    // The closing quote: the first `"` not escaped by a backslash.
    let mut escaped = false;
    let mut has_escape = false;
    let mut end = None;
    for (i, &b) in rest.iter().enumerate().skip(1) {
        match (escaped, b) {
            (true, _) => escaped = false,
            (false, b'\\') => {
                escaped = true;
                has_escape = true;
            }
            (false, b'"') => {
                end = Some(i);
                break;
            }
            (false, _) => {}
        }
    }
    let quoted = rest.get(..=end?)?;
    if has_escape {
        // Rare (our engine never escapes its keys): let serde_json unescape it.
        return serde_json::from_slice::<String>(quoted)
            .ok()
            .map(std::borrow::Cow::Owned);
    }
    let inner = quoted.get(1..quoted.len().saturating_sub(1))?;
    std::str::from_utf8(inner)
        .ok()
        .map(std::borrow::Cow::Borrowed)
}

fn skip_whitespace(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(bytes.len());
    bytes.get(start..).unwrap_or_default()
}

/// Whether `answer` is the error envelope `{"error": ...}` (its first key is `error`).
#[must_use]
pub fn is_error(answer: &[u8]) -> bool {
    first_key(answer).is_some_and(|key| key == "error")
}

/// The engine's error in an error answer; `None` for a plan (or an envelope that does
/// not parse).
#[must_use]
pub fn error_of(answer: &[u8]) -> Option<PlanError> {
    if !is_error(answer) {
        return None;
    }
    serde_json::from_slice::<ErrorEnvelope>(answer)
        .ok()
        .map(|envelope| envelope.error)
}

/// The typed answer: the plan, or the engine's error for bad input, in one pass.
///
/// # Errors
///
/// [`HostError::BadAnswer`] when the bytes are neither a plan nor an error envelope.
pub fn decode(answer: &[u8]) -> Result<Result<Plan, PlanError>, HostError> {
    let bad = |e: serde_json::Error| {
        HostError::BadAnswer(format!("the answer is neither a plan nor an error: {e}"))
    };
    if is_error(answer) {
        serde_json::from_slice::<ErrorEnvelope>(answer)
            .map(|envelope| Err(envelope.error))
            .map_err(bad)
    } else {
        serde_json::from_slice::<Plan>(answer).map(Ok).map_err(bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_key_is_read_without_parsing_the_rest() {
        assert_eq!(
            first_key(br#"{"error":{"kind":"InvalidInput"}}"#).as_deref(),
            Some("error")
        );
        assert_eq!(
            first_key(b" \n{ \"actions\" : {}, \"error\": 1}").as_deref(),
            Some("actions")
        );
        // Escapes are unescaped (a quote inside the key does not end it).
        assert_eq!(
            first_key(br#"{"\u0065rr\"or": 1}"#).as_deref(),
            Some("err\"or")
        );
        assert_eq!(first_key(br#"{"\u0065rror": 1}"#).as_deref(), Some("error"));
        for not_an_object in [
            &b""[..],
            b"{}",
            b"[]",
            b"{\"unterminated",
            b"null",
            b"{1:2}",
        ] {
            assert_eq!(first_key(not_an_object), None, "{not_an_object:?}");
        }
        // The rest is not looked at: a truncated document still has a first key.
        assert_eq!(first_key(br#"{"error":"#).as_deref(), Some("error"));
    }

    #[test]
    fn errors_and_plans_are_told_apart_by_the_first_key() {
        let error = podplan_core::plan_json(b"not json");
        assert!(is_error(&error));
        let Ok(Err(decoded)) = decode(&error) else {
            panic!("not an error: {}", String::from_utf8_lossy(&error))
        };
        assert_eq!(Some(decoded.clone()), error_of(&error));
        assert_eq!(decoded.kind, podplan_core::ErrorKind::InvalidInput);

        let request = br#"{"pod":{"spec":{"containers":[{"name":"a","image":"busybox"}]}}}"#;
        let answer = podplan_core::plan_json(request);
        assert!(!is_error(&answer));
        assert_eq!(error_of(&answer), None);
        let Ok(Ok(plan)) = decode(&answer) else {
            panic!("not a plan: {}", String::from_utf8_lossy(&answer))
        };
        let native = podplan_core::plan(&podplan_core::api::parse_request(request).unwrap());
        assert_eq!(Ok(plan), native);
    }

    #[test]
    fn an_answer_that_is_neither_is_a_host_error() {
        for bad in [
            &b"{}"[..],
            b"[1]",
            br#"{"error": 3}"#,
            b"",
            br#"{"actions": 1}"#,
        ] {
            assert!(
                matches!(decode(bad), Err(HostError::BadAnswer(_))),
                "{}",
                String::from_utf8_lossy(bad)
            );
        }
    }
}
