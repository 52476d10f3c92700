//! `$(VAR)` expansion (`third_party/forked/golang/expansion`) and its uses: env values,
//! command and args, `subPathExpr`.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::VolumeMount;

use super::errors::ConfigError;

/// Expands `$(NAME)` references in `input`; `mapping` resolves a name (or says it does
/// not know it, in which case the reference stays as written).
///
/// Rules: `$$` is an escaped `$`; `$(` without a closing `)` is kept literally; `$`
/// followed by anything else is kept; the replacement is not re-scanned.
pub(crate) fn expand(input: &str, mut mapping: impl FnMut(&str) -> Option<String>) -> String {
    if !input.contains('$') {
        return input.to_string();
    }
    let out = expand_bytes(input, |name| mapping(name).map(String::into_bytes));
    // Every piece is UTF-8 and pieces meet at ASCII characters.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`expand`] with byte values: what the kubelet does with env values, whose
/// replacements may be binary Secret data (Go strings are bytes).
pub(crate) fn expand_bytes(
    input: &str,
    mut mapping: impl FnMut(&str) -> Option<Vec<u8>>,
) -> Vec<u8> {
    let bytes = input.as_bytes();
    if !input.contains('$') {
        return bytes.to_vec();
    }
    let mut out: Vec<u8> = Vec::with_capacity(input.len());
    let mut checkpoint = 0;
    let mut cursor = 0;
    while cursor < bytes.len() {
        if bytes.get(cursor) == Some(&b'$') && cursor + 1 < bytes.len() {
            // Copy what came before the operator.
            out.extend_from_slice(bytes.get(checkpoint..cursor).unwrap_or_default());
            let rest = input.get(cursor + 1..).unwrap_or("");
            let advance = match read_after_operator(rest) {
                Read::Variable(name, advance) => {
                    match mapping(name) {
                        Some(v) => out.extend_from_slice(&v),
                        None => {
                            out.extend_from_slice(b"$(");
                            out.extend_from_slice(name.as_bytes());
                            out.push(b')');
                        }
                    }
                    advance
                }
                Read::Literal(text, advance) => {
                    out.extend_from_slice(text.as_bytes());
                    advance
                }
                Read::OperatorAnd(c) => {
                    out.push(b'$');
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                    c.len_utf8()
                }
            };
            cursor += advance;
            checkpoint = cursor + 1;
        }
        cursor += 1;
    }
    out.extend_from_slice(bytes.get(checkpoint..).unwrap_or_default());
    out
}

/// What follows a `$`.
enum Read<'a> {
    /// `$(name)`: the name and the bytes consumed after the `$`.
    Variable(&'a str, usize),
    /// Text to emit literally and the bytes consumed after the `$`.
    Literal(&'static str, usize),
    /// `$` followed by another character: both are kept. (Go copies one *byte* as a
    /// rune here, which garbles non-ASCII text; a whole character is kept instead.)
    OperatorAnd(char),
}

fn read_after_operator(input: &str) -> Read<'_> {
    match input.chars().next() {
        Some('$') => Read::Literal("$", 1),
        Some('(') => match input.get(1..).and_then(|s| s.find(')')) {
            Some(end) => Read::Variable(input.get(1..1 + end).unwrap_or(""), end + 2),
            // Incomplete reference: emit `$(` and continue after the `(`.
            None => Read::Literal("$(", 1),
        },
        Some(c) => Read::OperatorAnd(c),
        None => Read::Literal("$", 0),
    }
}

/// `ExpandContainerCommandAndArgs`: expands each element against the final env list (the
/// last duplicate of a name wins). Absent stays absent.
#[must_use]
pub(crate) fn expand_command_and_args(
    command: Option<&[String]>,
    args: Option<&[String]>,
    env: &[(String, String)],
) -> (Option<Vec<String>>, Option<Vec<String>>) {
    expand_command_and_args_with(
        command,
        args,
        env.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    )
}

/// [`expand_command_and_args`] over borrowed `(name, value)` pairs.
#[must_use]
pub(crate) fn expand_command_and_args_with<'e>(
    command: Option<&[String]>,
    args: Option<&[String]>,
    env: impl Iterator<Item = (&'e str, &'e str)>,
) -> (Option<Vec<String>>, Option<Vec<String>>) {
    // Built like `env_map`: the last value of a name wins.
    let map: BTreeMap<&str, &str> = env.collect();
    let f = |list: &[String]| {
        list.iter()
            .map(|s| expand(s, |n| map.get(n).map(|v| (*v).to_string())))
            .collect::<Vec<_>>()
    };
    (command.map(f), args.map(f))
}

/// The env list as a map (the last value of a name wins).
#[must_use]
pub(crate) fn env_map(env: &[(String, String)]) -> BTreeMap<String, String> {
    env.iter().cloned().collect()
}

/// A container's environment as a name → value lookup (`$(NAME)` references).
pub trait EnvLookup {
    /// The value of `name`, if the environment has it.
    fn value(&self, name: &str) -> Option<&str>;
}

impl EnvLookup for BTreeMap<String, String> {
    fn value(&self, name: &str) -> Option<&str> {
        self.get(name).map(String::as_str)
    }
}

impl EnvLookup for BTreeMap<&str, &str> {
    fn value(&self, name: &str) -> Option<&str> {
        self.get(name).copied()
    }
}

impl EnvLookup for BTreeMap<&str, std::borrow::Cow<'_, str>> {
    fn value(&self, name: &str) -> Option<&str> {
        self.get(name).map(AsRef::as_ref)
    }
}

/// Expands a `subPathExpr`: every referenced name must exist with a non-empty value.
pub(crate) fn expand_sub_path_expr(
    expr: &str,
    env: &(impl EnvLookup + ?Sized),
) -> Result<String, ConfigError> {
    let mut missing = BTreeSet::new();
    let out = expand(expr, |name| match env.value(name) {
        Some(v) if !v.is_empty() => Some(v.to_string()),
        _ => {
            missing.insert(name.to_string());
            Some(String::new())
        }
    });
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(ConfigError::MissingSubPathValue(
            missing.into_iter().collect::<Vec<_>>().join(", "),
        ))
    }
}

/// The subPath a mount uses: `subPathExpr` expanded, or the literal `subPath`.
pub(crate) fn mount_sub_path(
    mount: &VolumeMount,
    env: &(impl EnvLookup + ?Sized),
) -> Result<String, ConfigError> {
    match mount.sub_path_expr.as_deref() {
        Some(expr) if !expr.is_empty() => expand_sub_path_expr(expr, env),
        _ => Ok(mount.sub_path.clone().unwrap_or_default()),
    }
}

/// The subPath checks the kubelet applies before preparing it.
pub(crate) fn check_sub_path(sub_path: &str) -> Result<(), ConfigError> {
    if sub_path.is_empty() {
        return Ok(());
    }
    if sub_path.starts_with('/') {
        return Err(ConfigError::AbsoluteSubPath(sub_path.to_string()));
    }
    if sub_path.split('/').any(|part| part == "..") {
        return Err(ConfigError::BackstepSubPath {
            path: sub_path.to_string(),
            reason: "must not contain '..'".to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expand_bytes_examples() {
        let vars = |n: &str| (n == "BIN").then(|| vec![0xff, 0x00]);
        assert_eq!(expand_bytes("a$(BIN)b", vars), vec![b'a', 0xff, 0x00, b'b']);
    }

    #[test]
    fn expand_examples() {
        let vars = |n: &str| (n == "VAR_A").then(|| "A".to_string());
        assert_eq!(expand("$$$$$$$(VAR_A)", vars), "$$$A");
        assert_eq!(expand("$(VAR_A$(VAR_B))", vars), "$(VAR_A$(VAR_B))");
        assert_eq!(expand("$(UNKNOWN)", vars), "$(UNKNOWN)");
    }

    fn m(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn grammar() {
        let ctx = m(&[("VAR_A", "A"), ("VAR_B", "B"), ("VAR_EMPTY", "")]);
        let f = |s: &str| expand(s, |n| ctx.get(n).cloned());
        assert_eq!(f("$(VAR_A)"), "A");
        assert_eq!(f("___$(VAR_B)___"), "___B___");
        assert_eq!(f("$$(VAR_A)"), "$(VAR_A)");
        assert_eq!(f("$(VAR_EMPTY)"), "");
        assert_eq!(f("$(VAR_A"), "$(VAR_A");
        assert_eq!(f("$VAR_A"), "$VAR_A");
        assert_eq!(f("$?_boo_$!"), "$?_boo_$!");
        assert_eq!(f("foo$"), "foo$");
        assert_eq!(f("$()"), "$()");
        assert_eq!(f("\\$(VAR_A)"), "\\A");
        assert_eq!(f("é$(VAR_A)é$é"), "éAé$é");
    }

    #[test]
    fn sub_path_expr_needs_values() {
        let env = m(&[("POD", "p"), ("EMPTY", "")]);
        assert_eq!(expand_sub_path_expr("a/$(POD)", &env), Ok("a/p".into()));
        assert_eq!(
            expand_sub_path_expr("$(EMPTY)/$(NOPE)", &env),
            Err(ConfigError::MissingSubPathValue("EMPTY, NOPE".into()))
        );
    }
}
