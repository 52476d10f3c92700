//! Generates `wasm/types/contract.d.ts`, the TypeScript declarations of the plan contract,
//! from the serde types in `core/src` (run `scripts/gen-types`; `scripts/test` checks the
//! committed file is up to date).
//!
//! The generator reads the Rust sources (with `syn`), not the compiled types: the core
//! takes no derive crate and its types carry no attributes for TypeScript, so a field added
//! to a request or plan type shows up on the next regeneration. It follows the serde
//! attributes that shape the JSON:
//!
//! - names: `rename`, `rename_all` (fields and variants), `rename_all_fields`;
//! - presence: a field the JSON may lack is optional (`name?:`). For types a request can
//!   carry (reached from [`INPUT_ROOTS`]) that is every field serde can read without it
//!   (`default`, an `Option`, `skip_serializing_if`), and an `Option` may also be `null`;
//!   for types only answers carry, only fields with `skip_serializing_if` are optional;
//! - enums: unit variants as string literals; internally (`tag`), adjacently (`tag` +
//!   `content`), externally tagged and `untagged` enums as unions;
//! - `flatten` (an intersection), `transparent` and newtype structs (the inner type),
//!   `skip`.
//!
//! Types with hand-written serde impls are listed in [`CUSTOM`]; `cri_enum!` enums
//! serialise as their proto value names. Kubernetes objects (`k8s-openapi` types) and the
//! JSON helpers are hand-written in `wasm/types/kubernetes.d.ts` and imported ([`EXTERNAL`]).
//! Every Rust integer is a JSON number, so a TypeScript `number`. Anything else the
//! generator does not understand is an error, never a guess.

mod serde_attrs;
mod source;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use serde_attrs::{derives_serde, docs, rename_field, rename_variant, serde_attrs, SerdeAttrs};
use source::{Def, DefKind, Sources};

/// The generated file, relative to the workspace root.
pub const OUTPUT: &str = "wasm/types/contract.d.ts";

/// The command that regenerates it.
pub const COMMAND: &str = "scripts/gen-types";

/// Types a caller sends (module path, name): they and the types they reach are read by
/// serde, so a field serde can do without is optional.
pub const INPUT_ROOTS: &[(&str, &str)] = &[
    ("request", "PlanRequest"),
    ("sim::event", "Event"),
    ("sim::hooks", "HookControls"),
    ("cri::sandbox", "PodSandboxConfig"),
    ("cri::container", "ContainerConfig"),
];

/// Types only the engine sends.
pub const OUTPUT_ROOTS: &[(&str, &str)] = &[("plan", "Plan"), ("error", "ErrorEnvelope")];

/// TypeScript names for Rust names used twice in the core (module path, name, TS name).
pub const RENAMES: &[(&str, &str, &str)] = &[
    ("sim::event", "Event", "SimEvent"),
    ("plan::image", "ImageSpec", "PullImageSpec"),
];

/// Types with hand-written serde impls: (module path, name, TypeScript type).
pub const CUSTOM: &[(&str, &str, &str)] = &[(
    "cri::bytes",
    "EnvBytes",
    // `EnvBytes`'s Serialize: a string when the bytes are UTF-8, else {base64}.
    "string | { base64: string }",
)];

/// Field attributes `deserialize_with = "..."` whose function reads the field's own
/// JSON shape (they only tell an absent key from `null`).
pub const SAME_SHAPE_WITH: &[&str] = &["deserialize_with = \"tri_state\""];

/// Types from other crates: (crate, name, TypeScript name in `kubernetes.d.ts`).
pub const EXTERNAL: &[(&str, &str, &str)] = &[
    ("k8s_openapi", "Pod", "Pod"),
    ("k8s_openapi", "PodStatus", "PodStatus"),
    (
        "k8s_openapi",
        "ResourceRequirements",
        "ResourceRequirements",
    ),
    ("k8s_openapi", "Quantity", "Quantity"),
    ("k8s_openapi", "Service", "Service"),
    ("k8s_openapi", "ConfigMap", "ConfigMap"),
    ("k8s_openapi", "Secret", "Secret"),
    ("jiff", "Timestamp", "Time"),
    ("serde_json", "Value", "Json"),
    ("serde_json", "Map", "JsonObject"),
];

/// Generates the declarations from the sources under `root` (the workspace root).
pub fn generate(root: &Path) -> Result<String, String> {
    let sources = source::read(root, "core/src")?;
    Generator::new(&sources).run()
}

struct Generator<'a> {
    sources: &'a Sources,
    /// Definitions a request can carry.
    input: BTreeSet<usize>,
    /// Names imported from `kubernetes.d.ts`.
    imports: BTreeSet<&'static str>,
    /// Definitions in the order they were first reached from the roots.
    visited: Vec<usize>,
}

/// What a path in a field's type names.
enum Named {
    Def(usize),
    Ts(String),
}

impl<'a> Generator<'a> {
    fn new(sources: &'a Sources) -> Self {
        Self {
            sources,
            input: BTreeSet::new(),
            imports: BTreeSet::new(),
            visited: Vec::new(),
        }
    }

    fn root(&self, module: &str, name: &str) -> Result<usize, String> {
        let module: Vec<&str> = module.split("::").collect();
        self.sources
            .defs
            .iter()
            .position(|d| d.name == name && d.module == module)
            .ok_or_else(|| format!("root type {}::{name} not found", module.join("::")))
    }

    /// The definitions reached from `roots`.
    fn closure(&mut self, roots: &[(&str, &str)]) -> Result<BTreeSet<usize>, String> {
        let mut seen = BTreeSet::new();
        let mut queue: VecDeque<usize> = roots
            .iter()
            .map(|(m, n)| self.root(m, n))
            .collect::<Result<_, _>>()?;
        while let Some(d) = queue.pop_front() {
            if seen.insert(d) {
                self.visited.push(d);
                let mut refs = Vec::new();
                self.declaration(d, &mut refs)?;
                queue.extend(refs);
            }
        }
        Ok(seen)
    }

    fn run(mut self) -> Result<String, String> {
        self.input = self.closure(INPUT_ROOTS)?;
        self.visited.clear();
        // The request, then the plan, then the rest.
        let (first, rest) = INPUT_ROOTS.split_at(1);
        let roots: Vec<(&str, &str)> = first
            .iter()
            .chain(OUTPUT_ROOTS)
            .chain(rest)
            .copied()
            .collect();
        self.closure(&roots)?;
        // Files in the order the roots reach them (the request first), each file's
        // types in source order.
        let mut file_rank: BTreeMap<usize, usize> = BTreeMap::new();
        for &d in &self.visited {
            let file = self.def(d)?.file;
            let next = file_rank.len();
            file_rank.entry(file).or_insert(next);
        }
        let mut order = self.visited.clone();
        order.sort_by_key(|&d| {
            self.def(d)
                .map(|def| (file_rank.get(&def.file).copied(), def.position))
                .ok()
        });

        let mut names = BTreeMap::new();
        for &d in &order {
            let name = self.ts_name(d)?;
            if let Some(other) = names.insert(name.clone(), d) {
                return Err(format!(
                    "two types are named {name} ({} and {}): add one to RENAMES",
                    self.qualified(other),
                    self.qualified(d)
                ));
            }
        }

        let mut body = String::new();
        let mut file = usize::MAX;
        for &d in &order {
            let def = self.def(d)?;
            if def.file != file {
                file = def.file;
                let path = self.sources.files.get(file).map_or("", |f| f.path.as_str());
                let _ = write!(body, "// {path}\n\n");
            }
            let decl = self.declaration(d, &mut Vec::new())?;
            body.push_str(&decl);
        }

        let mut out = String::from(
            "// The plan contract's types, generated from the serde types in core/src by\n\
             // typegen/ (podplan-typegen). Do not edit: run `scripts/gen-types`.\n\
             // Kubernetes objects and the JSON helpers are hand-written in ./kubernetes.d.ts.\n",
        );
        if !self.imports.is_empty() {
            let list: Vec<&str> = self.imports.iter().copied().collect();
            let _ = writeln!(
                out,
                "\nimport type {{ {} }} from \"./kubernetes.js\";",
                list.join(", ")
            );
        }
        out.push('\n');
        out.push_str(body.trim_end());
        out.push('\n');
        Ok(out)
    }

    fn def(&self, d: usize) -> Result<&'a Def, String> {
        self.sources
            .defs
            .get(d)
            .ok_or_else(|| format!("no definition {d}"))
    }

    fn qualified(&self, d: usize) -> String {
        self.def(d)
            .map(|def| format!("{}::{}", def.module.join("::"), def.name))
            .unwrap_or_default()
    }

    fn ts_name(&self, d: usize) -> Result<String, String> {
        let def = self.def(d)?;
        let module = def.module.join("::");
        Ok(RENAMES
            .iter()
            .find(|(m, n, _)| *m == module && *n == def.name)
            .map_or_else(|| def.name.clone(), |(_, _, ts)| (*ts).to_owned()))
    }

    /// The declaration of definition `d`; the definitions it refers to go to `refs`.
    fn declaration(&mut self, d: usize, refs: &mut Vec<usize>) -> Result<String, String> {
        let def = self.def(d)?;
        let name = self.ts_name(d)?;
        let module = def.module.join("::");
        let input = self.input.contains(&d);
        let at = |e: String| format!("{module}::{}: {e}", def.name);
        if let Some((_, _, ts)) = CUSTOM
            .iter()
            .find(|(m, n, _)| *m == module && *n == def.name)
        {
            let attrs = match &def.kind {
                DefKind::Struct(s) => s.attrs.as_slice(),
                DefKind::Enum(e) => e.attrs.as_slice(),
                DefKind::Alias(a) => a.attrs.as_slice(),
                DefKind::CriEnum(attrs, _) => attrs.as_slice(),
            };
            return Ok(format!(
                "{}export type {name} = {ts};\n\n",
                jsdoc(&docs(attrs), "")
            ));
        }
        match &def.kind {
            DefKind::CriEnum(attrs, values) => {
                let mut doc = docs(attrs);
                doc.push("Proto3 JSON: the value name (readers also accept its number).".into());
                let members: Vec<String> = values
                    .iter()
                    .map(|(vattrs, text)| member(&docs(vattrs), &quote(text)))
                    .collect();
                Ok(format!(
                    "{}export type {name} =\n{};\n\n",
                    jsdoc(&doc, ""),
                    members.concat().trim_end()
                ))
            }
            DefKind::Alias(a) => {
                if !a.generics.params.is_empty() {
                    return Err(at("generic aliases are not supported".into()));
                }
                let ty = self.ty(&a.ty, def.file, input, refs).map_err(at)?;
                Ok(format!(
                    "{}export type {name} = {ty};\n\n",
                    jsdoc(&docs(&a.attrs), "")
                ))
            }
            DefKind::Struct(s) => {
                if !derives_serde(&s.attrs) {
                    return Err(at("no serde derive and not in CUSTOM".into()));
                }
                if !s.generics.params.is_empty() {
                    return Err(at("generic types are not supported".into()));
                }
                let attrs = serde_attrs(&s.attrs).map_err(at)?;
                let doc = jsdoc(&docs(&s.attrs), "");
                match &s.fields {
                    syn::Fields::Named(fields) if !attrs.transparent => {
                        let (members, flattened) = self
                            .fields(&fields.named, &attrs, None, def.file, input, refs, "  ")
                            .map_err(at)?;
                        if flattened.is_empty() {
                            Ok(format!("{doc}export interface {name} {{\n{members}}}\n\n"))
                        } else {
                            Ok(format!(
                                "{doc}export type {name} = {{\n{members}}} & {};\n\n",
                                flattened.join(" & ")
                            ))
                        }
                    }
                    fields => {
                        let tys: Vec<&syn::Type> = fields.iter().map(|f| &f.ty).collect();
                        let ty = match tys.as_slice() {
                            [] => "null".to_owned(),
                            [one] => self.ty(one, def.file, input, refs).map_err(at)?,
                            many => {
                                let parts: Vec<String> = many
                                    .iter()
                                    .map(|t| self.ty(t, def.file, input, refs))
                                    .collect::<Result<_, _>>()
                                    .map_err(at)?;
                                format!("[{}]", parts.join(", "))
                            }
                        };
                        Ok(format!("{doc}export type {name} = {ty};\n\n"))
                    }
                }
            }
            DefKind::Enum(e) => {
                if !derives_serde(&e.attrs) {
                    return Err(at("no serde derive and not in CUSTOM".into()));
                }
                if !e.generics.params.is_empty() {
                    return Err(at("generic types are not supported".into()));
                }
                let attrs = serde_attrs(&e.attrs).map_err(at)?;
                let mut members = Vec::new();
                for v in &e.variants {
                    let vattrs = serde_attrs(&v.attrs).map_err(at)?;
                    if vattrs.skip {
                        continue;
                    }
                    let tag_value = quote(&match &vattrs.rename {
                        Some(r) => r.clone(),
                        None => rename_variant(&v.ident.to_string(), attrs.rename_all.as_deref())
                            .map_err(at)?,
                    });
                    let rule = vattrs
                        .rename_all
                        .as_deref()
                        .or(attrs.rename_all_fields.as_deref());
                    let data = match &v.fields {
                        syn::Fields::Unit => None,
                        syn::Fields::Named(f) => {
                            let va = SerdeAttrs {
                                rename_all: rule.map(str::to_owned),
                                ..SerdeAttrs::default()
                            };
                            let internal = match (&attrs.tag, &attrs.content, attrs.untagged) {
                                (Some(tag), None, false) => {
                                    Some((tag.as_str(), tag_value.as_str()))
                                }
                                _ => None,
                            };
                            let (fields, flattened) = self
                                .fields(&f.named, &va, internal, def.file, input, refs, "    ")
                                .map_err(at)?;
                            Some(Data::Fields(fields, flattened))
                        }
                        syn::Fields::Unnamed(f) => {
                            let parts: Vec<String> = f
                                .unnamed
                                .iter()
                                .map(|field| self.ty(&field.ty, def.file, input, refs))
                                .collect::<Result<_, _>>()
                                .map_err(at)?;
                            Some(Data::Value(match parts.as_slice() {
                                [one] => one.clone(),
                                _ => format!("[{}]", parts.join(", ")),
                            }))
                        }
                    };
                    let text = variant(&attrs, &tag_value, data).map_err(at)?;
                    members.push(member(&docs(&v.attrs), &text));
                }
                Ok(format!(
                    "{}export type {name} =\n{};\n\n",
                    jsdoc(&docs(&e.attrs), ""),
                    members.concat().trim_end()
                ))
            }
        }
    }

    /// The members of an object type, and the types flattened into it.
    #[expect(
        clippy::too_many_arguments,
        reason = "one call site per kind of field list"
    )]
    fn fields(
        &mut self,
        fields: &syn::punctuated::Punctuated<syn::Field, syn::Token![,]>,
        container: &SerdeAttrs,
        tag: Option<(&str, &str)>,
        file: usize,
        input: bool,
        refs: &mut Vec<usize>,
        indent: &str,
    ) -> Result<(String, Vec<String>), String> {
        let mut out = String::new();
        let mut flattened = Vec::new();
        if let Some((tag, value)) = tag {
            let _ = writeln!(out, "{indent}{}: {value};", key(tag));
        }
        for field in fields {
            let attrs = serde_attrs(&field.attrs)?;
            if attrs.skip {
                continue;
            }
            if let Some(custom) = attrs
                .custom
                .as_ref()
                .filter(|c| !SAME_SHAPE_WITH.contains(&c.as_str()))
            {
                return Err(format!(
                    "field {:?} has `{custom}`: its JSON shape is not visible to the generator",
                    field.ident.as_ref().map(ToString::to_string)
                ));
            }
            let ident = field
                .ident
                .as_ref()
                .map(|i| i.to_string().trim_start_matches("r#").to_owned())
                .unwrap_or_default();
            if attrs.flatten {
                flattened.push(self.ty(&field.ty, file, input, refs)?);
                continue;
            }
            let name = match &attrs.rename {
                Some(r) => r.clone(),
                None => rename_field(&ident, container.rename_all.as_deref())?,
            };
            let option = option_inner(&field.ty);
            let optional = if input {
                attrs.default || container.default || option.is_some() || attrs.skip_serializing_if
            } else {
                attrs.skip_serializing_if
            };
            let ty = match option {
                Some(inner) => {
                    let inner = self.ty(inner, file, input, refs)?;
                    if input || !attrs.skip_serializing_if {
                        nullable(&inner)
                    } else {
                        inner
                    }
                }
                None => self.ty(&field.ty, file, input, refs)?,
            };
            let _ = writeln!(
                out,
                "{}{indent}{}{}: {ty};",
                jsdoc(&docs(&field.attrs), indent),
                key(&name),
                if optional { "?" } else { "" }
            );
        }
        Ok((out, flattened))
    }

    /// The TypeScript type of a Rust type written in `file`.
    fn ty(
        &mut self,
        ty: &syn::Type,
        file: usize,
        input: bool,
        refs: &mut Vec<usize>,
    ) -> Result<String, String> {
        match ty {
            syn::Type::Reference(r) => self.ty(&r.elem, file, input, refs),
            syn::Type::Paren(p) => self.ty(&p.elem, file, input, refs),
            syn::Type::Group(g) => self.ty(&g.elem, file, input, refs),
            syn::Type::Array(a) => Ok(format!(
                "{}[]",
                paren(&self.ty(&a.elem, file, input, refs)?)
            )),
            syn::Type::Slice(s) => Ok(format!(
                "{}[]",
                paren(&self.ty(&s.elem, file, input, refs)?)
            )),
            syn::Type::Tuple(t) if t.elems.is_empty() => Ok("null".into()),
            syn::Type::Tuple(t) => {
                let parts: Vec<String> = t
                    .elems
                    .iter()
                    .map(|e| self.ty(e, file, input, refs))
                    .collect::<Result<_, _>>()?;
                Ok(format!("[{}]", parts.join(", ")))
            }
            syn::Type::Path(p) if p.qself.is_none() => self.path(&p.path, file, input, refs),
            other => Err(format!(
                "unsupported type `{}`",
                quote::ToTokens::to_token_stream(other)
            )),
        }
    }

    fn path(
        &mut self,
        path: &syn::Path,
        file: usize,
        input: bool,
        refs: &mut Vec<usize>,
    ) -> Result<String, String> {
        let Some(last) = path.segments.last() else {
            return Err("empty path".into());
        };
        let name = last.ident.to_string();
        let args: Vec<&syn::Type> = match &last.arguments {
            syn::PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut arg = |i: usize, this: &mut Self| -> Result<String, String> {
            let t = args
                .get(i)
                .ok_or_else(|| format!("`{name}` without its type argument"))?;
            this.ty(t, file, input, refs)
        };
        let single = path.segments.len() == 1;
        let std_path = single
            || path
                .segments
                .first()
                .is_some_and(|s| s.ident == "std" || s.ident == "alloc" || s.ident == "core");
        if std_path {
            match name.as_str() {
                "String" | "str" | "char" => return Ok("string".into()),
                "bool" => return Ok("boolean".into()),
                "u8" | "u16" | "u32" | "u64" | "u128" | "usize" | "i8" | "i16" | "i32" | "i64"
                | "i128" | "isize" | "f32" | "f64" => return Ok("number".into()),
                "Option" => return Ok(nullable(&arg(0, self)?)),
                "Vec" | "VecDeque" | "BTreeSet" | "HashSet" => {
                    return Ok(format!("{}[]", paren(&arg(0, self)?)))
                }
                "BTreeMap" | "HashMap" => {
                    return Ok(format!("{{ [key: string]: {} }}", arg(1, self)?))
                }
                "Box" | "Rc" | "Arc" => return arg(0, self),
                "Cow" => return arg(0, self),
                _ => {}
            }
        }
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match self.resolve(&segments, file)? {
            Named::Def(d) => {
                refs.push(d);
                self.ts_name(d)
            }
            Named::Ts(ts) => Ok(ts),
        }
    }

    /// What `segments` (as written in `file`) names.
    fn resolve(&mut self, segments: &[String], file: usize) -> Result<Named, String> {
        let (first, name) = match (segments.first(), segments.last()) {
            (Some(f), Some(n)) => (f, n),
            _ => return Err("empty path".into()),
        };
        let source = self
            .sources
            .files
            .get(file)
            .ok_or_else(|| format!("no file {file}"))?;
        let module = source.module.clone();
        // The full path: through the file's `use` names, else as written.
        let full: Vec<String> = match source.uses.get(first) {
            Some(used) => used
                .iter()
                .cloned()
                .chain(segments.iter().skip(1).cloned())
                .collect(),
            None if segments.len() == 1 => {
                // Not imported: defined in this module (or nowhere).
                let mut p = vec!["crate".to_owned()];
                p.extend(module.iter().cloned());
                p.push(name.clone());
                p
            }
            None => source::absolute(segments, &module),
        };
        let real_name = full.last().cloned().unwrap_or_else(|| name.clone());
        if full.first().is_some_and(|f| f != "crate") {
            let krate = full.first().cloned().unwrap_or_default();
            return EXTERNAL
                .iter()
                .find(|(c, n, _)| *c == krate && *n == real_name)
                .map(|(_, _, ts)| {
                    self.imports.insert(ts);
                    Named::Ts((*ts).to_owned())
                })
                .ok_or_else(|| {
                    format!(
                        "`{}` is not a core type and not in EXTERNAL",
                        full.join("::")
                    )
                });
        }
        let wanted: Vec<String> = full
            .get(1..full.len().saturating_sub(1))
            .unwrap_or_default()
            .to_vec();
        let candidates: Vec<usize> = (0..self.sources.defs.len())
            .filter(|&d| {
                self.sources
                    .defs
                    .get(d)
                    .is_some_and(|def| def.name == real_name)
            })
            .collect();
        let pick = |pred: &dyn Fn(&Def) -> bool| -> Vec<usize> {
            candidates
                .iter()
                .copied()
                .filter(|&d| self.sources.defs.get(d).is_some_and(pred))
                .collect()
        };
        let exact = pick(&|def| def.module == wanted);
        let below = pick(&|def| def.module.starts_with(&wanted));
        match (exact.as_slice(), below.as_slice(), candidates.as_slice()) {
            ([d], _, _) | ([], [d], _) | ([], [], [d]) => Ok(Named::Def(*d)),
            _ => Err(format!(
                "`{}` names {} core types",
                full.join("::"),
                candidates.len()
            )),
        }
    }
}

/// A variant's data.
enum Data {
    /// A struct variant's members and flattened types.
    Fields(String, Vec<String>),
    /// A newtype or tuple variant's type.
    Value(String),
}

/// One member of an enum's union, by the enum's representation.
fn variant(attrs: &SerdeAttrs, tag_value: &str, data: Option<Data>) -> Result<String, String> {
    let object = |fields: &str, flattened: &[String]| {
        let body = format!("{{\n{fields}  }}");
        if flattened.is_empty() {
            body
        } else {
            format!("{body} & {}", flattened.join(" & "))
        }
    };
    Ok(match (&attrs.tag, &attrs.content, attrs.untagged, data) {
        (_, _, true, None) => "null".into(),
        (_, _, true, Some(Data::Value(v))) => v,
        (_, _, true, Some(Data::Fields(f, fl))) => object(&f, &fl),
        (Some(tag), None, false, None) => format!("{{ {}: {tag_value} }}", key(tag)),
        (Some(_), None, false, Some(Data::Fields(f, fl))) => object(&f, &fl),
        (Some(tag), None, false, Some(Data::Value(v))) => {
            format!("({{ {}: {tag_value} }} & {v})", key(tag))
        }
        (Some(tag), Some(_), false, None) => format!("{{ {}: {tag_value} }}", key(tag)),
        (Some(tag), Some(content), false, Some(Data::Value(v))) => {
            format!("{{ {}: {tag_value}; {}: {v} }}", key(tag), key(content))
        }
        (Some(tag), Some(content), false, Some(Data::Fields(f, fl))) => format!(
            "{{ {}: {tag_value}; {}: {} }}",
            key(tag),
            key(content),
            object(&f, &fl)
        ),
        (None, _, false, None) => tag_value.to_owned(),
        (None, _, false, Some(Data::Value(v))) => format!("{{ {tag_value}: {v} }}"),
        (None, _, false, Some(Data::Fields(f, fl))) => {
            format!("{{ {tag_value}: {} }}", object(&f, &fl))
        }
    })
}

/// The inner type of an `Option<T>`.
fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Option" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// A JSON string literal in TypeScript.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// An object key: bare when it is an identifier, else quoted.
fn key(name: &str) -> String {
    let ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    if ident {
        name.to_owned()
    } else {
        quote(name)
    }
}

/// `T | null` (`Option<Option<T>>` reads as one `null`).
fn nullable(ty: &str) -> String {
    if ty.ends_with(" | null") {
        ty.to_owned()
    } else {
        format!("{} | null", paren(ty))
    }
}

/// Parenthesises a union before `[]` or `| null`.
fn paren(ty: &str) -> String {
    if ty.contains(" | ") && !ty.starts_with('{') {
        format!("({ty})")
    } else {
        ty.to_owned()
    }
}

/// `line` without the targets of rustdoc links (`[`x`](path)` reads as `[`x`]`).
fn without_link_targets(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("`](") {
        out.push_str(&rest[..at + 2]);
        let after = &rest[at + 3..];
        match after.find(')') {
            Some(end) => rest = &after[end + 1..],
            None => {
                rest = after;
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A JSDoc comment from doc lines, at `indent`.
fn jsdoc(lines: &[String], indent: &str) -> String {
    // Rustdoc links (`[`crate::api`]`) read as code in JSDoc.
    let lines: Vec<String> = lines
        .iter()
        .map(|l| {
            without_link_targets(l)
                .replace("*/", "*\\/")
                .replace("[`", "`")
                .replace("`]", "`")
                .trim_end()
                .to_owned()
        })
        .collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => format!("{indent}/** {one} */\n"),
        many => {
            let mut s = format!("{indent}/**\n");
            for l in many {
                if l.is_empty() {
                    let _ = writeln!(s, "{indent} *");
                } else {
                    let _ = writeln!(s, "{indent} * {l}");
                }
            }
            let _ = writeln!(s, "{indent} */");
            s
        }
    }
}

/// One member of a union, with its doc comment: `  /** doc */\n  | text\n`.
fn member(doc: &[String], text: &str) -> String {
    format!("{}  | {text}\n", jsdoc(doc, "  "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(tag: Option<&str>, content: Option<&str>, untagged: bool) -> SerdeAttrs {
        SerdeAttrs {
            tag: tag.map(str::to_owned),
            content: content.map(str::to_owned),
            untagged,
            ..SerdeAttrs::default()
        }
    }

    #[test]
    fn enum_representations_as_serde_writes_them() {
        let value = || Some(Data::Value("number".into()));
        // Externally tagged (serde's default).
        let ext = attrs(None, None, false);
        assert_eq!(variant(&ext, "\"a\"", None).unwrap(), "\"a\"");
        assert_eq!(
            variant(&ext, "\"a\"", value()).unwrap(),
            "{ \"a\": number }"
        );
        // Internally tagged: the tag beside the fields (written by `fields`).
        let int = attrs(Some("type"), None, false);
        assert_eq!(variant(&int, "\"a\"", None).unwrap(), "{ type: \"a\" }");
        assert_eq!(
            variant(&int, "\"a\"", value()).unwrap(),
            "({ type: \"a\" } & number)"
        );
        // Adjacently tagged.
        let adj = attrs(Some("t"), Some("c"), false);
        assert_eq!(
            variant(&adj, "\"a\"", value()).unwrap(),
            "{ t: \"a\"; c: number }"
        );
        // Untagged: the data alone.
        let unt = attrs(None, None, true);
        assert_eq!(variant(&unt, "\"a\"", value()).unwrap(), "number");
        assert_eq!(variant(&unt, "\"a\"", None).unwrap(), "null");
    }

    #[test]
    fn keys_nulls_and_docs() {
        assert_eq!(key("hostIPs"), "hostIPs");
        assert_eq!(key("a-b"), "\"a-b\"");
        assert_eq!(nullable("string"), "string | null");
        assert_eq!(nullable("boolean | null"), "boolean | null");
        assert_eq!(nullable("\"a\" | \"b\""), "(\"a\" | \"b\") | null");
        assert_eq!(
            jsdoc(&["See [`crate::api`] */".into()], ""),
            "/** See `crate::api` *\\/ */\n"
        );
        assert_eq!(
            jsdoc(
                &["Kept in [`HookControls`](super::HookControls), not here.".into()],
                ""
            ),
            "/** Kept in `HookControls`, not here. */\n"
        );
    }
}
