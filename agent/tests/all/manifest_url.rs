//! `podplan agent --manifest-url`: the URL source (`pkg/kubelet/config/http.go`) against a
//! server on 127.0.0.1 whose answer the test changes.

use std::net::TcpListener;

use podplan_agent::manifest::{CONFIG_SOURCE_ANNOTATION, HTTP_SOURCE};
use podplan_agent::manifest_url::{parse_headers, UrlSource, UrlSourceError};
use podplan_testsupport::served::{server, set};

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\nspec:\n  containers:\n    - name: app\n      image: nginx:1.27\n";

fn names(source: &UrlSource) -> Vec<String> {
    source.set().pods.iter().map(|p| p.full_name()).collect()
}

fn now() -> jiff::Timestamp {
    "2026-01-01T00:00:00Z".parse().unwrap()
}

#[test]
fn a_pod_from_the_url_gets_the_url_sources_defaults_and_the_headers_are_sent() {
    let (url, served) = server();
    set(&served, 200, POD);
    let headers = parse_headers(&["a:hello, b :again".into(), "b:beautiful".into()]).unwrap();
    let mut source = UrlSource::new(&url, headers, "Node-1").unwrap();
    source.fetch(now()).unwrap();
    assert_eq!(names(&source), ["default/web-node-1"]);
    let pod = &source.set().pods[0].pod;
    let annotations = pod.metadata.annotations.as_ref().unwrap();
    assert_eq!(annotations[CONFIG_SOURCE_ANNOTATION], HTTP_SOURCE);
    // The NoExecute toleration is the file source's alone.
    assert!(pod.spec.as_ref().unwrap().tolerations.is_none());
    // The UID depends on the source: the same manifest as a file is another pod.
    let as_file =
        podplan_agent::manifest::pod_from_manifest(POD.as_bytes(), "/etc/pods/web.yaml", "Node-1")
            .unwrap();
    assert_ne!(as_file.metadata.uid, pod.metadata.uid);
    let requests = &served.lock().unwrap().requests;
    let head = &requests[0];
    assert_eq!(head[0], "GET /pods HTTP/1.1");
    let values = |name: &str| -> Vec<String> {
        head.iter()
            .filter_map(|l| l.split_once(": "))
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.to_string())
            .collect()
    };
    assert_eq!(values("a"), ["hello"]);
    assert_eq!(values("b"), ["again", "beautiful"], "{head:?}");
}

#[test]
fn failures_keep_the_last_good_pods_and_an_empty_answer_removes_them() {
    let (url, served) = server();
    let list = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"PodList\", \"items\": [{}, {}, {}]}}",
        r#"{"metadata": {"name": "a"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}"#,
        r#"{"metadata": {"name": "b", "namespace": "ops"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}"#,
        r#"{"metadata": {"name": "a"}, "spec": {"containers": [{"name": "d", "image": "x"}]}}"#,
    );
    set(&served, 200, &list);
    let mut source = UrlSource::new(&url, Vec::new(), "n1").unwrap();
    source.fetch(now()).unwrap();
    assert_eq!(names(&source), ["default/a-n1", "ops/b-n1"]);
    assert_eq!(
        source.set().problems.len(),
        1,
        "the duplicate of a is reported"
    );

    // A server error, a body that is no pod, a list with a pod the engine refuses:
    // nothing changes.
    set(&served, 500, "oops");
    assert!(matches!(
        source.fetch(now()),
        Err(UrlSourceError::Status { .. })
    ));
    set(&served, 200, "kind: ConfigMap\napiVersion: v1\n");
    let refused = source.fetch(now()).unwrap_err();
    assert!(refused.to_string().contains("ConfigMap"), "{refused}");
    set(
        &served,
        200,
        r#"{"kind": "PodList", "items": [{"metadata": {"name": "ok"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}, {"metadata": {"name": "bad"}, "spec": {"containers": []}}]}"#,
    );
    let refused = source.fetch(now()).unwrap_err();
    assert!(refused.to_string().contains("items[1]"), "{refused}");
    assert_eq!(names(&source), ["default/a-n1", "ops/b-n1"]);

    // An empty answer empties the set (and is reported).
    set(&served, 200, "");
    assert!(matches!(
        source.fetch(now()),
        Err(UrlSourceError::Empty { .. })
    ));
    assert!(source.set().pods.is_empty());

    // A server that is gone: an error, still nothing.
    let gone = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/", l.local_addr().unwrap())
    };
    let mut unreachable = UrlSource::new(&gone, Vec::new(), "n1").unwrap();
    assert!(matches!(
        unreachable.fetch(now()),
        Err(UrlSourceError::Request { .. })
    ));
}
