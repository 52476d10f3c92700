//! Annotates a built policy module as `kwctl annotate` does: the metadata (YAML) becomes
//! JSON with `protocolVersion: v1` and is appended as the custom section
//! `io.kubewarden.metadata`.
//!
//! `cargo run -p podplan-kubewarden --example annotate -- IN.wasm metadata.yml OUT.wasm`
#![expect(
    clippy::panic,
    reason = "a build tool: a failure ends it with a message"
)]

use serde_json::Value;

/// The custom section Kubewarden reads a policy's metadata from.
const SECTION: &str = "io.kubewarden.metadata";

fn leb128(mut n: usize, out: &mut Vec<u8>) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// A custom section (id 0): size, name, payload.
fn custom_section(name: &str, payload: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    leb128(name.len(), &mut body);
    body.extend_from_slice(name.as_bytes());
    body.extend_from_slice(payload);
    let mut section = vec![0u8];
    leb128(body.len(), &mut section);
    section.extend_from_slice(&body);
    section
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, metadata, output] = args.as_slice() else {
        panic!("usage: annotate IN.wasm metadata.yml OUT.wasm");
    };
    let module = std::fs::read(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    if !module.starts_with(b"\0asm\x01\0\0\0") {
        panic!("{input}: not a wasm module");
    }
    let yaml = std::fs::read_to_string(metadata).unwrap_or_else(|e| panic!("{metadata}: {e}"));
    let mut meta: Value =
        serde_yaml_ng::from_str(&yaml).unwrap_or_else(|e| panic!("{metadata}: {e}"));
    let Some(fields) = meta.as_object_mut() else {
        panic!("{metadata}: not a mapping");
    };
    // What the SDK's `protocol_version` answers (the host tests check the module's).
    let protocol = serde_json::to_value(kubewarden_policy_sdk::metadata::ProtocolVersion::V1)
        .unwrap_or_else(|e| panic!("{e}"));
    fields.insert("protocolVersion".into(), protocol);
    let json = serde_json::to_vec(&meta).unwrap_or_else(|e| panic!("{e}"));
    let mut out = module;
    out.extend_from_slice(&custom_section(SECTION, &json));
    std::fs::write(output, out).unwrap_or_else(|e| panic!("{output}: {e}"));
    println!("{output}: {SECTION} = {}", String::from_utf8_lossy(&json));
}
