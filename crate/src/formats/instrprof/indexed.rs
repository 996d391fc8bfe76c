//! Indexed instrumentation profiles (`.profdata`), as written by `llvm-profdata merge`.
//! Always little-endian.

use crate::detect::{Detection, Format};
use crate::dump::Node;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// `\xfflprofi\x81` as a little-endian u64.
pub const MAGIC: u64 = 0x8169_666f_7270_6cff;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    if !data.starts_with(&MAGIC.to_le_bytes()) {
        return Ok(None);
    }
    let mut r = Reader::new(data, Endian::Little);
    r.skip(8, "magic")?;
    let version = r.u64("Version")?;
    let detection = Detection::new(Format::InstrProfIndexed).endian(Endian::Little);
    Ok(Some(super::flags::describe(detection, version)))
}

pub fn dump(_data: &[u8], _detection: &Detection) -> Result<Node> {
    Err(Error::malformed(0, "indexed instrprof dump not implemented"))
}
