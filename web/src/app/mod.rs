//! The page's state and the reducer that routes: the open documents, which one is
//! shown, and the requests queued for the worker. Everything the UI does goes
//! through [`State::update`]; each view's own state, messages and reducer part live
//! in its folder under [`crate::views`], and this module only hands them their
//! messages and the worker's replies. The reducer never talks to the worker: views
//! queue requests in [`State::outbox`], the app posts them after rendering and then
//! acknowledges them ([`Action::Posted`]). So the whole UI logic runs natively.
//!
//! Documents are behind `Rc` so that an action on one does not copy the others.

use std::collections::BTreeMap;
use std::rc::Rc;

use pgolens_protocol::{DocId, FileSummary, FromWorker, Phase as ReadPhase, Reply, ReqId, TableId, View};

use link::{FileRef, Params};

use crate::views::{
    bat, bolt_cfg, bolt_functions, bolt_records, call_tree, dump, flame, functions, memprof, sample_functions,
    sample_symbols, stack_chart, stack_functions, summary, symbols, table, transforms,
};

pub mod link;
pub mod outbox;

use outbox::Outbox;

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

/// What a document's format is for the page's cross-document rules.
pub trait Kind {
    /// A correlated raw profile waiting for its binary.
    fn needs_binary(&self) -> bool;
    fn is_elf(&self) -> bool;
    /// A binary or kallsyms file: what names the frames of a perf.data.
    fn names_frames(&self) -> bool;
    fn is_perf(&self) -> bool;
    /// A BOLT profile: its binary gives it graphs (fdata) and instructions.
    fn is_bolt(&self) -> bool;
}

impl Kind for FileSummary {
    fn needs_binary(&self) -> bool {
        self.format == "instrprof-raw" && self.views_error.as_ref().is_some_and(|e| e.message.contains("binary"))
    }

    fn is_elf(&self) -> bool {
        self.format == "elf" || self.format == "elf+bat"
    }

    fn names_frames(&self) -> bool {
        self.is_elf() || self.format == "kallsyms"
    }

    fn is_perf(&self) -> bool {
        self.format == "perf.data" || self.format == "perf.data-pipe"
    }

    fn is_bolt(&self) -> bool {
        self.format == "bolt-fdata" || self.format == "bolt-yaml"
    }
}

/// One open file.
#[derive(Clone, Debug, PartialEq)]
pub struct Doc {
    pub id: DocId,
    pub name: String,
    /// Size of the file as picked.
    pub size: u64,
    /// The embedded demo profile, not a file of the user's.
    pub demo: bool,
    pub phase: Phase,
    pub summary: Option<FileSummary>,
    /// The binary a correlated raw profile was decoded with.
    pub correlated_with: Option<String>,
    pub tab: View,
    /// The last failed request (expanding a node, finding an offset), shown as an alert.
    pub notice: Option<String>,
    /// The document shown when this one was added: a binary dropped for it gives
    /// the screen back to it.
    pub added_over: Option<DocId>,
    /// The last ELF this (correlated raw) file was offered to, so it is offered once.
    pub binary_tried: Option<DocId>,
    /// The link this document's view was restored from, until the person changes
    /// the view: applied again when the worker changes what the file offers (a
    /// binary correlated, frames named anew).
    pub linked: Option<Params>,
    /// Where the file came from when a link can bring it back: `("url", URL)` for
    /// a fetched file, `("data", DATA)` for one carried inside a link.
    pub source: Option<(String, String)>,
    /// The file's fingerprint (see [`link`]) once hashed; empty where the browser
    /// cannot hash (no WebCrypto outside secure contexts).
    pub fingerprint: Option<String>,
    pub dump: dump::Dump,
    pub functions: functions::Functions,
    pub profile_summary: summary::SummaryState,
    pub memprof: memprof::MemProf,
    pub stacks: flame::Stacks,
    pub call_tree: call_tree::CallTreeState,
    pub stack_chart: stack_chart::StackChartState,
    pub stack_functions: stack_functions::StackFunctions,
    pub bolt_functions: bolt_functions::BoltFunctions,
    pub bolt_cfg: bolt_cfg::BoltCfg,
    pub bolt_records: bolt_records::BoltRecords,
    pub bat: bat::BatState,
    pub sample_functions: sample_functions::SampleFunctions,
    pub sample_symbols: sample_symbols::SampleSymbols,
    /// A recording's symbol status (the panel under the status line).
    pub symbols: symbols::SymbolsState,
}

impl Doc {
    fn new(id: DocId, name: String, size: u64, demo: bool, added_over: Option<DocId>) -> Doc {
        Doc {
            id,
            name,
            size,
            demo,
            phase: Phase::Reading { loaded: 0, total: size },
            summary: None,
            correlated_with: None,
            tab: View::Dump,
            notice: None,
            added_over,
            binary_tried: None,
            linked: None,
            source: None,
            fingerprint: None,
            dump: dump::Dump::default(),
            functions: functions::Functions::default(),
            profile_summary: summary::SummaryState::default(),
            memprof: memprof::MemProf::default(),
            stacks: flame::Stacks::default(),
            call_tree: call_tree::CallTreeState::default(),
            stack_chart: stack_chart::StackChartState::default(),
            stack_functions: stack_functions::StackFunctions::default(),
            bolt_functions: bolt_functions::BoltFunctions::default(),
            bolt_cfg: bolt_cfg::BoltCfg::default(),
            bolt_records: bolt_records::BoltRecords::default(),
            bat: bat::BatState::default(),
            sample_functions: sample_functions::SampleFunctions::default(),
            sample_symbols: sample_symbols::SampleSymbols::default(),
            symbols: symbols::SymbolsState::default(),
        }
    }

    /// Whether the file has call stacks (a flame graph; its Functions tab is the stack one).
    pub fn has_stacks(&self) -> bool {
        self.summary.as_ref().is_some_and(|s| s.stacks.is_some())
    }

    /// Whether the samples of the file's stacks have times (a timeline).
    fn timed(&self) -> bool {
        self.summary.as_ref().and_then(|s| s.stacks.as_ref()).is_some_and(|s| s.end > s.start)
    }

    /// The views offered, in tab order.
    pub fn tabs(&self) -> Vec<View> {
        self.summary.as_ref().map(|s| s.views.clone()).unwrap_or_default()
    }

    fn offers(&self, view: View) -> bool {
        self.summary.as_ref().is_some_and(|s| s.views.contains(&view))
    }

    /// Asks for what the shown tab needs (idempotent: only what is missing).
    fn enter_tab(&mut self, out: &mut Outbox) {
        if self.phase != Phase::Ready {
            return;
        }
        let id = self.id;
        match self.tab {
            View::Flame | View::CallTree | View::StackChart | View::Functions if self.has_stacks() => {
                self.refresh_stacks(out);
            }
            View::Functions => self.functions.enter(id, out),
            View::Summary => self.profile_summary.enter(id, out),
            View::MemProf => self.memprof.enter(id, out),
            View::BoltFunctions => self.bolt_functions.enter(id, out),
            View::BoltCfg => self.bolt_cfg.enter(id, out),
            View::BoltBranches => self.bolt_records.enter(TableId::BoltBranches, id, out),
            View::BoltMemory => self.bolt_records.enter(TableId::BoltMemory, id, out),
            View::BoltSamples => self.bolt_records.enter(TableId::BoltSamples, id, out),
            View::Bat => self.bat.enter(id, out),
            View::SampleFunctions => self.sample_functions.enter(id, out),
            View::SampleSymbols => self.sample_symbols.enter(id, out),
            View::Dump | View::Flame | View::CallTree | View::StackChart => {}
        }
    }

    /// The stack views follow the flame graph's samples.
    fn refresh_stacks(&mut self, out: &mut Outbox) -> bool {
        if !self.has_stacks() || self.phase != Phase::Ready {
            return false;
        }
        let asked = self.stacks.refresh(self.id, self.timed(), out);
        let asked = self.tab == View::CallTree && self.call_tree.refresh(&self.stacks.samples, self.id, out) || asked;
        let asked =
            self.tab == View::StackChart && self.stack_chart.refresh(&self.stacks.samples, self.id, out) || asked;
        let shown = self.tab == View::Functions;
        self.stack_functions.refresh(&self.stacks.samples.clone(), shown, self.id, out) || asked
    }

    /// How a link names this file.
    pub fn file_ref(&self) -> link::FileRef {
        let id = self.fingerprint.as_deref().and_then(|f| f.get(..link::ID_DIGITS)).unwrap_or_default();
        link::FileRef { name: self.name.clone(), size: self.size, id: id.to_string() }
    }

    /// The shown view's part of a link (each view writes its own).
    fn write_link(&self, link: &mut Params) {
        match self.tab {
            View::Dump => self.dump.write_link(link),
            View::Flame | View::StackChart => {
                self.stacks.write_link(link);
                transforms::write_link(&self.stacks.samples.transforms, link);
            }
            View::CallTree => {
                self.stacks.write_link(link);
                transforms::write_link(&self.stacks.samples.transforms, link);
                self.call_tree.write_link(link);
            }
            View::Functions if self.has_stacks() => {
                self.stacks.write_link(link);
                transforms::write_link(&self.stacks.samples.transforms, link);
                self.stack_functions.table.write_link(link);
            }
            View::Functions => self.functions.table.write_link(link),
            View::Summary => {}
            View::MemProf => self.memprof.table.write_link(link),
            View::BoltFunctions => self.bolt_functions.table.write_link(link),
            View::BoltCfg => self.bolt_cfg.write_link(link),
            View::BoltBranches => self.bolt_records.branches.write_link(link),
            View::BoltMemory => self.bolt_records.memory.write_link(link),
            View::BoltSamples => self.bolt_records.samples.write_link(link),
            View::Bat => self.bat.table.write_link(link),
            View::SampleFunctions => self.sample_functions.table.write_link(link),
            View::SampleSymbols => self.sample_symbols.table.write_link(link),
        }
    }

    /// Shows the link's view, its part read by that view; a selected row is
    /// selected as a click selects it.
    fn read_link(&mut self, link: &Params, out: &mut Outbox) {
        let id = self.id;
        self.linked = Some(link.clone());
        if let Some(tab) = link.get("tab").and_then(crate::views::from_id).filter(|&t| self.offers(t)) {
            self.tab = tab;
        }
        let events = flame::Stacks::events(self.summary.as_ref().and_then(|s| s.stacks.as_ref()));
        let select = |table: &mut table::Table| table.read_link(link).map(table::Msg::Select);
        match self.tab {
            View::Dump => self.dump.read_link(link, id, out),
            View::Flame | View::StackChart => {
                self.stacks.read_link(link, events);
                self.stacks.samples.transforms = transforms::read_link(link);
            }
            View::CallTree => {
                self.stacks.read_link(link, events);
                self.stacks.samples.transforms = transforms::read_link(link);
                self.call_tree.read_link(link);
            }
            View::Functions if self.has_stacks() => {
                self.stacks.read_link(link, events);
                self.stacks.samples.transforms = transforms::read_link(link);
                self.stack_functions.table.selected = self.stack_functions.table.read_link(link);
            }
            View::Functions => {
                if let Some(msg) = select(&mut self.functions.table) {
                    self.functions.update(functions::Msg::Table(msg), id, out);
                }
            }
            View::Summary => {}
            View::MemProf => {
                if let Some(msg) = select(&mut self.memprof.table) {
                    self.memprof.update(msg, id, out);
                }
            }
            View::BoltFunctions => {
                self.bolt_functions.table.selected = self.bolt_functions.table.read_link(link);
            }
            View::BoltCfg => self.bolt_cfg.read_link(link),
            View::BoltBranches => self.bolt_records.branches.selected = self.bolt_records.branches.read_link(link),
            View::BoltMemory => self.bolt_records.memory.selected = self.bolt_records.memory.read_link(link),
            View::BoltSamples => self.bolt_records.samples.selected = self.bolt_records.samples.read_link(link),
            View::Bat => {
                if let Some(msg) = select(&mut self.bat.table) {
                    self.bat.update(msg, id, out);
                }
            }
            View::SampleFunctions => {
                if let Some(msg) = select(&mut self.sample_functions.table) {
                    let names = self.stacks.names.clone();
                    self.sample_functions.update(sample_functions::Msg::Table(msg), id, names, out);
                }
            }
            View::SampleSymbols => self.sample_symbols.table.selected = self.sample_symbols.table.read_link(link),
        }
        self.enter_tab(out);
        if self.has_stacks() && matches!(self.tab, View::Flame | View::CallTree | View::StackChart | View::Functions) {
            self.refresh_stacks(out);
        }
    }
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
    /// The file could not be handed to the worker.
    OpenFailed {
        doc: DocId,
        message: String,
    },
    Select(DocId),
    Close(DocId),
    SelectTab(View),
    /// Requests up to this sequence number were posted.
    Posted(ReqId),
    /// A message from the worker.
    Worker(Box<FromWorker>),
    // What the user does in a view of the current file.
    Dump(dump::Msg),
    Functions(functions::Msg),
    MemProf(table::Msg),
    Flame(flame::Msg),
    CallTree(call_tree::Msg),
    StackChart(stack_chart::Msg),
    /// Push or undo a transform of the current file's stacks.
    Transform(transforms::Msg),
    StackFunctions(table::Msg),
    BoltFunctions(table::Msg),
    BoltCfg(bolt_cfg::Msg),
    /// A message to one of an fdata profile's record tables.
    BoltRecords(TableId, table::Msg),
    Bat(table::Msg),
    /// Write the current BOLT profile out (`true`: as YAML), to save.
    ExportBolt(bool),
    /// The written profile was handed to the browser.
    ExportSaved,
    /// What the user does in a sample profile's Functions tab.
    SampleFunctions(sample_functions::Msg),
    SampleSymbols(table::Msg),
    /// Show or hide the current recording's symbol status.
    Symbols(symbols::Msg),
    /// Show what a link says (a reload, back or forward, a shared link): at once if
    /// its files are open, else once they are.
    Restore(Params),
    /// Stop waiting for a link's files.
    ForgetLink,
    /// Document `doc` came from a link's `url=` or `data=` (`key`, `value`): the
    /// link written for it keeps that, so a reload brings the file back by itself.
    Source {
        doc: DocId,
        key: String,
        value: String,
    },
}

impl Action {
    /// Whether this is the person changing what is shown (not the worker answering,
    /// nor a view asking for what it draws).
    fn changes_the_view(&self) -> bool {
        let asks = |msg: &table::Msg| matches!(msg, table::Msg::NeedRows { .. });
        match self {
            Action::Posted(_) | Action::Worker(_) | Action::Add { .. } | Action::OpenFailed { .. } => false,
            Action::Source { .. } | Action::ExportSaved => false,
            Action::Dump(dump::Msg::NeedBytes { .. }) => false,
            Action::BoltCfg(bolt_cfg::Msg::Resize(..) | bolt_cfg::Msg::Camera(_)) => false,
            Action::Functions(functions::Msg::Table(msg))
            | Action::SampleFunctions(sample_functions::Msg::Table(msg))
            | Action::MemProf(msg)
            | Action::StackFunctions(msg)
            | Action::BoltFunctions(msg)
            | Action::BoltRecords(_, msg)
            | Action::Bat(msg)
            | Action::SampleSymbols(msg) => !asks(msg),
            _ => true,
        }
    }
}

/// A link waiting for its files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Restoring {
    pub link: Params,
    /// Its files not open (or not yet read and hashed), in the link's order.
    pub missing: Vec<FileRef>,
    /// Open files that have a missing file's name and size but not its fingerprint.
    pub impostors: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct State {
    pub docs: Vec<Rc<Doc>>,
    pub current: Option<DocId>,
    pub outbox: Outbox,
    /// The view last chosen for each format: a file of the same format opens on it.
    chosen: BTreeMap<String, View>,
    /// A link whose files are not all open yet.
    pub restoring: Option<Restoring>,
}

impl State {
    pub fn doc(&self, id: DocId) -> Option<&Doc> {
        self.docs.iter().find(|d| d.id == id).map(Rc::as_ref)
    }

    pub fn current_doc(&self) -> Option<&Doc> {
        self.doc(self.current?)
    }

    /// Runs `f` on document `id` with the outbox; copies the document only when it is
    /// shared and `f` reports a change.
    fn with_doc(&mut self, id: DocId, f: impl FnOnce(&mut Doc, &mut Outbox) -> bool) -> bool {
        let Some(slot) = self.docs.iter_mut().find(|d| d.id == id) else { return false };
        let mut doc = Rc::clone(slot);
        let changed = f(Rc::make_mut(&mut doc), &mut self.outbox);
        if changed {
            *slot = doc;
        }
        changed
    }

    /// [`State::with_doc`] on the current document, once it is decoded.
    fn with_current(&mut self, f: impl FnOnce(&mut Doc, &mut Outbox) -> bool) -> bool {
        let Some(id) = self.current else { return false };
        self.with_doc(id, |doc, out| doc.phase == Phase::Ready && f(doc, out))
    }

    /// Applies `action`; returns whether anything changed (so the view need not
    /// re-render when nothing did).
    pub fn update(&mut self, action: Action) -> bool {
        if action.changes_the_view() {
            if let Some(doc) = self.current.filter(|&id| self.doc(id).is_some_and(|d| d.linked.is_some())) {
                self.with_doc(doc, |d, _| d.linked.take().is_some());
            }
        }
        match action {
            Action::Add { id, name, size, demo, select } => {
                self.docs.push(Rc::new(Doc::new(id, name, size, demo, self.current)));
                if select || self.current.is_none() {
                    self.current = Some(id);
                }
                true
            }
            Action::OpenFailed { doc, message } => self.with_doc(doc, |doc, _| {
                doc.phase = Phase::Failed(message);
                true
            }),
            Action::Select(id) => {
                if self.current == Some(id) || self.doc(id).is_none() {
                    return false;
                }
                self.current = Some(id);
                self.show_chosen_view(id);
                true
            }
            Action::Close(id) => {
                let Some(at) = self.docs.iter().position(|d| d.id == id) else { return false };
                let removed = self.docs.remove(at);
                self.outbox.send(id, pgolens_protocol::Request::Close);
                // A profile that counted a BOLTed binary's blocks is gone.
                if removed.summary.as_ref().is_some_and(|s| s.is_bolt() || s.branch_profile) {
                    let others: Vec<DocId> = self.docs.iter().map(|d| d.id).collect();
                    for other in others {
                        self.with_doc(other, |d, out| d.bat.reload(other, out));
                    }
                }
                if self.current == Some(id) {
                    let next = at.min(self.docs.len().saturating_sub(1));
                    self.current = self.docs.get(next).map(|d| d.id);
                }
                true
            }
            Action::SelectTab(tab) => {
                let mut format = None;
                let changed = self.with_current(|doc, out| {
                    if !doc.offers(tab) || doc.tab == tab {
                        return false;
                    }
                    doc.tab = tab;
                    format = doc.summary.as_ref().map(|s| s.format.clone());
                    doc.enter_tab(out);
                    true
                });
                if let Some(format) = format {
                    self.chosen.insert(format, tab);
                }
                changed
            }
            Action::Posted(upto) => self.outbox.posted(upto),
            Action::Worker(msg) => self.reply(*msg),
            Action::Dump(msg) => self.with_current(|doc, out| doc.dump.update(msg, doc.id, out)),
            Action::Functions(msg) => self.with_current(|doc, out| doc.functions.update(msg, doc.id, out)),
            Action::MemProf(msg) => self.with_current(|doc, out| doc.memprof.update(msg, doc.id, out)),
            Action::BoltFunctions(msg) => self.with_current(|doc, out| {
                let (changed, selected) = doc.bolt_functions.update(msg, doc.id, out);
                // A row opens its function's graph, when the profile has graphs.
                match selected {
                    Some(row) if doc.offers(View::BoltCfg) => {
                        doc.bolt_cfg.open(row, doc.id, out);
                        doc.tab = View::BoltCfg;
                        true
                    }
                    _ => changed,
                }
            }),
            Action::BoltCfg(msg) => self.with_current(|doc, out| doc.bolt_cfg.update(msg, doc.id, out)),
            Action::ExportBolt(yaml) => self.with_current(|doc, out| doc.bolt_functions.export(yaml, doc.id, out)),
            Action::ExportSaved => self.with_current(|doc, _| doc.bolt_functions.saved()),
            Action::Bat(msg) => self.with_current(|doc, out| doc.bat.update(msg, doc.id, out)),
            Action::SampleFunctions(msg) => self.with_current(|doc, out| {
                let names = doc.stacks.names.clone();
                doc.sample_functions.update(msg, doc.id, names, out)
            }),
            Action::SampleSymbols(msg) => self.with_current(|doc, out| doc.sample_symbols.update(msg, doc.id, out)),
            Action::Symbols(msg) => {
                self.with_current(|doc, out| doc.has_stacks() && doc.symbols.update(msg, doc.id, out))
            }
            Action::Restore(link) => {
                // Which of its files are missing is for try_restore to find.
                self.restoring = Some(Restoring { link, ..Restoring::default() });
                self.try_restore();
                true
            }
            Action::ForgetLink => self.restoring.take().is_some(),
            Action::Source { doc, key, value } => self.with_doc(doc, |d, _| {
                d.source = Some((key, value));
                true
            }),
            Action::BoltRecords(table, msg) => {
                self.with_current(|doc, out| doc.bolt_records.update(table, msg, doc.id, out))
            }
            Action::StackFunctions(msg) => {
                self.with_current(|doc, out| doc.has_stacks() && doc.stack_functions.update(msg, doc.id, out))
            }
            Action::StackChart(msg) => self.with_current(|doc, out| {
                let changed = doc.has_stacks() && doc.stack_chart.update(msg);
                if changed {
                    doc.refresh_stacks(out);
                }
                changed
            }),
            Action::CallTree(msg) => self.with_current(|doc, out| {
                let changed = doc.has_stacks() && doc.call_tree.update(msg);
                if changed {
                    doc.refresh_stacks(out);
                }
                changed
            }),
            Action::Transform(msg) => self.with_current(|doc, out| {
                let changed = doc.has_stacks() && transforms::update(&mut doc.stacks.samples.transforms, msg);
                if changed {
                    doc.refresh_stacks(out);
                }
                changed
            }),
            Action::Flame(msg) => self.with_current(|doc, out| {
                if !doc.has_stacks() {
                    return false;
                }
                let sandwich = matches!(msg, flame::Msg::ShowSandwich(Some(_)));
                let events = flame::Stacks::events(doc.summary.as_ref().and_then(|s| s.stacks.as_ref()));
                let flame::Changed { changed, refresh } = doc.stacks.update(msg, events);
                // A sandwich asked for from another tab (a Functions row) shows the graph.
                if changed && sandwich {
                    doc.tab = View::Flame;
                }
                if refresh {
                    doc.refresh_stacks(out);
                }
                changed
            }),
        }
    }

    /// The link to what is on screen: the open files, the shown one, its view and
    /// that view's part; while a link waits for its files, that link.
    pub fn link(&self) -> Params {
        if let Some(restoring) = &self.restoring {
            return restoring.link.clone();
        }
        let mut link = Params::default();
        let linked = self.linked_docs();
        let source = |doc: &Doc, key: &str| doc.source.as_ref().filter(|(k, _)| k == key).map(|(_, v)| v.clone());
        for url in linked.iter().filter_map(|d| source(d, "url")) {
            link.push("url", url);
        }
        for doc in &linked {
            link.push("file", doc.file_ref().value());
        }
        // `data=` stands for the files in order: kept only when every file came so.
        let data: Option<Vec<String>> = linked.iter().map(|d| source(d, "data")).collect();
        for data in data.filter(|d| !d.is_empty()).unwrap_or_default() {
            link.push("data", data);
        }
        let Some(doc) = self.current_doc() else { return link };
        if let Some(index) = linked.iter().position(|d| d.id == doc.id) {
            link.push("doc", index.to_string());
        }
        if doc.phase == Phase::Ready {
            link.push("tab", crate::views::id(doc.tab));
            doc.write_link(&mut link);
        }
        link
    }

    /// The documents a link names, in its order: all but those that failed.
    pub fn linked_docs(&self) -> Vec<Rc<Doc>> {
        self.docs.iter().filter(|d| !matches!(d.phase, Phase::Failed(_))).cloned().collect()
    }

    /// Shows the waiting link once every file it names is open, read and hashed:
    /// each is matched to an open file of the same size and fingerprint (the same
    /// name preferred), and those still missing are listed for the page to ask for.
    fn try_restore(&mut self) {
        let Some(restoring) = &self.restoring else { return };
        let mut used: Vec<DocId> = Vec::new();
        let mut missing = Vec::new();
        let mut impostors = Vec::new();
        for file in restoring.link.all("file").filter_map(FileRef::parse) {
            let hashed = |d: &&Rc<Doc>| d.phase == Phase::Ready && d.fingerprint.is_some() && !used.contains(&d.id);
            let same = |d: &&Rc<Doc>| file.matches(d.size, d.fingerprint.as_deref().filter(|f| !f.is_empty()));
            let found = self.docs.iter().filter(hashed).filter(same).max_by_key(|d| d.name == file.name);
            match found {
                Some(doc) => used.push(doc.id),
                None => {
                    // Decoded or not: a damaged copy is the likeliest impostor.
                    let impostor = self.docs.iter().find(|d| {
                        d.name == file.name
                            && d.size == file.size
                            && d.fingerprint.as_deref().is_some_and(|f| !f.is_empty())
                    });
                    if let Some(doc) = impostor {
                        impostors.push(doc.name.clone());
                    }
                    missing.push(file);
                }
            }
        }
        if !missing.is_empty() {
            if let Some(r) = self.restoring.as_mut() {
                r.missing = missing;
                r.impostors = impostors;
            }
            return;
        }
        let Some(restoring) = self.restoring.take() else { return };
        let link = restoring.link;
        let shown = link.number::<usize>("doc").and_then(|i| used.get(i)).or(used.first()).copied();
        let Some(shown) = shown else { return };
        self.current = Some(shown);
        self.with_doc(shown, |doc, out| {
            doc.read_link(&link, out);
            true
        });
    }

    /// Shows the view last chosen for the format of `id`, if it offers it.
    fn show_chosen_view(&mut self, id: DocId) {
        let chosen = self.doc(id).and_then(|d| d.summary.as_ref()).and_then(|s| self.chosen.get(&s.format)).copied();
        self.with_doc(id, |doc, out| {
            if let Some(view) = chosen.filter(|&v| doc.offers(v)) {
                doc.tab = view;
            }
            doc.enter_tab(out);
            true
        });
    }

    /// Routes a worker message to the document and the view it is about.
    fn reply(&mut self, msg: FromWorker) -> bool {
        let FromWorker { doc, req, reply } = msg;
        match reply {
            Reply::Progress { loaded, total, phase } => self.with_doc(doc, |d, _| {
                d.phase = match phase {
                    ReadPhase::Read => Phase::Reading { loaded, total },
                    ReadPhase::Decode => Phase::Decoding { done: loaded, total },
                };
                true
            }),
            Reply::Opened(opened) => {
                let changed = self.with_doc(doc, |d, _| {
                    d.phase = Phase::Ready;
                    d.dump = dump::Dump::opened(opened.root, opened.children, opened.summary.size);
                    d.tab = opened.summary.open_on;
                    d.summary = Some(opened.summary);
                    true
                });
                self.opened(doc);
                self.try_restore();
                changed
            }
            Reply::Fingerprint { hex, size } => {
                let changed = self.with_doc(doc, |d, _| {
                    d.fingerprint = Some(hex);
                    d.size = size;
                    true
                });
                self.try_restore();
                changed
            }
            Reply::Failed(failure) => match req {
                None => self.with_doc(doc, |d, _| {
                    d.phase = Phase::Failed(failure.message);
                    true
                }),
                Some(req) => self.with_doc(doc, |d, _| {
                    d.functions.table.failed(req);
                    d.memprof.table.failed(req);
                    d.stack_functions.table.failed(req);
                    d.bolt_functions.table.failed(req);
                    d.bolt_records.failed(req);
                    d.bat.table.failed(req);
                    d.sample_functions.table.failed(req);
                    d.sample_symbols.table.failed(req);
                    d.bolt_functions.exporting = false;
                    d.sample_functions.exporting = None;
                    if d.bolt_cfg.failed(req, &failure.message) {
                        return true;
                    }
                    d.dump.failed(req);
                    d.notice = Some(failure.message);
                    true
                }),
            },
            Reply::Correlated { binary, binary_name, views } => {
                // A BOLTed binary's BAT picture is asked again: the profile may count its blocks.
                self.with_doc(binary, |d, out| d.bat.reload(binary, out));
                self.with_doc(doc, |d, out| {
                    let Some(summary) = d.summary.as_mut() else { return false };
                    summary.views = views;
                    summary.views_error = None;
                    d.correlated_with = Some(binary_name);
                    d.notice = None;
                    // A BOLT profile's graph is asked again, with its code.
                    d.bolt_cfg.reload();
                    d.enter_tab(out);
                    // A link's view may be one the binary brings.
                    if let Some(link) = d.linked.clone() {
                        d.read_link(&link, out);
                    }
                    true
                })
            }
            Reply::Symbolized { stacks, with } => {
                let current = self.current == Some(doc);
                self.with_doc(doc, |d, out| {
                    let Some(summary) = d.summary.as_mut() else { return false };
                    summary.stacks = Some(stacks);
                    d.stacks.symbolized(with);
                    d.symbols.symbolized(doc, out);
                    d.call_tree.symbolized();
                    d.stack_chart.symbolized();
                    // The table keeps its order and filter; its rows are asked again.
                    let query = pgolens_protocol::TableQuery { samples: None, ..d.stack_functions.table.query.clone() };
                    d.stack_functions = stack_functions::StackFunctions::default();
                    d.stack_functions.table.query = query;
                    // A link's frames are named the way they are now.
                    if let Some(link) = d.linked.clone() {
                        d.read_link(&link, out);
                    }
                    if current {
                        d.refresh_stacks(out);
                    }
                    true
                })
            }
            reply @ (Reply::Children { .. } | Reply::Bytes { .. } | Reply::Path { .. }) => {
                self.with_doc(doc, |d, _| d.dump.on_reply(req, &reply))
            }
            Reply::Table(page) => self.with_doc(doc, |d, _| match page.query.table {
                pgolens_protocol::TableId::Functions => d.functions.on_reply(Reply::Table(page)),
                pgolens_protocol::TableId::MemProf => d.memprof.on_reply(Reply::Table(page)),
                pgolens_protocol::TableId::StackFunctions => d.stack_functions.on_reply(Reply::Table(page)),
                pgolens_protocol::TableId::BoltFunctions => d.bolt_functions.on_reply(Reply::Table(page)),
                TableId::BatFunctions => d.bat.on_reply(Reply::Table(page)),
                TableId::BoltBranches | TableId::BoltMemory | TableId::BoltSamples => {
                    d.bolt_records.on_reply(Reply::Table(page))
                }
                TableId::SampleFunctions => d.sample_functions.on_reply(Reply::Table(page)),
                TableId::SampleSymbols => d.sample_symbols.on_reply(Reply::Table(page)),
            }),
            Reply::BoltCfg(graph) => self.with_doc(doc, |d, _| d.bolt_cfg.loaded(req, *graph)),
            // Without a request, a folder's status: shown at once.
            Reply::Symbols(status) => self.with_doc(doc, |d, _| d.symbols.loaded(*status, req.is_none())),
            reply @ Reply::Summary { .. } => self.with_doc(doc, |d, _| d.profile_summary.on_reply(reply)),
            reply @ Reply::Function(_) => self.with_doc(doc, |d, _| d.functions.on_reply(reply)),
            reply @ Reply::Exported { .. } => self.with_doc(doc, |d, _| {
                if d.sample_functions.exporting.is_some() {
                    d.sample_functions.on_reply(reply)
                } else {
                    d.bolt_functions.on_reply(reply)
                }
            }),
            reply @ Reply::SampleFunction(_) => self.with_doc(doc, |d, _| d.sample_functions.on_reply(reply)),
            reply @ Reply::BatFunction(_) => self.with_doc(doc, |d, _| d.bat.on_reply(reply)),
            reply @ Reply::MemProfSite(_) => self.with_doc(doc, |d, _| d.memprof.on_reply(reply)),
            // A graph rooted at a sample profile's function is that function's.
            reply @ (Reply::Flame { samples: pgolens_protocol::SampleFilter { root: Some(_), .. }, .. }
            | Reply::Sandwich { samples: pgolens_protocol::SampleFilter { root: Some(_), .. }, .. }
            | Reply::Search { samples: pgolens_protocol::SampleFilter { root: Some(_), .. }, .. }) => {
                self.with_doc(doc, |d, _| d.sample_functions.inline.on_reply(reply))
            }
            Reply::FrameNames(names) => self.with_doc(doc, |d, _| {
                let names = Rc::new(*names);
                d.stacks.names_arrived(Rc::clone(&names));
                d.sample_functions.inline.names_arrived(names);
                true
            }),
            reply @ Reply::CallTree { .. } => self.with_doc(doc, |d, _| d.call_tree.on_reply(reply)),
            reply @ Reply::StackChart { .. } => self.with_doc(doc, |d, _| d.stack_chart.on_reply(reply)),
            reply @ (Reply::Flame { .. } | Reply::Sandwich { .. } | Reply::Search { .. } | Reply::Timeline(_)) => {
                self.with_doc(doc, |d, _| d.stacks.on_reply(reply))
            }
        }
    }

    /// A document was decoded: it opens on the view chosen last for its format (else
    /// its most useful one), a binary dropped for a recording gives the screen back
    /// to the recording, and binaries are offered to the files that can use them.
    fn opened(&mut self, id: DocId) {
        let Some(doc) = self.doc(id) else { return };
        let names_frames = doc.summary.as_ref().is_some_and(Kind::names_frames);
        let back = doc.added_over.filter(|_| names_frames && self.current == Some(id)).filter(|&over| {
            self.doc(over).is_some_and(|o| {
                o.has_stacks()
                    || o.summary.as_ref().is_some_and(|s| s.needs_binary() || s.is_bolt() || s.branch_profile)
            })
        });
        match back {
            Some(over) => self.current = Some(over),
            None if self.current == Some(id) => self.show_chosen_view(id),
            None => {
                let chosen = doc.summary.as_ref().and_then(|s| self.chosen.get(&s.format)).copied();
                self.with_doc(id, |d, _| {
                    if let Some(view) = chosen.filter(|&v| d.offers(v)) {
                        d.tab = view;
                    }
                    true
                });
            }
        }
        self.offer_binary();
    }

    /// Offers the newest open ELF to every correlated raw profile waiting for its
    /// binary, and every BOLT profile without one, that has not tried it yet: the
    /// worker decodes the raw profile with it, or reads the BOLT profile's code
    /// from it if most of the profile's counts are in its functions.
    fn offer_binary(&mut self) {
        self.offer_symbols();
        let ready = |d: &&Rc<Doc>| d.phase == Phase::Ready;
        let Some(elf) = self.docs.iter().filter(ready).rev().find(|d| d.summary.as_ref().is_some_and(Kind::is_elf))
        else {
            return;
        };
        let binary = elf.id;
        let waiting: Vec<DocId> = self
            .docs
            .iter()
            .filter(ready)
            .filter(|d| {
                d.summary.as_ref().is_some_and(|s| {
                    s.needs_binary() || ((s.is_bolt() || s.branch_profile) && d.correlated_with.is_none())
                }) && d.binary_tried != Some(binary)
            })
            .map(|d| d.id)
            .collect();
        for doc in waiting {
            self.with_doc(doc, |d, out| {
                out.send(doc, pgolens_protocol::Request::Correlate { binary });
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
            .filter(|d| d.summary.as_ref().is_some_and(Kind::names_frames))
            .map(|d| d.id)
            .collect();
        if files.is_empty() {
            return;
        }
        let perf: Vec<DocId> = self
            .docs
            .iter()
            .filter(ready)
            .filter(|d| d.has_stacks() && d.summary.as_ref().is_some_and(Kind::is_perf))
            .filter(|d| d.stacks.symbols_offered != files)
            .map(|d| d.id)
            .collect();
        for doc in perf {
            let binaries = files.clone();
            self.with_doc(doc, |d, out| {
                out.send(doc, pgolens_protocol::Request::Symbolize { binaries });
                d.stacks.symbols_offered = files.clone();
                true
            });
        }
    }
}

#[cfg(test)]
mod tests;
