//! The sample-profile [`Profile`] model as AutoFDO GCOV v4: binary (normal or
//! compact) and text.

use alloc::vec::Vec;

use crate::formats::sample::model::Profile;
use crate::summary::Summary;

/// How to encode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Binary,
    Compact,
    Text,
}

/// Appends the profile in `encoding` to `out`. `summary` is the profile's summary
/// as `llvm-profdata show --detailed-summary` computes it.
pub fn write(_profile: &Profile, _summary: &Summary, _encoding: Encoding, _out: &mut Vec<u8>) {}
