//! Times the layered graph layout on the corpus's biggest real CFG: `big()` of
//! tests/corpus/bolt-perf/bigcfg (2,015 blocks), from its BOLT YAML profile.
//!
//! `cargo run --release -p pgolens --example layered_bench [RUNS]`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)] // a bench binary over corpus data, not decoder code

use std::time::Instant;

use pgolens::layout::layered::{layout, Edge, Node, Options};

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(30).max(1);
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus/bolt-perf/bigcfg/big.instr.yaml");
    let bytes = std::fs::read(path).expect("big.instr.yaml");
    let profile = pgolens::formats::bolt::yaml::decode(&bytes).unwrap();
    let cfg = (0..profile.functions.len())
        .filter_map(|f| pgolens::model::bolt::cfg_from_yaml(&profile, f))
        .max_by_key(|c| c.blocks.len())
        .unwrap();
    let nodes: Vec<Node> = cfg
        .blocks
        .iter()
        .map(|b| Node {
            width: 80.0 + 7.0 * b.exec_count.to_string().len() as f32,
            height: 20.0 + 14.0 * b.instructions.unwrap_or(1).min(30) as f32,
        })
        .collect();
    let edges: Vec<Edge> =
        cfg.edges.iter().map(|e| Edge { from: e.from, to: e.to, weight: e.count.unwrap_or(0) }).collect();
    let entries: Vec<u32> = (0u32..).zip(&cfg.blocks).filter(|(_, b)| b.entry).map(|(i, _)| i).collect();
    let options = Options::default();

    let mut ms = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let l = layout(&nodes, &edges, &entries, &options);
        ms.push(t.elapsed().as_secs_f64() * 1e3);
        last = Some(l);
    }
    let l = last.unwrap();
    ms.sort_by(f64::total_cmp);
    let back = l.edges.iter().filter(|r| r.back).count();
    let direct = l.edges.iter().filter(|r| r.direct).count();
    // Edges between adjacent layers drawn as one vertical line (centres within 1 unit).
    let center = |i: u32| l.nodes[i as usize].x + nodes[i as usize].width.max(0.0) / 2.0;
    let (mut short, mut straight) = (0, 0);
    for (e, r) in edges.iter().zip(&l.edges) {
        if e.from != e.to && r.via.is_empty() && !r.direct && !r.back {
            short += 1;
            if (center(e.from) - center(e.to)).abs() < 1.0 {
                straight += 1;
            }
        }
    }
    println!("{}: {} blocks, {} edges ({} entries)", cfg.name, nodes.len(), edges.len(), entries.len());
    println!(
        "layers {}  dummies {}  crossings {}  back edges {}  direct {}  size {:.0} x {:.0}",
        l.layers, l.dummies, l.crossings, back, direct, l.width, l.height
    );
    println!("one-layer forward edges drawn straight: {straight} of {short}");
    println!("{runs} runs: median {:.2} ms, min {:.2} ms, max {:.2} ms", ms[runs / 2], ms[0], ms[runs - 1]);
}
