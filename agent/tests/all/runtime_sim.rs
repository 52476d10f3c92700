//! The simulated CRI runtime over gRPC: served on a unix socket in a temp dir (the
//! `podplan runtime-sim` binary: podplan-host's `runtime_sim_cli`), driven with
//! podplan-cri's generated client and the kubelet's own configs from a plan.

use std::time::Duration;

use podplan_agent::runtime_sim::{
    self, Clock, ContainerScript, ExitScript, Fault, Scenario, SimOptions, SimRuntime,
};
use podplan_core::config::labels::{CONTAINER_HASH, POD_UID_LABEL};
use podplan_core::runtime::ContainerState;
use podplan_core::sim::node::CriCode;
use podplan_cri::client::{self, ImageClient, RuntimeClient};
use podplan_cri::{pb, requests, status};

fn start() -> jiff::Timestamp {
    jiff::Timestamp::from_second(1_750_000_000).unwrap()
}

/// A simulated runtime with a virtual clock, served on a socket in a fresh temp dir.
struct Served {
    sim: SimRuntime,
    runtime: RuntimeClient,
    images: ImageClient,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl Served {
    async fn new(scenario: Scenario) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let endpoint = format!("unix://{}/sim.sock", dir.path().display());
        let sim = SimRuntime::new(
            SimOptions {
                scenario,
                ..SimOptions::default()
            },
            Clock::virtual_at(start()),
        );
        let listener = runtime_sim::bind(&endpoint).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let served = sim.clone();
        let server = tokio::spawn(async move {
            runtime_sim::serve(&served, listener, async {
                let _ = stopped.await;
            })
            .await
            .unwrap();
        });
        let channel = client::connect(&endpoint).await.unwrap();
        Self {
            sim,
            runtime: client::runtime_client(channel.clone()),
            images: client::image_client(channel),
            stop: Some(stop),
            server: Some(server),
            _dir: dir,
        }
    }

    async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(server) = self.server.take() {
            server.await.unwrap();
        }
    }
}

/// The kubelet's configs for a pod with one container, from a plan.
fn configs(
    pod_json: &str,
) -> (
    podplan_core::cri::PodSandboxConfig,
    Vec<podplan_core::cri::ContainerConfig>,
) {
    let request =
        podplan_core::api::parse_request(format!(r#"{{"pod": {pod_json}}}"#).as_bytes()).unwrap();
    let plan = podplan_core::plan(&request).unwrap();
    let sandbox = plan
        .sandbox_config
        .clone()
        .expect("a new pod gets a sandbox config");
    let containers = plan
        .container_configs
        .iter()
        .map(|e| e.config.clone())
        .collect();
    (sandbox, containers)
}

const WEB: &str = r#"{"metadata": {"name": "web", "namespace": "default", "uid": "uid-web"},
    "spec": {"enableServiceLinks": true, "containers": [{"name": "app", "image": "nginx:1.27"}]}}"#;

/// RunPodSandbox, PullImage, CreateContainer, StartContainer of WEB's configs.
async fn run_web(
    s: &mut Served,
) -> (
    String,
    String,
    podplan_core::cri::PodSandboxConfig,
    podplan_core::cri::ContainerConfig,
) {
    let (sandbox_config, containers) = configs(WEB);
    let app = containers[0].clone();
    let sandbox = s
        .runtime
        .run_pod_sandbox(requests::run_pod_sandbox(&sandbox_config, ""))
        .await
        .unwrap()
        .into_inner()
        .pod_sandbox_id;
    let image = app.image.clone().unwrap();
    let pulled = s
        .images
        .pull_image(requests::pull_image(&image, &sandbox_config))
        .await
        .unwrap()
        .into_inner()
        .image_ref;
    assert!(pulled.starts_with("sha256:"), "{pulled}");
    let id = s
        .runtime
        .create_container(requests::create_container(&sandbox, &app, &sandbox_config))
        .await
        .unwrap()
        .into_inner()
        .container_id;
    s.runtime
        .start_container(requests::start_container(&id))
        .await
        .unwrap();
    (sandbox, id, sandbox_config, app)
}

/// What the kubelet's GetPodStatus gathers for a pod, converted.
async fn relist(s: &mut Served, uid: &str) -> podplan_core::runtime::RuntimeStatus {
    let sandboxes = s
        .runtime
        .list_pod_sandbox(requests::list_pod_sandbox([(POD_UID_LABEL, uid)]))
        .await
        .unwrap()
        .into_inner()
        .items;
    let mut sandbox_statuses = Vec::new();
    for sb in &sandboxes {
        let answer = s
            .runtime
            .pod_sandbox_status(pb::PodSandboxStatusRequest {
                pod_sandbox_id: sb.id.clone(),
                verbose: false,
            })
            .await
            .unwrap()
            .into_inner();
        sandbox_statuses.push(answer.status.unwrap());
    }
    let listed = s
        .runtime
        .list_containers(requests::list_containers([(POD_UID_LABEL, uid)]))
        .await
        .unwrap()
        .into_inner()
        .containers;
    let mut containers = Vec::new();
    for c in &listed {
        let answer = s
            .runtime
            .container_status(pb::ContainerStatusRequest {
                container_id: c.id.clone(),
                verbose: false,
            })
            .await
            .unwrap()
            .into_inner();
        containers.push(status::ListedContainer {
            pod_sandbox_id: c.pod_sandbox_id.clone(),
            status: answer.status.unwrap(),
        });
    }
    let first = sandbox_statuses
        .first()
        .and_then(|s| s.metadata.clone())
        .unwrap_or_default();
    status::pod_status(
        "sim",
        status::PodRef {
            uid,
            name: &first.name,
            namespace: &first.namespace,
        },
        &sandbox_statuses,
        &containers,
    )
}

#[tokio::test]
async fn sandbox_and_container_lifecycle_over_a_unix_socket() {
    let mut s = Served::new(Scenario::default()).await;
    let version = s
        .runtime
        .version(pb::VersionRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        (
            version.runtime_name.as_str(),
            version.runtime_api_version.as_str()
        ),
        ("sim", "v1")
    );
    let (sandbox, id, sandbox_config, app) = run_web(&mut s).await;
    assert_eq!((sandbox.len(), id.len()), (64, 64));

    let status = s
        .runtime
        .container_status(pb::ContainerStatusRequest {
            container_id: id.clone(),
            verbose: false,
        })
        .await
        .unwrap()
        .into_inner()
        .status
        .unwrap();
    assert_eq!(status.state, pb::ContainerState::ContainerRunning as i32);
    // The kubelet's labels and annotations come back; the image as containerd names it.
    assert_eq!(status.labels, app.labels);
    assert_eq!(status.annotations, app.annotations);
    assert_eq!(status.image.unwrap().image, "docker.io/library/nginx:1.27");
    assert!(status
        .image_ref
        .starts_with("docker.io/library/nginx@sha256:"));
    assert_eq!(
        status.log_path,
        format!("{}/{}", sandbox_config.log_directory, app.log_path)
    );

    // The relisted status is the model's own view of the pod, container hash included.
    let relisted = relist(&mut s, "uid-web").await;
    let model = s.sim.with_node(|n| n.pod_status("uid-web")).unwrap();
    assert_eq!(relisted, model);
    let hash = u64::from_str_radix(&app.annotations[CONTAINER_HASH], 16).unwrap();
    assert_eq!(relisted.container_statuses[0].hash, hash);
    assert_eq!(relisted.container_statuses[0].id, format!("sim://{id}"));
    assert_eq!(relisted.ips, ["10.88.0.2"]);

    // Stop: SIGTERM, and it exits at once: 143 (one that ignores SIGTERM is killed at the
    // timeout: 137). Remove: gone.
    s.sim.clock().advance(Duration::from_secs(3));
    s.runtime
        .stop_container(requests::stop_container(&id, 30))
        .await
        .unwrap();
    let relisted = relist(&mut s, "uid-web").await;
    let app_status = &relisted.container_statuses[0];
    assert_eq!(
        (app_status.state, app_status.exit_code),
        (ContainerState::Exited, 143)
    );
    assert_eq!(
        app_status.finished_at,
        Some(start() + Duration::from_secs(3))
    );
    s.runtime
        .remove_container(requests::remove_container(&id))
        .await
        .unwrap();
    s.runtime
        .stop_pod_sandbox(requests::stop_pod_sandbox(&sandbox))
        .await
        .unwrap();
    let stopped = relist(&mut s, "uid-web").await;
    assert!(stopped.container_statuses.is_empty());
    assert!(stopped.ips.is_empty());
    s.runtime
        .remove_pod_sandbox(requests::remove_pod_sandbox(&sandbox))
        .await
        .unwrap();
    // Removal is idempotent; a status of what is gone is NOT_FOUND.
    s.runtime
        .remove_pod_sandbox(requests::remove_pod_sandbox(&sandbox))
        .await
        .unwrap();
    let gone = s
        .runtime
        .container_status(pb::ContainerStatusRequest {
            container_id: id,
            verbose: false,
        })
        .await
        .unwrap_err();
    assert_eq!(gone.code(), tonic::Code::NotFound);
    assert!(relist(&mut s, "uid-web").await.sandbox_statuses.is_empty());
    s.shutdown().await;
}

#[tokio::test]
async fn a_taken_container_name_fails_as_containerd_does() {
    let mut s = Served::new(Scenario::default()).await;
    let (sandbox, id, sandbox_config, app) = run_web(&mut s).await;
    let err = s
        .runtime
        .create_container(requests::create_container(&sandbox, &app, &sandbox_config))
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unknown);
    let name = "app_web_default_uid-web_0";
    assert_eq!(
        err.message(),
        format!(
            "failed to reserve container name \"{name}\": name \"{name}\" is reserved for \"{id}\""
        )
    );
    // Once removed, the name is free again.
    s.runtime
        .remove_container(requests::remove_container(&id))
        .await
        .unwrap();
    s.runtime
        .create_container(requests::create_container(&sandbox, &app, &sandbox_config))
        .await
        .unwrap();
    s.shutdown().await;
}

#[tokio::test]
async fn scripted_exits_and_failing_rpcs() {
    let scenario = Scenario {
        containers: [(
            "app".to_string(),
            ContainerScript {
                exit: Some(ExitScript {
                    code: 2,
                    after_seconds: 5,
                    times: None,
                }),
                exec: None,
                stop_seconds: None,
            },
        )]
        .into(),
        faults: vec![Fault {
            rpc: "PullImage".into(),
            code: CriCode::Unavailable,
            count: 1,
            message: "registry down".into(),
        }],
        ..Scenario::default()
    };
    let mut s = Served::new(scenario).await;
    let (sandbox_config, containers) = configs(WEB);
    let image = containers[0].image.clone().unwrap();
    // The scenario's fault: the first pull fails with its code and message.
    let err = s
        .images
        .pull_image(requests::pull_image(&image, &sandbox_config))
        .await
        .unwrap_err();
    assert_eq!(
        (err.code(), err.message()),
        (tonic::Code::Unavailable, "registry down")
    );
    let (_, id, _, _) = run_web(&mut s).await;
    // Injected in process: the next two ListContainers calls fail.
    s.sim
        .fail_next("ListContainers", CriCode::DeadlineExceeded, 2);
    for _ in 0..2 {
        let err = s
            .runtime
            .list_containers(pb::ListContainersRequest::default())
            .await
            .unwrap_err();
        assert_eq!(err.code(), tonic::Code::DeadlineExceeded);
    }
    // Not yet: 4 s of virtual time. Then 5 s after its start, it exits 2.
    s.sim.clock().advance(Duration::from_secs(4));
    let running = relist(&mut s, "uid-web").await;
    assert_eq!(running.container_statuses[0].state, ContainerState::Running);
    s.sim.clock().advance(Duration::from_secs(60));
    let exited = relist(&mut s, "uid-web").await;
    let app = &exited.container_statuses[0];
    assert_eq!(app.id, format!("sim://{id}"));
    assert_eq!(
        (app.state, app.exit_code, app.reason.as_str()),
        (ContainerState::Exited, 2, "Error")
    );
    assert_eq!(app.finished_at, Some(start() + Duration::from_secs(5)));
    s.shutdown().await;
}

#[tokio::test]
async fn in_process_channel_and_exec_probes() {
    let mut config = serde_json::from_str::<serde_json::Value>(WEB).unwrap();
    config["metadata"]["annotations"] = serde_json::json!({
        "runtime-sim.podplan.io/container.app": r#"{"exec": {"exitCode": 1, "afterSeconds": 10, "stdout": "down"}}"#
    });
    let (sandbox_config, containers) = configs(&config.to_string());
    let sim = SimRuntime::new(SimOptions::default(), Clock::virtual_at(start()));
    let channel = sim.in_process();
    let mut runtime = client::runtime_client(channel.clone());
    let mut images = client::image_client(channel);
    let sandbox = runtime
        .run_pod_sandbox(requests::run_pod_sandbox(&sandbox_config, ""))
        .await
        .unwrap()
        .into_inner()
        .pod_sandbox_id;
    let app = &containers[0];
    images
        .pull_image(requests::pull_image(
            app.image.as_ref().unwrap(),
            &sandbox_config,
        ))
        .await
        .unwrap();
    let missing = images
        .image_status(requests::image_status("busybox"))
        .await
        .unwrap()
        .into_inner();
    assert!(missing.image.is_none());
    let present = images
        .image_status(requests::image_status("nginx:1.27"))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        present.image.unwrap().repo_tags,
        ["docker.io/library/nginx:1.27"]
    );
    let id = runtime
        .create_container(requests::create_container(&sandbox, app, &sandbox_config))
        .await
        .unwrap()
        .into_inner()
        .container_id;
    runtime
        .start_container(requests::start_container(&id))
        .await
        .unwrap();
    let probe = requests::exec_sync(&id, &["true".to_string()], 1);
    let ok = runtime.exec_sync(probe.clone()).await.unwrap().into_inner();
    assert_eq!(ok.exit_code, 0);
    sim.clock().advance(Duration::from_secs(10));
    let failing = runtime.exec_sync(probe).await.unwrap().into_inner();
    assert_eq!(
        (failing.exit_code, failing.stdout.as_slice()),
        (1, b"down".as_slice())
    );
    let config = runtime
        .runtime_config(pb::RuntimeConfigRequest {})
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        config.linux.unwrap().cgroup_driver,
        pb::CgroupDriver::Cgroupfs as i32
    );
}

#[tokio::test]
async fn list_filters_select_by_labels_state_and_sandbox() {
    let mut s = Served::new(Scenario::default()).await;
    let (web_sandbox, web_app, _, _) = run_web(&mut s).await;
    let other = WEB
        .replace("\"web\"", "\"db\"")
        .replace("uid-web", "uid-db");
    let (db_config, db_containers) = configs(&other);
    let db_sandbox = s
        .runtime
        .run_pod_sandbox(requests::run_pod_sandbox(&db_config, ""))
        .await
        .unwrap()
        .into_inner()
        .pod_sandbox_id;
    // Created, not started.
    let db_app = s
        .runtime
        .create_container(requests::create_container(
            &db_sandbox,
            &db_containers[0],
            &db_config,
        ))
        .await
        .unwrap()
        .into_inner()
        .container_id;
    let ids = |list: Vec<pb::Container>| list.into_iter().map(|c| c.id).collect::<Vec<_>>();
    let by_uid = s
        .runtime
        .list_containers(requests::list_containers([(POD_UID_LABEL, "uid-db")]))
        .await
        .unwrap()
        .into_inner()
        .containers;
    assert_eq!(ids(by_uid), [db_app]);
    let running = s
        .runtime
        .list_containers(pb::ListContainersRequest {
            filter: Some(pb::ContainerFilter {
                state: Some(pb::ContainerStateValue {
                    state: pb::ContainerState::ContainerRunning as i32,
                }),
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner()
        .containers;
    assert_eq!(ids(running), std::slice::from_ref(&web_app));
    let in_web = s
        .runtime
        .list_containers(pb::ListContainersRequest {
            filter: Some(pb::ContainerFilter {
                pod_sandbox_id: web_sandbox.clone(),
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner()
        .containers;
    assert_eq!(ids(in_web), [web_app]);
    s.runtime
        .stop_pod_sandbox(requests::stop_pod_sandbox(&db_sandbox))
        .await
        .unwrap();
    let ready = s
        .runtime
        .list_pod_sandbox(pb::ListPodSandboxRequest {
            filter: Some(pb::PodSandboxFilter {
                state: Some(pb::PodSandboxStateValue {
                    state: pb::PodSandboxState::SandboxReady as i32,
                }),
                ..Default::default()
            }),
        })
        .await
        .unwrap()
        .into_inner()
        .items;
    assert_eq!(
        ready.into_iter().map(|s| s.id).collect::<Vec<_>>(),
        [web_sandbox]
    );
    let images = s
        .images
        .list_images(pb::ListImagesRequest::default())
        .await
        .unwrap()
        .into_inner()
        .images;
    assert_eq!(images.len(), 1);
    s.shutdown().await;
}
