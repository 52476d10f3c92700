//! What the binary's tests share: the `podplan` command, and a run of it fed on stdin.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The `podplan` binary under test.
pub fn podplan() -> Command {
    Command::new(env!("CARGO_BIN_EXE_podplan"))
}

/// Runs podplan with `args`, feeding `stdin`.
pub fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = podplan()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn podplan");
    let mut input = child.stdin.take().unwrap();
    let bytes = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The child may exit before reading everything (usage errors): ignore EPIPE.
        let _ = input.write_all(&bytes);
    });
    let output = child.wait_with_output().expect("wait for podplan");
    writer.join().unwrap();
    output
}

/// `podplan explain` with `args`, fed `stdin`.
pub fn explain(args: &[&str], stdin: &[u8]) -> Output {
    let args: Vec<&str> = std::iter::once("explain")
        .chain(args.iter().copied())
        .collect();
    run(&args, stdin)
}
