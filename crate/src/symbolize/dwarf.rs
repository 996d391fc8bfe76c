//! Inline frames and source lines from a binary's DWARF (versions 2 to 5), through
//! `addr2line` over `gimli` slices of the caller's bytes: no section is copied.
//!
//! `addr2line` reads unit address ranges when the context is made and parses a
//! unit's functions and line program the first time an address falls in it, then
//! keeps them, so repeated lookups in hot code cost a binary search or two.
//!
//! Sections compressed with zlib (`SHF_COMPRESSED`, `ELFCOMPRESS_ZLIB`, as distribution
//! debug files ship them) are inflated once, and then every DWARF section of that
//! binary is held in shared memory (`Rc<[u8]>`) so one reader type serves both.
//!
//! Not read: zstd-compressed sections, the older GNU `.zdebug_*` form, split DWARF
//! (`.dwo` files, DWARF packages) and separate debug files (`.gnu_debuglink`: drop
//! the debug file too, see [`super::Symbolizer`]); they are errors, so the caller
//! falls back to the symbol table.

use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;

use gimli::{EndianSlice, RunTimeEndian, SectionId};
use object::{elf, Endianness};

use super::demangle::perf_name;
use super::Frame;
use crate::compress::inflate_zlib;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;
type Shared = gimli::EndianRcSlice<RunTimeEndian>;

/// How a section's bytes are stored in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stored {
    Plain,
    /// `ELFCOMPRESS_ZLIB`, inflating to `size` bytes.
    Zlib {
        size: u64,
    },
    /// Another `ch_type` (`ELFCOMPRESS_ZSTD` is 2).
    Compressed {
        kind: u32,
    },
    /// `SHF_COMPRESSED` without room for its `Elf_Chdr`.
    BadHeader,
    /// `.zdebug_*`: `ZLIB` and a big-endian size before the stream.
    OldGnu,
}

/// A `.debug_*` section of the binary: where its stored bytes are in the file (for
/// a compressed section, the stream after the `Elf_Chdr`).
#[derive(Clone, Copy, Debug)]
pub(super) struct DebugSection {
    id: SectionId,
    offset: u64,
    size: u64,
    stored: Stored,
}

/// The sections `addr2line` reads.
const SECTIONS: [SectionId; 12] = [
    SectionId::DebugAbbrev,
    SectionId::DebugAddr,
    SectionId::DebugAranges,
    SectionId::DebugInfo,
    SectionId::DebugLine,
    SectionId::DebugLineStr,
    SectionId::DebugLoc,
    SectionId::DebugLocLists,
    SectionId::DebugRanges,
    SectionId::DebugRngLists,
    SectionId::DebugStr,
    SectionId::DebugStrOffsets,
];

/// An `Elf_Chdr` as read by the caller: `ch_type`, `ch_size`, and the file range of
/// the stream after it; `Err` when the header does not fit in the section.
pub(super) type Chdr = core::result::Result<(u32, u64, u64, u64), ()>;

impl DebugSection {
    /// The section named `name` if it is one `addr2line` reads; `file` is its range in
    /// the file (`None` for `SHT_NOBITS`, as in a stripped debug file's copy).
    pub(super) fn new(name: &[u8], file: Option<(u64, u64)>, compression: Option<Chdr>) -> Option<DebugSection> {
        let old_gnu = name.strip_prefix(b".zdebug_".as_slice());
        let id = SECTIONS.into_iter().find(|id| {
            name == id.name().as_bytes()
                || old_gnu.is_some_and(|rest| id.name().as_bytes().strip_prefix(b".debug_") == Some(rest))
        })?;
        let (offset, size) = file?;
        let (stored, offset, size) = match compression {
            None if old_gnu.is_some() => (Stored::OldGnu, offset, size),
            None => (Stored::Plain, offset, size),
            Some(Ok((kind, uncompressed, at, len))) if kind == elf::ELFCOMPRESS_ZLIB.0 => {
                (Stored::Zlib { size: uncompressed }, at, len)
            }
            Some(Ok((kind, ..))) => (Stored::Compressed { kind }, offset, size),
            Some(Err(())) => (Stored::BadHeader, offset, size),
        };
        Some(DebugSection { id, offset, size, stored })
    }
}

/// A binary's DWARF, ready for lookups.
pub(super) struct Dwarf<'a> {
    context: Context<'a>,
    /// Where `.debug_info` starts in the file: the offset DWARF errors are reported at.
    info_at: u64,
}

enum Context<'a> {
    /// Every section read in place.
    Borrowed(addr2line::Context<Slice<'a>>),
    /// Some sections were inflated.
    Shared(addr2line::Context<Shared>),
}

/// Builds the lookup context, or `None` when the binary has no `.debug_info`.
pub(super) fn load<'a>(data: &'a [u8], endian: Endianness, sections: &[DebugSection]) -> Result<Option<Dwarf<'a>>> {
    let Some(info) = sections.iter().find(|s| s.id == SectionId::DebugInfo && s.size > 0) else {
        return Ok(None);
    };
    let (order, byte_order) = match endian {
        Endianness::Little => (RunTimeEndian::Little, Endian::Little),
        Endianness::Big => (RunTimeEndian::Big, Endian::Big),
    };
    let file = Reader::new(data, byte_order);
    let stored = |s: &DebugSection| -> Result<&'a [u8]> {
        Ok(file.sub_at(s.offset, s.size, "DWARF section inside the binary")?.rest())
    };
    let unusable = |_| Error::malformed(info.offset, "malformed DWARF unit headers or address ranges in .debug_info");
    let context = if sections.iter().all(|s| s.stored == Stored::Plain) {
        let dwarf = gimli::Dwarf::load(|id| -> Result<Slice<'a>> {
            let bytes = match sections.iter().find(|s| s.id == id) {
                Some(section) => stored(section)?,
                None => &[],
            };
            Ok(EndianSlice::new(bytes, order))
        })?;
        Context::Borrowed(addr2line::Context::from_dwarf(dwarf).map_err(unusable)?)
    } else {
        let dwarf = gimli::Dwarf::load(|id| -> Result<Shared> {
            let Some(section) = sections.iter().find(|s| s.id == id) else {
                return Ok(Shared::new(Rc::from(Vec::new()), order));
            };
            Ok(Shared::new(Rc::from(contents(section, stored(section)?)?), order))
        })?;
        Context::Shared(addr2line::Context::from_dwarf(dwarf).map_err(unusable)?)
    };
    Ok(Some(Dwarf { context, info_at: info.offset }))
}

/// A section's contents: its stored bytes, inflated when compressed with zlib.
fn contents(section: &DebugSection, bytes: &[u8]) -> Result<Vec<u8>> {
    match section.stored {
        Stored::Plain => Ok(bytes.to_vec()),
        Stored::Zlib { size } => {
            let size = usize::try_from(size).map_err(|_| {
                Error::invalid(section.offset, "an uncompressed DWARF section size that fits memory", size)
            })?;
            inflate_zlib(bytes, size, section.offset)
        }
        Stored::Compressed { kind } => Err(Error::invalid(
            section.offset,
            "DWARF compressed with zlib (ch_type ELFCOMPRESS_ZLIB = 1); zstd (2) is not supported",
            u64::from(kind),
        )),
        Stored::BadHeader => Err(Error::eof(section.offset, "Elf_Chdr of a compressed DWARF section")),
        Stored::OldGnu => Err(Error::malformed(
            section.offset,
            ".zdebug_ sections (GNU compression before SHF_COMPRESSED) are not supported",
        )),
    }
}

impl Dwarf<'_> {
    /// The frames DWARF knows at `vaddr`, innermost first; the last is the function
    /// that holds the code (not inlined).
    pub(super) fn frames(&self, vaddr: u64) -> Result<Vec<Frame>> {
        match &self.context {
            Context::Borrowed(context) => frames_in(context, vaddr, self.info_at),
            Context::Shared(context) => frames_in(context, vaddr, self.info_at),
        }
    }

    /// [`Dwarf::frames`] as GNU addr2line 2.40 (the one perf 6.1 runs for inline
    /// frames) reports them: it does not see an inlined call whose ranges are an
    /// indexed range list (`DW_FORM_rnglistx`, the form clang writes), so the
    /// innermost such calls are left out.
    pub(super) fn frames_as_binutils(&self, vaddr: u64) -> Result<Vec<Frame>> {
        match &self.context {
            Context::Borrowed(context) => binutils_frames_in(context, vaddr, self.info_at),
            Context::Shared(context) => binutils_frames_in(context, vaddr, self.info_at),
        }
    }
}

fn binutils_frames_in<R: gimli::Reader>(
    context: &addr2line::Context<R>,
    vaddr: u64,
    info_at: u64,
) -> Result<Vec<Frame>> {
    let malformed = |_| Error::malformed(info_at, "malformed DWARF functions or line program for the address");
    let Some(unit) = context.find_dwarf_and_unit(vaddr).skip_all_loads() else { return Ok(Vec::new()) };
    let indexed = |offset: Option<gimli::UnitOffset<R::Offset>>| -> bool {
        let Some(entry) = offset.and_then(|o| unit.entry(o).ok()) else { return false };
        matches!(entry.attr_value(gimli::DW_AT_ranges), Ok(Some(gimli::AttributeValue::DebugRngListsIndex(_))))
    };
    let mut iter = context.find_frames(vaddr).skip_all_loads().map_err(malformed)?;
    let mut frames = Vec::new();
    let mut hidden = true;
    while let Some(frame) = iter.next().map_err(malformed)? {
        hidden = hidden && indexed(frame.dw_die_offset);
        if !hidden {
            frames.push(frame_of(frame).map_err(malformed)?);
        }
    }
    if let Some(outer) = frames.last_mut() {
        outer.inlined = false;
    }
    Ok(frames)
}

fn frame_of<R: gimli::Reader>(frame: addr2line::Frame<'_, R>) -> core::result::Result<Frame, gimli::Error> {
    let function = match frame.function.as_ref().map(|f| f.raw_name()) {
        Some(raw) => perf_name(&raw?).into_owned(),
        None => String::from("[unknown]"),
    };
    let location = frame.location;
    Ok(Frame {
        function,
        file: location.as_ref().and_then(|l| l.file).map(String::from),
        line: location.as_ref().and_then(|l| l.line),
        inlined: true,
    })
}

fn frames_in<R: gimli::Reader>(context: &addr2line::Context<R>, vaddr: u64, info_at: u64) -> Result<Vec<Frame>> {
    let malformed = |_| Error::malformed(info_at, "malformed DWARF functions or line program for the address");
    let mut iter = context.find_frames(vaddr).skip_all_loads().map_err(malformed)?;
    let mut frames = Vec::new();
    while let Some(frame) = iter.next().map_err(malformed)? {
        frames.push(frame_of(frame).map_err(malformed)?);
    }
    if let Some(outer) = frames.last_mut() {
        outer.inlined = false;
    }
    Ok(frames)
}
