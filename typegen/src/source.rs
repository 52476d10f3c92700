//! Reading `core/src`: every serde type definition with its module path, and each file's
//! `use` names, so that a field's type can be resolved to its definition.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use syn::parse::{Parse, ParseStream};
use syn::{Attribute, Item};

/// One type definition found in the sources.
pub struct Def {
    /// The module it is in (`["plan", "step"]`), crate-relative.
    pub module: Vec<String>,
    /// Its Rust name.
    pub name: String,
    /// The file (index into [`Sources::files`]) it is in, for its `use` names.
    pub file: usize,
    /// Where it is in the file (for a stable output order).
    pub position: usize,
    /// What it is.
    pub kind: DefKind,
}

/// The kinds of definition the generator reads.
pub enum DefKind {
    /// A struct.
    Struct(Box<syn::ItemStruct>),
    /// An enum.
    Enum(Box<syn::ItemEnum>),
    /// A type alias.
    Alias(Box<syn::ItemType>),
    /// A CRI enum made by `cri_enum!` (`core/src/cri/enums.rs`): serialised as its proto
    /// value name. The docs and the value names.
    CriEnum(Vec<Attribute>, Vec<(Vec<Attribute>, String)>),
}

/// One source file.
pub struct SourceFile {
    /// Path relative to the workspace root.
    pub path: String,
    /// Its module path, crate-relative.
    pub module: Vec<String>,
    /// `use` names: the name in scope → the full path (crate-relative paths start with
    /// `crate`).
    pub uses: BTreeMap<String, Vec<String>>,
}

/// Everything read from the sources.
#[derive(Default)]
pub struct Sources {
    /// The files.
    pub files: Vec<SourceFile>,
    /// The definitions, in file order.
    pub defs: Vec<Def>,
}

/// Reads every `.rs` file under `dir` (the crate's `src`), `root` being the workspace root.
pub fn read(root: &Path, dir: &str) -> Result<Sources, String> {
    let mut paths = Vec::new();
    walk(&root.join(dir), &mut paths)?;
    paths.sort();
    let mut sources = Sources::default();
    for path in paths {
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let rel = path
            .strip_prefix(root.join(dir))
            .map_err(|e| e.to_string())?
            .to_string_lossy()
            .into_owned();
        let module = module_of(&rel);
        let index = sources.files.len();
        let mut uses = BTreeMap::new();
        collect(&file.items, &module, index, &mut uses, &mut sources.defs);
        sources.files.push(SourceFile {
            path: format!("{dir}/{rel}"),
            module,
            uses,
        });
    }
    Ok(sources)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `plan/step.rs` → `["plan", "step"]`; `plan/mod.rs` → `["plan"]`; `lib.rs` → `[]`.
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.trim_end_matches(".rs");
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().contains("test"))
    })
}

fn collect(
    items: &[Item],
    module: &[String],
    file: usize,
    uses: &mut BTreeMap<String, Vec<String>>,
    defs: &mut Vec<Def>,
) {
    for item in items {
        let position = defs.len();
        let def = |name: String, kind| Def {
            module: module.to_vec(),
            name,
            file,
            position,
            kind,
        };
        match item {
            Item::Struct(s) if !is_cfg_test(&s.attrs) => {
                defs.push(def(
                    s.ident.to_string(),
                    DefKind::Struct(Box::new(s.clone())),
                ));
            }
            Item::Enum(e) if !is_cfg_test(&e.attrs) => {
                defs.push(def(e.ident.to_string(), DefKind::Enum(Box::new(e.clone()))));
            }
            Item::Type(t) if !is_cfg_test(&t.attrs) => {
                defs.push(def(
                    t.ident.to_string(),
                    DefKind::Alias(Box::new(t.clone())),
                ));
            }
            Item::Macro(m) if m.mac.path.is_ident("cri_enum") => {
                if let Ok(parsed) = m.mac.parse_body::<CriEnumBody>() {
                    defs.push(def(
                        parsed.name,
                        DefKind::CriEnum(parsed.attrs, parsed.values),
                    ));
                }
            }
            Item::Use(u) if !is_cfg_test(&u.attrs) => {
                use_tree(&u.tree, &mut Vec::new(), module, uses);
            }
            Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                if let Some((_, inner)) = &m.content {
                    let mut sub = module.to_vec();
                    sub.push(m.ident.to_string());
                    collect(inner, &sub, file, uses, defs);
                }
            }
            _ => {}
        }
    }
}

/// Records the names a `use` tree brings into scope, with `crate`/`super`/`self`
/// resolved to crate-relative paths (`["crate", "plan", "Step"]`).
fn use_tree(
    tree: &syn::UseTree,
    prefix: &mut Vec<String>,
    module: &[String],
    uses: &mut BTreeMap<String, Vec<String>>,
) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_tree(&p.tree, prefix, module, uses);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            if name == "self" {
                if let Some(last) = prefix.last().cloned() {
                    uses.insert(last, absolute(prefix, module));
                }
            } else {
                let mut full = prefix.clone();
                full.push(name.clone());
                uses.insert(name, absolute(&full, module));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut full = prefix.clone();
            full.push(r.ident.to_string());
            uses.insert(r.rename.to_string(), absolute(&full, module));
        }
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix, module, uses);
            }
        }
        syn::UseTree::Glob(_) => {}
    }
}

/// The crates `core/src` uses besides itself: a path starting with one of these is
/// external, any other path without `crate`/`self`/`super` is relative to its module.
const EXTERNAL_CRATES: &[&str] = &[
    "std",
    "core",
    "alloc",
    "serde",
    "serde_json",
    "k8s_openapi",
    "jiff",
    "thiserror",
];

/// A path as written in `module`, made crate-relative when it starts with `crate`,
/// `super` or `self` (external paths are returned as written).
pub fn absolute(path: &[String], module: &[String]) -> Vec<String> {
    let mut out: Vec<String> = vec!["crate".into()];
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => rest = path.get(1..).unwrap_or_default(),
        Some("self") => {
            out.extend(module.iter().cloned());
            rest = path.get(1..).unwrap_or_default();
        }
        Some("super") => {
            let mut m = module.to_vec();
            while rest.first().is_some_and(|s| s == "super") {
                m.pop();
                rest = rest.get(1..).unwrap_or_default();
            }
            out.extend(m);
        }
        Some(first) if EXTERNAL_CRATES.contains(&first) => return path.to_vec(),
        // A path relative to the module (`pub use actions::PodActions` in `plan`).
        _ => out.extend(module.iter().cloned()),
    }
    out.extend(rest.iter().cloned());
    out
}

/// The body of a `cri_enum!` invocation:
/// `#[doc] Name { #[doc] Variant = "NAME" = 0, ... }`.
struct CriEnumBody {
    attrs: Vec<Attribute>,
    name: String,
    values: Vec<(Vec<Attribute>, String)>,
}

impl Parse for CriEnumBody {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let attrs = input.call(Attribute::parse_outer)?;
        let name: syn::Ident = input.parse()?;
        let body;
        syn::braced!(body in input);
        let mut values = Vec::new();
        while !body.is_empty() {
            let vattrs = body.call(Attribute::parse_outer)?;
            let _variant: syn::Ident = body.parse()?;
            body.parse::<syn::Token![=]>()?;
            let text: syn::LitStr = body.parse()?;
            body.parse::<syn::Token![=]>()?;
            let _number: syn::LitInt = body.parse()?;
            values.push((vattrs, text.value()));
            if body.is_empty() {
                break;
            }
            body.parse::<syn::Token![,]>()?;
        }
        Ok(Self {
            attrs,
            name: name.to_string(),
            values,
        })
    }
}
