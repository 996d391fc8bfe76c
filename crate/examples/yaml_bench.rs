//! A BOLT YAML profile decoded in memory, as the page's worker decodes a dropped
//! one (fed in 4 MiB blocks to a [`YamlStream`]) and whole ([`yaml::decode`]), the
//! best and median of RUNS each, with the functions and blocks found, so that a
//! change to the reader can be timed without the file's reading in the way.
//!
//! `cargo run --release -p pgolens --example yaml_bench -- FILE.yaml [RUNS [streamed|whole]]`
//! (both by default; one alone, to count its instructions under
//! `valgrind --tool=cachegrind --cache-sim=no`, steadier than time on a shared VM).
//! It also prints each mode's peak of live heap bytes, as a multiple of the file; a
//! grown block counts with the block it replaces (the counting allocator grows by
//! allocating anew and copying, as the worker's wasm allocator does with a block it
//! cannot grow in place, and wasm memory never shrinks).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)] // a bench binary

use pgolens::formats::bolt::yaml::{self, YamlStream, PIECE};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

mod common;
use common::{Counting, LIVE, PEAK};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Starts a peak count from the bytes live now; returns them.
fn peak_from_here() -> usize {
    let live = LIVE.load(Relaxed);
    PEAK.store(live, Relaxed);
    live
}

fn report_peak(what: &str, base: usize, bytes: usize) {
    let peak = PEAK.load(Relaxed) - base;
    println!("{what:<8} heap peak {:.1} MB ({:.2}x the file)", peak as f64 / 1e6, peak as f64 / bytes as f64);
}

/// The worker's read size (worker.js reads the file in 4 MiB blocks).
const CHUNK: usize = 4 << 20;

fn report(what: &str, mut times: Vec<Duration>, bytes: usize) {
    times.sort();
    let best = times[0].as_secs_f64();
    let median = times[times.len() / 2].as_secs_f64();
    let rate = bytes as f64 / best / 1e6;
    println!("{what:<8} best {best:.3} s  median {median:.3} s  ({rate:.0} MB/s at best)");
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: yaml_bench FILE.yaml [RUNS]");
    let runs: usize = args.next().map_or(5, |r| r.parse().expect("RUNS is a number"));
    let only = args.next();
    let text = std::fs::read(&path).unwrap();
    let (stream, whole) = match only.as_deref() {
        None => (true, true),
        Some("streamed") => (true, false),
        Some("whole") => (false, true),
        Some(other) => panic!("{other}: streamed or whole"),
    };

    let mut times = Vec::new();
    let mut found = (0, 0);
    let base = peak_from_here();
    for _ in 0..if stream { runs } else { 0 } {
        let start = Instant::now();
        let mut stream = YamlStream::with_len(PIECE, text.len() as u64);
        for block in text.chunks(CHUNK) {
            stream.feed(block).unwrap();
        }
        let profile = stream.finish().unwrap();
        times.push(start.elapsed());
        found = (profile.functions.len(), profile.blocks.len());
    }
    if stream {
        println!("{} functions, {} blocks, {} bytes", found.0, found.1, text.len());
        report("streamed", times, text.len());
        report_peak("streamed", base, text.len());
    }

    let mut times = Vec::new();
    let base = peak_from_here();
    for _ in 0..if whole { runs } else { 0 } {
        let start = Instant::now();
        let profile = yaml::decode(&text).unwrap();
        times.push(start.elapsed());
        if stream {
            assert_eq!((profile.functions.len(), profile.blocks.len()), found, "the stream and the whole text agree");
        }
    }
    if whole {
        report("whole", times, text.len());
        report_peak("whole", base, text.len());
    }
}
