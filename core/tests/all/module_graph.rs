//! The rule "no import cycles in `core/src`", checked.
//!
//! Reads every file of `core/src`, resolves the `crate::`, `super::` and `self::` paths
//! it names (in `use` lines, with their `{...}` groups, and inline in code) plus paths
//! that start with a child module, to the files that define them (an indented
//! `use super::` is read as inside an inline module), and fails
//! listing every strongly connected component of more than one file. Comments and the
//! `#[cfg(test)]` tail of a file (its unit tests) are not read: tests may use anything.
//!
//! A module's own file is `lib.rs`, `foo/mod.rs` or `foo.rs` beside `foo/` (both layouts
//! alike): the files in `foo/` are its children.
//!
//! The same rule for modules, at every level of nesting: collapsing each file to the
//! direct child of a directory module that holds it (for the crate root: `plan`, `cri`,
//! `config`, ...; for `config`: `env`, `node`, ...), the imports among those children form
//! no cycle either. A failure lists each cycle with the `file:line` of one import per
//! arrow: the import to move. [`ALLOWED`] names the module edges still allowed to close a
//! cycle, each with its reason; it may only shrink (an entry no longer needed fails too).
//!
//! `cargo test -p podplan-core --test all -- module_graph:: --nocapture` prints both graphs.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// Module path (`["config", "env"]`) of each source file, and back.
///
/// A module's own file is `lib.rs` (the crate root), `foo/mod.rs`, or `foo.rs` beside a
/// `foo/` directory (the 2018 layout): both forms of `foo` are module `["foo"]`, and the
/// files in `foo/` are its children.
struct Tree {
    files: BTreeMap<Vec<String>, String>,
}

/// The text of every `.rs` file under `root`, by its path relative to `root` (`/`-separated).
fn read_sources(root: &Path) -> BTreeMap<String, String> {
    let mut texts = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(root)
                    .map(PathBuf::from)
                    .unwrap_or_default();
                let rel_str = rel.to_string_lossy().replace('\\', "/");
                texts.insert(rel_str, fs::read_to_string(&path).unwrap_or_default());
            }
        }
    }
    texts
}

impl Tree {
    /// The tree of the files named (paths relative to the crate's `src`).
    fn new<'a>(files: impl IntoIterator<Item = &'a String>) -> Self {
        let files = files
            .into_iter()
            .map(|rel| {
                let mut segs: Vec<String> = rel
                    .trim_end_matches(".rs")
                    .split('/')
                    .map(str::to_string)
                    .collect();
                if segs.last().is_some_and(|s| s == "mod" || s == "lib") {
                    segs.pop();
                }
                (segs, rel.clone())
            })
            .collect();
        Self { files }
    }

    /// The modules that are files directly under module `segs` (its file's `mod` items
    /// that are not inline).
    fn children<'a>(&'a self, segs: &'a [String]) -> impl Iterator<Item = &'a Vec<String>> {
        self.files
            .keys()
            .filter(move |k| k.len() == segs.len() + 1 && k.get(..segs.len()) == Some(segs))
    }

    /// The file defining the longest prefix of `path` that is a module.
    fn resolve(&self, path: &[String]) -> Option<&String> {
        (0..=path.len())
            .rev()
            .find_map(|n| self.files.get(path.get(..n).unwrap_or_default()))
    }
}

/// The code of a file without comments and without its `#[cfg(test)]` tail.
fn code_of(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("#[cfg(test)]") && !line.starts_with(' ') {
            break;
        }
        // A comment line is kept as an empty line, so line numbers stay the file's.
        if !t.starts_with("//") {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// Expands a `use` tree (`a::{b, c::{d, e}}`) into full paths.
fn expand_use(tree: &str) -> Vec<Vec<String>> {
    fn go(prefix: &[String], s: &str, out: &mut Vec<Vec<String>>) {
        let s = s.trim();
        if let Some(open) = s.find('{') {
            let head: Vec<String> = s
                .get(..open)
                .unwrap_or_default()
                .split("::")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect();
            let inner = s
                .get(open + 1..s.rfind('}').unwrap_or(s.len()))
                .unwrap_or_default();
            let mut base = prefix.to_vec();
            base.extend(head);
            let mut depth = 0;
            let mut start = 0;
            for (i, ch) in inner.char_indices() {
                match ch {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        go(&base, inner.get(start..i).unwrap_or_default(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            go(&base, inner.get(start..).unwrap_or_default(), out);
        } else {
            let s = s.split(" as ").next().unwrap_or_default();
            let mut p = prefix.to_vec();
            p.extend(
                s.split("::")
                    .map(str::trim)
                    .filter(|x| !x.is_empty() && *x != "*" && *x != "self")
                    .map(str::to_string),
            );
            out.push(p);
        }
    }
    let mut out = Vec::new();
    go(&[], tree, &mut out);
    out
}

/// Turns a path as written in module `here` into an absolute module path.
fn absolute(here: &[String], path: &[String], tree: &Tree) -> Vec<String> {
    let mut base: Vec<String> = here.to_vec();
    let mut rest = path;
    match path.first().map(String::as_str) {
        Some("crate") => {
            base.clear();
            rest = path.get(1..).unwrap_or_default();
        }
        Some("self") => rest = path.get(1..).unwrap_or_default(),
        Some("super") => {
            while rest.first().is_some_and(|s| s == "super") {
                base.pop();
                rest = rest.get(1..).unwrap_or_default();
            }
        }
        _ => {
            // A relative `use` path: a child module of this one (only a module's own
            // file, `lib.rs`, `foo/mod.rs` or `foo.rs` beside `foo/`, has children as
            // files), otherwise an external crate.
            let mut child = here.to_vec();
            child.extend(path.first().cloned());
            if !tree.files.contains_key(&child) {
                return Vec::new();
            }
        }
    }
    base.extend(rest.iter().cloned());
    base
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The line (1-based) of byte `pos` of `code`.
fn line_of(code: &str, pos: usize) -> usize {
    code.get(..pos).map_or(0, |b| b.matches('\n').count()) + 1
}

/// Every file each file imports, with the line of its first import of it.
type Graph = BTreeMap<String, BTreeMap<String, usize>>;

/// Every file each file imports.
fn edges(tree: &Tree, texts: &BTreeMap<String, String>) -> Graph {
    let mut graph = BTreeMap::new();
    for (segs, file) in &tree.files {
        let code = code_of(texts.get(file).map(String::as_str).unwrap_or_default());
        let mut paths: Vec<(Vec<String>, usize)> = Vec::new();
        // `use` statements (possibly over several lines).
        let mut rest = code.as_str();
        while let Some(pos) = rest.find("use ") {
            let before = rest.get(..pos).and_then(|b| b.chars().last());
            let after = rest.get(pos + 4..).unwrap_or_default();
            rest = after;
            if before.is_some_and(is_ident) {
                continue;
            }
            let end = after.find(';').unwrap_or(after.len());
            // An indented `use` is inside an inline module (`mod x { use super::...; }`):
            // its `super` is this file.
            let line_start = code.len() - after.len() - 4;
            let line_start = code
                .get(..line_start)
                .and_then(|b| b.rfind('\n'))
                .map_or(0, |n| n + 1);
            let indented = code.get(line_start..).is_some_and(|l| l.starts_with(' '));
            let line = line_of(&code, line_start);
            for mut path in expand_use(after.get(..end).unwrap_or_default()) {
                if indented && path.first().is_some_and(|s| s == "super") {
                    if let Some(first) = path.first_mut() {
                        *first = "self".to_string();
                    }
                }
                paths.push((path, line));
            }
        }
        // Inline paths: `crate::a::b`, `super::a`.
        for anchor in ["crate::", "super::"] {
            let mut from = 0;
            while let Some(pos) = code.get(from..).and_then(|s| s.find(anchor)) {
                let start = from + pos;
                from = start + anchor.len();
                if code
                    .get(..start)
                    .and_then(|b| b.chars().last())
                    .is_some_and(|c| is_ident(c) || c == ':')
                {
                    continue;
                }
                let tail = code.get(start..).unwrap_or_default();
                let end = tail
                    .find(|c: char| !(is_ident(c) || c == ':'))
                    .unwrap_or(tail.len());
                let path: Vec<String> = tail
                    .get(..end)
                    .unwrap_or_default()
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                // `crate::{a, b}` of a `use` line was read above.
                if path.len() > 1 {
                    paths.push((path, line_of(&code, start)));
                }
            }
        }
        // Inline paths through a child module (`init::compute(...)` in `decision/mod.rs`,
        // `runtime::Runtime` in `sim.rs`).
        for child in tree.children(segs) {
            let Some(name) = child.last() else { continue };
            let needle = format!("{name}::");
            let mut from = 0;
            while let Some(pos) = code.get(from..).and_then(|s| s.find(&needle)) {
                let start = from + pos;
                from = start + needle.len();
                let before = code.get(..start).and_then(|b| b.chars().last());
                if !before.is_some_and(|c| is_ident(c) || c == ':') {
                    paths.push((
                        vec!["self".to_string(), name.clone()],
                        line_of(&code, start),
                    ));
                }
            }
        }
        let targets: &mut BTreeMap<String, usize> = graph.entry(file.clone()).or_default();
        for (p, line) in paths {
            let abs = absolute(segs, &p, tree);
            if abs.is_empty() && p.first().is_none_or(|s| s != "crate") {
                continue;
            }
            if let Some(target) = tree.resolve(&abs) {
                if target != file {
                    let first = targets.entry(target.clone()).or_insert(line);
                    *first = (*first).min(line);
                }
            }
        }
    }
    graph
}

/// Strongly connected components of more than one file (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        s.index.insert(v, s.next);
        s.low.insert(v, s.next);
        s.next += 1;
        s.stack.push(v);
        s.on_stack.insert(v);
        let graph = s.graph;
        for w in graph.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let lw = s.low.get(w).copied().unwrap_or(usize::MAX);
                let lv = s.low.get(v).copied().unwrap_or(usize::MAX);
                s.low.insert(v, lv.min(lw));
            } else if s.on_stack.contains(w) {
                let iw = s.index.get(w).copied().unwrap_or(usize::MAX);
                let lv = s.low.get(v).copied().unwrap_or(usize::MAX);
                s.low.insert(v, lv.min(iw));
            }
        }
        if s.low.get(v) == s.index.get(v) {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.out.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.out
}

fn graph_of_core() -> (Tree, Graph) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let texts = read_sources(&root);
    let tree = Tree::new(texts.keys());
    let graph = edges(&tree, &texts);
    (tree, graph)
}

/// The graph without its lines.
fn sets(graph: &Graph) -> BTreeMap<String, BTreeSet<String>> {
    graph
        .iter()
        .map(|(f, t)| (f.clone(), t.keys().cloned().collect()))
        .collect()
}

/// One module-level import: the file and line that make it.
type Site = (String, usize);

/// The import graph among the direct children of each directory module (`[]` is the
/// crate root): module `a` imports sibling `b` when a file under `a` imports a file under
/// `b`. Each file import counts once, at the level of the two files' deepest common
/// module; a module's own file (`mod.rs`, or `foo.rs` beside `foo/`) using its children,
/// or they it, is not a module edge (the file-level check covers it). Each edge keeps its
/// first site.
type Levels = BTreeMap<Vec<String>, BTreeMap<String, BTreeMap<String, Site>>>;

fn module_levels(tree: &Tree, graph: &Graph) -> Levels {
    let segs_of: BTreeMap<&String, &Vec<String>> =
        tree.files.iter().map(|(segs, f)| (f, segs)).collect();
    let mut levels = Levels::new();
    for (from, targets) in graph {
        let Some(a) = segs_of.get(from) else { continue };
        for (to, line) in targets {
            let Some(b) = segs_of.get(to) else { continue };
            let k = a.iter().zip(b.iter()).take_while(|(x, y)| x == y).count();
            let (Some(ma), Some(mb)) = (a.get(k), b.get(k)) else {
                continue;
            };
            let site = (from.clone(), *line);
            let first = levels
                .entry(a.get(..k).unwrap_or_default().to_vec())
                .or_default()
                .entry(ma.clone())
                .or_default()
                .entry(mb.clone())
                .or_insert_with(|| site.clone());
            if site < *first {
                *first = site;
            }
        }
    }
    levels
}

/// Module edges that still close a cycle, each with why it is still there: the list
/// may only shrink. `(level, from, to, reason)`; level `""` is the crate root, `"a/b"`
/// the children of `a::b`.
const ALLOWED: &[(&str, &str, &str, &str)] = &[];

fn level_name(level: &[String]) -> String {
    if level.is_empty() {
        "crate".to_string()
    } else {
        format!("crate::{}", level.join("::"))
    }
}

/// Every cycle of each strongly connected component of the module graph at each level:
/// for each edge inside a component, the shortest cycle through it, one site per arrow.
fn module_cycles(levels: &Levels) -> Vec<String> {
    let mut report = Vec::new();
    for (level, graph) in levels {
        let plain: BTreeMap<String, BTreeSet<String>> = graph
            .iter()
            .map(|(m, t)| (m.clone(), t.keys().cloned().collect()))
            .collect();
        for comp in cycles(&plain) {
            let members: BTreeSet<&String> = comp.iter().collect();
            report.push(format!(
                "{}: {} modules import each other: {}",
                level_name(level),
                comp.len(),
                comp.join(", ")
            ));
            let mut seen = BTreeSet::new();
            for u in &comp {
                for v in plain.get(u).into_iter().flatten() {
                    if !members.contains(v) {
                        continue;
                    }
                    // Shortest path v -> ... -> u inside the component (BFS).
                    let mut prev: BTreeMap<&String, &String> = BTreeMap::new();
                    let mut queue = std::collections::VecDeque::from([v]);
                    let mut reached = v == u;
                    while let Some(x) = queue.pop_front() {
                        if reached {
                            break;
                        }
                        for y in plain.get(x).into_iter().flatten() {
                            if members.contains(y) && y != v && !prev.contains_key(y) {
                                prev.insert(y, x);
                                if y == u {
                                    reached = true;
                                    break;
                                }
                                queue.push_back(y);
                            }
                        }
                    }
                    let mut path = vec![u];
                    let mut x = u;
                    while x != v {
                        let Some(p) = prev.get(x) else { break };
                        path.push(p);
                        x = p;
                    }
                    path.reverse(); // v ... u
                    let mut cyc: Vec<&String> = vec![u];
                    cyc.extend(path.iter().copied().filter(|m| *m != u));
                    cyc.push(u);
                    // The same cycle from another edge: one rotation.
                    let body: Vec<&String> = cyc.iter().skip(1).copied().collect();
                    let start = body
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, m)| **m)
                        .map_or(0, |(i, _)| i);
                    let mut key = body.clone();
                    key.rotate_left(start);
                    if !seen.insert(key) {
                        continue;
                    }
                    let mut line = format!("  {u}");
                    for w in cyc.windows(2) {
                        let (Some(a), Some(b)) = (w.first(), w.get(1)) else {
                            continue;
                        };
                        let site = graph.get(*a).and_then(|t| t.get(*b));
                        let at = site.map_or(String::new(), |(f, l)| format!(" ({f}:{l})"));
                        line.push_str(&format!(" -> {b}{at}"));
                    }
                    report.push(line);
                }
            }
        }
    }
    report
}

#[test]
fn core_src_has_no_import_cycle() {
    let (_, graph) = graph_of_core();
    for (file, targets) in &graph {
        let list: Vec<&str> = targets.keys().map(String::as_str).collect();
        println!("{file} -> {}", list.join(", "));
    }
    let found = cycles(&sets(&graph));
    let report: Vec<String> = found
        .iter()
        .map(|c| format!("cycle of {} files: {}", c.len(), c.join(", ")))
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn core_src_modules_have_no_import_cycle_at_any_level() {
    let (tree, graph) = graph_of_core();
    let mut levels = module_levels(&tree, &graph);
    for (level, graph) in &levels {
        for (m, targets) in graph {
            let list: Vec<String> = targets
                .iter()
                .map(|(t, (f, l))| format!("{t} ({f}:{l})"))
                .collect();
            println!("{}: {m} -> {}", level_name(level), list.join(", "));
        }
    }
    let mut stale = Vec::new();
    let mut allowed = Vec::new();
    for (level, from, to, _why) in ALLOWED {
        let level: Vec<String> = level
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let removed = levels
            .get_mut(&level)
            .and_then(|g| g.get_mut(*from))
            .and_then(|t| t.remove(*to));
        if removed.is_none() {
            stale.push(format!(
                "allowed edge {}: {from} -> {to} is gone: remove it from ALLOWED",
                level_name(&level)
            ));
        }
        allowed.push((level, *from, *to));
    }
    // An allowed edge must still close a cycle: its target must reach its source.
    for (level, from, to) in &allowed {
        let graph = levels.get(level);
        let mut seen = BTreeSet::from([to.to_string()]);
        let mut queue = vec![to.to_string()];
        while let Some(m) = queue.pop() {
            for next in graph
                .and_then(|g| g.get(&m))
                .into_iter()
                .flat_map(|t| t.keys())
            {
                if seen.insert(next.clone()) {
                    queue.push(next.clone());
                }
            }
        }
        if !seen.contains(*from) {
            stale.push(format!(
                "allowed edge {}: {from} -> {to} closes no cycle any more: remove it from ALLOWED",
                level_name(level)
            ));
        }
    }
    let mut report = module_cycles(&levels);
    report.extend(stale);
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn the_checker_finds_a_planted_cycle_and_resolves_paths() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph
        .entry("a.rs".into())
        .or_default()
        .insert("b.rs".into());
    graph
        .entry("b.rs".into())
        .or_default()
        .insert("c/mod.rs".into());
    graph
        .entry("c/mod.rs".into())
        .or_default()
        .insert("a.rs".into());
    graph
        .entry("d.rs".into())
        .or_default()
        .insert("a.rs".into());
    assert_eq!(
        cycles(&graph),
        vec![vec![
            "a.rs".to_string(),
            "b.rs".to_string(),
            "c/mod.rs".to_string()
        ]]
    );
    let paths = expand_use("crate::{a, b::{c, d::E as F}, self}");
    let want: Vec<Vec<String>> = vec![
        vec!["crate".into(), "a".into()],
        vec!["crate".into(), "b".into(), "c".into()],
        vec!["crate".into(), "b".into(), "d".into(), "E".into()],
        vec!["crate".into()],
    ];
    assert_eq!(paths, want);
    // The real tree resolves a known import.
    let (tree, graph) = graph_of_core();
    assert!(graph
        .get("api.rs")
        .is_some_and(|t| t.contains_key("request.rs")));
    // A planted module cycle is reported with a site per arrow.
    let mut planted = graph.clone();
    planted
        .entry("hash.rs".into())
        .or_default()
        .insert("api.rs".into(), 7);
    let report = module_cycles(&module_levels(&tree, &planted));
    assert!(
        report.iter().any(|l| l.contains("api (hash.rs:7)")),
        "{}",
        report.join("\n")
    );
}

/// The tree and graph of an in-memory crate: `(path under src, text)` per file.
fn graph_of_sources(sources: &[(&str, &str)]) -> (Tree, Graph) {
    let texts: BTreeMap<String, String> = sources
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    let tree = Tree::new(texts.keys());
    let graph = edges(&tree, &texts);
    (tree, graph)
}

#[test]
fn a_module_file_beside_its_directory_is_the_parent_of_its_files() {
    // `sim` holds a type its children use, and re-exports and calls them: a cycle
    // between the module's own file and its children, one level down as well (`sim::node`).
    let parent = "//! The model.\n\
                  mod event;\n\
                  pub mod node;\n\
                  mod runtime;\n\
                  pub use event::Event;\n\
                  pub struct Model;\n\
                  pub fn apply() {\n    runtime::step();\n}\n";
    let event = "use super::Model;\npub struct Event(Model);\n";
    let runtime = "pub fn step() {\n    let _ = crate::sim::Model;\n}\n";
    let node = "mod store;\nuse store::Store;\npub struct Node(Store);\n";
    let store = "pub struct Store;\npub fn of(_: &super::Node) {}\n";
    let lib = "pub mod sim;\n";
    for layout in [["sim.rs", "sim/node.rs"], ["sim/mod.rs", "sim/node/mod.rs"]] {
        let [sim, sim_node] = layout;
        let (_, graph) = graph_of_sources(&[
            ("lib.rs", lib),
            (sim, parent),
            ("sim/event.rs", event),
            ("sim/runtime.rs", runtime),
            (sim_node, node),
            ("sim/node/store.rs", store),
        ]);
        let targets = |f: &str| -> Vec<(String, usize)> {
            graph
                .get(f)
                .into_iter()
                .flatten()
                .map(|(t, l)| (t.clone(), *l))
                .collect()
        };
        let s = |x: &str| x.to_string();
        // The relative `use`, the relative inline path and `super::`/`crate::` back (a
        // `mod` item alone is no import).
        assert_eq!(
            targets(sim),
            vec![(s("sim/event.rs"), 5), (s("sim/runtime.rs"), 8)],
            "{layout:?}"
        );
        assert_eq!(targets("sim/event.rs"), vec![(s(sim), 1)], "{layout:?}");
        assert_eq!(targets("sim/runtime.rs"), vec![(s(sim), 2)], "{layout:?}");
        assert_eq!(
            targets(sim_node),
            vec![(s("sim/node/store.rs"), 2)],
            "{layout:?}"
        );
        assert_eq!(
            targets("sim/node/store.rs"),
            vec![(s(sim_node), 2)],
            "{layout:?}"
        );
        let mut want = vec![
            vec![s("sim/event.rs"), s("sim/runtime.rs"), s(sim)],
            vec![s("sim/node/store.rs"), s(sim_node)],
        ];
        for c in &mut want {
            c.sort();
        }
        let mut found = cycles(&sets(&graph));
        found.sort();
        want.sort();
        assert_eq!(found, want, "{layout:?}");
    }
    // The same modules with the shared type in a leaf child: no cycle, in either layout.
    let parent = "mod event;\nmod model;\nmod runtime;\npub use event::Event;\n\
                  pub use model::Model;\npub fn apply() {\n    runtime::step();\n}\n";
    let event = "use super::model::Model;\npub struct Event(Model);\n";
    let runtime = "pub fn step() {\n    let _ = crate::sim::model::Model;\n}\n";
    for sim in ["sim.rs", "sim/mod.rs"] {
        let (_, graph) = graph_of_sources(&[
            ("lib.rs", "pub mod sim;\n"),
            (sim, parent),
            ("sim/event.rs", event),
            ("sim/model.rs", "pub struct Model;\n"),
            ("sim/runtime.rs", runtime),
        ]);
        assert!(
            graph
                .get(sim)
                .is_some_and(|t| t.contains_key("sim/model.rs") && t.len() == 3),
            "{graph:?}"
        );
        assert_eq!(cycles(&sets(&graph)), Vec::<Vec<String>>::new(), "{sim}");
    }
}
