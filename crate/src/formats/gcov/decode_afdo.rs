//! GCC AutoFDO v1–v3 into the sample-profile [`Profile`] model.

use crate::error::{Error, Result};
use crate::formats::sample::model::Profile;

/// Decodes a GCC AutoFDO (`.afdo`) file.
pub fn decode(_data: &[u8]) -> Result<Profile> {
    Err(Error::malformed(0, "AutoFDO decoding is not written yet"))
}
