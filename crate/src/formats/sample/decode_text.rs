//! LLVM sample-profile text into the [`Profile`] model.

use crate::error::{Error, Result};
use crate::formats::sample::model::Profile;

/// Decodes an LLVM sample-profile text file.
pub fn decode(_data: &[u8]) -> Result<Profile> {
    Err(Error::at_line(1, 1, "sample-profile text decoding is not written yet"))
}
