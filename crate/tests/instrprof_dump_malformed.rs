//! Malformed indexed profiles for the deep dump (hash-table buckets, items,
//! records, value data, expanded through `pgolens::expand`): truncation at every
//! boundary the expanded dump shows, item lengths past the payload, bucket counts
//! above NumEntries, and bucket offsets that leave the payload, repeat or run
//! backwards. Each must be an error naming an offset inside the input; never a
//! panic or a hang.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::path::{Path, PathBuf};

use pgolens::{detect, dump_all, Node};

fn read(rel: &str) -> Vec<u8> {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus").join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

const FILES: [&str; 3] = [
    "llvm/cspgo-progA/cspgo-progA.profdata",
    "llvm/mcdc-progB/mcdc-progB.profdata",
    "llvm/vtable-progA/vtable-progA.profdata",
];

fn boundaries(node: &Node, out: &mut Vec<u64>) {
    out.push(node.start);
    out.push(node.end);
    node.children.iter().for_each(|c| boundaries(c, out));
}

fn find<'a>(node: &'a Node, label: &str) -> Option<&'a Node> {
    if node.label == label {
        return Some(node);
    }
    node.children.iter().find_map(|c| find(c, label))
}

/// The full dump's error offset (None when it succeeds).
fn dump_error(data: &[u8]) -> Option<u64> {
    let detection = detect(data).ok()?;
    match dump_all(data, &detection) {
        Ok(root) => {
            assert_eq!(root.check_tiling(), Ok(()));
            None
        }
        Err(e) => Some(e.offset().unwrap_or_else(|| panic!("error without offset: {e}"))),
    }
}

#[test]
fn truncated_at_every_deep_boundary() {
    for path in FILES {
        let data = read(path);
        let root = dump_all(&data, &detect(&data).unwrap()).unwrap();
        assert!(find(&root, "bucket 0").is_some(), "{path}: buckets are dumped");
        let mut cuts = Vec::new();
        boundaries(&root, &mut cuts);
        cuts.sort_unstable();
        cuts.dedup();
        for cut in cuts.into_iter().filter(|&c| c < data.len() as u64) {
            if let Some(offset) = dump_error(&data[..cut as usize]) {
                assert!(offset <= cut, "{path} cut at {cut:#x}: error at {offset:#x}");
            }
        }
    }
}

#[test]
fn item_lengths_and_counts_outside_the_payload() {
    let data = read(FILES[0]);
    let root = dump_all(&data, &detect(&data).unwrap()).unwrap();
    let bucket = find(&root, "bucket 0").unwrap();
    let count_at = bucket.children[0].start as usize;
    let item = &bucket.children[1];
    let key_len_at = find(item, "key length").unwrap().start as usize;
    let data_len_at = find(item, "data length").unwrap().start as usize;

    let mut bad = data.clone();
    bad[key_len_at..key_len_at + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
    assert_eq!(dump_error(&bad), Some(key_len_at as u64));

    let mut bad = data.clone();
    bad[data_len_at..data_len_at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(dump_error(&bad), Some(data_len_at as u64));

    // more items in the first bucket than NumEntries
    let mut bad = data.clone();
    bad[count_at..count_at + 2].copy_from_slice(&u16::MAX.to_le_bytes());
    assert_eq!(dump_error(&bad), Some(count_at as u64));

    // NumCounters larger than the record
    let counters_at = find(item, "NumCounters").unwrap().start as usize;
    let mut bad = data.clone();
    bad[counters_at..counters_at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert_eq!(dump_error(&bad), Some(counters_at as u64));
}

#[test]
fn bucket_offsets_outside_repeated_or_backwards() {
    let data = read(FILES[0]);
    let root = dump_all(&data, &detect(&data).unwrap()).unwrap();
    let offsets = find(&root, "bucket offsets").unwrap();
    let payload = find(&root, "hash table payload").unwrap();
    let slots: Vec<usize> = (offsets.start..offsets.end).step_by(8).map(|o| o as usize).collect();
    let nonzero: Vec<usize> = slots.iter().copied().filter(|&s| data[s..s + 8] != [0; 8]).collect();
    let set = |bad: &mut Vec<u8>, slot: usize, v: u64| bad[slot..slot + 8].copy_from_slice(&v.to_le_bytes());

    for outside in [1, payload.start - 1, payload.end, data.len() as u64 + 100, u64::MAX] {
        let mut bad = data.clone();
        set(&mut bad, nonzero[0], outside);
        assert_eq!(dump_error(&bad), Some(nonzero[0] as u64), "bucket offset {outside:#x}");
    }
    // two buckets at the same offset (a cycle for a reader that follows them)
    let mut bad = data.clone();
    let first = u64::from_le_bytes(data[nonzero[0]..nonzero[0] + 8].try_into().unwrap());
    set(&mut bad, nonzero[1], first);
    assert_eq!(dump_error(&bad), Some(nonzero[1] as u64));
    // NumBuckets past the file
    let mut bad = data.clone();
    set(&mut bad, offsets.start as usize - 16, 1 << 61);
    assert_eq!(dump_error(&bad), Some(offsets.start - 16));
}
