//! Pull credentials: the kubelet's docker keyring (`credentialprovider`) built from the pod's
//! pull secrets in front of the node's credentials, looked up for the normalised
//! repository; and what of them reaches the pull-record check.
//!
//! * Secrets of type `kubernetes.io/dockerconfigjson` (key `.dockerconfigjson`, `{"auths":
//!   {registry: entry}}`) and `kubernetes.io/dockercfg` (key `.dockercfg`, `{registry:
//!   entry}`) count; others are ignored. An entry's `auth` (base64 `user:password`)
//!   overrides `username`/`password`. Malformed JSON fails the lookup.
//! * Registry keys: `https://` is assumed, `/v1/` and `/v2/` path prefixes are dropped, the
//!   key is host (+ path). Matching (`URLsMatch`): same port, same number of host labels,
//!   each label a glob (`*`, `?`), and the key's path a prefix of the image's path. Keys
//!   are tried in reverse lexical order (more specific paths first). With no match, an
//!   `index.docker.io` key serves images of the default registry.
//! * Union: secret credentials first, then the node's (keyring and credential providers).

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::ByteString;
use serde::{Deserialize, Serialize};

/// Who a credential belongs to (`credentialprovider.CredentialSource`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Coordinates {
    /// Namespace.
    #[serde(default)]
    pub namespace: String,
    /// Name.
    #[serde(default)]
    pub name: String,
    /// UID.
    #[serde(default)]
    pub uid: String,
}

/// A credential's source; absent = node-wide.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CredentialSource {
    /// A pull secret.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<Coordinates>,
    /// A service account (credential providers with service-account tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub service_account: Option<Coordinates>,
}

/// One credential as the keyring returns it (`TrackedAuthConfig`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrackedCredential {
    /// User name.
    #[serde(default)]
    pub username: String,
    /// Password or token.
    #[serde(default)]
    pub password: String,
    /// Where it comes from; `None` = node-wide.
    #[serde(default)]
    pub source: Option<CredentialSource>,
    /// The kubelet's hash of the auth config (given by the caller; podplan does not compute
    /// it).
    #[serde(default)]
    pub auth_config_hash: String,
}

/// What the kubelet hands to the pull-record check: every secret-sourced credential and the
/// first service-account-sourced one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CredentialCheck {
    /// Secret coordinates, in keyring order.
    pub secrets: Vec<Coordinates>,
    /// The pod's service account credential, if any.
    pub service_account: Option<Coordinates>,
}

/// The sources of a keyring answer as `getPodCredentials` keeps them: every
/// secret-sourced credential (with the credential, in keyring order) and the first
/// service-account-sourced one.
pub(crate) fn pod_sources(
    creds: &[TrackedCredential],
) -> (
    Vec<(&Coordinates, &TrackedCredential)>,
    Option<&Coordinates>,
) {
    let mut secrets = Vec::new();
    let mut service_account = None;
    for c in creds {
        let Some(src) = &c.source else { continue };
        if let Some(s) = &src.secret {
            secrets.push((s, c));
        } else if let (Some(sa), None) = (&src.service_account, service_account) {
            service_account = Some(sa);
        }
    }
    (secrets, service_account)
}

#[derive(Deserialize)]
struct Entry {
    #[serde(default)]
    username: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    auth: String,
}

#[derive(Deserialize)]
struct ConfigJson {
    #[serde(default)]
    auths: BTreeMap<String, Entry>,
}

/// A keyring: registry key → credentials, in insertion order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Keyring {
    creds: BTreeMap<String, Vec<TrackedCredential>>,
}

fn registry_key(loc: &str) -> String {
    let value = loc
        .strip_prefix("https://")
        .or_else(|| loc.strip_prefix("http://"))
        .unwrap_or(loc);
    let (host, path) = match value.find('/') {
        Some(i) => value.split_at(i),
        None => (value, ""),
    };
    let path = if path.starts_with("/v2/") || path.starts_with("/v1/") {
        path.get(3..).unwrap_or("")
    } else {
        path
    };
    if !path.is_empty() && path != "/" {
        format!("{host}{path}")
    } else {
        host.to_string()
    }
}

fn decode_auth(auth: &str) -> Result<(String, String), String> {
    let bytes: ByteString = serde_json::from_value(serde_json::Value::String(auth.to_string()))
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&bytes.0).into_owned();
    match text.split_once(':') {
        Some((u, p)) => Ok((u.to_string(), p.to_string())),
        None => {
            Err("unable to parse auth field, must be formatted as base64(username:password)".into())
        }
    }
}

/// Simple glob of one host label (`filepath.Match` with `*` and `?`).
fn glob(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) => {
            (0..=text.len()).any(|i| text.get(i..).is_some_and(|t| glob(rest, t)))
        }
        Some((b'?', rest)) => text.split_first().is_some_and(|(_, t)| glob(rest, t)),
        Some((c, rest)) => text
            .split_first()
            .is_some_and(|(d, t)| c == d && glob(rest, t)),
    }
}

fn split_host_path(s: &str) -> (&str, &str) {
    match s.find('/') {
        Some(i) => s.split_at(i),
        None => (s, ""),
    }
}

/// `URLsMatchStr(key, image)`.
fn urls_match(key: &str, image: &str) -> bool {
    let (gh, gp) = split_host_path(key);
    let (th, tp) = split_host_path(image);
    let (ghost, gport) = gh.split_once(':').unwrap_or((gh, ""));
    let (thost, tport) = th.split_once(':').unwrap_or((th, ""));
    if gport != tport {
        return false;
    }
    let gl: Vec<&str> = ghost.split('.').collect();
    let tl: Vec<&str> = thost.split('.').collect();
    gl.len() == tl.len()
        && gl
            .iter()
            .zip(&tl)
            .all(|(g, t)| glob(g.as_bytes(), t.as_bytes()))
        && tp.starts_with(gp)
}

fn is_default_registry_match(image: &str) -> bool {
    let (first, rest) = match image.split_once('/') {
        Some((f, r)) => (f, Some(r)),
        None => (image, None),
    };
    if first.is_empty() {
        return false;
    }
    if rest.is_none() || first == "docker.io" || first == "index.docker.io" {
        return true;
    }
    !first.contains(['.', ':'])
}

impl Keyring {
    /// Adds one docker config (`BasicDockerKeyring.Add`).
    pub(crate) fn add(
        &mut self,
        source: Option<&CredentialSource>,
        registry: &str,
        cred: TrackedCredential,
    ) {
        let mut cred = cred;
        if cred.source.is_none() {
            cred.source = source.cloned();
        }
        self.creds
            .entry(registry_key(registry))
            .or_default()
            .push(cred);
    }

    /// The keyring of the pod's pull secrets (`MakeDockerKeyring`'s secret part).
    ///
    /// # Errors
    /// A docker config secret whose JSON (or `auth` field) does not parse.
    pub(crate) fn from_secrets(secrets: &[Secret]) -> Result<Self, String> {
        let mut ring = Self::default();
        for s in secrets {
            let ty = s.type_.as_deref().unwrap_or("");
            let data = s.data.as_ref();
            let config = match ty {
                "kubernetes.io/dockerconfigjson" => data
                    .and_then(|d| d.get(".dockerconfigjson"))
                    .filter(|b| !b.0.is_empty())
                    .map(|b| serde_json::from_slice::<ConfigJson>(&b.0).map(|c| c.auths)),
                "kubernetes.io/dockercfg" => data
                    .and_then(|d| d.get(".dockercfg"))
                    .filter(|b| !b.0.is_empty())
                    .map(|b| serde_json::from_slice::<BTreeMap<String, Entry>>(&b.0)),
                _ => None,
            };
            let Some(config) = config else { continue };
            let config = config.map_err(|e| e.to_string())?;
            let m = &s.metadata;
            let source = CredentialSource {
                secret: Some(Coordinates {
                    namespace: m.namespace.clone().unwrap_or_default(),
                    name: m.name.clone().unwrap_or_default(),
                    uid: m.uid.clone().unwrap_or_default(),
                }),
                service_account: None,
            };
            for (registry, entry) in config {
                let (username, password) = if entry.auth.is_empty() {
                    (entry.username, entry.password)
                } else {
                    decode_auth(&entry.auth)?
                };
                ring.add(
                    Some(&source),
                    &registry,
                    TrackedCredential {
                        username,
                        password,
                        source: None,
                        auth_config_hash: String::new(),
                    },
                );
            }
        }
        Ok(ring)
    }

    /// A keyring of already tracked credentials by registry key (the node's).
    #[must_use]
    pub(crate) fn from_tracked(map: &BTreeMap<String, Vec<TrackedCredential>>) -> Self {
        let mut ring = Self::default();
        for (registry, creds) in map {
            for c in creds {
                ring.add(None, registry, c.clone());
            }
        }
        ring
    }

    /// `Lookup(repository)`.
    #[must_use]
    pub(crate) fn lookup(&self, repository: &str) -> Vec<TrackedCredential> {
        let index: BTreeSet<&String> = self.creds.keys().collect();
        let mut out = Vec::new();
        for key in index.into_iter().rev() {
            if urls_match(key, repository) {
                out.extend(self.creds.get(key).into_iter().flatten().cloned());
            }
        }
        if out.is_empty() && is_default_registry_match(repository) {
            if let Some(c) = self.creds.get("index.docker.io") {
                out.extend(c.iter().cloned());
            }
        }
        out
    }
}

/// The layout of a node's docker config file (the kubelet's default keyring,
/// `credentialprovider.ReadDockerConfigFile`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DockerConfigFile {
    /// `config.json` or `.dockerconfigjson`: `{"auths": {registry: entry}}`.
    ConfigJson,
    /// The legacy `.dockercfg`: `{registry: entry}`.
    Dockercfg,
}

/// The node-wide credentials of one docker config file, by registry, for a request's
/// `nodeCredentials`: an entry's `auth` (base64 `user:password`) overrides
/// `username`/`password`; the credentials have no source (node-wide).
///
/// # Errors
/// The file is not that layout's JSON, or an `auth` field does not decode (the kubelet
/// then goes on to the next file it searches).
pub fn node_credentials_from_file(
    contents: &[u8],
    layout: DockerConfigFile,
) -> Result<BTreeMap<String, Vec<TrackedCredential>>, String> {
    // Go's decoder takes an object or `null` into a struct or map; serde would also take
    // an array into a struct.
    let text = contents.trim_ascii_start();
    if text.starts_with(b"null") {
        return Ok(BTreeMap::new());
    }
    if !text.starts_with(b"{") {
        return Err("a docker config file is a JSON object".into());
    }
    let entries = match layout {
        DockerConfigFile::ConfigJson => serde_json::from_slice::<ConfigJson>(contents)
            .map(|c| c.auths)
            .map_err(|e| e.to_string())?,
        DockerConfigFile::Dockercfg => serde_json::from_slice::<BTreeMap<String, Entry>>(contents)
            .map_err(|e| e.to_string())?,
    };
    let mut out: BTreeMap<String, Vec<TrackedCredential>> = BTreeMap::new();
    for (registry, entry) in entries {
        let (username, password) = if entry.auth.is_empty() {
            (entry.username, entry.password)
        } else {
            decode_auth(&entry.auth)?
        };
        out.entry(registry).or_default().push(TrackedCredential {
            username,
            password,
            source: None,
            auth_config_hash: String::new(),
        });
    }
    Ok(out)
}

/// The pod's credentials for `repository`: pull secrets first, then the node's.
///
/// # Errors
/// A pull secret that does not parse.
pub(crate) fn pod_credentials(
    repository: &str,
    pull_secrets: &[Secret],
    node: &BTreeMap<String, Vec<TrackedCredential>>,
) -> Result<Vec<TrackedCredential>, String> {
    let mut out = Keyring::from_secrets(pull_secrets)?.lookup(repository);
    out.extend(Keyring::from_tracked(node).lookup(repository));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secret(name: &str, uid: &str, json: &str) -> Secret {
        serde_json::from_value(serde_json::json!({
            "metadata": {"namespace": "ns", "name": name, "uid": uid},
            "type": "kubernetes.io/dockerconfigjson",
            "data": {".dockerconfigjson": serde_json::to_value(ByteString(json.as_bytes().to_vec())).unwrap()}
        }))
        .unwrap()
    }

    #[test]
    fn node_config_files_give_node_wide_credentials() {
        let json =
            br#"{"auths": {"https://registry.example:5000/v2/": {"auth": "dXNlcjpwYXNzd29yZA=="},
                                   "docker.io": {"username": "u", "password": "p"}}}"#;
        let creds = node_credentials_from_file(json, DockerConfigFile::ConfigJson).unwrap();
        let ring = Keyring::from_tracked(&creds);
        let found = ring.lookup("registry.example:5000/team/app");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].username.as_str(), found[0].password.as_str()),
            ("user", "password")
        );
        assert_eq!(found[0].source, None);
        assert_eq!(ring.lookup("docker.io/library/busybox")[0].username, "u");
        assert!(ring.lookup("quay.io/x/y").is_empty());
        // The legacy layout has no `auths` level; each layout rejects the other's shape
        // only when it is not JSON of that shape.
        let legacy = br#"{"quay.io": {"auth": "dXNlcjpwYXNzd29yZA=="}}"#;
        let creds = node_credentials_from_file(legacy, DockerConfigFile::Dockercfg).unwrap();
        assert_eq!(
            Keyring::from_tracked(&creds).lookup("quay.io/x/y")[0].password,
            "password"
        );
        assert!(node_credentials_from_file(b"[]", DockerConfigFile::ConfigJson).is_err());
        assert!(
            node_credentials_from_file(b"{\"auths\": 1}", DockerConfigFile::ConfigJson).is_err()
        );
        assert!(
            node_credentials_from_file(b" null", DockerConfigFile::Dockercfg)
                .unwrap()
                .is_empty()
        );
        let bad_auth = br#"{"auths": {"quay.io": {"auth": "bm9jb2xvbg=="}}}"#;
        assert!(node_credentials_from_file(bad_auth, DockerConfigFile::ConfigJson).is_err());
    }

    #[test]
    fn matches_hosts_paths_and_globs() {
        assert!(urls_match(
            "docker.io/library/busybox",
            "docker.io/library/busybox"
        ));
        assert!(urls_match("docker.io", "docker.io/library/busybox"));
        assert!(urls_match("*.example.com", "r.example.com/a"));
        assert!(!urls_match("*.example.com", "example.com/a"));
        assert!(!urls_match("r.example.com:5000", "r.example.com/a"));
        assert!(!urls_match("docker.io/other", "docker.io/library/busybox"));
        assert_eq!(
            registry_key("https://index.docker.io/v1/"),
            "index.docker.io"
        );
        assert_eq!(registry_key("quay.io/v2/org"), "quay.io/org");
    }

    #[test]
    fn secrets_come_first_and_auth_is_decoded() {
        let s = secret(
            "s1",
            "u1",
            r#"{"auths": {"docker.io/library/busybox": {"auth": "dXNlcjpwYXNzd29yZA=="}}}"#,
        );
        let mut node = BTreeMap::new();
        node.insert(
            "docker.io".to_string(),
            vec![TrackedCredential {
                username: "n".into(),
                ..Default::default()
            }],
        );
        let creds = pod_credentials("docker.io/library/busybox", &[s], &node).unwrap();
        assert_eq!(creds.len(), 2);
        assert_eq!(creds[0].username, "user");
        assert_eq!(creds[0].password, "password");
        assert_eq!(creds[1].username, "n");
        let check = CredentialCheck::from_credentials(&creds);
        assert_eq!(check.secrets.len(), 1);
        assert_eq!(check.service_account, None);
    }

    #[test]
    fn malformed_secret_is_an_error_and_default_registry_fallback() {
        assert!(Keyring::from_secrets(&[secret("s", "u", "{not json")]).is_err());
        let s = secret(
            "s",
            "u",
            r#"{"auths": {"https://index.docker.io/v1/": {"username": "a", "password": "b"}}}"#,
        );
        let ring = Keyring::from_secrets(&[s]).unwrap();
        assert_eq!(ring.lookup("docker.io/library/busybox").len(), 1);
        assert!(ring.lookup("quay.io/x/y").is_empty());
    }
}
