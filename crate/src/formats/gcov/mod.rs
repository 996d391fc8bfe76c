//! GCC AutoFDO profiles: the "gcov" formats v1–v3 written by `create_gcov` (LLVM calls
//! them GCC sample profiles), and the proposed version 4 (binary and text).
//!
//! Layout notes: `shared/formats/llvm-sample-profiles.md` (v1–v3),
//! `shared/formats/autofdo-gcov-v4.md` and `shared/seeds/` (v4).

pub mod afdo;
pub mod decode_afdo;
pub mod decode_v4;
pub mod dump_gcov;
pub mod v4;
pub mod v4_layout;
pub mod v4_trie;
pub mod v4text;
pub mod write_afdo;
pub mod write_v4;

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

/// Decodes an AutoFDO profile (v1–v3, or v4 binary or text) into the sample-profile model.
pub fn decode(data: &[u8], detection: &Detection) -> Result<crate::formats::sample::model::Profile> {
    match detection.format {
        Format::GcovV4 => decode_v4::decode(data),
        Format::GcovV4Text => decode_v4::decode_text(data),
        _ => decode_afdo::decode(data),
    }
}
