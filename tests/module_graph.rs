//! No module cycles between files, in any crate of the workspace: the `use` graph of each
//! crate's `src/` (every `use` and every `crate::`/`super::`/`self::`/child-module path in the
//! code outside its `#[cfg(test)] mod tests`) has no cycle once the edges between a module and
//! its own ancestors are left out (a `mod.rs` holding the type its children implement parts of
//! is how Rust splits a module; two siblings that each need the other are one concept in two
//! files, or a missing third). Issue #16 removed the last ones (cluster ⇄ journal, live app ⇄
//! views, labels ⇄ validation, live frame ⇄ state, pod ⇄ behaviour, apply ⇄ patch); this test
//! keeps them from coming back.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module, as the path of its file from the crate's `src/` (`cluster/journal`; the crate
/// root is empty).
type Module = Vec<String>;

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

/// The code without line comments and without its unit tests.
fn code_of(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |i| &text[..i]);
    text.lines()
        .map(|l| l.split("//").next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The paths a `use` tree names: `super::{a::B, c}` is `super::a::B` and `super::c`.
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let mut depth = 0;
    let mut item = String::new();
    let mut items = Vec::new();
    for ch in tree.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        if ch == ',' && depth == 0 {
            items.push(std::mem::take(&mut item));
        } else {
            item.push(ch);
        }
    }
    items.push(item);
    for it in items {
        let it: String = it.split_whitespace().collect::<Vec<_>>().join(" ");
        let it = it.split(" as ").next().unwrap_or_default().trim();
        if it.is_empty() {
            continue;
        }
        let split = |s: &str| -> Vec<String> {
            s.split("::")
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(String::from)
                .collect()
        };
        match it.find('{') {
            Some(open) if it.ends_with('}') => {
                let mut p = prefix.to_vec();
                p.extend(split(&it[..open]));
                expand(&p, &it[open + 1..it.len() - 1], out);
            }
            _ => {
                let mut p = prefix.to_vec();
                p.extend(split(it));
                out.push(p);
            }
        }
    }
}

/// Every path the code names: its `use` trees, and the `a::b::c` paths written inline.
fn paths_in(code: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = String::new();
    let mut statement: Option<String> = None;
    for line in code.lines() {
        let t = line.trim_start();
        let t = ["pub use ", "pub(crate) use ", "pub(super) use "]
            .iter()
            .find_map(|p| t.strip_prefix(p).map(|r| format!("use {r}")))
            .unwrap_or_else(|| t.to_string());
        if statement.is_none() && t.starts_with("use ") {
            statement = Some(String::new());
        }
        match &mut statement {
            Some(s) => {
                s.push_str(&t);
                s.push(' ');
                if let Some(end) = s.find(';') {
                    let tree = s[..end].trim_start_matches("use ").to_string();
                    expand(&[], &tree, &mut out);
                    statement = None;
                }
            }
            None => {
                rest.push_str(line);
                rest.push('\n');
            }
        }
    }
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let chars: Vec<char> = rest.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let starts = is_ident(chars[i])
            && !chars[i].is_ascii_digit()
            && (i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut segments = Vec::new();
        loop {
            let s = i;
            while i < chars.len() && is_ident(chars[i]) {
                i += 1;
            }
            segments.push(chars[s..i].iter().collect::<String>());
            let more = chars.get(i) == Some(&':')
                && chars.get(i + 1) == Some(&':')
                && chars.get(i + 2).is_some_and(|&c| is_ident(c));
            if !more {
                break;
            }
            i += 2;
        }
        if segments.len() > 1 {
            out.push(segments);
        }
    }
    out
}

/// The file modules of one crate and which of them each one uses (ancestors left out).
fn graph(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .into_iter()
        .filter_map(|f| Some((module_of(f.strip_prefix(src).ok()?), f)))
        .collect();
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (here, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for path in paths_in(&code_of(&text)) {
            let Some(first) = path.first() else { continue };
            let (mut base, rest): (Module, &[String]) = match first.as_str() {
                "crate" => (Vec::new(), &path[1..]),
                "super" | "self" => (here.clone(), &path[..]),
                child => {
                    let mut c = here.clone();
                    c.push(child.to_string());
                    if !modules.contains_key(&c) {
                        continue;
                    }
                    (here.clone(), &path[..])
                }
            };
            let mut rest = rest;
            while let Some(step) = rest.first() {
                match step.as_str() {
                    "super" => {
                        base.pop();
                    }
                    "self" => {}
                    _ => break,
                }
                rest = &rest[1..];
            }
            let mut full = base.clone();
            full.extend(rest.iter().cloned());
            let target = (base.len()..=full.len())
                .rev()
                .map(|k| full[..k].to_vec())
                .find(|m| modules.contains_key(m));
            let Some(target) = target else { continue };
            let nested = target.starts_with(here) || here.starts_with(&target);
            if !nested {
                edges.entry(here.clone()).or_default().insert(target);
            }
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
            problems.push(format!("{}:\n  {}", src.display(), cycle.join("\n  ")));
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
    let dir = std::env::temp_dir().join(format!("watchlab-module-graph-{}", std::process::id()));
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("a")).expect("a temporary directory");
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).expect("a file");
    write("lib.rs", "mod a;\nmod b;\nuse crate::a::A;\n");
    write("a/mod.rs", "mod c;\npub struct A;\nuse c::C;\n");
    write("a/c.rs", "use super::A;\npub struct C(crate::b::B);\n");
    write("b.rs", "use crate::a::{A, c::C};\npub struct B;\n");
    let found = cycles(&graph(&src));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        found,
        vec![vec!["a/c -> b".to_string(), "b -> a/c".to_string()]],
        "a/c uses b and b uses a/c (a/mod.rs ⇄ a/c is a module and its child: allowed)"
    );
}
