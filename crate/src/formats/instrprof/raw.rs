//! Raw instrumentation profiles (`.profraw`), as written by compiler-rt.
//!
//! The magic is a u64 in the producer's byte order; `r` vs `R` in it tells 64-bit from
//! 32-bit pointers.

use crate::detect::{Detection, Format};
use crate::dump::Node;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// `\xfflprofr\x81` as a u64; `\xfflprofR\x81` for 32-bit producers.
pub const MAGIC_64: u64 = 0xff6c_7072_6f66_7281;
pub const MAGIC_32: u64 = 0xff6c_7072_6f66_5281;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let Some(head) = data.get(..8) else { return Ok(None) };
    let mut magic = [0u8; 8];
    magic.copy_from_slice(head);
    let (le, be) = (u64::from_le_bytes(magic), u64::from_be_bytes(magic));
    let (endian, bits) = match (le, be) {
        (MAGIC_64, _) => (Endian::Little, 64),
        (_, MAGIC_64) => (Endian::Big, 64),
        (MAGIC_32, _) => (Endian::Little, 32),
        (_, MAGIC_32) => (Endian::Big, 32),
        _ => return Ok(None),
    };
    let mut r = Reader::new(data, endian);
    r.skip(8, "magic")?;
    let version = r.u64("Version")?;
    let detection = Detection::new(Format::InstrProfRaw).word_size(bits).endian(endian);
    Ok(Some(super::flags::describe(detection, version)))
}

pub fn dump(_data: &[u8], _detection: &Detection) -> Result<Node> {
    Err(Error::malformed(0, "raw instrprof dump not implemented"))
}
