//! Connecting to a CRI runtime over its unix socket (feature `grpc`): tonic over a tokio
//! `UnixStream`, with the kubelet's 16 MiB message limit in both directions.
//!
//! ```no_run
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! let channel = podplan_cri::client::connect("unix:///run/containerd/containerd.sock").await?;
//! let mut runtime = podplan_cri::client::runtime_client(channel.clone());
//! let version = runtime.version(podplan_cri::pb::VersionRequest::default()).await?;
//! println!("{}", version.into_inner().runtime_name);
//! # Ok(()) }
//! ```

use std::path::PathBuf;

use hyper_util::rt::TokioIo;
use tonic::transport::{Channel, Endpoint, Uri};

use crate::pb::image_service_client::ImageServiceClient;
use crate::pb::runtime_service_client::RuntimeServiceClient;

/// The largest message sent or received: 16 MiB, as the kubelet's
/// `maxMsgSize` for CRI connections.
pub const MAX_MESSAGE_SIZE: usize = 16 * 1024 * 1024;

/// A `RuntimeService` client.
pub type RuntimeClient = RuntimeServiceClient<Channel>;
/// An `ImageService` client.
pub type ImageClient = ImageServiceClient<Channel>;

/// Why a CRI endpoint could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// Not a `unix://` endpoint (or an absolute socket path).
    #[error("unsupported CRI endpoint {0:?}: expected unix:///PATH")]
    Endpoint(String),
    /// The socket did not answer.
    #[error("cannot reach the CRI runtime at {endpoint}: {source}")]
    Unreachable {
        /// The endpoint as given.
        endpoint: String,
        /// What failed.
        #[source]
        source: tonic::transport::Error,
    },
}

/// The socket path of an endpoint: `unix:///run/x.sock` or `/run/x.sock`.
pub fn socket_path(endpoint: &str) -> Result<PathBuf, ConnectError> {
    let path = endpoint.strip_prefix("unix://").unwrap_or(endpoint);
    if path.starts_with('/') {
        Ok(PathBuf::from(path))
    } else {
        Err(ConnectError::Endpoint(endpoint.to_string()))
    }
}

fn channel_endpoint() -> Endpoint {
    // The URI is required by tonic but never used: the connector below dials the socket.
    Endpoint::from_static("http://cri.sock")
}

fn connector(
    path: PathBuf,
) -> impl tower::Service<
    Uri,
    Response = TokioIo<tokio::net::UnixStream>,
    Error = std::io::Error,
    Future = impl Send,
> + Clone
       + Send
       + 'static {
    tower::service_fn(move |_: Uri| {
        let path = path.clone();
        async move {
            Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?))
        }
    })
}

/// Connects to the runtime at `endpoint` now; fails when it does not answer.
pub async fn connect(endpoint: &str) -> Result<Channel, ConnectError> {
    let path = socket_path(endpoint)?;
    channel_endpoint()
        .connect_with_connector(connector(path))
        .await
        .map_err(|source| ConnectError::Unreachable {
            endpoint: endpoint.to_string(),
            source,
        })
}

/// A channel to the runtime at `endpoint` that connects on first use (and reconnects
/// after a failure): calls fail with `UNAVAILABLE` while the runtime is away.
pub fn connect_lazy(endpoint: &str) -> Result<Channel, ConnectError> {
    let path = socket_path(endpoint)?;
    Ok(channel_endpoint().connect_with_connector_lazy(connector(path)))
}

/// A `RuntimeService` client on `channel` with the 16 MiB limits.
#[must_use]
pub fn runtime_client(channel: Channel) -> RuntimeClient {
    RuntimeServiceClient::new(channel)
        .max_decoding_message_size(MAX_MESSAGE_SIZE)
        .max_encoding_message_size(MAX_MESSAGE_SIZE)
}

/// An `ImageService` client on `channel` with the 16 MiB limits.
#[must_use]
pub fn image_client(channel: Channel) -> ImageClient {
    ImageServiceClient::new(channel)
        .max_decoding_message_size(MAX_MESSAGE_SIZE)
        .max_encoding_message_size(MAX_MESSAGE_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_are_unix_sockets() {
        assert_eq!(
            socket_path("unix:///run/c.sock").ok(),
            Some(PathBuf::from("/run/c.sock"))
        );
        assert_eq!(
            socket_path("/run/c.sock").ok(),
            Some(PathBuf::from("/run/c.sock"))
        );
        assert!(socket_path("tcp://1.2.3.4:5").is_err());
        assert!(socket_path("unix://relative").is_err());
    }

    #[tokio::test]
    async fn an_absent_socket_is_unreachable() {
        let err = connect("unix:///nonexistent/podplan-test.sock").await;
        let Err(err) = err else {
            panic!("connected to nothing");
        };
        assert!(
            err.to_string()
                .starts_with("cannot reach the CRI runtime at unix:///nonexistent"),
            "{err}"
        );
    }
}
