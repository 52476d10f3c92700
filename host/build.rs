//! Build script of podplan-host: the built playground (web/dist) is embedded in the
//! `podplan` binary. When web/dist (or `$PODPLAN_WEB_DIST`) holds a build, every file in it
//! is embedded with `include_bytes!`; otherwise the binary carries a page that says how to
//! build it, so the crate always builds. The generated table is
//! `$OUT_DIR/playground_assets.rs`. (The wasm module and the conformance vectors are
//! embedded by podplan-wasmhost's build script.)

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::{env, fs, io};

fn main() -> io::Result<()> {
    println!("cargo:rerun-if-changed=build.rs");
    playground()
}

/// The playground.
fn playground() -> io::Result<()> {
    println!("cargo:rerun-if-env-changed=PODPLAN_WEB_DIST");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let web = manifest.join("..").join("web");
    let dist = env::var_os("PODPLAN_WEB_DIST").map_or_else(|| web.join("dist"), PathBuf::from);
    let out =
        PathBuf::from(env::var_os("OUT_DIR").unwrap_or_default()).join("playground_assets.rs");

    let mut files = Vec::new();
    if dist.join("index.html").is_file() {
        println!("cargo:rerun-if-changed={}", dist.display());
        collect(&dist, &dist, &mut files)?;
        files.sort();
    } else if web.is_dir() {
        // Notice when the site gets built later (web/dist appears).
        println!("cargo:rerun-if-changed={}", web.display());
    }

    let mut code = String::from(
        "/// The embedded site: (path relative to the site root, contents).\n\
         pub static ASSETS: &[(&str, &[u8])] = &[\n",
    );
    for (rel, abs) in &files {
        let _ = writeln!(code, "    ({rel:?}, include_bytes!({abs:?})),");
    }
    code.push_str("];\n");
    let _ = writeln!(
        code,
        "/// Whether a built site was embedded.\npub const BUILT: bool = {};",
        !files.is_empty()
    );
    fs::write(out, code)
}

/// Every file under `dir`, as (URL path relative to `root`, absolute path).
fn collect(root: &Path, dir: &Path, files: &mut Vec<(String, String)>) -> io::Result<()> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(root, &path, files)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            let rel: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let abs = fs::canonicalize(&path)?;
            files.push((rel.join("/"), abs.to_string_lossy().into_owned()));
        }
    }
    Ok(())
}
