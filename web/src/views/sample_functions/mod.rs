//! The Functions view of a sample profile (LLVM, AutoFDO, GCOV v4): the function
//! table (the shared paged table), the selected function's line heat (its lines and
//! inlined callsites, each callsite opened in place, recursively), its inline tree as
//! a flame graph (a [`Stacks`] rooted at the function: the flame graph view's state
//! and component), and the profile's downloads in other formats.

use std::collections::BTreeSet;
use std::rc::Rc;

use pgolens_protocol::{DocId, FrameNames, Reply, Request, SampleExport, SampleFilter, SampleFnDetail, TableId};

use crate::app::outbox::Outbox;
use crate::views::flame::{self, Stacks};
use crate::views::table::{self, Table};

#[cfg(target_arch = "wasm32")]
mod line_heat;
#[cfg(target_arch = "wasm32")]
pub mod sample_functions_view;

#[derive(Clone, Debug, PartialEq)]
pub enum Msg {
    Table(table::Msg),
    /// Open or close the inlined callsite of line-heat row `row`.
    ToggleInline(u32),
    /// Open (`true`) or close every inlined callsite.
    ExpandAll(bool),
    /// The inline tree's flame graph.
    Flame(flame::Msg),
    /// Write the profile out in this format, to save.
    Export(SampleExport),
    /// The written profile was handed to the browser.
    Saved,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SampleFunctions {
    pub table: Table,
    pub detail: Option<Rc<SampleFnDetail>>,
    /// The line-heat rows (inline rows) opened, by index.
    pub expanded: BTreeSet<u32>,
    /// The selected function's inline tree.
    pub inline: Stacks,
    /// The format being written.
    pub exporting: Option<SampleExport>,
    /// The file the worker wrote, to be saved (name, bytes); taken once saved.
    pub exported: Option<Rc<(String, Vec<u8>)>>,
}

impl Default for SampleFunctions {
    fn default() -> Self {
        SampleFunctions {
            table: Table::new(TableId::SampleFunctions),
            detail: None,
            expanded: BTreeSet::new(),
            inline: Stacks::default(),
            exporting: None,
            exported: None,
        }
    }
}

impl SampleFunctions {
    /// Applies `msg`; `names`: the file's frame names when they have come (the
    /// inline graph shares them with the Flame graph tab).
    pub fn update(&mut self, msg: Msg, doc: DocId, names: Option<Rc<FrameNames>>, out: &mut Outbox) -> bool {
        match msg {
            Msg::Table(msg) => {
                let (changed, selected) = self.table.update(msg, doc, out);
                if let Some(row) = selected {
                    self.select(row, doc, names, out);
                }
                changed
            }
            Msg::ToggleInline(row) => {
                if !self.expanded.remove(&row) {
                    self.expanded.insert(row);
                }
                true
            }
            Msg::ExpandAll(open) => {
                let before = self.expanded.len();
                self.expanded.clear();
                if open {
                    if let Some(d) = &self.detail {
                        self.expanded.extend((0u32..).zip(&d.rows).filter(|(_, r)| r.callee.is_some()).map(|(i, _)| i));
                    }
                }
                before != self.expanded.len() || open
            }
            // One function, one event, no times: nothing to pick or invert.
            Msg::Flame(flame::Msg::SetEvent(_) | flame::Msg::ToggleInverted | flame::Msg::SelectTimeRange(_)) => false,
            Msg::Flame(msg) => {
                let flame::Changed { changed, refresh } = self.inline.update(msg, 1);
                if refresh {
                    self.inline.refresh(doc, false, out);
                }
                changed
            }
            Msg::Export(to) => {
                if self.exporting.is_some() {
                    return false;
                }
                self.exporting = Some(to);
                out.send(doc, Request::ExportSample { to });
                true
            }
            Msg::Saved => self.exported.take().is_some(),
        }
    }

    /// A row was selected: its detail, and its inline tree laid out from it.
    fn select(&mut self, row: u32, doc: DocId, names: Option<Rc<FrameNames>>, out: &mut Outbox) {
        out.send(doc, Request::SampleFunction { row });
        self.expanded.clear();
        let (names, names_asked) = match names.or_else(|| self.inline.names.take()) {
            Some(names) => (Some(names), true),
            None => (None, self.inline.names_asked),
        };
        self.inline = Stacks {
            samples: SampleFilter { root: Some(row), ..SampleFilter::default() },
            names,
            names_asked,
            search: std::mem::take(&mut self.inline.search),
            ..Stacks::default()
        };
        self.inline.refresh(doc, false, out);
    }

    /// Shows the first rows (the tab was opened).
    pub fn enter(&mut self, doc: DocId, out: &mut Outbox) {
        self.table.need_rows(0, table::FIRST_PAGE, doc, out);
    }

    pub fn on_reply(&mut self, reply: Reply) -> bool {
        match reply {
            Reply::Table(page) if page.query.table == TableId::SampleFunctions => self.table.loaded(page),
            Reply::SampleFunction(detail) => {
                if self.table.selected != Some(detail.id) {
                    return false;
                }
                self.detail = Some(Rc::new(*detail));
                true
            }
            Reply::Exported { name, bytes } if self.exporting.is_some() => {
                self.exporting = None;
                self.exported = Some(Rc::new((name, bytes.0)));
                true
            }
            _ => false,
        }
    }

    /// The detail's rows shown: every row but those under a closed inline row.
    pub fn shown_rows(&self) -> Vec<u32> {
        let Some(detail) = &self.detail else { return Vec::new() };
        let mut shown = Vec::new();
        let mut i = 0usize;
        while let Some(row) = detail.rows.get(i) {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            shown.push(index);
            i += 1;
            if row.callee.is_some() && !self.expanded.contains(&index) {
                i = i.saturating_add(row.descendants as usize);
            }
        }
        shown
    }
}
