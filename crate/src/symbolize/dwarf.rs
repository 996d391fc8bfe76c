//! Inline frames and source lines from a binary's DWARF (versions 2 to 5), through
//! `addr2line` over `gimli` slices of the caller's bytes: no section is copied.
//!
//! `addr2line` reads unit address ranges when the context is made and parses a
//! unit's functions and line program the first time an address falls in it, then
//! keeps them, so repeated lookups in hot code cost a binary search or two.
//!
//! Not read: split DWARF (`.dwo` files, DWARF packages), separate debug files
//! (`.gnu_debuglink`), and compressed sections (`SHF_COMPRESSED`, `.zdebug_*`),
//! which are reported as an error so the caller can fall back to the symbol table.

use alloc::string::String;
use alloc::vec::Vec;

use gimli::{EndianSlice, RunTimeEndian, SectionId};
use object::{elf, Endianness};

use super::demangle::perf_name;
use super::Frame;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

type Slice<'a> = EndianSlice<'a, RunTimeEndian>;

/// A `.debug_*` section of the binary: where it is in the file.
#[derive(Clone, Copy, Debug)]
pub(super) struct DebugSection {
    id: SectionId,
    offset: u64,
    size: u64,
    compressed: bool,
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

impl DebugSection {
    /// The section named `name` if it is one `addr2line` reads; `file` is its range in
    /// the file (`None` for `SHT_NOBITS`, as in a stripped debug file's copy).
    pub(super) fn new(name: &[u8], file: Option<(u64, u64)>, flags: elf::SectionFlags) -> Option<DebugSection> {
        let compressed_name = name.strip_prefix(b".zdebug_".as_slice());
        let id = SECTIONS.into_iter().find(|id| {
            name == id.name().as_bytes()
                || compressed_name.is_some_and(|rest| id.name().as_bytes().strip_prefix(b".debug_") == Some(rest))
        })?;
        let (offset, size) = file?;
        let compressed = flags.0 & elf::SHF_COMPRESSED.0 != 0 || compressed_name.is_some();
        Some(DebugSection { id, offset, size, compressed })
    }
}

/// A binary's DWARF, ready for lookups.
pub(super) struct Dwarf<'a> {
    context: addr2line::Context<Slice<'a>>,
    /// Where `.debug_info` starts in the file: the offset DWARF errors are reported at.
    info_at: u64,
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
    let dwarf = gimli::Dwarf::load(|id| -> Result<Slice<'a>> {
        let Some(section) = sections.iter().find(|s| s.id == id) else {
            return Ok(EndianSlice::new(&[], order));
        };
        if section.compressed {
            return Err(Error::malformed(
                section.offset,
                "compressed DWARF sections are not supported: the binary is symbolized from its symbol table",
            ));
        }
        Ok(EndianSlice::new(
            file.sub_at(section.offset, section.size, "DWARF section inside the binary")?.rest(),
            order,
        ))
    })?;
    let context = addr2line::Context::from_dwarf(dwarf)
        .map_err(|_| Error::malformed(info.offset, "malformed DWARF unit headers or address ranges in .debug_info"))?;
    Ok(Some(Dwarf { context, info_at: info.offset }))
}

impl Dwarf<'_> {
    /// The frames DWARF knows at `vaddr`, innermost first; the last is the function
    /// that holds the code (not inlined).
    pub(super) fn frames(&self, vaddr: u64) -> Result<Vec<Frame>> {
        let malformed = |_| Error::malformed(self.info_at, "malformed DWARF functions or line program for the address");
        let mut iter = self.context.find_frames(vaddr).skip_all_loads().map_err(malformed)?;
        let mut frames = Vec::new();
        while let Some(frame) = iter.next().map_err(malformed)? {
            let function = match frame.function.as_ref().map(|f| f.raw_name()) {
                Some(Ok(raw)) => perf_name(&raw).into_owned(),
                Some(Err(e)) => return Err(malformed(e)),
                None => String::from("[unknown]"),
            };
            let location = frame.location;
            frames.push(Frame {
                function,
                file: location.as_ref().and_then(|l| l.file).map(String::from),
                line: location.as_ref().and_then(|l| l.line),
                inlined: true,
            });
        }
        if let Some(outer) = frames.last_mut() {
            outer.inlined = false;
        }
        Ok(frames)
    }
}
