//! AutoFDO GCOV v4 (the 2026 proposal, `shared/seeds/004_*.txt` section 4), binary
//! form: big-endian, "gcov" magic, version 4, a section table.
//!
//! ```text
//! 0  "gcov"   4  version = 4   8  header bitmask (bit 7 compact)
//! 9  GCOV_NUM_SECTIONS (7 bytes BE)
//! 16 summary offset, size   32 file-names offset, size   (u64 BE each)
//! 48 section table: {offset u64, size u64} × GCOV_NUM_SECTIONS
//! ```
//!
//! Each section starts with a bitmask byte: bit 7 compact, bits 0–6 the type
//! (1 string table, 2 summary, 3 file names, 4 symbol names, 5 symbol info). We
//! take a section's size to include that byte.
//!
//! Compact mode (header bit 7) is ambiguous in the proposal (notes
//! `shared/formats/autofdo-gcov-v4.md`, items 1–2). Our reading: after the fixed
//! 8 bytes and the bitmask byte, GCOV_NUM_SECTIONS and every offset and size of
//! the header are consecutive varints (protobuf: 7 bits a byte, low group first),
//! with no padding, so the header shrinks. The 7-byte width of GCOV_NUM_SECTIONS
//! only exists to keep the following u64 fields 8-byte aligned, which varints
//! do not need, and the proposal says only the first 8 bytes stay fixed.
//!
//! The fixed summary and file-names sections should not appear in the table again,
//! but a table entry with exactly their offset and size is tolerated (shown in the
//! table, not twice as a region).

use alloc::vec::Vec;

use crate::dump::{Fields, Node};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::read::{Endian, Reader};

pub const MAGIC: &[u8; 4] = b"gcov";
/// Header bitmask and section bitmask bit 7.
pub const COMPACT: u8 = 0x80;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    if !data.starts_with(MAGIC) {
        return Ok(None);
    }
    match data.get(4..8) {
        None => Err(Error::eof(4, "GCOV_VERSION")),
        Some([0, 0, 0, 4]) => {
            let mut d = Detection::new(Format::GcovV4).version(4).endian(Endian::Big);
            if data.get(8).is_some_and(|b| b & COMPACT != 0) {
                d = d.flag("compact");
            }
            Ok(Some(d))
        }
        Some(_) => Ok(None),
    }
}

/// Section types (bits 0–6 of a section bitmask).
pub fn section_type_name(kind: u8) -> Option<&'static str> {
    Some(match kind {
        1 => "GCOV_STRING_TABLE",
        2 => "GCOV_SUMMARY_INFO",
        3 => "GCOV_FILE_NAMES",
        4 => "GCOV_SYMBOL_NAMES",
        5 => "GCOV_SYMBOL_INFO",
        _ => return None,
    })
}

/// Reads one header integer: a u64 BE, or a varint in compact mode.
fn int(f: &mut Fields<'_, '_>, compact: bool, label: &'static str) -> Result<(u64, u64)> {
    let at = f.reader.offset();
    let v = if compact { f.uleb128(label)? } else { f.u64(label)? };
    Ok((v, at))
}

/// The region of one section: its bitmask byte, then its data.
fn section(data: &[u8], label: &'static str, index: u64, offset: u64, size: u64, at: u64) -> Result<Node> {
    let len = data.len() as u64;
    match offset.checked_add(size) {
        Some(end) if end <= len => {}
        _ => return Err(Error::invalid(at, "section inside the file", offset)),
    }
    let label = if label.is_empty() { alloc::format!("section {index}") } else { alloc::string::String::from(label) };
    if size == 0 {
        return Ok(Node::leaf(label, offset, offset, "empty"));
    }
    let mut r = Reader::new(data, Endian::Big).sub_at(offset, size, "section")?;
    let mut f = Fields::new(&mut r);
    let mask_at = f.reader.offset();
    let mask = f.reader.u8("GCOV_SECTION_BITMASK")?;
    let kind = mask & !COMPACT;
    let name =
        section_type_name(kind).map_or_else(|| alloc::format!("unknown type {kind}"), alloc::string::String::from);
    let value = if mask & COMPACT != 0 { alloc::format!("{name} (compact)") } else { name };
    f.node_since("GCOV_SECTION_BITMASK", mask_at, format_args!("{mask:#04x} = {value}"));
    let rest = f.reader.remaining() as u64;
    if rest > 0 {
        let data_at = f.reader.offset();
        f.reader.skip(rest, "section data")?;
        f.node_since("data", data_at, format_args!("{rest} bytes"));
    }
    let mut node = Node::leaf(label, offset, offset.saturating_add(size), value).with_children(f.into_nodes());
    node.tile()?;
    Ok(node)
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, Endian::Big);
    let mut f = Fields::new(&mut r);
    let magic = f.bytes(4, "GCOV_MAGIC")?;
    if magic != MAGIC {
        return Err(Error::malformed(0, "expected the \"gcov\" magic"));
    }
    let version = f.u32("GCOV_VERSION")?;
    if version != 4 {
        return Err(Error::invalid(4, "GCOV_VERSION 4", u64::from(version)));
    }
    let mask_at = f.reader.offset();
    let mask = f.reader.u8("GCOV_HEADER_BITMASK")?;
    let compact = mask & COMPACT != 0;
    f.node_since(
        "GCOV_HEADER_BITMASK",
        mask_at,
        format_args!("{mask:#04x}{}", if compact { " (compact)" } else { "" }),
    );
    let count_at = f.reader.offset();
    let count = if compact { f.uleb128("GCOV_NUM_SECTIONS")? } else { f.uint(7, "GCOV_NUM_SECTIONS")? };
    let (summary_offset, summary_at) = int(&mut f, compact, "GCOV_SUMMARY_OFFSET")?;
    let (summary_size, _) = int(&mut f, compact, "GCOV_SUMMARY_SIZE")?;
    let (names_offset, names_at) = int(&mut f, compact, "GCOV_FILE_NAMES_OFFSET")?;
    let (names_size, _) = int(&mut f, compact, "GCOV_FILE_NAMES_SIZE")?;
    // A table entry takes 16 bytes, or at least 2 as varints.
    let min_entry = if compact { 2 } else { 16 };
    if count > (f.reader.remaining() as u64).checked_div(min_entry).unwrap_or(0) {
        return Err(Error::invalid(count_at, "GCOV_NUM_SECTIONS entries that fit in the file", count));
    }
    let mut header = Node::new("header", 0, f.reader.offset()).with_children(f.into_nodes());
    header.tile()?;

    let mut root = Node::new("gcov v4", 0, len);
    root.children.push(header);
    root.children.push(section(data, "summary section", 0, summary_offset, summary_size, summary_at)?);
    root.children.push(section(data, "file names section", 1, names_offset, names_size, names_at)?);
    let fixed = [(summary_offset, summary_size), (names_offset, names_size)];

    let table_start = r.offset();
    let mut entries = Vec::new();
    for i in 0..count {
        let entry_start = r.offset();
        let mut f = Fields::new(&mut r);
        let (offset, offset_at) = int(&mut f, compact, "GCOV_SECTION_OFFSET")?;
        let (size, _) = int(&mut f, compact, "GCOV_SECTION_SIZE")?;
        let nodes = f.into_nodes();
        entries.push(Node::new(alloc::format!("entry {i}"), entry_start, r.offset()).with_children(nodes));
        if !fixed.contains(&(offset, size)) {
            // Indices count the two fixed sections first.
            root.children.push(section(data, "", i.saturating_add(2), offset, size, offset_at)?);
        }
    }
    if count > 0 {
        let mut table = Node::leaf("section table", table_start, r.offset(), count).with_children(entries);
        table.tile()?;
        root.children.push(table);
    }
    root.tile()?;
    Ok(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn det() -> Detection {
        Detection::new(Format::GcovV4)
    }

    /// A normal-mode file: header, one table entry, three one-section regions.
    fn normal() -> Vec<u8> {
        let mut d = Vec::new();
        d.extend_from_slice(b"gcov"); // 0 GCOV_MAGIC
        d.extend_from_slice(&[0, 0, 0, 4]); // 4 GCOV_VERSION
        d.push(0x00); // 8 GCOV_HEADER_BITMASK: not compact
        d.extend_from_slice(&[0, 0, 0, 0, 0, 0, 1]); // 9 GCOV_NUM_SECTIONS = 1 (7 bytes BE)
        d.extend_from_slice(&64u64.to_be_bytes()); // 16 GCOV_SUMMARY_OFFSET = 64
        d.extend_from_slice(&3u64.to_be_bytes()); // 24 GCOV_SUMMARY_SIZE = 3
        d.extend_from_slice(&67u64.to_be_bytes()); // 32 GCOV_FILE_NAMES_OFFSET = 67
        d.extend_from_slice(&2u64.to_be_bytes()); // 40 GCOV_FILE_NAMES_SIZE = 2
        d.extend_from_slice(&69u64.to_be_bytes()); // 48 GCOV_SECTION_OFFSET = 69
        d.extend_from_slice(&5u64.to_be_bytes()); // 56 GCOV_SECTION_SIZE = 5
        d.extend_from_slice(&[0x02, 0xaa, 0xbb]); // 64 summary: bitmask type 2, 2 data bytes
        d.extend_from_slice(&[0x03, 0xcc]); // 67 file names: bitmask type 3, 1 data byte
        d.extend_from_slice(&[0x81, 1, 2, 3, 4]); // 69 string table, compact flag, 4 data bytes
        d
    }

    #[test]
    fn normal_header_and_sections() {
        let data = normal();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let labels: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            labels,
            [
                ("header", 0, 48),
                ("section table", 48, 64),
                ("summary section", 64, 67),
                ("file names section", 67, 69),
                ("section 2", 69, 74)
            ]
        );
        let header = &root.children[0];
        assert_eq!(header.children[3].label, "GCOV_NUM_SECTIONS");
        assert_eq!((header.children[3].start, header.children[3].end), (9, 16));
        assert_eq!(header.children[3].value.as_deref(), Some("1"));
        assert_eq!(root.children[2].value.as_deref(), Some("GCOV_SUMMARY_INFO"));
        assert_eq!(root.children[4].value.as_deref(), Some("GCOV_STRING_TABLE (compact)"));
        assert_eq!(root.children[4].children[1].value.as_deref(), Some("4 bytes"));
    }

    #[test]
    fn compact_header_is_varints() {
        let mut d = Vec::new();
        d.extend_from_slice(b"gcov"); // 0 GCOV_MAGIC
        d.extend_from_slice(&[0, 0, 0, 4]); // 4 GCOV_VERSION
        d.push(0x80); // 8 GCOV_HEADER_BITMASK: compact
        d.push(1); // 9 GCOV_NUM_SECTIONS = 1 (varint)
        d.extend_from_slice(&[18, 2]); // 10 summary offset 18, size 2
        d.extend_from_slice(&[20, 1]); // 12 file names offset 20, size 1
        d.extend_from_slice(&[21, 0x81, 0x01]); // 14 entry: offset 21, size 129 (two-byte varint)
        d.push(0); // 17 one byte nobody claims
        d.extend_from_slice(&[0x82, 0x00]); // 18 summary: compact, type 2
        d.push(0x83); // 20 file names: compact, type 3
        d.extend_from_slice(&[0x85; 129]); // 21 symbol info, compact, 128 data bytes
        let root = dump(&d, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let spans: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            spans,
            [
                ("header", 0, 14),
                ("section table", 14, 17),
                ("unparsed", 17, 18),
                ("summary section", 18, 20),
                ("file names section", 20, 21),
                ("section 2", 21, 150)
            ]
        );
        assert_eq!(root.children[5].value.as_deref(), Some("GCOV_SYMBOL_INFO (compact)"));
    }

    #[test]
    fn truncations_and_bad_values_are_errors() {
        let data = normal();
        for cut in 0..data.len() {
            let err = dump(&data[..cut], &det()).err();
            let at = err.and_then(|e| e.offset());
            assert!(at.is_some_and(|o| o <= cut as u64), "cut at {cut}: {err:?}");
        }
        // GCOV_NUM_SECTIONS = 2^52: named at its offset
        let mut bad = normal();
        bad[9] = 0x10;
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(9));
        // a section past the end of the file: named at its offset field
        let mut bad = normal();
        bad[48..56].copy_from_slice(&u64::MAX.to_be_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(48));
        // overlapping sections are rejected by the tiling
        let mut bad = normal();
        bad[48..56].copy_from_slice(&65u64.to_be_bytes());
        assert!(dump(&bad, &det()).is_err());
    }
}
