//! GCC AutoFDO v1–v3 into the sample-profile [`Profile`] model, read the way LLVM's
//! `SampleProfileReaderGCC` reads it (the walk itself is [`super::afdo`], shared with
//! the dump).

use crate::error::Result;
use crate::formats::sample::model::Profile;

/// Decodes a GCC AutoFDO (`.afdo`) file.
pub fn decode(data: &[u8]) -> Result<Profile> {
    super::afdo::decode(data).map(|decoded| decoded.profile)
}
