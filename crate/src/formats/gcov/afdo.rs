//! AutoFDO gcov v1–v3 (`.afdo`, LLVM's "GCC sample profile"): 32-bit words in the
//! producer's byte order, starting with the "gcda" magic word, a version word and a
//! zero word, then tagged sections:
//!
//! ```text
//! 0xa8000000 AFDO_SUMMARY     (v3, no length word) 6 counters + details
//! 0xaa000000 FILE_NAMES       length word; [v3: files]; names (+ v3 file index)
//! 0xac000000 FUNCTION         length word (ignored by readers); num_functions;
//!                             recursive symbol profiles
//! 0xae000000 MODULE_GROUPING  length word, then that many words
//! 0xaf000000 WORKING_SET      length word, then that many words
//! ```
//!
//! A counter is two words, low word first. Strings are a length word then the
//! bytes: the length counts 4-byte words (NUL-padded) in v1 and "*704", bytes
//! (including the NUL, unpadded) from v2.
//!
//! The "*704" version word is ambiguous: google/autofdo compares the version word
//! numerically, so its default ("*704" = 0x3430372a ≥ 3) writes the v3 layout under
//! it. We sniff: a summary tag after the header means v3 (byte strings); otherwise we
//! try word-length strings and fall back to byte-length ones.
//! Layout notes: `shared/formats/llvm-sample-profiles.md`.

use alloc::vec::Vec;

use crate::dump::{Fields, Node, Text};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

/// "gcda" as a word; little-endian producers write `adcg`.
pub const MAGIC: u32 = 0x6763_6461;
/// "*704": the GCC 4.7 version word LLVM expects.
pub const VERSION_704: u32 = 0x3430_372a;

pub const TAG_SUMMARY: u32 = 0xa800_0000;
pub const TAG_FILE_NAMES: u32 = 0xaa00_0000;
pub const TAG_FUNCTION: u32 = 0xac00_0000;
pub const TAG_MODULE_GROUPING: u32 = 0xae00_0000;
pub const TAG_WORKING_SET: u32 = 0xaf00_0000;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let endian = match data.get(..4) {
        Some(b"adcg") => Endian::Little,
        Some(b"gcda") => Endian::Big,
        _ => return Ok(None),
    };
    let mut r = Reader::new(data, endian);
    r.skip(4, "magic")?;
    let version = r.u32("version word")?;
    Ok(Some(Detection::new(Format::GcovAfdo).version(u64::from(version)).endian(endian)))
}

/// How a file's sections are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Layout {
    /// String lengths count bytes (v2+), not words.
    byte_strings: bool,
    /// Summary section, file table, file indexes and timestamps (v3).
    v3: bool,
}

/// Names shown one per node when a table has at most this many.
const NAME_NODES: u64 = 64;
/// Deepest inline nesting we follow (real profiles nest a few levels).
const MAX_DEPTH: u32 = 128;

fn counter(r: &mut Reader<'_>, expected: &'static str) -> Result<u64> {
    let low = r.u32(expected)?;
    let high = r.u32(expected)?;
    Ok(u64::from(low) | (u64::from(high) << 32))
}

fn counter_field(f: &mut Fields<'_, '_>, label: &'static str) -> Result<u64> {
    let at = f.reader.offset();
    let v = counter(f.reader, label)?;
    f.node_since(label, at, v);
    Ok(v)
}

/// A string: length word (in words or bytes by layout), then the bytes.
fn string<'a>(r: &mut Reader<'a>, layout: Layout) -> Result<&'a [u8]> {
    let at = r.offset();
    let len = u64::from(r.u32("string length")?);
    let bytes = if layout.byte_strings { len } else { len.saturating_mul(4) };
    if bytes > r.remaining() as u64 {
        return Err(Error::invalid(at, "string length that fits in the input", len));
    }
    let s = r.bytes(bytes, "string")?;
    Ok(s.split(|&b| b == 0).next().unwrap_or(s))
}

/// A run of `count` strings (with a v3 file-index word each when `indexed`).
fn strings(r: &mut Reader<'_>, layout: Layout, count_label: &'static str, indexed: bool) -> Result<Vec<Node>> {
    let mut f = Fields::new(r);
    let count_at = f.reader.offset();
    let count = u64::from(f.u32(count_label)?);
    // Every string takes at least its length word.
    if count > f.reader.remaining() as u64 / 4 {
        return Err(Error::invalid(count_at, "string count that fits in the input", count));
    }
    let list_at = f.reader.offset();
    for _ in 0..count {
        let at = f.reader.offset();
        let s = string(f.reader, layout)?;
        if indexed {
            f.reader.u32("file index")?;
        }
        if count <= NAME_NODES {
            f.node_since("name", at, Text(s));
        }
    }
    if count > NAME_NODES {
        f.node_since("names", list_at, count);
    }
    Ok(f.into_nodes())
}

/// Skips one symbol profile (and its inlined callees); returns its name index.
fn symbol(r: &mut Reader<'_>, layout: Layout, top: bool, depth: u32) -> Result<u32> {
    if depth > MAX_DEPTH {
        return Err(Error::malformed(r.offset(), "inline nesting deeper than 128 levels"));
    }
    if top {
        counter(r, "head_count")?;
        if layout.v3 {
            counter(r, "timestamp")?;
        }
    }
    let name = r.u32("name_index")?;
    let positions_at = r.offset();
    let positions = u64::from(r.u32("num_pos_counts")?);
    let callsites_at = r.offset();
    let callsites = u64::from(r.u32("num_callsites")?);
    // A position is at least 16 bytes, a callsite at least 16.
    if positions.saturating_add(callsites) > r.remaining() as u64 / 16 {
        let (at, n) =
            if positions > r.remaining() as u64 / 16 { (positions_at, positions) } else { (callsites_at, callsites) };
        return Err(Error::invalid(at, "position and callsite counts that fit in the input", n));
    }
    for _ in 0..positions {
        r.u32("position offset")?;
        let targets_at = r.offset();
        let targets = u64::from(r.u32("num_targets")?);
        counter(r, "count")?;
        if targets > r.remaining() as u64 / 20 {
            return Err(Error::invalid(targets_at, "target count that fits in the input", targets));
        }
        r.skip(targets.saturating_mul(20), "call targets")?;
    }
    for _ in 0..callsites {
        r.u32("callsite offset")?;
        symbol(r, layout, false, depth.saturating_add(1))?;
    }
    Ok(name)
}

fn dump_with(data: &[u8], endian: Endian, layout: Layout) -> Result<Node> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, endian);
    let mut f = Fields::new(&mut r);
    f.u32_hex("magic")?;
    let version_at = f.reader.offset();
    let version = f.reader.u32("version")?;
    let shown = match version {
        VERSION_704 => alloc::format!("{version:#x} (\"*704\", {} layout)", if layout.v3 { "v3" } else { "v1" }),
        v => alloc::format!("{v:#x}"),
    };
    f.node_since("version", version_at, shown);
    f.u32("zero")?;
    let mut root = Node::new("gcov afdo", 0, len).with_children(f.into_nodes());
    let (mut has_names, mut has_functions) = (false, false);

    while r.remaining() >= 4 {
        let start = r.offset();
        let mut peek = r;
        let tag = peek.u32("tag")?;
        if !matches!(tag, TAG_SUMMARY | TAG_FILE_NAMES | TAG_FUNCTION | TAG_MODULE_GROUPING | TAG_WORKING_SET) {
            break;
        }
        let mut f = Fields::new(&mut r);
        f.u32_hex("tag")?;
        let node = match tag {
            TAG_SUMMARY => {
                for label in ["total_count", "max_count", "max_fn_count", "num_counts", "num_functions"] {
                    counter_field(&mut f, label)?;
                }
                let count_at = f.reader.offset();
                let details = counter_field(&mut f, "num_detailed")?;
                if details > f.reader.remaining() as u64 / 20 {
                    return Err(Error::invalid(count_at, "summary detail count that fits in the input", details));
                }
                let at = f.reader.offset();
                f.reader.skip(details.saturating_mul(20), "summary details")?;
                f.node_since("details", at, details);
                ("AFDO_SUMMARY", f.into_nodes())
            }
            TAG_FILE_NAMES => {
                f.u32("length")?;
                let mut nodes = f.into_nodes();
                if layout.v3 {
                    nodes.extend(strings(&mut r, layout, "num_files", false)?);
                }
                nodes.extend(strings(&mut r, layout, "num_names", layout.v3)?);
                ("AFDO_FILE_NAMES", nodes)
            }
            TAG_FUNCTION => {
                f.u32("length")?;
                let count_at = f.reader.offset();
                let count = u64::from(f.u32("num_functions")?);
                if count > f.reader.remaining() as u64 / 20 {
                    return Err(Error::invalid(count_at, "function count that fits in the input", count));
                }
                let mut nodes = f.into_nodes();
                for i in 0..count {
                    let at = r.offset();
                    let name = symbol(&mut r, layout, true, 0)?;
                    let label = alloc::format!("function {i}");
                    nodes.push(Node::leaf(label, at, r.offset(), format_args!("name index {name}")));
                }
                ("AFDO_FUNCTION", nodes)
            }
            _ => {
                let len_at = f.reader.offset();
                let words = u64::from(f.u32("length")?);
                let bytes = words.saturating_mul(4);
                if bytes > f.reader.remaining() as u64 {
                    return Err(Error::invalid(len_at, "section length that fits in the input", words));
                }
                let at = f.reader.offset();
                f.reader.skip(bytes, "section")?;
                if bytes > 0 {
                    f.node_since("payload", at, format_args!("{words} words"));
                }
                let label = if tag == TAG_MODULE_GROUPING { "MODULE_GROUPING" } else { "AFDO_WORKING_SET" };
                (label, f.into_nodes())
            }
        };
        has_names |= tag == TAG_FILE_NAMES;
        has_functions |= tag == TAG_FUNCTION;
        let mut section = Node::new(node.0, start, r.offset()).with_children(node.1);
        section.tile()?;
        root.children.push(section);
    }
    // Readers (LLVM's, autofdo's) need the name table and the functions; the module
    // grouping and working set after them are optional.
    if !(has_names && has_functions) {
        let expected = if has_names { "an AFDO_FUNCTION section" } else { "an AFDO_FILE_NAMES section" };
        return Err(Error::eof(r.offset(), expected));
    }
    root.tile()?;
    Ok(root)
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let endian = match data.get(..4) {
        Some(b"adcg") => Endian::Little,
        Some(b"gcda") => Endian::Big,
        _ => return Err(Error::malformed(0, "expected the \"gcda\" magic word")),
    };
    let mut r = Reader::new(data, endian);
    r.skip(4, "magic")?;
    let version = r.u32("version word")?;
    r.u32("zero word")?;
    let first_tag = r.u32("first section tag").ok();
    let v3 = Layout { byte_strings: true, v3: true };
    let v2 = Layout { byte_strings: true, v3: false };
    let v1 = Layout { byte_strings: false, v3: false };
    match version {
        1 => dump_with(data, endian, v1),
        2 => dump_with(data, endian, v2),
        3 => dump_with(data, endian, v3),
        VERSION_704 if first_tag == Some(TAG_SUMMARY) => dump_with(data, endian, v3),
        // "*704" without a summary, or a version we do not know: word-length
        // strings first, then byte-length ones.
        _ => dump_with(data, endian, v1).or_else(|first| dump_with(data, endian, v2).map_err(|_| first)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det() -> Detection {
        Detection::new(Format::GcovAfdo)
    }

    #[allow(clippy::panic)] // a missing corpus file fails the test, naming it
    fn corpus(path: &str) -> Vec<u8> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
        std::fs::read(alloc::format!("{root}{path}")).unwrap_or_else(|e| panic!("{root}{path}: {e}"))
    }

    fn words(d: &mut Vec<u8>, ws: &[u32]) {
        ws.iter().for_each(|w| d.extend_from_slice(&w.to_le_bytes()));
    }

    /// A "*704" file in the v1 layout: word-length strings, one function with one
    /// position and one inlined callsite.
    fn v1() -> Vec<u8> {
        let mut d = b"adcg".to_vec(); // 0 magic
        words(&mut d, &[VERSION_704, 0]); // 4 version "*704", 8 zero
        words(&mut d, &[TAG_FILE_NAMES, 5, 2]); // 12 tag, length, num_names 2
        words(&mut d, &[1, 0]); // 24 "" (1 word)
        words(&mut d, &[2]); // 32 "main" (2 words)
        d.extend_from_slice(b"main\0\0\0\0"); // 36
        words(&mut d, &[TAG_FUNCTION, 0, 1]); // 44 tag, length (ignored), num_functions 1
        words(&mut d, &[10, 0]); // 56 head_count 10
        words(&mut d, &[1, 1, 1]); // 64 name_index 1, num_pos_counts 1, num_callsites 1
        words(&mut d, &[0x0001_0000, 0, 7, 0]); // 76 offset (line 1), num_targets 0, count 7
        words(&mut d, &[0x0002_0000, 1, 0, 0]); // 92 callsite offset, callee name 1, no positions, no callsites
        words(&mut d, &[TAG_MODULE_GROUPING, 1, 0]); // 108 tag, length 1, count 0
        d
    }

    /// A v3 layout under "*704": summary, file table, byte-length strings.
    fn v3() -> Vec<u8> {
        let mut d = b"adcg".to_vec(); // 0 magic
        words(&mut d, &[VERSION_704, 0]); // 4 version, 8 zero
        words(&mut d, &[TAG_SUMMARY]); // 12 tag (no length word)
        words(&mut d, &[100, 0, 50, 0, 50, 0, 3, 0, 1, 0, 1, 0]); // 16 six counters, num_detailed 1
        words(&mut d, &[10000, 40, 0, 2, 0]); // 64 cutoff, min_count, num_counts
        words(&mut d, &[TAG_FILE_NAMES, 0, 1, 4]); // 84 tag, length, num_files 1, "a.c" (4 bytes)
        d.extend_from_slice(b"a.c\0"); // 100
        words(&mut d, &[1, 2]); // 104 num_names 1, "f" (2 bytes)
        d.extend_from_slice(b"f\0"); // 112
        words(&mut d, &[0]); // 114 file index 0 (unaligned from here)
        words(&mut d, &[TAG_FUNCTION, 0, 0]); // 118 tag, length, no functions
        d
    }

    #[test]
    fn v1_layout_walks_functions() {
        let data = v1();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            spans,
            [
                ("magic", 0, 4),
                ("version", 4, 8),
                ("zero", 8, 12),
                ("AFDO_FILE_NAMES", 12, 44),
                ("AFDO_FUNCTION", 44, 108),
                ("MODULE_GROUPING", 108, 120)
            ]
        );
        assert_eq!(root.children[1].value.as_deref(), Some("0x3430372a (\"*704\", v1 layout)"));
        let names = &root.children[3];
        assert_eq!((names.children[4].start, names.children[4].value.as_deref()), (32, Some("main")));
        let function = &root.children[4].children[3];
        assert_eq!((function.start, function.end, function.value.as_deref()), (56, 108, Some("name index 1")));
    }

    #[test]
    fn v3_layout_under_704() {
        let data = v3();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().skip(3).map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(spans, [("AFDO_SUMMARY", 12, 84), ("AFDO_FILE_NAMES", 84, 118), ("AFDO_FUNCTION", 118, 130)]);
        let summary = &root.children[3];
        assert_eq!(summary.children[1].value.as_deref(), Some("100"));
        assert_eq!(root.children[4].children[3].value.as_deref(), Some("a.c"));
    }

    #[test]
    fn truncations_and_absurd_counts() {
        for data in [v1(), v3()] {
            for cut in 0..data.len() {
                match dump(&data[..cut], &det()) {
                    Err(e) => assert!(e.offset().is_some_and(|o| o <= cut as u64), "cut at {cut}: {e}"),
                    Ok(root) => assert_eq!(root.end, cut as u64),
                }
            }
        }
        let mut bad = v1();
        bad[52..56].copy_from_slice(&u32::MAX.to_le_bytes()); // num_functions
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(52));
        let mut bad = v1();
        bad[68..72].copy_from_slice(&0x1000_0000u32.to_le_bytes()); // num_pos_counts
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(68));
        // inlined callsites nested past the depth limit: an error, not a stack overflow
        let mut deep = b"adcg".to_vec();
        words(&mut deep, &[1, 0, TAG_FUNCTION, 0, 1, 0, 0]);
        for _ in 0..200 {
            words(&mut deep, &[1, 0, 1, 0]); // name, no positions, one callsite, callsite offset
        }
        assert!(dump(&deep, &det()).is_err());
    }

    #[test]
    fn corpus_files() {
        // afdo-progB.afdo.dump_gcov.txt lists 6 functions; 9 names incl. ""
        let data = corpus("llvm/afdo-progB/afdo-progB.afdo");
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let functions = root.children.iter().find(|c| c.label == "AFDO_FUNCTION").unwrap();
        assert_eq!(functions.children[2].value.as_deref(), Some("6"));
        assert_eq!((functions.start, functions.end), (0x94, 0x5c8));
        assert!(root.children.iter().all(|c| c.label != "unparsed"));
        let data = corpus("peers/llvm-profparser/llvm-12/gcc-sample-profile.gcov");
        let root = dump(&data, &det()).unwrap();
        assert!(root.children.iter().all(|c| c.label != "unparsed"));
        for cut in 1..64 {
            if let Err(e) = dump(&data[..cut], &det()) {
                assert!(e.offset().is_some_and(|o| o <= cut as u64));
            }
        }
    }
}
