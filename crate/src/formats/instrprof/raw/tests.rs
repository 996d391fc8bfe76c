use super::*;
use crate::formats::instrprof::raw_layout::{MAGIC_32, MAGIC_64};

fn det() -> Detection {
    Detection::new(Format::InstrProfRaw)
}

#[allow(clippy::panic)] // a missing corpus file fails the test, naming it
fn corpus(path: &str) -> Vec<u8> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
    std::fs::read(alloc::format!("{root}{path}")).unwrap_or_else(|e| panic!("{root}{path}: {e}"))
}

/// The dump with every deferred node expanded, as `pgolens dump` shows it.
fn full(data: &[u8]) -> Node {
    let root = crate::dump_all(data, &det()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    root
}

fn find<'a>(node: &'a Node, label: &str) -> &'a Node {
    node.children.iter().find(|c| c.label == label).unwrap()
}

/// A raw v10 profile from a 64-bit little-endian producer, field by field.
fn v10_le() -> Vec<u8> {
    let mut d = Vec::new();
    let u64s = |d: &mut Vec<u8>, vs: &[u64]| vs.iter().for_each(|v| d.extend_from_slice(&v.to_le_bytes()));
    u64s(&mut d, &[MAGIC_64]); // 0 Magic
    u64s(&mut d, &[(1 << 56) | 10]); // 8 Version 10, IR_PROF
    u64s(&mut d, &[16]); // 16 BinaryIdsSize
    u64s(&mut d, &[1]); // 24 NumData
    u64s(&mut d, &[0]); // 32 PaddingBytesBeforeCounters
    u64s(&mut d, &[2]); // 40 NumCounters
    u64s(&mut d, &[0, 0, 0]); // 48 PaddingBytesAfterCounters, NumBitmapBytes, PaddingBytesAfterBitmapBytes
    u64s(&mut d, &[10]); // 72 NamesSize
    u64s(&mut d, &[0x40]); // 80 CountersDelta: counters start 0x40 after the data
    u64s(&mut d, &[0, 0x1000]); // 88 BitmapDelta, 96 NamesDelta
    u64s(&mut d, &[0, 0]); // 104 NumVTables, 112 VNamesSize
    u64s(&mut d, &[2]); // 120 ValueKindLast
    u64s(&mut d, &[4]); // 128 binary id length 4
    d.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef, 0, 0, 0, 0]); // 136 id + 4 bytes padding
    u64s(&mut d, &[super::super::md5::name_ref(b"main"), 0x5678]); // 144 NameRef = MD5("main"), FuncHash
    u64s(&mut d, &[0x40, 0, 0x401000, 0]); // 160 CounterPtr (relative to the record), BitmapPtr, FunctionPointer, Values
    d.extend_from_slice(&2u32.to_le_bytes()); // 192 NumCounters
    d.extend_from_slice(&[1, 0, 0, 0, 0, 0]); // 196 NumValueSites [1, 0, 0]
    d.extend_from_slice(&[0, 0]); // 202 padding to 4
    d.extend_from_slice(&0u32.to_le_bytes()); // 204 NumBitmapBytes
    u64s(&mut d, &[7, 9]); // 208 counters
    d.extend_from_slice(&[8, 0]); // 224 UncompressedSize 8, CompressedSize 0 (ULEB)
    d.extend_from_slice(b"main\x01foo"); // 226 names
    d.extend_from_slice(&[0; 6]); // 234 pad8(10)
    d.extend_from_slice(&8u32.to_le_bytes()); // 240 ValueProfData TotalSize 8
    d.extend_from_slice(&0u32.to_le_bytes()); // 244 NumValueKinds 0
    d
}

#[test]
fn v10_little_endian_64_bit() {
    let data = v10_le();
    assert_eq!(data.len(), 248);
    let root = dump(&data, &det()).unwrap();
    assert_eq!(root.check_tiling(), Ok(()));
    let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
    assert_eq!(
        spans,
        [
            ("__llvm_profile_header", 0, 128),
            ("binary ids", 128, 144),
            ("data", 144, 208),
            ("counters", 208, 224),
            ("names", 224, 234),
            ("padding after names", 234, 240),
            ("value profile data", 240, 248)
        ]
    );
    // records, counter slices and value blobs are deferred blocks
    assert!(root.children[2].children[0].deferred.is_some());
    assert!(root.children[3].children[0].deferred.is_some());
    assert!(root.children[6].children[0].deferred.is_some());

    let root = full(&data);
    let header = &root.children[0];
    assert_eq!(find(header, "Version").value.as_deref(), Some("0x010000000000000a (v10, IR_PROF)"));
    assert_eq!(find(header, "NumData").value.as_deref(), Some("1"));
    let record = &root.children[2].children[0].children[0];
    assert_eq!((record.label.as_ref(), record.value.as_deref()), ("record 0", Some("main")));
    assert_eq!(find(record, "NumValueSites").value.as_deref(), Some("[1, 0, 0]"));
    assert_eq!((find(record, "NumBitmapBytes").start, find(record, "NumBitmapBytes").end), (204, 208));
    // counters: main's slice with its two counters
    let counters = &root.children[3];
    assert_eq!(counters.value.as_deref(), Some("2"));
    let main = &counters.children[0].children[0];
    assert_eq!((main.label.as_ref(), main.start, main.end), ("main", 208, 224));
    assert_eq!(main.value.as_deref(), Some("2 counters, total 16"));
    let spans: Vec<_> = main.children.iter().map(|c| (c.start, c.end, c.value.as_deref().unwrap())).collect();
    assert_eq!(spans, [(208, 216, "7"), (216, 224, "9")]);
    // names: each name and its separator
    let chunk = &root.children[4].children[0];
    assert_eq!(chunk.value.as_deref(), Some("2 names: main, foo"));
    let names = find(chunk, "names");
    let spans: Vec<_> = names.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
    assert_eq!(spans, [("name 0", 226, 230), ("separator", 230, 231), ("name 1", 231, 234)]);
    // value data: main's blob, no kinds
    let blob = &root.children[6].children[0].children[0];
    assert_eq!((blob.label.as_ref(), blob.start, blob.end), ("main", 240, 248));
    assert_eq!(find(blob, "TotalSize").value.as_deref(), Some("8"));
    assert_eq!(find(blob, "NumValueKinds").value.as_deref(), Some("0"));
    let id = &root.children[1].children[0];
    assert_eq!(id.value.as_deref(), Some("deadbeef"));
}

#[test]
fn v5_big_endian_32_bit() {
    let mut d = Vec::new();
    let be = |d: &mut Vec<u8>, vs: &[u64]| vs.iter().for_each(|v| d.extend_from_slice(&v.to_be_bytes()));
    be(&mut d, &[MAGIC_32, 5]); // 0 Magic (32-bit), 8 Version 5
    be(&mut d, &[1, 0, 1, 0]); // 16 NumData, PaddingBytesBeforeCounters, NumCounters, PaddingBytesAfterCounters
    be(&mut d, &[5, 0x2000, 0x3000, 1]); // 48 NamesSize, CountersDelta, NamesDelta, ValueKindLast
    be(&mut d, &[0xaa, 0xbb]); // 80 NameRef, FuncHash
    for p in [0x2000u32, 0x1000, 0] {
        d.extend_from_slice(&p.to_be_bytes()); // 96 CounterPtr, 100 FunctionPointer, 104 Values
    }
    d.extend_from_slice(&1u32.to_be_bytes()); // 108 NumCounters
    d.extend_from_slice(&[0, 0, 0, 0]); // 112 NumValueSites [0, 0]
    d.extend_from_slice(&[0, 0, 0, 0]); // 116 padding to 40 bytes
    be(&mut d, &[42]); // 120 counter
    d.extend_from_slice(&[3, 0, b'a', b'b', b'c', 0, 0, 0]); // 128 names chunk, pad8(5)
    let root = full(&d);
    assert_eq!(root.label, "instrprof raw (32-bit)");
    let record = &root.children[1].children[0].children[0];
    assert_eq!((record.start, record.end), (80, 120));
    assert_eq!(find(record, "FunctionPointer").value.as_deref(), Some("0x1000"));
    assert_eq!(find(record, "NumValueSites").value.as_deref(), Some("[0, 0]"));
    assert_eq!(find(&root, "counters").value.as_deref(), Some("1"));
    // v5: CounterPtr 0x2000 is absolute, CountersDelta 0x2000: the first counter
    let slice = &find(&root, "counters").children[0].children[0];
    assert_eq!((slice.label.as_ref(), slice.start, slice.end), ("NameRef 0x00000000000000aa", 120, 128));
    assert_eq!(slice.children[0].value.as_deref(), Some("42"));
    assert!(root.children.iter().all(|c| c.label != "unparsed"));
}

/// A v10 profile of `n` records with one counter each (counter `i` = `i`),
/// laid out as compiler-rt does: relative CounterPtr, no names, no values.
fn many_records(n: u64) -> Vec<u8> {
    let mut d = Vec::new();
    let u64s = |d: &mut Vec<u8>, vs: &[u64]| vs.iter().for_each(|v| d.extend_from_slice(&v.to_le_bytes()));
    u64s(&mut d, &[MAGIC_64, (1 << 56) | 10]); // 0 Magic, 8 Version 10, IR_PROF
    u64s(&mut d, &[0, n, 0, n, 0, 0, 0, 0]); // 16 BinaryIdsSize, NumData, padding, NumCounters, padding, bitmap, padding, NamesSize
    u64s(&mut d, &[n * 64, 0, 0, 0, 0, 2]); // 80 CountersDelta, BitmapDelta, NamesDelta, NumVTables, VNamesSize, ValueKindLast
    for i in 0..n {
        // 128 + 64·i: NameRef, FuncHash, CounterPtr (counter i, relative to the record), BitmapPtr, FunctionPointer, Values
        u64s(&mut d, &[i, 0, i * 8 + n * 64 - i * 64, 0, 0, 0]);
        d.extend_from_slice(&1u32.to_le_bytes()); // NumCounters 1
        d.extend_from_slice(&[0; 12]); // NumValueSites [0, 0, 0], padding, NumBitmapBytes 0
    }
    (0..n).for_each(|i| u64s(&mut d, &[i])); // 128 + 64·n: counters
    d
}

#[test]
fn large_profiles_are_deferred_in_blocks() {
    let n = 9000;
    let data = many_records(n);
    let root = dump(&data, &det()).unwrap();
    assert!(root.count() < 40, "{} nodes up front", root.count());
    let data_node = find(&root, "data");
    let blocks: Vec<_> = data_node.children.iter().map(|b| (b.label.as_ref(), b.start, b.end)).collect();
    let at = |i: u64| 128 + 64 * i;
    assert_eq!(
        blocks,
        [
            ("records 0..4096", at(0), at(4096)),
            ("records 4096..8192", at(4096), at(8192)),
            ("records 8192..9000", at(8192), at(9000))
        ]
    );
    let counters = find(&root, "counters");
    let last = counters.children.last().unwrap();
    let counter = |i: u64| at(n) + 8 * i;
    assert_eq!((last.label.as_ref(), last.start, last.end), ("functions 8192..9000", counter(8192), counter(9000)));
    let slices = crate::expand(&data, &det(), &last.deferred.unwrap()).unwrap();
    assert_eq!(slices.len(), 808);
    assert_eq!((slices[0].start, slices[0].end), (counter(8192), counter(8193)));
    assert_eq!(slices[0].label, "NameRef 0x0000000000002000");
    assert_eq!(slices[0].children[0].value.as_deref(), Some("8192"));
    let records = crate::expand(&data, &det(), &data_node.children[1].deferred.unwrap()).unwrap();
    assert_eq!((records.len(), records[0].label.as_ref()), (4096, "record 4096"));
    let full = full(&data);
    let slices: usize = find(&full, "counters").children.iter().map(|b| b.children.len()).sum();
    assert_eq!(slices, 9000);
}

#[test]
fn concatenated_profiles() {
    let mut data = v10_le();
    data.extend_from_slice(&[0; 8]);
    data.extend_from_slice(&v10_le());
    let root = full(&data);
    let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
    assert_eq!(spans, [("profile 0", 0, 248), ("padding", 248, 256), ("profile 1", 256, 504)]);
    assert_eq!(root.children[2].children[2].children[0].children[0].start, 256 + 144);
    // the second profile's deferred nodes expand against its own header
    let main = &root.children[2].children[3].children[0].children[0];
    assert_eq!((main.label.as_ref(), main.start, main.end), ("main", 256 + 208, 256 + 224));
}

#[test]
fn truncations_and_absurd_counts() {
    let data = v10_le();
    for cut in 8..data.len() {
        let err = dump(&data[..cut], &det()).err();
        assert!(err.and_then(|e| e.offset()).is_some_and(|o| o <= cut as u64), "cut at {cut}: {err:?}");
    }
    assert!(dump(&data[..7], &det()).is_err());
    // NumData = 2^60: the error names the NumData field
    let mut bad = v10_le();
    bad[24..32].copy_from_slice(&(1u64 << 60).to_le_bytes());
    assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(24));
    // NumCounters = u64::MAX
    let mut bad = v10_le();
    bad[40..48].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(40));
    // unknown version
    let mut bad = v10_le();
    bad[8] = 6;
    assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(8));
    // corrupt value-data size
    let mut bad = v10_le();
    bad[240] = 7;
    assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(240));
}

#[test]
fn corpus_m32_v10() {
    // m32-progB.profraw.format.txt: NumData 18, NumCounters 87, NamesSize 183
    let data = corpus("llvm/m32-progB/m32-progB.profraw");
    let root = full(&data);
    let header = find(&root, "__llvm_profile_header (32-bit)");
    assert_eq!(find(header, "NumData").value.as_deref(), Some("18"));
    assert_eq!(find(header, "NumCounters").value.as_deref(), Some("87"));
    assert_eq!(find(header, "NamesSize").value.as_deref(), Some("183"));
    assert_eq!(find(header, "CountersDelta").value.as_deref(), Some("0xfffffd48"));
    let data_node = find(&root, "data");
    assert_eq!((data_node.start, data_node.end), (0xa0, 0xa0 + 18 * 48));
    assert_eq!(data_node.children[0].children.len(), 18);
    assert_eq!(find(&root, "counters").len(), 87 * 8);
}

#[test]
fn corpus_v5_and_v9() {
    // llvm-11 c-general: raw v5, 12 records of 48 bytes, 109 counters
    let data = corpus("peers/llvm-profparser/llvm-11/c-general.profraw");
    let root = dump(&data, &det()).unwrap();
    assert_eq!(find(&root, "data").value.as_deref(), Some("12 records"));
    assert_eq!(find(&root, "counters").value.as_deref(), Some("109"));
    // llvm-18 basic: raw v9, 192 bytes
    let data = corpus("peers/llvm-profparser/llvm-18/basic.profraw");
    let root = dump(&data, &det()).unwrap();
    let version = find(&root.children[0], "Version");
    assert_eq!(version.value.as_deref(), Some("0x0100000000000009 (v9, IR_PROF)"));
}

const CORPUS: [&str; 8] = [
    "llvm/irpgo-progA/irpgo-progA.profraw",
    "llvm/blockcov-progA/blockcov-progA.profraw",
    "llvm/temporal-progA/temporal-progA.profraw",
    "llvm/vtable-progA/vtable-progA.profraw",
    "llvm/continuous-progB/continuous-progB.profraw",
    "llvm/clang13-progA/clang13-progA.profraw",
    "llvm/mcdc-progB/mcdc-progB.profraw",
    "peers/llvm-profparser/misc/multibin_merge/bin_2.3.profraw",
];

#[test]
fn corpus_files_tile_without_gaps() {
    for path in CORPUS {
        let data = corpus(path);
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()), "{path}");
        assert!(root.children.iter().all(|c| c.label != "unparsed"), "{path}");
        // truncated at every header field boundary and at the first 64 bytes
        let mut cuts: Vec<u64> = root.children[0].children.iter().map(|c| c.start).collect();
        cuts.extend(1..64);
        cuts.extend(root.children.iter().map(|c| c.start.saturating_add(1)));
        for cut in cuts {
            let cut = usize::try_from(cut).unwrap();
            if let Err(e) = dump(&data[..cut], &det()) {
                assert!(e.offset().is_some_and(|o| o <= cut as u64), "{path} cut at {cut}: {e}");
            }
        }
    }
}
