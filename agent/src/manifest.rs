//! The static-pod manifest source of `--pod-manifest-path`: the kubelet's file source
//! (`pkg/kubelet/config/file.go`, `common.go`, `config.go`).
//!
//! One `v1.Pod` (YAML or JSON) per non-hidden regular file of the directory, read in file
//! name order. Each pod gets the file source's defaults: the name `<name>-<node>`, the
//! namespace `default` when it has none, a UID hashed from the manifest and its source
//! unless `metadata.uid` is set, `spec.nodeName`, the annotations
//! `kubernetes.io/config.{source,hash,seen}`, the toleration of every `NoExecute` taint,
//! the phase `Pending`; then podplan's label `podplan.io/agent=<node>` (the agent lists and
//! touches only sandboxes carrying it). The API server's defaults (`apiDefaults`) are
//! applied by the engine on every plan.
//!
//! A bad manifest is reported (file, and the engine's JSON path) and skipped; of two
//! files with one pod (same full name or UID) the first by file name wins and the
//! conflict is reported.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use k8s_openapi::api::core::v1::{Pod, Toleration};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use md5::{Digest, Md5};
use serde::Serialize;

/// The label the agent puts on its pods (and so on their sandboxes): `podplan.io/agent=<node>`.
pub const AGENT_LABEL: &str = "podplan.io/agent";
/// `kubetypes.ConfigSourceAnnotationKey`.
pub const CONFIG_SOURCE_ANNOTATION: &str = "kubernetes.io/config.source";
/// `kubetypes.ConfigHashAnnotationKey`.
pub const CONFIG_HASH_ANNOTATION: &str = "kubernetes.io/config.hash";
/// `kubetypes.ConfigFirstSeenAnnotationKey`.
pub const CONFIG_SEEN_ANNOTATION: &str = "kubernetes.io/config.seen";
/// The file source's name (`kubetypes.FileSource`).
pub const FILE_SOURCE: &str = "file";
/// The URL source's name (`kubetypes.HTTPSource`).
pub const HTTP_SOURCE: &str = "http";
/// `maxConfigLength` of the kubelet's file source: 10 MiB.
pub const MAX_MANIFEST_BYTES: u64 = 10 * 1024 * 1024;

/// A pod read from a manifest, with the file source's defaults applied.
#[derive(Debug, Clone, PartialEq)]
pub struct StaticPod {
    /// The manifest file (for the URL source, `--manifest-url`).
    pub file: PathBuf,
    /// The pod as the agent plans it (not API-defaulted: requests set `apiDefaults`).
    pub pod: Pod,
}

impl StaticPod {
    /// The pod's UID.
    #[must_use]
    pub fn uid(&self) -> &str {
        self.pod.metadata.uid.as_deref().unwrap_or("")
    }

    /// `namespace/name`.
    #[must_use]
    pub fn full_name(&self) -> String {
        full_name(&self.pod)
    }
}

/// `namespace/name` of a pod.
#[must_use]
pub fn full_name(pod: &Pod) -> String {
    format!(
        "{}/{}",
        pod.metadata.namespace.as_deref().unwrap_or(""),
        pod.metadata.name.as_deref().unwrap_or("")
    )
}

/// A manifest that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ManifestProblem {
    /// The manifest file.
    pub file: PathBuf,
    /// The engine's JSON path of the offending field (`pod.spec.containers[0].name`),
    /// empty when the file as a whole is at fault.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ManifestProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}: {}", self.file.display(), self.message)
        } else {
            write!(
                f,
                "{}: {}: {}",
                self.file.display(),
                self.path,
                self.message
            )
        }
    }
}

/// What one read of the directory found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ManifestSet {
    /// The pods, in file name order; shared: a worker is handed the pod without a copy,
    /// and an unchanged pod is known by its allocation.
    pub pods: Vec<std::sync::Arc<StaticPod>>,
    /// Skipped manifests (bad ones, and the losers of a conflict).
    pub problems: Vec<ManifestProblem>,
}

/// The manifest directory of one node; remembers when each pod was first seen.
#[derive(Debug, Clone)]
pub struct ManifestSource {
    dir: PathBuf,
    node: String,
    first_seen: HashMap<String, jiff::Timestamp>,
    /// Where the first-seen times are kept across restarts (AGE does not reset).
    first_seen_file: Option<PathBuf>,
}

impl ManifestSource {
    /// The source of `dir` for the node `node`.
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>, node: impl Into<String>) -> Self {
        Self {
            dir: dir.into(),
            node: node.into(),
            first_seen: HashMap::new(),
            first_seen_file: None,
        }
    }

    /// Keeps the pods' first-seen times (`kubernetes.io/config.seen`, the creation time
    /// AGE counts from) in `file` (a JSON object UID → time), read now: an agent that
    /// restarts keeps its pods' age, as the mirror pods would keep theirs.
    #[must_use]
    pub fn with_first_seen_file(mut self, file: PathBuf) -> Self {
        if let Ok(bytes) = std::fs::read(&file) {
            if let Ok(map) = serde_json::from_slice::<HashMap<String, jiff::Timestamp>>(&bytes) {
                self.first_seen = map;
            }
        }
        self.first_seen_file = Some(file);
        self
    }

    /// Writes the first-seen times of `set`'s pods when they differ from the file's.
    fn save_first_seen(&mut self, set: &ManifestSet) {
        let Some(file) = &self.first_seen_file else {
            return;
        };
        let keep: std::collections::BTreeMap<&str, jiff::Timestamp> = set
            .pods
            .iter()
            .filter_map(|p| Some((p.uid(), *self.first_seen.get(p.uid())?)))
            .collect();
        let Ok(bytes) = serde_json::to_vec_pretty(&keep) else {
            return;
        };
        if std::fs::read(file).ok().as_deref() == Some(bytes.as_slice()) {
            return;
        }
        let write = || -> std::io::Result<()> {
            if let Some(dir) = file.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let tmp = file.with_extension("tmp");
            std::fs::write(&tmp, &bytes)?;
            std::fs::rename(&tmp, file)
        };
        if let Err(e) = write() {
            tracing::warn!(file = %file.display(), "cannot keep the pods' first-seen times: {e}");
        }
    }

    /// The directory.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Reads every manifest now; `now` stamps pods seen for the first time.
    pub fn load(&mut self, now: jiff::Timestamp) -> ManifestSet {
        let mut set = ManifestSet::default();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) => {
                set.problems.push(ManifestProblem {
                    file: self.dir.clone(),
                    path: String::new(),
                    message: format!("cannot read the manifest directory: {e}"),
                });
                return set;
            }
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .collect();
        files.sort();
        let mut names: BTreeMap<String, PathBuf> = BTreeMap::new();
        let mut uids: BTreeMap<String, PathBuf> = BTreeMap::new();
        for file in files {
            // As the kubelet: directories are not recursed into; symlinks are followed.
            match std::fs::metadata(&file) {
                Ok(meta) if meta.is_dir() => {
                    tracing::warn!(path = %file.display(), "not recursing into a manifest path");
                    continue;
                }
                Ok(meta) if !meta.is_file() => continue,
                Ok(_) => {}
                Err(e) => {
                    set.problems
                        .push(problem(&file, "", format!("cannot read: {e}")));
                    continue;
                }
            }
            match read_manifest(&file, &self.node) {
                Ok(mut pod) => {
                    let name = full_name(&pod);
                    let uid = pod.metadata.uid.clone().unwrap_or_default();
                    if let Some(first) = names.get(&name).or_else(|| uids.get(&uid)) {
                        set.problems.push(problem(
                            &file,
                            "",
                            format!(
                                "the pod {name} (uid {uid}) is already defined by {}; this manifest is ignored",
                                first.display()
                            ),
                        ));
                        continue;
                    }
                    let seen = *self.first_seen.entry(uid.clone()).or_insert(now);
                    pod.metadata
                        .annotations
                        .get_or_insert_with(BTreeMap::new)
                        .insert(CONFIG_SEEN_ANNOTATION.into(), seen.to_string());
                    // The API server stamps the mirror pod when the kubelet first posts it,
                    // which is what `kubectl get pods` counts AGE from; with no API server,
                    // the first sight of the manifest stands in for it (decisions do not
                    // read it).
                    pod.metadata.creation_timestamp.get_or_insert(Time(seen));
                    names.insert(name, file.clone());
                    uids.insert(uid, file.clone());
                    set.pods.push(std::sync::Arc::new(StaticPod { file, pod }));
                }
                Err(p) => set.problems.push(p),
            }
        }
        self.save_first_seen(&set);
        set
    }
}

fn problem(file: &Path, path: &str, message: String) -> ManifestProblem {
    ManifestProblem {
        file: file.to_path_buf(),
        path: path.to_string(),
        message,
    }
}

/// Reads one manifest and applies the file source's defaults for `node` (everything but
/// the first-seen annotation). The engine checks the result: a pod it would refuse is a
/// problem with the engine's JSON path.
///
/// # Errors
///
/// The file cannot be read, is too large, is not a `v1.Pod`, or the engine refuses it.
pub fn read_manifest(file: &Path, node: &str) -> Result<Pod, ManifestProblem> {
    let len = std::fs::metadata(file)
        .map_err(|e| problem(file, "", format!("cannot read: {e}")))?
        .len();
    if len > MAX_MANIFEST_BYTES {
        return Err(problem(
            file,
            "",
            format!("the manifest is {len} bytes; the limit is {MAX_MANIFEST_BYTES}"),
        ));
    }
    let bytes = std::fs::read(file).map_err(|e| problem(file, "", format!("cannot read: {e}")))?;
    let source = file.display().to_string();
    pod_from_manifest(&bytes, &source, node)
        .map_err(|(path, message)| problem(file, &path, message))
}

/// The file source's reading of one manifest's bytes: `(path, message)` on a refusal.
///
/// # Errors
///
/// Not YAML or JSON, not a `v1.Pod`, or a pod the engine refuses.
pub fn pod_from_manifest(bytes: &[u8], source: &str, node: &str) -> Result<Pod, (String, String)> {
    let value: serde_json::Value = serde_yaml_ng::from_slice(bytes)
        .map_err(|e| (String::new(), format!("not a YAML or JSON document: {e}")))?;
    pod_from_value(value, &Origin::File(source), node)
}

/// Where a static pod came from: its defaults differ (`common.go`, `applyDefaults`'s
/// `isFile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin<'a> {
    /// A file of `--pod-manifest-path` (its path).
    File(&'a str),
    /// `--manifest-url` (the URL).
    Url(&'a str),
}

/// A decoded manifest document as a pod of `origin`, with that source's defaults, checked
/// by the engine: `(path, message)` on a refusal.
///
/// # Errors
///
/// Not a `v1.Pod`, or a pod the engine refuses.
pub fn pod_from_value(
    value: serde_json::Value,
    origin: &Origin<'_>,
    node: &str,
) -> Result<Pod, (String, String)> {
    let Some(object) = value.as_object() else {
        return Err((String::new(), "the manifest is not a v1.Pod object".into()));
    };
    match object.get("kind").and_then(|k| k.as_str()) {
        Some("Pod") | None => {}
        Some(other) => {
            return Err((
                "pod.kind".into(),
                format!("a static pod manifest holds a Pod, not a {other}"),
            ))
        }
    }
    match object.get("apiVersion").and_then(|k| k.as_str()) {
        Some("v1") | None => {}
        Some(other) => return Err(("pod.apiVersion".into(), format!("expected v1, got {other}"))),
    }
    let request = podplan_core::api::parse_request_value(serde_json::json!({"pod": value}))
        .map_err(|e| (e.path, e.message))?;
    let mut pod = request.pod;
    apply_defaults(&mut pod, &value, origin, node);
    // The engine's own checks (names, API validation), as every sync would run them.
    let check = podplan_core::PlanRequest {
        pod: pod.clone(),
        api_defaults: true,
        ..podplan_core::PlanRequest::default()
    };
    if let Err(e) = podplan_core::plan(&check) {
        return Err((e.path, e.message));
    }
    Ok(pod)
}

/// `applyDefaults` of the kubelet's file source (`common.go`), plus podplan's agent label.
pub fn apply_file_defaults(pod: &mut Pod, manifest: &serde_json::Value, source: &str, node: &str) {
    apply_defaults(pod, manifest, &Origin::File(source), node);
}

/// `applyDefaults` of the kubelet's file and URL sources (`common.go`), plus podplan's
/// agent label.
///
/// The UID, when the manifest has none, is the MD5 of the manifest followed by
/// `host:<node>` and `file:<path>` (a file) or `url:<url>` (the URL source), as the
/// kubelet writes them after `hash.DeepHashObject`; the manifest's bytes hashed are its
/// canonical JSON (sorted keys), not Go's dump of the decoded object, so the digest
/// differs from a kubelet's for the same manifest while depending on the same inputs.
/// Only file pods get the toleration of every `NoExecute` taint (`isFile`).
pub fn apply_defaults(
    pod: &mut Pod,
    manifest: &serde_json::Value,
    origin: &Origin<'_>,
    node: &str,
) {
    if pod.metadata.uid.as_deref().unwrap_or("").is_empty() {
        let mut hasher = Md5::new();
        hasher.update(serde_json::to_vec(manifest).unwrap_or_default());
        match origin {
            Origin::File(source) => {
                hasher.update(format!("host:{node}").as_bytes());
                hasher.update(format!("file:{source}").as_bytes());
            }
            Origin::Url(url) => hasher.update(format!("url:{url}").as_bytes()),
        }
        let digest = hasher.finalize();
        pod.metadata.uid = Some(digest.iter().map(|b| format!("{b:02x}")).collect());
    }
    let name = pod.metadata.name.clone().unwrap_or_default();
    pod.metadata.name = Some(format!("{name}-{}", node.to_lowercase()));
    if pod.metadata.namespace.as_deref().unwrap_or("").is_empty() {
        pod.metadata.namespace = Some("default".into());
    }
    let uid = pod.metadata.uid.clone().unwrap_or_default();
    let annotations = pod.metadata.annotations.get_or_insert_with(BTreeMap::new);
    annotations.insert(CONFIG_HASH_ANNOTATION.into(), uid);
    let source = match origin {
        Origin::File(_) => FILE_SOURCE,
        Origin::Url(_) => HTTP_SOURCE,
    };
    annotations.insert(CONFIG_SOURCE_ANNOTATION.into(), source.into());
    pod.metadata
        .labels
        .get_or_insert_with(BTreeMap::new)
        .insert(AGENT_LABEL.into(), node.to_string());
    let spec = pod.spec.get_or_insert_with(Default::default);
    spec.node_name = Some(node.to_string());
    // `helper.AddOrUpdateTolerationInPod`: file pods tolerate every NoExecute taint.
    if matches!(origin, Origin::File(_)) {
        let toleration = Toleration {
            operator: Some("Exists".into()),
            effect: Some("NoExecute".into()),
            ..Toleration::default()
        };
        let tolerations = spec.tolerations.get_or_insert_with(Vec::new);
        if !tolerations.contains(&toleration) {
            tolerations.push(toleration);
        }
    }
    pod.status.get_or_insert_with(Default::default).phase = Some("Pending".into());
}
