//! Generates the `runtime.v1` message types from `proto/` with prost, parsing the
//! `.proto` files with protox (no `protoc` needed). With the `grpc` feature,
//! tonic-prost-build also generates the `RuntimeService`/`ImageService` clients and
//! servers from the same descriptors.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protos = [
        "proto/podplan/runtime_v1_configs.proto",
        "proto/podplan/runtime_v1_services.proto",
    ];
    for proto in protos {
        println!("cargo:rerun-if-changed={proto}");
    }
    let descriptors = protox::compile(protos, ["proto"])?;
    #[cfg(feature = "grpc")]
    tonic_prost_build::configure()
        .btree_map(".")
        .build_client(true)
        .build_server(true)
        .build_transport(true)
        .compile_fds(descriptors)?;
    #[cfg(not(feature = "grpc"))]
    prost_build::Config::new()
        .btree_map(["."])
        .compile_fds(descriptors)?;
    Ok(())
}
