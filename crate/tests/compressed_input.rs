//! Whole-file compression of a profile (zstd, RFC 8878): a compressed corpus profile
//! decodes exactly as the plain file does, and damaged compressed files fail cleanly.

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::panic)]

mod common;

use common::{crate_dir, read};

const PLAIN: &str = "bolt-perf/cprog/cprog.bolt.cpuclock.perf.data";

fn zst() -> Vec<u8> {
    std::fs::read(crate_dir().join("tests/data/compressed/cprog.bolt.cpuclock.perf.data.zst")).unwrap()
}

/// The detection line and the full dump, as `pgolens dump` prints them.
fn decode(file: &[u8]) -> pgolens::Result<(String, pgolens::Node)> {
    let input = pgolens::open(file)?;
    let detection = input.detect()?;
    let root = pgolens::dump_all(&input.data, &detection)?;
    Ok((detection.to_string(), root))
}

#[test]
fn zstd_profile_decodes_as_the_plain_file() {
    let plain = read(PLAIN);
    let zst = zst();
    assert_eq!(zst.len(), 7391);
    assert_eq!(plain.len(), 50864);
    let input = pgolens::open(&zst).unwrap();
    assert!(input.zstd && !input.gzip);
    assert_eq!(&*input.data, &plain[..]);

    let (plain_line, plain_root) = decode(&plain).unwrap();
    let (zst_line, zst_root) = decode(&zst).unwrap();
    assert_eq!(plain_line, "perf.data [version 2, little-endian]");
    assert_eq!(zst_line, "perf.data [version 2, little-endian, zstd]");
    assert_eq!(zst_root, plain_root);
    assert_eq!(zst_root.end, 50864);
}

#[test]
fn zstd_frames_concatenate_and_skippable_frames_are_skipped() {
    let zst = zst();
    let plain = read(PLAIN);
    // A skippable frame (magic 0x184D2A5A, 3 bytes of payload) between two copies.
    let mut two = zst.clone();
    two.extend_from_slice(&[0x5a, 0x2a, 0x4d, 0x18, 3, 0, 0, 0, 1, 2, 3]);
    two.extend_from_slice(&zst);
    let input = pgolens::open(&two).unwrap();
    assert_eq!(input.data.len(), 2 * plain.len());
    assert_eq!(&input.data[plain.len()..], &plain[..]);

    let mut trailing = zst.clone();
    trailing.extend_from_slice(b"junk");
    let error = pgolens::open(&trailing).err().unwrap();
    assert_eq!(error.to_string(), "expected another zstd frame or end of file (at offset 0x1cdf)");
}

#[test]
fn truncated_zstd_fails_with_an_offset() {
    let zst = zst();
    for cut in (64..zst.len()).step_by(64) {
        let result = pgolens::open(&zst[..cut]).map(|input| input.data.len());
        let error = result.err().unwrap_or_else(|| panic!("cut at {cut} decoded"));
        let offset = error.offset().unwrap_or_else(|| panic!("cut at {cut}: {error} has no offset"));
        assert!(offset <= cut as u64, "cut at {cut}: error at {offset}");
    }
    // The last byte of the checksum missing.
    assert!(pgolens::open(&zst[..zst.len() - 1]).is_err());
}

/// A flipped bit either fails with an error or decodes to exactly the plain file:
/// the content checksum catches every change to the content, and the bits a
/// decoder ignores (the unused bit of the frame header descriptor, bitstream
/// padding, table entries no symbol uses) change nothing.
#[test]
fn bit_flips_in_zstd_fail_or_change_nothing() {
    let zst = zst();
    let plain = read(PLAIN);
    let plain_root = decode(&plain).unwrap().1;
    let mut failed = 0;
    let mut harmless = Vec::new();
    let positions: Vec<usize> = (0..16).chain((16..zst.len()).step_by(7)).collect();
    for &at in &positions {
        for bit in 0..8 {
            let mut bad = zst.clone();
            bad[at] ^= 1 << bit;
            // A flip in the magic number makes the file no zstd: then it is no profile.
            match decode(&bad) {
                Err(_) => failed += 1,
                Ok((_, root)) => {
                    assert_eq!(root, plain_root, "flip of bit {bit} at {at}");
                    assert_eq!(&*pgolens::open(&bad).unwrap().data, &plain[..], "flip of bit {bit} at {at}");
                    harmless.push((at, bit));
                }
            }
        }
    }
    assert_eq!(positions.len(), 1070);
    assert_eq!(harmless.len(), HARMLESS_FLIPS);
    assert!(harmless.contains(&(4, 4)), "the unused descriptor bit");
    assert_eq!(failed, positions.len() * 8 - HARMLESS_FLIPS);
}

/// How many of the flips tried above land on bits the decoder ignores (counted once
/// with this file; every other flip fails).
const HARMLESS_FLIPS: usize = 11;

#[test]
fn zstd_reserved_bit_and_bombs_are_refused() {
    let zst = zst();
    let mut reserved = zst.clone();
    reserved[4] |= 0x08;
    assert_eq!(
        pgolens::open(&reserved).err().unwrap().to_string(),
        "zstd frame header descriptor with its reserved bit set (at offset 0x4)"
    );
    // One RLE block of 128 KiB per 4 bytes (block header and the repeated byte),
    // 20,000 blocks: 2.5 GiB from 80 KB, beyond what the allowed expansion lets through.
    let mut bomb = vec![0x28, 0xb5, 0x2f, 0xfd, 0x00, 0x58];
    let rle_block = |last: bool| {
        let header = (128u32 << 10) << 3 | 1 << 1 | u32::from(last);
        let [b0, b1, b2, _] = header.to_le_bytes();
        [b0, b1, b2, 0]
    };
    for i in 0..20_000 {
        bomb.extend_from_slice(&rle_block(i == 19_999));
    }
    let error = pgolens::open(&bomb).err().unwrap();
    // The limit (80,006 × 256 + 1 MiB) holds 164 blocks; the decoder keeps its 2 MiB
    // window (16 blocks) back until the frame ends, so the 181st block (at 6 + 180 × 4)
    // is the first whose output is counted past it.
    assert_eq!(error.to_string(), "decompressed content larger than the limit of 21530112 bytes (at offset 0x2d6)");
}

#[test]
fn detection_decompresses_a_prefix_and_decoding_refuses_past_the_limit_with_the_stated_size() {
    let gz =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compressed/perf-then-64MiB-zeros.gz")).unwrap();
    // Named from its first MiB, though the whole would be refused.
    let detection = pgolens::sniff(&gz).unwrap();
    assert_eq!(detection.to_string(), "perf.data [version 2, little-endian, gzip]");
    // 74,016 × 256 + 1 MiB; the file's ISIZE says 64 MiB plus the perf.data's 50,864 bytes.
    let error = pgolens::open(&gz).err().unwrap();
    assert_eq!(
        error.to_string(),
        "decompressed content larger than the limit of 19996672 bytes (the file says it holds 67159728 bytes) \
         (at offset 0xa)"
    );
    // A plain file is sniffed as a whole.
    let plain = common::read("bolt-perf/cprog/cprog.bolt.cpuclock.perf.data");
    assert_eq!(pgolens::sniff(&plain).unwrap(), pgolens::detect(&plain).unwrap());
}
