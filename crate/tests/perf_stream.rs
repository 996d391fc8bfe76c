//! A perf.data read as it streams in, in chunks of any size, gives the records of
//! the whole file in the same time order, decoded alike, and the same stacks, for
//! every corpus recording (file and pipe mode, compressed, cut off).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing, clippy::arithmetic_side_effects)]

mod common;

use pgolens::formats::perf::dsos::DsoUse;
use pgolens::formats::perf::{PerfData, PerfStream};
use pgolens::model::perf::{PerfStacks, StackReader, StacksPart};
use pgolens::symbolize::Symbolizer;
use pgolens::Result;

/// The corpus recordings.
fn recordings() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for dir in ["bolt-perf", "peers/linux-perf-data"] {
        for path in common::files_under(&common::corpus().join(dir)) {
            let name = path.to_string_lossy().into_owned();
            if name.ends_with(".perf.data") || name.ends_with(".data") {
                out.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    assert!(out.len() > 25, "{}", out.len());
    out
}

/// Streams `data` in chunks of `chunk` bytes: the records visited (offset and
/// decoded record), and the recording `finish` returns.
fn streamed(
    data: &[u8],
    chunk: usize,
    mut visit: impl FnMut(&PerfData<'_>, &pgolens::formats::perf::RecordAt<'_>) -> Result<()>,
) -> Result<PerfData<'static>> {
    // The head is the header's bytes only; everything else comes by fetch or feed.
    let head = &data[..data.len().min(104)];
    let mut fetch = |offset: u64, len: u64, _: &'static str| {
        let start = usize::try_from(offset).unwrap();
        Ok(data.get(start..start + usize::try_from(len).unwrap()).unwrap().to_vec())
    };
    let (mut stream, start) = PerfStream::start(head, data.len() as u64, &mut fetch)?;
    for piece in data[usize::try_from(start).unwrap()..].chunks(chunk) {
        stream.feed(piece, &mut visit)?;
    }
    stream.finish(&mut visit)
}

/// The stacks of `data` streamed in chunks of `chunk` bytes, and its DSOs with
/// their samples.
fn streamed_stacks(data: &[u8], chunk: usize, symbolizer: &Symbolizer<'_>) -> (PerfStacks, Vec<DsoUse>) {
    let mut reader = StackReader::new(0);
    reader.count_dsos();
    let meta = streamed(data, chunk, |perf, r| {
        reader.record(perf, r, symbolizer);
        Ok(())
    })
    .unwrap();
    let dsos = reader.dso_uses(&meta).unwrap();
    (reader.finish(&meta), dsos)
}

/// A record as the tests compare it: its offset, header, sample_id and record.
fn line(r: &pgolens::formats::perf::RecordAt<'_>) -> String {
    format!("{} {:?} {:?} {:?}", r.offset, r.header, r.sample_id, r.record)
}

/// The whole file's records in time order, as [`line`]s.
fn whole_records(perf: &PerfData<'_>) -> Vec<String> {
    let mut whole = Vec::new();
    perf.for_each_in_time_order(|p| {
        whole.push(line(&perf.record_at(p)?));
        Ok(())
    })
    .unwrap();
    whole
}

#[test]
fn streamed_records_are_the_whole_files_in_time_order() {
    for (name, data) in recordings() {
        let perf = PerfData::parse(&data).unwrap();
        let whole = whole_records(&perf);
        // 65,521 (a prime) cuts dwarf recordings' 8 KB samples at every offset, so
        // that a cut record is completed in one step of the copy or in several.
        for chunk in [1, 7, 4096, 65_521, 1 << 20] {
            let mut got = Vec::new();
            let meta = streamed(&data, chunk, |_, r| {
                got.push(line(r));
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name} in chunks of {chunk}: {e}"));
            assert_eq!(got.len(), whole.len(), "{name} in chunks of {chunk}");
            if let Some(i) = (0..got.len()).find(|&i| got[i] != whole[i]) {
                panic!("{name} in chunks of {chunk}: record {i}\n{}\n{}", got[i], whole[i]);
            }
            assert_eq!(meta.events, perf.events, "{name}");
            assert_eq!(meta.record_count(), perf.record_count(), "{name}");
            assert_eq!(meta.sample_count(), perf.sample_count(), "{name}");
            assert_eq!(meta.truncated_at, perf.truncated_at, "{name}");
            assert_eq!(format!("{:?}", meta.features), format!("{:?}", perf.features), "{name}");
        }
    }
}

#[test]
fn streamed_stacks_are_the_whole_files() {
    let symbolizer = Symbolizer::new();
    let mut checked = 0;
    for (name, data) in recordings() {
        let perf = PerfData::parse_unindexed(&data).unwrap();
        let whole = PerfStacks::read(&perf, &symbolizer, |_, _| {}).unwrap();
        let (stacks, dsos) = streamed_stacks(&data, 4093, &symbolizer);
        assert_eq!(format!("{stacks:?}"), format!("{whole:?}"), "{name}");
        // The Symbols panel's DSOs, counted on the way, are the whole file's.
        assert_eq!(dsos, pgolens::formats::perf::dsos::dsos(&perf).unwrap(), "{name}");
        checked += usize::from(whole.profile.sample_count() > 0);
    }
    assert!(checked > 20, "{checked}");
}

/// The stacks of `data` read by two readers at once, cut where `cut` bytes of its
/// record stream were fed: the first reads the records released up to the cut,
/// the second replays them, reads the rest and joins the first's part.
fn stacks_in_two_parts<'s>(data: &[u8], cut: usize, symbolizer: &Symbolizer<'s>) -> (PerfStacks, Vec<DsoUse>) {
    let head = &data[..data.len().min(104)];
    let mut fetch = |offset: u64, len: u64, _: &'static str| {
        let start = usize::try_from(offset).unwrap();
        Ok(data.get(start..start + usize::try_from(len).unwrap()).unwrap().to_vec())
    };
    let start = usize::try_from(PerfStream::start(head, data.len() as u64, &mut fetch).unwrap().1).unwrap();
    let cut = (start + cut).min(data.len());
    fn feed<'s>(stream: &mut PerfStream, bytes: &[u8], reader: &mut StackReader<'s>, symbolizer: &Symbolizer<'s>) {
        for piece in bytes.chunks(4093) {
            stream
                .feed(piece, &mut |perf, r| {
                    reader.record(perf, r, symbolizer);
                    Ok(())
                })
                .unwrap();
        }
    }
    let (mut first_stream, _) = PerfStream::start(head, data.len() as u64, &mut fetch).unwrap();
    let mut first = StackReader::new(0);
    first.count_dsos();
    feed(&mut first_stream, &data[start..cut], &mut first, symbolizer);
    let (mut stream, _) = PerfStream::start(head, data.len() as u64, &mut fetch).unwrap();
    let mut reader = StackReader::new(0);
    reader.count_dsos();
    reader.replay(true);
    stream.skip_samples(true);
    feed(&mut stream, &data[start..cut], &mut reader, symbolizer);
    reader.replay(false);
    stream.skip_samples(false);
    feed(&mut stream, &data[cut..], &mut reader, symbolizer);
    let meta = stream
        .finish(&mut |perf, r| {
            reader.record(perf, r, symbolizer);
            Ok(())
        })
        .unwrap();
    // Handed over as bytes, as from one worker to another.
    let bytes = first.into_part().to_bytes();
    reader.join(StacksPart::from_bytes(&bytes).unwrap());
    let dsos = reader.dso_uses(&meta).unwrap();
    (reader.finish(&meta), dsos)
}

#[test]
fn stacks_read_in_two_parts_cut_anywhere_are_the_whole_files() {
    let symbolizer = Symbolizer::new();
    let mut checked = 0;
    for (name, data) in recordings() {
        let perf = PerfData::parse_unindexed(&data).unwrap();
        let whole = PerfStacks::read(&perf, &symbolizer, |_, _| {}).unwrap();
        let whole_dsos = pgolens::formats::perf::dsos::dsos(&perf).unwrap();
        // Cuts through the record stream: before it, at record boundaries and
        // inside records, past it.
        let len = data.len();
        for cut in [0, 1, 8, len / 7, len / 3, len / 2 + 1, len * 2 / 3, len - len / 9, len] {
            let (stacks, dsos) = stacks_in_two_parts(&data, cut, &symbolizer);
            assert_eq!(format!("{stacks:?}"), format!("{whole:?}"), "{name} cut at {cut}");
            assert_eq!(dsos, whole_dsos, "{name} cut at {cut}");
        }
        checked += usize::from(whole.profile.sample_count() > 0);
    }
    assert!(checked > 20, "{checked}");
}

/// The fuzzers' recordings that a stream reads (a file recording with an event
/// added among its records, after its first sample), cut at every few bytes.
#[test]
fn fuzzed_recordings_read_in_two_parts_are_the_whole_files() {
    let symbolizer = Symbolizer::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions");
    let mut checked = Vec::new();
    for path in common::files_under(&dir) {
        let data = std::fs::read(&path).unwrap();
        let Ok(perf) = PerfData::parse_unindexed(&data) else { continue };
        if streamed(&data, 4093, |_, _| Ok(())).is_err() {
            continue;
        }
        let whole = format!("{:?}", PerfStacks::read(&perf, &symbolizer, |_, _| {}).unwrap());
        let whole_dsos = pgolens::formats::perf::dsos::dsos(&perf).unwrap();
        for cut in (0..data.len()).step_by(5) {
            let (stacks, dsos) = stacks_in_two_parts(&data, cut, &symbolizer);
            assert_eq!(format!("{stacks:?}"), whole, "{} cut at {cut}", path.display());
            assert_eq!(dsos, whole_dsos, "{} cut at {cut}", path.display());
        }
        checked.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    assert!(checked.contains(&"header-attr-in-a-file-recording".to_string()), "{checked:?}");
}

/// A part handed over as bytes that were cut short, damaged or claim absurd
/// counts reads as an error, never a panic nor a huge allocation; whole, it reads
/// back as it was.
#[test]
fn a_part_cut_short_or_damaged_is_an_error() {
    let symbolizer = Symbolizer::new();
    let data = std::fs::read(common::corpus().join("bolt-perf/cprog/cprog.pipe.perf.data")).unwrap();
    let head = &data[..104.min(data.len())];
    let mut fetch = |offset: u64, len: u64, _: &'static str| {
        let start = usize::try_from(offset).unwrap();
        Ok(data.get(start..start + usize::try_from(len).unwrap()).unwrap().to_vec())
    };
    let (mut stream, start) = PerfStream::start(head, data.len() as u64, &mut fetch).unwrap();
    let mut reader = StackReader::new(0);
    reader.count_dsos();
    let mut visit = |perf: &PerfData<'_>, r: &pgolens::formats::perf::RecordAt<'_>| {
        reader.record(perf, r, &symbolizer);
        Ok(())
    };
    stream.feed(&data[usize::try_from(start).unwrap()..], &mut visit).unwrap();
    stream.finish(&mut visit).unwrap();
    let part = reader.into_part();
    assert!(part.stacks.profile.sample_count() > 10 && part.stacks.profile.node_count() > 10);
    let bytes = part.to_bytes();
    let back = StacksPart::from_bytes(&bytes).unwrap();
    assert!(format!("{:?}", back.stacks) == format!("{:?}", part.stacks), "the stacks read back");
    assert_eq!(back.dsos.as_ref().unwrap().counts(), part.dsos.as_ref().unwrap().counts());
    assert!(back.to_bytes() == bytes);
    for len in 0..bytes.len() {
        assert!(StacksPart::from_bytes(&bytes[..len]).is_err(), "cut at {len}");
    }
    let mut longer = bytes.clone();
    longer.push(0);
    let e = StacksPart::from_bytes(&longer).unwrap_err();
    assert_eq!(e.location, pgolens::error::Location::Offset(bytes.len() as u64));
    // Every byte flipped in turn: read or refused, never a panic.
    let mut refused = 0;
    for i in 0..bytes.len() {
        let mut damaged = bytes.clone();
        damaged[i] ^= 0xff;
        refused += usize::from(StacksPart::from_bytes(&damaged).is_err());
    }
    assert!(refused > bytes.len() / 4, "{refused} of {}", bytes.len());
    // The event count (the first word) claiming more events than bytes.
    let mut absurd = bytes.clone();
    absurd[..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = StacksPart::from_bytes(&absurd).unwrap_err();
    assert_eq!(e.location, pgolens::error::Location::Offset(0));
}

#[test]
fn a_pipe_recordings_build_ids_reach_its_streamed_stacks() {
    // perf inject -b wrote HEADER_BUILD_ID records into the stream (make.sh):
    // the DSOs take them as when the whole file is read, as perf buildid-list lists them.
    let dir = common::crate_dir().join("../tests/data/perf-pipe-buildids");
    let data = std::fs::read(dir.join("gzip.pipe-injected.perf.data")).unwrap();
    let listed = std::fs::read_to_string(dir.join("gzip.pipe-injected.perf.data.buildids.txt")).unwrap();
    let symbolizer = Symbolizer::new();
    let perf = PerfData::parse(&data).unwrap();
    let whole = PerfStacks::read(&perf, &symbolizer, |_, _| {}).unwrap();
    let (stacks, dsos) = streamed_stacks(&data, 512, &symbolizer);
    assert_eq!(format!("{stacks:?}"), format!("{whole:?}"));
    // The ids come at the end of the stream; the DSO list takes them as the whole read does.
    let whole_dsos = pgolens::formats::perf::dsos::dsos(&perf).unwrap();
    assert_eq!(dsos, whole_dsos);
    assert!(whole_dsos.iter().filter(|d| d.build_id.is_some() && d.samples > 0).count() >= 2, "{whole_dsos:?}");
    let mut with_ids = 0;
    for (path, id) in stacks.addresses.dsos() {
        let line = listed.lines().find(|l| l.ends_with(&format!(" {path}"))).unwrap_or_else(|| panic!("{path}"));
        let hex: String = id.as_deref().unwrap_or_default().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(line.split_whitespace().next(), Some(hex.as_str()), "{path}");
        with_ids += 1;
    }
    assert!(with_ids >= 2, "{:?}", stacks.addresses.dsos());
}

/// A file-mode recording's feature sections, which lie together after the data,
/// are fetched in one read (each fetch is a synchronous read of the dropped file
/// in the page), and give the features that fetching each section alone gives.
#[test]
fn feature_sections_come_in_one_fetch() {
    let mut batched = 0;
    for (name, data) in recordings() {
        let head = &data[..data.len().min(104)];
        let read = |offset: u64, len: u64| {
            let start = usize::try_from(offset).unwrap();
            data.get(start..start + usize::try_from(len).unwrap()).map(<[u8]>::to_vec)
        };
        let mut labels = Vec::new();
        let mut counting = |offset: u64, len: u64, expected: &'static str| {
            labels.push(expected);
            read(offset, len).ok_or(pgolens::Error::malformed(offset, expected))
        };
        let Ok((together, _)) = PerfStream::start(head, data.len() as u64, &mut counting) else { continue };
        // The same, with the read of all sections at once refused.
        let mut alone = |offset: u64, len: u64, expected: &'static str| {
            if expected == "feature sections inside the file" {
                return Err(pgolens::Error::malformed(offset, expected));
            }
            read(offset, len).ok_or(pgolens::Error::malformed(offset, expected))
        };
        let (apart, _) = PerfStream::start(head, data.len() as u64, &mut alone).unwrap();
        let features = |s: PerfStream| format!("{:?}", s.finish(&mut |_, _| Ok(())).unwrap().features);
        let sections = labels.iter().filter(|&&l| l == "feature sections inside the file").count();
        assert!(sections <= 1, "{name}: {labels:?}");
        if sections == 1 {
            assert!(!labels.contains(&"feature section inside the file"), "{name}: {labels:?}");
            batched += 1;
        }
        assert_eq!(features(together), features(apart), "{name}");
    }
    assert!(batched > 15, "{batched}");
}

/// A little-endian pipe recording of the corpus with one event: its records'
/// kinds and byte ranges (after the 16-byte header), and its HEADER_ATTR's range.
struct PipeRecording {
    name: String,
    data: Vec<u8>,
    records: Vec<(u32, std::ops::Range<usize>)>,
    attr: std::ops::Range<usize>,
}

fn one_event_pipe_recordings() -> Vec<PipeRecording> {
    let mut out = Vec::new();
    for (name, data) in recordings() {
        if &data[..8] != b"PERFILE2" || data[8..16] != 16u64.to_le_bytes() {
            continue;
        }
        let mut records = Vec::new();
        let mut at = 16;
        while at + 8 <= data.len() {
            let kind = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
            let size = usize::from(u16::from_le_bytes(data[at + 6..at + 8].try_into().unwrap()));
            if size < 8 || at + size > data.len() {
                break;
            }
            records.push((kind, at..at + size));
            at += size;
        }
        let attrs: Vec<_> = records.iter().filter(|(kind, _)| *kind == 64).map(|(_, r)| r.clone()).collect();
        if let [attr] = &attrs[..] {
            let attr = attr.clone();
            out.push(PipeRecording { name, data, records, attr });
        }
    }
    out
}

/// A pipe recording that announces its one event again after its first sample (a
/// copy of its HEADER_ATTR: a second event with the same ids). Read whole, the
/// second event decides which event that sample was; streamed, the sample was
/// already taken for the only event. The stream fails at the late event, naming
/// it; the whole file still reads (the page reads such a file whole).
#[test]
fn a_pipe_event_announced_after_a_sample_fails_the_stream() {
    let mut tried = 0;
    for PipeRecording { name, data, records, attr } in one_event_pipe_recordings() {
        let Some(after) = records.iter().find(|(kind, _)| *kind == 9).map(|(_, r)| r.end) else { continue };
        let mut damaged = data[..after].to_vec();
        damaged.extend_from_slice(&data[attr]);
        damaged.extend_from_slice(&data[after..]);
        let streamed = streamed(&damaged, 4096, |_, _| Ok(()));
        let e = streamed.err().unwrap_or_else(|| panic!("{name}: streamed"));
        assert_eq!(e.location, pgolens::error::Location::Offset(after as u64), "{name}");
        assert_eq!(
            e.kind,
            pgolens::error::ErrorKind::Malformed { what: "every event (HEADER_ATTR) before the records it decides" },
            "{name}"
        );
        let whole = PerfData::parse(&damaged).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(whole.events.len(), 2, "{name}");
        tried += 1;
    }
    assert!(tried >= 2, "{tried} pipe recordings with one event");
}

/// A pipe recording whose one event is renamed (an EVENT_UPDATE of its name) after
/// its first sample is visited. A stream names its events at the first sample, so the
/// recording streamed by one reader keeps the first name; read in two parts, the
/// reader that replays the first part must still name them at that sample (the
/// stream visits the recording's first sample even while it skips samples), or
/// the joined profile would hold the event under both names.
#[test]
fn an_event_renamed_after_the_first_sample_is_named_alike_in_two_parts() {
    let symbolizer = Symbolizer::new();
    let mut tried = 0;
    for PipeRecording { name, data, records, attr } in one_event_pipe_recordings() {
        // The rename goes after the round that releases the first sample (records
        // are visited a round at a time: a rename in the same round is applied
        // before them).
        let Some(first_sample) = records.iter().position(|(kind, _)| *kind == 9) else { continue };
        let round = records[first_sample..].iter().find(|(kind, _)| *kind == 68);
        let Some(after) = round.map(|(_, r)| r.end) else { continue };
        // HEADER_ATTR: the attr (its size at its byte 4), then the event's ids.
        let attr = &data[attr];
        let attr_size = usize::try_from(u32::from_le_bytes(attr[12..16].try_into().unwrap())).unwrap();
        let Some(id) = attr.get(8 + attr_size..8 + attr_size + 8) else { continue };
        // Another round first: a round releases the records of the one before it.
        let mut update = 68u32.to_le_bytes().to_vec();
        update.extend_from_slice(&0u16.to_le_bytes());
        update.extend_from_slice(&8u16.to_le_bytes());
        update.extend_from_slice(&78u32.to_le_bytes());
        update.extend_from_slice(&0u16.to_le_bytes());
        update.extend_from_slice(&40u16.to_le_bytes());
        update.extend_from_slice(&2u64.to_le_bytes()); // the event's name
        update.extend_from_slice(id);
        update.extend_from_slice(b"renamed\0\0\0\0\0\0\0\0\0");
        let mut renamed = data[..after].to_vec();
        renamed.extend_from_slice(&update);
        renamed.extend_from_slice(&data[after..]);
        let (one, one_dsos) = streamed_stacks(&renamed, 4096, &symbolizer);
        let events = one.profile.events();
        assert_eq!(events.len(), 1, "{name}");
        assert_ne!(events[0], "renamed", "{name}: one reader names the event at the first sample");
        assert_eq!(PerfData::parse(&renamed).unwrap().events[0].name, "renamed", "{name}: read whole");
        // Cuts (into the record stream, after the 16-byte header) past the rename.
        for cut in [after - 16 + update.len() + 1, after - 16 + update.len() + 64, renamed.len() / 2, renamed.len()] {
            let (two, two_dsos) = stacks_in_two_parts(&renamed, cut, &symbolizer);
            assert_eq!(format!("{two:?}"), format!("{one:?}"), "{name} cut at {cut}");
            assert_eq!(two_dsos, one_dsos, "{name} cut at {cut}");
        }
        tried += 1;
    }
    assert!(tried >= 2, "{tried} pipe recordings with one event");
}

/// A COMPRESSED record (type 81) whose zstd frame holds `records` as one raw
/// (uncompressed) block: a single-segment frame with a one-byte content size.
fn compressed_record(records: &[u8]) -> Vec<u8> {
    let len = u8::try_from(records.len()).unwrap();
    let mut frame = vec![0x28, 0xb5, 0x2f, 0xfd, 0x20, len];
    // Block header: last block, raw, `len` bytes.
    frame.extend_from_slice(&(1u32 | u32::from(len) << 3).to_le_bytes()[..3]);
    frame.extend_from_slice(records);
    let size = u16::try_from(8 + frame.len()).unwrap();
    let mut out = 81u32.to_le_bytes().to_vec();
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&frame);
    out
}

/// Rounds that end inside compressed data release the records that wait in the
/// chunk being walked, uncompressed: a pipe recording with two FINISHED_ROUNDs
/// packed into a COMPRESSED record right after its first sample (which waits, and
/// is released by the second). Streamed in one chunk and in small ones, its
/// records are those of the whole file, in the same order.
#[test]
fn rounds_in_compressed_data_release_the_uncompressed_records_waiting() {
    let record_at = |data: &[u8], at: usize| {
        let kind = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
        (kind, usize::from(u16::from_le_bytes(data[at + 6..at + 8].try_into().unwrap())))
    };
    let rounds: Vec<u8> = [68u32.to_le_bytes(), [0, 0, 8, 0]].concat().repeat(2);
    let mut tried = 0;
    for (name, data) in recordings() {
        if &data[..8] != b"PERFILE2" || data[8..16] != 16u64.to_le_bytes() {
            continue;
        }
        let mut at = 16;
        let mut first_sample = None;
        while at + 8 <= data.len() {
            let (kind, size) = record_at(&data, at);
            if size < 8 || at + size > data.len() || kind == 81 || kind == 83 {
                break;
            }
            if kind == 9 {
                first_sample = Some(at + size);
                break;
            }
            at += size;
        }
        let Some(after) = first_sample else { continue };
        let mut packed = data[..after].to_vec();
        packed.extend_from_slice(&compressed_record(&rounds));
        packed.extend_from_slice(&data[after..]);
        let perf = PerfData::parse(&packed).unwrap_or_else(|e| panic!("{name}: {e}"));
        let whole = whole_records(&perf);
        for chunk in [after + 64, 4096, 1 << 20] {
            let mut got = Vec::new();
            streamed(&packed, chunk, |_, r| {
                got.push(line(r));
                Ok(())
            })
            .unwrap_or_else(|e| panic!("{name} in chunks of {chunk}: {e}"));
            assert_eq!(got, whole, "{name} in chunks of {chunk}");
        }
        tried += 1;
    }
    assert!(tried >= 2, "{tried} uncompressed pipe recordings");
}
