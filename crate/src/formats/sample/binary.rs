//! Raw binary (`SPF_Binary`) and extensible binary (`SPF_Ext_Binary`) sample
//! profiles, version 103, and recognition of the obsolete compact binary.
//!
//! ```text
//! raw binary:  magic(ULEB) version(ULEB) summary name-table function-profiles…
//! ext binary:  magic(ULEB) version(ULEB) NumEntries u64
//!              {Type u64, Flags u64, Offset u64, Size u64} × NumEntries   (LE)
//!              sections at their Offset (absolute), in any order
//! ```
//!
//! The dump stops at section level: each section is one node named by its type and
//! flags; a compressed section shows its two ULEB sizes and the zlib payload.
//! Layout notes: `shared/formats/llvm-sample-profiles.md`.

use alloc::string::String;
use alloc::vec::Vec;

use super::{MAGIC_BINARY, MAGIC_COMPACT_BINARY, MAGIC_EXT_BINARY};
use crate::dump::{Fields, Node, Text};
use crate::error::{Error, Result};
use crate::format::Detection;
use crate::read::{Endian, Reader};

/// `SecType`, the ext-binary section types.
pub fn section_type_name(kind: u64) -> Option<&'static str> {
    Some(match kind {
        0 => "SecInValid",
        1 => "SecProfSummary",
        2 => "SecNameTable",
        3 => "SecProfileSymbolList",
        4 => "SecFuncOffsetTable",
        5 => "SecFuncMetadata",
        6 => "SecCSNameTable",
        32 => "SecLBRProfile",
        _ => return None,
    })
}

/// Flag `SecCommonFlags::SecFlagCompress`.
pub const FLAG_COMPRESS: u64 = 1;

/// Names the flags of a section of type `kind`: low 32 bits common, high 32 bits
/// specific to the type.
pub fn section_flag_names(kind: u64, flags: u64) -> String {
    let specific: &[(u32, &str)] = match kind {
        1 => &[
            (0, "partial"),
            (1, "context-nested/full-context"),
            (2, "fs-discriminator"),
            (4, "preinlined"),
            (5, "vtable-type-profiles"),
        ],
        2 => &[(0, "md5"), (1, "fixlenmd5"), (2, "uniq")],
        4 => &[(0, "ordered")],
        5 => &[(0, "probe"), (1, "attr")],
        _ => &[],
    };
    let mut names: Vec<String> = Vec::new();
    if flags & 1 != 0 {
        names.push(String::from("compressed"));
    }
    if flags & 2 != 0 {
        names.push(String::from("flat"));
    }
    let mut known = 3u64;
    for &(bit, name) in specific {
        let mask = 1u64.checked_shl(bit.saturating_add(32)).unwrap_or(0);
        known |= mask;
        if flags & mask != 0 {
            names.push(String::from(name));
        }
    }
    if flags & !known != 0 {
        names.push(alloc::format!("unknown {:#x}", flags & !known));
    }
    names.join("|")
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, Endian::Little);
    let mut f = Fields::new(&mut r);
    let magic_at = f.reader.offset();
    let magic = f.reader.uleb128("sample profile magic")?;
    f.node_since("magic", magic_at, format_args!("{magic:#018x}"));
    f.uleb128("version")?;
    let mut head = f.into_nodes();
    match magic {
        MAGIC_EXT_BINARY => dump_ext(data, head, &mut r),
        MAGIC_BINARY => {
            let mut root = Node::new("sample binary", 0, len);
            root.children.append(&mut head);
            root.children.push(dump_summary(&mut r)?);
            root.children.push(dump_name_table(&mut r)?);
            if !r.is_empty() {
                let remaining = r.remaining() as u64;
                root.children.push(Node::leaf("function profiles", r.offset(), len, format_args!("{remaining} bytes")));
            }
            root.tile()?;
            Ok(root)
        }
        MAGIC_COMPACT_BINARY => {
            let mut root = Node::new("sample compact binary", 0, len);
            root.children.append(&mut head);
            if !r.is_empty() {
                root.children.push(Node::leaf("profile", r.offset(), len, "compact binary (obsolete format)"));
            }
            root.tile()?;
            Ok(root)
        }
        other => Err(Error::invalid(magic_at, "a sample profile magic", other)),
    }
}

/// The summary: six ULEB fields, then {Cutoff, MinBlockCount, NumBlocks} entries.
fn dump_summary(r: &mut Reader<'_>) -> Result<Node> {
    let start = r.offset();
    let mut f = Fields::new(r);
    f.uleb128("TotalCount")?;
    f.uleb128("MaxBlockCount")?;
    f.uleb128("MaxFunctionCount")?;
    f.uleb128("NumBlocks")?;
    let functions = f.uleb128("NumFunctions")?;
    let count_at = f.reader.offset();
    let count = f.uleb128("NumSummaryEntries")?;
    // Each entry is three ULEBs, at least three bytes.
    if count > f.reader.remaining() as u64 / 3 {
        return Err(Error::invalid(count_at, "NumSummaryEntries that fit in the input", count));
    }
    let mut children = f.into_nodes();
    for i in 0..count {
        let entry_start = r.offset();
        let mut f = Fields::new(r);
        let cutoff = f.uleb128("Cutoff")?;
        f.uleb128("MinBlockCount")?;
        f.uleb128("NumBlocks")?;
        let nodes = f.into_nodes();
        children.push(Node::leaf(alloc::format!("entry {i}"), entry_start, r.offset(), cutoff).with_children(nodes));
    }
    let mut node =
        Node::leaf("summary", start, r.offset(), format_args!("{functions} functions")).with_children(children);
    node.tile()?;
    Ok(node)
}

/// Names shown one per node when the table has at most this many.
const NAME_NODES: u64 = 64;

/// The name table: a ULEB count, then NUL-terminated names.
fn dump_name_table(r: &mut Reader<'_>) -> Result<Node> {
    let start = r.offset();
    let mut f = Fields::new(r);
    let count_at = f.reader.offset();
    let count = f.uleb128("NumNames")?;
    if count > f.reader.remaining() as u64 {
        return Err(Error::invalid(count_at, "name count that fits in the input", count));
    }
    let names_at = f.reader.offset();
    let mut first = String::new();
    for i in 0..count {
        if count <= NAME_NODES {
            f.cstr("name")?;
        } else {
            let name = f.reader.cstr("name")?;
            if i < 3 {
                first.push_str(&alloc::format!("{}, ", Text(name)));
            }
        }
    }
    if count > NAME_NODES {
        f.node_since("names", names_at, format_args!("{first}…"));
    }
    let children = f.into_nodes();
    let mut node = Node::leaf("name table", start, r.offset(), format_args!("{count} names")).with_children(children);
    node.tile()?;
    Ok(node)
}

fn dump_ext(data: &[u8], head: Vec<Node>, r: &mut Reader<'_>) -> Result<Node> {
    let len = data.len() as u64;
    let mut root = Node::new("sample extbinary", 0, len).with_children(head);
    let table_start = r.offset();
    let mut f = Fields::new(r);
    let count_at = f.reader.offset();
    let count = f.u64("NumEntries")?;
    if count > f.reader.remaining() as u64 / 32 {
        return Err(Error::invalid(count_at, "section table entries that fit in the input", count));
    }
    let mut table = f.into_nodes();
    let mut sections = Vec::new();
    for i in 0..count {
        let entry_start = r.offset();
        let mut f = Fields::new(r);
        let kind = f.u64("Type")?;
        let flags = f.u64_hex("Flags")?;
        let offset_at = f.reader.offset();
        let offset = f.u64("Offset")?;
        let size = f.u64("Size")?;
        let nodes = f.into_nodes();
        let type_name = section_type_name(kind).map_or_else(|| alloc::format!("unknown type {kind}"), String::from);
        let flag_names = section_flag_names(kind, flags);
        let value =
            if flag_names.is_empty() { type_name.clone() } else { alloc::format!("{type_name} {{{flag_names}}}") };
        let entry = Node::leaf(alloc::format!("entry {i}"), entry_start, r.offset(), &value).with_children(nodes);
        table.push(entry);
        match offset.checked_add(size) {
            Some(end) if end <= len => {}
            _ => return Err(Error::invalid(offset_at, "section inside the file", offset)),
        }
        sections.push(dump_section(data, i, offset, size, flags, value)?);
    }
    let mut table = Node::leaf("section header table", table_start, r.offset(), count).with_children(table);
    table.tile()?;
    root.children.push(table);
    // Sections of size 0 may share an offset with a real one; keep them, empty.
    root.children.extend(sections);
    root.tile()?;
    Ok(root)
}

fn dump_section(data: &[u8], index: u64, offset: u64, size: u64, flags: u64, value: String) -> Result<Node> {
    let label = alloc::format!("section {index}");
    let mut node = Node::leaf(label, offset, offset.saturating_add(size), value);
    if flags & FLAG_COMPRESS == 0 || size == 0 {
        return Ok(node);
    }
    let mut s = Reader::new(data, Endian::Little).sub_at(offset, size, "section")?;
    let mut f = Fields::new(&mut s);
    f.uleb128("UncompressedSize")?;
    let compressed_at = f.reader.offset();
    let compressed = f.uleb128("CompressedSize")?;
    if compressed != f.reader.remaining() as u64 {
        return Err(Error::invalid(compressed_at, "CompressedSize that fills the section", compressed));
    }
    let payload_at = f.reader.offset();
    f.reader.skip(compressed, "compressed section")?;
    f.node_since("zlib data", payload_at, format_args!("{compressed} bytes"));
    node.children = f.into_nodes();
    node.tile()?;
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Format;

    fn det() -> Detection {
        Detection::new(Format::SampleBinary)
    }

    #[allow(clippy::panic)] // a missing corpus file fails the test, naming it
    fn corpus(path: &str) -> Vec<u8> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/");
        std::fs::read(alloc::format!("{root}{path}")).unwrap_or_else(|e| panic!("{root}{path}: {e}"))
    }

    /// ULEB128 of the ext-binary magic, as on disk.
    const EXT_MAGIC: [u8; 9] = [0x84, 0xe4, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53];
    const RAW_MAGIC: [u8; 9] = [0xff, 0xe5, 0xd0, 0xb1, 0xf4, 0xc9, 0x94, 0xa8, 0x53];

    fn raw() -> Vec<u8> {
        let mut d = RAW_MAGIC.to_vec(); // 0 magic
        d.push(103); // 9 version
        d.extend_from_slice(&[100, 50, 60, 3, 1]); // 10 TotalCount, MaxBlockCount, MaxFunctionCount, NumBlocks, NumFunctions
        d.push(1); // 15 NumSummaryEntries
        d.extend_from_slice(&[0x90, 0x4e, 50, 2]); // 16 Cutoff 10000, MinBlockCount 50, NumBlocks 2
        d.push(2); // 20 NumNames
        d.extend_from_slice(b"main\0foo\0"); // 21 names
        d.extend_from_slice(&[100, 0, 100, 0, 0]); // 30 one function profile
        d
    }

    fn ext() -> Vec<u8> {
        let mut d = EXT_MAGIC.to_vec(); // 0 magic
        d.push(103); // 9 version
        d.extend_from_slice(&2u64.to_le_bytes()); // 10 NumEntries
        for v in [2u64, 0, 82, 3] {
            d.extend_from_slice(&v.to_le_bytes()); // 18 NameTable, no flags, offset 82, size 3
        }
        for v in [32u64, 1, 85, 5] {
            d.extend_from_slice(&v.to_le_bytes()); // 50 LBRProfile, compressed, offset 85, size 5
        }
        d.extend_from_slice(&[1, b'a', 0]); // 82 name table: 1 name "a"
        d.extend_from_slice(&[9, 3, 0x78, 0x9c, 0x03]); // 85 UncompressedSize 9, CompressedSize 3, zlib bytes
        d
    }

    #[test]
    fn raw_binary_layout() {
        let data = raw();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            spans,
            [
                ("magic", 0, 9),
                ("version", 9, 10),
                ("summary", 10, 20),
                ("name table", 20, 30),
                ("function profiles", 30, 35)
            ]
        );
        assert_eq!(root.children[2].value.as_deref(), Some("1 functions"));
        assert_eq!(root.children[3].children[2].value.as_deref(), Some("foo"));
    }

    #[test]
    fn ext_binary_layout() {
        let data = ext();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            spans,
            [
                ("magic", 0, 9),
                ("version", 9, 10),
                ("section header table", 10, 82),
                ("section 0", 82, 85),
                ("section 1", 85, 90)
            ]
        );
        assert_eq!(root.children[3].value.as_deref(), Some("SecNameTable"));
        assert_eq!(root.children[4].value.as_deref(), Some("SecLBRProfile {compressed}"));
        assert_eq!(root.children[4].children[1].value.as_deref(), Some("3"));
    }

    #[test]
    fn truncations_and_absurd_counts() {
        for data in [raw(), ext()] {
            for cut in 0..data.len() {
                match dump(&data[..cut], &det()) {
                    Err(e) => assert!(e.offset().is_some_and(|o| o <= cut as u64), "cut at {cut}: {e}"),
                    // a raw binary cut inside its function profiles is still well-formed here
                    Ok(root) => assert_eq!(root.end, cut as u64),
                }
            }
        }
        let mut bad = ext();
        bad[10..18].copy_from_slice(&(1u64 << 60).to_le_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(10));
        let mut bad = ext();
        bad[34..42].copy_from_slice(&u64::MAX.to_le_bytes()); // section 0 Offset
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(34));
        let mut bad = raw();
        bad[20] = 0x7f; // NumNames 127 > bytes left
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(20));
    }

    #[test]
    fn corpus_secinfo() {
        // sample-basic.extbinary.prof.secinfo.txt
        let data = corpus("llvm/sample-basic/sample-basic.extbinary.prof");
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let table = &root.children[2];
        assert_eq!(table.end, 242); // Header Size: 242
        let sections: Vec<_> = root
            .children
            .iter()
            .filter(|c| c.label.starts_with("section "))
            .map(|c| (c.value.clone().unwrap_or_default(), c.start, c.len()))
            .collect();
        assert!(sections.contains(&("SecProfSummary".into(), 242, 105)));
        assert!(sections.contains(&("SecNameTable".into(), 347, 217)));
        assert!(sections.contains(&("SecFuncOffsetTable".into(), 962, 19)));
        assert!(sections.contains(&("SecLBRProfile".into(), 565, 397)));
        assert!(sections.contains(&("SecFuncMetadata".into(), 981, 0)));

        let data = corpus("llvm/sample-basic/sample-basic.extbinary-compressed.prof");
        let root = dump(&data, &det()).unwrap();
        assert!(root
            .children
            .iter()
            .any(|c| c.start == 353 && c.value.as_deref() == Some("SecNameTable {compressed}")));

        // "Total functions: 7" in sample-basic.binary.prof.summary.txt
        let data = corpus("llvm/sample-basic/sample-basic.binary.prof");
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.children[2].value.as_deref(), Some("7 functions"));
        for cut in 1..64 {
            let err = dump(&data[..cut], &det()).err();
            assert!(err.and_then(|e| e.offset()).is_some_and(|o| o <= cut as u64), "cut at {cut}");
        }
    }
}
