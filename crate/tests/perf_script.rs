//! `perf script` text against what perf 6.1 printed for the same files.
//!
//! Every perf.data in the corpus (and in `tests/data/perf_script`) with a
//! `perf script` reference beside it
//! (`.script-ip.txt`: `-F comm,pid,tid,time,period,event,ip`; `.script-raw.txt`:
//! the same fields; `.script-brstack.txt`: `-F ip,brstack`) must come out byte for
//! byte when symbolized as `perf script --symfs` symbolizes it, from the corpus's
//! copy of the recording machine (`bolt-perf/sysroot/`) and the program: the
//! pipe-mode recordings print their frames' names (kernel ones from the
//! sysroot's kallsyms), the `--call-graph dwarf` ones the user stacks perf
//! unwinds through libc's CFI and the inline frames it adds from libc's debug file.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;
#[path = "common/perf_symfs.rs"]
mod perf_symfs;

use std::path::{Path, PathBuf};

use pgolens::formats::perf::script::{script_bytes, write_script_with, ScriptFields};
use pgolens::formats::perf::PerfData;

/// Every perf.data with a `perf script` reference beside it, with the field set
/// the reference was printed with.
fn cases() -> Vec<(PathBuf, ScriptFields, PathBuf)> {
    let mut out = Vec::new();
    // Besides the corpus, generated files for what it lacks (`tests/data/perf_script`,
    // with the scripts that made them): unnamed events, long names, pid -1, frame
    // limits, dropped chains, every branch flag and type.
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perf_script");
    let files = common::files_under(&common::corpus()).into_iter().chain(common::files_under(&generated));
    for path in files {
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

fn script(data: &Path, fields: ScriptFields) -> Vec<u8> {
    let bytes = std::fs::read(data).unwrap();
    let perf = PerfData::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    script_bytes(&perf, fields).unwrap_or_else(|e| panic!("{}: {e}", data.display()))
}

/// The text with the binaries and kallsyms `perf script --symfs` would read.
fn symbolized_script(data: &Path, fields: ScriptFields) -> Vec<u8> {
    let bytes = std::fs::read(data).unwrap();
    let perf = PerfData::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    let files = perf_symfs::symbol_files(&perf, perf_symfs::program_of(data).as_deref());
    let symbols = files.symbolizer();
    let mut out = Vec::new();
    write_script_with(&perf, fields, Some(&symbols), |c| {
        out.extend_from_slice(c);
        Ok::<(), ()>(())
    })
    .unwrap_or_else(|e| panic!("{}: {e:?}", data.display()));
    out
}

/// The first line where `ours` departs from `theirs`.
fn first_difference(ours: &str, theirs: &str) -> Option<String> {
    if ours == theirs {
        return None;
    }
    let (mut a, mut b) = (ours.lines(), theirs.lines());
    for line in 1.. {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) if x == y => continue,
            (x, y) => return Some(format!("line {line}: ours {x:?}, perf {y:?}")),
        }
    }
    unreachable!()
}

#[test]
fn script_matches_perf() {
    let cases = cases();
    assert!(cases.len() >= 29, "only {} references", cases.len());
    let mut failures = Vec::new();
    let (mut dwarf, mut pipe) = (0, 0);
    for (data, fields, reference) in &cases {
        let expected = std::fs::read(reference).unwrap();
        let ours = symbolized_script(data, *fields);
        let name = data.to_string_lossy();
        dwarf += usize::from(name.ends_with(".dwarf.perf.data"));
        pipe += usize::from(name.ends_with(".pipe.perf.data"));
        if ours != expected {
            let diff = first_difference(&String::from_utf8_lossy(&ours), &String::from_utf8_lossy(&expected));
            failures.push(format!("{}: {}", reference.display(), diff.unwrap_or_default()));
        }
    }
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
    assert_eq!((dwarf, pipe), (2, 2), "the dwarf and pipe recordings of cprog and cxxprog");
}

/// `--call-graph dwarf`: the user stacks unwound through libc (its `.eh_frame` in
/// the sysroot), with the inline frames perf adds, marked `(inlined)` where the
/// DWARF function is not the symbol (libc's from its debug file).
#[test]
fn dwarf_stacks_unwound_through_libc_with_inline_frames() {
    let data = common::corpus().join("bolt-perf/cprog/cprog.dwarf.perf.data");
    let text = String::from_utf8(symbolized_script(&data, ScriptFields::Samples)).unwrap();
    // qsort's msort_with_tmp, inlined into itself, below cprog's sort_ints.
    assert!(text.contains("\t           3fd35 (inlined)\n\t           3fd35\n\t            146e\n"));
    // __libc_start_call_main, then __libc_start_main (DWARF: __libc_start_main_impl), then _start.
    assert!(text.contains("\t           27249\n\t           27304 (inlined)\n\t            10d0\n"));
    // Without binaries there is nothing to unwind with: the sampled ip alone.
    let bytes = std::fs::read(&data).unwrap();
    let bare =
        String::from_utf8(script_bytes(&PerfData::parse(&bytes).unwrap(), ScriptFields::Samples).unwrap()).unwrap();
    assert!(bare.starts_with("cprog 13680/13680  3437.838547:    4000000 cpu-clock: \n\t           3fbb5\n\n"));
}

/// Pipe mode: perf prints a name after every frame; without the binaries ours is
/// perf's `[unknown]`.
#[test]
fn pipe_call_chains_name_frames_unknown() {
    let data = common::corpus().join("bolt-perf/cprog/cprog.pipe.perf.data");
    let text = String::from_utf8(script(&data, ScriptFields::Samples)).unwrap();
    let frames: Vec<&str> = text.lines().filter(|l| l.starts_with('\t')).collect();
    assert!(frames.len() > 100);
    assert!(frames.iter().all(|l| l.len() == 17 + " [unknown]".len() && l.ends_with(" [unknown]")));
}

/// Pipe mode with the binaries: frames are named as perf named them, kernel ones
/// by the sysroot's kallsyms, library ones by their debug files.
#[test]
fn pipe_call_chains_named_by_binaries() {
    for prog in ["cprog", "cxxprog"] {
        let data = common::corpus().join(format!("bolt-perf/{prog}/{prog}.pipe.perf.data"));
        let ours = String::from_utf8(symbolized_script(&data, ScriptFields::Samples)).unwrap();
        let named = |prefix: &str| ours.lines().filter(|l| l.starts_with(prefix) && !l.ends_with("[unknown]")).count();
        assert!(named("\t") > 100, "{prog}");
        assert!(named("\tffffffff") > 0, "{prog}: kernel frames named by the kallsyms");
    }
}

/// Names of events a file does not name (no EVENT_DESC): perf 6.1's
/// `evsel__add_modifiers`, as `perf script` prints them for generated files.
#[test]
fn unnamed_events_get_perfs_modifiers() {
    use pgolens::formats::perf::Attr;
    let name = |kind: u32, config: u64, flags: u64| Attr { kind, config, flags, ..Attr::default() }.default_name();
    let (exclude_user, exclude_kernel, exclude_hv, exclude_guest) = (1 << 4, 1 << 5, 1 << 6, 1 << 20);
    let precise = |level: u64| level << 15;
    // H and G only when excluding the guest is not what the other modifiers imply.
    assert_eq!(name(0, 0, 0), "cycles:HG");
    assert_eq!(name(0, 0, exclude_guest), "cycles");
    assert_eq!(name(0, 0, exclude_kernel | exclude_hv), "cycles:u");
    assert_eq!(name(0, 0, exclude_kernel | exclude_hv | exclude_guest), "cycles:uH");
    assert_eq!(name(0, 0, exclude_user | exclude_guest), "cycles:khH");
    assert_eq!(name(0, 1, precise(3) | exclude_guest), "instructions:pppH");
    assert_eq!(name(0, 0, precise(2)), "cycles:pp");
    assert_eq!(name(1, 0, 0), "cpu-clock:HG");
}

/// Corrupt input never panics the replay, the unwinder, the printer or the
/// folder: bytes flipped all over recordings with call chains, stack copies,
/// branch stacks and pipe-mode records, printed with and without binaries.
#[test]
#[allow(clippy::cast_possible_truncation)] // picking positions and bits from a random word
fn flipped_bytes_never_panic() {
    use pgolens::formats::perf::script::folded::write_folded;
    let files = [
        "bolt-perf/cprog/cprog.fp.perf.data",
        "bolt-perf/cprog/cprog.pipe.perf.data",
        "bolt-perf/cprog/cprog.dwarf.perf.data",
    ];
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perf_script");
    let mut inputs: Vec<Vec<u8>> = files.iter().map(|f| common::read(f)).collect();
    inputs.push(std::fs::read(generated.join("edge.perf.data")).unwrap());
    inputs.push(std::fs::read(generated.join("flags.perf.data")).unwrap());
    let clean = PerfData::parse(&inputs[2]).unwrap();
    let files = perf_symfs::symbol_files(&clean, Some(&common::corpus().join("bolt-perf/cprog/cprog")));
    let symbols = files.symbolizer();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let (mut printed, mut folded) = (0, 0);
    for original in &inputs {
        for _ in 0..40 {
            let mut bytes = original.clone();
            for _ in 0..8 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = (state % bytes.len() as u64) as usize;
                bytes[at] ^= (state >> 32) as u8 | 1;
            }
            if let Ok(perf) = PerfData::parse(&bytes) {
                for fields in [ScriptFields::Samples, ScriptFields::Brstack] {
                    if script_bytes(&perf, fields).is_ok() {
                        printed += 1;
                    }
                    let _ = write_script_with(&perf, fields, Some(&symbols), |_| Ok::<(), ()>(()));
                }
                for with in [None, Some(&symbols)] {
                    if write_folded(&perf, with, |_| Ok::<(), ()>(())).is_ok() {
                        folded += 1;
                    }
                }
            }
        }
    }
    // Most flips land in sample fields and still print.
    assert!(printed > 150, "only {printed} corrupted inputs printed");
    assert!(folded > 150, "only {folded} corrupted inputs folded");
}
