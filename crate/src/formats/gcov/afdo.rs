//! AutoFDO gcov v1–v3 (`.afdo`, LLVM's "GCC sample profile"), as google/autofdo's
//! `create_gcov` writes it and LLVM's `SampleProfileReaderGCC` and autofdo's
//! `AutoFDOProfileReader` read it: 32-bit words in the producer's byte order, starting
//! with the "gcda" magic word, a version word and a zero word, then tagged sections:
//!
//! ```text
//! 0xa8000000 AFDO_SUMMARY     (v3 only, no length word) total_count, max_count,
//!                             max_fn_count, num_counts, num_functions, num_detailed
//!                             (counters), then num_detailed × {cutoff word,
//!                             min_count counter, num_counts counter}
//! 0xaa000000 FILE_NAMES       length word (readers ignore it); v3: num_files word and
//!                             that many strings; num_names word, then per name a
//!                             string (v3: and a file-index word, 0xffffffff = none)
//! 0xac000000 FUNCTION         length word (ignored); num_functions word; that many
//!                             symbol profiles (below)
//! 0xae000000 MODULE_GROUPING  length word, num_modules word (0 since LIPO is gone;
//!                             autofdo 0.19 wrote length 1, later versions 0)
//! 0xaf000000 WORKING_SET      length word (3 × 128), then 128 × {num_counters word,
//!                             min_counter counter}
//!
//! symbol profile:  [head_count counter, v3: timestamp counter]   (top level only)
//!                  name_index word, num_pos_counts word, num_callsites word,
//!                  num_pos_counts × {offset word, num_targets word, count counter,
//!                                    num_targets × {hist_type word (7),
//!                                                   name_index counter, count counter}}
//!                  num_callsites × {offset word, symbol profile (no head count)}
//! offset:          line offset from the function's start << 16 | discriminator
//! ```
//!
//! A counter is two words, low word first. Strings are a length word then the bytes:
//! the length counts 4-byte words (NUL-padded) in v1 and "*704", bytes (including the
//! NUL, unpadded, so later words are unaligned) from v2.
//!
//! The "*704" version word is ambiguous: LLVM reads only it, in the v1 layout, but
//! google/autofdo compares the version word numerically and its default ("*704" =
//! 0x3430372a ≥ 3) writes the v3 layout under it. We sniff: a summary tag after the
//! header means v3; otherwise we try word-length strings and fall back to byte-length.
//!
//! One walk of the file builds the [`Profile`] (LLVM's reading rules, below) and, when
//! asked, the dump tree with every field and its byte span. The model follows LLVM,
//! whose text output is the reference: every position's count goes to the body
//! samples of its function and to the total of that function and of every function it
//! is inlined into; a top-level function seen again after one with samples (an alias
//! sharing the body) adds only its head count and the shape of its inlined callees.
//! Layout notes: `shared/formats/llvm-sample-profiles.md`.

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Display;

use crate::dump::{Hex, Node, Text};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::formats::sample::model::{
    CallTarget, FunctionSamples, LineLocation, Name, NameEntry, NameId, Profile, MAX_DEPTH,
};
use crate::read::{Endian, Reader};
use crate::summary::SummaryEntry;

/// "gcda" as a word; little-endian producers write `adcg`.
pub const MAGIC: u32 = 0x6763_6461;
/// "*704": the GCC 4.7 version word LLVM expects and create_gcov writes by default.
pub const VERSION_704: u32 = 0x3430_372a;

pub const TAG_SUMMARY: u32 = 0xa800_0000;
pub const TAG_FILE_NAMES: u32 = 0xaa00_0000;
pub const TAG_FUNCTION: u32 = 0xac00_0000;
pub const TAG_MODULE_GROUPING: u32 = 0xae00_0000;
pub const TAG_WORKING_SET: u32 = 0xaf00_0000;

/// `HIST_TYPE_INDIR_CALL_TOPN`, the only histogram a call target may carry.
pub const HIST_TYPE_INDIR_CALL_TOPN: u32 = 7;
/// `NUM_GCOV_WORKING_SETS`: the entries of the working-set section.
pub const NUM_WORKING_SETS: usize = 128;
/// The v3 file index of a name whose file is unknown.
pub const NO_FILE: u32 = u32::MAX;

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
pub struct Layout {
    /// String lengths count bytes (v2+), not words.
    pub byte_strings: bool,
    /// Summary section, file table, file indexes and timestamps (v3).
    pub v3: bool,
}

impl Layout {
    pub const V1: Layout = Layout { byte_strings: false, v3: false };
    pub const V2: Layout = Layout { byte_strings: true, v3: false };
    pub const V3: Layout = Layout { byte_strings: true, v3: true };

    fn name(self) -> &'static str {
        match (self.byte_strings, self.v3) {
            (false, _) => "v1",
            (true, false) => "v2",
            (true, true) => "v3",
        }
    }
}

/// One entry of the working-set section (`gcov_working_set_info` as written: the
/// counter count already divided by `WORKING_SET_INSN_PER_BB`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct WorkingSet {
    pub num_counters: u32,
    pub min_counter: u64,
}

/// The v3 summary section as stored (`ProfileSummaryInformation`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct StoredSummary {
    pub total_count: u64,
    pub max_count: u64,
    pub max_function_count: u64,
    pub num_counts: u64,
    pub num_functions: u64,
    pub detailed: Vec<SummaryEntry>,
}

/// What a file holds besides the profile: enough to write it back byte for byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileInfo {
    pub endian: Endian,
    pub version: u32,
    pub layout: Layout,
    pub summary: Option<StoredSummary>,
    /// The words after the MODULE_GROUPING tag (length, num_modules, module records).
    pub module_grouping: Option<Vec<u32>>,
    pub working_set: Option<Vec<WorkingSet>>,
}

/// A decoded file: the profile and the rest.
#[derive(Clone, Debug)]
pub struct Decoded {
    pub profile: Profile,
    pub file: FileInfo,
}

/// Decodes a GCC AutoFDO v1–v3 file.
pub fn decode(data: &[u8]) -> Result<Decoded> {
    with_layouts(data, |endian, layout| walk(data, endian, layout, false)).map(|(decoded, _)| decoded)
}

/// The dump tree of a v1–v3 file: every field with its byte span.
pub fn dump(data: &[u8], _detection: &Detection) -> Result<Node> {
    let (_, root) = with_layouts(data, |endian, layout| walk(data, endian, layout, true))?;
    root.ok_or(Error::malformed(0, "dump walk built no tree"))
}

/// Picks the layout from the header and runs `f` with it; for an ambiguous version
/// word without a summary, word-length strings first, then byte-length ones (the
/// first error is reported when both fail).
fn with_layouts<T>(data: &[u8], f: impl Fn(Endian, Layout) -> Result<T>) -> Result<T> {
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
    match version {
        1 => f(endian, Layout::V1),
        2 => f(endian, Layout::V2),
        3 => f(endian, Layout::V3),
        _ if first_tag == Some(TAG_SUMMARY) => f(endian, Layout::V3),
        _ => f(endian, Layout::V1).or_else(|first| f(endian, Layout::V2).map_err(|_| first)),
    }
}

/// The 32-bit offset word of a location as create_gcov writes it
/// (`SourceInfo::GenerateCompressedOffset` of `line << 32 | discriminator`): the line
/// keeps 16 bits, and a discriminator of more than 16 bits folds its halves together.
pub fn compressed_offset(location: LineLocation) -> u32 {
    let discriminator = (location.discriminator >> 16) | location.discriminator;
    ((location.line & 0xffff) << 16) | (discriminator & 0xffff)
}

/// The location an offset word stands for (high 16 bits line, low 16 discriminator).
pub fn location(offset: u32) -> LineLocation {
    LineLocation { line: offset >> 16, discriminator: offset & 0xffff }
}

/// `line` or `line.discriminator`, as LLVM's text and dump_gcov print locations.
pub struct Loc(pub LineLocation);

impl Display for Loc {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0.discriminator {
            0 => write!(f, "{}", self.0.line),
            d => write!(f, "{}.{d}", self.0.line),
        }
    }
}

/// Dump nodes being collected, or nothing when only decoding.
struct Nodes {
    list: Vec<Node>,
    on: bool,
}

impl Nodes {
    fn new(on: bool) -> Self {
        Nodes { list: Vec::new(), on }
    }

    fn leaf(&mut self, label: &'static str, start: u64, end: u64, value: impl Display) {
        if self.on {
            self.list.push(Node::leaf(label, start, end, value));
        }
    }

    fn push(&mut self, node: impl FnOnce() -> Node) {
        if self.on {
            self.list.push(node());
        }
    }
}

/// Records past the dump budget, shown as one node per run.
struct Run {
    label: &'static str,
    first: u64,
    count: u64,
    start: u64,
}

fn extend_run(run: &mut Option<Run>, label: &'static str, index: u64, start: u64) {
    match run {
        Some(r) => r.count = r.count.saturating_add(1),
        None => *run = Some(Run { label, first: index, count: 1, start }),
    }
}

fn flush_run(run: &mut Option<Run>, end: u64, out: &mut Nodes) {
    if let Some(r) = run.take() {
        let last = r.first.saturating_add(r.count);
        out.push(|| {
            Node::leaf(
                alloc::format!("{}s {}..{}", r.label, r.first, last),
                r.start,
                end,
                format_args!("{} records", r.count),
            )
        });
    }
}

/// Dump nodes built in full before records are shown only as runs: a big profile
/// keeps a tree a viewer can hold.
const DUMP_NODES: usize = 1 << 16;

/// Bytes a top-level function takes at least (head count, name, two counts; v3 adds
/// the timestamp), a position, a callsite and a call target.
const MIN_FUNCTION: u64 = 20;
const MIN_POSITION: u64 = 16;
const MIN_CALLSITE: u64 = 16;
const TARGET: u64 = 20;

/// The walk over one file: the reader, the layout, the names read so far and the
/// profile being built.
struct Walk<'a> {
    r: Reader<'a>,
    layout: Layout,
    dump: bool,
    /// Dump nodes left before records collapse into runs.
    budget: usize,
    /// Name-table index → interned name.
    table: Vec<NameId>,
    profile: Profile,
}

impl<'a> Walk<'a> {
    fn remaining(&self) -> u64 {
        self.r.remaining() as u64
    }

    fn word(&mut self, label: &'static str, out: &mut Nodes) -> Result<u32> {
        let at = self.r.offset();
        let v = self.r.u32(label)?;
        out.leaf(label, at, self.r.offset(), v);
        Ok(v)
    }

    fn counter(&mut self, label: &'static str, out: &mut Nodes) -> Result<u64> {
        let at = self.r.offset();
        let low = self.r.u32(label)?;
        let high = self.r.u32(label)?;
        let v = u64::from(low) | (u64::from(high) << 32);
        out.leaf(label, at, self.r.offset(), v);
        Ok(v)
    }

    /// A count word that must leave at least `min` bytes per item.
    fn count(&mut self, label: &'static str, min: u64, expected: &'static str, out: &mut Nodes) -> Result<u32> {
        let at = self.r.offset();
        let n = self.word(label, out)?;
        if u64::from(n) > self.remaining().checked_div(min).unwrap_or(0) {
            return Err(Error::invalid(at, expected, u64::from(n)));
        }
        Ok(n)
    }

    /// A string's length word and bytes; returns the text up to the first NUL.
    fn string(&mut self, out: &mut Nodes) -> Result<&'a [u8]> {
        let at = self.r.offset();
        let len = self.word("length", out)?;
        if len == 0 {
            // LLVM's reader fails on it and autofdo's reads a null string.
            return Err(Error::invalid(at, "string length of at least 1", 0));
        }
        let bytes = if self.layout.byte_strings { u64::from(len) } else { u64::from(len).saturating_mul(4) };
        if bytes > self.remaining() {
            return Err(Error::invalid(at, "string length that fits in the input", u64::from(len)));
        }
        let start = self.r.offset();
        let s = self.r.bytes(bytes, "string")?;
        let text = s.split(|&b| b == 0).next().unwrap_or(s);
        out.leaf("bytes", start, self.r.offset(), Text(text));
        Ok(text)
    }

    fn name_id(&self, at: u64, index: u64) -> Result<NameId> {
        let found = usize::try_from(index).ok().and_then(|i| self.table.get(i));
        found.copied().ok_or(Error::invalid(at, "name index inside the name table", index))
    }

    fn name_text(&self, id: NameId) -> Text<'_> {
        match self.profile.names.name(id) {
            Some(Name::Bytes(b)) => Text(b),
            _ => Text(b""),
        }
    }

    /// A name index, a word (or a counter when `wide`: call targets), shown with
    /// the name.
    fn name_index(&mut self, wide: bool, out: &mut Nodes) -> Result<NameId> {
        let at = self.r.offset();
        let index = if wide {
            self.counter("name_index", &mut Nodes::new(false))?
        } else {
            u64::from(self.r.u32("name_index")?)
        };
        let id = self.name_id(at, index)?;
        if out.on {
            out.leaf("name_index", at, self.r.offset(), format_args!("{index} ({})", self.name_text(id)));
        }
        Ok(id)
    }

    /// An offset word (line << 16 | discriminator), shown as its location.
    fn offset(&mut self, expected: &'static str, out: &mut Nodes) -> Result<LineLocation> {
        let at = self.r.offset();
        let offset = self.r.u32(expected)?;
        let loc = location(offset);
        out.leaf(
            "offset",
            at,
            self.r.offset(),
            format_args!("{offset:#x} (line {}, discriminator {})", loc.line, loc.discriminator),
        );
        Ok(loc)
    }

    fn spend(&mut self, nodes: &[Node]) {
        let used = nodes.iter().map(Node::count).fold(0usize, usize::saturating_add);
        self.budget = self.budget.saturating_sub(used.saturating_add(1));
    }

    /// A section: its tag (which must be `tag`), then `body`.
    fn section<T>(
        &mut self,
        tag: u32,
        label: &'static str,
        expected: &'static str,
        out: &mut Nodes,
        body: impl FnOnce(&mut Self, &mut Nodes) -> Result<T>,
    ) -> Result<T> {
        let start = self.r.offset();
        let found = self.r.u32(expected)?;
        if found != tag {
            return Err(Error::invalid(start, expected, u64::from(found)));
        }
        let mut fields = Nodes::new(out.on);
        fields.leaf("tag", start, self.r.offset(), format_args!("{tag:#x}"));
        let value = body(self, &mut fields)?;
        let end = self.r.offset();
        out.push(|| Node::new(label, start, end).with_children(fields.list));
        Ok(value)
    }

    fn summary(&mut self, out: &mut Nodes) -> Result<StoredSummary> {
        let mut s = StoredSummary {
            total_count: self.counter("total_count", out)?,
            max_count: self.counter("max_count", out)?,
            max_function_count: self.counter("max_function_count", out)?,
            num_counts: self.counter("num_counts", out)?,
            num_functions: self.counter("num_functions", out)?,
            detailed: Vec::new(),
        };
        let at = self.r.offset();
        let n = self.counter("num_detailed", out)?;
        if n > self.remaining() / 20 {
            return Err(Error::invalid(at, "summary entry count that fits in the input", n));
        }
        for i in 0..n {
            let start = self.r.offset();
            let mut fields = Nodes::new(out.on);
            let entry = SummaryEntry {
                cutoff: self.word("cutoff", &mut fields)?,
                min_count: self.counter("min_count", &mut fields)?,
                num_counts: self.counter("num_counts", &mut fields)?,
            };
            let end = self.r.offset();
            out.push(|| {
                Node::new(alloc::format!("entry {i}"), start, end)
                    .with_value(format_args!(
                        "cutoff {}: min count {}, {} counts",
                        entry.cutoff, entry.min_count, entry.num_counts
                    ))
                    .with_children(fields.list)
            });
            s.detailed.push(entry);
        }
        Ok(s)
    }

    /// `n` records, each a node `label i` whose fields `read` adds and whose value it
    /// returns (only needed when its `Nodes` are on); past the dump budget records
    /// are shown as runs.
    fn records(
        &mut self,
        label: &'static str,
        n: u32,
        out: &mut Nodes,
        mut read: impl FnMut(&mut Self, &mut Nodes) -> Result<String>,
    ) -> Result<()> {
        let mut run = None;
        for i in 0..u64::from(n) {
            let start = self.r.offset();
            let detailed = self.dump && self.budget > 0;
            let mut fields = Nodes::new(detailed);
            let value = read(self, &mut fields)?;
            let end = self.r.offset();
            if detailed {
                self.spend(&fields.list);
                out.push(|| {
                    Node::new(alloc::format!("{label} {i}"), start, end).with_value(value).with_children(fields.list)
                });
            } else if self.dump {
                extend_run(&mut run, label, i, start);
            }
        }
        flush_run(&mut run, self.r.offset(), out);
        Ok(())
    }

    fn file_names(&mut self, out: &mut Nodes) -> Result<()> {
        self.word("length", out)?;
        let v3 = self.layout.v3;
        // The smallest string: a length word and one byte (v2+) or word (v1).
        let min_string: u64 = if self.layout.byte_strings { 5 } else { 8 };
        if v3 {
            let n = self.count("num_files", min_string, "file count that fits in the input", out)?;
            self.records("file", n, out, |w, fields| {
                let s = w.string(fields)?;
                w.profile.files.push(s.to_vec());
                Ok(shown(fields, Text(s)))
            })?;
        }
        let min_name = if v3 { min_string.saturating_add(4) } else { min_string };
        let n = self.count("num_names", min_name, "name count that fits in the input", out)?;
        self.table.reserve(usize::try_from(n).unwrap_or(0));
        self.records("name", n, out, |w, fields| {
            let start = w.r.offset();
            let s = w.string(fields)?;
            let file = if v3 {
                let at = w.r.offset();
                let index = w.r.u32("file_index")?;
                match usize::try_from(index).ok().and_then(|f| w.profile.files.get(f)) {
                    Some(f) => fields.leaf("file_index", at, w.r.offset(), format_args!("{index} ({})", Text(f))),
                    None => fields.leaf("file_index", at, w.r.offset(), format_args!("{index:#x} (none)")),
                }
                Some(index).filter(|&f| f != NO_FILE)
            } else {
                None
            };
            let entry = NameEntry { name: Name::Bytes(s.to_vec()), file };
            let id = w.profile.names.intern(entry).ok_or(Error::malformed(start, "more than 2^32 names"))?;
            w.table.push(id);
            Ok(shown(fields, Text(s)))
        })
    }

    fn functions(&mut self, out: &mut Nodes) -> Result<()> {
        self.word("length", out)?;
        let min = if self.layout.v3 { MIN_FUNCTION.saturating_add(8) } else { MIN_FUNCTION };
        let n = self.count("num_functions", min, "function count that fits in the input", out)?;
        self.records("function", n, out, |w, fields| {
            let name = w.function(fields)?;
            Ok(shown(fields, w.name_text(name)))
        })
    }

    /// A top-level symbol profile, added to the profile.
    fn function(&mut self, out: &mut Nodes) -> Result<NameId> {
        let head = self.counter("head_count", out)?;
        let timestamp = if self.layout.v3 { self.counter("timestamp", out)? } else { 0 };
        let name = self.name_index(false, out)?;
        // Aliases of one function are written once per name with the same body; LLVM
        // keeps the samples of the first and only adds the head counts of the rest.
        let update = self.profile.function(name).is_none_or(|f| f.total == 0);
        let mut f = FunctionSamples { name, head, timestamp, ..FunctionSamples::default() };
        self.body(&mut f, 0, update, out)?;
        self.profile.add(f);
        Ok(name)
    }

    /// Positions and inlined callsites of a symbol profile at inline depth `depth`;
    /// their counts are taken only when `update`.
    fn body(&mut self, f: &mut FunctionSamples, depth: usize, update: bool, out: &mut Nodes) -> Result<()> {
        let positions = self.count("num_pos_counts", MIN_POSITION, "position count that fits in the input", out)?;
        let callsites = self.count("num_callsites", MIN_CALLSITE, "callsite count that fits in the input", out)?;
        let both = u64::from(positions).saturating_add(u64::from(callsites));
        if both > self.remaining() / MIN_POSITION {
            return Err(Error::invalid(self.r.offset(), "position and callsite counts that fit in the input", both));
        }
        for _ in 0..positions {
            self.position(f, update, out)?;
        }
        for _ in 0..callsites {
            self.callsite(f, depth, update, out)?;
        }
        Ok(())
    }

    fn position(&mut self, f: &mut FunctionSamples, update: bool, out: &mut Nodes) -> Result<()> {
        let start = self.r.offset();
        let mut fields = Nodes::new(out.on);
        let loc = self.offset("position offset", &mut fields)?;
        let targets = self.word("num_targets", &mut fields)?;
        let count = self.counter("count", &mut fields)?;
        if u64::from(targets) > self.remaining() / TARGET {
            return Err(Error::invalid(
                start.saturating_add(4),
                "target count that fits in the input",
                u64::from(targets),
            ));
        }
        let mut calls = Vec::with_capacity(usize::try_from(targets).unwrap_or(0));
        for _ in 0..targets {
            let at = self.r.offset();
            let mut target = Nodes::new(out.on);
            let hist = self.word("hist_type", &mut target)?;
            if hist != HIST_TYPE_INDIR_CALL_TOPN {
                return Err(Error::invalid(at, "hist_type HIST_TYPE_INDIR_CALL_TOPN (7)", u64::from(hist)));
            }
            let name = self.name_index(true, &mut target)?;
            let target_count = self.counter("count", &mut target)?;
            calls.push(CallTarget { name, count: target_count });
            let end = self.r.offset();
            if out.on {
                let value = alloc::format!("{}:{target_count}", self.name_text(name));
                fields.push(|| Node::new("target", at, end).with_value(value).with_children(target.list));
            }
        }
        if update {
            f.total = add(f.total, count, &mut self.profile.overflowed);
            self.profile.overflowed |= f.add_body(loc, count, calls);
        }
        let end = self.r.offset();
        out.push(|| {
            Node::new("position", start, end)
                .with_value(format_args!("{}: {count}", Loc(loc)))
                .with_children(fields.list)
        });
        Ok(())
    }

    fn callsite(&mut self, f: &mut FunctionSamples, depth: usize, update: bool, out: &mut Nodes) -> Result<()> {
        let start = self.r.offset();
        let mut fields = Nodes::new(out.on);
        let loc = self.offset("callsite offset", &mut fields)?;
        if depth >= MAX_DEPTH {
            return Err(Error::malformed(start, "inline nesting deeper than 256 levels"));
        }
        let name = self.name_index(false, &mut fields)?;
        let mut callee = FunctionSamples { name, ..FunctionSamples::default() };
        self.body(&mut callee, depth.saturating_add(1), update, &mut fields)?;
        f.total = add(f.total, callee.total, &mut self.profile.overflowed);
        self.profile.overflowed |= f.add_callsite(loc, callee, &self.profile.names);
        let end = self.r.offset();
        if out.on {
            let value = alloc::format!("{}: {}", Loc(loc), self.name_text(name));
            out.push(|| Node::new("callsite", start, end).with_value(value).with_children(fields.list));
        }
        Ok(())
    }

    fn module_grouping(&mut self, out: &mut Nodes) -> Result<Vec<u32>> {
        let length = self.word("length", out)?;
        let modules = self.word("num_modules", out)?;
        let mut words = alloc::vec![length, modules];
        if modules > 0 {
            // autofdo 0.19's LIPO module records: `length` words, counting num_modules.
            let at = self.r.offset();
            let n = u64::from(length.saturating_sub(1));
            if n > self.remaining() / 4 {
                return Err(Error::invalid(
                    at.saturating_sub(8),
                    "section length that fits in the input",
                    u64::from(length),
                ));
            }
            for _ in 0..n {
                words.push(self.r.u32("module records")?);
            }
            out.leaf("modules", at, self.r.offset(), format_args!("{n} words"));
        }
        Ok(words)
    }

    fn working_set(&mut self, out: &mut Nodes) -> Result<Vec<WorkingSet>> {
        let at = self.r.offset();
        let length = self.word("length", out)?;
        let n = u64::from(length / 3);
        if u64::from(length).saturating_mul(4) > self.remaining() {
            return Err(Error::invalid(at, "section length that fits in the input", u64::from(length)));
        }
        let mut sets = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        for i in 0..n {
            let start = self.r.offset();
            let mut fields = Nodes::new(out.on);
            let set = WorkingSet {
                num_counters: self.word("num_counters", &mut fields)?,
                min_counter: self.counter("min_counter", &mut fields)?,
            };
            let end = self.r.offset();
            out.push(|| {
                Node::new(alloc::format!("working set {i}"), start, end)
                    .with_value(format_args!("{} counters >= {}", set.num_counters, set.min_counter))
                    .with_children(fields.list)
            });
            sets.push(set);
        }
        let rest = u64::from(length % 3).saturating_mul(4);
        if rest > 0 {
            let start = self.r.offset();
            let bytes = self.r.bytes(rest, "working set words")?;
            out.leaf("rest", start, self.r.offset(), Hex(bytes));
        }
        Ok(sets)
    }

    fn peek_tag(&self) -> Option<u32> {
        let mut peek = self.r;
        peek.u32("tag").ok()
    }
}

/// A record's value, formatted only for a dump.
fn shown(fields: &Nodes, value: impl Display) -> String {
    if fields.on {
        alloc::format!("{value}")
    } else {
        String::new()
    }
}

fn add(a: u64, b: u64, overflowed: &mut bool) -> u64 {
    a.checked_add(b).unwrap_or_else(|| {
        *overflowed = true;
        u64::MAX
    })
}

/// The one walk: the profile always, the dump tree when `dump`.
fn walk(data: &[u8], endian: Endian, layout: Layout, dump: bool) -> Result<(Decoded, Option<Node>)> {
    let mut w = Walk {
        r: Reader::new(data, endian),
        layout,
        dump,
        budget: if dump { DUMP_NODES } else { 0 },
        table: Vec::new(),
        profile: Profile::new(),
    };
    let mut top = Nodes::new(dump);
    let at = w.r.offset();
    let magic = w.r.u32("magic")?;
    top.leaf("magic", at, w.r.offset(), format_args!("{magic:#x}"));
    let at = w.r.offset();
    let version = w.r.u32("version")?;
    match version {
        VERSION_704 => {
            top.leaf("version", at, w.r.offset(), format_args!("{version:#x} (\"*704\", {} layout)", layout.name()))
        }
        v => top.leaf("version", at, w.r.offset(), format_args!("{v:#x} ({} layout)", layout.name())),
    }
    w.word("zero", &mut top)?;

    let summary = if layout.v3 {
        Some(w.section(TAG_SUMMARY, "AFDO_SUMMARY", "AFDO_SUMMARY tag 0xa8000000", &mut top, Walk::summary)?)
    } else {
        None
    };
    w.section(TAG_FILE_NAMES, "AFDO_FILE_NAMES", "AFDO_FILE_NAMES tag 0xaa000000", &mut top, Walk::file_names)?;
    w.section(TAG_FUNCTION, "AFDO_FUNCTION", "AFDO_FUNCTION tag 0xac000000", &mut top, Walk::functions)?;
    // LLVM stops after the functions; autofdo reads these two. Either may be missing,
    // and what follows them is left unparsed.
    let mut module_grouping = None;
    if w.peek_tag() == Some(TAG_MODULE_GROUPING) {
        let words =
            w.section(TAG_MODULE_GROUPING, "MODULE_GROUPING", "MODULE_GROUPING tag", &mut top, Walk::module_grouping)?;
        module_grouping = Some(words);
    }
    let mut working_set = None;
    if w.peek_tag() == Some(TAG_WORKING_SET) {
        let sets =
            w.section(TAG_WORKING_SET, "AFDO_WORKING_SET", "AFDO_WORKING_SET tag", &mut top, Walk::working_set)?;
        working_set = Some(sets);
    }

    let root = if dump {
        let mut root = Node::new("gcov afdo", 0, data.len() as u64).with_children(top.list);
        root.tile()?;
        Some(root)
    } else {
        None
    };
    w.profile.kind.file_names = layout.v3;
    let file = FileInfo { endian, version, layout, summary, module_grouping, working_set };
    Ok((Decoded { profile: w.profile, file }, root))
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
        words(&mut d, &[TAG_MODULE_GROUPING, 1, 0]); // 108 tag, length 1, num_modules 0
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

    fn labels(node: &Node) -> Vec<(&str, u64, u64)> {
        node.children.iter().map(|c| (c.label.as_ref(), c.start, c.end)).collect()
    }

    #[test]
    fn v1_layout_walks_every_field() {
        let data = v1();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        assert_eq!(
            labels(&root),
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
        assert_eq!((function.start, function.end, function.value.as_deref()), (56, 108, Some("main")));
        assert_eq!(
            labels(function),
            [
                ("head_count", 56, 64),
                ("name_index", 64, 68),
                ("num_pos_counts", 68, 72),
                ("num_callsites", 72, 76),
                ("position", 76, 92),
                ("callsite", 92, 108)
            ]
        );
        assert_eq!(function.children[4].value.as_deref(), Some("1: 7"));
        assert_eq!(function.children[5].value.as_deref(), Some("2: main"));
        assert_eq!(function.children[5].children[0].value.as_deref(), Some("0x20000 (line 2, discriminator 0)"));
    }

    #[test]
    fn v1_layout_decodes() {
        let d = decode(&v1()).unwrap();
        assert_eq!(d.file.layout, Layout::V1);
        assert_eq!(d.file.module_grouping, Some(alloc::vec![1, 0]));
        let p = &d.profile;
        let f = &p.functions[0];
        assert_eq!((f.total, f.head, f.body.len(), f.callsites.len()), (7, 10, 1, 1));
        assert_eq!(f.body[0].location, LineLocation { line: 1, discriminator: 0 });
        assert_eq!(f.callsites[0].location.line, 2);
    }

    #[test]
    fn v3_layout_under_704() {
        let data = v3();
        let root = dump(&data, &det()).unwrap();
        assert_eq!(root.check_tiling(), Ok(()));
        assert_eq!(
            labels(&root)[3..],
            [("AFDO_SUMMARY", 12, 84), ("AFDO_FILE_NAMES", 84, 118), ("AFDO_FUNCTION", 118, 130)]
        );
        let summary = &root.children[3];
        assert_eq!(summary.children[1].value.as_deref(), Some("100"));
        assert_eq!(summary.children[7].value.as_deref(), Some("cutoff 10000: min count 40, 2 counts"));
        assert_eq!(root.children[4].children[3].value.as_deref(), Some("a.c"));
        let d = decode(&data).unwrap();
        assert_eq!(d.profile.files, [b"a.c".to_vec()]);
        let entry = d.profile.names.get(NameId(0)).unwrap();
        assert_eq!((&entry.name, entry.file), (&Name::Bytes(b"f".to_vec()), Some(0)));
        assert_eq!(d.file.summary.unwrap().detailed, [SummaryEntry { cutoff: 10000, min_count: 40, num_counts: 2 }]);
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
        words(&mut deep, &[1, 0, TAG_FILE_NAMES, 0, 1, 1, 0, TAG_FUNCTION, 0, 1, 0, 0]);
        for _ in 0..300 {
            words(&mut deep, &[0, 0, 1, 0]); // name 0, no positions, one callsite, its offset
        }
        let err = decode(&deep).err().unwrap();
        assert_eq!(err.offset(), Some(48 + 16 * 257));
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
