//! The stack chart of a recording with sample times: its samples' stacks in time
//! order, as the Firefox Profiler's Stack Chart and speedscope's Time Order view
//! draw them (callers at the top, a frame that stays on the stack one box). It
//! shows the flame graph's samples (event, time range, transforms: the timeline's
//! range is its window) at the canvas' width, asked for again when either changes.

use std::rc::Rc;

use pgolens_protocol::{DocId, Reply, Request, SampleFilter, StackChartBoxes};

use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod stack_chart_view;

/// A stack chart as the worker sends it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChartData {
    pub start: u64,
    pub end: u64,
    pub samples: u64,
    /// `[col0, col1, depth, frame]` per box.
    pub boxes: Vec<u32>,
    pub columns: u32,
}

impl ChartData {
    /// Rows of boxes.
    pub fn depth(&self) -> u32 {
        self.boxes.chunks_exact(4).map(|b| b[2].saturating_add(1)).max().unwrap_or(0)
    }

    /// The time at the left edge of column `col` (fractional columns allowed).
    pub fn time_at(&self, col: f64) -> u64 {
        let span = self.end.saturating_sub(self.start) as f64;
        let at = self.start as f64 + span * (col / f64::from(self.columns.max(1))).clamp(0.0, 1.0);
        at as u64
    }

    /// The box under column `col` at `depth`: its index.
    pub fn box_at(&self, col: u32, depth: u32) -> Option<usize> {
        self.boxes.chunks_exact(4).position(|b| b[2] == depth && b[0] <= col && col < b[1])
    }
}

/// The stack chart's state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackChartState {
    pub chart: Option<Rc<ChartData>>,
    /// What the last request was for: the samples and the columns.
    pub asked: Option<(SampleFilter, u32)>,
    /// The canvas' width in CSS pixels (0 until it is laid out).
    pub columns: u32,
}

/// What the user does in the stack chart.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// The canvas is this many CSS pixels wide.
    Resize(u32),
}

impl StackChartState {
    /// Applies `msg`; returns whether the chart must be asked for again.
    pub fn update(&mut self, msg: Msg) -> bool {
        match msg {
            Msg::Resize(columns) => {
                let changed = self.columns != columns;
                self.columns = columns;
                changed
            }
        }
    }

    /// Asks for the chart of `samples` at the current width unless it was asked for.
    pub fn refresh(&mut self, samples: &SampleFilter, doc: DocId, out: &mut Outbox) -> bool {
        let key = (samples.clone(), self.columns);
        if self.columns == 0 || self.asked.as_ref() == Some(&key) {
            return false;
        }
        out.send(doc, Request::StackChart { samples: samples.clone(), columns: self.columns });
        self.asked = Some(key);
        true
    }

    /// Takes the worker's chart; `false` for an older request's or another reply.
    pub fn on_reply(&mut self, reply: Reply) -> bool {
        let Reply::StackChart { samples, columns, chart } = reply else { return false };
        if self.asked != Some((samples, columns)) {
            return false;
        }
        let StackChartBoxes { start, end, samples, boxes } = chart;
        self.chart = Some(Rc::new(ChartData { start, end, samples, boxes: boxes.0, columns }));
        true
    }

    /// The frames were named anew: frame ids changed.
    pub fn symbolized(&mut self) {
        *self = StackChartState { columns: self.columns, ..StackChartState::default() };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgolens_protocol::U32Array;

    #[test]
    fn the_chart_is_asked_for_at_the_canvas_width_and_kept_when_it_answers() {
        let mut s = StackChartState::default();
        let mut out = Outbox::default();
        let samples = SampleFilter::default();
        assert!(!s.refresh(&samples, 1, &mut out), "not before the canvas has a width");
        assert!(s.update(Msg::Resize(800)));
        assert!(s.refresh(&samples, 1, &mut out));
        assert!(!s.refresh(&samples, 1, &mut out));
        let boxes =
            StackChartBoxes { start: 100, end: 900, samples: 3, boxes: U32Array(vec![0, 800, 0, 7, 0, 400, 1, 9]) };
        let old = Reply::StackChart { samples: samples.clone(), columns: 400, chart: boxes.clone() };
        assert!(!s.on_reply(old), "another width's");
        assert!(s.on_reply(Reply::StackChart { samples, columns: 800, chart: boxes }));
        let chart = s.chart.as_deref().unwrap();
        assert_eq!(
            (chart.depth(), chart.time_at(400.0), chart.box_at(500, 0), chart.box_at(500, 1)),
            (2, 500, Some(0), None)
        );
        assert_eq!(chart.box_at(10, 1), Some(1));
    }
}
