//! The `podplan` command line.
//!
//! Minimal hook for `podplan playground` (web branch). The CLI proper adds
//! `Playground(podplan_host::playground::Args)` to its subcommands and calls
//! `podplan_host::playground::run(&args)`.

use clap::Parser;

/// The `podplan` command line.
#[derive(Debug, Parser)]
#[command(name = "podplan")]
enum Command {
    /// Serve the browser playground on 127.0.0.1 and print its address.
    Playground(podplan_host::playground::Args),
}

fn main() -> std::process::ExitCode {
    match Command::parse() {
        Command::Playground(args) => match podplan_host::playground::run(&args) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(err) => {
                eprintln!("podplan: {err}");
                std::process::ExitCode::from(2)
            }
        },
    }
}
