//! MemProf decoding against `llvm-profdata show --memory`: the indexed section of
//! `memprof-progA.profdata` rendered in the shape of its `.memory.yaml`, and the
//! raw `memprof-progA.memprofraw` against what its (symbolized) YAML shows that
//! needs no symbolization: segments, counts, every MemInfoBlock.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::BTreeMap;
use std::fmt::Write;

use common::read;
use pgolens::formats::instrprof::decode_memprof::decode_raw;
use pgolens::formats::instrprof::memprof_model::{Frame, IndexedMemProf, MemInfoBlock};
use pgolens::formats::instrprof::{decode, decode_indexed};

/// LLVM's YAML mapping key: the value starts at column 16 at the earliest.
fn key(out: &mut String, indent: &str, key: &str, value: impl std::fmt::Display) {
    let pad = 16usize.saturating_sub(key.len()).max(1);
    writeln!(out, "{indent}{key}:{}{value}", " ".repeat(pad)).unwrap();
}

fn frames(out: &mut String, frames: &[Frame]) {
    for f in frames {
        writeln!(
            out,
            "          - {{ Function: {:#x}, LineOffset: {}, Column: {}, IsInlineFrame: {} }}",
            f.function, f.line_offset, f.column, f.is_inline
        )
        .unwrap();
    }
}

fn mib(out: &mut String, indent: &str, info: &MemInfoBlock) {
    for (meta, value) in &info.fields {
        key(out, indent, meta.name().unwrap(), value);
    }
}

/// `HeapProfileRecords:` as `show --memory` prints it.
fn yaml(memprof: &IndexedMemProf) -> String {
    let mut out = String::from("HeapProfileRecords:\n");
    for r in &memprof.records {
        key(&mut out, "  - ", "GUID", format_args!("{:#x}", r.guid));
        if !r.alloc_sites.is_empty() {
            out.push_str("    AllocSites:\n");
            for a in &r.alloc_sites {
                out.push_str("      - Callstack:\n");
                frames(&mut out, &a.call_stack);
                out.push_str("        MemInfoBlock:\n");
                mib(&mut out, "          ", &a.info);
            }
        }
        if !r.call_sites.is_empty() {
            out.push_str("    CallSites:\n");
            for c in &r.call_sites {
                out.push_str("      - Frames:\n");
                frames(&mut out, &c.frames);
                if !c.callee_guids.is_empty() {
                    let guids: Vec<_> = c.callee_guids.iter().map(|g| format!("{g:#x}")).collect();
                    writeln!(out, "        CalleeGuids:     [ {} ]", guids.join(", ")).unwrap();
                }
            }
        }
    }
    out
}

#[test]
fn indexed_memprof_matches_show_memory() {
    let data = read("llvm/memprof-progA/memprof-progA.profdata");
    let profile = decode_indexed::decode(&data).unwrap();
    let memprof = profile.memprof.as_ref().unwrap();
    // The writer's default is version 3 (radix tree, no stored summary).
    assert_eq!(memprof.version, 3);
    assert_eq!(
        memprof.schema.iter().map(|m| m.name().unwrap()).collect::<Vec<_>>(),
        ["AllocCount", "TotalSize", "TotalLifetime", "TotalLifetimeAccessDensity"]
    );
    let expected =
        std::fs::read_to_string(common::corpus().join("llvm/memprof-progA/memprof-progA.profdata.memory.yaml"))
            .unwrap();
    let start = expected.find("HeapProfileRecords:").unwrap();
    let end = expected.rfind("...").unwrap();
    let ours = yaml(memprof);
    let theirs = &expected[start..end];
    if ours != theirs {
        let diff = ours.lines().zip(theirs.lines()).enumerate().find(|(_, (a, b))| a != b);
        panic!("first difference (line, ours, llvm): {diff:?}");
    }
    assert_eq!(memprof.records.len(), 37);
    // The instrprof part still exports as before.
    let text =
        std::fs::read_to_string(common::corpus().join("llvm/memprof-progA/memprof-progA.profdata.proftext")).unwrap();
    assert_eq!(pgolens::formats::instrprof::proftext::to_string(&decode(&data, None).unwrap()), text);
}

/// `Key: value` pairs of the raw YAML's MemInfoBlocks, one map per block.
fn yaml_mibs(text: &str) -> Vec<BTreeMap<String, u64>> {
    let mut out = Vec::new();
    let mut current: Option<BTreeMap<String, u64>> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed == "MemInfoBlock:" {
            out.extend(current.take());
            current = Some(BTreeMap::new());
            continue;
        }
        if let Some(map) = current.as_mut() {
            match trimmed.split_once(": ").map(|(k, v)| (k, v.parse::<u64>())) {
                Some((k, Ok(v))) if line.starts_with("        ") => {
                    map.insert(k.to_string(), v);
                }
                _ => out.extend(current.take()),
            }
        }
    }
    out.extend(current);
    out
}

#[test]
fn raw_memprof_matches_what_show_memory_shows_without_symbols() {
    let data = read("llvm/memprof-progA/memprof-progA.memprofraw");
    let profiles = decode_raw(&data).unwrap();
    assert_eq!(profiles.len(), 1);
    let p = &profiles[0];
    assert_eq!(p.version, 5);
    let yaml =
        std::fs::read_to_string(common::corpus().join("llvm/memprof-progA/memprof-progA.memprofraw.memory.yaml"))
            .unwrap();

    // Segments: build id, start, end, offset, in file order.
    let mut segments = String::new();
    for s in &p.segments {
        let id: String = s.build_id.iter().map(|b| format!("{b:02x}")).collect();
        write!(
            segments,
            "  -\n    BuildId: {id}\n    Start: {:#X}\n    End: {:#X}\n    Offset: {:#X}\n",
            s.start, s.end, s.offset
        )
        .unwrap();
    }
    let segments = segments.replace("0X", "0x");
    assert!(yaml.contains(&segments), "segments differ:\n{segments}");

    // Every MemInfoBlock the YAML shows (once per function of its inlined stack)
    // is one of ours, and each of ours is shown.
    let ours: Vec<BTreeMap<String, u64>> = p
        .mibs
        .iter()
        .map(|m| m.info.fields.iter().map(|(meta, v)| (meta.name().unwrap().to_string(), *v)).collect())
        .collect();
    let theirs = yaml_mibs(&yaml);
    assert!(!theirs.is_empty());
    for t in &theirs {
        assert!(ours.contains(t), "a YAML MemInfoBlock we did not decode: {t:?}");
    }
    // The rest are allocations whose whole stack lies outside the profiled binary
    // (the runtime's own, libstdc++'s emergency pool): symbolization drops them.
    let shown: Vec<_> = ours.iter().filter(|o| theirs.contains(o)).collect();
    let hidden: Vec<_> = ours.iter().filter(|o| !theirs.contains(o)).map(|o| o["TotalSize"]).collect();
    eprintln!("{} of {} MemInfoBlocks shown; not shown, by TotalSize: {hidden:?}", shown.len(), ours.len());
    assert_eq!(shown.len(), 8);
    assert_eq!(theirs.iter().collect::<std::collections::BTreeSet<_>>().len(), 8);
    // Every MIB's stack is present, and no stack is empty.
    for m in &p.mibs {
        assert!(p.stack(m.stack_id).is_some_and(|s| !s.pcs.is_empty()), "stack {:#x}", m.stack_id);
    }
    assert_eq!((p.segments.len(), p.mibs.len(), p.stacks.len()), (8, 16, 16));
}

#[test]
fn every_corpus_raw_memprof_decodes() {
    let mut seen = BTreeMap::new();
    for dir in ["llvm-14", "llvm-16", "llvm-17", "llvm-19"] {
        for entry in std::fs::read_dir(common::corpus().join(format!("peers/llvm-profparser/{dir}"))).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "memprofraw") {
                continue;
            }
            let profiles = decode_raw(&std::fs::read(&path).unwrap()).unwrap_or_else(|e| panic!("{path:?}: {e}"));
            for p in &profiles {
                *seen.entry(p.version).or_insert(0) += 1;
                for m in &p.mibs {
                    assert!(p.stack(m.stack_id).is_some(), "{path:?}: stack {:#x}", m.stack_id);
                    let size = m.info.get(pgolens::formats::instrprof::memprof_model::Meta::ACCESS_HISTOGRAM_SIZE);
                    assert_eq!(m.info.histogram.len() as u64, size.unwrap_or(0), "{path:?}");
                }
            }
        }
    }
    assert_eq!(seen.keys().copied().collect::<Vec<_>>(), [1, 2, 3, 4]);
}

// Malformed input: every error names an offset, nothing panics or runs away.

use pgolens::read::{Endian, Reader};

fn u64s(d: &mut Vec<u8>, vs: &[u64]) {
    vs.iter().for_each(|v| d.extend_from_slice(&v.to_le_bytes()));
}

/// A hand-made v3 section at offset 0: one frame, the radix array `radix`, one
/// record (GUID 7) with one allocation site at radix index `site` and schema
/// `tags` (each MIB field 0x11 repeated).
fn v3(radix: &[u32], site: u32, tags: &[u64], sites: u64) -> Vec<u8> {
    let schema = 8 + 8 * tags.len() as u64;
    let frames = 32 + schema; // one frame, 17 bytes
    let cs = frames + 17;
    let rec = cs + 4 * radix.len() as u64;
    let mib: u64 = tags.iter().map(|&t| if t == 1 { 4 } else { 8 }).sum();
    let data = 8 + 4 + mib + 8;
    let table = (rec + 2 + 8 + 16 + 8 + data).next_multiple_of(8);
    let mut d = Vec::new();
    u64s(&mut d, &[3, cs, rec, table]); // 0 version, CallStackPayloadOffset, RecordPayloadOffset, RecordTableOffset
    u64s(&mut d, &[tags.len() as u64]); // 32 schema NumIds
    u64s(&mut d, tags); // 40 tags
    u64s(&mut d, &[0xaaaa]); // frames: Function
    d.extend_from_slice(&[3, 0, 0, 0, 9, 0, 0, 0, 1]); // LineOffset 3, Column 9, inline
    radix.iter().for_each(|v| d.extend_from_slice(&v.to_le_bytes())); // radix array
    d.extend_from_slice(&1u16.to_le_bytes()); // bucket: 1 item
    u64s(&mut d, &[7, 8, data, 7]); // hash, key length, data length, key GUID 7
    u64s(&mut d, &[sites]); // NumAllocSites
    d.extend_from_slice(&site.to_le_bytes()); // LinearCallStackId
    for &t in tags {
        d.extend_from_slice(&[0x11; 8][..if t == 1 { 4 } else { 8 }]);
    }
    u64s(&mut d, &[0]); // NumCallSites
    d.resize(table as usize, 0);
    u64s(&mut d, &[1, 1, rec]); // NumBuckets, NumEntries, bucket 0
    d
}

fn indexed(d: &[u8]) -> pgolens::Result<IndexedMemProf> {
    pgolens::formats::instrprof::decode_memprof::decode_indexed(&Reader::new(d, Endian::Little), 0, 40)
}

#[test]
fn hand_made_v3_and_its_corruptions() {
    // [2, f0, -1 → f0]: a two-frame stack whose second frame is behind a jump
    let radix = [2, 0, (-1i32) as u32, 0];
    let ok = indexed(&v3(&radix, 0, &[1, 5], 1)).unwrap();
    let site = &ok.records[0].alloc_sites[0];
    assert_eq!(site.call_stack.len(), 2);
    assert_eq!(site.call_stack[0], Frame { function: 0xaaaa, line_offset: 3, column: 9, is_inline: true });
    assert_eq!(site.info.fields.iter().map(|f| f.1).collect::<Vec<_>>(), [0x1111_1111, 0x1111_1111_1111_1111]);

    let err = |d: Vec<u8>| indexed(&d).unwrap_err();
    let len = v3(&radix, 0, &[1, 5], 1).len() as u64;
    // radix index past the array; count larger than the array; jump past the end
    for (radix, site) in [(&[1u32, 0][..], 5), (&[1000, 0][..], 0), (&[2, 0, (-100i32) as u32][..], 0)] {
        let e = err(v3(radix, site, &[1], 1));
        assert!(e.offset().is_some_and(|o| o < len), "{e}");
    }
    // a jump onto a jump (LLVM asserts this never happens), and i32::MIN
    let e = err(v3(&[2, 0, (-1i32) as u32, (-1i32) as u32, 0], 0, &[1], 1));
    assert!(e.to_string().contains("not another jump"), "{e}");
    let e = err(v3(&[1, 0x8000_0000], 0, &[1], 1));
    assert!(e.to_string().contains("radix jump"), "{e}");
    // a frame id past the frame array
    let e = err(v3(&[1, 2], 0, &[1], 1));
    assert!(e.to_string().contains("LinearFrameId"), "{e}");
    // unknown schema tags, too many tags
    assert_eq!(err(v3(&[1, 0], 0, &[1, 99], 1)).offset(), Some(48));
    assert_eq!(err(v3(&[1, 0], 0, &[0], 1)).offset(), Some(40));
    let mut d = v3(&[1, 0], 0, &[1], 1);
    d[32..40].copy_from_slice(&1000u64.to_le_bytes());
    assert_eq!(indexed(&d).unwrap_err().offset(), Some(32));
    // absurd NumAllocSites
    let e = err(v3(&[1, 0], 0, &[1], u64::MAX));
    assert!(e.to_string().contains("NumAllocSites"), "{e}");
    // offsets out of order or outside the input; unknown version
    let mut d = v3(&[1, 0], 0, &[1], 1);
    d[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert_eq!(indexed(&d).unwrap_err().offset(), Some(8));
    let mut d = v3(&[1, 0], 0, &[1], 1);
    d[0] = 5;
    assert_eq!(indexed(&d).unwrap_err().offset(), Some(0));
    // every truncation fails at or before the cut
    let d = v3(&radix, 0, &[1, 5], 1);
    for cut in 0..d.len() {
        let e = indexed(&d[..cut]).unwrap_err();
        assert!(e.offset().is_some_and(|o| o <= cut as u64), "cut {cut}: {e}");
    }
}

#[test]
fn corpus_memprof_truncated_and_flipped() {
    let data = read("llvm/memprof-progA/memprof-progA.profdata");
    // The MemProf section runs from 0x3318 to the binary ids at 0x4508.
    for cut in 0x3318..0x4508 {
        let e = decode_indexed::decode(&data[..cut]).unwrap_err();
        assert!(e.offset().is_some_and(|o| o <= cut as u64), "cut {cut:#x}: {e}");
    }
    for at in 0x3318..0x4508 {
        let mut bad = data.clone();
        bad[at] ^= 0xff;
        if let Err(e) = decode_indexed::decode(&bad) {
            assert!(e.offset().is_some(), "{at:#x}: {e}");
        }
    }
    let raw = read("llvm/memprof-progA/memprof-progA.memprofraw");
    for cut in 1..raw.len() {
        let e = decode_raw(&raw[..cut]).unwrap_err();
        assert!(e.offset().is_some_and(|o| o <= cut as u64), "raw cut {cut}: {e}");
    }
    for at in 0..raw.len() {
        let mut bad = raw.clone();
        bad[at] ^= 0xff;
        if let Err(e) = decode_raw(&bad) {
            assert!(e.offset().is_some(), "raw {at}: {e}");
        }
    }
    // absurd counts: NumMIBs at MIBOffset 0x238, NumPCs of the first stack at 0xbc0 + 16
    for at in [0x30, 0x238, 0xbc0, 0xbd0] {
        let mut bad = raw.clone();
        bad[at..at + 8].copy_from_slice(&(1u64 << 62).to_le_bytes());
        assert_eq!(decode_raw(&bad).unwrap_err().offset(), Some(at as u64), "{at:#x}");
    }
}
