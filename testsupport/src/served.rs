//! A plain-HTTP server on 127.0.0.1 whose answer a test sets and changes: the stand-in for
//! the URL of `podplan agent --manifest-url` (`pkg/kubelet/config/http.go`).

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};

/// What the server answers, and the request heads it received.
#[derive(Debug, Default)]
pub struct Served {
    /// The status code of the answer.
    pub status: u16,
    /// The body of the answer.
    pub body: String,
    /// Every request's head so far (its lines without the `\r\n`), in order.
    pub requests: Vec<Vec<String>>,
}

/// What a [`server`] holds: the tests change it and read the requests from it.
pub type Shared = Arc<Mutex<Served>>;

/// A server on 127.0.0.1 answering every GET with what [`Served`] holds now (at first: 200
/// and an empty body); its URL (`http://127.0.0.1:<port>/pods`) and its state.
///
/// # Panics
///
/// When no port on 127.0.0.1 can be bound.
#[must_use]
#[expect(clippy::expect_used, reason = "a test fixture: no port fails the test")]
pub fn server() -> (String, Shared) {
    let served = Arc::new(Mutex::new(Served {
        status: 200,
        ..Served::default()
    }));
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let url = format!(
        "http://{}/pods",
        listener.local_addr().expect("the listener's address")
    );
    let state = Arc::clone(&served);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream);
            let mut head = Vec::new();
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                    break;
                }
                head.push(line.trim_end().to_string());
            }
            let (status, body) = {
                let mut s = state.lock().unwrap_or_else(PoisonError::into_inner);
                s.requests.push(head);
                (s.status, s.body.clone())
            };
            let mut stream = reader.into_inner();
            let _ = write!(
                stream,
                "HTTP/1.1 {status} X\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (url, served)
}

/// From now on the server answers `status` and `body`.
pub fn set(served: &Shared, status: u16, body: &str) {
    let mut s = served.lock().unwrap_or_else(PoisonError::into_inner);
    s.status = status;
    s.body = body.to_string();
}
