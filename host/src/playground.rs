//! `podplan playground`: serves the browser playground (web/) from the binary.
//!
//! The site is static: the page runs podplan's wasm module itself, keeps its whole session
//! in the URL hash, and talks to no server. This command only hands out the files, which
//! were embedded at compile time (see `build.rs`), on 127.0.0.1 by default.

use std::convert::Infallible;
use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ACCEPT_ENCODING};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/playground_assets.rs"));
}

/// Where `podplan playground` listens unless told otherwise: this machine only.
pub const DEFAULT_ADDR: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 8137);

/// Why the playground could not be served.
#[derive(Debug, thiserror::Error)]
pub enum PlaygroundError {
    /// The address could not be bound (e.g. the port is taken).
    #[error("cannot listen on {addr}: {reason} (try --port 0 for any free port)")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// What went wrong.
        reason: String,
    },
    /// Receiving a request failed.
    #[error("serving failed: {0}")]
    Io(#[from] io::Error),
}

/// The page served when the binary was built without web/dist.
const NOT_BUILT: &str = r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>podplan playground: not built</title>
<style>body{font-family:system-ui,sans-serif;max-width:42em;margin:3em auto;padding:0 1em;line-height:1.5}code,pre{background:#f2f3f5;padding:2px 4px;border-radius:4px}pre{padding:10px}</style>
</head><body>
<h1>The playground was not built into this binary</h1>
<p><code>podplan playground</code> serves the site in <code>web/dist</code>, embedded when the
binary is compiled. That folder did not exist when this binary was built. From the repository root:</p>
<pre>scripts/build-wasm                  # podplan's engine as wasm (wasm/pkg/web)
(cd web &amp;&amp; npm ci &amp;&amp; npm run build)  # the site (web/dist)
cargo build -p podplan-host         # embeds web/dist</pre>
<p>The built site is static: <code>web/dist</code> can also be served by any web server.</p>
</body></html>
"#;

/// A file to send: body and content type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Asset {
    /// The bytes.
    pub body: &'static [u8],
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// Whether the name carries a content hash (safe to cache for good).
    pub immutable: bool,
    /// The same bytes gzipped (`<name>.gz`, written by the web build), if embedded.
    pub gzip: Option<&'static [u8]>,
}

/// Whether the binary carries a built site (otherwise it serves how-to-build instructions).
#[must_use]
pub fn site_built() -> bool {
    embedded::BUILT
}

/// The `Content-Type` for a file name.
#[must_use]
pub fn content_type(path: &str) -> &'static str {
    let ext = path.rsplit_once('.').map_or("", |(_, e)| e);
    match ext {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}

/// Finds the file for a request path (`/`, `/assets/index-abc.js?x`), if there is one.
///
/// ```
/// use podplan_host::playground::lookup;
/// let page = lookup("/").expect("there is always a page");
/// assert_eq!(page.content_type, "text/html; charset=utf-8");
/// assert!(lookup("/../Cargo.toml").is_none());
/// ```
#[must_use]
pub fn lookup(url: &str) -> Option<Asset> {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    let rel = path.trim_start_matches('/');
    let rel = if rel.is_empty() || rel.ends_with('/') {
        format!("{rel}index.html")
    } else {
        rel.to_string()
    };
    if !embedded::BUILT {
        return (rel == "index.html").then_some(Asset {
            body: NOT_BUILT.as_bytes(),
            content_type: "text/html; charset=utf-8",
            immutable: false,
            gzip: None,
        });
    }
    let file = |name: &str| {
        embedded::ASSETS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, body)| *body)
    };
    let gz = format!("{rel}.gz");
    file(&rel).map(|body| Asset {
        body,
        content_type: content_type(&rel),
        immutable: rel.starts_with("assets/"),
        gzip: file(&gz),
    })
}

/// Whether the `Accept-Encoding` values allow gzip (and do not refuse it with q=0).
fn accepts_gzip<'a>(values: impl Iterator<Item = &'a str>) -> bool {
    values.flat_map(|v| v.split(',')).any(|part| {
        let mut it = part.split(';');
        let coding = it.next().unwrap_or_default().trim();
        let refused = it.any(|p| {
            p.trim()
                .strip_prefix("q=")
                .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q <= 0.0))
        });
        (coding.eq_ignore_ascii_case("gzip") || coding == "*") && !refused
    })
}

/// The page may load its own files and run wasm; it may not reach anything else.
const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; \
style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

/// A plain-text answer with `status`.
fn text(status: StatusCode, body: &'static str) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from_static(body.as_bytes())));
    *response.status_mut() = status;
    response.headers_mut().insert(
        "Content-Type",
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// The answer to one request (hyper leaves the body out of HEAD answers itself, with the
/// real length).
fn respond(request: &Request<Incoming>) -> Response<Full<Bytes>> {
    if !matches!(*request.method(), Method::GET | Method::HEAD) {
        let mut response = text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed");
        response
            .headers_mut()
            .insert("Allow", HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    let url = request.uri().path_and_query().map_or("/", |p| p.as_str());
    let Some(asset) = lookup(url) else {
        return text(StatusCode::NOT_FOUND, "not found");
    };
    let accept = request
        .headers()
        .get_all(ACCEPT_ENCODING)
        .iter()
        .filter_map(|v| v.to_str().ok());
    let gzip = asset.gzip.filter(|_| accepts_gzip(accept));
    let mut response = Response::new(Full::new(Bytes::from_static(gzip.unwrap_or(asset.body))));
    let headers = response.headers_mut();
    if asset.gzip.is_some() {
        headers.insert("Vary", HeaderValue::from_static("Accept-Encoding"));
    }
    if gzip.is_some() {
        headers.insert("Content-Encoding", HeaderValue::from_static("gzip"));
    }
    let cache = if asset.immutable {
        "public, max-age=31536000, immutable"
    } else {
        "no-cache"
    };
    for (name, value) in [
        ("Content-Type", asset.content_type),
        ("Cache-Control", cache),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", CSP),
        ("Referrer-Policy", "no-referrer"),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// Serves one connection: HTTP/1.1 by hyper, header names in the usual title case.
async fn serve_connection(stream: tokio::net::TcpStream) -> Result<(), hyper::Error> {
    hyper::server::conn::http1::Builder::new()
        .title_case_headers(true)
        .serve_connection(
            TokioIo::new(stream),
            hyper::service::service_fn(|request: Request<Incoming>| async move {
                Ok::<_, Infallible>(respond(&request))
            }),
        )
        .await
}

/// A bound playground server (HTTP/1.1 on hyper, as the webhook's).
pub struct Playground {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Playground {
    /// Binds `wanted` (port 0 picks a free port).
    ///
    /// # Errors
    ///
    /// [`PlaygroundError::Bind`] when the address cannot be bound.
    pub fn bind(wanted: SocketAddr) -> Result<Self, PlaygroundError> {
        let bind_error = |e: io::Error| PlaygroundError::Bind {
            addr: wanted,
            reason: e.to_string(),
        };
        let listener = TcpListener::bind(wanted).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let addr = listener.local_addr().unwrap_or(wanted);
        Ok(Self { listener, addr })
    }

    /// The address actually bound (with the real port when 0 was asked for).
    #[must_use]
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL.
    #[must_use]
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// The listener on a small tokio runtime of its own, and the runtime.
    fn runtime(&self) -> io::Result<(tokio::runtime::Runtime, std::net::TcpListener)> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("podplan-playground")
            .enable_io()
            .build()?;
        Ok((runtime, self.listener.try_clone()?))
    }

    /// Answers requests until the process ends. A failed answer (the browser went away)
    /// is not fatal.
    ///
    /// # Errors
    ///
    /// The runtime cannot be started, or accepting connections fails.
    pub fn serve_forever(&self) -> Result<(), PlaygroundError> {
        let (runtime, listener) = self.runtime()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            loop {
                let (stream, _) = listener.accept().await?;
                tokio::spawn(async move {
                    let _ = serve_connection(stream).await;
                });
            }
        })
    }

    /// Serves one connection to its end (for tests).
    ///
    /// # Errors
    ///
    /// The runtime cannot be started, accepting fails, or the answer could not be sent.
    pub fn serve_one(&self) -> Result<(), PlaygroundError> {
        let (runtime, listener) = self.runtime()?;
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener)?;
            let (stream, _) = listener.accept().await?;
            serve_connection(stream).await.map_err(io::Error::other)
        })?;
        Ok(())
    }
}

/// `podplan playground`: bind `addr`, print the page's address, serve.
///
/// # Errors
///
/// The address cannot be bound, or receiving requests fails.
pub fn run(addr: SocketAddr) -> Result<(), PlaygroundError> {
    let playground = Playground::bind(addr)?;
    let mut out = io::stdout().lock();
    writeln!(out, "podplan playground: {}", playground.url())?;
    if !site_built() {
        writeln!(
            out,
            "(this binary was built without web/dist; the page says how to build it)"
        )?;
    }
    writeln!(out, "Press Ctrl+C to stop.")?;
    out.flush()?;
    drop(out);
    playground.serve_forever()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpStream;

    fn any_port() -> SocketAddr {
        SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0)
    }

    fn get(addr: SocketAddr, raw: &str) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream.write_all(raw.as_bytes()).unwrap();
        let mut bytes = Vec::new();
        stream.read_to_end(&mut bytes).unwrap();
        // Bodies may be gzip: the headers are what the tests read.
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn serve(raw: &'static str) -> String {
        let pg = Playground::bind(any_port()).unwrap();
        let addr = pg.addr();
        assert_ne!(addr.port(), 0);
        assert!(pg.url().starts_with("http://127.0.0.1:"));
        let client = std::thread::spawn(move || get(addr, raw));
        pg.serve_one().unwrap();
        client.join().unwrap()
    }

    #[test]
    fn serves_the_page_at_the_root() {
        let text = serve("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
        assert!(text.contains("Content-Type: text/html; charset=utf-8"));
        assert!(text.contains("Content-Security-Policy: default-src 'self'"));
        assert!(text.contains("<html"));
    }

    #[test]
    fn unknown_paths_are_404() {
        let text = serve("GET /nope.js HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(text.starts_with("HTTP/1.1 404"), "{text}");
    }

    #[test]
    fn only_get_and_head() {
        let text =
            serve("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        assert!(text.starts_with("HTTP/1.1 405"), "{text}");
        let head = serve("HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(head.starts_with("HTTP/1.1 200"), "{head}");
        assert!(!head.contains("<html"));
        assert!(!head.contains("Content-Length: 0\r\n"), "{head}");
    }

    #[test]
    fn paths_resolve_to_embedded_files_only() {
        assert!(lookup("/index.html?x=1").is_some());
        assert_eq!(lookup("/"), lookup("/index.html"));
        assert!(lookup("/../../etc/passwd").is_none());
        assert!(lookup("/assets/missing.js").is_none());
        if site_built() {
            // Every embedded file is reachable under its own path with a sensible type.
            for (name, body) in embedded::ASSETS {
                let asset = lookup(&format!("/{name}")).unwrap();
                assert_eq!(asset.body.len(), body.len());
                assert_ne!(asset.content_type, "", "{name}");
            }
            assert!(embedded::ASSETS.iter().any(|(n, _)| n.ends_with(".js")));
        } else {
            assert!(std::str::from_utf8(lookup("/").unwrap().body)
                .unwrap()
                .contains("npm run build"));
        }
    }

    #[test]
    fn gzip_is_sent_to_clients_that_accept_it() {
        assert!(accepts_gzip(["gzip, deflate, br"].into_iter()));
        assert!(accepts_gzip(["deflate", "GZIP;q=0.5"].into_iter()));
        assert!(accepts_gzip(["*"].into_iter()));
        assert!(!accepts_gzip(["gzip;q=0, deflate"].into_iter()));
        assert!(!accepts_gzip(["br"].into_iter()));
        assert!(!accepts_gzip([].into_iter()));
        if !site_built() {
            return;
        }
        // Every compressible file of the built site has its gzip form embedded.
        for (name, body) in embedded::ASSETS {
            let compressible = [".js", ".css", ".wasm", ".html"]
                .iter()
                .any(|e| name.ends_with(e));
            if compressible && body.len() >= 1024 {
                let asset = lookup(&format!("/{name}")).unwrap();
                let gz = asset.gzip.unwrap_or_else(|| panic!("{name} has no .gz"));
                assert!(
                    gz.len() < body.len() && gz.starts_with(&[0x1f, 0x8b]),
                    "{name}"
                );
            }
        }
        let zipped = serve(
            "GET / HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip, deflate\r\nConnection: close\r\n\r\n",
        );
        assert!(zipped.contains("Content-Encoding: gzip"), "{zipped}");
        assert!(zipped.contains("Content-Type: text/html; charset=utf-8"));
        assert!(zipped.contains("Vary: Accept-Encoding"));
        let plain = serve("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        assert!(!plain.contains("Content-Encoding"), "{plain}");
    }

    #[test]
    fn content_types() {
        assert_eq!(content_type("a/b.wasm"), "application/wasm");
        assert_eq!(content_type("x.js"), "text/javascript; charset=utf-8");
        assert_eq!(content_type("noext"), "application/octet-stream");
    }

    #[test]
    fn a_taken_port_is_a_clear_error() {
        let first = Playground::bind(any_port()).unwrap();
        let err = Playground::bind(first.addr()).err().unwrap();
        assert!(err.to_string().contains("--port 0"), "{err}");
    }
}
