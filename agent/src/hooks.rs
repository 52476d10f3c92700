//! Lifecycle hooks carried out over CRI, as the plan's hook steps describe them
//! (`StartContainer.postStart`, `KillContainer.preStop`, `KillPod.preStops`): the agent
//! runs exactly the step's handler and reports what happened in the next request's
//! `hookResults`, in the shapes the model runtime reports (`podplan_core::sim::hooks`).
//! What follows a failure is the step's `onFailure`, never the agent's choice.
//!
//! * `exec`: `ExecSync` in the container. A non-zero exit fails the hook with the error
//!   the kubelet's CRI client makes of it (`command 'sh -c exit 1' exited with 1: …`),
//!   the output (stdout then stderr) is the result's `message`.
//! * `httpGet`: one HTTP/1.1 GET to the step's `host:port` and `path` with its headers;
//!   only a transport error fails it (the status code does not count). `https` is not
//!   supported by the agent: the hook fails, saying so.
//! * `sleep`: the agent sleeps (a preStop at most its `timeoutSeconds`).
//! * A step whose handler cannot run (`invalid`) fails at once with that message.
//!
//! A preStop runs for at most the step's `timeoutSeconds`; `StopContainer` then gets
//! `podplan_core::hooks::kill_grace(timeout, true, elapsed).stop_grace_period_seconds`.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use podplan_core::hooks::{kill_grace, HookHandler, HookKind, HookResult, HookStep};

use super::runtime::{bare_id, CriRuntime};

/// What running one handler gave.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Ran {
    /// The handler's error (`handlerRunner.Run`'s), none on success.
    error: Option<String>,
    /// Its output (exec).
    output: String,
    /// How long it ran, milliseconds.
    millis: u64,
}

fn millis_since(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// Runs `step`'s handler in container `container_id` (bare or `<runtime>://` id), waiting
/// at most `limit` (none: no limit).
fn run(
    cri: &mut dyn CriRuntime,
    step: &HookStep,
    container_id: &str,
    limit: Option<Duration>,
) -> Ran {
    let started = Instant::now();
    if let Some(why) = &step.invalid {
        return Ran {
            error: Some(why.clone()),
            ..Ran::default()
        };
    }
    let Some(handler) = &step.handler else {
        return Ran {
            error: Some("Cannot run handler: invalid handler".into()),
            ..Ran::default()
        };
    };
    let (error, output) = match handler {
        HookHandler::Exec { command } => {
            let answer = match limit {
                // `executePreStopHook` stops waiting when the grace period is over.
                Some(limit) => cri.exec_sync_within(bare_id(container_id), command, limit, limit),
                None => cri.exec_sync(bare_id(container_id), command, Duration::ZERO),
            };
            match answer {
                Ok(r) => {
                    let mut output = r.stdout.clone();
                    output.extend_from_slice(&r.stderr);
                    let output = String::from_utf8_lossy(&output).into_owned();
                    let error = (r.exit_code != 0).then(|| {
                        format!(
                            "command '{}' exited with {}: {}",
                            command.join(" "),
                            r.exit_code,
                            String::from_utf8_lossy(&r.stderr)
                        )
                    });
                    (error, output)
                }
                Err(e) => (Some(e.message), String::new()),
            }
        }
        HookHandler::HttpGet {
            scheme,
            host,
            port,
            path,
            url,
            headers,
        } => (
            http_get(scheme, host, *port, path, url, headers, limit).err(),
            String::new(),
        ),
        HookHandler::Sleep { seconds } => {
            let wanted = Duration::from_secs(u64::try_from(*seconds).unwrap_or(0));
            match limit {
                Some(limit) if limit < wanted => {
                    std::thread::sleep(limit);
                    (
                        Some("container terminated before sleep hook finished".into()),
                        String::new(),
                    )
                }
                _ => {
                    std::thread::sleep(wanted);
                    (None, String::new())
                }
            }
        }
    };
    let millis = millis_since(started);
    Ran {
        error,
        output,
        millis,
    }
}

/// One GET, as the kubelet's lifecycle HTTP client sends it (`kube-lifecycle` user agent,
/// the step's headers). `Err`: the transport error, worded as Go's `http.Client` does.
fn http_get(
    scheme: &str,
    host: &str,
    port: i32,
    path: &str,
    url: &str,
    headers: &[(String, String)],
    limit: Option<Duration>,
) -> Result<(), String> {
    if !scheme.eq_ignore_ascii_case("http") {
        return Err(format!(
            "Get {url:?}: {scheme} lifecycle hooks are not supported by podplan agent"
        ));
    }
    let host_port = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    let dial = |e: &dyn std::fmt::Display| format!("Get {url:?}: dial tcp {host_port}: {e}");
    let addr = host_port
        .to_socket_addrs()
        .map_err(|e| dial(&e))?
        .next()
        .ok_or_else(|| dial(&"no address"))?;
    let timeout = limit
        .filter(|d| !d.is_zero())
        .unwrap_or(Duration::from_secs(120));
    let mut stream = TcpStream::connect_timeout(&addr, timeout).map_err(|e| {
        if e.kind() == std::io::ErrorKind::ConnectionRefused {
            dial(&"connect: connection refused")
        } else {
            dial(&e)
        }
    })?;
    let io = |e: std::io::Error| format!("Get {url:?}: {e}");
    stream.set_read_timeout(Some(timeout)).map_err(io)?;
    stream.set_write_timeout(Some(timeout)).map_err(io)?;
    let path = if path.starts_with('/') {
        path.to_string()
    } else {
        format!("/{path}")
    };
    let mut request = format!("GET {path} HTTP/1.1\r\nHost: {host_port}\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("Connection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).map_err(io)?;
    // Any answer will do: only the transport counts.
    let mut first = [0_u8; 1];
    match stream.read(&mut first) {
        Ok(0) => Err(format!("Get {url:?}: EOF")),
        Ok(_) => Ok(()),
        Err(e) => Err(io(e)),
    }
}

/// Runs a postStart step in the container `container_id` (`<runtime>://id`), right after
/// its start: `None` when it succeeded, else the result to report (the hook failed).
#[must_use]
pub fn post_start(
    cri: &mut dyn CriRuntime,
    step: &HookStep,
    container_id: &str,
) -> Option<HookResult> {
    let ran = run(cri, step, container_id, None);
    let error = ran.error?;
    let message = (!ran.output.is_empty()).then_some(ran.output);
    Some(HookResult {
        container_id: container_id.to_string(),
        hook: HookKind::PostStart,
        error: Some(error),
        message,
        elapsed_millis: None,
        stop_grace_period_seconds: None,
    })
}

/// Runs a preStop step before the stop of `container_id` (`<runtime>://id`), for at most
/// its `timeoutSeconds`: the result, with the grace `StopContainer` is to get.
#[must_use]
pub fn pre_stop(cri: &mut dyn CriRuntime, step: &HookStep, container_id: &str) -> HookResult {
    let timeout = step.timeout_seconds.unwrap_or(0);
    let limit = Duration::from_secs(u64::try_from(timeout).unwrap_or(0));
    let ran = run(cri, step, container_id, Some(limit));
    let millis = ran
        .millis
        .min(u64::try_from(timeout).unwrap_or(0).saturating_mul(1000));
    let grace = kill_grace(timeout, true, millis);
    let failed = ran.error.is_some();
    HookResult {
        container_id: container_id.to_string(),
        hook: HookKind::PreStop,
        error: ran.error,
        message: (failed && !ran.output.is_empty()).then_some(ran.output),
        elapsed_millis: Some(millis),
        stop_grace_period_seconds: Some(grace.stop_grace_period_seconds),
    }
}

/// The message the kubelet's handler runner logs for a failed hook (the waiting message
/// of a failed postStart): `podplan_core::hooks::failure_message`, or the reason a
/// handler cannot run.
#[must_use]
pub fn failure_message(
    step: &HookStep,
    pod: &k8s_openapi::api::core::v1::Pod,
    result: &HookResult,
) -> String {
    let error = result.error.clone().unwrap_or_default();
    match &step.handler {
        Some(handler) if step.invalid.is_none() => podplan_core::hooks::failure_message(
            handler,
            &step.container,
            pod,
            &error,
            result.message.as_deref().unwrap_or(""),
        ),
        _ => error,
    }
}
