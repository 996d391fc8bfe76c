//! The one paged table: every table of the page (instrprof functions, stack
//! functions, MemProf sites, and those to come) is this state and its component,
//! drawn from the columns the worker describes. The page asks for the rows it shows
//! (with a margin), under a sort order and a name filter; replies to an older query
//! are dropped. Column widths a user dragged are kept here too; their geometry is
//! [`columns`].

use std::collections::BTreeMap;
use std::rc::Rc;

use pgolens_protocol::{Column, DocId, ReqId, Request, Row, SampleFilter, TableId, TablePage, TableQuery};

use crate::app::link::Params;
use crate::app::outbox::Outbox;

pub mod columns;
#[cfg(target_arch = "wasm32")]
pub mod table_view;

/// A table asks for this many rows beyond the visible ones, each side.
pub const MARGIN: u64 = 64;
/// Rows asked for before the table has measured itself.
pub const FIRST_PAGE: u64 = 64;

/// What the user does to a table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Msg {
    /// A header was clicked: sort by that column id (again: reverse).
    Sort(String),
    Filter(String),
    /// The table shows matching rows `start..end`.
    NeedRows {
        start: u64,
        end: u64,
    },
    /// A row was clicked, or Enter pressed on it (its stable id).
    Select(u32),
    /// A column's edge was dragged, or its resize handle moved by a key: the
    /// track's key ([`columns::Track::key`]) and its new width in CSS px.
    Resize {
        track: String,
        px: u32,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub query: TableQuery,
    /// The columns, as the worker described them (empty until the first page).
    pub columns: Rc<Vec<Column>>,
    /// Rows in the whole table, once known.
    pub total: Option<u64>,
    /// Rows matching the filter, once known.
    pub matching: Option<u64>,
    /// What shares are shares of.
    pub weight: Option<u64>,
    /// The held rows are `start..start + rows.len()` of the matching rows.
    pub start: u64,
    pub rows: Rc<Vec<Row>>,
    /// The range asked for and not yet received, under the current query.
    pub pending: Option<(u64, u64)>,
    pub selected: Option<u32>,
    /// Widths the user chose, in CSS px, by track key; the others are computed.
    pub widths: Rc<BTreeMap<String, u32>>,
}

impl Table {
    pub fn new(table: TableId) -> Table {
        Table {
            query: TableQuery::new(table),
            columns: Rc::default(),
            total: None,
            matching: None,
            weight: None,
            start: 0,
            rows: Rc::default(),
            pending: None,
            selected: None,
            widths: Rc::default(),
        }
    }

    pub fn row(&self, index: u64) -> Option<&Row> {
        self.rows.get(usize::try_from(index.checked_sub(self.start)?).ok()?)
    }

    pub fn column(&self, id: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.id == id)
    }

    /// Applies `msg`; a selected row is returned for the view to ask for its detail.
    pub fn update(&mut self, msg: Msg, doc: DocId, out: &mut Outbox) -> (bool, Option<u32>) {
        match msg {
            Msg::Sort(column) => {
                let Some(col) = self.column(&column).filter(|c| c.sortable) else { return (false, None) };
                let descending =
                    if self.query.column == column { !self.query.descending } else { col.descending_first };
                let query = TableQuery { column, descending, ..self.query.clone() };
                self.requery(query, doc, out);
                (true, None)
            }
            Msg::Filter(filter) => {
                if self.query.filter == filter {
                    return (false, None);
                }
                let query = TableQuery { filter, ..self.query.clone() };
                self.requery(query, doc, out);
                (true, None)
            }
            Msg::NeedRows { start, end } => (self.need_rows(start, end, doc, out), None),
            Msg::Select(row) => {
                if self.selected == Some(row) {
                    return (false, None);
                }
                self.selected = Some(row);
                (true, Some(row))
            }
            Msg::Resize { track, px } => {
                if self.widths.get(&track) == Some(&px) {
                    return (false, None);
                }
                Rc::make_mut(&mut self.widths).insert(track, px);
                (true, None)
            }
        }
    }

    /// A new sort order, filter or sample set: the held rows no longer apply; asks
    /// again for the first page (the table scrolls back to the top).
    pub fn requery(&mut self, query: TableQuery, doc: DocId, out: &mut Outbox) {
        self.query = query.clone();
        self.rows = Rc::default();
        self.start = 0;
        self.matching = None;
        let count = FIRST_PAGE.saturating_add(MARGIN);
        out.send(doc, Request::Table { query, start: 0, count });
        self.pending = Some((0, count));
    }

    /// Asks for what rows `start..end` need; returns whether it asked.
    pub fn need_rows(&mut self, start: u64, end: u64, doc: DocId, out: &mut Outbox) -> bool {
        let Some((from, to)) = rows_to_ask(self.matching, (self.start, self.rows.len()), self.pending, start, end)
        else {
            return false;
        };
        let query = self.query.clone();
        out.send(doc, Request::Table { query, start: from, count: to.saturating_sub(from) });
        self.pending = Some((from, to));
        true
    }

    /// Re-asks the first page under other samples (a stack table follows the flame graph's).
    pub fn follow_samples(&mut self, samples: &SampleFilter, doc: DocId, out: &mut Outbox) -> bool {
        if self.query.samples.as_ref() == Some(samples) {
            return false;
        }
        let query = TableQuery { samples: Some(samples.clone()), ..self.query.clone() };
        self.requery(query, doc, out);
        true
    }

    /// The table's part of a link: `sort` (the column id, after a `-` when
    /// descending), `filter`, and `row` (the selected row's id).
    pub fn write_link(&self, link: &mut Params) {
        if !self.query.column.is_empty() {
            let sign = if self.query.descending { "-" } else { "" };
            link.push("sort", format!("{sign}{}", self.query.column));
        }
        if !self.query.filter.is_empty() {
            link.push("filter", self.query.filter.clone());
        }
        if let Some(row) = self.selected {
            link.push("row", row.to_string());
        }
    }

    /// Takes a link's order, filter and selected row; the rows held no longer apply
    /// (entering the view asks for them). Returns the selected row, for the view to
    /// ask for what a click on it asks.
    pub fn read_link(&mut self, link: &Params) -> Option<u32> {
        if let Some(sort) = link.get("sort").filter(|s| !s.is_empty()) {
            let column = sort.strip_prefix('-').unwrap_or(sort);
            self.query.descending = column.len() != sort.len();
            self.query.column = column.to_string();
        }
        self.query.filter = link.get("filter").unwrap_or_default().to_string();
        self.rows = Rc::default();
        self.start = 0;
        self.matching = None;
        self.pending = None;
        self.selected = None;
        link.number("row")
    }

    /// A page arrived; one for an older query is dropped.
    pub fn loaded(&mut self, page: TablePage) -> bool {
        // Until the first reply the query may name no column (the table's default):
        // the worker's resolved query is adopted then.
        let same = if self.query.column.is_empty() {
            page.query.table == self.query.table
                && page.query.filter == self.query.filter
                && page.query.samples == self.query.samples
        } else {
            page.query == self.query
        };
        if !same {
            return false;
        }
        self.query = page.query;
        self.pending = None;
        self.columns = Rc::new(page.columns);
        self.total = Some(page.total);
        self.matching = Some(page.matching);
        self.weight = page.weight;
        self.start = page.start;
        self.rows = Rc::new(page.rows);
        true
    }

    /// A request failed: whatever was pending may be asked again.
    pub fn failed(&mut self, _req: ReqId) {
        self.pending = None;
    }
}

/// The rows a paged table asks the worker for so that rows `start..end` can be
/// drawn, with [`MARGIN`] each side; `None` when the rows held (`held` rows from
/// `first`) or the request under way already cover them. `known` is the table's
/// row count once the worker has said it.
pub fn rows_to_ask(
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
    let from = start.saturating_sub(MARGIN);
    let to = end.max(start.saturating_add(1)).saturating_add(MARGIN);
    Some((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pgolens_protocol::{Cell, CellKind};

    fn col(id: &str, kind: CellKind, descending_first: bool) -> Column {
        Column { id: id.into(), title: id.into(), kind, descending_first, share: false, sortable: true, help: None }
    }

    fn page(query: TableQuery, rows: std::ops::Range<u32>) -> TablePage {
        TablePage {
            query,
            columns: vec![col("name", CellKind::Name, false), col("total", CellKind::Count, true)],
            total: 1000,
            matching: 1000,
            weight: None,
            start: u64::from(rows.start),
            rows: rows.map(|id| Row { id, cells: vec![Cell::Text(id.to_string()), Cell::Count(id.into())] }).collect(),
        }
    }

    fn asked(out: &mut Outbox) -> Vec<Request> {
        out.queue.drain(..).map(|e| e.request).collect()
    }

    #[test]
    fn sorting_toggles_by_column_id_from_its_default_direction_and_drops_stale_pages() {
        let mut out = Outbox::default();
        let mut t = Table::new(TableId::Functions);
        assert!(t.need_rows(0, 20, 1, &mut out));
        // The first reply resolves the default order.
        let mut resolved = t.query.clone();
        resolved.column = "total".into();
        assert!(t.loaded(page(resolved.clone(), 0..84)));
        assert_eq!(t.query.column, "total");
        assert_eq!(asked(&mut out).len(), 1);

        // A name column sorts A→Z first, a count largest first; again: reversed.
        t.update(Msg::Sort("name".into()), 1, &mut out);
        assert_eq!((t.query.column.as_str(), t.query.descending), ("name", false));
        t.update(Msg::Sort("name".into()), 1, &mut out);
        assert!(t.query.descending);
        t.update(Msg::Sort("total".into()), 1, &mut out);
        assert!(t.query.descending);
        assert!(matches!(&asked(&mut out)[..], [Request::Table { start: 0, .. }, _, _]));
        assert!(t.rows.is_empty(), "a new order drops the held rows");
        // Unknown columns are not sorted by.
        assert_eq!(t.update(Msg::Sort("bogus".into()), 1, &mut out), (false, None));

        // The page of an older order is dropped; the current one is taken.
        assert!(!t.loaded(page(TableQuery { column: "name".into(), ..resolved.clone() }, 0..10)));
        assert!(t.loaded(page(t.query.clone(), 0..84)));
        assert_eq!((t.matching, t.rows.len()), (Some(1000), 84));
        // Rows already held are not asked again; rows further on are, with a margin.
        assert!(!t.need_rows(10, 30, 1, &mut out));
        assert!(t.need_rows(500, 520, 1, &mut out));
        assert_eq!(asked(&mut out), [Request::Table { query: t.query.clone(), start: 436, count: 148 }]);
        // Filtering asks for the first page again; the same filter twice asks once.
        assert!(t.update(Msg::Filter("ma".into()), 1, &mut out).0);
        assert!(!t.update(Msg::Filter("ma".into()), 1, &mut out).0);
        assert_eq!(asked(&mut out).len(), 1);
        // Selecting a row reports it once.
        assert_eq!(t.update(Msg::Select(7), 1, &mut out), (true, Some(7)));
        assert_eq!(t.update(Msg::Select(7), 1, &mut out), (false, None));
        // A dragged width is kept by its track, and outlives a new order; it asks nothing.
        let resize = Msg::Resize { track: "total-pct".into(), px: 120 };
        assert_eq!(t.update(resize.clone(), 1, &mut out), (true, None));
        assert_eq!(t.update(resize, 1, &mut out), (false, None));
        t.update(Msg::Sort("name".into()), 1, &mut out);
        assert_eq!(t.widths.get("total-pct"), Some(&120));
        assert_eq!(asked(&mut out).len(), 1);
    }

    #[test]
    fn a_stack_table_follows_the_samples_of_its_graph() {
        let mut out = Outbox::default();
        let mut t = Table::new(TableId::StackFunctions);
        let range = SampleFilter { range: Some((10, 20)), ..SampleFilter::default() };
        assert!(t.follow_samples(&range, 3, &mut out));
        assert!(!t.follow_samples(&range, 3, &mut out));
        assert_eq!(t.query.samples, Some(range));
        assert_eq!(out.queue.len(), 1);
    }

    #[test]
    fn rows_are_asked_with_margins_inside_the_known_count() {
        assert_eq!(rows_to_ask(None, (0, 0), None, 0, 20), Some((0, 84)));
        assert_eq!(rows_to_ask(Some(50), (0, 0), None, 0, 20), Some((0, 84)));
        assert_eq!(rows_to_ask(Some(50), (0, 50), None, 0, 20), None);
        assert_eq!(rows_to_ask(Some(500), (0, 84), Some((100, 300)), 150, 200), None);
        assert_eq!(rows_to_ask(Some(0), (0, 0), None, 0, 20), None);
    }
}
