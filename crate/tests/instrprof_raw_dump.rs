//! The deep dump of raw profiles against the reference tools: the counters each
//! function's CounterPtr points at, and its indirect-call value sites, as
//! `llvm-profdata merge --text` shows them (`.profraw.proftext` beside each file),
//! or as the model decoder reads them where no proftext exists.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;

use common::read;
use std::collections::BTreeMap;

use pgolens::{detect, dump_all, Node};

fn find<'a>(node: &'a Node, label: &str) -> Option<&'a Node> {
    if node.label == label {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, label))
}

fn dump(rel: &str) -> Node {
    let data = read(rel);
    let root = dump_all(&data, &detect(&data).unwrap()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()), "{rel}");
    root
}

/// One function of a proftext: counters, and the indirect-call sites as
/// `name:count` lines per site.
#[derive(Default, Debug)]
struct TextFunction {
    counters: Vec<u64>,
    indirect: Vec<Vec<String>>,
}

/// Functions by name (names that occur twice, with different hashes, are dropped).
fn proftext(rel: &str) -> BTreeMap<String, TextFunction> {
    let text = String::from_utf8(read(rel)).unwrap();
    let mut out = BTreeMap::new();
    let mut twice = Vec::new();
    for block in text.split("\n\n") {
        let lines: Vec<&str> = block.lines().filter(|l| !l.starts_with(':')).collect();
        let Some(at) = lines.iter().position(|l| *l == "# Func Hash:") else { continue };
        let name = lines[at - 1].to_string();
        let n: usize = lines[at + 3].parse().unwrap();
        let mut f = TextFunction {
            counters: lines[at + 5..at + 5 + n].iter().map(|l| l.parse().unwrap()).collect(),
            ..Default::default()
        };
        if let Some(k) = lines.iter().position(|l| *l == "# ValueKind = IPVK_IndirectCallTarget:") {
            let sites: usize = lines[k + 3].parse().unwrap();
            let mut i = k + 4;
            for _ in 0..sites {
                let m: usize = lines[i].parse().unwrap();
                f.indirect.push(lines[i + 1..i + 1 + m].iter().map(|l| l.to_string()).collect());
                i += 1 + m;
            }
        }
        if out.insert(name.clone(), f).is_some() {
            twice.push(name);
        }
    }
    twice.iter().for_each(|n| drop(out.remove(n)));
    out
}

/// The counter slices in the dump, by function name.
fn counter_slices(root: &Node) -> BTreeMap<String, Vec<u64>> {
    let mut out = BTreeMap::new();
    for block in &find(root, "counters").unwrap().children {
        for slice in block.children.iter().filter(|s| s.label != "unparsed") {
            let values = slice.children.iter().filter(|c| c.label.starts_with("counter "));
            out.insert(slice.label.to_string(), values.map(|c| c.value.as_ref().unwrap().parse().unwrap()).collect());
        }
    }
    out
}

fn check_counters(rel: &str, function: &str, expected: &[u64]) {
    let root = dump(rel);
    let slices = counter_slices(&root);
    assert_eq!(slices.get(function).map(Vec::as_slice), Some(expected), "{rel}: {function}");
    // and every function whose counters the proftext lists (≤ 64, shown one by one)
    let text = proftext(&format!("{rel}.proftext"));
    let mut checked = 0;
    for (name, f) in &text {
        if let Some(counters) = slices.get(name).filter(|_| f.counters.len() <= 64) {
            assert_eq!(counters, &f.counters, "{rel}: {name}");
            checked += 1;
        }
    }
    assert!(checked * 2 > text.len(), "{rel}: only {checked} of {} functions compared", text.len());
}

#[test]
fn counters_match_the_proftext() {
    check_counters("llvm/irpgo-progA/irpgo-progA.profraw", "_Z10run_memcpyi", &[2048, 1200, 240, 1]);
    // 32-bit producer: 4-byte pointers, deltas wrapping at 2^32
    check_counters("llvm/m32-progB/m32-progB.profraw", "gate", &[100, 87, 68, 57, 5]);
}

#[test]
fn v5_absolute_counter_pointers_match_the_model() {
    let rel = "peers/llvm-profparser/llvm-11/c-general.profraw";
    let data = read(rel);
    let profile = pgolens::formats::instrprof::decode(&data, None).unwrap();
    let slices = counter_slices(&dump(rel));
    assert_eq!(slices.len(), profile.functions.len());
    for f in &profile.functions {
        let name = String::from_utf8_lossy(&f.name).into_owned();
        assert_eq!(slices.get(&name), Some(&f.counters), "{rel}: {name}");
    }
    assert!(slices.contains_key("main"));
}

/// The indirect-call entries of each value blob, per site, as `name:count`.
fn indirect_sites(blob: &Node) -> Vec<Vec<String>> {
    let Some(kind) = blob.children.iter().find(|k| k.value.as_deref().is_some_and(|v| v.starts_with("IPVK_Indirect")))
    else {
        return Vec::new();
    };
    let sites = find(kind, "site counts").unwrap().value.as_ref().unwrap();
    let n = sites.trim_matches(|c| c == '[' || c == ']').split(", ").count();
    let mut out = vec![Vec::new(); n];
    for entry in &find(kind, "values").unwrap().children {
        let site: usize = entry.label.split(' ').nth(1).unwrap().parse().unwrap();
        let value = entry.value.as_ref().unwrap();
        let (name, count) = value.rsplit_once(": ").unwrap();
        out[site].push(format!("{name}:{count}"));
    }
    out
}

#[test]
fn indirect_call_targets_match_the_proftext() {
    for rel in ["llvm/irpgo-progA/irpgo-progA.profraw", "llvm/m32-progB/m32-progB.profraw"] {
        let root = dump(rel);
        let text = proftext(&format!("{rel}.proftext"));
        let mut checked = 0;
        for block in &find(&root, "value profile data").unwrap().children {
            for blob in block.children.iter().filter(|b| b.label != "unparsed") {
                let Some(f) = text.get(blob.label.as_ref()) else { continue };
                let mut sites = indirect_sites(blob);
                let mut expected = f.indirect.clone();
                // llvm-profdata sorts each site by count; the raw file keeps insertion order
                sites.iter_mut().chain(expected.iter_mut()).for_each(|s| s.sort());
                assert_eq!(sites, expected, "{rel}: {}", blob.label);
                checked += usize::from(!expected.is_empty());
            }
        }
        assert!(checked > 0, "{rel}: no indirect-call site compared");
    }
}
