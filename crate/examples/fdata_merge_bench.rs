//! merge-fdata's fdata merge on one thread, the inputs read into memory first, the
//! best and median of RUNS, so that a change to the merger can be timed (or its
//! instructions counted under `valgrind --tool=cachegrind --cache-sim=no`) without
//! the files' mapping and the threads in the way.
//!
//! `cargo run --release -p pgolens --example fdata_merge_bench -- RUNS FILE.fdata...`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // a bench binary

use pgolens::formats::bolt::fdata::{self, Merger};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let runs: usize = args.first().and_then(|r| r.parse().ok()).expect("usage: fdata_merge_bench RUNS FILE...");
    let files: Vec<Vec<u8>> = args[1..].iter().map(|p| std::fs::read(p).expect("readable input")).collect();
    let bytes: usize = files.iter().map(Vec::len).sum();
    let mut times = Vec::new();
    let mut records = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let mut merger = Merger::new();
        for (i, f) in files.iter().enumerate() {
            merger.add(i, f).expect("inputs decode");
        }
        let merged = merger.finish().expect("inputs merge");
        times.push(start.elapsed());
        records = merged.branches.len() + merged.samples.len() + merged.memory.len();
        let mut out = Vec::new();
        fdata::write(&merged, &mut out);
        std::hint::black_box(out);
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{} inputs, {:.1} MB, {records} merged records: best {:.1} ms, median {:.1} ms ({:.0} MB/s at best)",
        files.len(),
        bytes as f64 / 1e6,
        ms(times[0]),
        ms(times[times.len() / 2]),
        bytes as f64 / 1e6 / times[0].as_secs_f64()
    );
}
