//! Layered (Sugiyama-style) layout of a directed graph: a function's basic blocks in
//! rows from top to bottom, its edges as polylines between them.
//!
//! Coordinates are layout units (CSS px at zoom 1), `x` to the right and `y` down
//! from the top-left corner of the bounding box; all of them are ≥ 0. Layer `k` is
//! a row as tall as its tallest node, `layer_gap` below the previous one; nodes are
//! top-aligned in their row. An edge spanning rows crosses each row in between at
//! a dummy position, straight down through the row:
//!
//! ```text
//! (0,0) +------------------------------------> x
//!       |        [ entry ]             layer 0   row_top[0] = 0
//!       |         |     \
//!       |     [   a   ]  |  <- dummy   layer 1   row_top[1] = row_h[0] + layer_gap
//!       |     [       ]  |
//!       |         |     /
//!       |        [ join ]              layer 2
//!       v y
//! ```
//!
//! Phases, for V nodes, E edges and D dummies:
//! 1. cycles: an iterative DFS from the entries reverses the edges to a node on
//!    the stack (back edges). O(V + E).
//! 2. layers: longest path from the sources, then nodes move toward the side with
//!    more edges while that shortens them (a few passes), then empty layers go.
//!    O(V + E) a pass.
//! 3. dummies: one per row an edge crosses; parallel edges share them. Their total,
//!    counted once per edge using them, is at most min(8 (V + E), 200 000): past
//!    that the longest edges get none and are drawn as one straight segment
//!    ([`Route::direct`]), possibly over other boxes.
//! 4. order: a DFS over the layered graph, then alternating down/up barycenter
//!    sweeps (ties by the count-weighted barycenter), keeping the order with the
//!    fewest crossings, counted by Barth, Jünger and Mutzel's accumulator tree.
//!    O(sweeps (V + D + E) log(V + D)).
//! 5. x: Brandes–Köpf: four alignments of each item with its median neighbour
//!    above or below, blocks compacted by a longest path, the average of the two
//!    median results. Boxes of a row keep their order and `node_gap` (half of it
//!    next to a dummy); dummy-to-dummy segments win conflicts, so long edges run
//!    straight. O((V + D + E) log(V + D)).
//! 6. routes: edges leave a box's bottom and enter a box's top at ports spread
//!    in the order of their other ends; a back edge's polyline is its reversed
//!    chain (out of its source's top, into its target's bottom); self-loops go
//!    round the box's right side.

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

/// A box to place: its size in layout units (CSS px at zoom 1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    pub width: f32,
    pub height: f32,
}

/// A directed edge; `weight` (the profile count) breaks ties: heavier edges are kept
/// straighter / shorter where the algorithm has a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: u32,
    pub to: u32,
    pub weight: u64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Vertical space between rows.
    pub layer_gap: f32,
    /// Horizontal space between boxes of a row (half of it next to a dummy).
    pub node_gap: f32,
    /// Barycenter sweeps for crossing reduction (at most [`MAX_SWEEPS`]).
    pub sweeps: u32,
}

impl Default for Options {
    fn default() -> Options {
        Options { layer_gap: 40.0, node_gap: 24.0, sweeps: 8 }
    }
}

/// Where a node went: `x`, `y` are the top-left corner of its box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub x: f32,
    pub y: f32,
    pub layer: u32,
}

/// An edge's polyline, in the edge's own direction.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Route {
    pub points: Vec<(f32, f32)>,
    /// The edge was reversed to break a cycle (a loop's back edge), or is a self-loop.
    pub back: bool,
    /// The dummies the edge passes, top row first, as item ids of [`Layout::order`].
    pub via: Vec<u32>,
    /// The edge spans rows without dummies (over the dummy budget): one straight
    /// segment, left out of [`Layout::crossings`].
    pub direct: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// One per input node.
    pub nodes: Vec<Placed>,
    /// One per input edge; empty `points` for an edge with an end out of range.
    pub edges: Vec<Route>,
    pub width: f32,
    pub height: f32,
    pub layers: u32,
    /// Crossings between the segments of adjacent layers (each distinct pair of
    /// items counted once), in the final order.
    pub crossings: u64,
    pub dummies: u32,
    /// Each layer's items from left to right: an id below `nodes.len()` is that
    /// node, the others are dummies.
    pub order: Vec<Vec<u32>>,
}

/// The most barycenter sweeps run, whatever [`Options::sweeps`] asks.
pub const MAX_SWEEPS: u32 = 64;

const NONE: u32 = u32::MAX;
/// Box sizes and gaps are clamped so sums of them stay finite in f32.
const MAX_SIZE: f32 = 1.0e6;
const MAX_GAP: f32 = 1.0e4;
/// Ids of nodes, edges and dummies stay far below `u32::MAX`; past these the
/// input is not laid out (nodes at the origin) or the edges are ignored.
const MAX_NODES: usize = 1 << 26;
const MAX_EDGES: usize = 1 << 27;
const DUMMY_CAP: u64 = 200_000;
const DUMMIES_PER_ELEMENT: u64 = 8;
const BALANCE_PASSES: u32 = 4;
/// How far a self-loop reaches right of its box (room kept for it in the row).
const SELF_LOOP: f32 = 12.0;

fn at(v: &[u32], i: usize) -> u32 {
    v.get(i).copied().unwrap_or(NONE)
}

fn atf(v: &[f32], i: u32) -> f32 {
    v.get(i as usize).copied().unwrap_or(0.0)
}

fn put<T>(v: &mut [T], i: u32, x: T) {
    if let Some(s) = v.get_mut(i as usize) {
        *s = x;
    }
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(NONE)
}

fn clamp(v: f32, max: f32) -> f32 {
    if v.is_finite() && v > 0.0 {
        v.min(max)
    } else {
        0.0
    }
}

/// Adjacency lists in one array, each in input order: `u`'s are
/// `list[start[u]..start[u + 1]]`, with a weight and an id each.
struct Csr {
    start: Vec<u32>,
    list: Vec<u32>,
    weight: Vec<f32>,
    id: Vec<u32>,
}

impl Csr {
    fn new(n: usize, pairs: impl Iterator<Item = (u32, u32, f32, u32)> + Clone) -> Csr {
        let mut start = vec![0u32; n.saturating_add(1)];
        for (u, _, _, _) in pairs.clone() {
            if (u as usize) < n {
                if let Some(c) = start.get_mut((u as usize).saturating_add(1)) {
                    *c = c.saturating_add(1);
                }
            }
        }
        let mut sum = 0u32;
        for s in &mut start {
            sum = sum.saturating_add(*s);
            *s = sum;
        }
        let mut fill = start.clone();
        let mut list = vec![0u32; sum as usize];
        let mut weight = vec![0f32; sum as usize];
        let mut id = vec![0u32; sum as usize];
        for (u, v, w, k) in pairs {
            if (u as usize) >= n {
                continue;
            }
            let Some(c) = fill.get_mut(u as usize) else { continue };
            let i = *c;
            *c = c.saturating_add(1);
            put(&mut list, i, v);
            put(&mut weight, i, w);
            put(&mut id, i, k);
        }
        Csr { start, list, weight, id }
    }

    fn range(&self, u: u32) -> Range<usize> {
        let a = at(&self.start, u as usize) as usize;
        let b = at(&self.start, (u as usize).saturating_add(1)) as usize;
        a..b.max(a)
    }

    fn row(&self, u: u32) -> &[u32] {
        self.list.get(self.range(u)).unwrap_or(&[])
    }

    fn weights(&self, u: u32) -> &[f32] {
        self.weight.get(self.range(u)).unwrap_or(&[])
    }

    fn ids(&self, u: u32) -> &[u32] {
        self.id.get(self.range(u)).unwrap_or(&[])
    }

    fn degree(&self, u: u32) -> usize {
        self.range(u).len()
    }
}

/// The edges between one pair of nodes, in one direction of the acyclic graph, with
/// one back flag: they share dummies and a polyline.
#[derive(Clone, Debug)]
struct Chain {
    /// Its ends in layout direction (a back edge's `to` is `upper`).
    upper: u32,
    lower: u32,
    back: bool,
    weight: u64,
    /// Edges sharing it.
    edges: u64,
    direct: bool,
    /// Its dummies are items `first..first + len`, top row first.
    first: u32,
    len: u32,
}

/// Items (nodes then dummies) in layer order: layer `k` is `items[start[k]..start[k + 1]]`.
struct Order {
    start: Vec<u32>,
    items: Vec<u32>,
    /// Each item's index in its layer.
    pos: Vec<u32>,
}

impl Order {
    fn layers(&self) -> usize {
        self.start.len().saturating_sub(1)
    }

    fn range(&self, k: usize) -> Range<usize> {
        let a = at(&self.start, k) as usize;
        let b = at(&self.start, k.saturating_add(1)) as usize;
        a..b.max(a)
    }

    fn layer(&self, k: usize) -> &[u32] {
        self.items.get(self.range(k)).unwrap_or(&[])
    }

    fn reindex(&mut self) {
        for k in 0..self.layers() {
            let r = self.range(k);
            for (j, &it) in self.items.get(r).unwrap_or(&[]).iter().enumerate() {
                put(&mut self.pos, it, u32_of(j));
            }
        }
    }
}

/// Lays out `nodes` and `edges` top to bottom, starting the cycle-breaking DFS at
/// `entries` (ids out of range ignored). Same input, same output, bit for bit.
pub fn layout(nodes: &[Node], edges: &[Edge], entries: &[u32], options: &Options) -> Layout {
    let n = nodes.len();
    if n == 0 || n > MAX_NODES {
        let origin = Placed { x: 0.0, y: 0.0, layer: 0 };
        return Layout {
            nodes: vec![origin; n],
            edges: vec![Route::default(); edges.len()],
            layers: u32::from(n > 0),
            ..Layout::default()
        };
    }
    let layer_gap = clamp(options.layer_gap, MAX_GAP);
    let node_gap = clamp(options.node_gap, MAX_GAP);
    let sweeps = options.sweeps.min(MAX_SWEEPS);
    let used = edges.get(..edges.len().min(MAX_EDGES)).unwrap_or(&[]);
    let valid = |e: &Edge| (e.from as usize) < n && (e.to as usize) < n;
    let width: Vec<f32> = nodes.iter().map(|b| clamp(b.width, MAX_SIZE)).collect();
    let height: Vec<f32> = nodes.iter().map(|b| clamp(b.height, MAX_SIZE)).collect();
    let mut self_loop = vec![false; n];
    for e in used.iter().filter(|e| valid(e) && e.from == e.to) {
        put(&mut self_loop, e.from, true);
    }

    // 1. Cycles. Successors in edge order, so a branch's taken edge goes first.
    let out =
        Csr::new(n, (0u32..).zip(used).filter(|(_, e)| valid(e) && e.from != e.to).map(|(i, e)| (e.from, i, 0.0, 0)));
    let mut back = vec![false; used.len()];
    let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
    let mut pre: Vec<u32> = Vec::with_capacity(n);
    let mut post: Vec<u32> = Vec::with_capacity(n);
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in entries.iter().copied().filter(|&r| (r as usize) < n).chain(0..u32_of(n)) {
        if state.get(root as usize) != Some(&0) {
            continue;
        }
        put(&mut state, root, 1);
        pre.push(root);
        stack.push((root, 0));
        while let Some(&(u, c)) = stack.last() {
            let Some(&e) = out.row(u).get(c as usize) else {
                put(&mut state, u, 2);
                post.push(u);
                stack.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 = c.saturating_add(1);
            }
            let v = used.get(e as usize).map_or(NONE, |e| e.to);
            match state.get(v as usize) {
                Some(0) => {
                    put(&mut state, v, 1);
                    pre.push(v);
                    stack.push((v, 0));
                }
                Some(1) => put(&mut back, e, true),
                _ => {}
            }
        }
    }

    // Chains: edges grouped by (upper, lower, back), numbered by their first edge.
    let dag_ends = |i: u32, e: &Edge| {
        if back.get(i as usize) == Some(&true) {
            (e.to, e.from, true)
        } else {
            (e.from, e.to, false)
        }
    };
    let mut keyed: Vec<(u32, u32, bool, u32)> = (0u32..)
        .zip(used)
        .filter(|(_, e)| valid(e) && e.from != e.to)
        .map(|(i, e)| {
            let (a, b, k) = dag_ends(i, e);
            (a, b, k, i)
        })
        .collect();
    keyed.sort_unstable();
    let mut rep = vec![NONE; used.len()];
    let mut group = None;
    let mut first = NONE;
    for &(a, b, k, i) in &keyed {
        if group != Some((a, b, k)) {
            group = Some((a, b, k));
            first = i;
        }
        put(&mut rep, i, first);
    }
    drop(keyed);
    let mut chain_of = vec![NONE; used.len()];
    let mut chains: Vec<Chain> = Vec::new();
    for (i, e) in (0u32..).zip(used) {
        let r = at(&rep, i as usize);
        if r == NONE {
            continue;
        }
        if r == i {
            let (upper, lower, back) = dag_ends(i, e);
            put(&mut chain_of, i, u32_of(chains.len()));
            chains.push(Chain { upper, lower, back, weight: 0, edges: 0, direct: false, first: NONE, len: 0 });
        }
        let c = at(&chain_of, r as usize);
        put(&mut chain_of, i, c);
        if let Some(ch) = chains.get_mut(c as usize) {
            ch.weight = ch.weight.saturating_add(e.weight);
            ch.edges = ch.edges.saturating_add(1);
        }
    }
    drop(rep);

    // 2. Layers. The reverse DFS post-order is a topological order of the graph
    // with its back edges reversed.
    let succ = Csr::new(n, chains.iter().map(|c| (c.upper, c.lower, 0.0, 0)));
    let pred = Csr::new(n, chains.iter().map(|c| (c.lower, c.upper, 0.0, 0)));
    let mut layer = vec![0u32; n];
    for &u in post.iter().rev() {
        let next = at(&layer, u as usize).saturating_add(1);
        for &s in succ.row(u) {
            if let Some(l) = layer.get_mut(s as usize) {
                *l = (*l).max(next);
            }
        }
    }
    // Moving a node by one row changes the total edge length by (in - out) or
    // (out - in): move it as far as its neighbours allow when that is negative.
    // Entries stay on top.
    let mut pinned = vec![false; n];
    for &r in entries {
        put(&mut pinned, r, true);
    }
    for _ in 0..BALANCE_PASSES {
        let mut moved = false;
        for &u in &post {
            let (i, o) = (pred.degree(u), succ.degree(u));
            if o <= i || pinned.get(u as usize) == Some(&true) {
                continue;
            }
            let below = succ.row(u).iter().map(|&s| at(&layer, s as usize)).min().unwrap_or(0);
            let to = below.saturating_sub(1);
            if let Some(l) = layer.get_mut(u as usize) {
                if to > *l {
                    *l = to;
                    moved = true;
                }
            }
        }
        for &u in post.iter().rev() {
            let (i, o) = (pred.degree(u), succ.degree(u));
            if i <= o {
                continue;
            }
            let above = pred.row(u).iter().map(|&p| at(&layer, p as usize)).max().unwrap_or(0);
            let to = above.saturating_add(1);
            if let Some(l) = layer.get_mut(u as usize) {
                if to < *l {
                    *l = to;
                    moved = true;
                }
            }
        }
        if !moved {
            break;
        }
    }
    // Drop empty layers (order between layers is kept, so every edge still points down).
    let top = layer.iter().copied().max().unwrap_or(0) as usize;
    let mut renumber = vec![0u32; top.saturating_add(1)];
    for &l in &layer {
        put(&mut renumber, l, 1);
    }
    let mut layers = 0u32;
    for r in &mut renumber {
        let here = *r;
        *r = layers;
        layers = layers.saturating_add(here);
    }
    for l in &mut layer {
        *l = at(&renumber, *l as usize);
    }
    drop(renumber);

    // 3. Dummies, within the budget counted over the routes that will hold them.
    let span = |c: &Chain| at(&layer, c.lower as usize).saturating_sub(at(&layer, c.upper as usize));
    let needs = |c: &Chain| u64::from(span(c).saturating_sub(1)).saturating_mul(c.edges);
    let mut total: u64 = chains.iter().map(needs).fold(0, u64::saturating_add);
    let elements = u64::try_from(n.saturating_add(used.len())).unwrap_or(u64::MAX);
    let budget = elements.saturating_mul(DUMMIES_PER_ELEMENT).min(DUMMY_CAP);
    for c in &mut chains {
        // Cannot happen (layering puts `lower` below `upper`); drawn straight if it did.
        c.direct = span(c) == 0;
    }
    if total > budget {
        let mut longest: Vec<(u32, u32)> = (0u32..).zip(&chains).map(|(i, c)| (span(c), i)).collect();
        longest.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        for (_, i) in longest {
            if total <= budget {
                break;
            }
            if let Some(c) = chains.get_mut(i as usize) {
                total = total.saturating_sub(needs(c));
                c.direct = true;
            }
        }
    }
    let mut item_layer = layer.clone();
    for c in &mut chains {
        let s = span(c);
        if c.direct || s < 2 {
            continue;
        }
        c.first = u32_of(item_layer.len());
        c.len = s.saturating_sub(1);
        let top = at(&layer, c.upper as usize);
        item_layer.extend((1..s).map(|k| top.saturating_add(k)));
    }
    let items = u32_of(item_layer.len());
    let dummies = items.saturating_sub(u32_of(n));
    // A box's width for centres; its extent (with a self-loop) for gaps.
    let mut box_w = width.clone();
    box_w.resize(items as usize, 0.0);
    let extent: Vec<f32> = (0u32..)
        .zip(&box_w)
        .map(|(i, &w)| if self_loop.get(i as usize) == Some(&true) { w + SELF_LOOP } else { w })
        .collect();

    // Segments between adjacent layers, one per distinct pair of items, weighted
    // 1 + log2(count); in chain order from each upper item.
    let mut segs: Vec<(u32, u32, u32, f32)> = Vec::new();
    for (ci, c) in (0u32..).zip(&chains) {
        if c.direct {
            continue;
        }
        let w = 1.0 + 64u32.saturating_sub(c.weight.leading_zeros()) as f32;
        let mut prev = c.upper;
        for d in (0..c.len).map(|k| c.first.saturating_add(k)) {
            segs.push((prev, d, ci, w));
            prev = d;
        }
        segs.push((prev, c.lower, ci, w));
    }
    segs.sort_unstable_by_key(|s| (s.0, s.1, s.2));
    let mut merged: Vec<(u32, u32, u32, f32)> = Vec::with_capacity(segs.len());
    for s in segs {
        match merged.last_mut() {
            Some(m) if m.0 == s.0 && m.1 == s.1 => m.3 += s.3,
            _ => merged.push(s),
        }
    }
    merged.sort_unstable_by_key(|s| (s.0, s.2));
    let segments = merged.len();
    let down = Csr::new(items as usize, (0u32..).zip(&merged).map(|(i, s)| (s.0, s.1, s.3, i)));
    let up = Csr::new(items as usize, (0u32..).zip(&merged).map(|(i, s)| (s.1, s.0, s.3, i)));
    drop(merged);

    // 4. Order. First as a DFS down the layered graph finds the items, from the
    // nodes in the cycle DFS's order.
    let nl = layers as usize;
    let mut start = vec![0u32; nl.saturating_add(1)];
    for &l in &item_layer {
        if let Some(c) = start.get_mut((l as usize).saturating_add(1)) {
            *c = c.saturating_add(1);
        }
    }
    let mut sum = 0u32;
    for s in &mut start {
        sum = sum.saturating_add(*s);
        *s = sum;
    }
    let mut ord = Order { items: vec![0u32; items as usize], pos: vec![0u32; items as usize], start };
    let mut fill = ord.start.clone();
    let mut seen = vec![false; items as usize];
    let mut found = |it: u32, seen: &mut Vec<bool>, ord: &mut Order| {
        put(seen, it, true);
        let Some(f) = fill.get_mut(at(&item_layer, it as usize) as usize) else { return };
        put(&mut ord.items, *f, it);
        *f = f.saturating_add(1);
    };
    let mut stack: Vec<(u32, u32)> = Vec::new();
    for root in pre.iter().copied().chain(0..items) {
        if seen.get(root as usize) != Some(&false) {
            continue;
        }
        found(root, &mut seen, &mut ord);
        stack.push((root, 0));
        while let Some(&(u, c)) = stack.last() {
            let Some(&v) = down.row(u).get(c as usize) else {
                stack.pop();
                continue;
            };
            if let Some(top) = stack.last_mut() {
                top.1 = c.saturating_add(1);
            }
            if seen.get(v as usize) == Some(&false) {
                found(v, &mut seen, &mut ord);
                stack.push((v, 0));
            }
        }
    }
    drop(stack);
    drop(seen);
    ord.reindex();
    let mut scratch = Scratch::default();
    let mut best_cross = crossings(&ord, &down, &mut scratch);
    let mut best = ord.items.clone();
    for s in 0..sweeps {
        if best_cross == 0 {
            break;
        }
        if s % 2 == 0 {
            for k in 1..nl {
                sort_layer(&mut ord, k, &up, &mut scratch);
            }
        } else {
            for k in (0..nl.saturating_sub(1)).rev() {
                sort_layer(&mut ord, k, &down, &mut scratch);
            }
        }
        let c = crossings(&ord, &down, &mut scratch);
        if c < best_cross {
            best_cross = c;
            best.clone_from(&ord.items);
        }
    }
    ord.items = best;
    ord.reindex();

    // 5. X: Brandes–Köpf centres, then left edges from 0.
    let center = brandes_kopf(&ord, &up, &down, segments, u32_of(n), &box_w, &extent, node_gap);
    let mut x: Vec<f32> = center.iter().zip(&box_w).map(|(c, w)| c - w * 0.5).collect();
    let left = x.iter().copied().fold(f32::INFINITY, f32::min);
    let left = if left.is_finite() { left } else { 0.0 };
    for v in &mut x {
        *v = (*v - left).max(0.0);
    }

    // 6. Y: rows as tall as their tallest box.
    let mut row_h = vec![0f32; nl];
    for (&l, &h) in layer.iter().zip(&height) {
        if let Some(r) = row_h.get_mut(l as usize) {
            *r = r.max(h);
        }
    }
    let mut row_top = Vec::with_capacity(nl);
    let mut y = 0.0f32;
    for &h in &row_h {
        row_top.push(y);
        y += h + layer_gap;
    }
    let bottom_of_rows = (y - layer_gap).max(0.0);

    // Ports: a node's edges leave its bottom (enter its top) spread along it in
    // the order of where they go, so they do not cross at the box.
    let center = |it: u32| atf(&x, it) + atf(&box_w, it) * 0.5;
    let next_x = |c: &Chain| if c.len > 0 { center(c.first) } else { center(c.lower) };
    let prev_x =
        |c: &Chain| if c.len > 0 { center(c.first.saturating_add(c.len).saturating_sub(1)) } else { center(c.upper) };
    let ports = |by: &Csr, toward: &dyn Fn(&Chain) -> f32| {
        let mut port = vec![0f32; chains.len()];
        let mut sorted: Vec<(f32, u32)> = Vec::new();
        for u in 0..u32_of(n) {
            sorted.clear();
            sorted.extend(by.row(u).iter().map(|&ci| (chains.get(ci as usize).map_or(0.0, toward), ci)));
            sorted.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            let step = atf(&width, u) / (sorted.len() as f32 + 1.0);
            for (k, &(_, ci)) in sorted.iter().enumerate() {
                put(&mut port, ci, atf(&x, u) + step * (k as f32 + 1.0));
            }
        }
        port
    };
    let leaving = Csr::new(n, (0u32..).zip(&chains).map(|(i, c)| (c.upper, i, 0.0, 0)));
    let entering = Csr::new(n, (0u32..).zip(&chains).map(|(i, c)| (c.lower, i, 0.0, 0)));
    let port_out = ports(&leaving, &next_x);
    let port_in = ports(&entering, &prev_x);

    let node_y = |u: u32| row_top.get(at(&layer, u as usize) as usize).copied().unwrap_or(0.0);
    let mut routes: Vec<Vec<(f32, f32)>> = Vec::with_capacity(chains.len());
    for (ci, c) in (0u32..).zip(&chains) {
        let mut p = Vec::with_capacity((c.len as usize).saturating_mul(2).saturating_add(3));
        let (l, px) = (at(&layer, c.upper as usize) as usize, atf(&port_out, ci));
        let (bottom, row_bottom) = (node_y(c.upper) + atf(&height, c.upper), node_y(c.upper) + atf(&row_h, u32_of(l)));
        p.push((px, bottom));
        if bottom < row_bottom {
            // Down to the row's bottom first, clear of taller boxes beside it.
            p.push((px, row_bottom));
        }
        for d in (0..c.len).map(|k| c.first.saturating_add(k)) {
            let k = at(&item_layer, d as usize) as usize;
            let top = row_top.get(k).copied().unwrap_or(0.0);
            let h = row_h.get(k).copied().unwrap_or(0.0);
            p.push((atf(&x, d), top));
            if h > 0.0 {
                p.push((atf(&x, d), top + h));
            }
        }
        p.push((atf(&port_in, ci), node_y(c.lower)));
        if c.back {
            p.reverse();
        }
        routes.push(p);
    }

    let mut out = Layout {
        nodes: (0u32..).zip(&layer).map(|(u, &l)| Placed { x: atf(&x, u), y: node_y(u), layer: l }).collect(),
        edges: Vec::with_capacity(edges.len()),
        width: 0.0,
        height: bottom_of_rows,
        layers,
        crossings: best_cross,
        dummies,
        order: (0..nl).map(|k| ord.layer(k).to_vec()).collect(),
    };
    for (i, e) in (0u32..).zip(edges) {
        let c = at(&chain_of, i as usize);
        let route = if let Some(ch) = chains.get(c as usize) {
            Route {
                points: routes.get(c as usize).cloned().unwrap_or_default(),
                back: ch.back,
                via: (0..ch.len).map(|k| ch.first.saturating_add(k)).collect(),
                direct: ch.direct,
            }
        } else if (i as usize) < used.len() && valid(e) {
            // A self-loop, out of the box's right side and back.
            let (u, right) = (e.from, atf(&x, e.from) + atf(&width, e.from));
            let (y, h) = (node_y(u), atf(&height, u));
            let (a, b) = (y + h * 0.3, y + h * 0.7);
            Route {
                points: vec![(right, a), (right + SELF_LOOP, a), (right + SELF_LOOP, b), (right, b)],
                back: true,
                ..Route::default()
            }
        } else {
            Route::default()
        };
        out.edges.push(route);
    }
    let mut w = (0u32..items).map(|it| atf(&x, it) + atf(&extent, it)).fold(0.0f32, f32::max);
    for &(px, py) in out.edges.iter().flat_map(|r| &r.points) {
        w = w.max(px);
        out.height = out.height.max(py);
    }
    out.width = w;
    out
}

/// Buffers reused across layers and sweeps.
#[derive(Default)]
struct Scratch {
    /// Barycenter, weighted barycenter, position, item.
    keys: Vec<(f32, f32, u32, u32)>,
    seq: Vec<u32>,
    tmp: Vec<u32>,
    tree: Vec<u32>,
}

/// Reorders layer `k` by the barycenter of each item's neighbours in `adj` (the
/// fixed layer), ties by the barycenter weighted by edge counts (unweighted keys
/// gave fewer crossings on real CFGs); items without any keep their position.
fn sort_layer(ord: &mut Order, k: usize, adj: &Csr, s: &mut Scratch) {
    s.keys.clear();
    for &it in ord.layer(k) {
        let p = at(&ord.pos, it as usize);
        let (mut count, mut sum, mut sw, mut swp) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
        for (&nb, &w) in adj.row(it).iter().zip(adj.weights(it)) {
            let q = at(&ord.pos, nb as usize) as f32;
            count += 1.0;
            sum += q;
            sw += w;
            swp += w * q;
        }
        let key = if count > 0.0 { (sum / count, swp / sw) } else { (p as f32, p as f32) };
        s.keys.push((key.0, key.1, p, it));
    }
    s.keys.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)).then(a.2.cmp(&b.2)));
    let r = ord.range(k);
    if let Some(slots) = ord.items.get_mut(r) {
        for (slot, key) in slots.iter_mut().zip(&s.keys) {
            *slot = key.3;
        }
    }
    for (j, key) in s.keys.iter().enumerate() {
        put(&mut ord.pos, key.3, u32_of(j));
    }
}

/// Crossings between adjacent layers: each pair's segments sorted by (upper,
/// lower) position, then each lower position counts the ones inserted before it
/// that are greater, in an accumulator tree (Barth, Jünger, Mutzel 2004).
fn crossings(ord: &Order, down: &Csr, s: &mut Scratch) -> u64 {
    let mut total = 0u64;
    for k in 1..ord.layers() {
        let size = ord.layer(k).len();
        s.seq.clear();
        for &it in ord.layer(k.saturating_sub(1)) {
            s.tmp.clear();
            s.tmp.extend(down.row(it).iter().map(|&b| at(&ord.pos, b as usize)));
            s.tmp.sort_unstable();
            s.seq.extend_from_slice(&s.tmp);
        }
        if s.seq.len() < 2 {
            continue;
        }
        let first = size.max(1).next_power_of_two();
        s.tree.clear();
        s.tree.resize(first.saturating_mul(2).saturating_sub(1), 0);
        for &p in &s.seq {
            let mut i = (p as usize).saturating_add(first).saturating_sub(1);
            if let Some(c) = s.tree.get_mut(i) {
                *c = c.saturating_add(1);
            }
            while i > 0 {
                // An odd index is a left child: its right sibling holds greater positions.
                if i & 1 == 1 {
                    let right = s.tree.get(i.saturating_add(1)).copied().unwrap_or(0);
                    total = total.saturating_add(u64::from(right));
                }
                i = i.saturating_sub(1) >> 1;
                if let Some(c) = s.tree.get_mut(i) {
                    *c = c.saturating_add(1);
                }
            }
        }
    }
    total
}

/// Horizontal centres by Brandes and Köpf (2001): four alignments (to the median
/// upper or lower neighbour, scanning rows from the left or the right) make
/// vertical blocks, each compacted to the left (right) by a longest path over the
/// blocks; the result is the average of each item's two median centres once the
/// four are aligned to the narrowest. Inner segments (dummy to dummy) win
/// conflicts, so long edges run straight; of two medians the heavier edge is tried
/// first, then one between two blocks (so chains of blocks line up). O((V + D + E) log) for each of the four.
#[allow(clippy::too_many_arguments)]
fn brandes_kopf(
    ord: &Order,
    up: &Csr,
    down: &Csr,
    segments: usize,
    n: u32,
    box_w: &[f32],
    extent: &[f32],
    node_gap: f32,
) -> Vec<f32> {
    let items = ord.pos.len();
    let nl = ord.layers();
    let pos = |v: u32| at(&ord.pos, v as usize);
    // A dummy's one upper neighbour, when that is a dummy too.
    let inner_upper = |v: u32| if v < n { None } else { up.row(v).first().copied().filter(|&u| u >= n) };
    // Type 1 conflicts: segments crossing an inner segment are not aligned.
    let mut marked = vec![false; segments];
    for k in 1..nl {
        let lower = ord.layer(k);
        let last_upper = u32_of(ord.layer(k.saturating_sub(1)).len().saturating_sub(1));
        let (mut k0, mut l) = (0u32, 0usize);
        for (l1, &v) in lower.iter().enumerate() {
            let inner = inner_upper(v);
            if l1.saturating_add(1) != lower.len() && inner.is_none() {
                continue;
            }
            let k1 = inner.map_or(last_upper, pos);
            for &w in lower.get(l..=l1).unwrap_or(&[]) {
                for (&u, &sid) in up.row(w).iter().zip(up.ids(w)) {
                    if (pos(u) < k0 || pos(u) > k1) && inner_upper(w) != Some(u) {
                        put(&mut marked, sid, true);
                    }
                }
            }
            l = l1.saturating_add(1);
            k0 = k1;
        }
    }
    // Space between the centres of neighbours `a` (left) and `b` in a row.
    let sep = |a: u32, b: u32| {
        let gap = if a < n && b < n { node_gap } else { node_gap * 0.5 };
        (atf(extent, a) - atf(box_w, a) * 0.5) + gap + atf(box_w, b) * 0.5
    };
    let mut runs: Vec<Vec<f32>> = Vec::with_capacity(4);
    let mut root: Vec<u32> = Vec::new();
    let mut aligned: Vec<bool> = Vec::new();
    let mut nb: Vec<(u32, u32, f32, u32)> = Vec::new();
    for variant in 0..4u8 {
        let (to_upper, from_left) = (variant < 2, variant % 2 == 0);
        let adj = if to_upper { up } else { down };
        // Position in scan order (only comparisons matter).
        let hpos = |v: u32| if from_left { pos(v) } else { u32::MAX.saturating_sub(pos(v)) };
        root.clear();
        root.extend(0..u32_of(items));
        aligned.clear();
        aligned.resize(items, false);
        for step in 0..nl {
            let k = if to_upper { step } else { nl.saturating_sub(1).saturating_sub(step) };
            let layer = ord.layer(k);
            let mut r: Option<u32> = None;
            let scan: &mut dyn Iterator<Item = &u32> =
                if from_left { &mut layer.iter() } else { &mut layer.iter().rev() };
            for &v in scan {
                nb.clear();
                nb.extend(
                    adj.row(v).iter().zip(adj.weights(v)).zip(adj.ids(v)).map(|((&u, &w), &sid)| (hpos(u), u, w, sid)),
                );
                if nb.is_empty() {
                    continue;
                }
                nb.sort_unstable_by_key(|t| t.0);
                let lo = nb.len().saturating_sub(1) / 2;
                let hi = nb.len() / 2;
                // Of two medians: the heavier edge, then a block over a dummy.
                let rank = |m: usize| nb.get(m).map_or((0.0, false), |t| (t.2, t.1 < n && v < n));
                let (a, b) = (rank(lo), rank(hi));
                let hi_first = b.0 > a.0 || (b.0 == a.0 && b.1 && !a.1);
                let tries = if hi_first { [hi, lo] } else { [lo, hi] };
                for m in tries {
                    if aligned.get(v as usize) == Some(&true) {
                        break;
                    }
                    let Some(&(hp, u, _, sid)) = nb.get(m) else { continue };
                    if marked.get(sid as usize) == Some(&true) || r.is_some_and(|r| r >= hp) {
                        continue;
                    }
                    let ru = at(&root, u as usize);
                    put(&mut root, v, ru);
                    put(&mut aligned, v, true);
                    r = Some(hp);
                }
            }
        }
        // Compaction: each block as far left (in scan order) as its row neighbours allow.
        let mut pairs: Vec<(u32, u32, f32, u32)> = Vec::with_capacity(items);
        for k in 0..nl {
            let layer = ord.layer(k);
            for w in layer.windows(2) {
                if let [a, b] = *w {
                    let (first, second, d) = if from_left { (a, b, sep(a, b)) } else { (b, a, sep(a, b)) };
                    let (ra, rb) = (at(&root, first as usize), at(&root, second as usize));
                    if ra != rb {
                        pairs.push((ra, rb, d, 0));
                    }
                }
            }
        }
        let blocks = Csr::new(items, pairs.iter().copied());
        drop(pairs);
        let mut indeg = vec![0u32; items];
        for &b in &blocks.list {
            if let Some(d) = indeg.get_mut(b as usize) {
                *d = d.saturating_add(1);
            }
        }
        let mut bx = vec![0f32; items];
        let mut queue: Vec<u32> =
            (0..u32_of(items)).filter(|&v| at(&root, v as usize) == v && indeg.get(v as usize) == Some(&0)).collect();
        while let Some(b) = queue.pop() {
            let base = atf(&bx, b);
            for (&c, &d) in blocks.row(b).iter().zip(blocks.weights(b)) {
                if let Some(x) = bx.get_mut(c as usize) {
                    *x = x.max(base + d);
                }
                if let Some(deg) = indeg.get_mut(c as usize) {
                    *deg = deg.saturating_sub(1);
                    if *deg == 0 {
                        queue.push(c);
                    }
                }
            }
        }
        let sign = if from_left { 1.0 } else { -1.0 };
        runs.push((0..u32_of(items)).map(|v| sign * atf(&bx, at(&root, v as usize))).collect());
    }
    // Align the four to the narrowest: left ones by their minimum, right ones by their maximum.
    let span = |xs: &[f32]| {
        let lo = xs.iter().copied().fold(f32::INFINITY, f32::min);
        let hi = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        if lo <= hi {
            (lo, hi)
        } else {
            (0.0, 0.0)
        }
    };
    let spans: Vec<(f32, f32)> = runs.iter().map(|xs| span(xs)).collect();
    let narrowest = spans.iter().copied().min_by(|a, b| (a.1 - a.0).total_cmp(&(b.1 - b.0))).unwrap_or((0.0, 0.0));
    let shift: Vec<f32> = (0u8..)
        .zip(&spans)
        .map(|(i, &(lo, hi))| if i % 2 == 0 { narrowest.0 - lo } else { narrowest.1 - hi })
        .collect();
    let mut center = vec![0f32; items];
    for (v, c) in center.iter_mut().enumerate() {
        let mut four = [0f32; 4];
        for ((slot, xs), s) in four.iter_mut().zip(&runs).zip(&shift) {
            *slot = xs.get(v).copied().unwrap_or(0.0) + s;
        }
        four.sort_unstable_by(f32::total_cmp);
        *c = (four.get(1).copied().unwrap_or(0.0) + four.get(2).copied().unwrap_or(0.0)) * 0.5;
    }
    // The average keeps every gap (order statistics of valid rows stay valid);
    // this only absorbs rounding.
    for k in 0..nl {
        for w in ord.layer(k).windows(2) {
            if let [a, b] = *w {
                let min = atf(&center, a) + sep(a, b);
                if let Some(cb) = center.get_mut(b as usize) {
                    *cb = cb.max(min);
                }
            }
        }
    }
    center
}
