//! Indexed profiles (`.profdata`, versions 1 to 13) into the [`Profile`] model.
//!
//! The function records live in the on-disk hash table's payload, which runs from
//! the end of the summaries to `HashOffset` (where the bucket metadata starts).
//! Walking it in order visits every bucket once:
//!
//! ```text
//! per bucket: u16 item count, then per item:
//!   hash u64, key length u64, data length u64, key (the PGO name), data:
//!   per record: FuncHash u64, [NumCounters u64 (v2+)], counters u64 × n,
//!               [NumBitmapBytes u64, one u64 per byte (v11+)], [ValueProfData (v3+)]
//! ```
//!
//! An item's hash is the key's MD5 hash (`IndexedInstrProf::ComputeHash`); it
//! becomes the record's `name_ref` rather than hashing every name again. A file
//! whose stored hashes lie gets value targets named by its own hashes.
//!
//! `NumEntries` items are read; the payload's end bounds every read, so a bad
//! count can only make the walk fail, never run past the table.

use alloc::vec::Vec;

use super::decode_raw::{read_binary_ids, read_names, read_value_data};
use super::flags;
use super::indexed::{header_size, MAGIC, MAX_VERSION};
use super::model::{Function, Profile, Trace};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// A header offset and the position of the field holding it.
#[derive(Clone, Copy, Default)]
struct Offset {
    value: u64,
    field: u64,
}

/// A reader at a header offset, which must leave room for `min` bytes.
fn at<'a>(file: &Reader<'a>, o: Offset, min: u64, expected: &'static str) -> Result<Reader<'a>> {
    match o.value.checked_add(min) {
        Some(end) if end <= file.end_offset() => file.seek_clone(o.value, expected),
        _ => Err(Error::invalid(o.field, expected, o.value)),
    }
}

fn skip_summary(r: &mut Reader<'_>) -> Result<()> {
    let fields_at = r.offset();
    let fields = r.u64("NumSummaryFields")?;
    let entries = r.u64("NumCutoffEntries")?;
    let len = fields.checked_mul(8).and_then(|f| entries.checked_mul(24).and_then(|e| e.checked_add(f)));
    match len {
        Some(len) if len <= r.remaining() as u64 => r.skip(len, "summary"),
        _ => Err(Error::invalid(fields_at, "a summary that fits in the file", fields)),
    }
}

/// Reads one item's data: the records stored under `name`.
/// `name_ref` is the hash the table stores with the key (its MD5 hash).
fn read_records(mut d: Reader<'_>, name: &[u8], name_ref: u64, version: u64, profile: &mut Profile) -> Result<()> {
    let data_at = d.offset();
    let len = d.remaining() as u64;
    if len % 8 != 0 {
        return Err(Error::invalid(data_at, "record data length, a multiple of 8", len));
    }
    while !d.is_empty() {
        let hash = d.u64("FuncHash")?;
        let count_at = d.offset();
        let count = if version == 1 { (len / 8).saturating_sub(1) } else { d.u64("NumCounters")? };
        if count > d.remaining() as u64 / 8 {
            return Err(Error::invalid(count_at, "NumCounters that fit in the record", count));
        }
        let counters = d.bytes(count.saturating_mul(8), "counters")?;
        let counters = counters.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())).collect();
        let mut function = Function { name: name.to_vec(), name_ref, hash, counters, ..Function::default() };
        if version >= 11 {
            let bytes_at = d.offset();
            let n = d.u64("NumBitmapBytes")?;
            if n > d.remaining() as u64 / 8 {
                return Err(Error::invalid(bytes_at, "NumBitmapBytes that fit in the record", n));
            }
            function.bitmap.reserve(usize::try_from(n).unwrap_or(0));
            for _ in 0..n {
                // One u64 per byte; only the low byte is meaningful.
                function.bitmap.push(d.u64("bitmap byte")?.to_le_bytes()[0]);
            }
        }
        if version >= 3 {
            function.sites = read_value_data(&mut d, &|_, v| v)?;
        }
        profile.add(function);
    }
    Ok(())
}

pub fn decode(data: &[u8]) -> Result<Profile> {
    let file = Reader::new(data, Endian::Little);
    let mut r = file;
    let magic = r.u64("Magic")?;
    if magic != MAGIC {
        return Err(Error::invalid(0, "the indexed instrprof magic", magic));
    }
    let version_at = r.offset();
    let word = r.u64("Version")?;
    let version = word & 0xffff_ffff;
    if version == 0 || version > MAX_VERSION {
        return Err(Error::invalid(version_at, "indexed profile version 1 to 13", version));
    }
    r.u64("Unused")?;
    let hash_type_at = r.offset();
    let hash_type = r.u64("HashType")?;
    if hash_type != 0 {
        return Err(Error::invalid(hash_type_at, "HashType 0 (MD5)", hash_type));
    }
    let mut offsets = [Offset::default(); 5];
    let present = [true, version >= 8, version >= 9, version >= 10, version >= 12];
    for (o, &p) in offsets.iter_mut().zip(&present) {
        if p {
            o.field = r.offset();
            o.value = r.u64("section offset")?;
        }
    }
    let [hash, memprof, binary_ids, traces, vtable_names] = offsets;
    let mut r = file.seek_clone(header_size(version), "end of header")?;
    if version >= 4 {
        skip_summary(&mut r)?;
        if word & flags::CS_IR_PROF != 0 {
            skip_summary(&mut r)?;
        }
    }
    let mut profile = Profile::new(word, version);

    // The payload: from the end of the summaries to the bucket metadata.
    let payload_start = r.offset();
    let mut meta = at(&file, hash, 16, "HashOffset inside the file")?;
    if hash.value < payload_start {
        return Err(Error::invalid(hash.field, "HashOffset after the header and summaries", hash.value));
    }
    meta.u64("NumBuckets")?;
    let entries = meta.u64("NumEntries")?;
    let mut payload = file.sub_at(payload_start, hash.value.saturating_sub(payload_start), "hash table payload")?;
    let mut left = entries;
    while left > 0 {
        let bucket_at = payload.offset();
        let items = payload.u16("bucket item count")?;
        if u64::from(items) > left {
            return Err(Error::invalid(bucket_at, "no more items than NumEntries", u64::from(items)));
        }
        for _ in 0..items {
            let key_hash = payload.u64("key hash")?;
            let key_at = payload.offset();
            let key_len = payload.u64("key length")?;
            let data_len = payload.u64("data length")?;
            if key_len > payload.remaining() as u64 {
                return Err(Error::invalid(key_at, "key length inside the hash table", key_len));
            }
            let key = payload.bytes(key_len, "key")?;
            if data_len > payload.remaining() as u64 {
                return Err(Error::invalid(key_at.saturating_add(8), "data length inside the hash table", data_len));
            }
            let records = payload.sub(data_len, "records")?;
            read_records(records, key, key_hash, version, &mut profile)?;
        }
        left = left.saturating_sub(u64::from(items));
    }

    if version >= 8 && word & flags::MEMPROF != 0 {
        profile.memprof = Some(super::decode_memprof::decode_indexed(&file, memprof.value, memprof.field)?);
    }
    if version >= 9 && binary_ids.value != 0 {
        let mut b = at(&file, binary_ids, 8, "BinaryIdOffset inside the file")?;
        let size_at = b.offset();
        let size = b.u64("BinaryIdsSize")?;
        if size > b.remaining() as u64 {
            return Err(Error::invalid(size_at, "BinaryIdsSize that fits in the file", size));
        }
        read_binary_ids(b.sub(size, "binary ids")?, &mut profile.binary_ids)?;
    }
    if version >= 12 && vtable_names.value != 0 {
        let mut v = at(&file, vtable_names, 8, "VTableNamesOffset inside the file")?;
        let size_at = v.offset();
        let size = v.u64("vtable names length")?;
        if size > v.remaining() as u64 {
            return Err(Error::invalid(size_at, "vtable names length that fits in the file", size));
        }
        read_names(v.sub(size, "vtable names")?, &mut profile.vtable_names)?;
    }
    if version >= 10 && word & flags::TEMPORAL_PROF != 0 && traces.value != 0 {
        let mut t = at(&file, traces, 16, "TemporalProfTracesOffset inside the file")?;
        let count_at = t.offset();
        let count = t.u64("NumTraces")?;
        profile.trace_stream_size = t.u64("TraceStreamSize")?;
        if count > t.remaining() as u64 / 16 {
            return Err(Error::invalid(count_at, "NumTraces that fit in the file", count));
        }
        for _ in 0..count {
            let weight = t.u64("trace Weight")?;
            let n_at = t.offset();
            let n = t.u64("trace NumFunctions")?;
            if n > t.remaining() as u64 / 8 {
                return Err(Error::invalid(n_at, "NumFunctions that fit in the file", n));
            }
            let mut functions = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
            for _ in 0..n {
                functions.push(t.u64("trace NameRef")?);
            }
            profile.traces.push(Trace { weight, functions });
        }
    }
    profile.finish();
    Ok(profile)
}
