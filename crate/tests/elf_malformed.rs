//! A damaged ELF's dump fails with an error located in the file: header fields
//! that place tables past the end are reported at the field, not at the offset
//! they hold (which is not one of the file's).

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects, clippy::panic)]

mod common;

use common::read;

const ELF: &str = "llvm/bincorr-progB/bincorr-progB.elf";

fn dump(data: &[u8]) -> Result<pgolens::Node, pgolens::Error> {
    let detection = pgolens::detect(data)?;
    pgolens::dump(data, &detection)
}

#[test]
fn tables_placed_past_the_end_are_reported_at_their_header_field() {
    let elf = read(ELF);
    let mut bad = elf.clone();
    // e_phoff of a 64-bit ELF is at 0x20, e_shoff at 0x28 (System V ABI, ELF header).
    bad[0x20..0x28].copy_from_slice(&0x00ff_ffff_ffff_ffffu64.to_le_bytes());
    assert_eq!(
        dump(&bad).unwrap_err().to_string(),
        "expected an e_phoff that places the program headers inside the file, found 0xffffffffffffff (at offset 0x20)"
    );
    let mut bad = elf.clone();
    bad[0x28..0x30].copy_from_slice(&u64::MAX.to_le_bytes());
    let error = pgolens::detect(&bad).and_then(|d| pgolens::dump(&bad, &d)).unwrap_err();
    assert!(error.offset().is_some_and(|o| o < bad.len() as u64), "{error}");
}

#[test]
fn every_header_field_set_to_all_ones_fails_inside_the_file_or_dumps() {
    let elf = read(ELF);
    for at in 0..64 {
        let mut bad = elf.clone();
        bad[at] = 0xff;
        if let Err(e) = dump(&bad) {
            assert!(e.offset().is_none_or(|o| o < bad.len() as u64), "byte {at}: {e}");
        }
    }
    for cut in (0..elf.len().min(8192)).step_by(61) {
        if let Err(e) = dump(&elf[..cut]) {
            assert!(e.offset().is_none_or(|o| o <= cut as u64), "cut at {cut}: {e}");
        }
    }
}
