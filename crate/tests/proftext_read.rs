//! The instrprof text reader against the corpus: every `.proftext` that
//! `llvm-profdata merge --text` wrote (the ones beside the profile they were made
//! from, `F.proftext` for a file `F`) must read back and write out byte for byte;
//! LLVM's own hand-written test inputs among the peers must read, or fail at the
//! line and column that is wrong.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, files_under};
use pgolens::formats::instrprof::{decode, decode_text, proftext};
use pgolens::{Format, Location};

fn proftexts() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for dir in ["llvm", "peers/llvm-profparser"] {
        files.extend(files_under(&corpus().join(dir)));
    }
    files.retain(|p| p.extension().is_some_and(|e| e == "proftext"));
    files
}

fn format_of(bytes: &[u8]) -> Option<Format> {
    pgolens::open(bytes).and_then(|i| i.detect()).ok().map(|d| d.format)
}

fn rel(path: &Path) -> String {
    path.strip_prefix(corpus()).unwrap().to_string_lossy().into_owned()
}

/// The first line where two texts differ.
fn first_difference(ours: &str, theirs: &str) -> String {
    let (n, a, b) = ours
        .lines()
        .chain(std::iter::repeat("<end>"))
        .zip(theirs.lines().chain(std::iter::repeat("<end>")))
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .map(|(n, (a, b))| (n + 1, a, b))
        .unwrap_or((0, "", "(trailing newline)"));
    format!("line {n}: ours {a:?}, llvm-profdata {b:?}")
}

#[test]
fn llvm_profdata_text_reads_back_byte_for_byte() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in proftexts() {
        // Written by llvm-profdata: the profile it was made from is beside it.
        let source = path.with_extension("");
        let bytes = std::fs::read(&path).unwrap();
        if !source.is_file() || format_of(&bytes) != Some(Format::InstrProfText) {
            continue;
        }
        checked += 1;
        let text = String::from_utf8(bytes.clone()).unwrap();
        match decode(&bytes, None) {
            Ok(profile) => {
                let out = proftext::to_string(&profile);
                if out != text {
                    failures.push(format!("{}: {}", rel(&path), first_difference(&out, &text)));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", rel(&path))),
        }
    }
    eprintln!("{checked} llvm-profdata text files read back byte for byte");
    assert!(checked >= 120, "only {checked} llvm-profdata text files found");
    assert!(failures.is_empty(), "{} of {checked} differ:\n{}", failures.len(), failures.join("\n"));
}

/// What LLVM's `TextInstrProfReader` does with its malformed test inputs, and
/// where we stop: (file name, line, column, message fragment).
const MALFORMED: [(&str, u64, u64, &str); 7] = [
    // "badhash": getAsInteger(0) fails → "function hash is not a valid integer"
    ("bad-hash.proftext", 2, 1, "bad function hash"),
    // the 4th line "1later": "count is invalid"
    ("invalid-count-later.proftext", 4, 2, "bad counter"),
    // NumCounters 0: "number of counters is zero"
    ("no-counts.proftext", 3, 1, "number of counters is zero"),
    // "extra 1 word" is a name (spaces are fine), hash 1, then the input ends: truncated
    ("extra-word.proftext", 3, 1, "number of counters"),
    // "foo+100" has no ':', so its count is empty: malformed
    ("vp-malform.proftext", 39, 8, "bad count in value:count"),
    // a site announces 2 values, the second line is the next site's count "1": malformed
    ("vp-malform2.proftext", 31, 2, "bad count in value:count"),
    // the third site's value count is missing: truncated
    ("vp-truncate.proftext", 37, 1, "expected value profile data, found end of input"),
];

#[test]
fn llvm_test_inputs_read_or_fail_where_llvm_does() {
    let mut seen = 0;
    let mut decoded = 0;
    let mut failures = Vec::new();
    for path in proftexts() {
        if path.with_extension("").is_file() || !rel(&path).starts_with("peers/") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        // Sample-profile text files share the extension; empty.proftext detects as nothing.
        if format_of(&bytes) != Some(Format::InstrProfText) {
            continue;
        }
        let name = path.file_name().unwrap().to_str().unwrap();
        let expected = MALFORMED.iter().find(|m| m.0 == name);
        match (decode_text::decode(&bytes), expected) {
            (Ok(profile), None) => {
                decoded += 1;
                // Writing and reading again changes nothing.
                let text = proftext::to_string(&profile);
                let again = proftext::to_string(&decode_text::decode(text.as_bytes()).unwrap());
                if again != text {
                    failures.push(format!("{}: not stable: {}", rel(&path), first_difference(&again, &text)));
                }
            }
            (Err(e), Some(&(_, line, column, what))) => {
                seen += 1;
                let ok = e.location == Location::Line { line, column } && e.to_string().contains(what);
                if !ok {
                    failures.push(format!("{}: expected {what} at {line}:{column}, got {e}", rel(&path)));
                }
            }
            (Ok(_), Some(_)) => failures.push(format!("{}: decoded, LLVM rejects it", rel(&path))),
            (Err(e), None) => failures.push(format!("{}: {e}", rel(&path))),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{decoded} LLVM test inputs decode, {seen} fail where LLVM's reader does");
    assert!(decoded >= 100 && seen >= 40, "decoded {decoded}, malformed {seen}");
}
