//! Criterion benchmarks of the CRI layer an agent runs on every relist and sync:
//! converting CRI status answers to the core's `RuntimeStatus`
//! (`podplan_cri::status::pod_status`), building the `CreateContainer` request of a
//! plan's config, and one container's lifecycle in the simulated runtime's model
//! (`podplan_core::sim::node::Node`).
//!
//! `cargo bench -p podplan-benches --bench cri`

#![expect(
    missing_docs,
    reason = "criterion_main! generates an undocumented `main`"
)]
#![expect(
    clippy::expect_used,
    reason = "a benchmark's fixtures are known good; a failure is a bug to stop at"
)]

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use podplan_core::config::labels::{CONTAINER_HASH, CONTAINER_NAME_LABEL, CONTAINER_RESTART_COUNT};
use podplan_core::sim::node::{ImagesScript, Node, Scenario};
use podplan_cri::{pb, requests, status};

/// A pod's relist: two sandboxes (the older one not ready) and `n` containers, each
/// with the kubelet's labels and annotations.
fn relist(n: usize) -> (Vec<pb::PodSandboxStatus>, Vec<status::ListedContainer>) {
    let sandbox = |id: &str, created: i64, state: pb::PodSandboxState| pb::PodSandboxStatus {
        id: id.into(),
        metadata: Some(pb::PodSandboxMetadata {
            name: "web".into(),
            uid: "uid-web".into(),
            namespace: "default".into(),
            attempt: u32::from(created > 1),
        }),
        state: state as i32,
        created_at: created,
        network: Some(pb::PodSandboxNetworkStatus {
            ip: "10.88.0.7".into(),
            additional_ips: vec![pb::PodIp {
                ip: "fd00::7".into(),
            }],
        }),
        labels: [("io.kubernetes.pod.uid".to_string(), "uid-web".to_string())].into(),
        ..Default::default()
    };
    let sandboxes = vec![
        sandbox("old", 1, pb::PodSandboxState::SandboxNotready),
        sandbox("new", 2, pb::PodSandboxState::SandboxReady),
    ];
    let containers = (0..n)
        .map(|i| {
            let created = i64::try_from(i).unwrap_or(0) * 1_000_000_000;
            status::ListedContainer {
                pod_sandbox_id: "new".into(),
                status: pb::ContainerStatus {
                    id: format!("{i:064x}"),
                    metadata: Some(pb::ContainerMetadata {
                        name: format!("c{i}"),
                        attempt: 0,
                    }),
                    state: pb::ContainerState::ContainerRunning as i32,
                    created_at: created,
                    started_at: created + 1,
                    image: Some(pb::ImageSpec {
                        image: "docker.io/library/nginx:1.27".into(),
                        ..Default::default()
                    }),
                    image_ref: "docker.io/library/nginx@sha256:ab".into(),
                    image_id: "sha256:cd".into(),
                    labels: [(CONTAINER_NAME_LABEL.to_string(), format!("c{i}"))].into(),
                    annotations: [
                        (CONTAINER_HASH.to_string(), "a7b3c9d1".to_string()),
                        (CONTAINER_RESTART_COUNT.to_string(), "2".to_string()),
                    ]
                    .into(),
                    ..Default::default()
                },
            }
        })
        .collect();
    (sandboxes, containers)
}

fn conversion(c: &mut Criterion) {
    let pod = status::PodRef {
        uid: "uid-web",
        name: "web",
        namespace: "default",
    };
    for n in [3, 30] {
        let (sandboxes, containers) = relist(n);
        c.bench_function(&format!("cri/pod_status/{n}-containers"), |b| {
            b.iter(|| {
                status::pod_status(
                    "containerd",
                    pod,
                    black_box(&sandboxes),
                    black_box(&containers),
                )
            });
        });
    }
    let request = podplan_core::api::parse_request(
        br#"{"pod": {"metadata": {"name": "web", "namespace": "default", "uid": "uid-web"},
            "spec": {"enableServiceLinks": true, "containers": [{"name": "app", "image": "nginx:1.27",
              "env": [{"name": "A", "value": "1"}], "ports": [{"containerPort": 80}]}]}}}"#,
    )
    .expect("a valid request");
    let plan = podplan_core::plan(&request).expect("a plan");
    let sandbox = plan.sandbox_config.clone().unwrap_or_default();
    let config = plan
        .container_configs
        .first()
        .map(|e| e.config.clone())
        .unwrap_or_default();
    c.bench_function("cri/create_container_request", |b| {
        b.iter(|| requests::create_container("sandbox", black_box(&config), black_box(&sandbox)));
    });

    let start = jiff::Timestamp::UNIX_EPOCH;
    let scenario = Scenario {
        images: ImagesScript {
            preloaded: vec!["nginx:1.27".into()],
            ..ImagesScript::default()
        },
        ..Scenario::default()
    };
    c.bench_function("cri/sim_node/container_lifecycle", |b| {
        let mut node = Node::new("sim", scenario.clone());
        let id = node
            .run_pod_sandbox(&sandbox, "", start)
            .expect("a sandbox");
        b.iter(|| {
            let c = node
                .create_container(&id, black_box(&config), start)
                .expect("a container");
            let _ = node.start_container(&c, start);
            let _ = node.stop_container(&c, 30, start);
            let _ = node.remove_container(&c, start);
        });
    });
}

criterion_group!(benches, conversion);
criterion_main!(benches);
