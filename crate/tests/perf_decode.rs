//! perf.data decoding against what perf itself printed for the same files.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use std::collections::BTreeMap;

use pgolens::formats::perf::{PerfData, Record};

/// Sample counts per event name.
fn sample_counts(perf: &PerfData<'_>) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for record in perf.records() {
        let record = record.unwrap();
        if let Record::Sample(s) = &record.record {
            *counts.entry(perf.events[s.event].name.clone()).or_default() += 1;
        }
    }
    counts
}

/// Sample lines of `perf script -F comm,pid,tid,time,period,event,ip`, per event:
/// each sample starts with a line that is not a call-chain line (tab-indented).
fn script_counts(text: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for line in text.lines().filter(|l| !l.is_empty() && !l.starts_with('\t')) {
        // "... 250000 cpu-clock: ..." — the event is the word before the first ": " after the time.
        let after_time = line.split_once(": ").map(|x| x.1).unwrap_or("");
        let event = after_time.split_whitespace().nth(1).unwrap_or("").trim_end_matches(':');
        *counts.entry(event.to_string()).or_default() += 1;
    }
    counts
}

#[test]
fn sample_counts_match_perf_script() {
    let mut checked = 0;
    for path in common::files_under(&common::corpus().join("bolt-perf")) {
        let name = path.to_string_lossy().into_owned();
        if !name.ends_with(".perf.data") {
            continue;
        }
        let Ok(script) = std::fs::read_to_string(format!("{name}.script-ip.txt")) else { continue };
        let data = std::fs::read(&path).unwrap();
        let perf = PerfData::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(sample_counts(&perf), script_counts(&script), "{name}");
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} perf.data files with a perf script dump");
}

#[test]
fn peer_fixtures_decode() {
    for path in common::files_under(&common::corpus().join("peers/linux-perf-data")) {
        let name = path.to_string_lossy().into_owned();
        if !name.ends_with(".data") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let perf = PerfData::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let counts = sample_counts(&perf);
        eprintln!("{name}: {} records, {counts:?}, truncated {:?}", perf.record_count(), perf.truncated_at);
    }
}

/// perf prints samples in its delivery order; the times of our time order, as
/// perf prints them (seconds.microseconds), must be the same sequence.
#[test]
fn time_order_matches_perf_script() {
    for path in common::files_under(&common::corpus().join("bolt-perf")) {
        let name = path.to_string_lossy().into_owned();
        let Ok(script) = std::fs::read_to_string(format!("{name}.script-ip.txt")) else { continue };
        let expected: Vec<String> = script
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('\t'))
            .map(|l| l.split_once(": ").unwrap().0.split_whitespace().last().unwrap().to_string())
            .collect();
        let data = std::fs::read(&path).unwrap();
        let perf = PerfData::parse(&data).unwrap();
        let got: Vec<String> = perf
            .time_order()
            .unwrap()
            .into_iter()
            .filter_map(|p| match perf.record_at(p).unwrap().record {
                Record::Sample(s) => {
                    let t = s.time.unwrap();
                    Some(format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000))
                }
                _ => None,
            })
            .collect();
        assert_eq!(got, expected, "{name}");
    }
}

fn find<'a>(node: &'a pgolens::Node, label: &str) -> &'a pgolens::Node {
    node.children.iter().find(|c| c.label == label || c.label.ends_with(label)).unwrap_or_else(|| panic!("no {label}"))
}

fn value(node: &pgolens::Node, label: &str) -> String {
    find(node, label).value.clone().unwrap_or_default().to_string()
}

/// The dump shows each record's fields; compare with `perf script -D` (rawdump.txt).
#[test]
fn dump_shows_record_fields_like_perf_script_d() {
    // "1 1000010000 0x1a8 [0x1b8]: PERF_RECORD_SAMPLE(IP, 0x2): 4242/4242: 0x401449 period: 100003"
    // ".....  0: 00000000004014f5 -> 0000000000401449 0 cycles  P   0 RET"
    let data = common::read("bolt-perf/cprog/cprog.brstack.perf.data");
    let detection = pgolens::detect(&data).unwrap();
    let root = pgolens::dump(&data, &detection).unwrap();
    let stream = find(&root, "data");
    let sample = stream.children.iter().find(|n| n.start == 0x1a8).unwrap();
    assert_eq!(sample.label, "#2 SAMPLE");
    let body = find(sample, "body");
    assert_eq!(value(body, "ip"), "0x401449");
    assert_eq!(value(body, "pid"), "4242");
    assert_eq!(value(body, "time"), "1000010000");
    assert_eq!(value(body, "period"), "100003");
    let branches = find(body, "branch_stack");
    assert_eq!(value(branches, "nr"), "16");
    assert!(value(branches, "entry 0").starts_with("0x4014f5 → 0x401449"));

    // "3436701293997 0x2a0 [0x78]: PERF_RECORD_MMAP2 13677/13677: [0x401000(0x1000) @ 0x1000 fe:00 10059825 262331941]: r-xp /tmp/corpusB/work/cprog/cprog"
    let data = common::read("bolt-perf/cprog/cprog.fp.perf.data");
    let detection = pgolens::detect(&data).unwrap();
    let root = pgolens::dump(&data, &detection).unwrap();
    let mmap = find(&root, "data").children.iter().find(|n| n.start == 0x2a0).unwrap();
    assert!(mmap.label.ends_with("MMAP2"), "{}", mmap.label);
    let body = find(mmap, "body");
    assert_eq!(value(body, "addr"), "0x401000");
    assert_eq!(value(body, "len"), "0x1000");
    assert_eq!(value(body, "pgoff"), "0x1000");
    assert_eq!(value(body, "ino"), "10059825");
    assert_eq!(value(body, "filename"), "/tmp/corpusB/work/cprog/cprog");
    assert_eq!(value(find(body, "sample_id"), "time"), "3436701293997");
}
