//! `pgolens-protocol`: every message between the page and its decoding worker, as
//! Rust types defined once and used by both sides.
//!
//! The page sends an [`OpenFile`] (with the `File` handle beside it: a handle is not
//! data) or an [`Envelope`] holding a [`Request`]; the worker answers with
//! [`FromWorker`] messages holding a [`Reply`]. In the browser they travel as JS
//! values through `serde-wasm-bindgen` ([`wire`]): integers above 2^53 as BigInts, bulk
//! numeric arrays ([`F64Array`], [`U32Array`], [`Bytes`], and [`Strings`] packed) as typed arrays whose
//! buffers are transferred, not copied. Natively (the reducer's and the worker's
//! tests) they are plain Rust values.
//!
//! Tables are described by the worker ([`Column`]) and drawn by the page from that
//! description alone, so a column id is written once, where the data is.

use serde::{Deserialize, Serialize};

mod bulk;
mod stacks;
#[cfg(target_arch = "wasm32")]
pub mod wire;

pub use bulk::{Bytes, F64Array, Rects, Strings, U32Array};
pub use stacks::{
    CallTreeNodes, FlameLayout, Found, FrameNames, Order, SampleFilter, StackChartBoxes, StacksInfo, Timeline,
    Transform,
};

/// The page's number for an open file, also the worker's session key.
pub type DocId = u32;
/// The page's sequence number for a request; replies carry it back.
pub type ReqId = u64;

/// Open a file as document `doc`. The `File` (or the demo's `ArrayBuffer`, transferred)
/// travels beside it: the message is the array `[OpenFile, file]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpenFile {
    pub doc: DocId,
    pub name: String,
}

/// Offer the files of a dropped or picked folder (a build directory, a sysroot) to
/// every open perf.data: the message is the array `[SymbolsFolder, File[]]`, the
/// files in the order of `paths` (each file's path inside the folder). The worker
/// reads each file's first bytes and its notes, and only the ELF files matching a
/// recorded DSO (by build id, else by file name), their debug files and a
/// `kallsyms` in full; each perf.data then gets [`Reply::Symbolized`] and
/// [`Reply::Symbols`] (with no `req`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolsFolder {
    pub paths: Vec<String>,
}

/// A request about an open document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub doc: DocId,
    pub req: ReqId,
    pub request: Request,
}

/// What the page asks of the worker about one document.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// The children of the dump node at `path` (child indices from the root).
    Children { path: Vec<u32> },
    /// The decoded bytes `start..end` (clipped to the content and to a window).
    Bytes { start: u64, end: u64 },
    /// The path to the innermost dump node holding `offset`.
    PathTo { offset: u64 },
    /// The dump node at `path` (child indices from the root), loaded down to it and
    /// answered as a [`Reply::Path`]; a path past what the file has stops where it does.
    Reveal { path: Vec<u32> },
    /// Rows `start..start + count` of a table under a query.
    Table { query: TableQuery, start: u64, count: u64 },
    /// The profile summary (instrprof, sample profiles).
    Summary,
    /// One function of the instrprof table in full, by row id.
    Function { row: u32 },
    /// One MemProf allocation site in full, by row id.
    MemProfSite { site: u32 },
    /// Decode this correlated raw profile with the open ELF `binary`.
    Correlate { binary: DocId },
    /// Name this perf.data's frames from the open ELF and kallsyms documents `binaries`.
    Symbolize { binaries: Vec<DocId> },
    /// What names this perf.data's frames: per DSO, its build id, the file matched
    /// and its debug file, its samples ([`Reply::Symbols`]).
    Symbols,
    /// Lay out the flame graph (`inverted`: the icicle of the inverted tree), its
    /// siblings in `order`.
    Flame {
        samples: SampleFilter,
        inverted: bool,
        #[serde(default)]
        order: Order,
    },
    /// The call tree (`inverted`: bottom-up), siblings heaviest first.
    CallTree { samples: SampleFilter, inverted: bool },
    /// The time-ordered stack chart of the samples (over their time range, or all
    /// of it), `columns` wide.
    StackChart { samples: SampleFilter, columns: u32 },
    /// Lay out one function's callers and callees.
    Sandwich { samples: SampleFilter, frame: u32 },
    /// Every frame's name, DSO and kind.
    FrameNames,
    /// The frames whose names match `pattern`, and the weight of the stacks holding one.
    Search { samples: SampleFilter, pattern: String },
    /// An event's weight over time in `bins` buckets.
    Timeline { event: u32, bins: u32 },
    /// One function of the BOLT function table (by row id; `None`: the hottest) as
    /// a laid-out control-flow graph.
    BoltCfg { function: Option<u32> },
    /// One function of a BOLTed binary's BAT table, with its translation entries.
    BatFunction { row: u32 },
    /// The BOLT profile written out: fdata (as perf2bolt writes it, translated
    /// when it came from a BOLTed binary) or, with `yaml`, YAML (as LLVM's writer
    /// writes a YAML profile, or as perf2bolt -w writes one from BAT).
    ExportBolt { yaml: bool },
    /// One function of a sample profile's table in full (by row id): its line heat.
    SampleFunction { row: u32 },
    /// The sample profile written out in another format, as `pgolens export` writes it.
    ExportSample { to: SampleExport },
    /// Forget the document.
    Close,
}

/// A message from the worker: `req` is the request answered (`None` for the open's
/// progress, its result, and its failure).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FromWorker {
    pub doc: DocId,
    pub req: Option<ReqId>,
    pub reply: Reply,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Reply {
    Progress {
        loaded: u64,
        total: u64,
        phase: Phase,
    },
    Opened(Box<Opened>),
    Children {
        path: Vec<u32>,
        nodes: Vec<NodeInfo>,
    },
    Bytes {
        start: u64,
        bytes: Bytes,
    },
    Path {
        offset: u64,
        path: Vec<u32>,
        levels: Vec<Vec<NodeInfo>>,
    },
    Table(TablePage),
    Summary {
        summary: ProfileSummary,
        cs_summary: Option<ProfileSummary>,
    },
    Function(Box<FnDetail>),
    MemProfSite(Box<MemSite>),
    Correlated {
        binary: DocId,
        binary_name: String,
        views: Vec<View>,
    },
    Symbolized {
        stacks: StacksInfo,
        with: Vec<String>,
    },
    Symbols(Box<SymbolStatus>),
    Flame {
        samples: SampleFilter,
        inverted: bool,
        #[serde(default)]
        order: Order,
        layout: FlameLayout,
    },
    CallTree {
        samples: SampleFilter,
        inverted: bool,
        tree: CallTreeNodes,
    },
    StackChart {
        samples: SampleFilter,
        columns: u32,
        chart: StackChartBoxes,
    },
    Sandwich {
        samples: SampleFilter,
        frame: u32,
        callers: FlameLayout,
        callees: FlameLayout,
    },
    /// Boxed: four packed columns would make every reply as large.
    FrameNames(Box<FrameNames>),
    Search {
        samples: SampleFilter,
        pattern: String,
        found: Found,
    },
    Timeline(Timeline),
    BoltCfg(Box<CfgGraph>),
    BatFunction(Box<BatDetail>),
    SampleFunction(Box<SampleFnDetail>),
    /// A file to save: its suggested name and its bytes.
    Exported {
        name: String,
        bytes: Bytes,
    },
    /// The file's fingerprint (what a link names it by), once its bytes are hashed:
    /// lowercase hex of SHA-256 over the SHA-256 digests of its 4 MiB blocks; and
    /// its size (what was read: a fetched file's size is known only then).
    Fingerprint {
        hex: String,
        size: u64,
    },
    /// The request (or, with no `req`, the open) failed.
    Failed(Failure),
}

/// What the worker is doing with a file being opened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Phase {
    /// Reading the file into the worker: `loaded` of `total` bytes.
    Read,
    /// Decoding: `loaded` of `total` steps (records), or 0 of 0 when not counted.
    Decode,
}

/// An error as the decoders report it: what was expected, and where.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failure {
    /// The whole message, location included (`... (at offset 0x1c)`).
    pub message: String,
    pub location: Option<Location>,
}

impl Failure {
    pub fn new(message: impl Into<String>) -> Failure {
        Failure { message: message.into(), location: None }
    }
}

impl core::fmt::Display for Failure {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Where in the input an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Location {
    /// A byte offset into the decoded content.
    Offset(u64),
    /// A 1-based line and column of a text format.
    Line { line: u64, column: u64 },
}

/// The views a document offers, in tab order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum View {
    Dump,
    Flame,
    Functions,
    Summary,
    MemProf,
    /// The functions of a BOLT profile (fdata, pre-aggregated, YAML).
    BoltFunctions,
    /// One function of a BOLT profile as a control-flow graph.
    BoltCfg,
    /// An fdata profile's branch lines.
    BoltBranches,
    /// An fdata profile's memory lines.
    BoltMemory,
    /// A `no_lbr` fdata profile's sample lines.
    BoltSamples,
    /// A BOLTed binary's address translation tables.
    Bat,
    /// The functions of a sample profile (LLVM, AutoFDO, GCOV v4) with their line heat.
    SampleFunctions,
    /// A sample profile's profile symbol list.
    SampleSymbols,
    /// The call tree of a file with call stacks (top-down or bottom-up).
    CallTree,
    /// The samples' stacks in time order (a recording with sample times).
    StackChart,
}

impl View {
    pub const ALL: [View; 15] = [
        View::Dump,
        View::Flame,
        View::Functions,
        View::Summary,
        View::MemProf,
        View::BoltFunctions,
        View::BoltCfg,
        View::BoltBranches,
        View::BoltMemory,
        View::BoltSamples,
        View::Bat,
        View::SampleFunctions,
        View::SampleSymbols,
        View::CallTree,
        View::StackChart,
    ];
}

/// A decoded file, as the page first sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Opened {
    pub summary: FileSummary,
    pub root: NodeInfo,
    pub children: Vec<NodeInfo>,
}

/// What the worker says about a decoded file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileSummary {
    pub name: String,
    /// The format id, e.g. `perf.data`, `instrprof-raw`, `kallsyms`.
    pub format: String,
    /// The detection line, e.g. `instrprof-raw [version 10, 64-bit, little-endian, IR_PROF]`.
    pub detection: String,
    pub version: Option<u64>,
    /// Size of the content the decoders saw (after gunzip).
    pub size: u64,
    /// Size of the file as given.
    pub file_size: u64,
    pub gzip: bool,
    /// The views the format offers, in tab order.
    pub views: Vec<View>,
    /// The view the file opens on: its most useful one.
    pub open_on: View,
    /// Why the format's other views are missing (a correlated raw profile without its binary).
    pub views_error: Option<Failure>,
    /// The events and time span of a file with call stacks.
    pub stacks: Option<StacksInfo>,
    /// Branches that the profiled binary turns into a BOLT profile, as perf2bolt
    /// does (a perf.data with branch stacks, a pre-aggregated profile).
    pub branch_profile: bool,
    /// What the status line says of the file's content, when it is not what its
    /// views would suggest (a BOLT profile without counts).
    pub remark: Option<String>,
}

/// A dump node without its children.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

// ---------------------------------------------------------------------------------
// Tables: described by the worker, drawn by the page.

/// The paged tables a document can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum TableId {
    /// Instrumentation profile functions.
    Functions,
    /// Functions of a file with call stacks (self and total samples).
    StackFunctions,
    /// MemProf allocation sites.
    MemProf,
    /// Functions of a BOLT profile.
    BoltFunctions,
    /// An fdata profile's branch lines.
    BoltBranches,
    /// An fdata profile's memory lines.
    BoltMemory,
    /// A `no_lbr` fdata profile's sample lines.
    BoltSamples,
    /// The hot functions and cold fragments of a BOLTed binary's BAT.
    BatFunctions,
    /// The top-level functions of a sample profile.
    SampleFunctions,
    /// The names of a sample profile's symbol list.
    SampleSymbols,
}

/// A sort order, a name filter and (for stack tables) the samples aggregated: what
/// a page of rows was asked for under.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableQuery {
    pub table: TableId,
    /// A [`Column::id`]; empty: the table's default order.
    pub column: String,
    pub descending: bool,
    pub filter: String,
    pub samples: Option<SampleFilter>,
}

impl TableQuery {
    /// The table's default order, unfiltered.
    pub fn new(table: TableId) -> TableQuery {
        TableQuery { table, column: String::new(), descending: true, filter: String::new(), samples: None }
    }
}

/// How a column's cells are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CellKind {
    /// A function or site name: demangled, the raw name on hover.
    Name,
    /// A count; with [`Column::share`], also its share of the page's `weight`.
    Count,
    /// A hash or address, in hex.
    Hex,
    /// Parts per million, shown as a percentage.
    Ppm,
    /// Plain text.
    Text,
}

/// One column of a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    /// The id the worker sorts by.
    pub id: String,
    pub title: String,
    pub kind: CellKind,
    /// A first click sorts largest first (numbers) rather than A→Z (names).
    pub descending_first: bool,
    /// Counts also show their share of [`TablePage::weight`].
    pub share: bool,
    /// The worker can sort by it.
    pub sortable: bool,
    /// A short explanation, shown on hover of the header.
    pub help: Option<String>,
}

/// One cell.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cell {
    /// No value (the schema lacks the field).
    Empty,
    /// `text` shown; `raw` (the mangled name) on hover; `tag` a short marker (`CS`).
    Name {
        text: String,
        raw: Option<String>,
        tag: Option<String>,
    },
    Count(u64),
    Hex(u64),
    Ppm(u32),
    Text(String),
}

/// One row: `id` is stable across orders (what selecting a row asks for).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub id: u32,
    pub cells: Vec<Cell>,
}

/// A page of a table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TablePage {
    /// The query as the worker applied it (the default column resolved).
    pub query: TableQuery,
    pub columns: Vec<Column>,
    /// Rows in the whole table.
    pub total: u64,
    /// Rows matching the filter.
    pub matching: u64,
    /// What shares are shares of (a stack table's sample weight), when there is one.
    pub weight: Option<u64>,
    /// The rows are `start..start + rows.len()` of the matching rows.
    pub start: u64,
    pub rows: Vec<Row>,
}

// ---------------------------------------------------------------------------------
// Instrumentation profiles.

/// One line of the detailed summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CutoffEntry {
    /// Parts per million of the total count.
    pub cutoff: u32,
    pub min_count: u64,
    pub num_counts: u64,
}

/// `llvm-profdata show --detailed-summary`'s numbers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProfileSummary {
    pub functions: u64,
    pub counts: u64,
    pub total: u128,
    pub max_count: u64,
    pub max_function: u64,
    pub max_internal: u64,
    pub detailed: Vec<CutoffEntry>,
}

/// One function in full.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FnDetail {
    pub id: u32,
    pub name: String,
    pub demangled: Option<String>,
    pub hash: Option<u64>,
    pub counters: Vec<u64>,
    pub bitmap: Vec<u8>,
    pub sites: Vec<FnSite>,
    pub traces: Vec<FnTrace>,
}

/// A value site of a function, with its targets.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FnSite {
    /// `indirect call`, `memop size`, `vtable`, ...
    pub kind: String,
    pub index: u32,
    pub targets: Vec<FnTarget>,
}

/// A value seen at a site.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FnTarget {
    /// The value: a target's hash, or a size.
    pub value: u64,
    /// The raw name of a named target.
    pub name: Option<String>,
    pub demangled: Option<String>,
    pub count: u64,
}

/// A temporal profile trace the function appears in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FnTrace {
    pub trace: u32,
    pub weight: u64,
    pub position: u64,
    pub length: u64,
}

/// One MemProf allocation site in full.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemSite {
    pub id: u32,
    /// The function record listing it (indexed profiles).
    pub guid: Option<u64>,
    pub name: Option<String>,
    pub demangled: Option<String>,
    /// Leaf first.
    pub frames: Vec<MemFrame>,
    /// Every MemInfoBlock field, in the file's order.
    pub fields: Vec<(String, u64)>,
    pub histogram: Vec<u64>,
}

/// One frame of a site's call stack: symbolized (indexed) or an address (raw).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemFrame {
    pub guid: Option<u64>,
    pub name: Option<String>,
    pub demangled: Option<String>,
    pub line: u32,
    pub column: u32,
    pub inline: bool,
    pub address: Option<u64>,
    pub build_id: Option<String>,
    pub module_offset: Option<u64>,
}

// ---------------------------------------------------------------------------------
// BOLT control-flow graphs.

/// How the worker sizes a block's text and the page draws it: a monospace font's
/// advance, a line's height and the padding around the lines, in CSS pixels.
pub const CFG_CHAR_PX: f64 = 7.2;
pub const CFG_LINE_PX: f64 = 16.0;
pub const CFG_PAD_PX: f64 = 6.0;
/// A count as the graph writes it, in blocks and on edges: `1234567` as `1,234,567`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len().saturating_add(digits.len() / 3));
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len().saturating_sub(i)) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A block whose flow conservation gap is at least this is flagged.
pub const CFG_FLAG_GAP: f64 = 0.2;
/// Calls listed in a block's text (its lines 1..); more are summed up in one line.
pub const CFG_CALL_LINES: usize = 6;
/// Instructions listed in a block's text; the details list them all.
pub const CFG_CODE_LINES: usize = 24;
/// A long note on an instruction (a jump table's edges) is wrapped into lines of
/// this many characters, at most [`CFG_NOTE_LINES`] of them; the details list it whole.
pub const CFG_NOTE_CHARS: usize = 44;
pub const CFG_NOTE_LINES: usize = 4;

/// One function's control-flow graph, laid out by the worker (layout units are CSS
/// pixels at zoom 1; blocks top to bottom in layers).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CfgGraph {
    /// The function's row id in the BOLT function table.
    pub function: u32,
    pub name: String,
    pub demangled: Option<String>,
    pub exec_count: u64,
    pub blocks: Vec<CfgBlock>,
    pub edges: Vec<CfgEdge>,
    pub width: f64,
    pub height: f64,
    pub layers: u32,
    pub crossings: u64,
    /// Milliseconds the worker spent in the layout.
    pub layout_ms: f64,
    /// The hottest edge count (the colour scale's top).
    pub max_count: u64,
    pub flow: FlowScore,
    /// Branches of the profile that fit no edge of the graph.
    pub unmatched: u64,
    /// The binary the blocks' instructions come from, when one is attached.
    pub binary: Option<String>,
    /// Why the blocks have no instructions (no binary, or it does not match).
    pub code_note: Option<String>,
}

/// How well the counts conserve flow, as llvm-bolt's profile quality stats measure
/// it (`ProfileQualityStats.cpp`): per block, gap = 1 − min(in, out) / max(in, out).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FlowScore {
    /// The gaps' mean weighted by log(count × instructions).
    pub weighted_gap: f64,
    /// The largest gap of a block counted more than 500 times.
    pub worst_gap: f64,
    pub worst_block: Option<u32>,
    /// Blocks whose gap passes the flagging threshold.
    pub flagged: u32,
}

/// One basic block and where it is drawn.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CfgBlock {
    /// The block's index in the profile (YAML `bid`, else input order).
    pub index: u32,
    /// Offset in the input function, when known.
    pub offset: Option<u64>,
    pub exec_count: u64,
    pub instructions: Option<u32>,
    /// Entered from outside the function (entry point, landing pad).
    pub entry: bool,
    pub inflow: u64,
    pub outflow: u64,
    /// The block's flow conservation gap, when llvm-bolt's stats consider it.
    pub gap: Option<f64>,
    /// Why llvm-bolt's stats leave it out, when they do.
    pub not_counted: Option<String>,
    pub flagged: bool,
    /// The text drawn in the block: a header line, one line per call (in `calls`
    /// order, at most [`CFG_CALL_LINES`], then a line saying how many more), then
    /// its first [`CFG_CODE_LINES`] instructions (a long note wrapped below its own).
    pub lines: Vec<String>,
    /// The block's instructions, when the binary is known.
    pub code: Vec<CfgInsn>,
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    pub calls: Vec<CfgCall>,
}

/// One instruction of a block: its offset in the function, its text (AT&T), and
/// what the profile counts there (a call's count, a branch's taken edges).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgInsn {
    pub offset: u64,
    pub text: String,
    pub note: Option<String>,
}

/// A call out of a block.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CfgCall {
    pub callee: String,
    pub demangled: Option<String>,
    pub count: u64,
    pub mispredicted: u64,
    /// The callee's row in the function table, when the profile has it.
    pub function: Option<u32>,
}

/// An edge and its route (`points`: x, y pairs from the source to the target).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CfgEdge {
    pub from: u32,
    pub to: u32,
    /// None: the profile says nothing of this edge.
    pub count: Option<u64>,
    pub mispredicted: u64,
    pub inferred: bool,
    /// A back edge of a loop (drawn upwards).
    pub back: bool,
    pub points: Vec<f64>,
}

// ---------------------------------------------------------------------------------
// BOLT Address Translation.

/// One hot function or cold fragment of a BAT table, with its entries.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatDetail {
    pub row: u32,
    pub name: String,
    pub demangled: Option<String>,
    pub address: u64,
    /// A cold fragment's hot function (its row and name).
    pub parent: Option<(u32, String)>,
    /// Its cold fragments, for a hot function (rows and names).
    pub fragments: Vec<(u32, String)>,
    pub hash: Option<u64>,
    pub blocks: Option<u64>,
    pub entries: Vec<BatEntry>,
    /// Offsets in the input function of its secondary entry points.
    pub secondary_entry_points: Vec<u64>,
    /// Where the whole function's blocks went (its hot part and every cold
    /// fragment), for the picture of how BOLT moved the code.
    pub moved: Vec<MovedBlock>,
    /// The open profile of the BOLTed binary, translated through BAT, that counts
    /// the blocks (its file name); None: no counts.
    pub profile: Option<String>,
}

/// A basic block of the input function and where BOLT put it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedBlock {
    pub input_offset: u64,
    /// 0: the hot part; 1, 2, ...: the cold fragments in table order.
    pub fragment: u32,
    pub output_offset: u64,
    /// The block's count in the translated profile ([`BatDetail::profile`]).
    pub count: Option<u64>,
}

/// One translation entry: where in the output fragment, and what it was in the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatEntry {
    pub output_offset: u64,
    pub input_offset: u64,
    /// A branch or call instruction (BRANCHENTRY), not a block start.
    pub branch: bool,
    /// A block's index in the input function (current encoding).
    pub block_index: Option<u64>,
    pub block_hash: Option<u64>,
}

// ---------------------------------------------------------------------------------
// Sample profiles.

/// A format the page writes a sample profile in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SampleExport {
    /// LLVM sample text, as `llvm-profdata merge --sample --text` writes it.
    Text,
    /// AutoFDO GCOV v4, binary.
    Gcov4,
    /// AutoFDO GCOV v4, compact binary.
    Gcov4Compact,
    /// AutoFDO GCOV v4, text.
    Gcov4Text,
}

impl SampleExport {
    pub const ALL: [SampleExport; 4] =
        [SampleExport::Text, SampleExport::Gcov4, SampleExport::Gcov4Compact, SampleExport::Gcov4Text];
}

/// A name as the page shows it: raw (an MD5 in decimal) and demangled when that differs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleName {
    pub raw: String,
    pub demangled: Option<String>,
}

/// One top-level function of a sample profile in full.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleFnDetail {
    /// Its row id in the Functions table.
    pub id: u32,
    pub name: SampleName,
    /// A CS profile's context, as LLVM prints it (`[main:1 @ _Z3foov]`).
    pub context: Option<String>,
    pub md5: Option<u64>,
    pub total: u64,
    pub head: u64,
    /// `!CFGChecksum` of a probe-based profile.
    pub checksum: Option<u64>,
    /// The function's inline tree flattened in pre-order: its lines and inlined
    /// callsites by location, each inline row followed by its callee's rows.
    pub rows: Vec<HeatRow>,
}

/// One row of a function's line heat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeatRow {
    /// 0: the function's own; 1: a callee inlined into it; ...
    pub depth: u32,
    /// Line offset from the function's first line.
    pub line: u32,
    pub discriminator: u32,
    /// A body line's samples, or an inlined callee's total.
    pub samples: u64,
    /// The callee inlined here; `None` for a body line.
    pub callee: Option<SampleName>,
    /// A body line's call targets, most called first.
    pub calls: Vec<SampleCall>,
    /// An inline row's callee rows: the rows after it that are its.
    pub descendants: u32,
}

/// A call target of a body line and how many calls went to it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SampleCall {
    pub name: SampleName,
    pub count: u64,
}

/// What names a perf.data's frames: each DSO the recording names, and the kernel's
/// symbols.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolStatus {
    /// In the order the recording names them; those with samples first.
    pub dsos: Vec<DsoStatus>,
    /// The kallsyms file naming kernel frames, if one was given.
    pub kallsyms: Option<String>,
    /// Samples in the kernel and its modules.
    pub kernel_samples: u64,
    /// The last folder offered: its files, those that were ELF, those read in full.
    pub folder: Option<FolderScan>,
    /// Why the files given could not be used, if they could not.
    pub error: Option<String>,
}

/// One DSO of a recording and what symbolizes it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DsoStatus {
    /// As perf recorded it (`/usr/lib/x86_64-linux-gnu/libc.so.6`, `[kernel.kallsyms]`).
    pub path: String,
    /// Lowercase hex, as `perf buildid-list` prints it.
    pub build_id: Option<String>,
    /// Samples whose ip lies in it.
    pub samples: u64,
    /// The kernel or one of its modules (named by kallsyms, not by a file).
    pub kernel: bool,
    /// A file the user gave for it (by build id, else by file name); `None`: missing.
    pub matched: Option<String>,
    /// Its separate debug file (same build id), if one was given.
    pub debug: Option<String>,
}

/// What a folder held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FolderScan {
    pub files: u32,
    pub elf: u32,
    /// Read in full: the matched ELFs, their debug files, a kallsyms.
    pub read: u32,
}

#[cfg(test)]
mod tests {
    use super::grouped;

    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(4_400_000), "4,400,000");
        assert_eq!(grouped(u64::MAX), "18,446,744,073,709,551,615");
    }
}
