//! Raw MemProf profiles (`.memprofraw`), as written by the MemProf runtime.

use crate::detect::{Detection, Format};
use crate::dump::Node;
use crate::error::{Error, Result};
use crate::read::{Endian, Reader};

/// `\xffmprofr\x81` as a u64 in the producer's byte order.
pub const MAGIC: u64 = 0xff6d_7072_6f66_7281;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    let endian = if data.starts_with(&MAGIC.to_le_bytes()) {
        Endian::Little
    } else if data.starts_with(&MAGIC.to_be_bytes()) {
        Endian::Big
    } else {
        return Ok(None);
    };
    let mut r = Reader::new(data, endian);
    r.skip(8, "magic")?;
    let version = r.u64("Version")?;
    Ok(Some(Detection::new(Format::MemProfRaw).version(version).word_size(64).endian(endian)))
}

pub fn dump(_data: &[u8], _detection: &Detection) -> Result<Node> {
    Err(Error::malformed(0, "raw MemProf dump not implemented"))
}
