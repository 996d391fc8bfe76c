//! Times the perf.data pipeline natively on one recording: parsing (the record
//! index, unpacking), perf's time order, and the stack profile (maps replayed,
//! frames resolved and symbolized from the binaries given), and with binaries the
//! read-once path: the stacks of addresses read, then named without the recording.
//!
//! `cargo run --release -p pgolens --example perf_bench -- FILE.perf.data [BINARY...]`

#![allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::arithmetic_side_effects)] // a bench binary

use std::time::Instant;

mod common;
use common::{Counting, LIVE, PEAK};
use std::sync::atomic::Ordering;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn heap(after: &str, base: usize) {
    let mb = |n: usize| n.saturating_sub(base) as f64 / 1048576.0;
    println!(
        "  heap beyond the file after {after}: {:.1} MB live, {:.1} MB peak",
        mb(LIVE.load(Ordering::Relaxed)),
        mb(PEAK.load(Ordering::Relaxed))
    );
}

use pgolens::formats::perf::PerfData;
use pgolens::layout::flame::Flame;
use pgolens::model::perf::{stack_profile, PerfStacks};
use pgolens::model::stacks::Filter;
use pgolens::symbolize::Symbolizer;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: perf_bench FILE.perf.data [BINARY...]");
        std::process::exit(2);
    };
    let data = std::fs::read(path).unwrap();
    let binaries: Vec<(String, Vec<u8>)> = args[1..].iter().map(|p| (p.clone(), std::fs::read(p).unwrap())).collect();
    let mb = data.len() as f64 / 1048576.0;
    let base = LIVE.load(Ordering::Relaxed);

    let t = Instant::now();
    let perf = PerfData::parse_unindexed(&data).unwrap();
    let parse = t.elapsed();
    println!(
        "parse        {:>8.3} s  {} records, {mb:.0} MB ({:.0} MB/s)",
        parse.as_secs_f64(),
        perf.record_count(),
        mb / parse.as_secs_f64()
    );

    let t = Instant::now();
    let mut n = 0u64;
    perf.for_each_in_time_order(|_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    println!("time order   {:>8.3} s  {n} records", t.elapsed().as_secs_f64());
    heap("parse and time order", base);

    let mut symbolizer = Symbolizer::new();
    for (name, bytes) in &binaries {
        symbolizer.add_binary(name, bytes).unwrap();
    }
    let t = Instant::now();
    let profile = stack_profile(&perf, &symbolizer, |_, _| {}).unwrap();
    println!(
        "stacks       {:>8.3} s  {} samples, {} frames, {} stack nodes",
        t.elapsed().as_secs_f64(),
        profile.sample_count(),
        profile.frames().len(),
        profile.node_count()
    );
    heap("stacks", base);
    // Read once: the stacks of addresses, then named by the binaries without the
    // recording (what the page does when binaries arrive after the recording).
    if !binaries.is_empty() {
        let t = Instant::now();
        let unnamed = PerfStacks::read(&perf, &Symbolizer::new(), |_, _| {}).unwrap();
        let read = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let named = unnamed.symbolize(&symbolizer);
        println!(
            "read once    {read:>8.3} s  unnamed ({} frames), then {:.3} s to name them ({} frames, {} stack nodes)",
            unnamed.profile.frames().len(),
            t.elapsed().as_secs_f64(),
            named.frames().len(),
            named.node_count()
        );
    }
    let t = Instant::now();
    let tree = profile.call_tree(&Filter { event: 0, ..Filter::default() });
    println!("call tree    {:>8.3} s  {} nodes", t.elapsed().as_secs_f64(), tree.nodes.len());
    // What a flame graph request costs, alphabetical against left-heavy: the tree
    // under the filter, then its layout (the second runs warm, as the page's do).
    for _ in 0..2 {
        let t = Instant::now();
        let tree = profile.call_tree(&Filter::default());
        let n = Flame::from_tree(&tree).len();
        let by_name = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let tree = profile.call_tree(&Filter::default()).heaviest_first();
        let m = Flame::from_tree(&tree).len();
        let heaviest = t.elapsed().as_secs_f64();
        println!(
            "flame        {by_name:>8.3} s  A-Z, {heaviest:.3} s heaviest first ({:.2}x), {n} = {m} rectangles",
            heaviest / by_name
        );
    }
    let t = Instant::now();
    let chart = profile.stack_chart(&Filter::default(), 1920);
    println!("stack chart  {:>8.3} s  1920 columns, {} boxes", t.elapsed().as_secs_f64(), chart.boxes.len());
}
