//! The `podplan` command line.
fn main() {}
