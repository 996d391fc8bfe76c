//! The shared bounds-checked readers: [`Reader`] for binary input, [`Lines`] for text.
//!
//! A `Reader` always knows the absolute offset of its next byte, so every error it
//! returns says where the input fell short. No method can panic, and a failed read
//! empties the reader, so a caller that ignores an error cannot go on reading
//! misaligned garbage.

mod lines;
mod text;

pub use lines::{Line, Lines};
pub use text::{fields, head_lines, is_decimal, is_hex, looks_like_text};

/// Bytes in lower-case hex, two digits each: how build ids and digests are written.
pub fn hex_string(bytes: &[u8]) -> alloc::string::String {
    use core::fmt::Write;
    let mut out = alloc::string::String::with_capacity(bytes.len().saturating_mul(2));
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Asks the processor to bring the cache line `ahead` bytes past the start of
/// `bytes` closer, without waiting for it: for a loop that reads two streams the
/// hardware's prefetcher does not follow far enough (the fdata merge reads each
/// line of an input beside the text of the same line in another, and stalled on
/// both). The address is only computed, never read, so it may lie past the end.
/// Nothing where there is no such instruction (wasm).
#[inline(always)]
pub fn prefetch(bytes: &[u8], ahead: usize) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: the intrinsic asks for SSE, which every x86_64 processor has; a
    // prefetch is a hint that reads nothing into the program and cannot fault on
    // any address, and the pointer is made with wrapping arithmetic.
    #[allow(unsafe_code)]
    unsafe {
        use core::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(bytes.as_ptr().wrapping_add(ahead).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (bytes, ahead);
}

use crate::error::{Error, Result};

/// Byte order of multi-byte integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    pub fn name(self) -> &'static str {
        match self {
            Endian::Little => "little-endian",
            Endian::Big => "big-endian",
        }
    }
}

/// A cursor over a byte slice that remembers its absolute position in the input.
#[derive(Clone, Copy, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute offset of `data[0]` in the whole input.
    base: u64,
    endian: Endian,
}

fn to_u64(n: usize) -> u64 {
    // usize is at most 64 bits on every target we build for.
    n as u64
}

impl<'a> Reader<'a> {
    pub fn new(data: &'a [u8], endian: Endian) -> Self {
        Reader { data, pos: 0, base: 0, endian }
    }

    /// A reader over bytes that lie at absolute offset `base` of the input (a piece
    /// of it read apart), so that its offsets and errors are the input's.
    pub fn at_base(data: &'a [u8], endian: Endian, base: u64) -> Self {
        Reader { data, pos: 0, base, endian }
    }

    pub fn endian(&self) -> Endian {
        self.endian
    }

    pub fn set_endian(&mut self, endian: Endian) {
        self.endian = endian;
    }

    /// Absolute offset of the next byte.
    #[inline]
    pub fn offset(&self) -> u64 {
        self.base.saturating_add(to_u64(self.pos))
    }

    /// Absolute offset one past the last byte this reader may read.
    pub fn end_offset(&self) -> u64 {
        self.base.saturating_add(to_u64(self.data.len()))
    }

    #[inline]
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// Whether `count` items of `size` bytes each fit in what is left: the check
    /// before a count read from the input is trusted (to make room, or to loop).
    #[inline]
    pub fn holds(&self, count: u64, size: u64) -> bool {
        count.saturating_mul(size) <= to_u64(self.remaining())
    }

    /// The unread bytes.
    #[inline]
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    // Every read is bounds-checked, and the reads of a record's fields are the
    // decoders' inner loops: the check stays inline (the wasm build is made for size,
    // and would otherwise call out for each field) and the failure out of line.
    #[cold]
    #[inline(never)]
    fn fail<T>(&mut self, expected: &'static str) -> Result<T> {
        let offset = self.offset();
        self.pos = self.data.len();
        Err(Error::eof(offset, expected))
    }

    /// Takes the next `len` bytes.
    #[inline]
    pub fn bytes(&mut self, len: u64, expected: &'static str) -> Result<&'a [u8]> {
        let end = usize::try_from(len).ok().and_then(|n| self.pos.checked_add(n));
        match end.and_then(|end| Some((end, self.data.get(self.pos..end)?))) {
            Some((end, slice)) => {
                self.pos = end;
                Ok(slice)
            }
            None => self.fail(expected),
        }
    }

    #[inline]
    pub fn array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N]> {
        match self.data.get(self.pos..).and_then(<[u8]>::first_chunk::<N>) {
            Some(&array) => {
                self.pos = self.pos.saturating_add(N);
                Ok(array)
            }
            None => self.fail(expected),
        }
    }

    pub fn skip(&mut self, len: u64, expected: &'static str) -> Result<()> {
        self.bytes(len, expected).map(|_| ())
    }

    /// A reader over the next `len` bytes, keeping absolute offsets; `self` moves past them.
    #[inline]
    pub fn sub(&mut self, len: u64, expected: &'static str) -> Result<Reader<'a>> {
        let base = self.offset();
        let data = self.bytes(len, expected)?;
        Ok(Reader { data, pos: 0, base, endian: self.endian })
    }

    /// A reader over `len` bytes at absolute `offset`, which must lie within this reader.
    pub fn sub_at(&self, offset: u64, len: u64, expected: &'static str) -> Result<Reader<'a>> {
        let mut at = self.seek_clone(offset, expected)?;
        at.sub(len, expected)
    }

    /// A copy of this reader positioned at absolute `offset`.
    pub fn seek_clone(&self, offset: u64, expected: &'static str) -> Result<Reader<'a>> {
        let relative = offset.checked_sub(self.base).and_then(|r| usize::try_from(r).ok());
        match relative {
            Some(pos) if pos <= self.data.len() => Ok(Reader { pos, ..*self }),
            _ => Err(Error::invalid(self.offset(), expected, offset)),
        }
    }

    #[inline]
    pub fn u8(&mut self, expected: &'static str) -> Result<u8> {
        Ok(self.array::<1>(expected)?[0])
    }

    #[inline]
    pub fn u16(&mut self, expected: &'static str) -> Result<u16> {
        let b = self.array(expected)?;
        Ok(match self.endian {
            Endian::Little => u16::from_le_bytes(b),
            Endian::Big => u16::from_be_bytes(b),
        })
    }

    #[inline]
    pub fn u32(&mut self, expected: &'static str) -> Result<u32> {
        let b = self.array(expected)?;
        Ok(match self.endian {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        })
    }

    #[inline]
    pub fn u64(&mut self, expected: &'static str) -> Result<u64> {
        let b = self.array(expected)?;
        Ok(match self.endian {
            Endian::Little => u64::from_le_bytes(b),
            Endian::Big => u64::from_be_bytes(b),
        })
    }

    #[inline]
    pub fn i32(&mut self, expected: &'static str) -> Result<i32> {
        self.u32(expected).map(|v| v as i32)
    }

    #[inline]
    pub fn i64(&mut self, expected: &'static str) -> Result<i64> {
        self.u64(expected).map(|v| v as i64)
    }

    /// An unsigned integer of `width` bytes (1 to 8) in the reader's byte order,
    /// e.g. the 56-bit section count of the AutoFDO v4 header.
    pub fn uint(&mut self, width: usize, expected: &'static str) -> Result<u64> {
        if width == 0 || width > 8 {
            return Err(Error::invalid(self.offset(), "integer width of 1 to 8 bytes", to_u64(width)));
        }
        let bytes = self.bytes(to_u64(width), expected)?;
        let mut value = 0u64;
        match self.endian {
            Endian::Big => bytes.iter().for_each(|&b| value = (value << 8) | u64::from(b)),
            Endian::Little => bytes.iter().rev().for_each(|&b| value = (value << 8) | u64::from(b)),
        }
        Ok(value)
    }

    /// Unsigned LEB128, at most 10 bytes, rejecting bits beyond 64.
    /// This is also the protocol-buffers varint.
    pub fn uleb128(&mut self, expected: &'static str) -> Result<u64> {
        let start = self.offset();
        let mut value = 0u64;
        for shift in (0..70).step_by(7) {
            let byte = self.u8(expected)?;
            let low = u64::from(byte & 0x7f);
            if shift == 63 && low > 1 {
                return Err(Error::invalid(start, "LEB128 value that fits in 64 bits", low));
            }
            value |= low.checked_shl(shift).unwrap_or(0);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Error::malformed(start, "LEB128 value longer than 10 bytes"))
    }

    /// Signed LEB128, at most 10 bytes.
    pub fn sleb128(&mut self, expected: &'static str) -> Result<i64> {
        let start = self.offset();
        let mut value = 0i64;
        let mut shift = 0u32;
        loop {
            let byte = self.u8(expected)?;
            if shift >= 64 {
                return Err(Error::malformed(start, "LEB128 value longer than 10 bytes"));
            }
            value |= i64::from(byte & 0x7f).checked_shl(shift).unwrap_or(0);
            shift = shift.saturating_add(7);
            if byte & 0x80 == 0 {
                if shift < 64 && byte & 0x40 != 0 {
                    value |= (-1i64).checked_shl(shift).unwrap_or(0);
                }
                return Ok(value);
            }
        }
    }

    /// A NUL-terminated string; the NUL is consumed but not returned.
    pub fn cstr(&mut self, expected: &'static str) -> Result<&'a [u8]> {
        let rest = self.rest();
        match rest.iter().position(|&b| b == 0) {
            Some(len) => {
                let s = self.bytes(to_u64(len), expected)?;
                self.skip(1, expected)?;
                Ok(s)
            }
            None => self.fail(expected),
        }
    }

    /// Skips zero bytes up to the next multiple of `align` (absolute).
    pub fn align(&mut self, align: u64, expected: &'static str) -> Result<()> {
        let misalign = match self.offset().checked_rem(align) {
            Some(m) if m != 0 => align.saturating_sub(m),
            _ => 0,
        };
        self.skip(misalign, expected)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_in_both_byte_orders() {
        let data = [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08];
        let mut le = Reader::new(&data, Endian::Little);
        assert_eq!(le.u16("a").ok(), Some(0x0201));
        assert_eq!(le.u16("b").ok(), Some(0x0403));
        assert_eq!(le.u32("c").ok(), Some(0x0807_0605));
        let mut be = Reader::new(&data, Endian::Big);
        assert_eq!(be.u64("d").ok(), Some(0x0102_0304_0506_0708));
        let mut be = Reader::new(&data, Endian::Big);
        // 7-byte big-endian field (AutoFDO v4 GCOV_NUM_SECTIONS)
        assert_eq!(be.uint(7, "e").ok(), Some(0x01_0203_0405_0607));
    }

    #[test]
    fn short_read_reports_offset_and_empties_reader() {
        let data = [0u8; 5];
        let mut r = Reader::new(&data, Endian::Little);
        r.u32("first").ok();
        let err = r.u32("NumCounters").err();
        assert_eq!(err, Some(Error::eof(4, "NumCounters")));
        assert!(r.is_empty());
        assert_eq!(
            err.map(|e| alloc::format!("{e}")).unwrap_or_default(),
            "expected NumCounters, found end of input (at offset 0x4)"
        );
    }

    #[test]
    fn leb128() {
        // 624485 is the LEB128 example from the DWARF spec: e5 8e 26
        let mut r = Reader::new(&[0xe5, 0x8e, 0x26, 0x7f, 0x80, 0x7f], Endian::Little);
        assert_eq!(r.uleb128("u").ok(), Some(624_485));
        assert_eq!(r.sleb128("s").ok(), Some(-1));
        assert_eq!(r.sleb128("s").ok(), Some(-128));
        // 11 continuation bytes: too long
        let long = [0xffu8; 11];
        assert!(Reader::new(&long, Endian::Little).uleb128("x").is_err());
        // u64::MAX is ten bytes ending in 0x01; 0x02 in the last byte overflows
        let mut max = [0xffu8; 10];
        max[9] = 0x01;
        assert_eq!(Reader::new(&max, Endian::Little).uleb128("x").ok(), Some(u64::MAX));
        max[9] = 0x02;
        assert!(Reader::new(&max, Endian::Little).uleb128("x").is_err());
        // The LLVM sample-profile ext-binary magic as it appears on disk
        let magic = [0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53];
        assert_eq!(Reader::new(&magic, Endian::Little).uleb128("m").ok(), Some(0x5350_524f_4634_3204));
    }

    #[test]
    fn sub_readers_keep_absolute_offsets() {
        let data = [0u8, 1, 2, 3, 4, 5, 6, 7];
        let mut r = Reader::new(&data, Endian::Little);
        r.skip(2, "x").ok();
        let mut sub = r.sub(4, "sub").unwrap_or(Reader::new(&[], Endian::Little));
        assert_eq!(sub.offset(), 2);
        assert_eq!(sub.u8("y").ok(), Some(2));
        assert_eq!(sub.end_offset(), 6);
        assert_eq!(sub.u32("past end").err().and_then(|e| e.offset()), Some(3));
        assert_eq!(r.offset(), 6);
        let at = r.sub_at(1, 2, "z").map(|s| s.rest());
        assert_eq!(at.ok(), Some(&[1u8, 2][..]));
        assert!(r.sub_at(7, 2, "z").is_err());
        let mut c = Reader::new(b"ab\0cd", Endian::Little);
        assert_eq!(c.cstr("s").ok(), Some(&b"ab"[..]));
        assert!(c.cstr("s").is_err());
    }
}
