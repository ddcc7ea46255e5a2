//! No module cycles between files, in any crate of the workspace: the `use` graph of each
//! crate's `src/` (every `use` and every `crate::`/`super::`/`self::`/child-module path in the
//! code outside its `#[cfg(test)] mod tests`) has no cycle once the edges between a module and
//! its own ancestors are left out (a `mod.rs` holding the type its children implement parts of
//! is how Rust splits a module; two siblings that each need the other are one concept in two
//! files, or a missing third). Issue #16 removed the last ones (cluster ⇄ journal, live app ⇄
//! views, labels ⇄ validation, live frame ⇄ state, pod ⇄ behaviour, apply ⇄ patch); this test
//! keeps them from coming back.
//!
//! Each name a path uses is resolved to the file that DEFINES it, as rustc resolves it: through
//! child modules (file or inline), the items a module declares, and its `use` declarations
//! (`pub use` re-exports in a `mod.rs` or `lib.rs` included, globs too) and inherent impls (an
//! associated item is its impl's file's). So `super::X` in `a/b.rs` is an edge to `a/c.rs` when
//! `a/mod.rs` only re-exports `X` from there: two siblings that meet through their parent's
//! re-exports are not hidden (issue #31 found one knot of the engine's `api/` that way: `Kind`
//! ⇄ its registry modules, `Kind` ⇄ `ResourceInfo`, `meta` ⇄ `managed_fields`, `printer` →
//! `apiextensions` → `meta`).
//! An edge between a module and one of its ancestors is left out only when the definition
//! really is in the ancestor's (or the descendant's) own file.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module, as its path from the crate root (`cluster/journal`; the crate root is empty). A
/// file module's path is its file's path from `src/`; an inline `mod x { .. }` adds `x` to the
/// path of the module it is written in.
type Module = Vec<String>;

/// The module a file under `src/` holds.
fn module_of(rel: &Path) -> Module {
    let mut parts: Vec<String> = rel
        .with_extension("")
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts
        .last()
        .is_some_and(|l| l == "mod" || l == "lib" || l == "main")
    {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The code without its unit tests.
fn code_of(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i])
}

/// A token of Rust code, as far as paths and items need: comments, literals and lifetimes are
/// dropped (a string's `a::b` is no path, its `{` no block).
#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Punct(char),
}

fn tokens(code: &str) -> Vec<Tok> {
    let c: Vec<char> = code.chars().collect();
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut out = Vec::new();
    let mut i = 0;
    // Skips a string literal whose opening quote (after `r`/`#`s for a raw one) is at `i`.
    let skip_string = |mut i: usize, hashes: Option<usize>| -> usize {
        i += 1;
        while i < c.len() {
            match (c[i], hashes) {
                ('\\', None) => i += 2,
                ('"', None) => return i + 1,
                ('"', Some(n)) if (1..=n).all(|k| c.get(i + k) == Some(&'#')) => return i + 1 + n,
                _ => i += 1,
            }
        }
        i
    };
    while i < c.len() {
        let ch = c[i];
        if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if ch == '"' {
            i = skip_string(i, None);
        } else if ch == '\'' {
            if c.get(i + 1) == Some(&'\\') {
                // An escaped char literal: `'\n'`, `'\''`, `'\u{1F600}'`.
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                // A lifetime or a label.
                i += 1;
                while i < c.len() && is_ident(c[i]) {
                    i += 1;
                }
            }
        } else if is_ident(ch) {
            let s = i;
            while i < c.len() && is_ident(c[i]) {
                i += 1;
            }
            let word: String = c[s..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if raw && matches!(c.get(i), Some('"' | '#')) {
                let mut hashes = 0;
                while c.get(i) == Some(&'#') {
                    hashes += 1;
                    i += 1;
                }
                if c.get(i) == Some(&'"') {
                    i = skip_string(i, Some(hashes));
                    continue;
                }
            }
            if matches!(word.as_str(), "b" | "c") && c.get(i) == Some(&'"') {
                i = skip_string(i, None);
                continue;
            }
            if word == "b" && c.get(i) == Some(&'\'') {
                // A byte literal: the quote is handled as a char literal next.
                continue;
            }
            if !ch.is_ascii_digit() {
                out.push(Tok::Ident(word));
            }
        } else if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(ch));
            i += 1;
        }
    }
    out
}

/// One name a `use` declaration brings in: its path, and the name it is known by (`None` for
/// a glob, `use a::*`, whose path is then the module's).
#[derive(Debug, Clone)]
struct Import {
    path: Vec<String>,
    name: Option<String>,
}

/// Reads the use tree at `toks[*i..]` under `prefix`: `a::{b::C, d as E, self, f::*}`.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Import>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Sep) => *i += 1,
            Some(Tok::Ident(s)) if s != "as" => {
                path.push(s.clone());
                *i += 1;
                if toks.get(*i) != Some(&Tok::Sep) {
                    break;
                }
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push(Import { path, name: None });
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while !matches!(toks.get(*i), None | Some(Tok::Punct('}'))) {
                    let before = *i;
                    use_tree(toks, i, &path, out);
                    if toks.get(*i) == Some(&Tok::Punct(',')) {
                        *i += 1;
                    }
                    if *i == before {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            _ => break,
        }
    }
    let mut name = path
        .iter()
        .rev()
        .find(|s| *s != "self")
        .cloned()
        .unwrap_or_default();
    if toks.get(*i) == Some(&Tok::Ident("as".into())) {
        if let Some(Tok::Ident(alias)) = toks.get(*i + 1) {
            name = alias.clone();
        }
        *i += 2;
    }
    if !path.is_empty() {
        out.push(Import {
            path,
            name: Some(name).filter(|n| n != "_"),
        });
    }
}

/// What one module (file or inline) declares: the names it defines and those it imports.
#[derive(Debug, Default)]
struct Scope {
    /// The file module the scope is written in (itself, for a file module).
    file: Module,
    /// Its items: `struct`, `enum`, `fn`, `trait`, `type`, `const`, `static`, `union`, `mod`,
    /// `macro_rules!`.
    defines: BTreeSet<String>,
    /// Its `use` declarations, public or not (a private import is visible to its children).
    imports: Vec<Import>,
}

/// An inherent `impl Type { .. }` block: where it is written, the type's path as written there,
/// and the associated items it declares (`Kind::Pod` is a constant of the file that declares it,
/// not of the file that declares `Kind`).
#[derive(Debug)]
struct InherentImpl {
    scope: Module,
    self_type: Vec<String>,
    items: BTreeSet<String>,
}

/// A crate read: its scopes, each path the code names with the scope it is named in, and its
/// inherent impls.
#[derive(Debug, Default)]
struct Crate {
    scopes: BTreeMap<Module, Scope>,
    paths: Vec<(Module, Vec<String>)>,
    impls: Vec<InherentImpl>,
}

/// The inherent impl whose header starts at `toks[i]` (`impl`): the self type's path and the
/// associated items at the body's top level. `None` for a trait impl.
fn inherent_impl(toks: &[Tok], i: usize) -> Option<(Vec<String>, BTreeSet<String>)> {
    let mut i = i + 1;
    // The impl's generics: `impl<T: Into<u8>>`.
    let skip_generics = |i: &mut usize| {
        if toks.get(*i) == Some(&Tok::Punct('<')) {
            let mut angle = 0;
            while let Some(t) = toks.get(*i) {
                match t {
                    Tok::Punct('<') => angle += 1,
                    Tok::Punct('>') => angle -= 1,
                    _ => {}
                }
                *i += 1;
                if angle == 0 {
                    break;
                }
            }
        }
    };
    skip_generics(&mut i);
    let mut self_type = Vec::new();
    while let Some(Tok::Ident(s)) = toks.get(i) {
        self_type.push(s.clone());
        i += 1;
        if toks.get(i) != Some(&Tok::Sep) {
            break;
        }
        i += 1;
    }
    skip_generics(&mut i);
    // Up to the body: a `for` on the way is a trait impl.
    while toks.get(i)? != &Tok::Punct('{') {
        if toks.get(i)? == &Tok::Ident("for".into()) || toks.get(i)? == &Tok::Punct(';') {
            return None;
        }
        i += 1;
    }
    let mut items = BTreeSet::new();
    let mut depth = 0;
    while let Some(t) = toks.get(i) {
        match t {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            Tok::Ident(k) if depth == 1 && matches!(k.as_str(), "fn" | "const" | "type") => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    items.insert(name.clone());
                }
            }
            _ => {}
        }
        i += 1;
    }
    (!self_type.is_empty()).then_some((self_type, items))
}

const ITEM_KEYWORDS: [&str; 9] = [
    "struct", "enum", "fn", "trait", "type", "const", "static", "union", "mod",
];

/// Reads one file module's tokens into `krate`: its scope, its inline modules' scopes, and the
/// paths they name (`use` trees and inline `a::b::c` paths).
fn read_file(krate: &mut Crate, file: &Module, toks: &[Tok]) {
    krate.scopes.entry(file.clone()).or_default().file = file.clone();
    // The scopes open at this point: a module and the brace depth of its body.
    let mut open: Vec<(Module, usize)> = vec![(file.clone(), 0)];
    let mut depth = 0;
    let mut i = 0;
    while i < toks.len() {
        let (here, body) = open.last().cloned().unwrap_or_default();
        let at_item_level = depth == body;
        match &toks[i] {
            Tok::Punct('{') => {
                depth += 1;
                i += 1;
            }
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth < body {
                    open.pop();
                }
                i += 1;
            }
            Tok::Ident(w) if w == "use" => {
                i += 1;
                let mut imports = Vec::new();
                while !matches!(toks.get(i), None | Some(Tok::Punct(';'))) {
                    let before = i;
                    use_tree(toks, &mut i, &[], &mut imports);
                    if i == before {
                        i += 1;
                    }
                }
                for import in &imports {
                    let mut path = import.path.clone();
                    if import.name.is_none() {
                        path.push("*".into());
                    }
                    krate.paths.push((here.clone(), path));
                }
                let scope = krate.scopes.entry(here.clone()).or_default();
                scope.imports.extend(imports);
            }
            Tok::Ident(w) if w == "mod" && at_item_level => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    let scope = krate.scopes.entry(here.clone()).or_default();
                    scope.defines.insert(name.clone());
                    if toks.get(i + 2) == Some(&Tok::Punct('{')) {
                        let mut inner = here.clone();
                        inner.push(name.clone());
                        krate.scopes.entry(inner.clone()).or_default().file = file.clone();
                        depth += 1;
                        open.push((inner, depth));
                        i += 3;
                        continue;
                    }
                }
                i += 1;
            }
            Tok::Ident(w) if at_item_level && (ITEM_KEYWORDS.contains(&w.as_str())) => {
                if let Some(Tok::Ident(name)) = toks.get(i + 1) {
                    if !ITEM_KEYWORDS.contains(&name.as_str())
                        && !matches!(name.as_str(), "unsafe" | "extern" | "async")
                    {
                        let scope = krate.scopes.entry(here.clone()).or_default();
                        scope.defines.insert(name.clone());
                    }
                }
                i += 1;
            }
            Tok::Ident(w) if w == "impl" && at_item_level => {
                if let Some((self_type, items)) = inherent_impl(toks, i) {
                    krate.impls.push(InherentImpl {
                        scope: here.clone(),
                        self_type,
                        items,
                    });
                }
                i += 1;
            }
            Tok::Ident(w) if w == "macro_rules" && toks.get(i + 1) == Some(&Tok::Punct('!')) => {
                if let Some(Tok::Ident(name)) = toks.get(i + 2) {
                    let scope = krate.scopes.entry(here.clone()).or_default();
                    scope.defines.insert(name.clone());
                }
                i += 3;
            }
            Tok::Ident(first) => {
                // An inline path: `a::b::c` (not the tail of `<T as X>::c` or of another path).
                let after_sep = i > 0 && toks[i - 1] == Tok::Sep;
                let mut path = vec![first.clone()];
                i += 1;
                while toks.get(i) == Some(&Tok::Sep) {
                    let Some(Tok::Ident(next)) = toks.get(i + 1) else {
                        break;
                    };
                    path.push(next.clone());
                    i += 2;
                }
                if !after_sep && path.len() > 1 {
                    krate.paths.push((here.clone(), path));
                }
            }
            _ => i += 1,
        }
    }
}

/// Where a path leads: the module it names, or an item (the module whose scope defines it, its
/// name, and the associated item the path goes on to name, if any: `Kind::Pod`'s `Pod`).
#[derive(Debug, Clone, PartialEq)]
enum Resolved {
    Module(Module),
    Item {
        scope: Module,
        name: String,
        member: Option<String>,
    },
}

impl Crate {
    /// Resolves `path` as written in module `m`, following child modules, the items each module
    /// defines and its imports (re-exports and globs too), as rustc does. `None` for a path that
    /// leaves the crate (`std::`, another crate) or a local name. `anchored`: the path reached
    /// `m` through the crate (`crate::`, `super::`, `self::`, a child module), so a name this
    /// reader cannot find there (one a macro declares) is taken to be `m`'s own.
    fn resolve(
        &self,
        m: &Module,
        path: &[String],
        hops: usize,
        anchored: bool,
    ) -> Option<Resolved> {
        if hops > 64 {
            return None;
        }
        let Some((first, rest)) = path.split_first() else {
            return Some(Resolved::Module(m.clone()));
        };
        match first.as_str() {
            "crate" => return self.resolve(&Vec::new(), rest, hops + 1, true),
            "super" => {
                let parent = m.split_last()?.1.to_vec();
                return self.resolve(&parent, rest, hops + 1, true);
            }
            "self" => return self.resolve(m, rest, hops + 1, true),
            "*" => return Some(Resolved::Module(m.clone())),
            _ => {}
        }
        let mut child = m.clone();
        child.push(first.clone());
        if self.scopes.contains_key(&child) {
            return self.resolve(&child, rest, hops + 1, true);
        }
        let scope = self.scopes.get(m)?;
        if scope.defines.contains(first) {
            return Some(Resolved::Item {
                scope: m.clone(),
                name: first.clone(),
                member: rest.first().cloned(),
            });
        }
        let named = scope
            .imports
            .iter()
            .find(|im| im.name.as_deref() == Some(first.as_str()));
        if let Some(import) = named {
            let mut via = import.path.clone();
            via.extend(rest.iter().cloned());
            return self.resolve(m, &via, hops + 1, false);
        }
        for glob in scope.imports.iter().filter(|im| im.name.is_none()) {
            if glob.path.first() == Some(first) {
                continue;
            }
            let Some(Resolved::Module(g)) = self.resolve(m, &glob.path, hops + 1, false) else {
                continue;
            };
            if g != *m && self.resolve(&g, &path[..1], hops + 1, false).is_some() {
                return self.resolve(&g, path, hops + 1, true);
            }
        }
        anchored.then(|| Resolved::Item {
            scope: m.clone(),
            name: first.clone(),
            member: rest.first().cloned(),
        })
    }

    /// The file a resolved path's definition is in: an associated item's is its inherent
    /// impl's (`members`, from [`Crate::members`]).
    fn file_of(&self, r: &Resolved, members: &Members) -> Option<Module> {
        let scope = match r {
            Resolved::Module(m) => m,
            Resolved::Item {
                scope,
                name,
                member,
            } => member
                .as_ref()
                .and_then(|member| members.get(&(scope.clone(), name.clone(), member.clone())))
                .unwrap_or(scope),
        };
        self.scopes.get(scope).map(|s| s.file.clone())
    }

    /// Where each type's inherent associated items are declared.
    fn members(&self) -> Members {
        let mut out = Members::new();
        for imp in &self.impls {
            let Some(Resolved::Item { scope, name, .. }) =
                self.resolve(&imp.scope, &imp.self_type, 0, false)
            else {
                continue;
            };
            for item in &imp.items {
                out.insert(
                    (scope.clone(), name.clone(), item.clone()),
                    imp.scope.clone(),
                );
            }
        }
        out
    }
}

/// (the scope declaring a type, the type's name, an associated item) → the scope of the
/// inherent impl declaring the item.
type Members = BTreeMap<(Module, String, String), Module>;

/// The file modules of one crate and which of them each one uses: every path resolved to the
/// file that defines what it names, edges between a file and its own ancestors left out.
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut krate = Crate::default();
    for file in files {
        let Ok(rel) = file.strip_prefix(src) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        read_file(&mut krate, &module_of(rel), &tokens(code_of(&text)));
    }
    let members = krate.members();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (scope, path) in &krate.paths {
        let Some(here) = krate.scopes.get(scope).map(|s| &s.file) else {
            continue;
        };
        let Some(target) = krate
            .resolve(scope, path, 0, false)
            .and_then(|r| krate.file_of(&r, &members))
        else {
            continue;
        };
        let nested = target.starts_with(here) || here.starts_with(&target);
        if !nested {
            edges.entry(here.clone()).or_default().insert(target);
        }
    }
    edges
}
/// The cycles of `edges`, each as its modules' edges among themselves.
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<String>> {
    let reach = |from: &Module| -> BTreeSet<Module> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(m) = todo.pop() {
            for n in edges.get(&m).into_iter().flatten() {
                if seen.insert(n.clone()) {
                    todo.push(n.clone());
                }
            }
        }
        seen
    };
    let name = |m: &Module| m.join("/");
    let mut found: BTreeSet<Vec<String>> = BTreeSet::new();
    for m in edges.keys() {
        let from_m = reach(m);
        if !from_m.contains(m) {
            continue;
        }
        let cycle: BTreeSet<&Module> = from_m.iter().filter(|n| reach(n).contains(m)).collect();
        let mut lines = Vec::new();
        for a in &cycle {
            for b in edges.get(*a).into_iter().flatten() {
                if cycle.contains(b) {
                    lines.push(format!("{} -> {}", name(a), name(b)));
                }
            }
        }
        found.insert(lines);
    }
    found.into_iter().collect()
}

/// The shortest loop through each edge of a knot (`cycle`, as [`cycles`] lists it), each loop
/// once: `a -> b -> a`. What to untie, where the knot's edge list is long.
fn shortest_loops(edges: &BTreeMap<Module, BTreeSet<Module>>, cycle: &[String]) -> Vec<String> {
    let name = |m: &Module| m.join("/");
    let in_knot: BTreeSet<&str> = cycle.iter().flat_map(|l| l.split(" -> ")).collect();
    let mut loops: BTreeSet<(usize, Vec<String>)> = BTreeSet::new();
    for (a, targets) in edges {
        for b in targets {
            if !in_knot.contains(name(a).as_str()) || !in_knot.contains(name(b).as_str()) {
                continue;
            }
            // Breadth first from b back to a.
            let mut came_from: BTreeMap<Module, Module> = BTreeMap::new();
            let mut frontier = vec![b.clone()];
            while !frontier.is_empty() && !came_from.contains_key(a) {
                let mut next = Vec::new();
                for m in frontier {
                    for n in edges.get(&m).into_iter().flatten() {
                        if n != b && !came_from.contains_key(n) {
                            came_from.insert(n.clone(), m.clone());
                            next.push(n.clone());
                        }
                    }
                }
                frontier = next;
            }
            if a != b && !came_from.contains_key(a) {
                continue;
            }
            let mut path = vec![name(a)];
            let mut at = a.clone();
            while at != *b {
                let Some(prev) = came_from.get(&at) else {
                    break;
                };
                path.push(name(prev));
                at = prev.clone();
            }
            path.reverse();
            // `path` runs b .. a; the loop is a -> b .. a, rotated to start at its least name.
            let mut ring: Vec<String> = std::iter::once(name(a)).chain(path).collect();
            ring.pop();
            let start = (0..ring.len()).min_by_key(|&i| &ring[i]).unwrap_or(0);
            ring.rotate_left(start);
            let mut text = ring.clone();
            text.push(ring[0].clone());
            loops.insert((ring.len(), text));
        }
    }
    loops.into_iter().map(|(_, l)| l.join(" -> ")).collect()
}

fn crate_sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![root.join("src")];
    if let Ok(entries) = std::fs::read_dir(root.join("crates")) {
        let mut crates: Vec<PathBuf> = entries.flatten().map(|e| e.path().join("src")).collect();
        crates.sort();
        out.extend(crates.into_iter().filter(|p| p.is_dir()));
    }
    out
}

#[test]
fn no_crate_has_a_cycle_between_its_files() {
    let sources = crate_sources();
    assert!(sources.len() >= 5, "the workspace's crates: {sources:?}");
    let mut problems = Vec::new();
    let mut modules_with_edges = 0;
    for src in &sources {
        let edges = graph(src);
        // A small crate (a root and children that only use their parent) has no edges at all;
        // the workspace as a whole must have many, or the reader is broken.
        modules_with_edges += edges.len();
        for cycle in cycles(&edges) {
            problems.push(format!(
                "{}: a knot of {} edges; its shortest loops:\n  {}",
                src.display(),
                cycle.len(),
                shortest_loops(&edges, &cycle).join("\n  ")
            ));
        }
    }
    assert!(
        modules_with_edges > 50,
        "the graph was read ({modules_with_edges} modules with edges in {} crates)",
        sources.len()
    );
    assert!(
        problems.is_empty(),
        "module cycles:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_check_finds_a_cycle_between_two_siblings() {
    let found = cycles_of(
        "siblings",
        &[
            ("lib.rs", "mod a;\nmod b;\nuse crate::a::A;\n"),
            ("a/mod.rs", "mod c;\npub struct A;\nuse c::C;\n"),
            ("a/c.rs", "use super::A;\npub struct C(crate::b::B);\n"),
            ("b.rs", "use crate::a::{A, c::C};\npub struct B;\n"),
        ],
    );
    assert_eq!(
        found,
        vec![vec!["a/c -> b".to_string(), "b -> a/c".to_string()]],
        "a/c uses b and b uses a/c (a/mod.rs ⇄ a/c is a module and its child: allowed)"
    );
}

/// Writes the files of a crate under a fresh temporary `src/` and returns its cycles.
fn cycles_of(name: &str, files: &[(&str, &str)]) -> Vec<Vec<String>> {
    let dir = std::env::temp_dir().join(format!(
        "watchlab-module-graph-{name}-{}",
        std::process::id()
    ));
    let src = dir.join("src");
    for (path, text) in files {
        let path = src.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a temporary directory");
        }
        std::fs::write(path, text).expect("a file");
    }
    let found = cycles(&graph(&src));
    let _ = std::fs::remove_dir_all(&dir);
    found
}

#[test]
fn the_check_finds_siblings_that_meet_through_their_parents_re_exports() {
    let found = cycles_of(
        "re-export",
        &[
            ("lib.rs", "mod a;\n"),
            (
                "a/mod.rs",
                "mod c;\nmod d;\npub use c::C;\npub use self::d::{D as Dee};\npub struct A;\n",
            ),
            // `super::A` is the parent's own: no edge. `super::Dee` is d's.
            ("a/c.rs", "use super::{A, Dee};\npub struct C(A, Dee);\n"),
            // Inline, through the crate root's path and a string that is no path.
            (
                "a/d.rs",
                "pub struct D;\nfn f() -> &'static str { let _ = crate::a::C; \"crate::b::B\" }\n",
            ),
        ],
    );
    assert_eq!(
        found,
        vec![vec!["a/c -> a/d".to_string(), "a/d -> a/c".to_string()]],
        "a/c uses d's D and a/d uses c's C, both through a/mod.rs's re-exports"
    );
}

#[test]
fn the_check_follows_globs_and_inline_modules() {
    let found = cycles_of(
        "inline",
        &[
            (
                "lib.rs",
                "mod a;\nmod b;\npub mod old {\n    pub use crate::a::*;\n}\n",
            ),
            ("a.rs", "pub struct A(crate::b::B);\n"),
            ("b.rs", "pub struct B(Box<crate::old::A>);\n"),
        ],
    );
    assert_eq!(
        found,
        vec![vec!["a -> b".to_string(), "b -> a".to_string()]],
        "b names a's A through the root's inline module's glob"
    );
}

#[test]
fn the_check_finds_an_associated_item_in_the_file_of_its_impl() {
    let found = cycles_of(
        "impl",
        &[
            ("lib.rs", "mod a;\nmod b;\n"),
            (
                "a.rs",
                "pub struct K(u8);\npub fn first() -> K { K::FIRST }\nimpl Clone for K {}\n",
            ),
            (
                "b.rs",
                "use crate::a::K;\n#[allow(x)]\nimpl K {\n    pub const FIRST: K = K(1);\n    fn f() {}\n}\n",
            ),
        ],
    );
    assert_eq!(
        found,
        vec![vec!["a -> b".to_string(), "b -> a".to_string()]],
        "a's K::FIRST is declared in b's impl of a's K"
    );
}
