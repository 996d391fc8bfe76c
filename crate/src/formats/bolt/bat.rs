//! BOLT Address Translation: the `.note.bolt_bat` ELF note of a BOLTed binary.
//!
//! The note header is always little-endian (BOLT reads it that way whatever the
//! target): `namesz u32, descsz u32, type u32 (1 = NT_BOLT_BAT)`, the name ("BOLT"),
//! padded to 4, then the descriptor holding the translation tables.

use alloc::vec::Vec;

use crate::dump::{Fields, Node};
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

pub const NT_BOLT_BAT: u32 = 1;

/// The note's header fields, name and descriptor, as nodes of the section.
pub fn dump_note(data: &[u8], offset: u64, size: u64) -> Result<Vec<Node>> {
    let mut r = Reader::new(data, Endian::Little).sub_at(offset, size, ".note.bolt_bat")?;
    let mut f = Fields::new(&mut r);
    let namesz = f.u32("namesz")?;
    let descsz = f.u32("descsz")?;
    let note_type = f.u32("type")?;
    if note_type != NT_BOLT_BAT {
        return Err(Error::invalid(offset.saturating_add(8), "note type NT_BOLT_BAT (1)", u64::from(note_type)));
    }
    let name = f.bytes(u64::from(namesz), "name")?;
    if !name.starts_with(b"BOLT") {
        return Err(Error::malformed(offset.saturating_add(12), "expected note name BOLT"));
    }
    // The descriptor starts at align4(12 + namesz) from the note's start.
    let padding = namesz.wrapping_neg() & 3;
    if padding > 0 {
        f.bytes(u64::from(padding), "name padding")?;
    }
    f.bytes(u64::from(descsz), "BAT tables")?;
    Ok(f.into_nodes())
}
