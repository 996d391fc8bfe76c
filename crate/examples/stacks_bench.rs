//! Times the stack model on a synthetic profile: building it from 5M samples, then
//! the call tree, inverted tree, functions, search and flame layout of all of them,
//! the left-heavy layout against the alphabetical one, the call tree under transforms
//! and the stack chart.
//!
//! `cargo run --release -p pgolens --example stacks_bench [SAMPLES]`

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)] // a bench binary over synthetic data, not decoder code

use std::time::Instant;

use pgolens::layout::flame::Flame;
use pgolens::model::stacks::{Filter, FrameKind, StackProfile, Transform};

fn main() {
    let samples: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(5_000_000);
    let t = Instant::now();
    let mut p = StackProfile::new();
    let event = p.add_event("cycles");
    // 12 levels of 8 functions each; 200k distinct stacks of 4 to 12 frames (a
    // pseudo-random path each), and samples drawn from them.
    let frames: Vec<Vec<u32>> = (0..12)
        .map(|level| (0..8).map(|i| p.frame(&format!("level{level}::fn{i}"), Some("bench"), FrameKind::User)).collect())
        .collect();
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut stack = Vec::with_capacity(12);
    let leaves: Vec<u32> = (0..200_000)
        .map(|_| {
            let x = next();
            stack.clear();
            for (level, fns) in frames.iter().enumerate().take(4 + (x % 9) as usize) {
                stack.push(fns[((x >> (level * 5)) % 8) as usize]);
            }
            p.stack(&stack).unwrap()
        })
        .collect();
    for s in 0..samples {
        let x = next();
        p.push_sample_at(event, s, 1 + (x >> 60), leaves[(x % leaves.len() as u64) as usize]).unwrap();
    }
    let built = t.elapsed();
    let filter = Filter { event, ..Filter::default() };
    let time = |what: &str, f: &mut dyn FnMut() -> usize| {
        let t = Instant::now();
        let n = f();
        println!("{what:<28} {:>8.1} ms  ({n})", t.elapsed().as_secs_f64() * 1e3);
    };
    println!("{samples} samples, {} prefix nodes: built in {:.0} ms", p.node_count(), built.as_secs_f64() * 1e3);
    time("call tree (first: + index)", &mut || p.call_tree(&filter).nodes.len());
    time("call tree", &mut || p.call_tree(&filter).nodes.len());
    time("call tree, half the time", &mut || {
        p.call_tree(&Filter { event, time: Some(0..samples / 2), ..Filter::default() }).nodes.len()
    });
    time("inverted", &mut || p.inverted(&filter).nodes.len());
    time("functions", &mut || p.functions(&filter).len());
    time("search", &mut || p.search(&filter, "fn3").frames.len());
    time("sandwich", &mut || p.sandwich(&filter, frames[5][3]).callees.nodes.len());
    time("timeline (1000 bins)", &mut || p.timeline(&filter, 1000).bins.len());
    time("stack chart (1920 columns)", &mut || p.stack_chart(&filter, 1920).boxes.len());
    let tree = p.call_tree(&filter);
    time("flame layout", &mut || Flame::from_tree(&tree).len());
    time("flame layout, left heavy", &mut || Flame::from_tree(&tree.heaviest_first()).len());
    let with = |t: Vec<Transform>| Filter { event, transforms: t, ..Filter::default() };
    let merge = with(vec![Transform::Merge(frames[2][0]), Transform::Merge(frames[3][1])]);
    time("call tree, 2 merges", &mut || p.call_tree(&merge).nodes.len());
    let focus = with(vec![Transform::FocusFunction(frames[1][4])]);
    time("call tree, focus function", &mut || p.call_tree(&focus).nodes.len());
    let recursion = with(vec![Transform::CollapseRecursion(frames[0][0])]);
    time("functions, collapse recursion", &mut || p.functions(&recursion).len());
}
