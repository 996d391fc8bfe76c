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
use crate::detect::Detection;
use crate::dump::{Fields, Node, Text};
use crate::error::{Error, Result};
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
    let specific: &[(u64, &str)] = match kind {
        1 => &[(0, "partial"), (1, "context-nested/full-context"), (2, "fs-discriminator"), (4, "preinlined"), (5, "vtable-type-profiles")],
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
        let mask = 1u64 << (32 + bit);
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
    let mut node = Node::leaf("summary", start, r.offset(), format_args!("{functions} functions")).with_children(children);
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
        let value = if flag_names.is_empty() { type_name.clone() } else { alloc::format!("{type_name} {{{flag_names}}}") };
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
