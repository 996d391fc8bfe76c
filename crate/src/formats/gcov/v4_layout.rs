//! The on-disk vocabulary of AutoFDO GCOV v4 (the 2026 proposal, `shared/seeds/004_*.txt`
//! section 4, with the readings of `docs/gcov-v4.md`), shared by the reader, the dump
//! and the writer: magic, type codes, field widths, and the one rule for reading and
//! writing an integer field in either encoding.
//!
//! A field has a normal width (1 to 8 bytes, big-endian). In a compact section every
//! field wider than one byte is a protobuf varint instead (7 bits a byte, low group
//! first), and a varint that does not fit the field's normal width is an error, so a
//! value means the same thing in both encodings.

use alloc::vec::Vec;
use core::fmt::Display;

use crate::error::{Error, Result};
use crate::formats::sample::model::Profile;
use crate::read::Reader;
use crate::summary::Summary;

/// A decoded v4 file: the profile, and the summary the file stored (the model has
/// no place for it).
#[derive(Clone, Debug, Default)]
pub struct Decoded {
    pub profile: Profile,
    pub summary: Summary,
}

pub const MAGIC: &[u8; 4] = b"gcov";
pub const VERSION: u32 = 4;
/// Bit 7 of the header bitmask and of every section bitmask.
pub const COMPACT: u8 = 0x80;
/// Bits 0–6 of a section bitmask.
pub const TYPE_MASK: u8 = 0x7f;

/// A section type (bits 0–6 of `GCOV_SECTION_BITMASK`); unknown values are kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SectionType(pub u8);

impl SectionType {
    pub const STRING_TABLE: SectionType = SectionType(1);
    pub const SUMMARY_INFO: SectionType = SectionType(2);
    pub const FILE_NAMES: SectionType = SectionType(3);
    pub const SYMBOL_NAMES: SectionType = SectionType(4);
    pub const SYMBOL_INFO: SectionType = SectionType(5);

    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            SectionType::STRING_TABLE => "GCOV_STRING_TABLE",
            SectionType::SUMMARY_INFO => "GCOV_SUMMARY_INFO",
            SectionType::FILE_NAMES => "GCOV_FILE_NAMES",
            SectionType::SYMBOL_NAMES => "GCOV_SYMBOL_NAMES",
            SectionType::SYMBOL_INFO => "GCOV_SYMBOL_INFO",
            _ => return None,
        })
    }
}

/// A location type (bits 0–6 of `LOCATION_BITMASK`); unknown values are skipped by
/// their `LOCATION_TRAILING_SIZE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocationType(pub u8);

impl LocationType {
    pub const ZERO: LocationType = LocationType(1);
    pub const NORMAL: LocationType = LocationType(2);
    pub const WIDE: LocationType = LocationType(3);
    pub const CALLED_FN: LocationType = LocationType(4);
    pub const CALLED_FNS: LocationType = LocationType(5);
    pub const INLINED_FN: LocationType = LocationType(6);

    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            LocationType::ZERO => "LOCATION_ZERO",
            LocationType::NORMAL => "LOCATION_NORMAL",
            LocationType::WIDE => "LOCATION_WIDE",
            LocationType::CALLED_FN => "LOCATION_CALLED_FN",
            LocationType::CALLED_FNS => "LOCATION_CALLED_FNS",
            LocationType::INLINED_FN => "LOCATION_INLINED_FN",
            _ => return None,
        })
    }
}

/// Bit 7 of `LOCATION_BITMASK`: a 2-byte discriminator follows the line offset.
pub const HAS_DISCRIMINATOR: u8 = 0x80;
/// Bit 7 of `TRIE_NODE_BITMASK`: a string ends at this node.
pub const TERMINAL: u8 = 0x80;
/// Bits 0–6 of `TRIE_NODE_BITMASK`: how many children follow.
pub const MAX_CHILDREN: u8 = 0x7f;
/// `SYMBOL_INFO_SECTION_INDEX` of a symbol without a top-level body.
pub const NO_SYMBOL_INFO: u32 = 0xFFFF_FFFF;
/// Section indices count the two fixed sections first.
pub const SUMMARY_INDEX: u64 = 0;
pub const FILE_NAMES_INDEX: u64 = 1;
pub const FIRST_TABLE_INDEX: u64 = 2;

/// Widths (bytes) of the fields that are not 4 bytes wide.
pub const NUM_SECTIONS_WIDTH: u8 = 7;
pub const LINE_WIDTH: u8 = 3;
pub const DISCRIMINATOR_WIDTH: u8 = 2;
pub const LABEL_LENGTH_WIDTH: u8 = 2;
pub const MAX_LINE: u32 = 0x00FF_FFFF;
pub const MAX_DISCRIMINATOR: u32 = 0xFFFF;
pub const MAX_LABEL: usize = 0xFFFF;

/// The largest value of a field `width` bytes wide (1 to 8).
pub fn max_of(width: u8) -> u64 {
    match 64u32.checked_sub(u32::from(width).saturating_mul(8)) {
        Some(free) => u64::MAX.checked_shr(free).unwrap_or(0),
        None => u64::MAX,
    }
}

/// How many varint bytes a field of `width` bytes may take: ⌈8·width / 7⌉.
fn max_varint_len(width: u8) -> u64 {
    u64::from(width).saturating_mul(8).saturating_add(6) / 7
}

/// Reads an integer field `width` bytes wide: big-endian, or a varint when `compact`.
pub fn int(r: &mut Reader<'_>, width: u8, compact: bool, label: &'static str) -> Result<u64> {
    if !compact {
        return r.uint(usize::from(width), label);
    }
    let start = r.offset();
    let max = max_of(width);
    let mut value = 0u64;
    for shift in (0..max_varint_len(width).saturating_mul(7)).step_by(7) {
        let byte = r.u8(label)?;
        let low = u64::from(byte & 0x7f);
        let shifted = low.checked_shl(u32::try_from(shift).unwrap_or(u32::MAX)).unwrap_or(0);
        // Bits that fall off the top, or land above the field's width, overflow it.
        if shifted.checked_shr(u32::try_from(shift).unwrap_or(u32::MAX)).unwrap_or(0) != low || shifted > max {
            return Err(Error::invalid(start, "varint that fits its field's width", u64::from(width)));
        }
        value |= shifted;
        if value > max {
            return Err(Error::invalid(start, "varint that fits its field's width", u64::from(width)));
        }
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(Error::invalid(start, "varint no longer than its field allows", u64::from(width)))
}

/// Appends `value` as a field `width` bytes wide: big-endian, or a varint when `compact`.
/// `value` must fit the width; callers clamp or drop what does not.
pub fn put_int(out: &mut Vec<u8>, width: u8, compact: bool, value: u64) {
    if compact {
        put_varint(out, value);
    } else {
        let bytes = value.to_be_bytes();
        let skip = 8usize.saturating_sub(usize::from(width));
        out.extend_from_slice(bytes.get(skip..).unwrap_or(&bytes));
    }
}

pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    loop {
        let low = (value & 0x7f) as u8;
        value >>= 7;
        if value == 0 {
            out.push(low);
            return;
        }
        out.push(low | 0x80);
    }
}

/// How many bytes [`put_int`] writes.
pub fn int_len(width: u8, compact: bool, value: u64) -> u64 {
    if compact {
        let bits = 64u32.saturating_sub(value.leading_zeros()).max(1);
        u64::from(bits.div_ceil(7))
    } else {
        u64::from(width)
    }
}

/// Where the walk over a v4 file reports what it read. The decoder passes
/// [`NoDump`], which compiles to nothing; the dump passes a tree builder, so the
/// dump and the model come from the same pass over the bytes.
pub trait Sink {
    /// One field: its span and value.
    fn field(&mut self, label: &'static str, start: u64, end: u64, value: impl Display);
    /// Starts a group: the fields until the matching [`Sink::close`] are its children.
    fn open(&mut self);
    fn close(&mut self, label: &'static str, start: u64, end: u64, value: impl Display);
    /// Whether anything is recorded (lets callers skip work only a dump needs).
    fn recording(&self) -> bool;
    /// Section `index`'s data spans `start..end` and is read next. A sink may
    /// record it as one node whose children are built on demand, and ignore the
    /// fields until [`Sink::end_data`].
    fn begin_data(&mut self, start: u64, end: u64, index: u64);
    fn end_data(&mut self);
}

/// The sink of plain decoding: records nothing.
pub struct NoDump;

impl Sink for NoDump {
    #[inline(always)]
    fn field(&mut self, _: &'static str, _: u64, _: u64, _: impl Display) {}
    #[inline(always)]
    fn open(&mut self) {}
    #[inline(always)]
    fn close(&mut self, _: &'static str, _: u64, _: u64, _: impl Display) {}
    #[inline(always)]
    fn recording(&self) -> bool {
        false
    }
    #[inline(always)]
    fn begin_data(&mut self, _: u64, _: u64, _: u64) {}
    #[inline(always)]
    fn end_data(&mut self) {}
}

/// Reads an integer field and reports it to `sink`.
pub fn field<S: Sink>(r: &mut Reader<'_>, sink: &mut S, width: u8, compact: bool, label: &'static str) -> Result<u64> {
    let start = r.offset();
    let v = int(r, width, compact, label)?;
    sink.field(label, start, r.offset(), v);
    Ok(v)
}

/// Reads a count [`field`] of items that take at least `min` bytes each (`min.0`
/// in the normal encoding, `min.1` as varints) and checks it against what `r` has
/// left before it is trusted: else an error at the count, `expected` saying what.
pub fn count_field<S: Sink>(
    r: &mut Reader<'_>,
    sink: &mut S,
    (width, compact): (u8, bool),
    label: &'static str,
    min: (u64, u64),
    expected: &'static str,
) -> Result<u64> {
    let at = r.offset();
    let count = field(r, sink, width, compact, label)?;
    if !r.holds(count, if compact { min.1 } else { min.0 }) {
        return Err(Error::invalid(at, expected, count));
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::Endian;

    #[test]
    fn normal_fields_are_big_endian_of_their_width() {
        // 3-byte line offset 0x010203, then a 2-byte discriminator 0x0405
        let data = [0x01, 0x02, 0x03, 0x04, 0x05];
        let mut r = Reader::new(&data, Endian::Big);
        assert_eq!(int(&mut r, 3, false, "line").ok(), Some(0x01_0203));
        assert_eq!(int(&mut r, 2, false, "disc").ok(), Some(0x0405));
        let mut out = Vec::new();
        put_int(&mut out, 3, false, 0x01_0203);
        put_int(&mut out, 2, false, 0x0405);
        assert_eq!(out, data);
    }

    #[test]
    fn compact_fields_are_varints_bounded_by_their_width() {
        // 300 = 0xac 0x02 (protobuf's own example)
        let mut out = Vec::new();
        put_int(&mut out, 4, true, 300);
        assert_eq!(out, [0xac, 0x02]);
        assert_eq!(int(&mut Reader::new(&out, Endian::Big), 4, true, "x").ok(), Some(300));
        assert_eq!(int_len(4, true, 300), 2);
        assert_eq!(int_len(4, true, 0), 1);
        // 0xffff fits a 2-byte field (3 varint bytes); 0x10000 does not
        assert_eq!(int(&mut Reader::new(&[0xff, 0xff, 0x03], Endian::Big), 2, true, "d").ok(), Some(0xffff));
        let err = int(&mut Reader::new(&[0x80, 0x80, 0x04], Endian::Big), 2, true, "d").err();
        assert_eq!(err.and_then(|e| e.offset()), Some(0));
        // a 4th byte for a 2-byte field is too long even if the value is small
        assert!(int(&mut Reader::new(&[0x81, 0x80, 0x80, 0x00], Endian::Big), 2, true, "d").is_err());
        // u64::MAX in ten bytes; an eleventh continuation is an error
        let mut max = Vec::new();
        put_varint(&mut max, u64::MAX);
        assert_eq!(max.len(), 10);
        assert_eq!(int(&mut Reader::new(&max, Endian::Big), 8, true, "c").ok(), Some(u64::MAX));
        let mut over = max.clone();
        over[9] = 0x02;
        assert!(int(&mut Reader::new(&over, Endian::Big), 8, true, "c").is_err());
        assert_eq!(max_of(7), (1 << 56) - 1);
        assert_eq!(max_of(8), u64::MAX);
    }
}
