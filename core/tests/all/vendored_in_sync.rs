//! The vendored `conformance/` must match `../shared/conformance` when that exists
//! (it does on the developers' machines and in CI; a plain clone tests its own copy).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if let (Ok(rel), Ok(bytes)) = (p.strip_prefix(root), std::fs::read(&p)) {
                out.insert(rel.to_path_buf(), bytes);
            }
        }
    }
    out
}

#[test]
fn vendored_vectors_match_shared() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let shared = repo.join("../shared/conformance");
    if !shared.is_dir() {
        eprintln!("no ../shared/conformance beside the repo: testing the vendored copy only");
        return;
    }
    let theirs = files(&shared);
    let ours = files(&repo.join("conformance"));
    let mut problems = Vec::new();
    for (path, bytes) in &theirs {
        match ours.get(path) {
            None => problems.push(format!(
                "missing from the vendored copy: {}",
                path.display()
            )),
            Some(b) if b != bytes => {
                problems.push(format!("differs from shared: {}", path.display()))
            }
            Some(_) => {}
        }
    }
    for path in ours.keys() {
        let ours_only = !theirs.contains_key(path);
        let project_file =
            path.extension().is_some_and(|e| e == "json") && path.parent() == Some(Path::new(""));
        if ours_only && !project_file {
            problems.push(format!("not in shared (stale?): {}", path.display()));
        }
    }
    assert!(
        problems.is_empty(),
        "run scripts/sync-conformance:\n{}",
        problems.join("\n")
    );
}
