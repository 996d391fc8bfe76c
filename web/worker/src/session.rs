//! One open file in the worker: its bytes, its detection and the part of its dump
//! tree built so far.
//!
//! The tree is built lazily. `finish` builds what `pgolens::dump` builds (the root and
//! the structures it decodes eagerly); a deferred node is expanded the first time the
//! page asks for its children, or when `path_to` walks through it, and then stays
//! cached here. The page only ever holds the levels it has shown.
//!
//! Everything the page receives is JSON text (parsed by the worker's JS glue). A node
//! is sent without its children: `{"label","start","end","value"?,"deferred"?,"kids"}`
//! where `kids` counts its built children (a deferred node has `"deferred":true` and
//! `kids` 0 until it is expanded).
//!
//! Raw and indexed instrumentation profiles are also decoded into the view models
//! (`pgolens::model`): the function table, the summary, one function's detail.
//! The table is paged: the page asks for the rows it shows, under a sort order and
//! a name filter; the last sorted and filtered orders (row-id arrays) are kept, so
//! scrolling costs one page and typing in the filter one pass over the names.
//! Counts and hashes are sent as decimal strings, as JS numbers lose bits past 2^53.

use alloc::borrow::Cow;
use alloc::rc::Rc;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt::Write;

use pgolens::dump::write_json;
use pgolens::formats::instrprof::{self, model::Profile};
use pgolens::formats::perf::PerfData;
use pgolens::model::detail::KIND_NAMES;
use pgolens::model::instrprof::{self as adapter, Names};
use pgolens::model::memprof::{build_id_hex, Column as MemColumn, Sites};
use pgolens::model::stacks::StackProfile;
use pgolens::model::{Column, FunctionTable, Summary};
use pgolens::symbolize::{Kallsyms, Symbolizer};
use pgolens::{Detection, Format, Node};

use crate::stacks::{self, StacksView};
use crate::synthetic;

/// The most bytes one `bytes` call returns: the hex pane asks for a few KiB around
/// what it shows, so this only guards against a runaway request.
pub const MAX_WINDOW: u64 = 1 << 20;

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
    /// A `/proc/kallsyms` file: no format of its own, it only names kernel frames.
    kallsyms: bool,
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
/// symbolized with `symbols`.
/// `progress(done, total)` is called as the records are read.
fn stacks_of(
    data: &[u8],
    detection: &Detection,
    symbols: &[SymbolFile],
    progress: &mut dyn FnMut(u64, u64),
) -> Option<Result<StackProfile, String>> {
    if !matches!(detection.format, Format::PerfData | Format::PerfDataPipe) {
        return None;
    }
    Some(perf_stacks(data, symbols, progress).map_err(|e| e.to_string()))
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
    fn instrprof(data: &[u8], binary: Option<&[u8]>) -> Result<Views, String> {
        let profile = instrprof::decode(data, binary).map_err(|e| e.to_string())?;
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
}

impl Session {
    /// A session that will receive about `expected` bytes; reserves them up front so
    /// appending chunks never copies what was already read.
    pub fn new(name: String, expected: u64) -> Result<Session, String> {
        let mut raw = Vec::new();
        let expected = usize::try_from(expected).map_err(|_| too_large(expected))?;
        raw.try_reserve_exact(expected).map_err(|_| too_large(expected as u64))?;
        Ok(Session { name, raw, decoded: None })
    }

    /// Grows the file by `len` bytes and returns them for the caller to fill.
    pub fn slot(&mut self, len: usize) -> Result<&mut [u8], String> {
        if self.decoded.is_some() {
            return Err(String::from("the file was already decoded"));
        }
        let old = self.raw.len();
        let new = old.checked_add(len).ok_or_else(|| too_large(u64::MAX))?;
        self.raw.try_reserve(len).map_err(|_| too_large(new as u64))?;
        self.raw.resize(new, 0);
        self.raw.get_mut(old..).ok_or_else(|| String::from("slot outside the file"))
    }

    /// Decodes the bytes read: detection and the first levels of the dump. Returns
    /// the summary, the root and the root's children as JSON.
    pub fn finish(&mut self) -> Result<String, String> {
        self.finish_with(&mut |_, _| {})
    }

    /// [`Session::finish`], calling `progress(done, total)` while the decoders that
    /// count their steps (a perf.data's stacks: records) run.
    pub fn finish_with(&mut self, progress: &mut dyn FnMut(u64, u64)) -> Result<String, String> {
        if self.decoded.is_some() {
            return Err(String::from("the file was already decoded"));
        }
        let raw = core::mem::take(&mut self.raw);
        let file_size = raw.len() as u64;
        if raw.starts_with(synthetic::MAGIC) {
            return self.finish_synthetic(raw);
        }
        let (data, detection) = {
            let input = pgolens::open(&raw).map_err(|e| e.to_string())?;
            let detection = match input.detect() {
                // The core now detects kallsyms itself; it still takes the kallsyms path.
                Ok(detection) if detection.format == Format::Kallsyms => {
                    drop(input);
                    return self.finish_kallsyms(raw);
                }
                Ok(detection) => detection,
                Err(e) if matches!(e.kind, pgolens::ErrorKind::UnknownFormat) && is_kallsyms(&input.data) => {
                    drop(input);
                    return self.finish_kallsyms(raw);
                }
                Err(e) => return Err(e.to_string()),
            };
            match input.data {
                Cow::Owned(inflated) => (Some(inflated), detection),
                Cow::Borrowed(_) => (None, detection),
            }
        };
        // The compressed bytes are dropped here when the file was gzip.
        let data = Rc::new(data.unwrap_or(raw));
        let mut root = pgolens::dump(&data, &detection).map_err(|e| e.to_string())?;
        expand(&data, &detection, &mut root)?;

        let mut out = String::from("{\"name\":");
        json_string(&self.name, &mut out);
        out.push_str(",\"format\":");
        json_string(detection.format.id(), &mut out);
        out.push_str(",\"detection\":");
        json_string(&detection.to_string(), &mut out);
        match detection.version {
            Some(v) => {
                let _ = write!(out, ",\"version\":{v}");
            }
            None => out.push_str(",\"version\":null"),
        }
        let _ = write!(out, ",\"size\":{},\"fileSize\":{file_size},\"gzip\":{}", data.len(), detection.gzip);
        // The views this format offers. A profile whose records cannot be decoded
        // (a correlated raw profile without its binary) still has its dump.
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
        let memprof_view = if memprof.is_some() { ",\"memprof\"" } else { "" };
        let (stacks, stacks_error) = match stacks_of(&data, &detection, &[], progress) {
            Some(Ok(profile)) => (Some(StacksView::new(profile)), None),
            Some(Err(e)) => (None, Some(e)),
            None => (None, None),
        };
        match &views {
            Some(Ok(_)) => {
                let _ = write!(out, ",\"views\":[\"dump\",\"functions\",\"summary\"{memprof_view}]");
            }
            Some(Err(e)) => {
                out.push_str(",\"views\":[\"dump\"],\"viewsError\":");
                json_string(e, &mut out);
            }
            None if stacks.is_some() => out.push_str(",\"views\":[\"dump\",\"flame\",\"functions\"]"),
            None if stacks_error.is_some() => {
                out.push_str(",\"views\":[\"dump\"],\"viewsError\":");
                json_string(stacks_error.as_deref().unwrap_or_default(), &mut out);
            }
            None => {
                let _ = write!(out, ",\"views\":[\"dump\"{memprof_view}]");
            }
        }
        if let Some(st) = &stacks {
            out.push_str(",\"stacks\":");
            st.info_json(&mut out);
        }
        out.push_str(",\"root\":");
        node_json(&root, &mut out);
        out.push_str(",\"children\":");
        children_json(&root, &mut out);
        out.push('}');
        self.decoded = Some(Decoded {
            data,
            file_size,
            detection,
            root,
            views: views.and_then(Result::ok),
            memprof,
            stacks,
            kallsyms: false,
            symbols: Vec::new(),
        });
        Ok(out)
    }

    /// A `/proc/kallsyms` file, kept to name the kernel frames of perf.data files.
    fn finish_kallsyms(&mut self, data: Vec<u8>) -> Result<String, String> {
        let symbols = Kallsyms::parse(&data).map_err(|e| e.to_string())?.len();
        let size = data.len() as u64;
        let root = Node::new("kallsyms", 0, size).with_value(alloc::format!("{symbols} text symbols"));
        let mut out = String::from("{\"name\":");
        json_string(&self.name, &mut out);
        let _ = write!(
            out,
            ",\"format\":\"kallsyms\",\"detection\":\"kallsyms ({symbols} text symbols)\",\"version\":null,\"size\":{size},\"fileSize\":{size},\"gzip\":false,\"views\":[\"dump\"]"
        );
        out.push_str(",\"root\":");
        node_json(&root, &mut out);
        out.push_str(",\"children\":[]}");
        // The detection is never used: the root has no deferred children to expand.
        let detection = Detection::new(Format::SampleText);
        self.decoded = Some(Decoded {
            data: Rc::new(data),
            file_size: size,
            detection,
            root,
            views: None,
            memprof: None,
            stacks: None,
            kallsyms: true,
            symbols: Vec::new(),
        });
        Ok(out)
    }

    /// Adds a binary (ELF) or kallsyms session to those this perf.data's frames are
    /// named from; [`Session::symbolize`] then rebuilds the stacks. The bytes are
    /// shared, not copied.
    pub fn symbolize_add(&mut self, other: &Session) -> Result<(), String> {
        let file = other.decoded.as_ref().ok_or_else(not_decoded)?;
        let binary = matches!(file.detection.format, Format::Elf | Format::ElfWithBat) && !file.kallsyms;
        if !binary && !file.kallsyms {
            return Err(alloc::format!("{} is neither an ELF binary nor a kallsyms file", other.name));
        }
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        if !decoded.symbols.iter().any(|s| s.name == other.name && Rc::ptr_eq(&s.data, &file.data)) {
            decoded.symbols.push(SymbolFile {
                name: other.name.clone(),
                data: Rc::clone(&file.data),
                kallsyms: file.kallsyms,
            });
        }
        Ok(())
    }

    /// Rebuilds the call stacks with the files given to [`Session::symbolize_add`].
    /// JSON: `{"stacks":{...},"symbolizedWith":[names]}`.
    pub fn symbolize(&mut self) -> Result<String, String> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let profile = stacks_of(&decoded.data, &decoded.detection, &decoded.symbols, &mut |_, _| {})
            .ok_or_else(|| String::from("this file has no call stacks"))??;
        let stacks = StacksView::new(profile);
        let mut out = String::from("{\"stacks\":");
        stacks.info_json(&mut out);
        out.push_str(",\"symbolizedWith\":[");
        for (i, file) in decoded.symbols.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            json_string(&file.name, &mut out);
        }
        out.push_str("]}");
        decoded.stacks = Some(stacks);
        Ok(out)
    }

    /// A synthetic stack profile (see [`synthetic`]): its views, and a dump of one node.
    fn finish_synthetic(&mut self, data: Vec<u8>) -> Result<String, String> {
        let stacks = StacksView::new(synthetic::parse(&data)?);
        let size = data.len() as u64;
        let root = Node::new("pgolens-stacks (synthetic call stacks)", 0, size);
        let mut out = String::from("{\"name\":");
        json_string(&self.name, &mut out);
        let _ = write!(
            out,
            ",\"format\":\"pgolens-stacks\",\"detection\":\"pgolens-stacks\",\"version\":null,\"size\":{size},\"fileSize\":{size},\"gzip\":false,\"views\":[\"dump\",\"flame\",\"functions\"],\"stacks\":"
        );
        stacks.info_json(&mut out);
        out.push_str(",\"root\":");
        node_json(&root, &mut out);
        out.push_str(",\"children\":[]}");
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
            kallsyms: false,
            symbols: Vec::new(),
        });
        Ok(out)
    }

    /// The call stacks of the file, for formats that have them.
    pub fn stack_profile(&self) -> Option<&StackProfile> {
        self.decoded.as_ref()?.stacks.as_ref().map(|s| &s.profile)
    }

    fn stacks(&mut self) -> Result<&mut StacksView, String> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.stacks.as_mut().ok_or_else(|| String::from("this file has no call stacks"))
    }

    /// Lays out the flame graph (`inverted`: the icicle) of the samples of `event`
    /// in `t0..t1` (all when not `t0 < t1`); returns the number of rectangles, which
    /// [`Session::flame_rects`] and [`Session::flame_rows`] then return.
    pub fn flame(&mut self, event: u32, t0: f64, t1: f64, inverted: bool) -> Result<usize, String> {
        Ok(self.stacks()?.flame(&stacks::filter(event, t0, t1), inverted))
    }

    /// Lays out the callers and callees of `frame` into slots 1 and 2.
    pub fn sandwich(&mut self, event: u32, t0: f64, t1: f64, frame: u32) -> Result<(), String> {
        self.stacks()?.sandwich(&stacks::filter(event, t0, t1), frame)
    }

    /// The rectangles of slot `slot` (0 flame graph, 1 callers, 2 callees): `[x0, width, self, frame]` each.
    pub fn flame_rects(&mut self, slot: usize) -> Result<Vec<f64>, String> {
        self.stacks()?.rects(slot)
    }

    /// Where each depth's rectangles start in [`Session::flame_rects`] (and the end).
    pub fn flame_rows(&mut self, slot: usize) -> Result<Vec<u32>, String> {
        self.stacks()?.rows(slot)
    }

    /// JSON: one rectangle of slot `slot` with its stack (see `stacks::StacksView::node_json`).
    pub fn flame_node(&mut self, slot: usize, rect: u32) -> Result<String, String> {
        self.stacks()?.node_json(slot, rect)
    }

    /// JSON: every frame's name, dso and kind (see `stacks::StacksView::names_json`).
    pub fn frame_names(&mut self) -> Result<String, String> {
        Ok(self.stacks()?.names_json())
    }

    /// JSON: a page of the stack functions table (see `stacks::StacksView::functions_json`).
    #[allow(clippy::too_many_arguments)]
    pub fn stack_functions(
        &mut self,
        event: u32,
        t0: f64,
        t1: f64,
        column: &str,
        descending: bool,
        filter: &str,
        start: u32,
        count: u32,
    ) -> Result<String, String> {
        self.stacks()?.functions_json(stacks::filter(event, t0, t1), column, descending, filter, start, count)
    }

    /// JSON: the frames matching `pattern` and the weight of the stacks holding one.
    pub fn search(&mut self, event: u32, t0: f64, t1: f64, pattern: &str) -> Result<String, String> {
        Ok(self.stacks()?.search_json(&stacks::filter(event, t0, t1), pattern))
    }

    /// JSON: the weight of `event`'s samples in `bins` buckets over their whole time.
    pub fn timeline(&mut self, event: u32, bins: u32) -> Result<String, String> {
        Ok(self.stacks()?.timeline_json(event, bins))
    }

    /// Decodes a correlated raw profile that could not be decoded alone with its
    /// binary, the decoded file of `binary` (another session: its bytes are read in
    /// place, not copied). Returns `{"views":[...],"correlatedWith":name}`.
    pub fn correlate(&mut self, binary: &Session) -> Result<String, String> {
        let elf = binary.decoded.as_ref().ok_or_else(not_decoded)?;
        if !matches!(elf.detection.format, Format::Elf | Format::ElfWithBat) {
            return Err(alloc::format!("{} is not an ELF binary", binary.name));
        }
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        if decoded.detection.format != Format::InstrProfRaw || decoded.views.is_some() {
            return Err(String::from("only a correlated raw profile is decoded with a binary"));
        }
        let views = Views::instrprof(&decoded.data, Some(&elf.data))?;
        decoded.views = Some(views);
        let mut out = String::from("{\"views\":[\"dump\",\"functions\",\"summary\"],\"correlatedWith\":");
        json_string(&binary.name, &mut out);
        out.push('}');
        Ok(out)
    }

    fn views(&mut self) -> Result<&mut Views, String> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.views.as_mut().ok_or_else(|| String::from("this file has no function table"))
    }

    /// A page of the function table: the rows `start..start+count` of the rows whose
    /// names contain `filter`, ordered by `column`. JSON:
    /// `{"total","matching","start","rows":[{"id","name","demangled"?,"cs"?,"hash"?,
    /// "counters"?,"entry"?,"max"?,"total"?,"nonzero"?}]}`; `nonzero` is the share
    /// of non-zero counters (0 to 1), the other numbers are decimal strings.
    pub fn functions(
        &mut self,
        column: &str,
        descending: bool,
        filter: &str,
        start: u32,
        count: u32,
    ) -> Result<String, String> {
        let column = Column::from_id(column).ok_or_else(|| alloc::format!("no column {column:?}"))?;
        let views = self.views()?;
        let total = views.table.len();
        let order = views.order(column, descending, filter);
        let matching = order.len();
        let from = (start as usize).min(matching);
        let page = order.get(from..).unwrap_or_default().iter().take(count as usize);
        let mut out = alloc::format!("{{\"total\":{total},\"matching\":{matching},\"start\":{from},\"rows\":[");
        let ids: Vec<u32> = page.copied().collect();
        for (i, id) in ids.into_iter().enumerate() {
            let Some(row) = views.table.row(id) else { continue };
            if i > 0 {
                out.push(',');
            }
            let _ = write!(out, "{{\"id\":{id},\"name\":");
            json_string(&String::from_utf8_lossy(row.raw), &mut out);
            if let Some(d) = row.demangled {
                out.push_str(",\"demangled\":");
                json_string(d, &mut out);
            }
            if row.flags & pgolens::model::functions::FLAG_CONTEXT_SENSITIVE != 0 {
                out.push_str(",\"cs\":true");
            }
            let st = row.stats;
            if let Some(h) = st.hash {
                let _ = write!(out, ",\"hash\":\"{h:#018x}\"");
            }
            for (key, value) in [("counters", st.counters), ("entry", st.entry), ("max", st.max), ("total", st.total)] {
                if let Some(v) = value {
                    let _ = write!(out, ",\"{key}\":\"{v}\"");
                }
            }
            if let Some(share) = st.share() {
                let _ = write!(out, ",\"nonzero\":{share}");
            }
            out.push('}');
        }
        out.push_str("]}");
        Ok(out)
    }

    /// The profile summary: `{"summary":{...},"csSummary":{...}|null}` where a summary
    /// is `{"functions","counts","total","maxCount","maxFunction","maxInternal",
    /// "detailed":[{"cutoff","min","counts"}]}` (`cutoff` in parts per million).
    pub fn summary(&mut self) -> Result<String, String> {
        let views = self.views()?;
        let profile = &views.profile;
        let (summary, cs_summary) = views.summaries.get_or_insert_with(|| {
            let cs = profile.is_context_sensitive().then(|| adapter::summary(profile, true));
            (adapter::summary(profile, false), cs)
        });
        let mut out = String::from("{\"summary\":");
        summary_json(summary, &mut out);
        out.push_str(",\"csSummary\":");
        match cs_summary {
            Some(s) => summary_json(s, &mut out),
            None => out.push_str("null"),
        }
        out.push('}');
        Ok(out)
    }

    /// One function in full, by its table row id: `{"id","name","demangled"?,"hash",
    /// "counters":[...],"bitmap":[...],"sites":[{"kind","index","targets":[{"value",
    /// "name"?,"count"}]}],"traces":[{"trace","weight","position","length"}]}`.
    pub fn function(&mut self, id: u32) -> Result<String, String> {
        let views = self.views()?;
        let names = views.names.get_or_insert_with(|| Names::new(&views.profile));
        let detail =
            adapter::function_detail(&views.profile, names, id).ok_or_else(|| alloc::format!("no function {id}"))?;
        let mut out = alloc::format!("{{\"id\":{id},\"name\":");
        json_string(&String::from_utf8_lossy(&detail.name), &mut out);
        if let Some(d) = &detail.demangled {
            out.push_str(",\"demangled\":");
            json_string(d, &mut out);
        }
        if let Some(h) = detail.hash {
            let _ = write!(out, ",\"hash\":\"{h:#018x}\"");
        }
        out.push_str(",\"counters\":[");
        for (i, c) in detail.counters.iter().enumerate() {
            let _ = write!(out, "{}\"{c}\"", if i > 0 { "," } else { "" });
        }
        out.push_str("],\"bitmap\":[");
        for (i, b) in detail.bitmap.iter().enumerate() {
            let _ = write!(out, "{}{b}", if i > 0 { "," } else { "" });
        }
        out.push_str("],\"sites\":[");
        for (i, site) in detail.sites.iter().enumerate() {
            let kind = KIND_NAMES.get(site.kind).copied().unwrap_or("value");
            let _ = write!(
                out,
                "{}{{\"kind\":\"{kind}\",\"index\":{},\"targets\":[",
                if i > 0 { "," } else { "" },
                site.index
            );
            for (j, t) in site.targets.iter().enumerate() {
                let _ = write!(
                    out,
                    "{}{{\"value\":\"{}\",\"count\":\"{}\"",
                    if j > 0 { "," } else { "" },
                    t.value,
                    t.count
                );
                if let Some(name) = &t.name {
                    out.push_str(",\"name\":");
                    json_string(&String::from_utf8_lossy(name), &mut out);
                    if let Some(d) = pgolens::model::demangle::demangle(name) {
                        out.push_str(",\"demangled\":");
                        json_string(&d, &mut out);
                    }
                }
                out.push('}');
            }
            out.push_str("]}");
        }
        out.push_str("],\"traces\":[");
        for (i, t) in detail.traces.iter().enumerate() {
            let _ = write!(
                out,
                "{}{{\"trace\":{},\"weight\":\"{}\",\"position\":{},\"length\":{}}}",
                if i > 0 { "," } else { "" },
                t.trace,
                t.weight,
                t.position,
                t.length
            );
        }
        out.push_str("]}");
        Ok(out)
    }

    fn memprof_view(&mut self) -> Result<&mut MemProfView, String> {
        let decoded = self.decoded.as_mut().ok_or_else(not_decoded)?;
        decoded.memprof.as_mut().ok_or_else(|| String::from("this file has no MemProf data"))
    }

    /// A page of the MemProf allocation sites, ordered by `column`:
    /// `{"total","start","raw","columns":[ids],"rows":[{"id","guid"?,"name"?,
    /// "demangled"?,"leaf"?,"depth",<column id>:"value",...}]}`. `guid` is the
    /// record's function, `leaf` (raw) the allocation's return address in hex;
    /// values are decimal strings, absent where the schema lacks the field.
    pub fn memprof(&mut self, column: &str, descending: bool, start: u32, count: u32) -> Result<String, String> {
        let column = MemColumn::from_id(column).ok_or_else(|| alloc::format!("no MemProf column {column:?}"))?;
        let view = self.memprof_view()?;
        if !matches!(&view.sorted, Some((c, d, _)) if *c == column && *d == descending) {
            view.sorted = Some((column, descending, view.sites.sorted(column, descending)));
        }
        let sites = &view.sites;
        let order = view.sorted.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
        let total = order.len();
        let from = (start as usize).min(total);
        let mut out = alloc::format!("{{\"total\":{total},\"start\":{from},\"raw\":{},\"columns\":[", sites.raw);
        for (i, c) in sites.columns().into_iter().enumerate() {
            let _ = write!(out, "{}\"{}\"", if i > 0 { "," } else { "" }, c.id());
        }
        out.push_str("],\"rows\":[");
        for (i, &id) in order.get(from..).unwrap_or_default().iter().take(count as usize).enumerate() {
            let Some(site) = sites.site(id) else { continue };
            let _ = write!(out, "{}{{\"id\":{id}", if i > 0 { "," } else { "" });
            if let Some(guid) = site.function {
                guid_json(sites, guid, &mut out);
            }
            if let Some(pc) = site.frames.first().and_then(|f| f.address) {
                let _ = write!(out, ",\"leaf\":\"{pc:#x}\"");
            }
            for c in MemColumn::ALL {
                if let Some(v) = site.metric(c) {
                    let _ = write!(out, ",\"{}\":\"{v}\"", c.id());
                }
            }
            out.push('}');
        }
        out.push_str("]}");
        Ok(out)
    }

    /// One allocation site in full: `{"id","guid"?,"name"?,"demangled"?,"profile",
    /// "frames":[{"guid"?,"name"?,"demangled"?,"line","column","inline"} |
    /// {"address","buildId"?,"moduleOffset"?}],"fields":[["name","value"]],
    /// "histogram":["count"]}`, frames leaf first.
    pub fn memprof_site(&mut self, id: u32) -> Result<String, String> {
        let sites = &self.memprof_view()?.sites;
        let site = sites.site(id).ok_or_else(|| alloc::format!("no allocation site {id}"))?;
        let mut out = alloc::format!("{{\"id\":{id},\"profile\":{}", site.profile);
        if let Some(guid) = site.function {
            guid_json(sites, guid, &mut out);
        }
        out.push_str(",\"frames\":[");
        for (i, f) in site.frames.iter().enumerate() {
            out.push_str(if i > 0 { ",{" } else { "{" });
            if let Some(pc) = f.address {
                let _ = write!(out, "\"address\":\"{pc:#x}\"");
                let segment = f.segment.and_then(|s| sites.segments.get(s as usize));
                if let Some(seg) = segment {
                    let _ = write!(out, ",\"buildId\":\"{}\"", build_id_hex(seg));
                    if let Some(off) = pc.checked_sub(seg.offset) {
                        let _ = write!(out, ",\"moduleOffset\":\"{off:#x}\"");
                    }
                }
            } else {
                let _ = write!(out, "\"line\":{},\"column\":{},\"inline\":{}", f.line_offset, f.column, f.is_inline);
                if let Some(guid) = f.function {
                    guid_json(sites, guid, &mut out);
                }
            }
            out.push('}');
        }
        out.push_str("],\"fields\":[");
        for (i, (meta, value)) in site.info.fields.iter().enumerate() {
            let name = meta.name().map_or_else(|| alloc::format!("field {}", meta.0), String::from);
            let _ = write!(out, "{}[", if i > 0 { "," } else { "" });
            json_string(&name, &mut out);
            let _ = write!(out, ",\"{value}\"]");
        }
        out.push_str("],\"histogram\":[");
        for (i, c) in site.info.histogram.iter().enumerate() {
            let _ = write!(out, "{}\"{c}\"", if i > 0 { "," } else { "" });
        }
        out.push_str("]}");
        Ok(out)
    }

    /// The children of the node at `path` (child indices from the root), expanding
    /// it when it is deferred. A JSON array of nodes.
    pub fn children(&mut self, path: &[u32]) -> Result<String, String> {
        let Decoded { data, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut node = root;
        for &i in path {
            node = node.children.get_mut(i as usize).ok_or_else(|| String::from("no such node in the dump"))?;
        }
        expand(data, detection, node)?;
        let mut out = String::new();
        children_json(node, &mut out);
        Ok(out)
    }

    /// The path to the innermost node containing `offset`, expanding deferred nodes on
    /// the way, with the children of every node it passes through:
    /// `{"path":[i,...],"levels":[[nodes of the root],[nodes of root.i],...]}`.
    pub fn path_to(&mut self, offset: u64) -> Result<String, String> {
        let Decoded { data, detection, root, .. } = self.decoded.as_mut().ok_or_else(not_decoded)?;
        let mut path = String::new();
        let mut levels = String::new();
        let mut node = root;
        loop {
            expand(data, detection, node)?;
            // Children are sorted and disjoint; empty ones contain no offset.
            let i = node.children.partition_point(|c| c.end <= offset);
            let inside = node.children.get(i).is_some_and(|c| c.start <= offset && offset < c.end);
            if !inside {
                break;
            }
            if !path.is_empty() {
                path.push(',');
                levels.push(',');
            }
            let _ = write!(path, "{i}");
            children_json(node, &mut levels);
            match node.children.get_mut(i) {
                Some(child) => node = child,
                None => break,
            }
        }
        Ok(alloc::format!("{{\"path\":[{path}],\"levels\":[{levels}]}}"))
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
/// Whether an input no format claims is a `/proc/kallsyms` listing.
fn is_kallsyms(data: &[u8]) -> bool {
    Kallsyms::parse(data).is_ok_and(|k| !k.is_empty())
}

fn expand(data: &[u8], detection: &Detection, node: &mut Node) -> Result<(), String> {
    if let Some(deferred) = node.deferred {
        let children = pgolens::expand(data, detection, &deferred).map_err(|e| e.to_string())?;
        node.children = children;
        node.tile().map_err(|e| e.to_string())?;
        node.deferred = None;
    }
    Ok(())
}

/// One node without its children, plus `kids`: how many it has built.
fn node_json(node: &Node, out: &mut String) {
    let mut head = Node::new(node.label.clone(), node.start, node.end);
    head.value.clone_from(&node.value);
    head.deferred = node.deferred;
    write_json(&head, out);
    out.pop(); // the closing brace
    let _ = write!(out, ",\"kids\":{}}}", node.children.len());
}

fn children_json(node: &Node, out: &mut String) {
    out.push('[');
    for (i, child) in node.children.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        node_json(child, out);
    }
    out.push(']');
}

/// `,"guid":"0x…"` and, where the profile names it, `,"name"` and `,"demangled"`.
fn guid_json(sites: &Sites, guid: u64, out: &mut String) {
    let _ = write!(out, ",\"guid\":\"{guid:#018x}\"");
    if let Some(name) = sites.name(guid) {
        out.push_str(",\"name\":");
        json_string(&String::from_utf8_lossy(name), out);
        if let Some(d) = pgolens::model::demangle::demangle(name) {
            out.push_str(",\"demangled\":");
            json_string(&d, out);
        }
    }
}

fn summary_json(s: &Summary, out: &mut String) {
    let _ = write!(
        out,
        "{{\"functions\":\"{}\",\"counts\":\"{}\",\"total\":\"{}\",\"maxCount\":\"{}\",\"maxFunction\":\"{}\",\"maxInternal\":\"{}\",\"detailed\":[",
        s.num_functions, s.num_counts, s.total_count, s.max_count, s.max_function_count, s.max_internal_count
    );
    for (i, e) in s.detailed.iter().enumerate() {
        let comma = if i > 0 { "," } else { "" };
        let _ = write!(
            out,
            "{comma}{{\"cutoff\":{},\"min\":\"{}\",\"counts\":\"{}\"}}",
            e.cutoff, e.min_count, e.num_counts
        );
    }
    out.push_str("]}");
}

pub(crate) fn json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn too_large(size: u64) -> String {
    alloc::format!("the file ({size} bytes) does not fit in the browser's memory for WebAssembly")
}

fn not_decoded() -> String {
    String::from("the file is not decoded yet")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

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

    #[test]
    fn perf_data_has_stacks_named_by_dropped_binaries_and_kallsyms() {
        let (perf, elf) = (corpus("bolt-perf/cprog/cprog.fp.perf.data"), corpus("bolt-perf/cprog/cprog"));
        let mut p = session("cprog.fp.perf.data", &perf);
        let mut steps = Vec::new();
        let opened = p.finish_with(&mut |done, total| steps.push((done, total))).unwrap();
        // Progress over the records, ending with all of them.
        assert!(steps.len() >= 2 && steps.windows(2).all(|w| w[0].0 <= w[1].0), "{steps:?}");
        assert!(steps.last().is_some_and(|&(done, total)| done == total && total > 0), "{steps:?}");
        assert!(opened.contains("\"views\":[\"dump\",\"flame\",\"functions\"]"), "{opened}");
        // perf report: "Samples: 469 of event 'cpu-clock'".
        assert!(opened.contains("\"events\":[\"cpu-clock\"]") && opened.contains("\"samples\":469"), "{opened}");
        let names = p.frame_names().unwrap();
        assert!(names.contains("cprog+0x129d") && !names.contains("hot_loop"), "{names}");

        let mut e = session("cprog", &elf);
        e.finish().unwrap();
        // cprog.fp.perf.data.script.txt: "ffffffff8158c375 next_uptodate_folio+0x55 ([kernel.kallsyms])".
        let mut k =
            session("kallsyms", b"ffffffff8158c320 T next_uptodate_folio\nffffffff8158c600 T filemap_map_pages\n");
        let kopened = k.finish().unwrap();
        assert!(kopened.contains("\"format\":\"kallsyms\""), "{kopened}");
        p.symbolize_add(&e).unwrap();
        p.symbolize_add(&k).unwrap();
        assert!(p.symbolize_add(&p_clone_text()).is_err());
        let done = p.symbolize().unwrap();
        assert!(done.contains("\"symbolizedWith\":[\"cprog\",\"kallsyms\"]"), "{done}");
        let names = p.frame_names().unwrap();
        assert!(names.contains("hot_loop") && names.contains("next_uptodate_folio"), "{names}");
        assert!(!names.contains("cprog+0x129d"), "{names}");
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
            let _ = writeln!(text, "1 main {i:x} 1 main {:x} 0 {i}", i + 1);
        }
        let mut s = session("big.fdata", text.as_bytes());
        let opened = s.finish().unwrap();
        assert!(opened.contains("\"format\":\"bolt-fdata\""), "{opened}");
        assert!(opened.contains("\"deferred\":true"), "{opened}");

        let second_line = text.find('\n').unwrap() as u64 + 1;
        let found = s.path_to(second_line).unwrap();
        assert!(found.starts_with("{\"path\":[0,1"), "{found}");
        let kids = s.children(&[0]).unwrap();
        assert!(kids.starts_with("[{\"label\":"), "{kids}");
        assert_eq!(s.bytes(0, 4), b"1 ma");
        assert_eq!(s.bytes(u64::MAX - 1, u64::MAX), b"");
    }

    #[test]
    fn errors_are_messages_with_offsets() {
        let random: Vec<u8> = (0u32..4096).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
        let mut s = session("random.bin", &random);
        let err = s.finish().unwrap_err();
        assert!(err.contains("offset"), "{err}");
        assert!(s.children(&[]).is_err());
        assert!(s.path_to(0).is_err());
    }

    #[test]
    fn instrprof_files_offer_the_function_table_summary_and_details() {
        let bytes = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
        let mut s = session("irpgo-progA.profdata", &bytes);
        let opened = s.finish().unwrap();
        assert!(opened.contains("\"views\":[\"dump\",\"functions\",\"summary\"]"), "{opened}");
        let page = s.functions("total", true, "", 0, 3).unwrap();
        assert!(page.starts_with("{\"total\":67,\"matching\":67,\"start\":0,\"rows\":[{\"id\":"), "{page}");
        assert_eq!(page.matches("\"id\":").count(), 3);
        let filtered = s.functions("name", false, "Circle4name", 0, 100).unwrap();
        assert!(filtered.contains("\"matching\":1,"), "{filtered}");
        assert!(filtered.contains("\"demangled\":\"geo::Circle::name() const\""), "{filtered}");
        let past_end = s.functions("hash", false, "", 1000, 10).unwrap();
        assert!(past_end.ends_with("\"start\":67,\"rows\":[]}"), "{past_end}");
        assert!(s.functions("bogus", false, "", 0, 1).is_err());

        let summary = s.summary().unwrap();
        assert!(summary.contains("\"functions\":\"67\""), "{summary}");
        assert!(summary.contains("\"maxFunction\":\"8361\""), "{summary}");
        assert!(summary.ends_with("\"csSummary\":null}"), "{summary}");

        let detail = s.function(0).unwrap();
        assert!(detail.starts_with("{\"id\":0,\"name\":"), "{detail}");
        assert!(s.function(67).is_err());
        // A format without a function table says so.
        let mut text = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
        text.finish().unwrap();
        assert!(text.functions("name", false, "", 0, 1).is_err());
    }

    #[test]
    fn memprof_profiles_list_their_allocation_sites() {
        for (path, sites) in [
            ("llvm/memprof-progA/memprof-progA.profdata", 25), // One row per MemInfoBlock: llvm-profdata, which symbolizes with the binary,
            // drops the contexts outside it and lists the rest under each inlined function.
            ("llvm/memprof-progA/memprof-progA.memprofraw", 16),
        ] {
            let bytes = corpus(path);
            let mut s = session(path, &bytes);
            let opened = s.finish().unwrap();
            assert!(opened.contains("\"memprof\"]"), "{opened}");
            let page = s.memprof("TotalSize", true, 0, 100).unwrap();
            assert!(page.starts_with(&alloc::format!("{{\"total\":{sites},\"start\":0,")), "{page}");
            assert_eq!(page.matches("\"id\":").count(), sites);
            let detail = s.memprof_site(0).unwrap();
            assert!(detail.contains("\"frames\":[{"), "{detail}");
            assert!(detail.contains("[\"TotalSize\",\""), "{detail}");
            assert!(s.memprof_site(sites as u32).is_err());
            assert!(s.memprof("bogus", false, 0, 1).is_err());
        }
        let bytes = corpus("llvm/irpgo-progA/irpgo-progA.profdata");
        let mut s = session("irpgo-progA.profdata", &bytes);
        assert!(!s.finish().unwrap().contains("memprof"));
        assert!(s.memprof("TotalSize", true, 0, 1).is_err());
    }

    #[test]
    fn a_correlated_raw_profile_is_decoded_with_the_session_of_its_binary() {
        let (raw, elf) =
            (corpus("llvm/bincorr-progB/bincorr-progB.profraw"), corpus("llvm/bincorr-progB/bincorr-progB.elf"));
        let mut s = session("bincorr-progB.profraw", &raw);
        let opened = s.finish().unwrap();
        assert!(opened.contains("\"viewsError\":") && opened.contains("binary"), "{opened}");
        assert!(s.functions("name", false, "", 0, 1).is_err());
        let mut b = session("bincorr-progB.elf", &elf);
        b.finish().unwrap();
        // Not a binary: refused.
        let mut other = session("x.profraw", &raw);
        other.finish().unwrap();
        assert!(s.correlate(&other).is_err());
        let done = s.correlate(&b).unwrap();
        assert_eq!(done, "{\"views\":[\"dump\",\"functions\",\"summary\"],\"correlatedWith\":\"bincorr-progB.elf\"}");
        assert!(s.functions("name", false, "", 0, 100).unwrap().contains("\"total\":"));
        assert!(s.correlate(&b).is_err(), "once");
    }

    #[test]
    fn synthetic_stacks_offer_the_flame_graph_and_its_functions() {
        let text =
            "#pgolens-stacks\nevent cycles\ns 0 0 3 main;a;b@libc.so\ns 0 10 1 main;a\ns 0 20 2 main;c;b@libc.so\n";
        let mut s = session("x.stacks", text.as_bytes());
        let opened = s.finish().unwrap();
        assert!(opened.contains("\"views\":[\"dump\",\"flame\",\"functions\"]"), "{opened}");
        assert!(
            opened.contains("\"stacks\":{\"events\":[\"cycles\"],\"frames\":4,\"samples\":3,\"start\":0,\"end\":21}"),
            "{opened}"
        );
        assert_eq!(s.stack_profile().unwrap().sample_count(), 3);
        // root; main; a, c; b (under a), b (under c): rows by depth.
        assert_eq!(s.flame(0, -1.0, -1.0, false).unwrap(), 6);
        assert_eq!(s.flame_rows(0).unwrap(), vec![0, 1, 2, 4, 6]);
        let rects = s.flame_rects(0).unwrap();
        // [x0, width, self, frame]: a (frame 1) is 4 wide with self 1; c (3) starts at 4.
        assert_eq!(&rects[8..16], &[0.0, 4.0, 1.0, 1.0, 4.0, 2.0, 0.0, 3.0]);
        assert_eq!(&rects[..4], &[0.0, 6.0, 0.0, -1.0]);
        let node = s.flame_node(0, 4).unwrap();
        assert_eq!(node, "{\"frame\":2,\"name\":\"b\",\"dso\":\"libc.so\",\"kind\":\"user\",\"depth\":3,\"self\":\"3\",\"total\":\"3\",\"stack\":[\"main\",\"a\",\"b\"]}");
        // A time range: the samples at 10 and 20.
        assert_eq!(s.flame(0, 10.0, 30.0, true).unwrap(), 6);
        assert_eq!(s.flame_rects(0).unwrap()[1], 3.0);
        let page = s.stack_functions(0, -1.0, -1.0, "total", true, "", 0, 10).unwrap();
        assert!(
            page.starts_with(
                "{\"total\":4,\"matching\":4,\"weight\":\"6\",\"start\":0,\"rows\":[{\"frame\":0,\"name\":\"main\""
            ),
            "{page}"
        );
        assert!(
            page.contains(
                "{\"frame\":2,\"name\":\"b\",\"dso\":\"libc.so\",\"kind\":\"user\",\"self\":\"5\",\"total\":\"5\"}"
            ),
            "{page}"
        );
        let by_name = s.stack_functions(0, -1.0, -1.0, "name", false, "B", 0, 10).unwrap();
        assert!(by_name.contains("\"matching\":1,"), "{by_name}");
        assert_eq!(s.search(0, -1.0, -1.0, "c").unwrap(), "{\"frames\":[3],\"weight\":\"2\",\"total\":\"6\"}");
        assert_eq!(s.timeline(0, 3).unwrap(), "{\"start\":0,\"end\":21,\"bins\":[3,1,2]}");
        s.sandwich(0, -1.0, -1.0, 2).unwrap();
        assert_eq!(s.flame_rows(1).unwrap(), vec![0, 1, 2, 4, 6]);
        assert_eq!(s.flame_rows(2).unwrap(), vec![0, 1, 2]);
        assert!(s.sandwich(0, -1.0, -1.0, 99).is_err());
        let names = s.frame_names().unwrap();
        assert_eq!(names, "{\"names\":[\"main\",\"a\",\"b\",\"c\"],\"dsos\":[\"libc.so\"],\"dso\":[-1,-1,0,-1],\"kinds\":[\"user\",\"user\",\"user\",\"user\"]}");
        // Files without stacks say so.
        let mut text = session("x.fdata", b"1 main 0 1 main 4 0 1\n");
        text.finish().unwrap();
        assert!(text.flame(0, 0.0, 0.0, false).is_err());
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
            assert!(opened.contains(&alloc::format!("\"format\":\"{id}\"")), "{opened}");
            let last = bytes.len() as u64 - 1;
            let found = s.path_to(last).unwrap();
            assert!(!found.starts_with("{\"path\":[]"), "{path}: {found}");
            assert_eq!(s.file_size(), bytes.len() as u64);
        }
    }
}
