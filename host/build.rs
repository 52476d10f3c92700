//! Build script of podplan-host:
//!
//! 1. Embeds the plain-ABI wasm module (`wasm/pkg/abi/podplan_abi.wasm`, produced by
//!    `scripts/build-wasm`; `$PODPLAN_ABI_WASM` overrides the path) when it exists.
//!    Without it the host still builds, and asking for the embedded module is a clear
//!    runtime error (`HostError::NoEmbeddedModule`). Building the module here instead
//!    would mean a nested cargo build for another target inside this one (and a
//!    wasm-opt dependency); CI runs `scripts/build-wasm` first instead.
//! 2. Embeds the conformance action vectors (`conformance/actions/**`) that a
//!    candidate module is self-tested on before it may go live.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());

    println!("cargo::rustc-check-cfg=cfg(podplan_embedded_module)");
    println!("cargo:rerun-if-env-changed=PODPLAN_ABI_WASM");
    let wasm = std::env::var_os("PODPLAN_ABI_WASM")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("wasm/pkg/abi/podplan_abi.wasm"));
    println!("cargo:rerun-if-changed={}", wasm.display());
    if wasm.is_file() {
        println!("cargo:rustc-cfg=podplan_embedded_module");
        println!("cargo:rustc-env=PODPLAN_EMBEDDED_MODULE={}", wasm.display());
    } else {
        println!(
            "cargo:warning=no wasm module at {}: the embedded module is missing (run scripts/build-wasm)",
            wasm.display()
        );
    }

    let actions = root.join("conformance/actions");
    println!("cargo:rerun-if-changed={}", actions.display());
    let mut files = Vec::new();
    collect(&actions, &mut files);
    files.sort();
    let mut code = String::from("/// Every vendored conformance action vector: (path under the repo, JSON text).\npub static ACTION_VECTORS: &[(&str, &str)] = &[\n");
    for file in &files {
        let name = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        let _ = writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            file.display().to_string()
        );
    }
    code.push_str("];\n");
    if let Err(e) = std::fs::write(out.join("action_vectors.rs"), code) {
        println!("cargo:warning=cannot write action_vectors.rs: {e}");
    }
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}
