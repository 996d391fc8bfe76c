//! The BAT view's block counts: a profile of a BOLTed binary, translated through
//! BAT, joined with the BAT tables of one function (`model::bat::profile_cfg`),
//! against the profiles perf2bolt (BOLT 22) wrote from the same recordings
//! (tests/corpus/bolt-perf, see its MANIFEST.md):
//! * `cprog.bolt.bat.fdata`: `perf2bolt cprog.bolt -p cprog.bolt.brstack.perf.data`;
//! * `cprog.bolt.bat.yaml`: the same with `-w`: each block by its BAT index, its
//!   successors with their counts, entry blocks with their `exec`;
//! * `cprog.bolt.preagg.bat.fdata`: `perf2bolt cprog.bolt -pa -p cprog.bolt.preagg-traces.txt`.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use pgolens::formats::bolt::bat::{self, Bat};
use pgolens::formats::bolt::{fdata, yaml};
use pgolens::formats::perf::perf2bolt::{self, binary::Binary};
use pgolens::formats::perf::PerfData;
use pgolens::model::bat::profile_cfg;
use pgolens::model::bolt::cfg_from_yaml;

const DIR: &str = "bolt-perf/cprog";

/// The index in `bat.hot` of the function at output address `address`.
fn hot(bat: &Bat, address: u64) -> u32 {
    bat.hot.functions.iter().position(|f| f.address.value == address).unwrap() as u32
}

/// (input offset, count) of each block of `name`'s graph.
fn counts(bat: &Bat, address: u64, profile: &fdata::Fdata<'_>, name: &str) -> Vec<(u64, u64)> {
    profile_cfg(bat, hot(bat, address), profile, name)
        .blocks
        .iter()
        .map(|b| (b.offset.unwrap(), b.exec_count))
        .collect()
}

#[test]
fn a_translated_recording_counts_hot_loops_blocks_as_perf2bolts_profiles_do() {
    let elf = common::read(&format!("{DIR}/cprog.bolt"));
    let bat = bat::from_elf(&elf).unwrap().unwrap();
    let binary = Binary::parse(&elf).unwrap();
    let data = common::read(&format!("{DIR}/cprog.bolt.brstack.perf.data"));
    let perf = PerfData::parse(&data).unwrap();
    let ours = perf2bolt::aggregate(&perf, &binary, b"cprog.bolt").unwrap().to_fdata_model();
    assert!(ours.bolted_collection);

    // nm cprog.bolt: hot_loop at 0x407080 (its cold fragment at 0x407580). Its 13
    // input blocks, by input offset, with the counts of cprog.bolt.bat.fdata: 64
    // calls from main (0x0); 58 in from 0x0 raised to the 62 out to 0x30 (0x17); 62
    // + 258 (0x30); 310 in and a call of classify 313 times (0x52); 27 (0x60); 16
    // (0x80); 11 in, 12 out (0xa0); 304 + 14 + 12 (0xa3); 329 (0xb2); 73 (0xca); the
    // rest never ran.
    let hot_loop = counts(&bat, 0x407080, &ours, "hot_loop");
    assert_eq!(
        hot_loop,
        [
            (0x0, 64),
            (0x17, 62),
            (0x30, 320),
            (0x52, 313),
            (0x60, 27),
            (0x80, 16),
            (0x97, 0),
            (0xa0, 12),
            (0xa3, 330),
            (0xb2, 329),
            (0xc4, 0),
            (0xca, 73),
            (0xdc, 0),
        ]
    );
    assert_eq!(hot_loop.len() as u64, bat.hot.functions[hot(&bat, 0x407080) as usize].num_blocks.unwrap().value);

    // The fdata perf2bolt wrote gives the same counts.
    let theirs_bytes = common::read(&format!("{DIR}/cprog.bolt.bat.fdata"));
    let theirs = fdata::decode(&theirs_bytes).unwrap();
    assert_eq!(counts(&bat, 0x407080, &theirs, "hot_loop"), hot_loop);

    // Every function of perf2bolt's YAML: each block counts what llvm-bolt reads
    // from the YAML for the block of the same BAT index.
    let yaml_bytes = common::read(&format!("{DIR}/cprog.bolt.bat.yaml"));
    let reference = yaml::decode(&yaml_bytes).unwrap();
    let mut compared = 0;
    for (i, f) in reference.functions.iter().enumerate() {
        let name = String::from_utf8(f.name.to_vec()).unwrap();
        let expected = cfg_from_yaml(&reference, i).unwrap();
        // The hot function of that name: the symbol (a local's `name/file/N` is `name/N`).
        let symbol = binary.functions.iter().find(|g| g.file_name.as_deref().unwrap_or(&g.name) == name).unwrap();
        let index = hot(&bat, symbol.address);
        let cfg = profile_cfg(&bat, index, &ours, &name);
        let function = &bat.hot.functions[index as usize];
        for b in &cfg.blocks {
            let offset = b.offset.unwrap();
            let bid = function.blocks().find(|e| e.input_offset() == offset).map(|e| e.block.unwrap().index);
            let bid = bid.unwrap_or_else(|| {
                // A block of a cold fragment.
                let fragments = bat.cold.functions.iter().filter(|c| c.hot_index.unwrap().value == u64::from(index));
                fragments.flat_map(|c| c.blocks()).find(|e| e.input_offset() == offset).unwrap().block.unwrap().index
            });
            let theirs = expected.blocks.get(bid as usize).map_or(0, |b| b.exec_count);
            assert_eq!(b.exec_count, theirs, "{name} block {bid} at {offset:#x}");
            compared += 1;
        }
        assert_eq!(cfg.exec_count, f.exec, "{name}");
        assert!(cfg.unmatched.is_empty(), "{name}: {:?}", cfg.unmatched);
    }
    // 13 functions, 78 blocks.
    assert_eq!((reference.functions.len(), compared), (13, 78));
}

#[test]
fn pre_aggregated_traces_count_the_blocks_of_perf2bolts_fdata() {
    let elf = common::read(&format!("{DIR}/cprog.bolt"));
    let bat = bat::from_elf(&elf).unwrap().unwrap();
    let binary = Binary::parse(&elf).unwrap();
    let data = common::read(&format!("{DIR}/cprog.bolt.preagg-traces.txt"));
    let ours = perf2bolt::aggregate_preagg(&data, &binary, false).unwrap().to_fdata_model();
    let theirs_bytes = common::read(&format!("{DIR}/cprog.bolt.preagg.bat.fdata"));
    let theirs = fdata::decode(&theirs_bytes).unwrap();
    for (address, name) in [(0x407080, "hot_loop"), (0x407200, "main")] {
        let hot_loop = counts(&bat, address, &ours, name);
        assert_eq!(hot_loop, counts(&bat, address, &theirs, name), "{name}");
        assert!(hot_loop.iter().any(|&(_, c)| c > 0), "{name}");
    }
}

#[test]
fn a_function_the_profile_does_not_have_counts_nothing() {
    let elf = common::read(&format!("{DIR}/cprog.bolt"));
    let bat = bat::from_elf(&elf).unwrap().unwrap();
    let theirs_bytes = common::read(&format!("{DIR}/cprog.bolt.bat.fdata"));
    let theirs = fdata::decode(&theirs_bytes).unwrap();
    let cfg = profile_cfg(&bat, hot(&bat, 0x407080), &theirs, "no_such_function");
    assert_eq!(cfg.blocks.len(), 13);
    assert!(cfg.blocks.iter().all(|b| b.exec_count == 0) && cfg.edges.is_empty());
}
