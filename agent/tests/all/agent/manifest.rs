//! The kubelet's file source: defaults, conflicts, bad manifests.

use super::*;

#[test]
fn manifest_defaults_follow_the_kubelet_file_source() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "web.yaml", WEB);
    write(dir.path(), ".hidden.yaml", WEB);
    let mut source = ManifestSource::new(dir.path(), "Node-1");
    let set = source.load(t0());
    assert!(set.problems.is_empty(), "{:?}", set.problems);
    assert_eq!(set.pods.len(), 1, "hidden files are skipped");
    let pod = &set.pods[0].pod;
    assert_eq!(pod.metadata.name.as_deref(), Some("web-node-1"));
    assert_eq!(pod.metadata.namespace.as_deref(), Some("default"));
    let uid = pod.metadata.uid.clone().unwrap();
    assert_eq!(uid.len(), 32, "an MD5 in hex: {uid}");
    assert!(uid.chars().all(|c| c.is_ascii_hexdigit()));
    let ann = pod.metadata.annotations.as_ref().unwrap();
    assert_eq!(ann[CONFIG_SOURCE_ANNOTATION], "file");
    assert_eq!(ann[CONFIG_HASH_ANNOTATION], uid);
    assert_eq!(ann[CONFIG_SEEN_ANNOTATION], t0().to_string());
    // The mirror pod's creation time, which `kubectl get pods` counts AGE from.
    assert_eq!(
        pod.metadata.creation_timestamp.as_ref().map(|t| t.0),
        Some(t0())
    );
    assert_eq!(pod.metadata.labels.as_ref().unwrap()[AGENT_LABEL], "Node-1");
    let spec = pod.spec.as_ref().unwrap();
    assert_eq!(spec.node_name.as_deref(), Some("Node-1"));
    let tolerations = spec.tolerations.as_ref().unwrap();
    assert!(tolerations
        .iter()
        .any(|t| t.operator.as_deref() == Some("Exists")
            && t.effect.as_deref() == Some("NoExecute")
            && t.key.is_none()));
    assert_eq!(
        pod.status.as_ref().unwrap().phase.as_deref(),
        Some("Pending")
    );

    // The first-seen time stays; the UID depends on the node and the content.
    let again = source.load(t0() + jiff::SignedDuration::from_secs(60));
    assert_eq!(again.pods[0].pod, *pod);
    let other_node = ManifestSource::new(dir.path(), "node-2").load(t0());
    assert_ne!(other_node.pods[0].uid(), uid);
    write(
        dir.path(),
        "web.yaml",
        &WEB.replace("nginx:1.27", "nginx:1.28"),
    );
    assert_ne!(
        source.load(t0()).pods[0].uid(),
        uid,
        "a changed manifest is a new pod"
    );
    // A UID given in the manifest is kept.
    write(
        dir.path(),
        "web.yaml",
        &WEB.replace("  name: web\n", "  name: web\n  uid: my-uid\n"),
    );
    let set = source.load(t0());
    assert_eq!(set.pods[0].uid(), "my-uid");
    assert_eq!(
        set.pods[0].pod.metadata.annotations.as_ref().unwrap()[CONFIG_HASH_ANNOTATION],
        "my-uid"
    );
}

#[test]
fn bad_manifests_are_reported_with_the_path_and_skipped_and_the_first_file_wins() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a-web.yaml", WEB);
    write(
        dir.path(),
        "b-web-again.json",
        &serde_json::to_string(&serde_yaml_ng::from_str::<serde_json::Value>(WEB).unwrap())
            .unwrap(),
    );
    write(
        dir.path(),
        "c-bad.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  containers:\n    - name: app\n      image: x\n    - name: app\n      image: y\n",
    );
    write(
        dir.path(),
        "d-type.yaml",
        "kind: Pod\nmetadata: {name: t}\nspec: {containers: 3}\n",
    );
    write(
        dir.path(),
        "e-deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n",
    );
    write(dir.path(), "f-text.txt", "{ not yaml: [");
    std::fs::create_dir(dir.path().join("g-subdir")).unwrap();
    let set = ManifestSource::new(dir.path(), "n1").load(t0());
    assert_eq!(set.pods.len(), 1);
    assert!(set.pods[0].file.ends_with("a-web.yaml"));
    let by_file: BTreeMap<String, &podplan_agent::manifest::ManifestProblem> = set
        .problems
        .iter()
        .map(|p| {
            (
                p.file.file_name().unwrap().to_string_lossy().into_owned(),
                p,
            )
        })
        .collect();
    assert_eq!(by_file.len(), 5, "{:?}", set.problems);
    assert!(by_file["b-web-again.json"].message.contains("a-web.yaml"));
    assert_eq!(by_file["c-bad.yaml"].path, "pod.spec.containers[1].name");
    assert!(
        by_file["d-type.yaml"]
            .path
            .starts_with("pod.spec.containers"),
        "{:?}",
        by_file["d-type.yaml"]
    );
    assert_eq!(by_file["e-deploy.yaml"].path, "pod.kind");
    assert!(by_file["f-text.txt"].message.contains("YAML"));
    let shown = by_file["c-bad.yaml"].to_string();
    assert!(
        shown.contains("c-bad.yaml: pod.spec.containers[1].name: "),
        "{shown}"
    );
}
