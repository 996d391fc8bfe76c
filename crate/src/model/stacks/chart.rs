//! The time-ordered stack chart (as the Firefox Profiler's Stack Chart and
//! speedscope's Time Order view draw it): time runs left to right, each sample's
//! stack stands from the top down, and a frame that stays on the stack across
//! consecutive samples is one box.
//!
//! The chart is computed for a width in columns (the canvas' pixels): each column
//! shows the first sample that falls in it, so a query costs a sort of the samples
//! in its time range plus columns × depth, however many samples there are, and
//! zooming in (a narrower range) gives every sample its own columns. A column with
//! no sample continues the one before while sampling goes on (the gap to the next
//! sample is at most twice the median interval) and is empty across longer pauses.

use alloc::vec;
use alloc::vec::Vec;

use super::{transform, Filter, FrameId, NodeId, StackProfile, ROOT};

/// Boxes of a stack chart over `start..end`, in `columns` equal columns.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackChart {
    pub start: u64,
    pub end: u64,
    pub columns: u32,
    /// In order of their first column, then depth.
    pub boxes: Vec<ChartBox>,
    /// The samples in the range (after the filter's transforms).
    pub samples: u64,
}

/// One frame staying on the stack from column `col0` to `col1` (exclusive), at
/// `depth` rows from the top (0: the outermost caller).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChartBox {
    pub col0: u32,
    pub col1: u32,
    pub depth: u32,
    pub frame: FrameId,
}

/// Columns a chart may ask for, and rows it draws.
const MAX_COLUMNS: u32 = 16_384;
const MAX_DEPTH: usize = 4096;

impl StackProfile {
    /// The stack chart of the samples `filter` keeps, over its time range (or all
    /// the samples' times), in `columns` columns.
    pub fn stack_chart(&self, filter: &Filter, columns: u32) -> StackChart {
        let columns = columns.clamp(1, MAX_COLUMNS);
        let (start, end) = match &filter.time {
            Some(r) => (r.start, r.end),
            None => match self.time_range() {
                Some((a, b)) => (a, b.saturating_add(1)),
                None => (0, 0),
            },
        };
        let mut chart = StackChart { start, end, columns, boxes: Vec::new(), samples: 0 };
        let span = u128::from(end.saturating_sub(start));
        let Ok(event) = u16::try_from(filter.event) else { return chart };
        if span == 0 {
            return chart;
        }
        let shape = self.shape(filter);
        // The samples in the range, by time: (time, leaf in the shape's tree). A
        // dropped one stays, as an empty column: its time was not spent elsewhere.
        let mut kept: Vec<(u64, NodeId)> = Vec::new();
        let samples = self.leaf.iter().zip(self.sample_events()).zip(self.time.iter());
        for ((&leaf, &e), t) in samples {
            if e != event || t < start || t >= end {
                continue;
            }
            let leaf = match &shape.map {
                Some(map) => map.get(leaf as usize).copied().unwrap_or(transform::DROPPED),
                None => leaf,
            };
            kept.push((t, leaf));
        }
        kept.sort_by_key(|&(t, _)| t);
        chart.samples = kept.iter().filter(|(_, l)| *l != transform::DROPPED).count() as u64;
        let median = median_interval(&kept);
        let column_of = |t: u64| {
            let c = super::scaled(t.saturating_sub(start), u64::from(columns), end.saturating_sub(start));
            u32::try_from(c).unwrap_or(u32::MAX).min(columns.saturating_sub(1))
        };
        // What each column shows: the index into `kept` of its sample, if any.
        let mut shown: Vec<Option<usize>> = vec![None; columns as usize];
        for (i, &(t, _)) in kept.iter().enumerate() {
            if let Some(slot) = shown.get_mut(column_of(t) as usize).filter(|s| s.is_none()) {
                *slot = Some(i);
            }
        }
        let mut last: Option<usize> = None;
        for c in 0..shown.len() {
            match shown.get(c).copied().flatten() {
                Some(i) => last = Some(i),
                None => {
                    // The last sample goes on across this column for one interval,
                    // or up to the next one when sampling goes on (it comes within
                    // two intervals).
                    let col_start = u128::from(start).saturating_add(
                        u128::try_from(c)
                            .unwrap_or(u128::MAX)
                            .saturating_mul(span)
                            .checked_div(u128::from(columns))
                            .unwrap_or(0),
                    );
                    let goes_on = last.and_then(|i| kept.get(i)).is_some_and(|a| {
                        let next = last.and_then(|i| kept.get(i.saturating_add(1)));
                        col_start < u128::from(a.0.saturating_add(median))
                            || next.is_some_and(|b| b.0.saturating_sub(a.0) <= median.saturating_mul(2))
                    });
                    if let Some(slot) = shown.get_mut(c) {
                        *slot = if goes_on { last } else { None };
                    }
                }
            }
        }
        // Boxes: per depth, the one open and its node (a frame at the same place in
        // the same stack prefix).
        let mut open: Vec<(NodeId, ChartBox)> = Vec::new();
        let mut path: Vec<NodeId> = Vec::new();
        for (c, sample) in (0u32..).zip(&shown) {
            path.clear();
            if let Some(&(_, leaf)) = sample.and_then(|i| kept.get(i)).filter(|(_, l)| *l != transform::DROPPED) {
                let mut node = leaf;
                while node != ROOT && path.len() < MAX_DEPTH {
                    path.push(node);
                    node = shape.parent.get(node as usize).copied().unwrap_or(ROOT);
                }
                path.reverse();
            }
            // Boxes still on the stack (the same node at the same depth, in the
            // column right after) go on; the rest close.
            let same = open.iter().zip(&path).take_while(|((n, b), p)| n == *p && b.col1 == c).count();
            chart.boxes.extend(open.drain(same..).map(|(_, b)| b));
            for (_, b) in &mut open {
                b.col1 = c.saturating_add(1);
            }
            for (depth, &node) in (0u32..).zip(&path).skip(same) {
                let frame = shape.frame.get(node as usize).copied().unwrap_or(super::NO_FRAME);
                open.push((node, ChartBox { col0: c, col1: c.saturating_add(1), depth, frame }));
            }
        }
        chart.boxes.extend(open.into_iter().map(|(_, b)| b));
        chart.boxes.sort_by_key(|b| (b.col0, b.depth));
        chart
    }
}

/// The median time between consecutive samples (0 with fewer than two).
fn median_interval(kept: &[(u64, NodeId)]) -> u64 {
    let mut deltas: Vec<u64> = kept
        .windows(2)
        .map(|w| match w {
            [a, b] => b.0.saturating_sub(a.0),
            _ => 0,
        })
        .collect();
    if deltas.is_empty() {
        return 0;
    }
    let mid = deltas.len() / 2;
    deltas.select_nth_unstable(mid);
    deltas.get(mid).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::super::{Filter, FrameKind, StackProfile, Transform};
    use super::ChartBox;
    use alloc::vec::Vec;

    fn boxes(chart: &super::StackChart) -> Vec<(u32, u32, u32, u32)> {
        chart.boxes.iter().map(|&ChartBox { col0, col1, depth, frame }| (col0, col1, depth, frame)).collect()
    }

    /// main → a → b at 0, 10, 20; main → c at 30; main → a at 40; a pause; main → a at 100.
    fn profile() -> (StackProfile, [u32; 4]) {
        let mut p = StackProfile::new();
        let e = p.add_event("cycles");
        let [main, a, b, c] = ["main", "a", "b", "c"].map(|n| p.frame(n, None, FrameKind::User));
        for t in [0, 10, 20] {
            p.push_sample(e, t, 1, &[main, a, b]).unwrap();
        }
        p.push_sample(e, 30, 1, &[main, c]).unwrap();
        p.push_sample(e, 40, 1, &[main, a]).unwrap();
        p.push_sample(e, 100, 1, &[main, a]).unwrap();
        (p, [main, a, b, c])
    }

    #[test]
    fn a_frame_that_stays_on_the_stack_is_one_box() {
        let (p, [main, a, b, c]) = profile();
        // 101 columns over 0..101: one per time unit. Samples 10 apart go on across
        // their gaps (the median interval is 10); 40 → 100 is a pause.
        let chart = p.stack_chart(&Filter::default(), 101);
        assert_eq!((chart.start, chart.end, chart.samples), (0, 101, 6));
        assert_eq!(
            boxes(&chart),
            [
                (0, 50, 0, main),
                (0, 30, 1, a),
                (0, 30, 2, b),
                (30, 40, 1, c),
                (40, 50, 1, a),
                (100, 101, 0, main),
                (100, 101, 1, a)
            ]
        );
    }

    #[test]
    fn each_column_shows_its_first_sample_and_transforms_apply() {
        let (p, [main, a, _, c]) = profile();
        // Two columns over 0..101: the samples at 0 and 100.
        let chart = p.stack_chart(&Filter::default(), 2);
        assert_eq!(boxes(&chart), [(0, 2, 0, main), (0, 2, 1, a), (0, 1, 2, 2)]);
        // Merging a lifts b; dropping c empties its column.
        let f =
            Filter { transforms: alloc::vec![Transform::Merge(a), Transform::DropFunction(c)], ..Filter::default() };
        let chart = p.stack_chart(&Filter { time: Some(0..50), ..f }, 5);
        assert_eq!(chart.samples, 4);
        assert_eq!(boxes(&chart), [(0, 3, 0, main), (0, 3, 1, 2), (4, 5, 0, main)]);
        assert_eq!(p.stack_chart(&Filter { event: 3, ..Filter::default() }, 10).boxes, []);
    }
}
