//! Debug-info correlation against malformed binaries: `dbgcorr-progB.elf` from the
//! corpus with its DWARF truncated, overwritten or bit-flipped, annotations renamed,
//! counter addresses moved out of `__llvm_prf_cnts` and Num Counters made absurd.
//! Every case is an error whose offset lies in the binary, never a panic.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::panic,
    clippy::cast_possible_truncation
)]

use std::path::{Path, PathBuf};

use pgolens::formats::instrprof::decode;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus/llvm/dbgcorr-progB")
}

fn inputs() -> (Vec<u8>, Vec<u8>) {
    let raw = std::fs::read(dir().join("dbgcorr-progB.profraw")).unwrap();
    let elf = std::fs::read(dir().join("dbgcorr-progB.elf")).unwrap();
    (raw, elf)
}

fn u16_at(b: &[u8], at: usize) -> usize {
    u16::from_le_bytes(b[at..at + 2].try_into().unwrap()) as usize
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// The offset of the ELF64 section header named `name`.
fn section_header(elf: &[u8], name: &str) -> usize {
    let (shoff, shentsize, shnum, shstrndx) =
        (u64_at(elf, 0x28) as usize, u16_at(elf, 0x3a), u16_at(elf, 0x3c), u16_at(elf, 0x3e));
    let strtab = u64_at(elf, shoff + shstrndx * shentsize + 24) as usize;
    (0..shnum)
        .map(|i| shoff + i * shentsize)
        .find(|&h| {
            let at = strtab + u32::from_le_bytes(elf[h..h + 4].try_into().unwrap()) as usize;
            elf[at..].starts_with(name.as_bytes()) && elf[at + name.len()] == 0
        })
        .unwrap()
}

/// `(sh_offset, sh_size)` of a section.
fn section(elf: &[u8], name: &str) -> (usize, usize) {
    let h = section_header(elf, name);
    (u64_at(elf, h + 24) as usize, u64_at(elf, h + 32) as usize)
}

fn set_u64(b: &mut [u8], at: usize, v: u64) {
    b[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

/// Decodes and expects an error inside the binary whose message contains `needle`.
fn expect_error(raw: &[u8], elf: &[u8], needle: &str) -> u64 {
    let err = decode(raw, Some(elf)).unwrap_err();
    let offset = err.offset().unwrap();
    assert!(offset < elf.len() as u64, "{err}");
    assert!(err.to_string().contains(needle), "expected {needle:?} in: {err}");
    offset
}

#[test]
fn the_corpus_binary_correlates() {
    let (raw, elf) = inputs();
    let profile = decode(&raw, Some(&elf)).unwrap();
    let main = profile.functions.iter().find(|f| f.name == b"main").unwrap();
    assert_eq!(main.hash, 421769325923021730);
    assert_eq!(main.counters.len(), 12);
}

#[test]
fn missing_or_truncated_debug_info() {
    let (raw, elf) = inputs();
    let h = section_header(&elf, ".debug_info");
    let (at, size) = section(&elf, ".debug_info");

    // No .debug_info at all (size 0).
    let mut e = elf.clone();
    set_u64(&mut e, h + 32, 0);
    expect_error(&raw, &e, "no .debug_info");

    // The section cut short: the first unit's length runs past its end.
    for cut in [1, 4, 11, size / 2, size - 1] {
        let mut e = elf.clone();
        set_u64(&mut e, h + 32, cut as u64);
        let offset = expect_error(&raw, &e, "binary's .debug_info");
        assert!((at as u64..(at + size) as u64).contains(&offset), "cut {cut}: {offset:#x}");
    }

    // The section extends past the end of the file.
    let mut e = elf.clone();
    set_u64(&mut e, h + 32, u64::MAX / 2);
    expect_error(&raw, &e, "DWARF section inside the binary");

    // The whole file truncated inside .debug_info.
    expect_error(&raw, &elf[..at + size / 2], "");
}

#[test]
fn garbage_debug_info() {
    let (raw, elf) = inputs();
    let (at, size) = section(&elf, ".debug_info");
    // 0xff everywhere after the first unit's header: abbreviation codes that do not exist.
    let mut e = elf.clone();
    e[at + 12..at + size].fill(0xff);
    let offset = expect_error(&raw, &e, "binary's .debug_info");
    assert_eq!(offset, at as u64, "the unit whose DIEs cannot be read");
    // Zeros: every unit length 0, then nothing that looks like a unit.
    let mut e = elf.clone();
    e[at..at + size].fill(0);
    expect_error(&raw, &e, "binary's");
}

#[test]
fn annotations_missing() {
    let (raw, elf) = inputs();
    let (str_at, str_size) = section(&elf, ".debug_str");
    for name in ["Function Name", "CFG Hash", "Num Counters"] {
        let mut e = elf.clone();
        let strings = &e[str_at..str_at + str_size];
        let i = strings.windows(name.len()).position(|w| w == name.as_bytes()).unwrap();
        e[str_at + i] = b'X';
        let offset = expect_error(&raw, &e, "without its Function Name, CFG Hash and Num Counters annotations");
        let (info_at, info_size) = section(&elf, ".debug_info");
        assert!((info_at as u64..(info_at + info_size) as u64).contains(&offset), "{name}: {offset:#x}");
    }
}

#[test]
fn counter_addresses_outside_the_counters_section() {
    let (raw, elf) = inputs();
    let h = section_header(&elf, "__llvm_prf_cnts");
    let address = u64_at(&elf, h + 16);
    for moved in [address + 0x1000, address.wrapping_sub(0x1000), 0, u64::MAX] {
        let mut e = elf.clone();
        set_u64(&mut e, h + 16, moved);
        expect_error(&raw, &e, "variable address (in the binary's DWARF) inside __llvm_prf_cnts");
    }
}

#[test]
fn absurd_num_counters() {
    let (raw, elf) = inputs();
    let (info_at, _) = section(&elf, ".debug_info");
    // main's "Num Counters" annotation (DIE 0x1e8): abbreviation code, DW_FORM_strx1
    // name, DW_FORM_udata value 12.
    let value_at = info_at + 0x1e8 + 2;
    assert_eq!(elf[value_at], 12);
    for n in [0u8, 0x7f] {
        let mut e = elf.clone();
        e[value_at] = n;
        let offset = expect_error(&raw, &e, "Num Counters annotation (in the binary's DWARF) of at least 1");
        assert_eq!(offset, (info_at + 0x1e8) as u64);
    }
    // A counters section too small for the counters the annotations claim.
    let h = section_header(&elf, "__llvm_prf_cnts");
    let mut e = elf.clone();
    set_u64(&mut e, h + 32, 8);
    expect_error(&raw, &e, "binary's DWARF");
}

#[test]
fn bit_flips_in_the_dwarf_sections_never_panic() {
    let (raw, mut elf) = inputs();
    for name in [".debug_info", ".debug_abbrev", ".debug_addr", ".debug_str_offsets"] {
        let (at, size) = section(&elf, name);
        for i in at..at + size {
            // Low bit on even bytes, every bit on odd ones; restored after each decode.
            let mask = if i % 2 == 0 { 0x01 } else { 0xff };
            elf[i] ^= mask;
            if let Err(err) = decode(&raw, Some(&elf)) {
                let offset = err.offset().unwrap();
                assert!(offset <= elf.len().max(raw.len()) as u64, "{name} +{:#x}: {err}", i - at);
            }
            elf[i] ^= mask;
        }
    }
}
