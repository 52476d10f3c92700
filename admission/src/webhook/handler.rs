//! One HTTP request: routing, content type, body limit and timeout, the in-flight limit,
//! the review's deadline, and the answer.

use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, ALLOW, CONNECTION, CONTENT_LENGTH, CONTENT_TYPE, RETRY_AFTER};
use hyper::{Method, Request, Response, StatusCode};
use podplan_core::lint::Rule;
use tokio::sync::Semaphore;

use super::metrics::Metrics;
use super::{tls, Judge};
use crate::{Answer, Outcome};

/// The limits a request meets (from [`super::Config`]).
#[derive(Debug, Clone)]
pub(super) struct Limits {
    pub max_body_bytes: usize,
    pub queue_wait: Duration,
    pub review_timeout: Duration,
    pub body_read_timeout: Duration,
    pub max_requests_per_connection: u32,
}

/// What every request shares.
#[derive(Debug)]
pub(super) struct State {
    pub judge: Arc<Judge>,
    pub limits: Limits,
    /// Reviews being read or judged ([`super::Config::max_in_flight`]).
    pub in_flight: Arc<Semaphore>,
    /// Judges running on the blocking pool ([`super::Config::lint_workers`]).
    pub workers: Arc<Semaphore>,
    /// The judges' memory, in KiB ([`super::Config::judge_memory_bytes`]): a judge takes
    /// [`JUDGE_MEMORY_FACTOR`] times its body, so large reviews are judged one at a time.
    pub judge_memory: Arc<Semaphore>,
    /// The size of `judge_memory`, in KiB.
    pub judge_memory_kib: u32,
    pub metrics: Metrics,
    /// From the shutdown signal on: readiness false, every answer closes its connection.
    pub draining: AtomicBool,
    pub certs: Arc<tls::CertReloader>,
    /// `--client-ca-file` given: `/validate` needs a verified client certificate.
    pub client_auth: bool,
}

impl State {
    pub(super) fn draining(&self) -> bool {
        self.draining.load(Ordering::Relaxed)
    }

    /// Ready: not draining, and serving a certificate that is valid now.
    fn ready(&self) -> Result<(), String> {
        if self.draining() {
            return Err("draining: shutting down".into());
        }
        self.certs.check_validity()
    }
}

/// What the server knows about one connection.
#[derive(Debug, Default)]
pub(super) struct Connection {
    /// Requests read on it so far.
    pub requests: AtomicU32,
    /// Whether the client presented a certificate the client CA verified (TLS only).
    pub client_verified: bool,
    /// The plain-HTTP metrics listener: no `/validate` there.
    pub plain: bool,
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

fn close(mut response: Response<Full<Bytes>>) -> Response<Full<Bytes>> {
    response
        .headers_mut()
        .insert(CONNECTION, HeaderValue::from_static("close"));
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

/// Answers one request; never fails (errors are responses). Past the connection's
/// request limit, and while draining, the answer closes the connection (`Connection:
/// close`), so that clients open a new one, to a replica that is ready.
pub(super) async fn handle(
    request: Request<Incoming>,
    state: Arc<State>,
    connection: Arc<Connection>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let served = connection
        .requests
        .fetch_add(1, Ordering::Relaxed)
        .saturating_add(1);
    let response = route(request, &state, &connection).await;
    let last = served >= state.limits.max_requests_per_connection || state.draining();
    Ok(if last { close(response) } else { response })
}

fn method_not_allowed(allow: &'static str, message: &str) -> Response<Full<Bytes>> {
    let mut r = text(StatusCode::METHOD_NOT_ALLOWED, message);
    r.headers_mut()
        .insert(ALLOW, HeaderValue::from_static(allow));
    r
}

async fn route(
    request: Request<Incoming>,
    state: &Arc<State>,
    connection: &Connection,
) -> Response<Full<Bytes>> {
    match (request.method(), request.uri().path()) {
        (&Method::GET, "/healthz") => text(StatusCode::OK, "ok"),
        (&Method::GET, "/readyz") => match state.ready() {
            Ok(()) => text(StatusCode::OK, "ok"),
            Err(why) => text(StatusCode::SERVICE_UNAVAILABLE, why),
        },
        (&Method::GET, "/metrics") => {
            let mut r = Response::new(Full::new(Bytes::from(state.metrics.encode())));
            r.headers_mut().insert(
                CONTENT_TYPE,
                HeaderValue::from_static(
                    "application/openmetrics-text; version=1.0.0; charset=utf-8",
                ),
            );
            r
        }
        (_, "/healthz" | "/readyz" | "/metrics") => method_not_allowed("GET", "use GET"),
        (_, "/validate") if connection.plain => text(
            StatusCode::NOT_FOUND,
            "the metrics address serves /metrics, /healthz and /readyz; reviews go to the HTTPS port",
        ),
        (&Method::POST, "/validate") => {
            if state.client_auth && !connection.client_verified {
                state.metrics.rejected("unauthenticated");
                return text(
                    StatusCode::FORBIDDEN,
                    "a client certificate signed by the --client-ca-file CA is required",
                );
            }
            validate(request, state).await
        }
        (_, "/validate") => method_not_allowed(
            "POST",
            "POST an admission.k8s.io/v1 AdmissionReview to /validate",
        ),
        (_, path) => text(
            StatusCode::NOT_FOUND,
            format!(
                "no endpoint {path}: the webhook serves /validate, /healthz, /readyz and /metrics"
            ),
        ),
    }
}

/// Holds a review's place in the in-flight gauge while it lives.
struct InFlight<'a>(&'a Metrics);

impl<'a> InFlight<'a> {
    fn new(metrics: &'a Metrics) -> Self {
        metrics.in_flight.inc();
        Self(metrics)
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.in_flight.dec();
    }
}

async fn validate(request: Request<Incoming>, state: &Arc<State>) -> Response<Full<Bytes>> {
    let started = Instant::now();
    let deadline = started + state.limits.review_timeout;
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
    let limit = state.limits.max_body_bytes;
    let too_large = || {
        state.metrics.rejected("too_large");
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
        return close(too_large());
    }
    // The in-flight limit bounds the memory: at most `max_in_flight` bodies of at most
    // `max_body_bytes` are held at once. A review waits for a place at most `queue_wait`.
    let Ok(Ok(_place)) = tokio::time::timeout(
        state.limits.queue_wait,
        Arc::clone(&state.in_flight).acquire_owned(),
    )
    .await
    else {
        state.metrics.rejected("overloaded");
        let mut r = text(
            StatusCode::TOO_MANY_REQUESTS,
            "too many reviews in flight; retry",
        );
        r.headers_mut()
            .insert(RETRY_AFTER, HeaderValue::from_static("1"));
        return close(r); // the body is not read
    };
    let _gauge = InFlight::new(&state.metrics);
    let body = match tokio::time::timeout(
        state.limits.body_read_timeout,
        read_body(request.into_body(), limit),
    )
    .await
    {
        Ok(Ok(Some(b))) => b,
        Ok(Ok(None)) => return close(too_large()),
        Ok(Err(e)) => {
            return close(text(
                StatusCode::BAD_REQUEST,
                format!("the body cannot be read: {e}"),
            ))
        }
        Err(_) => {
            state.metrics.rejected("body_timeout");
            tracing::info!(timeout = ?state.limits.body_read_timeout, "a review body was not sent in time; connection closed");
            return close(text(
                StatusCode::REQUEST_TIMEOUT,
                format!(
                    "the body was not received within {:?}",
                    state.limits.body_read_timeout
                ),
            ));
        }
    };
    // The lint (or the policy module) is CPU work: on the blocking pool, at most
    // `lint_workers` at once, and answered by the deadline.
    let judged = tokio::time::timeout_at(deadline.into(), judge(state, body.clone())).await;
    let elapsed = started.elapsed();
    let (status, answer, outcome) = match judged {
        Ok(Ok((answer, bytes))) => {
            let status = match answer.outcome {
                Outcome::Allowed | Outcome::Denied => StatusCode::OK,
                Outcome::Malformed => StatusCode::BAD_REQUEST,
            };
            count_findings(&state.metrics, &answer);
            let outcome = match answer.outcome {
                Outcome::Allowed => "allowed",
                Outcome::Denied => "denied",
                Outcome::Malformed => "malformed",
            };
            (status, bytes, outcome)
        }
        Ok(Err(message)) => {
            state.metrics.review("error", elapsed.as_secs_f64());
            tracing::warn!(error = %message, "the review was not judged");
            return text(StatusCode::INTERNAL_SERVER_ERROR, message);
        }
        Err(_) => {
            state.metrics.deadline_exceeded();
            let uid = review_uid(&body);
            tracing::warn!(%uid, timeout = ?state.limits.review_timeout, "review deadline passed: answered allowed, not checked");
            (
                StatusCode::OK,
                unchecked(&uid, state.limits.review_timeout),
                "timeout",
            )
        }
    };
    state.metrics.review(outcome, elapsed.as_secs_f64());
    tracing::debug!(outcome, ?elapsed, "review answered");
    json(status, answer)
}

/// How much memory a judge takes at its peak, as a multiple of the review's size:
/// measured with `podplan webhook` on reviews of pods with 1,900 and 3,400 containers
/// of 20 variables each (1.5 and 2.7 MB: peak RSS 177 and 273 MiB, one judge at a time):
/// the review's JSON tree, the object's copy, the typed pod, and one finding per
/// unexpanded variable in the answer.
pub(super) const JUDGE_MEMORY_FACTOR: usize = 128;

/// Judges `body` on the blocking pool once a worker and its memory are free: the answer
/// and its JSON.
async fn judge(state: &Arc<State>, body: Bytes) -> Result<(Answer, Vec<u8>), String> {
    let kib = u32::try_from(body.len().saturating_mul(JUDGE_MEMORY_FACTOR) / 1024)
        .unwrap_or(u32::MAX)
        .clamp(1, state.judge_memory_kib);
    let memory = Arc::clone(&state.judge_memory)
        .acquire_many_owned(kib)
        .await
        .map_err(|_| "the lint workers are closed".to_string())?;
    let worker = Arc::clone(&state.workers)
        .acquire_owned()
        .await
        .map_err(|_| "the lint workers are closed".to_string())?;
    let judge = Arc::clone(&state.judge);
    // The worker's place goes with the task: a judge still running after its review's
    // deadline keeps it until it returns, so the pool never grows past its size.
    let task = tokio::task::spawn_blocking(move || {
        let _worker = (worker, memory);
        let answer = judge.answer(&body).map_err(|e| e.to_string())?;
        let bytes = serde_json::to_vec(&answer.review)
            .map_err(|e| format!("the answer cannot be written: {e}"))?;
        Ok((answer, bytes))
    });
    task.await
        .map_err(|e| format!("the review's judge did not finish: {e}"))?
}

/// The lint rule a finding's text (`<rule> at <path>: <message>`) names, if any.
fn rule_of(line: &str) -> Option<&'static str> {
    let id = line.split(" at ").next()?;
    Rule::from_id(id).map(Rule::id)
}

fn count_findings(metrics: &Metrics, answer: &Answer) {
    let Some(response) = answer.review.response.as_ref() else {
        return;
    };
    if !response.allowed {
        for rule in response.result.message.lines().filter_map(rule_of) {
            metrics.finding(rule, "deny");
        }
    }
    for rule in response
        .warnings
        .iter()
        .flatten()
        .filter_map(|w| rule_of(w))
    {
        metrics.finding(rule, "warn");
    }
}

/// The uid of a review, read without building the object (empty when unreadable).
fn review_uid(body: &[u8]) -> String {
    #[derive(serde::Deserialize)]
    struct Request {
        #[serde(default)]
        uid: String,
    }
    #[derive(serde::Deserialize)]
    struct Review {
        request: Option<Request>,
    }
    serde_json::from_slice::<Review>(body)
        .ok()
        .and_then(|r| r.request)
        .map(|r| r.uid)
        .unwrap_or_default()
}

/// The answer to a review whose deadline passed: allowed, with a warning that says it
/// was not checked (the API server shows warnings to the client).
fn unchecked(uid: &str, timeout: Duration) -> Vec<u8> {
    let review = serde_json::json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "response": {
            "uid": uid,
            "allowed": true,
            "warnings": [format!("podplan did not finish in {}: not checked", seconds(timeout))],
        }
    });
    serde_json::to_vec(&review).unwrap_or_default()
}

/// `4s`, `250ms`, `1.5s`.
pub(super) fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 && d.as_secs() > 0 {
        format!("{}s", d.as_secs())
    } else if d.as_secs() == 0 {
        format!("{}ms", d.as_millis())
    } else {
        format!("{}s", d.as_secs_f64())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn findings_are_read_by_rule_id() {
        assert_eq!(
            rule_of("config-error at spec.containers[0]: x at y"),
            Some("config-error")
        );
        assert_eq!(rule_of("probe-ends-pod at spec: z"), Some("probe-ends-pod"));
        assert_eq!(rule_of("something else"), None);
    }

    #[test]
    fn the_unchecked_answer_echoes_the_uid_and_warns() {
        let uid = review_uid(br#"{"request": {"uid": "u-9", "object": {"a": [1, 2]}}}"#);
        assert_eq!(uid, "u-9");
        let v: Value = serde_json::from_slice(&unchecked(&uid, Duration::from_secs(4))).unwrap();
        assert_eq!(v["response"]["uid"], "u-9");
        assert_eq!(v["response"]["allowed"], true);
        assert_eq!(
            v["response"]["warnings"][0],
            "podplan did not finish in 4s: not checked"
        );
        assert_eq!(seconds(Duration::from_millis(250)), "250ms");
        assert_eq!(review_uid(b"not json"), "");
    }
}
