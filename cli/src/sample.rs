//! The sample-profile commands: any LLVM sample profile, GCC AutoFDO or GCOV v4 file
//! re-written as LLVM text (`llvm-profdata merge --sample --text`), as autofdo's
//! `dump_gcov` prints it, as GCC AutoFDO v3 (what `create_gcov` writes), or as GCOV
//! v4 (binary, compact, text).

use pgolens::formats::gcov::{dump_gcov, write_afdo, write_v4};
use pgolens::formats::sample::write_text;

use crate::bolt::emit;
use crate::map;

/// The `--to` targets this module writes.
pub const TARGETS: &[&str] = &["sampletext", "dump-gcov", "afdo", "gcov4", "gcov4-compact", "gcov4-text"];

/// `export FILE --to sampletext|dump-gcov|afdo|gcov4|gcov4-compact|gcov4-text [-o OUT]`.
pub fn export(path: &str, to: &str, output: Option<&str>) -> Result<(), String> {
    let bytes = map(path)?;
    let input = pgolens::open(&bytes).map_err(|e| format!("{path}: {e}"))?;
    let profile = pgolens::detect::decode_sample_profile(&input.data).map_err(|e| format!("{path}: {e}"))?;
    let mut out = Vec::new();
    let v4 = |encoding| {
        let summary = pgolens::model::sample::summary(&profile);
        let mut out = Vec::new();
        write_v4::write(&profile, &summary, encoding, &mut out);
        out
    };
    match to {
        "sampletext" => write_text::write(&profile, &mut out),
        "dump-gcov" => dump_gcov::write(&profile, &mut out),
        "afdo" => write_afdo::write(&profile, &mut out),
        "gcov4" => out = v4(write_v4::Encoding::Binary),
        "gcov4-compact" => out = v4(write_v4::Encoding::Compact),
        "gcov4-text" => out = v4(write_v4::Encoding::Text),
        _ => return Err(format!("not a sample-profile target: {to}")),
    }
    emit(output, &out)
}
