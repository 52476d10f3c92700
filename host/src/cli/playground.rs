//! `podplan playground`: the flags; the server is [`podplan_host::playground`].

use std::net::{IpAddr, SocketAddr};

use clap::Args;
use podplan_host::playground::{self, DEFAULT_ADDR};

use super::exit::{CliError, Status};

/// Options of `podplan playground`.
#[derive(Debug, Clone, Args)]
pub struct PlaygroundArgs {
    /// Port to listen on (0 picks a free one).
    #[arg(long, short, default_value_t = DEFAULT_ADDR.port())]
    pub port: u16,
    /// Address to listen on. The default keeps the playground on this machine.
    #[arg(long, default_value_t = DEFAULT_ADDR.ip())]
    pub address: IpAddr,
}

/// Serves the playground until the process ends.
pub fn run(args: &PlaygroundArgs) -> Result<Status, CliError> {
    playground::run(SocketAddr::new(args.address, args.port))
        .map(|()| Status::Success)
        .map_err(|err| CliError::usage(err.to_string()))
}
