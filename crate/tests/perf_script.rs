//! `perf script` text against what perf 6.1 printed for the same files.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use std::path::Path;

use pgolens::formats::perf::script::{script_bytes, ScriptFields};
use pgolens::formats::perf::PerfData;

/// Our text for `data`, and the first line where it departs from `expected`.
fn first_difference(data: &Path, fields: ScriptFields, expected: &[u8]) -> Option<String> {
    let bytes = std::fs::read(data).unwrap();
    let perf = PerfData::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    let ours = script_bytes(&perf, fields).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    if ours == expected {
        return None;
    }
    let ours = String::from_utf8_lossy(&ours).into_owned();
    let theirs = String::from_utf8_lossy(expected).into_owned();
    let (mut a, mut b) = (ours.lines(), theirs.lines());
    for line in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => return Some(format!("line {line}: ours {x:?}, perf {y:?}")),
        }
    }
    unreachable!()
}

/// Every perf.data with a `perf script` reference beside it, with the field set
/// the reference was printed with.
fn cases() -> Vec<(std::path::PathBuf, ScriptFields, std::path::PathBuf)> {
    let mut out = Vec::new();
    for path in common::files_under(&common::corpus()) {
        let name = path.to_string_lossy().into_owned();
        for (suffix, fields) in [
            (".script-ip.txt", ScriptFields::Samples),
            (".script-raw.txt", ScriptFields::Samples),
            (".script-brstack.txt", ScriptFields::Brstack),
        ] {
            if let Some(data) = name.strip_suffix(suffix) {
                out.push((data.into(), fields, path.clone()));
            }
        }
    }
    out
}

#[test]
fn script_matches_perf() {
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() >= 27, "only {} references", cases.len());
    for (data, fields, reference) in &cases {
        let expected = std::fs::read(reference).unwrap();
        if let Some(diff) = first_difference(data, *fields, &expected) {
            failures.push(format!("{}: {diff}", reference.display()));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
}
