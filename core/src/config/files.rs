//! The files and directories the kubelet writes on the node around `RunPodSandbox` and
//! `CreateContainer`, with their content: pure values an executor carries out.
//!
//! * before `RunPodSandbox`: the pod's log directory (`createPodSandbox`, 0755);
//! * before each `CreateContainer`, in the kubelet's order: the pod directory
//!   (`makePodDataDirs`, 0750), the managed `etc-hosts` file (`makeHostsMount`, 0644;
//!   `managedHostsFileContent`, or the node's `/etc/hosts` for host-network pods), the
//!   container's termination-log directory (`GenerateRunContainerOptions`, 0750), the
//!   container's log directory (`generateContainerConfig`, 0755) and the termination-log
//!   file (`makeMounts`, empty, 0666).
//!
//! A runtime that gets a bind mount whose source is missing may create a directory in its
//! place (containerd does, silently): these files must exist before `CreateContainer`.

use k8s_openapi::api::core::v1::{Container, HostAlias, Pod};

use crate::features::FeatureGates;
pub(crate) use crate::plan::{NodeFile, NodeFileInclude, NodeFileKind};

use super::errors::ConfigError;
use super::hostname::pod_hostname_and_domain;
use super::mounts::{pod_container_dir, pod_dir, should_mount_hosts_file, ETC_HOSTS_PATH};
use super::paths::join_all;
use crate::request::node::{join_path, NodeContext};

/// Header of the managed hosts file of a pod-network pod.
pub(crate) const MANAGED_HOSTS_HEADER: &str = "# Kubernetes-managed hosts file.\n";
/// Header of the hosts file of a host-network pod (the node's file follows).
pub(crate) const MANAGED_HOSTS_HEADER_HOST_NETWORK: &str =
    "# Kubernetes-managed hosts file (host network).\n";
/// Where the node's hosts file is.
pub(crate) const NODE_HOSTS_FILE: &str = "/etc/hosts";

fn dir(purpose: &str, path: String, mode: &str) -> NodeFile {
    NodeFile {
        purpose: purpose.to_string(),
        path,
        kind: NodeFileKind::Directory,
        mode: mode.to_string(),
        content: None,
        include: None,
    }
}

/// `hostsEntriesFromHostAliases`: a blank line, a comment, then one line per alias
/// (`<ip>\t<name>\t<name>...`); nothing without aliases.
#[must_use]
pub(crate) fn hosts_entries_from_host_aliases(aliases: &[HostAlias]) -> String {
    if aliases.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n# Entries added by HostAliases.\n");
    for a in aliases {
        out.push_str(&a.ip);
        out.push('\t');
        out.push_str(&a.hostnames.as_deref().unwrap_or_default().join("\t"));
        out.push('\n');
    }
    out
}

/// `managedHostsFileContent`: the hosts file of a pod-network pod.
#[must_use]
pub(crate) fn managed_hosts_file_content(
    pod_ips: &[String],
    host_name: &str,
    host_domain: &str,
    aliases: &[HostAlias],
) -> String {
    let mut out = String::from(MANAGED_HOSTS_HEADER);
    out.push_str("127.0.0.1\tlocalhost\n");
    out.push_str("::1\tlocalhost ip6-localhost ip6-loopback\n");
    out.push_str("fe00::0\tip6-localnet\n");
    out.push_str("fe00::0\tip6-mcastprefix\n");
    out.push_str("fe00::1\tip6-allnodes\n");
    out.push_str("fe00::2\tip6-allrouters\n");
    for ip in pod_ips {
        if host_domain.is_empty() {
            out.push_str(&format!("{ip}\t{host_name}\n"));
        } else {
            out.push_str(&format!("{ip}\t{host_name}.{host_domain}\t{host_name}\n"));
        }
    }
    out.push_str(&hosts_entries_from_host_aliases(aliases));
    out
}

/// `nodeHostsFileContent`: the hosts file of a host-network pod, given the node's file.
#[must_use]
pub(crate) fn node_hosts_file_content(node_hosts: &str, aliases: &[HostAlias]) -> String {
    format!(
        "{MANAGED_HOSTS_HEADER_HOST_NETWORK}{node_hosts}{}",
        hosts_entries_from_host_aliases(aliases)
    )
}

/// The managed `etc-hosts` file `makeHostsMount` writes for `c`, or `None` when the
/// container gets no hosts mount (no pod IP yet on a pod network, or the container
/// mounts a volume at `/etc/hosts` itself).
pub(crate) fn etc_hosts_file(
    pod: &Pod,
    c: &Container,
    pod_ips: &[String],
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<Option<NodeFile>, ConfigError> {
    let own_mount = c
        .volume_mounts
        .iter()
        .flatten()
        .any(|m| m.mount_path == ETC_HOSTS_PATH);
    if own_mount || !should_mount_hosts_file(pod, pod_ips) {
        return Ok(None);
    }
    let spec = pod.spec.as_ref();
    let aliases = spec
        .and_then(|s| s.host_aliases.as_deref())
        .unwrap_or_default();
    let host_network = spec.and_then(|s| s.host_network) == Some(true);
    let (content, include) = if host_network {
        match &node.etc_hosts {
            Some(node_hosts) => (node_hosts_file_content(node_hosts, aliases), None),
            None => (
                MANAGED_HOSTS_HEADER_HOST_NETWORK.to_string(),
                Some(NodeFileInclude {
                    path: NODE_HOSTS_FILE.to_string(),
                    suffix: hosts_entries_from_host_aliases(aliases),
                }),
            ),
        }
    } else {
        let (host_name, host_domain) = pod_hostname_and_domain(pod, node.cluster_domain(), gates)?;
        (
            managed_hosts_file_content(pod_ips, &host_name, &host_domain, aliases),
            None,
        )
    };
    Ok(Some(NodeFile {
        purpose: "etcHosts".into(),
        path: join_all(&[&pod_dir(pod, node), "etc-hosts"]),
        kind: NodeFileKind::File,
        mode: "0644".into(),
        content: Some(content),
        include,
    }))
}

/// The pod's log directory, created before `RunPodSandbox` (the sandbox config's
/// `logDirectory`).
#[must_use]
pub(crate) fn pod_logs_dir(log_directory: &str) -> NodeFile {
    dir("podLogs", log_directory.to_string(), "0755")
}

/// `BuildContainerLogsDirectory`: `<podLogsDir>/<namespace>_<name>_<uid>/<container>`.
#[must_use]
pub(crate) fn container_logs_dir(pod: &Pod, c: &Container, node: &NodeContext) -> String {
    let m = &pod.metadata;
    let pod_part = format!(
        "{}_{}_{}",
        m.namespace.as_deref().unwrap_or_default(),
        m.name.as_deref().unwrap_or_default(),
        m.uid.as_deref().unwrap_or_default()
    );
    join_all(&[node.pod_logs_dir(), &pod_part, &c.name])
}

/// The termination-message file of one container instance (`makeMounts`, runtime side):
/// `<podContainerDir>/<id>`, empty, mode 0666, when the container has a
/// `terminationMessagePath`.
#[must_use]
pub(crate) fn termination_log_file(
    pod: &Pod,
    c: &Container,
    termination_log_id: &str,
    node: &NodeContext,
) -> Option<NodeFile> {
    c.termination_message_path
        .as_deref()
        .filter(|p| !p.is_empty())
        .map(|_| NodeFile {
            purpose: "terminationLog".into(),
            path: join_path(&pod_container_dir(pod, c, node), termination_log_id),
            kind: NodeFileKind::File,
            mode: "0666".into(),
            content: Some(String::new()),
            include: None,
        })
}

/// Everything the kubelet writes on the node for one `CreateContainer` of `c`, in order
/// (see the module documentation).
pub(crate) fn container_files(
    pod: &Pod,
    c: &Container,
    termination_log_id: &str,
    pod_ips: &[String],
    node: &NodeContext,
    gates: &FeatureGates,
) -> Result<Vec<NodeFile>, ConfigError> {
    let mut out = vec![dir("podDir", pod_dir(pod, node), "0750")];
    out.extend(etc_hosts_file(pod, c, pod_ips, node, gates)?);
    let termination = termination_log_file(pod, c, termination_log_id, node);
    if termination.is_some() {
        out.push(dir(
            "terminationLogDir",
            pod_container_dir(pod, c, node),
            "0750",
        ));
    }
    out.push(dir(
        "containerLogs",
        container_logs_dir(pod, c, node),
        "0755",
    ));
    out.extend(termination);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn managed_hosts_file_content_examples() {
        let text = crate::config::files::managed_hosts_file_content(
            &["10.0.0.5".to_string()],
            "web",
            "sub.ns.svc.cluster.local",
            &[],
        );
        assert!(text.ends_with("10.0.0.5\tweb.sub.ns.svc.cluster.local\tweb\n"));
    }

    fn pod(spec: serde_json::Value) -> Pod {
        serde_json::from_value(json!({
            "metadata": {"name": "web", "namespace": "ns", "uid": "u1"},
            "spec": spec
        }))
        .unwrap()
    }

    fn aliases() -> Vec<HostAlias> {
        serde_json::from_value(json!([
            {"ip": "1.2.3.4", "hostnames": ["a", "b"]},
            {"ip": "::5", "hostnames": ["c"]}
        ]))
        .unwrap()
    }

    #[test]
    fn managed_hosts_file_is_the_kubelets() {
        let ips = vec!["10.0.0.5".to_string(), "fd00::5".to_string()];
        assert_eq!(
            managed_hosts_file_content(&ips, "web", "", &aliases()),
            "# Kubernetes-managed hosts file.\n127.0.0.1\tlocalhost\n\
             ::1\tlocalhost ip6-localhost ip6-loopback\nfe00::0\tip6-localnet\n\
             fe00::0\tip6-mcastprefix\nfe00::1\tip6-allnodes\nfe00::2\tip6-allrouters\n\
             10.0.0.5\tweb\nfd00::5\tweb\n\n# Entries added by HostAliases.\n\
             1.2.3.4\ta\tb\n::5\tc\n"
        );
        let with_domain =
            managed_hosts_file_content(&ips[..1], "h", "sub.ns.svc.cluster.local", &[]);
        assert!(with_domain
            .ends_with("fe00::2\tip6-allrouters\n10.0.0.5\th.sub.ns.svc.cluster.local\th\n"));
    }

    #[test]
    fn host_network_hosts_file_wraps_the_nodes() {
        assert_eq!(
            node_hosts_file_content("127.0.0.1 localhost\n", &aliases()[..1]),
            "# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n\n\
             # Entries added by HostAliases.\n1.2.3.4\ta\tb\n"
        );
        let p = pod(json!({"hostNetwork": true, "containers": [{"name": "c"}]}));
        let c = &p.spec.as_ref().unwrap().containers[0];
        let gates = FeatureGates::default();
        let without = etc_hosts_file(&p, c, &[], &NodeContext::default(), &gates)
            .unwrap()
            .unwrap();
        assert_eq!(without.path, "/var/lib/kubelet/pods/u1/etc-hosts");
        assert_eq!(
            without.content.as_deref(),
            Some(MANAGED_HOSTS_HEADER_HOST_NETWORK)
        );
        assert_eq!(without.include.unwrap().path, "/etc/hosts");
        let node = NodeContext {
            etc_hosts: Some("127.0.0.1 localhost\n".into()),
            ..NodeContext::default()
        };
        let with = etc_hosts_file(&p, c, &[], &node, &gates).unwrap().unwrap();
        assert!(with.include.is_none());
        assert_eq!(
            with.content.as_deref(),
            Some("# Kubernetes-managed hosts file (host network).\n127.0.0.1 localhost\n")
        );
    }

    #[test]
    fn no_hosts_file_without_pod_ip_or_with_an_own_mount() {
        let gates = FeatureGates::default();
        let node = NodeContext::default();
        let p = pod(json!({"containers": [{"name": "c"}]}));
        let c = &p.spec.as_ref().unwrap().containers[0];
        assert!(etc_hosts_file(&p, c, &[], &node, &gates).unwrap().is_none());
        assert!(etc_hosts_file(&p, c, &["10.0.0.5".into()], &node, &gates)
            .unwrap()
            .is_some());
        let own = pod(json!({"containers": [{"name": "c",
            "volumeMounts": [{"name": "h", "mountPath": "/etc/hosts"}]}]}));
        let c = &own.spec.as_ref().unwrap().containers[0];
        assert!(etc_hosts_file(&own, c, &["10.0.0.5".into()], &node, &gates)
            .unwrap()
            .is_none());
    }

    #[test]
    fn container_files_in_kubelet_order() {
        let p = pod(json!({"hostname": "h", "containers": [{"name": "app",
            "terminationMessagePath": "/dev/termination-log"}]}));
        let c = &p.spec.as_ref().unwrap().containers[0];
        let files = container_files(
            &p,
            c,
            "0a1b2c3d",
            &["10.0.0.5".into()],
            &NodeContext::default(),
            &FeatureGates::default(),
        )
        .unwrap();
        let summary: Vec<(&str, &str, NodeFileKind, &str)> = files
            .iter()
            .map(|f| (f.purpose.as_str(), f.path.as_str(), f.kind, f.mode.as_str()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "podDir",
                    "/var/lib/kubelet/pods/u1",
                    NodeFileKind::Directory,
                    "0750"
                ),
                (
                    "etcHosts",
                    "/var/lib/kubelet/pods/u1/etc-hosts",
                    NodeFileKind::File,
                    "0644"
                ),
                (
                    "terminationLogDir",
                    "/var/lib/kubelet/pods/u1/containers/app",
                    NodeFileKind::Directory,
                    "0750"
                ),
                (
                    "containerLogs",
                    "/var/log/pods/ns_web_u1/app",
                    NodeFileKind::Directory,
                    "0755"
                ),
                (
                    "terminationLog",
                    "/var/lib/kubelet/pods/u1/containers/app/0a1b2c3d",
                    NodeFileKind::File,
                    "0666"
                ),
            ]
        );
        assert!(files[1]
            .content
            .as_deref()
            .unwrap()
            .ends_with("10.0.0.5\th\n"));
        assert_eq!(files[4].content.as_deref(), Some(""));
        // No terminationMessagePath: no termination-log directory or file.
        let bare = pod(json!({"containers": [{"name": "app"}]}));
        let c = &bare.spec.as_ref().unwrap().containers[0];
        let files = container_files(
            &bare,
            c,
            "x",
            &[],
            &NodeContext::default(),
            &FeatureGates::default(),
        )
        .unwrap();
        let purposes: Vec<&str> = files.iter().map(|f| f.purpose.as_str()).collect();
        assert_eq!(purposes, vec!["podDir", "containerLogs"]);
    }
}
