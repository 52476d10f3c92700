//! Container configs that depend on the sandbox a sync creates.
//!
//! When `SyncPod` creates a sandbox it runs `RunPodSandbox`, reads the new sandbox's
//! status (`PodSandboxStatus`) and, for a pod-network pod, takes the pod IPs from it
//! (`determinePodSandboxIPs`) before it generates any container config: the
//! `status.podIP`/`status.podIPs` env values and the managed `/etc/hosts` (mount and
//! content) come from those IPs. A plan computed before the sandbox exists cannot know
//! them; [`complete_plan`] regenerates the configs exactly as the kubelet does once they
//! are known.

use std::net::IpAddr;

use crate::features::FeatureGates;
use crate::plan::{Plan, StartContainerStep, Step};
use crate::request::PlanRequest;
use crate::runtime::{RuntimeStatus, SandboxStatus};

use super::errors::ConfigError;
use super::files::{container_files, NodeFile};
use super::{container, ContainerKind};

/// `netutils.ParseIPSloppy`: an IPv4 or IPv6 address; IPv4 parts may have leading zeros.
#[must_use]
pub(crate) fn parse_ip_sloppy(s: &str) -> bool {
    if s.parse::<IpAddr>().is_ok() {
        return true;
    }
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

/// `determinePodSandboxIPs`: the primary IP, then the additional ones; nothing when the
/// status has no network or reports an address that does not parse.
#[must_use]
pub(crate) fn sandbox_ips(status: &SandboxStatus) -> Vec<String> {
    let Some(network) = status.network.as_ref() else {
        return Vec::new();
    };
    let mut ips = Vec::new();
    if !network.ip.is_empty() {
        if !parse_ip_sloppy(&network.ip) {
            return Vec::new();
        }
        ips.push(network.ip.clone());
    }
    for extra in &network.additional_ips {
        if !parse_ip_sloppy(&extra.ip) {
            return Vec::new();
        }
        ips.push(extra.ip.clone());
    }
    ips
}

/// Whether a pod's container configs, when the sync creates its sandbox, depend on the
/// new sandbox's status: pod-network pods take their IPs from it (a host-network pod
/// keeps the IPs of the pod status).
#[must_use]
pub(crate) fn depends_on_new_sandbox(request: &PlanRequest) -> bool {
    request.pod.spec.as_ref().and_then(|s| s.host_network) != Some(true)
}

/// The request as the kubelet sees it after `RunPodSandbox` and `PodSandboxStatus`: the
/// pod IPs of the new sandbox (pod-network pods), everything else unchanged.
#[must_use]
pub(crate) fn with_new_sandbox(request: &PlanRequest, sandbox: &SandboxStatus) -> PlanRequest {
    let mut out = request.clone();
    if depends_on_new_sandbox(request) {
        let status = out
            .runtime_status
            .get_or_insert_with(RuntimeStatus::default);
        status.ips = sandbox_ips(sandbox);
    }
    out
}

#[cfg(test)]
/// A container config generated as the kubelet generates it right after creating the
/// sandbox whose status is `sandbox`.
fn complete_entry(
    request: &PlanRequest,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
    sandbox: &SandboxStatus,
) -> Result<super::ContainerConfigEntry, (String, ConfigError)> {
    super::generate_for(
        &with_new_sandbox(request, sandbox),
        gates,
        kind,
        index,
        None,
    )
}

#[cfg(test)]
/// The files the kubelet writes for that `CreateContainer` (see [`super::files`]), with
/// the new sandbox's IPs.
fn complete_files(
    request: &PlanRequest,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
    sandbox: &SandboxStatus,
) -> Result<Vec<NodeFile>, (String, ConfigError)> {
    let completed = with_new_sandbox(request, sandbox);
    files_for(&completed, gates, kind, index)
}

/// The files the kubelet writes for one `CreateContainer`, with the request's pod IPs.
pub(crate) fn files_for(
    request: &PlanRequest,
    gates: &FeatureGates,
    kind: ContainerKind,
    index: usize,
) -> Result<Vec<NodeFile>, (String, ConfigError)> {
    let node = request.node.clone().unwrap_or_default();
    let pod = &request.pod;
    let selected = container::select(pod, kind, index).map_err(|e| (String::new(), e))?;
    let c = &selected.container;
    let status = request.runtime_status.as_ref();
    let restart_count = container::restart_count(&c.name, status, &node);
    let id = container::termination_log_id(pod, c, restart_count, &node);
    let ips = status.map(|s| s.ips.clone()).unwrap_or_default();
    container_files(pod, c, &id, &ips, &node, gates).map_err(|e| (c.name.clone(), e))
}

/// Completes a plan computed before the sandbox it creates existed: every container
/// config and `WriteNodeFiles` step marked `dependsOnNewSandbox` is regenerated with the
/// pod IPs of `sandbox` (the status `PodSandboxStatus` gave after `RunPodSandbox`), as the
/// kubelet generates them. A config that now fails becomes a plan error and its
/// container's `CreateContainer`/`StartContainer` steps go.
pub(crate) fn complete_plan(
    request: &PlanRequest,
    gates: &FeatureGates,
    plan: &mut Plan,
    sandbox: &SandboxStatus,
) {
    let completed = with_new_sandbox(request, sandbox);
    for step in &mut plan.steps {
        match step {
            Step::StartContainer(start) if start.depends_on_new_sandbox => {
                complete_post_start(&completed, start);
            }
            Step::WriteNodeFiles(write) if write.depends_on_new_sandbox => {
                if let (Some(kind), Some(index)) = (write.kind, write.index) {
                    if let Ok(files) = files_for(&completed, gates, kind, index) {
                        write.files = files;
                        write.depends_on_new_sandbox = false;
                    }
                }
            }
            _ => {}
        }
    }
    let mut failed = Vec::new();
    // The pod's QoS class reads every container: computed once for all the entries.
    let pod_qos = Some(super::pod_qos_of(&completed, gates));
    for entry in plan
        .container_configs
        .iter_mut()
        .filter(|e| e.depends_on_new_sandbox)
    {
        let Some((kind, index)) = plan.steps.iter().find_map(|s| match s {
            Step::CreateContainer(c) if c.container.as_deref() == Some(&entry.name) => {
                s.spec_position()
            }
            _ => None,
        }) else {
            continue;
        };
        match super::container_for(&completed, gates, kind, index, pod_qos) {
            Ok(fresh) => *entry = fresh,
            Err(error) => failed.push(error),
        }
    }
    for error in failed {
        let name = error.container.clone();
        plan.container_configs.retain(|e| e.name != name);
        plan.steps.retain(|s| {
            !(matches!(
                s,
                Step::CreateContainer(_) | Step::StartContainer(_) | Step::WriteNodeFiles(_)
            ) && s.container() == Some(name.as_str()))
        });
        plan.errors.push(error);
    }
}

/// The hooks of a `StartContainer` step (postStart, and the preStop of the kill after a
/// failed postStart): an `httpGet` handler without `host` goes to the new sandbox's first IP.
fn complete_post_start(completed: &PlanRequest, step: &mut StartContainerStep) {
    let (Some(kind), Some(index)) = (step.kind, step.index) else {
        return;
    };
    let Some(spec) = completed.pod.spec.as_ref() else {
        return;
    };
    let container = match kind {
        ContainerKind::Init => spec.init_containers.as_deref().and_then(|v| v.get(index)),
        ContainerKind::Regular => spec.containers.get(index),
        ContainerKind::Ephemeral => None,
    };
    let pod_ip = completed
        .runtime_status
        .as_ref()
        .and_then(|s| s.ips.first())
        .map(String::as_str);
    if let Some(c) = container {
        step.post_start = crate::hooks::post_start_step(c, pod_ip);
        step.pre_stop = crate::hooks::kill_container(
            &completed.pod,
            Some(c),
            "",
            crate::plan::KillReason::FailedPostStartHook,
            None,
            pod_ip,
        )
        .1;
        step.depends_on_new_sandbox = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{generate_for, ContainerConfigEntry};
    use serde_json::json;

    fn status(v: serde_json::Value) -> SandboxStatus {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn sandbox_ips_as_determine_pod_sandbox_ips() {
        let s = status(json!({"id": "s", "state": "SANDBOX_READY",
            "network": {"ip": "10.0.0.5", "additionalIps": [{"ip": "fd00::5"}]}}));
        assert_eq!(sandbox_ips(&s), vec!["10.0.0.5", "fd00::5"]);
        let sloppy = status(
            json!({"id": "s", "state": "SANDBOX_READY", "network": {"ip": "010.000.000.005"}}),
        );
        assert_eq!(sandbox_ips(&sloppy), vec!["010.000.000.005"]);
        let bad = status(json!({"id": "s", "state": "SANDBOX_READY",
            "network": {"ip": "10.0.0.5", "additionalIps": [{"ip": "nope"}]}}));
        assert!(sandbox_ips(&bad).is_empty());
        let none = status(json!({"id": "s", "state": "SANDBOX_READY"}));
        assert!(sandbox_ips(&none).is_empty());
    }

    #[test]
    fn completion_adds_pod_ip_env_and_hosts_mount() {
        let request: PlanRequest = crate::api::parse_request_value(json!({
            "pod": {"metadata": {"name": "web", "namespace": "ns", "uid": "u1"},
                    "spec": {"containers": [{"name": "app", "image": "nginx",
                        "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
                                {"name": "POD_IPS", "valueFrom": {"fieldRef": {"fieldPath": "status.podIPs"}}}]}]}},
            "apiDefaults": true
        }))
        .unwrap();
        let mut defaulted = request.clone();
        crate::defaults::apply_api_defaults(&mut defaulted.pod);
        let gates = FeatureGates::default();
        let before = generate_for(&defaulted, &gates, ContainerKind::Regular, 0, None).unwrap();
        let env = |e: &ContainerConfigEntry, k: &str| {
            e.config
                .envs
                .iter()
                .find(|kv| kv.key == k)
                .map(|kv| kv.value.as_text().into_owned())
        };
        assert_eq!(
            env(&before, "POD_IP").as_deref(),
            Some(""),
            "no IP before the sandbox exists"
        );
        assert!(!before
            .config
            .mounts
            .iter()
            .any(|m| m.container_path == "/etc/hosts"));
        let sandbox = status(json!({"id": "s", "state": "SANDBOX_READY",
            "network": {"ip": "10.0.0.5", "additionalIps": [{"ip": "fd00::5"}]}}));
        let after =
            complete_entry(&defaulted, &gates, ContainerKind::Regular, 0, &sandbox).unwrap();
        assert_eq!(env(&after, "POD_IP").as_deref(), Some("10.0.0.5"));
        assert_eq!(env(&after, "POD_IPS").as_deref(), Some("10.0.0.5,fd00::5"));
        assert!(after
            .config
            .mounts
            .iter()
            .any(|m| m.container_path == "/etc/hosts"
                && m.host_path == "/var/lib/kubelet/pods/u1/etc-hosts"));
        let files =
            complete_files(&defaulted, &gates, ContainerKind::Regular, 0, &sandbox).unwrap();
        let hosts = files.iter().find(|f| f.purpose == "etcHosts").unwrap();
        assert!(hosts
            .content
            .as_deref()
            .unwrap()
            .contains("10.0.0.5\tweb\nfd00::5\tweb\n"));
    }

    #[test]
    fn host_network_pods_keep_the_status_ips() {
        let request: PlanRequest = crate::api::parse_request_value(json!({
            "pod": {"metadata": {"name": "h", "namespace": "ns", "uid": "u2"},
                    "spec": {"hostNetwork": true, "enableServiceLinks": false,
                             "containers": [{"name": "app", "image": "nginx"}]}},
            "runtimeStatus": {"ips": ["192.168.0.10"]}
        }))
        .unwrap();
        assert!(!depends_on_new_sandbox(&request));
        let sandbox =
            status(json!({"id": "s", "state": "SANDBOX_READY", "network": {"ip": "10.9.9.9"}}));
        let out = with_new_sandbox(&request, &sandbox);
        assert_eq!(out.runtime_status.unwrap().ips, vec!["192.168.0.10"]);
    }

    #[test]
    fn a_plan_is_completed_from_the_new_sandbox() {
        let request: PlanRequest = crate::api::parse_request_value(json!({
            "pod": {"metadata": {"name": "web", "namespace": "ns", "uid": "u1"},
                    "spec": {"enableServiceLinks": false, "containers": [{"name": "app", "image": "nginx",
                        "terminationMessagePath": "/dev/termination-log",
                        "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}}]}]}}
        }))
        .unwrap();
        let mut plan = crate::api::plan(&request).unwrap();
        assert!(plan.container_configs[0].depends_on_new_sandbox);
        let files_step = plan
            .steps
            .iter()
            .find_map(|s| match s {
                Step::WriteNodeFiles(w) if w.container.is_some() => Some(w),
                _ => None,
            })
            .unwrap();
        assert!(files_step.depends_on_new_sandbox);
        assert!(!files_step.files.iter().any(|f| f.purpose == "etcHosts"));
        let sandbox =
            status(json!({"id": "s", "state": "SANDBOX_READY", "network": {"ip": "10.0.0.5"}}));
        complete_plan(&request, &FeatureGates::default(), &mut plan, &sandbox);
        let entry = &plan.container_configs[0];
        assert!(!entry.depends_on_new_sandbox);
        assert!(entry
            .config
            .envs
            .iter()
            .any(|kv| kv.key == "POD_IP" && kv.value == "10.0.0.5"));
        let files_step = plan
            .steps
            .iter()
            .find_map(|s| match s {
                Step::WriteNodeFiles(w) if w.container.is_some() => Some(w),
                _ => None,
            })
            .unwrap();
        assert!(!files_step.depends_on_new_sandbox);
        let hosts = files_step
            .files
            .iter()
            .find(|f| f.purpose == "etcHosts")
            .unwrap();
        assert!(hosts
            .content
            .as_deref()
            .unwrap()
            .ends_with("10.0.0.5\tweb\n"));
    }
}
