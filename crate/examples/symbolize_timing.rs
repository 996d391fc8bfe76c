//! How long symbolization takes on a large binary:
//! `cargo run --release -p pgolens --example symbolize_timing -- BINARY`.
//!
//! Parses the ELF, loads its DWARF, then looks up an address in every 16th
//! function (symbol, then inline frames) twice: the second pass runs on the units
//! addr2line has parsed and kept.

use std::time::Instant;

use pgolens::symbolize::Binary;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: symbolize_timing BINARY");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let start = Instant::now();
    let binary = match Binary::parse(&bytes) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let parsed = start.elapsed();
    let start = Instant::now();
    let has_dwarf = binary.load_dwarf();
    let dwarf = start.elapsed();
    let probes: Vec<u64> = binary
        .symbols()
        .step_by(16)
        .map(|(_, start, end)| start.saturating_add(end.saturating_sub(start) / 2))
        .collect();
    let start = Instant::now();
    let named = probes.iter().filter(|&&a| binary.symbol_for(a).is_some()).count();
    let symbols = start.elapsed();
    let mut times = Vec::new();
    let mut frames = 0;
    for _ in 0..2 {
        let start = Instant::now();
        frames = probes.iter().map(|&a| binary.frames(a).len()).sum::<usize>();
        times.push(start.elapsed());
    }
    println!(
        "{path}: {} MB, {} symbols; parse {parsed:?}; DWARF {has_dwarf:?} context {dwarf:?}; \
         {} symbol lookups {symbols:?} ({named} named); frames {frames} in {:?}, again {:?}",
        bytes.len() >> 20,
        binary.symbol_count(),
        probes.len(),
        times.first().copied().unwrap_or_default(),
        times.get(1).copied().unwrap_or_default(),
    );
}
