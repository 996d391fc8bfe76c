//! AutoFDO GCOV v4, binary (normal and compact) and text, into the sample-profile
//! [`Profile`] model.
//!
//! The binary form is the 2026 proposal (`shared/seeds/004_*.txt` section 4) with the
//! readings of `docs/gcov-v4.md`: a section's offset points at its bitmask byte and
//! its size counts it; section index = position in the header (0 summary, 1 file
//! names, 2+i the i-th table entry); each section's own compact bit decides its
//! encoding; sections may come in any order, must not overlap, and unknown types
//! are skipped; unknown location types are skipped by their trailing size.
//!
//! The walk starts at the file names, follows each TU to its string table and symbol
//! names, and each symbol with a body to its symbol-info section. The same walk
//! makes the dump ([`crate::formats::gcov::v4::dump`]): it reports every field to a
//! [`Sink`], which is a no-op when only the model is wanted, and in dump mode it also
//! reads the sections nothing refers to, so that the dump covers every byte.
//!
//! Model mapping: a symbol is a [`NameEntry`] whose file is its TU's file (`None` for
//! the unknown-file entry); [`Profile::files`] is the file list without that entry.
//! The two records of a location (count, call targets) merge into one body sample;
//! totals are recomputed as body samples plus inlined callees' totals, since v4
//! stores none.

use alloc::vec::Vec;
use core::fmt;

use hashbrown::HashMap;

use crate::dump::Text;
use crate::error::{Error, Result};
use crate::formats::gcov::v4_layout::{
    count_field, field, LocationType, NoDump, SectionType, Sink, COMPACT, DISCRIMINATOR_WIDTH, FILE_NAMES_INDEX,
    FIRST_TABLE_INDEX, HAS_DISCRIMINATOR, LINE_WIDTH, MAGIC, NO_SYMBOL_INFO, NUM_SECTIONS_WIDTH, SUMMARY_INDEX,
    TYPE_MASK, VERSION,
};
use crate::formats::gcov::{v4_trie, v4text};
use crate::formats::sample::model::{
    CallTarget, FunctionSamples, LineLocation, Name, NameEntry, NameId, Names, Profile, MAX_DEPTH,
};
use crate::read::{Endian, Reader};
use crate::summary::{Summary, SummaryEntry};

pub use crate::formats::gcov::v4_layout::Decoded;

/// Decodes a GCOV v4 binary file (normal or compact).
pub fn decode(data: &[u8]) -> Result<Profile> {
    read(data).map(|d| d.profile)
}

/// Decodes a GCOV v4 text file.
pub fn decode_text(data: &[u8]) -> Result<Profile> {
    read_text(data).map(|d| d.profile)
}

/// Decodes a GCOV v4 binary file, keeping the summary it stored.
pub fn read(data: &[u8]) -> Result<Decoded> {
    walk(data, &mut NoDump, false)
}

/// Decodes a GCOV v4 text file, keeping the summary it stored.
pub fn read_text(data: &[u8]) -> Result<Decoded> {
    v4text::read(data)
}

/// One section: where it is, and where the header or table said so.
#[derive(Clone, Copy)]
struct Section {
    offset: u64,
    size: u64,
    /// Offset of the header field or table entry that gave its offset.
    at: u64,
}

/// A `GCOV_FILE_NAME` entry.
struct FileEntry<'a> {
    name: &'a [u8],
    strings: u64,
    strings_at: u64,
    symbols: u64,
    symbols_at: u64,
    first: u64,
    end: u64,
    at: u64,
}

/// A `GCOV_SYMBOL_NAME` entry.
struct SymbolEntry {
    string: u64,
    string_at: u64,
    id: u64,
    id_at: u64,
    info: u64,
    info_at: u64,
}

/// The file being walked: its bytes, its sections, which were read.
struct File<'a> {
    data: &'a [u8],
    sections: Vec<Section>,
    visited: Vec<bool>,
}

impl<'a> File<'a> {
    /// The data of section `index` (after its bitmask), which must be of type `want`
    /// (any type if `None`) and not read before. `at` is where the index was read.
    fn open<S: Sink>(
        &mut self,
        sink: &mut S,
        index: u64,
        want: Option<SectionType>,
        at: u64,
    ) -> Result<(Reader<'a>, bool, SectionType)> {
        let slot = usize::try_from(index).ok().filter(|&i| i < self.sections.len());
        let Some(i) = slot else {
            return Err(Error::invalid(at, "a section index below the number of sections", index));
        };
        match self.visited.get_mut(i) {
            Some(v) if !*v => *v = true,
            _ => return Err(Error::invalid(at, "a section not referred to before", index)),
        }
        let Some(section) = self.sections.get(i).copied() else {
            return Err(Error::invalid(at, "a section index below the number of sections", index));
        };
        let mut r = Reader::new(self.data, Endian::Big).sub_at(section.offset, section.size, "section")?;
        let mask_at = r.offset();
        let mask = r.u8("GCOV_SECTION_BITMASK")?;
        let kind = SectionType(mask & TYPE_MASK);
        let compact = mask & COMPACT != 0;
        if want.is_some_and(|w| w != kind) {
            return Err(Error::invalid(at, "a section of the type this index refers to", u64::from(kind.0)));
        }
        sink.open();
        sink.field("GCOV_SECTION_BITMASK", mask_at, r.offset(), SectionMask(mask));
        sink.begin_data(r.offset(), r.end_offset(), index);
        Ok((r, compact, kind))
    }
}

/// Closes the group of a section whose data `r` should have consumed.
fn close_section<S: Sink>(sink: &mut S, r: &Reader<'_>, start: u64, kind: SectionType, index: u64) -> Result<()> {
    if !r.is_empty() {
        return Err(Error::malformed(r.offset(), "bytes after the end of a section's data"));
    }
    sink.end_data();
    let label = kind.name().unwrap_or("unknown section");
    sink.close(label, start, r.end_offset(), format_args!("section {index}"));
    Ok(())
}

/// Displays a section bitmask: its type and compact bit.
struct SectionMask(u8);

impl fmt::Display for SectionMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = SectionType(self.0 & TYPE_MASK);
        match kind.name() {
            Some(name) => write!(f, "{:#04x} = {name}", self.0)?,
            None => write!(f, "{:#04x} = unknown type {}", self.0, kind.0)?,
        }
        if self.0 & COMPACT != 0 {
            f.write_str(" (compact)")?;
        }
        Ok(())
    }
}

/// What the walk knows once it has read every TU's symbols.
struct Prelude<'a> {
    file: File<'a>,
    profile: Profile,
    summary: Summary,
    ids: IdMap,
    /// The symbols with a body: name, symbol-info section index, where it was read.
    tops: Vec<(NameId, u64, u64)>,
}

/// The walk over a binary file; see the module docs. `every_section` reads the
/// sections nothing refers to too (the dump).
pub(crate) fn walk<S: Sink>(data: &[u8], sink: &mut S, every_section: bool) -> Result<Decoded> {
    let Prelude { mut file, mut profile, summary, ids, tops } = prelude(data, sink)?;
    let ctx = Ctx { ids: &ids, names: &profile.names };
    let mut functions = Vec::with_capacity(tops.len());
    let mut overflowed = false;
    for &(name, index, at) in &tops {
        let (mut s, c, kind) = file.open(sink, index, Some(SectionType::SYMBOL_INFO), at)?;
        let start = s.offset().saturating_sub(1);
        let mut f = FunctionSamples { name, ..FunctionSamples::default() };
        symbol_info(&mut s, sink, c, &ctx, &mut f, &mut overflowed)?;
        close_section(sink, &s, start, kind, index)?;
        functions.push(f);
    }

    if every_section {
        for index in 0..file.sections.len() as u64 {
            if file.visited.get(usize::try_from(index).unwrap_or(usize::MAX)).copied().unwrap_or(true) {
                continue;
            }
            let at = file.sections.get(usize::try_from(index).unwrap_or(usize::MAX)).map_or(0, |s| s.at);
            let (mut s, c, kind) = file.open(sink, index, None, at)?;
            let start = s.offset().saturating_sub(1);
            section_data(&mut s, sink, c, kind, &ctx)?;
            close_section(sink, &s, start, kind, index)?;
        }
    }

    profile.overflowed = overflowed;
    profile.kind.file_names = true;
    for f in functions {
        profile.add(f);
    }
    Ok(Decoded { profile, summary })
}

/// Reports the fields of section `index`'s data (after its bitmask) to `sink`: the
/// children of a dump node the dump left deferred.
pub(crate) fn expand_section<S: Sink>(data: &[u8], sink: &mut S, index: u64) -> Result<()> {
    let Prelude { file, profile, ids, .. } = prelude(data, &mut NoDump)?;
    let ctx = Ctx { ids: &ids, names: &profile.names };
    let section = usize::try_from(index).ok().and_then(|i| file.sections.get(i)).copied();
    let Some(section) = section else {
        return Err(Error::invalid(0, "a section index below the number of sections", index));
    };
    let mut r = Reader::new(data, Endian::Big).sub_at(section.offset, section.size, "section")?;
    let mask = r.u8("GCOV_SECTION_BITMASK")?;
    section_data(&mut r, sink, mask & COMPACT != 0, SectionType(mask & TYPE_MASK), &ctx)?;
    if !r.is_empty() {
        return Err(Error::malformed(r.offset(), "bytes after the end of a section's data"));
    }
    Ok(())
}

/// The header, the table, the summary, the file names and every TU's symbols.
fn prelude<'a, S: Sink>(data: &'a [u8], sink: &mut S) -> Result<Prelude<'a>> {
    let len = data.len() as u64;
    let mut r = Reader::new(data, Endian::Big);

    sink.open();
    let magic = r.bytes(4, "GCOV_MAGIC")?;
    sink.field("GCOV_MAGIC", 0, 4, Text(magic));
    if magic != MAGIC {
        return Err(Error::malformed(0, "expected the \"gcov\" magic"));
    }
    let version = field(&mut r, sink, 4, false, "GCOV_VERSION")?;
    if version != u64::from(VERSION) {
        return Err(Error::invalid(4, "GCOV_VERSION 4", version));
    }
    let mask_at = r.offset();
    let mask = r.u8("GCOV_HEADER_BITMASK")?;
    let compact = mask & COMPACT != 0;
    sink.field(
        "GCOV_HEADER_BITMASK",
        mask_at,
        r.offset(),
        format_args!("{mask:#04x}{}", if compact { " (compact)" } else { "" }),
    );
    let count_at = r.offset();
    let count = field(&mut r, sink, NUM_SECTIONS_WIDTH, compact, "GCOV_NUM_SECTIONS")?;
    let mut fixed = [Section { offset: 0, size: 0, at: 0 }; 2];
    for (section, (offset_label, size_label)) in fixed
        .iter_mut()
        .zip([("GCOV_SUMMARY_OFFSET", "GCOV_SUMMARY_SIZE"), ("GCOV_FILE_NAMES_OFFSET", "GCOV_FILE_NAMES_SIZE")])
    {
        section.at = r.offset();
        section.offset = field(&mut r, sink, 8, compact, offset_label)?;
        section.size = field(&mut r, sink, 8, compact, size_label)?;
    }
    sink.close("header", 0, r.offset(), if compact { "compact" } else { "normal" });

    // A table entry takes 16 bytes, or at least 2 as varints.
    let min_entry = if compact { 2 } else { 16 };
    if !r.holds(count, min_entry) {
        return Err(Error::invalid(count_at, "GCOV_NUM_SECTIONS entries that fit in the file", count));
    }
    let mut sections = Vec::with_capacity(usize::try_from(count).unwrap_or(0).saturating_add(2));
    sections.extend_from_slice(&fixed);
    let table_at = r.offset();
    sink.open();
    for i in 0..count {
        let at = r.offset();
        sink.open();
        let offset = field(&mut r, sink, 8, compact, "GCOV_SECTION_OFFSET")?;
        let size = field(&mut r, sink, 8, compact, "GCOV_SECTION_SIZE")?;
        sink.close("entry", at, r.offset(), format_args!("section {}", i.saturating_add(FIRST_TABLE_INDEX)));
        sections.push(Section { offset, size, at });
    }
    sink.close("section table", table_at, r.offset(), count);
    check_placement(&sections, r.offset(), len)?;

    let mut file = File { data, visited: alloc::vec![false; sections.len()], sections };
    let mut profile = Profile::new();

    let (mut s, c, kind) = file.open(sink, SUMMARY_INDEX, Some(SectionType::SUMMARY_INFO), fixed[0].at)?;
    let summary = summary(&mut s, sink, c)?;
    close_section(sink, &s, fixed[0].offset, kind, SUMMARY_INDEX)?;

    let (mut s, c, kind) = file.open(sink, FILE_NAMES_INDEX, Some(SectionType::FILE_NAMES), fixed[1].at)?;
    let tus = file_names(&mut s, sink, c)?;
    close_section(sink, &s, fixed[1].offset, kind, FILE_NAMES_INDEX)?;

    // Files: the list without the unknown-file entry, which must be there once.
    let mut tu_file: Vec<Option<u32>> = Vec::with_capacity(tus.len());
    let mut unknown = None;
    for tu in &tus {
        if tu.name.is_empty() {
            if unknown.replace(tu.at).is_some() {
                return Err(Error::malformed(tu.at, "a second empty (unknown-file) file name"));
            }
            tu_file.push(None);
        } else {
            tu_file.push(u32::try_from(profile.files.len()).ok());
            profile.files.push(tu.name.to_vec());
        }
    }
    if unknown.is_none() {
        return Err(Error::malformed(fixed[1].offset, "no empty (unknown-file) entry in the file names"));
    }
    check_ranges(&tus)?;

    // Every TU's symbols, then the bodies they point at.
    let max_end = tus.iter().map(|t| t.end).max().unwrap_or(0);
    let mut ids = IdMap::new(max_end, len);
    let mut tops: Vec<(NameId, u64, u64)> = Vec::new();
    for (tu, &file_id) in tus.iter().zip(&tu_file) {
        let (mut s, c, kind) = file.open(sink, tu.strings, Some(SectionType::STRING_TABLE), tu.strings_at)?;
        let start = s.offset().saturating_sub(1);
        let strings = v4_trie::read(&mut s, sink, c)?;
        close_section(sink, &s, start, kind, tu.strings)?;

        let (mut s, c, kind) = file.open(sink, tu.symbols, Some(SectionType::SYMBOL_NAMES), tu.symbols_at)?;
        let start = s.offset().saturating_sub(1);
        let entries = symbol_names(&mut s, sink, c)?;
        close_section(sink, &s, start, kind, tu.symbols)?;
        for e in entries {
            let name = usize::try_from(e.string).ok().and_then(|i| strings.get(i));
            let Some(name) = name else {
                return Err(Error::invalid(e.string_at, "a string index below the TU's GCOV_NUM_STRINGS", e.string));
            };
            if e.id < tu.first || e.id >= tu.end {
                return Err(Error::invalid(e.id_at, "a symbol id inside its TU's SYMBOL_ID_START..END", e.id));
            }
            let entry = NameEntry { name: Name::Bytes(name.clone()), file: file_id };
            let Some(name_id) = profile.names.intern(entry) else {
                return Err(Error::malformed(e.id_at, "more than 2^32 symbol names"));
            };
            let id = u32::try_from(e.id).unwrap_or(u32::MAX);
            if !ids.insert(id, name_id) {
                return Err(Error::invalid(e.id_at, "a symbol id defined once", e.id));
            }
            if e.info != u64::from(NO_SYMBOL_INFO) {
                tops.push((name_id, e.info, e.info_at));
            }
        }
    }
    Ok(Prelude { file, profile, summary, ids, tops })
}

/// Sections start after the header and table, end inside the file, hold at least
/// their bitmask, and do not overlap.
fn check_placement(sections: &[Section], header_end: u64, len: u64) -> Result<()> {
    let mut spans = Vec::with_capacity(sections.len());
    for s in sections {
        let end = s.offset.checked_add(s.size).filter(|&e| e <= len);
        match end {
            Some(end) if s.size > 0 && s.offset >= header_end => spans.push((s.offset, end, s.at)),
            _ => return Err(Error::invalid(s.at, "a section after the header and inside the file", s.offset)),
        }
    }
    spans.sort_unstable();
    for pair in spans.windows(2) {
        if let [(_, end, _), (offset, _, at)] = pair {
            if offset < end {
                return Err(Error::invalid(*at, "a section that does not overlap another", *offset));
            }
        }
    }
    Ok(())
}

/// TUs' symbol-id ranges are disjoint.
fn check_ranges(tus: &[FileEntry<'_>]) -> Result<()> {
    let mut ranges: Vec<(u64, u64, u64)> =
        tus.iter().filter(|t| t.first < t.end).map(|t| (t.first, t.end, t.at)).collect();
    ranges.sort_unstable();
    for pair in ranges.windows(2) {
        if let [(_, end, _), (first, _, at)] = pair {
            if first < end {
                return Err(Error::invalid(*at, "a symbol-id range disjoint from other TUs'", *first));
            }
        }
    }
    Ok(())
}

/// `GCOV_SUMMARY_INFO` data.
fn summary<S: Sink>(r: &mut Reader<'_>, sink: &mut S, compact: bool) -> Result<Summary> {
    let total = field(r, sink, 8, compact, "SUMMARY_TOTAL_COUNT")?;
    let max_count = field(r, sink, 8, compact, "SUMMARY_MAX_COUNT")?;
    let max_fn = field(r, sink, 8, compact, "SUMMARY_MAX_FN_COUNT")?;
    let num_counts = field(r, sink, 8, compact, "SUMMARY_NUM_COUNTS")?;
    let num_functions = field(r, sink, 8, compact, "SUMMARY_NUM_FUNCTIONS")?;
    let expected = "SUMMARY_NUM_DETAILED_ENTRIES that fit in the section";
    let count = count_field(r, sink, (8, compact), "SUMMARY_NUM_DETAILED_ENTRIES", (20, 3), expected)?;
    let mut detailed = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for _ in 0..count {
        let at = r.offset();
        sink.open();
        let cutoff = field(r, sink, 4, compact, "ENTRY_CUTOFF")?;
        let min_count = field(r, sink, 8, compact, "ENTRY_MIN_COUNT")?;
        let entry_counts = field(r, sink, 8, compact, "ENTRY_NUM_COUNTS")?;
        sink.close("detailed entry", at, r.offset(), format_args!("{cutoff} ppm: {entry_counts} counts ≥ {min_count}"));
        let cutoff = u32::try_from(cutoff).unwrap_or(u32::MAX);
        detailed.push(SummaryEntry { cutoff, min_count, num_counts: entry_counts });
    }
    Ok(Summary {
        num_functions,
        num_counts,
        total_count: u128::from(total),
        max_count,
        max_function_count: max_fn,
        // v4 does not store it.
        max_internal_count: 0,
        detailed,
    })
}

/// `GCOV_FILE_NAMES` data.
fn file_names<'a, S: Sink>(r: &mut Reader<'a>, sink: &mut S, compact: bool) -> Result<Vec<FileEntry<'a>>> {
    // Length, NUL, four indices: 21 bytes, or 6 as varints.
    let expected = "GCOV_NUM_FILE_NAMES that fit in the section";
    let count = count_field(r, sink, (4, compact), "GCOV_NUM_FILE_NAMES", (21, 6), expected)?;
    let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for _ in 0..count {
        let at = r.offset();
        sink.open();
        let len = field(r, sink, 4, compact, "FILE_NAME_STRING_LENGTH")?;
        let name_at = r.offset();
        let bytes = r.bytes(len, "FILE_NAME_STRING_CONTENT")?;
        let name = match bytes.split_last() {
            Some((0, name)) if !name.contains(&0) => name,
            _ => return Err(Error::malformed(name_at, "a file name ending with its only NUL")),
        };
        sink.field("FILE_NAME_STRING_CONTENT", name_at, r.offset(), Text(name));
        let strings_at = r.offset();
        let strings = field(r, sink, 4, compact, "STRING_TABLE_SECTION_INDEX")?;
        let symbols_at = r.offset();
        let symbols = field(r, sink, 4, compact, "SYMBOL_NAMES_SECTION_INDEX")?;
        let first = field(r, sink, 4, compact, "SYMBOL_ID_START")?;
        let end_at = r.offset();
        let end = field(r, sink, 4, compact, "SYMBOL_ID_END")?;
        if end < first {
            return Err(Error::invalid(end_at, "SYMBOL_ID_END at or after SYMBOL_ID_START", end));
        }
        let shown = if name.is_empty() { "(unknown file)" } else { "" };
        sink.close("file name", at, r.offset(), format_args!("{}{shown}", Text(name)));
        out.push(FileEntry { name, strings, strings_at, symbols, symbols_at, first, end, at });
    }
    Ok(out)
}

/// `GCOV_SYMBOL_NAMES` data.
fn symbol_names<S: Sink>(r: &mut Reader<'_>, sink: &mut S, compact: bool) -> Result<Vec<SymbolEntry>> {
    let expected = "GCOV_NUM_SYMBOL_NAMES that fit in the section";
    let count = count_field(r, sink, (4, compact), "GCOV_NUM_SYMBOL_NAMES", (12, 3), expected)?;
    let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for _ in 0..count {
        let at = r.offset();
        sink.open();
        let string_at = r.offset();
        let string = field(r, sink, 4, compact, "SYMBOL_NAME_STRING_INDEX")?;
        let id_at = r.offset();
        let id = field(r, sink, 4, compact, "SYMBOL_ID")?;
        let info_at = r.offset();
        let info = field(r, sink, 4, compact, "SYMBOL_INFO_SECTION_INDEX")?;
        if info == u64::from(NO_SYMBOL_INFO) {
            sink.close("symbol name", at, r.offset(), format_args!("symbol {id}: string {string}, no body"));
        } else {
            sink.close("symbol name", at, r.offset(), format_args!("symbol {id}: string {string}, body in {info}"));
        }
        out.push(SymbolEntry { string, string_at, id, id_at, info, info_at });
    }
    Ok(out)
}

/// Symbol ids to names: a vector when the ids are no more than the file could
/// hold densely (as writers number them), a hash map otherwise.
enum IdMap {
    /// `u32::MAX` where no symbol has the id.
    Dense(Vec<u32>),
    Sparse(HashMap<u32, NameId>),
}

impl IdMap {
    /// For ids below `end` in a file of `len` bytes.
    fn new(end: u64, len: u64) -> Self {
        // A symbol-names entry takes at least 3 bytes.
        match usize::try_from(end) {
            Ok(n) if end <= len.checked_div(3).unwrap_or(0) => IdMap::Dense(alloc::vec![u32::MAX; n]),
            _ => IdMap::Sparse(HashMap::new()),
        }
    }

    /// Records `id`; false if it was already there.
    fn insert(&mut self, id: u32, name: NameId) -> bool {
        match self {
            IdMap::Dense(v) => match v.get_mut(id as usize) {
                Some(slot) if *slot == u32::MAX => {
                    *slot = name.0;
                    true
                }
                Some(_) => false,
                // Ids are checked against their TU's range, which is below `end`.
                None => false,
            },
            IdMap::Sparse(m) => m.insert(id, name).is_none(),
        }
    }

    fn get(&self, id: u32) -> Option<NameId> {
        match self {
            IdMap::Dense(v) => v.get(id as usize).copied().filter(|&n| n != u32::MAX).map(NameId),
            IdMap::Sparse(m) => m.get(&id).copied(),
        }
    }
}

/// What location records need: symbol ids to names.
struct Ctx<'a> {
    ids: &'a IdMap,
    names: &'a Names,
}

impl Ctx<'_> {
    fn resolve(&self, id: u64, at: u64) -> Result<NameId> {
        let found = u32::try_from(id).ok().and_then(|i| self.ids.get(i));
        found.ok_or(Error::invalid(at, "a symbol id defined in a symbol-names section", id))
    }
}

/// Displays a symbol id with its name.
struct Symbol<'a>(u64, Option<&'a Name>);

impl fmt::Display for Symbol<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.1 {
            Some(Name::Bytes(b)) => write!(f, "{} ({})", self.0, Text(b)),
            Some(Name::Md5(h)) => write!(f, "{} (md5 {h})", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// Reads a symbol-id field and resolves it.
fn symbol<S: Sink>(r: &mut Reader<'_>, sink: &mut S, c: bool, ctx: &Ctx<'_>, label: &'static str) -> Result<NameId> {
    let at = r.offset();
    let id = crate::formats::gcov::v4_layout::int(r, 4, c, label)?;
    let name = ctx.resolve(id, at)?;
    if sink.recording() {
        sink.field(label, at, r.offset(), Symbol(id, ctx.names.name(name)));
    }
    Ok(name)
}

/// `GCOV_SYMBOL_INFO` data into `f`.
fn symbol_info<S: Sink>(
    r: &mut Reader<'_>,
    sink: &mut S,
    compact: bool,
    ctx: &Ctx<'_>,
    f: &mut FunctionSamples,
    overflowed: &mut bool,
) -> Result<()> {
    f.head = field(r, sink, 8, compact, "SYMBOL_HEAD_COUNT")?;
    f.timestamp = field(r, sink, 8, compact, "SYMBOL_TIMESTAMP")?;
    body(r, sink, compact, ctx, f, 0, overflowed)
}

/// `SYMBOL_NUM_LOCATIONS` and the location records of a function at inline `depth`;
/// sets its total.
fn body<S: Sink>(
    r: &mut Reader<'_>,
    sink: &mut S,
    compact: bool,
    ctx: &Ctx<'_>,
    f: &mut FunctionSamples,
    depth: usize,
    overflowed: &mut bool,
) -> Result<()> {
    // A location record takes at least 4 bytes, or 2 as varints.
    let expected = "SYMBOL_NUM_LOCATIONS that fit in the section";
    let count = count_field(r, sink, (4, compact), "SYMBOL_NUM_LOCATIONS", (4, 2), expected)?;
    for _ in 0..count {
        location(r, sink, compact, ctx, f, depth, overflowed)?;
    }
    let inlined = f.callsites.iter().fold(0u64, |sum, c| sum.saturating_add(c.callee.total));
    f.total = f.body_samples().saturating_add(inlined);
    Ok(())
}

/// Displays a location record's line, discriminator and type.
struct Location(LineLocation, LocationType);

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0.line)?;
        if self.0.discriminator != 0 {
            write!(f, ".{}", self.0.discriminator)?;
        }
        match self.1.name() {
            Some(name) => write!(f, " {name}"),
            None => write!(f, " unknown type {}", self.1 .0),
        }
    }
}

/// One location record into `f`.
fn location<S: Sink>(
    r: &mut Reader<'_>,
    sink: &mut S,
    compact: bool,
    ctx: &Ctx<'_>,
    f: &mut FunctionSamples,
    depth: usize,
    overflowed: &mut bool,
) -> Result<()> {
    let start = r.offset();
    sink.open();
    let mask = r.u8("LOCATION_BITMASK")?;
    let kind = LocationType(mask & TYPE_MASK);
    sink.field("LOCATION_BITMASK", start, r.offset(), format_args!("{mask:#04x}"));
    let line = field(r, sink, LINE_WIDTH, compact, "LOCATION_LINE_OFFSET")?;
    let discriminator = if mask & HAS_DISCRIMINATOR != 0 {
        field(r, sink, DISCRIMINATOR_WIDTH, compact, "LOCATION_DISCRIMINATOR")?
    } else {
        0
    };
    // Both fit in u32: their fields are 3 and 2 bytes wide.
    let loc = LineLocation {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        discriminator: u32::try_from(discriminator).unwrap_or(u32::MAX),
    };
    match kind {
        LocationType::ZERO => *overflowed |= f.add_body(loc, 0, Vec::new()),
        LocationType::NORMAL => {
            let count = field(r, sink, 4, compact, "LOCATION_COUNT")?;
            *overflowed |= f.add_body(loc, count, Vec::new());
        }
        LocationType::WIDE => {
            let count = field(r, sink, 8, compact, "LOCATION_COUNT")?;
            *overflowed |= f.add_body(loc, count, Vec::new());
        }
        LocationType::CALLED_FN => {
            let name = symbol(r, sink, compact, ctx, "LOCATION_CALLED_FN_INDEX")?;
            let count = field(r, sink, 8, compact, "LOCATION_CALLED_FN_COUNT")?;
            *overflowed |= f.add_body(loc, 0, alloc::vec![CallTarget { name, count }]);
        }
        LocationType::CALLED_FNS => {
            let expected = "LOCATION_CALLED_TARGETS that fit in the section";
            let n = count_field(r, sink, (4, compact), "LOCATION_CALLED_TARGETS", (12, 2), expected)?;
            let mut calls = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
            for _ in 0..n {
                let at = r.offset();
                sink.open();
                let name = symbol(r, sink, compact, ctx, "LOCATION_CALLED_FN_INDEX")?;
                let count = field(r, sink, 8, compact, "LOCATION_CALLED_FN_COUNT")?;
                sink.close("call target", at, r.offset(), count);
                calls.push(CallTarget { name, count });
            }
            *overflowed |= f.add_body(loc, 0, calls);
        }
        LocationType::INLINED_FN => {
            let name = symbol(r, sink, compact, ctx, "INLINED_SYMBOL_ID")?;
            if depth >= MAX_DEPTH {
                return Err(Error::malformed(start, "inlined functions nested deeper than MAX_DEPTH (256)"));
            }
            let mut callee = FunctionSamples { name, ..FunctionSamples::default() };
            body(r, sink, compact, ctx, &mut callee, depth.saturating_add(1), overflowed)?;
            *overflowed |= f.add_callsite(loc, callee, ctx.names);
        }
        _ => {
            let size = field(r, sink, 4, compact, "LOCATION_TRAILING_SIZE")?;
            let at = r.offset();
            r.skip(size, "LOCATION_TRAILING_SIZE bytes of an unknown location type")?;
            sink.field("trailing data", at, r.offset(), format_args!("{size} bytes"));
        }
    }
    sink.close("location", start, r.offset(), Location(loc, kind));
    Ok(())
}

/// A section's data (after its bitmask), read by its type: for the dump, the
/// sections nothing refers to, and the ones it deferred.
fn section_data<S: Sink>(
    r: &mut Reader<'_>,
    sink: &mut S,
    compact: bool,
    kind: SectionType,
    ctx: &Ctx<'_>,
) -> Result<()> {
    match kind {
        SectionType::STRING_TABLE => v4_trie::read(r, sink, compact).map(|_| ()),
        SectionType::SUMMARY_INFO => summary(r, sink, compact).map(|_| ()),
        SectionType::FILE_NAMES => file_names(r, sink, compact).map(|_| ()),
        SectionType::SYMBOL_NAMES => symbol_names(r, sink, compact).map(|_| ()),
        SectionType::SYMBOL_INFO => {
            let mut f = FunctionSamples::default();
            symbol_info(r, sink, compact, ctx, &mut f, &mut false)
        }
        _ => {
            let at = r.offset();
            let rest = r.remaining() as u64;
            r.skip(rest, "section data")?;
            if rest > 0 {
                sink.field("data", at, r.offset(), format_args!("{rest} bytes"));
            }
            Ok(())
        }
    }
}
