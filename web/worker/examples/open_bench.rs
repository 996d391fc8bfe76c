//! Times the worker's side of a drop natively: the file into the session (a
//! recording decoded as it streams in, in the glue's 4 MiB blocks, as the page does;
//! `--whole`: read whole into the session first, as any other file is), the decode,
//! and the first requests the flame graph sends; with the heap's peak after each.
//!
//! `cargo run --release -p pgolens-worker --example open_bench -- FILE [--whole]`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)] // a bench binary

use std::io::{Read, Seek, SeekFrom};
use std::sync::atomic::Ordering;
use std::time::Instant;

use pgolens_protocol::{Order, Request, SampleFilter};
use pgolens_worker::session::Session;
use pgolens_worker::Sessions;

#[path = "../../../crate/examples/common/mod.rs"]
mod common;

#[global_allocator]
static ALLOC: common::Counting = common::Counting;

/// The glue's block size.
const BLOCK: usize = 4 << 20;

fn peak_mb() -> f64 {
    common::PEAK.load(Ordering::Relaxed) as f64 / 1e6
}

fn live_mb() -> f64 {
    common::LIVE.load(Ordering::Relaxed) as f64 / 1e6
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: open_bench FILE [--whole]");
    let whole = std::env::args().any(|a| a == "--whole");
    let mut file = std::fs::File::open(&path).unwrap();
    let len = file.metadata().unwrap().len();
    let t = Instant::now();
    let mut session = Session::new(path.clone(), len).unwrap();
    let start = if whole {
        None
    } else {
        let mut fetch = |at: u64, n: u64, what: &'static str| {
            let mut bytes = vec![0; n as usize];
            file.seek(SeekFrom::Start(at))
                .and_then(|_| file.read_exact(&mut bytes))
                .map_err(|_| pgolens::Error::eof(at, what))?;
            Ok(bytes)
        };
        session.stream_start(len, &mut fetch)
    };
    let mut block = vec![0; BLOCK];
    match start {
        Some(start) => {
            file.seek(SeekFrom::Start(start)).unwrap();
            loop {
                let n = file.read(&mut block).unwrap();
                if n == 0 {
                    break;
                }
                assert!(session.feed(&block[..n]), "the stream rejected the file");
            }
            assert!(session.stream_end(), "the stream rejected the file");
            println!(
                "read+decode  {:>8.3} s  heap peak {:>7.1} MB  live {:>7.1} MB (streamed)",
                t.elapsed().as_secs_f64(),
                peak_mb(),
                live_mb()
            );
        }
        None => {
            file.seek(SeekFrom::Start(0)).unwrap();
            loop {
                let n = file.read(&mut block).unwrap();
                if n == 0 {
                    break;
                }
                session.slot(n).unwrap().copy_from_slice(&block[..n]);
            }
            println!("read         {:>8.3} s  heap peak {:>7.1} MB (whole)", t.elapsed().as_secs_f64(), peak_mb());
        }
    }
    drop(block);
    let t = Instant::now();
    session.finish().unwrap();
    println!(
        "decode       {:>8.3} s  heap peak {:>7.1} MB  live {:>7.1} MB",
        t.elapsed().as_secs_f64(),
        peak_mb(),
        live_mb()
    );
    let mut sessions = Sessions::default();
    sessions.insert(1, session);
    let samples = SampleFilter::default();
    for (name, request) in [
        ("frame names", Request::FrameNames),
        ("flame", Request::Flame { samples: samples.clone(), inverted: false, order: Order::default() }),
        ("timeline", Request::Timeline { event: 0, bins: 1000 }),
        ("summary", Request::Summary),
    ] {
        let t = Instant::now();
        let reply = sessions.answer(1, request);
        println!(
            "{name:<12} {:>8.3} s  heap peak {:>7.1} MB  live {:>7.1} MB  {}",
            t.elapsed().as_secs_f64(),
            peak_mb(),
            live_mb(),
            reply.is_some()
        );
    }
    println!("live at the end {:>7.1} MB", live_mb());
}
