//! AutoFDO GCOV v4 (the 2026 proposal, `shared/seeds/004_*.txt` section 4), binary
//! form: detection and the dump.
//!
//! ```text
//! 0  "gcov"   4  version = 4   8  header bitmask (bit 7 compact)
//! 9  GCOV_NUM_SECTIONS (7 bytes BE)
//! 16 summary offset, size   32 file-names offset, size   (u64 BE each)
//! 48 section table: {offset u64, size u64} × GCOV_NUM_SECTIONS
//! ```
//!
//! In a compact file (header bit 7) everything after the bitmask byte is varints,
//! back to back, and the table follows at once. Each section starts with a bitmask
//! byte (bit 7 compact, bits 0–6 the type) that its size counts. The readings behind
//! these choices are in `docs/gcov-v4.md`.
//!
//! The dump is the decoder's own walk ([`crate::formats::gcov::decode_v4`]) reporting
//! every field to a tree: the header, the table, and every section with every field
//! — trie nodes and edges, summary entries, file names, symbol names, symbol infos
//! and their location records, inline bodies nested in their records.

use alloc::vec::Vec;
use core::fmt::Display;

use crate::dump::{Deferred, Node};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::formats::gcov::decode_v4;
use crate::formats::gcov::v4_layout::{SectionType, Sink, COMPACT, MAGIC};
use crate::read::Endian;

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
    SectionType(kind).name()
}

/// Files larger than this have every section's data deferred: a profile of 200,000
/// functions has tens of millions of fields, more than a viewer can hold.
pub const DEFER_ABOVE: u64 = 1 << 20;

/// [`Deferred::tag`] of a section's data; [`Deferred::first`] is the section index.
pub const TAG_SECTION_DATA: u32 = u32::from_be_bytes(*b"gcv4");

/// Builds the dump tree from the walk's fields and groups.
struct Tree {
    /// The open groups' children, outermost first; `stack[0]` is the root's.
    stack: Vec<Vec<Node>>,
    /// Defer sections' data.
    defer: bool,
    /// The deferred data being walked past: start, end, section index.
    muted: Option<(u64, u64, u64)>,
}

impl Tree {
    fn new(defer: bool) -> Self {
        Tree { stack: alloc::vec![Vec::new()], defer, muted: None }
    }

    fn into_nodes(self) -> Vec<Node> {
        self.stack.into_iter().next().unwrap_or_default()
    }
}

impl Sink for Tree {
    fn field(&mut self, label: &'static str, start: u64, end: u64, value: impl Display) {
        if self.muted.is_some() {
            return;
        }
        if let Some(top) = self.stack.last_mut() {
            top.push(Node::leaf(label, start, end, value));
        }
    }

    fn open(&mut self) {
        if self.muted.is_none() {
            self.stack.push(Vec::new());
        }
    }

    fn close(&mut self, label: &'static str, start: u64, end: u64, value: impl Display) {
        if self.muted.is_some() {
            return;
        }
        let children = if self.stack.len() > 1 { self.stack.pop().unwrap_or_default() } else { Vec::new() };
        if let Some(top) = self.stack.last_mut() {
            top.push(Node::leaf(label, start, end, value).with_children(children));
        }
    }

    fn recording(&self) -> bool {
        self.muted.is_none()
    }

    fn begin_data(&mut self, start: u64, end: u64, index: u64) {
        if self.defer && self.muted.is_none() && end > start {
            self.muted = Some((start, end, index));
        }
    }

    fn end_data(&mut self) {
        if let Some((start, end, index)) = self.muted.take() {
            let node = Node::leaf("data", start, end, format_args!("{} bytes", end.saturating_sub(start)));
            self.field_node(node.deferred(TAG_SECTION_DATA, index));
        }
    }
}

impl Tree {
    fn field_node(&mut self, node: Node) {
        if let Some(top) = self.stack.last_mut() {
            top.push(node);
        }
    }
}

/// The dump: every field, or, for files above [`DEFER_ABOVE`], every section with
/// its data deferred to [`expand`].
pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let mut tree = Tree::new(data.len() as u64 > DEFER_ABOVE);
    decode_v4::walk(data, &mut tree, true)?;
    let mut root = Node::new("gcov v4", 0, data.len() as u64).with_children(tree.into_nodes());
    root.tile_deep()?;
    Ok(root)
}

/// The fields of a section's data that [`dump`] deferred.
pub fn expand(data: &[u8], deferred: &Deferred) -> Result<Vec<Node>> {
    if deferred.tag != TAG_SECTION_DATA {
        return Err(Error::malformed(deferred.start, "not a deferred GCOV v4 section"));
    }
    let mut tree = Tree::new(false);
    decode_v4::expand_section(data, &mut tree, deferred.first)?;
    let mut parent = Node::new("data", deferred.start, deferred.end).with_children(tree.into_nodes());
    parent.tile_deep()?;
    Ok(parent.children)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::gcov::write_v4::{write, Encoding};
    use crate::formats::sample::model::{CallTarget, FunctionSamples, LineLocation, Profile};
    use crate::summary::{Summary, SummaryEntry};

    fn det() -> Detection {
        Detection::new(Format::GcovV4)
    }

    /// main (head 1): 1: 10, 2.3: 0, 3: 5 calls foo:5, foo inlined at 4 with 1: 7.
    pub(crate) fn sample() -> (Profile, Summary) {
        let mut p = Profile::new();
        let main = p.names.intern_bytes(b"main").unwrap();
        let foo = p.names.intern_bytes(b"foo").unwrap();
        let loc = |line, discriminator| LineLocation { line, discriminator };
        let mut f = FunctionSamples { name: main, head: 1, total: 22, ..FunctionSamples::default() };
        f.add_body(loc(1, 0), 10, Vec::new());
        f.add_body(loc(2, 3), 0, Vec::new());
        f.add_body(loc(3, 0), 5, alloc::vec![CallTarget { name: foo, count: 5 }]);
        let mut callee = FunctionSamples { name: foo, total: 7, ..FunctionSamples::default() };
        callee.add_body(loc(1, 0), 7, Vec::new());
        f.add_callsite(loc(4, 0), callee, &p.names);
        p.add(f);
        let summary = Summary {
            num_functions: 1,
            num_counts: 4,
            total_count: 22,
            max_count: 10,
            max_function_count: 1,
            detailed: alloc::vec![SummaryEntry { cutoff: 500_000, min_count: 10, num_counts: 1 }],
            ..Summary::default()
        };
        (p, summary)
    }

    #[rustfmt::skip]
    const NORMAL: [u8; 326] = [
        // header
        b'g', b'c', b'o', b'v',             //   0 GCOV_MAGIC
        0, 0, 0, 4,                         //   4 GCOV_VERSION
        0x00,                               //   8 GCOV_HEADER_BITMASK: normal
        0, 0, 0, 0, 0, 0, 3,                //   9 GCOV_NUM_SECTIONS = 3 (7 bytes)
        0, 0, 0, 0, 0, 0, 0, 96,            //  16 GCOV_SUMMARY_OFFSET
        0, 0, 0, 0, 0, 0, 0, 69,            //  24 GCOV_SUMMARY_SIZE
        0, 0, 0, 0, 0, 0, 0, 165,           //  32 GCOV_FILE_NAMES_OFFSET
        0, 0, 0, 0, 0, 0, 0, 26,            //  40 GCOV_FILE_NAMES_SIZE
        0, 0, 0, 0, 0, 0, 0, 191,           //  48 section 2 offset (string table)
        0, 0, 0, 0, 0, 0, 0, 27,            //  56           size
        0, 0, 0, 0, 0, 0, 0, 218,           //  64 section 3 offset (symbol names)
        0, 0, 0, 0, 0, 0, 0, 29,            //  72           size
        0, 0, 0, 0, 0, 0, 0, 247,           //  80 section 4 offset (symbol info of main)
        0, 0, 0, 0, 0, 0, 0, 79,            //  88           size
        // section 0: summary
        0x02,                               //  96 GCOV_SECTION_BITMASK: GCOV_SUMMARY_INFO
        0, 0, 0, 0, 0, 0, 0, 22,            //  97 SUMMARY_TOTAL_COUNT
        0, 0, 0, 0, 0, 0, 0, 10,            // 105 SUMMARY_MAX_COUNT
        0, 0, 0, 0, 0, 0, 0, 1,             // 113 SUMMARY_MAX_FN_COUNT
        0, 0, 0, 0, 0, 0, 0, 4,             // 121 SUMMARY_NUM_COUNTS
        0, 0, 0, 0, 0, 0, 0, 1,             // 129 SUMMARY_NUM_FUNCTIONS
        0, 0, 0, 0, 0, 0, 0, 1,             // 137 SUMMARY_NUM_DETAILED_ENTRIES
        0, 0x07, 0xa1, 0x20,                // 145 ENTRY_CUTOFF = 500000
        0, 0, 0, 0, 0, 0, 0, 10,            // 149 ENTRY_MIN_COUNT
        0, 0, 0, 0, 0, 0, 0, 1,             // 157 ENTRY_NUM_COUNTS
        // section 1: file names
        0x03,                               // 165 GCOV_SECTION_BITMASK: GCOV_FILE_NAMES
        0, 0, 0, 1,                         // 166 GCOV_NUM_FILE_NAMES
        0, 0, 0, 1,                         // 170 FILE_NAME_STRING_LENGTH = 1
        0,                                  // 174 "" (the unknown file)
        0, 0, 0, 2,                         // 175 STRING_TABLE_SECTION_INDEX
        0, 0, 0, 3,                         // 179 SYMBOL_NAMES_SECTION_INDEX
        0, 0, 0, 0,                         // 183 SYMBOL_ID_START
        0, 0, 0, 2,                         // 187 SYMBOL_ID_END
        // section 2: string table
        0x01,                               // 191 GCOV_SECTION_BITMASK: GCOV_STRING_TABLE
        0, 0, 0, 2,                         // 192 GCOV_NUM_STRINGS
        0x02,                               // 196 root: 2 children
        0, 3, b'f', b'o', b'o',             // 197 edge "foo"
        0x80, 0, 0, 0, 0,                   // 202 node: terminal, string 0
        0, 4, b'm', b'a', b'i', b'n',       // 207 edge "main"
        0x80, 0, 0, 0, 1,                   // 213 node: terminal, string 1
        // section 3: symbol names
        0x04,                               // 218 GCOV_SECTION_BITMASK: GCOV_SYMBOL_NAMES
        0, 0, 0, 2,                         // 219 GCOV_NUM_SYMBOL_NAMES
        0, 0, 0, 0,                         // 223 foo: string 0
        0, 0, 0, 0,                         // 227      SYMBOL_ID 0
        0xff, 0xff, 0xff, 0xff,             // 231      no symbol info
        0, 0, 0, 1,                         // 235 main: string 1
        0, 0, 0, 1,                         // 239       SYMBOL_ID 1
        0, 0, 0, 4,                         // 243       symbol info in section 4
        // section 4: symbol info of main
        0x05,                               // 247 GCOV_SECTION_BITMASK: GCOV_SYMBOL_INFO
        0, 0, 0, 0, 0, 0, 0, 1,             // 248 SYMBOL_HEAD_COUNT
        0, 0, 0, 0, 0, 0, 0, 0,             // 256 SYMBOL_TIMESTAMP
        0, 0, 0, 5,                         // 264 SYMBOL_NUM_LOCATIONS
        0x02, 0, 0, 1, 0, 0, 0, 10,         // 268 LOCATION_NORMAL line 1: 10
        0x81, 0, 0, 2, 0, 3,                // 276 LOCATION_ZERO line 2 discriminator 3
        0x02, 0, 0, 3, 0, 0, 0, 5,          // 282 LOCATION_NORMAL line 3: 5
        0x04, 0, 0, 3,                      // 290 LOCATION_CALLED_FN line 3
        0, 0, 0, 0,                         // 294   callee symbol 0 (foo)
        0, 0, 0, 0, 0, 0, 0, 5,             // 298   5 calls
        0x06, 0, 0, 4,                      // 306 LOCATION_INLINED_FN line 4
        0, 0, 0, 0,                         // 310   symbol 0 (foo)
        0, 0, 0, 1,                         // 314   SYMBOL_NUM_LOCATIONS
        0x02, 0, 0, 1, 0, 0, 0, 7,          // 318   LOCATION_NORMAL line 1: 7
    ];

    #[rustfmt::skip]
    const COMPACT_FILE: [u8; 92] = [
        b'g', b'c', b'o', b'v', 0, 0, 0, 4, //  0 GCOV_MAGIC, GCOV_VERSION (always fixed)
        0x80,                               //  8 GCOV_HEADER_BITMASK: compact
        3,                                  //  9 GCOV_NUM_SECTIONS (varints from here)
        20, 12,                             // 10 summary offset, size
        32, 8,                              // 12 file names offset, size
        40, 16,                             // 14 section 2 (string table)
        56, 12,                             // 16 section 3 (symbol names)
        68, 24,                             // 18 section 4 (symbol info of main)
        0x82,                               // 20 GCOV_SUMMARY_INFO, compact
        22, 10, 1, 4, 1, 1,                 // 21 total, max, max fn, counts, functions, 1 entry
        0xa0, 0xc2, 0x1e, 10, 1,            // 27 cutoff 500000 (3-byte varint), min count 10, 1 count
        0x83,                               // 32 GCOV_FILE_NAMES, compact
        1, 1, 0,                            // 33 1 file: length 1, "" (unknown file)
        2, 3, 0, 2,                         // 36 string table 2, symbol names 3, ids 0..2
        0x81,                               // 40 GCOV_STRING_TABLE, compact
        2, 0x02,                            // 41 2 strings; root: 2 children
        3, b'f', b'o', b'o', 0x80, 0,       // 43 edge "foo", terminal 0
        4, b'm', b'a', b'i', b'n', 0x80, 1, // 49 edge "main", terminal 1
        0x84,                               // 56 GCOV_SYMBOL_NAMES, compact
        2,                                  // 57 2 symbols
        0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f, // 58 foo: string 0, id 0, no symbol info (5-byte varint)
        1, 1, 4,                            // 65 main: string 1, id 1, symbol info in section 4
        0x85,                               // 68 GCOV_SYMBOL_INFO, compact
        1, 0, 5,                            // 69 head 1, timestamp 0, 5 locations
        0x02, 1, 10,                        // 72 NORMAL 1: 10
        0x81, 2, 3,                         // 75 ZERO 2.3
        0x02, 3, 5,                         // 78 NORMAL 3: 5
        0x04, 3, 0, 5,                      // 81 CALLED_FN 3: symbol 0 (foo), 5 calls
        0x06, 4, 0, 1,                      // 85 INLINED_FN 4: symbol 0 (foo), 1 location
        0x02, 1, 7,                         // 89   NORMAL 1: 7
    ];

    #[test]
    fn normal_file_field_by_field() {
        let (p, summary) = sample();
        let mut out = Vec::new();
        write(&p, &summary, Encoding::Binary, &mut out);
        assert_eq!(out, NORMAL);
        let root = dump(&out, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        let top: Vec<_> = root.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect();
        assert_eq!(
            top,
            [
                ("header", 0, 48),
                ("section table", 48, 96),
                ("GCOV_SUMMARY_INFO", 96, 165),
                ("GCOV_FILE_NAMES", 165, 191),
                ("GCOV_STRING_TABLE", 191, 218),
                ("GCOV_SYMBOL_NAMES", 218, 247),
                ("GCOV_SYMBOL_INFO", 247, 326),
            ]
        );
        // every byte belongs to a field: no unparsed node anywhere
        fn no_gaps(n: &Node) -> bool {
            n.label != crate::dump::UNPARSED && n.children.iter().all(no_gaps)
        }
        assert!(no_gaps(&root));
        let header = &root.children[0];
        assert_eq!(
            (header.children[3].label.as_ref(), header.children[3].start, header.children[3].end),
            ("GCOV_NUM_SECTIONS", 9, 16)
        );
        let info = &root.children[6];
        let inlined = info.children.last().unwrap();
        assert_eq!((inlined.label.as_ref(), inlined.start, inlined.end), ("location", 306, 326));
        assert_eq!(inlined.value.as_deref(), Some("4 LOCATION_INLINED_FN"));
        let nested = inlined.children.last().unwrap();
        assert_eq!((nested.start, nested.end, nested.value.as_deref()), (318, 326, Some("1 LOCATION_NORMAL")));
        let callee = &info.children[7].children[2];
        assert_eq!(callee.value.as_deref(), Some("0 (foo)"));
    }

    #[test]
    fn compact_file_field_by_field() {
        let (p, summary) = sample();
        let mut out = Vec::new();
        write(&p, &summary, Encoding::Compact, &mut out);
        assert_eq!(out, COMPACT_FILE);
        let root = dump(&out, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        assert_eq!(root.children.len(), 7);
        let normal = decode_v4::read(&NORMAL).unwrap();
        let compact = decode_v4::read(&out).unwrap();
        assert_eq!(normal.profile.functions, compact.profile.functions);
        assert_eq!(normal.summary, compact.summary);
        assert_eq!(compact.summary, summary);
        let main = &compact.profile.functions[0];
        assert_eq!((main.total, main.head), (22, 1));
    }

    #[test]
    fn truncations_and_bad_values_are_errors() {
        for cut in 0..NORMAL.len() {
            let err = dump(&NORMAL[..cut], &det()).err();
            let at = err.and_then(|e| e.offset());
            assert!(at.is_some_and(|o| o <= cut as u64), "cut at {cut}: {err:?}");
        }
        // GCOV_NUM_SECTIONS = 2^52: named at its offset
        let mut bad = NORMAL;
        bad[9] = 0x10;
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(9));
        // a section past the end of the file: named at its table entry
        let mut bad = NORMAL;
        bad[48..56].copy_from_slice(&u64::MAX.to_be_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(48));
        // overlapping sections
        let mut bad = NORMAL;
        bad[48..56].copy_from_slice(&190u64.to_be_bytes());
        assert_eq!(dump(&bad, &det()).err().and_then(|e| e.offset()), Some(48));
    }

    #[test]
    fn large_files_defer_section_data() {
        let mut p = Profile::new();
        for i in 0..20_000u32 {
            let name = p.names.intern_bytes(alloc::format!("_Z8functionv{i}").as_bytes()).unwrap();
            let mut f = FunctionSamples { name, head: u64::from(i), ..FunctionSamples::default() };
            for line in 0..8 {
                f.add_body(LineLocation { line, discriminator: 0 }, u64::from(line + i), Vec::new());
            }
            p.add(f);
        }
        let mut out = Vec::new();
        write(&p, &Summary::default(), Encoding::Binary, &mut out);
        assert!(out.len() as u64 > DEFER_ABOVE);
        let root = dump(&out, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        // header, table, summary, file names, string table, symbol names, 20000 infos
        assert_eq!(root.children.len(), 6 + 20_000);
        let info = root.children.last().unwrap();
        assert_eq!(info.label, "GCOV_SYMBOL_INFO");
        let data = &info.children[1];
        let deferred = data.deferred.unwrap();
        assert_eq!((deferred.start, deferred.end), (info.start + 1, info.end));
        let children = expand(&out, &deferred).unwrap();
        let mut expanded = Node::new("data", deferred.start, deferred.end).with_children(children);
        assert_eq!(expanded.check_tiling(), Ok(()));
        expanded.tile().unwrap();
        let labels: Vec<_> = expanded.children.iter().map(|c| c.label.as_ref()).take(4).collect();
        assert_eq!(labels, ["SYMBOL_HEAD_COUNT", "SYMBOL_TIMESTAMP", "SYMBOL_NUM_LOCATIONS", "location"]);
        assert_eq!(expanded.children.len(), 3 + 8);
        // The string table's trie, deferred too: GCOV_NUM_STRINGS, then the root, the
        // node after the shared edge "_Z8functionv", and a node for each of the 20000
        // strings (every number's prefix is a number here), each node but the root
        // after its edge.
        let strings = root.children.iter().find(|c| c.label == "GCOV_STRING_TABLE").unwrap();
        let children = expand(&out, &strings.children[1].deferred.unwrap()).unwrap();
        assert_eq!(children.len(), 1 + 1 + 2 * 20_001);
    }

    #[test]
    fn text_form_of_the_sample() {
        let (p, summary) = sample();
        let mut out = Vec::new();
        write(&p, &summary, Encoding::Text, &mut out);
        let expected = r#"filenames = {}

summary = {
  total_count = 22,
  max_count = 10,
  max_fn_count = 1,
  num_counts = 4,
  num_functions = 1,
  num_detailed_entries = 1,
  detailed_entries = {
    {cutoff = 500000, min_count = 10, num_counts = 1}
  }
}

"main":-1(1:1:0) = {
  locations = {
    1 = 10,
    2.3 = 0,
    3 = 5
  },
  callsites = {
    3 -> {0 = 5}
  },
  inlined = {
    4 = "foo":-1(0) = {
      locations = {
        1 = 7
      }
    }
  }
}
"#;
        assert_eq!(core::str::from_utf8(&out).unwrap(), expected);
        // Read back, it is the same profile: written as binary, the same bytes.
        let text = decode_v4::read_text(&out).unwrap();
        let mut again = Vec::new();
        write(&text.profile, &text.summary, Encoding::Binary, &mut again);
        assert_eq!(again, NORMAL);
    }
}
