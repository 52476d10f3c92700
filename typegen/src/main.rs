//! `podplan-typegen`: writes `wasm/types/contract.d.ts` from `core/src`'s serde types;
//! `--check` only compares and fails when the committed file is out of date.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = match std::env::args().nth(1).as_deref() {
        None => false,
        Some("--check") => true,
        Some(other) => {
            eprintln!(
                "podplan-typegen: unknown argument {other}; usage: podplan-typegen [--check]"
            );
            return ExitCode::from(2);
        }
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let generated = match podplan_typegen::generate(&root) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("podplan-typegen: {e}");
            return ExitCode::FAILURE;
        }
    };
    let path = root.join(podplan_typegen::OUTPUT);
    if check {
        let committed = std::fs::read_to_string(&path).unwrap_or_default();
        if committed != generated {
            eprintln!(
                "podplan-typegen: {} is out of date with core/src: run `{}` and commit it",
                podplan_typegen::OUTPUT,
                podplan_typegen::COMMAND
            );
            return ExitCode::FAILURE;
        }
        println!("podplan-typegen: {} is up to date", podplan_typegen::OUTPUT);
    } else if let Err(e) = std::fs::write(&path, generated) {
        eprintln!("podplan-typegen: {}: {e}", path.display());
        return ExitCode::FAILURE;
    } else {
        println!("podplan-typegen: wrote {}", podplan_typegen::OUTPUT);
    }
    ExitCode::SUCCESS
}
