//! Container image references: the grammar of `github.com/distribution/reference`
//! (`ParseNormalizedNamed`) as the kubelet uses it through `parsers.ParseImageName`, and the
//! kubelet's `applyDefaultImageTag`.
//!
//! ```text
//! reference        := name [ ":" tag ] [ "@" digest ]
//! name             := [domain '/'] path-component ['/' path-component]*
//! domain           := host [':' port]          host := domain-name | '[' ipv6 ']'
//! domain-component := [a-zA-Z0-9] | [a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9]
//! path-component   := [a-z0-9]+ ( ([._] | "__" | [-]+) [a-z0-9]+ )*
//! tag              := [\w][\w.-]{0,127}
//! digest           := algorithm ":" hex{32,}   (sha256: 64 lower-case hex digits)
//! ```
//!
//! Normalisation: a first component without `.` or `:` that is not `localhost` and is
//! lower-case is not a domain, so `docker.io` is prepended (and `library/` for a
//! single-component name): `busybox` → `docker.io/library/busybox`.

use std::fmt;

/// The default registry.
pub(crate) const DEFAULT_DOMAIN: &str = "docker.io";
/// The tag `ParseImageName` reports for a reference without tag and digest.
pub(crate) const DEFAULT_TAG: &str = "latest";
const NAME_TOTAL_LENGTH_MAX: usize = 255;

/// Why a reference does not parse (the texts of `distribution/reference` and
/// `opencontainers/go-digest`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReferenceError {
    /// A bare 64-hex id.
    #[error("invalid repository name ({0}), cannot specify 64-byte hexadecimal strings")]
    HexIdentifier(String),
    /// Upper-case letters in the repository path.
    #[error("invalid reference format: repository name ({0}) must be lowercase")]
    Uppercase(String),
    /// Upper-case letters where the grammar would otherwise match.
    #[error("invalid reference format: repository name must be lowercase")]
    NameContainsUppercase,
    /// Nothing to parse.
    #[error("repository name must have at least one component")]
    NameEmpty,
    /// Longer than 255 characters.
    #[error("repository name must not be more than 255 characters")]
    NameTooLong,
    /// The grammar does not match.
    #[error("invalid reference format")]
    InvalidFormat,
    /// A digest with an algorithm the digest package does not know.
    #[error("unsupported digest algorithm")]
    UnsupportedDigest,
    /// A digest whose hex part has the wrong length for its algorithm.
    #[error("invalid checksum digest length")]
    DigestLength,
    /// A digest whose hex part is not lower-case hex.
    #[error("invalid checksum digest format")]
    DigestFormat,
}

/// A parsed, normalised reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The normalised repository (`docker.io/library/busybox`), `Named.Name()`.
    pub name: String,
    /// The tag, if the reference has one.
    pub tag: Option<String>,
    /// The digest (`sha256:…`), if the reference has one.
    pub digest: Option<String>,
}

/// `parsers.ParseImageName`'s error: the reference error wrapped with the image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseImageNameError {
    /// The image as given.
    pub image: String,
    /// What is wrong with it.
    pub cause: ReferenceError,
}

impl fmt::Display for ParseImageNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "couldn't parse image name {:?}: {}",
            self.image, self.cause
        )
    }
}

impl std::error::Error for ParseImageNameError {}

fn is_hex_identifier(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// `splitDockerDomain`: (domain, remainder).
fn split_docker_domain(name: &str) -> (String, String) {
    let (domain, remainder) = match name.split_once('/') {
        None => (DEFAULT_DOMAIN.to_string(), name.to_string()),
        Some((first, rest)) => {
            if first == "localhost" || first.contains(['.', ':']) || first.to_lowercase() != first {
                let d = if first == "index.docker.io" {
                    DEFAULT_DOMAIN
                } else {
                    first
                };
                (d.to_string(), rest.to_string())
            } else {
                (DEFAULT_DOMAIN.to_string(), name.to_string())
            }
        }
    };
    if domain == DEFAULT_DOMAIN && !remainder.contains('/') {
        return (domain, format!("library/{remainder}"));
    }
    (domain, remainder)
}

fn is_alnum_lower(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit()
}

/// `path-component`.
fn is_path_component(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let mut expect_alnum = true;
    while i < b.len() {
        if expect_alnum {
            let start = i;
            while b.get(i).is_some_and(|c| is_alnum_lower(*c)) {
                i += 1;
            }
            if i == start {
                return false;
            }
            expect_alnum = false;
        } else {
            match b.get(i) {
                Some(b'.') => i += 1,
                Some(b'_') => {
                    i += 1;
                    if b.get(i) == Some(&b'_') {
                        i += 1;
                    }
                }
                Some(b'-') => {
                    while b.get(i) == Some(&b'-') {
                        i += 1;
                    }
                }
                _ => return false,
            }
            expect_alnum = true;
        }
    }
    !expect_alnum
}

fn is_domain_component(s: &str) -> bool {
    let b = s.as_bytes();
    match (b.first(), b.last()) {
        (Some(f), Some(l)) => {
            f.is_ascii_alphanumeric()
                && l.is_ascii_alphanumeric()
                && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        }
        _ => false,
    }
}

/// `domainAndPort`.
fn is_domain(s: &str) -> bool {
    let (host_ok, port) = if let Some(rest) = s.strip_prefix('[') {
        let Some((v6, after)) = rest.split_once(']') else {
            return false;
        };
        let ok = !v6.is_empty() && v6.bytes().all(|c| c.is_ascii_hexdigit() || c == b':');
        match after.strip_prefix(':') {
            Some(p) => (ok, Some(p)),
            None if after.is_empty() => (ok, None),
            None => return false,
        }
    } else {
        let (h, p) = match s.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (s, None),
        };
        (h.split('.').all(is_domain_component), p)
    };
    host_ok && port.is_none_or(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

/// The name part of the reference regexp: `(domain/)? path (/path)*`.
fn is_name(s: &str) -> bool {
    let parts: Vec<&str> = s.split('/').collect();
    if parts.iter().all(|p| is_path_component(p)) {
        return true;
    }
    match parts.split_first() {
        Some((first, rest)) => {
            !rest.is_empty() && is_domain(first) && rest.iter().all(|p| is_path_component(p))
        }
        None => false,
    }
}

fn is_tag(s: &str) -> bool {
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let b = s.as_bytes();
    match b.split_first() {
        Some((f, rest)) => {
            word(*f)
                && rest.len() <= 127
                && rest.iter().all(|c| word(*c) || *c == b'.' || *c == b'-')
        }
        None => false,
    }
}

/// The digest pattern of the reference regexp.
fn is_digest_pattern(s: &str) -> bool {
    let Some((alg, hex)) = s.split_once(':') else {
        return false;
    };
    let alg_ok = alg.split(['-', '_', '+', '.']).all(|c| {
        let b = c.as_bytes();
        b.first().is_some_and(u8::is_ascii_alphabetic) && b.iter().all(u8::is_ascii_alphanumeric)
    });
    alg_ok && hex.len() >= 32 && hex.bytes().all(|c| c.is_ascii_hexdigit())
}

/// `digest.Parse` + `Validate`.
fn validate_digest(s: &str) -> Result<(), ReferenceError> {
    let Some((alg, hex)) = s.split_once(':') else {
        return Err(ReferenceError::DigestFormat);
    };
    let size = match alg {
        "sha256" => 64,
        "sha384" => 96,
        "sha512" => 128,
        _ => return Err(ReferenceError::UnsupportedDigest),
    };
    if hex.len() != size {
        return Err(ReferenceError::DigestLength);
    }
    if !hex
        .bytes()
        .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c))
    {
        return Err(ReferenceError::DigestFormat);
    }
    Ok(())
}

/// `reference.Parse` on an already normalised string.
fn parse(s: &str) -> Result<Reference, ReferenceError> {
    let matched = split_reference(s);
    let Some((name, tag, digest)) = matched else {
        if s.is_empty() {
            return Err(ReferenceError::NameEmpty);
        }
        if split_reference(&s.to_lowercase()).is_some() {
            return Err(ReferenceError::NameContainsUppercase);
        }
        return Err(ReferenceError::InvalidFormat);
    };
    if name.len() > NAME_TOTAL_LENGTH_MAX {
        return Err(ReferenceError::NameTooLong);
    }
    if let Some(d) = digest {
        validate_digest(d)?;
    }
    Ok(Reference {
        name: name.to_string(),
        tag: tag.map(str::to_string),
        digest: digest.map(str::to_string),
    })
}

/// Matches the anchored reference regexp: (name, tag, digest).
fn split_reference(s: &str) -> Option<(&str, Option<&str>, Option<&str>)> {
    let (rest, digest) = match s.split_once('@') {
        Some((r, d)) => (r, Some(d)),
        None => (s, None),
    };
    if digest.is_some_and(|d| !is_digest_pattern(d)) {
        return None;
    }
    // A tag is what follows the last ':' when no '/' follows it; otherwise the ':' is a
    // port. If the split as tag fails, the whole string may still be a name.
    if let Some((name, tag)) = rest.rsplit_once(':') {
        if !tag.contains('/') && is_tag(tag) && is_name(name) {
            return Some((name, Some(tag), digest));
        }
    }
    is_name(rest).then_some((rest, None, digest))
}

/// `reference.ParseNormalizedNamed`.
///
/// # Errors
/// The reference error, with the kubelet's texts.
pub(crate) fn parse_normalized_named(s: &str) -> Result<Reference, ReferenceError> {
    if is_hex_identifier(s) {
        return Err(ReferenceError::HexIdentifier(s.to_string()));
    }
    let (domain, remainder) = split_docker_domain(s);
    let remote = remainder
        .split_once(':')
        .map_or(remainder.as_str(), |(r, _)| r);
    if remote.to_lowercase() != remote {
        return Err(ReferenceError::Uppercase(remote.to_string()));
    }
    parse(&format!("{domain}/{remainder}"))
}

/// `parsers.ParseImageName`: (repository to pull, tag, digest); tag `latest` when the
/// reference has neither tag nor digest.
///
/// # Errors
/// The reference does not parse.
pub(crate) fn parse_image_name(
    image: &str,
) -> Result<(String, String, String), ParseImageNameError> {
    let r = parse_normalized_named(image).map_err(|cause| ParseImageNameError {
        image: image.to_string(),
        cause,
    })?;
    let mut tag = r.tag.unwrap_or_default();
    let digest = r.digest.unwrap_or_default();
    if tag.is_empty() && digest.is_empty() {
        tag = DEFAULT_TAG.to_string();
    }
    Ok((r.name, tag, digest))
}

/// The kubelet's `applyDefaultImageTag`: append `:<tag>` (i.e. `:latest`) when the
/// reference has no digest and does not already end with its tag. The name is not
/// normalised.
///
/// ```
/// use podplan_core::images::reference::apply_default_image_tag;
/// assert_eq!(apply_default_image_tag("busybox").unwrap(), "busybox:latest");
/// assert_eq!(apply_default_image_tag("busybox:1.36").unwrap(), "busybox:1.36");
/// assert!(apply_default_image_tag("http://url").is_err());
/// ```
///
/// # Errors
/// The reference does not parse.
pub fn apply_default_image_tag(image: &str) -> Result<String, ParseImageNameError> {
    let (_, tag, digest) = parse_image_name(image)?;
    if digest.is_empty() && !tag.is_empty() && !image.ends_with(&format!(":{tag}")) {
        return Ok(format!("{image}:{tag}"));
    }
    Ok(image.to_string())
}

/// An image reference in the full form a runtime reports it by (containerd's repo tags
/// and digests): [`parse_normalized_named`]'s name with the tag (`latest` when the
/// reference has neither tag nor digest) and the digest. A reference that does not parse
/// is given back as it is (the kubelet refuses it before any runtime sees it).
#[must_use]
pub(crate) fn normalize_image(image: &str) -> String {
    let Ok(r) = parse_normalized_named(image) else {
        return image.to_string();
    };
    let mut full = r.name;
    match (&r.tag, &r.digest) {
        (None, None) => {
            full.push(':');
            full.push_str(DEFAULT_TAG);
        }
        (tag, digest) => {
            if let Some(tag) = tag {
                full.push(':');
                full.push_str(tag);
            }
            if let Some(digest) = digest {
                full.push('@');
                full.push_str(digest);
            }
        }
    }
    full
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any reference text gives an answer or an error, never a panic.
        #[test]
        fn references_never_panic(t in "[a-zA-Z0-9._:/@-]{0,80}", s in "\\PC{0,80}") {
            let _ = parse_normalized_named(&t);
            let _ = parse_normalized_named(&s);
        }
    }

    #[test]
    fn normalize_image_examples() {
        assert_eq!(normalize_image("nginx"), "docker.io/library/nginx:latest");
        assert_eq!(
            normalize_image("index.docker.io/me/app:1"),
            "docker.io/me/app:1"
        );
        assert_eq!(
            normalize_image("localhost:5000/y"),
            "localhost:5000/y:latest"
        );
        assert_eq!(normalize_image("http://url"), "http://url");
    }

    const SHA: &str = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

    #[test]
    fn normalises_familiar_names() {
        let r = parse_normalized_named("busybox").unwrap();
        assert_eq!(r.name, "docker.io/library/busybox");
        assert_eq!(r.tag, None);
        let r = parse_normalized_named("index.docker.io/foo/bar:1").unwrap();
        assert_eq!(r.name, "docker.io/foo/bar");
        assert_eq!(r.tag.as_deref(), Some("1"));
        let r = parse_normalized_named("localhost:5000/app").unwrap();
        assert_eq!(r.name, "localhost:5000/app");
        assert_eq!(r.tag, None);
        let r = parse_normalized_named("[::1]:5000/app:v2").unwrap();
        assert_eq!(r.name, "[::1]:5000/app");
        assert_eq!(r.tag.as_deref(), Some("v2"));
        let r = parse_normalized_named(&format!("quay.io/a/b:t@{SHA}")).unwrap();
        assert_eq!(r.tag.as_deref(), Some("t"));
        assert_eq!(r.digest.as_deref(), Some(SHA));
    }

    #[test]
    fn rejects_with_the_libraries_texts() {
        let e = |s: &str| parse_normalized_named(s).unwrap_err().to_string();
        assert_eq!(e("http://url"), "invalid reference format");
        assert_eq!(
            e("FAILED_IMAGE"),
            "invalid reference format: repository name (library/FAILED_IMAGE) must be lowercase"
        );
        assert_eq!(
            e(&"a".repeat(64).replace('a', "b")),
            format!(
                "invalid repository name ({}), cannot specify 64-byte hexadecimal strings",
                "b".repeat(64)
            )
        );
        assert_eq!(e(""), "invalid reference format");
        assert_eq!(e("a@sha256:abc"), "invalid reference format");
        assert_eq!(
            e(&format!("a@md5:{}", "0".repeat(32))),
            "unsupported digest algorithm"
        );
        assert_eq!(
            e(&format!("a@sha256:{}", "0".repeat(40))),
            "invalid checksum digest length"
        );
        assert_eq!(e("a:b:c"), "invalid reference format");
        assert_eq!(
            e(&"a".repeat(250)),
            "repository name must not be more than 255 characters"
        );
    }

    #[test]
    fn default_tag() {
        assert_eq!(apply_default_image_tag("root").unwrap(), "root:latest");
        assert_eq!(apply_default_image_tag("root:tag").unwrap(), "root:tag");
        let digest = format!("root@{SHA}");
        assert_eq!(apply_default_image_tag(&digest).unwrap(), digest);
        let both = format!("root:latest@{SHA}");
        assert_eq!(apply_default_image_tag(&both).unwrap(), both);
        assert_eq!(
            apply_default_image_tag("registry:5000/app").unwrap(),
            "registry:5000/app:latest"
        );
        assert_eq!(
            apply_default_image_tag("http://url")
                .unwrap_err()
                .to_string(),
            "couldn't parse image name \"http://url\": invalid reference format"
        );
    }

    #[test]
    fn normalised_full_forms() {
        for (image, full) in [
            ("nginx", "docker.io/library/nginx:latest"),
            ("nginx:1.27", "docker.io/library/nginx:1.27"),
            ("me/app", "docker.io/me/app:latest"),
            ("quay.io/x/y:v1", "quay.io/x/y:v1"),
            ("localhost:5000/y", "localhost:5000/y:latest"),
            ("localhost/y", "localhost/y:latest"),
            ("index.docker.io/foo/bar", "docker.io/foo/bar:latest"),
            ("[::1]:5000/app:v2", "[::1]:5000/app:v2"),
        ] {
            assert_eq!(normalize_image(image), full, "{image}");
        }
        assert_eq!(
            normalize_image(&format!("nginx@{SHA}")),
            format!("docker.io/library/nginx@{SHA}")
        );
        assert_eq!(
            normalize_image(&format!("nginx:1@{SHA}")),
            format!("docker.io/library/nginx:1@{SHA}")
        );
        assert_eq!(normalize_image("FAILED_IMAGE"), "FAILED_IMAGE");
        assert_eq!(normalize_image(""), "");
    }
}
