//! Raw profiles (`.profraw`) into the [`Profile`] model: raw versions 5 to 11,
//! 32- and 64-bit producers, both byte orders, several profiles per file, and
//! correlated profiles whose data records and names come from the binary.
//!
//! The section layout is the one [`super::raw`] dumps; this pass reads the
//! sections' contents. Per record `i` (record size `R`):
//!
//! ```text
//! v5, v7      counter offset = CounterPtr − CountersDelta         (absolute pointers)
//! v8+         counter offset = CounterPtr − (CountersDelta − i·R) (relative to the record)
//! v9+         bitmap offset  = BitmapPtr  − (BitmapDelta − i·R)
//! correlated  counter offset = CounterPtr (made relative to the counters section
//!             by the correlator)
//! ```
//!
//! Pointer arithmetic wraps in the producer's pointer width. Byte-coverage
//! counters are one byte, 0 meaning covered; a temporal profile's first counter
//! slot (8 bytes even with byte coverage) is the function's first-call timestamp.

use alloc::vec::Vec;

use super::flags;
use super::model::{Function, Profile, Trace, ValueData, IPVK_INDIRECT_CALL_TARGET, IPVK_VTABLE_TARGET, VALUE_KINDS};
use super::raw_layout::{header_fields, magic_of, pad8, RecordLayout, MAX_VALUE_KIND_LAST};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// One data record (`__llvm_profile_data`), pointers widened to u64.
#[derive(Clone, Debug, Default)]
pub struct RawRecord {
    pub name_ref: u64,
    pub hash: u64,
    pub counter_ptr: u64,
    pub bitmap_ptr: u64,
    pub function_ptr: u64,
    pub num_counters: u32,
    pub sites: [u16; VALUE_KINDS],
    pub num_bitmap_bytes: u32,
    /// Where the record starts, for errors.
    pub offset: u64,
}

impl RawRecord {
    fn has_value_sites(&self) -> bool {
        self.sites.iter().any(|&n| n != 0)
    }
}

/// What a correlated raw profile lacks: the data records and names, taken from the
/// instrumented binary. `counter_ptr` of each record is already an offset into the
/// counters section.
#[derive(Clone, Debug, Default)]
pub struct Correlation {
    pub records: Vec<RawRecord>,
    pub names: Vec<Vec<u8>>,
}

/// Reads one data record with `layout` (shared with the ELF correlator).
pub(crate) fn read_record(r: &mut Reader<'_>, layout: &RecordLayout, value_kinds: u64) -> Result<RawRecord> {
    let offset = r.offset();
    let mut rec = r.sub(layout.size, "data record")?;
    let ptr = |rec: &mut Reader<'_>, what| -> Result<u64> {
        if layout.ptr == 4 {
            rec.u32(what).map(u64::from)
        } else {
            rec.u64(what)
        }
    };
    let name_ref = rec.u64("NameRef")?;
    let hash = rec.u64("FuncHash")?;
    let counter_ptr = ptr(&mut rec, "CounterPtr")?;
    if layout.uniform {
        ptr(&mut rec, "UniformCounterPtr")?;
    }
    let bitmap_ptr = if layout.bitmap { ptr(&mut rec, "BitmapPtr")? } else { 0 };
    let function_ptr = ptr(&mut rec, "FunctionPointer")?;
    ptr(&mut rec, "Values")?;
    let num_counters = rec.u32("NumCounters")?;
    let mut sites = [0u16; VALUE_KINDS];
    for k in 0..value_kinds {
        let n = rec.u16("NumValueSites")?;
        if let Some(slot) = usize::try_from(k).ok().and_then(|k| sites.get_mut(k)) {
            *slot = n;
        }
    }
    if layout.uniform {
        rec.u16("OffloadDeviceWaveSize")?;
    }
    let num_bitmap_bytes = if layout.bitmap {
        let misaligned = rec.offset().saturating_sub(offset) % 4;
        rec.skip(4u64.saturating_sub(misaligned) % 4, "padding before NumBitmapBytes")?;
        rec.u32("NumBitmapBytes")?
    } else {
        0
    };
    Ok(RawRecord {
        name_ref,
        hash,
        counter_ptr,
        bitmap_ptr,
        function_ptr,
        num_counters,
        sites,
        num_bitmap_bytes,
        offset,
    })
}

/// Splits a names section (chunks of `ULEB uncompressed, ULEB compressed, payload`,
/// zero bytes between them) into `\x01`-separated names.
pub(crate) fn read_names(mut r: Reader<'_>, out: &mut Vec<Vec<u8>>) -> Result<()> {
    while !r.is_empty() {
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        if zeros > 0 {
            r.skip(zeros, "zero padding")?;
            continue;
        }
        let chunk = r.offset();
        let uncompressed = r.uleb128("UncompressedSize")?;
        let compressed = r.uleb128("CompressedSize")?;
        let payload_at = r.offset();
        if compressed == 0 {
            let names = r.bytes(uncompressed, "names")?;
            out.extend(names.split(|&b| b == 1).map(<[u8]>::to_vec));
        } else {
            let payload = r.bytes(compressed, "compressed names")?;
            let Ok(expected) = usize::try_from(uncompressed) else {
                return Err(Error::invalid(chunk, "UncompressedSize that fits in memory", uncompressed));
            };
            let names = crate::compress::inflate_zlib(payload, expected, payload_at)?;
            out.extend(names.split(|&b| b == 1).map(<[u8]>::to_vec));
        }
    }
    Ok(())
}

/// Header values by field name, with the offset of each field.
struct Header {
    version: u64,
    word: u64,
    fields: Vec<(&'static str, u64, u64)>,
}

impl Header {
    fn get(&self, name: &str) -> (u64, u64) {
        self.fields.iter().find(|f| f.0 == name).map_or((0, 0), |f| (f.1, f.2))
    }

    fn value(&self, name: &str) -> u64 {
        self.get(name).0
    }
}

fn read_header(r: &mut Reader<'_>) -> Result<Header> {
    r.u64("Magic")?;
    let version_at = r.offset();
    let word = r.u64("Version")?;
    let version = word & 0xffff_ffff;
    let Some(names) = header_fields(version) else {
        return Err(Error::invalid(version_at, "raw profile version 5, 7, 8, 9, 10 or 11", version));
    };
    let mut fields = Vec::with_capacity(names.len());
    for &name in names {
        let at = r.offset();
        fields.push((name, r.u64(name)?, at));
    }
    let h = Header { version, word, fields };
    let (kinds, at) = h.get("ValueKindLast");
    if kinds > MAX_VALUE_KIND_LAST {
        return Err(Error::invalid(at, "ValueKindLast of at most 15", kinds));
    }
    Ok(h)
}

/// A region of `count × size` bytes; the error names the header field of `count`.
fn region<'a>(r: &mut Reader<'a>, h: &Header, field: &str, size: u64, what: &'static str) -> Result<Reader<'a>> {
    let (count, at) = h.get(field);
    match count.checked_mul(size) {
        Some(len) if len <= r.remaining() as u64 => r.sub(len, what),
        _ => Err(Error::invalid(at, what, count)),
    }
}

/// Maps runtime addresses to name hashes: exact function entry points, and
/// vtable address ranges.
struct AddressMap {
    functions: Vec<(u64, u64)>,
    vtables: Vec<(u64, u64, u64)>,
}

impl AddressMap {
    fn function(&self, address: u64) -> u64 {
        match self.functions.binary_search_by_key(&address, |&(a, _)| a) {
            Ok(i) => self.functions.get(i).map_or(0, |&(_, h)| h),
            Err(_) => 0,
        }
    }

    fn vtable(&self, address: u64) -> u64 {
        self.vtables.iter().find(|&&(start, end, _)| start <= address && address < end).map_or(0, |&(_, _, h)| h)
    }
}

/// `ValueProfData`: TotalSize u32, NumValueKinds u32, then per kind Kind u32,
/// NumValueSites u32, a u8 value count per site padded to 8, and the
/// {Value u64, Count u64} pairs site by site.
pub(crate) fn read_value_data(
    r: &mut Reader<'_>,
    remap: &dyn Fn(usize, u64) -> u64,
) -> Result<[Vec<Vec<ValueData>>; VALUE_KINDS]> {
    let start = r.offset();
    let total = r.u32("ValueProfData TotalSize")?;
    if total < 8 || total % 8 != 0 || u64::from(total).saturating_sub(4) > r.remaining() as u64 {
        return Err(Error::invalid(
            start,
            "ValueProfData TotalSize, a multiple of 8 inside the file",
            u64::from(total),
        ));
    }
    let mut blob = r.sub(u64::from(total).saturating_sub(4), "ValueProfData")?;
    let kinds_at = blob.offset();
    let kinds = blob.u32("NumValueKinds")?;
    if kinds as usize > VALUE_KINDS {
        return Err(Error::invalid(kinds_at, "NumValueKinds of at most 3", u64::from(kinds)));
    }
    let mut out: [Vec<Vec<ValueData>>; VALUE_KINDS] = Default::default();
    for _ in 0..kinds {
        // Offsets inside the blob are relative to it: indexed files do not align it.
        let kind_at = blob.offset();
        let kind = blob.u32("ValueKind")?;
        let Some(slot) = out.get_mut(kind as usize) else {
            return Err(Error::invalid(kind_at, "value kind 0, 1 or 2", u64::from(kind)));
        };
        if !slot.is_empty() {
            return Err(Error::invalid(kind_at, "each value kind once", u64::from(kind)));
        }
        let sites_at = blob.offset();
        let num_sites = blob.u32("NumValueSites")?;
        if num_sites == 0 {
            return Err(Error::invalid(sites_at, "NumValueSites of at least 1", 0));
        }
        let counts = blob.bytes(u64::from(num_sites), "value counts per site")?;
        // The record header (Kind, NumValueSites, counts) is padded to 8 bytes.
        let header = 8u64.saturating_add(u64::from(num_sites));
        blob.skip(pad8(header), "padding after value counts")?;
        let total_values: u64 = counts.iter().map(|&c| u64::from(c)).sum();
        if total_values > blob.remaining() as u64 / 16 {
            return Err(Error::invalid(sites_at, "value counts whose values fit in the record", total_values));
        }
        let mut sites = Vec::with_capacity(counts.len());
        for &n in counts {
            let mut site = Vec::with_capacity(usize::from(n));
            for _ in 0..n {
                let value = blob.u64("value")?;
                let count = blob.u64("value count")?;
                site.push(ValueData { value: remap(kind as usize, value), count });
            }
            sites.push(site);
        }
        *slot = sites;
    }
    Ok(out)
}

/// Decodes a raw profile; `correlation` supplies records and names for profiles
/// made with `-profile-correlate` (variant bit 59, no data in the file).
pub fn decode(data: &[u8], correlation: Option<&Correlation>) -> Result<Profile> {
    let Some((endian, bits)) = magic_of(data) else {
        return Err(Error::malformed(0, "expected the raw instrprof magic"));
    };
    let mut r = Reader::new(data, endian);
    let mut profile: Option<Profile> = None;
    let mut timestamps: Vec<(u64, u64)> = Vec::new();
    loop {
        let zeros = r.rest().iter().take_while(|&&b| b == 0).count() as u64;
        r.skip(zeros, "zero padding")?;
        if r.is_empty() {
            break;
        }
        let at = r.offset();
        if at % 8 != 0 || magic_of(r.rest()) != Some((endian, bits)) {
            return Err(Error::malformed(at, "expected another raw profile header or the end of the file"));
        }
        decode_one(&mut r, bits, correlation, &mut profile, &mut timestamps)?;
    }
    let mut profile = profile.ok_or(Error::malformed(0, "expected a raw profile header"))?;
    if profile.is_temporal() && !timestamps.is_empty() {
        timestamps.sort_unstable();
        profile.traces.push(Trace { weight: 1, functions: timestamps.into_iter().map(|(_, n)| n).collect() });
        profile.trace_stream_size = 1;
    }
    profile.finish();
    Ok(profile)
}

fn decode_one(
    r: &mut Reader<'_>,
    bits: u8,
    correlation: Option<&Correlation>,
    profile: &mut Option<Profile>,
    timestamps: &mut Vec<(u64, u64)>,
) -> Result<()> {
    let header_at = r.offset();
    let h = read_header(r)?;
    let profile = profile.get_or_insert_with(|| Profile::new(h.word, h.version));
    // Debug-info correlation sets variant bit 59; binary correlation sets no bit.
    // Both leave NumData and NamesSize 0 and keep only the counters.
    let correlated = h.word & flags::DEBUG_CORRELATE != 0 || (h.value("NumData") == 0 && h.value("NumCounters") > 0);
    let correlation = match (correlated, correlation) {
        (true, Some(c)) => Some(c),
        (true, None) => {
            return Err(Error::malformed(
                header_at.saturating_add(8),
                "correlated raw profile (counters without data records): its data records and names are in the instrumented binary, which is needed to decode it",
            ))
        }
        (false, _) => None,
    };

    let (ids_size, ids_at) = h.get("BinaryIdsSize");
    if ids_size > r.remaining() as u64 {
        return Err(Error::invalid(ids_at, "BinaryIdsSize that fits in the file", ids_size));
    }
    let ids = r.sub(ids_size, "binary ids")?;
    read_binary_ids(ids, &mut profile.binary_ids)?;

    let value_kinds = h.value("ValueKindLast").saturating_add(1);
    let layout = RecordLayout::new(h.version, bits, h.value("ValueKindLast"));
    let mut data = region(r, &h, "NumData", layout.size, "NumData records that fit in the file")?;
    let mut own = Vec::new();
    while !data.is_empty() {
        own.push(read_record(&mut data, &layout, value_kinds)?);
    }
    let records: &[RawRecord] = match correlation {
        Some(c) if own.is_empty() => &c.records,
        _ => &own,
    };

    let counter_size = if h.word & flags::BYTE_COVERAGE != 0 { 1 } else { 8 };
    region(r, &h, "PaddingBytesBeforeCounters", 1, "PaddingBytesBeforeCounters that fits in the file")?;
    let counters = region(r, &h, "NumCounters", counter_size, "NumCounters counters that fit in the file")?;
    region(r, &h, "PaddingBytesAfterCounters", 1, "PaddingBytesAfterCounters that fits in the file")?;
    let bitmap = region(r, &h, "NumBitmapBytes", 1, "NumBitmapBytes that fit in the file")?;
    region(r, &h, "PaddingBytesAfterBitmapBytes", 1, "PaddingBytesAfterBitmapBytes that fits in the file")?;
    region(r, &h, "NumUniformCounters", 8, "NumUniformCounters that fit in the file")?;
    region(r, &h, "PaddingBytesAfterUniformCounters", 1, "PaddingBytesAfterUniformCounters that fits in the file")?;
    let names_len = h.value("NamesSize");
    let names = region(r, &h, "NamesSize", 1, "NamesSize that fits in the file")?;
    r.skip(pad8(names_len), "padding after names")?;
    let vtable_size = if bits == 32 { 16 } else { 24 };
    let mut vtables = region(r, &h, "NumVTables", vtable_size, "NumVTables records that fit in the file")?;
    r.skip(pad8(vtables.remaining() as u64), "padding after vtable records")?;
    let vnames_len = h.value("VNamesSize");
    let vnames = region(r, &h, "VNamesSize", 1, "VNamesSize that fits in the file")?;
    r.skip(pad8(vnames_len), "padding after vtable names")?;

    let mut name_list = Vec::new();
    read_names(names, &mut name_list)?;
    if let Some(c) = correlation {
        name_list.extend(c.names.iter().cloned());
    }
    let mut vtable_names = Vec::new();
    read_names(vnames, &mut vtable_names)?;
    let mut symtab = alloc::collections::BTreeMap::new();
    for name in &name_list {
        symtab.entry(super::md5::name_ref(name)).or_insert(name.as_slice());
    }

    let mut map = AddressMap { functions: Vec::new(), vtables: Vec::new() };
    for rec in records.iter().filter(|rec| rec.function_ptr != 0) {
        map.functions.push((rec.function_ptr, rec.name_ref));
    }
    map.functions.sort_by_key(|&(a, _)| a);
    while !vtables.is_empty() {
        let hash = vtables.u64("VTableNameHash")?;
        let start = if bits == 32 { u64::from(vtables.u32("VTablePointer")?) } else { vtables.u64("VTablePointer")? };
        let size = vtables.u32("VTableSize")?;
        vtables.skip(if bits == 32 { 0 } else { 4 }, "vtable record padding")?;
        map.vtables.push((start, start.saturating_add(u64::from(size)), hash));
    }
    let remap = |kind: usize, value: u64| match kind {
        IPVK_INDIRECT_CALL_TARGET => map.function(value),
        IPVK_VTABLE_TARGET => map.vtable(value),
        _ => value,
    };

    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
    // v8 made CounterPtr relative to its record. Some v7 files (LLVM's own
    // llvm-13 test fixtures, written by a development compiler) already are:
    // take a v7 file as relative when only that reading keeps every record's
    // counters inside the section.
    let relative = correlation.is_none()
        && (h.version >= 8
            || (h.version == 7
                && !counters_fit(records, &h, layout.size, counter_size, counters.remaining() as u64, false)
                && counters_fit(records, &h, layout.size, counter_size, counters.remaining() as u64, true)));
    let temporal = h.word & flags::TEMPORAL_PROF != 0;
    let (counters_delta, bitmap_delta) = (h.value("CountersDelta") & mask, h.value("BitmapDelta") & mask);
    for (i, rec) in records.iter().enumerate() {
        // Correlated pointers are already offsets into the counters section.
        let offset = match correlation {
            Some(_) => rec.counter_ptr & mask,
            None => slice_offset(rec.counter_ptr, counters_delta, i, layout.size, relative, mask),
        };
        if rec.num_counters == 0 {
            return Err(Error::invalid(rec.offset, "a data record with at least one counter", 0));
        }
        let len = u64::from(rec.num_counters).saturating_mul(counter_size);
        let mut c = match offset.checked_add(len) {
            Some(end) if end <= counters.remaining() as u64 => {
                counters.sub_at(counters.offset().saturating_add(offset), len, "counters")?
            }
            _ => {
                return Err(Error::invalid(
                    rec.offset,
                    "CounterPtr and NumCounters inside the counters section",
                    offset,
                ))
            }
        };
        let mut function = Function { hash: rec.hash, ..Function::default() };
        if let Some(name) = symtab.get(&rec.name_ref) {
            // The symtab is keyed by the names' hashes: the name's hash is `NameRef`.
            function.name = name.to_vec();
            function.name_ref = rec.name_ref;
        }
        if temporal {
            let ts = c.u64("temporal profile timestamp")?;
            if ts != 0 && ts != u64::MAX {
                timestamps.push((ts, rec.name_ref));
            }
        }
        let width = if counter_size == 1 { 1 } else { 8 };
        function.counters.reserve(c.remaining().checked_div(width).unwrap_or(0));
        while !c.is_empty() {
            function.counters.push(if counter_size == 1 {
                u64::from(c.u8("coverage byte")? == 0)
            } else {
                c.u64("counter")?
            });
        }
        if rec.num_bitmap_bytes > 0 {
            let offset = slice_offset(rec.bitmap_ptr, bitmap_delta, i, layout.size, true, mask);
            let len = u64::from(rec.num_bitmap_bytes);
            match offset.checked_add(len) {
                Some(end) if end <= bitmap.remaining() as u64 => {
                    let bytes = bitmap.sub_at(bitmap.offset().saturating_add(offset), len, "bitmap bytes")?;
                    function.bitmap = bytes.rest().to_vec();
                }
                _ => return Err(Error::invalid(rec.offset, "BitmapPtr and NumBitmapBytes inside the bitmap", offset)),
            }
        }
        if rec.has_value_sites() {
            function.sites = read_value_data(r, &remap)?;
        }
        profile.add(function);
    }
    profile.vtable_names.extend(vtable_names);
    Ok(())
}

/// Where record `i`'s counters (or bitmap bytes) start inside their section:
/// `ptr − delta` for absolute pointers (v5, v7), `ptr − (delta − i·record_size)`
/// for pointers relative to the record (v8+), wrapping in the pointer width
/// (`mask`). The dump (`raw.rs`) locates slices with the same function.
pub(crate) fn slice_offset(ptr: u64, delta: u64, i: usize, record_size: u64, relative: bool, mask: u64) -> u64 {
    let step = if relative { (i as u64).wrapping_mul(record_size) } else { 0 };
    ptr.wrapping_sub(delta.wrapping_sub(step) & mask) & mask
}

/// Whether every record's counters lie inside a counters section of `len` bytes
/// when CounterPtr is read as absolute or as relative to the record (64-bit).
fn counters_fit(
    records: &[RawRecord],
    h: &Header,
    record_size: u64,
    counter_size: u64,
    len: u64,
    relative: bool,
) -> bool {
    let delta = h.value("CountersDelta");
    records.iter().enumerate().all(|(i, rec)| {
        let offset = slice_offset(rec.counter_ptr, delta, i, record_size, relative, u64::MAX);
        let bytes = u64::from(rec.num_counters).saturating_mul(counter_size);
        offset.checked_add(bytes).is_some_and(|end| end <= len)
    })
}

/// Binary ids: `{u64 length, id, zero padding to 8}` until the section ends.
pub(crate) fn read_binary_ids(mut r: Reader<'_>, out: &mut Vec<Vec<u8>>) -> Result<()> {
    while !r.is_empty() {
        let at = r.offset();
        let len = r.u64("binary id length")?;
        if len == 0 {
            return Err(Error::invalid(at, "binary id length greater than 0", 0));
        }
        out.push(r.bytes(len, "binary id")?.to_vec());
        r.skip(pad8(len), "binary id padding")?;
    }
    Ok(())
}

/// The byte order of a raw profile, for callers that read its records elsewhere.
pub fn endian_of(data: &[u8]) -> Option<(Endian, u8)> {
    magic_of(data)
}
