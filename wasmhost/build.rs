//! Build script of podplan-wasmhost: two things are embedded in the library (and so in
//! the `podplan` binary).
//!
//! 1. The plain-ABI wasm module (`wasm/pkg/abi/podplan_abi.wasm`, produced by
//!    `scripts/build-wasm`; `$PODPLAN_ABI_WASM` overrides the path) when it exists.
//!    Without it the crate still builds, and asking for the embedded module is a clear
//!    runtime error (`HostError::NoEmbeddedModule`). Building the module here instead
//!    would mean a nested cargo build for another target inside this one (and a
//!    wasm-opt dependency); CI runs `scripts/build-wasm` first instead.
//! 2. The conformance action vectors (`conformance/actions/**`) that a candidate wasm
//!    module is self-tested on before it may go live (`$OUT_DIR/action_vectors.rs`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs, io};

fn main() -> io::Result<()> {
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let out = PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default());
    wasm_module(&root);
    action_vectors(&root, &out)
}

/// 1. The plain-ABI wasm module.
fn wasm_module(root: &Path) {
    println!("cargo::rustc-check-cfg=cfg(podplan_embedded_module)");
    println!("cargo:rerun-if-env-changed=PODPLAN_ABI_WASM");
    let wasm = std::env::var_os("PODPLAN_ABI_WASM")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("wasm/pkg/abi/podplan_abi.wasm"));
    println!("cargo:rerun-if-changed={}", wasm.display());
    if wasm.is_file() {
        println!("cargo:rustc-cfg=podplan_embedded_module");
        println!("cargo:rustc-env=PODPLAN_EMBEDDED_MODULE={}", wasm.display());
    }
}

/// 2. The conformance action vectors.
fn action_vectors(root: &Path, out: &Path) -> io::Result<()> {
    let actions = root.join("conformance/actions");
    println!("cargo:rerun-if-changed={}", actions.display());
    let mut files = Vec::new();
    collect_json(&actions, &mut files);
    files.sort();
    let mut code = String::from("/// Every vendored conformance action vector: (path under the repo, JSON text).\npub static ACTION_VECTORS: &[(&str, &str)] = &[\n");
    for file in &files {
        let name = file
            .strip_prefix(root)
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
    fs::write(out.join("action_vectors.rs"), code)
}

/// Every `.json` file under `dir`.
fn collect_json(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_json(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}
