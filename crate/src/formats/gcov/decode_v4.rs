//! AutoFDO GCOV v4, binary (normal and compact) and text, into the sample-profile
//! [`Profile`] model.

use crate::error::{Error, Result};
use crate::formats::sample::model::Profile;

/// Decodes a GCOV v4 binary file (normal or compact).
pub fn decode(_data: &[u8]) -> Result<Profile> {
    Err(Error::malformed(0, "GCOV v4 decoding is not written yet"))
}

/// Decodes a GCOV v4 text file.
pub fn decode_text(_data: &[u8]) -> Result<Profile> {
    Err(Error::at_line(1, 1, "GCOV v4 text decoding is not written yet"))
}
