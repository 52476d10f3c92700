//! Image pulls in plans: `EnsureImageExists` in the start pass, when the request
//! reports the node's images.

use podplan_core::api::{parse_request_value, plan};
use podplan_core::plan::Plan;
use serde_json::{json, Value};

fn pod(containers: Value, init: Value) -> Value {
    json!({
        "metadata": {"name": "web", "namespace": "default", "uid": "u1",
                     "annotations": {"team": "a"}},
        "spec": {"enableServiceLinks": true, "initContainers": init, "containers": containers}
    })
}

fn run(request: Value) -> Plan {
    let request = parse_request_value(request).unwrap_or_default();
    plan(&request).unwrap_or_default()
}

fn ops(p: &Plan) -> Vec<String> {
    p.steps
        .iter()
        .filter(|s| s.op() != "WriteNodeFiles")
        .map(|s| format!("{} {}", s.op(), s.container().unwrap_or("")))
        .collect()
}

fn events(p: &Plan) -> Vec<String> {
    p.events
        .iter()
        .map(|e| format!("{} {}", e.reason, e.message))
        .collect()
}

fn set(v: &mut Value, key: &str, value: Value) {
    if let Some(o) = v.as_object_mut() {
        o.insert(key.to_string(), value);
    }
}

const NOW: &str = "2026-01-01T00:00:00Z";

fn app(image: &str, policy: &str) -> Value {
    json!([{"name": "app", "image": image, "imagePullPolicy": policy}])
}

#[test]
fn present_image_is_used_with_its_ref() {
    let p = run(json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"), json!([])),
        "images": {"present": {"nginx:1.27": "sha256:aaa"}},
        "now": NOW
    }));
    assert_eq!(
        ops(&p),
        [
            "KillPod ",
            "RunPodSandbox ",
            "CreateContainer app",
            "StartContainer app"
        ]
    );
    let image = p.container_configs[0]
        .config
        .image
        .clone()
        .unwrap_or_default();
    assert_eq!(
        (image.image.as_str(), image.user_specified_image.as_str()),
        ("sha256:aaa", "nginx:1.27")
    );
    assert!(events(&p).contains(
        &"Pulled Container image \"nginx:1.27\" already present on machine and can be accessed by the pod"
            .to_string()
    ));
    assert!(p.image_backoff.is_empty());
}

#[test]
fn a_missing_image_is_pulled_then_the_plan_is_redone() {
    let base = json!({
        "pod": pod(app("nginx", "Always"), json!([])),
        "images": {"present": {}},
        "now": NOW
    });
    let p = run(base.clone());
    assert_eq!(ops(&p), ["KillPod ", "RunPodSandbox ", "PullImage app"]);
    let pull = p
        .steps
        .iter()
        .find_map(|s| match s {
            podplan_core::plan::Step::PullImage(pull) => Some(pull.clone()),
            _ => None,
        })
        .unwrap_or_default();
    let spec = pull.image_spec.clone().unwrap_or_default();
    assert_eq!(spec.image, "nginx:latest");
    assert_eq!(spec.annotations.len(), 1);
    assert_eq!(pull.image.as_deref(), Some("nginx"));
    assert_eq!(pull.backoff_key.as_deref(), Some("u1_nginx"));
    assert_eq!(pull.sandbox_config.as_deref(), Some("plan.sandboxConfig"));
    assert!(pull.auth.is_empty());
    assert!(events(&p).contains(&"Pulling Pulling image \"nginx\"".to_string()));
    assert!(p.container_configs.is_empty());
    // The start decision is carried out by the pull.
    let start = p
        .decisions
        .iter()
        .find(|d| d.container.as_deref() == Some("app"));
    assert_eq!(
        start
            .and_then(|d| d.step)
            .and_then(|i| p.steps.get(i))
            .map(|s| s.op()),
        Some(podplan_core::plan::StepOp::PullImage)
    );

    // The pull succeeded: the next plan creates the container with the pulled ref.
    let mut next = base.clone();
    set(
        &mut next,
        "pullResults",
        json!([{"image": "nginx", "backoffKey": "u1_nginx", "at": NOW,
        "imageRef": "sha256:bbb", "pullMillis": 1500, "totalMillis": 2000, "imageSize": 42}]),
    );
    let p = run(next);
    assert_eq!(
        ops(&p),
        [
            "KillPod ",
            "RunPodSandbox ",
            "CreateContainer app",
            "StartContainer app"
        ]
    );
    assert_eq!(
        p.container_configs[0]
            .config
            .image
            .clone()
            .unwrap_or_default()
            .image,
        "sha256:bbb"
    );
    assert!(events(&p).contains(
        &"Pulled Successfully pulled image \"nginx\" in 1.5s (2s including waiting). Image size: 42 bytes."
            .to_string()
    ));
}

#[test]
fn a_failed_pull_is_err_image_pull_then_back_off() {
    let mut r = json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"), json!([])),
        "images": {"present": {}},
        "now": NOW,
        "pullResults": [{"image": "nginx:1.27", "at": NOW,
            "error": "rpc error: code = NotFound desc = not found"}]
    });
    let p = run(r.clone());
    assert!(!ops(&p).iter().any(|o| o.contains("app")));
    assert_eq!(p.errors.len(), 1);
    assert_eq!(
        (p.errors[0].reason.as_str(), p.errors[0].message.as_str()),
        (
            "ErrImagePull",
            "rpc error: code = NotFound desc = not found"
        )
    );
    let evs = events(&p);
    assert!(evs.contains(
        &"Failed Failed to pull image \"nginx:1.27\": rpc error: code = NotFound desc = not found"
            .to_string()
    ));
    assert!(evs.contains(&"Failed Error: ErrImagePull".to_string()));
    assert_eq!(p.image_backoff.len(), 1);
    assert_eq!(p.image_backoff[0].delay_seconds, 10);
    assert_eq!(
        p.reason_cache.get("app").map(|e| e.reason.as_str()),
        Some("ErrImagePull")
    );
    // The same result handed in again is not counted twice.
    set(
        &mut r,
        "imageBackoff",
        serde_json::to_value(&p.image_backoff).unwrap_or_default(),
    );
    set(&mut r, "now", json!("2026-01-01T00:00:05Z"));
    set(
        &mut r,
        "reasonCache",
        serde_json::to_value(&p.reason_cache).unwrap_or_default(),
    );
    let p2 = run(r.clone());
    assert_eq!(p2.image_backoff[0].delay_seconds, 10);
    // 5 s later: ImagePullBackOff, held back until the 10 s are over.
    assert_eq!(p2.held_back.len(), 1);
    let h = &p2.held_back[0];
    assert_eq!(
        (h.reason.as_deref(), h.wait_seconds, h.delay_seconds),
        (Some("ImagePullBackOff"), 5, 10)
    );
    assert_eq!(p2.errors[0].reason, "ImagePullBackOff");
    assert_eq!(
        p2.errors[0].message,
        "Back-off pulling image \"nginx:1.27\": ErrImagePull: rpc error: code = NotFound desc = not found"
    );
    let evs = events(&p2);
    assert!(evs.contains(&"BackOff Back-off pulling image \"nginx:1.27\"".to_string()));
    assert!(evs.contains(&"Failed Error: ImagePullBackOff".to_string()));
    // The status at the start of this sync shows the previous sync's ErrImagePull.
    assert_eq!(
        p2.kubectl.as_ref().map(|k| k.status.as_str()),
        Some("ErrImagePull")
    );
    assert_eq!(
        p2.reason_cache.get("app").map(|e| e.reason.as_str()),
        Some("ImagePullBackOff")
    );
    // After 10 s the pull is tried again.
    r.as_object_mut().map(|o| o.remove("pullResults"));
    set(
        &mut r,
        "imageBackoff",
        serde_json::to_value(&p2.image_backoff).unwrap_or_default(),
    );
    set(&mut r, "now", json!("2026-01-01T00:00:10Z"));
    let p3 = run(r);
    assert!(ops(&p3).contains(&"PullImage app".to_string()));
    // The stored previous error is dropped when a pull is attempted.
    assert_eq!(p3.image_backoff[0].previous_error, None);
}

#[test]
fn never_with_a_missing_image_and_bad_names_fail_the_start() {
    let p = run(json!({
        "pod": pod(json!([
            {"name": "a", "image": "nginx:1.27", "imagePullPolicy": "Never"},
            {"name": "b", "image": "Bad Name", "imagePullPolicy": "IfNotPresent"},
            {"name": "c", "image": "redis:7", "imagePullPolicy": "IfNotPresent"}
        ]), json!([])),
        "images": {"present": {"redis:7": "sha256:ccc"}},
        "now": NOW
    }));
    let errors: Vec<(&str, &str)> = p
        .errors
        .iter()
        .map(|e| (e.container.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(
        errors,
        [("a", "ErrImageNeverPull"), ("b", "InvalidImageName")]
    );
    assert_eq!(
        p.errors[0].message,
        "Container image \"nginx:1.27\" is not present with pull policy of Never"
    );
    assert!(p.errors[1]
        .message
        .starts_with("Failed to apply default image tag \"Bad Name\": "));
    // Other containers go on.
    assert!(ops(&p).contains(&"StartContainer c".to_string()));
    let evs = events(&p);
    assert!(evs.iter().any(|e| e.starts_with("ErrImageNeverPull ")));
    assert!(evs.iter().any(|e| e.starts_with("InspectFailed ")));
}

#[test]
fn a_classic_init_container_pull_stops_later_starts() {
    let p = run(json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"),
                   json!([{"name": "init", "image": "busybox:1", "imagePullPolicy": "IfNotPresent"}])),
        "images": {"present": {"nginx:1.27": "sha256:aaa"}},
        "now": NOW
    }));
    assert_eq!(ops(&p), ["KillPod ", "RunPodSandbox ", "PullImage init"]);
    // A failed pull of it stops them too.
    let p = run(json!({
        "pod": pod(json!([]), json!([
            {"name": "init", "image": "busybox:1", "imagePullPolicy": "IfNotPresent"},
            {"name": "init2", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent"}])),
        "images": {"present": {"nginx:1.27": "sha256:aaa"}},
        "pullResults": [{"image": "busybox:1", "at": NOW, "error": "RegistryUnavailable: down"}],
        "now": NOW
    }));
    assert_eq!(ops(&p), ["KillPod ", "RunPodSandbox "]);
    assert_eq!(p.errors[0].reason, "RegistryUnavailable");
    assert_eq!(
        p.errors[0].message,
        "image pull failed for busybox:1 because the registry is unavailable: down"
    );
    assert!(p
        .decisions
        .iter()
        .any(|d| d.reason == "InitContainerStartFailed"));
}

#[test]
fn two_containers_with_one_image_share_a_pull() {
    let containers = json!([
        {"name": "a", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent"},
        {"name": "b", "image": "nginx:1.27", "imagePullPolicy": "IfNotPresent"}
    ]);
    let p = run(json!({
        "pod": pod(containers.clone(), json!([])),
        "images": {"present": {}},
        "now": NOW
    }));
    assert_eq!(ops(&p), ["KillPod ", "RunPodSandbox ", "PullImage a"]);
    // A failure: the first container reports ErrImagePull, the second is in back-off, as
    // the kubelet's second EnsureImageExists of the same sync finds it.
    let p = run(json!({
        "pod": pod(containers, json!([])),
        "images": {"present": {}},
        "pullResults": [{"image": "nginx:1.27", "at": NOW, "error": "boom"}],
        "now": NOW
    }));
    let errors: Vec<(&str, &str)> = p
        .errors
        .iter()
        .map(|e| (e.container.as_str(), e.reason.as_str()))
        .collect();
    assert_eq!(errors, [("a", "ErrImagePull"), ("b", "ImagePullBackOff")]);
}

#[test]
fn odd_image_inputs_are_warnings() {
    // A pull result for an image the pod does not use.
    let p = run(json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"), json!([])),
        "images": {"present": {"nginx:1.27": "sha256:aaa"}},
        "pullResults": [{"image": "redis", "at": NOW, "imageRef": "sha256:r"}],
        "now": NOW
    }));
    assert!(p
        .warnings
        .iter()
        .any(|w| w.path == "pullResults" && w.message.contains("redis")));
    // Image fields without `images`: ignored, today's plan.
    let with = run(json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"), json!([])),
        "pullResults": [{"image": "nginx:1.27", "at": NOW, "error": "x"}],
        "now": NOW
    }));
    let without = run(json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"), json!([])),
        "now": NOW
    }));
    assert_eq!(with.steps, without.steps);
    assert!(with.warnings.iter().any(|w| w.path == "images"));
    // A back-off record from the future.
    let p = run(json!({
        "pod": pod(app("nginx:1.27", "IfNotPresent"), json!([])),
        "images": {"present": {}},
        "imageBackoff": [{"key": "u1_nginx:1.27", "delaySeconds": 10,
                          "lastUpdate": "2026-01-01T00:01:00Z"}],
        "now": NOW
    }));
    assert!(p.warnings.iter().any(|w| w.path == "imageBackoff"));
}

#[test]
fn pull_secrets_become_the_pull_auth() {
    // {"auths": {"registry.example.com": {"auth": "dXNlcjpwYXNz"}}} (auth = base64 "user:pass")
    let data =
        "eyJhdXRocyI6IHsicmVnaXN0cnkuZXhhbXBsZS5jb20iOiB7ImF1dGgiOiAiZFhObGNqcHdZWE56In19fQ==";
    let p = run(json!({
        "pod": pod(app("registry.example.com/app:1", "IfNotPresent"), json!([])),
        "images": {"present": {}},
        "pullSecrets": [{"metadata": {"name": "reg", "namespace": "default", "uid": "s1"},
                         "type": "kubernetes.io/dockerconfigjson",
                         "data": {".dockerconfigjson": data}}],
        "now": NOW
    }));
    let pull = p
        .steps
        .iter()
        .find_map(|s| match s {
            podplan_core::plan::Step::PullImage(pull) => Some(pull.clone()),
            _ => None,
        })
        .unwrap_or_default();
    assert_eq!(pull.auth.len(), 1);
    assert_eq!(
        (
            pull.auth[0].username.as_str(),
            pull.auth[0].password.as_str()
        ),
        ("user", "pass")
    );
}
