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
use pgolens_protocol::{DocId, FlameLayout, Order, Rects, Reply, Request, SampleFilter, StacksInfo, Timeline};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
mod details;
#[cfg(target_arch = "wasm32")]
pub mod flame_canvas;
#[cfg(target_arch = "wasm32")]
pub mod flame_graph;
pub mod navigate;
#[cfg(target_arch = "wasm32")]
pub mod render;
pub mod timeline;

/// Height of a flame graph row, in CSS px.
pub const ROW_PX: f64 = 18.0;
/// Buckets of the timeline strip.
pub const TIMELINE_BINS: u32 = 400;

pub use navigate::Step;
pub use pgolens_protocol::FrameNames;

/// Looking a frame up in the worker's [`FrameNames`].
pub trait FrameLookup {
    fn name(&self, frame: u32) -> &str;
    fn dso(&self, frame: u32) -> Option<&str>;
    fn kind(&self, frame: u32) -> &str;
    /// The raw (mangled) name where it differs from the name, else "".
    fn raw(&self, frame: u32) -> &str;
    /// `file:line` of the function's start where known, else "".
    fn source(&self, frame: u32) -> &str;
}

impl FrameLookup for FrameNames {
    /// The name of `frame`; the root (no frame) is "all".
    fn name(&self, frame: u32) -> &str {
        self.names.get(frame as usize).unwrap_or("all")
    }

    fn dso(&self, frame: u32) -> Option<&str> {
        self.dsos.get(self.dso_index(frame)? as usize).map(String::as_str)
    }

    fn kind(&self, frame: u32) -> &str {
        self.kinds.get(frame as usize).unwrap_or_default()
    }

    fn raw(&self, frame: u32) -> &str {
        self.raw.get(frame as usize).unwrap_or_default()
    }

    fn source(&self, frame: u32) -> &str {
        self.source.get(frame as usize).unwrap_or_default()
    }
}

/// A laid-out flame graph as the worker sends it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FlameData {
    pub flame: Flame,
    /// Per rectangle: its frame ([`u32::MAX`] for the root).
    pub frame: Vec<u32>,
    /// The rectangles whose self weight is not 0 (ascending), and those weights.
    self_rects: Vec<u32>,
    self_weights: Vec<u64>,
}

impl FlameData {
    /// From the worker's layout, read a block at a time (the rectangles are not
    /// copied whole into the page's wasm memory first).
    pub fn from_layout(layout: FlameLayout) -> FlameData {
        let n = layout.len();
        let mut d = FlameData {
            flame: Flame {
                x0: Vec::with_capacity(n),
                width: Vec::with_capacity(n),
                node: Vec::new(),
                depth_start: layout.rows.0,
            },
            frame: Vec::with_capacity(n),
            self_rects: layout.self_rects.0,
            self_weights: layout.self_weights.0.iter().map(|&w| w as u64).collect(),
        };
        layout.rects.for_each_block(|block| {
            for r in block.chunks_exact(Rects::WIDTH) {
                if let [x0, width, frame] = *r {
                    d.flame.x0.push(x0 as u64);
                    d.flame.width.push(width as u64);
                    d.frame.push(if frame < 0.0 { u32::MAX } else { frame as u32 });
                }
            }
        });
        // Looked up by binary search: kept ascending whatever arrived.
        if !d.self_rects.is_sorted() {
            let mut pairs: Vec<(u32, u64)> = d.self_rects.iter().copied().zip(d.self_weights.iter().copied()).collect();
            pairs.sort_unstable();
            (d.self_rects, d.self_weights) = pairs.into_iter().unzip();
        }
        d
    }

    /// From `[x0, width, self, frame]` per rectangle, and rows (tests).
    #[cfg(test)]
    pub fn from_arrays(rects: &[f64], rows: Vec<u32>) -> FlameData {
        FlameData::from_layout(FlameLayout::from_quads(rects, rows))
    }

    /// Rectangle `rect`'s self weight.
    pub fn self_weight(&self, rect: u32) -> u64 {
        match self.self_rects.binary_search(&rect) {
            Ok(i) => self.self_weights.get(i).copied().unwrap_or(0),
            Err(_) => 0,
        }
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
    /// Each pane's zoom, when not the whole tree.
    pub callers_zoom: Option<Zoom>,
    pub callees_zoom: Option<Zoom>,
}

impl SandwichView {
    pub fn new(frame: u32) -> SandwichView {
        SandwichView { frame, asked: None, callers: None, callees: None, callers_zoom: None, callees_zoom: None }
    }

    /// Takes the worker's layouts if they are of this function and samples.
    fn arrived(
        &mut self,
        samples: &SampleFilter,
        frame: u32,
        callers: &Rc<FlameData>,
        callees: &Rc<FlameData>,
    ) -> bool {
        if self.frame != frame || self.asked.as_ref() != Some(samples) {
            return false;
        }
        self.callers = Some(callers.clone());
        self.callees = Some(callees.clone());
        self.callers_zoom = None;
        self.callees_zoom = None;
        true
    }

    /// The zoom shown in a pane.
    pub fn zoom(&self, pane: Pane) -> Zoom {
        let (data, zoom) = match pane {
            Pane::Callers => (&self.callers, self.callers_zoom),
            Pane::Callees => (&self.callees, self.callees_zoom),
        };
        zoom.unwrap_or(Zoom::all(data.as_ref().map_or(1, |d| d.total())))
    }
}

/// One of a sandwich's two graphs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pane {
    Callers,
    Callees,
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
    /// The selected rectangle (clicked, or reached by the keyboard), of the
    /// function [`Stacks::selected_frame`].
    pub selected: Option<u32>,
    /// The function selected in any stack view (flame graph, call tree, sandwich,
    /// Functions table), a frame id: what the details panel shows.
    pub selected_frame: Option<u32>,
    pub search: String,
    pub found: Option<Rc<Found>>,
    pub sandwich: Option<SandwichView>,
    /// The selected function's callers and callees, for its details (not shown as
    /// a sandwich), asked for while the graph (with its details panel) is shown.
    pub details: Option<SandwichView>,
    pub details_shown: bool,
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

    /// Selects rectangle `rect` of the graph shown, and its function.
    fn select_rect(&mut self, rect: u32) -> bool {
        let Some(frame) = self.flame.as_ref().and_then(|f| f.frame_of(rect)) else { return false };
        let changed = self.selected != Some(rect);
        self.selected = Some(rect);
        self.selected_frame = Some(frame).filter(|&f| f != u32::MAX);
        changed
    }

    /// The rectangle keyboard moves start from: the selected one, or the widest of
    /// the function selected elsewhere.
    pub fn cursor(&self) -> Option<u32> {
        let flame = self.flame.as_ref()?;
        let selected = self.selected.filter(|&r| flame.frame_of(r).is_some());
        selected.or_else(|| flame.widest_of(self.selected_frame?))
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
    /// Select a flame rectangle (and its function), without zooming.
    SelectRect(u32),
    /// Select a flame rectangle and zoom to it.
    ZoomToRect(u32),
    /// Move the selection (and show it: pan to it, or for a search's matches zoom
    /// to it); `rows`: how many rows the graph shows.
    Navigate { step: Step, rows: u32 },
    /// Back to the whole graph (the selection stays).
    ResetZoom,
    /// Select a function (a frame id) in every stack view, or none.
    SelectFrame(Option<u32>),
    /// Highlight the frames matching this (empty: none).
    Search(String),
    /// Show one function's callers and callees (a frame id), or close the sandwich.
    ShowSandwich(Option<u32>),
    /// Zoom a sandwich's pane (clamped to it), or show all of it.
    ZoomSandwich(Pane, Option<Zoom>),
    /// The details panel appeared or went (its data is asked for only while shown:
    /// the other views select functions too, faster than sandwiches are laid out).
    ShowDetails(bool),
}

/// `zoom` moved as little as needed to show rectangle `rect` of `flame`, horizontally
/// and within `rows` rows.
fn revealed(zoom: Zoom, flame: &FlameData, rect: u32, rows: u32) -> Zoom {
    let x0 = flame.flame.x0.get(rect as usize).copied().unwrap_or(0) as f64;
    let x1 = x0 + flame.flame.width.get(rect as usize).copied().unwrap_or(0) as f64;
    let width = zoom.x1 - zoom.x0;
    let dx = if x1 - x0 > width {
        // Wider than the view: keep it if it covers the view, else show its start.
        if x0 <= zoom.x0 && x1 >= zoom.x1 {
            0.0
        } else {
            x0 - zoom.x0
        }
    } else if x0 < zoom.x0 {
        x0 - zoom.x0
    } else if x1 > zoom.x1 {
        x1 - zoom.x1
    } else {
        0.0
    };
    let depth = f64::from(flame.flame.depth_of(rect));
    let rows = f64::from(rows.max(1));
    let top = if depth < zoom.top {
        depth
    } else if depth > zoom.top + rows - 1.0 {
        depth - rows + 1.0
    } else {
        zoom.top
    };
    Zoom { x0: zoom.x0 + dx, x1: zoom.x1 + dx, top }.clamped(flame.total(), flame.flame.depths())
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
                self.select_rect(rect);
                (true, true)
            }
            Msg::SelectRect(rect) => {
                let changed = self.select_rect(rect);
                (changed, changed)
            }
            Msg::Navigate { step, rows } => {
                let Some(flame) = self.flame.clone() else { return Changed { changed: false, refresh: false } };
                let hit = self.found().map(|f| f.hit.clone()).unwrap_or_default();
                let is_hit = |f: u32| hit.get(f as usize).copied().unwrap_or(false);
                let Some(rect) = flame.step(self.cursor(), step, is_hit) else {
                    return Changed { changed: false, refresh: false };
                };
                if matches!(step, Step::NextMatch | Step::PrevMatch) {
                    return self.update(Msg::ZoomToRect(rect), events);
                }
                self.select_rect(rect);
                self.zoom = Some(revealed(self.zoom(), &flame, rect, rows));
                (true, true)
            }
            Msg::ResetZoom => {
                let changed = self.zoom.is_some();
                self.zoom = None;
                (changed, false)
            }
            Msg::SelectFrame(frame) => {
                let changed = self.selected_frame != frame;
                self.selected_frame = frame;
                // The rectangle selected stays if it is of that function.
                let flame = self.flame.as_ref();
                if changed && self.selected.and_then(|r| flame?.frame_of(r)) != frame {
                    self.selected = None;
                }
                (changed, changed)
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
                self.sandwich = frame.map(SandwichView::new);
                (true, true)
            }
            Msg::ShowDetails(shown) => {
                let changed = self.details_shown != shown;
                self.details_shown = shown;
                (changed, changed)
            }
            Msg::ZoomSandwich(pane, zoom) => {
                let Some(s) = &mut self.sandwich else { return Changed { changed: false, refresh: false } };
                let (data, slot) = match pane {
                    Pane::Callers => (&s.callers, &mut s.callers_zoom),
                    Pane::Callees => (&s.callees, &mut s.callees_zoom),
                };
                let Some(data) = data else { return Changed { changed: false, refresh: false } };
                let zoom = zoom.map(|z| z.clamped(data.total(), data.flame.depths()));
                let changed = *slot != zoom;
                *slot = zoom;
                (changed, false)
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
            s.asked = Some(samples.clone());
            asked = true;
        }
        // The selected function's details: what the sandwich of the same function
        // has or will get, else asked for.
        let wanted = self.selected_frame.filter(|_| self.details_shown);
        if self.details.as_ref().map(|d| d.frame) != wanted {
            self.details = wanted.map(SandwichView::new);
        }
        if let Some(d) = self.details.as_mut().filter(|d| d.asked.as_ref() != Some(&samples)) {
            match self.sandwich.as_ref().filter(|s| s.frame == d.frame && s.asked.as_ref() == Some(&samples)) {
                Some(s) => {
                    d.callers = s.callers.clone();
                    d.callees = s.callees.clone();
                }
                None => {
                    out.send(doc, Request::Sandwich { samples: samples.clone(), frame: d.frame });
                    asked = true;
                }
            }
            d.asked = Some(samples);
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
            details_shown: old.details_shown,
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
                self.selected = None;
                if let Some(rect) = selected {
                    self.select_rect(rect);
                }
                true
            }
            Reply::Sandwich { samples, frame, callers, callees } => {
                let callers = Rc::new(FlameData::from_layout(callers));
                let callees = Rc::new(FlameData::from_layout(callees));
                let shown = self.sandwich.as_mut().is_some_and(|s| s.arrived(&samples, frame, &callers, &callees));
                let details = self.details.as_mut().is_some_and(|d| d.arrived(&samples, frame, &callers, &callees));
                shown || details
            }
            Reply::FrameNames(names) => {
                self.names_arrived(Rc::new(*names));
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
            sandwich: link.number("sandwich").map(SandwichView::new),
            linked_zoom: zoom.map(|z| (z, link.number("frame"))),
            symbols_offered: old.symbols_offered,
            symbolized_with: old.symbolized_with,
            details_shown: old.details_shown,
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

    /// A graph laid out and its names asked: root 100 ─┬─ a 60 ── b 30
    ///                                                  └─ d 40
    /// Frames: a 0, b 1, d 3.
    fn shown() -> (Stacks, Outbox) {
        let mut st = Stacks::default();
        let mut out = Outbox::default();
        st.refresh(1, false, &mut out);
        #[rustfmt::skip]
        let rects = [0.0, 100.0, 0.0, -1.0, 0.0, 60.0, 30.0, 0.0, 60.0, 40.0, 40.0, 3.0, 0.0, 30.0, 30.0, 1.0];
        let layout = FlameLayout::from_quads(&rects, vec![0u32, 1, 3, 4]);
        let samples = SampleFilter::default();
        assert!(st.on_reply(Reply::Flame { samples, inverted: false, order: Order::Alphabetical, layout }));
        out.queue.clear();
        (st, out)
    }

    fn layout(rects: &[f64], rows: &[u32]) -> FlameLayout {
        FlameLayout::from_quads(rects, rows.to_vec())
    }

    #[test]
    fn a_click_selects_a_frame_and_asks_for_its_neighbours_a_double_click_zooms() {
        let (mut st, mut out) = shown();
        // Selected while the panel is not shown (another view): nothing asked.
        st.update(Msg::SelectFrame(Some(3)), 1);
        st.refresh(1, false, &mut out);
        assert!(out.queue.is_empty());
        st.update(Msg::ShowDetails(true), 1);
        let Changed { changed, refresh } = st.update(Msg::SelectRect(3), 1);
        assert!(changed && refresh);
        assert_eq!((st.selected, st.selected_frame, st.zoom), (Some(3), Some(1), None), "selected, not zoomed");
        st.refresh(1, false, &mut out);
        let asked: Vec<_> = out.queue.drain(..).map(|e| e.request).collect();
        assert_eq!(asked, vec![Request::Sandwich { samples: SampleFilter::default(), frame: 1 }]);
        // The details' sandwich arrives; the panel is not a shown sandwich.
        let callers = layout(&[0.0, 30.0, 0.0, -1.0, 0.0, 30.0, 0.0, 1.0, 0.0, 30.0, 0.0, 0.0], &[0, 1, 2, 3]);
        let callees = layout(&[0.0, 30.0, 0.0, -1.0, 0.0, 30.0, 30.0, 1.0], &[0, 1, 2]);
        assert!(st.on_reply(Reply::Sandwich { samples: SampleFilter::default(), frame: 1, callers, callees }));
        let details = st.details.as_ref().unwrap();
        assert_eq!(navigate::neighbours(details.callers.as_ref().unwrap(), 1), (30, vec![(0, 30)]));
        assert!(st.sandwich.is_none());
        // Opening the sandwich of the same function asks again (its own request),
        // and the details keep what they have.
        st.update(Msg::ShowSandwich(Some(1)), 1);
        st.refresh(1, false, &mut out);
        assert_eq!(out.queue.len(), 1);
        // The root selects no function.
        st.update(Msg::SelectRect(0), 1);
        assert_eq!((st.selected, st.selected_frame), (Some(0), None));
        st.update(Msg::ZoomToRect(1), 1);
        assert_eq!((st.zoom(), st.selected_frame), (Zoom { x0: 0.0, x1: 60.0, top: 0.0 }, Some(0)));
        // A selection made elsewhere (the Functions table) drops the rectangle of another function.
        st.update(Msg::SelectFrame(Some(3)), 1);
        assert_eq!((st.selected, st.cursor()), (None, Some(2)));
        // Resetting the zoom keeps the selection.
        st.update(Msg::ResetZoom, 1);
        assert_eq!((st.zoom, st.selected_frame), (None, Some(3)));
    }

    #[test]
    fn keys_move_the_selection_and_keep_it_in_view() {
        let (mut st, _) = shown();
        let nav = |step| Msg::Navigate { step, rows: 2 };
        st.update(nav(Step::Child), 1);
        assert_eq!(st.selected, Some(0), "the first move selects the root");
        st.update(nav(Step::Child), 1);
        assert_eq!((st.selected, st.selected_frame), (Some(1), Some(0)));
        // Zoomed onto d, a move to its left neighbour pans to show a.
        st.update(Msg::SetZoom(Zoom { x0: 70.0, x1: 100.0, top: 0.0 }), 1);
        st.update(nav(Step::Next), 1);
        st.update(nav(Step::Prev), 1);
        assert_eq!(st.selected, Some(1));
        assert_eq!(st.zoom(), Zoom { x0: 0.0, x1: 30.0, top: 0.0 });
        // b is in row 2: with two rows shown, the graph scrolls one row.
        st.update(nav(Step::Child), 1);
        assert_eq!((st.selected, st.zoom().top), (Some(3), 1.0));
        st.update(nav(Step::Parent), 1);
        st.update(nav(Step::Parent), 1);
        assert_eq!((st.selected, st.zoom().top), (Some(0), 0.0));
        assert!(!st.update(nav(Step::Parent), 1).changed, "the root has no caller");
    }

    #[test]
    fn search_matches_are_visited_in_reading_order_and_zoomed_to() {
        let (mut st, _) = shown();
        st.update(Msg::Search("/^[bd]$/".into()), 1);
        let found = pgolens_protocol::Found { frames: vec![1, 3], weight: 70, total: 100 };
        st.on_reply(Reply::Search { samples: SampleFilter::default(), pattern: st.search.clone(), found });
        let nav = |step| Msg::Navigate { step, rows: 9 };
        st.update(nav(Step::NextMatch), 1);
        assert_eq!((st.selected, st.zoom()), (Some(2), Zoom { x0: 60.0, x1: 100.0, top: 0.0 }));
        st.update(nav(Step::NextMatch), 1);
        assert_eq!((st.selected, st.zoom()), (Some(3), Zoom { x0: 0.0, x1: 30.0, top: 0.0 }));
        st.update(nav(Step::NextMatch), 1);
        assert_eq!(st.selected, Some(2), "wraps");
        st.update(nav(Step::PrevMatch), 1);
        assert_eq!(st.selected, Some(3));
    }

    #[test]
    fn each_sandwich_pane_zooms_on_its_own() {
        let (mut st, mut out) = shown();
        st.update(Msg::ShowSandwich(Some(0)), 1);
        st.refresh(1, false, &mut out);
        assert!(!st.update(Msg::ZoomSandwich(Pane::Callers, None), 1).changed, "not come yet");
        let callers = layout(&[0.0, 60.0, 0.0, -1.0, 0.0, 60.0, 30.0, 0.0], &[0, 1, 2]);
        let callees = layout(&[0.0, 60.0, 0.0, -1.0, 0.0, 60.0, 30.0, 0.0, 0.0, 30.0, 30.0, 1.0], &[0, 1, 2, 3]);
        assert!(st.on_reply(Reply::Sandwich { samples: SampleFilter::default(), frame: 0, callers, callees }));
        let z = Zoom { x0: 0.0, x1: 30.0, top: 0.0 };
        assert!(st.update(Msg::ZoomSandwich(Pane::Callees, Some(z)), 1).changed);
        let s = st.sandwich.as_ref().unwrap();
        assert_eq!((s.zoom(Pane::Callees), s.zoom(Pane::Callers)), (z, Zoom::all(60)));
        st.update(Msg::ZoomSandwich(Pane::Callers, Some(Zoom { x0: -5.0, x1: 500.0, top: 3.0 })), 1);
        assert_eq!(st.sandwich.as_ref().unwrap().zoom(Pane::Callers), Zoom { x0: 0.0, x1: 60.0, top: 1.0 });
        assert!(st.update(Msg::ShowSandwich(None), 1).changed);
    }

    #[test]
    fn flame_data_comes_from_the_workers_arrays() {
        let d = FlameData::from_arrays(&[0.0, 6.0, 0.0, -1.0, 0.0, 6.0, 2.0, 3.0], vec![0, 1, 2]);
        assert_eq!(d.frame, vec![u32::MAX, 3]);
        assert_eq!((d.self_weight(0), d.self_weight(1), d.self_weight(2)), (0, 2, 0));
        assert_eq!((d.total(), d.flame.depths()), (6, 2));
    }
}
