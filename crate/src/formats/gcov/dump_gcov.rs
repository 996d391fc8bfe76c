//! The [`Profile`] model as autofdo's `dump_gcov` prints it.

use alloc::vec::Vec;

use crate::formats::sample::model::Profile;

/// Appends `dump_gcov`'s text for the profile to `out`.
pub fn write(_profile: &Profile, _out: &mut Vec<u8>) {}
