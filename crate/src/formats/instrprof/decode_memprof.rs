//! MemProf decoding: raw profiles (`.memprofraw`, versions 1 to 5) and the MemProf
//! section of indexed profiles (versions 2 to 4), into [`memprof_model`] types.
//!
//! Layout notes: `shared/formats/llvm-instrprof-indexed.md` (MemProf section) and
//! LLVM's `MemProfData.inc`, `RawMemProfReader.cpp` / `MemProfReader.cpp`,
//! `IndexedMemProfData.cpp`, `MemProf.cpp`, `MemProfRadixTree.h`.
//!
//! ```text
//! raw MemInfoBlock  packed, the MIBEntryDef fields in tag order:
//!                   v1 tags 1-19 (100 B), v2-v3 1-25 (132 B), v4-v5 1-27 (144 B)
//!                   then (v4+) AccessHistogramSize counts: u64 each (v4) or
//!                   u16 each, mantissa 12 bits << exponent 4 bits (v5)
//! indexed section   Version u64, then
//!   v2   RecordTableOffset FramePayloadOffset FrameTableOffset
//!        CallStackPayloadOffset CallStackTableOffset, schema,
//!        record payload; frame and call-stack hash tables
//!   v3   CallStackPayloadOffset RecordPayloadOffset RecordTableOffset, schema,
//!        frames (17 B each), radix array (u32), record payload, record table
//!   v4   as v3 with DataAccessProfOffset and the summary (u32 count, u64s)
//!        before the schema; call sites carry callee GUIDs
//! ```
//!
//! Every offset is from the start of the file. Counts are checked against the
//! bytes left before anything is allocated, and the radix walk only ever moves
//! forward inside the radix array, so a bad id ends in an error, never a loop.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::memprof::{HEADER_SIZE, MAGIC};
use super::memprof_model::{
    AllocSite, CallSite, Frame, IndexedMemProf, MemInfoBlock, Meta, RawMib, RawProfile, RawStack, Record, Segment,
    FIELDS,
};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// Bytes of a serialized `Frame`: GUID u64, LineOffset u32, Column u32, IsInlineFrame u8.
const FRAME_SIZE: u64 = 17;

fn frame(r: &mut Reader<'_>) -> Result<Frame> {
    Ok(Frame {
        function: r.u64("Frame Function")?,
        line_offset: r.u32("Frame LineOffset")?,
        column: r.u32("Frame Column")?,
        is_inline: r.u8("Frame IsInlineFrame")? != 0,
    })
}

/// A count read at `at` that must leave `unit` bytes per item in `r`.
fn check_count(r: &Reader<'_>, at: u64, count: u64, unit: u64, expected: &'static str) -> Result<usize> {
    match usize::try_from(count) {
        Ok(n) if r.holds(count, unit) => Ok(n),
        _ => Err(Error::invalid(at, expected, count)),
    }
}

/// One MemInfoBlock laid out by `fields` (tags with their widths).
fn mib(r: &mut Reader<'_>, fields: &[Meta]) -> Result<MemInfoBlock> {
    let mut info = MemInfoBlock { fields: Vec::with_capacity(fields.len()), histogram: Vec::new() };
    for &meta in fields {
        let at = r.offset();
        let width = meta.width().ok_or(Error::invalid(at, "a known MemProf schema tag", meta.0))?;
        info.fields.push((meta, r.uint(usize::from(width), "MemInfoBlock field")?));
    }
    Ok(info)
}

/// `readMemProfSchema`: NumIds u64, then the tags, each a known `Meta`.
fn schema(r: &mut Reader<'_>) -> Result<Vec<Meta>> {
    let at = r.offset();
    let n = r.u64("schema NumIds")?;
    if n > FIELDS.len() as u64 {
        return Err(Error::invalid(at, "a schema of at most 27 fields", n));
    }
    let mut tags = Vec::new();
    for _ in 0..n {
        let at = r.offset();
        let tag = Meta(r.u64("schema tag")?);
        if tag.width().is_none() {
            return Err(Error::invalid(at, "a schema tag 1 to 27", tag.0));
        }
        tags.push(tag);
    }
    Ok(tags)
}

/// A reader on `[start, end)` of the file, both taken from header fields.
fn window<'a>(file: &Reader<'a>, start: u64, end: u64, field: u64, expected: &'static str) -> Result<Reader<'a>> {
    if start > end || end > file.end_offset() {
        return Err(Error::invalid(field, expected, start));
    }
    file.sub_at(start, end.saturating_sub(start), expected)
}

/// The frames of radix-tree call stack `id`: `array` holds the u32 elements,
/// `frames` the 17-byte frames indexed by `LinearFrameId`.
///
/// ```text
/// [n] [f] [f] [-k] ... [f] [f]     n frames, leaf first; a negative element -k
///                                  says "continue k elements further on"
/// ```
fn radix_stack(array: &Reader<'_>, frames: &Reader<'_>, id: u32, at: u64) -> Result<Vec<Frame>> {
    let len = array.remaining() as u64 / 4;
    let element = |i: u64| -> Result<u32> {
        if i >= len {
            return Err(Error::invalid(at, "a call stack inside the radix array", u64::from(id)));
        }
        array.seek_clone(array.offset().saturating_add(i.saturating_mul(4)), "radix element")?.u32("radix element")
    };
    let mut pos = u64::from(id);
    let n = u64::from(element(pos)?);
    // Every frame takes at least one element after the count.
    if n > len.saturating_sub(pos) {
        return Err(Error::invalid(at, "a call stack length that fits in the radix array", n));
    }
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    for _ in 0..n {
        pos = pos.saturating_add(1);
        let mut value = element(pos)?;
        // A jump is relative to its own element and always forward: no cycles.
        if let Some(k) = (value as i32).checked_neg().filter(|k| *k > 0) {
            pos = pos.saturating_add(u64::from(k.unsigned_abs()));
            value = element(pos)?;
            if (value as i32) < 0 {
                return Err(Error::invalid(at, "a frame after a radix jump, not another jump", u64::from(id)));
            }
        } else if value == 0x8000_0000 {
            return Err(Error::invalid(at, "a radix jump within range", u64::from(id)));
        }
        let offset = u64::from(value).saturating_mul(FRAME_SIZE);
        if offset.saturating_add(FRAME_SIZE) > frames.remaining() as u64 {
            return Err(Error::invalid(at, "a LinearFrameId inside the frame array", u64::from(value)));
        }
        out.push(frame(&mut frames.seek_clone(frames.offset().saturating_add(offset), "Frame")?)?);
    }
    Ok(out)
}

/// How a record names call stacks: by `CallStackId` (v2) or radix index (v3+).
enum Stacks<'a> {
    V2(BTreeMap<u64, Vec<Frame>>),
    Radix { array: Reader<'a>, frames: Reader<'a> },
}

impl Stacks<'_> {
    fn read(&self, r: &mut Reader<'_>) -> Result<Vec<Frame>> {
        let at = r.offset();
        match self {
            Stacks::V2(map) => {
                let id = r.u64("CallStackId")?;
                map.get(&id).cloned().ok_or(Error::invalid(at, "a CallStackId in the call-stack table", id))
            }
            Stacks::Radix { array, frames } => radix_stack(array, frames, r.u32("LinearCallStackId")?, at),
        }
    }
}

/// Walks an on-disk hash table's payload: for `entries` items, the bucket's u16
/// count when a bucket starts, the u64 hash, then what `item` reads.
fn walk_table<'a>(
    mut payload: Reader<'a>,
    entries: u64,
    mut item: impl FnMut(&mut Reader<'a>) -> Result<()>,
) -> Result<()> {
    let mut left = entries;
    while left > 0 {
        let at = payload.offset();
        let items = payload.u16("bucket item count")?;
        if items == 0 || u64::from(items) > left {
            return Err(Error::invalid(at, "a bucket item count within NumEntries", u64::from(items)));
        }
        for _ in 0..items {
            payload.u64("key hash")?;
            item(&mut payload)?;
        }
        left = left.saturating_sub(u64::from(items));
    }
    Ok(())
}

/// `NumEntries` of the table whose metadata is at `table`, checked against the
/// payload (each item takes at least 2 + 8 + 8 bytes).
fn table_entries(file: &Reader<'_>, table: u64, field: u64, payload: &Reader<'_>) -> Result<u64> {
    let mut meta = window(file, table, file.end_offset(), field, "a hash table offset inside the file")?;
    let buckets_at = meta.offset();
    let buckets = meta.u64("NumBuckets")?;
    let at = meta.offset();
    let entries = meta.u64("NumEntries")?;
    // The bucket array is not needed to walk the payload, but must be there.
    check_count(&meta, buckets_at, buckets, 8, "NumBuckets that fit in the file")?;
    check_count(payload, at, entries, 18, "NumEntries that fit in the table payload")?;
    Ok(entries)
}

/// A key/data item with u64 key and data lengths; returns the key and the data.
fn key_data<'a>(r: &mut Reader<'a>) -> Result<(u64, Reader<'a>)> {
    let at = r.offset();
    let key_len = r.u64("key length")?;
    let data_len = r.u64("data length")?;
    if key_len != 8 {
        return Err(Error::invalid(at, "key length 8", key_len));
    }
    let key = r.u64("key")?;
    if data_len > r.remaining() as u64 {
        return Err(Error::invalid(at.saturating_add(8), "data length inside the table", data_len));
    }
    Ok((key, r.sub(data_len, "data")?))
}

/// Decodes one record's data (`IndexedMemProfRecord::deserialize`).
fn record(mut d: Reader<'_>, guid: u64, version: u64, schema: &[Meta], stacks: &Stacks<'_>) -> Result<Record> {
    let mib_size: u64 = schema.iter().filter_map(|m| m.width()).map(u64::from).sum();
    let id_size: u64 = if version == 2 { 8 } else { 4 };
    let mut rec = Record { guid, ..Record::default() };
    let at = d.offset();
    let n = d.u64("NumAllocSites")?;
    let n = check_count(&d, at, n, id_size.saturating_add(mib_size), "NumAllocSites that fit in the record")?;
    rec.alloc_sites.reserve(n);
    for _ in 0..n {
        let call_stack = stacks.read(&mut d)?;
        let info = mib(&mut d, schema)?;
        rec.alloc_sites.push(AllocSite { call_stack, info });
    }
    let at = d.offset();
    let n = d.u64("NumCallSites")?;
    let n = check_count(&d, at, n, id_size, "NumCallSites that fit in the record")?;
    rec.call_sites.reserve(n);
    for _ in 0..n {
        let frames = stacks.read(&mut d)?;
        let mut callee_guids = Vec::new();
        if version >= 4 {
            let at = d.offset();
            let g = d.u64("NumGuids")?;
            let g = check_count(&d, at, g, 8, "NumGuids that fit in the record")?;
            callee_guids.reserve(g);
            for _ in 0..g {
                callee_guids.push(d.u64("CalleeGuid")?);
            }
        }
        rec.call_sites.push(CallSite { frames, callee_guids });
    }
    if !d.is_empty() {
        return Err(Error::malformed(d.offset(), "bytes left over after a MemProf record"));
    }
    Ok(rec)
}

/// The v2 frame and call-stack tables, resolved to frames by call-stack id.
fn v2_stacks(file: &Reader<'_>, offsets: &[(u64, u64); 5]) -> Result<BTreeMap<u64, Vec<Frame>>> {
    let [_, (frame_payload, fp_at), (frame_table, ft_at), (cs_payload, cp_at), (cs_table, ct_at)] = *offsets;
    let payload = window(file, frame_payload, frame_table, fp_at, "FramePayloadOffset before FrameTableOffset")?;
    let entries = table_entries(file, frame_table, ft_at, &payload)?;
    let mut frames = BTreeMap::new();
    walk_table(payload, entries, |r| {
        let (id, mut data) = key_data(r)?;
        frames.insert(id, frame(&mut data)?);
        Ok(())
    })?;
    let payload = window(file, cs_payload, cs_table, cp_at, "CallStackPayloadOffset before CallStackTableOffset")?;
    let entries = table_entries(file, cs_table, ct_at, &payload)?;
    let mut stacks = BTreeMap::new();
    walk_table(payload, entries, |r| {
        // The call-stack trait stores only the data length; the key is a u64.
        let at = r.offset();
        let len = r.u64("data length")?;
        let id = r.u64("CallStackId")?;
        let n = check_count(r, at, len / 8, 8, "a call stack inside the table")?;
        let mut stack = Vec::with_capacity(n);
        for _ in 0..n {
            let at = r.offset();
            let frame_id = r.u64("FrameId")?;
            stack.push(*frames.get(&frame_id).ok_or(Error::invalid(at, "a FrameId in the frame table", frame_id))?);
        }
        r.skip(len % 8, "call stack data")?;
        stacks.insert(id, stack);
        Ok(())
    })?;
    Ok(stacks)
}

/// Decodes the MemProf section at `start` (the header's `MemProfOffset`, read
/// from the field at `field`).
pub fn decode_indexed(file: &Reader<'_>, start: u64, field: u64) -> Result<IndexedMemProf> {
    let mut r = window(file, start, file.end_offset(), field, "MemProfOffset inside the file")?;
    let version_at = r.offset();
    let version = r.u64("MemProf version")?;
    if !(2..=4).contains(&version) {
        return Err(Error::invalid(version_at, "MemProf version 2 to 4", version));
    }
    let mut out = IndexedMemProf { version, ..IndexedMemProf::default() };
    let count = if version == 2 { 5 } else { 3 };
    let mut offsets = [(0u64, 0u64); 5];
    for o in offsets.iter_mut().take(count) {
        o.1 = r.offset();
        o.0 = r.u64("MemProf section offset")?;
    }
    if version >= 4 {
        r.u64("DataAccessProfOffset")?;
        let at = r.offset();
        let n = u64::from(r.u32("NumSummaryFields")?);
        let n = check_count(&r, at, n, 8, "summary fields that fit in the file")?;
        out.summary.reserve(n);
        for _ in 0..n {
            out.summary.push(r.u64("summary field")?);
        }
    }
    out.schema = schema(&mut r)?;
    let (payload, table, table_at, stacks) = if version == 2 {
        let [(table, table_at), ..] = offsets;
        let payload = window(file, r.offset(), table, table_at, "RecordTableOffset after the schema")?;
        (payload, table, table_at, Stacks::V2(v2_stacks(file, &offsets)?))
    } else {
        let [(cs_payload, cs_at), (rec_payload, rp_at), (table, table_at), ..] = offsets;
        let frames = window(file, r.offset(), cs_payload, cs_at, "CallStackPayloadOffset after the frames")?;
        let array = window(file, cs_payload, rec_payload, rp_at, "RecordPayloadOffset after the radix array")?;
        let payload = window(file, rec_payload, table, table_at, "RecordTableOffset after the record payload")?;
        (payload, table, table_at, Stacks::Radix { array, frames })
    };
    let entries = table_entries(file, table, table_at, &payload)?;
    walk_table(payload, entries, |r| {
        let (guid, data) = key_data(r)?;
        out.records.push(record(data, guid, version, &out.schema, &stacks)?);
        Ok(())
    })?;
    Ok(out)
}

/// `decodeHistogramCount`: 12-bit mantissa shifted left by a 4-bit exponent.
fn histogram_count(encoded: u16) -> u64 {
    u64::from(encoded & 0x0fff).checked_shl(u32::from(encoded >> 12)).unwrap_or(0)
}

fn raw_profile(r: &mut Reader<'_>) -> Result<RawProfile> {
    let base = r.offset();
    r.u64("Magic")?;
    let version_at = r.offset();
    let version = r.u64("Version")?;
    if !(1..=5).contains(&version) {
        return Err(Error::invalid(version_at, "raw MemProf version 1 to 5", version));
    }
    let total_at = r.offset();
    let total = r.u64("TotalSize")?;
    if total < HEADER_SIZE || total > (r.remaining() as u64).saturating_add(24) {
        return Err(Error::invalid(total_at, "TotalSize that fits in the file", total));
    }
    let mut offsets = [(0u64, 0u64); 3];
    for o in &mut offsets {
        o.1 = r.offset();
        o.0 = r.u64("section offset")?;
    }
    let profile = r.seek_clone(base, "profile")?.sub(total, "MemProf profile")?;
    r.skip(total.saturating_sub(HEADER_SIZE), "MemProf profile")?;
    let abs = |o: u64| base.saturating_add(o);
    let [(segments, s_at), (mibs, m_at), (stacks, st_at)] = offsets;
    let end = base.saturating_add(total);
    let mut out = RawProfile { version, ..RawProfile::default() };

    let mut s = window(&profile, abs(segments), abs(mibs), s_at, "SegmentOffset before MIBOffset")?;
    let at = s.offset();
    let n = s.u64("NumSegments")?;
    let entry = if version >= 3 { 64 } else { 56 };
    let n = check_count(&s, at, n, entry, "NumSegments that fit before the MIBs")?;
    for _ in 0..n {
        let (start, end, offset) = (s.u64("Start")?, s.u64("End")?, s.u64("Offset")?);
        let len_at = s.offset();
        let len = if version >= 3 { s.u64("BuildIdSize")? } else { 32 };
        if len > 32 {
            return Err(Error::invalid(len_at, "BuildIdSize of at most 32", len));
        }
        let id = s.bytes(32, "BuildId")?;
        let build_id = id.get(..usize::try_from(len).unwrap_or(0)).unwrap_or(id).to_vec();
        out.segments.push(Segment { start, end, offset, build_id });
    }

    let last = match version {
        1 => 19,
        2 | 3 => 25,
        _ => 27,
    };
    let fields: Vec<Meta> = (1..=last).map(Meta).collect();
    let size: u64 = fields.iter().filter_map(|m| m.width()).map(u64::from).sum();
    let mut m = window(&profile, abs(mibs), abs(stacks), m_at, "MIBOffset before StackOffset")?;
    let at = m.offset();
    let n = m.u64("NumMIBs")?;
    let n = check_count(&m, at, n, size.saturating_add(8), "NumMIBs that fit before the stacks")?;
    for _ in 0..n {
        let stack_id = m.u64("stack id")?;
        let mut info = mib(&mut m, &fields)?;
        let hist_at = m.offset();
        let hist = info.get(Meta::ACCESS_HISTOGRAM_SIZE).unwrap_or(0);
        let unit = if version >= 5 { 2 } else { 8 };
        let hist = check_count(&m, hist_at, hist, unit, "an access histogram inside the MIBs")?;
        info.histogram.reserve(hist);
        for _ in 0..hist {
            let count =
                if version >= 5 { histogram_count(m.u16("histogram count")?) } else { m.u64("histogram count")? };
            info.histogram.push(count);
        }
        out.mibs.push(RawMib { stack_id, info });
    }

    let mut st = window(&profile, abs(stacks), end, st_at, "StackOffset inside TotalSize")?;
    let at = st.offset();
    let n = st.u64("NumStacks")?;
    let n = check_count(&st, at, n, 16, "NumStacks that fit in the profile")?;
    for _ in 0..n {
        let id = st.u64("stack id")?;
        let at = st.offset();
        let pcs = st.u64("NumPCs")?;
        let pcs = check_count(&st, at, pcs, 8, "NumPCs that fit in the profile")?;
        let mut stack = RawStack { id, pcs: Vec::with_capacity(pcs) };
        for _ in 0..pcs {
            stack.pcs.push(st.u64("PC")?);
        }
        out.stacks.push(stack);
    }
    Ok(out)
}

/// Decodes every profile of a raw MemProf file (zero bytes between them skipped).
pub fn decode_raw(data: &[u8]) -> Result<Vec<RawProfile>> {
    let endian = if data.starts_with(&MAGIC.to_le_bytes()) {
        Endian::Little
    } else if data.starts_with(&MAGIC.to_be_bytes()) {
        Endian::Big
    } else {
        return Err(Error::malformed(0, "expected the raw MemProf magic"));
    };
    let mut r = Reader::new(data, endian);
    let mut out = Vec::new();
    loop {
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        r.skip(zeros, "padding")?;
        if r.is_empty() {
            break;
        }
        if !r.rest().starts_with(&MAGIC.to_le_bytes()) && !r.rest().starts_with(&MAGIC.to_be_bytes()) {
            return Err(Error::malformed(r.offset(), "expected the raw MemProf magic of the next profile"));
        }
        out.push(raw_profile(&mut r)?);
    }
    Ok(out)
}
