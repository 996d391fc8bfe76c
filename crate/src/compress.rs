//! Decompression the formats need: gzip (RFC 1952) or zstd (RFC 8878) around whole
//! files, zlib inside them.

use alloc::vec::Vec;

use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use crate::error::{Error, ErrorKind, Result};
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
/// so a small "zip bomb" cannot make us allocate without bound. Real profiles
/// compress 3–30× (the corpus's text profiles 2–5×, large perf.data files about
/// 10×); deflate reaches about 1032× on runs of one byte, which is what a bomb is
/// made of: 256× refuses those (a 971 KB gzip of 1 GB of zeros) and no profile.
pub const MAX_EXPANSION: usize = 256;

/// And at most 4 GiB, whatever the file's size: wasm32's whole address space, and
/// far beyond any profile a viewer is asked to hold decompressed.
pub const MAX_DECOMPRESSED: u64 = 4 << 30;

/// How much of a compressed file detection decompresses: every format is known
/// by its first bytes, so a 1 GB gzip file is not inflated to be named.
pub const SNIFF_PREFIX: usize = 1 << 20;

pub fn is_gzip(data: &[u8]) -> bool {
    data.starts_with(&GZIP_MAGIC)
}

/// A file that starts with a zstd frame (a skippable frame first is not a profile).
pub fn is_zstd(data: &[u8]) -> bool {
    data.starts_with(&ZSTD_MAGIC)
}

/// The most `compressed` bytes may decompress to.
pub fn limit_for(compressed: usize) -> usize {
    let limit = compressed.saturating_mul(MAX_EXPANSION).saturating_add(1 << 20);
    usize::try_from(MAX_DECOMPRESSED).map_or(limit, |max| limit.min(max))
}

/// The size a gzip file states for its content: the last member's ISIZE (the
/// size modulo 4 GiB), which is the whole content's for a one-member file.
fn gzip_claimed(file: &[u8]) -> Option<u64> {
    let tail = file.len().checked_sub(4).and_then(|at| file.get(at..))?;
    Some(u64::from(u32::from_le_bytes(tail.try_into().ok()?)))
}

fn too_large(offset: u64, limit: usize, claimed: Option<u64>) -> Error {
    Error {
        location: crate::error::Location::Offset(offset),
        kind: ErrorKind::TooLarge { limit: limit as u64, claimed },
    }
}

/// Decompresses a gzip file (RFC 1952), all members, checking sizes.
pub fn gunzip(file: &[u8]) -> Result<Vec<u8>> {
    gunzip_upto(file, None)
}

/// The first `len` bytes (or fewer, if that is all) of a gzip or zstd file's
/// content: what detection needs.
pub fn decompressed_prefix(file: &[u8], len: usize) -> Result<Vec<u8>> {
    if is_zstd(file) {
        unzstd_upto(file, Some(len))
    } else {
        gunzip_upto(file, Some(len))
    }
}

/// [`gunzip`], stopping once `prefix` bytes (if given) are out.
fn gunzip_upto(file: &[u8], prefix: Option<usize>) -> Result<Vec<u8>> {
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
        let (limit, claimed) = match prefix {
            Some(len) => (len, None),
            None => (limit_for(file.len()), gzip_claimed(file)),
        };
        let consumed = match inflate_into(r.rest(), &mut out, limit, start, false) {
            Err(e) if prefix.is_some() && matches!(e.kind, ErrorKind::TooLarge { .. }) => {
                out.truncate(limit);
                return Ok(out);
            }
            Err(Error { kind: ErrorKind::TooLarge { limit, .. }, location }) => {
                return Err(Error { kind: ErrorKind::TooLarge { limit, claimed }, location })
            }
            other => other?,
        };
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
    unzstd_upto(file, None)
}

/// [`unzstd`], stopping once `prefix` bytes (if given) are out.
fn unzstd_upto(file: &[u8], prefix: Option<usize>) -> Result<Vec<u8>> {
    let limit = prefix.unwrap_or(limit_for(file.len()));
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
            decoder.collect_to_writer(&mut out).map_err(|_| Error::malformed(block, "zstd output"))?;
            if out.len() > limit {
                if prefix.is_some() {
                    out.truncate(limit);
                    return Ok(out);
                }
                let claimed = (descriptor >> 6 != 0 || descriptor & 0x20 != 0).then(|| decoder.content_size());
                return Err(too_large(block, limit, claimed));
            }
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

/// `data` as a gzip file (RFC 1952) of stored deflate blocks (RFC 1951 section 3.2.4):
/// valid gzip that any reader takes, made without compressing (tests and fuzz
/// targets wrap inputs in it; the page's downloads are compressed by the browser).
pub fn gzip_stored(data: &[u8]) -> Vec<u8> {
    // 10 header bytes, 5 per block of up to 64 KiB, 8 trailer bytes.
    let blocks = data.len().checked_div(0xffff).unwrap_or(0).saturating_add(1);
    let mut out = Vec::with_capacity(data.len().saturating_add(blocks.saturating_mul(5)).saturating_add(18));
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    let mut blocks = data.chunks(0xffff).peekable();
    if blocks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    while let Some(block) = blocks.next() {
        let len = u16::try_from(block.len()).unwrap_or(u16::MAX);
        out.push(u8::from(blocks.peek().is_none()));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    out.extend_from_slice(&crc32(data).to_le_bytes());
    // ISIZE: the size modulo 2^32.
    let size = (data.len() as u64).to_le_bytes();
    out.extend_from_slice(size.get(..4).unwrap_or_default());
    out
}

/// CRC-32 (ISO-HDLC, the polynomial gzip uses), bit by bit: for small inputs only.
pub fn crc32(data: &[u8]) -> u32 {
    !data.iter().fold(!0u32, |crc, &byte| {
        (0..8).fold(crc ^ u32::from(byte), |c, _| if c & 1 == 1 { (c >> 1) ^ 0xedb8_8320 } else { c >> 1 })
    })
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
                    out.truncate(out_pos);
                    return Err(too_large(offset, limit, None));
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

    #[test]
    fn stored_gzip_reads_back_and_has_gzips_check_value() {
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
        for data in [&b""[..], b"pgolens", &[7u8; 200_000]] {
            assert_eq!(gunzip(&gzip_stored(data)).unwrap(), data);
        }
    }
}
