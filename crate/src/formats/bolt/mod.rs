//! BOLT profiles: fdata (perf2bolt's output, llvm-bolt's `-data` input), the
//! pre-aggregated input of `perf2bolt --pa`, YAML profiles, and BOLT Address
//! Translation tables (the `.note.bolt_bat` note of a BOLTed ELF, see [`bat`]).
//!
//! Layout notes: `shared/formats/bolt-profiles.md`.

pub mod bat;
pub mod fdata;
pub mod preagg;
mod text;
pub mod yaml;
