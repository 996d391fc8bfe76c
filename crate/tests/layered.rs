//! The layered CFG layout (`layout::layered`): exact results on small graphs, the
//! invariants on the 2,015-block CFG of tests/corpus/bolt-perf/bigcfg (checked
//! against independent recomputations: DFS back edges, a quadratic crossing
//! count), and malformed or extreme input.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use pgolens::layout::layered::{layout, Edge, Layout, Node, Options};

const EPS: f32 = 0.01;

fn boxes(n: usize) -> Vec<Node> {
    vec![Node { width: 80.0, height: 30.0 }; n]
}

fn edges(pairs: &[(u32, u32)]) -> Vec<Edge> {
    pairs.iter().map(|&(from, to)| Edge { from, to, weight: 1 }).collect()
}

fn on_boundary(p: (f32, f32), n: &Node, at: (f32, f32)) -> bool {
    let (w, h) = (sane(n.width), sane(n.height));
    let inside = p.0 >= at.0 - EPS && p.0 <= at.0 + w + EPS && p.1 >= at.1 - EPS && p.1 <= at.1 + h + EPS;
    let edge = (p.0 - at.0).abs() < EPS
        || (p.0 - at.0 - w).abs() < EPS
        || (p.1 - at.1).abs() < EPS
        || (p.1 - at.1 - h).abs() < EPS;
    inside && edge
}

/// A size as the layout takes it: not finite or negative is 0, at most 1e6.
fn sane(v: f32) -> f32 {
    if v.is_finite() && v > 0.0 {
        v.min(1e6)
    } else {
        0.0
    }
}

/// Every invariant a layout of any input must keep.
fn check(nodes: &[Node], es: &[Edge], l: &Layout) {
    let n = nodes.len();
    assert_eq!(l.nodes.len(), n);
    assert_eq!(l.edges.len(), es.len());
    assert!(l.width.is_finite() && l.height.is_finite() && l.width >= 0.0 && l.height >= 0.0);
    for p in &l.nodes {
        assert!(p.x.is_finite() && p.y.is_finite() && p.x >= 0.0 && p.y >= 0.0, "{p:?}");
        assert!(p.layer < l.layers.max(1));
    }
    for (i, (b, p)) in nodes.iter().zip(&l.nodes).enumerate() {
        assert!(p.x + sane(b.width) <= l.width + EPS, "node {i} past the width");
        assert!(p.y + sane(b.height) <= l.height + EPS, "node {i} past the height");
    }
    // Order: every node once, in its layer.
    assert_eq!(l.order.len(), l.layers as usize);
    let mut seen = vec![false; n + l.dummies as usize];
    for (k, row) in l.order.iter().enumerate() {
        for &it in row {
            assert!(!seen[it as usize], "item {it} twice");
            seen[it as usize] = true;
            if (it as usize) < n {
                assert_eq!(l.nodes[it as usize].layer as usize, k);
            }
        }
        // Boxes of a row do not overlap, left to right in order.
        let mut right = f32::NEG_INFINITY;
        for &it in row.iter().filter(|&&it| (it as usize) < n) {
            let p = l.nodes[it as usize];
            assert!(p.x >= right - EPS, "layer {k}: node {it} at {} overlaps up to {right}", p.x);
            right = p.x + sane(nodes[it as usize].width);
        }
    }
    assert!(seen.iter().all(|&s| s), "an item in no layer");
    for (e, r) in es.iter().zip(&l.edges) {
        for &(x, y) in &r.points {
            assert!(x.is_finite() && y.is_finite() && x >= 0.0 && y >= 0.0);
            assert!(x <= l.width + EPS && y <= l.height + EPS, "({x}, {y}) outside {} x {}", l.width, l.height);
        }
        let (f, t) = (e.from as usize, e.to as usize);
        if f >= n || t >= n {
            assert!(r.points.is_empty() && r.via.is_empty());
            continue;
        }
        assert!(r.points.len() >= 2);
        let pos = |k: usize| (l.nodes[k].x, l.nodes[k].y);
        assert!(on_boundary(r.points[0], &nodes[f], pos(f)), "edge {e:?} starts off its source: {:?}", r.points);
        assert!(on_boundary(*r.points.last().unwrap(), &nodes[t], pos(t)), "edge {e:?} ends off its target");
        if f == t {
            assert!(r.back);
            continue;
        }
        let (lf, lt) = (l.nodes[f].layer, l.nodes[t].layer);
        if r.back {
            assert!(lt < lf, "back edge {e:?} from layer {lf} to {lt}");
        } else {
            assert!(lf < lt, "edge {e:?} from layer {lf} to {lt}");
        }
        // Dummies: one per row in between, in order.
        let (top, bottom) = if r.back { (lt, lf) } else { (lf, lt) };
        if !r.direct {
            assert_eq!(r.via.len() as u32, bottom - top - 1);
        }
        for (k, &d) in r.via.iter().enumerate() {
            assert!(d as usize >= n);
            assert!(l.order[(top as usize) + 1 + k].contains(&d));
        }
    }
}

/// Crossings recounted pair by pair over the distinct segments of the final order.
fn naive_crossings(nodes: usize, es: &[Edge], l: &Layout) -> u64 {
    let mut pos = BTreeMap::new();
    let mut layer_of = BTreeMap::new();
    for (k, row) in l.order.iter().enumerate() {
        for (i, &it) in row.iter().enumerate() {
            pos.insert(it, i);
            layer_of.insert(it, k);
        }
    }
    let mut segs = BTreeSet::new();
    for (e, r) in es.iter().zip(&l.edges) {
        if e.from as usize >= nodes || e.to as usize >= nodes || e.from == e.to || r.direct {
            continue;
        }
        let (a, b) = if r.back { (e.to, e.from) } else { (e.from, e.to) };
        let chain: Vec<u32> = std::iter::once(a).chain(r.via.iter().copied()).chain(std::iter::once(b)).collect();
        for w in chain.windows(2) {
            segs.insert((w[0], w[1]));
        }
    }
    let mut by_layer: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    for &(a, b) in &segs {
        by_layer.entry(layer_of[&a]).or_default().push((pos[&a], pos[&b]));
    }
    let mut total = 0u64;
    for s in by_layer.values() {
        for (i, &(a, b)) in s.iter().enumerate() {
            for &(c, d) in &s[i + 1..] {
                if (a < c && b > d) || (a > c && b < d) {
                    total += 1;
                }
            }
        }
    }
    total
}

/// Edges to a node on the stack of a DFS from `entries`, then every other node,
/// successors in edge order.
fn retreating(n: usize, es: &[Edge], entries: &[u32]) -> BTreeSet<usize> {
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, e) in es.iter().enumerate() {
        if (e.from as usize) < n && (e.to as usize) < n && e.from != e.to {
            succ[e.from as usize].push(i);
        }
    }
    let mut state = vec![0u8; n];
    let mut back = BTreeSet::new();
    let roots = entries.iter().map(|&r| r as usize).filter(|&r| r < n).chain(0..n);
    for r in roots {
        if state[r] != 0 {
            continue;
        }
        state[r] = 1;
        let mut stack = vec![(r, 0usize)];
        while let Some(&mut (u, ref mut next)) = stack.last_mut() {
            if let Some(&i) = succ[u].get(*next) {
                *next += 1;
                let v = es[i].to as usize;
                match state[v] {
                    0 => {
                        state[v] = 1;
                        stack.push((v, 0));
                    }
                    1 => {
                        back.insert(i);
                    }
                    _ => {}
                }
            } else {
                state[u] = 2;
                stack.pop();
            }
        }
    }
    back
}

#[test]
fn diamond() {
    let nodes = boxes(4);
    let es = edges(&[(0, 1), (0, 2), (1, 3), (2, 3)]);
    let l = layout(&nodes, &es, &[0], &Options::default());
    check(&nodes, &es, &l);
    assert_eq!(l.layers, 3);
    assert_eq!(l.crossings, 0);
    assert_eq!(l.dummies, 0);
    assert_eq!(l.nodes.iter().map(|p| p.layer).collect::<Vec<_>>(), [0, 1, 1, 2]);
    assert_eq!(l.nodes[0].y, 0.0);
    // The join below both arms, the arms side by side with the gap between.
    assert!(l.nodes[3].y >= l.nodes[1].y + 30.0 + 40.0 - EPS);
    assert_eq!(l.nodes[1].y, l.nodes[2].y);
    assert!((l.nodes[1].x - l.nodes[2].x).abs() >= 80.0 + 24.0 - EPS);
    // Entry and join centred over the arms: a symmetric diamond.
    let mid = (l.nodes[1].x + l.nodes[2].x) / 2.0;
    assert!((l.nodes[0].x - mid).abs() < 1.0 && (l.nodes[3].x - mid).abs() < 1.0, "{:?}", l.nodes);
    assert!(l.edges.iter().all(|r| !r.back && r.points.len() == 2));
    assert_eq!((l.width, l.height), (184.0, 30.0 * 3.0 + 40.0 * 2.0));
}

#[test]
fn loop_latch_is_the_back_edge() {
    // entry -> header -> body -> latch -> header, latch -> exit
    let nodes = boxes(5);
    let es = edges(&[(0, 1), (1, 2), (2, 3), (3, 1), (3, 4)]);
    let l = layout(&nodes, &es, &[0], &Options::default());
    check(&nodes, &es, &l);
    assert_eq!(l.edges.iter().map(|r| r.back).collect::<Vec<_>>(), [false, false, false, true, false]);
    assert_eq!(l.nodes.iter().map(|p| p.layer).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);
    // The back edge leaves the latch's top and enters the header's bottom.
    let r = &l.edges[3];
    assert_eq!(r.points.first().unwrap().1, l.nodes[3].y);
    assert_eq!(r.points.last().unwrap().1, l.nodes[1].y + 30.0);
    assert_eq!(r.via.len(), 1);
    // A straight chain lines up: entry, header, exit share one x... the body and latch too.
    assert_eq!(l.nodes[0].x, l.nodes[1].x);
    assert_eq!(l.nodes[2].x, l.nodes[3].x);
}

#[test]
fn sweeps_remove_the_initial_crossing() {
    // The DFS order puts 3 (first child of 1) left of 4, but 2 -> 3 then crosses 1 -> 4.
    let nodes = boxes(5);
    let es = edges(&[(0, 1), (0, 2), (1, 3), (1, 4), (2, 3)]);
    let none = layout(&nodes, &es, &[0], &Options { sweeps: 0, ..Options::default() });
    check(&nodes, &es, &none);
    assert_eq!(none.crossings, 1);
    assert_eq!(none.order[2], [3, 4]);
    assert_eq!(naive_crossings(5, &es, &none), 1);
    let l = layout(&nodes, &es, &[0], &Options::default());
    check(&nodes, &es, &l);
    assert_eq!(l.crossings, 0);
    assert_eq!(naive_crossings(5, &es, &l), 0);
    assert_eq!(l.order[2], [4, 3]);
}

#[test]
fn complete_bipartite_keeps_its_one_crossing() {
    let nodes = boxes(5);
    let es = edges(&[(0, 1), (0, 2), (1, 3), (1, 4), (2, 3), (2, 4)]);
    for sweeps in [0, 1, 8, 1000] {
        let l = layout(&nodes, &es, &[0], &Options { sweeps, ..Options::default() });
        check(&nodes, &es, &l);
        assert_eq!(l.crossings, 1);
        assert_eq!(naive_crossings(5, &es, &l), 1);
    }
}

#[test]
fn long_edges_get_dummies_and_stay_straight() {
    // 0 -> 1 -> 2 -> 3 -> 4 and a shortcut 0 -> 4 over three rows.
    let nodes = boxes(5);
    let es = edges(&[(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]);
    let l = layout(&nodes, &es, &[0], &Options::default());
    check(&nodes, &es, &l);
    assert_eq!(l.dummies, 3);
    let r = &l.edges[4];
    assert_eq!(r.via.len(), 3);
    // Through the three rows at one x.
    let xs: Vec<f32> = r.points[1..r.points.len() - 1].iter().map(|p| p.0).collect();
    assert_eq!(xs.len(), 6);
    assert!(xs.iter().all(|&x| x == xs[0]), "{:?}", r.points);
    assert!(xs[0] >= 80.0, "the dummies run beside the chain, not through it");
}

fn bigcfg() -> (Vec<Node>, Vec<Edge>, Vec<u32>) {
    let bytes = common::read("bolt-perf/bigcfg/big.instr.yaml");
    let profile = pgolens::formats::bolt::yaml::decode(&bytes).unwrap();
    let cfg = (0..profile.functions.len())
        .filter_map(|f| pgolens::model::bolt::cfg_from_yaml(&profile, f))
        .max_by_key(|c| c.blocks.len())
        .unwrap();
    let nodes = cfg
        .blocks
        .iter()
        .map(|b| Node {
            width: 80.0 + 7.0 * b.exec_count.to_string().len() as f32,
            height: 20.0 + 14.0 * b.instructions.unwrap_or(1).min(30) as f32,
        })
        .collect();
    let es = cfg.edges.iter().map(|e| Edge { from: e.from, to: e.to, weight: e.count.unwrap_or(0) }).collect();
    let entries = (0u32..).zip(&cfg.blocks).filter(|(_, b)| b.entry).map(|(i, _)| i).collect();
    (nodes, es, entries)
}

#[test]
fn bigcfg_layout() {
    let (nodes, es, entries) = bigcfg();
    assert_eq!(nodes.len(), 2015);
    // The YAML's graph: BOLT's YAML writer keeps 3,693 of the function's 3,821 edges.
    assert_eq!(es.len(), 3693);
    assert_eq!(entries, [0]);
    let l = layout(&nodes, &es, &entries, &Options::default());
    check(&nodes, &es, &l);
    assert_eq!(l.nodes[0].layer, 0);
    let back: BTreeSet<usize> = (0..es.len()).filter(|&i| l.edges[i].back).collect();
    assert_eq!(back, retreating(nodes.len(), &es, &entries));
    assert!(!back.is_empty());
    assert!(u64::from(l.dummies) <= (8 * (nodes.len() + es.len()) as u64).min(200_000));
    assert!(l.dummies > 0 && l.edges.iter().all(|r| !r.direct));
    assert_eq!(l.crossings, naive_crossings(nodes.len(), &es, &l));
    let unswept = layout(&nodes, &es, &entries, &Options { sweeps: 0, ..Options::default() });
    assert!(l.crossings < unswept.crossings, "{} vs {}", l.crossings, unswept.crossings);
    assert_eq!(layout(&nodes, &es, &entries, &Options::default()), l, "not deterministic");
}

#[test]
fn dummy_budget_routes_the_longest_edges_straight() {
    // A 2,000-node chain with 300 edges from the top to the bottom: 300 × 1,998
    // dummies would be far over 8 × (nodes + edges).
    let n = 2000u32;
    let nodes = boxes(n as usize);
    let mut pairs: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
    pairs.extend((0..300).map(|i| (i % 10, n - 1 - i % 7)));
    let es = edges(&pairs);
    let l = layout(&nodes, &es, &[0], &Options::default());
    check(&nodes, &es, &l);
    assert!(u64::from(l.dummies) <= 8 * (2000 + 2299));
    assert!(l.edges.iter().any(|r| r.direct));
    for r in l.edges.iter().filter(|r| r.direct) {
        assert_eq!(r.points.len(), 2);
        assert!(r.via.is_empty());
    }
    assert_eq!(l.crossings, naive_crossings(n as usize, &es, &l));
}

#[test]
fn malformed_input() {
    let o = Options::default();
    // Empty.
    let l = layout(&[], &[], &[], &o);
    assert_eq!((l.nodes.len(), l.edges.len(), l.layers, l.width, l.height), (0, 0, 0, 0.0, 0.0));
    let es = edges(&[(0, 1), (5, 0)]);
    let l = layout(&[], &es, &[3], &o);
    assert!(l.edges.iter().all(|r| r.points.is_empty()));

    // Ends and entries out of range.
    let nodes = boxes(3);
    let es = edges(&[(0, 1), (1, 7), (u32::MAX, 2), (1, 2)]);
    let l = layout(&nodes, &es, &[9, u32::MAX, 0], &o);
    check(&nodes, &es, &l);
    assert!(l.edges[1].points.is_empty() && l.edges[2].points.is_empty());
    assert_eq!(l.nodes.iter().map(|p| p.layer).collect::<Vec<_>>(), [0, 1, 2]);

    // Self-loops: back, around the right side, room kept for them.
    let nodes = boxes(2);
    let es = edges(&[(0, 0), (0, 1), (1, 1), (1, 1)]);
    let l = layout(&nodes, &es, &[0], &o);
    check(&nodes, &es, &l);
    for i in [0, 2, 3] {
        let r = &l.edges[i];
        assert!(r.back && (3..=4).contains(&r.points.len()));
        let node = l.nodes[es[i].from as usize];
        assert!(r.points.iter().all(|p| p.0 >= node.x + 80.0 - EPS));
    }
    assert!(!l.edges[1].back);

    // 1,000 parallel edges, both ways.
    let nodes = boxes(3);
    let mut pairs = vec![(0, 1); 1000];
    pairs.extend(vec![(1, 0); 1000]);
    pairs.extend(vec![(0, 2); 1000]);
    pairs.push((1, 2));
    let es = edges(&pairs);
    let l = layout(&nodes, &es, &[0], &o);
    check(&nodes, &es, &l);
    assert_eq!(l.edges.iter().filter(|r| r.back).count(), 1000);
    assert_eq!(l.dummies, 1, "parallel edges share their dummies");
    assert!(l.width < 1000.0);

    // A star: 20,000 leaves in one layer.
    let n = 20_001;
    let nodes = boxes(n);
    let es: Vec<Edge> = (1..n as u32).map(|i| Edge { from: 0, to: i, weight: u64::from(i) }).collect();
    let l = layout(&nodes, &es, &[0], &o);
    check(&nodes, &es, &l);
    assert_eq!((l.layers, l.crossings, l.dummies), (2, 0, 0));
    assert!(l.width >= 20_000.0 * 80.0);

    // A 20,000-node chain, given bottom up and entered at its top: no recursion.
    let n = 20_000u32;
    let nodes = boxes(n as usize);
    let es: Vec<Edge> = (1..n).rev().map(|i| Edge { from: i - 1, to: i, weight: 1 }).collect();
    let l = layout(&nodes, &es, &[0], &o);
    check(&nodes, &es, &l);
    assert_eq!(l.layers, n);
    assert!(l.nodes.iter().all(|p| p.x == 0.0));
    // The same as one cycle: one back edge.
    let mut cyc = es.clone();
    cyc.push(Edge { from: n - 1, to: 0, weight: 1 });
    let l = layout(&nodes, &cyc, &[], &o);
    check(&nodes, &cyc, &l);
    assert_eq!(l.edges.iter().filter(|r| r.back).count(), 1);
    assert!(l.edges.last().unwrap().back);

    // Sizes and options that are no numbers.
    let weird = [
        Node { width: f32::NAN, height: f32::INFINITY },
        Node { width: -5.0, height: -1.0 },
        Node { width: f32::INFINITY, height: f32::NAN },
        Node { width: 1e30, height: 1e30 },
        Node { width: 10.0, height: 10.0 },
    ];
    let es = edges(&[(0, 1), (0, 2), (1, 3), (2, 4), (0, 4), (4, 0), (3, 3)]);
    for o in [
        Options::default(),
        Options { layer_gap: f32::NAN, node_gap: f32::INFINITY, sweeps: u32::MAX },
        Options { layer_gap: -1.0, node_gap: -1.0, sweeps: 0 },
    ] {
        let l = layout(&weird, &es, &[0], &o);
        check(&weird, &es, &l);
        assert!(l.width.is_finite() && l.height.is_finite());
    }
}
