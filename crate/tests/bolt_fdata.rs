//! BOLT fdata and pre-aggregated profiles against BOLT 22's own tools: llvm-bolt's
//! reader verdicts (`*.llvm-bolt.log`, `*.perf2bolt.log`), merge-fdata's outputs
//! (`*.merged.fdata`, `*.merge-fdata.fdata`) and perf2bolt `--pa` (`X.preagg-*.fdata`).

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use pgolens::error::Location;
use pgolens::formats::bolt::fdata::{self, Fdata, MergeError, SymbolKind};
use pgolens::formats::bolt::preagg::{self, EntryKind};
use pgolens::formats::perf::perf2bolt::{self, binary::Binary};

fn lines(text: &[u8]) -> BTreeMap<&[u8], usize> {
    let mut out = BTreeMap::new();
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        *out.entry(line).or_default() += 1;
    }
    out
}

fn written(fdata: &Fdata<'_>) -> Vec<u8> {
    let mut out = Vec::new();
    fdata::write(fdata, &mut out);
    out
}

fn corpus_files(ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        common::files_under(&common::corpus()).into_iter().filter(|p| p.to_str().unwrap().ends_with(ext)).collect();
    out.sort();
    out
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_str().unwrap().to_string()
}

/// `Error reading BOLT data input file: line L, column C: WHAT` of a tool log.
fn reader_error(log: &Path) -> Option<(u64, u64, String)> {
    let text = std::fs::read_to_string(log).unwrap();
    let line = text.lines().find_map(|l| l.strip_prefix("Error reading BOLT data input file: line "))?;
    let (l, rest) = line.split_once(", column ").unwrap();
    let (c, what) = rest.split_once(": ").unwrap();
    Some((l.parse().unwrap(), c.parse().unwrap(), what.to_string()))
}

fn line_column(e: &pgolens::error::Error) -> (u64, u64) {
    match e.location {
        Location::Line { line, column } => (line, column),
        other => panic!("a text error at {other:?}"),
    }
}

/// What llvm-bolt said of a profile (`F.llvm-bolt.log`).
#[derive(Debug)]
enum Verdict {
    Read,
    ReaderError(u64, u64, String),
    NoValidData,
}

fn llvm_bolt_verdict(path: &Path) -> Option<Verdict> {
    // merge-fdata's re-emission of F has F's verdict.
    let file = name(path);
    let source = file.strip_suffix(".merge-fdata.fdata").unwrap_or(&file);
    let log = path.with_file_name(format!("{source}.llvm-bolt.log"));
    let text = std::fs::read_to_string(&log).ok()?;
    Some(match reader_error(&log) {
        Some((l, c, what)) => Verdict::ReaderError(l, c, what),
        None if text.contains("ERROR: no valid profile data found") => Verdict::NoValidData,
        None => Verdict::Read,
    })
}

#[test]
fn every_fdata_decodes_or_fails_where_llvm_bolt_does() {
    let files: Vec<PathBuf> = corpus_files(".fdata");
    assert!(files.len() >= 47, "{} fdata files", files.len());
    let (mut checked_errors, mut header_order) = (0, 0);
    for path in &files {
        let data = std::fs::read(path).unwrap();
        match (fdata::decode(&data), llvm_bolt_verdict(path).unwrap_or(Verdict::Read)) {
            (Ok(f), Verdict::Read) => {
                let records = f.branches.len() + f.samples.len() + f.memory.len();
                assert!(records > 0, "{}: no records", path.display());
            }
            (Err(e), Verdict::ReaderError(line, column, what)) => {
                // BOLT prints the bytes it consumed on the line; our column is the next byte's.
                assert_eq!(line_column(&e), (line, column + 1), "{}: {e} vs {what}", path.display());
                checked_errors += 1;
            }
            // llvm-bolt 22 only reads `no_lbr` before `boltedcollection`, the order
            // perf2bolt does not write; we read both (what follows decides).
            (_, Verdict::NoValidData) if data.starts_with(b"boltedcollection\nno_lbr") => header_order += 1,
            (ours, theirs) => panic!("{}: ours {ours:?}, llvm-bolt {theirs:?}", path.display()),
        }
    }
    assert_eq!((checked_errors, header_order), (4, 4), "rejections in the corpus (and merge-fdata's copies)");
}

#[test]
fn values_are_read_as_written() {
    let data = common::read("bolt-perf/cprog/cprog.instr.fdata");
    let f = fdata::decode(&data).unwrap();
    // `1 fib c 1 fib 39 0 4181000`, the fifth line.
    let b = &f.branches[4];
    assert_eq!((b.from.kind, &*b.from.name, b.from.offset), (SymbolKind::Symbol, &b"fib"[..], 0xc));
    assert_eq!((&*b.to.name, b.to.offset, b.mispredicted, b.count, b.line), (&b"fib"[..], 0x39, 0, 4181000, 5));
    assert!(!f.bolted_collection && f.no_lbr.is_none());

    let data = common::read("bolt-perf/cprog/cprog.nolbr.fdata");
    let f = fdata::decode(&data).unwrap();
    assert_eq!(f.no_lbr.as_ref().unwrap().iter().map(|e| &e[..]).collect::<Vec<_>>(), [&b"cpu-clock:"[..]]);
    // `1 checksum_buf 66 15`, the third line.
    assert_eq!((&*f.samples[1].at.name, f.samples[1].at.offset, f.samples[1].count), (&b"checksum_buf"[..], 0x66, 15));

    let data = common::read("bolt-perf/cprog/cprog.brstack-mem.fdata");
    let f = fdata::decode(&data).unwrap();
    assert!(!f.memory.is_empty());
    assert!(f.memory.iter().all(|m| m.pc.kind == SymbolKind::Symbol && m.count > 0));

    // Both header orders: perf2bolt writes `boltedcollection` first.
    for text in
        [&b"boltedcollection\nno_lbr cycles\n1 main 0 1\n"[..], b"no_lbr cycles\nboltedcollection\n1 main 0 1\n"]
    {
        let f = fdata::decode(text).unwrap();
        assert!(f.bolted_collection);
        assert_eq!(f.no_lbr.unwrap().len(), 1);
        assert_eq!(f.samples.len(), 1);
    }
    // Escaped names keep their backslashes; unescaped on request.
    let f = fdata::decode(b"1 a\\ b 10 2 c\\\\d 0 0 7\n").unwrap();
    assert_eq!(&*f.branches[0].from.name, b"a\\ b");
    assert_eq!(&*f.branches[0].from.unescaped_name(), b"a b");
    assert_eq!(f.branches[0].to.kind, SymbolKind::LocalSymbol);
    assert_eq!(&*f.branches[0].to.unescaped_name(), b"c\\d");
    // Signed counts, as BOLT reads them; leftovers are a warning.
    let f = fdata::decode(b"1 a 0 1 a 4 -1 -5\nsomething else\n").unwrap();
    assert_eq!((f.branches[0].mispredicted, f.branches[0].count), (-1, -5));
    assert_eq!(f.ignored_from_line, Some(2));
}

#[test]
fn tool_written_fdata_round_trips_byte_for_byte() {
    let mut n = 0;
    for path in corpus_files(".fdata") {
        if !path.starts_with(common::corpus().join("bolt-perf")) {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let f = fdata::decode(&data).unwrap();
        assert!(written(&f) == data, "{}", path.display());
        n += 1;
    }
    assert!(n >= 25, "{n} perf2bolt / merge-fdata files");
}

#[test]
fn merges_equal_merge_fdata() {
    for prog in ["cprog", "cxxprog"] {
        let a = common::read(&format!("bolt-perf/{prog}/{prog}.instr.fdata"));
        let b = common::read(&format!("bolt-perf/{prog}/{prog}.instr2.fdata"));
        let expected = common::read(&format!("bolt-perf/{prog}/{prog}.merged.fdata"));
        let merged = fdata::merge(&[fdata::decode(&a).unwrap(), fdata::decode(&b).unwrap()]).unwrap();
        let ours = written(&merged);
        assert_eq!(lines(&ours), lines(&expected), "{prog}");
    }
    // BOLT's own test profiles, each merged alone as merge-fdata re-emits them.
    let mut n = 0;
    for path in corpus_files(".fdata") {
        let reference = path.with_file_name(format!("{}.merge-fdata.fdata", name(&path)));
        if !reference.exists() {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let Ok(f) = fdata::decode(&data) else {
            // merge-fdata echoes lines without reading them; llvm-bolt cannot read
            // these either (`1 main 1` after `no_lbr`, `1 main 0 1` without it).
            assert!(!matches!(llvm_bolt_verdict(&path), Some(Verdict::Read)), "{}", path.display());
            continue;
        };
        let ours = written(&fdata::merge(&[f]).unwrap());
        assert_eq!(lines(&ours), lines(&std::fs::read(&reference).unwrap()), "{}", path.display());
        n += 1;
    }
    assert!(n >= 7, "{n} merge-fdata references");
}

/// `Merger`, which sums an input's lines as they are read (by their text where it
/// can, with the inputs split between mergers as the CLI's threads split them),
/// against `merge` of the decoded inputs, which `merges_equal_merge_fdata` holds
/// to merge-fdata: inputs with lines left out, moved, added and respelled, lines
/// that start like a known one but are not it, and inputs merge-fdata refuses.
#[test]
fn a_merge_read_as_the_inputs_come_is_the_merge_of_their_records() {
    let base = common::read("bolt-perf/cxxprog/cxxprog.instr.fdata");
    let lines: Vec<&[u8]> = base.split_inclusive(|&b| b == b'\n').collect();
    let joined = |lines: &mut dyn Iterator<Item = Vec<u8>>| lines.flatten().collect::<Vec<u8>>();
    let every_third_left_out =
        joined(&mut lines.iter().enumerate().filter(|(i, _)| i % 3 != 1).map(|(_, l)| l.to_vec()));
    let blocks_reversed = joined(&mut lines.chunks(7).rev().flat_map(|c| c.iter().map(|l| l.to_vec())));
    // Two spaces, leading zeros, upper-case hex, a space before the newline: the
    // same records spelled otherwise (the field reader's path).
    let respelled = joined(&mut lines.iter().enumerate().map(|(i, l)| {
        let text = String::from_utf8(l.to_vec()).unwrap();
        match i % 5 {
            0 => text.replacen(' ', "  ", 1),
            1 => text.replacen(" 0 ", " 00 ", 1),
            2 => {
                let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
                fields[2] = format!("0{}", fields[2].to_uppercase());
                fields[5] = fields[5].to_uppercase();
                fields.join(" ")
            }
            3 => text.replace('\n', " \n"),
            _ => text,
        }
        .into_bytes()
    }));
    let second = common::read("bolt-perf/cxxprog/cxxprog.instr2.fdata");
    let first_line = String::from_utf8(lines[0].to_vec()).unwrap();
    let text_end = first_line.rsplitn(3, ' ').last().unwrap().len() + 1;
    let text = &first_line[..text_end];
    // A line that starts as the first one's text does but is another record, where
    // the first is the guess (an input's first line), and one with a field too
    // many (an error, as in `decode`).
    let near = format!("{}0 1 2\n{text}7 8\n{text}3 4\n", &text[..text_end - 1]).into_bytes();
    let extra_field = format!("{text}1 2 3\n").into_bytes();
    // The first line's text with its last space taken for a digit: a line of too
    // few fields, whose bytes after the text's length still read as counts.
    let too_few = format!("{}01 2\n", &text[..text_end - 1]).into_bytes();
    let negative = format!("{text}0 -3\n").into_bytes();
    let no_lbr = b"no_lbr cycles\n1 main 0 3\n".to_vec();
    let new_names = b"1 fresh 0 1 fresh 4 0 2\n1 _init 0 1 fresh 4 0 1\n".to_vec();
    // Memory events after the branches, under `boltedcollection`; and samples alone.
    let bolted = b"boltedcollection\n1 main 0 1 main 4 0 2\n4 main 8 4 heap 10 3\n".to_vec();
    let bolted_more = b"boltedcollection\n1 main 0 1 main 4 1 1\n4 main 8 4 heap 10 2\n3 main c 3 heap 20 1\n".to_vec();
    let samples = b"no_lbr cycles\n1 main 0 3\n1 f 4 1\n1 main 0 2\n".to_vec();
    // Memory events after the branches without a header: they stay in an input's
    // last part.
    let appended = |lines: &[u8], more: &[u8]| [lines, more].concat();
    let base_memory = appended(&base, b"4 main 8 4 heap 10 3\n3 main c 3 heap 20 1\n");
    let blocks_memory = appended(&blocks_reversed, b"3 main c 3 heap 20 5\n4 main 0 4 heap 8 1\n");
    let (negative_late, extra_field_late) = (appended(&second, &negative), appended(&base, &extra_field));
    // Records that end a quarter of the way in, at a line BOLT stops at (the rest
    // is ignored), or at memory lines that branch lines follow: read in parts, a
    // later part would read on.
    let quarter = lines[..lines.len() / 4].concat();
    let stops_early = [&quarter[..], b"# not a record\n", &base[quarter.len()..]].concat();
    let memory_early = [&quarter[..], b"4 main 8 4 heap 10 3\n", &base[quarter.len()..]].concat();
    let sets: Vec<Vec<&[u8]>> = vec![
        vec![&base, &every_third_left_out, &blocks_reversed, &respelled, &second, &base],
        vec![&blocks_reversed, &base, &near, &new_names, &base, &every_third_left_out],
        vec![&respelled, &respelled, &second, &near],
        vec![&base, &near, &base],
        vec![&base, &too_few],
        vec![&base, &negative, &base],
        vec![&base, &no_lbr, &base],
        vec![&base, &extra_field],
        vec![&bolted, &bolted_more, &bolted],
        vec![&no_lbr, &samples, &no_lbr],
        vec![&base_memory, &blocks_memory, &second, &base_memory],
        // The errors above late in an input, whose parts are then read apart.
        vec![&base, &negative_late, &base],
        vec![&base, &extra_field_late],
        vec![&base, &stops_early, &second],
        vec![&memory_early, &base],
    ];
    let mut cut = Vec::new();
    for (checked, inputs) in sets.iter().enumerate() {
        let decoded: Result<Vec<Fdata<'_>>, _> = inputs.iter().map(|d| fdata::decode(d)).collect();
        let expected = match decoded {
            Ok(decoded) => Ok(fdata::merge(&decoded).map(|m| written(&m))),
            Err(e) => Err(e),
        };
        for split in 0..=inputs.len() {
            // Read by one merger up to `split` and another after, then joined.
            let merged = || {
                let mut first = fdata::Merger::new();
                let mut later = match fdata::read_header(inputs[0]) {
                    Ok(h) if split > 0 => fdata::Merger::after_first(h.bolted_collection, h.no_lbr.is_some()),
                    _ => fdata::Merger::new(),
                };
                let mut read = Ok(());
                for (i, data) in inputs.iter().enumerate() {
                    let merger = if i < split { &mut first } else { &mut later };
                    read = read.and_then(|()| merger.add(i, data));
                }
                read.map(|()| {
                    if split == 0 {
                        later
                    } else {
                        first.absorb(later);
                        first
                    }
                })
            };
            let finished = merged().map(|m| m.finish().map(|m| written(&m)));
            assert_eq!(finished, expected, "inputs {checked}, split at {split}");
            // Written straight from the sums, the same text.
            let text = merged().map(|m| {
                let mut out = Vec::new();
                m.write(&mut out).map(|()| out)
            });
            assert_eq!(text, expected, "inputs {checked}, split at {split}, written");
            // And handed out in chunks, each whole lines and at least 7 bytes but
            // the last: the same bytes, none after a failure.
            let chunked = merged().map(|m| {
                let mut chunks = Vec::new();
                let written = m.write_chunks(7, &mut |b| {
                    chunks.push(b.to_vec());
                    Ok::<(), ()>(())
                });
                assert!(written.is_ok() || chunks.is_empty(), "inputs {checked}: a failed merge wrote");
                written.map(|sunk| {
                    assert_eq!(sunk, Ok(()));
                    let (_, before) = chunks.split_last().unwrap();
                    assert!(before.iter().all(|c| c.len() >= 7 && c.ends_with(b"\n")), "inputs {checked}");
                    let text = chunks.concat();
                    // A branch line is longer than 7 bytes: each is handed out with the
                    // lines before it, the samples and memory events at the end.
                    let branches = fdata::decode(&text).map_or(0, |f| f.branches.len());
                    assert_eq!(chunks.len(), branches + 1, "inputs {checked}");
                    text
                })
            });
            assert_eq!(chunked, expected, "inputs {checked}, split at {split}, in chunks");
        }
        // Each merger reading the same part of every input, as the CLI's threads
        // do when every input can be cut (`merge_parts`): the same text, or a
        // failure where there is an error (the CLI then reads the inputs whole,
        // for its line) or where the parts are not the input.
        for n in [2, 3, 5] {
            let Some(parts) = inputs.iter().map(|d| fdata::merge_parts(d, n)).collect::<Option<Vec<_>>>() else {
                continue;
            };
            let mut read = Ok(());
            let mut mergers = Vec::new();
            for part in 0..n {
                let mut merger =
                    if part == 0 { fdata::Merger::new() } else { fdata::Merger::after_first(false, false) };
                for (i, p) in parts.iter().enumerate() {
                    read = read.and_then(|()| merger.add_part(i, part, n, p[part]));
                }
                mergers.push(merger);
            }
            let mut mergers = mergers.into_iter();
            let mut merged = mergers.next().unwrap();
            for later in mergers {
                merged.absorb(later);
            }
            let mut text = Vec::new();
            let read_whole = read.is_ok() && merged.write(&mut text).is_ok();
            match &expected {
                Ok(Ok(expected)) if read_whole => assert_eq!(text, *expected, "inputs {checked} in {n} parts"),
                // The parts are not the input: the CLI then reads it whole.
                Ok(Ok(_)) => {}
                _ => assert!(!read_whole, "inputs {checked} in {n} parts"),
            }
            cut.push((checked, n, read_whole));
        }
    }
    // The sets whose inputs all have lines enough and no header are cut, and read
    // in parts unless an input's records end before a cut or fail.
    let all = |set, read| [2, 3, 5].map(|n| (set, n, read)).to_vec();
    let read = [all(0, true), vec![(1, 2, true)], all(2, true)[..2].to_vec(), all(3, true)[..2].to_vec()];
    let refused = [all(11, false), all(12, false), all(13, false), all(14, false)];
    assert_eq!(cut, [read.concat(), all(10, true), refused.concat()].concat());
    // The sets above do reach every outcome.
    let outcomes = sets.iter().map(|inputs| {
        let decoded: Result<Vec<Fdata<'_>>, _> = inputs.iter().map(|d| fdata::decode(d)).collect();
        decoded.map(|d| fdata::merge(&d).map(|_| ()))
    });
    let outcomes: Vec<_> = outcomes.collect();
    assert!(outcomes.iter().any(|o| matches!(o, Ok(Ok(())))));
    assert!(outcomes.iter().any(|o| matches!(o, Ok(Err(MergeError::NegativeCount { .. })))));
    assert!(outcomes.iter().any(|o| matches!(o, Ok(Err(MergeError::MixedModes { .. })))));
    assert!(outcomes.iter().any(|o| o.is_err()));
}

#[test]
fn merge_parts_cut_an_input_before_branch_lines() {
    let base = common::read("bolt-perf/cxxprog/cxxprog.instr.fdata");
    let longest = base.split_inclusive(|&b| b == b'\n').map(<[u8]>::len).max().unwrap();
    for n in 1..=9 {
        let parts = fdata::merge_parts(&base, n).unwrap();
        assert_eq!(parts.len(), n);
        assert_eq!(parts.concat(), base);
        for part in &parts {
            assert!(part.ends_with(b"\n") && b"012".contains(&part[0]), "{n}");
            // About equal: each cut is within a line of its share.
            assert!(part.len().abs_diff(base.len() / n) <= 2 * longest, "{n}: {} of {}", part.len(), base.len());
        }
    }
    let one = b"1 a 0 1 a 4 0 1\n";
    assert_eq!(fdata::merge_parts(one, 1), Some(vec![&one[..]]));
    let two = b"1 a 0 1 a 4 0 1\n1 a 4 1 a 8 0 1\n";
    assert_eq!(fdata::merge_parts(two, 2), Some(vec![&two[..16], &two[16..]]));
    // Not cut: too few lines, headers, a cut among memory events, no parts or
    // too many.
    assert_eq!(fdata::merge_parts(one, 2), None);
    assert_eq!(fdata::merge_parts(two, 3), None);
    assert_eq!(fdata::merge_parts(b"no_lbr cycles\n1 a 0 3\n1 a 4 3\n1 a 8 3\n", 2), None);
    assert_eq!(fdata::merge_parts(b"boltedcollection\n1 a 0 1 a 4 0 1\n1 a 4 1 a 8 0 1\n", 2), None);
    assert_eq!(fdata::merge_parts(b"1 a 0 1 a 4 0 1\n4 a 8 4 h 10 3\n3 a c 3 h 20 1\n3 a c 3 h 28 1\n", 2), None);
    assert_eq!(fdata::merge_parts(&base, 0), None);
    assert_eq!(fdata::merge_parts(&base, 257), None);
    assert_eq!(fdata::merge_parts(b"", 1), None);
}

#[test]
fn merge_refuses_what_merge_fdata_refuses() {
    let peers = "peers/llvm-bolt-tests";
    let a = common::read(&format!("{peers}/merge-fdata-bat-no-lbr__a.fdata"));
    let b = common::read(&format!("{peers}/merge-fdata-lbr-mode__a.fdata"));
    let err = fdata::merge(&[fdata::decode(&a).unwrap(), fdata::decode(&b).unwrap()]).unwrap_err();
    assert_eq!(err, MergeError::MixedModes { input: 1, header: "boltedcollection" });
    let a = common::read(&format!("{peers}/merge-fdata-mixed-mode__a.fdata"));
    let err = fdata::merge(&[fdata::decode(&a).unwrap(), fdata::decode(&b).unwrap()]).unwrap_err();
    assert_eq!(err, MergeError::MixedModes { input: 1, header: "no_lbr" });
    let neg = fdata::decode(b"1 a 0 1 a 4 0 1\n1 a 0 1 a 8 0 -3\n").unwrap();
    assert_eq!(fdata::merge(&[neg]).unwrap_err(), MergeError::NegativeCount { input: 0, line: 2 });
    // Counts add up, mispredictions too, first-seen order kept.
    let a = fdata::decode(b"1 a 0 1 a 4 1 10\n1 b 0 1 b 4 0 1\n").unwrap();
    let b = fdata::decode(b"1 b 0 1 b 4 0 2\n1 a 0 1 a 4 2 20\n").unwrap();
    assert_eq!(written(&fdata::merge(&[a, b]).unwrap()), b"1 a 0 1 a 4 3 30\n1 b 0 1 b 4 0 3\n");
}

fn binary_of(preagg: &Path) -> PathBuf {
    let file = name(preagg);
    let prog = file.split('.').next().unwrap();
    preagg.with_file_name(prog)
}

#[test]
fn preaggregated_profiles_convert_as_perf2bolt_pa() {
    let mut n = 0;
    for path in corpus_files(".txt") {
        let file = name(&path);
        let Some(stem) = file.strip_suffix(".txt").filter(|s| s.contains(".preagg-")) else { continue };
        let reference = path.with_file_name(format!("{stem}.fdata"));
        if !reference.exists() {
            continue;
        }
        let expected = std::fs::read(&reference).unwrap();
        let basic = expected.starts_with(b"no_lbr");
        let elf = std::fs::read(binary_of(&path)).unwrap();
        let binary = Binary::parse(&elf).unwrap();
        let data = std::fs::read(&path).unwrap();
        let profile = perf2bolt::aggregate_preagg(&data, &binary, basic).unwrap();
        let ours = profile.to_fdata();
        assert_eq!(lines(ours.as_bytes()), lines(&expected), "{file}");
        // perf2bolt's count of entries read, from its log.
        let log = std::fs::read_to_string(reference.with_file_name(format!("{stem}.fdata.log"))).unwrap();
        let read: usize = log
            .lines()
            .find_map(|l| l.strip_prefix("PERF2BOLT: read ")?.strip_suffix(" aggregated brstack entries"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(preagg::decode(&data).unwrap().len(), read, "{file}");
        n += 1;
    }
    assert_eq!(n, 6, "cprog and cxxprog: legacy, samples, traces");
}

#[test]
fn preaggregated_files_decode_or_fail_as_perf2bolt_reads_them() {
    let mut n = 0;
    for path in common::files_under(&common::corpus().join("peers/llvm-bolt-tests")) {
        let file = name(&path);
        let Some(input) = file.strip_suffix(".perf2bolt.log") else { continue };
        let data = std::fs::read(path.with_file_name(input)).unwrap();
        let log = std::fs::read_to_string(&path).unwrap();
        match (preagg::decode(&data), reader_error(&path)) {
            (Ok(entries), None) => {
                let read: usize = log
                    .lines()
                    .find_map(|l| l.strip_prefix("PERF2BOLT: read ")?.strip_suffix(" aggregated brstack entries"))
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(entries.len(), read, "{input}");
            }
            (Err(e), Some((line, column, what))) => {
                assert_eq!(line_column(&e), (line, column + 1), "{input}: {e} vs {what}");
            }
            (ours, theirs) => panic!("{input}: ours {ours:?}, perf2bolt {theirs:?}"),
        }
        n += 1;
    }
    assert_eq!(n, 12);
}

#[test]
fn preaggregated_entries_are_read_as_written() {
    let data = common::read("bolt-perf/cprog/cprog.preagg-legacy.txt");
    let entries = preagg::decode(&data).unwrap();
    // `E cycles:u`, then `B X:7f0000000040 ac5e…:40136f 69 0`.
    assert_eq!((entries[0].kind, entries[0].event), (EntryKind::Event, &b"cycles:u"[..]));
    let b = &entries[1];
    assert_eq!(b.kind, EntryKind::Branch);
    assert_eq!((b.addresses[0].build_id, b.addresses[0].offset), (Some(&b"X"[..]), 0x7f0000000040));
    assert_eq!(b.addresses[1].build_id, Some(&b"ac5e5d2c821278bbb9de3c8d7c090f208a46534e"[..]));
    assert_eq!((b.addresses[1].offset, b.counters, b.line), (0x40136f, [69, 0], 2));
    let kinds: std::collections::BTreeSet<_> = common::files_under(&common::corpus().join("bolt-perf"))
        .iter()
        .filter(|p| name(p).contains(".preagg-") && name(p).ends_with(".txt"))
        .flat_map(|p| {
            let data = std::fs::read(p).unwrap();
            preagg::decode(&data).unwrap().into_iter().map(|e| format!("{:?}", e.kind)).collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(kinds.len(), 8, "every entry type is in the corpus: {kinds:?}");
}

/// Cuts every file at every byte (and flips bits): an error or a profile, never a
/// panic, and an error always on a line of the input.
#[test]
fn damaged_inputs_never_panic() {
    let inputs = [
        "bolt-perf/cprog/cprog.instr.fdata",
        "bolt-perf/cprog/cprog.nolbr.fdata",
        "bolt-perf/cprog/cprog.brstack-mem.fdata",
        "bolt-perf/cprog/cprog.bolt.bat-nolbr.fdata",
        "bolt-perf/cprog/cprog.preagg-traces.txt",
        "bolt-perf/cprog/cprog.preagg-legacy.txt",
    ];
    for rel in inputs {
        let data = common::read(rel);
        let total_lines = data.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
        let check = |cut: &[u8]| {
            let r =
                if rel.ends_with(".txt") { preagg::decode(cut).map(|_| ()) } else { fdata::decode(cut).map(|_| ()) };
            if let Err(e) = r {
                assert!(line_column(&e).0 <= total_lines, "{rel}: {e}");
            }
        };
        for end in 0..data.len() {
            check(&data[..end]);
        }
        let mut flipped = data.clone();
        for i in (0..data.len()).step_by(7) {
            flipped[i] ^= 1 << (i % 8);
            check(&flipped);
            flipped[i] = data[i];
        }
    }
    // Cut inside a record: the error names where.
    let e = fdata::decode(b"1 main 4e 1 main 50 0 2").unwrap_err();
    assert_eq!(line_column(&e), (1, 23));
    // Counts past int64 are not numbers.
    let e = fdata::decode(b"1 a 0 1 a 4 0 9223372036854775808\n").unwrap_err();
    assert_eq!(e.to_string(), "expected decimal number (at line 1, column 34)");
    let e = preagg::decode(b"B 10 20 99999999999999999999 0\n").unwrap_err();
    assert!(e.to_string().starts_with("expected decimal number"), "{e}");
    // Offsets past 64 bits, `0x`, and a kind out of range.
    assert!(fdata::decode(b"1 a 10000000000000000 1 a 4 0 1\n").is_err());
    assert!(fdata::decode(b"1 a 0x4 1 a 4 0 1\n").is_err());
    assert_eq!(
        fdata::decode(b"1 a 0 7 a 4 0 1\n").unwrap_err().to_string(),
        "expected 0, 1 or 2 (at line 1, column 7)"
    );
    // A header and nothing else.
    assert!(fdata::decode(b"no_lbr\n").is_err());
}
