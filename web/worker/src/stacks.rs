//! The stack views of a file with call stacks (perf.data call chains, sample-profile
//! inline trees): the flame graph, its functions table, the sandwich of one
//! function, search and the timeline, all under a filter (an event and an optional
//! time range).
//!
//! Flame graphs cross to the page as typed arrays ([`FlameLayout`]): per rectangle,
//! in the layout's depth-then-x order, three `f64`s `[x0, width, frame]` (weights
//! are exact below 2^53), the rows as `u32` offsets (`rows[d]..rows[d+1]` are depth
//! `d`'s rectangles), and the self weights that are not 0 with their rectangles. Slot [`MAIN`] holds the flame graph (or icicle),
//! [`CALLERS`] and [`CALLEES`] the sandwich of the last function asked for, [`ROOTED`]
//! the last tree laid out from a root of its own (a sample profile's function and
//! its inline tree, built by the caller: [`StacksView::lay_rooted`]).

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pgolens::layout::flame::Rows;
use pgolens::model::stacks::{
    CallTree, Filter, FrameKind, FunctionStats, StackProfile, Transform as CoreTransform, TreePaths, NO_FRAME,
};
use pgolens_protocol::{
    CallTreeNodes, Cell, FlameLayout, Found, FrameNames, Order, Rects, Row, SampleFilter, StackChartBoxes, StacksInfo,
    TablePage, TableQuery, Transform,
};

use crate::tables;

pub const MAIN: usize = 0;
pub const CALLERS: usize = 1;
pub const CALLEES: usize = 2;
pub const ROOTED: usize = 3;

/// What a laid-out tree keeps to name a rectangle's stack: each rectangle's node,
/// and the tree's shape (not the tree and its layout: for a tree of 700,000 nodes
/// those were 36 MB).
struct Laid {
    paths: TreePaths,
    node: Vec<u32>,
}

pub struct StacksView {
    pub profile: StackProfile,
    /// Per DSO, the frame standing for all of it (a collapsed DSO), and how many
    /// frames the profile had before those were added.
    dso_frames: Vec<u32>,
    real_frames: usize,
    slots: [Option<Laid>; 4],
    /// The functions under the last filter, in the last order asked for.
    functions: Option<(FnKey, Vec<FunctionStats>, u64)>,
    /// A recording whose samples copied the user stack ([`StacksInfo::stack_copies`]).
    pub stack_copies: bool,
}

#[derive(PartialEq)]
struct FnKey {
    filter: Filter,
    column: String,
    descending: bool,
    names: String,
}

impl StacksView {
    pub fn new(mut profile: StackProfile) -> StacksView {
        let real_frames = profile.frames().len();
        // Interned up front, so that the page's frame names cover them.
        let dso_frames =
            (0..u32::try_from(profile.dsos().len()).unwrap_or(0)).filter_map(|d| profile.dso_frame(d)).collect();
        StacksView {
            profile,
            dso_frames,
            real_frames,
            slots: [None, None, None, None],
            functions: None,
            stack_copies: false,
        }
    }

    /// The core's filter for the page's: a range `t0 < t1` keeps the samples in
    /// `t0..t1`; transforms name frames and DSOs that exist.
    pub fn filter(&self, samples: &SampleFilter) -> Result<Filter, String> {
        let time = samples.range.filter(|(t0, t1)| t0 < t1).map(|(t0, t1)| t0..t1);
        let frame = |f: u32| match self.profile.frame_info(f) {
            Some(_) => Ok(f),
            None => Err(alloc::format!("no frame {f}")),
        };
        let transforms = samples
            .transforms
            .iter()
            .map(|t| {
                Ok(match t {
                    Transform::Merge { frame: f } => CoreTransform::Merge(frame(*f)?),
                    Transform::FocusFunction { frame: f } => CoreTransform::FocusFunction(frame(*f)?),
                    Transform::FocusSubtree { path, inverted } => CoreTransform::FocusSubtree {
                        path: path.iter().map(|&f| frame(f)).collect::<Result<_, String>>()?,
                        inverted: *inverted,
                    },
                    Transform::CollapseDso { dso } => CoreTransform::CollapseDso {
                        dso: *dso,
                        frame: self.dso_frames.get(*dso as usize).copied().ok_or(alloc::format!("no DSO {dso}"))?,
                    },
                    Transform::CollapseRecursion { frame: f } => CoreTransform::CollapseRecursion(frame(*f)?),
                    Transform::CollapseDirectRecursion { frame: f } => {
                        CoreTransform::CollapseDirectRecursion(frame(*f)?)
                    }
                    Transform::DropFunction { frame: f } => CoreTransform::DropFunction(frame(*f)?),
                    Transform::FoldInlined => CoreTransform::FoldInlined,
                })
            })
            .collect::<Result<_, String>>()?;
        Ok(Filter { event: samples.event, time, transforms })
    }

    /// Whether the samples have times (more than one): a stack chart.
    pub fn timed(&self) -> bool {
        self.profile.time_range().is_some_and(|(a, b)| b > a)
    }

    /// What the page's summary says of the stacks.
    pub fn info(&self) -> StacksInfo {
        let (start, end) = self.profile.time_range().unwrap_or((0, 0));
        StacksInfo {
            events: self.profile.events().to_vec(),
            frames: self.real_frames as u64,
            samples: self.profile.sample_count() as u64,
            start,
            end: end.saturating_add(1),
            stack_copies: self.stack_copies,
        }
    }

    /// The call tree (or, `inverted`, the inverted tree) under `samples`.
    pub fn tree(&self, samples: &SampleFilter, inverted: bool) -> Result<CallTree, String> {
        let filter = self.filter(samples)?;
        Ok(if inverted { self.profile.inverted(&filter) } else { self.profile.call_tree(&filter) })
    }

    /// Lays out the flame graph (or, `inverted`, the icicle) into [`MAIN`].
    pub fn flame(&mut self, samples: &SampleFilter, inverted: bool, order: Order) -> Result<FlameLayout, String> {
        let tree = ordered(self.tree(samples, inverted)?, order);
        Ok(self.lay(MAIN, tree))
    }

    /// Lays out the callers and callees of `frame` into [`CALLERS`] and [`CALLEES`].
    pub fn sandwich(&mut self, samples: &SampleFilter, frame: u32) -> Result<(FlameLayout, FlameLayout), String> {
        if self.profile.frame_info(frame).is_none() {
            return Err(alloc::format!("no frame {frame}"));
        }
        let s = self.profile.sandwich(&self.filter(samples)?, frame);
        Ok((self.lay(CALLERS, s.callers), self.lay(CALLEES, s.callees)))
    }

    /// Lays out `tree`, a tree rooted at a frame of its own, into [`ROOTED`].
    pub fn lay_rooted(&mut self, tree: CallTree, order: Order) -> FlameLayout {
        self.lay(ROOTED, ordered(tree, order))
    }

    fn lay(&mut self, slot: usize, tree: CallTree) -> FlameLayout {
        if let Some(s) = self.slots.get_mut(slot) {
            *s = None;
        }
        let rows = Rows::of(&tree);
        let layout = layout(&tree, &rows);
        // Freed first: the shape is taken where they lay (wasm memory never shrinks).
        let Rows { node, depth_start } = rows;
        drop(depth_start);
        let paths = tree.paths();
        drop(tree);
        if let Some(s) = self.slots.get_mut(slot) {
            *s = Some(Laid { paths, node });
        }
        layout
    }

    fn name(&self, frame: u32) -> &str {
        self.profile.frame_info(frame).map_or("all", |f| f.name.as_str())
    }

    /// The names of the frames in the stack of rectangle `rect` of `slot`, from the root.
    pub fn stack_of(&self, slot: usize, rect: u32) -> Result<Vec<String>, String> {
        let Laid { paths, node } =
            self.slots.get(slot).and_then(Option::as_ref).ok_or_else(|| String::from("no flame graph laid out"))?;
        let node = node.get(rect as usize).copied().ok_or_else(|| alloc::format!("no rectangle {rect}"))?;
        Ok(paths.path(node).into_iter().map(|f| self.name(f).to_string()).collect())
    }

    /// Every frame's name, dso, kind, raw name and source line by frame id.
    pub fn names(&self) -> FrameNames {
        let frames = self.profile.frames();
        let source = |f: &pgolens::model::stacks::Frame| match (f.file(), f.line()) {
            (Some(file), Some(line)) => alloc::format!("{file}:{line}"),
            (Some(file), None) => String::from(file),
            _ => String::new(),
        };
        FrameNames {
            names: frames.iter().map(|f| f.name.as_str()).collect(),
            dsos: self.profile.dsos().to_vec(),
            dso: frames.iter().map(|f| f.dso.unwrap_or(u32::MAX)).collect::<Vec<_>>().into(),
            kinds: frames.iter().map(|f| f.kind.id()).collect(),
            raw: frames.iter().map(|f| f.raw().unwrap_or_default()).collect(),
            source: frames.iter().map(source).collect(),
        }
    }

    /// A page of the functions table: the functions whose names contain the query's
    /// filter (case ignored), ordered by its column, under its samples.
    pub fn table(&mut self, query: &TableQuery, start: u64, count: u64) -> Result<TablePage, String> {
        let query = tables::resolved(query);
        let column = query.column.as_str();
        if ![tables::STACK_NAME, tables::STACK_SELF, tables::STACK_TOTAL, tables::STACK_DSO].contains(&column) {
            return Err(alloc::format!("no column {column:?}"));
        }
        let samples = query.samples.clone().unwrap_or_default();
        let key = FnKey {
            filter: self.filter(&samples)?,
            column: String::from(column),
            descending: query.descending,
            names: query.filter.to_ascii_lowercase(),
        };
        if self.functions.as_ref().is_none_or(|(k, _, _)| *k != key) {
            let profile = &self.profile;
            let mut rows = profile.functions(&key.filter);
            // Every sample has one leaf: the self weights add up to the filter's total.
            let weight = rows.iter().fold(0u64, |w, r| w.saturating_add(r.self_weight));
            let name = |f: u32| profile.frame_info(f).map_or("", |f| f.name.as_str());
            if !key.names.is_empty() {
                rows.retain(|r| pgolens::model::stacks::matches(&key.names, name(r.frame)));
            }
            match column {
                tables::STACK_NAME => {
                    rows.sort_by(|a, b| name(a.frame).cmp(name(b.frame)).then(a.frame.cmp(&b.frame)));
                }
                tables::STACK_SELF => {
                    rows.sort_by_key(|r| (r.self_weight, r.total, u32::MAX.saturating_sub(r.frame)));
                }
                tables::STACK_DSO => {
                    let dso = |f: u32| profile.frame_dso(f).unwrap_or("");
                    rows.sort_by(|a, b| {
                        (dso(a.frame), name(a.frame), a.frame).cmp(&(dso(b.frame), name(b.frame), b.frame))
                    });
                }
                _ => rows.sort_by_key(|r| (r.total, r.self_weight, u32::MAX.saturating_sub(r.frame))),
            }
            if key.descending {
                rows.reverse();
            }
            self.functions = Some((key, rows, weight));
        }
        let (rows, weight) = self.functions.as_ref().map(|(_, r, w)| (r.as_slice(), *w)).unwrap_or_default();
        let with_weight = self.real_frames;
        Ok(tables::page(query, tables::stack_columns(), with_weight, Some(weight), rows, start, count, |r| {
            Some(self.row(r))
        }))
    }

    /// A function's row. An inlined function is named as perf names it in call
    /// graphs, `name (inlined)`; its self weight is 0 (its samples are the self
    /// weight of the function holding its code), its total that of its stacks.
    fn row(&self, r: &FunctionStats) -> Row {
        let inlined = self.profile.frame_info(r.frame).is_some_and(|f| f.kind == FrameKind::Inlined);
        let text =
            if inlined { alloc::format!("{} (inlined)", self.name(r.frame)) } else { self.name(r.frame).to_string() };
        let name = Cell::Name { text, raw: None, tag: None };
        let dso = self.profile.frame_dso(r.frame).map_or(Cell::Empty, |d| Cell::Text(d.to_string()));
        Row { id: r.frame, cells: alloc::vec![name, Cell::Count(r.self_weight), Cell::Count(r.total), dso] }
    }

    /// The frames matching `pattern` and the weight of the stacks holding one.
    pub fn search(&self, samples: &SampleFilter, pattern: &str) -> Result<Found, String> {
        let s = self.profile.search(&self.filter(samples)?, pattern);
        Ok(Found { frames: s.frames, weight: s.weight, total: s.total })
    }

    /// [`StacksView::search`] inside `tree` (a rooted tree, see [`StacksView::lay_rooted`]):
    /// the matching frames, and the weight in `tree` of the paths holding one.
    pub fn search_in(&self, tree: &CallTree, samples: &SampleFilter, pattern: &str) -> Result<Found, String> {
        let frames = self.profile.search(&self.filter(samples)?, pattern).frames;
        // Nodes are in pre-order, so a parent's mark is set before its children look.
        let mut marked = alloc::vec![false; tree.nodes.len()];
        let mut weight = 0u64;
        for (i, n) in tree.nodes.iter().enumerate() {
            let parent = i != 0 && marked.get(n.parent as usize).copied().unwrap_or(false);
            if parent || frames.binary_search(&n.frame).is_ok() {
                if let Some(m) = marked.get_mut(i) {
                    *m = true;
                }
                weight = weight.saturating_add(n.self_weight);
            }
        }
        Ok(Found { frames, weight, total: tree.total() })
    }

    /// The stack chart of `samples` in `columns` columns.
    pub fn stack_chart(&self, samples: &SampleFilter, columns: u32) -> Result<StackChartBoxes, String> {
        let chart = self.profile.stack_chart(&self.filter(samples)?, columns);
        let boxes = chart.boxes.iter().flat_map(|b| [b.col0, b.col1, b.depth, b.frame]).collect::<Vec<_>>();
        Ok(StackChartBoxes { start: chart.start, end: chart.end, samples: chart.samples, boxes: boxes.into() })
    }

    /// `event`'s weight in `bins` buckets over all the samples' time.
    pub fn timeline(&self, event: u32, bins: u32) -> pgolens_protocol::Timeline {
        let t = self.profile.timeline(&Filter { event, ..Filter::default() }, bins.min(4096));
        pgolens_protocol::Timeline { event, start: t.start, end: t.end, bins: t.bins }
    }
}

/// `tree` with its siblings in `order` (the model's trees come by name).
pub fn ordered(tree: CallTree, order: Order) -> CallTree {
    match order {
        Order::Alphabetical => tree,
        Order::Heaviest => tree.heaviest_first(),
    }
}

/// A call tree's nodes as the page takes them (see [`CallTreeNodes`]).
pub fn call_tree_nodes(tree: &CallTree) -> CallTreeNodes {
    let n = tree.nodes.len();
    let mut out = CallTreeNodes {
        frame: Vec::with_capacity(n).into(),
        parent: Vec::with_capacity(n).into(),
        total: Vec::with_capacity(n).into(),
        self_weight: Vec::with_capacity(n).into(),
    };
    for node in &tree.nodes {
        out.frame.0.push(node.frame);
        out.parent.0.push(node.parent);
        out.total.0.push(node.total as f64);
        out.self_weight.0.push(node.self_weight as f64);
    }
    out
}

/// The rectangles of `tree` laid out in `rows`: `[x0, width, frame]` each (the
/// root's frame is -1), written out as [`Rows::placed`] finds them, and the self
/// weights that are not 0.
fn layout(tree: &CallTree, rows: &Rows) -> FlameLayout {
    // Sized up front (every node is one rectangle): a doubled array's old half
    // would stay in wasm memory's high-water mark.
    let own = tree.nodes.iter().filter(|n| n.self_weight > 0).count();
    let (mut self_rects, mut self_weights) = (Vec::with_capacity(own), Vec::with_capacity(own));
    let rects = (0u32..).zip(rows.placed(tree)).flat_map(|(at, (node, x0))| {
        let n = tree.nodes.get(node as usize);
        let frame = n.map_or(NO_FRAME, |n| n.frame);
        if let Some(own) = n.map(|n| n.self_weight).filter(|&w| w > 0) {
            self_rects.push(at);
            self_weights.push(own as f64);
        }
        [x0 as f64, n.map_or(0.0, |n| n.total as f64), if frame == NO_FRAME { -1.0 } else { f64::from(frame) }]
    });
    let rects = Rects::collect(rows.node.len().saturating_mul(Rects::WIDTH), tree.total(), rects);
    FlameLayout {
        rects,
        rows: rows.depth_start.clone().into(),
        self_rects: self_rects.into(),
        self_weights: self_weights.into(),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use alloc::vec;

    use pgolens::model::stacks::{FrameKind, StackProfile};
    use pgolens_protocol::{Cell, SampleFilter, TableId, TableQuery, Transform};

    use super::StacksView;

    /// main → sort (3), main → sort → [swap] (5, inlined into sort), main → sort →
    /// [swap] → cmp (2, called from the inlined code).
    fn view() -> StacksView {
        let mut p = StackProfile::new();
        let e = p.add_event("cpu-clock");
        let main = p.frame("main", Some("prog"), FrameKind::User);
        let sort = p.frame("sort", Some("prog"), FrameKind::User);
        let swap = p.frame("swap", Some("prog"), FrameKind::Inlined);
        let cmp = p.frame("cmp", Some("prog"), FrameKind::User);
        p.push_sample(e, 0, 3, &[main, sort]).unwrap();
        p.push_sample(e, 1, 5, &[main, sort, swap]).unwrap();
        p.push_sample(e, 2, 2, &[main, sort, swap, cmp]).unwrap();
        StacksView::new(p)
    }

    /// The functions table by name: (name, self, total).
    fn functions(v: &mut StacksView, samples: SampleFilter) -> vec::Vec<(alloc::string::String, u64, u64)> {
        let query = TableQuery {
            column: super::tables::STACK_NAME.into(),
            descending: false,
            samples: Some(samples),
            ..TableQuery::new(TableId::StackFunctions)
        };
        let page = v.table(&query, 0, 100).unwrap();
        assert_eq!(page.weight, Some(10));
        page.rows
            .iter()
            .map(|r| match &r.cells[..] {
                [Cell::Name { text, .. }, Cell::Count(s), Cell::Count(t), _] => (text.clone(), *s, *t),
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_functions_table_gives_inlined_code_to_its_function_and_folds() {
        let mut v = view();
        let s = |n: &str, s, t| (alloc::string::String::from(n), s, t);
        assert_eq!(
            functions(&mut v, SampleFilter::default()),
            [s("cmp", 2, 2), s("main", 0, 10), s("sort", 8, 10), s("swap (inlined)", 0, 7)]
        );
        let folded = SampleFilter { transforms: vec![Transform::FoldInlined], ..SampleFilter::default() };
        assert_eq!(functions(&mut v, folded.clone()), [s("cmp", 2, 2), s("main", 0, 10), s("sort", 8, 10)]);
        // The folded flame graph has no swap: main, sort, cmp and the root.
        let layout = v.flame(&folded, false, pgolens_protocol::Order::Alphabetical).unwrap();
        assert_eq!(layout.len(), 4);
        assert_eq!(v.flame(&SampleFilter::default(), false, pgolens_protocol::Order::Alphabetical).unwrap().len(), 5);
    }
}
