//! A perf.data's stacks read by two threads at once, as two workers would read a
//! dropped file: the first reads the records up to a cut, the second replays them
//! (threads and maps only), reads the rest and joins the first's part
//! ([`StackReader::join`]); against one reader of the whole stream, in the same
//! run. Both read the file in 4 MiB chunks from memory (the page's blocks),
//! after it was read once. The cut lies at FRACTION of the record stream (default
//! 0.55: the second reader also replays the first part).
//!
//! `cargo run --release -p pgolens --example perf_split_bench -- FILE.perf.data [RUNS] [FRACTION]`

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)] // a bench binary

use pgolens::formats::perf::{PerfData, PerfStream};
use pgolens::model::perf::{PerfStacks, StackReader};
use pgolens::symbolize::Symbolizer;
use std::time::Instant;

/// The worker's read size (worker.js reads the file in 4 MiB blocks).
const CHUNK: usize = 4 << 20;

fn stream_of(data: &[u8]) -> (PerfStream, usize) {
    let mut fetch =
        |offset: u64, len: u64, _: &'static str| Ok(data[offset as usize..(offset + len) as usize].to_vec());
    let (stream, start) = PerfStream::start(&data[..data.len().min(104)], data.len() as u64, &mut fetch).unwrap();
    (stream, start as usize)
}

fn feed<'s>(stream: &mut PerfStream, bytes: &[u8], reader: &mut StackReader<'s>, symbolizer: &Symbolizer<'s>) {
    for chunk in bytes.chunks(CHUNK) {
        stream
            .feed(chunk, &mut |perf, r| {
                reader.record(perf, r, symbolizer);
                Ok(())
            })
            .unwrap();
    }
}

fn finish<'s>(stream: PerfStream, mut reader: StackReader<'s>, symbolizer: &Symbolizer<'s>) -> PerfStacks {
    let perf: PerfData<'static> = stream
        .finish(&mut |perf, r| {
            reader.record(perf, r, symbolizer);
            Ok(())
        })
        .unwrap();
    let _ = reader.dso_uses(&perf);
    reader.finish(&perf)
}

fn one_reader(data: &[u8]) -> PerfStacks {
    let symbolizer = Symbolizer::new();
    let (mut stream, start) = stream_of(data);
    let mut reader = StackReader::new(0);
    reader.count_dsos();
    feed(&mut stream, &data[start..], &mut reader, &symbolizer);
    finish(stream, reader, &symbolizer)
}

/// The two readers' times (the first part, the replay and the rest), then the join's.
fn two_readers(data: &[u8], fraction: f64) -> (PerfStacks, [f64; 4]) {
    let (_, start) = stream_of(data);
    let cut = start + ((data.len() - start) as f64 * fraction) as usize;
    let t = Instant::now();
    let symbolizer = Symbolizer::new();
    let (part, (mut reader, perf, replayed)) = std::thread::scope(|scope| {
        let first = scope.spawn(|| {
            let symbolizer = Symbolizer::new();
            let (mut stream, _) = stream_of(data);
            let mut reader = StackReader::new(0);
            reader.count_dsos();
            feed(&mut stream, &data[start..cut], &mut reader, &symbolizer);
            (reader.into_part(), t.elapsed().as_secs_f64())
        });
        let (mut stream, _) = stream_of(data);
        let mut reader = StackReader::new(0);
        reader.count_dsos();
        reader.replay(true);
        stream.skip_samples(true);
        feed(&mut stream, &data[start..cut], &mut reader, &symbolizer);
        let replayed = t.elapsed().as_secs_f64();
        reader.replay(false);
        stream.skip_samples(false);
        feed(&mut stream, &data[cut..], &mut reader, &symbolizer);
        let perf = stream
            .finish(&mut |perf, r| {
                reader.record(perf, r, &symbolizer);
                Ok(())
            })
            .unwrap();
        (first.join().unwrap(), (reader, perf, replayed))
    });
    let (part, first_done) = part;
    let rest_done = t.elapsed().as_secs_f64();
    reader.join(part);
    let joined = t.elapsed().as_secs_f64();
    let _ = reader.dso_uses(&perf);
    (reader.finish(&perf), [first_done, replayed, rest_done, joined])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: perf_split_bench FILE.perf.data [RUNS] [FRACTION]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).map_or(3, |r| r.parse().unwrap());
    let fraction: f64 = args.get(2).map_or(0.55, |f| f.parse().unwrap());
    let data = std::fs::read(path).unwrap();
    let mb = data.len() as f64 / 1048576.0;
    println!("{path}: {mb:.0} MB, cut at {fraction} of the records");
    for run in 0..runs {
        let t = Instant::now();
        let whole = one_reader(&data);
        let one = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let (split, [first, replayed, rest, joined]) = two_readers(&data, fraction);
        let two = t.elapsed().as_secs_f64();
        assert_eq!(split.profile.sample_count(), whole.profile.sample_count());
        assert_eq!(split.profile.node_count(), whole.profile.node_count());
        println!(
            "run {run}: one reader {one:.3} s; two {two:.3} s ({:.2}x): first part done at {first:.3} s, \
             replay at {replayed:.3} s, rest at {rest:.3} s, joined at {joined:.3} s",
            two / one
        );
    }
}
