//! The `#[serde(...)]` attributes that decide a type's JSON shape, and serde's rename
//! rules.

use syn::{Attribute, Expr, Lit, Meta};

/// The serde attributes of a container (struct or enum), a field or a variant.
#[derive(Default, Debug)]
pub struct SerdeAttrs {
    /// `rename = "..."`.
    pub rename: Option<String>,
    /// `rename_all = "..."`.
    pub rename_all: Option<String>,
    /// `rename_all_fields = "..."` (enums).
    pub rename_all_fields: Option<String>,
    /// `default` or `default = "..."`.
    pub default: bool,
    /// `skip_serializing_if = "..."`.
    pub skip_serializing_if: bool,
    /// `skip`, or both `skip_serializing` and `skip_deserializing`.
    pub skip: bool,
    /// `flatten`.
    pub flatten: bool,
    /// `tag = "..."`.
    pub tag: Option<String>,
    /// `content = "..."`.
    pub content: Option<String>,
    /// `untagged`.
    pub untagged: bool,
    /// `transparent`.
    pub transparent: bool,
    /// `with`, `serialize_with`, `deserialize_with`, `from`, `into`, `try_from`,
    /// `remote`: a shape the generator cannot see.
    pub custom: Option<String>,
}

/// Reads the `#[serde(...)]` attributes.
pub fn serde_attrs(attrs: &[Attribute]) -> Result<SerdeAttrs, String> {
    let mut out = SerdeAttrs::default();
    let (mut skip_ser, mut skip_de) = (false, false);
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            let value = if meta.input.peek(syn::Token![=]) {
                let lit: syn::LitStr = meta.value()?.parse()?;
                Some(lit.value())
            } else {
                None
            };
            match key.as_str() {
                "rename" => out.rename = value,
                "rename_all" => out.rename_all = value,
                "rename_all_fields" => out.rename_all_fields = value,
                "default" => out.default = true,
                "skip_serializing_if" => out.skip_serializing_if = true,
                "skip" => out.skip = true,
                "skip_serializing" => skip_ser = true,
                "skip_deserializing" => skip_de = true,
                "flatten" => out.flatten = true,
                "tag" => out.tag = value,
                "content" => out.content = value,
                "untagged" => out.untagged = true,
                "transparent" => out.transparent = true,
                "with" | "serialize_with" | "deserialize_with" | "from" | "into" | "try_from"
                | "remote" => {
                    out.custom = Some(format!("{key} = {:?}", value.unwrap_or_default()));
                }
                // No effect on the JSON's shape.
                _ => {}
            }
            Ok(())
        })
        .map_err(|e| format!("serde attribute: {e}"))?;
    }
    out.skip |= skip_ser && skip_de;
    Ok(out)
}

/// The `///` doc comment, one string per line (the leading space removed).
pub fn docs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(syn::ExprLit {
                    lit: Lit::Str(s), ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .map(|line| line.strip_prefix(' ').unwrap_or(&line).to_owned())
        .collect()
}

/// Whether the item derives `Serialize` or `Deserialize`.
pub fn derives_serde(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.meta.require_list().is_ok_and(|l| {
                let t = l.tokens.to_string();
                t.contains("Serialize") || t.contains("Deserialize")
            })
        })
}

/// serde's `rename_all` applied to a field name (snake_case in Rust).
pub fn rename_field(name: &str, rule: Option<&str>) -> Result<String, String> {
    let words: Vec<&str> = name.split('_').collect();
    Ok(match rule {
        None | Some("snake_case") => name.to_owned(),
        Some("lowercase") => name.to_ascii_lowercase(),
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => name.to_ascii_uppercase(),
        Some("kebab-case") => name.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => name.replace('_', "-").to_ascii_uppercase(),
        Some("camelCase") => words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == 0 {
                    (*w).to_owned()
                } else {
                    capitalise(w)
                }
            })
            .collect(),
        Some("PascalCase") => words.iter().map(|w| capitalise(w)).collect(),
        Some(other) => return Err(format!("unknown rename_all rule {other:?}")),
    })
}

/// serde's `rename_all` applied to a variant name (PascalCase in Rust).
pub fn rename_variant(name: &str, rule: Option<&str>) -> Result<String, String> {
    let mut snake = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            snake.push('_');
        }
        snake.push(c.to_ascii_lowercase());
    }
    Ok(match rule {
        None | Some("PascalCase") => name.to_owned(),
        Some("lowercase") => name.to_ascii_lowercase(),
        Some("UPPERCASE") => name.to_ascii_uppercase(),
        Some("camelCase") => {
            let mut chars = name.chars();
            chars.next().map_or_else(String::new, |f| {
                f.to_ascii_lowercase().to_string() + chars.as_str()
            })
        }
        Some("snake_case") => snake,
        Some("SCREAMING_SNAKE_CASE") => snake.to_ascii_uppercase(),
        Some("kebab-case") => snake.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => snake.replace('_', "-").to_ascii_uppercase(),
        Some(other) => return Err(format!("unknown rename_all rule {other:?}")),
    })
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |f| {
        f.to_ascii_uppercase().to_string() + chars.as_str()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_as_serde_does() {
        assert_eq!(
            rename_field("grace_period_seconds", Some("camelCase")).unwrap(),
            "gracePeriodSeconds"
        );
        assert_eq!(
            rename_variant("SandboxLosesIp", Some("camelCase")).unwrap(),
            "sandboxLosesIp"
        );
        assert_eq!(
            rename_variant("NotReady", Some("SCREAMING_SNAKE_CASE")).unwrap(),
            "NOT_READY"
        );
        assert_eq!(rename_variant("Init", Some("lowercase")).unwrap(), "init");
        assert!(rename_field("a", Some("Title Case")).is_err());
    }
}
