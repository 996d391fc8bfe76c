//! Folded stacks against `perf script | inferno-collapse-perf` for the same
//! files (`tests/data/perf_folded/`, made by its `make.sh` with inferno 0.12.8
//! and perf 6.1): every corpus recording with call chains, symbolized as
//! `perf script --symfs` symbolizes it from the corpus sysroot and the program.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;
#[path = "common/perf_symfs.rs"]
mod perf_symfs;

use std::path::{Path, PathBuf};

use pgolens::formats::perf::script::folded::write_folded;
use pgolens::formats::perf::PerfData;

fn references() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/data/perf_folded")
}

fn folded(data: &Path, with_binaries: bool) -> Vec<u8> {
    let bytes = std::fs::read(data).unwrap();
    let perf = PerfData::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", data.display()));
    let files = perf_symfs::symbol_files(&perf, perf_symfs::program_of(data).as_deref());
    let symbols = files.symbolizer();
    let mut out = Vec::new();
    write_folded(&perf, with_binaries.then_some(&symbols), |c| {
        out.extend_from_slice(c);
        Ok::<(), ()>(())
    })
    .unwrap_or_else(|e| panic!("{}: {e:?}", data.display()));
    out
}

#[test]
fn folded_matches_inferno() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for reference in common::files_under(&references()) {
        let name = reference.file_name().unwrap().to_string_lossy().into_owned();
        let Some(stem) = name.strip_suffix(".folded") else { continue };
        let prog = stem.split('.').next().unwrap();
        let data = common::corpus().join(format!("bolt-perf/{prog}/{stem}.perf.data"));
        let expected = String::from_utf8(std::fs::read(&reference).unwrap()).unwrap();
        let ours = String::from_utf8(folded(&data, true)).unwrap();
        compared += 1;
        if ours != expected {
            let theirs: Vec<&str> = expected.lines().collect();
            let extra: Vec<&str> = ours.lines().filter(|l| !theirs.contains(l)).take(3).collect();
            let missing: Vec<&str> =
                theirs.iter().copied().filter(|l| !ours.lines().any(|o| o == *l)).take(3).collect();
            failures.push(format!("{name}: ours has {extra:?}, inferno {missing:?}"));
        }
    }
    assert_eq!(compared, 10, "the dwarf, fp, hifreq, pipe and multi recordings of cprog and cxxprog");
    assert!(failures.is_empty(), "{} of {compared} differ:\n{}", failures.len(), failures.join("\n"));
}

/// What the references hold, spelled out: libc's inline frames under the unwound
/// dwarf stacks, kernel frames named by the sysroot's kallsyms, and counts summed
/// from the periods.
#[test]
fn folded_stacks_carry_inline_kernel_and_period() {
    let dir = common::corpus().join("bolt-perf/cprog");
    let dwarf = String::from_utf8(folded(&dir.join("cprog.dwarf.perf.data"), true)).unwrap();
    // libc's frames by their DWARF names (inline frames, as perf prints them).
    let libc = "cprog;_start;__libc_start_main_impl;__libc_start_call_main;main;__GI___qsort_r;msort_with_tmp;";
    assert!(dwarf.lines().filter(|l| l.starts_with(libc)).count() > 3, "{dwarf}");
    let total: u64 = dwarf.lines().map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap()).sum();
    let samples = std::fs::read_to_string(dir.join("cprog.dwarf.perf.data.script.txt")).unwrap();
    assert_eq!(total, 4_000_000 * samples.lines().filter(|l| l.starts_with("cprog ")).count() as u64);
    let pipe = String::from_utf8(folded(&dir.join("cprog.pipe.perf.data"), true)).unwrap();
    assert!(pipe.contains(";entry_SYSCALL_64_after_hwframe;do_syscall_64"), "{pipe}");
    // Without binaries: the module's file name stands for each function.
    let bare = String::from_utf8(folded(&dir.join("cprog.pipe.perf.data"), false)).unwrap();
    assert!(bare.lines().all(|l| l.starts_with("cprog;")));
    assert!(bare.contains("cprog;[cprog] ") && bare.contains(";[[kernel.kallsyms]]"), "{bare}");
}
