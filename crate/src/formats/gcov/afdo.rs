//! AutoFDO gcov v1–v3: 32-bit words in the producer's byte order, starting with the
//! "gcda" magic word, a version word and a zero word.

use crate::detect::{Detection, Format};
use crate::dump::Node;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// "gcda" as a word; little-endian producers write `adcg`.
pub const MAGIC: u32 = 0x6763_6461;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let endian = match data.get(..4) {
        Some(b"adcg") => Endian::Little,
        Some(b"gcda") => Endian::Big,
        _ => return Ok(None),
    };
    let mut r = Reader::new(data, endian);
    r.skip(4, "magic")?;
    let version = r.u32("version word")?;
    Ok(Some(Detection::new(Format::GcovAfdo).version(u64::from(version)).endian(endian)))
}

pub fn dump(_data: &[u8], _detection: &Detection) -> Result<Node> {
    Err(Error::malformed(0, "AutoFDO gcov dump not implemented"))
}
