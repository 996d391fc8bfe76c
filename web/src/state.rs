//! The page's state and the one reducer that changes it.
//!
//! Everything the UI does goes through [`State::update`]: user intent (select a file,
//! expand a node, click a byte) and the worker's replies alike. The reducer never talks
//! to the worker: it queues [`Request`]s in [`State::outbox`], and the app posts them
//! after rendering, then acknowledges them with [`Action::Posted`]. So the whole UI
//! logic runs in native tests, without a browser.
//!
//! Large parts are behind `Rc` so that an action that touches one file (or only the
//! selection) does not copy the others, or the tree.

use std::rc::Rc;

pub use crate::flame_state::*;

/// The page's number for an open file (also the worker's session key).
pub type DocId = u32;
/// Index of a node in a document's [`Tree`].
pub type NodeId = usize;

/// A dump node as the worker describes it, without its children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeInfo {
    pub label: String,
    pub value: Option<String>,
    /// Absolute offset of the first byte.
    pub start: u64,
    /// Offset one past the last byte.
    pub end: u64,
    /// Whether it has children (built, or deferred in the worker).
    pub has_children: bool,
}

/// What the worker says about a decoded file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    pub name: String,
    /// The format id, e.g. `perf.data`, `instrprof-raw`.
    pub format: String,
    /// The detection line, e.g. `instrprof-raw [version 10, 64-bit, little-endian, IR_PROF]`.
    pub detection: String,
    pub version: Option<u64>,
    /// Size of the content the decoders saw (after gunzip).
    pub size: u64,
    pub file_size: u64,
    /// The views the format offers, by id (`dump`, later `flame`, `functions`, `cfg`).
    pub views: Vec<String>,
    /// Why the format's other views are missing (a correlated raw profile without its binary).
    pub views_error: Option<String>,
    /// The binary a correlated raw profile was decoded with.
    pub correlated_with: Option<String>,
    /// The events and time span of a file with call stacks.
    pub stacks: Option<StacksInfo>,
}

/// The views of a decoded file, in tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tab {
    Dump,
    FlameGraph,
    Functions,
    Summary,
    MemProf,
    Cfg,
}

impl Tab {
    pub const ALL: [Tab; 6] = [Tab::Dump, Tab::FlameGraph, Tab::Functions, Tab::Summary, Tab::MemProf, Tab::Cfg];

    pub fn id(self) -> &'static str {
        match self {
            Tab::Dump => "dump",
            Tab::FlameGraph => "flame",
            Tab::Functions => "functions",
            Tab::Summary => "summary",
            Tab::MemProf => "memprof",
            Tab::Cfg => "cfg",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Tab::Dump => "Dump",
            Tab::FlameGraph => "Flame graph",
            Tab::Functions => "Functions",
            Tab::Summary => "Summary",
            Tab::MemProf => "MemProf",
            Tab::Cfg => "CFG",
        }
    }
}

impl Summary {
    /// A correlated raw profile waiting for its binary.
    pub fn needs_binary(&self) -> bool {
        self.format == "instrprof-raw" && self.views_error.as_deref().is_some_and(|e| e.contains("binary"))
    }

    pub fn is_elf(&self) -> bool {
        self.format == "elf" || self.format == "elf+bat"
    }

    /// A binary or kallsyms file: what names the frames of a perf.data.
    pub fn names_frames(&self) -> bool {
        self.is_elf() || self.format == "kallsyms"
    }

    pub fn is_perf(&self) -> bool {
        self.format == "perf.data" || self.format == "perf.data-pipe"
    }

    /// The tabs to show: those the format offers, in [`Tab::ALL`] order.
    pub fn tabs(&self) -> Vec<Tab> {
        Tab::ALL.into_iter().filter(|t| self.views.iter().any(|v| v == t.id())).collect()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Children {
    /// A leaf.
    None,
    /// Has children the page has not asked for yet.
    Unloaded,
    /// Asked for; `req` is the request that will bring them.
    Loading {
        req: u64,
    },
    Loaded(Vec<NodeId>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeNode {
    pub info: NodeInfo,
    pub parent: Option<NodeId>,
    /// Index among its parent's children: the worker addresses nodes by these.
    pub index: u32,
    pub depth: u32,
    pub children: Children,
    pub expanded: bool,
}

/// The part of the dump the page has loaded, and the rows it shows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tree {
    /// `nodes[0]` is the root, when there is one.
    pub nodes: Vec<TreeNode>,
    /// The visible rows, in order: the root and every loaded child of an expanded node.
    pub rows: Vec<NodeId>,
}

impl Tree {
    fn with_root(root: NodeInfo, children: Vec<NodeInfo>) -> Tree {
        let mut tree = Tree { nodes: Vec::new(), rows: Vec::new() };
        tree.nodes.push(TreeNode {
            children: if root.has_children { Children::Unloaded } else { Children::None },
            info: root,
            parent: None,
            index: 0,
            depth: 0,
            expanded: false,
        });
        if !children.is_empty() {
            tree.set_children(0, children);
            if let Some(root) = tree.nodes.get_mut(0) {
                root.expanded = true;
            }
        }
        tree.flatten();
        tree
    }

    pub fn node(&self, id: NodeId) -> Option<&TreeNode> {
        self.nodes.get(id)
    }

    /// Child indices from the root to `id`.
    pub fn path(&self, mut id: NodeId) -> Vec<u32> {
        let mut path = Vec::new();
        while let Some(node) = self.nodes.get(id) {
            match node.parent {
                Some(parent) => {
                    path.push(node.index);
                    id = parent;
                }
                None => break,
            }
        }
        path.reverse();
        path
    }

    /// The loaded node at `path`, if every step is loaded.
    pub fn find(&self, path: &[u32]) -> Option<NodeId> {
        let mut id = 0;
        self.nodes.first()?;
        for &i in path {
            match &self.nodes.get(id)?.children {
                Children::Loaded(kids) => id = *kids.get(i as usize)?,
                _ => return None,
            }
        }
        Some(id)
    }

    /// Stores the children of `parent` (unless already loaded).
    fn set_children(&mut self, parent: NodeId, children: Vec<NodeInfo>) {
        let Some(depth) = self.nodes.get(parent).map(|p| p.depth.saturating_add(1)) else { return };
        if matches!(self.nodes.get(parent).map(|p| &p.children), Some(Children::Loaded(_))) {
            return;
        }
        let first = self.nodes.len();
        let ids: Vec<NodeId> = (first..first.saturating_add(children.len())).collect();
        for (index, info) in children.into_iter().enumerate() {
            self.nodes.push(TreeNode {
                children: if info.has_children { Children::Unloaded } else { Children::None },
                info,
                parent: Some(parent),
                index: u32::try_from(index).unwrap_or(u32::MAX),
                depth,
                expanded: false,
            });
        }
        if let Some(p) = self.nodes.get_mut(parent) {
            p.children = if ids.is_empty() { Children::None } else { Children::Loaded(ids) };
        }
    }

    /// Recomputes [`Tree::rows`] from the expanded flags.
    fn flatten(&mut self) {
        let mut rows = Vec::new();
        let mut stack = Vec::new();
        if !self.nodes.is_empty() {
            stack.push(0);
        }
        while let Some(id) = stack.pop() {
            rows.push(id);
            if let Some(TreeNode { expanded: true, children: Children::Loaded(kids), .. }) = self.nodes.get(id) {
                stack.extend(kids.iter().rev());
            }
        }
        self.rows = rows;
    }

    pub fn row_of(&self, id: NodeId) -> Option<usize> {
        self.rows.iter().position(|&r| r == id)
    }
}

/// How far a file has come.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    Reading {
        loaded: u64,
        total: u64,
    },
    /// `done` of `total` steps decoded (records, for a perf.data's stacks); 0 of 0
    /// when the decoder does not count.
    Decoding {
        done: u64,
        total: u64,
    },
    Ready,
    Failed(String),
}

/// The bytes the hex pane has, and the window it asked for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HexCache {
    pub start: u64,
    pub data: Rc<Vec<u8>>,
    pub pending: Option<(u64, u64)>,
}

impl HexCache {
    pub fn end(&self) -> u64 {
        self.start.saturating_add(self.data.len() as u64)
    }

    pub fn covers(&self, start: u64, end: u64) -> bool {
        self.start <= start && end <= self.end()
    }

    pub fn byte(&self, offset: u64) -> Option<u8> {
        let i = usize::try_from(offset.checked_sub(self.start)?).ok()?;
        self.data.get(i).copied()
    }
}

/// The hex pane asks for this much more than it shows, on each side, so scrolling a
/// little does not ask again.
pub const HEX_MARGIN: u64 = 4096;

/// A column of the function table (the worker's column ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FnColumn {
    Name,
    Hash,
    Counters,
    Entry,
    Max,
    Total,
    NonZero,
}

impl FnColumn {
    pub const ALL: [FnColumn; 7] = [
        FnColumn::Name,
        FnColumn::Hash,
        FnColumn::Counters,
        FnColumn::Entry,
        FnColumn::Max,
        FnColumn::Total,
        FnColumn::NonZero,
    ];

    pub fn id(self) -> &'static str {
        match self {
            FnColumn::Name => "name",
            FnColumn::Hash => "hash",
            FnColumn::Counters => "counters",
            FnColumn::Entry => "entry",
            FnColumn::Max => "max",
            FnColumn::Total => "total",
            FnColumn::NonZero => "nonzero",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            FnColumn::Name => "Function",
            FnColumn::Hash => "Hash",
            FnColumn::Counters => "Counters",
            FnColumn::Entry => "Entry",
            FnColumn::Max => "Max",
            FnColumn::Total => "Total",
            FnColumn::NonZero => "Non-zero",
        }
    }

    /// The direction a first click sorts in: names A→Z, numbers largest first.
    pub fn default_descending(self) -> bool {
        self != FnColumn::Name
    }
}

/// One row of the function table as the worker sends it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnRow {
    pub id: u32,
    pub name: String,
    pub demangled: Option<String>,
    pub cs: bool,
    pub hash: Option<String>,
    pub counters: Option<u64>,
    pub entry: Option<u64>,
    pub max: Option<u64>,
    pub total: Option<u64>,
    /// Share of non-zero counters, in parts per million.
    pub nonzero_ppm: Option<u32>,
}

/// A sort order and filter: what a page of rows was asked for under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnQuery {
    pub column: FnColumn,
    pub descending: bool,
    pub filter: String,
}

impl Default for FnQuery {
    fn default() -> Self {
        FnQuery { column: FnColumn::Total, descending: true, filter: String::new() }
    }
}

/// A value site of a function, with its targets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnSite {
    pub kind: String,
    pub index: u32,
    pub targets: Vec<FnTarget>,
}

/// A value seen at a site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnTarget {
    /// The demangled name, the name, or the value (a size, or an unknown hash).
    pub label: String,
    /// The raw name of a named target.
    pub name: Option<String>,
    pub count: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FnTrace {
    pub trace: u32,
    pub weight: u64,
    pub position: u64,
    pub length: u64,
}

/// One function in full.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnDetail {
    pub id: u32,
    pub name: String,
    pub demangled: Option<String>,
    pub hash: Option<String>,
    pub counters: Vec<u64>,
    pub bitmap: Vec<u8>,
    pub sites: Vec<FnSite>,
    pub traces: Vec<FnTrace>,
}

/// One line of the detailed summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutoffEntry {
    /// Parts per million of the total count.
    pub cutoff: u32,
    pub min_count: u64,
    pub num_counts: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProfileSummary {
    pub functions: u64,
    pub counts: u64,
    pub total: u128,
    pub max_count: u64,
    pub max_function: u64,
    pub max_internal: u64,
    pub detailed: Vec<CutoffEntry>,
}

/// The function table of a file: the query, the page of rows the page holds, the
/// selection and its detail, and the summary.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Functions {
    pub query: FnQuery,
    /// Rows in the whole table, once known.
    pub total: Option<u64>,
    /// Rows matching the filter, once known.
    pub matching: Option<u64>,
    /// The held rows are `start..start + rows.len()` of the matching rows.
    pub start: u64,
    pub rows: Rc<Vec<FnRow>>,
    /// The range asked for and not yet received, under the current query.
    pub pending: Option<(u64, u64)>,
    pub selected: Option<u32>,
    pub detail: Option<Rc<FnDetail>>,
    pub log_scale: bool,
    pub summary: Option<Rc<(ProfileSummary, Option<ProfileSummary>)>>,
    pub summary_asked: bool,
}

impl Functions {
    pub fn row(&self, index: u64) -> Option<&FnRow> {
        self.rows.get(usize::try_from(index.checked_sub(self.start)?).ok()?)
    }
}

/// The function table asks for this many rows beyond the visible ones, each side.
pub const FN_MARGIN: u64 = 64;

/// The rows a paged table (functions, MemProf sites) asks the worker for so that
/// rows `start..end` can be drawn, with [`FN_MARGIN`] each side; `None` when the
/// rows held (`held` rows from `first`) or the request under way already cover them.
/// `known` is the table's row count once the worker has said it.
fn rows_to_ask(
    known: Option<u64>,
    (first, held): (u64, usize),
    pending: Option<(u64, u64)>,
    start: u64,
    end: u64,
) -> Option<(u64, u64)> {
    let end = known.map_or(end, |k| end.min(k));
    let held_end = first.saturating_add(held as u64);
    if known.is_some() && first <= start && end <= held_end {
        return None;
    }
    if pending.is_some_and(|(s, e)| s <= start && end <= e) {
        return None;
    }
    let from = start.saturating_sub(FN_MARGIN);
    let to = end.max(start.saturating_add(1)).saturating_add(FN_MARGIN);
    Some((from, to))
}
/// Rows asked for before the table has measured itself.
pub const FN_FIRST_PAGE: u64 = 64;

/// A metric of the MemProf table (the worker's column ids, the MemProf field names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemColumn {
    AllocCount,
    TotalSize,
    AvgSize,
    MinSize,
    MaxSize,
    TotalLifetime,
    AvgLifetime,
    MinLifetime,
    MaxLifetime,
    TotalAccessCount,
    TotalAccessDensity,
    TotalLifetimeAccessDensity,
    Depth,
}

impl MemColumn {
    pub const ALL: [MemColumn; 13] = [
        MemColumn::AllocCount,
        MemColumn::TotalSize,
        MemColumn::AvgSize,
        MemColumn::MinSize,
        MemColumn::MaxSize,
        MemColumn::TotalLifetime,
        MemColumn::AvgLifetime,
        MemColumn::MinLifetime,
        MemColumn::MaxLifetime,
        MemColumn::TotalAccessCount,
        MemColumn::TotalAccessDensity,
        MemColumn::TotalLifetimeAccessDensity,
        MemColumn::Depth,
    ];
    /// The columns the table shows (when the profile has them); the detail lists every field.
    pub const SHOWN: [MemColumn; 8] = [
        MemColumn::Depth,
        MemColumn::AllocCount,
        MemColumn::TotalSize,
        MemColumn::AvgSize,
        MemColumn::TotalLifetime,
        MemColumn::AvgLifetime,
        MemColumn::TotalAccessDensity,
        MemColumn::TotalLifetimeAccessDensity,
    ];

    pub fn id(self) -> &'static str {
        match self {
            MemColumn::AllocCount => "AllocCount",
            MemColumn::TotalSize => "TotalSize",
            MemColumn::AvgSize => "AvgSize",
            MemColumn::MinSize => "MinSize",
            MemColumn::MaxSize => "MaxSize",
            MemColumn::TotalLifetime => "TotalLifetime",
            MemColumn::AvgLifetime => "AvgLifetime",
            MemColumn::MinLifetime => "MinLifetime",
            MemColumn::MaxLifetime => "MaxLifetime",
            MemColumn::TotalAccessCount => "TotalAccessCount",
            MemColumn::TotalAccessDensity => "TotalAccessDensity",
            MemColumn::TotalLifetimeAccessDensity => "TotalLifetimeAccessDensity",
            MemColumn::Depth => "Depth",
        }
    }

    pub fn from_id(id: &str) -> Option<MemColumn> {
        MemColumn::ALL.into_iter().find(|c| c.id() == id)
    }

    pub fn title(self) -> &'static str {
        match self {
            MemColumn::AllocCount => "Allocs",
            MemColumn::TotalSize => "Total size",
            MemColumn::AvgSize => "Avg size",
            MemColumn::MinSize => "Min size",
            MemColumn::MaxSize => "Max size",
            MemColumn::TotalLifetime => "Lifetime",
            MemColumn::AvgLifetime => "Avg life",
            MemColumn::MinLifetime => "Min lifetime",
            MemColumn::MaxLifetime => "Max lifetime",
            MemColumn::TotalAccessCount => "Accesses",
            MemColumn::TotalAccessDensity => "Density",
            MemColumn::TotalLifetimeAccessDensity => "LT density",
            MemColumn::Depth => "Frames",
        }
    }
}

/// One allocation site as the worker sends it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemRow {
    pub id: u32,
    /// The function record listing it (indexed), as hex.
    pub guid: Option<String>,
    pub name: Option<String>,
    pub demangled: Option<String>,
    /// The allocation's return address (raw), as hex.
    pub leaf: Option<String>,
    /// Values by [`MemColumn::ALL`] position; `None` where the schema lacks the field.
    pub metrics: Vec<Option<u64>>,
}

impl MemRow {
    pub fn metric(&self, column: MemColumn) -> Option<u64> {
        let at = MemColumn::ALL.iter().position(|&c| c == column)?;
        self.metrics.get(at).copied().flatten()
    }
}

/// One frame of a site's call stack: symbolized (indexed) or an address (raw).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemFrame {
    pub guid: Option<String>,
    pub name: Option<String>,
    pub demangled: Option<String>,
    pub line: u32,
    pub column: u32,
    pub inline: bool,
    pub address: Option<String>,
    pub build_id: Option<String>,
    pub module_offset: Option<String>,
}

/// One allocation site in full.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemSite {
    pub id: u32,
    pub guid: Option<String>,
    pub name: Option<String>,
    pub demangled: Option<String>,
    /// Leaf first.
    pub frames: Vec<MemFrame>,
    /// Every MemInfoBlock field, in the file's order.
    pub fields: Vec<(String, u64)>,
    pub histogram: Vec<u64>,
}

/// The MemProf tab of a file: the sort, the page of sites held, the selection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemProf {
    pub column: MemColumn,
    pub descending: bool,
    pub total: Option<u64>,
    /// The columns the profile has values for.
    pub columns: Vec<MemColumn>,
    /// Sites of a raw profile: frames are addresses.
    pub raw: bool,
    pub start: u64,
    pub rows: Rc<Vec<MemRow>>,
    pub pending: Option<(u64, u64)>,
    pub selected: Option<u32>,
    pub detail: Option<Rc<MemSite>>,
}

impl Default for MemProf {
    fn default() -> Self {
        MemProf {
            column: MemColumn::TotalSize,
            descending: true,
            total: None,
            columns: Vec::new(),
            raw: false,
            start: 0,
            rows: Rc::default(),
            pending: None,
            selected: None,
            detail: None,
        }
    }
}

impl MemProf {
    pub fn row(&self, index: u64) -> Option<&MemRow> {
        self.rows.get(usize::try_from(index.checked_sub(self.start)?).ok()?)
    }
}

/// One open file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    pub id: DocId,
    pub name: String,
    /// Size of the file as picked.
    pub size: u64,
    /// The embedded demo profile, not a file of the user's.
    pub demo: bool,
    pub phase: Phase,
    pub summary: Option<Summary>,
    pub tab: Tab,
    pub tree: Rc<Tree>,
    pub selected: Option<NodeId>,
    pub hex: HexCache,
    /// Bumped when the hex pane should scroll to the selection (picked in the tree).
    pub hex_focus: u64,
    /// Bumped when the tree should scroll to the selection (revealed from the hex pane).
    pub tree_focus: u64,
    /// The last failed request (expanding a node, finding an offset), shown as an alert.
    pub notice: Option<String>,
    pub functions: Functions,
    pub memprof: MemProf,
    /// The last ELF this (correlated raw) file was offered to, so it is offered once.
    pub binary_tried: Option<DocId>,
    /// The flame graph and the other stack views.
    pub stacks: Stacks,
}

impl Doc {
    /// The byte span of the selected node.
    pub fn selection(&self) -> Option<(u64, u64)> {
        let node = self.tree.node(self.selected?)?;
        Some((node.info.start, node.info.end))
    }

    /// The size of the decoded content (what the hex pane shows).
    pub fn content_size(&self) -> u64 {
        self.summary.as_ref().map_or(self.size, |s| s.size)
    }

    /// Whether the file has call stacks (a flame graph; its Functions tab is the stack one).
    pub fn has_stacks(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| s.stacks.is_some())
    }
}

/// What the page asks of the worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Children {
        doc: DocId,
        req: u64,
        path: Vec<u32>,
    },
    Bytes {
        doc: DocId,
        req: u64,
        start: u64,
        end: u64,
    },
    PathTo {
        doc: DocId,
        req: u64,
        offset: u64,
    },
    Functions {
        doc: DocId,
        req: u64,
        query: FnQuery,
        start: u64,
        count: u64,
    },
    Summary {
        doc: DocId,
        req: u64,
    },
    Function {
        doc: DocId,
        req: u64,
        row: u32,
    },
    MemProf {
        doc: DocId,
        req: u64,
        column: MemColumn,
        descending: bool,
        start: u64,
        count: u64,
    },
    MemProfSite {
        doc: DocId,
        req: u64,
        site: u32,
    },
    /// Decode the correlated raw profile `doc` with the open ELF `binary`.
    Correlate {
        doc: DocId,
        req: u64,
        binary: DocId,
    },
    /// Lay out the flame graph (icicle when `inverted`) of `samples`.
    Flame {
        doc: DocId,
        req: u64,
        samples: SampleFilter,
        inverted: bool,
    },
    Sandwich {
        doc: DocId,
        req: u64,
        samples: SampleFilter,
        frame: u32,
    },
    /// Name the frames of the perf.data `doc` from the open binaries and kallsyms files.
    Symbolize {
        doc: DocId,
        req: u64,
        binaries: Vec<DocId>,
    },
    FrameNames {
        doc: DocId,
        req: u64,
    },
    StackFunctions {
        doc: DocId,
        req: u64,
        query: StackFnQuery,
        start: u64,
        count: u64,
    },
    Search {
        doc: DocId,
        req: u64,
        samples: SampleFilter,
        pattern: String,
    },
    Timeline {
        doc: DocId,
        req: u64,
        event: u32,
        bins: u32,
    },
    Close {
        doc: DocId,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Key {
    Up,
    Down,
    Left,
    Right,
    Home,
    End,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// A file was handed to the worker (the app posts the open itself: the File
    /// object is not state). `select`: show it now.
    Add {
        id: DocId,
        name: String,
        size: u64,
        demo: bool,
        select: bool,
    },
    Select(DocId),
    Close(DocId),
    SelectTab(Tab),
    /// Expand or collapse a node of the current file.
    Toggle(NodeId),
    SelectNode(NodeId),
    Key(Key),
    /// A byte of the current file was clicked: reveal the node holding it.
    Reveal(u64),
    /// The hex pane shows `start..end` of the current file.
    NeedBytes {
        start: u64,
        end: u64,
    },
    /// Requests up to this sequence number were posted.
    Posted(u64),
    /// A function-table header was clicked: sort by it (again: reverse).
    SortFunctions(FnColumn),
    FilterFunctions(String),
    /// The function table shows matching rows `start..end`.
    NeedFunctionRows {
        start: u64,
        end: u64,
    },
    SelectFunction(u32),
    ToggleLogScale,
    /// A MemProf header was clicked: sort by it (again: reverse).
    SortMemProf(MemColumn),
    /// The MemProf table shows sites `start..end` (in the current order).
    NeedMemProfRows {
        start: u64,
        end: u64,
    },
    SelectMemProfSite(u32),
    /// Aggregate the stack views over this event.
    SetEvent(u32),
    /// Flame graph ↔ icicle of the inverted tree.
    ToggleInverted,
    /// Keep the samples in this time range (a timeline selection), or all.
    SelectTimeRange(Option<(u64, u64)>),
    /// Show this part of the flame graph (clamped to it).
    SetZoom(Zoom),
    /// Select a flame rectangle and zoom to it.
    ZoomToRect(u32),
    /// Back to the whole graph, nothing selected.
    ResetZoom,
    /// Highlight the frames matching this (empty: none).
    SearchFrames(String),
    /// Show one function's callers and callees (a frame id), or close the sandwich.
    ShowSandwich(Option<u32>),
    SortStackFunctions(StackColumn),
    FilterStackFunctions(String),
    NeedStackFunctionRows {
        start: u64,
        end: u64,
    },

    // Replies from the worker.
    Progress {
        doc: DocId,
        loaded: u64,
        total: u64,
        decoding: bool,
    },
    Opened {
        doc: DocId,
        summary: Summary,
        root: NodeInfo,
        children: Vec<NodeInfo>,
    },
    OpenFailed {
        doc: DocId,
        message: String,
    },
    ChildrenLoaded {
        doc: DocId,
        req: u64,
        path: Vec<u32>,
        nodes: Vec<NodeInfo>,
    },
    PathFound {
        doc: DocId,
        offset: u64,
        path: Vec<u32>,
        levels: Vec<Vec<NodeInfo>>,
    },
    BytesLoaded {
        doc: DocId,
        start: u64,
        data: Vec<u8>,
    },
    RequestFailed {
        doc: DocId,
        req: u64,
        message: String,
    },
    FunctionsLoaded {
        doc: DocId,
        query: FnQuery,
        total: u64,
        matching: u64,
        start: u64,
        rows: Vec<FnRow>,
    },
    SummaryLoaded {
        doc: DocId,
        summary: ProfileSummary,
        cs_summary: Option<ProfileSummary>,
    },
    FunctionLoaded {
        doc: DocId,
        detail: FnDetail,
    },
    MemProfLoaded {
        doc: DocId,
        column: MemColumn,
        descending: bool,
        total: u64,
        start: u64,
        raw: bool,
        columns: Vec<MemColumn>,
        rows: Vec<MemRow>,
    },
    MemProfSiteLoaded {
        doc: DocId,
        site: MemSite,
    },
    FlameLoaded {
        doc: DocId,
        samples: SampleFilter,
        inverted: bool,
        data: FlameData,
    },
    SandwichLoaded {
        doc: DocId,
        samples: SampleFilter,
        frame: u32,
        callers: FlameData,
        callees: FlameData,
    },
    FrameNamesLoaded {
        doc: DocId,
        names: FrameNames,
    },
    /// The stacks of `doc` were rebuilt with frames named from `with`.
    Symbolized {
        doc: DocId,
        stacks: StacksInfo,
        with: Vec<String>,
    },
    StackFunctionsLoaded {
        doc: DocId,
        query: StackFnQuery,
        total: u64,
        matching: u64,
        weight: u64,
        start: u64,
        rows: Vec<StackFnRow>,
    },
    SearchLoaded {
        doc: DocId,
        found: Found,
    },
    TimelineLoaded {
        doc: DocId,
        data: TimelineData,
    },
    /// A correlated raw profile was decoded with `binary`, named `binary_name`.
    Correlated {
        doc: DocId,
        binary_name: String,
        views: Vec<String>,
    },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct State {
    pub docs: Vec<Rc<Doc>>,
    pub current: Option<DocId>,
    /// Requests not yet posted, with their sequence numbers.
    pub outbox: Vec<(u64, Request)>,
    next_seq: u64,
}

impl State {
    pub fn doc(&self, id: DocId) -> Option<&Doc> {
        self.docs.iter().find(|d| d.id == id).map(Rc::as_ref)
    }

    pub fn current_doc(&self) -> Option<&Doc> {
        self.doc(self.current?)
    }

    fn doc_mut(&mut self, id: DocId) -> Option<&mut Doc> {
        self.docs.iter_mut().find(|d| d.id == id).map(Rc::make_mut)
    }

    fn send(&mut self, make: impl FnOnce(u64) -> Request) -> u64 {
        self.next_seq = self.next_seq.saturating_add(1);
        let seq = self.next_seq;
        self.outbox.push((seq, make(seq)));
        seq
    }

    /// Applies `action`; returns whether anything changed (so the view need not
    /// re-render when nothing did).
    pub fn update(&mut self, action: Action) -> bool {
        match action {
            Action::Add { id, name, size, demo, select } => {
                self.docs.push(Rc::new(Doc {
                    id,
                    name,
                    size,
                    demo,
                    phase: Phase::Reading { loaded: 0, total: size },
                    summary: None,
                    tab: Tab::Dump,
                    tree: Rc::default(),
                    selected: None,
                    hex: HexCache::default(),
                    hex_focus: 0,
                    tree_focus: 0,
                    notice: None,
                    functions: Functions::default(),
                    memprof: MemProf::default(),
                    binary_tried: None,
                    stacks: Stacks::default(),
                }));
                if select || self.current.is_none() {
                    self.current = Some(id);
                }
                true
            }
            Action::Select(id) => {
                let changed = self.current != Some(id) && self.doc(id).is_some();
                if changed {
                    self.current = Some(id);
                }
                changed
            }
            Action::Close(id) => {
                let Some(at) = self.docs.iter().position(|d| d.id == id) else { return false };
                self.docs.remove(at);
                self.send(|_| Request::Close { doc: id });
                if self.current == Some(id) {
                    let next = at.min(self.docs.len().saturating_sub(1));
                    self.current = self.docs.get(next).map(|d| d.id);
                }
                true
            }
            Action::SelectTab(tab) => {
                let changed = self.with_current(|_, doc| {
                    let offered = doc.summary.as_ref().is_some_and(|s| s.tabs().contains(&tab));
                    let changed = offered && doc.tab != tab;
                    if changed {
                        doc.tab = tab;
                    }
                    changed
                });
                let stacks = self.current_doc().is_some_and(Doc::has_stacks);
                match tab {
                    Tab::FlameGraph | Tab::Functions if stacks => {
                        self.refresh_stacks();
                    }
                    Tab::Functions => {
                        self.need_function_rows(0, FN_FIRST_PAGE);
                    }
                    Tab::Summary => self.need_summary(),
                    Tab::MemProf => {
                        self.need_memprof_rows(0, FN_FIRST_PAGE);
                    }
                    _ => {}
                }
                changed
            }
            Action::SortFunctions(column) => self.with_current(|state, doc| {
                let f = &mut doc.functions;
                let descending =
                    if f.query.column == column { !f.query.descending } else { column.default_descending() };
                let query = FnQuery { column, descending, filter: f.query.filter.clone() };
                state.requery(doc, query);
                true
            }),
            Action::FilterFunctions(filter) => self.with_current(|state, doc| {
                if doc.functions.query.filter == filter {
                    return false;
                }
                let query = FnQuery { filter, ..doc.functions.query.clone() };
                state.requery(doc, query);
                true
            }),
            Action::NeedFunctionRows { start, end } => self.need_function_rows(start, end),
            Action::SelectFunction(row) => self.with_current(|state, doc| {
                if doc.functions.selected == Some(row) {
                    return false;
                }
                doc.functions.selected = Some(row);
                let id = doc.id;
                state.send(|req| Request::Function { doc: id, req, row });
                true
            }),
            Action::SortMemProf(column) => self.with_current(|state, doc| {
                let m = &mut doc.memprof;
                m.descending = if m.column == column { !m.descending } else { true };
                m.column = column;
                m.rows = Rc::default();
                m.start = 0;
                let count = FN_FIRST_PAGE.saturating_add(FN_MARGIN);
                let (id, descending) = (doc.id, m.descending);
                state.send(|req| Request::MemProf { doc: id, req, column, descending, start: 0, count });
                m.pending = Some((0, count));
                true
            }),
            Action::NeedMemProfRows { start, end } => self.need_memprof_rows(start, end),
            Action::SelectMemProfSite(site) => self.with_current(|state, doc| {
                if doc.memprof.selected == Some(site) {
                    return false;
                }
                doc.memprof.selected = Some(site);
                let id = doc.id;
                state.send(|req| Request::MemProfSite { doc: id, req, site });
                true
            }),
            Action::SetEvent(event) => {
                let changed = self.with_current(|_, doc| {
                    let known = doc.summary.as_ref().and_then(|s| s.stacks.as_ref()).map_or(0, |s| s.events.len());
                    if doc.stacks.samples.event == event || event as usize >= known {
                        return false;
                    }
                    doc.stacks.samples.event = event;
                    true
                });
                changed && self.refresh_stacks()
            }
            Action::ToggleInverted => {
                let changed = self.with_current(|_, doc| {
                    doc.stacks.inverted = !doc.stacks.inverted;
                    doc.has_stacks()
                });
                changed && self.refresh_stacks()
            }
            Action::SelectTimeRange(range) => {
                let range = range.filter(|(a, b)| a < b);
                let changed = self.with_current(|_, doc| {
                    let changed = doc.stacks.samples.range != range;
                    doc.stacks.samples.range = range;
                    changed
                });
                changed && self.refresh_stacks()
            }
            Action::SetZoom(zoom) => self.with_current(|_, doc| {
                let st = &mut doc.stacks;
                let Some(flame) = &st.flame else { return false };
                let zoom = zoom.clamped(flame.total(), flame.flame.depths());
                let changed = st.zoom() != zoom;
                st.zoom = Some(zoom);
                changed
            }),
            Action::ZoomToRect(rect) => self.with_current(|_, doc| {
                let st = &mut doc.stacks;
                let Some(flame) = &st.flame else { return false };
                let (Some(&x0), Some(&w)) = (flame.flame.x0.get(rect as usize), flame.flame.width.get(rect as usize))
                else {
                    return false;
                };
                let top = st.zoom().top;
                st.zoom =
                    Some(Zoom { x0: x0 as f64, x1: (x0 + w) as f64, top }.clamped(flame.total(), flame.flame.depths()));
                st.selected = Some(rect);
                true
            }),
            Action::ResetZoom => self.with_current(|_, doc| {
                let changed = doc.stacks.zoom.is_some() || doc.stacks.selected.is_some();
                doc.stacks.zoom = None;
                doc.stacks.selected = None;
                changed
            }),
            Action::SearchFrames(pattern) => {
                let changed = self.with_current(|_, doc| {
                    let changed = doc.stacks.search != pattern;
                    doc.stacks.search = pattern;
                    changed
                });
                {
                    if changed {
                        self.refresh_stacks();
                    }
                    changed
                }
            }
            Action::ShowSandwich(frame) => {
                let changed = self.with_current(|_, doc| {
                    if doc.stacks.sandwich.as_ref().map(|s| s.frame) == frame {
                        return false;
                    }
                    doc.stacks.sandwich =
                        frame.map(|frame| SandwichView { frame, asked: None, callers: None, callees: None });
                    if frame.is_some() && doc.tab != Tab::FlameGraph && doc.has_stacks() {
                        doc.tab = Tab::FlameGraph;
                    }
                    true
                });
                if changed {
                    self.refresh_stacks();
                }
                changed
            }
            Action::SortStackFunctions(column) => self.with_current(|state, doc| {
                let q = &doc.stacks.functions.query;
                let descending = if q.column == column { !q.descending } else { column != StackColumn::Name };
                let query = StackFnQuery { column, descending, ..q.clone() };
                state.requery_stack_functions(doc, query);
                true
            }),
            Action::FilterStackFunctions(filter) => self.with_current(|state, doc| {
                if doc.stacks.functions.query.filter == filter {
                    return false;
                }
                let query = StackFnQuery { filter, ..doc.stacks.functions.query.clone() };
                state.requery_stack_functions(doc, query);
                true
            }),
            Action::NeedStackFunctionRows { start, end } => self.need_stack_function_rows(start, end),
            Action::ToggleLogScale => self.with_current(|_, doc| {
                doc.functions.log_scale = !doc.functions.log_scale;
                true
            }),
            Action::Toggle(node) => self.toggle(node),
            Action::SelectNode(node) => self.with_current(|_, doc| {
                if doc.tree.node(node).is_none() {
                    return false;
                }
                doc.selected = Some(node);
                doc.hex_focus = doc.hex_focus.wrapping_add(1);
                true
            }),
            Action::Key(key) => self.key(key),
            Action::Reveal(offset) => {
                let Some(doc) = self.current_doc() else { return false };
                if doc.phase != Phase::Ready || offset >= doc.content_size() {
                    return false;
                }
                let id = doc.id;
                self.send(|req| Request::PathTo { doc: id, req, offset });
                true
            }
            Action::NeedBytes { start, end } => self.need_bytes(start, end),
            Action::Posted(upto) => {
                let before = self.outbox.len();
                self.outbox.retain(|(seq, _)| *seq > upto);
                self.outbox.len() != before
            }
            Action::Progress { doc, loaded, total, decoding } => self.with_doc(doc, |doc| {
                doc.phase =
                    if decoding { Phase::Decoding { done: loaded, total } } else { Phase::Reading { loaded, total } };
                true
            }),
            Action::Opened { doc, summary, root, children } => {
                let changed = self.with_doc(doc, |doc| {
                    doc.phase = Phase::Ready;
                    doc.summary = Some(summary);
                    doc.tree = Rc::new(Tree::with_root(root, children));
                    doc.selected = Some(0);
                    true
                });
                self.offer_binary();
                changed
            }
            Action::Correlated { doc, binary_name, views } => self.with_doc(doc, |doc| {
                let Some(summary) = doc.summary.as_mut() else { return false };
                summary.views = views;
                summary.views_error = None;
                summary.correlated_with = Some(binary_name);
                doc.notice = None;
                true
            }),
            Action::OpenFailed { doc, message } => self.with_doc(doc, |doc| {
                doc.phase = Phase::Failed(message);
                true
            }),
            Action::ChildrenLoaded { doc, req, path, nodes } => self.with_doc(doc, |doc| {
                let Some(id) = doc.tree.find(&path) else { return false };
                let tree = Rc::make_mut(&mut doc.tree);
                let waited =
                    matches!(tree.node(id).map(|n| &n.children), Some(Children::Loading { req: r }) if *r == req);
                tree.set_children(id, nodes);
                if let (true, Some(node)) = (waited, tree.nodes.get_mut(id)) {
                    node.expanded = true;
                }
                tree.flatten();
                true
            }),
            Action::PathFound { doc, offset: _, path, levels } => self.with_doc(doc, |doc| {
                let tree = Rc::make_mut(&mut doc.tree);
                let mut id = 0;
                for (&i, level) in path.iter().zip(levels) {
                    tree.set_children(id, level);
                    if let Some(node) = tree.nodes.get_mut(id) {
                        node.expanded = true;
                    }
                    match &tree.node(id).map(|n| &n.children) {
                        Some(Children::Loaded(kids)) => match kids.get(i as usize) {
                            Some(&kid) => id = kid,
                            None => break,
                        },
                        _ => break,
                    }
                }
                tree.flatten();
                doc.selected = Some(id);
                doc.tree_focus = doc.tree_focus.wrapping_add(1);
                true
            }),
            Action::BytesLoaded { doc, start, data } => self.with_doc(doc, |doc| {
                if doc.hex.pending.is_some_and(|(s, _)| s == start) {
                    doc.hex.pending = None;
                }
                doc.hex.start = start;
                doc.hex.data = Rc::new(data);
                true
            }),
            Action::FunctionsLoaded { doc, query, total, matching, start, rows } => self.with_doc(doc, |doc| {
                let f = &mut doc.functions;
                if f.query != query {
                    return false; // a reply to an older sort or filter
                }
                f.pending = None;
                f.total = Some(total);
                f.matching = Some(matching);
                f.start = start;
                f.rows = Rc::new(rows);
                true
            }),
            Action::SummaryLoaded { doc, summary, cs_summary } => self.with_doc(doc, |doc| {
                doc.functions.summary = Some(Rc::new((summary, cs_summary)));
                true
            }),
            Action::FunctionLoaded { doc, detail } => self.with_doc(doc, |doc| {
                if doc.functions.selected != Some(detail.id) {
                    return false;
                }
                doc.functions.detail = Some(Rc::new(detail));
                true
            }),
            Action::MemProfLoaded { doc, column, descending, total, start, raw, columns, rows } => {
                self.with_doc(doc, |doc| {
                    let m = &mut doc.memprof;
                    if (m.column, m.descending) != (column, descending) {
                        return false; // a reply to an older sort
                    }
                    m.pending = None;
                    m.total = Some(total);
                    m.start = start;
                    m.raw = raw;
                    m.columns = columns;
                    m.rows = Rc::new(rows);
                    true
                })
            }
            Action::FlameLoaded { doc, samples, inverted, data } => self.with_doc(doc, |doc| {
                let st = &mut doc.stacks;
                if st.flame_asked.as_ref() != Some(&(samples.clone(), inverted)) {
                    return false; // an older request's
                }
                st.flame = Some(Rc::new(data));
                st.flame_of = Some((samples, inverted));
                st.zoom = None;
                st.selected = None;
                true
            }),
            Action::SandwichLoaded { doc, samples, frame, callers, callees } => self.with_doc(doc, |doc| {
                let st = &mut doc.stacks;
                match &mut st.sandwich {
                    Some(s) if s.frame == frame && s.asked.as_ref() == Some(&samples) => {
                        s.callers = Some(Rc::new(callers));
                        s.callees = Some(Rc::new(callees));
                        true
                    }
                    _ => false,
                }
            }),
            Action::Symbolized { doc, stacks, with } => {
                let changed = self.with_doc(doc, |doc| {
                    let Some(summary) = doc.summary.as_mut() else { return false };
                    summary.stacks = Some(stacks);
                    // Frame ids changed: everything laid out is dropped and asked again.
                    let old = std::mem::take(&mut doc.stacks);
                    doc.stacks = Stacks {
                        samples: old.samples,
                        inverted: old.inverted,
                        search: old.search,
                        symbols_offered: old.symbols_offered,
                        symbolized_with: with,
                        functions: StackFns {
                            query: StackFnQuery {
                                samples: SampleFilter { event: u32::MAX, range: None },
                                ..old.functions.query
                            },
                            ..StackFns::default()
                        },
                        ..Stacks::default()
                    };
                    true
                });
                if changed && self.current == Some(doc) {
                    self.refresh_stacks();
                }
                changed
            }
            Action::FrameNamesLoaded { doc, names } => self.with_doc(doc, |doc| {
                doc.stacks.names = Some(Rc::new(names));
                true
            }),
            Action::StackFunctionsLoaded { doc, query, total, matching, weight, start, rows } => {
                self.with_doc(doc, |doc| {
                    let f = &mut doc.stacks.functions;
                    if f.query != query {
                        return false;
                    }
                    f.pending = None;
                    f.total = Some(total);
                    f.matching = Some(matching);
                    f.weight = weight;
                    f.start = start;
                    f.rows = Rc::new(rows);
                    true
                })
            }
            Action::SearchLoaded { doc, found } => self.with_doc(doc, |doc| {
                doc.stacks.found = Some(Rc::new(found));
                true
            }),
            Action::TimelineLoaded { doc, data } => self.with_doc(doc, |doc| {
                doc.stacks.timeline = Some(Rc::new(data));
                true
            }),
            Action::MemProfSiteLoaded { doc, site } => self.with_doc(doc, |doc| {
                if doc.memprof.selected != Some(site.id) {
                    return false;
                }
                doc.memprof.detail = Some(Rc::new(site));
                true
            }),
            Action::RequestFailed { doc, req, message } => self.with_doc(doc, |doc| {
                doc.functions.pending = None;
                doc.stacks.functions.pending = None;
                doc.memprof.pending = None;
                let tree = Rc::make_mut(&mut doc.tree);
                for node in &mut tree.nodes {
                    if node.children == (Children::Loading { req }) {
                        node.children = Children::Unloaded;
                    }
                }
                doc.hex.pending = None;
                doc.notice = Some(message);
                true
            }),
        }
    }

    fn with_doc(&mut self, id: DocId, f: impl FnOnce(&mut Doc) -> bool) -> bool {
        // Check first: `doc_mut` copies a shared doc even when `f` changes nothing.
        if self.doc(id).is_none() {
            return false;
        }
        self.doc_mut(id).is_some_and(f)
    }

    fn with_current(&mut self, f: impl FnOnce(&mut State, &mut Doc) -> bool) -> bool {
        let Some(id) = self.current else { return false };
        let Some(at) = self.docs.iter().position(|d| d.id == id) else { return false };
        let mut doc = Rc::clone(&self.docs[at]);
        let changed = f(self, Rc::make_mut(&mut doc));
        if changed {
            if let Some(slot) = self.docs.iter_mut().find(|d| d.id == id) {
                *slot = doc;
            }
        }
        changed
    }

    fn toggle(&mut self, node: NodeId) -> bool {
        self.with_current(|state, doc| {
            let Some(children) = doc.tree.node(node).map(|n| n.children.clone()) else { return false };
            let path = doc.tree.path(node);
            let tree = Rc::make_mut(&mut doc.tree);
            match children {
                Children::None | Children::Loading { .. } => return false,
                Children::Unloaded => {
                    let id = doc.id;
                    let req = state.send(|req| Request::Children { doc: id, req, path });
                    if let Some(n) = tree.nodes.get_mut(node) {
                        n.children = Children::Loading { req };
                    }
                }
                Children::Loaded(_) => {
                    if let Some(n) = tree.nodes.get_mut(node) {
                        n.expanded = !n.expanded;
                    }
                    tree.flatten();
                }
            }
            true
        })
    }

    fn key(&mut self, key: Key) -> bool {
        let Some(doc) = self.current_doc() else { return false };
        let tree = &doc.tree;
        let Some(selected) = doc.selected else {
            return match tree.rows.first() {
                Some(&first) => self.update(Action::SelectNode(first)),
                None => false,
            };
        };
        let row = tree.row_of(selected).unwrap_or(0);
        let node = tree.node(selected);
        let target = match key {
            Key::Up => row.checked_sub(1).and_then(|r| tree.rows.get(r)).copied(),
            Key::Down => tree.rows.get(row.saturating_add(1)).copied(),
            Key::Home => tree.rows.first().copied(),
            Key::End => tree.rows.last().copied(),
            Key::Right => match node {
                Some(TreeNode { expanded: true, children: Children::Loaded(kids), .. }) => kids.first().copied(),
                Some(TreeNode { children: Children::Unloaded | Children::Loaded(_), .. }) => {
                    return self.toggle(selected);
                }
                _ => None,
            },
            Key::Left => match node {
                Some(TreeNode { expanded: true, .. }) => return self.toggle(selected),
                Some(n) => n.parent,
                None => None,
            },
        };
        match target {
            Some(target) => {
                let changed = self.update(Action::SelectNode(target));
                if let Some(doc) = self.current.and_then(|id| self.doc_mut(id)) {
                    doc.tree_focus = doc.tree_focus.wrapping_add(1);
                }
                changed
            }
            None => false,
        }
    }

    /// Asks the worker for what the current file's stack views lack under the current
    /// event, time range and direction: frame names, the flame graph, the timeline,
    /// the search result, the sandwich, the functions table. Returns whether it asked.
    fn refresh_stacks(&mut self) -> bool {
        let Some(doc) = self.current_doc() else { return false };
        if !doc.has_stacks() || doc.phase != Phase::Ready {
            return false;
        }
        let (id, tab) = (doc.id, doc.tab);
        let st = doc.stacks.clone();
        let samples = st.samples.clone();
        let mut asked = false;
        if !st.names_asked {
            self.send(|req| Request::FrameNames { doc: id, req });
            asked = true;
        }
        let key = (samples.clone(), st.inverted);
        if st.flame_asked.as_ref() != Some(&key) {
            let (s, inverted) = key.clone();
            self.send(|req| Request::Flame { doc: id, req, samples: s, inverted });
            asked = true;
        }
        if st.timeline_asked != Some(samples.event) {
            let event = samples.event;
            self.send(|req| Request::Timeline { doc: id, req, event, bins: TIMELINE_BINS });
            asked = true;
        }
        let search = (st.search.clone(), samples.clone());
        if !st.search.is_empty() && st.search_asked.as_ref() != Some(&search) {
            let (s, pattern) = (samples.clone(), st.search.clone());
            self.send(|req| Request::Search { doc: id, req, samples: s, pattern });
            asked = true;
        }
        let sandwich = st.sandwich.as_ref().filter(|s| s.asked.as_ref() != Some(&samples)).map(|s| s.frame);
        if let Some(frame) = sandwich {
            let s = samples.clone();
            self.send(|req| Request::Sandwich { doc: id, req, samples: s, frame });
            asked = true;
        }
        if st.functions.query.samples != samples {
            let query = StackFnQuery { samples: samples.clone(), ..st.functions.query.clone() };
            self.with_current(|state, doc| {
                state.requery_stack_functions(doc, query);
                true
            });
            asked = true;
        } else if tab == Tab::Functions {
            asked |= self.need_stack_function_rows(0, FN_FIRST_PAGE);
        }
        self.with_doc(id, |doc| {
            let st = &mut doc.stacks;
            st.names_asked = true;
            st.flame_asked = Some(key);
            st.timeline_asked = Some(samples.event);
            if !st.search.is_empty() {
                st.search_asked = Some(search);
            }
            if let Some(s) = st.sandwich.as_mut() {
                s.asked = Some(samples);
            }
            true
        });
        asked
    }

    fn requery_stack_functions(&mut self, doc: &mut Doc, query: StackFnQuery) {
        let f = &mut doc.stacks.functions;
        f.query = query.clone();
        f.rows = Rc::default();
        f.start = 0;
        f.matching = None;
        let count = FN_FIRST_PAGE.saturating_add(FN_MARGIN);
        let id = doc.id;
        self.send(|req| Request::StackFunctions { doc: id, req, query, start: 0, count });
        f.pending = Some((0, count));
    }

    fn need_stack_function_rows(&mut self, start: u64, end: u64) -> bool {
        let Some(doc) = self.current_doc() else { return false };
        let f = &doc.stacks.functions;
        if !doc.has_stacks() || doc.phase != Phase::Ready {
            return false;
        }
        let Some((from, to)) = rows_to_ask(f.matching, (f.start, f.rows.len()), f.pending, start, end) else {
            return false;
        };
        let (id, query) = (doc.id, f.query.clone());
        self.send(|req| Request::StackFunctions { doc: id, req, query, start: from, count: to.saturating_sub(from) });
        self.with_doc(id, |doc| {
            doc.stacks.functions.pending = Some((from, to));
            true
        })
    }

    /// A new sort order or filter: the held rows no longer apply; ask again for
    /// the first page (the table scrolls back to the top).
    fn requery(&mut self, doc: &mut Doc, query: FnQuery) {
        let f = &mut doc.functions;
        f.query = query.clone();
        f.rows = Rc::default();
        f.start = 0;
        f.matching = None;
        let count = FN_FIRST_PAGE.saturating_add(FN_MARGIN);
        let id = doc.id;
        self.send(|req| Request::Functions { doc: id, req, query, start: 0, count });
        f.pending = Some((0, count));
    }

    fn need_function_rows(&mut self, start: u64, end: u64) -> bool {
        let Some(doc) = self.current_doc() else { return false };
        let offered = doc.summary.as_ref().is_some_and(|s| s.tabs().contains(&Tab::Functions));
        let f = &doc.functions;
        if !offered || doc.phase != Phase::Ready {
            return false;
        }
        let Some((from, to)) = rows_to_ask(f.matching, (f.start, f.rows.len()), f.pending, start, end) else {
            return false;
        };
        let (id, query) = (doc.id, f.query.clone());
        self.send(|req| Request::Functions { doc: id, req, query, start: from, count: to.saturating_sub(from) });
        self.with_doc(id, |doc| {
            doc.functions.pending = Some((from, to));
            true
        })
    }

    /// Offers the newest open ELF to every correlated raw profile waiting for its
    /// binary that has not tried it yet; the worker decodes the profile with it.
    fn offer_binary(&mut self) {
        self.offer_symbols();
        let ready = |d: &&Rc<Doc>| d.phase == Phase::Ready;
        let Some(elf) = self.docs.iter().filter(ready).rev().find(|d| d.summary.as_ref().is_some_and(Summary::is_elf))
        else {
            return;
        };
        let binary = elf.id;
        let waiting: Vec<DocId> = self
            .docs
            .iter()
            .filter(ready)
            .filter(|d| d.summary.as_ref().is_some_and(Summary::needs_binary) && d.binary_tried != Some(binary))
            .map(|d| d.id)
            .collect();
        for doc in waiting {
            self.send(|req| Request::Correlate { doc, req, binary });
            self.with_doc(doc, |d| {
                d.binary_tried = Some(binary);
                true
            });
        }
    }

    /// Offers every open binary and kallsyms file to each perf.data with stacks, once
    /// per new set: the worker names the frames from them and rebuilds the stacks.
    fn offer_symbols(&mut self) {
        let ready = |d: &&Rc<Doc>| d.phase == Phase::Ready;
        let files: Vec<DocId> = self
            .docs
            .iter()
            .filter(ready)
            .filter(|d| d.summary.as_ref().is_some_and(Summary::names_frames))
            .map(|d| d.id)
            .collect();
        if files.is_empty() {
            return;
        }
        let perf: Vec<DocId> = self
            .docs
            .iter()
            .filter(ready)
            .filter(|d| d.has_stacks() && d.summary.as_ref().is_some_and(Summary::is_perf))
            .filter(|d| d.stacks.symbols_offered != files)
            .map(|d| d.id)
            .collect();
        for doc in perf {
            let binaries = files.clone();
            self.send(|req| Request::Symbolize { doc, req, binaries });
            self.with_doc(doc, |d| {
                d.stacks.symbols_offered = files.clone();
                true
            });
        }
    }

    fn need_memprof_rows(&mut self, start: u64, end: u64) -> bool {
        let Some(doc) = self.current_doc() else { return false };
        let offered = doc.summary.as_ref().is_some_and(|s| s.tabs().contains(&Tab::MemProf));
        let m = &doc.memprof;
        if !offered || doc.phase != Phase::Ready {
            return false;
        }
        let Some((from, to)) = rows_to_ask(m.total, (m.start, m.rows.len()), m.pending, start, end) else {
            return false;
        };
        let (id, column, descending) = (doc.id, m.column, m.descending);
        self.send(|req| Request::MemProf {
            doc: id,
            req,
            column,
            descending,
            start: from,
            count: to.saturating_sub(from),
        });
        self.with_doc(id, |doc| {
            doc.memprof.pending = Some((from, to));
            true
        })
    }

    fn need_summary(&mut self) {
        let Some(doc) = self.current_doc() else { return };
        let offered = doc.summary.as_ref().is_some_and(|s| s.tabs().contains(&Tab::Summary));
        if !offered || doc.functions.summary_asked {
            return;
        }
        let id = doc.id;
        self.send(|req| Request::Summary { doc: id, req });
        self.with_doc(id, |doc| {
            doc.functions.summary_asked = true;
            true
        });
    }

    fn need_bytes(&mut self, start: u64, end: u64) -> bool {
        let Some(doc) = self.current_doc() else { return false };
        let size = doc.content_size();
        let end = end.min(size);
        if doc.phase != Phase::Ready || start >= end || doc.hex.covers(start, end) {
            return false;
        }
        if doc.hex.pending.is_some_and(|(s, e)| s <= start && end <= e) {
            return false;
        }
        // Whole 16-byte rows, with a margin on both sides.
        let from = start.saturating_sub(HEX_MARGIN) & !15;
        let to = end.saturating_add(HEX_MARGIN).min(size);
        let id = doc.id;
        self.send(|req| Request::Bytes { doc: id, req, start: from, end: to });
        self.with_doc(id, |doc| {
            doc.hex.pending = Some((from, to));
            true
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(label: &str, start: u64, end: u64, has_children: bool) -> NodeInfo {
        NodeInfo { label: label.into(), value: None, start, end, has_children }
    }

    fn summary(format: &str) -> Summary {
        Summary {
            name: "f".into(),
            format: format.into(),
            detection: format.into(),
            version: Some(2),
            size: 100,
            file_size: 100,
            views: vec!["dump".into()],
            views_error: None,
            correlated_with: None,
            stacks: None,
        }
    }

    /// A state with one decoded file: root 0..100 with children a 0..10 (leaf) and
    /// b 10..100 (children not loaded).
    fn opened() -> State {
        let mut s = State::default();
        assert!(s.update(Action::Add { id: 1, name: "f".into(), size: 100, demo: false, select: true }));
        s.update(Action::Opened {
            doc: 1,
            summary: summary("perf.data"),
            root: info("file", 0, 100, true),
            children: vec![info("a", 0, 10, false), info("b", 10, 100, true)],
        });
        s
    }

    fn labels(s: &State) -> Vec<String> {
        let doc = s.current_doc().unwrap();
        doc.tree.rows.iter().map(|&r| doc.tree.nodes[r].info.label.clone()).collect()
    }

    #[test]
    fn progress_reads_then_decodes_counting_steps() {
        let mut s = State::default();
        s.update(Action::Add { id: 1, name: "f".into(), size: 100, demo: false, select: true });
        s.update(Action::Progress { doc: 1, loaded: 40, total: 100, decoding: false });
        assert_eq!(s.current_doc().unwrap().phase, Phase::Reading { loaded: 40, total: 100 });
        s.update(Action::Progress { doc: 1, loaded: 0, total: 0, decoding: true });
        assert_eq!(s.current_doc().unwrap().phase, Phase::Decoding { done: 0, total: 0 });
        s.update(Action::Progress { doc: 1, loaded: 3, total: 4, decoding: true });
        assert_eq!(s.current_doc().unwrap().phase, Phase::Decoding { done: 3, total: 4 });
    }

    #[test]
    fn opening_shows_root_and_first_level() {
        let s = opened();
        let doc = s.current_doc().unwrap();
        assert_eq!(doc.phase, Phase::Ready);
        assert_eq!(labels(&s), ["file", "a", "b"]);
        assert_eq!(doc.selection(), Some((0, 100)));
        assert_eq!(doc.summary.as_ref().unwrap().tabs(), [Tab::Dump]);
    }

    #[test]
    fn expanding_asks_the_worker_once_then_inserts_children() {
        let mut s = opened();
        assert!(s.update(Action::Toggle(2)));
        let (seq, req) = s.outbox.last().cloned().unwrap();
        assert_eq!(req, Request::Children { doc: 1, req: seq, path: vec![1] });
        // A second click while loading does nothing.
        assert!(!s.update(Action::Toggle(2)));
        assert_eq!(s.outbox.len(), 1);
        assert!(s.update(Action::Posted(seq)));
        assert!(s.outbox.is_empty());

        s.update(Action::ChildrenLoaded {
            doc: 1,
            req: seq,
            path: vec![1],
            nodes: vec![info("b0", 10, 50, false), info("b1", 50, 100, false)],
        });
        assert_eq!(labels(&s), ["file", "a", "b", "b0", "b1"]);
        assert_eq!(s.current_doc().unwrap().tree.path(4), [1, 1]);

        // Collapsing needs no request.
        assert!(s.update(Action::Toggle(2)));
        assert_eq!(labels(&s), ["file", "a", "b"]);
        assert!(s.outbox.is_empty());
    }

    #[test]
    fn selecting_a_node_selects_its_bytes_and_scrolls_the_hex_pane() {
        let mut s = opened();
        let focus = s.current_doc().unwrap().hex_focus;
        assert!(s.update(Action::SelectNode(1)));
        let doc = s.current_doc().unwrap();
        assert_eq!(doc.selection(), Some((0, 10)));
        assert_eq!(doc.hex_focus, focus + 1);
        assert!(!s.update(Action::SelectNode(99)));
    }

    #[test]
    fn revealing_an_offset_expands_the_path_and_selects_the_innermost_node() {
        let mut s = opened();
        assert!(s.update(Action::Reveal(60)));
        assert!(matches!(s.outbox.last(), Some((_, Request::PathTo { doc: 1, offset: 60, .. }))));
        assert!(!s.update(Action::Reveal(100)), "past the end");
        s.update(Action::PathFound {
            doc: 1,
            offset: 60,
            path: vec![1, 1],
            levels: vec![
                vec![info("a", 0, 10, false), info("b", 10, 100, true)],
                vec![info("b0", 10, 50, false), info("b1", 50, 100, false)],
            ],
        });
        let doc = s.current_doc().unwrap();
        assert_eq!(labels(&s), ["file", "a", "b", "b0", "b1"]);
        assert_eq!(doc.selection(), Some((50, 100)));
        assert_eq!(doc.tree_focus, 1);
    }

    #[test]
    fn hex_bytes_are_asked_for_with_a_margin_and_cached() {
        let mut s = opened();
        assert!(s.update(Action::NeedBytes { start: 16, end: 64 }));
        let (_, req) = s.outbox.last().cloned().unwrap();
        assert!(matches!(req, Request::Bytes { start: 0, end: 100, .. }), "{req:?}");
        // Already asked for: no second request.
        assert!(!s.update(Action::NeedBytes { start: 32, end: 48 }));
        s.update(Action::BytesLoaded { doc: 1, start: 0, data: (0..100).collect() });
        let doc = s.current_doc().unwrap();
        assert_eq!(doc.hex.byte(42), Some(42));
        assert_eq!(doc.hex.pending, None);
        assert!(!s.update(Action::NeedBytes { start: 0, end: 100 }));
    }

    #[test]
    fn failures_are_kept_per_file_and_the_next_file_works() {
        let mut s = opened();
        s.update(Action::Add { id: 2, name: "bad".into(), size: 10, demo: false, select: true });
        s.update(Action::OpenFailed { doc: 2, message: "not a known profile format (at offset 0x0)".into() });
        assert!(matches!(s.current_doc().unwrap().phase, Phase::Failed(ref m) if m.contains("offset")));
        s.update(Action::Add { id: 3, name: "good".into(), size: 100, demo: false, select: true });
        s.update(Action::Opened {
            doc: 3,
            summary: summary("bolt-fdata"),
            root: info("r", 0, 100, false),
            children: vec![],
        });
        assert_eq!(s.current_doc().unwrap().summary.as_ref().unwrap().format, "bolt-fdata");
        assert!(s.update(Action::Select(1)));
        assert_eq!(s.current_doc().unwrap().summary.as_ref().unwrap().format, "perf.data");
    }

    #[test]
    fn a_failed_expansion_can_be_retried() {
        let mut s = opened();
        s.update(Action::Toggle(2));
        let (req, _) = s.outbox[0].clone();
        s.update(Action::RequestFailed { doc: 1, req, message: "bad record (at offset 0x10)".into() });
        let doc = s.current_doc().unwrap();
        assert_eq!(doc.tree.nodes[2].children, Children::Unloaded);
        assert!(doc.notice.is_some());
        assert!(s.update(Action::Toggle(2)));
    }

    #[test]
    fn keys_move_through_rows() {
        let mut s = opened();
        assert!(s.update(Action::Key(Key::Down)));
        assert_eq!(s.current_doc().unwrap().selected, Some(1));
        assert!(s.update(Action::Key(Key::End)));
        assert_eq!(s.current_doc().unwrap().selected, Some(2));
        assert!(s.update(Action::Key(Key::Right)), "loads the children");
        assert!(matches!(s.outbox.last(), Some((_, Request::Children { .. }))));
        assert!(s.update(Action::Key(Key::Home)));
        assert!(s.update(Action::Key(Key::Left)), "collapses the root");
        assert_eq!(labels(&s), ["file"]);
    }

    fn profile() -> State {
        let mut s = State::default();
        s.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
        let mut sum = summary("instrprof-indexed");
        sum.views = vec!["dump".into(), "functions".into(), "summary".into()];
        s.update(Action::Opened { doc: 1, summary: sum, root: info("file", 0, 100, false), children: vec![] });
        s
    }

    fn rows(ids: std::ops::Range<u32>) -> Vec<FnRow> {
        ids.map(|id| FnRow { id, name: format!("f{id}"), ..FnRow::default() }).collect()
    }

    #[test]
    fn the_functions_tab_pages_rows_and_drops_stale_replies() {
        let mut s = profile();
        assert_eq!(
            s.current_doc().unwrap().summary.as_ref().unwrap().tabs(),
            [Tab::Dump, Tab::Functions, Tab::Summary]
        );
        assert!(s.update(Action::SelectTab(Tab::Functions)));
        let Some((_, Request::Functions { query, start: 0, count, .. })) = s.outbox.last().cloned() else {
            panic!("{:?}", s.outbox)
        };
        assert_eq!(query, FnQuery::default());
        assert!(count >= FN_FIRST_PAGE);
        // Asked already: no second request for the same rows.
        assert!(!s.update(Action::NeedFunctionRows { start: 0, end: 30 }));
        s.update(Action::FunctionsLoaded {
            doc: 1,
            query: query.clone(),
            total: 1000,
            matching: 1000,
            start: 0,
            rows: rows(0..128),
        });
        assert_eq!(s.current_doc().unwrap().functions.row(5).unwrap().id, 5);
        assert!(!s.update(Action::NeedFunctionRows { start: 10, end: 40 }), "held");
        assert!(s.update(Action::NeedFunctionRows { start: 500, end: 530 }));
        assert!(matches!(s.outbox.last(), Some((_, Request::Functions { start: 436, count: 158, .. }))));

        // Sorting by name: ascending first, then reversed; the old page goes.
        assert!(s.update(Action::SortFunctions(FnColumn::Name)));
        let q = s.current_doc().unwrap().functions.query.clone();
        assert_eq!((q.column, q.descending), (FnColumn::Name, false));
        assert!(s.current_doc().unwrap().functions.rows.is_empty());
        // The reply to the total-sorted query is stale now.
        assert!(!s.update(Action::FunctionsLoaded {
            doc: 1,
            query,
            total: 1000,
            matching: 1000,
            start: 436,
            rows: rows(0..3)
        }));
        s.update(Action::SortFunctions(FnColumn::Name));
        assert!(s.current_doc().unwrap().functions.query.descending);

        assert!(s.update(Action::FilterFunctions("main".into())));
        assert!(!s.update(Action::FilterFunctions("main".into())));
        assert!(
            matches!(s.outbox.last(), Some((_, Request::Functions { query: FnQuery { filter, .. }, start: 0, .. })) if filter == "main")
        );
    }

    #[test]
    fn selecting_a_function_asks_for_its_detail_and_the_summary_once() {
        let mut s = profile();
        assert!(s.update(Action::SelectFunction(7)));
        assert!(matches!(s.outbox.last(), Some((_, Request::Function { row: 7, .. }))));
        assert!(!s.update(Action::FunctionLoaded { doc: 1, detail: FnDetail { id: 3, ..FnDetail::default() } }));
        assert!(s.update(Action::FunctionLoaded {
            doc: 1,
            detail: FnDetail { id: 7, counters: vec![1, 2], ..FnDetail::default() }
        }));
        assert_eq!(s.current_doc().unwrap().functions.detail.as_ref().unwrap().counters, [1, 2]);
        s.update(Action::SelectTab(Tab::Summary));
        s.update(Action::SelectTab(Tab::Dump));
        s.update(Action::SelectTab(Tab::Summary));
        assert_eq!(s.outbox.iter().filter(|(_, r)| matches!(r, Request::Summary { .. })).count(), 1);
        // A format without the table asks for nothing.
        let mut t = opened();
        assert!(!t.update(Action::SelectTab(Tab::Functions)));
        assert!(t.outbox.is_empty());
    }

    #[test]
    fn the_memprof_tab_pages_sites_sorts_and_asks_for_a_site() {
        let mut s = State::default();
        s.update(Action::Add { id: 1, name: "m".into(), size: 100, demo: false, select: true });
        let mut sum = summary("memprof-raw");
        sum.views = vec!["dump".into(), "memprof".into()];
        s.update(Action::Opened { doc: 1, summary: sum, root: info("file", 0, 100, false), children: vec![] });
        assert_eq!(s.current_doc().unwrap().summary.as_ref().unwrap().tabs(), [Tab::Dump, Tab::MemProf]);
        assert!(s.update(Action::SelectTab(Tab::MemProf)));
        let Some((_, Request::MemProf { column: MemColumn::TotalSize, descending: true, start: 0, .. })) =
            s.outbox.last().cloned()
        else {
            panic!("{:?}", s.outbox)
        };
        assert!(!s.update(Action::NeedMemProfRows { start: 0, end: 10 }), "asked already");
        let row = |id| MemRow { id, ..MemRow::default() };
        s.update(Action::MemProfLoaded {
            doc: 1,
            column: MemColumn::TotalSize,
            descending: true,
            total: 2,
            start: 0,
            raw: true,
            columns: vec![MemColumn::TotalSize],
            rows: vec![row(1), row(0)],
        });
        assert_eq!(s.current_doc().unwrap().memprof.row(0).unwrap().id, 1);
        assert!(!s.update(Action::NeedMemProfRows { start: 0, end: 30 }), "all held");
        // Sorting by the same column reverses; a reply to the old order is dropped.
        assert!(s.update(Action::SortMemProf(MemColumn::TotalSize)));
        assert!(!s.current_doc().unwrap().memprof.descending);
        assert!(!s.update(Action::MemProfLoaded {
            doc: 1,
            column: MemColumn::TotalSize,
            descending: true,
            total: 2,
            start: 0,
            raw: true,
            columns: vec![],
            rows: vec![row(1)],
        }));
        assert!(s.update(Action::SelectMemProfSite(1)));
        assert!(matches!(s.outbox.last(), Some((_, Request::MemProfSite { site: 1, .. }))));
        assert!(!s.update(Action::MemProfSiteLoaded { doc: 1, site: MemSite { id: 0, ..MemSite::default() } }));
        assert!(s.update(Action::MemProfSiteLoaded { doc: 1, site: MemSite { id: 1, ..MemSite::default() } }));
        // A profile without MemProf asks for nothing.
        let mut t = profile();
        assert!(!t.update(Action::SelectTab(Tab::MemProf)));
        assert!(t.outbox.is_empty());
    }

    #[test]
    fn a_correlated_raw_profile_is_offered_the_elf_dropped_with_or_after_it() {
        let mut s = State::default();
        s.update(Action::Add { id: 1, name: "p.profraw".into(), size: 100, demo: false, select: true });
        let mut raw = summary("instrprof-raw");
        raw.views_error = Some("correlated raw profile: … the instrumented binary, which is needed".into());
        s.update(Action::Opened { doc: 1, summary: raw, root: info("file", 0, 100, false), children: vec![] });
        assert!(s.outbox.is_empty(), "no binary yet");
        s.update(Action::Add { id: 2, name: "p.elf".into(), size: 100, demo: false, select: false });
        s.update(Action::Opened {
            doc: 2,
            summary: summary("elf"),
            root: info("elf", 0, 100, false),
            children: vec![],
        });
        assert!(matches!(s.outbox.last(), Some((_, Request::Correlate { doc: 1, binary: 2, .. }))));
        // Offered once: another file opening asks nothing more.
        s.update(Action::Add { id: 3, name: "x".into(), size: 1, demo: false, select: false });
        s.update(Action::Opened {
            doc: 3,
            summary: summary("bolt-fdata"),
            root: info("r", 0, 1, false),
            children: vec![],
        });
        assert_eq!(s.outbox.iter().filter(|(_, r)| matches!(r, Request::Correlate { .. })).count(), 1);
        assert!(s.update(Action::Correlated {
            doc: 1,
            binary_name: "p.elf".into(),
            views: vec!["dump".into(), "functions".into(), "summary".into()],
        }));
        let sum = s.current_doc().unwrap().summary.clone().unwrap();
        assert_eq!(sum.tabs(), [Tab::Dump, Tab::Functions, Tab::Summary]);
        assert_eq!(sum.correlated_with.as_deref(), Some("p.elf"));
        assert!(!sum.needs_binary());
    }

    #[test]
    fn closing_a_file_selects_a_neighbour_and_frees_the_session() {
        let mut s = opened();
        s.update(Action::Add { id: 2, name: "g".into(), size: 1, demo: false, select: true });
        assert!(s.update(Action::Close(2)));
        assert_eq!(s.current, Some(1));
        assert_eq!(s.outbox.last().map(|(_, r)| r.clone()), Some(Request::Close { doc: 2 }));
        assert!(s.update(Action::Close(1)));
        assert_eq!(s.current, None);
    }

    fn stacked() -> State {
        let mut s = State::default();
        s.update(Action::Add { id: 1, name: "p".into(), size: 100, demo: false, select: true });
        let mut sum = summary("perf.data");
        sum.views = vec!["dump".into(), "flame".into(), "functions".into()];
        sum.stacks = Some(StacksInfo { events: vec!["cycles".into(), "instructions".into()], ..StacksInfo::default() });
        s.update(Action::Opened { doc: 1, summary: sum, root: info("file", 0, 100, false), children: vec![] });
        s
    }

    fn sent(s: &mut State) -> Vec<Request> {
        let out = s.outbox.iter().map(|(_, r)| r.clone()).collect();
        let last = s.outbox.last().map_or(0, |(n, _)| *n);
        s.update(Action::Posted(last));
        out
    }

    #[test]
    fn the_flame_tab_asks_for_its_views_and_refilters_them() {
        let mut s = stacked();
        sent(&mut s);
        s.update(Action::SelectTab(Tab::FlameGraph));
        let all = SampleFilter::default();
        let asked = sent(&mut s);
        assert!(asked.contains(&Request::FrameNames { doc: 1, req: 1 }), "{asked:?}");
        assert!(asked.contains(&Request::Flame { doc: 1, req: 2, samples: all.clone(), inverted: false }), "{asked:?}");
        assert!(asked.iter().any(|r| matches!(r, Request::Timeline { event: 0, .. })), "{asked:?}");
        // The graph comes; zooms are clamped to it.
        let data = FlameData::from_arrays(&[0.0, 100.0, 0.0, -1.0, 0.0, 60.0, 60.0, 0.0], vec![0, 1, 2]);
        // A reply to another filter is dropped.
        let other = SampleFilter { event: 1, range: None };
        assert!(!s.update(Action::FlameLoaded { doc: 1, samples: other, inverted: false, data: data.clone() }));
        assert!(s.update(Action::FlameLoaded { doc: 1, samples: all.clone(), inverted: false, data }));
        let st = || s.current_doc().unwrap().stacks.clone();
        assert_eq!(st().zoom(), Zoom { x0: 0.0, x1: 100.0, top: 0.0 });
        let mut s2 = s.clone();
        s2.update(Action::SetZoom(Zoom { x0: -50.0, x1: 10.0, top: 7.0 }));
        assert_eq!(s2.current_doc().unwrap().stacks.zoom(), Zoom { x0: 0.0, x1: 60.0, top: 1.0 });
        s2.update(Action::ZoomToRect(1));
        assert_eq!(
            (s2.current_doc().unwrap().stacks.zoom().x1, s2.current_doc().unwrap().stacks.selected),
            (60.0, Some(1))
        );
        assert!(s2.update(Action::ResetZoom));
        assert_eq!(s2.current_doc().unwrap().stacks.zoom, None);
        // A time range asks for the graph and the functions again; a search for its result.
        s.update(Action::SelectTimeRange(Some((10, 20))));
        let ranged = SampleFilter { event: 0, range: Some((10, 20)) };
        let asked = sent(&mut s);
        assert!(asked.iter().any(|r| matches!(r, Request::Flame { samples, .. } if *samples == ranged)), "{asked:?}");
        assert!(asked.iter().any(|r| matches!(r, Request::StackFunctions { query, .. } if query.samples == ranged)));
        s.update(Action::SearchFrames("mem".into()));
        let asked = sent(&mut s);
        assert!(matches!(&asked[..], [Request::Search { pattern, .. }] if pattern == "mem"), "{asked:?}");
        s.update(Action::ToggleInverted);
        assert!(sent(&mut s).iter().any(|r| matches!(r, Request::Flame { inverted: true, .. })));
        s.update(Action::ShowSandwich(Some(3)));
        assert!(sent(&mut s).iter().any(|r| matches!(r, Request::Sandwich { frame: 3, .. })));
        assert!(!s.update(Action::SetEvent(5)), "no such event");
    }
}
