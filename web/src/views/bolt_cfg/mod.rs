//! The CFG view of a BOLT profile: one function's control-flow graph as the worker
//! laid it out, with a camera over it, a selected block, a search, and the
//! functions visited before (calls are links to their callees).
//!
//! Coordinates: the graph's layout units (CSS pixels at scale 1, from the worker);
//! the camera puts layout point (`x`, `y`) at the canvas's top-left corner and
//! draws `scale` CSS pixels per unit. Everything here is plain Rust, tested
//! natively; the canvas and its events are in [`bolt_cfg_view`].

use std::rc::Rc;

use pgolens_protocol::{CfgGraph, DocId, ReqId, Request};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

#[cfg(target_arch = "wasm32")]
pub mod bolt_cfg_view;
#[cfg(target_arch = "wasm32")]
pub(crate) mod render;

/// Zoom limits: from a whole 2,000-block graph on a small screen to large text.
const MIN_SCALE: f64 = 0.01;
const MAX_SCALE: f64 = 4.0;
/// Space left around a fitted graph, in CSS pixels.
const FIT_MARGIN_PX: f64 = 16.0;
/// A graph that fits only below this scale opens at [`OPEN_SCALE`] on its entry
/// instead (its text readable; the minimap and Fit show the whole).
const READABLE_SCALE: f64 = 0.35;
const OPEN_SCALE: f64 = 0.8;

/// Where the canvas looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    pub x: f64,
    pub y: f64,
    pub scale: f64,
}

impl Camera {
    /// The whole `width` × `height` graph in a `view` of CSS pixels, centred, never
    /// magnified past 1.
    pub fn fit(width: f64, height: f64, view: (f64, f64)) -> Camera {
        let (vw, vh) = (view.0.max(1.0), view.1.max(1.0));
        let room = |v: f64| (v - 2.0 * FIT_MARGIN_PX).max(1.0);
        let scale = (room(vw) / width.max(1.0)).min(room(vh) / height.max(1.0)).clamp(MIN_SCALE, 1.0);
        Camera { x: width / 2.0 - vw / 2.0 / scale, y: height / 2.0 - vh / 2.0 / scale, scale }
    }

    /// Zoomed by `factor` keeping the layout point under CSS pixel (`px`, `py`) fixed.
    pub fn zoomed(self, factor: f64, px: f64, py: f64) -> Camera {
        let scale = (self.scale * factor).clamp(MIN_SCALE, MAX_SCALE);
        let (ax, ay) = (self.x + px / self.scale, self.y + py / self.scale);
        Camera { x: ax - px / scale, y: ay - py / scale, scale }
    }

    /// Moved by (`dx`, `dy`) CSS pixels.
    pub fn panned(self, dx: f64, dy: f64) -> Camera {
        Camera { x: self.x + dx / self.scale, y: self.y + dy / self.scale, ..self }
    }

    /// The layout point under CSS pixel (`px`, `py`).
    pub fn to_layout(self, px: f64, py: f64) -> (f64, f64) {
        (self.x + px / self.scale, self.y + py / self.scale)
    }

    /// Centred on layout point (`x`, `y`).
    pub fn centred_on(self, x: f64, y: f64, view: (f64, f64)) -> Camera {
        Camera { x: x - view.0 / 2.0 / self.scale, y: y - view.1 / 2.0 / self.scale, ..self }
    }

    /// Whether the layout box is wholly in view.
    fn shows(self, b: (f64, f64, f64, f64), view: (f64, f64)) -> bool {
        let (x1, y1) = self.to_layout(view.0, view.1);
        b.0 >= self.x && b.1 >= self.y && b.0 + b.2 <= x1 && b.1 + b.3 <= y1
    }
}

/// Keyboard moves between blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Along the hottest edge out of the selected block.
    Down,
    /// Back along the hottest edge into it.
    Up,
    /// To the next (`Right`) or previous (`Left`) successor of the block the
    /// selection came from, hottest first.
    Right,
    Left,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    /// Show function `row` of the function table (a call's callee, a table row).
    Open(u32),
    /// Back to the function shown before.
    Back,
    /// The canvas's size in CSS pixels.
    Resize(f64, f64),
    Camera(Camera),
    Fit,
    Select(Option<u32>),
    Step(Step),
    Search(String),
    /// Select the next block matching the search.
    NextMatch,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoltCfg {
    /// The function shown or asked for (a row id; `None` until one is chosen:
    /// entering the tab asks for the hottest).
    pub function: Option<u32>,
    pub graph: Option<Rc<CfgGraph>>,
    /// The request in flight.
    pub pending: Option<ReqId>,
    pub error: Option<String>,
    /// None: fit the graph once it and the canvas size are known.
    pub camera: Option<Camera>,
    /// How the camera was placed (`Some(whole)`: fitted whole, or opened on the
    /// entry) while no one has moved it since: a new size places it again.
    pub placed: Option<bool>,
    pub view: (f64, f64),
    pub selected: Option<u32>,
    /// The block the selection stepped down from (for sibling steps).
    pub came_from: Option<u32>,
    pub search: String,
    /// Blocks matching the search, in index order.
    pub matches: Rc<Vec<u32>>,
    /// Functions shown before, most recent last.
    pub history: Vec<u32>,
    /// A link's selected block, waiting for the graph.
    pub linked_block: Option<u32>,
}

impl BoltCfg {
    /// The graph's part of a link: `function` (the function table's row id) and
    /// `block` (the selected block's index).
    pub fn write_link(&self, link: &mut Params) {
        if let Some(function) = self.function {
            link.push("function", function.to_string());
        }
        if let Some(block) = self.linked_block.or(self.selected) {
            link.push("block", block.to_string());
        }
    }

    /// Takes a link's function and block: entering the tab asks for them.
    pub fn read_link(&mut self, link: &Params) {
        let function = link.number("function");
        if function != self.function || self.graph.is_none() {
            *self = BoltCfg { function, view: self.view, ..BoltCfg::default() };
            self.linked_block = link.number("block");
        } else {
            self.selected = link
                .number::<u32>("block")
                .filter(|&b| self.graph.as_ref().is_some_and(|g| (b as usize) < g.blocks.len()));
        }
    }

    /// Entering the tab: the chosen function, or the hottest, is asked for once.
    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        if self.graph.is_none() && self.pending.is_none() && self.error.is_none() {
            self.pending = Some(out.send(doc, Request::BoltCfg { function: self.function }));
        }
    }

    /// Forgets the graph (a binary was attached): entering the tab asks again for
    /// the same function, keeping the camera's place.
    pub fn reload(&mut self) {
        self.graph = None;
        self.pending = None;
        self.error = None;
    }

    /// Asks for function `row`, remembering the one shown.
    pub fn open(&mut self, row: u32, doc: DocId, out: &mut Outbox) -> bool {
        if self.function == Some(row) && (self.graph.is_some() || self.pending.is_some()) {
            return false;
        }
        if let Some(shown) = self.graph.as_ref().map(|g| g.function) {
            self.history.push(shown);
        }
        self.ask(row, doc, out);
        true
    }

    fn ask(&mut self, row: u32, doc: DocId, out: &mut Outbox) {
        self.function = Some(row);
        self.error = None;
        self.pending = Some(out.send(doc, Request::BoltCfg { function: Some(row) }));
    }

    pub fn update(&mut self, msg: Msg, doc: DocId, out: &mut Outbox) -> bool {
        match msg {
            Msg::Open(row) => self.open(row, doc, out),
            Msg::Back => match self.history.pop() {
                Some(row) => {
                    self.ask(row, doc, out);
                    true
                }
                None => false,
            },
            Msg::Resize(w, h) => {
                if self.view == (w, h) {
                    return false;
                }
                let old = core::mem::replace(&mut self.view, (w, h));
                match (self.camera, self.placed) {
                    (Some(_), Some(whole)) => {
                        self.camera = None;
                        self.place_camera(whole);
                    }
                    // Moved by hand: what was in the middle stays there.
                    (Some(c), None) if old.0 > 0.0 && old.1 > 0.0 => {
                        let (dx, dy) = ((old.0 - w) / 2.0 / c.scale, (old.1 - h) / 2.0 / c.scale);
                        self.camera = Some(Camera { x: c.x + dx, y: c.y + dy, ..c });
                    }
                    _ => self.fit_if_new(),
                }
                true
            }
            Msg::Camera(c) => {
                let changed = self.camera != Some(c);
                if changed {
                    self.placed = None;
                }
                self.camera = Some(c);
                changed
            }
            Msg::Fit => {
                self.camera = None;
                self.place_camera(true);
                true
            }
            Msg::Select(block) => {
                let changed = self.selected != block;
                self.selected = block;
                self.came_from = None;
                changed
            }
            Msg::Step(step) => self.step(step),
            Msg::Search(text) => {
                if self.search == text {
                    return false;
                }
                self.search = text;
                self.matches = Rc::new(self.graph.as_deref().map(|g| matching(g, &self.search)).unwrap_or_default());
                if let Some(&first) = self.matches.first() {
                    self.select_and_show(first);
                }
                true
            }
            Msg::NextMatch => {
                let next =
                    self.matches.iter().find(|&&m| Some(m) > self.selected).or_else(|| self.matches.first()).copied();
                match next {
                    Some(block) if Some(block) != self.selected => {
                        self.select_and_show(block);
                        true
                    }
                    _ => false,
                }
            }
        }
    }

    /// The worker's graph for request `req`.
    pub fn loaded(&mut self, req: Option<ReqId>, graph: CfgGraph) -> bool {
        if req.is_some() && req != self.pending {
            return false;
        }
        self.pending = None;
        self.function = Some(graph.function);
        self.matches = Rc::new(matching(&graph, &self.search));
        let linked = self.linked_block.take().filter(|&b| (b as usize) < graph.blocks.len());
        self.graph = Some(Rc::new(graph));
        self.selected = linked;
        self.came_from = None;
        self.camera = None;
        self.fit_if_new();
        true
    }

    /// Request `req` failed: if it was the graph's, say why.
    pub fn failed(&mut self, req: ReqId, message: &str) -> bool {
        if self.pending != Some(req) {
            return false;
        }
        self.pending = None;
        self.error = Some(message.to_string());
        true
    }

    /// Whether the whole graph is in view (the minimap then has nothing to show).
    pub fn shows_all(&self) -> bool {
        match (&self.graph, self.camera) {
            (Some(g), Some(c)) => c.shows((0.0, 0.0, g.width, g.height), self.view),
            _ => false,
        }
    }

    /// A graph just loaded opens fitted, or on its entry when fitting would make
    /// it unreadable; `Fit` always fits.
    fn fit_if_new(&mut self) {
        self.place_camera(false);
    }

    fn place_camera(&mut self, whole: bool) {
        if self.camera.is_some() || self.view.0 <= 0.0 {
            return;
        }
        let Some(g) = &self.graph else { return };
        let fit = Camera::fit(g.width, g.height, self.view);
        let entry = g.blocks.iter().find(|b| b.entry).or(g.blocks.first());
        self.placed = Some(whole);
        self.camera = Some(match entry {
            Some(b) if !whole && fit.scale < READABLE_SCALE => {
                let c = Camera { scale: OPEN_SCALE, ..fit };
                let top = c.centred_on(b.x + b.w / 2.0, b.y, self.view);
                // A block wider than the view shows its start: its head and code.
                let margin = FIT_MARGIN_PX / OPEN_SCALE;
                Camera { x: top.x.min(b.x - margin), y: b.y - margin, ..top }
            }
            _ => fit,
        });
    }

    fn select_and_show(&mut self, block: u32) {
        self.selected = Some(block);
        let (Some(g), Some(camera)) = (&self.graph, self.camera) else { return };
        let Some(b) = g.blocks.get(block as usize) else { return };
        if !camera.shows((b.x, b.y, b.w, b.h), self.view) {
            self.placed = None;
            self.camera = Some(camera.centred_on(b.x + b.w / 2.0, b.y + b.h / 2.0, self.view));
        }
    }

    fn step(&mut self, step: Step) -> bool {
        let Some(g) = self.graph.clone() else { return false };
        let Some(at) = self.selected else {
            // Nothing selected: start at the first entry.
            let first = g.blocks.iter().position(|b| b.entry).unwrap_or(0);
            return match u32::try_from(first) {
                Ok(first) if !g.blocks.is_empty() => {
                    self.select_and_show(first);
                    true
                }
                _ => false,
            };
        };
        let hottest = |edges: Vec<(u32, u64)>| edges.into_iter().max_by_key(|&(b, c)| (c, std::cmp::Reverse(b)));
        let next = match step {
            Step::Down => hottest(
                g.edges.iter().filter(|e| e.from == at && e.to != at).map(|e| (e.to, e.count.unwrap_or(0))).collect(),
            )
            .map(|(b, _)| (b, Some(at))),
            Step::Up => hottest(
                g.edges.iter().filter(|e| e.to == at && e.from != at).map(|e| (e.from, e.count.unwrap_or(0))).collect(),
            )
            .map(|(b, _)| (b, None)),
            Step::Right | Step::Left => {
                let Some(parent) = self.came_from else { return false };
                let mut siblings: Vec<(u32, u64)> = g
                    .edges
                    .iter()
                    .filter(|e| e.from == parent && e.to != parent)
                    .map(|e| (e.to, e.count.unwrap_or(0)))
                    .collect();
                siblings.sort_by_key(|&(b, c)| (std::cmp::Reverse(c), b));
                siblings.dedup_by_key(|s| s.0);
                let i = siblings.iter().position(|s| s.0 == at).unwrap_or(0);
                let n = siblings.len().max(1);
                let j = if step == Step::Right { (i + 1) % n } else { (i + n - 1) % n };
                siblings.get(j).map(|&(b, _)| (b, Some(parent)))
            }
        };
        match next {
            Some((block, from)) if block != at => {
                self.select_and_show(block);
                self.came_from = from;
                true
            }
            _ => false,
        }
    }
}

/// Blocks whose text (index, offset, callees) contains `text`, case-insensitively.
fn matching(graph: &CfgGraph, text: &str) -> Vec<u32> {
    let needle = text.trim().to_lowercase();
    if needle.is_empty() {
        return Vec::new();
    }
    graph
        .blocks
        .iter()
        .filter(|b| {
            b.lines.first().is_some_and(|l| {
                l.to_lowercase().split_whitespace().any(|w| w == needle || w.trim_start_matches('@') == needle)
            }) || b.calls.iter().any(|c| {
                c.callee.to_lowercase().contains(&needle)
                    || c.demangled.as_ref().is_some_and(|d| d.to_lowercase().contains(&needle))
            })
        })
        .map(|b| b.index)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgolens_protocol::{CfgBlock, CfgCall, CfgEdge};

    fn block(index: u32, y: f64, calls: &[&str]) -> CfgBlock {
        CfgBlock {
            index,
            exec_count: 10,
            lines: vec![format!("#{index}  @{:#x}  ×10", index * 16)],
            x: 0.0,
            y,
            w: 100.0,
            h: 30.0,
            calls: calls.iter().map(|c| CfgCall { callee: c.to_string(), ..CfgCall::default() }).collect(),
            ..CfgBlock::default()
        }
    }

    fn edge(from: u32, to: u32, count: u64) -> CfgEdge {
        CfgEdge { from, to, count: Some(count), points: vec![0.0, 0.0, 1.0, 1.0], ..CfgEdge::default() }
    }

    /// 0 → {1 (hot), 2}, 1 → 3, 2 → 3, 3 → 0 (a loop).
    fn diamond() -> CfgGraph {
        CfgGraph {
            function: 7,
            blocks: vec![block(0, 0.0, &[]), block(1, 100.0, &["memcpy"]), block(2, 100.0, &[]), block(3, 2000.0, &[])],
            edges: vec![edge(0, 2, 3), edge(0, 1, 90), edge(1, 3, 90), edge(2, 3, 3), edge(3, 0, 80)],
            width: 300.0,
            height: 2030.0,
            ..CfgGraph::default()
        }
    }

    fn loaded() -> (BoltCfg, Outbox) {
        let mut out = Outbox::default();
        let mut v = BoltCfg::default();
        v.enter(1, &mut out);
        assert_eq!(out.queue[0].request, Request::BoltCfg { function: None });
        let req = v.pending;
        v.update(Msg::Resize(400.0, 300.0), 1, &mut out);
        assert!(v.loaded(req, diamond()));
        (v, out)
    }

    #[test]
    fn a_graph_too_large_to_read_whole_opens_on_its_entry_and_fit_shows_it_all() {
        let (mut v, mut out) = loaded();
        // 2030 units tall in 300 px would be 0.13: it opens readable, on block 0.
        let c = v.camera.unwrap();
        assert_eq!(c.scale, OPEN_SCALE);
        let b = &v.graph.as_ref().unwrap().blocks[0];
        assert!(c.shows((b.x, b.y, b.w, b.h), v.view));
        v.update(Msg::Fit, 1, &mut out);
        let c = v.camera.unwrap();
        // 2030 units tall in 300 - 32 px.
        assert!((c.scale - 268.0 / 2030.0).abs() < 1e-9);
        let (x0, y0) = c.to_layout(0.0, 0.0);
        let (x1, y1) = c.to_layout(400.0, 300.0);
        assert!(x0 <= 0.0 && y0 <= 0.0 && x1 >= 300.0 && y1 >= 2030.0);
    }

    #[test]
    fn an_entry_wider_than_the_view_opens_on_its_start() {
        let mut graph = diamond();
        graph.blocks[0].x = 50.0;
        graph.blocks[0].w = 900.0;
        graph.width = 1000.0;
        let mut out = Outbox::default();
        let mut v = BoltCfg::default();
        v.enter(1, &mut out);
        let req = v.pending;
        v.update(Msg::Resize(400.0, 300.0), 1, &mut out);
        assert!(v.loaded(req, graph));
        let c = v.camera.unwrap();
        assert_eq!(c.scale, OPEN_SCALE);
        // Its top left corner, a margin in from the view's.
        assert_eq!(c.to_layout(FIT_MARGIN_PX, FIT_MARGIN_PX), (50.0, 0.0));
    }

    #[test]
    fn a_new_size_places_a_placed_camera_again_and_keeps_a_moved_ones_middle() {
        // A graph that fits: 300 × 2030 in a tall view.
        let mut out = Outbox::default();
        let mut v = BoltCfg::default();
        v.enter(1, &mut out);
        let req = v.pending;
        v.update(Msg::Resize(300.0, 4000.0), 1, &mut out);
        assert!(v.loaded(req, diamond()));
        // The canvas grows wider once the toolbar is laid out: the graph is fitted
        // (centred) in the new size, as if it had opened in it.
        v.update(Msg::Resize(900.0, 4000.0), 1, &mut out);
        assert_eq!(v.camera, Some(Camera::fit(300.0, 2030.0, (900.0, 4000.0))));
        // Moved by hand, then resized: the layout point in the middle stays there.
        let moved = v.camera.unwrap().panned(-40.0, 25.0);
        v.update(Msg::Camera(moved), 1, &mut out);
        let middle = moved.to_layout(450.0, 2000.0);
        v.update(Msg::Resize(600.0, 1000.0), 1, &mut out);
        let c = v.camera.unwrap();
        assert_eq!(c.scale, moved.scale);
        assert_eq!(c.to_layout(300.0, 500.0), middle);
        // Fit places it again, and the next size refits.
        assert!(!v.shows_all());
        v.update(Msg::Fit, 1, &mut out);
        assert!(v.shows_all());
        v.update(Msg::Resize(800.0, 1000.0), 1, &mut out);
        assert_eq!(v.camera, Some(Camera::fit(300.0, 2030.0, (800.0, 1000.0))));
        assert!(v.shows_all());
    }

    #[test]
    fn zooming_keeps_the_point_under_the_pointer() {
        let c = Camera { x: 10.0, y: 20.0, scale: 0.5 };
        let z = c.zoomed(2.0, 100.0, 50.0);
        assert_eq!(c.to_layout(100.0, 50.0), z.to_layout(100.0, 50.0));
        assert_eq!(z.scale, 1.0);
        assert_eq!(c.zoomed(1e9, 0.0, 0.0).scale, MAX_SCALE);
    }

    #[test]
    fn keys_follow_the_hottest_edges() {
        let (mut v, mut out) = loaded();
        // First key: the entry.
        assert!(v.update(Msg::Step(Step::Down), 1, &mut out));
        assert_eq!(v.selected, Some(0));
        v.update(Msg::Step(Step::Down), 1, &mut out);
        assert_eq!(v.selected, Some(1), "0 → 1 counts 90, 0 → 2 counts 3");
        v.update(Msg::Step(Step::Right), 1, &mut out);
        assert_eq!(v.selected, Some(2), "the next successor of 0");
        v.update(Msg::Step(Step::Right), 1, &mut out);
        assert_eq!(v.selected, Some(1), "wraps around");
        v.update(Msg::Step(Step::Down), 1, &mut out);
        assert_eq!(v.selected, Some(3));
        // Block 3 is off screen at the fitted scale? It is shown: the camera follows.
        let c = v.camera.unwrap();
        let b = &v.graph.as_ref().unwrap().blocks[3];
        assert!(c.shows((b.x, b.y, b.w, b.h), v.view));
        v.update(Msg::Step(Step::Up), 1, &mut out);
        assert_eq!(v.selected, Some(1), "1 → 3 counts 90, 2 → 3 counts 3");
    }

    #[test]
    fn search_finds_blocks_by_index_offset_and_callee() {
        let (mut v, mut out) = loaded();
        v.update(Msg::Search("memcpy".into()), 1, &mut out);
        assert_eq!((*v.matches).clone(), vec![1]);
        assert_eq!(v.selected, Some(1));
        v.update(Msg::Search("0x20".into()), 1, &mut out);
        assert_eq!((*v.matches).clone(), vec![2]);
        v.update(Msg::Search("#3".into()), 1, &mut out);
        assert_eq!((*v.matches).clone(), vec![3]);
        v.update(Msg::Search("nothing".into()), 1, &mut out);
        assert!(v.matches.is_empty());
    }

    #[test]
    fn calls_open_their_callee_and_back_returns() {
        let (mut v, mut out) = loaded();
        assert!(v.update(Msg::Open(12), 1, &mut out));
        assert_eq!(out.queue.last().unwrap().request, Request::BoltCfg { function: Some(12) });
        // A reply to an older request is dropped.
        assert!(!v.loaded(Some(0), diamond()));
        let req = v.pending;
        v.loaded(req, CfgGraph { function: 12, ..diamond() });
        assert_eq!(v.history, vec![7]);
        assert!(v.update(Msg::Back, 1, &mut out));
        assert_eq!(out.queue.last().unwrap().request, Request::BoltCfg { function: Some(7) });
        assert!(v.history.is_empty());
        assert!(v.failed(v.pending.unwrap(), "no function 7"));
        assert_eq!(v.error.as_deref(), Some("no function 7"));
    }

    #[test]
    fn a_links_function_and_block_are_asked_for_and_selected_when_the_graph_comes() {
        let (mut v, mut out) = loaded();
        v.update(Msg::Select(Some(2)), 1, &mut out);
        let mut link = Params::default();
        v.write_link(&mut link);
        assert_eq!(link.fragment(), "function=7&block=2");

        let mut r = BoltCfg::default();
        r.read_link(&link);
        let mut out = Outbox::default();
        r.enter(1, &mut out);
        assert_eq!(out.queue[0].request, Request::BoltCfg { function: Some(7) });
        // Until the graph comes, the link keeps the block; then it is selected.
        let mut kept = Params::default();
        r.write_link(&mut kept);
        assert_eq!(kept, link);
        assert!(r.loaded(r.pending, diamond()));
        assert_eq!(r.selected, Some(2));
        // A block the graph does not have is not selected.
        let mut far = BoltCfg::default();
        far.read_link(&Params::parse("function=7&block=99"));
        far.enter(1, &mut out);
        far.loaded(far.pending, diamond());
        assert_eq!(far.selected, None);
    }
}
