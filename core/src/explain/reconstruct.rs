//! `podplan explain`: the runtime status the kubelet saw, reconstructed from a pod as the
//! API server serves it (spec + status), as a plan request for its next sync.
//!
//! What an API status cannot tell is assumed, and every assumption is listed (see
//! `docs/explain.md`): one sandbox (ready when the pod has an IP or
//! `PodReadyToStartContainers` is True; attempt 0; id unknown); container hashes match
//! the spec unless the reported image differs from the spec's; the newest instance of a
//! container is the one the status describes, plus its last termination as an older
//! exited instance; waiting reasons other than the kubelet's defaults are the reason
//! cache; probe results are what `ready`/`started` say (a running container with a
//! readiness probe and `ready: false` has a failing readiness result, the prober's initial
//! value); crash-loop back-off doubled since the first restart, with the kubelet's expiry.
//!
//! The pod gets the API server's defaults first (idempotent: a served pod already has
//! them), so a document that lacks a defaulted field (`enableServiceLinks` on pods from
//! before 1.13, trimmed pastes) does not hit an error the kubelet never sees. The node is
//! a plausible cluster node (`super::node`).

use k8s_openapi::api::core::v1::{Container, ContainerStatus, Pod, PodStatus};

use crate::backoff::{backoff_key, Backoff, BackoffPolicy};
use crate::hash::container_hash;
use crate::plan::BackoffRecord;
use crate::plan::ReasonCacheEntry;
use crate::plan::Warning;
use crate::request::{PlanRequest, ProbeResult, ProbeResults};
use crate::runtime::{
    ContainerState as RtState, ContainerStatus as RtStatus, LinuxSandboxStatus, NamespaceMode,
    RuntimeStatus, SandboxMetadata, SandboxNamespaceOptions, SandboxNamespaces, SandboxNetwork,
    SandboxState, SandboxStatus,
};

/// The id given to the sandbox the status implies (the real id is not in the API).
pub(crate) const SANDBOX_ID: &str = "sandbox-id-unknown";

/// A reconstructed request with what was assumed and what looked wrong.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Reconstruction {
    /// The request for the pod's next sync.
    pub request: PlanRequest,
    /// What the API status does not say and was assumed, in words.
    pub assumptions: Vec<String>,
    /// Contradictions between the status and the spec (or within the status).
    pub warnings: Vec<Warning>,
    /// Crash-loop back-off still to wait, per container: (name, seconds, until).
    pub backoff_remaining: Vec<(String, i64, jiff::Timestamp)>,
    /// Image-pull back-off still to wait, per container waiting in `ErrImagePull` /
    /// `ImagePullBackOff`: (name, seconds, until).
    pub image_backoff_remaining: Vec<(String, i64, jiff::Timestamp)>,
    /// Fields the document lacked that the API server's defaults filled (JSON paths).
    pub defaulted: Vec<String>,
    /// Running containers with a readiness probe whose status says `ready: false`.
    pub readiness_failing: Vec<String>,
    /// Config errors the pod's status shows the kubelet reported: (container, message).
    pub reported_config_errors: Vec<(String, String)>,
}

/// Image references compared as the runtime reports them: `nginx` ≡
/// `docker.io/library/nginx:latest` (the one normaliser, [`crate::images::reference`]'s).
pub(crate) use crate::images::reference::normalize_image;

fn ts(t: Option<&k8s_openapi::apimachinery::pkg::apis::meta::v1::Time>) -> Option<jiff::Timestamp> {
    t.map(|t| t.0)
}

struct Builder<'a> {
    pod: &'a Pod,
    now: jiff::Timestamp,
    policy: BackoffPolicy,
    out: Reconstruction,
    containers: Vec<RtStatus>,
}

impl Builder<'_> {
    fn container(&mut self, c: &Container, s: &ContainerStatus, kind: &str) {
        let spec_image = c.image.clone().unwrap_or_default();
        let image_differs = !s.image.is_empty()
            && normalize_image(&s.image) != normalize_image(&spec_image)
            && !s.image.starts_with("sha256:");
        let hash = if image_differs {
            self.out.assumptions.push(format!(
                "{kind} {}: the reported image {:?} differs from the spec's {spec_image:?}: the running container is taken to be from the old spec (its hash differs)",
                c.name, s.image
            ));
            container_hash(&c.name, &s.image)
        } else {
            container_hash(&c.name, &spec_image)
        };
        let id = s.container_id.clone().unwrap_or_default();
        let base = RtStatus {
            id: id.clone(),
            name: c.name.clone(),
            image: s.image.clone(),
            image_ref: s.image_id.clone(),
            hash,
            restart_count: s.restart_count,
            ..RtStatus::default()
        };
        let state = s.state.clone().unwrap_or_default();
        let last = s.last_state.as_ref().and_then(|l| l.terminated.as_ref());
        let mut reference_exit: Option<(jiff::Timestamp, Option<jiff::Timestamp>)> = None;
        if let Some(r) = &state.running {
            self.containers.push(RtStatus {
                state: RtState::Running,
                started_at: ts(r.started_at.as_ref()),
                created_at: ts(r.started_at.as_ref()),
                ..base.clone()
            });
            if s.ready {
                self.probe(&id, |p| p.readiness = Some(ProbeResult::Success));
            } else if c.readiness_probe.is_some() {
                // The prober's initial readiness result is Failure
                // (`pkg/kubelet/prober/worker.go`), and `ready: false` says it still is.
                self.probe(&id, |p| p.readiness = Some(ProbeResult::Failure));
                self.out.readiness_failing.push(c.name.clone());
                self.out.assumptions.push(format!(
                    "{kind} {}: running with ready: false: its readiness probe is failing (the kubelet never restarts a container for readiness)",
                    c.name
                ));
            }
            if c.startup_probe.is_some() {
                let result = if s.started == Some(true) {
                    ProbeResult::Success
                } else {
                    ProbeResult::Unknown
                };
                self.probe(&id, |p| p.startup = Some(result));
            }
        } else if let Some(t) = &state.terminated {
            reference_exit = self.push_exited(t, &id, &base).or(reference_exit);
        } else if let Some(w) = &state.waiting {
            let reason = w.reason.clone().unwrap_or_default();
            if !matches!(
                reason.as_str(),
                "" | "ContainerCreating" | "PodInitializing"
            ) {
                self.out.request.reason_cache.insert(
                    c.name.clone(),
                    ReasonCacheEntry {
                        reason: reason.clone(),
                        message: w.message.clone().unwrap_or_default(),
                    },
                );
            }
            if let Some(t) = last {
                // The newest instance is the one that last terminated.
                reference_exit = self.push_exited(t, &id, &base).or(reference_exit);
            } else if id.is_empty() {
                self.out.assumptions.push(format!(
                    "{kind} {}: waiting ({}) with no container id: never created in the runtime",
                    c.name,
                    if reason.is_empty() {
                        "no reason"
                    } else {
                        &reason
                    }
                ));
            }
        }
        if let Some((finished, started)) = reference_exit {
            self.backoff(c, s, finished, started, kind);
        }
    }

    /// An exited instance from a `terminated` state (its own id when it has one, else
    /// `id`); its finish and start times when it has finished.
    fn push_exited(
        &mut self,
        t: &k8s_openapi::api::core::v1::ContainerStateTerminated,
        id: &str,
        base: &RtStatus,
    ) -> Option<(jiff::Timestamp, Option<jiff::Timestamp>)> {
        let tid = t
            .container_id
            .clone()
            .filter(|i| !i.is_empty())
            .unwrap_or_else(|| id.to_string());
        self.containers.push(RtStatus {
            id: tid,
            state: RtState::Exited,
            exit_code: t.exit_code,
            reason: t.reason.clone().unwrap_or_default(),
            message: t.message.clone().unwrap_or_default(),
            started_at: ts(t.started_at.as_ref()),
            created_at: ts(t.started_at.as_ref()),
            finished_at: ts(t.finished_at.as_ref()),
            ..base.clone()
        });
        ts(t.finished_at.as_ref()).map(|f| (f, ts(t.started_at.as_ref())))
    }

    fn probe(&mut self, id: &str, f: impl FnOnce(&mut ProbeResults)) {
        if id.is_empty() {
            return;
        }
        f(self.out.request.probes.entry(id.to_string()).or_default());
    }

    /// After restart n the kubelet's back-off delay is initial × 2^(n-1), capped.
    fn backoff(
        &mut self,
        c: &Container,
        s: &ContainerStatus,
        finished: jiff::Timestamp,
        started: Option<jiff::Timestamp>,
        kind: &str,
    ) {
        let Ok(restarts) = u32::try_from(s.restart_count) else {
            return;
        };
        if restarts == 0 {
            return;
        }
        let factor = 1_u64
            .checked_shl(restarts.saturating_sub(1).min(32))
            .unwrap_or(u64::MAX);
        let delay = self
            .policy
            .initial_seconds
            .saturating_mul(factor)
            .min(self.policy.max_seconds);
        let key = backoff_key(
            self.pod,
            &c.name,
            c.image.as_deref().unwrap_or(""),
            c.resources.as_ref(),
        );
        let record = BackoffRecord {
            key: key.clone(),
            container: c.name.clone(),
            delay_seconds: delay,
            last_update: started.unwrap_or(finished),
        };
        // The remaining wait comes from the very table the plan reads
        // (`IsInBackOffSince`), so the two never disagree: an expired record (the
        // container ran more than 600 s) holds nothing back.
        let held = Backoff::new(self.policy, self.now, std::slice::from_ref(&record))
            .in_backoff_since(&key, finished);
        self.out.request.backoff.push(record);
        let expired = started
            .is_some_and(|s| finished.as_second() - s.as_second() > crate::backoff::EXPIRY_SECONDS);
        let until = held.unwrap_or_else(|| {
            if expired {
                finished
            } else {
                finished
                    .checked_add(jiff::SignedDuration::from_secs(
                        i64::try_from(delay).unwrap_or(i64::MAX),
                    ))
                    .unwrap_or(finished)
            }
        });
        let remaining = held.map_or(0, |u| (u.as_second() - self.now.as_second()).max(0));
        self.out
            .backoff_remaining
            .push((c.name.clone(), remaining, until));
        if expired {
            self.out.assumptions.push(format!(
                "{kind} {}: its last instance ran more than {}s (started {}, finished {finished}): the kubelet's back-off record has expired, so nothing holds the restart back and the next delay starts again from {}s",
                c.name,
                crate::backoff::EXPIRY_SECONDS,
                started.map_or(String::new(), |s| s.to_string()),
                self.policy.initial_seconds
            ));
        } else {
            self.out.assumptions.push(format!(
                "{kind} {}: restartCount {restarts} read as {restarts} back-off doublings since the first restart (none expired): delay {delay}s from finishedAt {finished}",
                c.name
            ));
        }
    }
}

/// Reconstructs the request of the pod's next sync at `now`.
#[must_use]
pub fn reconstruct(pod: &Pod, now: jiff::Timestamp) -> Reconstruction {
    let (defaulted_pod, defaulted) = with_api_defaults(pod);
    let pod = &defaulted_pod;
    let empty = PodStatus::default();
    let status = pod.status.as_ref().unwrap_or(&empty);
    let mut b = Builder {
        pod,
        now,
        policy: BackoffPolicy::default(),
        out: Reconstruction::default(),
        containers: Vec::new(),
    };
    b.out.warnings = crate::status::check::check_status("pod.status", pod.spec.as_ref(), status);
    if pod.status.is_none() {
        b.out.warnings.insert(
            0,
            Warning {
                path: "pod.status".to_string(),
                message: "no status: this is a manifest, not a pod from the API server; explaining it as a new pod".to_string(),
            },
        );
    }

    let spec = pod.spec.clone().unwrap_or_default();
    let host_network = spec.host_network.unwrap_or(false);
    let pod_ip = status
        .pod_ip
        .clone()
        .filter(|ip| !ip.is_empty())
        .or_else(|| {
            status
                .pod_ips
                .as_ref()
                .and_then(|ips| ips.first())
                .map(|ip| ip.ip.clone())
        });
    let rtsc = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == "PodReadyToStartContainers")
        .map(|c| c.status.clone());
    let any_container_id = status
        .container_statuses
        .iter()
        .chain(status.init_container_statuses.iter())
        .flatten()
        .any(|s| s.container_id.as_deref().is_some_and(|i| !i.is_empty()));
    let sandbox_state = match (rtsc.as_deref(), pod_ip.is_some()) {
        (Some("True"), _) => Some(SandboxState::Ready),
        (Some(_), _) if any_container_id || pod_ip.is_some() => Some(SandboxState::NotReady),
        (Some(_), _) => None,
        (None, true) => Some(SandboxState::Ready),
        (None, false) if any_container_id => Some(SandboxState::NotReady),
        (None, false) => None,
    };
    let mut sandboxes = Vec::new();
    match sandbox_state {
        Some(state) => {
            b.out.assumptions.push(format!(
                "one sandbox, {} ({}); its id and attempt are not in the API: id {SANDBOX_ID:?}, attempt 0",
                if state == SandboxState::Ready { "ready" } else { "not ready" },
                match (rtsc.as_deref(), &pod_ip) {
                    (Some(c), _) => format!("PodReadyToStartContainers is {c}"),
                    (None, Some(ip)) => format!("the pod has IP {ip}"),
                    (None, None) => "containers were created, but the pod has no IP".to_string(),
                }
            ));
            sandboxes.push(SandboxStatus {
                id: SANDBOX_ID.to_string(),
                metadata: Some(SandboxMetadata {
                    name: pod.metadata.name.clone().unwrap_or_default(),
                    uid: pod.metadata.uid.clone().unwrap_or_default(),
                    namespace: pod.metadata.namespace.clone().unwrap_or_default(),
                    attempt: 0,
                }),
                state,
                network: (!host_network).then(|| SandboxNetwork {
                    ip: pod_ip.clone().unwrap_or_default(),
                    additional_ips: Vec::new(),
                }),
                linux: host_network.then(|| LinuxSandboxStatus {
                    namespaces: Some(SandboxNamespaces {
                        options: Some(SandboxNamespaceOptions {
                            network: NamespaceMode::Node,
                            ..SandboxNamespaceOptions::default()
                        }),
                    }),
                }),
                ..SandboxStatus::default()
            });
        }
        None => b.out.assumptions.push(
            "no sandbox: the pod has no IP, no container was ever created, and PodReadyToStartContainers is not True".to_string(),
        ),
    }
    let lists = [
        (
            "init container",
            spec.init_containers.clone().unwrap_or_default(),
            status.init_container_statuses.clone(),
        ),
        (
            "container",
            spec.containers.clone(),
            status.container_statuses.clone(),
        ),
    ];
    for (kind, containers, statuses) in lists {
        for c in &containers {
            if let Some(s) = statuses.iter().flatten().find(|s| s.name == c.name) {
                b.container(c, s, kind);
            }
        }
    }
    for e in spec.ephemeral_containers.iter().flatten() {
        if let Some(s) = status
            .ephemeral_container_statuses
            .iter()
            .flatten()
            .find(|s| s.name == e.name)
        {
            let c = Container {
                name: e.name.clone(),
                image: e.image.clone(),
                ..Container::default()
            };
            b.container(&c, s, "ephemeral container");
        }
    }
    // Newest first.
    b.containers
        .sort_by_key(|s| std::cmp::Reverse(s.created_at));
    b.out.assumptions.push(
        "older exited instances (before each container's last termination) are gone; liveness probes have no failing result".to_string(),
    );
    let host_ips: Vec<String> = status
        .host_ips
        .iter()
        .flatten()
        .map(|h| h.ip.clone())
        .collect();
    b.out.request.pod = pod.clone();
    b.out.request.runtime_status = Some(RuntimeStatus {
        id: pod.metadata.uid.clone().unwrap_or_default(),
        name: pod.metadata.name.clone().unwrap_or_default(),
        namespace: pod.metadata.namespace.clone().unwrap_or_default(),
        ips: status
            .pod_ips
            .iter()
            .flatten()
            .map(|ip| ip.ip.clone())
            .collect(),
        sandbox_statuses: sandboxes,
        container_statuses: b.containers,
    });
    b.out.request.now = Some(now);
    let guess = super::images::images(pod, now);
    b.out.request.images = guess.images;
    b.out.request.image_backoff = guess.image_backoff;
    b.out.image_backoff_remaining = guess.remaining;
    b.out.assumptions.extend(guess.assumptions);
    let node = super::node::node(pod, host_ips);
    b.out.request.node = Some(node.node);
    b.out.assumptions.extend(node.assumptions);
    b.out.reported_config_errors = node.reported;
    if let Some(created) = pod.metadata.creation_timestamp.as_ref().map(|t| t.0) {
        if now < created {
            b.out.warnings.push(Warning {
                path: "now".to_string(),
                message: format!(
                    "the time of the sync ({now}) is before the pod was created ({created}): waits and ages are computed from a time the pod had not reached"
                ),
            });
        }
    }
    if !defaulted.is_empty() {
        b.out.assumptions.push(format!(
            "the document lacks fields every served pod has; the API server's defaults were applied to them: {}",
            defaulted.join(", ")
        ));
    }
    b.out.defaulted = defaulted;
    b.out
}

/// `pod` with the API server's defaults (1.37 default gates) and the JSON paths of the
/// fields they filled (at most 12 named).
#[must_use]
pub(crate) fn with_api_defaults(pod: &Pod) -> (Pod, Vec<String>) {
    let mut out = pod.clone();
    crate::defaults::apply_api_defaults_with(&mut out, &crate::features::FeatureGates::default());
    let mut paths = Vec::new();
    if let (Ok(before), Ok(after)) = (serde_json::to_value(pod), serde_json::to_value(&out)) {
        added_paths(&before, &after, "pod", &mut paths);
    }
    if paths.len() > 12 {
        let more = paths.len() - 12;
        paths.truncate(12);
        paths.push(format!("and {more} more"));
    }
    (out, paths)
}

/// Paths present in `after` but not in `before`.
fn added_paths(
    before: &serde_json::Value,
    after: &serde_json::Value,
    path: &str,
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for (k, av) in a {
                let p = format!("{path}.{k}");
                match b.get(k) {
                    None | Some(Value::Null) => out.push(p),
                    Some(bv) => added_paths(bv, av, &p, out),
                }
            }
        }
        (Value::Array(b), Value::Array(a)) => {
            for (i, (bv, av)) in b.iter().zip(a).enumerate() {
                added_paths(bv, av, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}
