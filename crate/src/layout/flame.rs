//! Flame graph geometry: one rectangle per node of a [`CallTree`], and the query for
//! the rectangles a viewport shows.
//!
//! Coordinate spaces: `x` in samples (weight units: the root spans `0..total`),
//! `depth` in rows from the root; `px` are CSS pixels of the canvas. A node's
//! rectangle spans its parent's from the left, after its earlier siblings:
//!
//! ```text
//! depth 0  [ root ...................................... ]  0..total
//! depth 1  [ main ......................... ][ other .. ]
//! depth 2  [ a ............. ][ c ...... ]
//! ```
//!
//! Rectangles are stored grouped by depth and sorted by `x0` within a depth, so the
//! visible ones are found by binary search; runs of rectangles narrower than the
//! minimum width are jumped over (and reported as one merged run), so a query costs
//! O(depths × log n + what it returns), whatever the total.

use alloc::vec::Vec;
use core::ops::Range;

use crate::model::stacks::CallTree;

/// The rectangles of a flame graph, as a struct of arrays in depth-then-x order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flame {
    pub x0: Vec<u64>,
    pub width: Vec<u64>,
    /// The rectangle's node in the [`CallTree`] it was laid out from.
    pub node: Vec<u32>,
    /// Depth `d`'s rectangles are `depth_start[d]..depth_start[d + 1]`.
    pub depth_start: Vec<u32>,
}

/// What the canvas shows: an x range in samples, a range of depth rows, and its width.
#[derive(Clone, Debug, PartialEq)]
pub struct Viewport {
    pub x0: f64,
    pub x1: f64,
    pub width_px: f64,
    pub depths: Range<u32>,
    /// Rectangles narrower than this are merged into runs.
    pub min_px: f64,
}

impl Viewport {
    /// Samples per CSS pixel.
    pub fn samples_per_px(&self) -> f64 {
        (self.x1 - self.x0) / self.width_px.max(1.0)
    }

    pub fn px_from_samples(&self, x: f64) -> f64 {
        (x - self.x0) / self.samples_per_px()
    }

    pub fn samples_from_px(&self, px: f64) -> f64 {
        self.x0 + px * self.samples_per_px()
    }
}

/// A rectangle to draw, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Visible {
    /// Index of the rectangle, or [`MERGED`] for a run of narrow ones.
    pub rect: u32,
    pub depth: u32,
    pub px0: f64,
    pub px1: f64,
}

/// [`Visible::rect`] of a run of rectangles each narrower than the minimum width.
pub const MERGED: u32 = u32::MAX;

impl Flame {
    /// Lays out `tree` (nodes in pre-order, as the stack model returns them): its
    /// [`Rows`], and each rectangle's x as [`Rows::placed`] finds it.
    pub fn from_tree(tree: &CallTree) -> Flame {
        let rows = Rows::of(tree);
        let (mut x0, mut width) = (Vec::with_capacity(rows.node.len()), Vec::with_capacity(rows.node.len()));
        for (n, x) in rows.placed(tree) {
            x0.push(x);
            width.push(tree.nodes.get(n as usize).map_or(0, |c| c.total));
        }
        let Rows { node, depth_start } = rows;
        Flame { x0, width, node, depth_start }
    }

    pub fn len(&self) -> usize {
        self.x0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.x0.is_empty()
    }

    /// Rows of rectangles.
    pub fn depths(&self) -> u32 {
        u32::try_from(self.depth_start.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    /// The width of the root: the total weight.
    pub fn total(&self) -> u64 {
        self.width.first().copied().unwrap_or(0)
    }

    /// The rectangles of depth `d`, as indices.
    pub fn row(&self, d: u32) -> Range<usize> {
        let a = self.depth_start.get(d as usize).copied().unwrap_or(0) as usize;
        let b = self.depth_start.get((d as usize).saturating_add(1)).copied().unwrap_or(0) as usize;
        a..b.max(a).min(self.x0.len())
    }

    /// The depth of rectangle `rect`.
    pub fn depth_of(&self, rect: u32) -> u32 {
        let d = self.depth_start.partition_point(|&s| s <= rect);
        u32::try_from(d.saturating_sub(1)).unwrap_or(0)
    }

    fn x1(&self, i: usize) -> u64 {
        self.x0.get(i).copied().unwrap_or(0).saturating_add(self.width.get(i).copied().unwrap_or(0))
    }

    /// The rectangle at `x` (in samples) in row `depth`.
    pub fn at(&self, x: f64, depth: u32) -> Option<u32> {
        let row = self.row(depth);
        let i = lower_bound(row.clone(), |i| self.x1(i) as f64 <= x);
        let x0 = self.x0.get(i).copied()? as f64;
        (i < row.end && x0 <= x).then(|| u32::try_from(i).ok()).flatten()
    }

    /// Appends to `out` the rectangles `view` shows, row by row, left to right:
    /// those at least `min_px` wide, and each run of narrower ones as one [`MERGED`] span.
    pub fn visible(&self, view: &Viewport, out: &mut Vec<Visible>) {
        let min_w = view.min_px * view.samples_per_px();
        for depth in view.depths.start..view.depths.end.min(self.depths()) {
            let row = self.row(depth);
            let mut i = lower_bound(row.clone(), |i| self.x1(i) as f64 <= view.x0);
            while i < row.end {
                let x0 = self.x0.get(i).copied().unwrap_or(0) as f64;
                if x0 >= view.x1 {
                    break;
                }
                let px0 = view.px_from_samples(x0);
                let px1 = view.px_from_samples(self.x1(i) as f64);
                if px1 - px0 >= view.min_px {
                    out.push(Visible { rect: u32::try_from(i).unwrap_or(MERGED), depth, px0, px1 });
                    i = i.saturating_add(1);
                    continue;
                }
                // Jump to the first rectangle starting a minimum width further on.
                let target = x0 + min_w;
                let j = lower_bound(i.saturating_add(1)..row.end, |k| {
                    (self.x0.get(k).copied().unwrap_or(0) as f64) < target
                });
                // Rectangles between start inside that minimum width, so all but the
                // last end inside it: only the last can be wide, and it is drawn next.
                let mut last = j.saturating_sub(1).max(i);
                let wide = |k: usize| {
                    view.px_from_samples(self.x1(k) as f64)
                        - view.px_from_samples(self.x0.get(k).copied().unwrap_or(0) as f64)
                        >= view.min_px
                };
                if last > i && wide(last) {
                    last = last.saturating_sub(1);
                }
                let end = view.px_from_samples(self.x1(last) as f64);
                out.push(Visible { rect: MERGED, depth, px0, px1: end });
                i = last.saturating_add(1);
            }
        }
    }
}

/// A tree's rectangles without their x: its nodes grouped by depth, in pre-order
/// (x order) within a row, as [`Flame::node`] and [`Flame::depth_start`] hold them.
/// [`Rows::placed`] then finds each one's x a row at a time, from the row above,
/// so a layout can be written out without an x and a width kept a node (16 bytes,
/// 72 MB for a tree of 4.5M nodes, in wasm memory, which keeps its high-water mark).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rows {
    pub node: Vec<u32>,
    pub depth_start: Vec<u32>,
}

impl Rows {
    /// Groups the nodes of `tree` (in pre-order) by depth.
    pub fn of(tree: &CallTree) -> Rows {
        // Each row's size at depth_start[depth + 1], then their sums.
        let mut depth_start = alloc::vec![0u32];
        for depth in tree.depths() {
            let d = (depth as usize).saturating_add(1);
            if d >= depth_start.len() {
                depth_start.resize(d.saturating_add(1), 0);
            }
            if let Some(c) = depth_start.get_mut(d) {
                *c = c.saturating_add(1);
            }
        }
        for d in 1..depth_start.len() {
            let prev = depth_start.get(d.saturating_sub(1)).copied().unwrap_or(0);
            if let Some(c) = depth_start.get_mut(d) {
                *c = c.saturating_add(prev);
            }
        }
        let mut next: Vec<u32> = depth_start.clone();
        let mut node = alloc::vec![0u32; tree.nodes.len()];
        for (i, depth) in (0u32..).zip(tree.depths()) {
            let Some(slot) = next.get_mut(depth as usize) else { continue };
            if let Some(n) = node.get_mut(*slot as usize) {
                *n = i;
            }
            *slot = slot.saturating_add(1);
        }
        Rows { node, depth_start }
    }

    /// Each rectangle in order, row by row and left to right: its node and x.
    ///
    /// A node lies in its parent after its elder siblings. A row's parents come in
    /// the row above in the order their children come in this one (both are in
    /// pre-order), so one pass over the row above, keeping each parent's next free
    /// x, places a row: two rows are held, never an array a node.
    pub fn placed<'a>(&'a self, tree: &'a CallTree) -> impl Iterator<Item = (u32, u64)> + 'a {
        // The next free x inside each node of the row above, and the x of each
        // node of this row so far (the next row's free x to start from).
        let mut above: Vec<u64> = Vec::new();
        let mut here: Vec<u64> = Vec::new();
        let (mut row, mut above_start, mut parent_at) = (0usize, 0usize, 0usize);
        (0..self.node.len()).map(move |i| {
            while self.depth_start.get(row.saturating_add(1)).is_some_and(|&end| end as usize <= i) {
                row = row.saturating_add(1);
                core::mem::swap(&mut above, &mut here);
                here.clear();
                above_start = self.depth_start.get(row.saturating_sub(1)).copied().unwrap_or(0) as usize;
                parent_at = 0;
            }
            let n = self.node.get(i).copied().unwrap_or(0);
            let x = match tree.nodes.get(n as usize) {
                Some(c) if row > 0 => {
                    // Past the parents with no child left here (in a tree not in
                    // pre-order, past them all: x 0 from then on, the pass still ends).
                    let parent = |k: usize| self.node.get(above_start.saturating_add(k)).copied();
                    while parent_at < above.len() && parent(parent_at) != Some(c.parent) {
                        parent_at = parent_at.saturating_add(1);
                    }
                    match above.get_mut(parent_at) {
                        Some(free) => {
                            let x = *free;
                            *free = free.saturating_add(c.total);
                            x
                        }
                        None => 0,
                    }
                }
                _ => 0,
            };
            here.push(x);
            (n, x)
        })
    }
}

/// The first index in `range` where `before` is false (`before` must be true then false).
fn lower_bound(range: Range<usize>, before: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (range.start, range.end.max(range.start));
    while lo < hi {
        let mid = lo.saturating_add(hi.saturating_sub(lo) / 2);
        if before(mid) {
            lo = mid.saturating_add(1);
        } else {
            hi = mid;
        }
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stacks::{Filter, FrameKind, StackProfile};
    use alloc::vec;

    fn flame() -> (Flame, CallTree) {
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let [main, a, b, c] = ["main", "a", "b", "c"].map(|n| p.frame(n, None, FrameKind::User));
        p.push_sample(e, 0, 60, &[main, a, b]).unwrap();
        p.push_sample(e, 0, 20, &[main, a]).unwrap();
        p.push_sample(e, 0, 19, &[main, c]).unwrap();
        p.push_sample(e, 0, 1, &[main, b]).unwrap();
        let tree = p.call_tree(&Filter { event: e, ..Filter::default() });
        (Flame::from_tree(&tree), tree)
    }

    #[test]
    fn rectangles_nest_in_their_parents_grouped_by_depth() {
        let (f, tree) = flame();
        assert_eq!(f.depth_start, vec![0, 1, 2, 5, 6]);
        assert_eq!(f.x0, vec![0, 0, 0, 80, 81, 0]);
        assert_eq!(f.width, vec![100, 100, 80, 1, 19, 60]);
        let frames: Vec<u32> = f.node.iter().map(|&n| tree.nodes[n as usize].frame).collect();
        assert_eq!(frames, vec![u32::MAX, 0, 1, 2, 3, 2]);
        assert_eq!((f.depths(), f.total(), f.depth_of(4), f.depth_of(5)), (4, 100, 2, 3));
        assert_eq!(f.at(80.5, 2), Some(3));
        assert_eq!(f.at(99.0, 2), Some(4));
        assert_eq!(f.at(100.0, 2), None);
        assert_eq!(f.at(70.0, 3), None);
    }

    /// Each node at its parent's x plus its elder siblings' totals, worked out
    /// from the parent links, for trees of many stacks in each order and shape
    /// the views lay out.
    #[test]
    fn every_node_lies_after_its_elder_siblings_inside_its_parent() {
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let frames: Vec<u32> = (0..12).map(|i| p.frame(&alloc::format!("f{i}"), None, FrameKind::User)).collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let depth = 1 + (seed % 9) as usize;
            let stack: Vec<u32> = (0..depth).map(|d| frames[((seed >> (4 * d + 8)) % 12) as usize]).collect();
            p.push_sample(e, 0, 1 + (seed >> 60), &stack).unwrap();
        }
        let filter = Filter { event: e, ..Filter::default() };
        let tree = p.call_tree(&filter);
        for tree in [tree.heaviest_first(), p.inverted(&filter), tree] {
            let f = Flame::from_tree(&tree);
            let n = tree.nodes.len();
            assert!(n > 1000, "{n} nodes");
            // By the parent links: x of each node, in pre-order.
            let mut x = vec![0u64; n];
            let mut next_inside = vec![0u64; n];
            let mut depth = vec![0usize; n];
            for (i, node) in tree.nodes.iter().enumerate().skip(1) {
                let parent = node.parent as usize;
                depth[i] = depth[parent] + 1;
                x[i] = next_inside[parent];
                next_inside[parent] += node.total;
                next_inside[i] = x[i];
                // Children fit in their parent.
                assert!(x[i] + node.total <= x[parent] + tree.nodes[parent].total);
            }
            let mut placed = vec![false; n];
            for (row, bounds) in f.depth_start.windows(2).enumerate() {
                for at in bounds[0] as usize..bounds[1] as usize {
                    let node = f.node[at] as usize;
                    assert_eq!(depth[node], row);
                    assert_eq!((f.x0[at], f.width[at]), (x[node], tree.nodes[node].total), "node {node}");
                    placed[node] = true;
                }
            }
            assert!(placed.iter().all(|&p| p), "every node once");
        }
    }

    #[test]
    fn the_viewport_shows_wide_rectangles_and_merges_narrow_runs() {
        let (f, _) = flame();
        let mut out = Vec::new();
        let view = Viewport { x0: 0.0, x1: 100.0, width_px: 100.0, depths: 0..10, min_px: 2.0 };
        f.visible(&view, &mut out);
        let got: Vec<(u32, u32, f64, f64)> = out.iter().map(|v| (v.rect, v.depth, v.px0, v.px1)).collect();
        assert_eq!(
            got,
            vec![
                (0, 0, 0.0, 100.0),
                (1, 1, 0.0, 100.0),
                (2, 2, 0.0, 80.0),
                (MERGED, 2, 80.0, 81.0),
                (4, 2, 81.0, 100.0),
                (5, 3, 0.0, 60.0)
            ]
        );
        // Zoomed into 75..85, depth 2 only: b is now 10 px wide.
        out.clear();
        let view = Viewport { x0: 75.0, x1: 85.0, width_px: 100.0, depths: 2..3, min_px: 2.0 };
        f.visible(&view, &mut out);
        let got: Vec<(u32, f64, f64)> = out.iter().map(|v| (v.rect, v.px0, v.px1)).collect();
        assert_eq!(got, vec![(2, -750.0, 50.0), (3, 50.0, 60.0), (4, 60.0, 250.0)]);
    }

    #[test]
    fn a_million_narrow_rectangles_cost_what_is_shown() {
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let root = p.frame("root", None, FrameKind::User);
        let leaves: Vec<u32> = (0..1000).map(|i| p.frame(&alloc::format!("f{i}"), None, FrameKind::User)).collect();
        for (i, &l) in leaves.iter().enumerate() {
            for (j, &m) in leaves.iter().enumerate().take(1000) {
                p.push_sample(e, 0, 1 + (i * j % 7) as u64, &[root, l, m]).unwrap();
            }
        }
        let f = Flame::from_tree(&p.call_tree(&Filter { event: e, ..Filter::default() }));
        assert_eq!(f.len(), 1 + 1 + 1000 + 1_000_000);
        let mut out = Vec::new();
        let view = Viewport { x0: 0.0, x1: f.total() as f64, width_px: 1000.0, depths: 0..4, min_px: 1.0 };
        f.visible(&view, &mut out);
        // At most a run and a rectangle per pixel per row.
        assert!(out.len() <= 4 * 2 * 1000, "{}", out.len());
        let covered: f64 = out.iter().filter(|v| v.depth == 3).map(|v| v.px1 - v.px0).sum();
        assert!((covered - 1000.0).abs() < 1e-6, "{covered}");
    }

    #[test]
    fn rows_place_what_the_layout_places_and_end_on_any_tree() {
        let (f, tree) = flame();
        let rows = Rows::of(&tree);
        assert_eq!((&rows.node, &rows.depth_start), (&f.node, &f.depth_start));
        let placed: Vec<(u32, u64)> = rows.placed(&tree).collect();
        assert_eq!(placed, f.node.iter().copied().zip(f.x0.iter().copied()).collect::<Vec<_>>());
        // Parents after their children, out of range, or themselves: a rectangle a
        // node, no more.
        use crate::model::stacks::CallNode;
        let node = |parent| CallNode { frame: 0, parent, total: 5, self_weight: 1 };
        let odd = CallTree { nodes: vec![node(3), node(0), node(9), node(1), node(4), node(u32::MAX)] };
        let rows = Rows::of(&odd);
        assert_eq!(rows.placed(&odd).count(), odd.nodes.len());
        assert_eq!(Flame::from_tree(&odd).len(), odd.nodes.len());
        assert_eq!(Rows::of(&CallTree { nodes: vec![] }).placed(&CallTree { nodes: vec![] }).count(), 0);
    }
}
