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

mod common;

use common::read;

use pgolens::{detect, dump_all, Node};

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

// Raw profiles: the deep dump places each record's counters by its CounterPtr;
// pointers and counts that leave the section, or slices that overlap, must keep
// the dump tiling (the record's value says what is wrong), and value blobs that
// leave the file must be an error at their TotalSize.

const RAW: [&str; 4] = [
    "llvm/irpgo-progA/irpgo-progA.profraw",
    "llvm/m32-progB/m32-progB.profraw",
    "llvm/mcdc-progB/mcdc-progB.profraw",
    "peers/llvm-profparser/llvm-11/c-general.profraw",
];

/// The full dump, checked to tile.
fn raw_dump(data: &[u8]) -> Node {
    let root = dump_all(data, &detect(data).unwrap()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    root
}

/// The absolute offset and value of a record field (from its node).
fn field(root: &Node, record: &str, label: &str) -> (usize, u64) {
    let node = find(find(root, record).unwrap(), label).unwrap();
    let value = node.value.as_ref().unwrap();
    let value = match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).unwrap(),
        None => value.parse().unwrap(),
    };
    (node.start as usize, value)
}

fn has_slice(root: &Node, name: &str) -> bool {
    find(root, "counters").unwrap().children.iter().any(|b| b.children.iter().any(|s| s.label == name))
}

#[test]
fn raw_truncated_at_every_deep_boundary() {
    for path in RAW {
        let data = read(path);
        let root = raw_dump(&data);
        assert!(find(&root, "record 0").is_some(), "{path}: records are dumped");
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
fn raw_counter_pointers_outside_the_section() {
    let data = read(RAW[0]);
    let root = raw_dump(&data);
    let name = find(&root, "record 0").unwrap().value.clone().unwrap();
    assert!(has_slice(&root, &name));
    let (ptr_at, _) = field(&root, "record 0", "CounterPtr");
    for ptr in [u64::MAX, 1 << 40, 0x8000_0000] {
        let mut bad = data.clone();
        bad[ptr_at..ptr_at + 8].copy_from_slice(&ptr.to_le_bytes());
        let root = raw_dump(&bad);
        let value = find(&root, "record 0").unwrap().value.clone().unwrap();
        assert!(value.starts_with(&name) && value.contains("leave their section"), "{ptr:#x}: {value}");
        assert!(!has_slice(&root, &name), "{ptr:#x}");
    }
    // NumCounters far past the section: same, whatever the pointer
    let (count_at, _) = field(&root, "record 0", "NumCounters");
    let mut bad = data.clone();
    bad[count_at..count_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    let value = find(&raw_dump(&bad), "record 0").unwrap().value.clone().unwrap();
    assert!(value.contains("leave their section"), "{value}");
    // NumCounters in the header past the file: an error at that field
    let header = find(&root, "__llvm_profile_header").unwrap();
    let at = find(header, "NumCounters").unwrap().start as usize;
    let mut bad = data.clone();
    bad[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert_eq!(dump_error(&bad), Some(at as u64));
}

#[test]
fn raw_overlapping_counter_slices() {
    let data = read(RAW[0]);
    let root = raw_dump(&data);
    let record = |i: usize| find(&root, &format!("record {i}")).unwrap();
    let size = record(1).start - record(0).start;
    let (_, ptr0) = field(&root, "record 0", "CounterPtr");
    let (ptr1_at, _) = field(&root, "record 1", "CounterPtr");
    // v10 pointers are relative to their record: record 1 pointing one record
    // size lower lands on record 0's counters.
    let mut bad = data.clone();
    bad[ptr1_at..ptr1_at + 8].copy_from_slice(&ptr0.wrapping_sub(size).to_le_bytes());
    let root = raw_dump(&bad);
    let name0 = find(&root, "record 0").unwrap().value.clone().unwrap();
    let value1 = find(&root, "record 1").unwrap().value.clone().unwrap();
    assert!(value1.contains("overlap another record's"), "{value1}");
    assert!(has_slice(&root, &name0));
    // every record pointing at the same counters: one slice placed, the rest overlap
    let mut bad = data.clone();
    let records = find(&root, "data").unwrap().children[0].children.len();
    for i in 1..records {
        let (at, _) = field(&root, &format!("record {i}"), "CounterPtr");
        bad[at..at + 8].copy_from_slice(&ptr0.wrapping_sub(size * i as u64).to_le_bytes());
    }
    let root = raw_dump(&bad);
    let placed: usize = find(&root, "counters").unwrap().children.iter().map(|b| b.children.len()).sum();
    assert!(placed <= 2, "{placed} slices placed"); // the slice and the unparsed rest
}

#[test]
fn raw_value_data_past_the_end() {
    let data = read(RAW[0]);
    let root = raw_dump(&data);
    let values = find(&root, "value profile data").unwrap();
    let blob = values.children[0].children[0].start as usize;
    for size in [u32::MAX - 7, data.len() as u32 + 8, 0, 12] {
        let mut bad = data.clone();
        bad[blob..blob + 4].copy_from_slice(&size.to_le_bytes());
        assert_eq!(dump_error(&bad), Some(blob as u64), "TotalSize {size}");
    }
    // the last blob's size one record past the end
    let last = values.children.last().unwrap().children.iter().rfind(|b| b.label != "unparsed").unwrap();
    let mut bad = data.clone();
    let size = (last.end - last.start) as u32 + 8;
    bad[last.start as usize..last.start as usize + 4].copy_from_slice(&size.to_le_bytes());
    assert_eq!(dump_error(&bad), Some(last.start));
}
