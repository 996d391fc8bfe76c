//! AutoFDO GCOV v4 (the 2026 proposal), binary form: big-endian, "gcov" magic,
//! version 4, a section table.

use crate::detect::{Detection, Format};
use crate::dump::Node;
use crate::error::{Error, Result};
use crate::read::Endian;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    if !data.starts_with(b"gcov") {
        return Ok(None);
    }
    match data.get(4..8) {
        None => Err(Error::eof(4, "GCOV_VERSION")),
        Some([0, 0, 0, 4]) => {
            let mut d = Detection::new(Format::GcovV4).version(4).endian(Endian::Big);
            if data.get(8).is_some_and(|b| b & 0x80 != 0) {
                d = d.flag("compact");
            }
            Ok(Some(d))
        }
        Some(_) => Ok(None),
    }
}

pub fn dump(_data: &[u8], _detection: &Detection) -> Result<Node> {
    Err(Error::malformed(0, "GCOV v4 dump not implemented"))
}
