//! Correlated raw profiles (`-mllvm -profile-correlate=binary|debug-info`,
//! variant bit 59): the raw file holds counters only; the data records and names
//! are in the instrumented ELF binary.
//!
//! With binary correlation the binary keeps its `__llvm_prf_data` and
//! `__llvm_prf_names` sections. Each data record's `CounterPtr` there is the
//! counter's absolute (link-time) address, so the offset into the raw file's
//! counters section is `CounterPtr − address of __llvm_prf_cnts`
//! (`BinaryInstrProfCorrelator::correlateProfileDataImpl`); records that share a
//! counter offset are kept once.
//!
//! Debug-info correlation (variant bit 59 in the raw profile) keeps the same facts
//! in DWARF instead: one `__profc_` variable per function with annotations for its
//! name, hash and number of counters ([`dwarf`]).

use alloc::collections::BTreeSet;
use alloc::vec::Vec;

use object::read::elf::{FileHeader, SectionHeader};
use object::{elf, Endianness};

use super::decode_raw::{read_names, read_record, Correlation};
use super::flags;
use super::raw_layout::{header_fields, magic_of, RecordLayout};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

mod dwarf;

/// A section's file range, link-time address and size (`sh_size`, also for
/// `SHT_NOBITS`).
struct Section {
    name: Vec<u8>,
    file: Option<(u64, u64)>,
    address: u64,
    size: u64,
    /// `SHF_COMPRESSED`: the contents start with an `Elf_Chdr`.
    compressed: bool,
}

fn sections_of<H: FileHeader<Endian = Endianness>>(data: &[u8]) -> Result<(Vec<Section>, Endian)> {
    let bad = |_| Error::malformed(0, "malformed ELF section headers in the correlation binary");
    let header = H::parse(data).map_err(bad)?;
    let endian = header.endian().map_err(bad)?;
    let table = header.sections(endian, data).map_err(bad)?;
    let mut out = Vec::new();
    for s in table.iter() {
        let name = table.section_name(endian, s).unwrap_or(b"").to_vec();
        let flags = s.sh_flags(endian).0;
        out.push(Section {
            name,
            file: s.file_range(endian),
            address: s.sh_addr(endian).into(),
            size: s.sh_size(endian).into(),
            compressed: flags & elf::SHF_COMPRESSED.0 != 0,
        });
    }
    let e = if endian == Endianness::Little { Endian::Little } else { Endian::Big };
    Ok((out, e))
}

/// Reads the data records and names of the binary that produced the correlated
/// raw profile `raw`.
pub fn from_elf(elf_data: &[u8], raw: &[u8]) -> Result<Correlation> {
    let (bits, ident_ok) = match elf_data.get(..5) {
        Some([0x7f, b'E', b'L', b'F', 1]) => (32u8, true),
        Some([0x7f, b'E', b'L', b'F', 2]) => (64u8, true),
        _ => (0, false),
    };
    if !ident_ok {
        return Err(Error::malformed(0, "expected an ELF binary to correlate the raw profile with"));
    }
    let (sections, endian) = if bits == 64 {
        sections_of::<elf::FileHeader64<Endianness>>(elf_data)?
    } else {
        sections_of::<elf::FileHeader32<Endianness>>(elf_data)?
    };
    let find = |name: &[u8]| sections.iter().find(|s| s.name == name);
    let Some(counters) = find(b"__llvm_prf_cnts") else {
        return Err(Error::malformed(0, "the binary has no __llvm_prf_cnts section"));
    };

    // The record layout follows the raw profile's version.
    let Some((raw_endian, raw_bits)) = magic_of(raw) else {
        return Err(Error::malformed(0, "expected the raw instrprof magic"));
    };
    if raw_bits != bits || raw_endian != endian {
        return Err(Error::malformed(0, "the binary's class or byte order differs from the raw profile's"));
    }
    let mut r = Reader::new(raw, raw_endian);
    r.skip(8, "Magic")?;
    let version_at = r.offset();
    let word = r.u64("Version")?;
    let version = word & 0xffff_ffff;
    let Some(fields) = header_fields(version) else {
        return Err(Error::invalid(version_at, "raw profile version 5, 7, 8, 9, 10 or 11", version));
    };
    let mut kind_last = 0;
    for &name in fields {
        let v = r.u64(name)?;
        if name == "ValueKindLast" {
            kind_last = v;
        }
    }
    if word & flags::DEBUG_CORRELATE != 0 {
        let counter_width = if word & flags::BYTE_COVERAGE != 0 { 1 } else { 8 };
        return dwarf::correlate(elf_data, &sections, endian, counters, counter_width);
    }

    // Binary correlation moves the records and names into the non-allocated
    // `__llvm_covdata` / `__llvm_covnames` sections; older binaries kept them in
    // `__llvm_prf_data` / `__llvm_prf_names`.
    let with_contents = |s: &&Section| s.file.is_some_and(|(_, size)| size > 0);
    let data = find(b"__llvm_covdata").filter(with_contents).or_else(|| find(b"__llvm_prf_data").filter(with_contents));
    let Some(data) = data else {
        return Err(Error::malformed(0, "the binary has no __llvm_covdata or __llvm_prf_data section"));
    };
    let layout = RecordLayout::new(version, bits, kind_last);

    let file = Reader::new(elf_data, endian);
    let (offset, size) = data.file.unwrap_or((0, 0));
    let mut records_reader = file.sub_at(offset, size, "__llvm_prf_data contents")?;
    let mut out = Correlation::default();
    let mut seen = BTreeSet::new();
    let mask = if bits == 32 { 0xffff_ffff } else { u64::MAX };
    while records_reader.remaining() as u64 >= layout.size {
        let mut record = read_record(&mut records_reader, &layout, kind_last.saturating_add(1))?;
        record.counter_ptr = record.counter_ptr.wrapping_sub(counters.address) & mask;
        if seen.insert(record.counter_ptr) {
            out.records.push(record);
        }
    }
    let names = find(b"__llvm_covnames").filter(with_contents).or_else(|| find(b"__llvm_prf_names"));
    if let Some((offset, size)) = names.and_then(|s| s.file) {
        read_names(file.sub_at(offset, size, "__llvm_prf_names contents")?, &mut out.names)?;
    }
    Ok(out)
}
