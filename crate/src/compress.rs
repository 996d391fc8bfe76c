//! Decompression the formats need: gzip (RFC 1952) or zstd (RFC 8878) around whole
//! files, zlib inside them.

use alloc::vec::Vec;

use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
/// A zstd frame's magic number, 0xFD2FB528 little-endian (RFC 8878 section 3.1.1).
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// Skippable frames' magic numbers are 0x184D2A50..=0x184D2A5F (RFC 8878 section 3.1.2).
const ZSTD_SKIPPABLE_MAGIC: u32 = 0x184d_2a50;
/// The largest window a whole-file zstd frame may ask for: `zstd --long` uses
/// 128 MiB; a larger one is refused before the decoder allocates it.
const ZSTD_MAX_WINDOW: u64 = 128 << 20;

/// Decompressed data may be at most this many times the compressed size (plus 1 MiB),
/// so a tiny "zip bomb" cannot make us allocate without bound. Real profiles compress
/// 5–30×; deflate's own maximum ratio is about 1032×.
pub const MAX_EXPANSION: usize = 1100;

pub fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&GZIP_MAGIC)
}

/// A file that starts with a zstd frame (a skippable frame first is not a profile).
pub fn is_zstd(data: &[u8]) -> bool {
    data.starts_with(&ZSTD_MAGIC)
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

/// Decompresses a zstd file (RFC 8878): all frames, skippable frames skipped,
/// checking each frame's stated content size and content checksum.
pub fn unzstd(file: &[u8]) -> Result<Vec<u8>> {
    let limit = limit_for(file.len());
    let mut out = Vec::new();
    let mut decoder = FrameDecoder::new();
    // A window larger than the allowed output could never be filled.
    decoder.set_max_window_size(ZSTD_MAX_WINDOW.min(limit as u64));
    let mut r = Reader::new(file, Endian::Little);
    while !r.is_empty() {
        let frame = r.offset();
        let mut header = r;
        let magic = header.u32("zstd magic number")?;
        if magic & !0xf == ZSTD_SKIPPABLE_MAGIC {
            let length = header.u32("zstd skippable frame size")?;
            header.skip(u64::from(length), "zstd skippable frame")?;
            r = header;
            continue;
        }
        if magic.to_le_bytes() != ZSTD_MAGIC {
            return Err(Error::malformed(frame, "expected another zstd frame or end of file"));
        }
        let descriptor = header.u8("zstd frame header descriptor")?;
        if descriptor & 0x08 != 0 {
            return Err(Error::malformed(
                frame.saturating_add(4),
                "zstd frame header descriptor with its reserved bit set",
            ));
        }
        let mut input = r.rest();
        let at = |input: &[u8]| file.len().saturating_sub(input.len()) as u64;
        decoder.reset(&mut input).map_err(|_| {
            Error::malformed(
                frame,
                "a zstd frame header (no dictionary; a window of at most 128 MiB that the file size allows)",
            )
        })?;
        let before = out.len();
        loop {
            let block = at(input);
            let done = decoder
                .decode_blocks(&mut input, BlockDecodingStrategy::UptoBlocks(1))
                .map_err(|_| Error::malformed(block, "a complete, valid zstd block"))?;
            if out.len().saturating_add(decoder.can_collect()) > limit {
                return Err(Error::malformed(block, "compressed data expands beyond the allowed size"));
            }
            decoder.collect_to_writer(&mut out).map_err(|_| Error::malformed(block, "zstd output"))?;
            if done {
                break;
            }
            if at(input) == block {
                return Err(Error::malformed(block, "zstd blocks that make progress"));
            }
        }
        let end = at(input);
        let produced = out.get(before..).unwrap_or(&[]);
        // The content size is stated when its flag is set or the frame is a single segment.
        if descriptor >> 6 != 0 || descriptor & 0x20 != 0 {
            let stated = decoder.content_size();
            if produced.len() as u64 != stated {
                return Err(Error::invalid(
                    frame,
                    "a zstd frame as large as its stated content size",
                    produced.len() as u64,
                ));
            }
        }
        if let Some(stated) = decoder.get_checksum_from_data() {
            // The checksum is the low 32 bits of XXH64 (seed 0) of the frame's content.
            let computed = (xxhash_rust::xxh64::xxh64(produced, 0) & 0xffff_ffff) as u32;
            if computed != stated {
                return Err(Error::invalid(
                    end.saturating_sub(4),
                    "the zstd content checksum of the decoded frame",
                    u64::from(stated),
                ));
            }
        }
        r.skip(end.saturating_sub(frame), "zstd frame")?;
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
