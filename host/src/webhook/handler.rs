//! One HTTP request: routing, content type, body limit, and the review's answer.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONTENT_LENGTH, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};

use super::Judge;
use crate::admission::Outcome;

/// What every request shares.
#[derive(Debug)]
pub(super) struct State {
    pub judge: Judge,
    pub max_body_bytes: usize,
}

fn text(status: StatusCode, message: impl Into<String>) -> Response<Full<Bytes>> {
    let mut message = message.into();
    message.push('\n');
    let mut response = Response::new(Full::new(Bytes::from(message)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn json(status: StatusCode, body: Vec<u8>) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Whether the content type is JSON (`application/json`, parameters allowed).
fn is_json(request: &Request<Incoming>) -> bool {
    request
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"))
}

/// A body somewhat over the limit is read to its end and discarded before the 413, so
/// that a client still sending it gets the answer, not a broken pipe; past this many
/// times the limit the connection is just closed.
const DRAIN_FACTOR: u64 = 4;

/// The body, or `None` when it is over `limit` (then read on, discarding, up to
/// [`DRAIN_FACTOR`] times the limit).
async fn read_body(mut body: Incoming, limit: usize) -> Result<Option<Bytes>, hyper::Error> {
    let mut kept: Vec<u8> = Vec::new();
    let mut seen: u64 = 0;
    let drain_to = (limit as u64).saturating_mul(DRAIN_FACTOR);
    while let Some(frame) = body.frame().await {
        let frame = frame?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        seen = seen.saturating_add(data.len() as u64);
        if seen > drain_to {
            return Ok(None);
        }
        if seen <= limit as u64 {
            kept.extend_from_slice(&data);
        }
    }
    Ok((seen <= limit as u64).then(|| Bytes::from(kept)))
}

/// Answers one request; never fails (errors are responses).
pub(super) async fn handle(
    request: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let response = match (request.method(), request.uri().path()) {
        (&Method::GET, "/healthz" | "/readyz") => text(StatusCode::OK, "ok"),
        (_, "/healthz" | "/readyz") => {
            let mut r = text(StatusCode::METHOD_NOT_ALLOWED, "use GET");
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("GET"));
            r
        }
        (&Method::POST, "/validate") => validate(request, state).await,
        (_, "/validate") => {
            let mut r = text(
                StatusCode::METHOD_NOT_ALLOWED,
                "POST an admission.k8s.io/v1 AdmissionReview to /validate",
            );
            r.headers_mut()
                .insert(ALLOW, HeaderValue::from_static("POST"));
            r
        }
        (_, path) => text(
            StatusCode::NOT_FOUND,
            format!("no endpoint {path}: the webhook serves /validate, /healthz and /readyz"),
        ),
    };
    Ok(response)
}

async fn validate(request: Request<Incoming>, state: Arc<State>) -> Response<Full<Bytes>> {
    let started = Instant::now();
    if !is_json(&request) {
        let got = request
            .headers()
            .get(CONTENT_TYPE)
            .map_or("none".to_string(), |v| {
                String::from_utf8_lossy(v.as_bytes()).into_owned()
            });
        return text(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            format!("the content type must be application/json, got {got}"),
        );
    }
    let limit = state.max_body_bytes;
    let too_large = || {
        text(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the review is over the {limit}-byte limit"),
        )
    };
    let declared = request
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    // Far over the limit: refused at once (the connection closes unread).
    if declared.is_some_and(|n| n > (limit as u64).saturating_mul(DRAIN_FACTOR)) {
        return too_large();
    }
    let body = match read_body(request.into_body(), limit).await {
        Ok(Some(b)) => b,
        Ok(None) => return too_large(),
        Err(e) => {
            return text(
                StatusCode::BAD_REQUEST,
                format!("the body cannot be read: {e}"),
            )
        }
    };
    // The lint (or the module) is CPU work: off the async workers.
    let answered = tokio::task::spawn_blocking(move || state.judge.answer(&body)).await;
    let answer = match answered {
        Ok(Ok(a)) => a,
        Err(e) => {
            tracing::error!(error = %e, "the review's judge did not finish");
            return text(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the review was not judged",
            );
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "the review was not judged");
            return text(StatusCode::INTERNAL_SERVER_ERROR, e.to_string());
        }
    };
    let uid = answer
        .review
        .response
        .as_ref()
        .map(|r| r.uid.clone())
        .unwrap_or_default();
    tracing::debug!(%uid, outcome = ?answer.outcome, elapsed = ?started.elapsed(), "review answered");
    let status = match answer.outcome {
        Outcome::Allowed | Outcome::Denied => StatusCode::OK,
        Outcome::Malformed => StatusCode::BAD_REQUEST,
    };
    match serde_json::to_vec(&answer.review) {
        Ok(body) => json(status, body),
        Err(e) => text(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the answer cannot be written: {e}"),
        ),
    }
}
