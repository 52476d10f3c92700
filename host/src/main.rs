//! The `podplan` command line: plans, conformance runs and the demo.
//!
//! Everything lives in [`cli`]; `main` only maps the outcome to an exit code
//! (0 ok, 1 conformance failures, 2 bad input or usage).

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
