//! The model runtime at the CRI's level: a node's sandboxes and containers, driven one
//! CRI call at a time (`RunPodSandbox` with a `PodSandboxConfig`, `CreateContainer` with
//! a `ContainerConfig`, ...), behaving as containerd does.
//!
//! [`Node`] keeps one `PodState` per pod UID — the pod's sandboxes and containers as the
//! kubelet's relist sees them ([`Node::pod_status`]), with the creation-time ordering and
//! the id derivation — plus what only the CRI sees (configs, labels, annotations,
//! reserved names, images). It is what `podplan runtime-sim` serves over gRPC, and what
//! the per-pod model (`Runtime`, `sim/runtime.rs`) carries plan steps out on.
//!
//! As containerd:
//! * ids are 64 hexadecimal digits, derived from the object's kind, reserved name and
//!   creation time (no randomness; see `pods::derive_id`); container ids in
//!   [`Node::pod_status`] are `<runtimeName>://<id>`;
//! * a sandbox reserves `name_namespace_uid_attempt` and a container
//!   `name_podName_namespace_uid_attempt` until removed; a second create with a taken name
//!   fails (`UNKNOWN`: `failed to reserve container name "…": name "…" is reserved for "…"`);
//! * `CreateContainer` needs the image (pulled or preloaded), `StartContainer` a created
//!   container in a ready sandbox; `StopContainer` sends SIGTERM and SIGKILLs at the
//!   timeout: a running container that exits in time (its script's `stopSeconds`) exits
//!   143, else 137 ([`Node::kill_container`]: the SIGKILL alone, 137); of a created or
//!   exited one it changes nothing; `RemoveContainer`,
//!   `RemovePodSandbox` and `StopPodSandbox` of something already gone succeed where
//!   containerd's do;
//! * images are named as containerd normalises them (`nginx` → `docker.io/library/nginx:latest`);
//!   a container reports the image's first tag, its digest as `imageRef` and its id as
//!   `imageId`; `PullImage` answers the image id, or the registry's scripted fault
//!   (`ImagesScript::registry`) with containerd's error.
//!
//! What happens on its own — a container exiting after N seconds, exec probes failing, a
//! sandbox lost, the next K calls of an RPC failing — is scripted by a [`Scenario`] or by
//! pod annotations (`CONTAINER_ANNOTATION_PREFIX`, `SANDBOX_ANNOTATION`), and happens
//! when time passes: every call takes `now`, and scripted events due by then happen
//! first, at their own time. The model is pure: the caller owns the clock.

mod containers;
mod error;
pub(crate) mod images;
pub(crate) mod pods;
pub(crate) mod records;
mod sandboxes;
mod script;
mod store;

pub use error::{CriCode, CriError};
pub use records::{
    ContainerRecord, ContainerView, ExecResult, ImageRecord, SandboxRecord, SandboxView,
};
pub use script::{
    ContainerScript, ExecScript, ExitScript, Fault, ImagesScript, SandboxScript, Scenario,
};
pub use store::{Node, DEFAULT_RUNTIME_NAME, RUNTIME_VERSION};

#[cfg(test)]
mod tests {
    use super::records::{normalize_image, repository};
    use super::script::{CONTAINER_ANNOTATION_PREFIX, SANDBOX_ANNOTATION};
    use super::*;
    use crate::config::labels::{CONTAINER_HASH, CONTAINER_RESTART_COUNT};
    use crate::cri::{
        ContainerConfig, ContainerMetadata, ImageSpec, PodSandboxConfig, PodSandboxMetadata,
    };
    use crate::runtime::{ContainerState, SandboxState};

    fn t(s: i64) -> jiff::Timestamp {
        jiff::Timestamp::from_second(1_750_000_000 + s).unwrap_or(jiff::Timestamp::UNIX_EPOCH)
    }

    fn sandbox_config(name: &str, attempt: u32) -> PodSandboxConfig {
        PodSandboxConfig {
            metadata: Some(PodSandboxMetadata {
                name: name.into(),
                uid: format!("uid-{name}"),
                namespace: "default".into(),
                attempt,
            }),
            ..PodSandboxConfig::default()
        }
    }

    fn container_config(name: &str, attempt: u32) -> ContainerConfig {
        ContainerConfig {
            metadata: Some(ContainerMetadata {
                name: name.into(),
                attempt,
            }),
            image: Some(ImageSpec {
                image: "nginx".into(),
                ..ImageSpec::default()
            }),
            annotations: [
                (CONTAINER_HASH.to_string(), "abc".to_string()),
                (CONTAINER_RESTART_COUNT.to_string(), attempt.to_string()),
            ]
            .into(),
            ..ContainerConfig::default()
        }
    }

    fn started(
        node: &mut Node,
        sandbox: &str,
        name: &str,
        attempt: u32,
        at: jiff::Timestamp,
    ) -> String {
        let Ok(id) = node.create_container(sandbox, &container_config(name, attempt), at) else {
            panic!("create failed");
        };
        assert_eq!(node.start_container(&id, at), Ok(()));
        id
    }

    #[test]
    fn images_normalize_as_containerd_does() {
        assert_eq!(normalize_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(
            normalize_image("nginx:1.27"),
            "docker.io/library/nginx:1.27"
        );
        assert_eq!(normalize_image("me/app"), "docker.io/me/app:latest");
        assert_eq!(normalize_image("quay.io/x/y:v1"), "quay.io/x/y:v1");
        assert_eq!(
            normalize_image("localhost:5000/y"),
            "localhost:5000/y:latest"
        );
        assert_eq!(repository("localhost:5000/y:latest"), "localhost:5000/y");
    }

    #[test]
    fn sandbox_and_container_lifecycle() {
        let mut node = Node::default();
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        assert_eq!(sb.len(), 64);
        // The image must be there first.
        let missing = node.create_container(&sb, &container_config("app", 0), t(1));
        assert_eq!(missing.map_err(|e| e.code), Err(CriCode::NotFound));
        assert!(node
            .pull_image("nginx", t(1))
            .is_ok_and(|id| id.starts_with("sha256:")));
        let id = started(&mut node, &sb, "app", 0, t(2));
        let Some(status) = node.pod_status("uid-web") else {
            panic!("no pod");
        };
        assert_eq!(status.ips, ["10.88.0.2"]);
        let Some(app) = status.container_statuses.first() else {
            panic!("no container");
        };
        assert_eq!(app.id, format!("sim://{id}"));
        assert_eq!(
            (app.state, app.hash, app.image.as_str()),
            (
                ContainerState::Running,
                0xabc,
                "docker.io/library/nginx:latest"
            )
        );
        assert_eq!(app.started_at, Some(t(2)));
        // SIGTERM, and it exits at once: 143 (SIGKILL at the timeout would be 137).
        assert_eq!(node.stop_container(&id, 30, t(3)), Ok(t(3)));
        let app = node
            .container(&id)
            .map(|c| (c.status.state, c.status.exit_code));
        assert_eq!(app, Ok((ContainerState::Exited, 143)));
        assert_eq!(node.remove_container(&id, t(4)), Ok(()));
        assert!(node.container(&id).is_err());
        assert_eq!(node.stop_pod_sandbox(&sb, t(5)), Ok(()));
        assert_eq!(
            node.sandbox(&sb).map(|s| s.status.state),
            Ok(SandboxState::NotReady)
        );
        assert_eq!(node.remove_pod_sandbox(&sb, t(6)), Ok(()));
        assert!(node.pod_status("uid-web").is_none());
        // Idempotent removal; a stop of a missing container is NOT_FOUND.
        assert_eq!(node.remove_pod_sandbox(&sb, t(7)), Ok(()));
        assert_eq!(
            node.stop_container(&id, 30, t(7)).map_err(|e| e.code),
            Err(CriCode::NotFound)
        );
    }

    #[test]
    fn names_are_reserved_until_removed() {
        let mut node = Node::new(
            "sim",
            Scenario {
                images: ImagesScript {
                    preloaded: vec!["nginx".into()],
                    ..ImagesScript::default()
                },
                ..Scenario::default()
            },
        );
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let again = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0));
        assert!(again.is_err_and(|e| e
            .message
            .starts_with("failed to reserve sandbox name \"web_default_uid-web_0\"")));
        let Ok(first) = node.create_container(&sb, &container_config("app", 0), t(1)) else {
            panic!("create failed");
        };
        let Err(err) = node.create_container(&sb, &container_config("app", 0), t(1)) else {
            panic!("a taken name was reserved twice");
        };
        assert_eq!(err.code, CriCode::Unknown);
        assert_eq!(
            err.message,
            format!("failed to reserve container name \"app_web_default_uid-web_0\": name \"app_web_default_uid-web_0\" is reserved for \"{first}\"")
        );
        // Another attempt is another name; removal frees the name.
        assert!(node
            .create_container(&sb, &container_config("app", 1), t(1))
            .is_ok());
        assert_eq!(node.remove_container(&first, t(2)), Ok(()));
        assert!(node
            .create_container(&sb, &container_config("app", 0), t(2))
            .is_ok());
    }

    #[test]
    fn scripted_exit_happens_at_its_own_time() {
        let scenario = Scenario {
            containers: [(
                "app".to_string(),
                ContainerScript {
                    exit: Some(ExitScript {
                        code: 3,
                        after_seconds: 5,
                        times: Some(1),
                    }),
                    exec: None,
                    stop_seconds: None,
                },
            )]
            .into(),
            images: ImagesScript {
                preloaded: vec!["nginx".into()],
                ..ImagesScript::default()
            },
            ..Scenario::default()
        };
        let mut node = Node::new("sim", scenario);
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let id = started(&mut node, &sb, "app", 0, t(0));
        node.advance(t(4));
        assert_eq!(
            node.container(&id).map(|c| c.status.state),
            Ok(ContainerState::Running)
        );
        node.advance(t(60));
        let c = node.container(&id).map(|c| {
            (
                c.status.state,
                c.status.exit_code,
                c.status.finished_at,
                c.status.reason.clone(),
            )
        });
        assert_eq!(
            c,
            Ok((ContainerState::Exited, 3, Some(t(5)), "Error".to_string()))
        );
        // Only the first instance is scripted to exit.
        let second = started(&mut node, &sb, "app", 1, t(60));
        node.advance(t(600));
        assert_eq!(
            node.container(&second).map(|c| c.status.state),
            Ok(ContainerState::Running)
        );
    }

    #[test]
    fn annotations_script_exec_and_sandbox_loss() {
        let mut config = sandbox_config("web", 0);
        config.annotations.insert(
            format!("{CONTAINER_ANNOTATION_PREFIX}app"),
            r#"{"exec": {"exitCode": 1, "afterSeconds": 10, "stderr": "unhealthy"}}"#.into(),
        );
        config.annotations.insert(
            SANDBOX_ANNOTATION.into(),
            r#"{"lostAfterSeconds": 30}"#.into(),
        );
        let mut node = Node::default();
        assert!(node.pull_image("nginx", t(0)).is_ok());
        let Ok(sb) = node.run_pod_sandbox(&config, "", t(0)) else {
            panic!("run failed");
        };
        let id = started(&mut node, &sb, "app", 0, t(0));
        assert_eq!(node.exec_sync(&id, t(5)).map(|r| r.exit_code), Ok(0));
        let late = node.exec_sync(&id, t(10));
        assert_eq!(
            late.map(|r| (r.exit_code, r.stderr)),
            Ok((1, "unhealthy".to_string()))
        );
        node.advance(t(31));
        assert_eq!(
            node.sandbox(&sb).map(|s| s.status.state),
            Ok(SandboxState::NotReady)
        );
        let c = node
            .container(&id)
            .map(|c| (c.status.state, c.status.exit_code));
        assert_eq!(c, Ok((ContainerState::Exited, 137)));
        // Lost 30 s after the sandbox's creation (ordered within its instant).
        let lost = node.container(&id).ok().and_then(|c| c.status.finished_at);
        assert!(lost.is_some_and(|l| l >= t(30) && l < t(31)), "{lost:?}");
        assert!(node.pod_status("uid-web").is_some_and(|s| s.ips.is_empty()));
        assert!(node
            .exec_sync(&id, t(31))
            .is_err_and(|e| e.message == "container is in CONTAINER_EXITED state"));
        // A bad script is a clear error, and reserves nothing.
        let mut bad = sandbox_config("other", 0);
        bad.annotations
            .insert(SANDBOX_ANNOTATION.into(), "{".into());
        let err = node.run_pod_sandbox(&bad, "", t(32));
        assert!(err.is_err_and(
            |e| e.code == CriCode::InvalidArgument && e.message.contains(SANDBOX_ANNOTATION)
        ));
        assert!(node
            .run_pod_sandbox(&sandbox_config("other", 0), "", t(32))
            .is_ok());
    }

    #[test]
    fn faults_fail_the_next_calls_of_one_rpc() {
        let mut node = Node::default();
        node.fail_next("CreateContainer", CriCode::Unavailable, 2, "");
        assert_eq!(node.check_fault("RunPodSandbox"), Ok(()));
        assert!(node
            .check_fault("CreateContainer")
            .is_err_and(|e| e.code == CriCode::Unavailable));
        assert!(node.check_fault("CreateContainer").is_err());
        assert_eq!(node.check_fault("CreateContainer"), Ok(()));
    }

    #[test]
    fn start_needs_a_created_container_in_a_ready_sandbox() {
        let mut node = Node::default();
        assert!(node.pull_image("busybox", t(0)).is_ok());
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let mut config = container_config("app", 0);
        config.image = Some(ImageSpec {
            image: "docker.io/library/busybox:latest".into(),
            ..ImageSpec::default()
        });
        let Ok(id) = node.create_container(&sb, &config, t(1)) else {
            panic!("create failed");
        };
        assert_eq!(node.start_container(&id, t(1)), Ok(()));
        assert!(node.start_container(&id, t(2)).is_err_and(|e| e
            .message
            .ends_with("container is in CONTAINER_RUNNING state")));
        // nginx is not there: the image is resolved first.
        assert!(node
            .create_container(&sb, &container_config("side", 0), t(2))
            .is_err_and(|e| e.code == CriCode::NotFound));
        assert_eq!(node.stop_pod_sandbox(&sb, t(2)), Ok(()));
        let Ok(late) = node.create_container(&sb, &config_named(&config, "late"), t(3)) else {
            panic!("create failed");
        };
        assert!(node
            .start_container(&late, t(3))
            .is_err_and(|e| e.message.contains("is not running")));
    }

    fn config_named(config: &ContainerConfig, name: &str) -> ContainerConfig {
        let mut c = config.clone();
        c.metadata = Some(ContainerMetadata {
            name: name.into(),
            attempt: 0,
        });
        c
    }

    #[test]
    fn stop_with_a_timeout_is_sigterm_then_sigkill() {
        let scenario = Scenario {
            containers: [(
                "slow".to_string(),
                ContainerScript {
                    stop_seconds: Some(40),
                    ..ContainerScript::default()
                },
            )]
            .into(),
            images: ImagesScript {
                preloaded: vec!["nginx".into()],
                ..ImagesScript::default()
            },
            ..Scenario::default()
        };
        let mut node = Node::new("sim", scenario);
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let quick = started(&mut node, &sb, "app", 0, t(0));
        let slow = started(&mut node, &sb, "slow", 0, t(0));
        // Exits on SIGTERM at once: 143, the call returns then.
        assert_eq!(node.stop_container(&quick, 30, t(1)), Ok(t(1)));
        // Still running when the 30 s are over: SIGKILL, 137.
        assert_eq!(node.stop_container(&slow, 30, t(1)), Ok(t(31)));
        let exit = |node: &Node, id: &str| {
            node.container(id)
                .map(|c| (c.status.exit_code, c.status.finished_at))
        };
        assert_eq!(exit(&node, &quick), Ok((143, Some(t(1)))));
        assert_eq!(exit(&node, &slow), Ok((137, Some(t(31)))));
        // A created container is left as it is.
        let Ok(created) = node.create_container(&sb, &container_config("late", 0), t(2)) else {
            panic!("create failed");
        };
        assert_eq!(node.stop_container(&created, 30, t(2)), Ok(t(2)));
        assert_eq!(
            node.container(&created).map(|c| c.status.state),
            Ok(ContainerState::Created)
        );
    }

    #[test]
    fn registry_faults_count_down() {
        use crate::plan::{PullFault, RegistryFault};
        let mut node = Node::new(
            "sim",
            Scenario {
                images: ImagesScript {
                    registry: [(
                        "nginx".to_string(),
                        RegistryFault {
                            fault: PullFault::RegistryDown,
                            times: Some(2),
                        },
                    )]
                    .into(),
                    ..ImagesScript::default()
                },
                ..Scenario::default()
            },
        );
        // Matched as containerd normalises the reference.
        let first = node.pull_image("docker.io/library/nginx:latest", t(0));
        assert!(first.is_err_and(|e| e.code == CriCode::Unknown
            && e.message
                .contains("lookup registry-1.docker.io: no such host")));
        assert_eq!(
            node.registry_faults().get("nginx").and_then(|f| f.times),
            Some(1)
        );
        assert!(node.pull_image("nginx", t(1)).is_err());
        assert!(node.registry_faults().is_empty());
        assert!(node.pull_image("nginx", t(2)).is_ok());
    }

    #[test]
    fn an_adopted_pod_is_driven_by_its_own_ids() {
        let mut node = Node::default();
        assert!(node.pull_image("nginx", t(0)).is_ok());
        let Ok(sb) = node.run_pod_sandbox(&sandbox_config("web", 0), "", t(0)) else {
            panic!("run failed");
        };
        let id = started(&mut node, &sb, "app", 0, t(0));
        let Some(mut status) = node.pod_status("uid-web") else {
            panic!("no pod");
        };
        // As another runtime named it.
        if let Some(c) = status.container_statuses.first_mut() {
            c.id = format!("containerd://{id}");
        }
        let mut other = Node::default();
        other.adopt(status);
        assert_eq!(other.stop_container(&id, 10, t(5)), Ok(t(5)));
        let app = other.pod_status("uid-web").and_then(|s| {
            s.container_statuses
                .first()
                .map(|c| (c.id.clone(), c.state, c.exit_code))
        });
        assert_eq!(
            app,
            Some((format!("containerd://{id}"), ContainerState::Exited, 143))
        );
        // Its names are reserved: the same attempt cannot be created twice.
        assert!(other.pull_image("nginx", t(6)).is_ok());
        let again = other.create_container(&sb, &container_config("app", 0), t(6));
        assert!(again.is_err_and(|e| e.code == CriCode::Unknown));
        assert_eq!(other.remove_container(&id, t(7)), Ok(()));
        assert!(other
            .pod_status("uid-web")
            .is_some_and(|s| s.container_statuses.is_empty()));
    }
}
