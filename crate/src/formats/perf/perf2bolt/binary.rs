//! The input binary as BOLT 22 sees it when aggregating: loadable segments, the
//! functions and data objects of `.symtab` under BOLT's unique names, and the bytes of
//! each function for [`super::cfg`].
//!
//! Names follow BOLT's `RewriteInstance::discoverFileObjects`: global and weak symbols
//! keep their name; every local symbol gets `/N`, N counting the local symbols of that
//! name in address order (`helper/1` in `cmain.c`, `helper/2` in `cutil.c`). A
//! function's extent for address lookups is its `MaxSize`: up to the next symbol of
//! its section, so alignment padding belongs to the function before it.
//!
//! With `--emit-relocs` relocations (BOLT's relocation mode, which perf2bolt runs in:
//! every function is disassembled) it also keeps where data holds relocations against
//! code, which end BOLT's jump tables, and a place for the start of every function's
//! jump tables ([`super::cfg::jump_tables`]), each of which ends the table before it.

use alloc::collections::BTreeMap;
use alloc::rc::Rc;
use alloc::string::String;
use alloc::vec::Vec;
use core::cell::OnceCell;

use object::read::elf::{FileHeader, ProgramHeader, SectionHeader, Sym};
use object::{elf, LittleEndian};

use super::bat::Translation;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// A `PT_LOAD` program header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub vaddr: u64,
    pub offset: u64,
    pub align: u64,
    pub executable: bool,
}

/// An allocated section: where it is in memory and in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Section {
    addr: u64,
    size: u64,
    /// File offset of the contents; None for `SHT_NOBITS`.
    offset: Option<u64>,
    executable: bool,
}

/// A function symbol (aliases at one address are one function, named by the first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub address: u64,
    /// `st_size` (the extent that is disassembled); the extent to the next symbol
    /// when the symbol says 0.
    pub size: u64,
    /// Up to the next symbol of the section or the section end.
    pub max_size: u64,
    /// A PLT entry (BOLT's pseudo function `name@PLT`): no CFG, any fall-through
    /// inside it is fine.
    pub plt: bool,
    /// A local function after a `FILE` symbol: BOLT's alternative name
    /// `name/file/N` (N counting that pair in address order), which perf2bolt writes
    /// instead of `name/N` for a BOLTed binary.
    pub file_name: Option<String>,
}

impl Function {
    /// The names BOLT profiles call it by: its name, and its `name/file/N` one.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        core::iter::once(self.name.as_str()).chain(self.file_name.as_deref())
    }
}

/// A data symbol (or, for memory profiles, a function or a jump table): a memory
/// access inside it is named after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub name: String,
    pub address: u64,
    pub size: u64,
}

/// An x86-64 ELF file read for perf2bolt: its bytes and what parsing them gave
/// ([`BinaryIndex`], whose fields it derefs to).
#[derive(Debug)]
pub struct Binary<'data> {
    data: &'data [u8],
    pub build_id: Option<&'data [u8]>,
    index: Rc<BinaryIndex>,
}

/// What [`Binary::parse`] finds in a binary, owned: a caller that keeps it (the
/// page's worker, between requests) reads the binary again with
/// [`Binary::with_index`] without parsing its symbols, relocations and LSDAs again,
/// and with the jump tables found once.
#[derive(Debug)]
pub struct BinaryIndex {
    /// The size of the file it was made from.
    len: usize,
    /// `ET_EXEC`: addresses in perf.data are the binary's own (BOLT's `HasFixedLoadAddress`).
    pub fixed_load_address: bool,
    /// Where the GNU build id note's descriptor is in the file.
    build_id: Option<core::ops::Range<usize>>,
    pub segments: Vec<Segment>,
    sections: Vec<Section>,
    /// Sorted by address, no two at one address.
    pub functions: Vec<Function>,
    /// Sorted by address.
    pub objects: Vec<Object>,
    /// Landing pads of the LSDAs `.eh_frame` points to, sorted: they start blocks.
    pub landing_pads: Vec<u64>,
    /// The LSDA call sites that have a landing pad: (start, end, landing pad)
    /// addresses, sorted by start. A block whose calls lie in one throws to its pad.
    pub call_sites: Vec<(u64, u64, u64)>,
    /// Static relocations against code are in the file (`--emit-relocs`: BOLT's
    /// `HasRelocations`, "enabling relocation mode").
    pub relocations: bool,
    /// The addresses in data (non-executable sections) holding a relocation against
    /// code, sorted, with whether it is PC-relative: BOLT's `DataPCRelocations` (PIC
    /// jump-table entries) and its data-to-code relocations (absolute entries).
    pub code_relocations: Vec<(u64, bool)>,
    /// Every function's jump tables' addresses, made on first use by
    /// [`super::cfg::jump_tables`].
    pub(crate) jump_tables: OnceCell<Vec<u64>>,
    /// A BOLTed binary (`.note.bolt_bat`): its BAT maps. perf2bolt then translates
    /// every address to the input binary's function offsets.
    pub translation: Option<Translation>,
}

impl core::ops::Deref for Binary<'_> {
    type Target = BinaryIndex;

    fn deref(&self) -> &BinaryIndex {
        &self.index
    }
}

fn bad(what: &'static str) -> impl Fn(object::Error) -> Error {
    move |_| Error::malformed(0, what)
}

impl<'data> Binary<'data> {
    pub fn parse(data: &'data [u8]) -> Result<Binary<'data>> {
        let header = elf::FileHeader64::<LittleEndian>::parse(data)
            .map_err(|_| Error::eof(0, "a 64-bit little-endian ELF file header"))?;
        let endian = LittleEndian;
        let machine = header.e_machine(endian);
        if machine != elf::EM_X86_64 {
            return Err(Error::invalid(18, "ELF machine EM_X86_64 (62)", machine.0.into()));
        }
        let fixed_load_address = header.e_type(endian) == elf::ET_EXEC;
        let segments = header
            .program_headers(endian, data)
            .map_err(bad("ELF program headers inside the file"))?
            .iter()
            .filter(|p| p.p_type(endian) == elf::PT_LOAD)
            .map(|p| Segment {
                vaddr: p.p_vaddr(endian),
                offset: p.p_offset(endian),
                align: p.p_align(endian),
                executable: p.p_flags(endian).0 & elf::PF_X.0 != 0,
            })
            .collect();
        let table = header.sections(endian, data).map_err(bad("ELF section headers inside the file"))?;
        let sections: Vec<Section> = table
            .iter()
            .map(|s| {
                let alloc = s.sh_flags(endian).0 & elf::SHF_ALLOC.0 != 0;
                Section {
                    addr: if alloc { s.sh_addr(endian) } else { 0 },
                    size: if alloc { s.sh_size(endian) } else { 0 },
                    offset: (s.sh_type(endian) != elf::SHT_NOBITS).then(|| s.sh_offset(endian)),
                    executable: s.sh_flags(endian).0 & elf::SHF_EXECINSTR.0 != 0,
                }
            })
            .collect();
        let eh_frame = table
            .section_by_name(endian, b".eh_frame")
            .and_then(|(_, s)| Some((s.sh_addr(endian), s.data(endian, data).ok()?)));
        let build_id = table.iter().find_map(|s| {
            let mut notes = s.notes(endian, data).ok()??;
            while let Ok(Some(note)) = notes.next() {
                if note.name() == elf::ELF_NOTE_GNU && note.n_type(endian) == elf::NT_GNU_BUILD_ID {
                    return Some(note.desc());
                }
            }
            None
        });

        let symtab = table
            .symbols(endian, data, elf::SHT_SYMTAB)
            .map_err(bad("an ELF symbol table and its strings inside the file"))?;
        // (address, symbol index, section, size, is function, name, local, file)
        let mut symbols = Vec::new();
        // BOLT's `FileSymbolName`: the last FILE symbol before a local symbol
        // (Clang LTO's `ld-temp.o` aside).
        let mut file: Option<String> = None;
        for (index, sym) in symtab.enumerate() {
            let kind = sym.st_type();
            if kind == elf::STT_FILE {
                let name = sym.name(endian, symtab.strings()).unwrap_or_default();
                if name != b"ld-temp.o" {
                    file = (!name.is_empty()).then(|| String::from_utf8_lossy(name).into_owned());
                }
                continue;
            }
            let Some(shndx) = sym.st_shndx(endian).index().map(usize::from) else { continue };
            if !matches!(kind, elf::STT_FUNC | elf::STT_OBJECT | elf::STT_NOTYPE | elf::STT_TLS) {
                continue;
            }
            let Ok(name) = sym.name(endian, symtab.strings()) else { continue };
            if name.is_empty() {
                continue;
            }
            let address = sym.st_value(endian);
            // BOLT drops symbols that lie outside their section (`__bss_start` at the end of .bss).
            let Some(section) = sections.get(shndx) else { continue };
            let inside = address >= section.addr && address.wrapping_sub(section.addr) < section.size;
            if !inside {
                continue;
            }
            symbols.push((
                address,
                index.0,
                shndx,
                sym.st_size(endian),
                kind == elf::STT_FUNC,
                String::from_utf8_lossy(name).into_owned(),
                sym.st_bind() == elf::STB_LOCAL,
                file.clone().filter(|_| sym.st_bind() == elf::STB_LOCAL),
            ));
        }
        symbols.sort_by_key(|s| (s.0, s.1));
        if !symbols.iter().any(|s| s.4) {
            return Err(Error::malformed(0, "function symbols in .symtab (perf2bolt needs an unstripped binary)"));
        }

        let mut counts: BTreeMap<String, u64> = BTreeMap::new();
        let mut functions: Vec<Function> = Vec::new();
        let mut objects = Vec::new();
        for (i, (address, _, shndx, size, is_function, name, local, file)) in symbols.iter().enumerate() {
            let file_name = match file.as_ref().filter(|_| *is_function) {
                Some(file) => {
                    let prefix = alloc::format!("{name}/{file}");
                    let n = counts.entry(prefix.clone()).or_insert(0);
                    *n = n.saturating_add(1);
                    Some(alloc::format!("{prefix}/{n}"))
                }
                None => None,
            };
            let name = if *local {
                let n = counts.entry(name.clone()).or_insert(0);
                *n = n.saturating_add(1);
                alloc::format!("{name}/{n}")
            } else {
                name.clone()
            };
            let section = sections.get(*shndx);
            let section_end = section.map_or(*address, |s| s.addr.saturating_add(s.size));
            let next = symbols
                .iter()
                .skip(i.saturating_add(1))
                .find(|s| s.2 == *shndx && s.0 > *address)
                .map_or(section_end, |s| s.0);
            let max_size = next.saturating_sub(*address).max(*size);
            if *is_function && section.is_some_and(|s| s.executable) {
                if let Some(alias) = functions.last_mut().filter(|f| f.address == *address) {
                    if alias.file_name.is_none() {
                        alias.file_name = file_name;
                    }
                    continue;
                }
                let size = if *size == 0 { max_size } else { *size };
                functions.push(Function { name, address: *address, size, max_size, plt: false, file_name });
            } else if !is_function && !section.is_some_and(|s| s.executable) {
                // A data symbol without a size reaches the next symbol (the section end).
                let size = if *size == 0 { max_size } else { *size };
                objects.push(Object { name, address: *address, size });
            }
        }
        functions.extend(plt_functions(&table, data));
        functions.sort_by_key(|f| f.address);
        functions.dedup_by_key(|f| f.address);
        let (relocations, code_relocations) = code_relocations(&table, data, &sections);
        let (landing_pads, call_sites) = match eh_frame {
            Some((address, bytes)) => landing_pads(&sections, data, address, bytes),
            None => (Vec::new(), Vec::new()),
        };
        // The note's descriptor lies in `data`: its place, for the index to keep.
        let build_id = build_id.and_then(|id| {
            let start = (id.as_ptr() as usize).checked_sub(data.as_ptr() as usize)?;
            Some(start..start.checked_add(id.len())?)
        });
        let index = BinaryIndex {
            len: data.len(),
            fixed_load_address,
            build_id,
            segments,
            sections,
            functions,
            objects,
            landing_pads,
            call_sites,
            relocations,
            code_relocations,
            jump_tables: OnceCell::new(),
            translation: crate::formats::bolt::bat::from_elf(data)?.map(|bat| Translation::new(&bat)),
        };
        Binary::with_index(data, Rc::new(index))
    }

    /// The binary `data` read with the `index` a parse of the same bytes gave
    /// ([`Binary::index`]). An index of a file of another size is refused.
    pub fn with_index(data: &'data [u8], index: Rc<BinaryIndex>) -> Result<Binary<'data>> {
        if index.len != data.len() {
            return Err(Error::malformed(0, "the binary its index was made from"));
        }
        let build_id = index.build_id.clone().and_then(|range| data.get(range));
        Ok(Binary { data, build_id, index })
    }

    /// What parsing the binary found, to read it again with [`Binary::with_index`].
    pub fn index(&self) -> Rc<BinaryIndex> {
        Rc::clone(&self.index)
    }

    /// A binary of one function `f` made of `code` at `address`, for unit tests.
    #[cfg(test)]
    pub(crate) fn for_code(address: u64, code: &'data [u8]) -> Binary<'data> {
        let size = code.len() as u64;
        let index = BinaryIndex {
            len: code.len(),
            fixed_load_address: true,
            build_id: None,
            segments: Vec::new(),
            sections: alloc::vec![Section { addr: address, size, offset: Some(0), executable: true }],
            functions: alloc::vec![Function {
                name: "f".into(),
                address,
                size,
                max_size: size,
                plt: false,
                file_name: None,
            }],
            objects: Vec::new(),
            landing_pads: Vec::new(),
            call_sites: Vec::new(),
            relocations: false,
            code_relocations: Vec::new(),
            jump_tables: OnceCell::new(),
            translation: None,
        };
        Binary { data: code, build_id: None, index: Rc::new(index) }
    }

    /// Whether `address` holds a relocation against code (PC-relative or not) that
    /// BOLT accepts for a jump-table entry.
    pub fn has_code_relocation(&self, address: u64, pc_relative: bool) -> bool {
        let at = self.code_relocations.partition_point(|r| r.0 < address);
        self.code_relocations.get(at..).into_iter().flatten().take_while(|r| r.0 == address).any(|r| r.1 == pc_relative)
    }

    /// The function whose `[address, address + max_size)` holds `address`.
    pub fn function_at(&self, address: u64) -> Option<usize> {
        let index = self.functions.partition_point(|f| f.address <= address).checked_sub(1)?;
        let f = self.functions.get(index)?;
        (address.wrapping_sub(f.address) < f.max_size).then_some(index)
    }

    /// The file bytes of `[address, address + len)` (shorter if a section ends first).
    pub fn bytes_at(&self, address: u64, len: u64) -> Option<&'data [u8]> {
        bytes_at(&self.index.sections, self.data, address, len)
    }
}

/// The bytes of `data` at `[address, address + len)` by its `sections` (shorter if a
/// section ends first).
fn bytes_at<'d>(sections: &[Section], data: &'d [u8], address: u64, len: u64) -> Option<&'d [u8]> {
    let section =
        sections.iter().find(|s| s.offset.is_some() && address >= s.addr && address.wrapping_sub(s.addr) < s.size)?;
    let within = address.checked_sub(section.addr)?;
    let len = len.min(section.size.checked_sub(within)?);
    let start = usize::try_from(section.offset?.checked_add(within)?).ok()?;
    let end = start.checked_add(usize::try_from(len).ok()?)?;
    data.get(start..end)
}

/// The landing pads of every FDE's LSDA (`.gcc_except_table` call-site records):
///
/// ```text
/// u8 LPStart encoding [LPStart]   u8 TType encoding [uleb TType offset]
/// u8 call-site encoding  uleb table length
/// per call site: start, length, landing pad (call-site encoding), uleb action
/// ```
///
/// A damaged `.eh_frame` or LSDA only loses the pads it would have given. Returns
/// the pads, sorted, and the call sites with a pad (start, end, pad), by start.
fn landing_pads(
    sections: &[Section],
    data: &[u8],
    eh_frame_address: u64,
    eh_frame: &[u8],
) -> (Vec<u64>, Vec<(u64, u64, u64)>) {
    use gimli::{BaseAddresses, CieOrFde, EhFrame, UnwindSection};
    let section = EhFrame::new(eh_frame, gimli::LittleEndian);
    let bases = BaseAddresses::default().set_eh_frame(eh_frame_address);
    let mut entries = section.entries(&bases);
    let mut pads = Vec::new();
    let mut sites = Vec::new();
    while let Ok(Some(entry)) = entries.next() {
        let CieOrFde::Fde(partial) = entry else { continue };
        let Ok(fde) = partial.parse(EhFrame::cie_from_offset) else { continue };
        let Some(gimli::Pointer::Direct(lsda)) = fde.lsda() else { continue };
        let Some(bytes) = bytes_at(sections, data, lsda, u64::MAX) else { continue };
        let _ = lsda_pads(bytes, fde.initial_address(), &mut pads, &mut sites);
    }
    pads.sort_unstable();
    pads.dedup();
    sites.sort_unstable();
    (pads, sites)
}

/// BOLT's relocation mode and the relocations from data to code of the static
/// relocation sections (`--emit-relocs`: not allocated, `sh_info` naming the section
/// they apply to; the dynamic `.rela.dyn` and `.rela.plt` are not of them). A
/// relocation is against code when its symbol is defined in an executable section.
fn code_relocations(
    table: &object::read::elf::SectionTable<'_, elf::FileHeader64<LittleEndian>>,
    data: &[u8],
    sections: &[Section],
) -> (bool, Vec<(u64, bool)>) {
    let endian = LittleEndian;
    let mut any = false;
    let mut out = Vec::new();
    let Ok(symtab) = table.symbols(endian, data, elf::SHT_SYMTAB) else { return (false, out) };
    for section in table.iter() {
        if section.sh_type(endian) != elf::SHT_RELA || section.sh_flags(endian).0 & elf::SHF_ALLOC.0 != 0 {
            continue;
        }
        let Some(target) = usize::try_from(section.sh_info(endian)).ok().and_then(|i| sections.get(i)) else {
            continue;
        };
        if target.size == 0 {
            continue;
        }
        if target.executable {
            any = true;
            continue;
        }
        let Ok(Some((relocations, _))) = section.rela(endian, data) else { continue };
        for r in relocations {
            let kind = r.r_type(endian, false);
            let Ok(sym) = symtab.symbol(object::SymbolIndex(r.r_sym(endian, false) as usize)) else { continue };
            let to_code =
                sym.st_shndx(endian).index().and_then(|i| sections.get(usize::from(i))).is_some_and(|s| s.executable);
            if to_code {
                let pc_relative =
                    matches!(kind, elf::R_X86_64_PC8 | elf::R_X86_64_PC16 | elf::R_X86_64_PC32 | elf::R_X86_64_PC64);
                out.push((r.r_offset.get(endian), pc_relative));
            }
        }
    }
    out.sort_unstable();
    (any, out)
}

/// Reads one `DW_EH_PE_*`-encoded value of an LSDA (absolute, uleb/sleb or fixed
/// width; the application bits are ignored: call-site fields are offsets).
fn encoded(r: &mut Reader<'_>, encoding: u8) -> Result<u64> {
    Ok(match encoding & 0x0f {
        0x00 => r.u64("LSDA pointer")?,
        0x01 => r.uleb128("LSDA uleb128")?,
        0x02 => r.u16("LSDA udata2")?.into(),
        0x03 => r.u32("LSDA udata4")?.into(),
        0x04 => r.u64("LSDA udata8")?,
        0x09 => r.sleb128("LSDA sleb128")? as u64,
        0x0a => i64::from(r.u16("LSDA sdata2")? as i16) as u64,
        0x0b => i64::from(r.i32("LSDA sdata4")?) as u64,
        0x0c => r.u64("LSDA sdata8")?,
        _ => return Err(Error::invalid(r.offset(), "a DW_EH_PE value format", encoding.into())),
    })
}

fn lsda_pads(bytes: &[u8], function: u64, pads: &mut Vec<u64>, sites: &mut Vec<(u64, u64, u64)>) -> Result<()> {
    const OMIT: u8 = 0xff;
    let mut r = Reader::new(bytes, Endian::Little);
    let lp_start_encoding = r.u8("LPStart encoding")?;
    let lp_start = if lp_start_encoding == OMIT { function } else { encoded(&mut r, lp_start_encoding)? };
    if r.u8("TType encoding")? != OMIT {
        r.uleb128("TType offset")?;
    }
    let encoding = r.u8("call-site encoding")?;
    let length = r.uleb128("call-site table length")?;
    let mut table = r.sub(length, "call-site table")?;
    while !table.is_empty() {
        // Start and length from the function's start; the pad from LPStart.
        let start = function.wrapping_add(encoded(&mut table, encoding)?);
        let length = encoded(&mut table, encoding)?;
        let pad = encoded(&mut table, encoding)?;
        table.uleb128("call-site action")?;
        if pad != 0 {
            pads.push(lp_start.wrapping_add(pad));
            sites.push((start, start.wrapping_add(length), lp_start.wrapping_add(pad)));
        }
    }
    Ok(())
}

/// The entries of `.plt`, `.plt.sec` and `.plt.got` as BOLT names them: `name@PLT`,
/// `name` being the dynamic symbol of the GOT slot the entry's `jmp *slot(%rip)` reads.
fn plt_functions(
    table: &object::read::elf::SectionTable<'_, elf::FileHeader64<LittleEndian>>,
    data: &[u8],
) -> Vec<Function> {
    use iced_x86::{Decoder, DecoderOptions, FlowControl};
    let endian = LittleEndian;
    let mut out = Vec::new();
    let Ok(dynsym) = table.symbols(endian, data, elf::SHT_DYNSYM) else { return out };
    // GOT slot → dynamic symbol name, from JUMP_SLOT and GLOB_DAT relocations.
    let mut slots: BTreeMap<u64, &[u8]> = BTreeMap::new();
    for section in table.iter() {
        let Ok(Some((relocations, _))) = section.rela(endian, data) else { continue };
        for r in relocations {
            let kind = r.r_type(endian, false);
            if kind != elf::R_X86_64_JUMP_SLOT && kind != elf::R_X86_64_GLOB_DAT {
                continue;
            }
            let Ok(sym) = dynsym.symbol(object::SymbolIndex(r.r_sym(endian, false) as usize)) else { continue };
            if let Ok(name) = sym.name(endian, dynsym.strings()) {
                slots.insert(r.r_offset.get(endian), name);
            }
        }
    }
    for section in table.iter() {
        let Ok(name) = table.section_name(endian, section) else { continue };
        if !matches!(name, b".plt" | b".plt.sec" | b".plt.got") {
            continue;
        }
        let Ok(bytes) = section.data(endian, data) else { continue };
        let address = section.sh_addr(endian);
        let entry = match section.sh_entsize(endian) {
            0 if name == b".plt.got" => 8,
            0 => 16,
            n => n,
        };
        let Ok(step) = usize::try_from(entry) else { continue };
        for (i, chunk) in bytes.chunks(step).enumerate() {
            let start = address.wrapping_add(entry.wrapping_mul(i as u64));
            let mut decoder = Decoder::with_ip(64, chunk, start, DecoderOptions::NONE);
            let slot = decoder.iter().take(3).find_map(|insn| {
                (insn.flow_control() == FlowControl::IndirectBranch && insn.is_ip_rel_memory_operand())
                    .then(|| insn.ip_rel_memory_address())
            });
            if let Some(symbol) = slot.and_then(|slot| slots.get(&slot)) {
                let name = alloc::format!("{}@PLT", String::from_utf8_lossy(symbol));
                out.push(Function { name, address: start, size: entry, max_size: entry, plt: true, file_name: None });
            }
        }
    }
    out
}

/// Index of the object of `objects` (sorted by address) holding `address`: the last
/// one starting at or before it, among the few that may nest (a copy-relocated alias
/// and its original).
pub fn object_at(objects: &[Object], address: u64) -> Option<usize> {
    let end = objects.partition_point(|o| o.address <= address);
    (0..end).rev().take(4).find(|&i| objects.get(i).is_some_and(|o| address.wrapping_sub(o.address) < o.size))
}
