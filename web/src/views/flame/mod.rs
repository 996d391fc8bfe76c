//! The flame graph view of a file with call stacks: the graph (or icicle), the
//! timeline strip and its time range, search, zoom, and one function's sandwich;
//! its state, messages and part of the reducer, and the pure geometry of zooming
//! and panning. Everything here but the components runs natively.
//!
//! A [`Stacks`] state is one flame graph: the Flame graph tab's, or one rooted at a
//! sample profile's function (`SampleFilter::root`: its inline tree, shown beside
//! the function), drawn by the same component.
//!
//! Coordinate spaces: `x` in samples (weight units, the root spans `0..total`), `px`
//! CSS pixels of the canvas, depth in rows (`ROW_PX` tall).

use std::rc::Rc;

use pgolens::layout::flame::Flame;
use pgolens_protocol::{DocId, FlameLayout, Order, Reply, Request, SampleFilter, StacksInfo, Timeline};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod flame_canvas;
#[cfg(target_arch = "wasm32")]
pub mod flame_graph;
#[cfg(target_arch = "wasm32")]
mod render;
#[cfg(target_arch = "wasm32")]
mod timeline;

/// Height of a flame graph row, in CSS px.
pub const ROW_PX: f64 = 18.0;
/// Buckets of the timeline strip.
pub const TIMELINE_BINS: u32 = 400;

pub use pgolens_protocol::FrameNames;

/// Looking a frame up in the worker's [`FrameNames`].
pub trait FrameLookup {
    fn name(&self, frame: u32) -> &str;
    fn dso(&self, frame: u32) -> Option<&str>;
    fn kind(&self, frame: u32) -> &str;
}

impl FrameLookup for FrameNames {
    /// The name of `frame`; the root (no frame) is "all".
    fn name(&self, frame: u32) -> &str {
        self.names.get(frame as usize).map_or("all", String::as_str)
    }

    fn dso(&self, frame: u32) -> Option<&str> {
        let d = usize::try_from(*self.dso.get(frame as usize)?).ok()?;
        self.dsos.get(d).map(String::as_str)
    }

    fn kind(&self, frame: u32) -> &str {
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
    /// From the worker's layout.
    pub fn from_layout(layout: FlameLayout) -> FlameData {
        FlameData::from_arrays(&layout.rects.0, layout.rows.0)
    }

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

/// What a flame graph is laid out for: samples, inverted or not, sibling order.
pub type FlameKey = (SampleFilter, bool, Order);

/// The stack views of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stacks {
    pub samples: SampleFilter,
    pub inverted: bool,
    /// How siblings are ordered: by name or heaviest first.
    pub order: Order,
    pub names: Option<Rc<FrameNames>>,
    pub names_asked: bool,
    /// The flame graph shown, and what it was laid out for.
    pub flame: Option<Rc<FlameData>>,
    pub flame_of: Option<FlameKey>,
    /// What the last flame request was for.
    pub flame_asked: Option<FlameKey>,
    pub zoom: Option<Zoom>,
    /// The selected rectangle (clicked: zoomed to).
    pub selected: Option<u32>,
    /// The function selected in any stack view (flame graph, call tree, sandwich,
    /// Functions table), a frame id: what the details panel shows.
    pub selected_frame: Option<u32>,
    pub search: String,
    pub found: Option<Rc<Found>>,
    pub sandwich: Option<SandwichView>,
    pub timeline: Option<Rc<Timeline>>,
    /// The binaries and kallsyms files (open files) offered to name the frames, and
    /// the names of those the worker used.
    pub symbols_offered: Vec<u32>,
    pub symbolized_with: Vec<String>,
    /// The event the timeline was last asked for, and the last search asked for.
    pub timeline_asked: Option<u32>,
    pub search_asked: Option<(String, SampleFilter)>,
    /// A link's zoom and selected frame, waiting for the graph they are of.
    pub linked_zoom: Option<(Zoom, Option<u32>)>,
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

/// What the user does in the flame graph view.
#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// Aggregate the stack views over this event.
    SetEvent(u32),
    /// Flame graph ↔ icicle of the inverted tree.
    ToggleInverted,
    /// Order siblings by name or heaviest first.
    SetOrder(Order),
    /// Keep the samples in this time range (a timeline selection), or all.
    SelectTimeRange(Option<(u64, u64)>),
    /// Show this part of the flame graph (clamped to it).
    SetZoom(Zoom),
    /// Select a flame rectangle and zoom to it.
    ZoomToRect(u32),
    /// Back to the whole graph, nothing selected.
    ResetZoom,
    /// Select a function (a frame id) in every stack view, or none.
    SelectFrame(Option<u32>),
    /// Highlight the frames matching this (empty: none).
    Search(String),
    /// Show one function's callers and callees (a frame id), or close the sandwich.
    ShowSandwich(Option<u32>),
}

/// What a message changed, and whether the views under the samples must be asked again.
pub struct Changed {
    pub changed: bool,
    pub refresh: bool,
}

impl Stacks {
    /// Applies `msg`; `events`: how many events the file has.
    pub fn update(&mut self, msg: Msg, events: usize) -> Changed {
        let (changed, refresh) = match msg {
            Msg::SetEvent(event) => {
                let changed = self.samples.event != event && (event as usize) < events;
                if changed {
                    self.samples.event = event;
                }
                (changed, changed)
            }
            Msg::ToggleInverted => {
                self.inverted = !self.inverted;
                (true, true)
            }
            Msg::SetOrder(order) => {
                let changed = self.order != order;
                self.order = order;
                (changed, changed)
            }
            Msg::SelectTimeRange(range) => {
                let range = range.filter(|(a, b)| a < b);
                let changed = self.samples.range != range;
                self.samples.range = range;
                (changed, changed)
            }
            Msg::SetZoom(zoom) => {
                let Some(flame) = &self.flame else { return Changed { changed: false, refresh: false } };
                let zoom = zoom.clamped(flame.total(), flame.flame.depths());
                let changed = self.zoom() != zoom;
                self.zoom = Some(zoom);
                (changed, false)
            }
            Msg::ZoomToRect(rect) => {
                let Some(flame) = &self.flame else { return Changed { changed: false, refresh: false } };
                let (Some(&x0), Some(&w)) = (flame.flame.x0.get(rect as usize), flame.flame.width.get(rect as usize))
                else {
                    return Changed { changed: false, refresh: false };
                };
                let top = self.zoom().top;
                let zoom =
                    Zoom { x0: x0 as f64, x1: (x0 + w) as f64, top }.clamped(flame.total(), flame.flame.depths());
                self.zoom = Some(zoom);
                self.selected = Some(rect);
                (true, false)
            }
            Msg::ResetZoom => {
                let changed = self.zoom.is_some() || self.selected.is_some();
                self.zoom = None;
                self.selected = None;
                (changed, false)
            }
            Msg::SelectFrame(frame) => {
                let changed = self.selected_frame != frame;
                self.selected_frame = frame;
                (changed, false)
            }
            Msg::Search(pattern) => {
                let changed = self.search != pattern;
                self.search = pattern;
                (changed, changed)
            }
            Msg::ShowSandwich(frame) => {
                if self.sandwich.as_ref().map(|s| s.frame) == frame {
                    return Changed { changed: false, refresh: false };
                }
                self.sandwich = frame.map(|frame| SandwichView { frame, asked: None, callers: None, callees: None });
                (true, true)
            }
        };
        Changed { changed, refresh }
    }

    /// Asks the worker for what the views lack under the current event, time range
    /// and direction: frame names, the flame graph, the timeline (`timed`: when the
    /// samples have times), the search result, the sandwich. Returns whether it asked.
    pub fn refresh(&mut self, doc: DocId, timed: bool, out: &mut Outbox) -> bool {
        let samples = self.samples.clone();
        let mut asked = false;
        if !self.names_asked {
            out.send(doc, Request::FrameNames);
            self.names_asked = true;
            asked = true;
        }
        let key = (samples.clone(), self.inverted, self.order);
        if self.flame_asked.as_ref() != Some(&key) {
            out.send(doc, Request::Flame { samples: samples.clone(), inverted: self.inverted, order: self.order });
            self.flame_asked = Some(key);
            asked = true;
        }
        if timed && self.timeline_asked != Some(samples.event) {
            out.send(doc, Request::Timeline { event: samples.event, bins: TIMELINE_BINS });
            self.timeline_asked = Some(samples.event);
            asked = true;
        }
        let search = (self.search.clone(), samples.clone());
        if !self.search.is_empty() && self.search_asked.as_ref() != Some(&search) {
            out.send(doc, Request::Search { samples: samples.clone(), pattern: self.search.clone() });
            self.search_asked = Some(search);
            asked = true;
        }
        if let Some(s) = self.sandwich.as_mut().filter(|s| s.asked.as_ref() != Some(&samples)) {
            out.send(doc, Request::Sandwich { samples: samples.clone(), frame: s.frame });
            s.asked = Some(samples);
            asked = true;
        }
        asked
    }

    /// The frames were named anew (binaries dropped): frame ids changed, so
    /// everything laid out is dropped, to be asked again.
    pub fn symbolized(&mut self, with: Vec<String>) {
        let old = std::mem::take(self);
        *self = Stacks {
            samples: old.samples,
            inverted: old.inverted,
            order: old.order,
            search: old.search,
            symbols_offered: old.symbols_offered,
            symbolized_with: with,
            ..Stacks::default()
        };
    }

    /// Takes the worker's replies about the stacks; `false` for the others.
    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Flame { samples, inverted, order, layout } => {
                let key = Some((samples.clone(), inverted, order));
                if self.flame_asked != key {
                    return false; // an older request's
                }
                if self.flame.is_some() && self.flame_of == key {
                    return false; // asked twice (a link restored while it was coming): the same graph
                }
                let flame = FlameData::from_layout(layout);
                let (zoom, selected) = match self.linked_zoom.take() {
                    Some((zoom, selected)) => (Some(zoom.clamped(flame.total(), flame.flame.depths())), selected),
                    None => (None, None),
                };
                self.flame = Some(Rc::new(flame));
                self.flame_of = key;
                self.zoom = zoom;
                self.selected = selected;
                true
            }
            Reply::Sandwich { samples, frame, callers, callees } => match &mut self.sandwich {
                Some(s) if s.frame == frame && s.asked.as_ref() == Some(&samples) => {
                    s.callers = Some(Rc::new(FlameData::from_layout(callers)));
                    s.callees = Some(Rc::new(FlameData::from_layout(callees)));
                    true
                }
                _ => false,
            },
            Reply::FrameNames(names) => {
                self.names_arrived(Rc::new(names));
                true
            }
            Reply::Search { samples, pattern, found } => {
                let n = found.frames.iter().max().map_or(0, |&m| (m as usize).saturating_add(1));
                let mut hit = vec![false; n];
                for f in found.frames {
                    if let Some(h) = hit.get_mut(f as usize) {
                        *h = true;
                    }
                }
                self.found = Some(Rc::new(Found { pattern, samples, hit, weight: found.weight, total: found.total }));
                true
            }
            Reply::Timeline(t) => {
                self.timeline = Some(Rc::new(t));
                true
            }
            _ => false,
        }
    }

    /// The stack views' part of a link: `event` (an index), `inverted`, `range`
    /// (`start,end` times), `zoom` (`x0,x1,top`, in samples and rows), `frame` (the
    /// selected rectangle), `search` and `sandwich` (a frame id). Frame and
    /// rectangle ids are the worker's, the same for the same file and binaries.
    pub fn write_link(&self, link: &mut Params) {
        if self.samples.event != 0 {
            link.push("event", self.samples.event.to_string());
        }
        if self.inverted {
            link.push("inverted", "1");
        }
        if self.order == Order::Heaviest {
            link.push("order", "heaviest");
        }
        if let Some((start, end)) = self.samples.range {
            link.push("range", format!("{start},{end}"));
        }
        let (zoom, selected) = match self.linked_zoom {
            Some((zoom, selected)) => (Some(zoom), selected),
            None => (self.zoom, self.selected),
        };
        if let Some(Zoom { x0, x1, top }) = zoom {
            link.push("zoom", format!("{x0},{x1},{top}"));
        }
        if let Some(frame) = selected {
            link.push("frame", frame.to_string());
        }
        if !self.search.is_empty() {
            link.push("search", self.search.clone());
        }
        if let Some(s) = &self.sandwich {
            link.push("sandwich", s.frame.to_string());
        }
    }

    /// Takes a link's part (see [`Stacks::write_link`]); `events`: how many the
    /// file has. What is laid out is dropped: refreshing asks for it again.
    pub fn read_link(&mut self, link: &Params, events: usize) {
        let event = link.number::<u32>("event").filter(|&e| (e as usize) < events).unwrap_or(0);
        let range = link.numbers::<u64>("range").and_then(|r| match r[..] {
            [start, end] if start < end => Some((start, end)),
            _ => None,
        });
        let zoom = link.numbers::<f64>("zoom").and_then(|z| match z[..] {
            [x0, x1, top] if x0.is_finite() && x1.is_finite() && top.is_finite() && x0 < x1 => {
                Some(Zoom { x0, x1, top })
            }
            _ => None,
        });
        let old = std::mem::take(self);
        *self = Stacks {
            samples: SampleFilter { event, range, root: old.samples.root, transforms: Vec::new() },
            inverted: link.flag("inverted"),
            order: if link.get("order") == Some("heaviest") { Order::Heaviest } else { Order::Alphabetical },
            names: old.names,
            names_asked: old.names_asked,
            search: link.get("search").unwrap_or_default().to_string(),
            sandwich: link.number("sandwich").map(|frame| SandwichView {
                frame,
                asked: None,
                callers: None,
                callees: None,
            }),
            linked_zoom: zoom.map(|z| (z, link.number("frame"))),
            symbols_offered: old.symbols_offered,
            symbolized_with: old.symbolized_with,
            ..Stacks::default()
        };
    }

    /// The frame names came (for this graph or another of the file's).
    pub fn names_arrived(&mut self, names: Rc<FrameNames>) {
        self.names = Some(names);
        self.names_asked = true;
    }

    /// The events and time span the worker reported.
    pub fn events(info: Option<&StacksInfo>) -> usize {
        info.map_or(0, |s| s.events.len())
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
