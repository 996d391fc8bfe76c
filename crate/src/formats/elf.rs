//! ELF files: the binaries a profile refers to, and BOLTed binaries whose
//! `.note.bolt_bat` note holds BOLT Address Translation tables (`elf+bat`).
//!
//! Section headers are parsed by the `object` crate; the dump adds the byte spans of
//! the file header, both header tables and every section with file contents.

use alloc::vec::Vec;

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness};

use crate::dump::{Fields, Node};
use crate::error::{Error, Result};
use crate::format::{Detection, Format};
use crate::formats::bolt::bat;
use crate::read::{Endian, Reader};

pub const BAT_SECTION: &[u8] = b".note.bolt_bat";

fn ident(data: &[u8]) -> Option<(u8, Endian)> {
    let id = data.get(..6)?;
    if id.get(..4) != Some(&elf::ELFMAG[..]) {
        return None;
    }
    let bits = match id.get(4) {
        Some(1) => 32,
        Some(2) => 64,
        _ => return None,
    };
    let endian = match id.get(5) {
        Some(1) => Endian::Little,
        Some(2) => Endian::Big,
        _ => return None,
    };
    Some((bits, endian))
}

/// Section name, file offset and size (None for sections without file contents).
struct SectionInfo {
    name: Vec<u8>,
    range: Option<(u64, u64)>,
}

fn sections_of<H: FileHeader<Endian = Endianness>>(data: &[u8]) -> Result<Vec<SectionInfo>> {
    let bad = |_| Error::malformed(0, "malformed ELF section headers");
    let header = H::parse(data).map_err(bad)?;
    let endian = header.endian().map_err(bad)?;
    let table = header.sections(endian, data).map_err(bad)?;
    let mut out = Vec::new();
    for section in table.iter() {
        let name = table.section_name(endian, section).unwrap_or(b"?").to_vec();
        out.push(SectionInfo { name, range: section.file_range(endian) });
    }
    Ok(out)
}

fn sections(data: &[u8], bits: u8) -> Result<Vec<SectionInfo>> {
    if bits == 64 {
        sections_of::<elf::FileHeader64<Endianness>>(data)
    } else {
        sections_of::<elf::FileHeader32<Endianness>>(data)
    }
}

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let Some((bits, endian)) = ident(data) else { return Ok(None) };
    let has_bat = sections(data, bits)?.iter().any(|s| s.name == BAT_SECTION);
    let format = if has_bat { Format::ElfWithBat } else { Format::Elf };
    Ok(Some(Detection::new(format).word_size(bits).endian(endian)))
}

pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    let (bits, endian) = ident(data).ok_or(Error::malformed(0, "expected an ELF identification"))?;
    let len = data.len() as u64;
    let wide = bits == 64;
    let mut r = Reader::new(data, endian);
    let mut f = Fields::new(&mut r);
    f.bytes(16, "e_ident")?;
    f.u16("e_type")?;
    f.u16("e_machine")?;
    f.u32("e_version")?;
    let word = |f: &mut Fields<'_, '_>, label| if wide { f.u64_hex(label) } else { f.u32_hex(label).map(u64::from) };
    word(&mut f, "e_entry")?;
    let phoff_at = f.reader.offset();
    let phoff = word(&mut f, "e_phoff")?;
    let shoff_at = f.reader.offset();
    let shoff = word(&mut f, "e_shoff")?;
    f.u32_hex("e_flags")?;
    let ehsize = f.u16("e_ehsize")?;
    let phentsize = f.u16("e_phentsize")?;
    let phnum = f.u16("e_phnum")?;
    let shentsize = f.u16("e_shentsize")?;
    let shnum = f.u16("e_shnum")?;
    f.u16("e_shstrndx")?;
    let header_end = f.reader.offset().max(u64::from(ehsize)).min(len);
    let mut root = Node::new(detection.format.id(), 0, len);
    root.children.push(Node::new("ELF header", 0, header_end).with_children(f.into_nodes()));

    // A table past the end is reported at the header field that places it: its own
    // offset is not one of the file's.
    let table = |field: u64, offset: u64, count: u16, entsize: u16, label: &'static str| -> Result<Option<Node>> {
        let size = u64::from(count).saturating_mul(u64::from(entsize));
        if offset == 0 || size == 0 {
            return Ok(None);
        }
        match offset.checked_add(size) {
            Some(end) if end <= len => Ok(Some(Node::leaf(label, offset, end, alloc::format!("{count} entries")))),
            _ => Err(Error::invalid(field, label, offset)),
        }
    };
    let inside = "an e_phoff that places the program headers inside the file";
    root.children.extend(table(phoff_at, phoff, phnum, phentsize, inside)?);
    let inside = "an e_shoff that places the section headers inside the file";
    root.children.extend(table(shoff_at, shoff, shnum, shentsize, inside)?);

    // Sections may share bytes (and the header tables may sit among them); the dump
    // shows each byte once, so a section overlapping one already placed is skipped.
    let mut placed: Vec<(u64, u64)> = root.children.iter().map(|c| (c.start, c.end)).collect();
    for section in sections(data, bits)? {
        let Some((offset, size)) = section.range else { continue };
        let end = offset.saturating_add(size);
        if size == 0 || end > len || placed.iter().any(|&(s, e)| offset < e && s < end) {
            continue;
        }
        placed.push((offset, end));
        let name = alloc::format!("section {}", crate::dump::Text(&section.name));
        let mut node = Node::leaf(name, offset, end, alloc::format!("{size} bytes"));
        if section.name == BAT_SECTION {
            node.children = bat::dump_note(data, offset, size)?;
            node.tile()?;
        } else if section.name == bat::INFO_SECTION {
            // BOLT's version and options; a note that does not parse stays bytes.
            if let Ok(children) = bat::dump_info_note(data, offset, size) {
                node.children = children;
                node.tile()?;
            }
        }
        root.children.push(node);
    }
    Ok(root)
}
