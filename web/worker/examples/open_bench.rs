//! Times the worker's side of a drop natively: the file into the session, the
//! decode, and the first requests the flame graph sends.
//!
//! `cargo run --release -p pgolens-worker --example open_bench -- FILE`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::cast_possible_truncation)] // a bench binary

use std::time::Instant;

use pgolens_protocol::{Order, Request, SampleFilter};
use pgolens_worker::session::Session;
use pgolens_worker::Sessions;

fn main() {
    let path = std::env::args().nth(1).expect("usage: open_bench FILE");
    let data = std::fs::read(&path).unwrap();
    let t = Instant::now();
    let mut session = Session::new(path.clone(), data.len() as u64).unwrap();
    for chunk in data.chunks(1 << 20) {
        session.slot(chunk.len()).unwrap().copy_from_slice(chunk);
    }
    println!("read         {:>8.3} s", t.elapsed().as_secs_f64());
    drop(data);
    let t = Instant::now();
    session.finish().unwrap();
    println!("decode       {:>8.3} s", t.elapsed().as_secs_f64());
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
        println!("{name:<12} {:>8.3} s  {}", t.elapsed().as_secs_f64(), reply.is_some());
    }
}
