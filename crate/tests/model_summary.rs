//! The profile summary against `llvm-profdata show --detailed-summary`: for every
//! raw and indexed instrprof file in `tests/corpus/llvm` with a `.summary.txt`
//! beside it, the totals, maxima and all 16 detailed-summary lines must match.
//! Also checks the function table and details against the `.show.txt` dumps.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

mod common;

use std::path::{Path, PathBuf};

use pgolens::formats::instrprof::decode;
use pgolens::model::instrprof::{function_detail, function_table, summary, Names};
use pgolens::model::{Column, Summary};

/// The profiles of `tests/corpus/llvm`, the ones with `llvm-profdata show` dumps.
fn corpus() -> PathBuf {
    common::corpus().join("llvm")
}

/// A reference dump; a missing one fails the test.
fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn load(path: &Path) -> Result<pgolens::formats::instrprof::model::Profile, String> {
    let bytes = std::fs::read(path).unwrap();
    let elf = path.to_str().and_then(|p| p.strip_suffix(".profraw")).map(|p| PathBuf::from(format!("{p}.elf")));
    let binary = elf.filter(|e| e.exists()).map(|e| std::fs::read(e).unwrap());
    decode(&bytes, binary.as_deref()).map_err(|e| e.to_string())
}

fn number(text: &str, key: &str) -> u128 {
    let line = text.lines().find(|l| l.starts_with(key)).unwrap_or_else(|| panic!("no {key:?}"));
    line[key.len()..].trim().parse().unwrap()
}

/// The numbers both sides print.
#[derive(Debug, PartialEq)]
struct Printed {
    num_functions: u64,
    max_function_count: u64,
    max_internal_count: u64,
    num_counts: u64,
    total_count: u128,
    /// (cutoff per million, min count, number of counts), for the cutoffs the
    /// reference printed: LLVM 13–16 print 80% and up, later releases all 16.
    detailed: Vec<(u32, u64, u64)>,
}

/// What the reference prints: totals, then "N blocks (x%) with count >= M account for P% ...".
fn reference(text: &str) -> Printed {
    let detailed = text
        .lines()
        .filter_map(|line| {
            // LLVM 17 on: "N blocks (x%) with count >= M account for P% ..."; before:
            // "N blocks with count >= M account for P percentage ..."
            let (head, tail) = line.split_once(" with count >= ")?;
            let num_counts = head.split_whitespace().next()?.parse().ok()?;
            let mut words = tail.split_whitespace();
            let min_count = words.next()?.parse().ok()?;
            let percent: f64 = words.nth(2)?.trim_end_matches('%').parse().ok()?;
            Some(((percent * 10_000.0).round() as u32, min_count, num_counts))
        })
        .collect();
    Printed {
        num_functions: number(text, "Total functions:") as u64,
        max_function_count: number(text, "Maximum function count:") as u64,
        max_internal_count: number(text, "Maximum internal block count:") as u64,
        num_counts: number(text, "Total number of blocks:") as u64,
        total_count: number(text, "Total count:"),
        detailed,
    }
}

fn ours(s: &Summary, like: &Printed) -> Printed {
    Printed {
        num_functions: s.num_functions,
        max_function_count: s.max_function_count,
        max_internal_count: s.max_internal_count,
        num_counts: s.num_counts,
        total_count: s.total_count,
        detailed: s
            .detailed
            .iter()
            .filter(|e| like.detailed.iter().any(|d| d.0 == e.cutoff))
            .map(|e| (e.cutoff, e.min_count, e.num_counts))
            .collect(),
    }
}

#[test]
fn summaries_match_llvm_profdata_detailed_summary() {
    let root = corpus();
    let mut checked = Vec::new();
    let mut mismatches = Vec::new();
    let mut dirs: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files {
            let name = path.to_string_lossy().into_owned();
            if !(name.ends_with(".profraw") || name.ends_with(".profdata")) {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(format!("{name}.summary.txt")) else { continue };
            let rel = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
            let want = reference(&text);
            // The reference dumps read each file alone: llvm-profdata shows a
            // correlated raw profile without its binary as empty; pgolens says the
            // binary is needed.
            let profile = match decode(&std::fs::read(&path).unwrap(), None).map_err(|e| e.to_string()) {
                Ok(p) => p,
                Err(e) if e.contains("correlated") && want.num_functions == 0 => {
                    checked.push(rel);
                    continue;
                }
                Err(e) => {
                    mismatches.push(format!("{rel}: {e}"));
                    continue;
                }
            };
            let got = ours(&summary(&profile, false), &want);
            if want != got {
                mismatches.push(format!("{rel}:\n  llvm-profdata {want:?}\n  pgolens       {got:?}"));
            }
            checked.push(rel);
        }
    }
    assert!(checked.len() >= 45, "only {} files checked: {checked:?}", checked.len());
    assert!(checked.iter().any(|f| f.ends_with(".profraw")) && checked.iter().any(|f| f.ends_with(".profdata")));
    assert!(mismatches.is_empty(), "{} of {} differ:\n{}", mismatches.len(), checked.len(), mismatches.join("\n"));
}

/// A binary-correlated raw profile decoded with its binary summarises like the
/// indexed profile llvm-profdata merged from the two.
#[test]
fn correlated_raw_with_binary_matches_its_merged_profile() {
    let dir = corpus().join("bincorr-progB");
    let text = read_text(&dir.join("bincorr-progB.profdata.summary.txt"));
    let profile = load(&dir.join("bincorr-progB.profraw")).unwrap();
    let want = reference(&text);
    assert!(want.num_functions > 0);
    assert_eq!(ours(&summary(&profile, false), &want), want);
}

/// `  NAME:` then `    Counters: N` and `    Block counts: [a, b, ...]` in a `.show.txt`.
fn shown_functions(text: &str) -> Vec<(String, Vec<u64>)> {
    let mut out = Vec::new();
    let mut name = None;
    for line in text.lines() {
        if line.starts_with("  ") && !line.starts_with("   ") && line.ends_with(':') {
            name = Some(line.trim().trim_end_matches(':').to_string());
        } else if let (Some(counts), Some(n)) = (line.trim().strip_prefix("Block counts: ["), name.as_ref()) {
            let counts = counts.trim_end_matches(']');
            let counts = counts.split(", ").filter(|c| !c.is_empty()).map(|c| c.parse().unwrap()).collect();
            out.push((n.clone(), counts));
        }
    }
    out
}

#[test]
fn table_and_detail_agree_with_show() {
    let path = corpus().join("irpgo-progA/irpgo-progA.profdata");
    let text = read_text(Path::new(&format!("{}.show.txt", path.display())));
    let profile = load(&path).unwrap();
    let mut table = function_table(&profile);
    let shown = shown_functions(&text);
    assert_eq!(table.len(), shown.len());
    let names = Names::new(&profile);
    for (name, counts) in &shown {
        let id = (0..table.len() as u32).find(|&i| table.row(i).unwrap().raw == name.as_bytes()).unwrap();
        let row = table.row(id).unwrap();
        assert_eq!(row.stats.total, Some(counts.iter().sum()), "{name}");
        assert_eq!(function_detail(&profile, &names, id).unwrap().counters, *counts, "{name}");
    }
    // The largest total first.
    let top = table.sorted(Column::Total, true)[0];
    let best = shown.iter().map(|(_, c)| c.iter().sum::<u64>()).max().unwrap();
    assert_eq!(table.row(top).unwrap().stats.total, Some(best));
    // Indirect-call targets resolve to names.
    let id = (0..table.len() as u32)
        .find(|&i| {
            table.row(i).unwrap().raw
                == b"_ZN3geo15checksum_shapesERKSt6vectorISt10unique_ptrINS_5ShapeESt14default_deleteIS2_EESaIS5_EE"
        })
        .unwrap();
    let detail = function_detail(&profile, &names, id).unwrap();
    let first = &detail.sites[0].targets[0];
    assert_eq!((first.name.as_deref(), first.count), (Some(&b"_ZNK3geo6Circle4nameEv"[..]), 113));
}
