//! `pgolens merge` of fdata on any number of threads: merge-fdata's lines
//! (`*.merged.fdata`), in the order the core's `merge` gives them, and the same
//! bytes and the same errors whether the threads read whole inputs or each the
//! same part of every input.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use pgolens::formats::bolt::fdata;

fn corpus(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus").join(path)
}

/// A scratch file under the target dir.
fn scratch(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-merge");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn merge(inputs: &[PathBuf], threads: usize) -> Output {
    // The tests run at once: each merge writes a file of its own.
    static MERGES: AtomicUsize = AtomicUsize::new(0);
    let n = MERGES.fetch_add(1, Ordering::Relaxed);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli-merge").join(format!("out-{n}.fdata"));
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&out);
    let mut output = Command::new(env!("CARGO_BIN_EXE_pgolens"))
        .arg("merge")
        .args(inputs)
        .args(["--threads", &threads.to_string(), "-o"])
        .arg(&out)
        .output()
        .unwrap();
    if output.status.success() {
        output.stdout = std::fs::read(&out).unwrap();
    } else {
        // The text is written only once the merge has succeeded.
        assert!(!out.exists(), "a failed merge wrote {}", out.display());
    }
    output
}

/// The core's merge of the decoded inputs, as text.
fn merged(inputs: &[Vec<u8>]) -> Vec<u8> {
    let decoded: Vec<_> = inputs.iter().map(|d| fdata::decode(d).unwrap()).collect();
    let mut out = Vec::new();
    fdata::write(&fdata::merge(&decoded).unwrap(), &mut out);
    out
}

/// `merge` of `inputs` on each number of `threads` writes `expected`.
fn merges_to(inputs: &[PathBuf], threads: &[usize], expected: &[u8], what: &str) {
    for &threads in threads {
        let output = merge(inputs, threads);
        assert!(output.status.success(), "{what} on {threads}: {}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(output.stdout, expected, "{what} on {threads} threads");
    }
}

fn line_set(text: &[u8]) -> BTreeSet<&[u8]> {
    text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect()
}

#[test]
fn a_merge_on_any_number_of_threads_is_merge_fdatas() {
    for program in ["cprog", "cxxprog"] {
        let dir = format!("bolt-perf/{program}/{program}");
        let inputs = [corpus(&format!("{dir}.instr.fdata")), corpus(&format!("{dir}.instr2.fdata"))];
        let texts: Vec<Vec<u8>> = inputs.iter().map(|p| std::fs::read(p).unwrap()).collect();
        // Both inputs can be read in parts: the merge on two and three threads
        // takes that way.
        assert!(texts.iter().all(|t| fdata::merge_parts(t, 3).is_some()));
        let reference = std::fs::read(corpus(&format!("{dir}.merged.fdata"))).unwrap();
        let expected = merged(&texts);
        assert_eq!(line_set(&expected), line_set(&reference), "{program}");
        merges_to(&inputs, &[1, 2, 3, 8], &expected, program);
    }
}

/// Inputs whose records come in other orders, so that a record first seen late
/// in one part is seen early in another: the merge's order is still the order
/// the records were first seen in, input after input.
#[test]
fn records_come_out_in_the_order_first_seen_on_any_number_of_threads() {
    let base = std::fs::read(corpus("bolt-perf/cxxprog/cxxprog.instr.fdata")).unwrap();
    let lines: Vec<&[u8]> = base.split_inclusive(|&b| b == b'\n').collect();
    let reversed: Vec<u8> = lines.iter().rev().flat_map(|l| l.to_vec()).collect();
    let halves_swapped: Vec<u8> = [&lines[lines.len() / 2..], &lines[..lines.len() / 2]].concat().concat();
    let every_other: Vec<u8> = lines.iter().step_by(2).flat_map(|l| l.to_vec()).collect();
    let texts = [every_other, reversed, base.clone(), halves_swapped];
    let inputs: Vec<PathBuf> = texts.iter().enumerate().map(|(i, t)| scratch(&format!("order-{i}.fdata"), t)).collect();
    let expected = merged(&texts);
    merges_to(&inputs, &[1, 2, 3, 5], &expected, "reordered inputs");
}

/// An input whose records end a quarter of the way in, at a line BOLT stops at:
/// the rest is not read (a warning), on any number of threads, though a thread
/// reading a later part alone would have read it.
#[test]
fn an_input_whose_records_end_early_is_read_as_bolt_reads_it() {
    let base = std::fs::read(corpus("bolt-perf/cxxprog/cxxprog.instr.fdata")).unwrap();
    let lines: Vec<&[u8]> = base.split_inclusive(|&b| b == b'\n').collect();
    let quarter = lines[..lines.len() / 4].concat();
    let early = [&quarter[..], b"# not a record\n", &base[quarter.len()..]].concat();
    let second = std::fs::read(corpus("bolt-perf/cxxprog/cxxprog.instr2.fdata")).unwrap();
    let texts = [second, early];
    let inputs: Vec<PathBuf> = texts.iter().enumerate().map(|(i, t)| scratch(&format!("early-{i}.fdata"), t)).collect();
    let expected = merged(&texts);
    assert!(expected.len() < merged(&[texts[0].clone(), base]).len());
    merges_to(&inputs, &[1, 2, 3], &expected, "records ending early");
}

/// A failure in the second half of an input, where a thread reading that part
/// alone would count its line from the part's start: the error names the input
/// and its line in the whole file, on any number of threads.
#[test]
fn an_error_late_in_an_input_names_its_line_in_the_input() {
    let base = std::fs::read(corpus("bolt-perf/cprog/cprog.instr.fdata")).unwrap();
    let line_count = base.iter().filter(|&&b| b == b'\n').count();
    let negative = [&base[..], b"1 main 4e 1 main 50 0 -2\n"].concat();
    let extra_field = [&base[..], b"1 main 4e 1 main 50 0 2 9\n"].concat();
    let cases = [
        (negative, format!("input 2, line {}: malformed / corrupted count (negative)", line_count + 1)),
        (extra_field, format!("expected end of line (at line {}, column 25)", line_count + 1)),
    ];
    for (i, (bad, said)) in cases.iter().enumerate() {
        let bad_path = scratch(&format!("bad-{i}.fdata"), bad);
        let inputs = [
            corpus("bolt-perf/cprog/cprog.instr2.fdata"),
            bad_path.clone(),
            corpus("bolt-perf/cprog/cprog.instr.fdata"),
        ];
        let mut errors = Vec::new();
        for threads in [1, 2, 3] {
            let output = merge(&inputs, threads);
            assert!(!output.status.success(), "{i} on {threads}");
            let stderr = String::from_utf8(output.stderr).unwrap();
            assert!(
                stderr.contains(bad_path.to_str().unwrap()) && stderr.contains(said.as_str()),
                "{i} on {threads}: {stderr}"
            );
            errors.push(stderr);
        }
        assert!(errors.iter().all(|e| *e == errors[0]), "{errors:?}");
    }
}

/// A merge whose text is many times the chunk it is written out by (256 KiB):
/// the same bytes in the file `-o` names and on stdout, on one thread and on two.
#[test]
fn a_large_merge_is_written_whole_to_a_file_and_to_stdout() {
    // 40,000 records, a third of them in both inputs: about 1.5 MB of text.
    let record = |i: usize| {
        format!("1 function_{} {:x} 1 function_{} {:x} 0 {}\n", i / 50, i % 50, i / 50, i % 50 + 4, i % 7 + 1)
    };
    let a: String = (0..26_000).map(record).collect();
    let b: String = (13_000..40_000).map(record).collect();
    let texts = [a.into_bytes(), b.into_bytes()];
    let inputs: Vec<PathBuf> = texts.iter().enumerate().map(|(i, t)| scratch(&format!("large-{i}.fdata"), t)).collect();
    let expected = merged(&texts);
    assert!(expected.len() > 5 * (256 << 10), "{} bytes", expected.len());
    merges_to(&inputs, &[1, 2], &expected, "a large merge");
    let stdout = Command::new(env!("CARGO_BIN_EXE_pgolens")).arg("merge").args(&inputs).output().unwrap();
    assert!(stdout.status.success(), "{}", String::from_utf8_lossy(&stdout.stderr));
    assert_eq!(stdout.stdout, expected, "on stdout");
    // A file that cannot be written (Linux's /dev/full): the merge fails, saying why.
    #[cfg(target_os = "linux")]
    {
        let full =
            Command::new(env!("CARGO_BIN_EXE_pgolens")).arg("merge").args(&inputs).args(["-o", "/dev/full"]).output();
        let full = full.unwrap();
        assert!(!full.status.success());
        assert!(String::from_utf8_lossy(&full.stderr).contains("/dev/full: No space left on device"), "{full:?}");
    }
}
