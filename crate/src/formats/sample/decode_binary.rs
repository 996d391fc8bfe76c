//! LLVM sample-profile raw binary and extbinary into the [`Profile`] model.

use crate::error::{Error, Result};
use crate::formats::sample::model::Profile;

/// Decodes a raw binary or extbinary sample profile.
pub fn decode(_data: &[u8]) -> Result<Profile> {
    Err(Error::malformed(0, "binary sample-profile decoding is not written yet"))
}
