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
use pgolens::model::perf::{stack_profile, PerfStacks};
use pgolens::model::stacks::{Filter, FrameKind, StackProfile, Transform};
use pgolens::symbolize::{Binary, Symbolizer};

/// The recordings with a `perf report --no-children --sort dso,sym` reference, and
/// their program. (The `brstack` recordings' reports are branch reports, `--sort
/// symbol_from,symbol_to`: no self time to compare.)
const REPORTED: [(&str, &str); 10] = [
    ("bolt-perf/cprog/cprog.fp.perf.data", "cprog"),
    ("bolt-perf/cprog/cprog.dwarf.perf.data", "cprog"),
    ("bolt-perf/cprog/cprog.hifreq.perf.data", "cprog"),
    ("bolt-perf/cprog/cprog.multi.perf.data", "cprog"),
    ("bolt-perf/cprog/cprog.pipe.perf.data", "cprog"),
    ("bolt-perf/cxxprog/cxxprog.fp.perf.data", "cxxprog"),
    ("bolt-perf/cxxprog/cxxprog.dwarf.perf.data", "cxxprog"),
    ("bolt-perf/cxxprog/cxxprog.hifreq.perf.data", "cxxprog"),
    ("bolt-perf/cxxprog/cxxprog.multi.perf.data", "cxxprog"),
    ("bolt-perf/cxxprog/cxxprog.pipe.perf.data", "cxxprog"),
];

/// One event's rows of a `perf report --stdio --sort dso,sym` text:
/// `    39.66%  cprog  [.] hot_loop` → (("cprog", "hot_loop"), "39.66"), per event.
fn report_rows(text: &str) -> BTreeMap<String, BTreeMap<(String, String), String>> {
    let mut events: BTreeMap<String, BTreeMap<(String, String), String>> = BTreeMap::new();
    let mut event = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("# Samples: ") {
            event = rest.split('\'').nth(1).unwrap().to_string();
            continue;
        }
        // Call-graph lines (`|`, `---`) are indented further and have no `%  `.
        let Some((percent, rest)) = line.trim_start().split_once("%  ") else { continue };
        if !line.starts_with("    ") || percent.parse::<f64>().is_err() {
            continue;
        }
        let (dso, symbol) = rest.trim_start().split_once(' ').unwrap();
        let symbol = symbol.trim_start();
        let symbol = symbol.strip_prefix("[.] ").or_else(|| symbol.strip_prefix("[k] ")).unwrap().trim_end();
        let old =
            events.entry(event.clone()).or_default().insert((dso.to_string(), symbol.to_string()), percent.into());
        assert!(old.is_none(), "{line}");
    }
    events
}

/// The recording machine's libraries, their debug files (by build id) and its
/// kallsyms, from the corpus's `bolt-perf/sysroot/`, under the paths the recordings'
/// maps name; and `program`'s binary.
fn sysroot_files(program: &str) -> (Vec<(String, Vec<u8>)>, Vec<u8>) {
    let sysroot = common::corpus().join("bolt-perf/sysroot");
    let lib_dir = "usr/lib/x86_64-linux-gnu";
    let mut files = Vec::new();
    for lib in ["libc.so.6", "ld-linux-x86-64.so.2", "libm.so.6", "libgcc_s.so.1", "libstdc++.so.6.0.30"] {
        let bytes = std::fs::read(sysroot.join(lib_dir).join(lib)).unwrap();
        let id: String =
            Binary::parse(&bytes).unwrap().build_id().unwrap().iter().map(|b| format!("{b:02x}")).collect();
        let debug = format!("usr/lib/debug/.build-id/{}/{}.debug", &id[..2], &id[2..]);
        if let Ok(debug_bytes) = std::fs::read(sysroot.join(&debug)) {
            files.push((format!("/{debug}"), debug_bytes));
        }
        files.push((format!("/{lib_dir}/{lib}"), bytes));
    }
    files.push((program.to_string(), common::read(&format!("bolt-perf/{program}/{program}"))));
    (files, std::fs::read(sysroot.join("proc/kallsyms")).unwrap())
}

/// The Functions table's self weight per (DSO, function name) and event, as
/// percentages of the event's samples printed as perf prints them (`%.2f`).
fn functions_self(profile: &StackProfile) -> BTreeMap<String, BTreeMap<(String, String), String>> {
    let mut out = BTreeMap::new();
    for (event, name) in profile.events().iter().enumerate() {
        let rows = profile.functions(&Filter { event: event as u32, ..Filter::default() });
        let total: u64 = rows.iter().map(|r| r.self_weight).sum();
        let mut by_name: BTreeMap<(String, String), u64> = BTreeMap::new();
        for r in rows.iter().filter(|r| r.self_weight > 0) {
            let frame = profile.frame_info(r.frame).unwrap();
            let dso = profile.frame_dso(r.frame).unwrap_or("").to_string();
            *by_name.entry((dso, frame.name.clone())).or_default() += r.self_weight;
        }
        let percents =
            by_name.into_iter().map(|(k, v)| (k, format!("{:.2}", v as f64 * 100.0 / total as f64))).collect();
        out.insert(name.clone(), percents);
    }
    out
}

/// With the binaries (the program, the recording machine's libraries and their
/// debug files), the Functions table's self column is `perf report --no-children
/// --sort dso,sym`, row for row to the hundredth of a percent, for every recording
/// with a report (both events of the `multi` ones): a sample's self time goes to
/// the function whose code holds its address, not to a function inlined there.
///
/// Kernel rows: the corpus's kallsyms is that of the boot (kernel `6.18.44-fc-v782`)
/// that recorded the pipe-mode files, which are compared by name with it. The other
/// recordings ran on another kernel (`-v657`, their headers' `os release`) whose
/// kallsyms the corpus lacks: their names are unknowable here, so their kernel
/// rows are compared by the samples they add up to (each row's percentage is a
/// whole number of samples); `functions_self_matches_perf_report_without_binaries`
/// checks those samples' addresses. Likewise the addresses of a library that no
/// symbol covers (perf report: a row per address, `[.] 0x38b7`; perf script and
/// the frames here: `[unknown]`) are compared by their samples per DSO.
#[test]
fn functions_self_matches_perf_report_with_binaries() {
    // The rows `lumped` picks, replaced by one row per DSO named `as_name` with
    // their samples: each row's percentage is that of a whole number of samples of
    // the event's `total`.
    let lump = |rows: &mut BTreeMap<(String, String), String>,
                total: u64,
                lumped: &dyn Fn(&str, &str) -> bool,
                as_name: &str| {
        let mut samples: BTreeMap<String, u64> = BTreeMap::new();
        rows.retain(|(dso, name), pct| {
            if !lumped(dso, name) {
                return true;
            }
            let n = (pct.parse::<f64>().unwrap() * total as f64 / 100.0).round() as u64;
            assert_eq!(format!("{:.2}", n as f64 * 100.0 / total as f64), *pct);
            *samples.entry(dso.clone()).or_default() += n;
            false
        });
        for (dso, n) in samples {
            rows.insert((dso, as_name.to_string()), format!("{:.2}", n as f64 * 100.0 / total as f64));
        }
    };
    let mut checked = 0;
    for (rel, program) in REPORTED {
        let report = std::fs::read_to_string(common::corpus().join(format!("{rel}.report.txt"))).unwrap();
        let mut expected = report_rows(&report);
        assert!(!expected.is_empty(), "{rel}");
        let (files, kallsyms) = sysroot_files(program);
        let mut symbolizer = Symbolizer::new();
        for (name, bytes) in &files {
            symbolizer.add_binary(name, bytes).unwrap();
        }
        let same_boot = rel.ends_with(".pipe.perf.data");
        if same_boot {
            symbolizer.set_kallsyms(&kallsyms).unwrap();
        }
        let data = common::read(rel);
        let profile = stack_profile(&PerfData::parse(&data).unwrap(), &symbolizer, |_, _| {}).unwrap();
        let mut got = functions_self(&profile);
        checked += expected.values().map(BTreeMap::len).sum::<usize>();
        for (event, name) in profile.events().iter().enumerate() {
            let rows = profile.functions(&Filter { event: event as u32, ..Filter::default() });
            let total = rows.iter().map(|r| r.self_weight).sum();
            let (ours, perf) = (got.get_mut(name).unwrap(), expected.get_mut(name).unwrap());
            // Addresses of a binary that no symbol covers: perf script names them
            // `[unknown]`, and so do we, in one row per DSO; perf report gives
            // each its row, `[.] 0x00000000000038b7`. Compared by their samples.
            let unknown = |dso: &str, name: &str| dso != "[kernel.kallsyms]" && name.starts_with("0x");
            lump(perf, total, &unknown, "[unknown]");
            lump(ours, total, &|_, name| name == "[unknown]", "[unknown]");
            if !same_boot {
                let kernel = |dso: &str, _: &str| dso == "[kernel.kallsyms]";
                lump(perf, total, &kernel, "(kernel)");
                lump(ours, total, &kernel, "(kernel)");
            }
        }
        assert_same(&got, &expected, rel);
    }
    assert_eq!(checked, 246, "perf report rows compared");
}

/// `ours == perf`, saying which rows differ.
fn assert_same<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    ours: &BTreeMap<String, BTreeMap<K, V>>,
    perf: &BTreeMap<String, BTreeMap<K, V>>,
    rel: &str,
) {
    let mut diff = Vec::new();
    let events: std::collections::BTreeSet<&String> = ours.keys().chain(perf.keys()).collect();
    for event in events {
        let (a, b) = (ours.get(event), perf.get(event));
        let keys: std::collections::BTreeSet<&K> = a.into_iter().chain(b).flat_map(BTreeMap::keys).collect();
        for k in keys {
            let (x, y) = (a.and_then(|m| m.get(k)), b.and_then(|m| m.get(k)));
            if x != y {
                diff.push(format!("{event} {k:?}: ours {x:?}, perf {y:?}"));
            }
        }
    }
    assert!(diff.is_empty(), "{rel}:\n{}", diff.join("\n"));
}

/// The case of the issue: in `cxxprog.fp.perf.data`, perf gives 83.44% of the
/// samples to `quick_sort<..., main::$_0>`, whose code holds its inlined callees'.
#[test]
fn quick_sort_holds_its_inlined_callees_self_time() {
    let (files, _) = sysroot_files("cxxprog");
    let mut symbolizer = Symbolizer::new();
    for (name, bytes) in &files {
        symbolizer.add_binary(name, bytes).unwrap();
    }
    let data = common::read("bolt-perf/cxxprog/cxxprog.fp.perf.data");
    let profile = stack_profile(&PerfData::parse(&data).unwrap(), &symbolizer, |_, _| {}).unwrap();
    let sort = "quick_sort<__gnu_cxx::__normal_iterator<int*, std::vector<int, std::allocator<int> > >, main::$_0>";
    let got = functions_self(&profile);
    let row = &got["cpu-clock"][&("cxxprog".to_string(), sort.to_string())];
    assert_eq!(row, "83.44");
    // Its inlined callees keep their totals, with no self time.
    let rows = profile.functions(&Filter::default());
    let inlined: Vec<_> =
        rows.iter().filter(|r| profile.frame_info(r.frame).unwrap().kind == FrameKind::Inlined).collect();
    assert!(!inlined.is_empty());
    assert!(inlined.iter().all(|r| r.self_weight == 0 && r.total > 0));
    // Folded, the inlined frames are gone and quick_sort's self time is the same.
    let folded = Filter { transforms: vec![Transform::FoldInlined], ..Filter::default() };
    let folded_rows = profile.functions(&folded);
    assert!(folded_rows.iter().all(|r| profile.frame_info(r.frame).unwrap().kind != FrameKind::Inlined));
    let self_of = |rows: &[pgolens::model::stacks::FunctionStats]| {
        rows.iter().find(|r| profile.frame_info(r.frame).unwrap().name == sort).unwrap().self_weight
    };
    assert_eq!(self_of(&folded_rows), self_of(&rows));
    assert_eq!(profile.call_tree(&folded).total(), profile.call_tree(&Filter::default()).total());
}

/// Without binaries perf has no symbols either: it prints one row per sampled
/// address, `[.] 0x0000000000001297` in the DSO (`[k] 0xffffffff8160ddfc` in the
/// kernel), and so does the Functions table, naming the address `cprog+0x1297`
/// (`[kernel.kallsyms]+0xffffffff8160ddfc`). "Matches" then means: the same rows
/// (DSO and address) with the same percentages to the hundredth, against perf run
/// the same way (no binaries, no kallsyms, no build-id cache:
/// `tests/data/perf-report-nosym/make.sh`, whose output is committed beside it).
#[test]
fn functions_self_matches_perf_report_without_binaries() {
    let mut checked = 0;
    for (rel, _) in REPORTED {
        let name = rel.rsplit('/').next().unwrap();
        let path = common::crate_dir().join(format!("../tests/data/perf-report-nosym/{name}.report-nosym.txt"));
        let expected = report_rows(&std::fs::read_to_string(path).unwrap());
        let data = common::read(rel);
        let profile = stack_profile(&PerfData::parse(&data).unwrap(), &Symbolizer::new(), |_, _| {}).unwrap();
        // Ours as perf prints them: `dso+0x1297` → (dso, "0x0000000000001297").
        let got: BTreeMap<_, BTreeMap<_, _>> = functions_self(&profile)
            .into_iter()
            .map(|(event, rows)| {
                let rows = rows
                    .into_iter()
                    .map(|((dso, name), pct)| {
                        let address = name.strip_prefix(&format!("{dso}+0x")).unwrap_or_else(|| panic!("{name}"));
                        let address = u64::from_str_radix(address, 16).unwrap();
                        ((dso, format!("{address:#018x}")), pct)
                    })
                    .collect();
                (event, rows)
            })
            .collect();
        checked += expected.values().map(BTreeMap::len).sum::<usize>();
        assert_same(&got, &expected, rel);
    }
    assert_eq!(checked, 967, "perf report rows compared");
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
    let frame = |raw: &str| profile.frames().iter().find(|f| f.raw() == Some(raw)).unwrap();
    let sort0 = frame("_Z10quick_sortIN9__gnu_cxx17__normal_iteratorIPiSt6vectorIiSaIiEEEEZ4mainE3$_0EvT_S8_T0_");
    assert!(sort0.name.starts_with("quick_sort<"), "{}", sort0.name);
    assert_eq!((sort0.file(), sort0.line()), (Some("/tmp/corpusB/work/cxxprog/src/cxxprog.cpp"), Some(52)));
    let main = profile.frames().iter().find(|f| f.name == "main" && f.kind == FrameKind::User).unwrap();
    assert_eq!(
        (main.raw(), main.file(), main.line()),
        (None, Some("/tmp/corpusB/work/cxxprog/src/cxxprog.cpp"), Some(85))
    );
    // Inlined frames and frames without a binary say nothing of it.
    assert!(profile
        .frames()
        .iter()
        .filter(|f| f.kind == FrameKind::Inlined)
        .all(|f| f.file().is_none() && f.raw().is_none()));
    assert!(bare.frames().iter().all(|f| f.file().is_none() && f.raw().is_none()));
}

/// `--call-graph dwarf` recordings: the user stacks unwound from each sample's
/// stack copy with the binary's call-frame information. perf script (default
/// fields) lists each sample's frames; the runs of frames in the program, from the
/// sample up to the first frame elsewhere (libc, not given here),
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

/// With the recording machine's libraries beside the program, each with its
/// separate debug file (same build id, more symbols, but no `.eh_frame` bytes: the
/// library's own file must be the one unwound with), the whole user stack unwinds
/// as perf's does, through libc's frames up to `_start`. Compared by address,
/// sample for sample as a multiset: perf script's DSO-relative addresses (one line
/// per inline level, so repeats are merged on both sides; perf's closing
/// `ffffffffffffffff`, libunwind reading past the copy, left out) against the
/// unsymbolized stacks' `dso+0xoffset` frames (each caller at its return address
/// less one, as perf lists it).
#[test]
fn dwarf_stacks_unwind_through_the_sysroot_like_perf() {
    fn merged(addresses: impl Iterator<Item = u64>) -> Vec<u64> {
        let mut out: Vec<u64> = Vec::new();
        for a in addresses {
            if out.last() != Some(&a) {
                out.push(a);
            }
        }
        out
    }
    for program in ["cprog", "cxxprog"] {
        let rel = format!("bolt-perf/{program}/{program}.dwarf.perf.data");
        let script = std::fs::read_to_string(common::corpus().join(format!("{rel}.script-ip.txt"))).unwrap();
        let mut expected: BTreeMap<Vec<u64>, u64> = BTreeMap::new();
        for block in script.split("\n\n").filter(|b| !b.trim().is_empty()) {
            let addresses = block.lines().skip(1).map(|l| l.split_whitespace().next().unwrap());
            let stack =
                merged(addresses.filter(|a| *a != "ffffffffffffffff").map(|a| u64::from_str_radix(a, 16).unwrap()));
            *expected.entry(stack).or_default() += 1;
        }

        let (files, _) = sysroot_files(program);
        let mut symbolizer = Symbolizer::new();
        for (name, bytes) in &files {
            symbolizer.add_binary(name, bytes).unwrap();
        }
        let data = common::read(&rel);
        let stacks = PerfStacks::read(&PerfData::parse(&data).unwrap(), &symbolizer, |_, _| {}).unwrap();
        let profile = &stacks.profile;
        let tree = profile.call_tree(&Filter { event: 0, ..Filter::default() });
        let mut got: BTreeMap<Vec<u64>, u64> = BTreeMap::new();
        let mut deepest = 0;
        for (i, node) in tree.nodes.iter().enumerate().filter(|(_, n)| n.self_weight > 0) {
            let path = tree.path(u32::try_from(i).unwrap());
            let offsets = path.iter().rev().map(|&f| {
                let name = &profile.frame_info(f).unwrap().name;
                u64::from_str_radix(name.rsplit_once("+0x").unwrap().1, 16).unwrap()
            });
            let stack = merged(offsets);
            deepest = deepest.max(stack.len());
            *got.entry(stack).or_default() += node.self_weight;
        }
        assert!(deepest >= 5, "{rel}: unwound no further than {deepest} frames");
        assert_eq!(got, expected, "{rel}");

        // Named, cprog's frames are perf's (inline frames from libc's debug file
        // included; a caller is named at its call, not at its return address: that
        // gave `call_init` above `__libc_start_call_main`), except where perf names
        // a function by DWARF (`(inlined)`) and the flame graph by its symbol.
        if program == "cprog" {
            let named = stacks.symbolize(&symbolizer);
            let tree = named.call_tree(&Filter::default());
            let mut ours = std::collections::BTreeSet::new();
            for (i, _) in tree.nodes.iter().enumerate().filter(|(_, n)| n.self_weight > 0) {
                for &f in &tree.path(u32::try_from(i).unwrap()) {
                    ours.insert(named.frame_info(f).unwrap().name.clone());
                }
            }
            let text = std::fs::read_to_string(common::corpus().join(format!("{rel}.script.txt"))).unwrap();
            let mut theirs = std::collections::BTreeSet::new();
            for line in text.lines().filter(|l| l.starts_with('\t')) {
                let symbol = line.split_whitespace().nth(1).unwrap();
                let name = &line[line.find(symbol).unwrap()..line.rfind(" (").unwrap()];
                theirs.insert(name.rsplit_once("+0x").map_or(name, |(n, _)| n).to_string());
            }
            let only = |a: &std::collections::BTreeSet<String>, b| a.difference(b).cloned().collect::<Vec<_>>();
            assert_eq!(only(&ours, &theirs), ["__libc_start_main@@GLIBC_2.34", "msort_with_tmp.part.0"]);
            assert_eq!(only(&theirs, &ours), ["__libc_start_main_impl"]);
        }
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
                assert!(tree.depths().all(|d| d <= 300));
            }
        }
    }
}
