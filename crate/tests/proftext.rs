//! The instrprof text export against `llvm-profdata merge --text`: every raw and
//! indexed profile in `tests/corpus/` with a `.proftext` beside it must come
//! out byte for byte the same; the raw v5/v7/v9 files no installed llvm-profdata
//! could read (`.reference-error.txt`) must decode, and agree with their siblings
//! from other LLVM releases where the program is the same.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::panic)]

mod common;

use std::path::{Path, PathBuf};

use common::{corpus, files_under};
use pgolens::formats::instrprof::{decode, proftext};
use pgolens::Format;

fn export(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).unwrap();
    // A correlated raw profile's binary is kept beside it as NAME.elf.
    let elf = path.to_str().and_then(|p| p.strip_suffix(".profraw")).map(|p| PathBuf::from(format!("{p}.elf")));
    let binary = elf.filter(|e| e.exists()).map(|e| std::fs::read(e).unwrap());
    let profile = decode(&bytes, binary.as_deref()).map_err(|e| e.to_string())?;
    Ok(proftext::to_string(&profile))
}

fn is_instrprof(bytes: &[u8]) -> bool {
    let detection = pgolens::open(bytes).and_then(|i| i.detect());
    matches!(detection.map(|d| d.format), Ok(Format::InstrProfRaw | Format::InstrProfIndexed))
}

/// Files whose text export cannot match yet, and why (none at the moment).
const KNOWN_MISMATCHES: [(&str, &str); 0] = [];

#[test]
fn text_export_matches_llvm_profdata_byte_for_byte() {
    let root = corpus();
    let mut files = Vec::new();
    for dir in ["llvm", "peers/llvm-profparser"] {
        files.extend(files_under(&root.join(dir)));
    }
    let mut checked = 0;
    let mut failures = Vec::new();
    for path in &files {
        let reference = PathBuf::from(format!("{}.proftext", path.display()));
        if !reference.exists() || !is_instrprof(&std::fs::read(path).unwrap()) {
            continue;
        }
        let rel = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
        let expected = std::fs::read_to_string(&reference).unwrap();
        checked += 1;
        let known = KNOWN_MISMATCHES.iter().find(|(f, _)| *f == rel);
        match (export(path), known) {
            (Ok(text), None) if text == expected => {}
            (Ok(text), Some(_)) if text == expected => {
                failures.push(format!("{rel}: matches now; drop it from KNOWN_MISMATCHES"))
            }
            (_, Some(_)) => {}
            (Err(e), None) => failures.push(format!("{rel}: {e}")),
            (Ok(text), None) => {
                let (n, ours, theirs) = text
                    .lines()
                    .chain(std::iter::repeat("<end>"))
                    .zip(expected.lines().chain(std::iter::repeat("<end>")))
                    .enumerate()
                    .find(|(_, (a, b))| a != b)
                    .map(|(n, (a, b))| (n + 1, a, b))
                    .unwrap_or((0, "", "(trailing newline)"));
                failures.push(format!("{rel}: line {n}: ours {ours:?}, llvm-profdata {theirs:?}"));
            }
        }
    }
    assert!(checked >= 120, "only {checked} files with a .proftext found");
    assert!(failures.is_empty(), "{} of {checked} files differ:\n{}", failures.len(), failures.join("\n"));
}

/// The text with every function hash replaced, for comparing the same program's
/// profiles from LLVM releases that hash functions differently.
fn without_hashes(text: &str) -> String {
    let mut out = String::new();
    let mut after_hash = false;
    for line in text.lines() {
        out.push_str(if after_hash { "<hash>" } else { line });
        out.push('\n');
        after_hash = line == "# Func Hash:";
    }
    out
}

fn peer(rel: &str) -> PathBuf {
    corpus().join("peers/llvm-profparser").join(rel)
}

#[test]
fn raw_files_llvm_profdata_22_cannot_read_still_decode() {
    // (file, functions, sibling whose text matches apart from the hashes)
    let cases = [
        ("llvm-11/c-general.profraw", 12, None),
        ("llvm-11/compressed.profraw", 12, None),
        ("llvm-11/simple_project.profraw", 5, None),
        ("llvm-12/c-general.profraw", 12, None),
        ("llvm-12/compressed.profraw", 12, None),
        // raw v7 from a development compiler: relative CounterPtr already
        ("llvm-13/compressed.profraw", 12, Some("llvm-14/compressed.profraw.proftext")),
        ("llvm-18/basic.profraw", 1, Some("llvm-17/basic.profraw.proftext")),
        ("llvm-18/c-general.profraw", 12, Some("llvm-19/c-general.profraw.proftext")),
        ("llvm-18/compressed.profraw", 12, Some("llvm-19/c-general.profraw.proftext")),
    ];
    for (rel, functions, sibling) in cases {
        assert!(peer(&format!("{rel}.reference-error.txt")).exists(), "{rel}");
        let text = export(&peer(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert_eq!(text.matches("# Func Hash:").count(), functions, "{rel}");
        if let Some(sibling) = sibling {
            let expected = std::fs::read_to_string(peer(sibling)).unwrap();
            assert_eq!(without_hashes(&text), without_hashes(&expected), "{rel} vs {sibling}");
        }
    }
    // The raw v5 files of LLVM 11 and 12 hold the same run; compressed or not.
    let v5 = export(&peer("llvm-11/c-general.profraw")).unwrap();
    assert_eq!(export(&peer("llvm-12/c-general.profraw")).unwrap(), v5);
    assert_eq!(export(&peer("llvm-11/compressed.profraw")).unwrap(), v5);
    // LLVM 11 had no counters around logical operators yet: boolean_operators
    // has 8 counters there and 14 from LLVM 13 on; main's entry count is 1.
    let profile = decode(&std::fs::read(peer("llvm-11/c-general.profraw")).unwrap(), None).unwrap();
    let main = profile.functions.iter().find(|f| f.name == b"main").unwrap();
    assert_eq!(main.counters.first(), Some(&1));
}

#[test]
fn correlated_raw_profiles_need_their_binary() {
    let raw = std::fs::read(corpus().join("llvm/bincorr-progB/bincorr-progB.profraw")).unwrap();
    let err = decode(&raw, None).unwrap_err();
    assert!(err.to_string().contains("instrumented binary"), "{err}");
    let raw = std::fs::read(corpus().join("llvm/dbgcorr-progB/dbgcorr-progB.profraw")).unwrap();
    let err = decode(&raw, None).unwrap_err();
    assert!(err.to_string().contains("instrumented binary"), "{err}");
    // Debug-info correlation with the binary's DWARF: the 18 __profc_ variables.
    let elf = std::fs::read(corpus().join("llvm/dbgcorr-progB/dbgcorr-progB.elf")).unwrap();
    assert_eq!(decode(&raw, Some(&elf)).unwrap().functions.len(), 18);
}
