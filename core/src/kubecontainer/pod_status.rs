//! Lookups over the runtime status (`kubecontainer.PodStatus`) and the prober results.
//!
//! * [`StatusView::find`] is `FindContainerStatusByName`: the first (newest) status with
//!   that name, whichever sandbox it belongs to.
//! * [`StatusView::find_active`] is `FindActiveContainerStatusByName`: the same lookup over
//!   `ActiveContainerStatuses`. The contract's rule: a status belongs to the sandbox named
//!   by its `podSandboxId`, or to the latest sandbox when that is absent; it is *active*
//!   when that sandbox is the latest one (`sandboxStatuses[0]`) and the latest sandbox is
//!   `SANDBOX_READY`. With a non-ready (or no) latest sandbox nothing is active.

use crate::request::{PlanRequest, ProbeResult};
use crate::runtime::{ContainerState, ContainerStatus, SandboxState, SandboxStatus};

/// Read-only view of what the runtime reports about the pod.
#[derive(Debug, Clone)]
pub(crate) struct StatusView<'a> {
    sandboxes: &'a [SandboxStatus],
    containers: &'a [ContainerStatus],
    /// The id of the active sandbox (the latest one, when it is ready).
    active_sandbox: Option<&'a str>,
    latest_sandbox: Option<&'a str>,
    /// [`Self::find`]'s index (`None`: a short list, scanned).
    by_name: Option<FirstByName<'a>>,
    /// [`Self::find_active`]'s index (`None`: a short list, scanned).
    active_by_name: Option<FirstByName<'a>>,
}

/// Lists up to this long are scanned rather than indexed: building the index costs more
/// than the scans it saves.
pub(crate) const SCAN_UP_TO: usize = 8;

/// The position of the first item of each name in a list: the kubelet's "first with this
/// name" lookups (`FindContainerStatusByName` and the like) in O(log n), where a scan per
/// container made a plan quadratic in the pod's size.
#[derive(Debug, Clone, Default)]
pub(crate) struct FirstByName<'a> {
    /// (name, position), sorted by name; one entry per name, its first position.
    sorted: Vec<(&'a str, usize)>,
}

impl<'a> FirstByName<'a> {
    /// Indexes `(name, position)` pairs given in list order.
    #[must_use]
    pub(crate) fn new(entries: impl IntoIterator<Item = (&'a str, usize)>) -> Self {
        let mut sorted: Vec<(&'a str, usize)> = entries.into_iter().collect();
        // A stable sort keeps each name's entries in list order: the first one stays.
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        sorted.dedup_by(|later, first| later.0 == first.0);
        Self { sorted }
    }

    /// Indexes `items` by `name` when the list is long enough for an index to pay.
    #[must_use]
    pub(crate) fn of<T>(items: &'a [T], name: impl Fn(&'a T) -> &'a str) -> Option<Self> {
        (items.len() > SCAN_UP_TO)
            .then(|| Self::new(items.iter().enumerate().map(|(i, item)| (name(item), i))))
    }

    /// The first position of `name`.
    #[must_use]
    pub(crate) fn position(&self, name: &str) -> Option<usize> {
        let i = self.sorted.binary_search_by(|e| e.0.cmp(name)).ok()?;
        self.sorted.get(i).map(|e| e.1)
    }
}

impl<'a> StatusView<'a> {
    /// Builds the view for a request (no runtime status = nothing exists).
    #[must_use]
    pub(crate) fn new(request: &'a PlanRequest) -> Self {
        Self::of(request.runtime_status.as_ref())
    }

    /// Builds the view for a runtime status (`None` = nothing exists).
    #[must_use]
    pub(crate) fn of(runtime_status: Option<&'a crate::runtime::RuntimeStatus>) -> Self {
        let (sandboxes, containers) = match runtime_status {
            Some(s) => (
                s.sandbox_statuses.as_slice(),
                s.container_statuses.as_slice(),
            ),
            None => (&[][..], &[][..]),
        };
        let latest = sandboxes.first();
        let active_sandbox = latest
            .filter(|s| s.state == SandboxState::Ready)
            .map(|s| s.id.as_str());
        let mut view = Self {
            sandboxes,
            containers,
            active_sandbox,
            latest_sandbox: latest.map(|s| s.id.as_str()),
            by_name: FirstByName::of(containers, |s| s.name.as_str()),
            active_by_name: None,
        };
        if view.by_name.is_some() {
            let active = containers
                .iter()
                .enumerate()
                .filter(|(_, s)| view.is_active(s))
                .map(|(i, s)| (s.name.as_str(), i));
            view.active_by_name = Some(FirstByName::new(active));
        }
        view
    }

    /// Sandbox statuses, newest first.
    #[must_use]
    pub(crate) fn sandboxes(&self) -> &'a [SandboxStatus] {
        self.sandboxes
    }

    /// Every container status, newest first.
    #[must_use]
    pub(crate) fn containers(&self) -> &'a [ContainerStatus] {
        self.containers
    }

    /// `FindContainerStatusByName`: the newest status with this name (any sandbox).
    #[must_use]
    pub(crate) fn find(&self, name: &str) -> Option<&'a ContainerStatus> {
        match &self.by_name {
            Some(index) => index.position(name).and_then(|i| self.containers.get(i)),
            None => self.containers.iter().find(|s| s.name == name),
        }
    }

    /// Every status with this name, newest first.
    pub(crate) fn all_named<'n>(
        &self,
        name: &'n str,
    ) -> impl Iterator<Item = &'a ContainerStatus> + 'n
    where
        'a: 'n,
    {
        self.containers.iter().filter(move |s| s.name == name)
    }

    /// Whether a status belongs to the active sandbox.
    #[must_use]
    pub(crate) fn is_active(&self, status: &ContainerStatus) -> bool {
        let Some(active) = self.active_sandbox else {
            return false;
        };
        let owner = status
            .pod_sandbox_id
            .as_deref()
            .or(self.latest_sandbox)
            .unwrap_or("");
        owner == active
    }

    /// `ActiveContainerStatuses`: statuses of the active sandbox, newest first.
    pub(crate) fn active(&self) -> impl Iterator<Item = &'a ContainerStatus> + '_ {
        self.containers.iter().filter(move |s| self.is_active(s))
    }

    /// `FindActiveContainerStatusByName`.
    #[must_use]
    pub(crate) fn find_active(&self, name: &str) -> Option<&'a ContainerStatus> {
        match &self.active_by_name {
            Some(index) => index.position(name).and_then(|i| self.containers.get(i)),
            None => self.active().find(|s| s.name == name),
        }
    }

    /// The newest exited status with this name (`doBackOff`'s reference instance).
    #[must_use]
    pub(crate) fn newest_exited(&self, name: &str) -> Option<&'a ContainerStatus> {
        self.containers
            .iter()
            .find(|s| s.name == name && s.state == ContainerState::Exited)
    }
}

/// Which prober result to look up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ProbeKind {
    /// Liveness.
    Liveness,
    /// Startup.
    Startup,
}

/// The prober's recorded result for a container id (`None` = not found: no result yet).
#[must_use]
pub(crate) fn probe(
    request: &PlanRequest,
    container_id: &str,
    kind: ProbeKind,
) -> Option<ProbeResult> {
    let results = request.probes.get(container_id)?;
    match kind {
        ProbeKind::Liveness => results.liveness,
        ProbeKind::Startup => results.startup,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::RuntimeStatus;

    fn status(id: &str, name: &str, sandbox: Option<&str>) -> ContainerStatus {
        ContainerStatus {
            id: id.into(),
            name: name.into(),
            pod_sandbox_id: sandbox.map(str::to_string),
            state: ContainerState::Running,
            ..ContainerStatus::default()
        }
    }

    fn request(state: SandboxState, containers: Vec<ContainerStatus>) -> PlanRequest {
        PlanRequest {
            runtime_status: Some(RuntimeStatus {
                sandbox_statuses: vec![SandboxStatus {
                    id: "sb".into(),
                    state,
                    ..SandboxStatus::default()
                }],
                container_statuses: containers,
                ..RuntimeStatus::default()
            }),
            ..PlanRequest::default()
        }
    }

    #[test]
    fn active_statuses_follow_the_sandbox_rule() {
        let r = request(
            SandboxState::Ready,
            vec![
                status("x://1", "a", Some("old")),
                status("x://2", "a", None),
                status("x://3", "b", Some("sb")),
            ],
        );
        let v = StatusView::new(&r);
        assert_eq!(v.find("a").map(|s| s.id.as_str()), Some("x://1"));
        assert_eq!(v.find_active("a").map(|s| s.id.as_str()), Some("x://2"));
        assert_eq!(v.active().count(), 2);
    }

    #[test]
    fn indexed_lookups_answer_as_scans_do() {
        // Long enough to be indexed; names repeat (restarts), in two sandboxes.
        let mut list = Vec::new();
        for i in 0..30 {
            let sandbox = if i % 3 == 0 { Some("old") } else { None };
            list.push(status(&format!("x://{i}"), &format!("c{}", i % 7), sandbox));
        }
        let r = request(SandboxState::Ready, list.clone());
        let v = StatusView::new(&r);
        assert!(v.by_name.is_some() && v.active_by_name.is_some());
        for name in ["c0", "c3", "c6", "c7", "", "c"] {
            let scanned = list.iter().find(|s| s.name == name);
            assert_eq!(v.find(name), scanned, "{name}");
            let active = list.iter().find(|s| s.name == name && v.is_active(s));
            assert_eq!(v.find_active(name), active, "{name}");
        }
        let index = FirstByName::new([("b", 0), ("a", 1), ("b", 2), ("a", 3)]);
        assert_eq!(index.position("a"), Some(1));
        assert_eq!(index.position("b"), Some(0));
        assert_eq!(index.position("c"), None);
    }

    #[test]
    fn nothing_is_active_in_a_non_ready_sandbox() {
        let r = request(SandboxState::NotReady, vec![status("x://2", "a", None)]);
        let v = StatusView::new(&r);
        assert!(v.find_active("a").is_none());
        assert!(v.find("a").is_some());
        assert_eq!(v.active_sandbox, None);
    }

    #[test]
    fn probe_lookup_distinguishes_not_found() {
        let mut r = PlanRequest::default();
        r.probes.insert(
            "x://1".into(),
            crate::request::ProbeResults {
                liveness: Some(ProbeResult::Failure),
                startup: None,
                readiness: None,
            },
        );
        assert_eq!(
            probe(&r, "x://1", ProbeKind::Liveness),
            Some(ProbeResult::Failure)
        );
        assert_eq!(probe(&r, "x://1", ProbeKind::Startup), None);
        assert_eq!(probe(&r, "x://2", ProbeKind::Liveness), None);
    }
}
