//! Generates the `runtime.v1` message types from `proto/` with prost, parsing the
//! `.proto` with protox (no `protoc` needed).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let proto = "proto/podplan/runtime_v1_configs.proto";
    println!("cargo:rerun-if-changed={proto}");
    let descriptors = protox::compile([proto], ["proto"])?;
    prost_build::Config::new()
        .btree_map(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
