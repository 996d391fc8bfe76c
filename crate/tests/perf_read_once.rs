//! A perf.data is read once: binaries that arrive later name the stacks of its
//! addresses ([`Addresses::symbolize`], which is not given the recording), and the
//! result is the profile read with those binaries from the start, for every
//! corpus recording with call chains or ips, frame for frame and sample for sample.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

mod common;

use pgolens::formats::perf::PerfData;
use pgolens::model::perf::{stack_profile, PerfStacks};
use pgolens::model::stacks::{CallTree, Filter, StackProfile};
use pgolens::symbolize::Symbolizer;

/// The call tree under every event, each node as (path of frame names and DSOs, total, self).
fn named_tree(profile: &StackProfile) -> Vec<(Vec<String>, u64, u64)> {
    let mut out = Vec::new();
    for event in 0..profile.events().len() {
        let tree: CallTree = profile.call_tree(&Filter { event: u32::try_from(event).unwrap(), ..Filter::default() });
        for (i, node) in tree.nodes.iter().enumerate().skip(1) {
            let path = tree
                .path(u32::try_from(i).unwrap())
                .iter()
                .map(|&f| {
                    let frame = profile.frame_info(f).unwrap();
                    format!("{} {:?} {:?}", frame.name, profile.frame_dso(f), frame.kind)
                })
                .collect();
            out.push((path, node.total, node.self_weight));
        }
    }
    out.sort();
    out
}

#[test]
fn binaries_name_the_stacks_read_without_them() {
    let sysroot = common::corpus().join("bolt-perf/sysroot");
    let libc = std::fs::read(sysroot.join("usr/lib/x86_64-linux-gnu/libc.so.6")).unwrap();
    let libc_debug =
        std::fs::read(sysroot.join("usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug")).unwrap();
    let kallsyms = std::fs::read(sysroot.join("proc/kallsyms")).unwrap();
    let mut compared = 0;
    for program in ["cprog", "cxxprog"] {
        let dir = common::corpus().join("bolt-perf").join(program);
        let elf = std::fs::read(dir.join(program)).unwrap();
        let mut symbolizer = Symbolizer::new();
        symbolizer.add_binary(program, &elf).unwrap();
        symbolizer.add_binary("/usr/lib/x86_64-linux-gnu/libc.so.6", &libc).unwrap();
        symbolizer.add_binary("libc.so.6.debug", &libc_debug).unwrap();
        symbolizer.set_kallsyms(&kallsyms).unwrap();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if !path.to_string_lossy().ends_with(".perf.data") {
                continue;
            }
            let bytes = std::fs::read(&path).unwrap();
            let perf = PerfData::parse(&bytes).unwrap();
            let read = PerfStacks::read(&perf, &Symbolizer::new(), |_, _| {}).unwrap();
            let at_once = stack_profile(&perf, &symbolizer, |_, _| {}).unwrap();
            if read.addresses.unwinds() {
                // `--call-graph dwarf`: the binaries' call-frame information makes
                // the stacks deeper, so those are read again (see `Addresses::unwinds`).
                assert!(path.to_string_lossy().contains(".dwarf."), "{}", path.display());
                let depth = |p: &StackProfile| p.call_tree(&Filter::default()).depths().max();
                assert!(depth(&at_once) > depth(&read.profile), "{}", path.display());
                continue;
            }
            let later = read.symbolize(&symbolizer);
            assert_eq!(later.sample_count(), at_once.sample_count(), "{}", path.display());
            assert_eq!(later.time_range(), at_once.time_range(), "{}", path.display());
            let (later, at_once) = (named_tree(&later), named_tree(&at_once));
            assert!(later.len() > 3, "{}: {later:?}", path.display());
            assert_eq!(later, at_once, "{}", path.display());
            compared += 1;
        }
    }
    // fp, hifreq, multi, pipe, cpuclock, brstack, brstack-mem, bolt.* of both programs.
    assert!(compared >= 14, "only {compared} recordings compared");
}

/// What is named and what stays: without binaries the profile read is the one shown
/// (frames of addresses); with them, a frame of an address becomes its function.
#[test]
fn unsymbolized_frames_are_addresses() {
    let data = common::read("bolt-perf/cprog/cprog.fp.perf.data");
    let perf = PerfData::parse(&data).unwrap();
    let read = PerfStacks::read(&perf, &Symbolizer::new(), |_, _| {}).unwrap();
    let names = |p: &StackProfile| p.frames().iter().map(|f| f.name.clone()).collect::<Vec<_>>();
    // perf script: "129d hot_loop+0x4d (/tmp/corpusB/work/cprog/cprog)".
    assert!(names(&read.profile).contains(&"cprog+0x129d".to_string()));
    let elf = common::read("bolt-perf/cprog/cprog");
    let mut symbolizer = Symbolizer::new();
    symbolizer.add_binary("cprog", &elf).unwrap();
    let named = names(&read.symbolize(&symbolizer));
    assert!(named.contains(&"hot_loop".to_string()), "{named:?}");
    assert!(!named.iter().any(|n| n.starts_with("cprog+0x")), "{named:?}");
    // libc has no binary here: its frames stay addresses.
    assert!(named.iter().any(|n| n.starts_with("libc.so.6+0x")), "{named:?}");
}
