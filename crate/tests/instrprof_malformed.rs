//! Malformed raw and indexed instrprof input for the model decoders: truncation
//! at every section and field boundary the dump knows, absurd counts and sizes,
//! corrupt zlib names, hash-table offsets outside the file, and single-bit flips
//! everywhere in small files. Each must be an error with an offset inside the
//! input (or a successful decode); never a panic or a runaway allocation.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;

use common::read;

use pgolens::formats::instrprof::decode;
use pgolens::Node;

/// Every start and end of every node in the dump tree.
fn boundaries(node: &Node, out: &mut Vec<u64>) {
    out.push(node.start);
    out.push(node.end);
    for child in &node.children {
        boundaries(child, out);
    }
}

/// Decoding `data` either succeeds or fails at an offset inside it.
fn check(data: &[u8], what: &str) {
    if let Err(e) = decode(data, None) {
        let offset = e.offset().unwrap_or_else(|| panic!("{what}: error without offset: {e}"));
        assert!(offset <= data.len() as u64, "{what}: offset {offset:#x} past the end: {e}");
    }
}

const FILES: [&str; 10] = [
    "llvm/irpgo-progA/irpgo-progA.profraw",
    "llvm/vtable-progA/vtable-progA.profraw",
    "llvm/temporal-progA/temporal-progA.profraw",
    "llvm/mcdc-progB/mcdc-progB.profraw",
    "llvm/m32-progB/m32-progB.profraw",
    "llvm/vtable-progA/vtable-progA.profdata",
    "llvm/temporal-progA/temporal-progA.profdata",
    "llvm/mcdc-progB/mcdc-progB.profdata",
    "peers/llvm-profparser/llvm-12/compat.profdata.v1",
    "peers/llvm-profparser/misc/multibin_merge/bin_2.3.profraw",
];

#[test]
fn truncated_at_every_boundary() {
    for rel in FILES {
        let data = read(rel);
        assert!(decode(&data, None).is_ok(), "{rel} decodes whole");
        let detection = pgolens::open(&data).unwrap().detect().unwrap();
        let root = pgolens::dump(&data, &detection).unwrap();
        let mut cuts = Vec::new();
        boundaries(&root, &mut cuts);
        cuts.extend(0..64);
        cuts.sort_unstable();
        cuts.dedup();
        for cut in cuts.into_iter().filter(|&c| c < data.len() as u64) {
            let cut = cut as usize;
            check(&data[..cut], &format!("{rel} cut at {cut:#x}"));
        }
    }
}

#[test]
fn single_bit_flips_never_panic() {
    for rel in ["llvm/m32-progB/m32-progB.profraw", "llvm/mcdc-progB/mcdc-progB.profdata"] {
        let data = read(rel);
        let mut copy = data.clone();
        for i in 0..data.len() {
            for bit in [0u8, 3, 7] {
                copy[i] ^= 1 << bit;
                check(&copy, &format!("{rel} bit {bit} of byte {i:#x}"));
                copy[i] = data[i];
            }
        }
    }
}

fn put(data: &mut [u8], at: usize, value: u64) {
    data[at..at + 8].copy_from_slice(&value.to_le_bytes());
}

fn error_offset(data: &[u8]) -> Option<u64> {
    decode(data, None).err().and_then(|e| e.offset())
}

#[test]
fn raw_counts_and_sizes_beyond_the_file() {
    // irpgo-progA.profraw (format.txt): v10, 64-bit LE; NumData at 24,
    // NumCounters at 40, NamesSize at 72, ValueKindLast at 120.
    let data = read("llvm/irpgo-progA/irpgo-progA.profraw");
    for (field, value) in [(24, 1u64 << 60), (40, u64::MAX), (72, 1 << 40), (16, 1 << 50), (120, 1000)] {
        let mut bad = data.clone();
        put(&mut bad, field, value);
        assert_eq!(error_offset(&bad), Some(field as u64), "field at {field}");
    }
    // The first data record (after the 128-byte header and 32 bytes of binary
    // ids) with a CounterPtr far outside the counters: named at the record.
    let mut bad = data.clone();
    put(&mut bad, 160 + 16, 0x7fff_0000_0000);
    assert_eq!(error_offset(&bad), Some(160));
    // NumCounters 0 in the first record
    let mut bad = data.clone();
    bad[160 + 48..160 + 52].copy_from_slice(&0u32.to_le_bytes());
    assert_eq!(error_offset(&bad), Some(160));
    // garbage after the last profile
    let mut bad = data.clone();
    bad.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]);
    assert_eq!(error_offset(&bad), Some(data.len() as u64 + 8));
}

#[test]
fn raw_value_data_beyond_its_record() {
    // The first value-profile blob of irpgo-progA starts right after the names:
    // header 128 + ids 32 + 67 records × 64 + 251 counters × 8 + names 1045 + pad 3.
    let data = read("llvm/irpgo-progA/irpgo-progA.profraw");
    let blob = 128 + 32 + 67 * 64 + 251 * 8 + 1045 + 3;
    let total = u32::from_le_bytes(data[blob..blob + 4].try_into().unwrap());
    assert!(total >= 8 && total % 8 == 0, "blob at {blob:#x} has TotalSize {total}");
    let mut bad = data.clone();
    bad[blob..blob + 4].copy_from_slice(&0xffff_fff8u32.to_le_bytes());
    assert_eq!(error_offset(&bad), Some(blob as u64));
    let mut bad = data.clone();
    bad[blob + 4..blob + 8].copy_from_slice(&9u32.to_le_bytes()); // NumValueKinds
    assert_eq!(error_offset(&bad), Some(blob as u64 + 4));
    let mut bad = data.clone();
    bad[blob + 8..blob + 12].copy_from_slice(&7u32.to_le_bytes()); // Kind
    assert_eq!(error_offset(&bad), Some(blob as u64 + 8));
}

#[test]
fn corrupt_zlib_names() {
    // irpgo-progA.profraw's names are one zlib chunk; break its deflate data.
    let data = read("llvm/irpgo-progA/irpgo-progA.profraw");
    let names = 128 + 32 + 67 * 64 + 251 * 8;
    let mut bad = data.clone();
    for b in &mut bad[names + 8..names + 40] {
        *b = 0xff;
    }
    let err = decode(&bad, None).unwrap_err();
    assert!(err.offset().is_some_and(|o| o >= names as u64 && o < (names + 1045) as u64), "{err}");
    // An UncompressedSize far beyond what the chunk can hold.
    let mut bad = data.clone();
    bad[names..names + 4].copy_from_slice(&[0xff, 0xff, 0xff, 0x7f]);
    assert!(decode(&bad, None).is_err());
}

#[test]
fn indexed_offsets_outside_the_file() {
    // v13 header: HashOffset at 32, BinaryIdOffset at 48, temporal at 56,
    // VTableNamesOffset at 64.
    let data = read("llvm/temporal-progA/temporal-progA.profdata");
    for field in [32usize, 48, 56, 64] {
        let mut bad = data.clone();
        put(&mut bad, field, data.len() as u64 + 8);
        assert_eq!(error_offset(&bad), Some(field as u64), "offset field at {field}");
        put(&mut bad, field, u64::MAX - 3);
        assert_eq!(error_offset(&bad), Some(field as u64), "offset field at {field}");
    }
    // HashOffset inside the header: before the payload can start
    let mut bad = data.clone();
    put(&mut bad, 32, 8);
    assert_eq!(error_offset(&bad), Some(32));
    // NumEntries far beyond the payload: the walk stops at the payload's end
    let hash = u64::from_le_bytes(data[32..40].try_into().unwrap()) as usize;
    let mut bad = data.clone();
    put(&mut bad, hash + 8, u64::MAX);
    let err = decode(&bad, None).unwrap_err();
    assert!(err.offset().is_some_and(|o| o <= hash as u64), "{err}");
    // an unknown version and hash type
    let mut bad = data.clone();
    bad[8] = 14;
    assert_eq!(error_offset(&bad), Some(8));
    let mut bad = data.clone();
    put(&mut bad, 24, 1);
    assert_eq!(error_offset(&bad), Some(24));
}

#[test]
fn indexed_record_lengths_beyond_the_payload() {
    // The first bucket starts right after the header (72) and the summary
    // (16 + 6 × 8 + 16 × 24 = 448): u16 count, then hash, key length, data length.
    let data = read("llvm/mcdc-progB/mcdc-progB.profdata");
    let bucket = 72 + 448;
    let key_len_at = bucket + 2 + 8;
    let mut bad = data.clone();
    put(&mut bad, key_len_at, 1 << 40);
    assert_eq!(error_offset(&bad), Some(key_len_at as u64));
    let mut bad = data.clone();
    put(&mut bad, key_len_at + 8, 1 << 40);
    assert_eq!(error_offset(&bad), Some(key_len_at as u64 + 8));
    // a data length that is not a multiple of 8
    let mut bad = data.clone();
    let len = u64::from_le_bytes(data[key_len_at + 8..key_len_at + 16].try_into().unwrap());
    put(&mut bad, key_len_at + 8, len - 1);
    assert!(decode(&bad, None).is_err());
    // bucket count beyond NumEntries
    let mut bad = data.clone();
    bad[bucket..bucket + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    assert_eq!(error_offset(&bad), Some(bucket as u64));
}
