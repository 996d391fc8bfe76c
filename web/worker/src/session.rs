//! One open file in the worker: its bytes, its detection, the part of its dump tree
//! built so far, and the view models of its format. Every answer is a
//! `pgolens_protocol` type; every failure a [`Failure`] with the decoder's message
//! and, where the core gave one, its location.
//!
//! The tree is built lazily. `finish` builds what `pgolens::dump` builds (the root and
//! the structures it decodes eagerly); a deferred node is expanded the first time the
//! page asks for its children, or when `path_to` walks through it, and then stays
//! cached here. The page only ever holds the levels it has shown.
//!
//! Raw and indexed instrumentation profiles are also decoded into the view models
//! (`pgolens::model`): the function table, the summary, one function's detail.
//! Sample profiles (LLVM, AutoFDO, GCOV v4) get theirs from [`crate::sample`]: a
//! function table, line heat, a summary, exports, and call stacks built on the
//! first flame graph asked for.
//! Tables are paged ([`crate::tables`]): the page asks for the rows it shows, under a
//! sort order and a name filter; the last sorted and filtered orders (row-id arrays)
//! are kept, so scrolling costs one page and typing in the filter one pass over the
//! names.

use alloc::borrow::Cow;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::cell::OnceCell;

use pgolens::formats::instrprof::{self, model::Profile};
use pgolens::formats::perf::attr::sample_type;
use pgolens::formats::perf::perf2bolt::binary::{Binary, BinaryIndex};
use pgolens::formats::perf::perf2bolt::{self};
use pgolens::formats::perf::PerfData;
use pgolens::model::detail::KIND_NAMES;
use pgolens::model::fdata_records::Records;
use pgolens::model::instrprof::{self as adapter, Names};
use pgolens::model::memprof::{Column as MemColumn, Sites};
use pgolens::model::perf::{Addresses, PerfStacks};
use pgolens::model::stacks::StackProfile;
use pgolens::model::{Column, FunctionTable, Summary};
use pgolens::symbolize::Symbolizer;
use pgolens::{Detection, Format, Node};
use pgolens_protocol::{
    BatDetail, CallTreeNodes, CfgGraph, CutoffEntry, DocId, FileSummary, FlameLayout, FnDetail, FnSite, FnTarget,
    FnTrace, Found, FrameNames, Location, NodeInfo, Opened, Order, ProfileSummary, SampleExport, SampleFilter,
    SampleFnDetail, StackChartBoxes, StacksInfo, TableId, TablePage, TableQuery, Timeline, View,
};

pub use pgolens_protocol::Failure;
pub use stream::FirstPart;

use crate::bat::BatView;
use crate::bolt::BoltView;
use crate::sample::SampleView;
use crate::stacks::StacksView;
use crate::{synthetic, tables};

mod dump;
mod memprof;
mod stream;

use dump::{children, expand, node_info};

/// The most bytes one `bytes` call returns: the hex pane asks for a few KiB around
/// what it shows, so this only guards against a runaway request.
pub const MAX_WINDOW: u64 = 1 << 20;

/// A decoder's error as the page gets it: its message (with where) and its location.
pub fn failure(e: pgolens::Error) -> Failure {
    let location = match e.location {
        // The hex pane shows the decompressed content: its offsets are the page's.
        pgolens::error::Location::Offset(offset) | pgolens::error::Location::Decompressed { offset, .. } => {
            Location::Offset(offset)
        }
        pgolens::error::Location::Line { line, column } => Location::Line { line, column },
    };
    Failure { message: e.to_string(), location: Some(location) }
}

/// [`failure`] of an error in the content the decoders read: for a compressed file,
/// its offset is said to be one of the decompressed content, as the CLI says it.
fn located(compression: Option<&'static str>, e: pgolens::Error) -> Failure {
    failure(compression.map_or(e, |c| e.in_decompressed(c)))
}

pub fn fail(message: impl Into<String>) -> Failure {
    Failure::new(message)
}

/// A path of child indices through a dump, and the children of each node on it.
pub type PathLevels = (Vec<u32>, Vec<Vec<NodeInfo>>);

pub struct Session {
    name: String,
    /// The file's size as the glue announced it: reserved on the first slot.
    expected: u64,
    /// The file as read so far; moved into `decoded` by `finish` (or, for a file
    /// decoded as it streamed in, by `loaded`).
    raw: Vec<u8>,
    /// A file being decoded as it streams in, and what that gave.
    streaming: Option<stream::Streaming>,
    streamed: Option<stream::Streamed>,
    decoded: Option<Decoded>,
}

struct Decoded {
    /// The content the decoders see (gunzipped when the file was gzip). Shared, not
    /// copied, with the perf.data sessions a binary symbolizes. Empty while `unread`.
    data: Rc<Vec<u8>>,
    /// Decoded as it streamed in, its bytes not kept (see [`stream`]): read when a
    /// request needs them ([`Session::needs_bytes`]).
    unread: bool,
    /// A recording's DSOs with their samples, counted as it streamed in.
    dsos: Option<Vec<pgolens::formats::perf::dsos::DsoUse>>,
    file_size: u64,
    /// What the file was compressed with: its errors' offsets are the decompressed content's.
    compression: Option<&'static str>,
    /// The file parsed as a binary for perf2bolt and BOLT's graphs (on first use):
    /// kept, so that each graph asked for does not parse it again.
    binary_index: OnceCell<Result<Rc<BinaryIndex>, pgolens::Error>>,
    detection: Detection,
    root: Node,
    views: Option<Views>,
    /// The allocation sites of a MemProf profile (raw, or an indexed one's section).
    memprof: Option<MemProfView>,
    /// The call stacks of a format that has them (a sample profile's: once asked for).
    stacks: Option<StacksView>,
    /// A sample profile (LLVM, AutoFDO, GCOV v4).
    sample: Option<SampleView>,
    /// The function table of a BOLT profile.
    bolt: Option<BoltView>,
    /// The address translation tables of a BOLTed binary.
    bat: Option<BatView>,
    /// A binary turns the file into a BOLT profile (see [`branch_profile`]).
    branch_profile: bool,
    /// The binaries and kallsyms files this perf.data is symbolized with.
    symbols: Vec<SymbolFile>,
    /// Where a perf.data's frames lie, so that binaries name them without reading
    /// the recording again; and, once symbolized, the stacks of its addresses they
    /// were named from.
    addresses: Option<Addresses>,
    unsymbolized: Option<StackProfile>,
}

/// A binary or kallsyms file that names the frames of a perf.data.
struct SymbolFile {
    name: String,
    data: Rc<Vec<u8>>,
    kallsyms: bool,
}

/// The call stacks of the formats that have them (`None` for the others),
/// symbolized with `symbols`. `progress(done, total)` is called as the records are read.
/// Whether a binary turns the file into a BOLT profile: a pre-aggregated profile,
/// or a perf.data whose samples carry branch stacks (perf2bolt's LBR mode).
fn branch_profile(data: &[u8], format: Format) -> bool {
    match format {
        Format::BoltPreagg => true,
        Format::PerfData => PerfData::parse_unindexed(data)
            .is_ok_and(|p| p.events.iter().any(|e| e.attr.sample_type & sample_type::BRANCH_STACK != 0)),
        _ => false,
    }
}

fn stacks_of(
    data: &[u8],
    detection: &Detection,
    symbols: &[SymbolFile],
    progress: &mut dyn FnMut(u64, u64),
) -> Option<Result<PerfStacks, pgolens::Error>> {
    if !matches!(detection.format, Format::PerfData | Format::PerfDataPipe) {
        return None;
    }
    Some(PerfData::parse_unindexed(data).and_then(|perf| {
        let symbolizer = symbolizer(symbols);
        PerfStacks::read(&perf, &symbolizer, |done, total| progress(done as u64, total as u64))
    }))
}

/// The binaries and kallsyms of `symbols`, parsed. A binary that does not parse
/// names nothing; its own session shows why.
fn symbolizer(symbols: &[SymbolFile]) -> Symbolizer<'_> {
    let mut symbolizer = Symbolizer::new();
    for file in symbols {
        if file.kallsyms {
            let _ = symbolizer.set_kallsyms(&file.data);
        } else {
            let _ = symbolizer.add_binary(&file.name, &file.data);
        }
    }
    symbolizer
}

/// MemProf allocation sites and the order last asked for.
struct MemProfView {
    sites: Sites,
    sorted: Option<(MemColumn, bool, Vec<u32>)>,
}

/// The view models of a decoded profile, and the table orders last asked for.
struct Views {
    profile: Profile,
    table: FunctionTable,
    /// The summary and, for CS profiles, the context-sensitive records' summary
    /// (`show --showcs`): computed on the first request, as the first table rows
    /// should not wait for them.
    summaries: Option<(Summary, Option<Summary>)>,
    /// Target names, built on the first detail asked for.
    names: Option<Names>,
    order: tables::RowOrder<Column>,
}

impl Views {
    /// `binary`: the instrumented ELF of a correlated raw profile.
    fn instrprof(data: &[u8], binary: Option<&[u8]>) -> Result<Views, pgolens::Error> {
        let profile = instrprof::decode(data, binary)?;
        let table = adapter::function_table(&profile);
        Ok(Views { profile, table, summaries: None, names: None, order: tables::RowOrder::default() })
    }

    /// A page of the function table.
    fn table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column =
            Column::from_id(&query.column).ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let total = self.table.len();
        let table = &mut self.table;
        let order = self.order.get(
            table,
            column,
            query.descending,
            &query.filter,
            |t, c, d| t.sorted(c, d),
            |t, o, f| t.filter(o, f),
        );
        Ok(tables::page(query, tables::function_columns(), total, None, order, start, count, |&id| {
            table.row(id).map(|row| tables::function_row(&row))
        }))
    }
}

/// The views of a sample profile, in tab order: its functions first (it opens on
/// them), its stacks (the inline trees as a flame graph, and the functions' self and
/// total samples over them), the summary, the symbol list when it has one.
fn sample_views_of(symbols: bool) -> Vec<View> {
    let mut views =
        alloc::vec![View::Dump, View::SampleFunctions, View::Flame, View::CallTree, View::Functions, View::Summary];
    if symbols {
        views.push(View::SampleSymbols);
    }
    views
}

/// Whether a format is a sample profile (decoded by `decode_sample_profile`).
fn is_sample(format: Format) -> bool {
    matches!(
        format,
        Format::SampleText
            | Format::SampleBinary
            | Format::SampleExtBinary
            | Format::GcovAfdo
            | Format::GcovV4
            | Format::GcovV4Text
    )
}

/// The views a decoded document offers, in tab order, and the one it opens on.
fn views_of(instrprof: bool, memprof: bool, stacks: Option<&StacksView>, bolt: Option<&BoltView>) -> (Vec<View>, View) {
    let mut views = alloc::vec![View::Dump];
    if let Some(stacks) = stacks {
        views.extend([View::Flame, View::CallTree]);
        if stacks.timed() {
            views.push(View::StackChart);
        }
        views.push(View::Functions);
    }
    if let Some(bolt) = bolt {
        views.push(View::BoltFunctions);
        if bolt.has_graphs() {
            views.push(View::BoltCfg);
        }
        views.extend(bolt.records().into_iter().map(|r| match r {
            Records::Branches => View::BoltBranches,
            Records::Memory => View::BoltMemory,
            Records::Samples => View::BoltSamples,
        }));
    }
    if instrprof {
        views.extend([View::Functions, View::Summary]);
    }
    if memprof {
        views.push(View::MemProf);
    }
    // The most useful view first: the flame graph of a recording, the functions of a profile.
    let open_on = if stacks.is_some() {
        View::Flame
    } else if bolt.is_some() {
        View::BoltFunctions
    } else if instrprof {
        View::Functions
    } else {
        View::Dump
    };
    (views, open_on)
}

impl Session {
    /// A session that will receive about `expected` bytes: read into
    /// [`Session::slot`]s (reserved on the first, so that appending never copies
    /// what was read), or decoded as they stream in ([`Session::stream_start`]).
    pub fn new(name: String, expected: u64) -> Result<Session, Failure> {
        usize::try_from(expected).map_err(|_| too_large(expected))?;
        Ok(Session { name, expected, raw: Vec::new(), streaming: None, streamed: None, decoded: None })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Grows the file by `len` bytes and returns them for the caller to fill (a file
    /// decoded as it streamed in: read again, see [`Session::loaded`]).
    pub fn slot(&mut self, len: usize) -> Result<&mut [u8], Failure> {
        if self.decoded.as_ref().is_some_and(|d| !d.unread) {
            return Err(fail("the file was already decoded"));
        }
        // A stream the glue abandoned (the file is read whole instead) is dropped.
        self.streaming = None;
        if self.raw.capacity() == 0 {
            let expected = usize::try_from(self.expected).map_err(|_| too_large(self.expected))?;
            self.raw.try_reserve_exact(expected).map_err(|_| too_large(self.expected))?;
        }
        let old = self.raw.len();
        let new = old.checked_add(len).ok_or_else(|| too_large(u64::MAX))?;
        self.raw.try_reserve(len).map_err(|_| too_large(new as u64))?;
        self.raw.resize(new, 0);
        self.raw.get_mut(old..).ok_or_else(|| fail("slot outside the file"))
    }

    /// Decodes the bytes read: detection, the first levels of the dump and the
    /// format's views.
    pub fn finish(&mut self) -> Result<Opened, Failure> {
        self.finish_with(&mut |_, _| {})
    }

    /// [`Session::finish`], calling `progress(done, total)` while the decoders that
    /// count their steps (a perf.data's stacks: records) run.
    pub fn finish_with(&mut self, progress: &mut dyn FnMut(u64, u64)) -> Result<Opened, Failure> {
        if self.decoded.is_some() {
            return Err(fail("the file was already decoded"));
        }
        if let Some(streamed) = self.streamed.take() {
            return Ok(self.finish_streamed(streamed));
        }
        let raw = core::mem::take(&mut self.raw);
        let file_size = raw.len() as u64;
        if raw.starts_with(synthetic::MAGIC) {
            return self.finish_synthetic(raw);
        }
        let (data, detection, compression) = {
            let input = pgolens::open(&raw).map_err(failure)?;
            let detection = input.detect().map_err(failure)?;
            let compression = input.compression();
            match input.data {
                Cow::Owned(inflated) => (Some(inflated), detection, compression),
                Cow::Borrowed(_) => (None, detection, compression),
            }
        };
        // A compressed file's errors name offsets of its decompressed content, as the CLI's do.
        let locate = |e: pgolens::Error| located(compression, e);
        // The compressed bytes are dropped here when the file was gzip.
        let data = Rc::new(data.unwrap_or(raw));
        // A binary sample profile's dump decodes it: its profile comes from that pass.
        let (mut root, sample_profile) = pgolens::dump_with_sample_profile(&data, &detection).map_err(locate)?;
        expand(&data, &detection, compression, &mut root)?;

        // A profile whose records cannot be decoded (a correlated raw profile
        // without its binary) still has its dump.
        let views = match detection.format {
            Format::InstrProfRaw | Format::InstrProfIndexed => Some(Views::instrprof(&data, None)),
            _ => None,
        };
        let memprof = match (&views, detection.format) {
            (Some(Ok(v)), _) => Sites::indexed(&v.profile),
            (_, Format::MemProfRaw) => instrprof::decode_memprof::decode_raw(&data).ok().map(|p| Sites::raw(&p)),
            _ => None,
        }
        .map(|sites| MemProfView { sites, sorted: None });
        let (stacks, addresses, stacks_error) = match stacks_of(&data, &detection, &[], progress) {
            Some(Ok(PerfStacks { profile, addresses })) => {
                let mut stacks = StacksView::new(profile);
                stacks.stack_copies = addresses.unwinds();
                (Some(stacks), Some(addresses), None)
            }
            Some(Err(e)) => (None, None, Some(locate(e))),
            None => (None, None, None),
        };
        let (views, views_error) = match views {
            Some(Ok(v)) => (Some(v), None),
            Some(Err(e)) => (None, Some(locate(e))),
            None => (None, stacks_error),
        };
        let (bolt, bolt_error) = match detection.format {
            Format::BoltFdata | Format::BoltYaml => {
                let view =
                    if detection.format == Format::BoltFdata { BoltView::fdata(&data) } else { BoltView::yaml(&data) };
                match view {
                    Ok(v) => (Some(v), None),
                    Err(e) => (None, Some(locate(e))),
                }
            }
            _ => (None, None),
        };
        let (bat, bat_error) = match detection.format {
            Format::ElfWithBat => match BatView::new(&data) {
                Ok(v) => (v, None),
                Err(e) => (None, Some(locate(e))),
            },
            _ => (None, None),
        };
        let (sample, sample_error) = if is_sample(detection.format) {
            match sample_profile.map_or_else(|| pgolens::detect::decode_sample_profile(&data), Ok) {
                Ok(profile) => (Some(SampleView::new(profile)), None),
                Err(e) => (None, Some(locate(e))),
            }
        } else {
            (None, None)
        };
        let views_error = views_error.or(bolt_error).or(bat_error).or(sample_error);
        let (mut offered, mut open_on) = views_of(views.is_some(), memprof.is_some(), stacks.as_ref(), bolt.as_ref());
        if bat.is_some() {
            offered.insert(1, View::Bat);
            open_on = View::Bat;
        }
        if let Some(sample) = &sample {
            offered = sample_views_of(sample.has_symbols());
            open_on = View::SampleFunctions;
        }
        let branch_profile = branch_profile(&data, detection.format);
        let summary = FileSummary {
            name: self.name.clone(),
            format: detection.format.id().to_string(),
            detection: detection.to_string(),
            version: detection.version,
            size: data.len() as u64,
            file_size,
            gzip: detection.gzip,
            views: offered,
            open_on,
            views_error,
            stacks: stacks.as_ref().map(StacksView::info).or_else(|| sample.as_ref().map(SampleView::info)),
            branch_profile,
            remark: bolt.as_ref().and_then(BoltView::remark),
        };
        let opened = Opened { summary, root: node_info(&root), children: children(&root) };
        self.decoded = Some(Decoded {
            data,
            unread: false,
            dsos: None,
            file_size,
            compression,
            binary_index: OnceCell::new(),
            detection,
            root,
            views,
            memprof,
            stacks,
            sample,
            bolt,
            bat,
            branch_profile,
            symbols: Vec::new(),
            addresses,
            unsymbolized: None,
        });
        Ok(opened)
    }

    /// A synthetic stack profile (see [`synthetic`]): its views, and a dump of one node.
    fn finish_synthetic(&mut self, data: Vec<u8>) -> Result<Opened, Failure> {
        let stacks = StacksView::new(synthetic::parse(&data).map_err(fail)?);
        let size = data.len() as u64;
        let root = Node::new("pgolens-stacks (synthetic call stacks)", 0, size);
        let (views, open_on) = views_of(false, false, Some(&stacks), None);
        let summary = FileSummary {
            name: self.name.clone(),
            format: String::from("pgolens-stacks"),
            detection: String::from("pgolens-stacks"),
            version: None,
            size,
            file_size: size,
            gzip: false,
            views,
            open_on,
            views_error: None,
            stacks: Some(stacks.info()),
            branch_profile: false,
            remark: None,
        };
        let opened = Opened { summary, root: node_info(&root), children: Vec::new() };
        // The detection is never used: the root has no deferred children to expand.
        let detection = Detection::new(Format::SampleText);
        self.decoded = Some(Decoded {
            data: Rc::new(data),
            unread: false,
            dsos: None,
            file_size: size,
            compression: None,
            binary_index: OnceCell::new(),
            detection,
            root,
            views: None,
            memprof: None,
            stacks: Some(stacks),
            sample: None,
            bolt: None,
            bat: None,
            branch_profile: false,
            symbols: Vec::new(),
            addresses: None,
            unsymbolized: None,
        });
        Ok(opened)
    }

    /// Adds a binary (ELF) or kallsyms session to those this perf.data's frames are
    /// named from; [`Session::symbolize`] then rebuilds the stacks. The bytes are
    /// shared, not copied.
    pub fn symbolize_add(&mut self, other: &Session) -> Result<(), Failure> {
        let file = other.decoded.as_ref().ok_or_else(not_decoded)?;
        let kallsyms = file.detection.format == Format::Kallsyms;
        if !kallsyms && !matches!(file.detection.format, Format::Elf | Format::ElfWithBat) {
            return Err(fail(alloc::format!("{} is neither an ELF binary nor a kallsyms file", other.name)));
        }
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        if !decoded.symbols.iter().any(|s| s.name == other.name && Rc::ptr_eq(&s.data, &file.data)) {
            decoded.symbols.push(SymbolFile { name: other.name.clone(), data: Rc::clone(&file.data), kallsyms });
        }
        Ok(())
    }

    /// [`Session::symbolize_add`] for a file that is no document: one read from a
    /// dropped folder (`name`: its path in the folder), its bytes shared.
    pub fn symbolize_add_file(&mut self, name: &str, data: Rc<Vec<u8>>, kallsyms: bool) -> Result<(), Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        if !decoded.symbols.iter().any(|s| s.name == name && Rc::ptr_eq(&s.data, &data)) {
            decoded.symbols.push(SymbolFile { name: name.to_string(), data, kallsyms });
        }
        Ok(())
    }

    /// The files this perf.data's frames are named from (see [`Session::symbolize_add`]).
    pub fn symbol_files(&self) -> Vec<crate::symbols::GivenFile<'_>> {
        self.decoded.as_ref().map_or_else(Vec::new, |d| {
            d.symbols
                .iter()
                .map(|f| crate::symbols::GivenFile { name: &f.name, data: &f.data, kallsyms: f.kallsyms })
                .collect()
        })
    }

    /// The file read as an x86-64 binary (perf2bolt's view of it): parsed once, then
    /// read again with what that parse found. `None` before it is decoded.
    pub fn binary(&self) -> Option<Result<Binary<'_>, pgolens::Error>> {
        let decoded = self.decoded.as_ref()?;
        let index = decoded.binary_index.get_or_init(|| Binary::parse(&decoded.data).map(|b| b.index()));
        Some(index.clone().and_then(|index| Binary::with_index(&decoded.data, index)))
    }

    /// Whether the file is a perf.data (file or pipe mode) with call stacks.
    pub fn is_recording(&self) -> bool {
        self.decoded.as_ref().is_some_and(|d| {
            matches!(d.detection.format, Format::PerfData | Format::PerfDataPipe) && d.stacks.is_some()
        })
    }

    /// The DSOs of a recording, with their samples: counted as it streamed in, or
    /// found now in its bytes.
    pub fn recording_dsos(&self) -> Result<Vec<pgolens::formats::perf::dsos::DsoUse>, Failure> {
        let decoded = self.decoded.as_ref().filter(|_| self.is_recording());
        let decoded = decoded.ok_or_else(|| fail("only a perf.data with call stacks has DSOs"))?;
        match &decoded.dsos {
            Some(dsos) => Ok(dsos.clone()),
            None => crate::symbols::recording_dsos(&decoded.data),
        }
    }

    /// Rebuilds the call stacks with the files given to [`Session::symbolize_add`]:
    /// the new stacks, and the names of the files used.
    pub fn symbolize(&mut self) -> Result<(StacksInfo, Vec<String>), Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let no_stacks = || fail("this file has no call stacks");
        let profile = match &decoded.addresses {
            // Stack copies are unwound with the binaries' call-frame information:
            // the records are read again, unwound with them.
            Some(addresses) if addresses.unwinds() => {
                if decoded.unread {
                    return Err(fail("the recording's bytes were not kept: read it again to unwind its stacks"));
                }
                let stacks = stacks_of(&decoded.data, &decoded.detection, &decoded.symbols, &mut |_, _| {})
                    .ok_or_else(no_stacks)?
                    .map_err(|e| located(decoded.compression, e))?;
                stacks.symbolize(&symbolizer(&decoded.symbols))
            }
            // The recording was read once: its frames of addresses are named.
            Some(addresses) => {
                let unsymbolized = match decoded.unsymbolized.take() {
                    Some(profile) => profile,
                    None => decoded.stacks.take().ok_or_else(no_stacks)?.profile,
                };
                let named = addresses.symbolize(&unsymbolized, &symbolizer(&decoded.symbols));
                decoded.unsymbolized = Some(unsymbolized);
                named
            }
            None => return Err(no_stacks()),
        };
        let mut stacks = StacksView::new(profile);
        stacks.stack_copies = decoded.addresses.as_ref().is_some_and(|a| a.unwinds());
        let info = stacks.info();
        decoded.stacks = Some(stacks);
        Ok((info, decoded.symbols.iter().map(|f| f.name.clone()).collect()))
    }

    /// The call stacks of the file, for formats that have them.
    pub fn stack_profile(&self) -> Option<&StackProfile> {
        self.decoded.as_ref()?.stacks.as_ref().map(|s| &s.profile)
    }

    /// The call stacks, a sample profile's built on the first call.
    fn stacks(&mut self) -> Result<&mut StacksView, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        if decoded.stacks.is_none() {
            if let Some(sample) = decoded.sample.as_mut() {
                decoded.stacks = Some(StacksView::new(sample.stacks()));
            }
        }
        decoded.stacks.as_mut().ok_or_else(|| fail("this file has no call stacks"))
    }

    /// The stacks and the sample profile's function `row`'s inline tree.
    fn rooted(&mut self, row: u32) -> Result<(&mut StacksView, pgolens::model::stacks::CallTree), Failure> {
        self.stacks()?;
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let sample = decoded.sample.as_ref().ok_or_else(|| fail("only a sample profile's functions are roots"))?;
        let stacks = decoded.stacks.as_mut().ok_or_else(|| fail("this file has no call stacks"))?;
        let tree = sample.inline_tree(row, &stacks.profile)?;
        Ok((stacks, tree))
    }

    /// Lays out the flame graph (`inverted`: the icicle) of `samples`; with a root,
    /// that function's inline tree (never inverted).
    pub fn flame(&mut self, samples: &SampleFilter, inverted: bool, order: Order) -> Result<FlameLayout, Failure> {
        if let Some(row) = samples.root {
            let (stacks, tree) = self.rooted(row)?;
            return Ok(stacks.lay_rooted(tree, order));
        }
        self.stacks()?.flame(samples, inverted, order).map_err(fail)
    }

    /// The call tree (`inverted`: bottom-up) under `samples`, siblings heaviest first.
    pub fn call_tree(&mut self, samples: &SampleFilter, inverted: bool) -> Result<CallTreeNodes, Failure> {
        let tree = match samples.root {
            Some(row) => self.rooted(row)?.1,
            None => self.stacks()?.tree(samples, inverted).map_err(fail)?,
        };
        Ok(crate::stacks::call_tree_nodes(&tree.heaviest_first()))
    }

    /// The time-ordered stack chart of `samples`, `columns` wide.
    pub fn stack_chart(&mut self, samples: &SampleFilter, columns: u32) -> Result<StackChartBoxes, Failure> {
        self.stacks()?.stack_chart(samples, columns).map_err(fail)
    }

    /// Lays out the callers and the callees of `frame`.
    pub fn sandwich(&mut self, samples: &SampleFilter, frame: u32) -> Result<(FlameLayout, FlameLayout), Failure> {
        self.stacks()?.sandwich(samples, frame).map_err(fail)
    }

    /// The names of the frames on the stack of rectangle `rect` of layout `slot`
    /// (see [`crate::stacks`]), from the root.
    pub fn flame_stack(&mut self, slot: usize, rect: u32) -> Result<Vec<String>, Failure> {
        self.stacks()?.stack_of(slot, rect).map_err(fail)
    }

    /// Every frame's name, dso and kind.
    pub fn frame_names(&mut self) -> Result<FrameNames, Failure> {
        Ok(self.stacks()?.names())
    }

    /// The frames matching `pattern` and the weight of the stacks holding one.
    pub fn search(&mut self, samples: &SampleFilter, pattern: &str) -> Result<Found, Failure> {
        if let Some(row) = samples.root {
            let (stacks, tree) = self.rooted(row)?;
            return stacks.search_in(&tree, samples, pattern).map_err(fail);
        }
        self.stacks()?.search(samples, pattern).map_err(fail)
    }

    /// The weight of `event`'s samples in `bins` buckets over their whole time.
    pub fn timeline(&mut self, event: u32, bins: u32) -> Result<Timeline, Failure> {
        Ok(self.stacks()?.timeline(event, bins))
    }

    /// Decodes a correlated raw profile that could not be decoded alone with its
    /// binary, the decoded file of `binary` (another session: its bytes are read in
    /// place, not copied). Returns the views it now offers.
    pub fn correlate(&mut self, binary_id: DocId, binary: &Session) -> Result<Vec<View>, Failure> {
        let elf = binary.decoded.as_ref().ok_or_else(not_decoded)?;
        if !matches!(elf.detection.format, Format::Elf | Format::ElfWithBat) {
            return Err(fail(alloc::format!("{} is not an ELF binary", binary.name)));
        }
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        // Branches become a BOLT profile with the binary, as perf2bolt aggregates them.
        if decoded.bolt.is_none() && decoded.branch_profile {
            let parsed = binary.binary().ok_or_else(not_decoded)?.map_err(failure)?;
            let profile = match decoded.detection.format {
                Format::BoltPreagg => perf2bolt::aggregate_preagg(&decoded.data, &parsed, false),
                _ => PerfData::parse(&decoded.data)
                    .and_then(|perf| perf2bolt::aggregate(&perf, &parsed, binary.name.as_bytes())),
            }
            .map_err(|e| fail(alloc::format!("{} with {}: {}", self.name, binary.name, e)))?;
            let fdata = profile.to_fdata_model();
            // A BOLTed binary's profile is translated to the input binary (BAT): its
            // code is not this binary's, so no graphs or instructions from it.
            let translated = fdata.bolted_collection;
            let mut bolt = BoltView::from_fdata(fdata);
            bolt.binary = (!translated).then_some(binary_id);
            bolt.translated_with = translated.then_some(binary_id);
            // With BAT, perf2bolt -w's YAML too (written now: it needs the binary).
            if translated {
                bolt.translated_yaml = perf2bolt::bat_yaml::to_yaml(&profile, &elf.data, binary.name.as_bytes())
                    .ok()
                    .map(|y| pgolens::formats::bolt::yaml::write(&y, None));
            }
            decoded.bolt = Some(bolt);
            let instrprof = decoded.views.is_some();
            return Ok(views_of(instrprof, decoded.memprof.is_some(), decoded.stacks.as_ref(), decoded.bolt.as_ref()).0);
        }
        // A BOLT profile reads its code from the binary: graphs for fdata, instructions for all.
        if let Some(bolt) = decoded.bolt.as_mut() {
            let parsed = binary.binary().ok_or_else(not_decoded)?.map_err(failure);
            // Written by llvm-bolt (`.note.bolt_info`): an optimized binary, not an input.
            let bolted = pgolens::formats::bolt::bat::find_info(&elf.data).ok().flatten().is_some();
            bolt.matches(parsed, bolted).map_err(|e| fail(alloc::format!("{}: {}", binary.name, e.message)))?;
            bolt.binary = Some(binary_id);
            // An fdata perf2bolt translated through this binary's BAT counts its blocks
            // (with branches: basic samples are not counted per block); the input
            // binary (no BAT) gives the code and keeps the translation.
            let translated = bolt.fdata_profile().is_some_and(|f| f.bolted_collection && f.no_lbr.is_none());
            bolt.translated_with = match elf.bat {
                Some(_) => translated.then_some(binary_id),
                None => bolt.translated_with.filter(|_| translated),
            };
            return Ok(views_of(false, false, None, Some(bolt)).0);
        }
        if decoded.detection.format != Format::InstrProfRaw || decoded.views.is_some() {
            return Err(fail("only a correlated raw profile is decoded with a binary"));
        }
        decoded.views =
            Some(Views::instrprof(&decoded.data, Some(&elf.data)).map_err(|e| located(decoded.compression, e))?);
        Ok(views_of(true, decoded.memprof.is_some(), None, None).0)
    }

    fn sample(&mut self) -> Result<&mut SampleView, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.sample.as_mut().ok_or_else(|| fail("this file is not a sample profile"))
    }

    /// One function of a sample profile in full, by its table row id.
    pub fn sample_function(&mut self, row: u32) -> Result<SampleFnDetail, Failure> {
        self.sample()?.function(row)
    }

    /// The sample profile written out (see [`SampleView::export`]).
    pub fn export_sample(&mut self, to: SampleExport) -> Result<(String, Vec<u8>), Failure> {
        let name = self.name.clone();
        Ok(self.sample()?.export(&name, to))
    }

    fn views(&mut self) -> Result<&mut Views, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.views.as_mut().ok_or_else(|| fail("this file has no function table"))
    }

    /// Rows `start..start + count` of one of the document's tables under `query`.
    pub fn table(&mut self, query: &TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        match query.table {
            TableId::Functions => self.views()?.table(tables::resolved(query), start, count),
            TableId::StackFunctions => self.stacks()?.table(query, start, count).map_err(fail),
            TableId::MemProf => self.memprof_table(tables::resolved(query), start, count),
            TableId::SampleFunctions => self.sample()?.table(tables::resolved(query), start, count),
            TableId::SampleSymbols => self.sample()?.symbols_table(tables::resolved(query), start, count),
            TableId::BatFunctions => {
                let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
                decoded.bat.as_mut().ok_or_else(|| fail("this file has no BAT"))?.table(
                    tables::resolved(query),
                    start,
                    count,
                )
            }
            TableId::BoltFunctions | TableId::BoltBranches | TableId::BoltMemory | TableId::BoltSamples => {
                let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
                let bolt = decoded.bolt.as_mut().ok_or_else(|| fail("this file has no BOLT profile"))?;
                match query.table {
                    TableId::BoltBranches => {
                        bolt.record_table(Records::Branches, tables::resolved(query), start, count)
                    }
                    TableId::BoltMemory => bolt.record_table(Records::Memory, tables::resolved(query), start, count),
                    TableId::BoltSamples => bolt.record_table(Records::Samples, tables::resolved(query), start, count),
                    _ => bolt.table(tables::resolved(query), start, count),
                }
            }
        }
    }

    /// One function of a BOLT profile as a laid-out control-flow graph, its code
    /// read from `binary` (the session of the ELF attached with [`Session::correlate`]);
    /// without it, a profile translated through the BAT of `bolted` (the BOLTed
    /// binary's session, see [`Session::translated_profile`]) has BAT's blocks.
    pub fn bolt_cfg(
        &mut self,
        function: Option<u32>,
        binary: Option<&Session>,
        bolted: Option<&Session>,
    ) -> Result<CfgGraph, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let elf = binary.and_then(|b| Some((b.name.as_str(), b.binary()?)));
        let bat = bolted.and_then(|b| Some((b.name.as_str(), b.decoded.as_ref()?.bat.as_ref()?)));
        decoded.bolt.as_mut().ok_or_else(|| fail("this file has no BOLT profile"))?.cfg(function, elf, bat)
    }

    /// The BOLT profile as a file to save (see [`BoltView::export`]).
    pub fn export_bolt(&self, yaml: bool) -> Result<(String, Vec<u8>), Failure> {
        let decoded = self.decoded.as_ref().ok_or_else(not_decoded)?;
        let bolt = decoded.bolt.as_ref().ok_or_else(|| fail("this file has no BOLT profile"))?;
        // `x.fdata` re-written stays `x.fdata`; a recording becomes `x.perf.data.fdata`.
        let stem = self.name.strip_suffix(".fdata").or_else(|| self.name.strip_suffix(".yaml")).unwrap_or(&self.name);
        bolt.export(stem, yaml)
    }

    /// One function of a BOLTed binary's BAT, with its translation entries, its
    /// blocks counted by `profile` (see [`Session::translated_profile`]).
    pub fn bat_function(&self, row: u32, profile: Option<&Session>) -> Result<BatDetail, Failure> {
        let decoded = self.decoded.as_ref().ok_or_else(not_decoded)?;
        let counts = profile.and_then(|p| Some((p.name.as_str(), p.decoded.as_ref()?.bolt.as_ref()?.fdata_profile()?)));
        decoded.bat.as_ref().ok_or_else(|| fail("this file has no BAT"))?.function(row, counts)
    }

    /// Whether this file's BOLT profile was translated to the input binary through
    /// the BAT of the BOLTed binary `binary` (the document it was correlated with).
    pub fn translated_profile(&self, binary: DocId) -> bool {
        self.decoded.as_ref().and_then(|d| d.bolt.as_ref()).is_some_and(|b| b.translated_with == Some(binary))
    }

    /// The ELF document a BOLT profile reads its code from.
    pub fn bolt_binary(&self) -> Option<DocId> {
        self.decoded.as_ref()?.bolt.as_ref()?.binary
    }

    /// The BOLTed binary whose BAT translated this file's BOLT profile.
    pub fn bolt_translated_with(&self) -> Option<DocId> {
        self.decoded.as_ref()?.bolt.as_ref()?.translated_with
    }

    /// The profile summary and, for context-sensitive profiles, the CS records' one.
    pub fn summary(&mut self) -> Result<(ProfileSummary, Option<ProfileSummary>), Failure> {
        if let Some(sample) = self.decoded.as_mut().and_then(|d| d.sample.as_mut()) {
            return Ok((profile_summary(sample.summary()), None));
        }
        let views = self.views()?;
        let profile = &views.profile;
        let (summary, cs_summary) = views.summaries.get_or_insert_with(|| {
            let cs = profile.is_context_sensitive().then(|| adapter::summary(profile, true));
            (adapter::summary(profile, false), cs)
        });
        Ok((profile_summary(summary), cs_summary.as_ref().map(profile_summary)))
    }

    /// One function in full, by its table row id.
    pub fn function(&mut self, id: u32) -> Result<FnDetail, Failure> {
        let views = self.views()?;
        let names = views.names.get_or_insert_with(|| Names::new(&views.profile));
        let detail = adapter::function_detail(&views.profile, names, id)
            .ok_or_else(|| fail(alloc::format!("no function {id}")))?;
        Ok(FnDetail {
            id,
            name: String::from_utf8_lossy(&detail.name).into_owned(),
            demangled: detail.demangled.clone(),
            hash: detail.hash,
            counters: detail.counters.clone(),
            bitmap: detail.bitmap.clone(),
            sites: detail
                .sites
                .iter()
                .map(|site| FnSite {
                    kind: KIND_NAMES.get(site.kind).copied().unwrap_or("value").to_string(),
                    index: u32::try_from(site.index).unwrap_or(u32::MAX),
                    targets: site
                        .targets
                        .iter()
                        .map(|t| FnTarget {
                            value: t.value,
                            name: t.name.as_ref().map(|n| String::from_utf8_lossy(n).into_owned()),
                            demangled: t.name.as_ref().and_then(|n| pgolens::model::demangle::demangle(n)),
                            count: t.count,
                        })
                        .collect(),
                })
                .collect(),
            traces: detail
                .traces
                .iter()
                .map(|t| FnTrace {
                    trace: u32::try_from(t.trace).unwrap_or(u32::MAX),
                    weight: t.weight,
                    position: t.position as u64,
                    length: t.length as u64,
                })
                .collect(),
        })
    }

    /// The size of the file as read (before any gunzip).
    pub fn file_size(&self) -> u64 {
        self.decoded.as_ref().map_or(self.raw.len() as u64, |d| d.file_size)
    }
}

fn profile_summary(s: &Summary) -> ProfileSummary {
    ProfileSummary {
        functions: s.num_functions,
        counts: s.num_counts,
        total: s.total_count,
        max_count: s.max_count,
        max_function: s.max_function_count,
        max_internal: s.max_internal_count,
        detailed: s
            .detailed
            .iter()
            .map(|e| CutoffEntry { cutoff: e.cutoff, min_count: e.min_count, num_counts: e.num_counts })
            .collect(),
    }
}

fn too_large(size: u64) -> Failure {
    fail(alloc::format!("the file ({size} bytes) does not fit in the browser's memory for WebAssembly"))
}

fn not_decoded() -> Failure {
    fail("the file is not decoded yet")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic)]
mod bolt_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic, clippy::arithmetic_side_effects)]
mod sample_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic, clippy::arithmetic_side_effects)]
mod symbols_tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, clippy::panic, clippy::arithmetic_side_effects)]
mod stream_tests;
