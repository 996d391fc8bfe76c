//! LLVM sample-profile raw binary (`SPF_Binary`) and extensible binary
//! (`SPF_Ext_Binary`), version 103, into the [`Profile`] model, read as LLVM 22's
//! `SampleProfileReaderRawBinary` and `SampleProfileReaderExtBinary` read them for
//! its tools (`llvm/lib/ProfileData/SampleProfReader.cpp`). The same pass records
//! every field it reads as a dump node when [`super::binary::dump`] asks; [`decode`]
//! records nothing.
//!
//! ```text
//! raw binary  magic version summary name-table function…                  (to EOF)
//! extbinary   magic version NumEntries:u64 {Type Flags Offset Size}:u64 × NumEntries,
//!             then each non-empty section, in table order (not file order)
//! function    HeadSamples NameIdx|ContextIdx body
//! body        TotalSamples NumRecords* {LineOffset Discriminator NumSamples NumCalls*
//!                 {NameIdx Count} × NumCalls} × NumRecords
//!             NumCallsites* {LineOffset Discriminator NameIdx body} × NumCallsites
//!             [NumCallsites* {LineOffset Discriminator NumTypes* {NameIdx Count}
//!                 × NumTypes} × NumCallsites]     (vtables, when the summary says so)
//! ```
//!
//! Every number is a ULEB128 but the section table and fixed-length MD5s (u64 LE);
//! `*` marks numbers LLVM rejects above `u32::MAX`. Sections:
//!
//! - summary: six numbers and {Cutoff MinBlockCount NumBlocks} entries; only its
//!   flags are kept (partial, CS, FS discriminators, pre-inlined, vtable block);
//! - name table: strings, ULEB MD5s or u64 MD5s; each replaces the one before;
//! - CS name table: contexts of {NameIdx LineOffset Discriminator} frames; with the
//!   summary's CS flag, functions name a context instead of a name;
//! - function offset table: {NameIdx|ContextIdx Offset}; LLVM's tools skip it, we
//!   check that every offset is where a function of the next profile section starts;
//! - function metadata: {NameIdx|ContextIdx [Checksum] [Attributes*] [NumCallsites*
//!   {LineOffset Discriminator NameIdx metadata} × NumCallsites (not CS)]} to the end;
//! - profile symbol list: NUL-terminated names to the end;
//! - any section may be zlib-compressed: UncompressedSize CompressedSize zlib-data.
//!
//! As in LLVM: body line offsets above 0xffff are errors, callsite and metadata ones
//! are cut to 32 bits, and discriminators are cut to 32 bits (`llvm-profdata` masks
//! no FS discriminator bits); repeated functions and callsites add up; a vtable seen
//! twice at one location of one function record keeps its first count; metadata
//! for a callsite the profile lacks adds that callee, empty and with an empty name;
//! a section must be read exactly to its end. Where LLVM reads past a buffer (a
//! section or a compressed payload beyond the file, an index past a table, a CS
//! context without frames) we fail, and inline nesting deeper than [`MAX_DEPTH`] is
//! an error. Two simplifications: a function repeated in a later record is added
//! with [`Profile::add`], which sums the vtable counts LLVM would keep the first of;
//! and a name given both as a string and as its MD5 stays two functions (LLVM keys
//! functions by MD5).

use alloc::vec::Vec;
use core::fmt::{self, Display};

use hashbrown::HashSet;

use super::binary::{self, Label, ListKind, SecType, SectionTitle, Trace};
use super::model::{
    CallTarget, Callsite, Frame, FunctionSamples, LineLocation, Name, NameEntry, NameId, Names, Profile, TypeSamples,
    MAX_DEPTH,
};
use super::{MAGIC_BINARY, MAGIC_COMPACT_BINARY, MAGIC_EXT_BINARY};
use crate::compress;
use crate::dump::{Node, Text};
use crate::error::{Error, Location, Result};
use crate::read::{Endian, Reader};

/// `SPVersion()`: the only version LLVM reads.
pub const VERSION: u64 = 103;

/// Decodes a raw binary or extbinary sample profile.
pub fn decode(data: &[u8]) -> Result<Profile> {
    let mut decoder = Decoder::new(data, Trace::new(false));
    decoder.file()?;
    Ok(decoder.profile)
}

/// The dump's root label and top-level nodes, from the decoding pass.
pub(super) fn dump_nodes(data: &[u8]) -> Result<(&'static str, Vec<Node>)> {
    let mut decoder = Decoder::new(data, Trace::new(true));
    let label = decoder.file()?;
    Ok((label, decoder.trace.into_nodes()))
}

/// The dump's root label and top-level nodes, and the profile, from one decoding
/// pass (the page shows both; decoding twice doubled the wait for a large file).
pub(super) fn dump_nodes_and_profile(data: &[u8]) -> Result<(&'static str, Vec<Node>, Profile)> {
    let mut decoder = Decoder::new(data, Trace::new(true));
    let label = decoder.file()?;
    Ok((label, decoder.trace.into_nodes(), decoder.profile))
}

/// The nodes a focused trace records in a decoding pass.
pub(super) fn expand_nodes(data: &[u8], trace: Trace) -> Result<Vec<Node>> {
    let mut decoder = Decoder::new(data, trace);
    decoder.file()?;
    Ok(decoder.trace.into_nodes())
}

// The error text must agree with MAX_DEPTH.
const _: () = assert!(MAX_DEPTH == 256);
const TOO_DEEP: &str = "inline nesting of at most 256 levels";

/// Smallest encodings, to check counts against the bytes left before looping or
/// allocating: a body record is 4 ULEBs, a call target or type 2, an inlined callsite
/// 3 plus a body of at least 3, a vtable callsite 3, a CS frame 3, a summary entry
/// 3, an offset-table entry 2, a metadata callsite 3 (plus nothing when it ends the
/// section).
const MIN_RECORD: usize = 4;
const MIN_PAIR: usize = 2;
const MIN_CALLSITE: usize = 6;
const MIN_TRIPLE: usize = 3;
const MIN_FIXED_MD5: usize = 8;

/// One entry of the extbinary section header table (`SecHdrTableEntry`).
struct Entry {
    kind: SecType,
    flags: u64,
    offset: u64,
    size: u64,
    /// Where the entry's Offset field is, for errors about the section's place.
    offset_at: u64,
}

/// A function offset-table entry waiting for the profile section it indexes.
struct PendingOffset {
    offset: u64,
    /// Where to report a bad offset (the field, or its compressed section's payload).
    at: u64,
}

/// What a section held, for the value of a compressed section's payload node.
struct Held(u64, &'static str);

impl Display for Held {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.0, self.1)
    }
}

/// How top-level functions are found for their metadata: by name, or by context.
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Name(NameId),
    Context(Vec<Frame>),
}

fn key(name: NameId, context: &[Frame]) -> Key {
    if context.is_empty() {
        Key::Name(name)
    } else {
        Key::Context(context.to_vec())
    }
}

struct Decoder<'a> {
    data: &'a [u8],
    trace: Trace,
    profile: Profile,
    /// The name table in force (`NameTable`): index → interned name.
    names: Vec<NameId>,
    /// The CS name table in force (`CSNameTable`).
    contexts: Vec<Vec<Frame>>,
    /// Functions name CS contexts (summary `SecFlagFullContext`).
    cs: bool,
    /// Bodies end with the vtable block (summary `SecFlagHasVTableTypeProf`).
    vtables: bool,
    /// Metadata records carry a checksum / attributes (`SecFuncMetadata` flags).
    checksums: bool,
    attributes: bool,
    /// Set while reading a compressed section: where its payload starts in the file.
    payload_at: Option<u64>,
    pending_offsets: Vec<PendingOffset>,
    /// Where each function of the last profile section starts, from its start.
    last_starts: Option<Vec<u64>>,
    symbols: HashSet<NameId>,
}

/// Adds `b` to `a`, saturating like LLVM's `SaturatingAdd`; true on overflow.
fn add_count(a: &mut u64, b: u64) -> bool {
    let (sum, overflowed) = a.overflowing_add(b);
    *a = if overflowed { u64::MAX } else { sum };
    overflowed
}

/// Whether `n` things of at least `min_size` bytes each fit in what `r` has left.
fn fits(n: u64, r: &Reader<'_>, min_size: usize) -> bool {
    n <= r.remaining().checked_div(min_size).unwrap_or(usize::MAX) as u64
}

/// LLVM keeps the low 32 bits when it narrows a ULEB into a `uint32_t` field
/// (discriminators, callsite line offsets).
#[allow(clippy::cast_possible_truncation)]
fn low32(v: u64) -> u32 {
    (v & 0xffff_ffff) as u32
}

/// The callee `name` inlined at `location` of `f`, added empty if new
/// (`functionSamplesAt(Loc)[Name]`).
fn callee_at<'f>(
    f: &'f mut FunctionSamples,
    location: LineLocation,
    name: NameId,
    names: &Names,
) -> Option<&'f mut FunctionSamples> {
    let found =
        f.callsites.binary_search_by(|c| c.location.cmp(&location).then_with(|| names.cmp(c.callee.name, name)));
    let i = match found {
        Ok(i) => i,
        Err(i) => {
            let callee = FunctionSamples { name, ..FunctionSamples::default() };
            f.callsites.insert(i, Callsite { location, callee });
            i
        }
    };
    f.callsites.get_mut(i).map(|c| &mut c.callee)
}

/// A name as LLVM prints it: its bytes, or its MD5 in decimal.
struct ShowName<'n>(Option<&'n Name>);

impl Display for ShowName<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(Name::Bytes(b)) => Text(b).fmt(f),
            Some(Name::Md5(h)) => write!(f, "{h}"),
            None => Ok(()),
        }
    }
}

struct ShowLocation(LineLocation);

impl Display for ShowLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.discriminator {
            0 => write!(f, "{}", self.0.line),
            d => write!(f, "{}.{d}", self.0.line),
        }
    }
}

/// A CS context as LLVM prints it: `main:3 @ foo:2.1 @ bar`.
struct ShowContext<'n> {
    frames: &'n [Frame],
    names: &'n Names,
}

impl Display for ShowContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.frames.len().saturating_sub(1);
        for (i, frame) in self.frames.iter().enumerate() {
            if i > 0 {
                f.write_str(" @ ")?;
            }
            ShowName(self.names.name(frame.name)).fmt(f)?;
            if i < last {
                write!(f, ":{}", ShowLocation(frame.location))?;
            }
        }
        Ok(())
    }
}

/// A function by name, or by its context in brackets.
struct ShowFunction<'n> {
    name: NameId,
    context: &'n [Frame],
    names: &'n Names,
}

impl Display for ShowFunction<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.context.is_empty() {
            ShowName(self.names.name(self.name)).fmt(f)
        } else {
            write!(f, "[{}]", ShowContext { frames: self.context, names: self.names })
        }
    }
}

impl<'a> Decoder<'a> {
    fn new(data: &'a [u8], trace: Trace) -> Self {
        Decoder {
            data,
            trace,
            profile: Profile::new(),
            names: Vec::new(),
            contexts: Vec::new(),
            cs: false,
            vtables: false,
            checksums: false,
            attributes: false,
            payload_at: None,
            pending_offsets: Vec::new(),
            last_starts: None,
            symbols: HashSet::new(),
        }
    }

    /// Reads the whole file; returns the dump's root label.
    fn file(&mut self) -> Result<&'static str> {
        let mut r = Reader::new(self.data, Endian::Little);
        let magic_at = r.offset();
        let magic = r.uleb128("sample profile magic")?;
        self.trace.field("magic", magic_at, r.offset(), format_args!("{magic:#018x}"));
        // `readMagicIdent`: the magic is checked before the version is read.
        match magic {
            MAGIC_BINARY | MAGIC_EXT_BINARY => {}
            MAGIC_COMPACT_BINARY => {
                return Err(Error::invalid(
                    magic_at,
                    "a raw binary or extbinary magic (LLVM no longer reads the compact binary format)",
                    magic,
                ))
            }
            _ => return Err(Error::invalid(magic_at, "a sample profile magic", magic)),
        }
        let version_at = r.offset();
        let version = self.num(&mut r, "version")?;
        if version != VERSION {
            return Err(Error::invalid(version_at, "sample profile version 103", version));
        }
        if magic == MAGIC_BINARY {
            self.raw(&mut r)?;
            Ok("sample binary")
        } else {
            self.ext(&mut r)?;
            Ok("sample extbinary")
        }
    }

    /// `SampleProfileReaderRawBinary`: summary, string name table, then functions
    /// to the end of the file.
    fn raw(&mut self, r: &mut Reader<'_>) -> Result<()> {
        let start = r.offset();
        self.trace.open();
        let functions = self.summary(r)?;
        self.trace.close(Label::Fixed("summary"), start, r.offset(), functions);
        let start = r.offset();
        self.trace.open();
        let names = self.name_table(r, false, false)?;
        self.trace.close(Label::Fixed("name table"), start, r.offset(), names);
        if self.trace.finished() {
            return Ok(());
        }
        let start = r.offset();
        self.trace.open();
        let functions = self.functions(r)?;
        self.trace.close(Label::Fixed("function profiles"), start, r.offset(), functions);
        Ok(())
    }

    /// `SampleProfileReaderExtBinaryBase`: the section table, then its sections.
    fn ext(&mut self, r: &mut Reader<'_>) -> Result<()> {
        let table_start = r.offset();
        self.trace.open();
        let count_at = r.offset();
        let count = r.u64("NumEntries")?;
        self.trace.field("NumEntries", count_at, r.offset(), count);
        if count > (r.remaining() / 32) as u64 {
            return Err(Error::invalid(count_at, "section table entries that fit in the input", count));
        }
        let mut entries = Vec::new();
        for i in 0..count {
            let start = r.offset();
            self.trace.open();
            let kind = self.u64_field(r, "Type")?;
            let flags_at = r.offset();
            let flags = r.u64("Flags")?;
            self.trace.field("Flags", flags_at, r.offset(), format_args!("{flags:#x}"));
            let offset_at = r.offset();
            let offset = self.u64_field(r, "Offset")?;
            let size = self.u64_field(r, "Size")?;
            self.trace.close(Label::Nth("entry", i), start, r.offset(), SectionTitle { kind, flags });
            entries.push(Entry { kind: SecType(kind), flags, offset, size, offset_at });
        }
        self.trace.close(Label::Fixed("section header table"), table_start, r.offset(), count);

        let file = Reader::new(self.data, Endian::Little);
        for (i, entry) in (0u64..).zip(&entries) {
            let title = SectionTitle { kind: entry.kind.0, flags: entry.flags };
            if entry.size == 0 {
                // `readImpl` skips empty sections without looking at their offset.
                let at = entry.offset.min(self.data.len() as u64);
                self.trace.item("section", i, at, at, format_args!("{title} (empty)"));
                continue;
            }
            let section = file
                .sub_at(entry.offset, entry.size, "section")
                .map_err(|_| Error::invalid(entry.offset_at, "a section inside the file", entry.offset))?;
            let tables = matches!(entry.kind, SecType::PROF_SUMMARY | SecType::NAME_TABLE | SecType::CS_NAME_TABLE);
            if !tables && self.trace.skips(section.offset(), section.end_offset()) {
                continue;
            }
            self.section(i, entry, section)?;
            if self.trace.finished() {
                return Ok(());
            }
        }
        if !self.pending_offsets.is_empty() {
            let starts = self.last_starts.take().unwrap_or_default();
            self.check_offsets(&starts)?;
        }
        Ok(())
    }

    fn section(&mut self, index: u64, entry: &Entry, mut s: Reader<'_>) -> Result<()> {
        let (start, end) = (s.offset(), s.end_offset());
        self.trace.open();
        if entry.flags & binary::FLAG_COMPRESS != 0 {
            let size_at = s.offset();
            let uncompressed = self.num(&mut s, "UncompressedSize")?;
            let compressed_at = s.offset();
            let compressed = self.num(&mut s, "CompressedSize")?;
            // LLVM hands zlib CompressedSize bytes without checking the section holds them.
            if compressed > s.remaining() as u64 {
                return Err(Error::invalid(compressed_at, "a CompressedSize inside the section", compressed));
            }
            let payload_at = s.offset();
            let payload = s.bytes(compressed, "compressed section")?;
            // The claim is checked before inflating, so the error points at it.
            let limit = payload.len().saturating_mul(compress::MAX_EXPANSION).saturating_add(1 << 20);
            let expected = usize::try_from(uncompressed).ok().filter(|&n| n <= limit).ok_or(Error::invalid(
                size_at,
                "an UncompressedSize the compressed data can produce",
                uncompressed,
            ))?;
            let inflated = compress::inflate_zlib(payload, expected, payload_at)?;
            let mut inner = Reader::new(&inflated, Endian::Little);
            let was_on = self.trace.pause();
            self.payload_at = Some(payload_at);
            let held = self.section_body(entry, &mut inner);
            self.payload_at = None;
            self.trace.resume(was_on);
            let held = held.map_err(|e| Error { location: Location::Offset(payload_at), ..e })?;
            self.trace.field(
                "zlib data",
                payload_at,
                s.offset(),
                format_args!("{compressed} bytes, inflated to {uncompressed}: {held}"),
            );
            // LLVM never looks past CompressedSize bytes.
            if !s.is_empty() {
                let (rest_at, rest) = (s.offset(), s.remaining() as u64);
                s.skip(rest, "bytes after the compressed data")?;
                self.trace.field(
                    "ignored",
                    rest_at,
                    s.offset(),
                    format_args!("{rest} bytes after the compressed data"),
                );
            }
        } else {
            self.section_body(entry, &mut s)?;
        }
        self.trace.close(
            Label::Nth("section", index),
            start,
            end,
            SectionTitle { kind: entry.kind.0, flags: entry.flags },
        );
        Ok(())
    }

    /// `readOneSection`, then the check that the section was read to its end.
    fn section_body(&mut self, entry: &Entry, r: &mut Reader<'_>) -> Result<Held> {
        let flags = entry.flags;
        let held = match entry.kind {
            SecType::PROF_SUMMARY => {
                let held = self.summary(r)?;
                let kind = &mut self.profile.kind;
                kind.partial |= flags & binary::SUMMARY_PARTIAL != 0;
                kind.context_sensitive |= flags & binary::SUMMARY_FULL_CONTEXT != 0;
                kind.preinlined |= flags & binary::SUMMARY_PREINLINED != 0;
                kind.fs_discriminator |= flags & binary::SUMMARY_FS_DISCRIMINATOR != 0;
                self.cs = kind.context_sensitive;
                self.vtables |= flags & binary::SUMMARY_VTABLE_TYPES != 0;
                held
            }
            SecType::NAME_TABLE => {
                let md5 = flags & binary::NAME_TABLE_MD5 != 0;
                self.profile.kind.md5 |= md5;
                self.name_table(r, md5, flags & binary::NAME_TABLE_FIXED_LENGTH_MD5 != 0)?
            }
            SecType::CS_NAME_TABLE => self.cs_name_table(r)?,
            SecType::LBR_PROFILE => self.functions(r)?,
            SecType::FUNC_OFFSET_TABLE => self.offset_table(r)?,
            SecType::FUNC_METADATA => {
                self.checksums = flags & binary::FUNC_METADATA_PROBE != 0;
                self.attributes = flags & binary::FUNC_METADATA_ATTRIBUTES != 0;
                self.profile.kind.probe_based = self.checksums;
                self.metadata(r)?
            }
            SecType::PROFILE_SYMBOL_LIST => self.symbol_list(r)?,
            _ => {
                // `readCustomSection`: skipped by its size.
                let start = r.offset();
                let len = r.remaining() as u64;
                r.skip(len, "section contents")?;
                self.trace.field("contents", start, r.offset(), format_args!("{len} bytes, not read by LLVM"));
                Held(len, "bytes")
            }
        };
        if !r.is_empty() && !self.trace.finished() {
            return Err(Error::malformed(r.offset(), "section contents end before the section does"));
        }
        Ok(held)
    }

    fn num(&mut self, r: &mut Reader<'_>, label: &'static str) -> Result<u64> {
        let start = r.offset();
        let v = r.uleb128(label)?;
        self.trace.field(label, start, r.offset(), v);
        Ok(v)
    }

    fn u64_field(&mut self, r: &mut Reader<'_>, label: &'static str) -> Result<u64> {
        let start = r.offset();
        let v = r.u64(label)?;
        self.trace.field(label, start, r.offset(), v);
        Ok(v)
    }

    /// `readNumber<uint32_t>`: a ULEB above `u32::MAX` is malformed.
    fn num32(&mut self, r: &mut Reader<'_>, label: &'static str) -> Result<u32> {
        let start = r.offset();
        let v = r.uleb128(label)?;
        let v32 = u32::try_from(v).map_err(|_| Error::invalid(start, "a number of at most 32 bits", v))?;
        self.trace.field(label, start, r.offset(), v32);
        Ok(v32)
    }

    /// A 32-bit count of things each at least `min_size` bytes long, checked against
    /// the bytes left.
    fn count(&mut self, r: &mut Reader<'_>, label: &'static str, min_size: usize) -> Result<u32> {
        let start = r.offset();
        let n = self.num32(r, label)?;
        if !fits(u64::from(n), r, min_size) {
            return Err(Error::invalid(start, "a count that fits in the bytes left", u64::from(n)));
        }
        Ok(n)
    }

    /// A 64-bit count (table sizes), checked the same way.
    fn count64(&mut self, r: &mut Reader<'_>, label: &'static str, min_size: usize) -> Result<u64> {
        let start = r.offset();
        let n = self.num(r, label)?;
        if !fits(n, r, min_size) {
            return Err(Error::invalid(start, "a count that fits in the bytes left", n));
        }
        Ok(n)
    }

    /// A line offset that must fit in 16 bits (`isOffsetLegal`).
    fn line16(&mut self, r: &mut Reader<'_>) -> Result<u32> {
        let start = r.offset();
        let line = self.num(r, "LineOffset")?;
        u32::try_from(line).ok().filter(|&l| l <= 0xffff).ok_or(Error::invalid(
            start,
            "a line offset of at most 0xffff",
            line,
        ))
    }

    /// `readStringFromTable`: an index into the name table in force.
    fn name(&mut self, r: &mut Reader<'_>, label: &'static str) -> Result<NameId> {
        let start = r.offset();
        let index = r.uleb128(label)?;
        let id = usize::try_from(index).ok().and_then(|i| self.names.get(i)).copied().ok_or(Error::invalid(
            start,
            "a name index inside the name table",
            index,
        ))?;
        self.trace.field(label, start, r.offset(), format_args!("{index} ({})", ShowName(self.profile.names.name(id))));
        Ok(id)
    }

    /// `readSampleContextFromTable`: a name, or in a CS profile a context (whose last
    /// frame names the function).
    fn function_id(&mut self, r: &mut Reader<'_>) -> Result<(NameId, Vec<Frame>)> {
        if !self.cs {
            return Ok((self.name(r, "NameIdx")?, Vec::new()));
        }
        let start = r.offset();
        let index = r.uleb128("ContextIdx")?;
        let frames = usize::try_from(index).ok().and_then(|i| self.contexts.get(i)).ok_or(Error::invalid(
            start,
            "a context index inside the CS name table",
            index,
        ))?;
        let last = frames.last().ok_or(Error::malformed(start, "a CS context without frames"))?;
        let name = last.name;
        let context = frames.clone();
        self.trace.field(
            "ContextIdx",
            start,
            r.offset(),
            format_args!("{index} ([{}])", ShowContext { frames: &context, names: &self.profile.names }),
        );
        Ok((name, context))
    }

    fn intern(&mut self, name: Name, at: u64) -> Result<NameId> {
        self.profile
            .names
            .intern(NameEntry { name, file: None })
            .ok_or(Error::malformed(at, "more than 2^32 distinct names"))
    }

    /// `readSummary`: kept only as far as the dump shows it.
    fn summary(&mut self, r: &mut Reader<'_>) -> Result<Held> {
        for label in ["TotalCount", "MaxBlockCount", "MaxFunctionCount", "NumBlocks"] {
            self.num(r, label)?;
        }
        let functions = self.num(r, "NumFunctions")?;
        let entries = self.count64(r, "NumSummaryEntries", MIN_TRIPLE)?;
        for i in 0..entries {
            let start = r.offset();
            self.trace.open();
            let cutoff = self.num(r, "Cutoff")?;
            self.num(r, "MinBlockCount")?;
            self.num(r, "NumBlocks")?;
            self.trace.close(Label::Nth("entry", i), start, r.offset(), cutoff);
        }
        Ok(Held(functions, "functions"))
    }

    /// `readNameTable` / `readNameTableSec`: strings, ULEB MD5s or fixed u64 MD5s.
    fn name_table(&mut self, r: &mut Reader<'_>, md5: bool, fixed: bool) -> Result<Held> {
        let min = if fixed { MIN_FIXED_MD5 } else { 1 };
        let count = self.count64(r, "NumNames", min)?;
        let mut table = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
        let mut list = self.trace.list(ListKind::Names);
        let (first, stop) = self.trace.seek(&list, r)?;
        for i in first..count {
            let start = r.offset();
            if start >= stop {
                break;
            }
            self.trace.item_begin(&mut list, start);
            // A fixed-length table is read as MD5s even without the MD5 flag (LLVM warns).
            let name = if fixed {
                Name::Md5(r.u64("fixed-length MD5")?)
            } else if md5 {
                Name::Md5(r.uleb128("MD5")?)
            } else {
                Name::Bytes(r.cstr("name")?.to_vec())
            };
            let id = self.intern(name, start)?;
            self.trace.item("name", i, start, r.offset(), ShowName(self.profile.names.name(id)));
            self.trace.item_end(&mut list);
            table.push(id);
        }
        self.trace.list_end(list, r.offset());
        self.names = table;
        Ok(Held(count, "names"))
    }

    /// `readCSNameTableSec`: contexts of frames naming the name table in force.
    fn cs_name_table(&mut self, r: &mut Reader<'_>) -> Result<Held> {
        let count = self.count64(r, "NumContexts", 1)?;
        let mut contexts = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
        let mut list = self.trace.list(ListKind::Contexts);
        let (first, stop) = self.trace.seek(&list, r)?;
        for i in first..count {
            let start = r.offset();
            if start >= stop {
                break;
            }
            self.trace.item_begin(&mut list, start);
            self.trace.open();
            let n = self.count(r, "NumFrames", MIN_TRIPLE)?;
            let mut frames = Vec::with_capacity(n as usize);
            for j in 0..n {
                let frame_start = r.offset();
                self.trace.open();
                let name = self.name(r, "NameIdx")?;
                let line = self.line16(r)?;
                let discriminator = low32(self.num(r, "Discriminator")?);
                let location = LineLocation { line, discriminator };
                self.trace.close(
                    Label::Nth("frame", u64::from(j)),
                    frame_start,
                    r.offset(),
                    format_args!("{}:{}", ShowName(self.profile.names.name(name)), ShowLocation(location)),
                );
                frames.push(Frame { name, location });
            }
            self.trace.close(
                Label::Nth("context", i),
                start,
                r.offset(),
                ShowContext { frames: &frames, names: &self.profile.names },
            );
            self.trace.item_end(&mut list);
            contexts.push(frames);
        }
        self.trace.list_end(list, r.offset());
        self.contexts = contexts;
        Ok(Held(count, "contexts"))
    }

    /// Function profiles to the end of `r` (`readFuncProfiles` without a module).
    fn functions(&mut self, r: &mut Reader<'_>) -> Result<Held> {
        let base = r.offset();
        let mut starts = Vec::new();
        let mut list = self.trace.list(ListKind::Functions);
        let (mut count, stop) = self.trace.seek(&list, r)?;
        while !r.is_empty() && r.offset() < stop {
            starts.push(r.offset().saturating_sub(base));
            self.trace.item_begin(&mut list, r.offset());
            self.function(r, count)?;
            self.trace.item_end(&mut list);
            count = count.saturating_add(1);
        }
        self.trace.list_end(list, r.offset());
        if self.trace.finished() {
            return Ok(Held(count, "functions"));
        }
        if !self.pending_offsets.is_empty() {
            self.check_offsets(&starts)?;
        }
        self.last_starts = Some(starts);
        Ok(Held(count, "functions"))
    }

    /// `readFuncProfile`: head samples, name or context, body.
    fn function(&mut self, r: &mut Reader<'_>, index: u64) -> Result<()> {
        let start = r.offset();
        self.trace.open();
        let head = self.num(r, "HeadSamples")?;
        let (name, context) = self.function_id(r)?;
        let mut f = FunctionSamples { name, context, head, ..FunctionSamples::default() };
        self.body(r, &mut f, 0)?;
        self.trace.close(
            Label::Nth("function", index),
            start,
            r.offset(),
            ShowFunction { name, context: &f.context, names: &self.profile.names },
        );
        self.profile.add(f);
        Ok(())
    }

    /// `readProfile`: the body of a function or of an inlined callee, added into `f`.
    fn body(&mut self, r: &mut Reader<'_>, f: &mut FunctionSamples, depth: usize) -> Result<()> {
        let total = self.num(r, "TotalSamples")?;
        self.profile.overflowed |= add_count(&mut f.total, total);
        let records = self.count(r, "NumRecords", MIN_RECORD)?;
        for i in 0..records {
            self.record(r, f, u64::from(i))?;
        }
        let callsites = self.count(r, "NumCallsites", MIN_CALLSITE)?;
        for i in 0..callsites {
            let (start, location, name) = self.callsite_head(r, depth)?;
            let callee = callee_at(f, location, name, &self.profile.names)
                .ok_or(Error::malformed(start, "callsite lost while adding it"))?;
            self.body(r, callee, depth.saturating_add(1))?;
            self.callsite_end(r, i, start, location, name);
        }
        if self.vtables {
            self.vtable_block(r, f)?;
        }
        Ok(())
    }

    /// A callsite's `LineOffset Discriminator NameIdx` (of a body or of metadata),
    /// its dump node opened: where it starts, its location and callee. Its callee
    /// at `depth` must not nest deeper than [`MAX_DEPTH`].
    fn callsite_head(&mut self, r: &mut Reader<'_>, depth: usize) -> Result<(u64, LineLocation, NameId)> {
        let start = r.offset();
        self.trace.open();
        let line = low32(self.num(r, "LineOffset")?);
        let discriminator = low32(self.num(r, "Discriminator")?);
        let name = self.name(r, "NameIdx")?;
        if depth >= MAX_DEPTH {
            return Err(Error::malformed(start, TOO_DEEP));
        }
        Ok((start, LineLocation { line, discriminator }, name))
    }

    /// Closes callsite `i`'s dump node, opened by `callsite_head`.
    fn callsite_end(&mut self, r: &Reader<'_>, i: u32, start: u64, location: LineLocation, name: NameId) {
        self.trace.close(
            Label::Nth("callsite", u64::from(i)),
            start,
            r.offset(),
            format_args!("{}: {}", ShowLocation(location), ShowName(self.profile.names.name(name))),
        );
    }

    /// One body record: samples at a location and the calls made there.
    fn record(&mut self, r: &mut Reader<'_>, f: &mut FunctionSamples, index: u64) -> Result<()> {
        let start = r.offset();
        self.trace.open();
        let line = self.line16(r)?;
        let discriminator = low32(self.num(r, "Discriminator")?);
        let location = LineLocation { line, discriminator };
        let samples = self.num(r, "NumSamples")?;
        let n = self.count(r, "NumCalls", MIN_PAIR)?;
        let mut calls = Vec::with_capacity(n as usize);
        for j in 0..n {
            let call_start = r.offset();
            self.trace.open();
            let name = self.name(r, "NameIdx")?;
            let count = self.num(r, "Count")?;
            self.trace.close(
                Label::Nth("call", u64::from(j)),
                call_start,
                r.offset(),
                format_args!("{}:{count}", ShowName(self.profile.names.name(name))),
            );
            calls.push(CallTarget { name, count });
        }
        self.profile.overflowed |= f.add_body(location, samples, calls);
        self.trace.close(
            Label::Nth("record", index),
            start,
            r.offset(),
            format_args!("{}: {samples}", ShowLocation(location)),
        );
        Ok(())
    }

    /// `readCallsiteVTableProf`: the vtables seen at callsites of `f`.
    fn vtable_block(&mut self, r: &mut Reader<'_>, f: &mut FunctionSamples) -> Result<()> {
        let callsites = self.count(r, "NumVTableCallsites", MIN_TRIPLE)?;
        for i in 0..callsites {
            let start = r.offset();
            self.trace.open();
            let line = self.line16(r)?;
            let discriminator = low32(self.num(r, "Discriminator")?);
            let location = LineLocation { line, discriminator };
            let n = self.count(r, "NumTypes", MIN_PAIR)?;
            let at = match f.types.binary_search_by(|t| t.location.cmp(&location)) {
                Ok(at) => at,
                Err(at) => {
                    f.types.insert(at, TypeSamples { location, types: Vec::new() });
                    at
                }
            };
            for j in 0..n {
                let type_start = r.offset();
                self.trace.open();
                let name = self.name(r, "NameIdx")?;
                let count = self.num(r, "Count")?;
                self.trace.close(
                    Label::Nth("type", u64::from(j)),
                    type_start,
                    r.offset(),
                    format_args!("{}:{count}", ShowName(self.profile.names.name(name))),
                );
                // A repeated vtable keeps its first count (LLVM warns).
                if let Some(types) = f.types.get_mut(at).map(|t| &mut t.types) {
                    if !types.iter().any(|t| t.name == name) {
                        types.push(CallTarget { name, count });
                    }
                }
            }
            self.trace.close(
                Label::Nth("vtable callsite", u64::from(i)),
                start,
                r.offset(),
                format_args!("{}: {n} types", ShowLocation(location)),
            );
        }
        Ok(())
    }
}

mod side_sections;

#[cfg(test)]
mod tests;
