//! Weighted call stacks, whatever format they came from: perf.data call chains,
//! sample-profile inline trees. Adapters build a [`StackProfile`]; the flame graph,
//! its functions table, sandwich view, search and timeline query it.
//!
//! Storage is compact so that millions of samples fit:
//!
//! ```text
//! frames   interned (name, dso, kind)             one per distinct symbol
//! nodes    prefix tree of (parent, frame)          one per distinct stack prefix
//!          node 0 is the root (no frame); a parent's id is always below its child's
//! samples  (leaf node, time, weight, event)       8 bytes each, struct of arrays:
//!          weights and events stored only once one differs, times in 4 bytes
//! ```
//!
//! Every query takes a [`Filter`] (an event and an optional time range) and starts
//! with one pass over the samples, adding each one's weight to its leaf node (a node's
//! *self* weight); as parents come before children, one backward pass over the nodes
//! turns those into *totals*. The call tree is then the prefix tree itself (nodes with
//! weight), in pre-order with siblings sorted by name; the inverted tree and the
//! sandwich trees walk each weighted leaf up to the root.
//!
//! A function's total counts each stack once, however often the function recurs in
//! it: only nodes with no ancestor of the same frame (*outermost*) add their total.
//! Its self weight is that of the samples whose address its code holds, as perf
//! report counts it: a stack ending in inlined frames is the self weight of the
//! function they were inlined into.
//!
//! A filter's [`Transform`]s (merge, focus, collapse, drop) derive a new tree from the
//! prefix tree, node by node ([`transform`]); the queries then run on that tree.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;
use core::cell::OnceCell;
use core::ops::Range;

mod append;
mod chart;
mod intern;
mod pattern;
mod ranks;
mod relabel;
mod times;
mod transform;
pub(crate) mod wire;

pub use chart::StackChart;
use intern::{frame_hash, IdTable, NodeTable};
pub use pattern::matches;
use ranks::frame_ranks;
use times::Times;
pub use transform::Transform;

/// Index of an interned frame.
pub type FrameId = u32;
/// Index of a prefix-tree node; [`ROOT`] is the empty stack.
pub type NodeId = u32;
/// The root node of the prefix tree (and of every [`CallTree`]).
pub const ROOT: NodeId = 0;
/// The frame of a tree's root, which stands for no function.
pub const NO_FRAME: FrameId = u32::MAX;

/// Where a frame runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FrameKind {
    User,
    Kernel,
    /// Inlined into the frame below it (sample profiles, DWARF inline info).
    Inlined,
    /// An address no symbol covers.
    Unknown,
}

impl FrameKind {
    pub fn id(self) -> &'static str {
        match self {
            FrameKind::User => "user",
            FrameKind::Kernel => "kernel",
            FrameKind::Inlined => "inlined",
            FrameKind::Unknown => "unknown",
        }
    }
}

/// An interned frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub name: String,
    /// Index into [`StackProfile::dsos`], if known.
    pub dso: Option<u32>,
    pub kind: FrameKind,
    /// What symbols tell of it, boxed: most frames have none, and a frame is then
    /// 48 bytes, not 96 (356k frames of a recording of clang: 17 MB, not 34).
    source: Option<Box<FrameSource>>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct FrameSource {
    /// The symbol's raw (mangled) name, when it differs from the frame's name.
    raw: Option<String>,
    /// The source file and line of the function's first instruction, when known.
    file: Option<String>,
    line: Option<u32>,
}

impl Frame {
    /// The symbol's raw (mangled) name, when it differs from `name`.
    pub fn raw(&self) -> Option<&str> {
        self.source.as_ref()?.raw.as_deref()
    }

    /// The source file of the function's first instruction, when known.
    pub fn file(&self) -> Option<&str> {
        self.source.as_ref()?.file.as_deref()
    }

    /// The source line of the function's first instruction, when known.
    pub fn line(&self) -> Option<u32> {
        self.source.as_ref()?.line
    }
}

/// Which samples a query sees: one event, and optionally the times in `start..end`;
/// and how their stacks are transformed first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub event: u32,
    pub time: Option<Range<u64>>,
    pub transforms: Vec<Transform>,
}

/// An aggregated tree: nodes in pre-order (a node's subtree follows it), siblings
/// ordered by frame name. `nodes[0]` is the root (frame [`NO_FRAME`], depth 0).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CallTree {
    pub nodes: Vec<CallNode>,
}

/// A [`CallTree`]'s parent and frame per node, without its weights (8 bytes a
/// node, not 32): what naming a node's path needs, kept while a tree is shown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TreePaths {
    up: Vec<(u32, FrameId)>,
}

impl TreePaths {
    /// As [`CallTree::path`].
    pub fn path(&self, node: u32) -> Vec<FrameId> {
        path_up(node, |n| self.up.get(n as usize).copied())
    }
}

/// The frames from the root's child down to `node`, given each node's parent and
/// frame (`up`).
fn path_up(mut node: u32, up: impl Fn(u32) -> Option<(u32, FrameId)>) -> Vec<FrameId> {
    let mut frames = Vec::new();
    while let Some((parent, frame)) = up(node) {
        if node == 0 {
            break;
        }
        frames.push(frame);
        node = parent;
    }
    frames.reverse();
    frames
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallNode {
    pub frame: FrameId,
    /// Index of the parent in [`CallTree::nodes`]; the root's is itself. (A node's
    /// depth is not kept: [`CallTree::depths`] finds it, 8 bytes a node less with
    /// the padding, 36 MB for a tree of 4.5M nodes.)
    pub parent: u32,
    /// Weight of the samples whose stack passes through this node.
    pub total: u64,
    /// Weight of the samples whose stack ends here.
    pub self_weight: u64,
}

impl CallTree {
    /// The weight of all samples in the tree.
    pub fn total(&self) -> u64 {
        self.nodes.first().map_or(0, |n| n.total)
    }

    /// Each node's depth in turn (the root's 0), found by walking the nodes in
    /// pre-order with the path to the current one: no array a node.
    pub fn depths(&self) -> impl Iterator<Item = u32> + '_ {
        let mut path: Vec<u32> = Vec::new();
        (0u32..).zip(&self.nodes).map(move |(i, node)| {
            // Back up to the parent (a node whose parent is not on the path, in a
            // tree not in pre-order, starts a path of its own).
            while path.last().is_some_and(|&up| up != node.parent || i == 0) {
                path.pop();
            }
            let depth = u32::try_from(path.len()).unwrap_or(u32::MAX);
            path.push(i);
            depth
        })
    }

    /// The nodes on the path from the root's child to `node`, as frames.
    pub fn path(&self, node: u32) -> Vec<FrameId> {
        path_up(node, |n| self.nodes.get(n as usize).map(|c| (c.parent, c.frame)))
    }

    /// The tree's shape without its weights, for [`TreePaths::path`].
    pub fn paths(&self) -> TreePaths {
        TreePaths { up: self.nodes.iter().map(|c| (c.parent, c.frame)).collect() }
    }

    /// The same tree with each node's children heaviest first (ties keep their
    /// order, by name): the order of a left-heavy flame graph and of a call tree.
    pub fn heaviest_first(&self) -> CallTree {
        let n = self.nodes.len();
        // Children grouped by parent, in their current order, then heaviest first.
        let mut children = Children::of(n, self.nodes.iter().skip(1).map(|c| c.parent));
        let total = |i: &u32| self.nodes.get(*i as usize).map_or(0, |x| x.total);
        children.sort_each(|group| group.sort_by_key(|i| core::cmp::Reverse(total(i))));
        let mut nodes: Vec<CallNode> = Vec::with_capacity(n);
        // (old index, new index of its parent)
        let mut stack: Vec<(u32, u32)> = if n == 0 { Vec::new() } else { vec![(0, 0)] };
        while let Some((old, parent)) = stack.pop() {
            let Some(node) = self.nodes.get(old as usize) else { continue };
            let at = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
            nodes.push(CallNode { parent, ..*node });
            stack.extend(children.of_node(old).iter().rev().map(|&c| (c, at)));
        }
        CallTree { nodes }
    }
}

/// One function's weight under a filter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FunctionStats {
    pub frame: FrameId,
    /// Weight of the samples whose leaf is this function.
    pub self_weight: u64,
    /// Weight of the samples whose stack contains this function (once per stack).
    pub total: u64,
}

/// A function's callers (the function at the root, its callers below it) and callees.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sandwich {
    pub callers: CallTree,
    pub callees: CallTree,
}

/// The frames whose names match a search, and the weight of the stacks holding one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchResult {
    /// Matching frames, ascending.
    pub frames: Vec<FrameId>,
    pub weight: u64,
    pub total: u64,
}

/// Weight per time bucket: bucket `i` covers `start + i*(end-start)/n ..`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    pub start: u64,
    pub end: u64,
    pub bins: Vec<u64>,
}

/// Samples as call stacks; see the module documentation.
#[derive(Debug, Default)]
pub struct StackProfile {
    events: Vec<String>,
    frames: Vec<Frame>,
    frame_table: IdTable,
    dsos: Vec<String>,
    dso_index: BTreeMap<String, u32>,
    // The prefix tree; entry 0 is the root.
    nodes: NodeTable,
    // The samples.
    leaf: Vec<NodeId>,
    time: Times,
    // The first and last of `time`, kept as samples come: the summary, the
    // timeline and the stack chart each ask (two passes over millions otherwise).
    time_span: Option<(u64, u64)>,
    weight: Vec<u64>,
    event: Vec<u16>,
    index: OnceCell<Index>,
}

/// What the queries need besides the samples, built on the first query.
#[derive(Debug)]
struct Index {
    /// Rank of each frame when sorted by name (then dso, kind).
    rank: Vec<u32>,
    /// Prefix nodes in pre-order, siblings by rank.
    order: Vec<NodeId>,
    /// Whether no ancestor of the node has the same frame.
    outermost: Vec<bool>,
}

impl StackProfile {
    pub fn new() -> StackProfile {
        StackProfile { nodes: NodeTable::new(), ..StackProfile::default() }
    }

    /// Adds a named event (`cycles`, `instructions:u`); returns its index.
    pub fn add_event(&mut self, name: &str) -> u32 {
        if let Some(i) = self.events.iter().position(|e| e == name) {
            return u32::try_from(i).unwrap_or(u32::MAX);
        }
        self.events.push(String::from(name));
        u32::try_from(self.events.len().saturating_sub(1)).unwrap_or(u32::MAX)
    }

    pub fn events(&self) -> &[String] {
        &self.events
    }

    /// Interns a frame.
    pub fn frame(&mut self, name: &str, dso: Option<&str>, kind: FrameKind) -> FrameId {
        let dso = dso.map(|d| self.dso(d));
        let hash = frame_hash(name, dso, kind);
        let Self { frames, frame_table, .. } = self;
        let next = u32::try_from(frames.len()).unwrap_or(u32::MAX);
        let (id, new) = frame_table.find_or_insert(
            hash,
            |id| frames.get(id as usize).is_some_and(|f| f.name == name && f.dso == dso && f.kind == kind),
            next,
        );
        if new {
            frames.push(Frame { name: String::from(name), dso, kind, source: None });
            self.index = OnceCell::new();
        }
        id
    }

    fn dso(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.dso_index.get(name) {
            return i;
        }
        let i = u32::try_from(self.dsos.len()).unwrap_or(u32::MAX);
        self.dsos.push(String::from(name));
        self.dso_index.insert(String::from(name), i);
        i
    }

    /// Says where frame `id`'s function comes from: its raw name (kept when it
    /// differs from the frame's name) and source line. What is known stays.
    pub fn describe(&mut self, id: FrameId, raw: &str, file: Option<&str>, line: Option<u32>) {
        let Some(f) = self.frames.get_mut(id as usize) else { return };
        let differs = f.name != raw;
        // Boxed only when there is something to keep: most frames stay without.
        if !differs && file.is_none() && line.is_none() && f.source.is_none() {
            return;
        }
        let s = f.source.get_or_insert_with(|| Box::new(FrameSource { raw: None, file: None, line: None }));
        if s.raw.is_none() && differs {
            s.raw = Some(String::from(raw));
        }
        if s.file.is_none() {
            s.file = file.map(String::from);
            s.line = line;
        }
    }

    pub fn frames(&self) -> &[Frame] {
        &self.frames
    }

    pub fn frame_info(&self, id: FrameId) -> Option<&Frame> {
        self.frames.get(id as usize)
    }

    pub fn dsos(&self) -> &[String] {
        &self.dsos
    }

    /// The frame standing for a whole DSO (what [`Transform::CollapseDso`] turns
    /// its runs of frames into): named after it, interned on first use.
    pub fn dso_frame(&mut self, dso: u32) -> Option<FrameId> {
        let name = self.dsos.get(dso as usize)?.clone();
        Some(self.frame(&name, Some(&name), FrameKind::User))
    }

    /// The dso name of a frame.
    pub fn frame_dso(&self, id: FrameId) -> Option<&str> {
        let dso = self.frames.get(id as usize)?.dso?;
        self.dsos.get(dso as usize).map(String::as_str)
    }

    /// The node for `frame` called from `parent`, created if new; `None` for an
    /// unknown parent or frame.
    pub fn child(&mut self, parent: NodeId, frame: FrameId) -> Option<NodeId> {
        if parent as usize >= self.nodes.parent.len() || frame as usize >= self.frames.len() {
            return None;
        }
        let known = self.nodes.parent.len();
        let id = self.nodes.child(parent, frame);
        if self.nodes.parent.len() > known {
            self.index = OnceCell::new();
        }
        (id != transform::DROPPED).then_some(id)
    }

    /// The node of a whole stack, frames from the root (outermost caller) to the leaf.
    pub fn stack(&mut self, frames: &[FrameId]) -> Option<NodeId> {
        frames.iter().try_fold(ROOT, |node, &f| self.child(node, f))
    }

    /// Frees what only adding stacks needs (the table that finds a node by its
    /// parent and frame: a third of a large profile's tree), once they are all
    /// added, and the room the tree's, the frames' and the samples' arrays had grown for
    /// (doubled as nodes came, or reserved by a guess of the sample count: up to
    /// half of each array, 31 MB for a tree of 4.5M nodes). Adding more still
    /// works, after rebuilding that table.
    pub fn end_stacks(&mut self) {
        self.nodes.forget_index();
        self.nodes.parent.shrink_to_fit();
        self.nodes.frame.shrink_to_fit();
        self.frames.shrink_to_fit();
        self.leaf.shrink_to_fit();
        self.time.shrink_to_fit();
        self.weight.shrink_to_fit();
        self.event.shrink_to_fit();
    }

    /// Adds a sample whose stack ends at `leaf`; `None` for an unknown node or event.
    pub fn push_sample_at(&mut self, event: u32, time: u64, weight: u64, leaf: NodeId) -> Option<()> {
        let event = u16::try_from(event).ok().filter(|&e| usize::from(e) < self.events.len())?;
        if leaf as usize >= self.nodes.parent.len() {
            return None;
        }
        // Weights stay unstored while every sample weighs 1 (counted samples, the
        // common case): 8 bytes a sample, 27 MB for a 600 MB recording.
        if weight != 1 && self.weight.len() < self.leaf.len() {
            self.weight = vec![1; self.leaf.len()];
        }
        if weight != 1 || self.weight.len() == self.leaf.len() && !self.weight.is_empty() {
            self.weight.push(weight);
        }
        // Events likewise stay unstored while every sample is of event 0.
        if event != 0 && self.event.len() < self.leaf.len() {
            self.event = vec![0; self.leaf.len()];
        }
        if event != 0 || self.event.len() == self.leaf.len() && !self.event.is_empty() {
            self.event.push(event);
        }
        self.leaf.push(leaf);
        self.time.push(time);
        self.time_span = Some(self.time_span.map_or((time, time), |(a, b)| (a.min(time), b.max(time))));
        Some(())
    }

    /// Makes room for `additional` more samples up front, so that building a large
    /// profile does not pass through doubled arrays.
    pub fn reserve_samples(&mut self, additional: usize) {
        self.leaf.reserve_exact(additional);
        self.time.reserve_exact(additional);
        if self.events.len() > 1 {
            self.event.reserve_exact(additional);
        }
    }

    /// Each sample's event (0 for all when none was given another).
    fn sample_events(&self) -> impl Iterator<Item = &u16> + '_ {
        self.event.iter().chain(core::iter::repeat(&0))
    }

    /// Each sample's weight (1 for all when none was given another).
    fn weights(&self) -> impl Iterator<Item = &u64> + '_ {
        self.weight.iter().chain(core::iter::repeat(&1))
    }

    /// Adds a sample with its stack, frames from the root to the leaf.
    pub fn push_sample(&mut self, event: u32, time: u64, weight: u64, frames: &[FrameId]) -> Option<()> {
        let leaf = self.stack(frames)?;
        self.push_sample_at(event, time, weight, leaf)
    }

    pub fn sample_count(&self) -> usize {
        self.leaf.len()
    }

    /// Prefix-tree nodes, the root included.
    pub fn node_count(&self) -> usize {
        self.nodes.parent.len()
    }

    /// The first and last sample times, over all events.
    pub fn time_range(&self) -> Option<(u64, u64)> {
        self.time_span
    }

    fn index(&self) -> &Index {
        self.index.get_or_init(|| {
            let rank = frame_ranks(&self.frames);
            let order = preorder(&self.nodes.parent, &self.nodes.frame, &rank);
            let outermost = outermost(&order, &self.nodes.parent, &self.nodes.frame, self.frames.len());
            Index { rank, order, outermost }
        })
    }

    /// Self weight of every prefix node under `filter`, and the total weight.
    fn self_weights(&self, filter: &Filter) -> (Vec<u64>, u64) {
        let mut acc = vec![0u64; self.nodes.parent.len()];
        let mut total = 0u64;
        let Ok(event) = u16::try_from(filter.event) else { return (acc, 0) };
        let mut add = |leaf: NodeId, w: u64| {
            if let Some(a) = acc.get_mut(leaf as usize) {
                *a = a.saturating_add(w);
                total = total.saturating_add(w);
            }
        };
        let samples = self.leaf.iter().zip(self.weights()).zip(self.sample_events());
        // The times are read only to keep a range (a recording's first flame graph
        // keeps all).
        match &filter.time {
            None => samples.filter(|(_, &e)| e == event).for_each(|((&leaf, &w), _)| add(leaf, w)),
            Some(range) => samples
                .zip(self.time.iter())
                .filter(|((_, &e), t)| e == event && range.contains(t))
                .for_each(|(((&leaf, &w), _), _)| add(leaf, w)),
        }
        (acc, total)
    }

    /// The tree `filter`'s queries run on, weighed: the prefix tree, or the tree its
    /// transforms derive from it.
    fn shape(&self, filter: &Filter) -> Shape<'_> {
        let (self_w, total) = self.self_weights(filter);
        let index = self.index();
        if filter.transforms.is_empty() {
            return Shape {
                parent: Cow::Borrowed(&self.nodes.parent),
                frame: Cow::Borrowed(&self.nodes.frame),
                order: Cow::Borrowed(&index.order),
                outermost: Some(&index.outermost),
                map: None,
                self_w,
                total,
            };
        }
        let derived = transform::derive(&self.nodes.parent, &self.nodes.frame, &filter.transforms, &self.frames);
        let mut weights = vec![0u64; derived.nodes.parent.len()];
        let mut kept = 0u64;
        for (&to, &w) in derived.map.iter().zip(&self_w) {
            if let Some(x) = weights.get_mut(to as usize).filter(|_| w > 0) {
                *x = x.saturating_add(w);
                kept = kept.saturating_add(w);
            }
        }
        let order = preorder(&derived.nodes.parent, &derived.nodes.frame, &index.rank);
        let map = Some(derived.map);
        Shape {
            parent: Cow::Owned(derived.nodes.parent),
            frame: Cow::Owned(derived.nodes.frame),
            order: Cow::Owned(order),
            outermost: None,
            map,
            self_w: weights,
            total: kept,
        }
    }

    /// The call tree under `filter`: stacks merged by frame along their paths.
    pub fn call_tree(&self, filter: &Filter) -> CallTree {
        let shape = self.shape(filter);
        let self_w = &shape.self_w;
        let tot = totals(&shape.parent, self_w);
        // Sized up front: grown by doubling, the old and the new array were both
        // held at once (in wasm memory, which keeps its high-water mark).
        let kept = tot.iter().skip(1).filter(|&&t| t > 0).count().saturating_add(1);
        let mut out = CallTree { nodes: Vec::with_capacity(kept) };
        // Where each node went in `out` (a node without weight is skipped, and so is
        // its subtree: its weight is its subtree's).
        let mut at = vec![u32::MAX; shape.parent.len()];
        for &n in shape.order.iter() {
            let total = tot.get(n as usize).copied().unwrap_or(0);
            if total == 0 && n != ROOT {
                continue;
            }
            let parent = match shape.parent.get(n as usize).and_then(|&p| at.get(p as usize)) {
                Some(&p) if n != ROOT => p,
                _ => 0,
            };
            if let Some(slot) = at.get_mut(n as usize) {
                *slot = u32::try_from(out.nodes.len()).unwrap_or(u32::MAX);
            }
            out.nodes.push(CallNode {
                frame: shape.frame.get(n as usize).copied().unwrap_or(NO_FRAME),
                parent,
                total,
                self_weight: self_w.get(n as usize).copied().unwrap_or(0),
            });
        }
        out
    }

    /// The inverted (icicle) tree: stacks merged from the leaf up; a node's self
    /// weight is that of the stacks whose leaf it is (the first level's).
    pub fn inverted(&self, filter: &Filter) -> CallTree {
        let shape = self.shape(filter);
        let mut b = TreeBuilder::new();
        shape.for_each_stack(|path, w| b.add(path.iter().copied(), w, Some(0)));
        b.finish(shape.total, &self.index().rank)
    }

    /// Self and total weight of every function with weight under `filter`, by frame id.
    ///
    /// Self weight goes where `perf report --no-children --sort sym` puts it: to the
    /// function whose code holds the sampled address, the stack's first frame from
    /// the leaf that is not inlined into another ([`FrameKind::Inlined`]). An
    /// inlined frame's own self weight is therefore 0, as in perf; its total counts
    /// the stacks through it. ([`Transform::FoldInlined`] removes inlined frames.)
    pub fn functions(&self, filter: &Filter) -> Vec<FunctionStats> {
        let shape = self.shape(filter);
        let tot = totals(&shape.parent, &shape.self_w);
        let holder = self.holders(&shape.parent, &shape.frame);
        let derived;
        let outermost = match shape.outermost {
            Some(o) => o,
            None => {
                derived = outermost(&shape.order, &shape.parent, &shape.frame, self.frames.len());
                &derived
            }
        };
        let mut stats: Vec<FunctionStats> = (0..u32::try_from(self.frames.len()).unwrap_or(u32::MAX))
            .map(|frame| FunctionStats { frame, self_weight: 0, total: 0 })
            .collect();
        for (n, ((&frame, &s), &t)) in shape.frame.iter().zip(&shape.self_w).zip(&tot).enumerate().skip(1) {
            let held_by = holder.get(n).copied().unwrap_or(frame);
            if let Some(row) = stats.get_mut(held_by as usize) {
                row.self_weight = row.self_weight.saturating_add(s);
            }
            let Some(row) = stats.get_mut(frame as usize) else { continue };
            if outermost.get(n).copied().unwrap_or(false) {
                row.total = row.total.saturating_add(t);
            }
        }
        stats.retain(|s| s.total > 0);
        stats
    }

    /// For each node of a tree (parents before children), the frame whose code its
    /// samples ran in: its own, or for an inlined frame that of its caller's node
    /// (an inlined frame at the root holds its own code).
    fn holders(&self, parent: &[NodeId], frame: &[FrameId]) -> Vec<FrameId> {
        let mut holder: Vec<FrameId> = Vec::with_capacity(parent.len());
        for (&p, &f) in parent.iter().zip(frame) {
            let inlined = self.frames.get(f as usize).is_some_and(|x| x.kind == FrameKind::Inlined);
            let caller = holder.get(p as usize).copied().filter(|&h| p != ROOT && h != NO_FRAME);
            holder.push(match caller {
                Some(h) if inlined => h,
                _ => f,
            });
        }
        holder
    }

    /// The callers and callees of `frame`. Callees merge every stack through the
    /// function from its outermost call down; callers from its innermost call up
    /// (so a recursive function is its own caller). Both roots weigh the function's
    /// total; in both the function's node has its self weight.
    pub fn sandwich(&self, filter: &Filter, frame: FrameId) -> Sandwich {
        let shape = self.shape(filter);
        let (mut callers, mut callees) = (TreeBuilder::new(), TreeBuilder::new());
        let mut total = 0u64;
        shape.for_each_stack(|path, w| {
            // `path` is leaf first.
            let (Some(inner), Some(outer)) =
                (path.iter().position(|&f| f == frame), path.iter().rposition(|&f| f == frame))
            else {
                return;
            };
            total = total.saturating_add(w);
            // A stack ending in the function is its self weight, on its node in both.
            let leaf = (inner == 0).then_some(0);
            callers.add(path.get(inner..).unwrap_or_default().iter().copied(), w, leaf);
            callees.add(path.get(..=outer).unwrap_or_default().iter().rev().copied(), w, Some(outer));
        });
        let rank = &self.index().rank;
        Sandwich { callers: callers.finish(total, rank), callees: callees.finish(total, rank) }
    }

    /// The frames whose names match `pattern` (ASCII case ignored; a substring, or a
    /// regex-lite between slashes, see [`matches`]) and the weight of the stacks that
    /// hold one of them.
    pub fn search(&self, filter: &Filter, pattern: &str) -> SearchResult {
        let shape = self.shape(filter);
        let total = shape.total;
        let hit: Vec<bool> = self.frames.iter().map(|f| !pattern.is_empty() && matches(pattern, &f.name)).collect();
        let mut on_path = vec![false; shape.parent.len()];
        let mut weight = 0u64;
        for n in 1..shape.parent.len() {
            let parent_hit = shape.parent.get(n).and_then(|&p| on_path.get(p as usize)).copied().unwrap_or(false);
            let own = shape.frame.get(n).and_then(|&f| hit.get(f as usize)).copied().unwrap_or(false);
            if parent_hit || own {
                if let Some(slot) = on_path.get_mut(n) {
                    *slot = true;
                }
                weight = weight.saturating_add(shape.self_w.get(n).copied().unwrap_or(0));
            }
        }
        let frames = (0u32..).zip(&hit).filter(|(_, &h)| h).map(|(i, _)| i).collect();
        SearchResult { frames, weight, total }
    }

    /// Weight per time bucket, `bins` buckets over the filter's time range (or all
    /// samples' when it has none).
    pub fn timeline(&self, filter: &Filter, bins: u32) -> Timeline {
        let (start, end) = match &filter.time {
            Some(r) => (r.start, r.end),
            None => match self.time_range() {
                Some((a, b)) => (a, b.saturating_add(1)),
                None => (0, 0),
            },
        };
        let mut out = vec![0u64; bins as usize];
        let span = end.saturating_sub(start);
        if span == 0 || bins == 0 {
            return Timeline { start, end, bins: out };
        }
        let Ok(event) = u16::try_from(filter.event) else { return Timeline { start, end, bins: out } };
        for ((t, &w), &e) in self.time.iter().zip(self.weights()).zip(self.sample_events()) {
            if e != event || t < start || t >= end {
                continue;
            }
            let bin = scaled(t.saturating_sub(start), u64::from(bins), span);
            if let Some(b) = usize::try_from(bin).ok().and_then(|b| out.get_mut(b)) {
                *b = b.saturating_add(w);
            }
        }
        Timeline { start, end, bins: out }
    }
}

/// The tree a query runs on (see [`StackProfile::shape`]) and its nodes' self weights.
struct Shape<'a> {
    parent: Cow<'a, [NodeId]>,
    frame: Cow<'a, [FrameId]>,
    /// Nodes in pre-order, siblings by name.
    order: Cow<'a, [NodeId]>,
    /// Outermost nodes (see [`outermost`]), when already known.
    outermost: Option<&'a [bool]>,
    /// Where each prefix node went ([`transform::DROPPED`]: nowhere); `None`: the
    /// prefix tree itself.
    map: Option<Vec<NodeId>>,
    self_w: Vec<u64>,
    /// The weight of the samples kept.
    total: u64,
}

impl Shape<'_> {
    /// Calls `f(leaf_to_root_frames, weight)` for each node with self weight.
    fn for_each_stack(&self, mut f: impl FnMut(&[FrameId], u64)) {
        let mut path = Vec::new();
        for (n, &w) in self.self_w.iter().enumerate() {
            if w == 0 || n == 0 {
                continue;
            }
            path.clear();
            let mut node = u32::try_from(n).unwrap_or(ROOT);
            while node != ROOT {
                let (Some(&frame), Some(&parent)) = (self.frame.get(node as usize), self.parent.get(node as usize))
                else {
                    break;
                };
                path.push(frame);
                node = parent;
            }
            f(&path, w);
        }
    }
}

/// Turns self weights into totals: parents come before children.
fn totals(parent: &[NodeId], self_w: &[u64]) -> Vec<u64> {
    let mut tot = self_w.to_vec();
    for n in (1..parent.len()).rev() {
        let (Some(&p), Some(&t)) = (parent.get(n), tot.get(n)) else { continue };
        if let Some(pt) = tot.get_mut(p as usize) {
            *pt = pt.saturating_add(t);
        }
    }
    tot
}

/// Builds a tree from paths (inverted and sandwich trees).
struct TreeBuilder {
    nodes: NodeTable,
    total: Vec<u64>,
    self_w: Vec<u64>,
}

impl TreeBuilder {
    fn new() -> TreeBuilder {
        TreeBuilder { nodes: NodeTable::new(), total: vec![0], self_w: vec![0] }
    }

    /// Adds `w` along `path` (from the tree's root down), and to the self weight of
    /// its node number `self_at` (0: the first), if any.
    fn add(&mut self, path: impl Iterator<Item = FrameId>, w: u64, self_at: Option<usize>) {
        let mut node = 0u32;
        if let Some(t) = self.total.get_mut(0) {
            *t = t.saturating_add(w);
        }
        for (i, frame) in path.enumerate() {
            let id = self.nodes.child(node, frame);
            if id == transform::DROPPED {
                return;
            }
            if id as usize >= self.total.len() {
                self.total.push(0);
                self.self_w.push(0);
            }
            if let Some(t) = self.total.get_mut(id as usize) {
                *t = t.saturating_add(w);
            }
            if self_at == Some(i) {
                if let Some(s) = self.self_w.get_mut(id as usize) {
                    *s = s.saturating_add(w);
                }
            }
            node = id;
        }
    }

    fn finish(self, total: u64, rank: &[u32]) -> CallTree {
        let NodeTable { parent: parents, frame: frames, .. } = &self.nodes;
        let order = preorder(parents, frames, rank);
        let mut at = vec![0u32; parents.len()];
        let mut nodes: Vec<CallNode> = Vec::with_capacity(order.len());
        for n in order {
            let i = n as usize;
            let parent =
                if n == 0 { 0 } else { parents.get(i).and_then(|&p| at.get(p as usize)).copied().unwrap_or(0) };
            if let Some(slot) = at.get_mut(i) {
                *slot = u32::try_from(nodes.len()).unwrap_or(u32::MAX);
            }
            nodes.push(CallNode {
                frame: frames.get(i).copied().unwrap_or(NO_FRAME),
                parent,
                total: if n == 0 { total } else { self.total.get(i).copied().unwrap_or(0) },
                self_weight: self.self_w.get(i).copied().unwrap_or(0),
            });
        }
        CallTree { nodes }
    }
}

/// The nodes of a tree given by parent links (parents before children, node 0 the
/// root) in pre-order, siblings by their frames' rank.
fn preorder(parent: &[u32], frame: &[FrameId], rank: &[u32]) -> Vec<u32> {
    // Children grouped by parent, then each group sorted by rank. Siblings are
    // few, so this is cheaper than one sort of every (parent, rank, id).
    let mut children = Children::of(parent.len(), parent.iter().skip(1).copied());
    let rank_of = |id: u32| frame.get(id as usize).and_then(|&f| rank.get(f as usize)).copied().unwrap_or(u32::MAX);
    children.sort_each(|group| group.sort_unstable_by_key(|&id| (rank_of(id), id)));
    let mut order = Vec::with_capacity(parent.len());
    let mut stack = vec![0u32];
    while let Some(n) = stack.pop() {
        order.push(n);
        stack.extend(children.of_node(n).iter().rev());
    }
    order
}

/// The children of each node of a tree given by parent links, grouped by parent:
/// `kids[first[p]..first[p + 1]]` are p's, ids ascending (a counting sort: no
/// comparison, two arrays of the tree's size).
struct Children {
    first: Vec<u32>,
    kids: Vec<u32>,
}

impl Children {
    /// The children of a tree of `n` nodes; `parent` gives the parents of nodes
    /// 1..n in turn (a parent out of range has no child placed).
    fn of(n: usize, parent: impl Iterator<Item = u32> + Clone) -> Children {
        let mut first = vec![0u32; n.saturating_add(1)];
        for p in parent.clone() {
            if let Some(c) = first.get_mut((p as usize).saturating_add(1)) {
                *c = c.saturating_add(1);
            }
        }
        for i in 1..first.len() {
            let prev = first.get(i.saturating_sub(1)).copied().unwrap_or(0);
            if let Some(c) = first.get_mut(i) {
                *c = c.saturating_add(prev);
            }
        }
        let mut next = first.clone();
        let mut kids = vec![0u32; n.saturating_sub(1)];
        for (id, p) in (1u32..).zip(parent) {
            if let Some(at) = next.get_mut(p as usize) {
                if let Some(slot) = kids.get_mut(*at as usize) {
                    *slot = id;
                }
                *at = at.saturating_add(1);
            }
        }
        Children { first, kids }
    }

    /// The children of `node`.
    fn of_node(&self, node: u32) -> &[u32] {
        let (a, b) = (self.first.get(node as usize), self.first.get((node as usize).saturating_add(1)));
        a.zip(b).and_then(|(&a, &b)| self.kids.get(a as usize..b as usize)).unwrap_or_default()
    }

    /// Calls `sort` with each node's children.
    fn sort_each(&mut self, mut sort: impl FnMut(&mut [u32])) {
        let Children { first, kids } = self;
        for w in first.windows(2) {
            if let (Some(&a), Some(&b)) = (w.first(), w.get(1)) {
                if let Some(group) = kids.get_mut(a as usize..b as usize) {
                    sort(group);
                }
            }
        }
    }
}

/// For each node (indexed by id), whether no ancestor has its frame. `order` is a
/// pre-order: the path to a node is the stack of nodes of lower depth before it.
fn outermost(order: &[u32], parent: &[u32], frame: &[FrameId], frames: usize) -> Vec<bool> {
    let mut out = vec![false; parent.len()];
    let mut on_path = vec![0u32; frames];
    let mut path: Vec<u32> = Vec::new();
    for &n in order.iter().skip(1) {
        let p = parent.get(n as usize).copied().unwrap_or(0);
        while let Some(&top) = path.last() {
            if top == p {
                break;
            }
            path.pop();
            if let Some(c) = frame.get(top as usize).and_then(|&f| on_path.get_mut(f as usize)) {
                *c = c.saturating_sub(1);
            }
        }
        let f = frame.get(n as usize).copied().unwrap_or(NO_FRAME);
        if let Some(c) = on_path.get_mut(f as usize) {
            if let Some(o) = out.get_mut(n as usize) {
                *o = *c == 0;
            }
            *c = c.saturating_add(1);
        }
        path.push(n);
    }
    out
}

/// `offset * n / span` rounded down, for an `offset` below `span` (the bucket or
/// column of a time): in 64 bits where `span * n` fits (spans under 213 days of
/// nanoseconds for 1,000 buckets), since a 128-bit division is a call in wasm,
/// made once per sample (70 ms for 4 million).
fn scaled(offset: u64, n: u64, span: u64) -> u64 {
    if span.checked_mul(n).is_some() {
        return offset.saturating_mul(n).checked_div(span).unwrap_or(0);
    }
    let wide = u128::from(offset).saturating_mul(u128::from(n)).checked_div(u128::from(span));
    wide.and_then(|q| u64::try_from(q).ok()).unwrap_or(0)
}

#[cfg(test)]
mod tests;
