//! Go `filepath` behaviour for the paths the kubelet builds.

/// `filepath.Clean`: collapses `//`, `.` and `..` elements lexically.
#[must_use]
pub(crate) fn clean(path: &str) -> String {
    if is_clean(path) {
        path.to_string()
    } else {
        clean_lexically(path)
    }
}

/// The full lexical cleaning behind [`clean`] (no shortcut for clean paths).
fn clean_lexically(path: &str) -> String {
    if path.is_empty() {
        return ".".to_string();
    }
    let rooted = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.last().is_some_and(|p| *p != "..") {
                    parts.pop();
                } else if !rooted {
                    parts.push("..");
                }
            }
            p => parts.push(p),
        }
    }
    let joined = parts.join("/");
    match (rooted, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_string(),
        (false, false) => joined,
    }
}

/// Whether [`clean`] returns `path` unchanged because there is nothing to clean: `/`, or
/// elements that are neither empty nor `.` nor `..` (a relative `..` prefix, which
/// also survives cleaning, takes the general path).
fn is_clean(path: &str) -> bool {
    if path == "/" {
        return true;
    }
    let rest = path.strip_prefix('/').unwrap_or(path);
    !rest.is_empty()
        && rest
            .as_bytes()
            .split(|b| *b == b'/')
            .all(|e| !matches!(e, b"" | b"." | b".."))
}

/// [`clean`] of an owned path, reusing it when it is already clean.
fn clean_owned(path: String) -> String {
    if is_clean(&path) {
        path
    } else {
        clean(&path)
    }
}

/// `filepath.Join`: joins the non-empty parts with `/` and cleans the result.
#[must_use]
pub(crate) fn clean_join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => String::new(),
        (true, false) => clean(b),
        (false, true) => clean(a),
        (false, false) => clean_owned(format!("{a}/{b}")),
    }
}

/// `filepath.Join` of several parts.
#[must_use]
pub(crate) fn join_all(parts: &[&str]) -> String {
    let mut joined = String::with_capacity(parts.iter().map(|p| p.len() + 1).sum());
    for part in parts.iter().filter(|p| !p.is_empty()) {
        if !joined.is_empty() {
            joined.push('/');
        }
        joined.push_str(part);
    }
    if joined.is_empty() {
        joined
    } else {
        clean_owned(joined)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_examples() {
        assert_eq!(clean("/a//b/./c/../d/"), "/a/b/d");
        assert_eq!(clean("a/../../b"), "../b");
        assert_eq!(clean(""), ".");
    }

    #[test]
    fn the_shortcut_agrees_with_full_cleaning() {
        let elements = ["", ".", "..", "a", "bc", "...", ".x"];
        let mut checked = 0;
        for a in elements {
            for b in elements {
                for c in elements {
                    for lead in ["", "/", "//"] {
                        for tail in ["", "/"] {
                            let path = format!("{lead}{a}/{b}/{c}{tail}");
                            assert_eq!(clean(&path), clean_lexically(&path), "{path:?}");
                            let short = format!("{lead}{a}{tail}");
                            assert_eq!(clean(&short), clean_lexically(&short), "{short:?}");
                            checked += 2;
                        }
                    }
                }
            }
        }
        assert!(checked > 4000);
        assert_eq!(
            join_all(&["/var/lib/kubelet", "", "pods", "u1"]),
            "/var/lib/kubelet/pods/u1"
        );
        assert_eq!(join_all(&["", ""]), "");
        assert_eq!(join_all(&["a/", "../b"]), "b");
        assert_eq!(clean_join("/x", "y/./z"), "/x/y/z");
    }
}
