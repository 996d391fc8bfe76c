//! The ELF notes BOLT adds: finding their sections (with `object`) and reading the
//! note header, name and descriptor with their spans.
//!
//! ```text
//! namesz u32 | descsz u32 | type u32 | name, padded to 4 | descriptor, padded to 4
//! ```
//!
//! BOLT reads the BAT note header little-endian whatever the target
//! (`BoltAddressTranslation::parse`); both notes are read that way here (every
//! target BOLT rewrites is little-endian).

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness};

use super::{Span, Spanned, NT_BOLT_BAT, NT_GNU_GOLD_VERSION};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

pub const BAT_SECTION: &[u8] = b".note.bolt_bat";
pub const INFO_SECTION: &[u8] = b".note.bolt_info";

/// One ELF note with the spans of its parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Note<'a> {
    pub span: Span,
    pub namesz: Spanned<u32>,
    pub descsz: Spanned<u32>,
    pub note_type: Spanned<u32>,
    pub name: Spanned<&'a [u8]>,
    /// Zero bytes after the name, up to a multiple of 4 from the note's start.
    pub name_padding: Span,
    pub desc: Spanned<&'a [u8]>,
    /// Zero bytes after the descriptor, when the section holds them.
    pub desc_padding: Span,
}

fn pad4(len: u64) -> u64 {
    len.wrapping_neg() & 3
}

impl<'a> Note<'a> {
    /// Reads the note at absolute `offset` of `data`, within `size` bytes.
    pub fn parse(data: &'a [u8], offset: u64, size: u64) -> Result<Note<'a>> {
        let mut r = Reader::new(data, Endian::Little).sub_at(offset, size, "ELF note inside the file")?;
        let u32_field = |r: &mut Reader<'a>, what| -> Result<Spanned<u32>> {
            let start = r.offset();
            let value = r.u32(what)?;
            Ok(Spanned { span: Span { start, end: r.offset() }, value })
        };
        let namesz = u32_field(&mut r, "note namesz")?;
        let descsz = u32_field(&mut r, "note descsz")?;
        let note_type = u32_field(&mut r, "note type")?;
        let bytes = |r: &mut Reader<'a>, len: u64, what| -> Result<Spanned<&'a [u8]>> {
            let start = r.offset();
            let value = r.bytes(len, what)?;
            Ok(Spanned { span: Span { start, end: r.offset() }, value })
        };
        let name = bytes(&mut r, u64::from(namesz.value), "note name")?;
        let name_padding = bytes(&mut r, pad4(u64::from(namesz.value)), "note name padding")?.span;
        let desc = bytes(&mut r, u64::from(descsz.value), "note descriptor")?;
        // The last note of a section may end without its padding.
        let desc_pad = pad4(u64::from(descsz.value)).min(r.remaining() as u64);
        let desc_padding = bytes(&mut r, desc_pad, "note descriptor padding")?.span;
        Ok(Note {
            span: Span { start: offset, end: r.offset() },
            namesz,
            descsz,
            note_type,
            name,
            name_padding,
            desc,
            desc_padding,
        })
    }

    /// The name up to its first NUL.
    pub fn owner(&self) -> &'a [u8] {
        let name = self.name.value;
        name.split(|&b| b == 0).next().unwrap_or(name)
    }

    /// Checks what BOLT's reader checks: type `NT_BOLT_BAT` and a name starting
    /// with `BOLT`.
    pub fn check_bat(&self) -> Result<()> {
        if self.note_type.value != NT_BOLT_BAT {
            return Err(Error::invalid(
                self.note_type.span.start,
                "note type NT_BOLT_BAT (1)",
                self.note_type.value.into(),
            ));
        }
        if !self.name.value.starts_with(b"BOLT") {
            return Err(Error::malformed(self.name.span.start, "expected note name BOLT"));
        }
        Ok(())
    }
}

/// `.note.bolt_info`: the BOLT revision and the command line that wrote the binary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Info<'a> {
    pub note: Note<'a>,
    /// The whole descriptor text (BOLT writes it without a NUL).
    pub text: &'a [u8],
    /// What follows `BOLT revision: ` up to `, command line: `.
    pub revision: Option<&'a [u8]>,
    /// What follows `, command line: `.
    pub command_line: Option<&'a [u8]>,
}

const REVISION: &[u8] = b"BOLT revision: ";
const COMMAND_LINE: &[u8] = b", command line: ";

impl<'a> Info<'a> {
    pub fn from_note(note: Note<'a>) -> Result<Info<'a>> {
        if note.note_type.value != NT_GNU_GOLD_VERSION {
            return Err(Error::invalid(
                note.note_type.span.start,
                "note type NT_GNU_GOLD_VERSION (4)",
                note.note_type.value.into(),
            ));
        }
        let desc = note.desc.value;
        let text = match desc.iter().position(|&b| b == 0) {
            Some(nul) => desc.get(..nul).unwrap_or(desc),
            None => desc,
        };
        let (revision, command_line) = match text.strip_prefix(REVISION) {
            Some(rest) => match find(rest, COMMAND_LINE) {
                Some(at) => (rest.get(..at), rest.get(at.saturating_add(COMMAND_LINE.len())..)),
                None => (Some(rest), None),
            },
            None => (None, None),
        };
        Ok(Info { note, text, revision, command_line })
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// File offset and size of the named section, if the ELF has it with contents.
fn section_range(data: &[u8], name: &[u8]) -> Result<Option<(u64, u64)>> {
    fn of<H: FileHeader<Endian = Endianness>>(data: &[u8], name: &[u8]) -> Result<Option<(u64, u64)>> {
        let bad = |_| Error::malformed(0, "malformed ELF section headers");
        let header = H::parse(data).map_err(bad)?;
        let endian = header.endian().map_err(bad)?;
        let table = header.sections(endian, data).map_err(bad)?;
        Ok(table.section_by_name(endian, name).and_then(|(_, s)| s.file_range(endian)))
    }
    // EI_CLASS: 1 = ELFCLASS32, 2 = ELFCLASS64.
    match data.get(4) {
        Some(2) => of::<elf::FileHeader64<Endianness>>(data, name),
        Some(1) => of::<elf::FileHeader32<Endianness>>(data, name),
        _ => Err(Error::malformed(0, "expected an ELF file")),
    }
}

/// The `.note.bolt_bat` note of an ELF file, checked as BOLT checks it.
pub fn find_note(elf: &[u8]) -> Result<Option<Note<'_>>> {
    let Some((offset, size)) = section_range(elf, BAT_SECTION)? else { return Ok(None) };
    let note = Note::parse(elf, offset, size)?;
    note.check_bat()?;
    Ok(Some(note))
}

/// The `.note.bolt_info` note of an ELF file.
pub fn find_info(elf: &[u8]) -> Result<Option<Note<'_>>> {
    let Some((offset, size)) = section_range(elf, INFO_SECTION)? else { return Ok(None) };
    Note::parse(elf, offset, size).map(Some)
}

/// BOLT's version and options, if the ELF has a `.note.bolt_info` note.
pub fn info_from_elf(elf: &[u8]) -> Result<Option<Info<'_>>> {
    find_info(elf)?.map(Info::from_note).transpose()
}
