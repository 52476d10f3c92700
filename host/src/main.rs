//! The `podplan` command line: plans, conformance runs and the demo.
//!
//! Everything lives in [`cli`]; `main` only maps the outcome to an exit code
//! (0 ok, 1 conformance failures, 2 bad input or usage).

mod cli;

/// mimalloc: a plan allocates and frees many small values; see benches/README.md.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
