//! The dump of raw binary (`SPF_Binary`) and extensible binary (`SPF_Ext_Binary`)
//! sample profiles, version 103, and recognition of the obsolete compact binary.
//!
//! ```text
//! raw binary:  magic(ULEB) version(ULEB) summary name-table function-profiles…
//! ext binary:  magic(ULEB) version(ULEB) NumEntries u64
//!              {Type u64, Flags u64, Offset u64, Size u64} × NumEntries   (LE)
//!              sections at their Offset (absolute), in any order
//! ```
//!
//! The dump is made by the decoder itself ([`super::decode_binary`]), which records
//! every field it reads in a [`Trace`] when asked: the header, the section table,
//! every section's entries down to each function record, body record, call target,
//! inlined callsite (nested), vtable record, CS context frame, offset-table entry,
//! metadata record and symbol. A compressed section shows its two sizes and its zlib
//! payload, whose value says what it inflated to; its entries have no bytes in the
//! file to span. A list of more than [`ITEMS_PER_BLOCK`] items (function records,
//! names, offset entries…) is shown as deferred blocks that [`expand`] builds by
//! reading the file again, so a large profile's dump starts small.
//! Layout notes: `shared/formats/llvm-sample-profiles.md`.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::{self, Display};

use super::model::Profile;
use super::{decode_binary, MAGIC_COMPACT_BINARY};
use crate::dump::{Deferred, Fields, Node};
use crate::error::{Error, Result};
use crate::format::Detection;
use crate::read::{Endian, Reader};

/// `SecType`, an extbinary section type. Open: types LLVM 22 does not know are
/// skipped by their size (`readCustomSection`), and shown as raw bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SecType(pub u64);

impl SecType {
    pub const INVALID: SecType = SecType(0);
    pub const PROF_SUMMARY: SecType = SecType(1);
    pub const NAME_TABLE: SecType = SecType(2);
    pub const PROFILE_SYMBOL_LIST: SecType = SecType(3);
    pub const FUNC_OFFSET_TABLE: SecType = SecType(4);
    pub const FUNC_METADATA: SecType = SecType(5);
    pub const CS_NAME_TABLE: SecType = SecType(6);
    pub const LBR_PROFILE: SecType = SecType(32);

    pub fn name(self) -> Option<&'static str> {
        section_type_name(self.0)
    }
}

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
/// Flag `SecCommonFlags::SecFlagFlat`: a profile section without inlined callees.
pub const FLAG_FLAT: u64 = 1 << 1;
/// Section-specific flags sit in the high 32 bits (`addSecFlag`).
pub const SUMMARY_PARTIAL: u64 = 1 << 32;
pub const SUMMARY_FULL_CONTEXT: u64 = 1 << 33;
pub const SUMMARY_FS_DISCRIMINATOR: u64 = 1 << 34;
pub const SUMMARY_PREINLINED: u64 = 1 << 36;
pub const SUMMARY_VTABLE_TYPES: u64 = 1 << 37;
pub const NAME_TABLE_MD5: u64 = 1 << 32;
pub const NAME_TABLE_FIXED_LENGTH_MD5: u64 = 1 << 33;
pub const NAME_TABLE_UNIQ_SUFFIX: u64 = 1 << 34;
pub const FUNC_OFFSET_ORDERED: u64 = 1 << 32;
pub const FUNC_METADATA_PROBE: u64 = 1 << 32;
pub const FUNC_METADATA_ATTRIBUTES: u64 = 1 << 33;

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
    if flags & FLAG_COMPRESS != 0 {
        names.push(String::from("compressed"));
    }
    if flags & FLAG_FLAT != 0 {
        names.push(String::from("flat"));
    }
    let mut known = FLAG_COMPRESS | FLAG_FLAT;
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

/// A section's type and flags as the dump shows them: `SecNameTable {md5}`.
pub struct SectionTitle {
    pub kind: u64,
    pub flags: u64,
}

impl Display for SectionTitle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match section_type_name(self.kind) {
            Some(name) => f.write_str(name)?,
            None => write!(f, "unknown type {}", self.kind)?,
        }
        let flags = section_flag_names(self.kind, self.flags);
        if !flags.is_empty() {
            write!(f, " {{{flags}}}")?;
        }
        Ok(())
    }
}

/// A node label: fixed, or a word and an index (`function 3`), formatted only when
/// the trace is on.
#[derive(Clone, Copy)]
pub(super) enum Label {
    Fixed(&'static str),
    Nth(&'static str, u64),
}

impl Label {
    fn text(self) -> Cow<'static, str> {
        match self {
            Label::Fixed(s) => Cow::Borrowed(s),
            Label::Nth(s, i) => Cow::Owned(alloc::format!("{s} {i}")),
        }
    }
}

/// Items of one list (function records, names, contexts, offset entries, metadata
/// records, symbols) shown as nodes; a list with more becomes deferred blocks of
/// this many, which [`expand`] builds when asked.
pub const ITEMS_PER_BLOCK: usize = 1024;
/// The lists whose items may be deferred; a block's deferred tag is its list's
/// (`first` is its first item's index).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ListKind {
    Functions = 1,
    Names = 2,
    Contexts = 3,
    OffsetEntries = 4,
    MetadataRecords = 5,
    Symbols = 6,
}

impl ListKind {
    const ALL: [ListKind; 6] = [
        ListKind::Functions,
        ListKind::Names,
        ListKind::Contexts,
        ListKind::OffsetEntries,
        ListKind::MetadataRecords,
        ListKind::Symbols,
    ];

    fn tag(self) -> u32 {
        self as u32
    }

    /// What a block of the list is called: `functions 0..1024`.
    fn noun(self) -> &'static str {
        match self {
            ListKind::Functions => "functions",
            ListKind::Names => "names",
            ListKind::Contexts => "contexts",
            ListKind::OffsetEntries => "entries",
            ListKind::MetadataRecords => "records",
            ListKind::Symbols => "symbols",
        }
    }
}

/// The dump side of the binary reader. When on, every field the reader reads
/// becomes a leaf, and `open`/`close` group them into nodes; when off (plain
/// decoding) every call returns at once and nothing is formatted.
pub(super) struct Trace {
    on: bool,
    /// The children of each node being built, outermost (the file's) first.
    levels: Vec<Vec<Node>>,
    /// When expanding a deferred block: the block, whose items alone are recorded.
    focus: Option<Focus>,
    /// Inside a compressed section: nothing is recorded, focused or not.
    paused: bool,
}

/// A deferred block being expanded: its items' span and the first one's index.
#[derive(Clone, Copy)]
struct Focus {
    kind: ListKind,
    start: u64,
    end: u64,
    first: u64,
    /// The reader has been moved to the block: once its items are read, so is all
    /// that the expansion needs.
    reached: bool,
}

/// The trace's view of a list being read (see [`ITEMS_PER_BLOCK`]).
pub(super) struct List {
    kind: ListKind,
    /// Where each item starts, while the list is recorded.
    starts: Vec<u64>,
    /// The length of the current level when the list began: its items follow.
    base: usize,
    /// Past [`ITEMS_PER_BLOCK`] items, the list's items are no longer recorded.
    collapsed: bool,
    /// Whether the trace was on before the current item.
    resume: bool,
    count: usize,
}

impl Trace {
    pub(super) fn new(on: bool) -> Self {
        Trace { on, levels: alloc::vec![Vec::new()], focus: None, paused: false }
    }

    /// A trace that records only the items of a deferred block.
    fn focused(kind: ListKind, deferred: &Deferred) -> Self {
        let focus = Focus { kind, start: deferred.start, end: deferred.end, first: deferred.first, reached: false };
        Trace { on: false, levels: alloc::vec![Vec::new()], focus: Some(focus), paused: false }
    }

    /// Before the items of `list`, read from `r`: when expanding a block of such a
    /// list inside `r`, moves `r` to it and returns its first item's index and where
    /// it ends; else `(0, u64::MAX)`.
    pub(super) fn seek(&mut self, list: &List, r: &mut Reader<'_>) -> Result<(u64, u64)> {
        let here = r.offset()..r.end_offset();
        match &mut self.focus {
            Some(focus) if !self.paused && !focus.reached && focus.kind == list.kind && here.contains(&focus.start) => {
                *r = r.seek_clone(focus.start, "a deferred block inside its list")?;
                focus.reached = true;
                Ok((focus.first, focus.end))
            }
            _ => Ok((0, u64::MAX)),
        }
    }

    /// Whether an expansion has read its block: decoding can stop.
    pub(super) fn finished(&self) -> bool {
        self.focus.is_some_and(|f| f.reached)
    }

    /// Whether an expansion can skip the bytes `start..end` (a section that is not
    /// the block's and holds no table later items refer to).
    pub(super) fn skips(&self, start: u64, end: u64) -> bool {
        self.focus.is_some_and(|f| !(start..end).contains(&f.start))
    }

    #[inline]
    pub(super) fn field(&mut self, label: &'static str, start: u64, end: u64, value: impl Display) {
        if self.on {
            self.push(Label::Fixed(label), start, end, value);
        }
    }

    /// A leaf labelled with an index (`name 7`).
    #[inline]
    pub(super) fn item(&mut self, label: &'static str, index: u64, start: u64, end: u64, value: impl Display) {
        if self.on {
            self.push(Label::Nth(label, index), start, end, value);
        }
    }

    fn push(&mut self, label: Label, start: u64, end: u64, value: impl Display) {
        if let Some(level) = self.levels.last_mut() {
            level.push(Node::leaf(label.text(), start, end, value));
        }
    }

    /// Starts a node: what is recorded until the matching `close` are its children.
    #[inline]
    pub(super) fn open(&mut self) {
        if self.on {
            self.levels.push(Vec::new());
        }
    }

    #[inline]
    pub(super) fn close(&mut self, label: Label, start: u64, end: u64, value: impl Display) {
        if !self.on || self.levels.len() < 2 {
            return;
        }
        let children = self.levels.pop().unwrap_or_default();
        if let Some(level) = self.levels.last_mut() {
            level.push(Node::leaf(label.text(), start, end, value).with_children(children));
        }
    }

    /// Stops recording (inside a compressed section, whose fields have no span in
    /// the file); returns whether it was on, for [`Trace::resume`].
    pub(super) fn pause(&mut self) -> bool {
        self.paused = true;
        core::mem::replace(&mut self.on, false)
    }

    pub(super) fn resume(&mut self, on: bool) {
        self.paused = false;
        self.on = on;
    }

    pub(super) fn list(&self, kind: ListKind) -> List {
        let base = self.levels.last().map_or(0, Vec::len);
        List { kind, starts: Vec::new(), base, collapsed: false, resume: false, count: 0 }
    }

    /// Before each item of `list`, which starts at `start`.
    #[inline]
    pub(super) fn item_begin(&mut self, list: &mut List, start: u64) {
        list.resume = self.on;
        match self.focus {
            Some(focus) => self.on = !self.paused && (focus.start..focus.end).contains(&start),
            None if self.on => {
                list.starts.push(start);
                self.on = !list.collapsed;
            }
            None => {}
        }
    }

    /// After each item of `list`.
    #[inline]
    pub(super) fn item_end(&mut self, list: &mut List) {
        self.on = list.resume;
        list.count = list.count.saturating_add(1);
        if self.on && self.focus.is_none() && !list.collapsed && list.count > ITEMS_PER_BLOCK {
            // Too many to build at once: the items' nodes go, their starts stay.
            if let Some(level) = self.levels.last_mut() {
                level.truncate(list.base);
            }
            list.collapsed = true;
        }
    }

    /// After the last item of `list`, which ends at `end`: a collapsed list becomes
    /// deferred blocks labelled `functions a..b` (or names…).
    pub(super) fn list_end(&mut self, list: List, end: u64) {
        if !self.on || !list.collapsed {
            return;
        }
        let Some(level) = self.levels.last_mut() else { return };
        for (i, block) in list.starts.chunks(ITEMS_PER_BLOCK).enumerate() {
            let first = i.saturating_mul(ITEMS_PER_BLOCK);
            let last = first.saturating_add(block.len());
            let start = block.first().copied().unwrap_or(end);
            let block_end = list.starts.get(last).copied().unwrap_or(end);
            let label = alloc::format!("{} {first}..{last}", list.kind.noun());
            level.push(Node::leaf(label, start, block_end, block.len()).deferred(list.kind.tag(), first as u64));
        }
    }

    /// The top-level nodes recorded.
    pub(super) fn into_nodes(mut self) -> Vec<Node> {
        self.levels.truncate(1);
        self.levels.pop().unwrap_or_default()
    }
}

/// The children of a deferred block of list items: the file is read again, and the
/// items starting in the block are recorded.
pub fn expand(data: &[u8], deferred: &Deferred) -> Result<Vec<Node>> {
    let Some(kind) = ListKind::ALL.into_iter().find(|k| k.tag() == deferred.tag) else {
        return Err(Error::malformed(deferred.start, "unknown deferred node for a binary sample profile"));
    };
    decode_binary::expand_nodes(data, Trace::focused(kind, deferred))
}

pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    Ok(dump_and_decode(data, false)?.0)
}

/// The dump and, with `decode` (and when the file is not the obsolete compact
/// binary), the profile from the same pass.
pub fn dump_and_decode(data: &[u8], decode: bool) -> Result<(Node, Option<Profile>)> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, Endian::Little);
    let magic_at = r.offset();
    let magic = r.uleb128("sample profile magic")?;
    let (mut root, profile) = if magic == MAGIC_COMPACT_BINARY {
        // LLVM no longer reads it; show the header and leave the rest whole.
        let mut f = Fields::new(&mut r);
        f.node_since("magic", magic_at, format_args!("{magic:#018x}"));
        f.uleb128("version")?;
        let mut children = f.into_nodes();
        if !r.is_empty() {
            children.push(Node::leaf("profile", r.offset(), len, "compact binary (obsolete format)"));
        }
        (Node::new("sample compact binary", 0, len).with_children(children), None)
    } else if decode {
        let (label, nodes, profile) = decode_binary::dump_nodes_and_profile(data)?;
        (Node::new(label, 0, len).with_children(nodes), Some(profile))
    } else {
        let (label, nodes) = decode_binary::dump_nodes(data)?;
        (Node::new(label, 0, len).with_children(nodes), None)
    };
    root.tile_deep()?;
    Ok((root, profile))
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
                                             // 30 function: HeadSamples 100, NameIdx 0, TotalSamples 100, NumRecords 1
        d.extend_from_slice(&[100, 0, 100, 1]);
        // 34 record: LineOffset 2, Discriminator 1, NumSamples 60, NumCalls 1, call: NameIdx 1, Count 60
        d.extend_from_slice(&[2, 1, 60, 1, 1, 60]);
        // 40 NumCallsites 1: LineOffset 3, Discriminator 0, NameIdx 1, then foo's body:
        // TotalSamples 40, NumRecords 0, NumCallsites 0
        d.extend_from_slice(&[1, 3, 0, 1, 40, 0, 0]);
        d
    }

    /// A name table holding "a" (`01 61 00`), compressed:
    /// `python3 -c 'import zlib; print(zlib.compress(b"\x01a\x00").hex())'`.
    const NAMES_ZLIB: [u8; 11] = [0x78, 0x9c, 0x63, 0x4c, 0x64, 0x00, 0x00, 0x00, 0xc8, 0x00, 0x63];

    fn ext() -> Vec<u8> {
        let mut d = EXT_MAGIC.to_vec(); // 0 magic
        d.push(103); // 9 version
        d.extend_from_slice(&2u64.to_le_bytes()); // 10 NumEntries
        for v in [2u64, 1, 82, 13] {
            d.extend_from_slice(&v.to_le_bytes()); // 18 NameTable, compressed, offset 82, size 13
        }
        for v in [32u64, 0, 95, 5] {
            d.extend_from_slice(&v.to_le_bytes()); // 50 LBRProfile, offset 95, size 5
        }
        d.extend_from_slice(&[3, 11]); // 82 UncompressedSize 3, CompressedSize 11
        d.extend_from_slice(&NAMES_ZLIB); // 84 zlib data
        d.extend_from_slice(&[7, 0, 7, 0, 0]); // 95 HeadSamples 7, NameIdx 0, TotalSamples 7, no records or callsites
        d
    }

    #[test]
    fn zlib_fixture_is_the_name_table() {
        let inflated = crate::compress::inflate_zlib(&NAMES_ZLIB, 3, 0);
        assert_eq!(inflated.ok().as_deref(), Some(&b"\x01a\0"[..]));
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
                ("function profiles", 30, 47)
            ]
        );
        assert_eq!(root.children[2].value.as_deref(), Some("1 functions"));
        assert_eq!(root.children[3].children[2].value.as_deref(), Some("foo"));
        assert_eq!(root.children[4].value.as_deref(), Some("1 functions"));
        let function = &root.children[4].children[0];
        assert_eq!((function.label.as_ref(), function.start, function.end), ("function 0", 30, 47));
        assert_eq!(function.value.as_deref(), Some("main"));
        let labels: Vec<_> = function.children.iter().map(|c| c.label.as_ref()).collect();
        assert_eq!(
            labels,
            ["HeadSamples", "NameIdx", "TotalSamples", "NumRecords", "record 0", "NumCallsites", "callsite 0"]
        );
        let record = &function.children[4];
        assert_eq!((record.start, record.end, record.value.as_deref()), (34, 40, Some("2.1: 60")));
        assert_eq!(record.children[4].value.as_deref(), Some("foo:60"));
        let callsite = &function.children[6];
        assert_eq!((callsite.start, callsite.end, callsite.value.as_deref()), (41, 47, Some("3: foo")));
        assert_eq!(callsite.children[2].value.as_deref(), Some("1 (foo)"));
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
                ("section 0", 82, 95),
                ("section 1", 95, 100)
            ]
        );
        assert_eq!(root.children[3].value.as_deref(), Some("SecNameTable {compressed}"));
        assert_eq!(root.children[3].children[1].value.as_deref(), Some("11"));
        assert_eq!(root.children[3].children[2].value.as_deref(), Some("11 bytes, inflated to 3: 1 names"));
        assert_eq!(root.children[4].value.as_deref(), Some("SecLBRProfile"));
        assert_eq!(root.children[4].children[0].value.as_deref(), Some("a"));
    }

    #[test]
    fn truncations_and_absurd_counts() {
        for data in [raw(), ext()] {
            for cut in 0..data.len() {
                match dump(&data[..cut], &det()) {
                    Err(e) => assert!(e.offset().is_some_and(|o| o <= cut as u64), "cut at {cut}: {e}"),
                    // a raw binary cut between function profiles is still well-formed
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

    /// A raw binary of `n` functions named `f` with one body record each.
    fn raw_functions(n: usize) -> Vec<u8> {
        let mut d = RAW_MAGIC.to_vec();
        d.push(103); // version
        d.extend_from_slice(&[0, 0, 0, 0, 0, 0]); // summary without entries
        d.extend_from_slice(b"\x01f\0"); // one name
        for _ in 0..n {
            // HeadSamples 1, NameIdx 0, TotalSamples 2, one record (LineOffset 1: 2, no calls), no callsites
            d.extend_from_slice(&[1, 0, 2, 1, 1, 0, 2, 0, 0]);
        }
        d
    }

    #[test]
    fn long_lists_become_deferred_blocks() {
        let data = raw_functions(2500);
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let blocks: Vec<_> = root.children[4].children.iter().filter(|c| c.deferred.is_some()).collect();
        let labels: Vec<_> = blocks.iter().map(|b| b.label.as_ref()).collect();
        assert_eq!(labels, ["functions 0..1024", "functions 1024..2048", "functions 2048..2500"]);
        assert_eq!((blocks[0].start, blocks[2].end), (19, data.len() as u64));
        let mut index = 0;
        for block in blocks {
            let children = expand(&data, &block.deferred.unwrap()).unwrap();
            let mut node = Node::new("block", block.start, block.end).with_children(children);
            node.tile_deep().unwrap();
            assert_eq!(node.check_tiling(), Ok(()));
            for function in &node.children {
                assert_eq!(function.label, alloc::format!("function {index}"));
                assert_eq!(function.children.len(), 6); // HeadSamples … NumCallsites
                index += 1;
            }
        }
        assert_eq!(index, 2500);
        // at the limit, the list stays whole
        let root = dump(&raw_functions(ITEMS_PER_BLOCK), &det()).unwrap();
        let functions = &root.children[4].children;
        assert!(functions.iter().all(|c| c.deferred.is_none()));
        assert_eq!(functions.len(), ITEMS_PER_BLOCK);
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
        assert!(sections.contains(&("SecFuncMetadata (empty)".into(), 981, 0)));

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
