//! A dropped ELF binary, read once for what symbolization needs: its GNU build id,
//! its `PT_LOAD` segments (to turn a file offset into a virtual address), its
//! function symbols, and where its DWARF sections are (read lazily by [`super::dwarf`]).
//!
//! Nothing is copied out of the file but the symbol list: names, notes and DWARF
//! sections are borrowed from the caller's bytes.
//!
//! Symbols are taken as perf takes them (facts from its output and documentation):
//! `.symtab`, else `.dynsym`; `STT_FUNC`, `STT_GNU_IFUNC` and named `STT_NOTYPE`
//! labels, defined in an executable section; plus one `name@plt` symbol per
//! `.rela.plt` entry, laid out over `.plt.sec` (no header) or `.plt` (after its
//! header) on x86 and AArch64.

use alloc::borrow::{Cow, ToOwned};
use alloc::boxed::Box;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::OnceCell;

use object::read::elf::{CompressionHeader, FileHeader, ProgramHeader, Rel, Rela, SectionHeader, SectionTable, Sym};
use object::{elf, Endianness};

use super::demangle::perf_name;
use super::dwarf::{self, Chdr, DebugSection, Dwarf};
use super::symbols::{Aliases, Binding, Symbol, Symbols};
use super::Frame;
use crate::error::{Error, Result};

/// A `PT_LOAD` program header: `filesz` bytes at `offset` in the file are mapped at
/// `vaddr`, followed by zeros up to `memsz`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub offset: u64,
    pub vaddr: u64,
    pub filesz: u64,
    pub memsz: u64,
    pub executable: bool,
}

/// A parsed ELF binary, borrowing its bytes.
pub struct Binary<'a> {
    build_id: Option<&'a [u8]>,
    /// `ET_DYN`: a PIE executable or a shared library, loaded at a base chosen at run time.
    dynamic: bool,
    segments: Vec<Segment>,
    symbols: Symbols<'a>,
    /// Each symbol's name as perf prints it, demangled on first use; `None` when it
    /// reads the same as the raw name. Samples hit the same few functions again and
    /// again, and demangling a C++ name costs microseconds.
    demangled: Vec<OnceCell<Option<Box<str>>>>,
    debug: Vec<DebugSection>,
    data: &'a [u8],
    endian: Endianness,
    /// Built on the first inline-frame lookup and kept: `addr2line` parses units and
    /// line programs as addresses need them, and caches them here.
    dwarf: OnceCell<Result<Option<Dwarf<'a>>>>,
    /// `.eh_frame` has bytes in the file: a separate debug file keeps the section's
    /// header but not its bytes (`SHT_NOBITS`), so its stripped twin unwinds.
    call_frames: bool,
}

impl core::fmt::Debug for Binary<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Binary")
            .field("build_id", &self.build_id)
            .field("dynamic", &self.dynamic)
            .field("segments", &self.segments)
            .field("symbols", &self.symbols.len())
            .field("debug_sections", &self.debug.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Binary<'a> {
    /// Reads the headers, notes and symbol tables of an ELF file (32 or 64 bits,
    /// either byte order). DWARF is not read until [`Binary::frames`] needs it.
    pub fn parse(data: &'a [u8]) -> Result<Binary<'a>> {
        match data.get(..5) {
            Some([0x7f, b'E', b'L', b'F', 1]) => parse_as::<elf::FileHeader32<Endianness>>(data),
            Some([0x7f, b'E', b'L', b'F', 2]) => parse_as::<elf::FileHeader64<Endianness>>(data),
            Some([0x7f, b'E', b'L', b'F', class]) => Err(Error::invalid(4, "ELF class 1 or 2", u64::from(*class))),
            _ => Err(Error::malformed(0, "expected an ELF binary (\\x7fELF)")),
        }
    }

    /// The GNU build id (`NT_GNU_BUILD_ID`), as perf records it in `HEADER_BUILD_ID`.
    pub fn build_id(&self) -> Option<&'a [u8]> {
        self.build_id
    }

    /// `ET_DYN`: a PIE executable or shared library.
    pub fn is_dynamic(&self) -> bool {
        self.dynamic
    }

    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// How many function symbols the lookup table holds.
    pub fn symbol_count(&self) -> usize {
        self.symbols.len()
    }

    /// The ELF file's bytes (for readers of other sections, such as the unwinder).
    pub fn bytes(&self) -> &'a [u8] {
        self.data
    }

    /// Whether the file holds call-frame information to unwind with ([`Binary::call_frames`]).
    pub fn has_call_frames(&self) -> bool {
        self.call_frames
    }

    /// The virtual address that the byte at `offset` in the file is loaded at: what a
    /// sample's DSO-relative address (`pgoff + ip − map start`, the address perf
    /// prints in call chains) is inside the binary.
    pub fn vaddr_of_file_offset(&self, offset: u64) -> Option<u64> {
        let segment = self
            .segments
            .iter()
            .find(|s| offset >= s.offset && offset.checked_sub(s.offset).is_some_and(|d| d < s.filesz))?;
        segment.vaddr.checked_add(offset.checked_sub(segment.offset)?)
    }

    /// The function symbols, sorted by address: raw name, start and end (exclusive),
    /// after perf's choice among aliases and its extension of zero sizes.
    pub fn symbols(&self) -> impl Iterator<Item = (&str, u64, u64)> {
        self.symbols.iter().map(|s| (&*s.name, s.start, s.end))
    }

    /// The function symbol holding `vaddr`: its name as perf prints it (demangled,
    /// without parameters) and `vaddr`'s offset from its start.
    pub fn symbol_for(&self, vaddr: u64) -> Option<(&str, u64)> {
        let index = self.symbols.find_index(vaddr)?;
        let symbol = self.symbols.get(index)?;
        let raw: &str = &symbol.name;
        let name = match self.demangled.get(index) {
            Some(cell) => cell
                .get_or_init(|| match perf_name(raw) {
                    Cow::Owned(name) => Some(name.into_boxed_str()),
                    Cow::Borrowed(_) => None,
                })
                .as_deref()
                .unwrap_or(raw),
            None => raw,
        };
        Some((name, vaddr.checked_sub(symbol.start)?))
    }

    /// The raw (mangled) name and start address of the function symbol holding `vaddr`.
    pub fn raw_symbol_for(&self, vaddr: u64) -> Option<(&str, u64)> {
        let symbol = self.symbols.find(vaddr)?;
        Some((&symbol.name, symbol.start))
    }

    /// The frames at `vaddr`, innermost first: the functions inlined there (from
    /// DWARF), then the function the symbol table names. Without DWARF, or when the
    /// DWARF cannot be read, just the symbol's frame; nothing when no symbol and no
    /// DWARF function holds `vaddr`.
    pub fn frames(&self, vaddr: u64) -> Vec<Frame> {
        self.inline_frames(vaddr).unwrap_or_else(|_| self.symbol_frame(vaddr).into_iter().collect())
    }

    /// Like [`Binary::frames`], but a DWARF error is returned instead of falling back
    /// to the symbol table.
    pub fn inline_frames(&self, vaddr: u64) -> Result<Vec<Frame>> {
        let mut frames = match self.dwarf()? {
            Some(dwarf) => dwarf.frames(vaddr)?,
            None => Vec::new(),
        };
        let symbol = self.symbol_for(vaddr);
        match (frames.last_mut(), symbol) {
            (Some(outer), Some((name, _))) => name.clone_into(&mut outer.function),
            (None, Some(_)) => frames.extend(self.symbol_frame(vaddr)),
            (_, None) => {}
        }
        Ok(frames)
    }

    /// The functions at `vaddr` as perf 6.1 gets them from GNU addr2line 2.40 for
    /// its inline frames, innermost first, each named as the debug information
    /// names it (the outermost not renamed after the symbol table, as
    /// [`Binary::inline_frames`] does: perf marks a frame `(inlined)` when its
    /// DWARF name is not the symbol's). Empty without DWARF.
    pub fn addr2line_frames(&self, vaddr: u64) -> Result<Vec<Frame>> {
        match self.dwarf()? {
            Some(dwarf) => dwarf.frames_as_binutils(vaddr),
            None => Ok(Vec::new()),
        }
    }

    /// Reads the DWARF now (once) and says whether it is usable: `Ok(false)` when the
    /// binary has none.
    pub fn load_dwarf(&self) -> Result<bool> {
        self.dwarf().map(|d| d.is_some())
    }

    fn dwarf(&self) -> Result<Option<&Dwarf<'a>>> {
        match self.dwarf.get_or_init(|| dwarf::load(self.data, self.endian, &self.debug)) {
            Ok(dwarf) => Ok(dwarf.as_ref()),
            Err(e) => Err(*e),
        }
    }

    fn symbol_frame(&self, vaddr: u64) -> Option<Frame> {
        let (name, _) = self.symbol_for(vaddr)?;
        Some(Frame { function: String::from(name), file: None, line: None, inlined: false })
    }
}

fn parse_as<'a, H: FileHeader<Endian = Endianness>>(data: &'a [u8]) -> Result<Binary<'a>> {
    let header = H::parse(data).map_err(|_| Error::eof(0, "ELF file header"))?;
    let endian = header.endian().map_err(|_| Error::invalid(5, "ELF data encoding 1 or 2", 0))?;
    let bad_headers = |_| Error::malformed(0, "ELF section or program headers extend past the end of the file");
    let sections = header.sections(endian, data).map_err(bad_headers)?;
    let program_headers = header.program_headers(endian, data).map_err(bad_headers)?;

    let segments = program_headers
        .iter()
        .filter(|p| p.p_type(endian) == elf::PT_LOAD)
        .map(|p| Segment {
            offset: p.p_offset(endian).into(),
            vaddr: p.p_vaddr(endian).into(),
            filesz: p.p_filesz(endian).into(),
            memsz: p.p_memsz(endian).into(),
            executable: p.p_flags(endian).0 & elf::PF_X.0 != 0,
        })
        .collect();

    let mut symbols = function_symbols(&sections, endian, data, elf::SHT_SYMTAB)?;
    if symbols.is_empty() {
        symbols = function_symbols(&sections, endian, data, elf::SHT_DYNSYM)?;
    }
    plt_symbols(header, &sections, endian, data, &mut symbols);

    let mut debug = Vec::new();
    let mut call_frames = false;
    for section in sections.iter() {
        let name = sections.section_name(endian, section).unwrap_or_default();
        if name == b".eh_frame" {
            call_frames |= section
                .file_range(endian)
                .is_some_and(|(at, size)| size > 0 && at.checked_add(size).is_some_and(|end| end <= data.len() as u64));
        }
        // SHF_COMPRESSED: an Elf_Chdr (type, uncompressed size) before the stream.
        let compression: Option<Chdr> = match section.compression(endian, data) {
            Ok(Some((header, at, size))) => {
                Some(Ok((header.ch_type(endian).0, header.ch_size(endian).into(), at, size)))
            }
            Ok(None) => None,
            Err(_) => Some(Err(())),
        };
        if let Some(found) = DebugSection::new(name, section.file_range(endian), compression) {
            debug.push(found);
        }
    }

    let symbols = Symbols::new(symbols, Aliases::Best);
    let mut demangled = Vec::new();
    demangled.resize_with(symbols.len(), OnceCell::new);
    Ok(Binary {
        build_id: build_id(&sections, endian, data),
        dynamic: header.e_type(endian) == elf::ET_DYN,
        segments,
        symbols,
        demangled,
        debug,
        data,
        endian,
        dwarf: OnceCell::new(),
        call_frames,
    })
}

/// The first `NT_GNU_BUILD_ID` note of owner `GNU`, preferring `.note.gnu.build-id`.
fn build_id<'a, H: FileHeader<Endian = Endianness>>(
    sections: &SectionTable<'a, H>,
    endian: Endianness,
    data: &'a [u8],
) -> Option<&'a [u8]> {
    let named = sections.section_by_name(endian, b".note.gnu.build-id").map(|(_, s)| s);
    named.into_iter().chain(sections.iter()).find_map(|section| {
        let mut notes = section.notes(endian, data).ok().flatten()?;
        while let Ok(Some(note)) = notes.next() {
            if note.n_type(endian) == elf::NT_GNU_BUILD_ID && note.name() == elf::ELF_NOTE_GNU {
                return Some(note.desc());
            }
        }
        None
    })
}

/// The function symbols of the first symbol table of type `kind`.
fn function_symbols<'a, H: FileHeader<Endian = Endianness>>(
    sections: &SectionTable<'a, H>,
    endian: Endianness,
    data: &'a [u8],
    kind: elf::SectionType,
) -> Result<Vec<Symbol<'a>>> {
    let table = sections
        .symbols(endian, data, kind)
        .map_err(|_| Error::malformed(0, "an ELF symbol table or its string table extends past the end of the file"))?;
    let mut out = Vec::new();
    for (index, symbol) in table.enumerate() {
        let st_type = symbol.st_type();
        let is_code = st_type == elf::STT_FUNC || st_type == elf::STT_GNU_IFUNC || st_type == elf::STT_NOTYPE;
        if !is_code || symbol.st_name(endian) == 0 {
            continue;
        }
        let Ok(Some(section_index)) = table.symbol_section(endian, symbol, index) else {
            continue;
        };
        let executable =
            sections.section(section_index).is_ok_and(|s| s.sh_flags(endian).0 & elf::SHF_EXECINSTR.0 != 0);
        let Ok(name) = table.symbol_name(endian, symbol) else {
            continue;
        };
        // ARM mapping symbols (`$x`, `$d`) mark code and data, not functions.
        if !executable || name.is_empty() || name.first() == Some(&b'$') {
            continue;
        }
        let start: u64 = symbol.st_value(endian).into();
        let binding = match symbol.st_bind() {
            elf::STB_LOCAL => Binding::Local,
            elf::STB_WEAK => Binding::Weak,
            _ => Binding::Global,
        };
        out.push(Symbol {
            start,
            end: start.saturating_add(symbol.st_size(endian).into()),
            name: String::from_utf8_lossy(name),
            binding,
            module: None,
        });
    }
    Ok(out)
}

/// `name@plt` symbols for the PLT entries, one per `.rela.plt` / `.rel.plt` entry in
/// order. A PLT that cannot be read adds nothing: the entries are a convenience.
fn plt_symbols<'a, H: FileHeader<Endian = Endianness>>(
    header: &H,
    sections: &SectionTable<'a, H>,
    endian: Endianness,
    data: &'a [u8],
    out: &mut Vec<Symbol<'a>>,
) {
    // (PLT header size, entry size) on the architectures perf synthesizes PLTs for.
    let (header_size, entry_size) = match header.e_machine(endian) {
        elf::EM_X86_64 | elf::EM_386 => (16u64, 16u64),
        elf::EM_AARCH64 => (32, 16),
        _ => return,
    };
    let (plt_at, header_size) = match sections.section_by_name(endian, b".plt.sec") {
        Some((_, sec)) => (sec.sh_addr(endian).into(), 0),
        None => match sections.section_by_name(endian, b".plt") {
            Some((_, plt)) => (plt.sh_addr(endian).into(), header_size),
            None => return,
        },
    };
    let mut targets: Vec<u32> = Vec::new();
    let mut symtab = None;
    for section in sections.iter() {
        let name = sections.section_name(endian, section).unwrap_or_default();
        if name == b".rela.plt" {
            if let Ok(Some((relocations, link))) = section.rela(endian, data) {
                targets.extend(relocations.iter().map(|r| r.r_sym(endian, false)));
                symtab = Some(link);
            }
        } else if name == b".rel.plt" {
            if let Ok(Some((relocations, link))) = section.rel(endian, data) {
                targets.extend(relocations.iter().map(|r| r.r_sym(endian)));
                symtab = Some(link);
            }
        }
    }
    let Some(Ok(table)) = symtab.map(|link| sections.symbol_table_by_index(endian, data, link)) else {
        return;
    };
    let mut at = plt_at.saturating_add(header_size);
    for target in targets {
        let name = table
            .symbol(object::SymbolIndex(usize::try_from(target).unwrap_or(usize::MAX)))
            .and_then(|s| table.symbol_name(endian, s));
        if let Ok(name) = name.as_ref().map(|n| String::from_utf8_lossy(n)) {
            let mut plt_name = name.into_owned();
            plt_name.push_str("@plt");
            out.push(Symbol {
                start: at,
                end: at.saturating_add(entry_size),
                name: Cow::Owned(plt_name),
                binding: Binding::Global,
                module: None,
            });
        }
        at = at.saturating_add(entry_size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_elf() {
        assert_eq!(Binary::parse(b"").unwrap_err(), Error::malformed(0, "expected an ELF binary (\\x7fELF)"));
        assert_eq!(Binary::parse(b"\x7fELF\x03").unwrap_err(), Error::invalid(4, "ELF class 1 or 2", 3));
        assert!(Binary::parse(b"\x7fELF\x02\x01\x01").is_err());
    }
}
