//! Decoding a BAT descriptor in either encoding, and telling which one it is.
//!
//! Neither encoding has a version field, and either can read a few bytes of the
//! other. What tells them apart is whether the whole descriptor decodes as BOLT's
//! writer would have produced it:
//!
//! * the two tables end exactly at the end of the descriptor;
//! * counts fit BOLT's 32-bit fields and the bytes that remain;
//! * function addresses rise within a table (BOLT writes them from a `std::map`);
//! * output offsets fit 32 bits and rise within a function: strictly in the older
//!   encoding (the keys of a `std::map`), or may repeat in the current one (a
//!   `std::multimap`, deleted blocks all at the function's end), and input values
//!   fit 32 bits;
//! * `EqualElems` is at most `NumEntries`, and the bitmask's bits past it are zero;
//! * a cold fragment's `HotIndex` names a hot function;
//! * a block index is below its function's `NumBlocks` (current encoding).
//!
//! The current encoding is tried first; if it breaks a rule, the older one is
//! tried; if both break one, the error is the one found further into the input.

use alloc::vec::Vec;

use super::{Bat, BlockInfo, Delta, Encoding, Entry, Function, SecondaryEntryPoint, Span, Spanned, Table};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// Decodes a note descriptor held in its own slice (offsets count from its start).
pub fn decode(note_desc: &[u8]) -> Result<Bat> {
    decode_at(note_desc, 0, note_desc.len() as u64)
}

/// Decodes the descriptor at absolute `offset` of `data`, `len` bytes long; spans
/// and errors are absolute offsets in `data`.
pub fn decode_at(data: &[u8], offset: u64, len: u64) -> Result<Bat> {
    let r = Reader::new(data, Endian::Little).sub_at(offset, len, "BAT descriptor inside the input")?;
    let current = Decoder::new(r, Encoding::Current).descriptor();
    let Err(current_error) = current else { return current };
    match Decoder::new(r, Encoding::Older).descriptor() {
        Ok(bat) => Ok(bat),
        Err(older_error) if older_error.offset() > current_error.offset() => Err(older_error),
        Err(_) => Err(current_error),
    }
}

/// The fewest bytes a table entry can take, to bound counts before reading them.
fn min_function_bytes(encoding: Encoding, cold: bool) -> u64 {
    match (encoding, cold) {
        // Address, FuncHash (8), NumBlocks, NumSecEntryPoints, NumEntries, EqualElems.
        (Encoding::Current, false) => 13,
        // Address, HotIndex, ColdInputSkew, NumEntries, EqualElems.
        (Encoding::Current, true) => 5,
        // Address, NumEntries, EqualElems / Address, HotIndex, NumEntries.
        (Encoding::Older, _) => 3,
    }
}

struct Decoder<'a> {
    r: Reader<'a>,
    encoding: Encoding,
    /// The running output address shared by both tables.
    address: u64,
}

/// The bits past `EqualElems` in the last bitmask byte must be clear.
fn padding_bits_clear(bitmask: &[u8], equal_elems: u64) -> bool {
    let used = equal_elems % 8;
    match bitmask.last() {
        Some(&last) if used != 0 => u64::from(last).checked_shr(u32::try_from(used).unwrap_or(0)).unwrap_or(0) == 0,
        _ => true,
    }
}

fn bit(bitmask: &[u8], j: u64) -> u64 {
    let byte = usize::try_from(j / 8).ok().and_then(|i| bitmask.get(i)).copied().unwrap_or(0);
    u64::from(byte).checked_shr(u32::try_from(j % 8).unwrap_or(0)).unwrap_or(0) & 1
}

impl<'a> Decoder<'a> {
    fn new(r: Reader<'a>, encoding: Encoding) -> Self {
        Decoder { r, encoding, address: 0 }
    }

    fn descriptor(mut self) -> Result<Bat> {
        let start = self.r.offset();
        let hot = self.table(None)?;
        let cold = self.table(Some(&hot))?;
        if !self.r.is_empty() {
            return Err(Error::malformed(self.r.offset(), "BAT tables end before the note descriptor does"));
        }
        Ok(Bat { encoding: self.encoding, span: Span { start, end: self.r.offset() }, hot, cold })
    }

    fn span_from(&self, start: u64) -> Span {
        Span { start, end: self.r.offset() }
    }

    fn uleb(&mut self, what: &'static str) -> Result<Spanned<u64>> {
        let start = self.r.offset();
        let value = self.r.uleb128(what)?;
        Ok(Spanned { span: self.span_from(start), value })
    }

    fn u64(&mut self, what: &'static str) -> Result<Spanned<u64>> {
        let start = self.r.offset();
        let value = self.r.u64(what)?;
        Ok(Spanned { span: self.span_from(start), value })
    }

    /// A count BOLT keeps in 32 bits, of items taking at least `min_bytes` each.
    fn count(&mut self, what: &'static str, min_bytes: u64) -> Result<Spanned<u64>> {
        let count = self.uleb(what)?;
        if count.value > u64::from(u32::MAX) {
            return Err(Error::invalid(count.span.start, "a count that fits in 32 bits", count.value));
        }
        let fits = (self.r.remaining() as u64).checked_div(min_bytes).unwrap_or(u64::MAX);
        if count.value > fits {
            return Err(Error::invalid(count.span.start, "a count the remaining bytes can hold", count.value));
        }
        Ok(count)
    }

    fn table(&mut self, hot: Option<&Table>) -> Result<Table> {
        let start = self.r.offset();
        let cold = hot.is_some();
        let count = self.count("NumFuncs", min_function_bytes(self.encoding, cold))?;
        let mut functions: Vec<Function> = Vec::new();
        let mut hot_index = 0u64;
        for _ in 0..count.value {
            let function = self.function(hot, &mut hot_index)?;
            if let Some(previous) = functions.last() {
                if function.address.value <= previous.address.value {
                    return Err(Error::invalid(
                        function.address.span.start,
                        "function addresses rising through the table",
                        function.address.value,
                    ));
                }
            }
            functions.push(function);
        }
        Ok(Table { span: self.span_from(start), count, functions })
    }

    fn function(&mut self, hot: Option<&Table>, hot_index: &mut u64) -> Result<Function> {
        let current = self.encoding == Encoding::Current;
        let start = self.r.offset();
        let delta = self.uleb("function address delta")?;
        self.address = self.address.wrapping_add(delta.value);
        let address = Delta { span: delta.span, delta: delta.value, value: self.address };

        let mut f = Function {
            span: Span::default(),
            address,
            hot_index: None,
            input_skew: None,
            hash: None,
            num_blocks: None,
            num_secondary_entry_points: None,
            num_entries: Spanned { span: Span::default(), value: 0 },
            equal_elems: None,
            branch_entries: None,
            entries: Vec::new(),
            secondary_entry_points: Vec::new(),
        };
        // The function whose NumBlocks bounds block indices (a fragment's parent).
        let mut num_blocks = None;
        match hot {
            Some(hot) => {
                let delta = self.uleb("HotIndex delta")?;
                // BOLT keeps the index in a size_t: a smaller index wraps around.
                *hot_index = hot_index.wrapping_add(delta.value);
                let parent = usize::try_from(*hot_index).ok().and_then(|i| hot.functions.get(i));
                let Some(parent) = parent else {
                    return Err(Error::invalid(
                        delta.span.start,
                        "HotIndex of a function in the hot table",
                        *hot_index,
                    ));
                };
                num_blocks = parent.num_blocks.map(|n| n.value);
                f.hot_index = Some(Delta { span: delta.span, delta: delta.value, value: *hot_index });
                if current {
                    f.input_skew = Some(self.uleb("ColdInputSkew")?);
                }
            }
            None if current => {
                f.hash = Some(self.u64("FuncHash")?);
                let blocks = self.uleb("NumBlocks")?;
                num_blocks = Some(blocks.value);
                f.num_blocks = Some(blocks);
                f.num_secondary_entry_points = Some(self.count("NumSecEntryPoints", 1)?);
            }
            None => {}
        }
        f.num_entries = self.count("NumEntries", 1)?;
        if current || hot.is_none() {
            let equal = self.uleb("EqualElems")?;
            if equal.value > f.num_entries.value {
                return Err(Error::invalid(equal.span.start, "EqualElems no larger than NumEntries", equal.value));
            }
            f.equal_elems = Some(equal);
        }
        let equal_elems = f.equal_elems.map_or(0, |e| e.value);
        let mut bitmask: &[u8] = &[];
        if equal_elems > 0 {
            let start = self.r.offset();
            bitmask = self.r.bytes(equal_elems.div_ceil(8), "BranchEntries bitmask")?;
            if !padding_bits_clear(bitmask, equal_elems) {
                return Err(Error::malformed(start, "BranchEntries bits past EqualElems are set"));
            }
            f.branch_entries = Some(self.span_from(start));
        }
        let skew = f.input_skew.map_or(0, |s| s.value);
        f.entries = self.entries(&f, bitmask, equal_elems, skew, num_blocks)?;

        if let Some(count) = f.num_secondary_entry_points {
            let mut offset = 0u32;
            for _ in 0..count.value {
                let delta = self.uleb("secondary entry point offset delta")?;
                // BOLT reads the delta into a uint32_t and sums in 32 bits.
                offset = offset.wrapping_add(u32::try_from(delta.value & u64::from(u32::MAX)).unwrap_or(0));
                f.secondary_entry_points.push(SecondaryEntryPoint { span: delta.span, delta: delta.value, offset });
            }
        }
        f.span = self.span_from(start);
        Ok(f)
    }

    fn entries(
        &mut self,
        f: &Function,
        bitmask: &[u8],
        equal_elems: u64,
        skew: u64,
        num_blocks: Option<u64>,
    ) -> Result<Vec<Entry>> {
        let current = self.encoding == Encoding::Current;
        let mut entries: Vec<Entry> = Vec::new();
        let mut input = 0u64;
        let mut block_index = 0u64;
        let leb_len = |span: Span| u8::try_from(span.len()).unwrap_or(u8::MAX);
        for j in 0..f.num_entries.value {
            let start = self.r.offset();
            let output = self.uleb("output address delta")?;
            self.address = self.address.wrapping_add(output.value);
            let output_offset = self.address.wrapping_sub(f.address.value);
            // The older writer keeps a function's entries in a std::map (one per output
            // offset), the current one in a std::multimap: input blocks BOLT deleted
            // all sit at the function's end offset.
            let in_order = entries.last().is_none_or(|e| match self.encoding {
                Encoding::Current => output_offset >= e.output_offset,
                Encoding::Older => output_offset > e.output_offset,
            });
            if output_offset > u64::from(u32::MAX) || !in_order {
                return Err(Error::invalid(
                    output.span.start,
                    "output offsets in order through the function within 32 bits",
                    output_offset,
                ));
            }
            let mut entry = Entry {
                start,
                output_delta: output.value,
                output_delta_len: leb_len(output.span),
                output_offset,
                input_delta: None,
                input_delta_len: 0,
                input: 0,
                block: None,
            };
            if j < equal_elems {
                input = output_offset.wrapping_add(skew).wrapping_shl(1) | bit(bitmask, j);
            } else {
                let at = self.r.offset();
                let delta = self.r.sleb128("input offset delta")?;
                input = input.wrapping_add(delta as u64);
                entry.input_delta = Some(delta);
                entry.input_delta_len = leb_len(self.span_from(at));
            }
            if input > u64::from(u32::MAX) {
                return Err(Error::invalid(start, "an input offset that fits in 31 bits", input >> 1));
            }
            entry.input = input;
            if current && input & super::BRANCHENTRY == 0 {
                let hash = self.u64("BBHash")?;
                let delta = self.uleb("BBIndex delta")?;
                block_index = block_index.wrapping_add(delta.value);
                if num_blocks.is_some_and(|n| block_index >= n) {
                    return Err(Error::invalid(delta.span.start, "a block index below NumBlocks", block_index));
                }
                entry.block = Some(BlockInfo {
                    hash: hash.value,
                    index_delta: delta.value,
                    index_delta_len: leb_len(delta.span),
                    index: block_index,
                });
            }
            entries.push(entry);
        }
        Ok(entries)
    }
}
