//! Indexed instrumentation profiles (`.profdata`), as written by `llvm-profdata merge`:
//! versions 1 to 13, always little-endian.
//!
//! ```text
//! header (40 to 72 bytes by version)      summary (v4+), CS summary (variant bit 57)
//! hash-table payload                       hash-table metadata at HashOffset:
//!                                          NumBuckets, NumEntries, bucket offsets
//! MemProf (v8+, bit 62)                    binary ids (v9+)
//! vtable names (v12+)                      temporal traces (v10+, bit 63)
//! ```
//!
//! Only the header offsets are trusted, never the writer's order; each is checked
//! against the file length before use. Layout notes:
//! `shared/formats/llvm-instrprof-indexed.md`.

use alloc::borrow::Cow;
use alloc::vec::Vec;

use crate::dump::{Deferred, Fields, Node, Text};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

/// `\xfflprofi\x81` as a little-endian u64.
pub const MAGIC: u64 = 0x8169_666f_7270_6cff;

/// The newest indexed version we know the layout of.
pub const MAX_VERSION: u64 = 13;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    if !data.starts_with(&MAGIC.to_le_bytes()) {
        return Ok(None);
    }
    let mut r = Reader::new(data, Endian::Little);
    r.skip(8, "magic")?;
    let version = r.u64("Version")?;
    let detection = Detection::new(Format::InstrProfIndexed).endian(Endian::Little);
    Ok(Some(super::flags::describe(detection, version)))
}

/// `Header::size()`: 40 bytes up to v7, then one offset more per version that added one.
pub fn header_size(version: u64) -> u64 {
    match version {
        0..=7 => 40,
        8 => 48,
        9 => 56,
        10 | 11 => 64,
        _ => 72,
    }
}

/// Names of the `ProfileSummary` fields, by kind.
const SUMMARY_FIELDS: [&str; 6] = [
    "TotalNumFunctions",
    "TotalNumBlocks",
    "MaxFunctionCount",
    "MaxBlockCount",
    "MaxInternalBlockCount",
    "TotalBlockCount",
];

/// A header offset and the position of the field that holds it.
#[derive(Clone, Copy)]
struct Offset {
    value: u64,
    field: u64,
}

/// Checks that a header offset leaves room for `min` bytes in the file.
fn checked(offset: Offset, min: u64, len: u64, expected: &'static str) -> Result<u64> {
    match offset.value.checked_add(min) {
        Some(end) if end <= len => Ok(offset.value),
        _ => Err(Error::invalid(offset.field, expected, offset.value)),
    }
}

/// `Summary`: field count, cutoff count, the fields, then {Cutoff, MinBlockCount,
/// NumBlocks} per cutoff.
fn dump_summary(r: &mut Reader<'_>, label: &'static str) -> Result<Node> {
    let start = r.offset();
    let mut f = Fields::new(r);
    let fields_at = f.reader.offset();
    let num_fields = f.u64("NumSummaryFields")?;
    let entries_at = f.reader.offset();
    let num_entries = f.u64("NumCutoffEntries")?;
    let remaining = f.reader.remaining() as u64;
    if num_fields > remaining / 8 {
        return Err(Error::invalid(fields_at, "NumSummaryFields that fit in the file", num_fields));
    }
    if num_entries > remaining.saturating_sub(num_fields.saturating_mul(8)) / 24 {
        return Err(Error::invalid(entries_at, "NumCutoffEntries that fit in the file", num_entries));
    }
    let mut functions = None;
    for kind in 0..num_fields {
        let name = usize::try_from(kind).ok().and_then(|k| SUMMARY_FIELDS.get(k)).copied();
        let value = f.u64(name.unwrap_or("unknown summary field"))?;
        if kind == 0 {
            functions = Some(value);
        }
    }
    let mut children = f.into_nodes();
    if num_entries > 0 {
        let cutoffs_start = r.offset();
        let mut cutoffs = Vec::new();
        for i in 0..num_entries {
            let entry_start = r.offset();
            let mut f = Fields::new(r);
            let cutoff = f.u64("Cutoff")?;
            f.u64("MinBlockCount")?;
            f.u64("NumBlocks")?;
            let nodes = f.into_nodes();
            let node = Node::leaf(alloc::format!("cutoff {i}"), entry_start, r.offset(), cutoff);
            cutoffs.push(node.with_children(nodes));
        }
        let node = Node::leaf("cutoff entries", cutoffs_start, r.offset(), num_entries).with_children(cutoffs);
        children.push(node);
    }
    let node = Node::new(label, start, r.offset()).with_children(children);
    Ok(match functions {
        Some(n) => node.with_value(format_args!("{n} functions")),
        None => node,
    })
}

/// The on-disk hash table's metadata: NumBuckets, NumEntries, bucket offsets.
fn dump_hash_meta(data: &[u8], at: Offset, payload: (u64, u64)) -> Result<(Node, u64)> {
    let len = data.len() as u64;
    let start = checked(at, 16, len, "HashOffset inside the file")?;
    let mut r = Reader::new(data, Endian::Little).seek_clone(start, "hash table")?;
    let mut f = Fields::new(&mut r);
    let buckets_at = f.reader.offset();
    let buckets = f.u64("NumBuckets")?;
    let entries = f.u64("NumEntries")?;
    if buckets > f.reader.remaining() as u64 / 8 {
        return Err(Error::invalid(buckets_at, "NumBuckets offsets that fit in the file", buckets));
    }
    let array_at = f.reader.offset();
    // Each non-empty bucket's offset points into the payload, after the previous one
    // (the writer emits buckets in order): a table whose offsets overlap, repeat or
    // leave the payload is corrupt, though the sequential walk would not follow them.
    let mut previous = None;
    for _ in 0..buckets {
        let slot_at = f.reader.offset();
        let bucket = f.reader.u64("bucket offset")?;
        if bucket == 0 {
            continue;
        }
        if bucket < payload.0 || bucket.saturating_add(2) > payload.1 {
            return Err(Error::invalid(slot_at, "bucket offset inside the hash table payload", bucket));
        }
        if previous.is_some_and(|p| bucket <= p) {
            return Err(Error::invalid(slot_at, "bucket offsets in increasing order", bucket));
        }
        previous = Some(bucket);
    }
    f.node_since("bucket offsets", array_at, buckets);
    let end = f.reader.offset();
    let node = Node::leaf("hash table", start, end, format_args!("{entries} entries, {buckets} buckets"))
        .with_children(f.into_nodes());
    Ok((node, entries))
}

/// Deferred tag: a block of hash-table buckets; `first` is its first bucket's index.
const TAG_BUCKETS: u32 = 1;
/// Buckets per deferred block: a 500k-function profile costs ~100 nodes up front.
const BUCKETS_PER_BLOCK: u64 = 4096;
/// Counters (and value entries) shown one node each up to this many; more are one node.
const SHOWN_ITEMS: u64 = 64;

/// An item's key and data lengths, checked against what is left of the payload.
fn item_lengths(r: &mut Reader<'_>) -> Result<(u64, u64)> {
    let key_at = r.offset();
    let key_len = r.u64("key length")?;
    let data_len = r.u64("data length")?;
    if key_len > r.remaining() as u64 {
        return Err(Error::invalid(key_at, "key length inside the hash table", key_len));
    }
    if data_len > (r.remaining() as u64).saturating_sub(key_len) {
        return Err(Error::invalid(key_at.saturating_add(8), "data length inside the hash table", data_len));
    }
    Ok((key_len, data_len))
}

/// The hash-table payload, walked bucket by bucket for `entries` items (as the
/// reader iterates it), cut into deferred blocks of buckets; the zero padding
/// before the metadata ends it.
fn dump_payload(data: &[u8], start: u64, end: u64, entries: u64) -> Result<Node> {
    let mut r = Reader::new(data, Endian::Little).sub_at(start, end.saturating_sub(start), "hash table payload")?;
    let mut blocks = Vec::new();
    let (mut left, mut bucket, mut block_at, mut block_first) = (entries, 0u64, start, 0u64);
    let mut push_block = |from: u64, to: u64, first: u64, last: u64| {
        let node = Node::leaf(alloc::format!("buckets {first}..{last}"), from, to, last.saturating_sub(first));
        blocks.push(node.deferred(TAG_BUCKETS, first));
    };
    while left > 0 {
        let at = r.offset();
        let items = r.u16("bucket item count")?;
        if u64::from(items) > left {
            return Err(Error::invalid(at, "no more items than NumEntries", u64::from(items)));
        }
        for _ in 0..items {
            r.skip(8, "key hash")?;
            let (key_len, data_len) = item_lengths(&mut r)?;
            r.skip(key_len.saturating_add(data_len), "key and data")?;
        }
        left = left.saturating_sub(u64::from(items));
        bucket = bucket.saturating_add(1);
        if bucket % BUCKETS_PER_BLOCK == 0 {
            push_block(block_at, r.offset(), block_first, bucket);
            (block_at, block_first) = (r.offset(), bucket);
        }
    }
    if r.offset() > block_at {
        push_block(block_at, r.offset(), block_first, bucket);
    }
    if !r.is_empty() {
        let pad_at = r.offset();
        let pad = r.remaining() as u64;
        blocks.push(Node::leaf("padding", pad_at, end, format_args!("{pad} bytes")));
    }
    let value = format_args!("{entries} keys in {bucket} buckets");
    Ok(Node::leaf("hash table payload", start, end, value).with_children(blocks))
}

/// The children of a deferred node of an indexed profile.
pub fn expand(data: &[u8], deferred: &Deferred) -> Result<Vec<Node>> {
    if deferred.tag != TAG_BUCKETS {
        return Err(Error::malformed(deferred.start, "unknown deferred node for an indexed profile"));
    }
    let version = Reader::new(data, Endian::Little).seek_clone(8, "Version")?.u64("Version")? & 0xffff_ffff;
    let len = deferred.end.saturating_sub(deferred.start);
    let mut r = Reader::new(data, Endian::Little).sub_at(deferred.start, len, "bucket block")?;
    let mut nodes = Vec::new();
    let mut index = deferred.first;
    while !r.is_empty() {
        let start = r.offset();
        let items = r.u16("bucket item count")?;
        let mut children = alloc::vec![Node::leaf("item count", start, r.offset(), items)];
        for _ in 0..items {
            children.push(dump_item(&mut r, version)?);
        }
        let node = Node::leaf(alloc::format!("bucket {index}"), start, r.offset(), format_args!("{items} items"));
        nodes.push(node.with_children(children));
        index = index.saturating_add(1);
    }
    Ok(nodes)
}

/// One hash-table item: hash, key length, data length, key (the PGO name), and
/// the records stored under it.
fn dump_item(r: &mut Reader<'_>, version: u64) -> Result<Node> {
    let start = r.offset();
    let mut f = Fields::new(r);
    f.u64_hex("key hash")?;
    let lengths_at = f.reader.offset();
    let (key_len, data_len) = item_lengths(f.reader)?;
    f.nodes.push(Node::leaf("key length", lengths_at, lengths_at.saturating_add(8), key_len));
    f.nodes.push(Node::leaf("data length", lengths_at.saturating_add(8), lengths_at.saturating_add(16), data_len));
    let key_at = f.reader.offset();
    let key = f.reader.bytes(key_len, "key")?;
    f.node_since("key", key_at, Text(key));
    let data_at = f.reader.offset();
    let records = f.reader.sub(data_len, "records")?;
    let mut children = f.into_nodes();
    let nodes = dump_records(records, version)?;
    let value = format_args!("{} records", nodes.len());
    children.push(Node::leaf("data", data_at, r.offset(), value).with_children(nodes));
    Ok(Node::new(alloc::format!("{}", Text(key)), start, r.offset()).with_children(children))
}

/// The records of one item (see `decode_indexed`): FuncHash, NumCounters (v2+),
/// counters, NumBitmapBytes and one u64 per bitmap byte (v11+), value data (v3+).
fn dump_records(mut d: Reader<'_>, version: u64) -> Result<Vec<Node>> {
    let data_at = d.offset();
    let len = d.remaining() as u64;
    if len % 8 != 0 {
        return Err(Error::invalid(data_at, "record data length, a multiple of 8", len));
    }
    let mut records = Vec::new();
    while !d.is_empty() {
        let start = d.offset();
        let mut f = Fields::new(&mut d);
        let hash = f.u64("FuncHash")?;
        let count_at = f.reader.offset();
        let count = if version == 1 { (len / 8).saturating_sub(1) } else { f.u64("NumCounters")? };
        if count > f.reader.remaining() as u64 / 8 {
            return Err(Error::invalid(count_at, "NumCounters that fit in the record", count));
        }
        let counters_at = f.reader.offset();
        let mut counters = Vec::new();
        for i in 0..count {
            let at = f.reader.offset();
            let c = f.reader.u64("counter")?;
            if count <= SHOWN_ITEMS {
                counters.push(Node::leaf(alloc::format!("counter {i}"), at, f.reader.offset(), c));
            }
        }
        let node = Node::leaf("counters", counters_at, f.reader.offset(), count);
        f.nodes.push(node.with_children(counters));
        if version >= 11 {
            let n_at = f.reader.offset();
            let n = f.u64("NumBitmapBytes")?;
            if n > f.reader.remaining() as u64 / 8 {
                return Err(Error::invalid(n_at, "NumBitmapBytes that fit in the record", n));
            }
            if n > 0 {
                let at = f.reader.offset();
                let words = f.reader.bytes(n.saturating_mul(8), "bitmap bytes")?;
                let low: Vec<u8> = words.chunks_exact(8).filter_map(|w| w.first().copied()).collect();
                f.node_since("bitmap bytes", at, crate::dump::Hex(&low));
            }
        }
        let mut children = f.into_nodes();
        if version >= 3 {
            children.push(super::value_data::dump(&mut d, Cow::Borrowed("value data"), &|_| None)?);
        }
        let node = Node::leaf("record", start, d.offset(), format_args!("FuncHash {hash:#x}"));
        records.push(node.with_children(children));
    }
    Ok(records)
}

/// Temporal traces: NumTraces, TraceStreamSize, then per trace Weight, NumFunctions
/// and a NameRef per function.
fn dump_traces(data: &[u8], at: Offset) -> Result<Node> {
    let len = data.len() as u64;
    let start = checked(at, 16, len, "TemporalProfTracesOffset inside the file")?;
    let mut r = Reader::new(data, Endian::Little).seek_clone(start, "temporal traces")?;
    let mut f = Fields::new(&mut r);
    let count_at = f.reader.offset();
    let count = f.u64("NumTraces")?;
    f.u64("TraceStreamSize")?;
    // Every trace takes at least 16 bytes.
    if count > f.reader.remaining() as u64 / 16 {
        return Err(Error::invalid(count_at, "NumTraces that fit in the file", count));
    }
    let mut children = f.into_nodes();
    for i in 0..count {
        let trace_start = r.offset();
        let mut f = Fields::new(&mut r);
        f.u64("Weight")?;
        let n_at = f.reader.offset();
        let n = f.u64("NumFunctions")?;
        if n > f.reader.remaining() as u64 / 8 {
            return Err(Error::invalid(n_at, "NumFunctions that fit in the file", n));
        }
        let refs_at = f.reader.offset();
        f.reader.skip(n.saturating_mul(8), "trace NameRefs")?;
        f.node_since("NameRefs", refs_at, n);
        let nodes = f.into_nodes();
        let node = Node::leaf(alloc::format!("trace {i}"), trace_start, r.offset(), format_args!("{n} functions"));
        let mut node = node.with_children(nodes);
        node.tile()?;
        children.push(node);
    }
    Ok(Node::leaf("temporal traces", start, r.offset(), count).with_children(children))
}

/// MemProf v4's summary: `NumSummaryFields` as a **u32** (so what follows is
/// 4-byte misaligned), then that many u64 (NumContexts, NumColdContexts, ...).
fn dump_memprof_summary(f: &mut Fields<'_, '_>) -> Result<()> {
    let count_at = f.reader.offset();
    let count = f.u32("NumSummaryFields")?;
    if u64::from(count) > f.reader.remaining() as u64 / 8 {
        return Err(Error::invalid(count_at, "MemProf summary field count that fits in the section", u64::from(count)));
    }
    let at = f.reader.offset();
    f.reader.skip(u64::from(count).saturating_mul(8), "MemProf summary fields")?;
    f.node_since("summary fields", at, count);
    Ok(())
}

/// The MIB schema: `NumIds` u64, then the `Meta` tag of each field, in order.
fn dump_memprof_schema(f: &mut Fields<'_, '_>) -> Result<()> {
    let start = f.reader.offset();
    let count = f.reader.u64("schema NumIds")?;
    // `Meta` has 27 real fields; more ids than that cannot be a schema.
    if count > 27 {
        return Err(Error::invalid(start, "MemProf schema of at most 27 fields", count));
    }
    let mut ids = alloc::string::String::new();
    for _ in 0..count {
        let id = f.reader.u64("schema field id")?;
        if !ids.is_empty() {
            ids.push(',');
        }
        ids.push_str(&alloc::format!("{id}"));
    }
    f.node_since("schema", start, ids);
    Ok(())
}

/// The MemProf tables, from where the schema ends to the section's end, cut at the
/// offsets the section header gives (absolute file offsets). v2 has three on-disk
/// hash tables (records, frames, call stacks); v3 and v4 a frame array, the radix
/// array of call stacks, and the record table.
fn dump_memprof_tables(
    data: &[u8],
    version: u64,
    body: u64,
    end: u64,
    fields: &[(&'static str, u64, u64)],
) -> Result<Vec<Node>> {
    let field = |name: &str| fields.iter().find(|(label, ..)| *label == name).copied();
    // (region label, where it starts: a header field or the end of the schema)
    let layout: &[(&'static str, Option<&str>)] = match version {
        2 => &[
            ("records payload", None),
            ("record table", Some("RecordTableOffset")),
            ("frame payload", Some("FramePayloadOffset")),
            ("frame table", Some("FrameTableOffset")),
            ("call stack payload", Some("CallStackPayloadOffset")),
            ("call stack table", Some("CallStackTableOffset")),
        ],
        _ => &[
            ("frames", None),
            ("call stacks (radix array)", Some("CallStackPayloadOffset")),
            ("records payload", Some("RecordPayloadOffset")),
            ("record table", Some("RecordTableOffset")),
            ("data access profile", Some("DataAccessProfOffset")),
        ],
    };
    let mut starts = Vec::new();
    let mut previous = body;
    for &(label, from) in layout {
        let at = match from.and_then(field) {
            None if from.is_some() => continue,
            None => body,
            // v4 writes DataAccessProfOffset 0 when there is no data-access profile.
            Some((_, _, 0)) if label == "data access profile" => continue,
            Some((name, field_at, value)) => {
                if value < previous || value > end {
                    return Err(Error::invalid(field_at, name, value));
                }
                value
            }
        };
        previous = at;
        starts.push((label, at));
    }
    let mut nodes = Vec::with_capacity(starts.len());
    for (i, &(label, start)) in starts.iter().enumerate() {
        let stop = starts.get(i.saturating_add(1)).map_or(end, |&(_, s)| s);
        let len = stop.saturating_sub(start);
        let mut node = Node::new(label, start, stop);
        if label.ends_with("table") && len > 0 {
            let mut r = Reader::new(data, Endian::Little).sub_at(start, len, label)?;
            let mut f = Fields::new(&mut r);
            let buckets_at = f.reader.offset();
            let buckets = f.u64("NumBuckets")?;
            let entries = f.u64("NumEntries")?;
            if buckets > f.reader.remaining() as u64 / 8 {
                return Err(Error::invalid(buckets_at, "bucket count that fits in the table", buckets));
            }
            let offsets_at = f.reader.offset();
            f.reader.skip(buckets.saturating_mul(8), "bucket offsets")?;
            f.node_since("bucket offsets", offsets_at, buckets);
            node.children = f.into_nodes();
            node.value = Some(alloc::format!("{entries} entries, {buckets} buckets"));
        } else if label == "frames" {
            // Frame: Function u64, LineOffset u32, Column u32, IsInlineFrame u8.
            node.value = Some(alloc::format!("{} frames of 17 bytes", len / 17));
        } else if label.starts_with("call stacks") {
            node.value = Some(alloc::format!("{} u32 entries", len / 4));
        } else {
            node.value = Some(alloc::format!("{len} bytes"));
        }
        nodes.push(node);
    }
    Ok(nodes)
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, Endian::Little);
    let mut f = Fields::new(&mut r);
    let magic = f.u64_hex("Magic")?;
    if magic != MAGIC {
        return Err(Error::invalid(0, "the indexed instrprof magic", magic));
    }
    let version_at = f.reader.offset();
    let word = f.reader.u64("Version")?;
    let version = word & 0xffff_ffff;
    let flag_names = super::flags::names(word);
    if flag_names.is_empty() {
        f.node_since("Version", version_at, format_args!("{word:#018x} (v{version})"));
    } else {
        f.node_since("Version", version_at, format_args!("{word:#018x} (v{version}, {flag_names})"));
    }
    if version == 0 || version > MAX_VERSION {
        return Err(Error::invalid(version_at, "indexed profile version 1 to 13", version));
    }
    f.u64("Unused")?;
    let hash_type_at = f.reader.offset();
    let hash_type = f.u64("HashType")?;
    if hash_type != 0 {
        return Err(Error::invalid(hash_type_at, "HashType 0 (MD5)", hash_type));
    }
    let offset = |f: &mut Fields<'_, '_>, label: &'static str| -> Result<Offset> {
        let field = f.reader.offset();
        Ok(Offset { value: f.u64(label)?, field })
    };
    let hash = offset(&mut f, "HashOffset")?;
    let memprof = if version >= 8 { Some(offset(&mut f, "MemProfOffset")?) } else { None };
    let binary_ids = if version >= 9 { Some(offset(&mut f, "BinaryIdOffset")?) } else { None };
    let traces = if version >= 10 { Some(offset(&mut f, "TemporalProfTracesOffset")?) } else { None };
    let vtable_names = if version >= 12 { Some(offset(&mut f, "VTableNamesOffset")?) } else { None };
    let header_end = f.reader.offset();
    let mut header = Node::new("header", 0, header_end).with_children(f.into_nodes());
    header.tile()?;
    let mut root = Node::new("instrprof indexed", 0, len);
    root.children.push(header);

    if version >= 4 {
        let mut summary = dump_summary(&mut r, "summary")?;
        summary.tile()?;
        root.children.push(summary);
        if word & super::flags::CS_IR_PROF != 0 {
            let mut cs = dump_summary(&mut r, "CS summary")?;
            cs.tile()?;
            root.children.push(cs);
        }
    }

    // The payload runs from the end of the summaries to the metadata at HashOffset.
    let payload_start = r.offset();
    if hash.value < payload_start {
        return Err(Error::invalid(hash.field, "HashOffset after the header and summaries", hash.value));
    }
    let (meta, entries) = dump_hash_meta(data, hash, (payload_start, hash.value))?;
    let meta_end = meta.end;
    root.children.push(dump_payload(data, payload_start, hash.value, entries)?);
    root.children.push(meta);

    // The start of every known section, to find where the MemProf section ends.
    let mut starts: Vec<u64> = alloc::vec![meta_end];
    let memprof = memprof.filter(|_| word & super::flags::MEMPROF != 0);
    let traces = traces.filter(|_| word & super::flags::TEMPORAL_PROF != 0);
    for o in [binary_ids, vtable_names, traces].into_iter().flatten() {
        if o.value != 0 {
            starts.push(o.value);
        }
    }

    if let Some(at) = memprof {
        let start = checked(at, 8, len, "MemProfOffset inside the file")?;
        let end = starts.iter().copied().filter(|&s| s > start).min().unwrap_or(len).min(len);
        let mut mr = Reader::new(data, Endian::Little).sub_at(start, end.saturating_sub(start), "MemProf section")?;
        let mut f = Fields::new(&mut mr);
        let memprof_version = f.u64("MemProf version")?;
        // The offsets after the version (absolute file offsets), by MemProf version.
        let offsets: &[&'static str] = match memprof_version {
            2 => &[
                "RecordTableOffset",
                "FramePayloadOffset",
                "FrameTableOffset",
                "CallStackPayloadOffset",
                "CallStackTableOffset",
            ],
            3 => &["CallStackPayloadOffset", "RecordPayloadOffset", "RecordTableOffset"],
            4 => &["CallStackPayloadOffset", "RecordPayloadOffset", "RecordTableOffset", "DataAccessProfOffset"],
            _ => &[],
        };
        let mut fields = Vec::with_capacity(offsets.len());
        for &label in offsets {
            let at = f.reader.offset();
            fields.push((label, at, f.u64(label)?));
        }
        if memprof_version == 4 {
            dump_memprof_summary(&mut f)?;
        }
        if matches!(memprof_version, 2..=4) {
            dump_memprof_schema(&mut f)?;
        }
        let mut nodes = f.into_nodes();
        if matches!(memprof_version, 2..=4) {
            nodes.extend(dump_memprof_tables(data, memprof_version, mr.offset(), end, &fields)?);
        } else if !mr.is_empty() {
            nodes.push(Node::leaf("MemProf body", mr.offset(), end, "unsupported MemProf version"));
        }
        let node = Node::leaf("MemProf", start, end, format_args!("version {memprof_version}"));
        root.children.push(node.with_children(nodes));
    }

    if let Some(at) = binary_ids.filter(|o| o.value != 0) {
        let start = checked(at, 8, len, "BinaryIdOffset inside the file")?;
        let mut br = Reader::new(data, Endian::Little).seek_clone(start, "binary ids")?;
        let mut f = Fields::new(&mut br);
        let size_at = f.reader.offset();
        let size = f.u64("BinaryIdsSize")?;
        if size > f.reader.remaining() as u64 {
            return Err(Error::invalid(size_at, "BinaryIdsSize that fits in the file", size));
        }
        let ids = f.reader.sub(size, "binary ids")?;
        let mut children = f.into_nodes();
        if size > 0 {
            children.push(super::raw::dump_binary_ids(ids)?);
        }
        let end = br.offset();
        let mut node = Node::new("binary ids", start, end).with_children(children);
        node.tile()?;
        root.children.push(node);
    }

    if let Some(at) = vtable_names.filter(|o| o.value != 0) {
        let start = checked(at, 8, len, "VTableNamesOffset inside the file")?;
        let mut vr = Reader::new(data, Endian::Little).seek_clone(start, "vtable names")?;
        let mut f = Fields::new(&mut vr);
        let size_at = f.reader.offset();
        let size = f.u64("length")?;
        if size > f.reader.remaining() as u64 {
            return Err(Error::invalid(size_at, "vtable names length that fits in the file", size));
        }
        let names = f.reader.sub(size, "vtable names")?;
        let mut children = f.into_nodes();
        if size > 0 {
            children.push(super::raw::dump_names(names, "names")?);
        }
        // The writer always pads with zeros to 8 bytes: a file that ends inside the
        // padding was cut short.
        let pad = super::raw_layout::pad8(size);
        if pad > 0 {
            let pad_at = vr.offset();
            vr.skip(pad, "padding")?;
            children.push(Node::new("padding", pad_at, vr.offset()));
        }
        let mut node = Node::new("vtable names", start, vr.offset()).with_children(children);
        node.tile()?;
        root.children.push(node);
    }

    if let Some(at) = traces.filter(|o| o.value != 0) {
        let mut node = dump_traces(data, at)?;
        node.tile()?;
        root.children.push(node);
    }

    root.tile()?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det() -> Detection {
        Detection::new(Format::InstrProfIndexed)
    }

    #[allow(clippy::panic)] // a missing corpus file fails the test, naming it
    fn corpus(path: &str) -> Vec<u8> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
        std::fs::read(alloc::format!("{root}{path}")).unwrap_or_else(|e| panic!("{root}{path}: {e}"))
    }

    fn find<'a>(node: &'a Node, label: &str) -> &'a Node {
        node.children.iter().find(|c| c.label == label).unwrap()
    }

    /// An indexed v9 profile: header, summary with one field and one cutoff, an
    /// 8-byte payload, hash metadata with one bucket, empty binary ids.
    fn v9() -> Vec<u8> {
        let mut d = Vec::new();
        let u64s = |d: &mut Vec<u8>, vs: &[u64]| vs.iter().for_each(|v| d.extend_from_slice(&v.to_le_bytes()));
        u64s(&mut d, &[MAGIC, 9, 0, 0]); // 0 Magic, Version 9, Unused, HashType MD5
        u64s(&mut d, &[112]); // 32 HashOffset
        u64s(&mut d, &[0]); // 40 MemProfOffset
        u64s(&mut d, &[136]); // 48 BinaryIdOffset
        u64s(&mut d, &[1, 1, 3]); // 56 NumSummaryFields 1, NumCutoffEntries 1, TotalNumFunctions 3
        u64s(&mut d, &[10000, 5, 1]); // 80 cutoff entry: Cutoff, MinBlockCount, NumBlocks
        u64s(&mut d, &[0]); // 104 hash-table payload (8 bytes)
        u64s(&mut d, &[1, 0, 104]); // 112 NumBuckets 1, NumEntries 0, bucket offset (payload: padding)
        u64s(&mut d, &[0]); // 136 BinaryIdsSize 0
        d
    }

    #[test]
    fn v9_layout() {
        let data = v9();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            spans,
            [
                ("header", 0, 56),
                ("summary", 56, 104),
                ("hash table payload", 104, 112),
                ("hash table", 112, 136),
                ("binary ids", 136, 144)
            ]
        );
        assert_eq!(root.children[1].value.as_deref(), Some("3 functions"));
        assert_eq!(find(&root.children[1], "cutoff entries").children[0].value.as_deref(), Some("10000"));
        assert_eq!(root.children[3].value.as_deref(), Some("0 entries, 1 buckets"));
    }

    #[test]
    fn truncations_and_bad_offsets() {
        let data = v9();
        for cut in 0..data.len() {
            let err = dump(&data[..cut], &det()).err();
            assert!(err.and_then(|e| e.offset()).is_some_and(|o| o <= cut as u64), "cut at {cut}: {err:?}");
        }
        // HashOffset past the end: named at its field
        let mut bad = v9();
        bad[32..40].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(32));
        // NumCutoffEntries = 2^60
        let mut bad = v9();
        bad[64..72].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(64));
        // NumBuckets = 2^60
        let mut bad = v9();
        bad[112..120].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(112));
        // version 14 is not known
        let mut bad = v9();
        bad[8] = 14;
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(8));
    }

    #[test]
    fn corpus_summaries_and_sections() {
        // *.summary.txt: "Total functions: 67"; format.txt: HashOffset 17528 etc.
        let data = corpus("llvm/cspgo-progA/cspgo-progA.profdata");
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        assert_eq!(find(&root, "summary").value.as_deref(), Some("67 functions"));
        assert!(root.children.iter().any(|c| c.label == "CS summary"));
        let table = find(&root, "hash table");
        assert_eq!((table.start, table.value.as_deref()), (17528, Some("67 entries, 128 buckets")));
        assert_eq!(find(&root, "binary ids").start, 18568);
        assert_eq!(find(&root, "vtable names").start, 18640);

        // temporal traces: 3 traces of 60, 47 and 10 functions (show.txt)
        let data = corpus("llvm/temporal-progA/temporal-progA.profdata");
        let root = dump(&data, &det()).unwrap();
        let traces = find(&root, "temporal traces");
        let counts: Vec<_> =
            traces.children.iter().filter(|c| c.label.starts_with("trace")).map(|c| c.value.clone()).collect();
        assert_eq!(counts, [Some("60 functions".into()), Some("47 functions".into()), Some("10 functions".into())]);

        let data = corpus("llvm/memprof-progA/memprof-progA.profdata");
        let root = dump(&data, &det()).unwrap();
        assert!(find(&root, "MemProf").value.as_deref().is_some_and(|v| v.starts_with("version ")));
    }

    #[test]
    fn corpus_every_version() {
        for path in [
            "peers/llvm-profparser/llvm-12/compat.profdata.v1",
            "peers/llvm-profparser/llvm-12/compat.profdata.v2",
            "peers/llvm-profparser/llvm-11/compat.v4.profdata",
            "peers/llvm-profparser/llvm-14/function-entry-coverage.profdata",
            "peers/llvm-profparser/llvm-19/compat.profdata.v10",
            "llvm/clang13-progA/clang13-progA.profdata",
            "llvm/vtable-progA/vtable-progA.profdata",
        ] {
            let data = corpus(path);
            let root = dump(&data, &det()).unwrap();
            assert_eq!(root.check_tiling(), Ok(()), "{path}");
            assert!(root.children.iter().all(|c| c.label != "unparsed"), "{path}");
            let mut cuts: Vec<u64> = root.children[0].children.iter().map(|c| c.end).collect();
            cuts.extend(1..64);
            for cut in cuts {
                let cut = usize::try_from(cut).unwrap();
                if let Err(e) = dump(&data[..cut], &det()) {
                    assert!(e.offset().is_some_and(|o| o <= cut as u64), "{path} cut at {cut}: {e}");
                }
            }
        }
    }
}
