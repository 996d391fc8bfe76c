//! Walking a laid-out flame graph: a rectangle's parent, its widest child, its
//! neighbours in the row, the next rectangle of a search's matches, and one
//! function's weights and neighbours, all from the rectangles alone (the worker
//! sends no tree). Plain Rust over [`FlameData`], tested natively.
//!
//! Rectangles are stored row by row, left to right ([`pgolens::layout::flame`]):
//! index order is reading order, and a child lies inside its parent's `x0..x1`.

use super::FlameData;

/// A keyboard move of the selection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// To the caller (one row towards the root).
    Parent,
    /// To the widest callee.
    Child,
    /// To the rectangle before or after in the same row.
    Prev,
    Next,
    /// To the next or previous rectangle of a search's matches, in reading order.
    NextMatch,
    PrevMatch,
}

/// One function's share of a graph.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Weights {
    /// Weight of the samples whose leaf is the function.
    pub self_weight: u64,
    /// Weight of the samples whose stack holds the function (once per stack).
    pub total: u64,
}

impl FlameData {
    fn x0(&self, rect: u32) -> Option<u64> {
        self.flame.x0.get(rect as usize).copied()
    }

    fn width(&self, rect: u32) -> u64 {
        self.flame.width.get(rect as usize).copied().unwrap_or(0)
    }

    pub fn frame_of(&self, rect: u32) -> Option<u32> {
        self.frame.get(rect as usize).copied()
    }

    /// The rectangle of the caller: the one in the row above holding its `x0`.
    pub fn parent(&self, rect: u32) -> Option<u32> {
        let depth = self.flame.depth_of(rect);
        let x0 = self.x0(rect)?;
        self.flame.at(x0 as f64, depth.checked_sub(1)?)
    }

    /// The widest rectangle of the row below inside `rect` (the leftmost of equals).
    pub fn widest_child(&self, rect: u32) -> Option<u32> {
        let depth = self.flame.depth_of(rect);
        let (x0, x1) = (self.x0(rect)?, self.x0(rect)?.saturating_add(self.width(rect)));
        let row = self.flame.row(depth.saturating_add(1));
        let xs = self.flame.x0.get(row.clone())?;
        let first = row.start + xs.partition_point(|&x| x < x0);
        let end = row.start + xs.partition_point(|&x| x < x1);
        (first..end)
            .filter_map(|i| u32::try_from(i).ok())
            .filter(|&i| self.width(i) > 0)
            .max_by_key(|&i| (self.width(i), std::cmp::Reverse(i)))
    }

    /// The rectangle before (`forward` false) or after `rect` in its row.
    pub fn beside(&self, rect: u32, forward: bool) -> Option<u32> {
        let row = self.flame.row(self.flame.depth_of(rect));
        let i = rect as usize;
        let j = if forward { i.checked_add(1)? } else { i.checked_sub(1)? };
        (row.contains(&i) && row.contains(&j)).then(|| u32::try_from(j).ok()).flatten()
    }

    /// The first rectangle after `from` (before it, when not `forward`) in reading
    /// order whose frame is `hit`, wrapping around; from the start (or the end) when
    /// nothing is selected.
    pub fn next_where(&self, from: Option<u32>, forward: bool, hit: impl Fn(u32) -> bool) -> Option<u32> {
        let n = self.frame.len();
        if n == 0 {
            return None;
        }
        let start = match (from.map(|f| f as usize).filter(|&f| f < n), forward) {
            (Some(f), true) => f + 1,
            (Some(f), false) => f + n - 1,
            (None, true) => 0,
            (None, false) => n - 1,
        };
        (0..n)
            .map(|k| if forward { (start + k) % n } else { (start + n - k) % n })
            .find(|&i| self.frame.get(i).is_some_and(|&f| f != u32::MAX && hit(f)))
            .and_then(|i| u32::try_from(i).ok())
    }

    /// The widest rectangle of `frame`: where a selection made elsewhere starts.
    pub fn widest_of(&self, frame: u32) -> Option<u32> {
        (0u32..)
            .zip(&self.frame)
            .filter(|&(_, &f)| f == frame)
            .max_by_key(|&(i, _)| (self.width(i), std::cmp::Reverse(i)))
            .map(|(i, _)| i)
    }

    /// Where the selection goes from `from` by `step`; `hit`: a search's frames.
    pub fn step(&self, from: Option<u32>, step: Step, hit: impl Fn(u32) -> bool) -> Option<u32> {
        match step {
            Step::NextMatch => self.next_where(from, true, hit),
            Step::PrevMatch => self.next_where(from, false, hit),
            // Nothing selected: the first move selects the root.
            _ if from.is_none() => (!self.frame.is_empty()).then_some(0),
            Step::Parent => self.parent(from?),
            Step::Child => self.widest_child(from?),
            Step::Prev => self.beside(from?, false),
            Step::Next => self.beside(from?, true),
        }
    }

    /// `frame`'s self and total weight in this graph. Self sums every rectangle's
    /// self weight (in an inverted graph, `inverted`, the leaves' row: the first
    /// below the root); total sums the rectangles with no ancestor of the same frame,
    /// so a recursive stack counts once.
    pub fn weights(&self, frame: u32, inverted: bool) -> Weights {
        let mut w = Weights::default();
        // Outermost rectangles of the frame so far, as x ranges (disjoint: two
        // overlapping ones would be ancestor and descendant).
        let mut outer: Vec<(u64, u64)> = Vec::new();
        for depth in 0..self.flame.depths() {
            let mut new = Vec::new();
            for i in self.flame.row(depth) {
                if self.frame.get(i) != Some(&frame) {
                    continue;
                }
                let (x0, width) =
                    (self.flame.x0.get(i).copied().unwrap_or(0), self.flame.width.get(i).copied().unwrap_or(0));
                if !inverted {
                    w.self_weight =
                        w.self_weight.saturating_add(self.self_weight(u32::try_from(i).unwrap_or(u32::MAX)));
                } else if depth == 1 {
                    w.self_weight = w.self_weight.saturating_add(width);
                }
                let k = outer.partition_point(|&(_, end)| end <= x0);
                if outer.get(k).is_some_and(|&(start, _)| start <= x0) {
                    continue;
                }
                w.total = w.total.saturating_add(width);
                new.push((x0, x0.saturating_add(width)));
            }
            outer.extend(new);
            outer.sort_unstable();
        }
        w
    }

    /// Every stack is one frame deep (no call chains were recorded).
    pub fn is_flat(&self) -> bool {
        self.flame.depths() == 2
    }

    /// The rectangles of the row below the root, heaviest first (names breaking ties).
    pub fn heaviest_first(&self) -> Vec<u32> {
        let mut row: Vec<u32> = self.flame.row(1).filter_map(|i| u32::try_from(i).ok()).collect();
        row.sort_by_key(|&i| (std::cmp::Reverse(self.width(i)), i));
        row
    }
}

/// The functions `frame` (an inlined frame: `inlined(frame)`) is inlined into in a
/// flame graph (root at depth 0, callers below callees): from each of its
/// rectangles, the first caller down the stack that is not inlined itself; by
/// weight, heaviest first.
pub fn inlined_into(graph: &FlameData, frame: u32, inlined: impl Fn(u32) -> bool) -> Vec<(u32, u64)> {
    let mut into: Vec<(u32, u64)> = Vec::new();
    for (rect, &f) in (0u32..).zip(&graph.frame) {
        if f != frame {
            continue;
        }
        let mut at = graph.parent(rect);
        while let Some(p) = at {
            match graph.frame_of(p) {
                Some(pf) if pf != u32::MAX && inlined(pf) => at = graph.parent(p),
                _ => break,
            }
        }
        let Some(holder) = at.and_then(|p| graph.frame_of(p)).filter(|&h| h != u32::MAX) else { continue };
        let w = graph.width(rect);
        match into.iter_mut().find(|(h, _)| *h == holder) {
            Some((_, total)) => *total += w,
            None => into.push((holder, w)),
        }
    }
    into.sort_by_key(|&(h, w)| (std::cmp::Reverse(w), h));
    into
}

/// The immediate callers (of a sandwich's callers graph) or callees (of its
/// callees graph) of `frame`, heaviest first, and the function's weight they share.
/// The graph's row of the function (the root's, or the row below a root of no
/// frame) is followed by the row of its neighbours.
pub fn neighbours(graph: &FlameData, frame: u32) -> (u64, Vec<(u32, u64)>) {
    let own = |d: u32| {
        let row = graph.flame.row(d);
        !row.is_empty() && row.clone().all(|i| graph.frame.get(i) == Some(&frame))
    };
    let Some(depth) = (0..2).find(|&d| own(d)) else { return (0, Vec::new()) };
    let whole = graph.flame.row(depth).filter_map(|i| graph.flame.width.get(i)).sum();
    let mut list: Vec<(u32, u64)> =
        graph.flame.row(depth + 1).filter_map(|i| Some((*graph.frame.get(i)?, *graph.flame.width.get(i)?))).collect();
    list.sort_by_key(|&(f, w)| (std::cmp::Reverse(w), f));
    (whole, list)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// root 100 ─┬─ a 60 (self 10) ─┬─ b 30 (self 10) ── a 20 (self 20)
    ///           │                 └─ c 20 (self 20)
    ///           └─ d 40 (self 40)
    /// Frames: a 0, b 1, c 2, d 3.
    fn graph() -> FlameData {
        #[rustfmt::skip]
        let rects = [
            0.0, 100.0, 0.0, -1.0,
            0.0, 60.0, 10.0, 0.0, 60.0, 40.0, 40.0, 3.0,
            0.0, 30.0, 10.0, 1.0, 30.0, 20.0, 20.0, 2.0,
            0.0, 20.0, 20.0, 0.0,
        ];
        FlameData::from_arrays(&rects, vec![0, 1, 3, 5, 6])
    }

    #[test]
    fn arrows_walk_callers_callees_and_the_row() {
        let g = graph();
        let none = |_| false;
        assert_eq!(g.step(None, Step::Next, none), Some(0), "the first move selects the root");
        assert_eq!(g.step(Some(0), Step::Child, none), Some(1), "a is wider than d");
        assert_eq!(g.step(Some(1), Step::Child, none), Some(3), "b (30) is wider than c (20)");
        assert_eq!(g.step(Some(3), Step::Next, none), Some(4));
        assert_eq!(g.step(Some(4), Step::Next, none), None, "c ends its row");
        assert_eq!(g.step(Some(4), Step::Prev, none), Some(3));
        assert_eq!(g.step(Some(3), Step::Prev, none), None);
        assert_eq!(g.step(Some(4), Step::Parent, none), Some(1));
        assert_eq!(g.step(Some(2), Step::Parent, none), Some(0));
        assert_eq!(g.step(Some(0), Step::Parent, none), None);
        assert_eq!(g.step(Some(2), Step::Child, none), None, "d is a leaf");
        assert_eq!(g.step(Some(5), Step::Parent, none), Some(3));
    }

    #[test]
    fn matches_are_visited_row_by_row_and_wrap() {
        let g = graph();
        let a_or_c = |f| f == 0 || f == 2;
        assert_eq!(g.step(None, Step::NextMatch, a_or_c), Some(1));
        assert_eq!(g.step(Some(1), Step::NextMatch, a_or_c), Some(4));
        assert_eq!(g.step(Some(4), Step::NextMatch, a_or_c), Some(5));
        assert_eq!(g.step(Some(5), Step::NextMatch, a_or_c), Some(1), "wraps");
        assert_eq!(g.step(Some(1), Step::PrevMatch, a_or_c), Some(5), "wraps back");
        assert_eq!(g.step(None, Step::PrevMatch, a_or_c), Some(5));
        assert_eq!(g.step(Some(1), Step::NextMatch, |_| false), None);
    }

    #[test]
    fn a_recursive_function_counts_each_stack_once() {
        let g = graph();
        assert_eq!(g.weights(0, false), Weights { self_weight: 30, total: 60 });
        assert_eq!(g.weights(1, false), Weights { self_weight: 10, total: 30 });
        assert_eq!(g.weights(3, false), Weights { self_weight: 40, total: 40 });
        assert_eq!(g.weights(9, false), Weights::default());
        assert_eq!(g.widest_of(0), Some(1));
        assert_eq!(g.widest_of(9), None);
    }

    #[test]
    fn an_inverted_graph_takes_self_from_the_leaves_row() {
        // The icicle of the graph above: leaves a 30 (← root 10, ← b ← a 20), b 10
        // (← a), c 20 (← a), d 40.
        #[rustfmt::skip]
        let rects = [
            0.0, 100.0, 0.0, -1.0,
            0.0, 30.0, 0.0, 0.0, 30.0, 10.0, 0.0, 1.0, 40.0, 20.0, 0.0, 2.0, 60.0, 40.0, 40.0, 3.0,
            0.0, 20.0, 0.0, 1.0, 30.0, 10.0, 10.0, 0.0, 40.0, 20.0, 20.0, 0.0,
            0.0, 20.0, 20.0, 0.0,
        ];
        let g = FlameData::from_arrays(&rects, vec![0, 1, 5, 8, 9]);
        assert_eq!(g.weights(0, true), Weights { self_weight: 30, total: 60 });
        assert_eq!(g.weights(1, true), Weights { self_weight: 10, total: 30 });
        assert_eq!(g.weights(2, true), Weights { self_weight: 20, total: 20 });
    }

    #[test]
    fn a_sandwich_gives_the_immediate_neighbours() {
        // Callers of a: <root> 60 ── a 60 ─┬─ b 20 ── a 20
        //                                   └─ main 40
        #[rustfmt::skip]
        let rects = [
            0.0, 60.0, 0.0, -1.0,
            0.0, 60.0, 0.0, 0.0,
            0.0, 20.0, 0.0, 1.0, 20.0, 40.0, 40.0, 7.0,
            0.0, 20.0, 20.0, 0.0,
        ];
        let callers = FlameData::from_arrays(&rects, vec![0, 1, 2, 4, 5]);
        assert_eq!(neighbours(&callers, 0), (60, vec![(7, 40), (1, 20)]));
        assert_eq!(neighbours(&callers, 5), (0, vec![]));
        // A graph rooted at the function itself.
        let rooted = FlameData::from_arrays(&rects[4..], vec![0, 1, 3, 4]);
        assert_eq!(neighbours(&rooted, 0), (60, vec![(7, 40), (1, 20)]));
    }

    #[test]
    fn an_inlined_frame_names_the_functions_holding_its_code() {
        // In graph(): say b (1) and c (2) are inlined. b is inlined into a (30);
        // c into a (20); a's inner call (under b) is not inlined.
        let g = graph();
        let inlined = |f| f == 1 || f == 2;
        assert_eq!(inlined_into(&g, 1, inlined), vec![(0, 30)]);
        assert_eq!(inlined_into(&g, 2, inlined), vec![(0, 20)]);
        // Chains of inlined frames are walked down to the function: with a's inner
        // call inlined too (frame 0 inlined everywhere), nothing holds the outer a,
        // whose caller is the root.
        let all = |f| f <= 2;
        assert_eq!(inlined_into(&g, 1, all), vec![]);
        assert_eq!(inlined_into(&g, 9, inlined), vec![]);
    }

    #[test]
    fn a_graph_of_one_frame_deep_stacks_is_flat() {
        let flat =
            FlameData::from_arrays(&[0.0, 9.0, 0.0, -1.0, 0.0, 2.0, 2.0, 4.0, 2.0, 7.0, 7.0, 1.0], vec![0, 1, 3]);
        assert!(flat.is_flat());
        assert_eq!(flat.heaviest_first(), vec![2, 1]);
        assert!(!graph().is_flat());
    }
}
