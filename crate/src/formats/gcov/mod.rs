//! GCC AutoFDO profiles: the "gcov" formats v1–v3 written by `create_gcov` (LLVM calls
//! them GCC sample profiles), and the proposed version 4 (binary and text).
//!
//! Layout notes: `shared/formats/llvm-sample-profiles.md` (v1–v3),
//! `shared/formats/autofdo-gcov-v4.md` and `shared/seeds/` (v4).

pub mod afdo;
pub mod v4;
pub mod v4text;

use crate::dump::Node;
use crate::error::Result;
use crate::format::{Detection, Format};

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    if let Some(d) = v4::sniff(data)? {
        return Ok(Some(d));
    }
    afdo::sniff(data)
}

pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    match detection.format {
        Format::GcovV4 => v4::dump(data, detection),
        _ => afdo::dump(data, detection),
    }
}
