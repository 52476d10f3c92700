//! The API server's defaulting of a `v1.Pod` (`pkg/apis/core/v1/defaults.go`), for the
//! fields the kubelet's decisions and CRI configs read.
//!
//! The engine decides on the pod exactly as given (the kubelet only ever sees pods the API
//! server has defaulted; the conformance vectors, like the kubelet's unit tests, are not
//! defaulted). A hand-written manifest is not what the API server serves: a request with
//! `apiDefaults: true` — and every bare Pod document — is defaulted first, so that e.g. a
//! pod without `enableServiceLinks` does not hit the kubelet's "nil
//! pod.spec.enableServiceLinks" error that no real pod can reach.

use k8s_openapi::api::core::v1::{
    Container, ContainerPort, Pod, PodSecurityContext, PodSpec, ResourceRequirements,
};

/// Default termination message path.
pub const TERMINATION_MESSAGE_PATH: &str = "/dev/termination-log";
/// Default termination grace period.
pub const TERMINATION_GRACE_PERIOD_SECONDS: i64 = 30;

/// Applies the API server's defaults to `pod` in place.
pub fn apply_api_defaults(pod: &mut Pod) {
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    default_spec(spec);
}

fn set_str(field: &mut Option<String>, value: &str) {
    if field.as_deref().unwrap_or("").is_empty() {
        *field = Some(value.to_string());
    }
}

fn default_spec(spec: &mut PodSpec) {
    spec.enable_service_links.get_or_insert(true);
    set_str(&mut spec.restart_policy, "Always");
    set_str(&mut spec.dns_policy, "ClusterFirst");
    set_str(&mut spec.scheduler_name, "default-scheduler");
    spec.termination_grace_period_seconds
        .get_or_insert(TERMINATION_GRACE_PERIOD_SECONDS);
    spec.security_context
        .get_or_insert_with(PodSecurityContext::default);
    let host_network = spec.host_network.unwrap_or(false);
    for c in spec
        .init_containers
        .iter_mut()
        .flatten()
        .chain(spec.containers.iter_mut())
    {
        default_container(c, host_network);
    }
    for e in spec.ephemeral_containers.iter_mut().flatten() {
        set_str(&mut e.termination_message_path, TERMINATION_MESSAGE_PATH);
        set_str(&mut e.termination_message_policy, "File");
        set_str(
            &mut e.image_pull_policy,
            pull_policy(e.image.as_deref().unwrap_or("")),
        );
        default_requests(e.resources.as_mut());
    }
    default_requests(spec.resources.as_mut());
}

fn default_container(c: &mut Container, host_network: bool) {
    set_str(&mut c.termination_message_path, TERMINATION_MESSAGE_PATH);
    set_str(&mut c.termination_message_policy, "File");
    set_str(
        &mut c.image_pull_policy,
        pull_policy(c.image.as_deref().unwrap_or("")),
    );
    for p in c.ports.iter_mut().flatten() {
        default_port(p, host_network);
    }
    default_requests(c.resources.as_mut());
}

fn default_port(p: &mut ContainerPort, host_network: bool) {
    set_str(&mut p.protocol, "TCP");
    if host_network && p.host_port.unwrap_or(0) == 0 {
        p.host_port = Some(p.container_port);
    }
}

/// Requests default to limits for every resource with a limit and no request.
fn default_requests(r: Option<&mut ResourceRequirements>) {
    let Some(r) = r else { return };
    let Some(limits) = r.limits.as_ref() else {
        return;
    };
    let requests = r.requests.get_or_insert_with(Default::default);
    for (name, q) in limits {
        requests.entry(name.clone()).or_insert_with(|| q.clone());
    }
}

/// `Always` for `:latest` or untagged images (digests excepted), else `IfNotPresent`.
fn pull_policy(image: &str) -> &'static str {
    if image.contains('@') {
        return "IfNotPresent";
    }
    let last = image.rsplit('/').next().unwrap_or(image);
    match last.rsplit_once(':') {
        Some((_, "latest")) | None => "Always",
        Some(_) => "IfNotPresent",
    }
}

#[cfg(test)]
mod tests {
    #![expect(
        clippy::unwrap_used,
        clippy::indexing_slicing,
        reason = "tests fail by panicking"
    )]
    use super::*;

    #[test]
    fn pull_policy_follows_the_tag() {
        assert_eq!(pull_policy("nginx"), "Always");
        assert_eq!(pull_policy("nginx:latest"), "Always");
        assert_eq!(pull_policy("nginx:1.27"), "IfNotPresent");
        assert_eq!(pull_policy("registry:5000/app"), "Always");
        assert_eq!(pull_policy("app@sha256:abc"), "IfNotPresent");
    }

    #[test]
    fn requests_default_to_limits_and_keep_explicit_values() {
        let mut pod: Pod = serde_json::from_value(
            serde_json::json!({"spec": {"hostNetwork": true, "containers": [{
            "name": "a", "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}}]}}),
        )
        .unwrap();
        apply_api_defaults(&mut pod);
        let v = serde_json::to_value(&pod).unwrap();
        let c = &v["spec"]["containers"][0];
        assert_eq!(
            c["resources"]["requests"],
            serde_json::json!({"cpu": "500m", "memory": "1Gi"})
        );
        assert_eq!(
            c["ports"][0],
            serde_json::json!({"containerPort": 80, "hostPort": 80, "protocol": "TCP"})
        );
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(v["spec"]["terminationGracePeriodSeconds"], 30);
    }

    #[test]
    #[expect(clippy::unwrap_used, reason = "tests fail by panicking")]
    fn apply_api_defaults_example() {
        use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
        let mut pod = Pod {
            spec: Some(PodSpec {
                containers: vec![Container {
                    name: "a".into(),
                    image: Some("nginx".into()),
                    ..Default::default()
                }],
                ..Default::default()
            }),
            ..Default::default()
        };
        crate::defaults::apply_api_defaults(&mut pod);
        let spec = pod.spec.unwrap();
        assert_eq!(spec.enable_service_links, Some(true));
        assert_eq!(spec.restart_policy.as_deref(), Some("Always"));
        assert_eq!(
            spec.containers[0].image_pull_policy.as_deref(),
            Some("Always")
        );
    }
}
