//! Raw MemProf profiles (`.memprofraw`), as written by the MemProf runtime: raw
//! versions 1 to 5, one or more profiles one after the other.
//!
//! ```text
//! Header (u64 each, producer byte order):
//!   0 Magic  8 Version  16 TotalSize  24 SegmentOffset  32 MIBOffset  40 StackOffset
//! at SegmentOffset: NumSegments u64, SegmentEntry × NumSegments
//!     (start, end, offset u64; v3+: BuildIdSize u64; BuildId[32])
//! at MIBOffset:     NumMIBs u64, {stack id u64, MemInfoBlock} × NumMIBs
//! at StackOffset:   NumStacks u64, {stack id u64, NumPCs u64, PC u64 × NumPCs} …
//! ```
//!
//! Offsets are relative to the profile's header; the next profile starts TotalSize
//! bytes after it (zero bytes between profiles are skipped). Layout read from
//! LLVM's `MemProfData.inc` and `RawMemProfReader.cpp` and checked against the
//! corpus files of versions 1–5.

use alloc::vec::Vec;

use crate::dump::{Fields, Node};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

/// `\xffmprofr\x81` as a u64 in the producer's byte order.
pub const MAGIC: u64 = 0xff6d_7072_6f66_7281;
/// Bytes of the raw MemProf header.
pub const HEADER_SIZE: u64 = 48;

fn endian_of(data: &[u8]) -> Option<Endian> {
    if data.starts_with(&MAGIC.to_le_bytes()) {
        Some(Endian::Little)
    } else if data.starts_with(&MAGIC.to_be_bytes()) {
        Some(Endian::Big)
    } else {
        None
    }
}

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let Some(endian) = endian_of(data) else { return Ok(None) };
    let mut r = Reader::new(data, endian);
    r.skip(8, "magic")?;
    let version = r.u64("Version")?;
    Ok(Some(Detection::new(Format::MemProfRaw).version(version).word_size(64).endian(endian)))
}

/// A region of the profile between two header offsets, with its leading count.
fn region(
    profile: &Reader<'_>,
    start: u64,
    end: u64,
    label: &'static str,
    count_label: &'static str,
    entry_size: Option<u64>,
) -> Result<Node> {
    let mut r = profile.sub_at(start, end.saturating_sub(start), label)?;
    let mut f = Fields::new(&mut r);
    let count_at = f.reader.offset();
    let count = f.u64(count_label)?;
    let mut children = f.into_nodes();
    // Segment entries have a fixed size: one node each, when the region says so.
    if let Some(size) = entry_size {
        if count.checked_mul(size) != Some(r.remaining() as u64) {
            return Err(Error::invalid(count_at, "segment entries that fill the segment region", count));
        }
        for i in 0..count {
            let at = r.offset();
            let mut e = r.sub(size, "SegmentEntry")?;
            let mut f = Fields::new(&mut e);
            f.u64_hex("Start")?;
            f.u64_hex("End")?;
            f.u64_hex("Offset")?;
            let id_len = if size == 64 { f.u64("BuildIdSize")? } else { 32 };
            let id = f.bytes(32, "BuildId")?;
            let shown = id.get(..usize::try_from(id_len).unwrap_or(32).min(32)).unwrap_or(id);
            let nodes = f.into_nodes();
            let node = Node::leaf(alloc::format!("segment {i}"), at, r.offset(), crate::dump::Hex(shown));
            children.push(node.with_children(nodes));
        }
    } else if count > r.remaining() as u64 / 8 {
        return Err(Error::invalid(count_at, "entry count that fits in its region", count));
    } else if !r.is_empty() {
        children.push(Node::leaf("entries", r.offset(), r.end_offset(), format_args!("{} bytes", r.remaining())));
    }
    let mut node = Node::leaf(label, start, end, count).with_children(children);
    node.tile()?;
    Ok(node)
}

fn dump_profile(mut r: Reader<'_>) -> Result<Vec<Node>> {
    let base = r.offset();
    let remaining = r.remaining() as u64;
    let mut f = Fields::new(&mut r);
    f.u64_hex("Magic")?;
    let version = f.u64("Version")?;
    let total_at = f.reader.offset();
    let total = f.u64("TotalSize")?;
    let mut offsets = [0u64; 3];
    let mut offsets_at = [0u64; 3];
    for (i, label) in ["SegmentOffset", "MIBOffset", "StackOffset"].into_iter().enumerate() {
        if let (Some(o), Some(at)) = (offsets.get_mut(i), offsets_at.get_mut(i)) {
            *at = f.reader.offset();
            *o = f.u64(label)?;
        }
    }
    let header = Node::new("Header", base, f.reader.offset()).with_children(f.into_nodes());
    if !(1..=5).contains(&version) {
        return Err(Error::invalid(base.saturating_add(8), "raw MemProf version 1 to 5", version));
    }
    if total < HEADER_SIZE || total > remaining {
        return Err(Error::invalid(total_at, "TotalSize that fits in the file", total));
    }
    // The three regions follow each other: header ≤ segments ≤ MIBs ≤ stacks ≤ end.
    let [segments, mibs, stacks] = offsets;
    let bounds = [HEADER_SIZE, segments, mibs, stacks, total];
    for (i, pair) in bounds.windows(2).enumerate() {
        if let ([low, high], Some(&at)) = (pair, offsets_at.get(i)) {
            // Each region also needs room for its u64 count.
            if high < low || (i < 3 && high.saturating_sub(*low) < if i == 0 { 0 } else { 8 }) {
                return Err(Error::invalid(at, "region offsets in order inside TotalSize", *high));
            }
        }
    }
    let profile = r.sub_at(base, total, "MemProf profile")?;
    let segment_size = if version >= 3 { 64 } else { 56 };
    let abs = |o: u64| base.saturating_add(o);
    let mut out = alloc::vec![header];
    out.push(region(&profile, abs(segments), abs(mibs), "segments", "NumSegments", Some(segment_size))?);
    out.push(region(&profile, abs(mibs), abs(stacks), "MIBs", "NumMIBs", None)?);
    out.push(region(&profile, abs(stacks), abs(total), "stacks", "NumStacks", None)?);
    Ok(out)
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let Some(endian) = endian_of(data) else {
        return Err(Error::malformed(0, "expected the raw MemProf magic"));
    };
    let len = data.len() as u64;
    let mut root = Node::new("memprof raw", 0, len);
    let mut next = 0u64;
    let mut index = 0u64;
    loop {
        let mut r = Reader::new(data, endian).seek_clone(next, "profile")?;
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        r.skip(zeros, "padding")?;
        if endian_of(r.rest()) != Some(endian) {
            break;
        }
        let start = r.offset();
        let nodes = dump_profile(r)?;
        let end = nodes.last().map_or(start, |n| n.end);
        let mut profile = Node::new(alloc::format!("profile {index}"), start, end).with_children(nodes);
        profile.tile()?;
        root.children.push(profile);
        index = index.saturating_add(1);
        if end <= next {
            break;
        }
        next = end;
    }
    if root.children.len() == 1 {
        if let Some(only) = root.children.pop() {
            root.children = only.children;
        }
    }
    root.tile()?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det() -> Detection {
        Detection::new(Format::MemProfRaw)
    }

    #[allow(clippy::panic)] // a missing corpus file fails the test, naming it
    fn corpus(path: &str) -> Vec<u8> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
        std::fs::read(alloc::format!("{root}{path}")).unwrap_or_else(|e| panic!("{root}{path}: {e}"))
    }

    /// A v4 profile: header, one 64-byte segment, no MIBs, no stacks.
    fn v4() -> Vec<u8> {
        let mut d = Vec::new();
        let u64s = |d: &mut Vec<u8>, vs: &[u64]| vs.iter().for_each(|v| d.extend_from_slice(&v.to_le_bytes()));
        u64s(&mut d, &[MAGIC, 4, 136]); // 0 Magic, Version 4, TotalSize 136
        u64s(&mut d, &[48, 120, 128]); // 24 SegmentOffset, MIBOffset, StackOffset
        u64s(&mut d, &[1]); // 48 NumSegments
        u64s(&mut d, &[0x1000, 0x2000, 0, 2]); // 56 Start, End, Offset, BuildIdSize 2
        d.extend_from_slice(&[0xab, 0xcd]); // 88 BuildId
        d.extend_from_slice(&[0; 30]); // 90 rest of BuildId[32]
        u64s(&mut d, &[0, 0]); // 120 NumMIBs 0, 128 NumStacks 0
        d
    }

    #[test]
    fn v4_layout_and_two_profiles() {
        let data = v4();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(spans, [("Header", 0, 48), ("segments", 48, 120), ("MIBs", 120, 128), ("stacks", 128, 136)]);
        assert_eq!(root.children[1].children[1].value.as_deref(), Some("abcd"));

        let mut two = v4();
        two.extend_from_slice(&v4());
        let root = dump(&two, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(spans, [("profile 0", 0, 136), ("profile 1", 136, 272)]);
        assert_eq!(root.children[1].children[1].start, 136 + 48);
    }

    #[test]
    fn truncations_and_bad_values() {
        let data = v4();
        for cut in 8..data.len() {
            let err = dump(&data[..cut], &det()).err();
            assert!(err.and_then(|e| e.offset()).is_some_and(|o| o <= cut as u64), "cut at {cut}: {err:?}");
        }
        let mut bad = v4();
        bad[16..24].copy_from_slice(&(1u64 << 60).to_le_bytes()); // TotalSize
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(16));
        let mut bad = v4();
        bad[48..56].copy_from_slice(&(1u64 << 60).to_le_bytes()); // NumSegments
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(48));
        let mut bad = v4();
        bad[32..40].copy_from_slice(&40u64.to_le_bytes()); // MIBOffset before SegmentOffset
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(32));
    }

    #[test]
    fn corpus_files() {
        // memprof-progA.memprofraw: v5, TotalSize 3800, 8 segments at 0x30
        let data = corpus("llvm/memprof-progA/memprof-progA.memprofraw");
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        assert_eq!(root.children[0].children[1].value.as_deref(), Some("5"));
        let segments = &root.children[1];
        assert_eq!((segments.start, segments.end, segments.value.as_deref()), (0x30, 0x238, Some("8")));
        for (path, versions) in [
            ("peers/llvm-profparser/llvm-14/multi.memprofraw", 2),
            ("peers/llvm-profparser/llvm-16/basic.memprofraw", 1),
            ("peers/llvm-profparser/llvm-19/basic_v3.memprofraw", 1),
            ("peers/llvm-profparser/llvm-19/multi.memprofraw", 2),
        ] {
            let data = corpus(path);
            let root = dump(&data, &det()).unwrap();
            assert_eq!(root.check_tiling(), Ok(()), "{path}");
            let profiles = root.children.iter().filter(|c| c.label.starts_with("profile")).count();
            assert_eq!(profiles.max(1), versions, "{path}");
            for cut in 1..64 {
                let err = dump(&data[..cut], &det()).err();
                assert!(err.and_then(|e| e.offset()).is_some_and(|o| o <= cut as u64), "{path} cut {cut}");
            }
        }
    }
}
