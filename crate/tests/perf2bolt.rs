//! perf2bolt's LBR aggregation against the fdata perf2bolt (BOLT 22) wrote for the
//! same perf.data and binary: the same set of lines, order aside.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::BTreeMap;

use pgolens::formats::bolt::yaml;
use pgolens::formats::perf::perf2bolt::{self, binary::Binary};
use pgolens::formats::perf::PerfData;

/// Lines with their multiplicity.
fn lines(text: &str) -> BTreeMap<&str, usize> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        *out.entry(line).or_default() += 1;
    }
    out
}

fn export(perf: &str, binary: &str) -> String {
    let data = common::read(perf);
    let elf = common::read(binary);
    let perf = PerfData::parse(&data).unwrap();
    let binary_name = binary.rsplit('/').next().unwrap();
    let binary = Binary::parse(&elf).unwrap();
    perf2bolt::aggregate(&perf, &binary, binary_name.as_bytes()).unwrap().to_fdata()
}

/// Lines only one side has, for the failure message.
fn difference(ours: &str, theirs: &str) -> String {
    let (a, b) = (lines(ours), lines(theirs));
    let mut out = String::new();
    for (line, n) in &a {
        if b.get(line) != Some(n) {
            out.push_str(&format!("  ours   {n}x {line}\n"));
        }
    }
    for (line, n) in &b {
        if a.get(line) != Some(n) {
            out.push_str(&format!("  theirs {n}x {line}\n"));
        }
    }
    out
}

#[test]
fn lbr_profiles_match_perf2bolt() {
    let mut checked = 0;
    for prog in ["cprog", "cxxprog"] {
        for case in ["brstack", "brstack-mem"] {
            let perf = format!("bolt-perf/{prog}/{prog}.{case}.perf.data");
            let fdata = format!("bolt-perf/{prog}/{prog}.{case}.fdata");
            let ours = export(&perf, &format!("bolt-perf/{prog}/{prog}"));
            let theirs = String::from_utf8(common::read(&fdata)).unwrap();
            assert!(lines(&ours) == lines(&theirs), "{fdata}:\n{}", difference(&ours, &theirs));
            checked += 1;
        }
    }
    assert_eq!(checked, 4);
}

/// `perf2bolt --ba` (basic samples): the `no_lbr` profiles of the cpu-clock recordings.
#[test]
fn basic_profiles_match_perf2bolt_ba() {
    for prog in ["cprog", "cxxprog"] {
        let data = common::read(&format!("bolt-perf/{prog}/{prog}.cpuclock.perf.data"));
        let elf = common::read(&format!("bolt-perf/{prog}/{prog}"));
        let perf = PerfData::parse(&data).unwrap();
        let binary = Binary::parse(&elf).unwrap();
        let ours = perf2bolt::aggregate_basic(&perf, &binary, prog.as_bytes()).unwrap().to_fdata();
        let fdata = format!("bolt-perf/{prog}/{prog}.nolbr.fdata");
        let theirs = String::from_utf8(common::read(&fdata)).unwrap();
        assert!(lines(&ours) == lines(&theirs), "{fdata}:\n{}", difference(&ours, &theirs));
        assert!(ours.starts_with("no_lbr cpu-clock:\n"));
    }
}

/// perf2bolt --ba cannot read a recording with call chains (`malformed field`).
#[test]
fn basic_aggregation_of_call_chains_is_an_error() {
    let perf = common::read("bolt-perf/cprog/cprog.fp.perf.data");
    let elf = common::read("bolt-perf/cprog/cprog");
    let perf = PerfData::parse(&perf).unwrap();
    let binary = Binary::parse(&elf).unwrap();
    let err = perf2bolt::aggregate_basic(&perf, &binary, b"cprog").unwrap_err();
    assert!(err.to_string().contains("call chains"), "{err}");
}

fn aggregate(perf: &[u8], elf: &[u8], name: &str) -> Result<String, pgolens::Error> {
    let perf = PerfData::parse(perf)?;
    let binary = Binary::parse(elf)?;
    Ok(perf2bolt::aggregate(&perf, &binary, name.as_bytes())?.to_fdata())
}

/// perf2bolt matches the binary by the build id too: under another file name the
/// profile is the same.
#[test]
fn renamed_binary_is_found_by_build_id() {
    let perf = common::read("bolt-perf/cprog/cprog.brstack.perf.data");
    let elf = common::read("bolt-perf/cprog/cprog");
    let theirs = String::from_utf8(common::read("bolt-perf/cprog/cprog.brstack.fdata")).unwrap();
    let ours = aggregate(&perf, &elf, "renamed").unwrap();
    assert!(lines(&ours) == lines(&theirs), "{}", difference(&ours, &theirs));
}

/// Two functions' PIC jump tables side by side in `.rodata` (`crate/tests/data/perf2bolt-adjtables`,
/// made with clang-22 and perf2bolt 22, see its README):
/// perf2bolt ends `reduce`'s table where `destruct`'s starts, so `destruct`'s entries
/// add no block boundaries to `reduce` and fall-throughs over those offsets record no
/// edge. The pre-aggregated file has a real run's traces and one fall-through per
/// block of BOLT's CFG.
#[test]
fn adjacent_jump_tables_end_each_other() {
    let dir = common::crate_dir().join("tests/data/perf2bolt-adjtables");
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let elf = read("adjtables");
    let data = read("adjtables.preagg.txt");
    let binary = Binary::parse(&elf).unwrap();
    let ours = perf2bolt::aggregate_preagg(&data, &binary, false).unwrap().to_fdata();
    let theirs = String::from_utf8(read("adjtables.preagg.fdata")).unwrap();
    assert!(lines(&ours) == lines(&theirs), "adjtables.preagg.fdata:\n{}", difference(&ours, &theirs));
    assert_eq!(theirs.lines().count(), 117);
    // Both tables are known, each with all its entries and no more.
    let starts = perf2bolt::cfg::jump_tables(&binary);
    assert_eq!(starts, [0x2004, 0x20c4]);
    let reduce = binary.functions.iter().find(|f| f.name == "reduce/1").unwrap();
    let cfg = perf2bolt::cfg::build(&binary, reduce).unwrap();
    assert_eq!(cfg.jump_tables, [(0x2004, 48 * 4)]);
}

/// Another binary than the recorded one: perf2bolt stops ("failed to match build-id").
#[test]
fn binary_not_in_the_recording_is_an_error() {
    let perf = common::read("bolt-perf/cprog/cprog.brstack.perf.data");
    let other = common::read("bolt-perf/cxxprog/cxxprog");
    let err = aggregate(&perf, &other, "cprog").unwrap_err();
    assert!(err.to_string().contains("build id"), "{err}");
}

/// A recording without branch stacks gives an empty LBR profile, as perf2bolt writes.
#[test]
fn samples_without_branch_stacks_give_an_empty_profile() {
    let perf = common::read("bolt-perf/cprog/cprog.cpuclock.perf.data");
    let elf = common::read("bolt-perf/cprog/cprog");
    assert_eq!(aggregate(&perf, &elf, "cprog").unwrap(), "");
}

/// The binary with its `.symtab` turned into an unused section header (SHT_NULL).
fn without_symtab(elf: &[u8]) -> Vec<u8> {
    let mut out = elf.to_vec();
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap()) as usize;
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap()) as usize;
    let (shoff, shentsize, shnum) = (u64_at(0x28), u16_at(0x3a), u16_at(0x3c));
    for i in 0..shnum {
        let sh_type = shoff + i * shentsize + 4;
        if elf[sh_type..sh_type + 4] == 2u32.to_le_bytes() {
            out[sh_type..sh_type + 4].copy_from_slice(&0u32.to_le_bytes());
        }
    }
    out
}

#[test]
fn binary_without_symbols_is_an_error() {
    let perf = common::read("bolt-perf/cprog/cprog.brstack.perf.data");
    let stripped = without_symtab(&common::read("bolt-perf/cprog/cprog"));
    let err = aggregate(&perf, &stripped, "cprog").unwrap_err();
    assert!(err.to_string().contains("symbol"), "{err}");
}

/// Truncated and bit-flipped binaries and recordings: an error or a profile, never a panic.
#[test]
fn damaged_inputs_never_panic() {
    let perf = common::read("bolt-perf/cxxprog/cxxprog.brstack.perf.data");
    let elf = common::read("bolt-perf/cxxprog/cxxprog");
    for len in (0..elf.len()).step_by(2999).chain([elf.len() - 1]) {
        let _ = aggregate(&perf, &elf[..len], "cxxprog");
    }
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..50 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let mut damaged = elf.clone();
        let at = (state as usize) % damaged.len();
        damaged[at] ^= 1 << (state >> 61);
        let _ = aggregate(&perf, &damaged, "cxxprog");
    }
    for len in (0..perf.len()).step_by(12289) {
        let _ = aggregate(&perf[..len], &elf, "cxxprog");
    }
}

/// perf2bolt on a BOLTed binary (BAT): every address translated to the input binary's
/// function offsets, cold fragments counted in their hot function, local functions
/// named `name/file/N`, under a `boltedcollection` header. Pre-aggregated traces,
/// LBR perf.data and `--ba` samples, each against perf2bolt's fdata of the same input.
#[test]
fn bolted_binaries_translate_through_bat() {
    // (program, pre-aggregated lines, LBR lines, basic lines, basic samples, out of range)
    for (prog, preagg, lbr, basic, samples, out_of_range) in
        [("cprog", 63, 58, 106, 1121, 155), ("cxxprog", 187, 186, 97, 1211, 26)]
    {
        let dir = format!("bolt-perf/{prog}");
        let elf = common::read(&format!("{dir}/{prog}.bolt"));
        let binary = Binary::parse(&elf).unwrap();
        let check = |profile: &perf2bolt::Profile<'_>, reference: &str, count: usize| {
            let ours = profile.to_fdata();
            let theirs = String::from_utf8(common::read(&format!("{dir}/{reference}"))).unwrap();
            assert!(lines(&ours) == lines(&theirs), "{reference}:\n{}", difference(&ours, &theirs));
            assert_eq!(ours.lines().count(), count, "{reference}");
            assert!(ours.starts_with("boltedcollection\n"), "{reference}");
        };

        let data = common::read(&format!("{dir}/{prog}.bolt.preagg-traces.txt"));
        let profile = perf2bolt::aggregate_preagg(&data, &binary, false).unwrap();
        check(&profile, &format!("{prog}.bolt.preagg.bat.fdata"), preagg);
        assert_eq!((profile.stats.mismatching, profile.stats.out_of_range), (0, 0));

        let data = common::read(&format!("{dir}/{prog}.bolt.brstack.perf.data"));
        let perf = PerfData::parse(&data).unwrap();
        let name = format!("{prog}.bolt");
        let profile = perf2bolt::aggregate(&perf, &binary, name.as_bytes()).unwrap();
        check(&profile, &format!("{prog}.bolt.bat.fdata"), lbr);
        assert_eq!((profile.stats.mismatching, profile.stats.out_of_range), (0, 0));

        let data = common::read(&format!("{dir}/{prog}.bolt.cpuclock.perf.data"));
        let perf = PerfData::parse(&data).unwrap();
        let profile = perf2bolt::aggregate_basic(&perf, &binary, name.as_bytes()).unwrap();
        check(&profile, &format!("{prog}.bolt.bat-nolbr.fdata"), basic);
        assert_eq!((profile.stats.samples, profile.stats.out_of_range), (samples, out_of_range));
    }
}

/// `perf2bolt X.bolt -p perf.data -w X.yaml` on a BOLTed binary writes its YAML from the
/// BAT tables: the same bytes.
#[test]
fn bolted_binaries_yaml_from_bat() {
    for prog in ["cprog", "cxxprog"] {
        let dir = format!("bolt-perf/{prog}");
        let elf = common::read(&format!("{dir}/{prog}.bolt"));
        let binary = Binary::parse(&elf).unwrap();
        let data = common::read(&format!("{dir}/{prog}.bolt.brstack.perf.data"));
        let perf = PerfData::parse(&data).unwrap();
        let name = format!("{prog}.bolt");
        let profile = perf2bolt::aggregate(&perf, &binary, name.as_bytes()).unwrap();
        let model = perf2bolt::bat_yaml::to_yaml(&profile, &elf, name.as_bytes()).unwrap();
        let ours = String::from_utf8(yaml::write(&model, None)).unwrap();
        let theirs = String::from_utf8(common::read(&format!("{dir}/{prog}.bolt.bat.yaml"))).unwrap();
        assert!(ours == theirs, "{prog}.bolt.bat.yaml:\n{}", difference(&ours, &theirs));
    }
    // Without BAT there are no tables to write from.
    let elf = common::read("bolt-perf/cprog/cprog");
    let binary = Binary::parse(&elf).unwrap();
    let data = common::read("bolt-perf/cprog/cprog.brstack.perf.data");
    let profile = perf2bolt::aggregate(&PerfData::parse(&data).unwrap(), &binary, b"cprog").unwrap();
    assert!(perf2bolt::bat_yaml::to_yaml(&profile, &elf, b"cprog").is_err());
}

/// The BAT maps perf2bolt reads ("Parsed N BAT entries": hot functions and cold
/// fragments), a fragment's hot function, and BOLT's file-qualified names.
#[test]
fn bat_maps_of_bolted_binaries() {
    for (prog, maps) in [("cprog", 25), ("cxxprog", 34)] {
        let elf = common::read(&format!("bolt-perf/{prog}/{prog}.bolt"));
        let binary = Binary::parse(&elf).unwrap();
        assert_eq!(binary.translation.as_ref().unwrap().len(), maps, "{prog}");
    }
    let elf = common::read("bolt-perf/cprog/cprog.bolt");
    let binary = Binary::parse(&elf).unwrap();
    let t = binary.translation.as_ref().unwrap();
    let function = |name: &str| binary.functions.iter().find(|f| f.name == name).unwrap();
    let (hot, cold) = (function("hot_loop"), function("hot_loop.cold.0/1"));
    assert_eq!(t.parent(cold.address), Some(hot.address));
    assert_eq!(t.parent(hot.address), None);
    assert!(t.is_bat_function(hot.address) && t.is_bat_function(cold.address));
    // Offsets outside any map stay as they are.
    assert_eq!(t.translate(0x1234, 7, false), 7);
    assert_eq!(function("helper/1").file_name.as_deref(), Some("helper/cmain.c/1"));
    assert_eq!(function("helper/2").file_name.as_deref(), Some("helper/cutil.c/1"));
    assert_eq!(function("main").file_name, None);
    // The input binary has no BAT: perf2bolt's usual names and no header.
    let input = common::read("bolt-perf/cprog/cprog");
    assert!(Binary::parse(&input).unwrap().translation.is_none());
}
