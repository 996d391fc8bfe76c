//! Raw instrumentation profiles (`.profraw`), as written by compiler-rt: raw versions
//! 5, 7, 8, 9, 10 and 11, 64- and 32-bit producers, both byte orders.
//!
//! The magic is a u64 in the producer's byte order; `r` vs `R` in it tells 64-bit from
//! 32-bit pointers. One profile is laid out as
//!
//! ```text
//! header (u64 fields, count by version)   binary ids (v7+)
//! data records (NumData × record size)     padding before counters
//! counters (NumCounters × 8, or × 1 with byte coverage)   padding after counters
//! bitmap (v9+) + padding                   uniform counters (v11) + padding
//! names chunks + pad8                      vtable records + pad8 (v10+)
//! vtable names + pad8 (v10+)               value-profile data (one blob per record
//!                                          with value sites)
//! ```
//!
//! and several profiles may follow each other, separated by zero bytes.
//! Layout notes: `shared/formats/llvm-instrprof-raw.md`. The v11 field order comes
//! from the notes only (no LLVM 23 file was available to check it).

use alloc::borrow::Cow;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec::Vec;

use super::decode_raw::{self, RawRecord};
use super::raw_layout::{header_fields, magic_of, pad8, RecordLayout, MAX_VALUE_KIND_LAST};
use super::value_data;
use crate::dump::{Deferred, Fields, Node, Text};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let Some((endian, bits)) = magic_of(data) else { return Ok(None) };
    let mut r = Reader::new(data, endian);
    r.skip(8, "magic")?;
    let version = r.u64("Version")?;
    let detection = Detection::new(Format::InstrProfRaw).word_size(bits).endian(endian);
    Ok(Some(super::flags::describe(detection, version)))
}

/// A header value with the offset of its field, so errors about it can point there.
#[derive(Clone, Copy, Default)]
struct Field {
    value: u64,
    offset: u64,
}

#[derive(Default)]
struct Header {
    version: u64,
    flags: u64,
    binary_ids_size: Field,
    num_data: Field,
    padding_before_counters: Field,
    num_counters: Field,
    padding_after_counters: Field,
    num_bitmap_bytes: Field,
    padding_after_bitmap: Field,
    num_uniform_counters: Field,
    padding_after_uniform: Field,
    names_size: Field,
    counters_delta: u64,
    bitmap_delta: u64,
    num_vtables: Field,
    vnames_size: Field,
    value_kind_last: Field,
}

fn read_header(r: &mut Reader<'_>, bits: u8) -> Result<(Header, Node)> {
    let start = r.offset();
    let mut f = Fields::new(r);
    f.u64_hex("Magic")?;
    let version_at = f.reader.offset();
    let word = f.reader.u64("Version")?;
    let version = word & 0xffff_ffff;
    let names = super::flags::names(word);
    let shown = if names.is_empty() {
        alloc::format!("{word:#018x} (v{version})")
    } else {
        alloc::format!("{word:#018x} (v{version}, {names})")
    };
    f.node_since("Version", version_at, shown);
    let Some(fields) = header_fields(version) else {
        return Err(Error::invalid(version_at, "raw profile version 5, 7, 8, 9, 10 or 11", version));
    };
    let mut h = Header { version, flags: word, ..Header::default() };
    for &name in fields {
        let offset = f.reader.offset();
        let value = if name.ends_with("Delta") { f.u64_hex(name)? } else { f.u64(name)? };
        let field = Field { value, offset };
        match name {
            "BinaryIdsSize" => h.binary_ids_size = field,
            "NumData" => h.num_data = field,
            "PaddingBytesBeforeCounters" => h.padding_before_counters = field,
            "NumCounters" => h.num_counters = field,
            "PaddingBytesAfterCounters" => h.padding_after_counters = field,
            "NumBitmapBytes" => h.num_bitmap_bytes = field,
            "PaddingBytesAfterBitmapBytes" => h.padding_after_bitmap = field,
            "NumUniformCounters" => h.num_uniform_counters = field,
            "PaddingBytesAfterUniformCounters" => h.padding_after_uniform = field,
            "NamesSize" => h.names_size = field,
            "CountersDelta" => h.counters_delta = value,
            "BitmapDelta" => h.bitmap_delta = value,
            "NumVTables" => h.num_vtables = field,
            "VNamesSize" => h.vnames_size = field,
            "ValueKindLast" => h.value_kind_last = field,
            _ => {}
        }
    }
    if h.value_kind_last.value > MAX_VALUE_KIND_LAST {
        return Err(Error::invalid(h.value_kind_last.offset, "ValueKindLast of at most 15", h.value_kind_last.value));
    }
    let end = f.reader.offset();
    let label = if bits == 32 { "__llvm_profile_header (32-bit)" } else { "__llvm_profile_header" };
    let node = Node::new(label, start, end).with_children(f.into_nodes());
    Ok((h, node))
}

/// `count × size` bytes, checked against what remains in `r`; the error points at
/// the header field that holds `count`.
fn region_len(r: &Reader<'_>, count: Field, size: u64, expected: &'static str) -> Result<u64> {
    match count.value.checked_mul(size) {
        Some(len) if len <= r.remaining() as u64 => Ok(len),
        _ => Err(Error::invalid(count.offset, expected, count.value)),
    }
}

/// Takes `len` bytes of padding as a node without value (skipped when empty).
fn take_padding(r: &mut Reader<'_>, len: u64, label: &'static str, out: &mut Vec<Node>) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let start = r.offset();
    r.skip(len, label)?;
    out.push(Node::new(label, start, r.offset()));
    Ok(())
}

/// Takes a region of `len` bytes as a leaf node (skipped when empty).
fn take_region(
    r: &mut Reader<'_>,
    len: u64,
    label: &'static str,
    value: impl core::fmt::Display,
    out: &mut Vec<Node>,
) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    let start = r.offset();
    r.skip(len, label)?;
    out.push(Node::leaf(label, start, r.offset(), value));
    Ok(())
}

/// One data record, its value saying whose it is (`shown`).
fn dump_record(r: &mut Reader<'_>, layout: &RecordLayout, index: u64, shown: String) -> Result<Node> {
    let start = r.offset();
    let mut rec = r.sub(layout.size, "data record")?;
    let mut f = Fields::new(&mut rec);
    f.u64_hex("NameRef")?;
    f.u64_hex("FuncHash")?;
    let ptr = |f: &mut Fields<'_, '_>, label: &'static str| -> Result<u64> {
        if layout.ptr == 4 {
            f.u32_hex(label).map(u64::from)
        } else {
            f.u64_hex(label)
        }
    };
    ptr(&mut f, "CounterPtr")?;
    if layout.uniform {
        ptr(&mut f, "UniformCounterPtr")?;
    }
    if layout.bitmap {
        ptr(&mut f, "BitmapPtr")?;
    }
    ptr(&mut f, "FunctionPointer")?;
    ptr(&mut f, "Values")?;
    f.u32("NumCounters")?;
    let sites_at = f.reader.offset();
    let mut sites = String::from("[");
    for k in 0..layout.sites {
        let n = f.reader.u16("NumValueSites")?;
        if k > 0 {
            sites.push_str(", ");
        }
        sites.push_str(&alloc::format!("{n}"));
    }
    sites.push(']');
    f.node_since("NumValueSites", sites_at, sites);
    if layout.uniform {
        f.u16("OffloadDeviceWaveSize")?;
    }
    if layout.bitmap {
        let misaligned = f.reader.offset().saturating_sub(start) % 4;
        if misaligned != 0 {
            f.bytes(4u64.saturating_sub(misaligned), "padding")?;
        }
        f.u32("NumBitmapBytes")?;
    }
    let tail = f.reader.remaining() as u64;
    if tail > 0 {
        f.bytes(tail, "padding")?;
    }
    let label = alloc::format!("record {index}");
    let mut node = Node::leaf(label, start, r.offset(), shown).with_children(f.into_nodes());
    node.tile()?;
    Ok(node)
}

/// `VTableProfData`: name hash, vtable address, size.
fn dump_vtable(r: &mut Reader<'_>, bits: u8, index: u64) -> Result<Node> {
    let start = r.offset();
    let size = if bits == 32 { 16 } else { 24 };
    let mut rec = r.sub(size, "vtable record")?;
    let mut f = Fields::new(&mut rec);
    f.u64_hex("VTableNameHash")?;
    if bits == 32 {
        f.u32_hex("VTablePointer")?;
    } else {
        f.u64_hex("VTablePointer")?;
    }
    f.u32("VTableSize")?;
    let tail = f.reader.remaining() as u64;
    if tail > 0 {
        f.bytes(tail, "padding")?;
    }
    let mut node = Node::new(alloc::format!("vtable {index}"), start, r.offset()).with_children(f.into_nodes());
    node.tile()?;
    Ok(node)
}

/// How many names of a chunk are shown in its value.
const SHOWN_NAMES: usize = 20;

/// Describes `\x01`-separated PGO names: their count and the first few.
fn describe_names(names: &[u8]) -> String {
    if names.is_empty() {
        return String::from("0 names");
    }
    let count = names.iter().filter(|&&b| b == 1).count().saturating_add(1);
    let mut out = alloc::format!("{count} names: ");
    for (i, name) in names.split(|&b| b == 1).take(SHOWN_NAMES).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&alloc::format!("{}", Text(name.get(..80).unwrap_or(name))));
    }
    if count > SHOWN_NAMES {
        out.push_str(", …");
    }
    out
}

/// A names section (function or vtable names): compressed or stored chunks, each
/// `ULEB UncompressedSize, ULEB CompressedSize, payload`, separated by zero bytes.
/// Shared with the indexed reader's vtable-names section.
pub(crate) fn dump_names(mut r: Reader<'_>, label: &'static str) -> Result<Node> {
    let start = r.offset();
    let end = r.end_offset();
    let mut chunks = Vec::new();
    let mut index = 0u64;
    while !r.is_empty() {
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        if zeros > 0 {
            let at = r.offset();
            r.skip(zeros, "zero padding")?;
            chunks.push(Node::new("padding", at, r.offset()));
            continue;
        }
        let chunk_start = r.offset();
        let mut f = Fields::new(&mut r);
        let uncompressed = f.uleb128("UncompressedSize")?;
        let compressed_at = f.reader.offset();
        let compressed = f.uleb128("CompressedSize")?;
        let payload_at = f.reader.offset();
        let value = if compressed == 0 {
            let names = f.reader.bytes(uncompressed, "names")?;
            f.node_since("names", payload_at, Text(names));
            if let Some(node) = f.nodes.last_mut() {
                node.children = name_blocks(names, payload_at);
            }
            describe_names(names)
        } else {
            let payload = f.reader.bytes(compressed, "compressed names")?;
            f.node_since("names (zlib)", payload_at, format_args!("{compressed} bytes"));
            let Ok(expected) = usize::try_from(uncompressed) else {
                return Err(Error::invalid(chunk_start, "UncompressedSize that fits in memory", uncompressed));
            };
            let names = crate::compress::inflate_zlib(payload, expected, payload_at).map_err(|e| {
                if e.offset().is_some() {
                    e
                } else {
                    Error::malformed(compressed_at, "corrupt zlib names")
                }
            })?;
            alloc::format!("zlib, {}", describe_names(&names))
        };
        let children = f.into_nodes();
        let label = alloc::format!("names chunk {index}");
        let mut node = Node::leaf(label, chunk_start, r.offset(), value).with_children(children);
        node.tile()?;
        chunks.push(node);
        index = index.saturating_add(1);
    }
    let mut node = Node::leaf(label, start, end, format_args!("{index} chunks")).with_children(chunks);
    node.tile()?;
    Ok(node)
}

/// Names per block of a names chunk; a chunk with more is cut into deferred blocks.
const NAMES_PER_BLOCK: u64 = 4096;

/// The `\x01`-separated names of a stored chunk at `at`: one node per name and per
/// separator, or deferred blocks of [`NAMES_PER_BLOCK`] names (each block ending
/// with the separator after its last name).
fn name_blocks(names: &[u8], at: u64) -> Vec<Node> {
    let count = names.iter().filter(|&&b| b == 1).count() as u64;
    if count < NAMES_PER_BLOCK {
        return name_nodes(names, at, 0);
    }
    let mut blocks = Vec::new();
    let (mut block_at, mut first, mut index, mut offset) = (at, 0u64, 0u64, at);
    for name in names.split(|&b| b == 1) {
        offset = offset.saturating_add(name.len() as u64);
        index = index.saturating_add(1);
        let last = offset >= at.saturating_add(names.len() as u64);
        if !last {
            offset = offset.saturating_add(1);
        }
        if index % NAMES_PER_BLOCK == 0 || last {
            let node =
                Node::leaf(alloc::format!("names {first}..{index}"), block_at, offset, index.saturating_sub(first));
            blocks.push(node.deferred(TAG_NAMES, first));
            (block_at, first) = (offset, index);
        }
    }
    blocks
}

/// One node per name (`name i`) and per `\x01` separator, names numbered from `first`.
fn name_nodes(names: &[u8], at: u64, first: u64) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut offset = at;
    let end = at.saturating_add(names.len() as u64);
    for (i, name) in names.split(|&b| b == 1).enumerate() {
        let name_end = offset.saturating_add(name.len() as u64);
        let label = alloc::format!("name {}", first.saturating_add(i as u64));
        nodes.push(Node::leaf(label, offset, name_end, Text(name)));
        if name_end < end {
            nodes.push(Node::new("separator", name_end, name_end.saturating_add(1)));
        }
        offset = name_end.saturating_add(1);
    }
    nodes
}

/// Takes a names section of `len` bytes and its `pad8` padding.
fn take_names(r: &mut Reader<'_>, size: Field, label: &'static str, out: &mut Vec<Node>) -> Result<()> {
    if size.value > r.remaining() as u64 {
        return Err(Error::invalid(size.offset, "names size that fits in the file", size.value));
    }
    if size.value == 0 {
        return Ok(());
    }
    let names = r.sub(size.value, label)?;
    out.push(dump_names(names, label)?);
    take_padding(r, pad8(size.value), "padding after names", out)
}

/// Deferred tags of raw profiles (distinct from the indexed reader's): blocks of
/// data records, of counter slices, of bitmap slices, of value-profile blobs
/// (`first` is the index of the block's first item), and of names in a stored
/// names chunk (`first` is the index of its first name).
const TAG_RECORDS: u32 = 0x100;
const TAG_COUNTERS: u32 = 0x101;
const TAG_BITMAP: u32 = 0x102;
const TAG_VALUES: u32 = 0x103;
const TAG_NAMES: u32 = 0x104;
/// Records (and counter slices, bitmap slices, value blobs) per deferred block: a
/// 500k-function profile costs a few hundred nodes up front.
const RECORDS_PER_BLOCK: usize = 4096;
/// Counters, bitmap bytes and value entries shown one node each up to this many.
const SHOWN_ITEMS: u64 = 64;

/// Whether a deferred node was made by this module (`lib.rs` routes on it).
pub fn owns(deferred: &Deferred) -> bool {
    (TAG_RECORDS..=TAG_NAMES).contains(&deferred.tag)
}

/// Where one record's counters (or bitmap bytes) are, as the dump places them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slice {
    /// No counters (or no bitmap bytes).
    Empty,
    /// `CounterPtr` and the count leave the section; the value is the offset they give.
    Outside(u64),
    /// Overlaps a slice placed before it (in file order), so it is not shown as a node.
    Overlaps(u64, u64),
    Placed(u64, u64),
}

/// What the deep parts of one profile's dump need: its records, the extents of its
/// counters, bitmap and value-data sections, and its names by `NameRef`.
struct Context {
    endian: Endian,
    layout: RecordLayout,
    records: Vec<RawRecord>,
    counters: (u64, u64),
    counter_size: u64,
    temporal: bool,
    bitmap: (u64, u64),
    counters_delta: u64,
    bitmap_delta: u64,
    mask: u64,
    relative: bool,
    names: BTreeMap<u64, Vec<u8>>,
    /// `FunctionPointer` → `NameRef`, sorted by address (indirect-call targets).
    functions: Vec<(u64, u64)>,
    /// Indices of the records with value sites: one value blob each, in this order.
    with_values: Vec<usize>,
}

impl Context {
    /// A record's name, or its `NameRef` when the names section lacks it.
    fn name(&self, name_ref: u64) -> String {
        match self.names.get(&name_ref) {
            Some(name) => alloc::format!("{}", Text(name)),
            None => alloc::format!("NameRef {name_ref:#018x}"),
        }
    }

    /// The function whose entry point is `address`, if a record has it.
    fn function_at(&self, address: u64) -> Option<String> {
        let i = self.functions.binary_search_by_key(&address, |&(a, _)| a).ok()?;
        self.functions.get(i).map(|&(_, name_ref)| self.name(name_ref))
    }

    /// Counter (or bitmap) offset of record `i` inside its section, by the rules of
    /// `decode_raw`: absolute pointers before v8, relative to the record from v8
    /// (bitmaps are v9+, so always relative), wrapping in the pointer width.
    fn slice(&self, i: usize, rec: &RawRecord, bitmap: bool) -> Slice {
        let (ptr, delta, relative, len, (at, size)) = if bitmap {
            (rec.bitmap_ptr, self.bitmap_delta, true, u64::from(rec.num_bitmap_bytes), self.bitmap)
        } else {
            let len = u64::from(rec.num_counters).saturating_mul(self.counter_size);
            (rec.counter_ptr, self.counters_delta, self.relative, len, self.counters)
        };
        if len == 0 {
            return Slice::Empty;
        }
        let offset = decode_raw::slice_offset(ptr, delta, i, self.layout.size, relative, self.mask);
        match offset.checked_add(len) {
            Some(end) if end <= size => Slice::Placed(at.saturating_add(offset), at.saturating_add(end)),
            _ => Slice::Outside(offset),
        }
    }

    /// Every record's slice, a slice overlapping one placed before it (sorted by
    /// start) turned into [`Slice::Overlaps`]; and the placed ones as
    /// `(start, end, record)`, sorted and disjoint.
    fn place(&self, bitmap: bool) -> (Vec<Slice>, Vec<(u64, u64, usize)>) {
        let mut slices: Vec<Slice> = self.records.iter().enumerate().map(|(i, r)| self.slice(i, r, bitmap)).collect();
        let mut placed: Vec<(u64, u64, usize)> = slices
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match *s {
                Slice::Placed(start, end) => Some((start, end, i)),
                _ => None,
            })
            .collect();
        placed.sort_unstable();
        let mut cursor = 0u64;
        placed.retain(|&(start, end, i)| {
            if start < cursor {
                if let Some(s) = slices.get_mut(i) {
                    *s = Slice::Overlaps(start, end);
                }
                return false;
            }
            cursor = end;
            true
        });
        (slices, placed)
    }

    /// Whether every record's counters fit the section when CounterPtr is read as
    /// absolute or relative (v7 files may be either; see `decode_raw`).
    fn counters_fit(&mut self, relative: bool) -> bool {
        self.relative = relative;
        self.records.iter().enumerate().all(|(i, r)| !matches!(self.slice(i, r, false), Slice::Outside(_)))
    }

    /// The value of a data record's node: its name, and where its counters are
    /// when the dump could not show them as a node.
    fn record_value(&self, rec: &RawRecord, counters: Slice, bitmap: Slice) -> String {
        let mut out = self.name(rec.name_ref);
        for (what, slice) in [("counters", counters), ("bitmap bytes", bitmap)] {
            match slice {
                Slice::Outside(offset) => {
                    out.push_str(&alloc::format!("; {what} at {offset:#x} leave their section"));
                }
                Slice::Overlaps(start, end) => {
                    out.push_str(&alloc::format!("; {what} [{start:#x}, {end:#x}) overlap another record's"));
                }
                Slice::Empty | Slice::Placed(..) => {}
            }
        }
        out
    }
}

/// Deferred blocks of [`RECORDS_PER_BLOCK`] placed slices each, labelled `label a..b`.
fn slice_blocks(placed: &[(u64, u64, usize)], tag: u32, label: &str) -> Vec<Node> {
    let mut blocks = Vec::new();
    let mut first = 0u64;
    for block in placed.chunks(RECORDS_PER_BLOCK) {
        let (Some(&(start, _, _)), Some(&(_, end, _))) = (block.first(), block.last()) else { continue };
        let last = first.saturating_add(block.len() as u64);
        let node = Node::leaf(alloc::format!("{label} {first}..{last}"), start, end, block.len());
        blocks.push(node.deferred(tag, first));
        first = last;
    }
    blocks
}

/// The placed slices of one deferred block.
fn block_of(placed: &[(u64, u64, usize)], first: u64) -> &[(u64, u64, usize)] {
    let from = usize::try_from(first).unwrap_or(usize::MAX);
    let to = from.saturating_add(RECORDS_PER_BLOCK);
    placed.get(from..to.min(placed.len())).unwrap_or(&[])
}

/// One record's counters: the temporal timestamp first (when the profile is
/// temporal), then one node per counter up to [`SHOWN_ITEMS`], else only a total.
fn dump_counters(data: &[u8], ctx: &Context, (start, end, i): (u64, u64, usize)) -> Result<Node> {
    let mut r = Reader::new(data, ctx.endian).sub_at(start, end.saturating_sub(start), "counters")?;
    let mut children = Vec::new();
    if ctx.temporal && r.remaining() >= 8 {
        let at = r.offset();
        let ts = r.u64("temporal profile timestamp")?;
        children.push(Node::leaf("timestamp", at, r.offset(), ts));
    }
    let count = (r.remaining() as u64).checked_div(ctx.counter_size).unwrap_or(0);
    let mut total = 0u64;
    for k in 0..count {
        let at = r.offset();
        let value = if ctx.counter_size == 1 { u64::from(r.u8("coverage byte")? == 0) } else { r.u64("counter")? };
        total = total.saturating_add(value);
        if count <= SHOWN_ITEMS {
            children.push(Node::leaf(alloc::format!("counter {k}"), at, r.offset(), value));
        }
    }
    if count > SHOWN_ITEMS {
        children.clear();
    }
    let name = ctx.records.get(i).map_or_else(String::new, |rec| ctx.name(rec.name_ref));
    let value = format_args!("{count} counters, total {total}");
    Ok(Node::leaf(name, start, end, value).with_children(children))
}

/// One record's bitmap bytes, one node per byte up to [`SHOWN_ITEMS`].
fn dump_bitmap(data: &[u8], ctx: &Context, (start, end, i): (u64, u64, usize)) -> Result<Node> {
    let bytes = Reader::new(data, ctx.endian).sub_at(start, end.saturating_sub(start), "bitmap bytes")?.rest();
    let mut children = Vec::new();
    if bytes.len() as u64 <= SHOWN_ITEMS {
        for (k, b) in bytes.iter().enumerate() {
            let at = start.saturating_add(k as u64);
            children.push(Node::leaf(alloc::format!("byte {k}"), at, at.saturating_add(1), format_args!("{b:#04x}")));
        }
    }
    let name = ctx.records.get(i).map_or_else(String::new, |rec| ctx.name(rec.name_ref));
    Ok(Node::leaf(name, start, end, crate::dump::Hex(bytes)).with_children(children))
}

/// The value-profile blobs (`ValueProfData`): one per data record that has value
/// sites, each starting with its u32 TotalSize (a multiple of 8); deferred in
/// blocks of [`RECORDS_PER_BLOCK`] blobs.
fn take_value_data(r: &mut Reader<'_>, blobs: u64, out: &mut Vec<Node>) -> Result<()> {
    let start = r.offset();
    let mut total = 0u64;
    let mut blocks = Vec::new();
    let (mut block_at, mut first) = (start, 0u64);
    for i in 0..blobs {
        let at = r.offset();
        let size = r.u32("ValueProfData TotalSize")?;
        if size < 8 || size % 8 != 0 || u64::from(size).saturating_sub(4) > r.remaining() as u64 {
            return Err(Error::invalid(
                at,
                "ValueProfData TotalSize, a multiple of 8 inside the file",
                u64::from(size),
            ));
        }
        r.skip(u64::from(size).saturating_sub(4), "ValueProfData")?;
        total = total.saturating_add(u64::from(size));
        let done = i.saturating_add(1);
        if done.checked_rem(RECORDS_PER_BLOCK as u64) == Some(0) || done == blobs {
            let node = Node::leaf(
                alloc::format!("value data {first}..{done}"),
                block_at,
                r.offset(),
                done.saturating_sub(first),
            );
            blocks.push(node.deferred(TAG_VALUES, first));
            (block_at, first) = (r.offset(), done);
        }
    }
    if blobs > 0 {
        let value = format_args!("{blobs} records, {total} bytes");
        out.push(Node::leaf("value profile data", start, r.offset(), value).with_children(blocks));
    }
    Ok(())
}

/// One profile: header and every section it implies. Returns the profile's nodes
/// and what their deferred children need.
fn dump_profile(r: &mut Reader<'_>, bits: u8) -> Result<(Vec<Node>, Context)> {
    let (h, header) = read_header(r, bits)?;
    let mut out = alloc::vec![header];

    if h.binary_ids_size.value > 0 {
        if h.binary_ids_size.value > r.remaining() as u64 {
            return Err(Error::invalid(
                h.binary_ids_size.offset,
                "BinaryIdsSize that fits in the file",
                h.binary_ids_size.value,
            ));
        }
        let ids = r.sub(h.binary_ids_size.value, "binary ids")?;
        out.push(dump_binary_ids(ids)?);
    }

    let layout = RecordLayout::new(h.version, bits, h.value_kind_last.value);
    let data_len = region_len(r, h.num_data, layout.size, "NumData records that fit in the file")?;
    let data_at = r.offset();
    let mut records = Vec::new();
    let mut data = r.sub(data_len, "data records")?;
    let value_kinds = h.value_kind_last.value.saturating_add(1);
    while !data.is_empty() {
        records.push(decode_raw::read_record(&mut data, &layout, value_kinds)?);
    }
    let with_values: Vec<usize> =
        records.iter().enumerate().filter(|(_, rec)| rec.sites.iter().any(|&n| n != 0)).map(|(i, _)| i).collect();
    if data_len > 0 {
        let mut blocks = Vec::new();
        for first in (0..h.num_data.value).step_by(RECORDS_PER_BLOCK) {
            let last = first.saturating_add(RECORDS_PER_BLOCK as u64).min(h.num_data.value);
            let from = data_at.saturating_add(first.saturating_mul(layout.size));
            let to = data_at.saturating_add(last.saturating_mul(layout.size));
            let node = Node::leaf(alloc::format!("records {first}..{last}"), from, to, last.saturating_sub(first));
            blocks.push(node.deferred(TAG_RECORDS, first));
        }
        let value = format_args!("{} records", h.num_data.value);
        out.push(Node::leaf("data", data_at, r.offset(), value).with_children(blocks));
    }

    let pad = region_len(r, h.padding_before_counters, 1, "PaddingBytesBeforeCounters that fits in the file")?;
    take_padding(r, pad, "padding before counters", &mut out)?;
    // Byte-coverage counters are one byte each; the others u64.
    let counter_size = if h.flags & super::flags::BYTE_COVERAGE != 0 { 1 } else { 8 };
    let counters_len = region_len(r, h.num_counters, counter_size, "NumCounters counters that fit in the file")?;
    let counters = (r.offset(), counters_len);
    take_region(r, counters_len, "counters", h.num_counters.value, &mut out)?;
    let pad = region_len(r, h.padding_after_counters, 1, "PaddingBytesAfterCounters that fits in the file")?;
    take_padding(r, pad, "padding after counters", &mut out)?;

    let bitmap_len = region_len(r, h.num_bitmap_bytes, 1, "NumBitmapBytes that fit in the file")?;
    let bitmap = (r.offset(), bitmap_len);
    take_region(r, bitmap_len, "bitmap", h.num_bitmap_bytes.value, &mut out)?;
    let pad = region_len(r, h.padding_after_bitmap, 1, "PaddingBytesAfterBitmapBytes that fits in the file")?;
    take_padding(r, pad, "padding after bitmap", &mut out)?;

    let uniform = region_len(r, h.num_uniform_counters, 8, "NumUniformCounters that fit in the file")?;
    take_region(r, uniform, "uniform counters", h.num_uniform_counters.value, &mut out)?;
    let pad = region_len(r, h.padding_after_uniform, 1, "PaddingBytesAfterUniformCounters that fits in the file")?;
    take_padding(r, pad, "padding after uniform counters", &mut out)?;

    let names_at = r.offset();
    take_names(r, h.names_size, "names", &mut out)?;
    let mut name_list = Vec::new();
    decode_raw::read_names(r.sub_at(names_at, h.names_size.value, "names")?, &mut name_list)?;

    let vtable_size = if bits == 32 { 16 } else { 24 };
    let vtables_len = region_len(r, h.num_vtables, vtable_size, "NumVTables records that fit in the file")?;
    if vtables_len > 0 {
        let start = r.offset();
        let mut records = Vec::new();
        for i in 0..h.num_vtables.value {
            records.push(dump_vtable(r, bits, i)?);
        }
        let mut node = Node::leaf("vtable records", start, r.offset(), h.num_vtables.value).with_children(records);
        node.tile()?;
        out.push(node);
        take_padding(r, pad8(vtables_len), "padding after vtable records", &mut out)?;
    }
    take_names(r, h.vnames_size, "vtable names", &mut out)?;

    take_value_data(r, with_values.len() as u64, &mut out)?;

    let mut names = BTreeMap::new();
    for name in name_list {
        names.entry(super::md5::name_ref(&name)).or_insert(name);
    }
    let mut functions: Vec<(u64, u64)> =
        records.iter().filter(|rec| rec.function_ptr != 0).map(|rec| (rec.function_ptr, rec.name_ref)).collect();
    functions.sort_unstable();
    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
    let mut ctx = Context {
        endian: r.endian(),
        layout,
        records,
        counters,
        counter_size,
        temporal: h.flags & super::flags::TEMPORAL_PROF != 0,
        bitmap,
        counters_delta: h.counters_delta & mask,
        bitmap_delta: h.bitmap_delta & mask,
        mask,
        relative: h.version >= 8,
        names,
        functions,
        with_values,
    };
    // v8 made CounterPtr relative to its record; some v7 files already are (see
    // `decode_raw`): read v7 as relative when only that keeps every slice inside.
    if h.version == 7 {
        ctx.relative = !ctx.counters_fit(false) && ctx.counters_fit(true);
    }
    for (label, bitmap_slices) in [("counters", false), ("bitmap", true)] {
        let (_, placed) = ctx.place(bitmap_slices);
        if let Some(node) = out.iter_mut().find(|n| n.label == label) {
            let tag = if bitmap_slices { TAG_BITMAP } else { TAG_COUNTERS };
            node.children = slice_blocks(&placed, tag, "functions");
        }
    }
    Ok((out, ctx))
}

/// The context of the profile that holds `offset` (profiles follow each other,
/// separated by zero bytes, as in [`dump`]).
fn context_at(data: &[u8], offset: u64) -> Result<Context> {
    let Some((endian, bits)) = magic_of(data) else {
        return Err(Error::malformed(0, "expected the raw instrprof magic"));
    };
    let mut r = Reader::new(data, endian);
    loop {
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        r.skip(zeros, "zero padding")?;
        if r.is_empty() || magic_of(r.rest()) != Some((endian, bits)) {
            return Err(Error::malformed(offset, "deferred node outside every raw profile"));
        }
        let (_, ctx) = dump_profile(&mut r, bits)?;
        if offset < r.offset() {
            return Ok(ctx);
        }
    }
}

/// The children of a deferred node of a raw profile (or of a names chunk, which
/// indexed profiles share).
pub fn expand(data: &[u8], deferred: &Deferred) -> Result<Vec<Node>> {
    let len = deferred.end.saturating_sub(deferred.start);
    let first = deferred.first;
    if deferred.tag == TAG_NAMES {
        let names = Reader::new(data, Endian::Little).sub_at(deferred.start, len, "names")?.rest();
        return Ok(name_nodes(names, deferred.start, first));
    }
    let ctx = context_at(data, deferred.start)?;
    let mut nodes = Vec::new();
    match deferred.tag {
        TAG_RECORDS => {
            let (counters, _) = ctx.place(false);
            let (bitmaps, _) = ctx.place(true);
            let mut r = Reader::new(data, ctx.endian).sub_at(deferred.start, len, "data records")?;
            let mut index = first;
            while !r.is_empty() {
                let i = usize::try_from(index).unwrap_or(usize::MAX);
                let slice = |slices: &[Slice]| slices.get(i).copied().unwrap_or(Slice::Empty);
                let value = ctx
                    .records
                    .get(i)
                    .map_or_else(String::new, |rec| ctx.record_value(rec, slice(&counters), slice(&bitmaps)));
                nodes.push(dump_record(&mut r, &ctx.layout, index, value)?);
                index = index.saturating_add(1);
            }
        }
        TAG_COUNTERS | TAG_BITMAP => {
            let bitmap = deferred.tag == TAG_BITMAP;
            let (_, placed) = ctx.place(bitmap);
            for &slice in block_of(&placed, first) {
                nodes.push(if bitmap { dump_bitmap(data, &ctx, slice)? } else { dump_counters(data, &ctx, slice)? });
            }
        }
        TAG_VALUES => {
            let mut r = Reader::new(data, ctx.endian).sub_at(deferred.start, len, "value profile data")?;
            let mut index = usize::try_from(first).unwrap_or(usize::MAX);
            while !r.is_empty() {
                let record = ctx.with_values.get(index).and_then(|&i| ctx.records.get(i));
                let label = record.map_or(Cow::Borrowed("ValueProfData"), |rec| Cow::Owned(ctx.name(rec.name_ref)));
                // Indirect-call targets are runtime addresses: named when a record has
                // that FunctionPointer.
                nodes.push(value_data::dump(&mut r, label, &|address| ctx.function_at(address))?);
                index = index.saturating_add(1);
            }
        }
        _ => return Err(Error::malformed(deferred.start, "unknown deferred node for a raw profile")),
    }
    Ok(nodes)
}

/// Binary ids: `{u64 length, id bytes, zero padding to 8}` until the section ends.
pub(crate) fn dump_binary_ids(mut r: Reader<'_>) -> Result<Node> {
    let start = r.offset();
    let end = r.end_offset();
    let mut ids = Vec::new();
    let mut index = 0u64;
    while !r.is_empty() {
        let id_start = r.offset();
        let mut f = Fields::new(&mut r);
        let len_at = f.reader.offset();
        let len = f.u64("length")?;
        if len == 0 {
            return Err(Error::invalid(len_at, "binary id length greater than 0", 0));
        }
        let id = f.bytes(len, "id")?;
        let pad = pad8(len);
        if pad > 0 {
            f.bytes(pad, "padding")?;
        }
        let id_end = f.reader.offset();
        let label = alloc::format!("binary id {index}");
        let node = Node::leaf(label, id_start, id_end, crate::dump::Hex(id)).with_children(f.into_nodes());
        ids.push(node);
        index = index.saturating_add(1);
    }
    let mut node = Node::leaf("binary ids", start, end, format_args!("{index} ids")).with_children(ids);
    node.tile()?;
    Ok(node)
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let Some((endian, bits)) = magic_of(data) else {
        return Err(Error::malformed(0, "expected the raw instrprof magic"));
    };
    let len = data.len() as u64;
    let mut r = Reader::new(data, endian);
    let mut profiles: Vec<Vec<Node>> = Vec::new();
    let mut between = Vec::new();
    loop {
        // Profiles follow each other, separated by zero bytes; anything else after
        // the last one is left unparsed.
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        if zeros > 0 {
            let at = r.offset();
            r.skip(zeros, "zero padding")?;
            between.push(Node::new("padding", at, r.offset()));
        }
        if r.is_empty() || magic_of(r.rest()) != Some((endian, bits)) {
            break;
        }
        profiles.push(dump_profile(&mut r, bits)?.0);
    }
    let mut root = Node::new(if bits == 32 { "instrprof raw (32-bit)" } else { "instrprof raw" }, 0, len);
    if profiles.len() == 1 {
        root.children = profiles.into_iter().flatten().collect();
    } else {
        for (i, nodes) in profiles.into_iter().enumerate() {
            let start = nodes.first().map_or(0, |n| n.start);
            let end = nodes.last().map_or(start, |n| n.end);
            let mut node = Node::new(alloc::format!("profile {i}"), start, end).with_children(nodes);
            node.tile()?;
            root.children.push(node);
        }
    }
    root.children.extend(between);
    root.tile()?;
    Ok(root)
}

#[cfg(test)]
mod tests;
