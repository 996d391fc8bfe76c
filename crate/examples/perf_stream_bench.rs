//! A perf.data's stacks read as the page will read a dropped file: in 4 MiB chunks
//! that are not kept ([`PerfStream`]), against the whole file read into memory and
//! then decoded (what the worker does today), in the same run: the time and the
//! peak heap of each (the whole file's peak includes the file).
//!
//! `cargo run --release -p pgolens --example perf_stream_bench -- FILE.perf.data [RUNS]`

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)] // a bench binary

use pgolens::formats::perf::{PerfData, PerfStream};
use pgolens::model::perf::{PerfStacks, StackReader};
use pgolens::symbolize::Symbolizer;
use std::io::{Read, Seek, SeekFrom};
use std::time::Instant;

mod common;
use common::{Counting, LIVE, PEAK};
use std::sync::atomic::Ordering;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The worker's read size (worker.js reads the file in 4 MiB blocks).
const CHUNK: usize = 4 << 20;

fn streamed(path: &str, symbolizer: &Symbolizer<'_>) -> PerfStacks {
    let mut file = std::fs::File::open(path).unwrap();
    let len = file.metadata().unwrap().len();
    let mut head = vec![0u8; len.min(104) as usize];
    file.read_exact(&mut head).unwrap();
    let mut fetch = |offset: u64, size: u64, _: &'static str| {
        let mut bytes = vec![0u8; size as usize];
        let mut f = std::fs::File::open(path).unwrap();
        f.seek(SeekFrom::Start(offset)).unwrap();
        f.read_exact(&mut bytes).unwrap();
        Ok(bytes)
    };
    let (mut stream, start) = PerfStream::start(&head, len, &mut fetch).unwrap();
    let mut reader = StackReader::new(0);
    let mut visit = |perf: &PerfData<'_>, r: &pgolens::formats::perf::RecordAt<'_>| {
        reader.record(perf, r, symbolizer);
        Ok(())
    };
    file.seek(SeekFrom::Start(start)).unwrap();
    let mut chunk = vec![0u8; CHUNK];
    loop {
        let n = file.read(&mut chunk).unwrap();
        if n == 0 {
            break;
        }
        stream.feed(&chunk[..n], &mut visit).unwrap();
    }
    let perf = stream.finish(&mut visit).unwrap();
    reader.finish(&perf)
}

fn whole(path: &str, symbolizer: &Symbolizer<'_>) -> PerfStacks {
    let data = std::fs::read(path).unwrap();
    let perf = PerfData::parse_unindexed(&data).unwrap();
    PerfStacks::read(&perf, symbolizer, |_, _| {}).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: perf_stream_bench FILE.perf.data [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).map_or(3, |r| r.parse().unwrap());
    let mb = std::fs::metadata(path).unwrap().len() as f64 / 1048576.0;
    let symbolizer = Symbolizer::new();
    println!("{path}: {mb:.0} MB");
    for run in 0..runs {
        for (name, read) in [("whole file", whole as fn(&str, &Symbolizer<'_>) -> PerfStacks), ("streamed", streamed)] {
            let base = LIVE.load(Ordering::Relaxed);
            PEAK.store(base, Ordering::Relaxed);
            let t = Instant::now();
            let stacks = read(path, &symbolizer);
            let secs = t.elapsed().as_secs_f64();
            let peak = (PEAK.load(Ordering::Relaxed) - base) as f64 / 1048576.0;
            println!(
                "run {run} {name:<10} {secs:>7.3} s ({:>4.0} MB/s)  heap peak {peak:>6.0} MB ({:.2}x the file)  {} samples, {} stack nodes",
                mb / secs,
                peak / mb,
                stacks.profile.sample_count(),
                stacks.profile.node_count()
            );
        }
    }
}
