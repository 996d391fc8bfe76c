//! Imports flow one way through the core:
//!
//! ```text
//! error, read, compress, format, dump,  (bytes, errors, the format vocabulary, dump trees,
//!   digits,                             numbers written as text,
//!   summary                             the profile summary's arithmetic)
//!   → symbolize                         (symbol tables: ELF, DWARF, kallsyms; demangling)
//!   → formats                           (one module per format family)
//!   → detect                            (which format module takes a file)
//!   → model                             (views over decoded profiles)
//!   → layout                            (what the page draws)
//! ```
//!
//! This test reads the core's sources and fails on any `crate::`/`super::` path
//! that reaches up a layer, and on any cycle between two source files (a format
//! family's files too). Test modules are not checked: tests may use anything.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The layer of each top-level module, lowest first.
const LAYERS: &[(&str, u8)] = &[
    ("error", 0),
    ("read", 0),
    ("compress", 0),
    ("format", 0),
    ("dump", 0),
    ("digits", 0),
    ("summary", 0),
    ("symbolize", 1),
    ("formats", 2),
    ("detect", 3),
    ("model", 4),
    ("layout", 5),
];

fn layer(module: &str) -> Option<u8> {
    let top = module.split("::").next()?;
    LAYERS.iter().find(|(name, _)| *name == top).map(|&(_, l)| l)
}

/// Every source file's module path (`formats::perf::record`) and its text without
/// comments and without its test module.
fn sources() -> BTreeMap<String, String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = BTreeMap::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let rel = path.strip_prefix(&root).unwrap().with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            if parts == ["lib"] {
                continue; // the crate root re-exports every layer
            }
            let text = fs::read_to_string(&path).unwrap();
            let code = text.split("\n#[cfg(test)]").next().unwrap_or_default();
            let code: String =
                code.lines().map(|l| l.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n");
            out.insert(parts.join("::"), code);
        }
    }
    out
}

/// The module paths `code` (the file of module `module`) names, resolved to the
/// longest known module.
fn imports(module: &str, code: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let bytes = code.as_bytes();
    // `super` is the parent module, whether this file is `x.rs` or `x/mod.rs`.
    let parent: Vec<&str> =
        module.split("::").collect::<Vec<_>>().split_last().map(|(_, p)| p.to_vec()).unwrap_or_default();
    for (prefix, base) in [("crate::", Vec::new()), ("super::", parent)] {
        let mut at = 0;
        while let Some(i) = code[at..].find(prefix) {
            let start = at + i;
            at = start + prefix.len();
            // Not the tail of a longer identifier (`my_crate::`).
            if start > 0 && (bytes[start - 1].is_ascii_alphanumeric() || bytes[start - 1] == b'_') {
                continue;
            }
            let rest = &code[at..];
            let path_len =
                rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':')).unwrap_or(rest.len());
            let mut parts: Vec<String> = base.iter().map(|s| s.to_string()).collect();
            parts.extend(rest[..path_len].split("::").filter(|s| !s.is_empty()).map(String::from));
            for n in (1..=parts.len()).rev() {
                let candidate = parts[..n].join("::");
                if known.contains(&candidate) {
                    found.insert(candidate);
                    break;
                }
            }
        }
    }
    found.remove(module);
    found
}

fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = sources();
    let known: BTreeSet<String> = src.keys().cloned().collect();
    src.iter()
        .map(|(m, code)| {
            // A module's own children are its business.
            let deps = imports(m, code, &known)
                .into_iter()
                .filter(|d| !d.starts_with(&format!("{m}::")) && !m.starts_with(&format!("{d}::")))
                .collect();
            (m.clone(), deps)
        })
        .collect()
}

#[test]
fn every_module_is_in_a_layer() {
    let unplaced: Vec<String> = graph().into_keys().filter(|m| layer(m).is_none()).collect();
    assert!(unplaced.is_empty(), "modules without a layer: {unplaced:?}");
}

#[test]
fn imports_never_reach_up_a_layer() {
    let g = graph();
    assert!(g.len() > 50, "the sources were read: {} modules", g.len());
    assert!(g["formats::perf::script"].contains("symbolize"), "imports are found: {:?}", g["formats::perf::script"]);
    let mut upward = Vec::new();
    for (m, deps) in &g {
        for d in deps {
            if let (Some(from), Some(to)) = (layer(m), layer(d)) {
                if to > from {
                    upward.push(format!("{m} → {d}"));
                }
            }
        }
    }
    assert!(upward.is_empty(), "imports up a layer:\n{}", upward.join("\n"));
}

#[test]
fn no_two_source_files_import_each_other_even_indirectly() {
    let g = graph();
    // Depth-first search for a back edge; the cycle is reported as a path.
    fn visit<'a>(
        m: &'a str,
        g: &'a BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<&'a str, bool>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        match state.get(m) {
            Some(true) => {
                let from = path.iter().position(|p| *p == m).unwrap_or(0);
                let mut cycle: Vec<String> = path[from..].iter().map(|s| s.to_string()).collect();
                cycle.push(m.to_string());
                return Some(cycle);
            }
            Some(false) => return None,
            None => {}
        }
        state.insert(m, true);
        path.push(m);
        for d in g.get(m).into_iter().flatten() {
            if let Some(c) = visit(d, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(m, false);
        None
    }
    let mut state = BTreeMap::new();
    for m in g.keys() {
        let mut path = Vec::new();
        if let Some(cycle) = visit(m, &g, &mut state, &mut path) {
            panic!("import cycle: {}", cycle.join(" → "));
        }
    }
}
