//! Format detection from content (never from a file name).
//!
//! Each format module owns its `sniff`; this module fixes the order they are tried in.

use crate::error::{Error, ErrorKind, Location, Result};
use crate::format::Detection;
use crate::formats;

/// Detects the format of `data` (already decompressed; see [`crate::open`]).
pub fn detect(data: &[u8]) -> Result<Detection> {
    if data.is_empty() {
        return Err(Error::eof(0, "a profile (the file is empty)"));
    }
    let binary = [
        formats::perf::sniff,
        formats::instrprof::sniff,
        formats::sample::sniff,
        formats::gcov::sniff,
        formats::elf::sniff,
    ];
    for sniff in binary {
        if let Some(detection) = sniff(data)? {
            return Ok(detection);
        }
    }
    if let Some(detection) = formats::text::sniff(data) {
        return Ok(detection);
    }
    Err(Error { location: Location::Offset(0), kind: ErrorKind::UnknownFormat })
}

/// Decodes any sample profile — LLVM text, raw binary, extbinary, GCC AutoFDO v1–v3,
/// GCOV v4 binary or text — into the one sample-profile model.
pub fn decode_sample_profile(data: &[u8]) -> Result<formats::sample::model::Profile> {
    use crate::format::Format;
    let detection = detect(data)?;
    match detection.format {
        Format::SampleText | Format::SampleBinary | Format::SampleExtBinary => {
            formats::sample::decode(data, &detection)
        }
        Format::GcovAfdo | Format::GcovV4 | Format::GcovV4Text => formats::gcov::decode(data, &detection),
        _ => Err(Error::malformed(0, "not a sample profile (LLVM sample, GCC AutoFDO or GCOV v4)")),
    }
}
