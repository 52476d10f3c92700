//! `podplan explain` on pods as people paste them (`test_data/explain/`): the kubelet's
//! `/pods` (a PodList with kind-less items), `kubectl get pods -o json` (a List), a
//! client-go dump without `kind`, must-gather's concatenated YAML, a manifest without
//! status, a truncated status; and the pods whose next step is not `SyncPod`'s:
//! unscheduled, evicted, being deleted.

use std::path::PathBuf;
use std::process::Output;

use serde_json::Value;

use crate::support::explain;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../test_data/explain")
        .join(name)
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn text(file: &str, extra: &[&str]) -> String {
    let path = data(file);
    let mut args = vec![path.to_str().unwrap()];
    args.extend_from_slice(extra);
    ok(&explain(&args, b""))
}

fn json(file: &str, extra: &[&str]) -> Value {
    let mut args = extra.to_vec();
    args.extend_from_slice(&["--output", "json"]);
    serde_json::from_str(&text(file, &args)).unwrap()
}

#[test]
fn a_kubelet_pod_list_gives_one_line_per_pod_and_pod_picks_one() {
    let t = text("kubelet-pods.json", &["--now", "2026-03-02T09:15:02Z"]);
    assert!(t.starts_with("2 pods in "), "{t}");
    let api = t
        .lines()
        .find(|l| l.starts_with("shop/api-7c9f8d6b5-qw2lp"))
        .unwrap();
    assert!(api.contains("1/1") && api.contains("Running"), "{api}");
    assert!(api.contains("nothing to do"), "{api}");
    let worker = t.lines().find(|l| l.starts_with("shop/worker-")).unwrap();
    assert!(
        worker.contains("OOMKilled") && worker.contains("starts worker now"),
        "{worker}"
    );
    // The full answer of one pod, by name or namespace/name.
    let full = text(
        "kubelet-pods.json",
        &[
            "--now",
            "2026-03-02T09:15:02Z",
            "--pod",
            "shop/api-7c9f8d6b5-qw2lp",
        ],
    );
    assert!(
        full.starts_with("Pod shop/api-7c9f8d6b5-qw2lp at"),
        "{full}"
    );
    assert!(full.contains("The kubelet's next sync"), "{full}");
    let by_name = json(
        "kubelet-pods.json",
        &[
            "--now",
            "2026-03-02T09:15:02Z",
            "--pod",
            "api-7c9f8d6b5-qw2lp",
        ],
    );
    assert_eq!(by_name["plan"]["kubectl"]["status"], "Running");
    // An unknown name is refused with the names the input holds.
    let out = explain(
        &[data("kubelet-pods.json").to_str().unwrap(), "--pod", "nope"],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("shop/worker-6b8d9c7f4-mk3zt"), "{err}");
    // JSON: one entry per pod with its row and what happens next.
    let list = json("kubelet-pods.json", &["--now", "2026-03-02T09:15:02Z"]);
    let pods = list["pods"].as_array().unwrap();
    assert_eq!(pods.len(), 2);
    assert_eq!(pods[1]["kubectl"]["status"], "OOMKilled");
    assert_eq!(pods[1]["next"]["stage"], "sync");
}

#[test]
fn an_expired_crash_loop_back_off_restarts_now_and_says_so() {
    // worker ran 09:00:05 to 09:15:00 (more than 600 s): the back-off record has expired.
    let a = json(
        "kubelet-pods.json",
        &[
            "--now",
            "2026-03-02T09:15:02Z",
            "--pod",
            "worker-6b8d9c7f4-mk3zt",
        ],
    );
    assert!(a["plan"].get("heldBack").is_none(), "{}", a["plan"]);
    assert_eq!(
        a["plan"]["actions"]["containersToStart"],
        serde_json::json!([0])
    );
    // The remaining back-off comes from the same table: nothing to wait.
    assert_eq!(a["backoffRemaining"][0]["seconds"], 0);
    assert!(a["assumptions"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s.as_str().unwrap().contains("back-off record has expired")));
}

#[test]
fn a_kind_less_pod_is_read_as_a_pod_and_gets_the_api_defaults() {
    // A client-go dump of a pod created before 1.13: no kind, no enableServiceLinks.
    let a = json("client-go-dump.json", &["--now", "2026-03-02T10:00:00Z"]);
    assert!(
        a["notes"][0].as_str().unwrap().contains("no `kind`"),
        "{}",
        a["notes"]
    );
    assert_eq!(a["request"]["pod"]["spec"]["enableServiceLinks"], true);
    assert!(a["plan"].get("errors").is_none(), "{}", a["plan"]);
    assert_eq!(
        a["plan"]["actions"]["containersToStart"],
        serde_json::json!([])
    );
    let assumptions = a["assumptions"].to_string();
    assert!(
        assumptions.contains("pod.spec.enableServiceLinks"),
        "{assumptions}"
    );
    // The ConfigMap and Secret the running container reads evidently exist.
    assert!(
        assumptions.contains("configmap \\\"billing-config\\\"")
            && assumptions.contains("evidently does"),
        "{assumptions}"
    );
    // A plausible cluster node: no MissingClusterDNS from podplan's own defaults.
    assert_eq!(
        a["request"]["node"]["kubelet"]["clusterDNS"],
        serde_json::json!(["10.96.0.10"])
    );
    assert!(!a["plan"].to_string().contains("MissingClusterDNS"));
    let t = text("client-go-dump.json", &["--now", "2026-03-02T10:00:00Z"]);
    assert!(
        t.contains("Note: the document has no `kind`; read as a Pod"),
        "{t}"
    );
    assert!(t.contains("What happens next: nothing to do"), "{t}");
}

#[test]
fn a_kubectl_list_explains_unscheduled_evicted_and_unready_pods() {
    let now = ["--now", "2026-03-02T10:00:30Z"];
    let t = text("pods-list.json", &now);
    let search = t
        .lines()
        .find(|l| l.starts_with("default/search-"))
        .unwrap();
    assert!(
        search.contains("not on a node; the scheduler says: 0/3 nodes are available"),
        "{search}"
    );
    let cache = t.lines().find(|l| l.starts_with("default/cache-")).unwrap();
    assert!(cache.contains("nothing restarts"), "{cache}");
    let frontend = t
        .lines()
        .find(|l| l.starts_with("default/frontend-"))
        .unwrap();
    assert!(frontend.contains("readiness is failing"), "{frontend}");

    // Unscheduled: no kubelet plan.
    let mut args = now.to_vec();
    args.extend_from_slice(&["--pod", "search-5f7d8c9b4-8hq2w"]);
    let a = json("pods-list.json", &args);
    assert_eq!(a["next"]["stage"], "unscheduled");
    assert_eq!(a["next"]["scheduler"]["reason"], "Unschedulable");
    assert!(a["plan"].is_null());

    // Evicted: terminal, nothing restarts although restartPolicy is Always.
    let mut args = now.to_vec();
    args.extend_from_slice(&["--pod", "cache-7d9f6c8b5-zz9kq"]);
    let a = json("pods-list.json", &args);
    assert_eq!(a["next"]["stage"], "terminal");
    assert_eq!(a["next"]["termination"]["restarts"], false);
    assert!(a["next"]["details"][0]
        .as_str()
        .unwrap()
        .contains("Evicted"));
    let t = text("pods-list.json", &args);
    assert!(!t.contains("start containers [0]"), "{t}");

    // Readiness failing: kept, and said so instead of "no failed probe".
    let mut args = now.to_vec();
    args.extend_from_slice(&["--pod", "frontend-6c5b4a3d2-p4r7s"]);
    let a = json("pods-list.json", &args);
    assert_eq!(
        a["next"]["readinessFailing"],
        serde_json::json!(["frontend"])
    );
    let t = text("pods-list.json", &args);
    assert!(
        t.contains("readiness is failing; the kubelet never restarts for readiness"),
        "{t}"
    );
    assert!(!t.contains("no failed probe"), "{t}");
}

#[test]
fn a_pod_being_deleted_stops_in_termination_order_within_the_grace_left() {
    let a = json("deleting.yaml", &["--now", "2026-03-02T10:00:20Z"]);
    let next = &a["next"];
    assert_eq!(next["stage"], "deleting");
    let t = &next["termination"];
    assert_eq!(t["gracePeriodSeconds"], 60);
    assert_eq!(t["graceRemainingSeconds"], 40);
    assert_eq!(t["restarts"], false);
    let order: Vec<&str> = t["stops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["container"].as_str().unwrap())
        .collect();
    // Regular containers first, then the sidecars in reverse order.
    assert_eq!(order, ["gateway", "proxy", "log-shipper"]);
    assert_eq!(t["stops"][0]["preStop"], "GET :9000/drain");
    assert_eq!(
        t["stops"][2]["after"],
        serde_json::json!(["gateway", "proxy"])
    );
    assert_eq!(
        t["finalizers"],
        serde_json::json!(["example.com/drain-connections"])
    );
    let text = text("deleting.yaml", &["--now", "2026-03-02T10:00:20Z"]);
    assert!(text.contains("within 40s"), "{text}");
    assert!(text.contains("example.com/drain-connections"), "{text}");
    assert!(!text.contains("keepContainer gateway"), "{text}");

    // Past the deadline: overdue, the containers are killed.
    let late = json("deleting.yaml", &["--now", "2026-03-02T10:03:00Z"]);
    assert_eq!(late["next"]["termination"]["graceRemainingSeconds"], -120);
    assert!(late["next"]["summary"]
        .as_str()
        .unwrap()
        .contains("grace period over"));

    // Containers gone, the finalizer keeps the object.
    let pod = std::fs::read_to_string(data("deleting.yaml")).unwrap();
    let gone = pod.replace(
        "      running:\n",
        "      terminated:\n        exitCode: 0\n        reason: Completed\n        finishedAt: \"2026-03-02T10:00:30Z\"\n",
    );
    let out = explain(
        &["-", "--now", "2026-03-02T10:00:40Z", "-o", "json"],
        gone.as_bytes(),
    );
    let a: Value = serde_json::from_str(&ok(&out)).unwrap();
    let summary = a["next"]["summary"].as_str().unwrap();
    assert!(
        summary.contains("no container runs")
            && summary.contains("finalizers (example.com/drain-connections)"),
        "{summary}"
    );
}

#[test]
fn a_missing_object_is_the_kubelets_report_and_others_are_assumed() {
    let now = ["--now", "2026-03-02T11:05:00Z"];
    let t = text("must-gather.yaml", &now);
    assert!(t.starts_with("2 pods in "), "{t}");
    let api = t
        .lines()
        .find(|l| l.starts_with("payments/payments-api-0"))
        .unwrap();
    assert!(
        api.contains(
            "the kubelet reported CreateContainerConfigError: secret \"stripe\" not found"
        ),
        "{api}"
    );
    // The worker reads a ConfigMap and a Secret podplan cannot see: assumed to exist,
    // so no CreateContainerConfigError the kubelet never hit.
    let worker = t
        .lines()
        .find(|l| l.starts_with("payments/payments-worker-0"))
        .unwrap();
    assert!(worker.contains("nothing to do"), "{worker}");
    let mut args = now.to_vec();
    args.extend_from_slice(&["--pod", "payments/payments-worker-0"]);
    let a = json("must-gather.yaml", &args);
    assert!(a["plan"].get("errors").is_none(), "{}", a["plan"]);
    assert!(a["assumptions"]
        .to_string()
        .contains("secret \\\"payments-worker\\\""));
    // The image USER is unknown: runAsNonRoot is not turned into an error.
    assert!(a["assumptions"].to_string().contains("its USER is unknown"));
    // For the api pod, the secret is missing because the status says so; the ConfigMap
    // is still assumed to exist.
    let mut args = now.to_vec();
    args.extend_from_slice(&["--pod", "payments-api-0"]);
    let a = json("must-gather.yaml", &args);
    assert!(a["request"]["node"]["configMaps"]
        .get("payments-env")
        .is_some());
    assert!(a["request"]["node"].get("secrets").is_none());
    assert_eq!(
        a["plan"]["errors"][0]["reason"],
        "CreateContainerConfigError"
    );
}

#[test]
fn a_manifest_without_status_is_explained_as_a_new_pod_with_a_warning() {
    let a = json("manifest.yaml", &["--now", "2026-03-02T10:00:30Z"]);
    assert_eq!(a["warnings"][0]["path"], "pod.status");
    assert!(a["warnings"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("no status: this is a manifest, not a pod from the API server"));
    assert_eq!(a["next"]["stage"], "sync");
    assert_eq!(a["plan"]["actions"]["createSandbox"], true);
    assert!(a["plan"].get("errors").is_none(), "{}", a["plan"]);
    let t = text("manifest.yaml", &["--now", "2026-03-02T10:00:30Z"]);
    assert!(t.contains("no status: a manifest"), "{t}");
    assert!(t.contains("ContainerCreating"), "{t}");
}

#[test]
fn a_truncated_status_is_flagged_with_field_paths() {
    let a = json("truncated.yaml", &["--now", "2026-03-02T12:05:00Z"]);
    let paths: Vec<&str> = a["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["path"].as_str().unwrap())
        .collect();
    for p in [
        "pod.status.containerStatuses[0].imageID",
        "pod.status.containerStatuses[0].restartCount",
        "pod.status.containerStatuses[0].containerID",
        "pod.status.containerStatuses[1].name",
    ] {
        assert!(paths.contains(&p), "{p} in {paths:?}");
    }
    // No spec at all is an error with the field named.
    let out = explain(
        &["-"],
        b"{\"metadata\": {\"name\": \"x\"}, \"status\": {\"phase\": \"Running\"}}",
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("pod.spec"), "{err}");
}

#[test]
fn multi_document_yaml_and_json_streams_are_read() {
    let one = std::fs::read_to_string(data("deleting.yaml")).unwrap();
    let other = one
        .replace("name: gateway-0", "name: gateway-1")
        .replace("deletionTimestamp", "x-deletionTimestamp");
    let stream =
        format!("{one}---\n{other}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c}}\n");
    let out = explain(&["-", "--now", "2026-03-02T10:00:20Z"], stream.as_bytes());
    let t = ok(&out);
    assert!(t.starts_with("2 pods in standard input"), "{t}");
    assert!(t.contains("document 3 is a ConfigMap: skipped"), "{t}");
}
