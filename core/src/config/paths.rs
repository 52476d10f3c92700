//! Go `filepath` behaviour for the paths the kubelet builds.

/// `filepath.Clean`: collapses `//`, `.` and `..` elements lexically.
///
/// ```
/// use podplan_core::config::paths::clean;
/// assert_eq!(clean("/a//b/./c/../d/"), "/a/b/d");
/// assert_eq!(clean("a/../../b"), "../b");
/// assert_eq!(clean(""), ".");
/// ```
#[must_use]
pub fn clean(path: &str) -> String {
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

/// `filepath.Join`: joins the non-empty parts with `/` and cleans the result.
#[must_use]
pub fn clean_join(a: &str, b: &str) -> String {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => String::new(),
        (true, false) => clean(b),
        (false, true) => clean(a),
        (false, false) => clean(&format!("{a}/{b}")),
    }
}

/// `filepath.Join` of several parts.
#[must_use]
pub fn join_all(parts: &[&str]) -> String {
    let non_empty: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    if non_empty.is_empty() {
        String::new()
    } else {
        clean(&non_empty.join("/"))
    }
}
