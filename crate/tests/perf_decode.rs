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

/// The newer perf's fixtures (file and pipe mode, zstd with records spanning chunks)
/// decode, and their samples agree with what the files say of them: the times
/// of the first and last sample (SAMPLE_TIME feature), the event each sample id
/// belongs to (EVENT_DESC or HEADER_ATTR ids), zstd compression (COMPRESSED feature).
#[test]
fn peer_fixtures_decode_and_agree_with_their_headers() {
    let mut with_times = 0;
    for path in common::files_under(&common::corpus().join("peers/linux-perf-data")) {
        let name = path.to_string_lossy().into_owned();
        if !name.ends_with(".data") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let perf = PerfData::parse(&data).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut times = Vec::new();
        for position in perf.time_order().unwrap() {
            if let Record::Sample(s) = perf.record_at(position).unwrap().record {
                times.push(s.time.unwrap());
                if let Some(id) = s.id.or(s.identifier) {
                    assert!(perf.events[s.event].ids.contains(&id), "{name}: sample id {id}");
                }
                assert!(perf.events[s.event].name.starts_with("cycles"), "{name}");
            }
        }
        assert!(!times.is_empty(), "{name}");
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{name}: time order");
        // A pipe announces its features before recording: its SAMPLE_TIME is 0, 0.
        if let Some((first, last)) = perf.features.sample_time.filter(|&t| t != (0, 0)) {
            assert_eq!((first, last), (times[0], *times.last().unwrap()), "{name}: SAMPLE_TIME");
            with_times += 1;
        }
        if name.contains("compressed") {
            assert_eq!(perf.features.compressed.map(|c| c[1]), Some(1), "{name}: zstd");
        }
    }
    assert!(with_times >= 1, "fixtures with SAMPLE_TIME: {with_times}");
}

/// perf prints samples in its delivery order; the times of our time order, as
/// perf prints them (seconds.microseconds), must be the same sequence.
#[test]
fn time_order_matches_perf_script() {
    let mut checked = 0;
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
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} perf.data files with a perf script dump");
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

/// Feature sections, typed and in the dump, against `perf report --header-only`.
#[test]
fn features_match_perf_report_header() {
    // "# hostname : vm", "# nrcpus online : 2", "# nrcpus avail : 2", "# total memory : 24684092 kB",
    // "# pmu mappings: software = 1, uprobe = 8, breakpoint = 5, tracepoint = 2, msr = 9",
    // "# time of first sample : 3441.210765", "# time of last sample : 3441.307876"
    let header =
        std::fs::read_to_string(common::corpus().join("bolt-perf/cprog/cprog.multi.perf.data.header.txt")).unwrap();
    let line = |key: &str| header.lines().find_map(|l| l.strip_prefix(&format!("# {key} : "))).unwrap().to_string();
    let data = common::read("bolt-perf/cprog/cprog.multi.perf.data");
    let perf = PerfData::parse(&data).unwrap();
    let f = &perf.features;
    assert_eq!(f.hostname.as_deref(), Some(line("hostname").as_str()));
    assert_eq!(f.os_release.as_deref(), Some(line("os release").as_str()));
    assert_eq!(f.version.as_deref(), Some(line("perf version").as_str()));
    assert_eq!(f.nr_cpus, Some((line("nrcpus online").parse().unwrap(), line("nrcpus avail").parse().unwrap())));
    assert_eq!(format!("{} kB", f.total_mem.unwrap()), line("total memory"));
    assert_eq!(f.cmdline.join(" ") + " ", line("cmdline"));
    let pmus: Vec<String> = f.pmu_mappings.iter().map(|(t, n)| format!("{n} = {t}")).collect();
    assert!(header.contains(&format!("# pmu mappings: {}", pmus.join(", "))));
    let (first, last) = f.sample_time.unwrap();
    let usec = |t: u64| format!("{}.{:06}", t / 1_000_000_000, t % 1_000_000_000 / 1000);
    assert_eq!(usec(first), line("time of first sample"));
    assert_eq!(usec(last), line("time of last sample"));
    let names: Vec<&str> = perf.events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["cpu-clock", "task-clock"]);
    assert_eq!(perf.events[1].ids, [2583, 2584], "# event : name = task-clock, , id = {{ 2583, 2584 }}");

    // The dump has the same values, field by field.
    let detection = pgolens::detect(&data).unwrap();
    let root = pgolens::dump(&data, &detection).unwrap();
    let nrcpus = find(&root, "feature NRCPUS");
    assert_eq!(value(nrcpus, "nr_cpus_online"), line("nrcpus online"));
    assert_eq!(value(find(&root, "feature TOTAL_MEM"), "total memory (kB)") + " kB", line("total memory"));
    let pmu = find(&root, "feature PMU_MAPPINGS");
    assert_eq!(value(pmu, "nr pmus"), pmus.len().to_string());
    let build_ids = find(&root, "feature BUILD_ID");
    // cprog.multi.perf.data.buildids.txt: "ac5e5d2c821278bbb9de3c8d7c090f208a46534e /tmp/corpusB/work/cprog/cprog"
    let expected = "ac5e5d2c821278bbb9de3c8d7c090f208a46534e /tmp/corpusB/work/cprog/cprog";
    assert!(build_ids.children.iter().any(|c| c.value.as_deref() == Some(expected)));
}

/// perf's own records, typed, against `perf script -D` of cprog.multi.perf.data:
/// "0x1a8 [0x90]: PERF_RECORD_ID_INDEX nr: 4 / ... id: 2581  idx: 0  cpu: 0  tid: 13689 ..."
/// "0x350 [0x28]: PERF_RECORD_THREAD_MAP nr: 1 thread: 13689", "0x378 [0x10]: PERF_RECORD_CPU_MAP: 0-1"
#[test]
fn perf_tool_records_are_typed() {
    let data = common::read("bolt-perf/cprog/cprog.multi.perf.data");
    let perf = PerfData::parse(&data).unwrap();
    let at = |offset: u64| perf.record_at(offset).unwrap().record;
    let Record::IdIndex { entries } = at(0x1a8) else { panic!("ID_INDEX") };
    let words: Vec<u64> = entries.iter().collect();
    assert_eq!(words.len(), 16);
    assert_eq!(&words[..4], &[2581, 0, 0, 13689]);
    assert_eq!(&words[4..8], &[2582, 1, 1, 13689]);
    let Record::ThreadMap { entries } = at(0x350) else { panic!("THREAD_MAP") };
    assert_eq!(entries.len(), 24);
    assert_eq!(u64::from_le_bytes(entries[..8].try_into().unwrap()), 13689);
    let Record::CpuMap { .. } = at(0x378) else { panic!("CPU_MAP") };
    // EVENT_UPDATE of the unit ("msec", see the raw body) and of the scale.
    let Record::EventUpdate { kind: 0, data: unit, .. } = at(0x290) else { panic!("EVENT_UPDATE unit") };
    assert!(unit.starts_with(b"msec\0"));
}

#[test]
fn sample_count_is_the_number_of_sample_records() {
    for rel in ["bolt-perf/cprog/cprog.fp.perf.data", "peers/linux-perf-data/fibo.compressed2.pipe.data"] {
        let data = common::read(rel);
        let perf = PerfData::parse(&data).unwrap();
        assert_eq!(perf.sample_count(), sample_counts(&perf).values().sum::<usize>(), "{rel}");
    }
}

/// Without the record index, one pass in file order or in time order visits the
/// same records.
#[test]
fn unindexed_parse_visits_the_same_records_in_the_same_order() {
    let mut checked = 0;
    for dir in ["bolt-perf", "peers/linux-perf-data"] {
        for path in common::files_under(&common::corpus().join(dir)) {
            let name = path.to_string_lossy().into_owned();
            if !(name.ends_with(".perf.data") || name.ends_with(".data")) {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let indexed = PerfData::parse(&data).unwrap();
            let unindexed = PerfData::parse_unindexed(&data).unwrap();
            assert_eq!(unindexed.time_order().unwrap(), indexed.time_order().unwrap(), "{name}");
            // In file order too (compressed recordings are always indexed).
            let mut walked = Vec::new();
            unindexed
                .for_each_position(|p| {
                    walked.push(p);
                    Ok(())
                })
                .unwrap();
            assert_eq!(walked, indexed.positions(), "{name}");
            assert_eq!(unindexed.record_count(), indexed.record_count(), "{name}");
            assert_eq!(unindexed.sample_count(), indexed.sample_count(), "{name}");
            checked += 1;
        }
    }
    assert!(checked > 25);
}
