//! Times the worker's side of the CFG tab natively: an fdata profile opened with
//! its binary, then the graphs of its first functions asked for one after another,
//! as a person clicking through the Functions table does. The first graph parses
//! the binary; the ones after it read what that parse found.
//!
//! `cargo run --release -p pgolens-worker --example cfg_bench -- PROFILE.fdata BINARY [GRAPHS]`

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::arithmetic_side_effects)] // a bench binary

use std::time::Instant;

use pgolens_protocol::{Reply, Request};
use pgolens_worker::session::Session;
use pgolens_worker::Sessions;

fn opened(path: &str) -> Session {
    let data = std::fs::read(path).unwrap();
    let mut session = Session::new(path.to_string(), data.len() as u64).unwrap();
    session.slot(data.len()).unwrap().copy_from_slice(&data);
    session.finish().unwrap();
    session
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [profile, binary, rest @ ..] = args.as_slice() else { panic!("usage: cfg_bench PROFILE BINARY [GRAPHS]") };
    let graphs: u32 = rest.first().map_or(20, |n| n.parse().unwrap());
    let mut sessions = Sessions::default();
    sessions.insert(1, opened(profile));
    sessions.insert(2, opened(binary));
    let t = Instant::now();
    let reply = sessions.answer(1, Request::Correlate { binary: 2 });
    assert!(matches!(reply, Some(Reply::Correlated { .. })), "{reply:?}");
    println!("attach binary  {:>9.3} s", t.elapsed().as_secs_f64());
    let mut times = Vec::new();
    let mut drawn = 0;
    for function in 0..graphs {
        let t = Instant::now();
        let reply = sessions.answer(1, Request::BoltCfg { function: Some(function) });
        times.push(t.elapsed().as_secs_f64());
        if matches!(reply, Some(Reply::BoltCfg(_))) {
            drawn += 1;
        }
    }
    let first = times.first().copied().unwrap_or_default();
    let mut later = times.get(1..).unwrap_or_default().to_vec();
    later.sort_by(f64::total_cmp);
    let median = later.get(later.len() / 2).copied().unwrap_or_default();
    println!("first graph    {first:>9.3} s");
    println!(
        "later graphs   {median:>9.3} s median, {:.3} s max ({} graphs, {drawn} drawn)",
        later.last().copied().unwrap_or_default(),
        times.len()
    );
}
