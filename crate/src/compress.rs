//! Decompression the formats need: gzip around whole files, zlib inside them.

use alloc::vec::Vec;

use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// Decompressed data may be at most this many times the compressed size (plus 1 MiB),
/// so a tiny "zip bomb" cannot make us allocate without bound. Real profiles compress
/// 5–30×; deflate's own maximum ratio is about 1032×.
pub const MAX_EXPANSION: usize = 1100;

pub fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&GZIP_MAGIC)
}

fn limit_for(compressed: usize) -> usize {
    compressed.saturating_mul(MAX_EXPANSION).saturating_add(1 << 20)
}

/// Decompresses a gzip file (RFC 1952), all members, checking sizes.
pub fn gunzip(file: &[u8]) -> Result<Vec<u8>> {
    let mut r = Reader::new(file, Endian::Little);
    let mut out = Vec::new();
    while !r.is_empty() {
        let member = r.offset();
        if r.array::<2>("gzip magic")? != GZIP_MAGIC {
            return Err(Error::malformed(member, "expected another gzip member or end of file"));
        }
        let method = r.u8("gzip compression method")?;
        if method != 8 {
            return Err(Error::invalid(member.saturating_add(2), "gzip method 8 (deflate)", u64::from(method)));
        }
        let flags = r.u8("gzip flags")?;
        r.skip(6, "gzip mtime, xfl and os")?;
        if flags & 0x04 != 0 {
            let xlen = r.u16("gzip extra length")?;
            r.skip(u64::from(xlen), "gzip extra field")?;
        }
        if flags & 0x08 != 0 {
            r.cstr("gzip file name")?;
        }
        if flags & 0x10 != 0 {
            r.cstr("gzip comment")?;
        }
        if flags & 0x02 != 0 {
            r.skip(2, "gzip header CRC")?;
        }
        let start = r.offset();
        let before = out.len();
        let consumed = inflate_into(r.rest(), &mut out, limit_for(file.len()), start, false)?;
        r.skip(consumed as u64, "deflate stream")?;
        let _crc = r.u32("gzip CRC-32")?;
        let isize = r.u32("gzip ISIZE")?;
        let produced = out.len().saturating_sub(before);
        // ISIZE is the inflated size modulo 2^32.
        if produced as u64 & 0xffff_ffff != u64::from(isize) {
            return Err(Error::invalid(
                r.offset().saturating_sub(4),
                "gzip ISIZE equal to the inflated size",
                u64::from(isize),
            ));
        }
        // Trailing zero padding after the last member is common (tape-era habit).
        if r.rest().iter().all(|&b| b == 0) {
            break;
        }
    }
    Ok(out)
}

/// Inflates a zlib stream (RFC 1950) that must produce exactly `expected_len` bytes,
/// as in LLVM's compressed name chunks and sample-profile sections.
pub fn inflate_zlib(data: &[u8], expected_len: usize, offset: u64) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    let limit = expected_len.min(limit_for(data.len()));
    inflate_into(data, &mut out, limit, offset, true)?;
    if out.len() != expected_len {
        return Err(Error::invalid(offset, "zlib data of the stated uncompressed size", out.len() as u64));
    }
    Ok(out)
}

/// Appends the inflation of `data` to `out`, never growing it past `limit` bytes in
/// total. Returns how many input bytes the stream used.
fn inflate_into(data: &[u8], out: &mut Vec<u8>, limit: usize, offset: u64, zlib: bool) -> Result<usize> {
    use miniz_oxide::inflate::core::inflate_flags::{
        TINFL_FLAG_HAS_MORE_INPUT, TINFL_FLAG_PARSE_ZLIB_HEADER, TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
    };
    use miniz_oxide::inflate::core::{decompress, DecompressorOxide};
    use miniz_oxide::inflate::TINFLStatus;

    let mut state = alloc::boxed::Box::<DecompressorOxide>::default();
    let mut flags = TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF | TINFL_FLAG_HAS_MORE_INPUT;
    if zlib {
        flags |= TINFL_FLAG_PARSE_ZLIB_HEADER;
    }
    let mut in_pos = 0usize;
    let mut out_pos = out.len();
    loop {
        // Grow geometrically, but never beyond the limit.
        let want = out.len().saturating_mul(2).max(out_pos.saturating_add(64 * 1024)).min(limit.max(out_pos));
        if want > out.len() {
            out.resize(want, 0);
        }
        let input = data.get(in_pos..).unwrap_or(&[]);
        let (status, used_in, used_out) = decompress(&mut state, input, out, out_pos, flags);
        in_pos = in_pos.saturating_add(used_in);
        out_pos = out_pos.saturating_add(used_out);
        match status {
            TINFLStatus::Done => {
                out.truncate(out_pos);
                return Ok(in_pos);
            }
            TINFLStatus::HasMoreOutput => {
                if out_pos >= limit {
                    return Err(Error::malformed(offset, "compressed data expands beyond the allowed size"));
                }
            }
            TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                return Err(Error::eof(offset.saturating_add(in_pos as u64), "the rest of the compressed stream"));
            }
            _ => return Err(Error::malformed(offset.saturating_add(in_pos as u64), "corrupt deflate data")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // `printf 'hello\n' | gzip -n | xxd -i`
    const HELLO_GZ: [u8; 26] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0x00,
        0x20, 0x30, 0x3a, 0x36, 0x06, 0x00, 0x00, 0x00,
    ];

    #[test]
    fn gunzip_small_file() {
        assert_eq!(gunzip(&HELLO_GZ).ok(), Some(b"hello\n".to_vec()));
        for cut in 1..HELLO_GZ.len() {
            assert!(gunzip(&HELLO_GZ[..cut]).is_err(), "cut at {cut}");
        }
        let mut bad = HELLO_GZ;
        bad[22] = 9; // ISIZE
        assert!(gunzip(&bad).is_err());
    }
}
