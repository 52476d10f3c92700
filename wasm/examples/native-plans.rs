//! Writes the native core's answer for every request of the corpus
//! (`podplan_testsupport::corpus`) as JSON lines `{"name", "request", "answer"}` (request and
//! answer as text), after a first line `{"version": {...}}`, to stdout, or to the file given as the first argument. The Node test
//! (`wasm/test/*.test.mjs`) compares the JS build's answers with these.
//!
//! `cargo run -p podplan-wasm --example native-plans [-- OUT.jsonl]`

use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let cases = podplan_testsupport::corpus::load(&podplan_testsupport::corpus::repo_root())?;
    let mut out: Box<dyn Write> = match std::env::args_os().nth(1) {
        Some(path) => Box::new(std::fs::File::create(path)?),
        None => Box::new(std::io::stdout().lock()),
    };
    writeln!(
        out,
        "{}",
        serde_json::json!({ "version": podplan_core::version() })
    )?;
    for case in &cases {
        // JS strings cannot hold invalid UTF-8: plan what a JS caller can send.
        let request = String::from_utf8_lossy(&case.request);
        let answer = podplan_core::plan_json(request.as_bytes());
        let line = serde_json::json!({
            "name": case.name,
            "request": request,
            "answer": String::from_utf8_lossy(&answer),
        });
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    eprintln!("native-plans: {} requests", cases.len());
    Ok(())
}
