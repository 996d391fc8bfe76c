//! perf2bolt's LBR aggregation against the fdata perf2bolt (BOLT 22) wrote for the
//! same perf.data and binary: the same set of lines, order aside.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use std::collections::BTreeMap;

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
