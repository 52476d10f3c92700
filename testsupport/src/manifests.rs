//! Static-pod manifests the agent's tests share (the library's in podplan-agent, the
//! binary's in podplan-host), and writing them into a manifest directory.

use std::path::Path;

/// `web`: an init container that exits after 2 s on the simulated runtime, a sidecar with
/// an exec startup probe, and an app container.
pub const WEB: &str = r#"
apiVersion: v1
kind: Pod
metadata:
  name: web
  annotations:
    runtime-sim.podplan.io/container.init-db: '{"exit": {"code": 0, "afterSeconds": 2}}'
spec:
  terminationGracePeriodSeconds: 5
  initContainers:
    - name: init-db
      image: busybox:1.36
    - name: log-shipper
      image: busybox:1.36
      restartPolicy: Always
      startupProbe:
        exec:
          command: ["true"]
        periodSeconds: 1
  containers:
    - name: app
      image: nginx:1.27
"#;

/// Writes `text` to `dir/name`.
///
/// # Panics
///
/// When the file cannot be written.
#[expect(
    clippy::expect_used,
    reason = "a test fixture: a failed write fails the test"
)]
pub fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write a manifest");
}
