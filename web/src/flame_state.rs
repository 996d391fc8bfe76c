//! The state of the stack views (flame graph, timeline, sandwich, stack functions)
//! of one file, and the pure geometry of zooming and panning. The reducer in
//! [`crate::state`] changes it; everything here runs natively.
//!
//! Coordinate spaces: `x` in samples (weight units, the root spans `0..total`), `px`
//! CSS pixels of the canvas, depth in rows (`ROW_PX` tall).

use std::rc::Rc;

use pgolens::layout::flame::Flame;

/// Height of a flame graph row, in CSS px.
pub const ROW_PX: f64 = 18.0;
/// Buckets of the timeline strip.
pub const TIMELINE_BINS: u32 = 400;

/// What the worker says of a file's stacks when it opens.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StacksInfo {
    pub events: Vec<String>,
    pub frames: u64,
    pub samples: u64,
    /// Sample times span `start..end`.
    pub start: u64,
    pub end: u64,
}

/// Every frame's name, dso and kind, by frame id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameNames {
    pub names: Vec<String>,
    pub dsos: Vec<String>,
    /// Index into `dsos`, or -1.
    pub dso: Vec<i64>,
    pub kinds: Vec<String>,
}

impl FrameNames {
    /// The name of `frame`; the root (no frame) is "all".
    pub fn name(&self, frame: u32) -> &str {
        self.names.get(frame as usize).map_or("all", String::as_str)
    }

    pub fn dso(&self, frame: u32) -> Option<&str> {
        let d = usize::try_from(*self.dso.get(frame as usize)?).ok()?;
        self.dsos.get(d).map(String::as_str)
    }

    pub fn kind(&self, frame: u32) -> &str {
        self.kinds.get(frame as usize).map_or("", String::as_str)
    }
}

/// A laid-out flame graph as the worker sends it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlameData {
    pub flame: Flame,
    /// Per rectangle: its frame ([`u32::MAX`] for the root) and self weight.
    pub frame: Vec<u32>,
    pub self_weight: Vec<u64>,
}

impl FlameData {
    /// From the worker's arrays: `[x0, width, self, frame]` per rectangle, and rows.
    pub fn from_arrays(rects: &[f64], rows: Vec<u32>) -> FlameData {
        let n = rects.len() / 4;
        let mut d = FlameData {
            flame: Flame {
                x0: Vec::with_capacity(n),
                width: Vec::with_capacity(n),
                node: Vec::new(),
                depth_start: rows,
            },
            frame: Vec::with_capacity(n),
            self_weight: Vec::with_capacity(n),
        };
        for r in rects.chunks_exact(4) {
            d.flame.x0.push(r[0] as u64);
            d.flame.width.push(r[1] as u64);
            d.self_weight.push(r[2] as u64);
            d.frame.push(if r[3] < 0.0 { u32::MAX } else { r[3] as u32 });
        }
        d
    }

    pub fn total(&self) -> u64 {
        self.flame.total()
    }
}

/// The part of the flame graph shown: `x0..x1` in samples, scrolled `top` rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Zoom {
    pub x0: f64,
    pub x1: f64,
    /// Rows scrolled away from the root.
    pub top: f64,
}

// Zooms are compared to skip repaints; NaN never gets in (every constructor clamps).
impl Eq for Zoom {}

impl Zoom {
    pub fn all(total: u64) -> Zoom {
        Zoom { x0: 0.0, x1: total.max(1) as f64, top: 0.0 }
    }

    /// Keeps the range inside `0..total`, at least a thousandth of a sample wide,
    /// and `top` inside the rows.
    pub fn clamped(self, total: u64, depths: u32) -> Zoom {
        let total = total.max(1) as f64;
        let width = (self.x1 - self.x0).clamp(1e-3, total);
        let width = if width.is_finite() { width } else { total };
        let x0 = if self.x0.is_finite() { self.x0.clamp(0.0, total - width) } else { 0.0 };
        let top = if self.top.is_finite() { self.top.clamp(0.0, f64::from(depths.saturating_sub(1))) } else { 0.0 };
        Zoom { x0, x1: x0 + width, top }
    }

    /// Zooms by `factor` (below 1: in) keeping the sample at `at` (0..1 of the width) in place.
    pub fn scaled(self, factor: f64, at: f64) -> Zoom {
        let width = self.x1 - self.x0;
        let pivot = self.x0 + width * at.clamp(0.0, 1.0);
        let new = width * factor;
        Zoom { x0: pivot - new * at, x1: pivot - new * at + new, top: self.top }
    }

    /// Moves by `dx` samples and `dtop` rows.
    pub fn panned(self, dx: f64, dtop: f64) -> Zoom {
        Zoom { x0: self.x0 + dx, x1: self.x1 + dx, top: self.top + dtop }
    }
}

/// A column of the stack functions table (the worker's column ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackColumn {
    Name,
    Self_,
    Total,
}

impl StackColumn {
    pub const ALL: [StackColumn; 3] = [StackColumn::Name, StackColumn::Self_, StackColumn::Total];

    pub fn id(self) -> &'static str {
        match self {
            StackColumn::Name => "name",
            StackColumn::Self_ => "self",
            StackColumn::Total => "total",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            StackColumn::Name => "Function",
            StackColumn::Self_ => "Self",
            StackColumn::Total => "Total",
        }
    }
}

/// One row of the stack functions table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StackFnRow {
    pub frame: u32,
    pub name: String,
    pub dso: Option<String>,
    pub self_weight: u64,
    pub total: u64,
}

/// The sort, name filter and time/event filter a page of the stack functions was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackFnQuery {
    pub column: StackColumn,
    pub descending: bool,
    pub filter: String,
    pub samples: SampleFilter,
}

/// Which samples the stack views aggregate: one event, optionally a time range.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleFilter {
    pub event: u32,
    pub range: Option<(u64, u64)>,
}

impl SampleFilter {
    /// The range as the worker takes it: `(t0, t1)`, or `(-1, -1)` for all.
    pub fn times(&self) -> (f64, f64) {
        self.range.map_or((-1.0, -1.0), |(a, b)| (a as f64, b as f64))
    }
}

/// The stack functions table: like the instrprof one, paged from the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackFns {
    pub query: StackFnQuery,
    pub total: Option<u64>,
    pub matching: Option<u64>,
    /// The filter's total weight, for percentages.
    pub weight: u64,
    pub start: u64,
    pub rows: Rc<Vec<StackFnRow>>,
    pub pending: Option<(u64, u64)>,
}

impl Default for StackFns {
    fn default() -> Self {
        StackFns {
            query: StackFnQuery {
                column: StackColumn::Total,
                descending: true,
                filter: String::new(),
                samples: SampleFilter::default(),
            },
            total: None,
            matching: None,
            weight: 0,
            start: 0,
            rows: Rc::default(),
            pending: None,
        }
    }
}

impl StackFns {
    pub fn row(&self, index: u64) -> Option<&StackFnRow> {
        self.rows.get(usize::try_from(index.checked_sub(self.start)?).ok()?)
    }
}

/// What a search found: matching frames (by frame id) and the share of the weight.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    pub pattern: String,
    pub samples: SampleFilter,
    pub hit: Vec<bool>,
    pub weight: u64,
    pub total: u64,
}

/// One function's callers and callees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SandwichView {
    pub frame: u32,
    /// The samples it was last asked for.
    pub asked: Option<SampleFilter>,
    pub callers: Option<Rc<FlameData>>,
    pub callees: Option<Rc<FlameData>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimelineData {
    pub event: u32,
    pub start: u64,
    pub end: u64,
    pub bins: Vec<u64>,
}

/// The stack views of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stacks {
    pub samples: SampleFilter,
    pub inverted: bool,
    pub names: Option<Rc<FrameNames>>,
    pub names_asked: bool,
    /// The flame graph shown, and what it was laid out for.
    pub flame: Option<Rc<FlameData>>,
    pub flame_of: Option<(SampleFilter, bool)>,
    /// What the last flame request was for.
    pub flame_asked: Option<(SampleFilter, bool)>,
    pub zoom: Option<Zoom>,
    /// The selected rectangle (clicked: zoomed to).
    pub selected: Option<u32>,
    pub search: String,
    pub found: Option<Rc<Found>>,
    pub sandwich: Option<SandwichView>,
    pub timeline: Option<Rc<TimelineData>>,
    /// The binaries and kallsyms files (open files) offered to name the frames, and
    /// the names of those the worker used.
    pub symbols_offered: Vec<u32>,
    pub symbolized_with: Vec<String>,
    /// The event the timeline was last asked for, and the last search asked for.
    pub timeline_asked: Option<u32>,
    pub search_asked: Option<(String, SampleFilter)>,
    pub functions: StackFns,
}

impl Stacks {
    /// The zoom shown: the one set, or everything.
    pub fn zoom(&self) -> Zoom {
        let total = self.flame.as_ref().map_or(1, |f| f.total());
        self.zoom.unwrap_or(Zoom::all(total))
    }

    /// The search result for the current pattern and samples, if it has come.
    pub fn found(&self) -> Option<&Found> {
        self.found
            .as_deref()
            .filter(|f| f.pattern == self.search && f.samples == self.samples && !self.search.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zooms_stay_inside_the_graph() {
        let z = Zoom::all(100);
        assert_eq!(z.scaled(0.5, 0.5), Zoom { x0: 25.0, x1: 75.0, top: 0.0 });
        assert_eq!(z.scaled(0.5, 0.0).clamped(100, 5), Zoom { x0: 0.0, x1: 50.0, top: 0.0 });
        assert_eq!(z.scaled(4.0, 0.5).clamped(100, 5), Zoom { x0: 0.0, x1: 100.0, top: 0.0 });
        assert_eq!(z.scaled(0.5, 0.5).panned(-40.0, 9.0).clamped(100, 5), Zoom { x0: 0.0, x1: 50.0, top: 4.0 });
        assert_eq!(z.panned(f64::NAN, 0.0).clamped(100, 5).x0, 0.0);
    }

    #[test]
    fn flame_data_comes_from_the_workers_arrays() {
        let d = FlameData::from_arrays(&[0.0, 6.0, 0.0, -1.0, 0.0, 6.0, 2.0, 3.0], vec![0, 1, 2]);
        assert_eq!(d.frame, vec![u32::MAX, 3]);
        assert_eq!(d.self_weight, vec![0, 2]);
        assert_eq!((d.total(), d.flame.depths()), (6, 2));
    }
}
