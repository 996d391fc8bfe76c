//! LLVM instrumentation profiles: raw (`.profraw`, versions 5–11), indexed
//! (`.profdata`, versions 1–13), the text form (`.proftext`) and raw MemProf.
//!
//! Layout notes: `shared/formats/llvm-instrprof-raw.md`, `llvm-instrprof-indexed.md`.

pub mod flags;
pub mod indexed;
pub mod memprof;
pub mod raw;
pub mod text;

use crate::detect::{Detection, Format};
use crate::dump::Node;
use crate::error::Result;

pub fn sniff(data: &[u8]) -> Result<Option<Detection>> {
    if let Some(d) = raw::sniff(data)? {
        return Ok(Some(d));
    }
    if let Some(d) = indexed::sniff(data)? {
        return Ok(Some(d));
    }
    memprof::sniff(data)
}

pub fn dump(data: &[u8], detection: &Detection) -> Result<Node> {
    match detection.format {
        Format::InstrProfRaw => raw::dump(data, detection),
        Format::InstrProfIndexed => indexed::dump(data, detection),
        _ => memprof::dump(data, detection),
    }
}
