//! Malformed perf.data: truncation at every record boundary, record sizes that
//! lie, attr sizes that do not match, id lists outside the file, zstd garbage,
//! call chains longer than their record, absurd counts, and bit flips. Each must
//! be an error with an offset inside the input (or a successful decode of what
//! is there); never a panic, a hang or a runaway allocation.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;

use common::read;

use pgolens::formats::perf::{PerfData, PerfStream, Record};
use pgolens::{Error, ErrorKind};

/// Parses and decodes every record in perf's order; the first error, if any.
fn decode_all(data: &[u8]) -> Result<usize, Error> {
    let perf = PerfData::parse(data)?;
    let mut samples = 0;
    for position in perf.time_order()? {
        if let Record::Sample(_) = perf.record_at(position)?.record {
            samples += 1;
        }
    }
    // The one-pass walk without the index meets the same records.
    let unindexed = PerfData::parse_unindexed(data)?;
    let mut again = 0;
    unindexed.for_each_in_time_order(|position| {
        if let Record::Sample(_) = unindexed.record_at(position)?.record {
            again += 1;
        }
        Ok(())
    })?;
    assert_eq!(again, samples);
    // Streamed in small chunks, it meets the same samples.
    assert_eq!(stream_all(data)?, samples);
    Ok(samples)
}

/// The samples of the recording streamed in (in chunks of 251 bytes, the header
/// alone given first, every other section fetched).
fn stream_all(data: &[u8]) -> Result<usize, Error> {
    let mut fetch = |offset: u64, len: u64, expected: &'static str| {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let end = start.saturating_add(usize::try_from(len).unwrap_or(usize::MAX));
        data.get(start..end).map(<[u8]>::to_vec).ok_or(Error::invalid(0, expected, offset))
    };
    let (mut stream, start) = PerfStream::start(&data[..data.len().min(104)], data.len() as u64, &mut fetch)?;
    let mut samples = 0;
    let mut visit = |_: &PerfData<'_>, r: &pgolens::formats::perf::RecordAt<'_>| {
        samples += usize::from(matches!(r.record, Record::Sample(_)));
        Ok(())
    };
    for chunk in data.get(usize::try_from(start).unwrap_or(usize::MAX)..).unwrap_or_default().chunks(251) {
        stream.feed(chunk, &mut visit)?;
    }
    stream.finish(&mut visit)?;
    Ok(samples)
}

/// Decoding either succeeds or fails at an offset inside the input; so does
/// streaming it.
fn check(data: &[u8], what: &str) -> Result<usize, Error> {
    let result = decode_all(data);
    let streamed = stream_all(data);
    for e in [&result, &streamed].into_iter().filter_map(|r| r.as_ref().err()) {
        let offset = e.offset().unwrap_or_else(|| panic!("{what}: error without offset: {e}"));
        assert!(offset <= data.len() as u64, "{what}: offset {offset:#x} past the end: {e}");
    }
    result
}

fn u64_at(data: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(data[at..at + 8].try_into().unwrap())
}

fn put_u64(data: &mut [u8], at: usize, value: u64) {
    data[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

/// (start, type, size) of each record in `start..end`.
fn records(data: &[u8], start: usize, end: usize) -> Vec<(usize, u32, u16)> {
    let mut out = Vec::new();
    let mut at = start;
    while at + 8 <= end {
        let kind = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
        let size = u16::from_le_bytes(data[at + 6..at + 8].try_into().unwrap());
        out.push((at, kind, size));
        at += usize::from(size.max(8));
    }
    out
}

const FP: &str = "bolt-perf/cprog/cprog.fp.perf.data";
const PIPE: &str = "bolt-perf/cxxprog/cxxprog.pipe.perf.data";
const COMPRESSED: &str = "peers/linux-perf-data/sleep.compressed.data";
const COMPRESSED_PIPE: &str = "peers/linux-perf-data/fibo.compressed2.pipe.data";

#[test]
fn file_cut_at_every_record_boundary() {
    let full = read(FP);
    let (data_offset, data_size) = (u64_at(&full, 40) as usize, u64_at(&full, 48) as usize);
    let all = decode_all(&full).unwrap();
    let recs = records(&full, data_offset, data_offset + data_size);
    assert!(recs.len() > 100);
    let mut previous = 0;
    for &(at, _, _) in &recs {
        let mut cut = full[..at].to_vec();
        // With the header's data size intact the data section runs past the end: an error at that field.
        let e = check(&cut, "cut with data size").unwrap_err();
        assert_eq!(e.offset(), Some(48), "{e}");
        // A recording cut off mid-write has data size 0: every complete record decodes.
        put_u64(&mut cut, 48, 0);
        let samples = check(&cut, "cut recording").unwrap();
        assert!(samples >= previous && samples <= all);
        previous = samples;
        // Cut inside the record as well: still every complete record before it.
        if at + 5 < full.len() {
            let mut mid = full[..at + 5].to_vec();
            put_u64(&mut mid, 48, 0);
            assert_eq!(check(&mid, "cut inside a record").unwrap(), samples);
        }
    }
    let last_is_sample = recs.last().unwrap().1 == 9;
    assert_eq!(previous + usize::from(last_is_sample), all, "the last cut keeps all samples but the last record's");
}

#[test]
fn pipe_cut_at_every_record_boundary() {
    let full = read(PIPE);
    let all = decode_all(&full).unwrap();
    let mut previous = 0;
    for (at, _, _) in records(&full, 16, full.len()) {
        let samples = check(&full[..at], "pipe cut at a record").unwrap();
        assert!(samples >= previous);
        previous = samples;
        // A capture cut inside a record keeps the complete ones and says where it stopped.
        let perf = PerfData::parse(&full[..at + 3]).unwrap();
        assert_eq!(perf.truncated_at, Some(at as u64));
    }
    assert!(previous <= all);
}

#[test]
fn every_prefix_of_small_files() {
    for rel in [FP, PIPE, COMPRESSED, COMPRESSED_PIPE] {
        let full = read(rel);
        let step = (full.len() / 400).max(1);
        for len in (0..full.len()).step_by(step) {
            let _ = check(&full[..len], &format!("{rel} cut at {len}"));
        }
    }
}

#[test]
fn record_sizes_that_lie() {
    let full = read(FP);
    let data_offset = u64_at(&full, 40) as usize;
    let data_size = u64_at(&full, 48) as usize;
    let recs = records(&full, data_offset, data_offset + data_size);
    let sample = recs.iter().find(|r| r.1 == 9).unwrap().0;
    // Smaller than a header: refused where the size is.
    let mut data = full.clone();
    data[sample + 6..sample + 8].copy_from_slice(&4u16.to_le_bytes());
    let e = check(&data, "size 4").unwrap_err();
    assert_eq!(e.offset(), Some(sample as u64 + 6), "{e}");
    // Larger than the section: the record runs out of the data section.
    let last = recs.last().unwrap().0;
    let mut data = full.clone();
    data[last + 6..last + 8].copy_from_slice(&0xfff8u16.to_le_bytes());
    let e = check(&data, "size past the end").unwrap_err();
    assert!(matches!(e.kind, ErrorKind::UnexpectedEof { .. }), "{e}");
    // Too small for the sample fields its event says it has.
    let mut data = full.clone();
    data[sample + 6..sample + 8].copy_from_slice(&16u16.to_le_bytes());
    let e = check(&data, "sample cut short").unwrap_err();
    assert!(e.offset().unwrap() >= sample as u64, "{e}");
}

#[test]
fn callchain_longer_than_its_record() {
    let full = read(FP);
    let data_offset = u64_at(&full, 40) as usize;
    let data_size = u64_at(&full, 48) as usize;
    let (sample, _, _) = *records(&full, data_offset, data_offset + data_size).iter().find(|r| r.1 == 9).unwrap();
    // cprog.fp: IP|TID|TIME|PERIOD|CALLCHAIN → nr is the 5th u64 of the body.
    let nr_at = sample + 8 + 8 * 4;
    for nr in [u64::MAX, 1 << 40, 5000] {
        let mut data = full.clone();
        put_u64(&mut data, nr_at, nr);
        let e = check(&data, "callchain nr").unwrap_err();
        assert_eq!(e.offset(), Some(nr_at as u64), "{e}");
        assert!(e.to_string().contains("callchain"), "{e}");
    }
}

#[test]
fn attr_sizes_that_do_not_match() {
    let full = read(FP);
    let attrs_offset = u64_at(&full, 24) as usize;
    let attr_size = u64_at(&full, 16);
    // attr.size larger than its entry.
    let mut data = full.clone();
    data[attrs_offset + 4..attrs_offset + 8].copy_from_slice(&(attr_size as u32).to_le_bytes());
    let e = check(&data, "attr.size").unwrap_err();
    assert_eq!(e.offset(), Some(attrs_offset as u64 + 4), "{e}");
    // attr_size that does not divide the section.
    let mut data = full.clone();
    put_u64(&mut data, 16, attr_size + 8);
    assert_eq!(check(&data, "attr_size").unwrap_err().offset(), Some(16));
    // attr_size too small to hold an attr.
    let mut data = full.clone();
    put_u64(&mut data, 16, 8);
    assert_eq!(check(&data, "attr_size").unwrap_err().offset(), Some(16));
}

#[test]
fn id_lists_outside_the_file() {
    let full = read("bolt-perf/cprog/cprog.multi.perf.data");
    let attrs_offset = u64_at(&full, 24) as usize;
    let attr_size = u64_at(&full, 16) as usize;
    let ids_field = attrs_offset + attr_size - 16;
    let mut data = full.clone();
    put_u64(&mut data, ids_field, full.len() as u64 + 64);
    let e = check(&data, "ids offset").unwrap_err();
    assert_eq!(e.offset(), Some(ids_field as u64), "{e}");
    let mut data = full.clone();
    put_u64(&mut data, ids_field + 8, u64::MAX - 7);
    assert!(check(&data, "ids size").is_err());
}

#[test]
fn sample_ids_of_no_event() {
    // Two events with ids: a sample whose id no event lists has no event.
    let full = read("bolt-perf/cprog/cprog.multi.perf.data");
    let data_offset = u64_at(&full, 40) as usize;
    let data_size = u64_at(&full, 48) as usize;
    let (sample, _, _) = *records(&full, data_offset, data_offset + data_size).iter().find(|r| r.1 == 9).unwrap();
    // IP|TID|TIME|ID|PERIOD: the id is the 4th u64.
    let mut data = full.clone();
    put_u64(&mut data, sample + 8 + 24, 0xdead_beef);
    let e = check(&data, "unknown id").unwrap_err();
    assert!(e.to_string().contains("sample id"), "{e}");
}

#[test]
fn zstd_garbage() {
    for rel in [COMPRESSED, COMPRESSED_PIPE] {
        let full = read(rel);
        let start = if rel.contains("pipe") { 16 } else { u64_at(&full, 40) as usize };
        let compressed: Vec<usize> =
            records(&full, start, full.len()).into_iter().filter(|r| r.1 == 81 || r.1 == 83).map(|r| r.0).collect();
        assert!(!compressed.is_empty(), "{rel}");
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for &at in compressed.iter().take(8) {
            for _ in 0..40 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let mut data = full.clone();
                let size = u16::from_le_bytes(data[at + 6..at + 8].try_into().unwrap()) as usize;
                let body = 8 + if data[at] == 83 { 8 } else { 0 };
                let i = at + body + (seed as usize) % (size - body).max(1);
                data[i] ^= 1 << (seed >> 60 & 7);
                let _ = check(&data, &format!("{rel}: zstd byte {i:#x}"));
            }
        }
        // A wholly garbage body is refused at its record.
        let mut data = full.clone();
        let at = compressed[0];
        for b in &mut data[at + 16..at + 40] {
            *b = 0xa5;
        }
        let e = check(&data, "garbage zstd").unwrap_err();
        assert_eq!(e.offset(), Some(at as u64), "{rel}: {e}");
    }
}

#[test]
fn absurd_feature_counts() {
    let full = read(FP);
    let data_end = (u64_at(&full, 40) + u64_at(&full, 48)) as usize;
    // The feature table follows the data; find EVENT_DESC (bit 12) and CMDLINE (bit 11).
    let bits = u64_at(&full, 72);
    let features: Vec<u32> = (0..64).filter(|b| bits >> b & 1 == 1).collect();
    for feature in [11u32, 12] {
        let slot = features.iter().position(|&b| b == feature).unwrap();
        let section = u64_at(&full, data_end + 16 * slot) as usize;
        let mut data = full.clone();
        data[section..section + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = check(&data, "feature count").unwrap_err();
        assert_eq!(e.offset(), Some(section as u64), "feature {feature}: {e}");
    }
}

/// xorshift64*: reproducible noise without a dependency.
struct Noise(u64);

impl Noise {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[test]
fn bit_flips_anywhere() {
    for rel in [FP, PIPE, COMPRESSED_PIPE, "bolt-perf/cprog/cprog.brstack.perf.data"] {
        let full = read(rel);
        let mut noise = Noise(0x1234_5678 ^ full.len() as u64);
        for _ in 0..150 {
            let mut data = full.clone();
            let at = (noise.next() % full.len() as u64) as usize;
            data[at] ^= 1 << (noise.next() % 8);
            let _ = check(&data, &format!("{rel}: flip at {at:#x}"));
        }
    }
}
