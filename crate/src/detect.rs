//! Format detection from content (never from a file name).
//!
//! Each format module owns its `sniff`; this module fixes the order they are tried in.

use crate::error::{Error, ErrorKind, Location, Result};
use crate::format::Detection;
use crate::formats;

/// Detects the format of `data` (already decompressed; see [`crate::open`]).
pub fn detect(data: &[u8]) -> Result<Detection> {
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
