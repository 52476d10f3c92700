//! The API server's defaulting of a `v1.Pod`: every rule `SetObjectDefaults_Pod`
//! (`pkg/apis/core/v1/zz_generated.defaults.go`) applies, i.e. the `SetDefaults_*`
//! functions of `pkg/apis/core/v1/defaults.go` reachable from a Pod and the declarative
//! `+default` markers of its types.
//!
//! The engine decides on the pod exactly as given (the kubelet only ever sees pods the API
//! server has defaulted; the conformance vectors, like the kubelet's unit tests, are not
//! defaulted). A hand-written manifest is not what the API server serves: a request with
//! `apiDefaults: true` — and every bare Pod document — is defaulted first, so that e.g. a
//! pod without `enableServiceLinks` does not hit the kubelet's "nil
//! pod.spec.enableServiceLinks" error, or a `fieldRef` without `apiVersion` the
//! "unsupported pod version" error, that no real pod can reach.
//!
//! Rules, in `SetObjectDefaults_Pod` order:
//! * `SetDefaults_Pod`: container and init-container requests default to limits;
//!   with `PodLevelResources`, pod-level hugepage limits, requests and limits
//!   (`defaultHugePagePodLimits`, `defaultPodRequests`, `defaultPodLimits`);
//!   `enableServiceLinks: true`; host-network ports get `hostPort = containerPort`.
//! * `SetDefaults_PodSpec`: `dnsPolicy: ClusterFirst`, `restartPolicy: Always`,
//!   `securityContext: {}`, `terminationGracePeriodSeconds: 30`,
//!   `schedulerName: default-scheduler`.
//! * volumes: no source → `emptyDir: {}`; image volume pull policy (ImageVolume);
//!   `hostPath.type: ""`; secret/configMap/downwardAPI/projected `defaultMode: 0644`;
//!   downward-API `fieldRef.apiVersion: v1`; service-account token
//!   `expirationSeconds: 3600`; iSCSI `iscsiInterface: default`; RBD
//!   `pool: rbd`, `user: admin`, `keyring: /etc/ceph/keyring`; AzureDisk
//!   `cachingMode: ReadWrite`, `kind: Shared`, `fsType: ext4`, `readOnly: false`;
//!   ScaleIO `storageMode: ThinProvisioned`, `fsType: xfs`; ephemeral claim templates
//!   `volumeMode: Filesystem` and resource rounding.
//! * every container (init, regular, ephemeral): `imagePullPolicy` (`Always` for a
//!   `latest` or absent tag, else `IfNotPresent`), `terminationMessagePath`,
//!   `terminationMessagePolicy: File`, port `protocol: TCP`, env
//!   `fieldRef.apiVersion: v1`, resource rounding, probes (`timeoutSeconds: 1`,
//!   `periodSeconds: 10`, `successThreshold: 1`, `failureThreshold: 3`, `httpGet`
//!   `path: /` and `scheme: HTTP`, `grpc.service: ""`), lifecycle `httpGet` handlers.
//! * `SetDefaults_ResourceList` on every resource list (containers, overhead, pod-level
//!   resources, claim templates): values finer than a thousandth are rounded up to one.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Container, ContainerPort, EnvVar, HTTPGetAction, LifecycleHandler, ObjectFieldSelector, Pod,
    PodSecurityContext, PodSpec, Probe, ResourceRequirements, Volume,
};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity as K8sQuantity;

use crate::config::pod_resources::{self, MilliList};
use crate::features::{FeatureGates, Gate};
use crate::quantity::{format_decimal_milli, Quantity};

/// Default termination message path.
pub(crate) const TERMINATION_MESSAGE_PATH: &str = "/dev/termination-log";
/// Default termination grace period.
pub(crate) const TERMINATION_GRACE_PERIOD_SECONDS: i64 = 30;
/// Default `defaultMode` of secret, configMap, downwardAPI and projected volumes (0644).
pub(crate) const VOLUME_DEFAULT_MODE: i32 = 0o644;
/// Default service-account token lifetime (one hour).
pub(crate) const TOKEN_EXPIRATION_SECONDS: i64 = 3600;

/// Applies the API server's defaults to `pod` in place, with the 1.37 default gates.
#[cfg(test)]
pub(crate) fn apply_api_defaults(pod: &mut Pod) {
    apply_api_defaults_with(pod, &FeatureGates::default());
}

/// [`apply_api_defaults`] with the request's feature gates (`ImageVolume`,
/// `PodLevelResources` select gated rules).
pub(crate) fn apply_api_defaults_with(pod: &mut Pod, gates: &FeatureGates) {
    if pod.spec.is_none() {
        return;
    }
    set_defaults_pod(pod, gates);
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    set_defaults_pod_spec(spec);
    for v in spec.volumes.iter_mut().flatten() {
        default_volume(v, gates);
    }
    for c in spec
        .init_containers
        .iter_mut()
        .flatten()
        .chain(spec.containers.iter_mut())
    {
        default_container(c);
    }
    for e in spec.ephemeral_containers.iter_mut().flatten() {
        set_str(
            &mut e.image_pull_policy,
            pull_policy(e.image.as_deref().unwrap_or("")),
        );
        set_str(&mut e.termination_message_path, TERMINATION_MESSAGE_PATH);
        set_str(&mut e.termination_message_policy, "File");
        for p in e.ports.iter_mut().flatten() {
            set_str(&mut p.protocol, "TCP");
        }
        for env in e.env.iter_mut().flatten() {
            default_env(env);
        }
        round_requirements(e.resources.as_mut());
        for probe in [
            &mut e.liveness_probe,
            &mut e.readiness_probe,
            &mut e.startup_probe,
        ] {
            if let Some(x) = probe.as_mut() {
                default_probe(x);
            }
        }
        if let Some(l) = e.lifecycle.as_mut() {
            if let Some(x) = l.post_start.as_mut() {
                default_handler(x);
            }
            if let Some(x) = l.pre_stop.as_mut() {
                default_handler(x);
            }
        }
    }
    if let Some(o) = spec.overhead.as_mut() {
        round_list(o);
    }
    round_requirements(spec.resources.as_mut());
}

/// An empty or absent string field (Go's zero value) gets `value`.
fn set_str(field: &mut Option<String>, value: &str) {
    if field.as_deref().unwrap_or("").is_empty() {
        *field = Some(value.to_string());
    }
}

/// An absent or zero integer field (Go's zero value) gets `value`.
fn set_i32(field: &mut Option<i32>, value: i32) {
    if field.unwrap_or(0) == 0 {
        *field = Some(value);
    }
}

/// `SetDefaults_Pod`.
fn set_defaults_pod(pod: &mut Pod, gates: &FeatureGates) {
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    for c in spec
        .containers
        .iter_mut()
        .chain(spec.init_containers.iter_mut().flatten())
    {
        requests_from_limits(c.resources.as_mut());
    }
    // Each of the three leaves a pod without pod-level resources as it is: only a pod
    // with them pays for the containers' aggregates.
    let pod_level = pod.spec.as_ref().is_some_and(|s| s.resources.is_some());
    if pod_level && gates.enabled(Gate::PodLevelResources) {
        // The API server defaults an object when it decodes a request and again each time
        // it decodes the stored object (every read, the kubelet's watch among them: the
        // storage codec is `CodecFactory.DecoderToVersion`, a defaulting codec;
        // `apiserver/pkg/server/storage/storage_codec.go`). These three are not idempotent:
        // `defaultPodLimits` can set the pod's first limit after `defaultPodRequests`
        // returned for want of one, so the second pass adds requests. What every reader
        // sees is the second pass, a fixed point (`resource_defaults_are_idempotent`).
        for _ in 0..2 {
            default_hugepage_pod_limits(pod);
            default_pod_requests(pod);
            default_pod_limits(pod);
        }
    }
    let Some(spec) = pod.spec.as_mut() else {
        return;
    };
    spec.enable_service_links.get_or_insert(true);
    if spec.host_network == Some(true) {
        for c in spec
            .containers
            .iter_mut()
            .chain(spec.init_containers.iter_mut().flatten())
        {
            for p in c.ports.iter_mut().flatten() {
                default_host_network_port(p);
            }
        }
    }
}

/// `SetDefaults_PodSpec`.
fn set_defaults_pod_spec(spec: &mut PodSpec) {
    set_str(&mut spec.dns_policy, "ClusterFirst");
    set_str(&mut spec.restart_policy, "Always");
    spec.security_context
        .get_or_insert_with(PodSecurityContext::default);
    spec.termination_grace_period_seconds
        .get_or_insert(TERMINATION_GRACE_PERIOD_SECONDS);
    set_str(&mut spec.scheduler_name, "default-scheduler");
}

/// `SetDefaults_Container` plus the defaults of its ports, env, resources, probes and
/// lifecycle handlers.
fn default_container(c: &mut Container) {
    set_str(
        &mut c.image_pull_policy,
        pull_policy(c.image.as_deref().unwrap_or("")),
    );
    set_str(&mut c.termination_message_path, TERMINATION_MESSAGE_PATH);
    set_str(&mut c.termination_message_policy, "File");
    for p in c.ports.iter_mut().flatten() {
        set_str(&mut p.protocol, "TCP");
    }
    for env in c.env.iter_mut().flatten() {
        default_env(env);
    }
    round_requirements(c.resources.as_mut());
    for probe in [
        &mut c.liveness_probe,
        &mut c.readiness_probe,
        &mut c.startup_probe,
    ] {
        if let Some(x) = probe.as_mut() {
            default_probe(x);
        }
    }
    if let Some(l) = c.lifecycle.as_mut() {
        if let Some(x) = l.post_start.as_mut() {
            default_handler(x);
        }
        if let Some(x) = l.pre_stop.as_mut() {
            default_handler(x);
        }
    }
}

/// `defaultHostNetworkPorts`.
fn default_host_network_port(p: &mut ContainerPort) {
    if p.host_port.unwrap_or(0) == 0 {
        p.host_port = Some(p.container_port);
    }
}

/// `SetDefaults_ObjectFieldSelector` on an env var's `fieldRef`.
fn default_env(env: &mut EnvVar) {
    if let Some(f) = env.value_from.as_mut().and_then(|v| v.field_ref.as_mut()) {
        default_field_selector(f);
    }
}

/// `SetDefaults_ObjectFieldSelector`.
fn default_field_selector(f: &mut ObjectFieldSelector) {
    set_str(&mut f.api_version, "v1");
}

/// `SetDefaults_Probe`, `SetDefaults_HTTPGetAction` and the `grpc.service` marker.
fn default_probe(p: &mut Probe) {
    set_i32(&mut p.timeout_seconds, 1);
    set_i32(&mut p.period_seconds, 10);
    set_i32(&mut p.success_threshold, 1);
    set_i32(&mut p.failure_threshold, 3);
    if let Some(h) = p.http_get.as_mut() {
        default_http_get(h);
    }
    if let Some(g) = p.grpc.as_mut() {
        g.service.get_or_insert_with(String::new);
    }
}

/// `SetDefaults_HTTPGetAction` of a lifecycle handler.
fn default_handler(h: &mut LifecycleHandler) {
    if let Some(g) = h.http_get.as_mut() {
        default_http_get(g);
    }
}

/// `SetDefaults_HTTPGetAction`.
fn default_http_get(h: &mut HTTPGetAction) {
    set_str(&mut h.path, "/");
    set_str(&mut h.scheme, "HTTP");
}

/// `SetDefaults_Volume` and the defaults of each volume source.
fn default_volume(v: &mut Volume, gates: &FeatureGates) {
    if !has_source(v) {
        v.empty_dir = Some(Default::default());
    }
    if gates.enabled(Gate::ImageVolume) {
        if let Some(image) = v.image.as_mut() {
            if image.pull_policy.as_deref().unwrap_or("").is_empty() {
                let tag = image_tag(image.reference.as_deref().unwrap_or(""));
                let policy = if tag.as_deref() == Some("latest") {
                    "Always"
                } else {
                    "IfNotPresent"
                };
                image.pull_policy = Some(policy.to_string());
            }
        }
    }
    if let Some(h) = v.host_path.as_mut() {
        h.type_.get_or_insert_with(String::new);
    }
    if let Some(s) = v.secret.as_mut() {
        s.default_mode.get_or_insert(VOLUME_DEFAULT_MODE);
    }
    if let Some(i) = v.iscsi.as_mut() {
        set_str(&mut i.iscsi_interface, "default");
    }
    if let Some(r) = v.rbd.as_mut() {
        set_str(&mut r.pool, "rbd");
        set_str(&mut r.user, "admin");
        set_str(&mut r.keyring, "/etc/ceph/keyring");
    }
    if let Some(d) = v.downward_api.as_mut() {
        d.default_mode.get_or_insert(VOLUME_DEFAULT_MODE);
        for item in d.items.iter_mut().flatten() {
            if let Some(x) = item.field_ref.as_mut() {
                default_field_selector(x);
            }
        }
    }
    if let Some(c) = v.config_map.as_mut() {
        c.default_mode.get_or_insert(VOLUME_DEFAULT_MODE);
    }
    if let Some(a) = v.azure_disk.as_mut() {
        a.caching_mode.get_or_insert_with(|| "ReadWrite".into());
        a.kind.get_or_insert_with(|| "Shared".into());
        a.fs_type.get_or_insert_with(|| "ext4".into());
        a.read_only.get_or_insert(false);
    }
    if let Some(p) = v.projected.as_mut() {
        p.default_mode.get_or_insert(VOLUME_DEFAULT_MODE);
        for source in p.sources.iter_mut().flatten() {
            if let Some(d) = source.downward_api.as_mut() {
                for item in d.items.iter_mut().flatten() {
                    if let Some(x) = item.field_ref.as_mut() {
                        default_field_selector(x);
                    }
                }
            }
            if let Some(t) = source.service_account_token.as_mut() {
                t.expiration_seconds.get_or_insert(TOKEN_EXPIRATION_SECONDS);
            }
        }
    }
    if let Some(s) = v.scale_io.as_mut() {
        set_str(&mut s.storage_mode, "ThinProvisioned");
        set_str(&mut s.fs_type, "xfs");
    }
    if let Some(t) = v
        .ephemeral
        .as_mut()
        .and_then(|e| e.volume_claim_template.as_mut())
    {
        t.spec
            .volume_mode
            .get_or_insert_with(|| "Filesystem".into());
        if let Some(r) = t.spec.resources.as_mut() {
            if let Some(x) = r.limits.as_mut() {
                round_list(x);
            }
            if let Some(x) = r.requests.as_mut() {
                round_list(x);
            }
        }
    }
}

/// Whether any volume source is set (`ptr.AllPtrFieldsNil(&obj.VolumeSource)` negated).
fn has_source(v: &Volume) -> bool {
    let Volume {
        name: _,
        aws_elastic_block_store,
        azure_disk,
        azure_file,
        cephfs,
        cinder,
        config_map,
        csi,
        downward_api,
        empty_dir,
        ephemeral,
        fc,
        flex_volume,
        flocker,
        gce_persistent_disk,
        git_repo,
        glusterfs,
        host_path,
        image,
        iscsi,
        nfs,
        persistent_volume_claim,
        photon_persistent_disk,
        portworx_volume,
        projected,
        quobyte,
        rbd,
        scale_io,
        secret,
        storageos,
        vsphere_volume,
    } = v;
    [
        aws_elastic_block_store.is_some(),
        azure_disk.is_some(),
        azure_file.is_some(),
        cephfs.is_some(),
        cinder.is_some(),
        config_map.is_some(),
        csi.is_some(),
        downward_api.is_some(),
        empty_dir.is_some(),
        ephemeral.is_some(),
        fc.is_some(),
        flex_volume.is_some(),
        flocker.is_some(),
        gce_persistent_disk.is_some(),
        git_repo.is_some(),
        glusterfs.is_some(),
        host_path.is_some(),
        image.is_some(),
        iscsi.is_some(),
        nfs.is_some(),
        persistent_volume_claim.is_some(),
        photon_persistent_disk.is_some(),
        portworx_volume.is_some(),
        projected.is_some(),
        quobyte.is_some(),
        rbd.is_some(),
        scale_io.is_some(),
        secret.is_some(),
        storageos.is_some(),
        vsphere_volume.is_some(),
    ]
    .into_iter()
    .any(|set| set)
}

/// Requests default to limits for every resource with a limit and no request.
fn requests_from_limits(r: Option<&mut ResourceRequirements>) {
    let Some(r) = r else { return };
    let Some(limits) = r.limits.as_ref() else {
        return;
    };
    let requests = r.requests.get_or_insert_with(Default::default);
    for (name, q) in limits {
        requests.entry(name.clone()).or_insert_with(|| q.clone());
    }
}

/// `SetDefaults_ResourceList` on both sides of a requirements object.
fn round_requirements(r: Option<&mut ResourceRequirements>) {
    if let Some(r) = r {
        if let Some(x) = r.limits.as_mut() {
            round_list(x);
        }
        if let Some(x) = r.requests.as_mut() {
            round_list(x);
        }
    }
}

/// `SetDefaults_ResourceList`: `RoundUp(-3)` of every value.
fn round_list(list: &mut BTreeMap<String, K8sQuantity>) {
    for q in list.values_mut() {
        if let Some(rounded) = Quantity::parse(&q.0).ok().and_then(|v| v.round_up_milli()) {
            q.0 = rounded;
        }
    }
}

/// A quantity string for a milli amount (the value is exact; Go would keep the
/// operands' format, e.g. `256Mi` rather than `268435456`).
fn quantity_of(milli: i128) -> K8sQuantity {
    K8sQuantity(format_decimal_milli(pod_resources::to_i64(milli)))
}

/// `IsOvercommitAllowed`: native resources other than hugepages.
fn overcommit_allowed(name: &str) -> bool {
    let native = !name.contains('/') || name.starts_with("kubernetes.io/");
    native && !name.starts_with("hugepages-")
}

/// `AllContainersHaveLimitForResource` (init and regular containers).
fn all_containers_have_limit(pod: &Pod, name: &str) -> bool {
    let Some(spec) = pod.spec.as_ref() else {
        return false;
    };
    spec.init_containers
        .iter()
        .flatten()
        .chain(spec.containers.iter())
        .all(|c| pod_resources::raw_limits(c).is_some_and(|l| l.contains_key(name)))
}

/// `defaultHugePagePodLimits`.
fn default_hugepage_pod_limits(pod: &mut Pod) {
    let aggregated: MilliList = pod_resources::aggregate(pod, pod_resources::raw_limits);
    let Some(r) = pod.spec.as_mut().and_then(|s| s.resources.as_mut()) else {
        return;
    };
    let limits_empty = r.limits.as_ref().is_none_or(BTreeMap::is_empty);
    let requests_empty = r.requests.as_ref().is_none_or(BTreeMap::is_empty);
    if limits_empty && requests_empty {
        return;
    }
    let mut limits = r.limits.clone().unwrap_or_default();
    for (name, value) in aggregated {
        if !pod_resources::is_supported_pod_level(&name) || !name.starts_with("hugepages-") {
            continue;
        }
        if r.requests.as_ref().is_some_and(|q| q.contains_key(&name)) {
            continue;
        }
        limits.entry(name).or_insert_with(|| quantity_of(value));
    }
    if !limits.is_empty() {
        r.limits = Some(limits);
    }
}

/// `defaultPodRequests`.
fn default_pod_requests(pod: &mut Pod) {
    let aggregated: MilliList = pod_resources::aggregate(pod, pod_resources::raw_requests);
    let Some(r) = pod.spec.as_mut().and_then(|s| s.resources.as_mut()) else {
        return;
    };
    let Some(limits) = r.limits.as_ref().filter(|l| !l.is_empty()) else {
        return;
    };
    let mut requests = r.requests.clone().unwrap_or_default();
    for (name, value) in aggregated {
        if pod_resources::is_supported_pod_level(&name) && overcommit_allowed(&name) {
            requests.entry(name).or_insert_with(|| quantity_of(value));
        }
    }
    for (name, limit) in limits {
        if pod_resources::is_supported_pod_level(name) {
            requests
                .entry(name.clone())
                .or_insert_with(|| limit.clone());
        }
    }
    if !requests.is_empty() {
        r.requests = Some(requests);
    }
}

/// `defaultPodLimits`.
fn default_pod_limits(pod: &mut Pod) {
    if pod_resources::pod_level_limits_set(pod) || !pod_resources::pod_level_requests_set(pod) {
        return;
    }
    let aggregated: MilliList = pod_resources::aggregate(pod, pod_resources::raw_limits);
    let complete: Vec<(String, i128)> = aggregated
        .into_iter()
        .filter(|(name, _)| {
            pod_resources::is_supported_pod_level(name)
                && overcommit_allowed(name)
                && all_containers_have_limit(pod, name)
        })
        .collect();
    let Some(r) = pod.spec.as_mut().and_then(|s| s.resources.as_mut()) else {
        return;
    };
    let mut limits = r.limits.clone().unwrap_or_default();
    for (name, value) in complete {
        limits.entry(name).or_insert_with(|| quantity_of(value));
    }
    if !limits.is_empty() {
        r.limits = Some(limits);
    }
}

/// `SetDefaults_Container`'s pull policy: `Always` when the image's tag is `latest`
/// (an image without tag and digest has the tag `latest`), else `IfNotPresent` (also for
/// a name `ParseImageName` rejects).
fn pull_policy(image: &str) -> &'static str {
    if image_tag(image).as_deref() == Some("latest") {
        "Always"
    } else {
        "IfNotPresent"
    }
}

/// The tag `parsers.ParseImageName` finds (`latest` when there is neither a tag nor a
/// digest, `""` for a digest alone), or `None` when the reference does not parse.
fn image_tag(image: &str) -> Option<String> {
    let (name_tag, digest) = match image.split_once('@') {
        Some((n, d)) => (n, Some(d)),
        None => (image, None),
    };
    if let Some(d) = digest {
        let (algo, hex) = d.split_once(':')?;
        if algo.is_empty() || hex.len() < 32 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
    }
    let last_slash = name_tag.rfind('/').map_or(0, |i| i + 1);
    let (name, tag) = match name_tag.get(last_slash..).and_then(|t| t.rfind(':')) {
        Some(i) => (
            name_tag.get(..last_slash + i)?,
            Some(name_tag.get(last_slash + i + 1..)?),
        ),
        None => (name_tag, None),
    };
    if !valid_name(name) {
        return None;
    }
    match tag {
        Some(t) if !valid_tag(t) => None,
        Some(t) => Some(t.to_string()),
        None if digest.is_some() => Some(String::new()),
        None => Some("latest".to_string()),
    }
}

/// A repository name as `ParseNormalizedNamed` accepts it: an optional domain, then
/// lowercase path components; a 64-hex identifier alone is refused.
fn valid_name(name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    if name.len() == 64 && name.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
        return false;
    }
    let mut parts: Vec<&str> = name.split('/').collect();
    let has_domain = parts.len() > 1
        && parts
            .first()
            .is_some_and(|d| d.contains('.') || d.contains(':') || *d == "localhost");
    if has_domain {
        let domain = parts.remove(0);
        if !domain
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b':' | b'[' | b']'))
        {
            return false;
        }
    }
    parts.iter().all(|p| valid_path_component(p))
}

/// `[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*`.
fn valid_path_component(p: &str) -> bool {
    let alnum = |b: u8| b.is_ascii_lowercase() || b.is_ascii_digit();
    let bytes = p.as_bytes();
    if bytes.is_empty() || !bytes.first().copied().is_some_and(alnum) {
        return false;
    }
    if !bytes.last().copied().is_some_and(alnum) {
        return false;
    }
    let mut i = 0;
    while i < bytes.len() {
        let Some(&b) = bytes.get(i) else { break };
        if alnum(b) {
            i += 1;
            continue;
        }
        let start = i;
        while bytes.get(i).is_some_and(|c| !alnum(*c)) {
            i += 1;
        }
        let sep = p.get(start..i).unwrap_or_default();
        let ok = matches!(sep, "." | "_" | "__") || sep.bytes().all(|c| c == b'-');
        if !ok {
            return false;
        }
    }
    true
}

/// `[\w][\w.-]{0,127}`.
fn valid_tag(t: &str) -> bool {
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    t.len() <= 128
        && t.bytes().next().is_some_and(word)
        && t.bytes().all(|b| word(b) || b == b'.' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn defaulted(spec: Value) -> Value {
        defaulted_with(spec, &FeatureGates::default())
    }

    fn defaulted_with(spec: Value, gates: &FeatureGates) -> Value {
        let mut pod: Pod = serde_json::from_value(json!({"spec": spec})).unwrap();
        apply_api_defaults_with(&mut pod, gates);
        serde_json::to_value(&pod).unwrap()["spec"].clone()
    }

    fn one_container(c: Value) -> Value {
        defaulted(json!({"containers": [c]}))["containers"][0].clone()
    }

    #[test]
    fn pull_policy_follows_the_tag() {
        assert_eq!(pull_policy("nginx"), "Always");
        assert_eq!(pull_policy("nginx:latest"), "Always");
        assert_eq!(pull_policy("nginx:1.27"), "IfNotPresent");
        assert_eq!(pull_policy("registry:5000/app"), "Always");
        assert_eq!(pull_policy("registry:5000/app:v2"), "IfNotPresent");
        let digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        assert_eq!(pull_policy(&format!("app@{digest}")), "IfNotPresent");
        assert_eq!(pull_policy(&format!("app:latest@{digest}")), "Always");
        // ParseImageName errors (uppercase repository, empty) leave the tag empty.
        assert_eq!(pull_policy("Nginx"), "IfNotPresent");
        assert_eq!(pull_policy(""), "IfNotPresent");
    }

    #[test]
    fn requests_default_to_limits_and_keep_explicit_values() {
        let c = defaulted(json!({"hostNetwork": true, "containers": [{
            "name": "a", "ports": [{"containerPort": 80}],
            "resources": {"limits": {"cpu": "1", "memory": "1Gi"}, "requests": {"cpu": "500m"}}}]}));
        let c0 = &c["containers"][0];
        assert_eq!(
            c0["resources"]["requests"],
            json!({"cpu": "500m", "memory": "1Gi"})
        );
        assert_eq!(
            c0["ports"][0],
            json!({"containerPort": 80, "hostPort": 80, "protocol": "TCP"})
        );
        let init = defaulted(json!({"initContainers": [{"name": "i",
            "resources": {"limits": {"memory": "1Gi"}}}], "containers": []}));
        assert_eq!(
            init["initContainers"][0]["resources"]["requests"],
            json!({"memory": "1Gi"})
        );
    }

    #[test]
    fn pod_spec_defaults() {
        let s = defaulted(json!({"containers": []}));
        assert_eq!(s["enableServiceLinks"], true);
        assert_eq!(s["dnsPolicy"], "ClusterFirst");
        assert_eq!(s["restartPolicy"], "Always");
        assert_eq!(s["securityContext"], json!({}));
        assert_eq!(s["terminationGracePeriodSeconds"], 30);
        assert_eq!(s["schedulerName"], "default-scheduler");
        let kept = defaulted(json!({"containers": [], "enableServiceLinks": false,
            "dnsPolicy": "Default", "restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
            "schedulerName": "s"}));
        assert_eq!(kept["enableServiceLinks"], false);
        assert_eq!(kept["dnsPolicy"], "Default");
        assert_eq!(kept["restartPolicy"], "Never");
        assert_eq!(kept["terminationGracePeriodSeconds"], 0);
        assert_eq!(kept["schedulerName"], "s");
    }

    #[test]
    fn host_network_ports_only_on_host_network_and_not_for_ephemeral_containers() {
        let s = defaulted(json!({"hostNetwork": true,
            "containers": [{"name": "a", "ports": [{"containerPort": 80, "hostPort": 81}]}],
            "initContainers": [{"name": "i", "ports": [{"containerPort": 90}]}],
            "ephemeralContainers": [{"name": "e", "ports": [{"containerPort": 99}]}]}));
        assert_eq!(s["containers"][0]["ports"][0]["hostPort"], 81);
        assert_eq!(s["initContainers"][0]["ports"][0]["hostPort"], 90);
        assert!(s["ephemeralContainers"][0]["ports"][0]
            .get("hostPort")
            .is_none());
        assert_eq!(s["ephemeralContainers"][0]["ports"][0]["protocol"], "TCP");
        let pod_net =
            defaulted(json!({"containers": [{"name": "a", "ports": [{"containerPort": 80}]}]}));
        assert!(pod_net["containers"][0]["ports"][0]
            .get("hostPort")
            .is_none());
    }

    #[test]
    fn container_defaults() {
        let c = one_container(json!({"name": "a", "image": "nginx:1.27"}));
        assert_eq!(c["imagePullPolicy"], "IfNotPresent");
        assert_eq!(c["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(c["terminationMessagePolicy"], "File");
        let kept = one_container(
            json!({"name": "a", "image": "nginx", "imagePullPolicy": "Never",
            "terminationMessagePath": "/tmp/t", "terminationMessagePolicy": "FallbackToLogsOnError"}),
        );
        assert_eq!(kept["imagePullPolicy"], "Never");
        assert_eq!(kept["terminationMessagePath"], "/tmp/t");
        assert_eq!(kept["terminationMessagePolicy"], "FallbackToLogsOnError");
    }

    #[test]
    fn ephemeral_containers_get_container_defaults() {
        let s = defaulted(
            json!({"containers": [], "ephemeralContainers": [{"name": "d", "image": "busybox",
            "env": [{"name": "N", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]}]}),
        );
        let e = &s["ephemeralContainers"][0];
        assert_eq!(e["imagePullPolicy"], "Always");
        assert_eq!(e["terminationMessagePath"], "/dev/termination-log");
        assert_eq!(e["terminationMessagePolicy"], "File");
        assert_eq!(e["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
    }

    #[test]
    fn env_field_ref_api_version() {
        let c = one_container(json!({"name": "a", "env": [
            {"name": "A", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
            {"name": "B", "valueFrom": {"fieldRef": {"apiVersion": "v2", "fieldPath": "metadata.name"}}},
            {"name": "C", "value": "x"}]}));
        assert_eq!(c["env"][0]["valueFrom"]["fieldRef"]["apiVersion"], "v1");
        assert_eq!(c["env"][1]["valueFrom"]["fieldRef"]["apiVersion"], "v2");
        assert!(c["env"][2].get("valueFrom").is_none());
    }

    #[test]
    fn probe_defaults() {
        let c = one_container(json!({"name": "a",
            "livenessProbe": {"httpGet": {"port": 80}},
            "readinessProbe": {"grpc": {"port": 9000}, "periodSeconds": 5},
            "startupProbe": {"exec": {"command": ["true"]}, "failureThreshold": 30, "timeoutSeconds": 0}}));
        let l = &c["livenessProbe"];
        assert_eq!(
            (
                l["timeoutSeconds"].clone(),
                l["periodSeconds"].clone(),
                l["successThreshold"].clone(),
                l["failureThreshold"].clone()
            ),
            (json!(1), json!(10), json!(1), json!(3))
        );
        assert_eq!(l["httpGet"]["path"], "/");
        assert_eq!(l["httpGet"]["scheme"], "HTTP");
        let r = &c["readinessProbe"];
        assert_eq!(r["periodSeconds"], 5);
        assert_eq!(r["grpc"]["service"], "");
        let s = &c["startupProbe"];
        assert_eq!(s["failureThreshold"], 30);
        assert_eq!(s["timeoutSeconds"], 1);
    }

    #[test]
    fn lifecycle_http_get_defaults() {
        let c = one_container(json!({"name": "a", "lifecycle": {
            "postStart": {"httpGet": {"port": 80, "path": "/start"}},
            "preStop": {"httpGet": {"port": 80, "scheme": "HTTPS"}}}}));
        assert_eq!(c["lifecycle"]["postStart"]["httpGet"]["path"], "/start");
        assert_eq!(c["lifecycle"]["postStart"]["httpGet"]["scheme"], "HTTP");
        assert_eq!(c["lifecycle"]["preStop"]["httpGet"]["path"], "/");
        assert_eq!(c["lifecycle"]["preStop"]["httpGet"]["scheme"], "HTTPS");
    }

    #[test]
    fn resource_lists_round_up_to_milli() {
        let s = defaulted(json!({
            "overhead": {"cpu": "0.0001"},
            "containers": [{"name": "a", "resources": {"limits": {"cpu": "1.0005", "memory": "1Gi"},
                                                       "requests": {"cpu": "100u"}}}]}));
        let r = &s["containers"][0]["resources"];
        assert_eq!(r["limits"], json!({"cpu": "1001m", "memory": "1Gi"}));
        assert_eq!(r["requests"], json!({"cpu": "1m", "memory": "1Gi"}));
        assert_eq!(s["overhead"]["cpu"], "1m");
    }

    #[test]
    fn volume_without_source_is_empty_dir() {
        let s = defaulted(json!({"containers": [], "volumes": [{"name": "scratch"},
            {"name": "h", "hostPath": {"path": "/srv"}}]}));
        assert_eq!(s["volumes"][0]["emptyDir"], json!({}));
        assert!(s["volumes"][1].get("emptyDir").is_none());
        assert_eq!(s["volumes"][1]["hostPath"]["type"], "");
    }

    #[test]
    fn volume_source_defaults() {
        let s = defaulted(json!({"containers": [], "volumes": [
            {"name": "s", "secret": {"secretName": "x"}},
            {"name": "c", "configMap": {"name": "x", "defaultMode": 256}},
            {"name": "d", "downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
            {"name": "p", "projected": {"sources": [
                {"downwardAPI": {"items": [{"path": "n", "fieldRef": {"fieldPath": "metadata.name"}}]}},
                {"serviceAccountToken": {"path": "token"}}]}},
            {"name": "i", "iscsi": {"targetPortal": "t", "iqn": "q", "lun": 0}},
            {"name": "r", "rbd": {"monitors": ["m"], "image": "img"}},
            {"name": "a", "azureDisk": {"diskName": "d", "diskURI": "u"}},
            {"name": "sc", "scaleIO": {"gateway": "g", "system": "s", "secretRef": {"name": "x"}}},
            {"name": "e", "ephemeral": {"volumeClaimTemplate": {"spec": {
                "resources": {"requests": {"storage": "0.0001"}}}}}}
        ]}));
        let v = &s["volumes"];
        assert_eq!(v[0]["secret"]["defaultMode"], 420);
        assert_eq!(v[1]["configMap"]["defaultMode"], 256);
        assert_eq!(v[2]["downwardAPI"]["defaultMode"], 420);
        assert_eq!(
            v[2]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"],
            "v1"
        );
        assert_eq!(v[3]["projected"]["defaultMode"], 420);
        assert_eq!(
            v[3]["projected"]["sources"][0]["downwardAPI"]["items"][0]["fieldRef"]["apiVersion"],
            "v1"
        );
        assert_eq!(
            v[3]["projected"]["sources"][1]["serviceAccountToken"]["expirationSeconds"],
            3600
        );
        assert_eq!(v[4]["iscsi"]["iscsiInterface"], "default");
        assert_eq!(
            (
                v[5]["rbd"]["pool"].clone(),
                v[5]["rbd"]["user"].clone(),
                v[5]["rbd"]["keyring"].clone()
            ),
            (json!("rbd"), json!("admin"), json!("/etc/ceph/keyring"))
        );
        assert_eq!(
            (
                v[6]["azureDisk"]["cachingMode"].clone(),
                v[6]["azureDisk"]["kind"].clone(),
                v[6]["azureDisk"]["fsType"].clone(),
                v[6]["azureDisk"]["readOnly"].clone()
            ),
            (
                json!("ReadWrite"),
                json!("Shared"),
                json!("ext4"),
                json!(false)
            )
        );
        assert_eq!(v[7]["scaleIO"]["storageMode"], "ThinProvisioned");
        assert_eq!(v[7]["scaleIO"]["fsType"], "xfs");
        let claim = &v[8]["ephemeral"]["volumeClaimTemplate"]["spec"];
        assert_eq!(claim["volumeMode"], "Filesystem");
        assert_eq!(claim["resources"]["requests"]["storage"], "1m");
    }

    #[test]
    fn image_volume_pull_policy_is_gated() {
        let spec = json!({"containers": [], "volumes": [
            {"name": "a", "image": {"reference": "tools:latest"}},
            {"name": "b", "image": {"reference": "tools:v1"}}]});
        let on = defaulted(spec.clone());
        assert_eq!(on["volumes"][0]["image"]["pullPolicy"], "Always");
        assert_eq!(on["volumes"][1]["image"]["pullPolicy"], "IfNotPresent");
        let off = defaulted_with(
            spec,
            &FeatureGates::resolve(&[("ImageVolume".to_string(), false)].into()),
        );
        assert!(off["volumes"][0]["image"].get("pullPolicy").is_none());
    }

    #[test]
    fn pod_level_requests_default_from_containers_then_limits() {
        let s = defaulted(json!({
            "resources": {"limits": {"cpu": "2", "memory": "1Gi"}},
            "containers": [{"name": "a", "resources": {"requests": {"cpu": "500m"}}},
                           {"name": "b", "resources": {"requests": {"cpu": "250m"}}}]}));
        // cpu from the containers' aggregate, memory (no container request) from the limit.
        assert_eq!(
            s["resources"]["requests"],
            json!({"cpu": "750m", "memory": "1Gi"})
        );
        let off = defaulted_with(
            json!({"resources": {"limits": {"cpu": "2"}}, "containers": []}),
            &FeatureGates::resolve(&[("PodLevelResources".to_string(), false)].into()),
        );
        assert!(off["resources"].get("requests").is_none());
    }

    #[test]
    fn pod_level_limits_default_when_every_container_has_one() {
        let s = defaulted(json!({
            "resources": {"requests": {"cpu": "1"}},
            "containers": [{"name": "a", "resources": {"limits": {"cpu": "1", "memory": "1Gi"}}},
                           {"name": "b", "resources": {"limits": {"cpu": "500m"}}}]}));
        assert_eq!(s["resources"]["limits"], json!({"cpu": "1500m"}));
    }

    #[test]
    fn pod_level_hugepage_limits_default_from_containers() {
        let s = defaulted(json!({
            "resources": {"limits": {"cpu": "1"}},
            "containers": [{"name": "a", "resources": {"limits": {"hugepages-2Mi": "4Mi"}}}]}));
        assert_eq!(s["resources"]["limits"]["hugepages-2Mi"], "4194304");
        // hugepages are not overcommittable: their request comes from the pod limit.
        assert_eq!(s["resources"]["requests"]["hugepages-2Mi"], "4194304");
    }

    #[test]
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

#[cfg(test)]
mod idempotence {
    use super::*;

    /// Defaulting a defaulted pod changes nothing: the lint applies the defaults to
    /// reviewed (already-defaulted) objects too.
    #[test]
    fn defaults_are_idempotent() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lint");
        let gates = FeatureGates::resolve(&crate::request::PlanRequest::default().feature_gates);
        let mut checked = 0;
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let Ok(Some(t)) = crate::lint::pod_template(&v["object"]) else {
                continue;
            };
            let Ok(mut pod) = serde_json::from_value::<Pod>(t.pod) else {
                continue;
            };
            apply_api_defaults_with(&mut pod, &gates);
            let once = pod.clone();
            apply_api_defaults_with(&mut pod, &gates);
            assert_eq!(pod, once, "{:?}", entry.path());
            checked += 1;
        }
        assert!(checked >= 10, "{checked}");
    }

    fn resources(values: &[Option<&str>; 6]) -> serde_json::Value {
        let names = ["cpu", "memory", "hugepages-2Mi"];
        let mut requests = serde_json::Map::new();
        let mut limits = serde_json::Map::new();
        for (i, name) in names.iter().enumerate() {
            if let Some(v) = values[i] {
                requests.insert((*name).into(), v.into());
            }
            if let Some(v) = values[i + 3] {
                limits.insert((*name).into(), v.into());
            }
        }
        serde_json::json!({"requests": requests, "limits": limits})
    }

    proptest::proptest! {
        /// Pod-level and container resources in any combination: defaulting a defaulted
        /// pod changes nothing (`PodLevelResources` on, as in 1.37).
        #[test]
        fn resource_defaults_are_idempotent(
            pod_level in proptest::array::uniform6(proptest::option::of(proptest::sample::select(vec!["1", "500m", "1Gi", "2Mi", "4Mi", "0"]))),
            a in proptest::array::uniform6(proptest::option::of(proptest::sample::select(vec!["1", "250m", "512Mi", "2Mi", "0"]))),
            b in proptest::array::uniform6(proptest::option::of(proptest::sample::select(vec!["2", "100m", "1Gi", "4Mi"]))),
            init in proptest::array::uniform6(proptest::option::of(proptest::sample::select(vec!["1", "2Mi", "64Mi"]))),
        ) {
            let gates = FeatureGates::resolve(&crate::request::PlanRequest::default().feature_gates);
            let v = serde_json::json!({"metadata": {"name": "p"}, "spec": {
                "resources": resources(&pod_level),
                "initContainers": [{"name": "i", "image": "x", "resources": resources(&init)}],
                "containers": [{"name": "a", "image": "x", "resources": resources(&a)},
                               {"name": "b", "image": "x", "resources": resources(&b)}]}});
            let Ok(mut pod) = serde_json::from_value::<Pod>(v) else {
                return Err(proptest::test_runner::TestCaseError::fail("pod"));
            };
            apply_api_defaults_with(&mut pod, &gates);
            let once = pod.clone();
            apply_api_defaults_with(&mut pod, &gates);
            proptest::prop_assert_eq!(
                serde_json::to_value(&pod).unwrap_or_default(),
                serde_json::to_value(&once).unwrap_or_default()
            );
        }
    }
}
