//! perf.data call stacks, symbolized from the corpus binaries, against `perf
//! report --stdio --no-children --sort dso,sym` of the same recordings.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::BTreeMap;

use pgolens::formats::perf::PerfData;
use pgolens::model::perf::stack_profile;
use pgolens::model::stacks::{Filter, FrameKind};
use pgolens::symbolize::Symbolizer;

/// `perf report` rows of one DSO: symbol → overhead as printed ("39.66").
fn report_rows(text: &str, dso: &str) -> BTreeMap<String, String> {
    let mut rows = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.trim_start().strip_suffix("").filter(|_| line.contains("%  ")) else { continue };
        let Some((percent, rest)) = rest.split_once("%  ") else { continue };
        if percent.contains(' ') || !line.starts_with("    ") || line.trim_start().starts_with('|') {
            continue;
        }
        let rest = rest.trim_start();
        let Some((row_dso, symbol)) = rest.split_once(' ') else { continue };
        if row_dso != dso {
            continue;
        }
        let symbol = symbol.trim_start().strip_prefix("[.] ").unwrap_or(symbol).trim_end();
        rows.insert(symbol.to_string(), percent.trim().to_string());
    }
    rows
}

/// Self samples per symbol-table function of `dso` (the last non-inlined frame of each stack).
fn self_percent(rel: &str, binary: &str, dso: &str) -> (BTreeMap<String, String>, u64) {
    let data = common::read(rel);
    let elf = common::read(binary);
    let perf = PerfData::parse(&data).unwrap();
    let mut symbolizer = Symbolizer::new();
    symbolizer.add_binary(binary, &elf).unwrap();
    let profile = stack_profile(&perf, &symbolizer, |_, _| {}).unwrap();
    let tree = profile.call_tree(&Filter { event: 0, ..Filter::default() });
    let total = tree.total();
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (i, node) in tree.nodes.iter().enumerate() {
        if node.self_weight == 0 {
            continue;
        }
        let path = tree.path(u32::try_from(i).unwrap());
        let leaf = path.iter().rev().map(|&f| profile.frame_info(f).unwrap()).find(|f| f.kind != FrameKind::Inlined);
        let Some(leaf) = leaf else { continue };
        if leaf.dso.and_then(|d| profile.dsos().get(d as usize)).map(String::as_str) == Some(dso) {
            *counts.entry(leaf.name.clone()).or_default() += node.self_weight;
        }
    }
    let percents = counts.into_iter().map(|(k, v)| (k, format!("{:.2}", v as f64 * 100.0 / total as f64))).collect();
    (percents, total)
}

#[test]
fn self_samples_match_perf_report() {
    for (rel, binary, dso) in [
        ("bolt-perf/cprog/cprog.fp.perf.data", "bolt-perf/cprog/cprog", "cprog"),
        ("bolt-perf/cprog/cprog.pipe.perf.data", "bolt-perf/cprog/cprog", "cprog"),
        ("bolt-perf/cxxprog/cxxprog.fp.perf.data", "bolt-perf/cxxprog/cxxprog", "cxxprog"),
        ("bolt-perf/cxxprog/cxxprog.hifreq.perf.data", "bolt-perf/cxxprog/cxxprog", "cxxprog"),
    ] {
        let report = std::fs::read_to_string(common::corpus().join(format!("{rel}.report.txt"))).unwrap();
        let expected = report_rows(&report, dso);
        assert!(!expected.is_empty(), "{rel}");
        let (got, total) = self_percent(rel, binary, dso);
        assert!(total > 0);
        assert_eq!(got, expected, "{rel}");
    }
}

/// Without binaries, frames are named by DSO and file offset, kernel frames by
/// address; with the binary, inlined callers appear above their functions.
#[test]
fn frame_names_without_and_with_binaries() {
    let data = common::read("bolt-perf/cprog/cprog.fp.perf.data");
    let perf = PerfData::parse(&data).unwrap();
    let bare = stack_profile(&perf, &Symbolizer::new(), |_, _| {}).unwrap();
    let names: Vec<&str> = bare.frames().iter().map(|f| f.name.as_str()).collect();
    // perf script prints this call-chain entry as "129d hot_loop+0x4d (/tmp/corpusB/work/cprog/cprog)".
    assert!(names.contains(&"cprog+0x129d"), "{names:?}");
    // and the kernel frame "ffffffff8158c375" of cprog.fp.perf.data.script-ip.txt.
    assert!(names.contains(&"[kernel.kallsyms]+0xffffffff8158c375"), "{names:?}");
    assert_eq!(bare.sample_count(), 469, "perf report: Samples: 469 of event 'cpu-clock'");

    let data = common::read("bolt-perf/cxxprog/cxxprog.fp.perf.data");
    let elf = common::read("bolt-perf/cxxprog/cxxprog");
    let perf = PerfData::parse(&data).unwrap();
    let mut symbolizer = Symbolizer::new();
    symbolizer.add_binary("cxxprog", &elf).unwrap();
    let profile = stack_profile(&perf, &symbolizer, |_, _| {}).unwrap();
    assert!(profile.frames().iter().any(|f| f.kind == FrameKind::Inlined), "DWARF inline frames");
    assert!(profile.frames().iter().any(|f| f.name.starts_with("quick_sort<")));
    // Each function's raw name (when it differs) and the line of its first
    // instruction, as `llvm-addr2line -f -e cxxprog 0x35d0` and `0x3850` print them
    // (nm: the two quick_sort instances), and `0x...` of main.
    let frame = |raw: &str| profile.frames().iter().find(|f| f.raw.as_deref() == Some(raw)).unwrap();
    let sort0 = frame("_Z10quick_sortIN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEEZ4mainE3$_0EvT_S8_T0_");
    assert!(sort0.name.starts_with("quick_sort<"), "{}", sort0.name);
    assert_eq!((sort0.file.as_deref(), sort0.line), (Some("/tmp/corpusB/work/cxxprog/src/cxxprog.cpp"), Some(52)));
    let main = profile.frames().iter().find(|f| f.name == "main" && f.kind == FrameKind::User).unwrap();
    assert_eq!(
        (main.raw.as_deref(), main.file.as_deref(), main.line),
        (None, Some("/tmp/corpusB/work/cxxprog/src/cxxprog.cpp"), Some(85))
    );
    // Inlined frames and frames without a binary say nothing of it.
    assert!(profile
        .frames()
        .iter()
        .filter(|f| f.kind == FrameKind::Inlined)
        .all(|f| f.file.is_none() && f.raw.is_none()));
    assert!(bare.frames().iter().all(|f| f.file.is_none() && f.raw.is_none()));
}

/// `--call-graph dwarf` recordings: the user stacks unwound from each sample's
/// stack copy with the binary's call-frame information. perf script (default
/// fields) lists each sample's frames; the runs of frames in the program, from the
/// sample up to the first frame elsewhere (libc, whose binary the corpus lacks),
/// must be ours, sample for sample (compared as a multiset: function names,
/// inlined frames aside).
#[test]
fn dwarf_stacks_unwind_like_perf() {
    for (rel, binary, dso) in [
        ("bolt-perf/cprog/cprog.dwarf.perf.data", "bolt-perf/cprog/cprog", "cprog"),
        ("bolt-perf/cxxprog/cxxprog.dwarf.perf.data", "bolt-perf/cxxprog/cxxprog", "cxxprog"),
    ] {
        let script = std::fs::read_to_string(common::corpus().join(format!("{rel}.script.txt"))).unwrap();
        let mut expected: BTreeMap<Vec<String>, u64> = BTreeMap::new();
        for block in script.split("\n\n").filter(|b| !b.trim().is_empty()) {
            let mut run = Vec::new();
            for line in block.lines().skip(1) {
                if line.ends_with("(inlined)") {
                    continue;
                }
                let in_binary = line.ends_with(&format!("/{dso})"));
                if !in_binary {
                    break;
                }
                let symbol = line.split_whitespace().nth(1).unwrap();
                let name = &line[line.find(symbol).unwrap()..line.rfind(" (").unwrap()];
                run.push(name.rsplit_once("+0x").map_or(name, |(n, _)| n).to_string());
            }
            *expected.entry(run).or_default() += 1;
        }

        let data = common::read(rel);
        let elf = common::read(binary);
        let perf = PerfData::parse(&data).unwrap();
        let mut symbolizer = Symbolizer::new();
        symbolizer.add_binary(binary, &elf).unwrap();
        let profile = stack_profile(&perf, &symbolizer, |_, _| {}).unwrap();
        let tree = profile.call_tree(&Filter { event: 0, ..Filter::default() });
        let mut got: BTreeMap<Vec<String>, u64> = BTreeMap::new();
        for (i, node) in tree.nodes.iter().enumerate() {
            if node.self_weight == 0 {
                continue;
            }
            let mut run = Vec::new();
            for &f in tree.path(u32::try_from(i).unwrap()).iter().rev() {
                let frame = profile.frame_info(f).unwrap();
                if frame.kind == FrameKind::Inlined {
                    continue;
                }
                if frame.dso.and_then(|d| profile.dsos().get(d as usize)).map(String::as_str) != Some(dso) {
                    break;
                }
                run.push(frame.name.clone());
            }
            *got.entry(run).or_default() += node.self_weight;
        }
        assert!(got.keys().any(|run| run.len() >= 5), "{rel}: nothing was unwound: {got:?}");
        let short = |m: &BTreeMap<Vec<String>, u64>| {
            m.iter()
                .map(|(k, v)| (k.first().map_or("", |s| &s[..s.len().min(12)]).to_string(), k.len(), *v))
                .collect::<Vec<_>>()
        };
        assert_eq!(got, expected, "{rel}: ours {:?} perf {:?}", short(&got), short(&expected));
    }
}

/// Unwinding damaged stack copies and registers ends (127 frames at most), never panics.
#[test]
fn damaged_stack_copies_unwind_safely() {
    let full = common::read("bolt-perf/cprog/cprog.dwarf.perf.data");
    let elf = common::read("bolt-perf/cprog/cprog");
    let mut symbolizer = Symbolizer::new();
    symbolizer.add_binary("cprog", &elf).unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..200 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let mut data = full.clone();
        // Flip bytes of the data section, where the registers and stack copies are.
        let at = 0x108 + (seed as usize) % (data.len() - 0x108);
        data[at] ^= (seed >> 56) as u8 | 1;
        if let Ok(perf) = PerfData::parse(&data) {
            if let Ok(profile) = stack_profile(&perf, &symbolizer, |_, _| {}) {
                let tree = profile.call_tree(&Filter { event: 0, ..Filter::default() });
                assert!(tree.nodes.iter().all(|n| n.depth <= 300));
            }
        }
    }
}
