//! `perf script` text against what perf 6.1 printed for the same files.
//!
//! Every perf.data in the corpus (and in `tests/data/perf_script`) with a
//! `perf script` reference beside it
//! (`.script-ip.txt`: `-F comm,pid,tid,time,period,event,ip`; `.script-raw.txt`:
//! the same fields; `.script-brstack.txt`: `-F ip,brstack`) must come out byte for
//! byte, with two exceptions that need more than the file:
//!
//! - pipe-mode recordings with call chains: there perf adds symbol names, found in
//!   the binaries and the recording machine's `/proc/kallsyms`. Everything but the
//!   names must match; with the corpus's copy of that machine (`bolt-perf/sysroot/`)
//!   the names match too.
//! - `--call-graph dwarf` recordings: perf unwinds the user stack copies with the
//!   binaries' CFI (and adds inline frames from their DWARF). Not compared.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use std::path::{Path, PathBuf};

use pgolens::formats::perf::script::{script_bytes, ScriptFields};
use pgolens::formats::perf::PerfData;

/// How a reference is compared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Compare {
    Exact,
    /// Call-chain frame lines cut after the address (the symbol name goes).
    WithoutSymbols,
    Skip,
}

/// Every perf.data with a `perf script` reference beside it, with the field set
/// the reference was printed with.
fn cases() -> Vec<(PathBuf, ScriptFields, PathBuf, Compare)> {
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
                let compare = if data.ends_with(".dwarf.perf.data") {
                    Compare::Skip
                } else if data.ends_with(".pipe.perf.data") {
                    Compare::WithoutSymbols
                } else {
                    Compare::Exact
                };
                out.push((data.into(), fields, path.clone(), compare));
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

/// Frame lines ("\t" + 16 columns of address + " symbol") without the symbol.
fn without_symbols(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    let mut out = String::new();
    for line in text.lines() {
        match line.strip_prefix('\t') {
            Some(frame) => {
                out.push('\t');
                out.push_str(frame.get(..16).unwrap_or(frame));
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
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
    let mut exact = 0;
    for (data, fields, reference, compare) in &cases {
        let expected = std::fs::read(reference).unwrap();
        let diff = match compare {
            Compare::Skip => continue,
            Compare::Exact => {
                exact += 1;
                let ours = script(data, *fields);
                (ours != expected).then(|| {
                    first_difference(&String::from_utf8_lossy(&ours), &String::from_utf8_lossy(&expected))
                        .unwrap_or_default()
                })
            }
            Compare::WithoutSymbols => {
                first_difference(&without_symbols(&script(data, *fields)), &without_symbols(&expected))
            }
        };
        if let Some(diff) = diff {
            failures.push(format!("{}: {diff}", reference.display()));
        }
    }
    assert!(exact >= 25, "only {exact} references compared byte for byte");
    assert!(failures.is_empty(), "{} of {} differ:\n{}", failures.len(), cases.len(), failures.join("\n"));
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

/// Pipe mode with the binaries: frames are named as perf named them. The libraries,
/// their separate debug files (found by the library's build id) and the kallsyms are
/// the recording machine's, kept in the corpus's `bolt-perf/sysroot/`.
#[test]
fn pipe_call_chains_named_by_binaries() {
    use pgolens::formats::perf::script::write_script_with;
    use pgolens::symbolize::{Binary, Symbolizer};

    let sysroot = common::corpus().join("bolt-perf/sysroot");
    let lib_dir = "usr/lib/x86_64-linux-gnu";
    let libs = ["libc.so.6", "ld-linux-x86-64.so.2", "libm.so.6", "libgcc_s.so.1", "libstdc++.so.6.0.30"];
    let read = |path: &Path| std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut debug_files = 0;
    for lib in libs {
        let bytes = read(&sysroot.join(lib_dir).join(lib));
        let id = Binary::parse(&bytes).unwrap().build_id().map(|id| id.iter().map(|b| format!("{b:02x}")).collect());
        let id: String = id.unwrap_or_default();
        let debug =
            format!("usr/lib/debug/.build-id/{}/{}.debug", id.get(..2).unwrap_or(""), id.get(2..).unwrap_or(""));
        // Debian's libc6-dbg has debug files for libc, ld.so and libm only.
        if let Ok(bytes) = std::fs::read(sysroot.join(&debug)) {
            files.push((format!("/{debug}"), bytes));
            debug_files += 1;
        }
        // The path the recording's maps name.
        files.push((format!("/{lib_dir}/{lib}"), bytes));
    }
    assert_eq!(debug_files, 3, "the debug files of libc, ld.so and libm");
    let kallsyms = read(&sysroot.join("proc/kallsyms"));
    for prog in ["cprog", "cxxprog"] {
        let dir = common::corpus().join("bolt-perf").join(prog);
        let mut all = files.clone();
        all.push((prog.to_string(), read(&dir.join(prog))));
        let mut symbols = Symbolizer::new();
        for (name, bytes) in &all {
            symbols.add_binary(name, bytes).unwrap();
        }
        symbols.set_kallsyms(&kallsyms).unwrap();
        let bytes = std::fs::read(dir.join(format!("{prog}.pipe.perf.data"))).unwrap();
        let perf = PerfData::parse(&bytes).unwrap();
        let mut ours = Vec::new();
        write_script_with(&perf, ScriptFields::Samples, Some(&symbols), |c| {
            ours.extend_from_slice(c);
            Ok::<(), ()>(())
        })
        .unwrap();
        let expected = std::fs::read(dir.join(format!("{prog}.pipe.perf.data.script-ip.txt"))).unwrap();
        let (ours, expected) = (String::from_utf8_lossy(&ours), String::from_utf8_lossy(&expected));
        let named = |prefix: &str| ours.lines().filter(|l| l.starts_with(prefix) && !l.ends_with("[unknown]")).count();
        assert!(named("\t") > 100, "{prog}");
        assert!(named("\tffffffff") > 0, "{prog}: kernel frames named by the kallsyms");
        assert_eq!(first_difference(&ours, &expected), None, "{prog}");
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

/// Corrupt input never panics the replay or the printer: bytes flipped all over
/// recordings with call chains, branch stacks and pipe-mode records.
#[test]
#[allow(clippy::cast_possible_truncation)] // picking positions and bits from a random word
fn flipped_bytes_never_panic() {
    let files = ["bolt-perf/cprog/cprog.fp.perf.data", "bolt-perf/cprog/cprog.pipe.perf.data"];
    let generated = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perf_script");
    let mut inputs: Vec<Vec<u8>> = files.iter().map(|f| common::read(f)).collect();
    inputs.push(std::fs::read(generated.join("edge.perf.data")).unwrap());
    inputs.push(std::fs::read(generated.join("flags.perf.data")).unwrap());
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut printed = 0;
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
                }
            }
        }
    }
    // Most flips land in sample fields and still print.
    assert!(printed > 100, "only {printed} corrupted inputs printed");
}
