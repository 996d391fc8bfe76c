//! The sample-profile commands: any LLVM sample profile, GCC AutoFDO or GCOV v4 file
//! re-written as LLVM text (`llvm-profdata merge --sample --text`), as autofdo's
//! `dump_gcov` prints it, as GCC AutoFDO v3 (what `create_gcov` writes), or as GCOV
//! v4 (binary, compact, text).

use std::fs::File;
use std::io::{self, Write};

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
    let profile = pgolens::detect::decode_sample_profile(&input.data).map_err(|e| crate::failed(path, &input, e))?;
    let mut out = Vec::new();
    let v4 = |encoding| {
        let summary = pgolens::model::sample::summary(&profile);
        let mut out = Vec::new();
        write_v4::write(&profile, &summary, encoding, &mut out);
        out
    };
    let written = match to {
        // Streamed: the text of a large profile is several times the binary's size.
        "sampletext" => write_streamed(output, |sink| write_text::write_chunks(&profile, 1 << 20, sink)),
        "dump-gcov" => {
            dump_gcov::write(&profile, &mut out);
            emit(output, &out)
        }
        "afdo" => {
            write_afdo::write(&profile, &mut out);
            emit(output, &out)
        }
        "gcov4" => emit(output, &v4(write_v4::Encoding::Binary)),
        "gcov4-compact" => emit(output, &v4(write_v4::Encoding::Compact)),
        "gcov4-text" => emit(output, &v4(write_v4::Encoding::Text)),
        _ => Err(format!("not a sample-profile target: {to}")),
    };
    // The process ends right after: freeing a model of millions of small allocations
    // one by one would cost a tenth of the export, and the OS takes the pages back.
    std::mem::forget(profile);
    written
}

/// Hands `write` a sink to `output` (a file) or stdout; a closed stdout (`| head`)
/// ends the output quietly.
fn write_streamed(
    output: Option<&str>,
    write: impl FnOnce(&mut dyn FnMut(&[u8]) -> io::Result<()>) -> io::Result<()>,
) -> Result<(), String> {
    let mut target: Box<dyn Write> = match output {
        Some(path) => Box::new(File::create(path).map_err(|e| format!("{path}: {e}"))?),
        None => Box::new(io::stdout().lock()),
    };
    crate::written(write(&mut |bytes| target.write_all(bytes)).and_then(|()| target.flush()))
}
