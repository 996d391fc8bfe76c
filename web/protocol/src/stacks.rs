//! The call stacks' messages: which samples a stack view aggregates, and the flame
//! graphs, call trees, stack charts and timelines the worker answers with.

use serde::{Deserialize, Serialize};

use crate::{F64Array, Rects, Strings, U32Array};

/// Which samples the stack views aggregate: one event, optionally a time range, and
/// optionally one root.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SampleFilter {
    pub event: u32,
    pub range: Option<(u64, u64)>,
    /// Only one function's inline tree, laid out from the function (a sample
    /// profile's Functions row id). A flame graph and a search see that tree; a
    /// sandwich, the functions table and the timeline see the whole profile.
    #[serde(default)]
    pub root: Option<u32>,
    /// Transforms of the stacks, applied in order before anything is aggregated.
    #[serde(default)]
    pub transforms: Vec<Transform>,
}

/// A transform of the call stacks (as the Firefox Profiler offers them). Frames are
/// the worker's frame ids, DSOs indices into [`FrameNames::dsos`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Transform {
    /// Remove the function from every stack; its callees attach to its caller.
    Merge { frame: u32 },
    /// Keep the stacks through the function, rooted at its outermost call.
    FocusFunction { frame: u32 },
    /// Keep the stacks starting with `path` (frames from the root, or from the leaf
    /// when `inverted`), rooted at its last frame.
    FocusSubtree { path: Vec<u32>, inverted: bool },
    /// Each run of frames of the DSO becomes one frame named after it.
    CollapseDso { dso: u32 },
    /// The calls between the function's outermost and innermost call are removed
    /// (indirect recursion included).
    CollapseRecursion { frame: u32 },
    /// Only the function's direct calls of itself are merged.
    CollapseDirectRecursion { frame: u32 },
    /// Drop the samples whose stack holds the function.
    DropFunction { frame: u32 },
    /// Remove every inlined frame (kind `inlined`): its weight goes to the function
    /// it was inlined into, whose code holds it.
    FoldInlined,
}

/// How a flame graph orders the children of a frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Order {
    /// By name, as Brendan Gregg's flame graphs do.
    #[default]
    Alphabetical,
    /// Heaviest first ("left heavy", as speedscope).
    Heaviest,
}

/// What the worker says of a file's stacks when it opens.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StacksInfo {
    pub events: Vec<String>,
    pub frames: u64,
    pub samples: u64,
    /// Sample times span `start..end`.
    pub start: u64,
    pub end: u64,
    /// The samples copied the user stack (`perf record --call-graph dwarf`): its
    /// frames come from unwinding it with the binaries' call-frame information.
    #[serde(default)]
    pub stack_copies: bool,
}

/// A laid-out flame graph: `[x0, width, frame]` per rectangle (frame -1 for the
/// root), by depth then x; where each depth's rectangles start (and the end); and
/// the self weights that are not 0, by rectangle (ascending). Most nodes of a
/// deep tree have none: 8 bytes a rectangle less on each side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlameLayout {
    pub rects: Rects,
    pub rows: U32Array,
    pub self_rects: U32Array,
    pub self_weights: F64Array,
}

impl FlameLayout {
    /// Rectangles.
    pub fn len(&self) -> usize {
        self.rects.len() / Rects::WIDTH
    }

    pub fn is_empty(&self) -> bool {
        self.rects.is_empty()
    }

    /// From `[x0, width, self, frame]` per rectangle (tests, small layouts).
    pub fn from_quads(quads: &[f64], rows: Vec<u32>) -> FlameLayout {
        let mut layout = FlameLayout { rows: rows.into(), ..FlameLayout::default() };
        let mut rects = Vec::with_capacity(quads.len() / 4 * Rects::WIDTH);
        for (i, q) in (0u32..).zip(quads.chunks_exact(4)) {
            if let [x0, width, self_weight, frame] = *q {
                rects.extend([x0, width, frame]);
                if self_weight != 0.0 {
                    layout.self_rects.0.push(i);
                    layout.self_weights.0.push(self_weight);
                }
            }
        }
        layout.rects = rects.into();
        layout
    }

    /// Every rectangle as `[x0, width, self, frame]` (tests, small layouts).
    pub fn to_quads(&self) -> Vec<f64> {
        let mut selfs = self.self_rects.0.iter().zip(&self.self_weights.0).peekable();
        let mut out = Vec::with_capacity(self.len() * 4);
        for (i, r) in (0u32..).zip(self.rects.to_vec().chunks_exact(Rects::WIDTH)) {
            let own = selfs.next_if(|&(&at, _)| at == i).map_or(0.0, |(_, &w)| w);
            if let [x0, width, frame] = *r {
                out.extend([x0, width, own, frame]);
            }
        }
        out
    }
}

/// A call tree's nodes in pre-order, siblings heaviest first; node 0 is the root
/// (frame `u32::MAX`). Per node: its frame, its parent's index (the root's is 0),
/// its total and self weight (exact below 2^53).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CallTreeNodes {
    pub frame: U32Array,
    pub parent: U32Array,
    pub total: F64Array,
    pub self_weight: F64Array,
}

/// A stack chart over times `start..end` in `columns` columns: per box
/// `[col0, col1, depth, frame]` (columns `col0..col1`, depth 0 the outermost caller),
/// ordered by first column then depth; `samples` in the range.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StackChartBoxes {
    pub start: u64,
    pub end: u64,
    pub samples: u64,
    pub boxes: U32Array,
}

/// Every frame's name, DSO and kind, by frame id. Packed ([`Strings`], typed
/// arrays): a recording has tens of thousands of frames.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameNames {
    pub names: Strings,
    pub dsos: Vec<String>,
    /// Index into `dsos`, or `u32::MAX`.
    pub dso: U32Array,
    pub kinds: Strings,
    /// The symbol's raw (mangled) name where it differs from the name, else empty.
    #[serde(default)]
    pub raw: Strings,
    /// `file:line` of the function's first instruction where known, else empty.
    #[serde(default)]
    pub source: Strings,
}

impl FrameNames {
    /// The index into `dsos` of `frame`'s DSO, if it has one.
    pub fn dso_index(&self, frame: u32) -> Option<u32> {
        self.dso.0.get(frame as usize).copied().filter(|&d| d != u32::MAX)
    }
}

/// The frames a search matched, and the weight of the stacks holding one of them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Found {
    pub frames: Vec<u32>,
    pub weight: u64,
    pub total: u64,
}

/// An event's weight over its whole time span, in equal buckets.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timeline {
    pub event: u32,
    pub start: u64,
    pub end: u64,
    pub bins: Vec<u64>,
}
