//! LLVM instrumentation profiles: raw (`.profraw`, versions 5–11), indexed
//! (`.profdata`, versions 1–13), the text form (`.proftext`) and raw MemProf.
//!
//! Layout notes: `shared/formats/llvm-instrprof-raw.md`, `llvm-instrprof-indexed.md`.

pub mod correlate;
pub mod decode_indexed;
pub mod decode_memprof;
pub mod decode_raw;
pub mod decode_text;
pub mod flags;
pub mod indexed;
pub mod md5;
pub mod memprof;
pub mod memprof_model;
pub mod model;
pub mod proftext;
pub mod raw;
pub mod raw_layout;
pub mod text;
mod value_data;

use crate::dump::Node;
use crate::error::{Error, Result};
use crate::format::{Detection, Format};

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

/// Decodes a raw, indexed or text profile into the model. `binary` is the instrumented
/// ELF, needed (and only used) for correlated raw profiles.
pub fn decode(data: &[u8], binary: Option<&[u8]>) -> Result<model::Profile> {
    if raw_layout::magic_of(data).is_some() {
        let correlation = match binary {
            Some(elf) => Some(correlate::from_elf(elf, data)?),
            None => None,
        };
        return decode_raw::decode(data, correlation.as_ref());
    }
    if data.starts_with(&indexed::MAGIC.to_le_bytes()) {
        return decode_indexed::decode(data);
    }
    if matches!(crate::formats::text::sniff(data).map(|d| d.format), Some(Format::InstrProfText)) {
        return decode_text::decode(data);
    }
    Err(Error::malformed(0, "expected a raw, indexed or text instrprof profile"))
}
