//! AdmissionReviews the webhook's tests send (the server's in podplan-admission, the
//! process's in podplan-host).

use serde_json::Value;

/// An AdmissionReview (CREATE) of a Pod `big` with `containers` containers, each with 20
/// env vars, a `$(MISSING)` reference and an exec probe: its lint takes a while (a review
/// past a tiny deadline, a judge busy while a signal arrives).
#[must_use]
#[expect(clippy::expect_used, reason = "a JSON value always serialises")]
pub fn large_pod_review(uid: &str, containers: usize) -> Vec<u8> {
    let containers: Vec<Value> = (0..containers)
        .map(|i| {
            serde_json::json!({
                "name": format!("c{i}"),
                "image": "registry.example/app:1",
                "command": ["/bin/app", "--flag=$(MISSING)"],
                "env": (0..20).map(|j| serde_json::json!({"name": format!("E{j}"), "value": "$(E0)"})).collect::<Vec<_>>(),
                "livenessProbe": {"exec": {"command": ["true"]}, "failureThreshold": 1},
            })
        })
        .collect();
    serde_json::to_vec(&serde_json::json!({
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "operation": "CREATE",
            "userInfo": {},
            "namespace": "default",
            "object": {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "big", "namespace": "default"},
                "spec": {"containers": containers},
            }
        }
    }))
    .expect("a JSON value serialises")
}
