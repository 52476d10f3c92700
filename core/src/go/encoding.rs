//! Go encodings the kubelet writes into annotations and env values: `encoding/json` of
//! the v1 structs (struct field order, `omitempty`, HTML escaping) and `strconv.Quote`.

use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{ContainerPort, LifecycleHandler};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// Go `encoding/json` string literal (HTML-escaped, as `json.Marshal` does).
#[must_use]
pub(crate) fn go_json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_go_json_string(&mut out, s);
    out
}

/// Appends [`go_json_string`]`(s)` to `out`.
pub(crate) fn push_go_json_string(out: &mut String, s: &str) {
    out.push('"');
    if is_plain_go_json(s) {
        out.push_str(s);
    } else {
        for ch in s.chars() {
            match ch {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{8}' => out.push_str("\\b"),
                '\u{c}' => out.push_str("\\f"),
                '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                    let _ = write!(out, "\\u{:04x}", u32::from(ch));
                }
                c if u32::from(c) < 0x20 => {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
                c => out.push(c),
            }
        }
    }
    out.push('"');
}

/// Whether [`go_json_string`] writes `s` unchanged between its quotes.
#[must_use]
pub(crate) fn is_plain_go_json(s: &str) -> bool {
    !s.chars().any(|ch| {
        matches!(ch, '"' | '\\' | '<' | '>' | '&' | '\u{2028}' | '\u{2029}') || u32::from(ch) < 0x20
    })
}

/// Go `strconv.Quote` (printable characters kept, others escaped).
#[must_use]
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if u32::from(c) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c if c.is_control() || (c.is_whitespace() && c != ' ') => {
                if u32::from(c) < 0x10000 {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                } else {
                    let _ = write!(out, "\\U{:08x}", u32::from(c));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn int_or_string(v: &IntOrString) -> String {
    match v {
        IntOrString::Int(i) => i.to_string(),
        IntOrString::String(s) => go_json_string(s),
    }
}

/// A JSON object written field by field in Go struct order, into one buffer.
struct Obj(String);

impl Obj {
    fn new() -> Self {
        Self(String::from("{"))
    }
    /// Starts a member: `"key":` (after a comma unless it is the first).
    fn key(&mut self, key: &str) -> &mut String {
        if self.0.len() > 1 {
            self.0.push(',');
        }
        self.0.push('"');
        self.0.push_str(key);
        self.0.push_str("\":");
        &mut self.0
    }
    fn raw(&mut self, key: &str, json: &str) {
        self.key(key).push_str(json);
    }
    fn str_opt(&mut self, key: &str, v: Option<&String>) {
        if let Some(s) = v.filter(|s| !s.is_empty()) {
            push_go_json_string(self.key(key), s);
        }
    }
    fn done(mut self) -> String {
        self.0.push('}');
        self.0
    }
}

/// A JSON array of already-encoded items.
fn array(items: impl Iterator<Item = String>) -> String {
    let mut out = String::from("[");
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&item);
    }
    out.push(']');
    out
}

fn string_list(v: &[String]) -> String {
    array(v.iter().map(|s| go_json_string(s)))
}

/// `json.Marshal(v1.LifecycleHandler)`: `exec`, `httpGet`, `tcpSocket`, `sleep`.
#[must_use]
pub fn lifecycle_handler_json(h: &LifecycleHandler) -> String {
    let mut o = Obj::new();
    if let Some(e) = &h.exec {
        let mut x = Obj::new();
        if let Some(cmd) = e.command.as_ref().filter(|c| !c.is_empty()) {
            x.raw("command", &string_list(cmd));
        }
        o.raw("exec", &x.done());
    }
    if let Some(g) = &h.http_get {
        let mut x = Obj::new();
        x.str_opt("path", g.path.as_ref());
        x.raw("port", &int_or_string(&g.port));
        x.str_opt("host", g.host.as_ref());
        x.str_opt("scheme", g.scheme.as_ref());
        if let Some(headers) = g.http_headers.as_ref().filter(|h| !h.is_empty()) {
            let hs: Vec<String> = headers
                .iter()
                .map(|h| {
                    format!(
                        "{{\"name\":{},\"value\":{}}}",
                        go_json_string(&h.name),
                        go_json_string(&h.value)
                    )
                })
                .collect();
            x.raw("httpHeaders", &format!("[{}]", hs.join(",")));
        }
        x.str_opt("protocol", g.protocol.as_ref());
        o.raw("httpGet", &x.done());
    }
    if let Some(t) = &h.tcp_socket {
        let mut x = Obj::new();
        x.raw("port", &int_or_string(&t.port));
        x.str_opt("host", t.host.as_ref());
        o.raw("tcpSocket", &x.done());
    }
    if let Some(s) = &h.sleep {
        o.raw("sleep", &format!("{{\"seconds\":{}}}", s.seconds));
    }
    o.done()
}

/// `json.Marshal([]v1.ContainerPort)`: `name`, `hostPort`, `containerPort`, `protocol`,
/// `hostIP`.
#[must_use]
pub fn container_ports_json(ports: &[ContainerPort]) -> String {
    array(ports.iter().map(|p| {
        let mut x = Obj::new();
        x.str_opt("name", p.name.as_ref());
        if let Some(hp) = p.host_port.filter(|h| *h != 0) {
            let _ = write!(x.key("hostPort"), "{hp}");
        }
        let _ = write!(x.key("containerPort"), "{}", p.container_port);
        x.str_opt("protocol", p.protocol.as_ref());
        x.str_opt("hostIP", p.host_ip.as_ref());
        x.done()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_quote_examples() {
        assert_eq!(go_quote("a\"b\n"), r#""a\"b\n""#);
        assert_eq!(go_quote("é"), "\"é\"");
        assert_eq!(go_quote("\u{7f}"), r#""\x7f""#);
    }
}
