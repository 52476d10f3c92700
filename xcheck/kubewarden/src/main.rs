//! Runs the recorded reviews of `test_data/admission/` through the built Kubewarden
//! policy on the waPC host Kubewarden's evaluator embeds (`wapc` + `wasmtime-provider`
//! 2.25.0, wasmtime 48), and checks each answer against the recorded answer
//! (`<case>.expect.json`), which podplan's own waPC host (`admission/tests/all/wapc_policy.rs`)
//! and the native lint also give:
//!
//! - `protocol_version` is `"v1"`;
//! - `validate_settings` refuses the `bad-settings-*.settings.json` and accepts the
//!   cases' settings;
//! - `validate` answers `accepted`, `message` and `warnings` exactly as recorded
//!   (`allowed`, `status.message`, `warnings`).
//!
//! With `--dump FILE` it also writes every raw answer (one JSON line per case), for
//! looking at a difference.
//!
//! Usage: `podplan-xcheck-kubewarden POLICY.wasm TEST_DATA_DIR [--dump FILE]`.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{json, Value};
use wapc::WapcHost;
use wasmtime_provider::WasmtimeEngineProviderBuilder;

type BoxError = Box<dyn Error + Send + Sync>;

fn host(module: &[u8]) -> Result<WapcHost, BoxError> {
    let engine = WasmtimeEngineProviderBuilder::new()
        .module_bytes(module)
        .build()?;
    // The policy is not context aware: any host call is refused, as kwctl does
    // for a policy without `contextAware`.
    let host = WapcHost::new(
        Box::new(engine),
        Some(Box::new(|_id, binding, namespace, op, _payload| {
            Err(format!("host call {binding}/{namespace}/{op} is not available").into())
        })),
    )?;
    Ok(host)
}

fn read_json(path: &Path) -> Result<Value, BoxError> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// The recorded response's `allowed`, `status.message` and `warnings`, in the policy's
/// answer's terms.
fn expected(expect: &Value) -> (bool, Option<String>, Vec<String>) {
    let r = &expect["response"];
    let allowed = r["allowed"].as_bool().unwrap_or(false);
    let message = r["status"]["message"].as_str().map(str::to_string);
    let warnings = r["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    (allowed, message, warnings)
}

fn got(answer: &Value) -> (bool, Option<String>, Vec<String>) {
    let accepted = answer["accepted"].as_bool().unwrap_or(false);
    let message = answer["message"].as_str().map(str::to_string);
    let warnings = answer["warnings"]
        .as_array()
        .map(|w| {
            w.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    (accepted, message, warnings)
}

fn run(policy: &Path, data: &Path, dump: Option<&Path>) -> Result<Vec<String>, BoxError> {
    let module = std::fs::read(policy).map_err(|e| format!("{}: {e}", policy.display()))?;
    let host = host(&module)?;
    let mut failures = Vec::new();
    let mut lines = Vec::new();

    let version = host.call("protocol_version", b"")?;
    if version != br#""v1""# {
        failures.push(format!(
            "protocol_version: {}",
            String::from_utf8_lossy(&version)
        ));
    }

    let mut names: Vec<String> = std::fs::read_dir(data)?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();

    for name in names.iter().filter(|n| n.starts_with("bad-settings-")) {
        let settings = std::fs::read(data.join(name))?;
        let out: Value = serde_json::from_slice(&host.call("validate_settings", &settings)?)?;
        lines.push(json!({"case": name, "op": "validate_settings", "answer": out}).to_string());
        if out["valid"] != Value::Bool(false) {
            failures.push(format!("{name}: validate_settings accepted it: {out}"));
        }
    }

    let mut compared = 0;
    for name in &names {
        let Some(case) = name.strip_suffix(".review.json") else {
            continue;
        };
        let raw = std::fs::read(data.join(name))?;
        let Ok(review) = serde_json::from_slice::<Value>(&raw) else {
            continue; // not JSON: the host refuses it before any policy runs
        };
        let Some(request) = review.get("request").filter(|r| r.is_object()) else {
            continue; // no request: likewise refused by the host
        };
        let expect = read_json(&data.join(format!("{case}.expect.json")))?;
        if expect["response"]["status"]["code"] == json!(400)
            && expect["response"]["status"]["reason"] != json!("podplan lint")
        {
            continue; // malformed for the host (refused before the policy)
        }
        let settings_path = data.join(format!("{case}.settings.json"));
        let settings = if settings_path.exists() {
            read_json(&settings_path)?
        } else {
            json!({})
        };
        let checked: Value = serde_json::from_slice(
            &host.call("validate_settings", settings.to_string().as_bytes())?,
        )?;
        if checked["valid"] != Value::Bool(true) {
            failures.push(format!("{case}: validate_settings refused: {checked}"));
            continue;
        }
        let payload = json!({"settings": settings, "request": request});
        let answer = match host.call("validate", payload.to_string().as_bytes()) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{case}: validate failed: {e}"));
                continue;
            }
        };
        let answer: Value = serde_json::from_slice(&answer)?;
        lines.push(json!({"case": case, "op": "validate", "answer": answer}).to_string());
        let (want, have) = (expected(&expect), got(&answer));
        if want != have {
            failures.push(format!("{case}: expected {want:?}, got {have:?}"));
        }
        compared += 1;
    }
    if compared < 15 {
        failures.push(format!("only {compared} reviews compared"));
    }
    println!("xcheck: {compared} reviews and the settings checks through wasmtime-provider 2.25.0");
    if let Some(path) = dump {
        std::fs::write(path, lines.join("\n") + "\n")?;
    }
    Ok(failures)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(policy), Some(data)) = (args.first(), args.get(1)) else {
        eprintln!("usage: podplan-xcheck-kubewarden POLICY.wasm TEST_DATA_DIR [--dump FILE]");
        return ExitCode::from(2);
    };
    let dump = match (args.get(2).map(String::as_str), args.get(3)) {
        (Some("--dump"), Some(f)) => Some(PathBuf::from(f)),
        _ => None,
    };
    match run(Path::new(policy), Path::new(data), dump.as_deref()) {
        Ok(failures) if failures.is_empty() => ExitCode::SUCCESS,
        Ok(failures) => {
            for f in failures {
                eprintln!("xcheck: {f}");
            }
            ExitCode::FAILURE
        }
        Err(e) => {
            eprintln!("xcheck: {e}");
            ExitCode::from(2)
        }
    }
}
