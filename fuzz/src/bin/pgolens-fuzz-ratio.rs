//! `pgolens-fuzz-ratio TARGET DIR...`: runs a target over every file of the
//! directories (a campaign's grown corpus) under the counting allocator and prints
//! the most bytes a run had live, and the worst ratio of that peak to the input's
//! size (inputs under 64 KiB count as 64 KiB: below that the fixed second files and
//! the views' tables dominate).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::process::ExitCode;
use std::time::Instant;

use pgolens_fuzz::alloc::{self, Counting};
use pgolens_fuzz::{MAX_INPUT, TARGETS};

#[global_allocator]
static ALLOCATOR: Counting = Counting::new();

const RATIO_FLOOR: usize = 64 << 10;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((name, dirs)) = args.split_first() else {
        eprintln!("usage: pgolens-fuzz-ratio TARGET DIR...");
        return ExitCode::FAILURE;
    };
    let Some(target) = TARGETS.iter().find(|t| t.name == name) else {
        eprintln!("pgolens-fuzz-ratio: no target {name}");
        return ExitCode::FAILURE;
    };
    std::panic::set_hook(Box::new(|_| {}));
    let started = Instant::now();
    let (mut runs, mut panics) = (0usize, 0usize);
    let mut peak = (0usize, String::new());
    let mut ratio = (0f64, String::new());
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else {
            eprintln!("pgolens-fuzz-ratio: cannot read {dir}");
            return ExitCode::FAILURE;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(input) = std::fs::read(&path) else { continue };
            if input.len() > MAX_INPUT {
                continue;
            }
            let base = alloc::mark();
            if catch_unwind(AssertUnwindSafe(|| (target.run)(&input))).is_err() {
                panics += 1;
            }
            let bytes = alloc::peak_since(base);
            runs += 1;
            let what = format!("{} ({} bytes)", path.display(), input.len());
            if bytes > peak.0 {
                peak = (bytes, what.clone());
            }
            let r = bytes as f64 / input.len().max(RATIO_FLOOR) as f64;
            if r > ratio.0 {
                ratio = (r, what);
            }
        }
    }
    println!(
        "{name}: {runs} inputs in {:.1?}, {panics} panics; peak {} KiB ({}); worst ratio {:.1}x ({})",
        started.elapsed(),
        peak.0 >> 10,
        peak.1,
        ratio.0,
        ratio.1
    );
    if panics > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
