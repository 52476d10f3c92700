//! The JSON path of a position in a JSON document.
//!
//! serde_json reports where an error was detected as a line and a column. Scanning the
//! document up to that point with a small tokenizer says which value was being read
//! (`pod.spec.containers[1].name`). This keeps error paths exact without wrapping every
//! deserializer in path tracking, which would multiply the deserialisation code (the
//! size of the wasm module) and slow down every valid request.

/// One level of nesting while scanning.
enum Frame {
    /// Inside an object; the key whose value comes or is being read, if any.
    Object(Option<String>),
    /// Inside an array; the index of the element being read.
    Array(usize),
}

/// Byte offset of a 1-based `line` and `column` (serde_json counts columns in bytes).
#[must_use]
pub(crate) fn offset_of(bytes: &[u8], line: usize, column: usize) -> usize {
    let mut line_start = 0;
    let mut current = 1;
    if line > 1 {
        for (i, b) in bytes.iter().enumerate() {
            if *b == b'\n' {
                current += 1;
                if current == line {
                    line_start = i + 1;
                    break;
                }
            }
        }
    }
    line_start.saturating_add(column).min(bytes.len())
}

/// The path (`a.b[0].c`) of the value being read at byte `offset` of `bytes`.
#[must_use]
pub(crate) fn path_at(bytes: &[u8], offset: usize) -> String {
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let end = offset.min(bytes.len());
    while i < end {
        let Some(&b) = bytes.get(i) else { break };
        match b {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(index)) => *index += 1,
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            b'"' => {
                let (text, next) = read_string(bytes, i + 1);
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    *key = Some(text);
                }
                i = next;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    render(&stack)
}

/// Reads a JSON string starting after its opening quote; returns its (lightly unescaped)
/// text and the index after the closing quote.
fn read_string(bytes: &[u8], start: usize) -> (String, usize) {
    let mut out = Vec::new();
    let mut i = start;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => return (String::from_utf8_lossy(&out).into_owned(), i + 1),
            b'\\' => {
                if let Some(&escaped) = bytes.get(i + 1) {
                    out.push(match escaped {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        other => other,
                    });
                }
                i += 2;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    (String::from_utf8_lossy(&out).into_owned(), i)
}

fn render(stack: &[Frame]) -> String {
    let mut path = String::new();
    for frame in stack {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Object(None) => {}
            Frame::Array(index) => {
                path.push('[');
                path.push_str(&index.to_string());
                path.push(']');
            }
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(doc: &str, marker: &str) -> String {
        let offset = doc.find(marker).map_or(0, |i| i + marker.len());
        path_at(doc.as_bytes(), offset)
    }

    #[test]
    fn paths_of_values_keys_and_closed_objects() {
        let doc = r#"{"a": {"b": [1, {"c": true, "d": "x\"y"}], "e": null}}"#;
        assert_eq!(at(doc, "true"), "a.b[1].c");
        assert_eq!(at(doc, r#""x\"y""#), "a.b[1].d");
        assert_eq!(at(doc, r#""x\"y"}"#), "a.b[1]");
        assert_eq!(at(doc, "}]"), "a.b");
        assert_eq!(at(doc, "null"), "a.e");
        assert_eq!(at(doc, r#"{"a""#), "a");
        assert_eq!(path_at(doc.as_bytes(), doc.len()), "");
    }

    #[test]
    fn line_and_column_to_offset() {
        let doc = b"{\n  \"a\": 1,\n  \"b\": x\n}";
        let offset = offset_of(doc, 3, 8);
        assert_eq!(doc.get(offset - 1), Some(&b'x'));
        assert_eq!(path_at(doc, offset), "b");
        assert_eq!(offset_of(doc, 99, 99), doc.len());
    }

    #[test]
    fn path_at_example() {
        use crate::json_path::path_at;
        let doc = br#"{"pod": {"spec": {"containers": [{"name": "a"}, {"name": 5}]}}}"#;
        let offset = doc.iter().position(|b| *b == b'5').unwrap() + 1;
        assert_eq!(path_at(doc, offset), "pod.spec.containers[1].name");
    }
}
