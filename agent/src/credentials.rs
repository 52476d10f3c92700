//! The node's docker keyring: the kubelet's default credential source
//! (`credentialprovider.ReadDockerConfigFile`), read from the files it searches and handed
//! to the engine as every request's `nodeCredentials`. The engine puts the pod's pull
//! secrets (none for static pods) in front of them and gives each `PullImage` step the
//! matching credentials as its `auth`.
//!
//! The search, first file that parses wins:
//! 1. `config.json` in `--root-dir`, the working directory, `$HOME/.docker`, `/.docker`;
//! 2. else `.dockercfg` in `--root-dir`, the working directory, `$HOME`, `/`;
//! 3. else `.dockerconfigjson` in those same directories.
//!
//! Like the kubelet's caching provider, the answer is kept for five minutes, then the
//! files are searched again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use podplan_core::images::credentials::{
    node_credentials_from_file, DockerConfigFile, TrackedCredential,
};

/// How long a search's answer is kept (`CachingDockerConfigProvider.Lifetime`).
pub const CACHE_SECONDS: i64 = 5 * 60;

/// Node credentials by registry key, as a request's `nodeCredentials` carries them.
pub type NodeCredentials = BTreeMap<String, Vec<TrackedCredential>>;

/// Where the docker config files are looked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DockerConfigSearch {
    /// Directories searched for `config.json`, in order.
    pub config_json_dirs: Vec<PathBuf>,
    /// Directories searched for `.dockercfg`, then for `.dockerconfigjson`, in order.
    pub dockercfg_dirs: Vec<PathBuf>,
}

impl DockerConfigSearch {
    /// The kubelet's search for a node whose `--root-dir` is `root_dir`, with the process's
    /// working directory and `$HOME`.
    #[must_use]
    pub fn kubelet(root_dir: &Path) -> Self {
        let cwd = std::env::current_dir().unwrap_or_default();
        let home = std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default();
        Self {
            config_json_dirs: vec![
                root_dir.to_path_buf(),
                cwd.clone(),
                home.join(".docker"),
                PathBuf::from("/.docker"),
            ],
            dockercfg_dirs: vec![root_dir.to_path_buf(), cwd, home, PathBuf::from("/")],
        }
    }

    /// Searches the files now: the credentials of the first file that parses, and its path
    /// (`None`: no file found; no credentials). A file that exists but does not parse is
    /// logged and passed over, as the kubelet does.
    #[must_use]
    pub fn read(&self) -> (NodeCredentials, Option<PathBuf>) {
        let candidates = self
            .config_json_dirs
            .iter()
            .map(|d| (d.join("config.json"), DockerConfigFile::ConfigJson))
            .chain(
                self.dockercfg_dirs
                    .iter()
                    .map(|d| (d.join(".dockercfg"), DockerConfigFile::Dockercfg)),
            )
            .chain(
                self.dockercfg_dirs
                    .iter()
                    .map(|d| (d.join(".dockerconfigjson"), DockerConfigFile::ConfigJson)),
            );
        for (path, layout) in candidates {
            let Ok(contents) = std::fs::read(&path) else {
                continue;
            };
            match node_credentials_from_file(&contents, layout) {
                Ok(creds) => return (creds, Some(path)),
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "docker config file not used");
                }
            }
        }
        (NodeCredentials::new(), None)
    }
}

/// The search and its answer, kept for [`CACHE_SECONDS`].
#[derive(Debug, Clone, Default)]
pub struct NodeKeyring {
    search: DockerConfigSearch,
    credentials: NodeCredentials,
    /// When the files were last searched (`None`: not yet).
    read_at: Option<jiff::Timestamp>,
}

impl NodeKeyring {
    /// A keyring over `search`, read on first use.
    #[must_use]
    pub fn new(search: DockerConfigSearch) -> Self {
        Self {
            search,
            ..Self::default()
        }
    }

    /// The node's credentials at `now`: the last answer while it is younger than
    /// [`CACHE_SECONDS`], else a new search.
    pub fn get(&mut self, now: jiff::Timestamp) -> &NodeCredentials {
        let fresh = self
            .read_at
            .is_some_and(|at| now.duration_since(at).as_secs() < CACHE_SECONDS);
        if !fresh {
            let (credentials, path) = self.search.read();
            if let Some(path) = path {
                tracing::debug!(path = %path.display(), registries = credentials.len(), "docker config read");
            }
            self.credentials = credentials;
            self.read_at = Some(now);
        }
        &self.credentials
    }
}
