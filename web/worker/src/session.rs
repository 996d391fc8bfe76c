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
//! Tables are paged ([`crate::tables`]): the page asks for the rows it shows, under a
//! sort order and a name filter; the last sorted and filtered orders (row-id arrays)
//! are kept, so scrolling costs one page and typing in the filter one pass over the
//! names.

use alloc::borrow::Cow;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pgolens::formats::instrprof::{self, model::Profile};
use pgolens::formats::perf::attr::sample_type;
use pgolens::formats::perf::perf2bolt::{self, binary::Binary};
use pgolens::formats::perf::PerfData;
use pgolens::model::detail::KIND_NAMES;
use pgolens::model::fdata_records::Records;
use pgolens::model::instrprof::{self as adapter, Names};
use pgolens::model::memprof::{build_id_hex, Column as MemColumn, Sites};
use pgolens::model::stacks::StackProfile;
use pgolens::model::{Column, FunctionTable, Summary};
use pgolens::symbolize::Symbolizer;
use pgolens::{Detection, Format, Node};
use pgolens_protocol::{
    Cell, CfgGraph, CutoffEntry, DocId, FileSummary, FlameLayout, FnDetail, FnSite, FnTarget, FnTrace, Found,
    FrameNames, Location, MemFrame, MemSite, NodeInfo, Opened, ProfileSummary, Row, SampleFilter, StacksInfo, TableId,
    TablePage, TableQuery, Timeline, View,
};

pub use pgolens_protocol::Failure;

use crate::bolt::BoltView;
use crate::stacks::StacksView;
use crate::{synthetic, tables};

/// The most bytes one `bytes` call returns: the hex pane asks for a few KiB around
/// what it shows, so this only guards against a runaway request.
pub const MAX_WINDOW: u64 = 1 << 20;

/// A decoder's error as the page gets it: its message (with where) and its location.
pub fn failure(e: pgolens::Error) -> Failure {
    let location = match e.location {
        pgolens::error::Location::Offset(offset) => Location::Offset(offset),
        pgolens::error::Location::Line { line, column } => Location::Line { line, column },
    };
    Failure { message: e.to_string(), location: Some(location) }
}

pub fn fail(message: impl Into<String>) -> Failure {
    Failure::new(message)
}

pub struct Session {
    name: String,
    /// The file as read so far; moved into `decoded` by `finish`.
    raw: Vec<u8>,
    decoded: Option<Decoded>,
}

struct Decoded {
    /// The content the decoders see (gunzipped when the file was gzip). Shared, not
    /// copied, with the perf.data sessions a binary symbolizes.
    data: Rc<Vec<u8>>,
    file_size: u64,
    detection: Detection,
    root: Node,
    views: Option<Views>,
    /// The allocation sites of a MemProf profile (raw, or an indexed one's section).
    memprof: Option<MemProfView>,
    /// The call stacks of a format that has them.
    stacks: Option<StacksView>,
    /// The function table of a BOLT profile.
    bolt: Option<BoltView>,
    /// The binaries and kallsyms files this perf.data is symbolized with.
    symbols: Vec<SymbolFile>,
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
) -> Option<Result<StackProfile, Failure>> {
    if !matches!(detection.format, Format::PerfData | Format::PerfDataPipe) {
        return None;
    }
    Some(perf_stacks(data, symbols, progress).map_err(failure))
}

fn perf_stacks(
    data: &[u8],
    symbols: &[SymbolFile],
    progress: &mut dyn FnMut(u64, u64),
) -> pgolens::Result<StackProfile> {
    let perf = PerfData::parse_unindexed(data)?;
    let mut symbolizer = Symbolizer::new();
    for file in symbols {
        // A binary that does not parse names nothing; its own session shows why.
        if file.kallsyms {
            let _ = symbolizer.set_kallsyms(&file.data);
        } else {
            let _ = symbolizer.add_binary(&file.name, &file.data);
        }
    }
    pgolens::model::perf::stack_profile(&perf, &symbolizer, |done, total| progress(done as u64, total as u64))
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
    sorted: Option<(Column, bool, Vec<u32>)>,
    filtered: Option<(Column, bool, String, Vec<u32>)>,
}

impl Views {
    /// `binary`: the instrumented ELF of a correlated raw profile.
    fn instrprof(data: &[u8], binary: Option<&[u8]>) -> Result<Views, Failure> {
        let profile = instrprof::decode(data, binary).map_err(failure)?;
        let table = adapter::function_table(&profile);
        Ok(Views { profile, table, summaries: None, names: None, sorted: None, filtered: None })
    }

    /// The row ids under `column`/`descending` whose names contain `filter`.
    fn order(&mut self, column: Column, descending: bool, filter: &str) -> &[u32] {
        let fresh = |f: &Option<(Column, bool, String, Vec<u32>)>| matches!(f, Some((c, d, text, _)) if *c == column && *d == descending && text == filter);
        if !fresh(&self.filtered) {
            if !matches!(&self.sorted, Some((c, d, _)) if *c == column && *d == descending) {
                self.sorted = Some((column, descending, self.table.sorted(column, descending)));
            }
            let sorted = self.sorted.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
            let order = self.table.filter(sorted, filter);
            self.filtered = Some((column, descending, String::from(filter), order));
        }
        self.filtered.as_ref().map(|(_, _, _, o)| o.as_slice()).unwrap_or_default()
    }

    /// A page of the function table.
    fn table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column =
            Column::from_id(&query.column).ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let total = self.table.len();
        let order = self.order(column, query.descending, &query.filter).to_vec();
        let table = &mut self.table;
        Ok(tables::page(query, tables::function_columns(), total, None, &order, start, count, |&id| {
            table.row(id).map(|row| tables::function_row(&row))
        }))
    }
}

/// The views a decoded document offers, in tab order, and the one it opens on.
fn views_of(instrprof: bool, memprof: bool, stacks: bool, bolt: Option<&BoltView>) -> (Vec<View>, View) {
    let mut views = alloc::vec![View::Dump];
    if stacks {
        views.extend([View::Flame, View::Functions]);
    }
    if let Some(bolt) = bolt {
        views.push(View::BoltFunctions);
        if bolt.has_graphs() {
            views.push(View::BoltCfg);
        }
        views.extend(bolt.records().into_iter().map(|r| match r {
            Records::Branches => View::BoltBranches,
            Records::Memory => View::BoltMemory,
        }));
    }
    if instrprof {
        views.extend([View::Functions, View::Summary]);
    }
    if memprof {
        views.push(View::MemProf);
    }
    // The most useful view first: the flame graph of a recording, the functions of a profile.
    let open_on = if stacks {
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
    /// A session that will receive about `expected` bytes; reserves them up front so
    /// appending chunks never copies what was already read.
    pub fn new(name: String, expected: u64) -> Result<Session, Failure> {
        let mut raw = Vec::new();
        let expected = usize::try_from(expected).map_err(|_| too_large(expected))?;
        raw.try_reserve_exact(expected).map_err(|_| too_large(expected as u64))?;
        Ok(Session { name, raw, decoded: None })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Grows the file by `len` bytes and returns them for the caller to fill.
    pub fn slot(&mut self, len: usize) -> Result<&mut [u8], Failure> {
        if self.decoded.is_some() {
            return Err(fail("the file was already decoded"));
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
        let raw = core::mem::take(&mut self.raw);
        let file_size = raw.len() as u64;
        if raw.starts_with(synthetic::MAGIC) {
            return self.finish_synthetic(raw);
        }
        let (data, detection) = {
            let input = pgolens::open(&raw).map_err(failure)?;
            let detection = input.detect().map_err(failure)?;
            match input.data {
                Cow::Owned(inflated) => (Some(inflated), detection),
                Cow::Borrowed(_) => (None, detection),
            }
        };
        // The compressed bytes are dropped here when the file was gzip.
        let data = Rc::new(data.unwrap_or(raw));
        let mut root = pgolens::dump(&data, &detection).map_err(failure)?;
        expand(&data, &detection, &mut root)?;

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
        let (stacks, stacks_error) = match stacks_of(&data, &detection, &[], progress) {
            Some(Ok(profile)) => (Some(StacksView::new(profile)), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        let (views, views_error) = match views {
            Some(Ok(v)) => (Some(v), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, stacks_error),
        };
        let (bolt, bolt_error) = match detection.format {
            Format::BoltFdata | Format::BoltYaml => {
                let view =
                    if detection.format == Format::BoltFdata { BoltView::fdata(&data) } else { BoltView::yaml(&data) };
                match view {
                    Ok(v) => (Some(v), None),
                    Err(e) => (None, Some(e)),
                }
            }
            _ => (None, None),
        };
        let views_error = views_error.or(bolt_error);
        let (offered, open_on) = views_of(views.is_some(), memprof.is_some(), stacks.is_some(), bolt.as_ref());
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
            stacks: stacks.as_ref().map(StacksView::info),
            branch_profile: branch_profile(&data, detection.format),
        };
        let opened = Opened { summary, root: node_info(&root), children: children(&root) };
        self.decoded =
            Some(Decoded { data, file_size, detection, root, views, memprof, stacks, bolt, symbols: Vec::new() });
        Ok(opened)
    }

    /// A synthetic stack profile (see [`synthetic`]): its views, and a dump of one node.
    fn finish_synthetic(&mut self, data: Vec<u8>) -> Result<Opened, Failure> {
        let stacks = StacksView::new(synthetic::parse(&data).map_err(fail)?);
        let size = data.len() as u64;
        let root = Node::new("pgolens-stacks (synthetic call stacks)", 0, size);
        let (views, open_on) = views_of(false, false, true, None);
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
        };
        let opened = Opened { summary, root: node_info(&root), children: Vec::new() };
        // The detection is never used: the root has no deferred children to expand.
        let detection = Detection::new(Format::SampleText);
        self.decoded = Some(Decoded {
            data: Rc::new(data),
            file_size: size,
            detection,
            root,
            views: None,
            memprof: None,
            stacks: Some(stacks),
            bolt: None,
            symbols: Vec::new(),
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

    /// Rebuilds the call stacks with the files given to [`Session::symbolize_add`]:
    /// the new stacks, and the names of the files used.
    pub fn symbolize(&mut self) -> Result<(StacksInfo, Vec<String>), Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let profile = stacks_of(&decoded.data, &decoded.detection, &decoded.symbols, &mut |_, _| {})
            .ok_or_else(|| fail("this file has no call stacks"))??;
        let stacks = StacksView::new(profile);
        let info = stacks.info();
        decoded.stacks = Some(stacks);
        Ok((info, decoded.symbols.iter().map(|f| f.name.clone()).collect()))
    }

    /// The call stacks of the file, for formats that have them.
    pub fn stack_profile(&self) -> Option<&StackProfile> {
        self.decoded.as_ref()?.stacks.as_ref().map(|s| &s.profile)
    }

    fn stacks(&mut self) -> Result<&mut StacksView, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.stacks.as_mut().ok_or_else(|| fail("this file has no call stacks"))
    }

    /// Lays out the flame graph (`inverted`: the icicle) of `samples`.
    pub fn flame(&mut self, samples: &SampleFilter, inverted: bool) -> Result<FlameLayout, Failure> {
        Ok(self.stacks()?.flame(samples, inverted))
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
        Ok(self.stacks()?.search(samples, pattern))
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
        if decoded.bolt.is_none() && branch_profile(&decoded.data, decoded.detection.format) {
            let parsed = Binary::parse(&elf.data).map_err(failure)?;
            let profile = match decoded.detection.format {
                Format::BoltPreagg => perf2bolt::aggregate_preagg(&decoded.data, &parsed, false),
                _ => PerfData::parse(&decoded.data)
                    .and_then(|perf| perf2bolt::aggregate(&perf, &parsed, binary.name.as_bytes())),
            }
            .map_err(|e| fail(alloc::format!("{} with {}: {}", self.name, binary.name, e)))?;
            let mut bolt = BoltView::from_fdata(profile.to_fdata_model());
            bolt.binary = Some(binary_id);
            decoded.bolt = Some(bolt);
            let instrprof = decoded.views.is_some();
            return Ok(
                views_of(instrprof, decoded.memprof.is_some(), decoded.stacks.is_some(), decoded.bolt.as_ref()).0
            );
        }
        // A BOLT profile reads its code from the binary: graphs for fdata, instructions for all.
        if let Some(bolt) = decoded.bolt.as_mut() {
            bolt.matches(&elf.data).map_err(|e| fail(alloc::format!("{}: {}", binary.name, e.message)))?;
            bolt.binary = Some(binary_id);
            return Ok(views_of(false, false, false, Some(bolt)).0);
        }
        if decoded.detection.format != Format::InstrProfRaw || decoded.views.is_some() {
            return Err(fail("only a correlated raw profile is decoded with a binary"));
        }
        decoded.views = Some(Views::instrprof(&decoded.data, Some(&elf.data))?);
        Ok(views_of(true, decoded.memprof.is_some(), false, None).0)
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
            TableId::BoltFunctions | TableId::BoltBranches | TableId::BoltMemory => {
                let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
                let bolt = decoded.bolt.as_mut().ok_or_else(|| fail("this file has no BOLT profile"))?;
                match query.table {
                    TableId::BoltBranches => {
                        bolt.record_table(Records::Branches, tables::resolved(query), start, count)
                    }
                    TableId::BoltMemory => bolt.record_table(Records::Memory, tables::resolved(query), start, count),
                    _ => bolt.table(tables::resolved(query), start, count),
                }
            }
        }
    }

    /// One function of a BOLT profile as a laid-out control-flow graph, its code
    /// read from `binary` (the session of the ELF attached with [`Session::correlate`]).
    pub fn bolt_cfg(&mut self, function: Option<u32>, binary: Option<&Session>) -> Result<CfgGraph, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let elf = binary.and_then(|b| Some((b.name.as_str(), b.decoded.as_ref()?.data.as_slice())));
        decoded.bolt.as_mut().ok_or_else(|| fail("this file has no BOLT profile"))?.cfg(function, elf)
    }

    /// The ELF document a BOLT profile reads its code from.
    pub fn bolt_binary(&self) -> Option<DocId> {
        self.decoded.as_ref()?.bolt.as_ref()?.binary
    }

    /// The profile summary and, for context-sensitive profiles, the CS records' one.
    pub fn summary(&mut self) -> Result<(ProfileSummary, Option<ProfileSummary>), Failure> {
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

    fn memprof_view(&mut self) -> Result<&mut MemProfView, Failure> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.memprof.as_mut().ok_or_else(|| fail("this file has no MemProf data"))
    }

    /// A page of the MemProf allocation sites: a name column (the record's
    /// function, or a raw profile's leaf return address), then the metrics the
    /// profile has.
    fn memprof_table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column = MemColumn::from_id(&query.column)
            .ok_or_else(|| fail(alloc::format!("no MemProf column {:?}", query.column)))?;
        let view = self.memprof_view()?;
        if !matches!(&view.sorted, Some((c, d, _)) if *c == column && *d == query.descending) {
            view.sorted = Some((column, query.descending, view.sites.sorted(column, query.descending)));
        }
        let sites = &view.sites;
        let order = view.sorted.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
        let has = sites.columns();
        let shown: Vec<MemColumn> = tables::MEMPROF_SHOWN.into_iter().filter(|c| has.contains(c)).collect();
        let columns = tables::memprof_columns(&has, sites.raw);
        Ok(tables::page(query, columns, order.len(), None, order, start, count, |&id| {
            let site = sites.site(id)?;
            let name = match site.function {
                Some(guid) => guid_cell(sites, guid),
                None => {
                    let leaf = site.frames.first().and_then(|f| f.address);
                    Cell::Name {
                        text: leaf.map(|pc| alloc::format!("{pc:#x}")).unwrap_or_default(),
                        raw: None,
                        tag: None,
                    }
                }
            };
            let mut cells = alloc::vec![name];
            if !sites.raw {
                cells.push(site.function.map_or(Cell::Empty, Cell::Hex));
            }
            cells.extend(shown.iter().map(|&c| site.metric(c).map_or(Cell::Empty, Cell::Count)));
            Some(Row { id, cells })
        }))
    }

    /// One allocation site in full, frames leaf first.
    pub fn memprof_site(&mut self, id: u32) -> Result<MemSite, Failure> {
        let sites = &self.memprof_view()?.sites;
        let site = sites.site(id).ok_or_else(|| fail(alloc::format!("no allocation site {id}")))?;
        let (name, demangled) = names_of(sites, site.function);
        let frames = site
            .frames
            .iter()
            .map(|f| match f.address {
                Some(pc) => {
                    let segment = f.segment.and_then(|s| sites.segments.get(s as usize));
                    MemFrame {
                        address: Some(pc),
                        build_id: segment.map(build_id_hex),
                        module_offset: segment.and_then(|seg| pc.checked_sub(seg.offset)),
                        ..MemFrame::default()
                    }
                }
                None => {
                    let (name, demangled) = names_of(sites, f.function);
                    MemFrame {
                        guid: f.function,
                        name,
                        demangled,
                        line: f.line_offset,
                        column: f.column,
                        inline: f.is_inline,
                        ..MemFrame::default()
                    }
                }
            })
            .collect();
        let fields = site
            .info
            .fields
            .iter()
            .map(|(meta, value)| (meta.name().map_or_else(|| alloc::format!("field {}", meta.0), String::from), *value))
            .collect();
        Ok(MemSite { id, guid: site.function, name, demangled, frames, fields, histogram: site.info.histogram.clone() })
    }

    /// The children of the node at `path` (child indices from the root), expanding
    /// it when it is deferred.
    pub fn children(&mut self, path: &[u32]) -> Result<Vec<NodeInfo>, Failure> {
        let Decoded { data, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut node = root;
        for &i in path {
            node = node.children.get_mut(i as usize).ok_or_else(|| fail("no such node in the dump"))?;
        }
        expand(data, detection, node)?;
        Ok(children(node))
    }

    /// The path to the innermost node containing `offset`, expanding deferred nodes on
    /// the way, with the children of every node it passes through (the root's first).
    pub fn path_to(&mut self, offset: u64) -> Result<(Vec<u32>, Vec<Vec<NodeInfo>>), Failure> {
        let Decoded { data, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut path = Vec::new();
        let mut levels = Vec::new();
        let mut node = root;
        loop {
            expand(data, detection, node)?;
            // Children are sorted and disjoint; empty ones contain no offset.
            let i = node.children.partition_point(|c| c.end <= offset);
            let inside = node.children.get(i).is_some_and(|c| c.start <= offset && offset < c.end);
            if !inside {
                break;
            }
            path.push(u32::try_from(i).unwrap_or(u32::MAX));
            levels.push(children(node));
            match node.children.get_mut(i) {
                Some(child) => node = child,
                None => break,
            }
        }
        Ok((path, levels))
    }

    /// The decoded bytes in `start..end`, clipped to the content and to [`MAX_WINDOW`].
    pub fn bytes(&self, start: u64, end: u64) -> Vec<u8> {
        let Some(decoded) = &self.decoded else { return Vec::new() };
        let len = decoded.data.len() as u64;
        let start = start.min(len);
        let end = end.clamp(start, len).min(start.saturating_add(MAX_WINDOW));
        match (usize::try_from(start), usize::try_from(end)) {
            (Ok(s), Ok(e)) => decoded.data.get(s..e).map(<[u8]>::to_vec).unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The size of the file as read (before any gunzip).
    pub fn file_size(&self) -> u64 {
        self.decoded.as_ref().map_or(self.raw.len() as u64, |d| d.file_size)
    }
}

/// Builds the children of a deferred node, tiled like every other level.
fn expand(data: &[u8], detection: &Detection, node: &mut Node) -> Result<(), Failure> {
    if let Some(deferred) = node.deferred {
        let children = pgolens::expand(data, detection, &deferred).map_err(failure)?;
        node.children = children;
        node.tile().map_err(failure)?;
        node.deferred = None;
    }
    Ok(())
}

/// One node without its children.
fn node_info(node: &Node) -> NodeInfo {
    NodeInfo {
        label: node.label.to_string(),
        value: node.value.as_ref().map(ToString::to_string),
        start: node.start,
        end: node.end,
        has_children: !node.children.is_empty() || node.deferred.is_some(),
    }
}

fn children(node: &Node) -> Vec<NodeInfo> {
    node.children.iter().map(node_info).collect()
}

/// A function's raw and demangled names, where the profile names it.
fn names_of(sites: &Sites, guid: Option<u64>) -> (Option<String>, Option<String>) {
    let Some(name) = guid.and_then(|g| sites.name(g)) else { return (None, None) };
    (Some(String::from_utf8_lossy(name).into_owned()), pgolens::model::demangle::demangle(name))
}

/// A MemProf row's function: its demangled name, the raw one on hover, else its GUID.
fn guid_cell(sites: &Sites, guid: u64) -> Cell {
    match names_of(sites, Some(guid)) {
        (Some(raw), demangled) => {
            Cell::Name { text: demangled.unwrap_or_else(|| raw.clone()), raw: Some(raw), tag: None }
        }
        _ => Cell::Name { text: alloc::format!("{guid:#018x}"), raw: None, tag: None },
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
mod tests {
    use super::*;
    use pgolens_protocol::{CfgCall, CfgInsn};

    fn session(name: &str, bytes: &[u8]) -> Session {
        let mut s = Session::new(name.into(), bytes.len() as u64).unwrap();
        // Two chunks, as a stream would deliver them.
        let (a, b) = bytes.split_at(bytes.len() / 2);
        s.slot(a.len()).unwrap().copy_from_slice(a);
        s.slot(b.len()).unwrap().copy_from_slice(b);
        s
    }

    /// A file of the repository's corpus, `tests/corpus/`; a missing one fails the test.
    fn corpus(path: &str) -> Vec<u8> {
        let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus").join(path);
        std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
    }

    fn query(table: TableId, column: &str, descending: bool, filter: &str) -> TableQuery {
        TableQuery { table, column: column.into(), descending, filter: filter.into(), samples: None }
    }

    fn name_of(cell: &Cell) -> &str {
        match cell {
            Cell::Name { text, .. } => text,
            other => panic!("not a name: {other:?}"),
        }
    }

    #[test]
    fn perf_data_has_stacks_named_by_dropped_binaries_and_kallsyms() {
        let (perf, elf) = (corpus("bolt-perf/cprog/cprog.fp.perf.data"), corpus("bolt-perf/cprog/cprog"));
        let mut p = session("cprog.fp.perf.data", &perf);
        let mut steps = Vec::new();
        let opened = p.finish_with(&mut |done, total| steps.push((done, total))).unwrap();
        // Progress over the records, ending with all of them.
        assert!(steps.len() >= 2 && steps.windows(2).all(|w| w[0].0 <= w[1].0), "{steps:?}");
        assert!(steps.last().is_some_and(|&(done, total)| done == total && total > 0), "{steps:?}");
        assert_eq!(opened.summary.views, [View::Dump, View::Flame, View::Functions]);
        // A recording opens on its flame graph.
        assert_eq!(opened.summary.open_on, View::Flame);
        // perf report: "Samples: 469 of event 'cpu-clock'".
        let stacks = opened.summary.stacks.unwrap();
        assert_eq!((stacks.events.as_slice(), stacks.samples), (&[String::from("cpu-clock")][..], 469));
        let names = p.frame_names().unwrap().names;
        assert!(names.iter().any(|n| n == "cprog+0x129d") && !names.iter().any(|n| n == "hot_loop"), "{names:?}");

        let mut e = session("cprog", &elf);
        e.finish().unwrap();
        // cprog.fp.perf.data.script.txt: "ffffffff8158c375 next_uptodate_folio+0x55 ([kernel.kallsyms])".
        let mut k =
            session("kallsyms", b"ffffffff8158c320 T next_uptodate_folio\nffffffff8158c600 T filemap_map_pages\n");
        let kopened = k.finish().unwrap();
        assert_eq!(kopened.summary.format, "kallsyms");
        p.symbolize_add(&e).unwrap();
        p.symbolize_add(&k).unwrap();
        assert!(p.symbolize_add(&p_clone_text()).is_err());
        let (_, with) = p.symbolize().unwrap();
        assert_eq!(with, ["cprog", "kallsyms"]);
        let names = p.frame_names().unwrap().names;
        assert!(names.iter().any(|n| n == "hot_loop") && names.iter().any(|n| n == "next_uptodate_folio"));
        assert!(!names.iter().any(|n| n == "cprog+0x129d"), "{names:?}");
    }

    fn p_clone_text() -> Session {
        let mut t = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
        t.finish().unwrap();
        t
    }

    #[test]
    fn text_file_expands_blocks_lazily_and_finds_offsets() {
        let mut text = String::new();
        for i in 0..10_000 {
            text.push_str(&alloc::format!("1 main {i:x} 1 main {:x} 0 {i}\n", i + 1));
        }
        let mut s = session("big.fdata", text.as_bytes());
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.format, "bolt-fdata");
        assert_eq!(opened.summary.open_on, View::BoltFunctions);
        // The first level's blocks are deferred: they have children not built yet.
        assert!(opened.children.iter().any(|c| c.has_children), "{:?}", opened.children);

        let second_line = text.find('\n').unwrap() as u64 + 1;
        let (path, levels) = s.path_to(second_line).unwrap();
        assert_eq!(&path[..2], &[0, 1]);
        assert_eq!(levels.len(), path.len());
        let kids = s.children(&[0]).unwrap();
        assert!(!kids.is_empty() && !kids[0].label.is_empty(), "{kids:?}");
        assert_eq!(s.bytes(0, 4), b"1 ma");
        assert_eq!(s.bytes(u64::MAX - 1, u64::MAX), b"");
    }

    #[test]
    fn errors_are_messages_with_offsets() {
        let random: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let mut s = session("random.bin", &random);
        let err = s.finish().unwrap_err();
        assert!(err.message.contains("offset"), "{err}");
        assert_eq!(err.location, Some(Location::Offset(0)));
        assert!(s.children(&[]).is_err());
        assert!(s.path_to(0).is_err());
    }

    #[test]
    fn instrprof_files_offer_the_function_table_summary_and_details() {
        let bytes = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
        let mut s = session("irpgo-progA.profdata", &bytes);
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.views, [View::Dump, View::Functions, View::Summary]);
        assert_eq!(opened.summary.open_on, View::Functions);
        let page = s.table(&TableQuery::new(TableId::Functions), 0, 3).unwrap();
        assert_eq!((page.total, page.matching, page.start, page.rows.len()), (67, 67, 0, 3));
        // The default order, resolved: total, largest first.
        assert_eq!((page.query.column.as_str(), page.query.descending), ("total", true));
        let titles: Vec<&str> = page.columns.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles, ["Function", "Hash", "Counters", "Entry", "Max", "Total", "Non-zero"]);
        let filtered = s.table(&query(TableId::Functions, "name", false, "Circle4name"), 0, 100).unwrap();
        assert_eq!(filtered.matching, 1);
        assert_eq!(name_of(&filtered.rows[0].cells[0]), "geo::Circle::name() const");
        let past_end = s.table(&query(TableId::Functions, "hash", false, ""), 1000, 10).unwrap();
        assert_eq!((past_end.start, past_end.rows.len()), (67, 0));
        assert!(s.table(&query(TableId::Functions, "bogus", false, ""), 0, 1).is_err());

        let (summary, cs) = s.summary().unwrap();
        assert_eq!((summary.functions, summary.max_function), (67, 8361));
        assert!(cs.is_none());

        let detail = s.function(0).unwrap();
        assert_eq!(detail.id, 0);
        assert!(!detail.name.is_empty());
        assert!(s.function(67).is_err());
        // A format without a function table says so.
        let mut text = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
        text.finish().unwrap();
        assert!(text.table(&TableQuery::new(TableId::Functions), 0, 1).is_err());
    }

    #[test]
    fn every_table_sorts_by_every_column_it_describes_with_the_cores_ids() {
        let mut s = session("irpgo-progA.profdata", &corpus("llvm/irpgo-progA/irpgo-progA.profdata"));
        s.finish().unwrap();
        let ids: Vec<String> = tables::function_columns().into_iter().map(|c| c.id).collect();
        let core: Vec<&str> = pgolens::model::functions::Column::ALL.iter().map(|c| c.id()).collect();
        assert_eq!(ids, core);
        for id in &ids {
            for descending in [false, true] {
                let page = s.table(&query(TableId::Functions, id, descending, ""), 0, 67).unwrap();
                assert_eq!(page.rows.len(), 67, "{id}");
                assert!(page.rows.iter().all(|r| r.cells.len() == page.columns.len()));
            }
        }
        // Total, descending: the rows' totals do not increase.
        let page = s.table(&query(TableId::Functions, "total", true, ""), 0, 67).unwrap();
        let totals: Vec<u64> = page.rows.iter().map(|r| if let Cell::Count(t) = r.cells[5] { t } else { 0 }).collect();
        assert!(totals.windows(2).all(|w| w[0] >= w[1]), "{totals:?}");

        let mut m = session("memprof-progA.profdata", &corpus("llvm/memprof-progA/memprof-progA.profdata"));
        m.finish().unwrap();
        let page = m.table(&TableQuery::new(TableId::MemProf), 0, 100).unwrap();
        // Name and record GUID first (not sortable), then the core's metrics.
        assert_eq!(page.columns[1].id, tables::MEMPROF_GUID);
        for c in page.columns.iter().skip(2) {
            let core = pgolens::model::memprof::Column::from_id(&c.id).unwrap();
            assert_eq!(core.id(), c.id);
            for descending in [false, true] {
                let sorted = m.table(&query(TableId::MemProf, &c.id, descending, ""), 0, 100).unwrap();
                assert_eq!(sorted.rows.len(), page.rows.len());
            }
        }
        assert!(!page.columns[0].sortable && !page.columns[1].sortable);
        assert!(page.rows.iter().all(|r| matches!(r.cells[1], Cell::Hex(_))));

        let text = "#pgolens-stacks\nevent cycles\ns 0 0 3 main;a;b@libc.so\ns 0 10 1 main;a\n";
        let mut st = session("x.stacks", text.as_bytes());
        st.finish().unwrap();
        for c in tables::stack_columns() {
            for descending in [false, true] {
                let sorted = st.table(&query(TableId::StackFunctions, &c.id, descending, ""), 0, 10).unwrap();
                assert_eq!(sorted.rows.len(), 3, "{}", c.id);
            }
        }
    }

    #[test]
    fn bolt_fdata_opens_on_its_function_table() {
        let mut s = session("cprog.instr.fdata", &corpus("bolt-perf/cprog/cprog.instr.fdata"));
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.open_on, View::BoltFunctions);
        assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltBranches]);
        // Every column the core describes sorts; no binary, so no block counts.
        let ids: Vec<String> = tables::bolt_columns(false).into_iter().map(|c| c.id).collect();
        assert!(!ids.iter().any(|c| c == "blocks"));
        for id in &ids {
            for descending in [false, true] {
                let page = s.table(&query(TableId::BoltFunctions, id, descending, ""), 0, 100).unwrap();
                assert_eq!(page.rows.len() as u64, page.total, "{id}");
                assert!(page.rows.iter().all(|r| r.cells.len() == page.columns.len()));
            }
        }
        // llvm-bolt --print-cfg with this profile: classify runs 13,334,000 times,
        // hot_loop 2,000 (cprog.cfg.txt).
        let page = s.table(&query(TableId::BoltFunctions, "exec", true, ""), 0, 100).unwrap();
        let exec =
            |name: &str| page.rows.iter().find(|r| name_of(&r.cells[0]) == name).map(|r| r.cells[1].clone()).unwrap();
        assert_eq!(exec("classify"), Cell::Count(13_334_000));
        assert_eq!(exec("hot_loop"), Cell::Count(2000));
        let execs: Vec<u64> = page.rows.iter().map(|r| if let Cell::Count(t) = r.cells[1] { t } else { 0 }).collect();
        assert!(execs.windows(2).all(|w| w[0] >= w[1]), "{execs:?}");
        let filtered = s.table(&query(TableId::BoltFunctions, "exec", true, "hot_"), 0, 100).unwrap();
        assert_eq!(filtered.matching, 1);
    }

    #[test]
    fn bolt_yaml_opens_on_its_function_table() {
        let mut s = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.format, "bolt-yaml");
        assert_eq!(opened.summary.open_on, View::BoltFunctions);
        // YAML knows every function's block count: the column is there.
        let page = s.table(&query(TableId::BoltFunctions, "exec", true, ""), 0, 100).unwrap();
        assert!(page.columns.iter().any(|c| c.id == "blocks"));
        let row = |name: &str| page.rows.iter().find(|r| name_of(&r.cells[0]) == name).unwrap().cells.clone();
        // The same executions as --print-cfg with the fdata it was written from; classify has 9 blocks.
        assert_eq!(row("classify")[1], Cell::Count(13_334_000));
        assert_eq!(row("classify")[2], Cell::Count(9));
        assert_eq!(row("hot_loop")[1], Cell::Count(2000));
    }

    #[test]
    fn bolt_yaml_graphs_are_laid_out() {
        let mut s = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltCfg]);
        // No function asked for: the hottest, classify (13,334,000 runs in llvm-bolt's
        // --print-cfg with the fdata this YAML was written from), its 9 blocks.
        let graph = s.bolt_cfg(None, None).unwrap();
        assert_eq!((graph.name.as_str(), graph.exec_count, graph.blocks.len()), ("classify", 13_334_000, 9));
        assert_eq!(graph.blocks[0].exec_count, 13_334_000);
        assert!(graph.blocks[0].entry && graph.blocks[0].lines[0].starts_with("#0"));
        // An instrumentation profile conserves flow.
        assert_eq!((graph.flow.weighted_gap, graph.flow.flagged), (0.0, 0));
        for b in &graph.blocks {
            assert!(b.x >= 0.0 && b.y >= 0.0 && b.x + b.w <= graph.width + 0.5 && b.y + b.h <= graph.height + 0.5);
        }
        for e in &graph.edges {
            assert!(e.points.len() >= 4 && e.points.len() % 2 == 0, "{e:?}");
        }
        // main's calls link to their callees' rows.
        let main = s.table(&query(TableId::BoltFunctions, "exec", true, "main"), 0, 10).unwrap();
        let main_id = main.rows.iter().find(|r| name_of(&r.cells[0]) == "main").unwrap().id;
        let graph = s.bolt_cfg(Some(main_id), None).unwrap();
        let calls: Vec<&CfgCall> = graph.blocks.iter().flat_map(|b| &b.calls).collect();
        let hot_loop = calls.iter().find(|c| c.callee == "hot_loop").unwrap();
        let page = s.table(&query(TableId::BoltFunctions, "exec", true, "hot_loop"), 0, 10).unwrap();
        assert_eq!(hot_loop.function, Some(page.rows[0].id));
        assert_eq!(hot_loop.count, 2000);
    }

    /// (offset, mnemonic) of every instruction llvm-bolt printed for `function`
    /// (`--print-cfg`), CFI pseudo-instructions left out.
    fn printed_instructions(text: &str, function: &str) -> Vec<(u64, String)> {
        let body = text.split("Binary Function \"").find(|f| f.starts_with(&format!("{function}\""))).unwrap();
        body.lines()
            .filter_map(|l| {
                let (offset, rest) = l.strip_prefix("    ")?.split_once(": \t")?;
                let mnemonic = rest.split('\t').next()?;
                (mnemonic != "!CFI").then(|| (u64::from_str_radix(offset, 16).unwrap(), mnemonic.to_string()))
            })
            .collect()
    }

    #[test]
    fn an_fdata_profile_with_its_binary_gives_graphs_with_bolts_instructions() {
        let mut s = session("cprog.instr.fdata", &corpus("bolt-perf/cprog/cprog.instr.fdata"));
        s.finish().unwrap();
        assert!(s.bolt_cfg(None, None).is_err(), "no graphs without the binary");
        let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
        elf.finish().unwrap();
        let mut other = session("big", &corpus("bolt-perf/bigcfg/big"));
        other.finish().unwrap();
        assert!(s.correlate(3, &other).is_err(), "a binary without the profile's functions");
        assert_eq!(s.correlate(2, &elf).unwrap(), [View::Dump, View::BoltFunctions, View::BoltCfg, View::BoltBranches]);
        assert_eq!(s.bolt_binary(), Some(2));
        let text = String::from_utf8(corpus("bolt-perf/cprog/cprog.cfg.txt")).unwrap();
        for function in ["hot_loop", "classify", "checksum_buf"] {
            let page = s.table(&query(TableId::BoltFunctions, "exec", true, function), 0, 10).unwrap();
            let row = page.rows.iter().find(|r| name_of(&r.cells[0]) == function).unwrap().id;
            let graph = s.bolt_cfg(Some(row), Some(&elf)).unwrap();
            assert_eq!((graph.binary.as_deref(), graph.code_note.as_deref()), (Some("cprog"), None));
            let ours: Vec<(u64, String)> = graph
                .blocks
                .iter()
                .flat_map(|b| &b.code)
                .map(|i| (i.offset, i.text.split_whitespace().next().unwrap().to_string()))
                .collect();
            let mut ours_sorted = ours.clone();
            ours_sorted.sort();
            let mut theirs = printed_instructions(&text, function);
            theirs.sort();
            assert_eq!(ours_sorted, theirs, "{function}");
            for b in &graph.blocks {
                assert_eq!(Some(b.code.len() as u32), b.instructions, "{function} #{}", b.index);
            }
        }
        // The YAML written from the same profile matches the binary block for block.
        let mut y = session("cprog.instr.yaml", &corpus("bolt-perf/cprog/cprog.instr.yaml"));
        y.finish().unwrap();
        y.correlate(2, &elf).unwrap();
        let graph = y.bolt_cfg(None, Some(&elf)).unwrap();
        assert_eq!(graph.name, "classify");
        assert!(graph.blocks.iter().all(|b| b.offset.is_some() && !b.code.is_empty()));
        // classify's calls: the instruction is annotated with the call count.
        let calls: Vec<&CfgInsn> =
            graph.blocks.iter().flat_map(|b| &b.code).filter(|i| i.text.starts_with("call")).collect();
        assert!(calls.iter().all(|i| i.note.is_some()) || calls.is_empty());
    }

    #[test]
    fn branches_with_their_binary_become_perf2bolts_profile() {
        let mut elf = session("cprog", &corpus("bolt-perf/cprog/cprog"));
        elf.finish().unwrap();
        for (input, reference) in [
            ("bolt-perf/cprog/cprog.brstack.perf.data", "bolt-perf/cprog/cprog.brstack.fdata"),
            ("bolt-perf/cprog/cprog.preagg-traces.txt", "bolt-perf/cprog/cprog.preagg-traces.fdata"),
        ] {
            let mut s = session(input.rsplit('/').next().unwrap(), &corpus(input));
            let opened = s.finish().unwrap();
            assert!(opened.summary.branch_profile, "{input}");
            let views = s.correlate(2, &elf).unwrap();
            assert!(views.contains(&View::BoltFunctions) && views.contains(&View::BoltCfg), "{input}: {views:?}");
            // The function table is the one of the fdata perf2bolt wrote from the same input.
            let mut theirs = session("ref.fdata", &corpus(reference));
            theirs.finish().unwrap();
            let rows = |s: &mut Session| -> Vec<Vec<Cell>> {
                let mut page = s.table(&query(TableId::BoltFunctions, "name", false, ""), 0, 10_000).unwrap().rows;
                page.sort_by_key(|r| name_of(&r.cells[0]).to_string());
                page.into_iter().map(|r| r.cells).collect()
            };
            assert_eq!(rows(&mut s), rows(&mut theirs), "{input}");
            // And its graphs come with the code.
            let graph = s.bolt_cfg(None, Some(&elf)).unwrap();
            assert!(graph.blocks.iter().all(|b| !b.code.is_empty()), "{input}");
        }
        // A perf.data without branch stacks is no BOLT profile.
        let mut plain = session("cprog.fp.perf.data", &corpus("bolt-perf/cprog/cprog.fp.perf.data"));
        assert!(!plain.finish().unwrap().summary.branch_profile);
    }

    #[test]
    fn fdata_lines_are_tables() {
        let path = "bolt-perf/cprog/cprog.brstack-mem.fdata";
        let text = String::from_utf8(corpus(path)).unwrap();
        let mut s = session("cprog.brstack-mem.fdata", text.as_bytes());
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.views, [View::Dump, View::BoltFunctions, View::BoltBranches, View::BoltMemory]);
        // Every line of the file is a row, the largest count first.
        let lines = |kinds: &str| -> Vec<&str> {
            text.lines().filter(|l| l.len() > 1 && kinds.contains(&l[..1]) && &l[1..2] == " ").collect()
        };
        let counts = |kinds: &str| -> Vec<i64> {
            lines(kinds).iter().map(|l| l.rsplit(' ').next().unwrap().parse().unwrap()).collect()
        };
        for (table, kinds, width) in [(TableId::BoltBranches, "012", 5), (TableId::BoltMemory, "345", 4)] {
            let page = s.table(&query(table, "", true, ""), 0, 1_000_000).unwrap();
            let mut expected = counts(kinds);
            assert_eq!(page.total as usize, expected.len(), "{table:?}");
            expected.sort_by(|a, b| b.cmp(a));
            let shown: Vec<i64> = page
                .rows
                .iter()
                .map(|r| match &r.cells[width - 2] {
                    Cell::Count(c) => *c as i64,
                    Cell::Text(t) => t.parse().unwrap(),
                    other => panic!("{other:?}"),
                })
                .collect();
            assert_eq!(shown, expected, "{table:?}");
            assert!(page.rows.iter().all(|r| r.cells.len() == width));
        }
        // Filtered by name: only rows from or to main.
        let page = s.table(&query(TableId::BoltBranches, "line", false, "main"), 0, 1_000_000).unwrap();
        let main = lines("012")
            .into_iter()
            .filter(|l| l.split(' ').nth(1) == Some("main") || l.split(' ').nth(4) == Some("main"))
            .count();
        assert_eq!(page.matching as usize, main);
        assert!(main > 0);
    }

    #[test]
    fn the_big_function_is_laid_out_whole() {
        let mut s = session("big.instr.yaml", &corpus("bolt-perf/bigcfg/big.instr.yaml"));
        s.finish().unwrap();
        let page = s.table(&query(TableId::BoltFunctions, "blocks", true, ""), 0, 1).unwrap();
        let graph = s.bolt_cfg(Some(page.rows[0].id), None).unwrap();
        // BOLT's graph of it has 2,015 blocks and 3,821 edges; its YAML lists the
        // successors of 3,693 of them (the others are only in the binary).
        assert_eq!((graph.blocks.len(), graph.edges.len()), (2015, 3693));
        assert!(graph.layers > 10 && graph.edges.iter().any(|e| e.back));
        assert!(graph.edges.iter().all(|e| e.points.len() >= 4));
    }

    #[test]
    fn memprof_profiles_list_their_allocation_sites() {
        for (path, sites) in [
            // One row per MemInfoBlock: llvm-profdata, which symbolizes with the binary,
            // drops the contexts outside it and lists the rest under each inlined function.
            ("llvm/memprof-progA/memprof-progA.profdata", 25),
            ("llvm/memprof-progA/memprof-progA.memprofraw", 16),
        ] {
            let bytes = corpus(path);
            let mut s = session(path, &bytes);
            let opened = s.finish().unwrap();
            assert_eq!(opened.summary.views.last(), Some(&View::MemProf), "{path}");
            let page = s.table(&query(TableId::MemProf, "TotalSize", true, ""), 0, 100).unwrap();
            assert_eq!((page.total, page.start, page.rows.len()), (sites, 0, sites as usize));
            let detail = s.memprof_site(0).unwrap();
            assert!(!detail.frames.is_empty());
            assert!(detail.fields.iter().any(|(name, _)| name == "TotalSize"), "{:?}", detail.fields);
            assert!(s.memprof_site(sites as u32).is_err());
            assert!(s.table(&query(TableId::MemProf, "bogus", false, ""), 0, 1).is_err());
        }
        let bytes = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
        let mut s = session("irpgo-progA.profdata", &bytes);
        assert!(!s.finish().unwrap().summary.views.contains(&View::MemProf));
        assert!(s.table(&query(TableId::MemProf, "TotalSize", true, ""), 0, 1).is_err());
    }

    #[test]
    fn a_correlated_raw_profile_is_decoded_with_the_session_of_its_binary() {
        let (raw, elf) =
            (corpus("llvm/bincorr-progB/bincorr-progB.profraw"), corpus("llvm/bincorr-progB/bincorr-progB.elf"));
        let mut s = session("bincorr-progB.profraw", &raw);
        let opened = s.finish().unwrap();
        let error = opened.summary.views_error.unwrap();
        assert!(error.message.contains("binary"), "{error}");
        assert_eq!(opened.summary.views, [View::Dump]);
        assert!(s.table(&TableQuery::new(TableId::Functions), 0, 1).is_err());
        let mut b = session("bincorr-progB.elf", &elf);
        b.finish().unwrap();
        // Not a binary: refused.
        let mut other = session("x.profraw", &raw);
        other.finish().unwrap();
        assert!(s.correlate(2, &other).is_err());
        let views = s.correlate(2, &b).unwrap();
        assert_eq!(views, [View::Dump, View::Functions, View::Summary]);
        assert!(s.table(&TableQuery::new(TableId::Functions), 0, 100).unwrap().total > 0);
        assert!(s.correlate(2, &b).is_err(), "once");
    }

    #[test]
    fn synthetic_stacks_offer_the_flame_graph_and_its_functions() {
        let text =
            "#pgolens-stacks\nevent cycles\ns 0 0 3 main;a;b@libc.so\ns 0 10 1 main;a\ns 0 20 2 main;c;b@libc.so\n";
        let mut s = session("x.stacks", text.as_bytes());
        let opened = s.finish().unwrap();
        assert_eq!(opened.summary.views, [View::Dump, View::Flame, View::Functions]);
        assert_eq!(
            opened.summary.stacks,
            Some(StacksInfo { events: alloc::vec!["cycles".into()], frames: 4, samples: 3, start: 0, end: 21 })
        );
        assert_eq!(s.stack_profile().unwrap().sample_count(), 3);
        let all = SampleFilter::default();
        // root; main; a, c; b (under a), b (under c): rows by depth.
        let flame = s.flame(&all, false).unwrap();
        assert_eq!(flame.rects.0.len(), 6 * 4);
        assert_eq!(flame.rows.0, [0, 1, 2, 4, 6]);
        let rects = &flame.rects.0;
        // [x0, width, self, frame]: a (frame 1) is 4 wide with self 1; c (3) starts at 4.
        assert_eq!(&rects[8..16], &[0.0, 4.0, 1.0, 1.0, 4.0, 2.0, 0.0, 3.0]);
        assert_eq!(&rects[..4], &[0.0, 6.0, 0.0, -1.0]);
        // Rectangle 4 is b under a: its stack from the root.
        assert_eq!(s.flame_stack(crate::stacks::MAIN, 4).unwrap(), ["main", "a", "b"]);
        // A time range: the samples at 10 and 20.
        let range = SampleFilter { event: 0, range: Some((10, 30)) };
        let icicle = s.flame(&range, true).unwrap();
        assert_eq!(icicle.rects.0.len(), 6 * 4);
        assert_eq!(icicle.rects.0[1], 3.0);
        let page = s.table(&query(TableId::StackFunctions, "total", true, ""), 0, 10).unwrap();
        assert_eq!((page.total, page.matching, page.weight, page.start), (4, 4, Some(6), 0));
        assert_eq!(page.rows[0].id, 0);
        assert_eq!(name_of(&page.rows[0].cells[0]), "main");
        let b = page.rows.iter().find(|r| r.id == 2).unwrap();
        assert_eq!(
            b.cells,
            [Cell::Name { text: "b".into(), raw: None, tag: Some("libc.so".into()) }, Cell::Count(5), Cell::Count(5)]
        );
        let by_name = s.table(&query(TableId::StackFunctions, "name", false, "B"), 0, 10).unwrap();
        assert_eq!(by_name.matching, 1);
        assert_eq!(s.search(&all, "c").unwrap(), Found { frames: alloc::vec![3], weight: 2, total: 6 });
        assert_eq!(s.timeline(0, 3).unwrap(), Timeline { event: 0, start: 0, end: 21, bins: alloc::vec![3, 1, 2] });
        let (callers, callees) = s.sandwich(&all, 2).unwrap();
        assert_eq!(callers.rows.0, [0, 1, 2, 4, 6]);
        assert_eq!(callees.rows.0, [0, 1, 2]);
        assert!(s.sandwich(&all, 99).is_err());
        let names = s.frame_names().unwrap();
        assert_eq!(
            names,
            FrameNames {
                names: ["main", "a", "b", "c"].map(String::from).to_vec(),
                dsos: alloc::vec!["libc.so".into()],
                dso: alloc::vec![-1, -1, 0, -1],
                kinds: ["user"; 4].map(String::from).to_vec(),
            }
        );
        // Files without stacks say so.
        let mut text = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
        text.finish().unwrap();
        assert!(text.flame(&all, false).is_err());
        assert!(text.stack_profile().is_none());
    }

    #[test]
    fn corpus_files_open() {
        for (path, id) in [
            ("llvm/irpgo-progA/irpgo-progA.profraw", "instrprof-raw"),
            ("bolt-perf/cprog/cprog.pipe.perf.data", "perf.data-pipe"),
            ("llvm/sample-basic/sample-basic.text.prof", "sample-text"),
        ] {
            let bytes = corpus(path);
            let mut s = session(path, &bytes);
            let opened = s.finish().unwrap();
            assert_eq!(opened.summary.format, id);
            let last = bytes.len() as u64 - 1;
            let (found, _) = s.path_to(last).unwrap();
            assert!(!found.is_empty(), "{path}");
            assert_eq!(s.file_size(), bytes.len() as u64);
        }
    }
}
