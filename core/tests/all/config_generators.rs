//! Focused checks of single generators against the kubelet rules they implement.

#![expect(
    clippy::indexing_slicing,
    clippy::panic,
    reason = "tests fail by panicking"
)]

use k8s_openapi::api::core::v1::{Container, Pod};
use serde_json::json;

use podplan_core::cri::NamespaceMode;
use podplan_core::features::FeatureGates;
use podplan_core::request::node::NodeContext;
use podplan_core::unstable::config::{dns, env, hostname, mounts, security};
use podplan_core::unstable::go::encoding;

fn pod(v: serde_json::Value) -> Pod {
    serde_json::from_value(v).unwrap_or_else(|e| panic!("bad test pod: {e}"))
}

fn node(v: serde_json::Value) -> NodeContext {
    serde_json::from_value(v).unwrap_or_else(|e| panic!("bad test node: {e}"))
}

fn first(p: &Pod) -> Container {
    p.spec
        .as_ref()
        .map(|s| s.containers[0].clone())
        .unwrap_or_default()
}

#[test]
fn dns_cluster_first_merges_and_limits() {
    let p = pod(
        json!({"metadata": {"namespace": "ns"}, "spec": {"containers": [],
        "dnsPolicy": "ClusterFirst",
        "dnsConfig": {"nameservers": ["9.9.9.9", "8.8.8.8", "1.1.1.1"],
                      "searches": ["svc.cluster.local", "extra"],
                      "options": [{"name": "ndots", "value": "2"}, {"name": "single-request"}]}}}),
    );
    let n = node(
        json!({"kubelet": {"clusterDomain": "cluster.local", "clusterDNS": ["10.96.0.10"]},
                        "hostDNS": {"servers": ["192.168.0.1"], "searches": ["corp.example."], "options": ["ndots:1"]}}),
    );
    let (cfg, notes) = dns::pod_dns(&p, &n);
    // 4 servers → the first 3 are kept.
    assert_eq!(cfg.servers, vec!["10.96.0.10", "9.9.9.9", "8.8.8.8"]);
    assert_eq!(notes.limits_exceeded.len(), 1);
    assert_eq!(
        cfg.searches,
        vec![
            "ns.svc.cluster.local",
            "svc.cluster.local",
            "cluster.local",
            "corp.example",
            "extra"
        ]
    );
    assert_eq!(cfg.options, vec!["ndots:2", "single-request"]);
}

#[test]
fn dns_falls_back_to_host_without_cluster_dns_and_on_host_network() {
    let n =
        node(json!({"hostDNS": {"servers": ["192.168.0.1"], "searches": ["a"], "options": ["o"]}}));
    let p = pod(json!({"spec": {"containers": [], "dnsPolicy": "ClusterFirst"}}));
    let (cfg, notes) = dns::pod_dns(&p, &n);
    assert!(notes.missing_cluster_dns);
    assert_eq!(cfg.servers, vec!["192.168.0.1"]);
    let hn =
        pod(json!({"spec": {"containers": [], "hostNetwork": true, "dnsPolicy": "ClusterFirst"}}));
    let n2 = node(
        json!({"kubelet": {"clusterDNS": ["10.0.0.10"], "resolvConf": ""}, "nodeIPs": ["fd00::1"]}),
    );
    let (cfg, notes) = dns::pod_dns(&hn, &n2);
    assert!(!notes.missing_cluster_dns);
    assert_eq!(cfg.servers, vec!["::1"]);
    assert_eq!(cfg.searches, vec!["."]);
    let none = pod(json!({"spec": {"containers": [], "dnsPolicy": "None"}}));
    assert_eq!(dns::pod_dns(&none, &n2).0, Default::default());
}

#[test]
fn dns_search_line_is_cut_to_2048_chars() {
    let long: Vec<String> = (0..20)
        .map(|i| format!("{i:02}{}", "x".repeat(150)))
        .collect();
    let p = pod(
        json!({"spec": {"containers": [], "dnsPolicy": "None", "dnsConfig": {"searches": long}}}),
    );
    let (cfg, notes) = dns::pod_dns(&p, &NodeContext::default());
    assert!(cfg.searches.join(" ").len() <= 2048);
    assert_eq!(cfg.searches.len(), 13);
    assert_eq!(notes.limits_exceeded.len(), 1);
}

#[test]
fn hostnames() {
    let g = FeatureGates::default();
    let long = "a".repeat(62) + "-.b";
    let p = pod(json!({"metadata": {"name": long, "namespace": "ns"}, "spec": {"containers": []}}));
    assert_eq!(
        hostname::pod_hostname_and_domain(&p, "c.l", &g).map(|h| h.0),
        Ok("a".repeat(62))
    );
    let p = pod(json!({"metadata": {"name": "p", "namespace": "ns"},
        "spec": {"containers": [], "hostname": "h", "subdomain": "s", "setHostnameAsFQDN": true}}));
    assert_eq!(
        hostname::sandbox_hostname(&p, "cluster.local", &g),
        Ok("h.s.ns.svc.cluster.local".to_string())
    );
    let e = hostname::sandbox_hostname(&p, &"d".repeat(60), &g);
    assert!(e.is_err_and(|e| e
        .to_string()
        .contains("is too long (64 characters is the max")));
    let o = pod(
        json!({"metadata": {"name": "p"}, "spec": {"containers": [], "hostname": "h",
        "hostnameOverride": "my.host.example"}}),
    );
    assert_eq!(
        hostname::pod_hostname_and_domain(&o, "c.l", &g),
        Ok(("my.host.example".to_string(), String::new()))
    );
    let hn =
        pod(json!({"metadata": {"name": "p"}, "spec": {"containers": [], "hostNetwork": true}}));
    assert_eq!(
        hostname::sandbox_hostname(&hn, "c.l", &g),
        Ok(String::new())
    );
}

#[test]
fn service_links_use_brackets_for_ipv6_and_default_tcp() {
    let services: Vec<k8s_openapi::api::core::v1::Service> = serde_json::from_value(json!([
        {"metadata": {"name": "my-db", "namespace": "ns"},
         "spec": {"clusterIP": "fd00::7", "ports": [{"port": 5432, "name": "pg-main"}, {"port": 9, "protocol": "UDP"}]}},
        {"metadata": {"name": "hidden", "namespace": "other"}, "spec": {"clusterIP": "10.0.0.9", "ports": [{"port": 1}]}}
    ]))
    .unwrap_or_default();
    let m = env::service_env_map(&services, "ns", true);
    assert_eq!(
        m.get("MY_DB_SERVICE_HOST").map(String::as_str),
        Some("fd00::7")
    );
    assert_eq!(
        m.get("MY_DB_SERVICE_PORT_PG_MAIN").map(String::as_str),
        Some("5432")
    );
    assert_eq!(
        m.get("MY_DB_PORT").map(String::as_str),
        Some("tcp://[fd00::7]:5432")
    );
    assert_eq!(
        m.get("MY_DB_PORT_9_UDP_PROTO").map(String::as_str),
        Some("udp")
    );
    assert!(!m.keys().any(|k| k.starts_with("HIDDEN")));
    assert!(env::service_env_map(&services, "ns", false).is_empty());
}

#[test]
fn downward_api_and_resource_fields() {
    let p = pod(
        json!({"metadata": {"name": "p", "namespace": "ns", "labels": {"b": "2", "a": "x\"y"}},
        "spec": {"enableServiceLinks": false, "nodeName": "n1", "containers": [{"name": "c",
            "resources": {"requests": {"cpu": "250m", "memory": "100Mi"}, "limits": {"memory": "1Gi"}},
            "env": [
                {"name": "LABELS", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.labels"}}},
                {"name": "CPU_LIMIT", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}},
                {"name": "CPU_REQ_M", "valueFrom": {"resourceFieldRef": {"resource": "requests.cpu", "divisor": "1m"}}},
                {"name": "MEM_MI", "valueFrom": {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}}},
                {"name": "HOST", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.host"}}},
                {"name": "REF", "value": "$(HOST)-$(MISSING)"}
            ]}]}}),
    );
    let n = node(json!({"allocatable": {"cpu": "3500m"}}));
    let out = env::make_environment_variables(&p, &first(&p), &[], &n, &FeatureGates::default());
    let out: std::collections::BTreeMap<String, podplan_core::cri::EnvBytes> =
        out.unwrap_or_default().into_iter().collect();
    assert_eq!(out["LABELS"], "a=\"x\\\"y\"\nb=\"2\"");
    assert_eq!(out["CPU_LIMIT"], "4"); // allocatable 3.5 CPUs, rounded up
    assert_eq!(out["CPU_REQ_M"], "250");
    assert_eq!(out["MEM_MI"], "1024");
    assert_eq!(out["REF"], "n1-$(MISSING)");
    let bad = pod(
        json!({"metadata": {"name": "p"}, "spec": {"enableServiceLinks": false, "containers": [{"name": "c",
        "env": [{"name": "X", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.restartPolicy"}}}]}]}}),
    );
    let e = env::make_environment_variables(&bad, &first(&bad), &[], &n, &FeatureGates::default());
    assert_eq!(
        e.err().map(|e| e.to_string()).as_deref(),
        Some("unsupported fieldPath: spec.restartPolicy")
    );
}

#[test]
fn effective_security_context_merges_pod_and_container() {
    let p = pod(json!({"spec": {
        "securityContext": {"runAsUser": 1, "runAsGroup": 2, "runAsNonRoot": true, "seLinuxOptions": {"user": "pu"}},
        "containers": [{"name": "c", "securityContext": {"runAsUser": 5, "privileged": true}}]}}));
    let eff = security::effective_security_context(&p, &first(&p));
    assert_eq!(
        (eff.run_as_user, eff.run_as_group, eff.run_as_non_root),
        (Some(5), Some(2), Some(true))
    );
    assert_eq!(eff.privileged, Some(true));
    assert_eq!(
        eff.se_linux_options.and_then(|s| s.user).as_deref(),
        Some("pu")
    );
    let target = pod(json!({"spec": {"hostPID": true, "hostIPC": true, "containers": []}}));
    assert_eq!(security::pid_namespace(&target), NamespaceMode::Node);
    assert_eq!(security::ipc_namespace(&target), NamespaceMode::Node);
}

#[test]
fn mount_rules() {
    let g = FeatureGates::default();
    let n = NodeContext::default();
    let p = pod(
        json!({"metadata": {"uid": "u"}, "spec": {"volumes": [{"name": "v", "emptyDir": {}}], "containers": [{"name": "c",
        "volumeMounts": [{"name": "v", "mountPath": "rel/path", "subPath": "a/../b"}]}]}}),
    );
    let env = std::collections::BTreeMap::<String, String>::new();
    let e = mounts::make_mounts(&p, &first(&p), &[], &env, &n, &g);
    assert_eq!(
        e.err().map(|e| e.to_string()).as_deref(),
        Some("unable to provision SubPath `a/../b`: must not contain '..'")
    );
    let p = pod(
        json!({"metadata": {"uid": "u"}, "spec": {"volumes": [{"name": "v", "emptyDir": {}}], "containers": [{"name": "c",
        "volumeMounts": [{"name": "v", "mountPath": "/d", "readOnly": false, "recursiveReadOnly": "Enabled"}]}]}}),
    );
    let e = mounts::make_mounts(&p, &first(&p), &[], &env, &n, &g);
    assert!(e.is_err_and(|e| e
        .to_string()
        .starts_with("failed to resolve recursive read-only mode:")));
    let p = pod(
        json!({"metadata": {"uid": "u"}, "spec": {"volumes": [{"name": "v", "emptyDir": {}}], "containers": [{"name": "c",
        "volumeMounts": [{"name": "v", "mountPath": "rel"}, {"name": "v", "mountPath": "/etc/hosts"}]}]}}),
    );
    let m = mounts::make_mounts(&p, &first(&p), &["10.0.0.1".to_string()], &env, &n, &g)
        .unwrap_or_default();
    // A relative mount path is made absolute; a container that mounts /etc/hosts itself gets no managed hosts file.
    assert_eq!(
        m.iter()
            .map(|m| m.container_path.as_str())
            .collect::<Vec<_>>(),
        vec!["/rel", "/etc/hosts"]
    );
    assert_eq!(
        m[0].host_path,
        "/var/lib/kubelet/pods/u/volumes/kubernetes.io~empty-dir/v"
    );
}

#[test]
fn go_json_of_handlers_and_ports() {
    let h: k8s_openapi::api::core::v1::LifecycleHandler = serde_json::from_value(json!(
        {"httpGet": {"port": "http", "path": "/q?a=<b>&c", "httpHeaders": [{"name": "X", "value": "1"}]}}
    ))
    .unwrap_or_default();
    assert_eq!(
        encoding::lifecycle_handler_json(&h),
        r#"{"httpGet":{"path":"/q?a=\u003cb\u003e\u0026c","port":"http","httpHeaders":[{"name":"X","value":"1"}]}}"#
    );
    let ports: Vec<k8s_openapi::api::core::v1::ContainerPort> =
        serde_json::from_value(json!([{"containerPort": 80}])).unwrap_or_default();
    assert_eq!(
        encoding::container_ports_json(&ports),
        r#"[{"containerPort":80}]"#
    );
}
