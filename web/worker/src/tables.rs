//! The one table implementation: every paged table of a document (instrprof
//! functions, stack functions, MemProf sites) is described here by its columns and
//! answered as a [`TablePage`] of cells. The page draws any table from that
//! description alone, so a column's id is written once: the core's column enums
//! give it.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pgolens::model::bolt::Column as BoltColumn;
use pgolens::model::fdata_records::{RecordColumn, Records};
use pgolens::model::functions::{Column as FnColumn, FLAG_CONTEXT_SENSITIVE};
use pgolens::model::memprof::Column as MemColumn;
use pgolens::model::sample_views::{Column as SampleColumn, SampleRow};
use pgolens_protocol::{Cell, CellKind, Column, Row, TableId, TablePage, TableQuery};

/// A column description.
fn column(id: &str, title: &str, kind: CellKind) -> Column {
    Column {
        id: id.to_string(),
        title: title.to_string(),
        kind,
        descending_first: kind != CellKind::Name && kind != CellKind::Text,
        share: false,
        sortable: true,
        help: None,
    }
}

/// The instrprof function table's columns, in the core's order.
pub fn function_columns() -> Vec<Column> {
    FnColumn::ALL
        .into_iter()
        .map(|c| {
            let (title, kind) = match c {
                FnColumn::Name => ("Function", CellKind::Name),
                FnColumn::Hash => ("Hash", CellKind::Hex),
                FnColumn::Counters => ("Counters", CellKind::Count),
                FnColumn::Entry => ("Entry", CellKind::Count),
                FnColumn::Max => ("Max", CellKind::Count),
                FnColumn::Total => ("Total", CellKind::Count),
                FnColumn::NonZero => ("Non-zero", CellKind::Ppm),
            };
            let mut col = column(c.id(), title, kind);
            if c == FnColumn::NonZero {
                col.help = Some(String::from("share of the function's counters that are not zero"));
            }
            col
        })
        .collect()
}

/// One row of the instrprof function table.
pub fn function_row(row: &pgolens::model::functions::RowRef<'_>) -> Row {
    let raw = String::from_utf8_lossy(row.raw).into_owned();
    let st = row.stats;
    let count = |v: Option<u64>| v.map_or(Cell::Empty, Cell::Count);
    let name = Cell::Name {
        text: row.demangled.map_or_else(|| raw.clone(), ToString::to_string),
        raw: Some(raw),
        tag: (row.flags & FLAG_CONTEXT_SENSITIVE != 0).then(|| String::from("CS")),
    };
    // The share as parts per million (exact enough for a percentage with one decimal).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let ppm = st.share().map_or(Cell::Empty, |s| Cell::Ppm((s * 1_000_000.0).round() as u32));
    Row {
        id: row.id,
        cells: alloc::vec![
            name,
            st.hash.map_or(Cell::Empty, Cell::Hex),
            count(st.counters),
            count(st.entry),
            count(st.max),
            count(st.total),
            ppm,
        ],
    }
}

/// MemProf's titles: short, as the table is wide.
fn memprof_title(c: MemColumn) -> &'static str {
    match c {
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

/// The MemProf columns the table shows, in this order, when the profile has them
/// (a site's detail lists every field).
pub const MEMPROF_SHOWN: [MemColumn; 8] = [
    MemColumn::Depth,
    MemColumn::AllocCount,
    MemColumn::TotalSize,
    MemColumn::AvgSize,
    MemColumn::TotalLifetime,
    MemColumn::AvgLifetime,
    MemColumn::TotalAccessDensity,
    MemColumn::TotalLifetimeAccessDensity,
];

/// The MemProf table's record GUID column (indexed profiles: `llvm-profdata show
/// --memory` names records by it).
pub const MEMPROF_GUID: &str = "guid";

/// The name column of the MemProf table, an indexed profile's record GUID, then
/// the metrics the profile has.
pub fn memprof_columns(has: &[MemColumn], raw: bool) -> Vec<Column> {
    let name = if raw { "Allocation (return address)" } else { "Function" };
    let mut name = column("name", name, CellKind::Name);
    name.sortable = false;
    let mut cols = alloc::vec![name];
    if !raw {
        let mut guid = column(MEMPROF_GUID, "GUID", CellKind::Hex);
        guid.sortable = false;
        cols.push(guid);
    }
    for c in MEMPROF_SHOWN.into_iter().filter(|c| has.contains(c)) {
        let mut col = column(c.id(), memprof_title(c), CellKind::Count);
        col.help = Some(c.id().to_string());
        cols.push(col);
    }
    cols
}

/// The stack functions table's column ids (sorted by [`crate::stacks`]).
pub const STACK_NAME: &str = "name";
pub const STACK_SELF: &str = "self";
pub const STACK_TOTAL: &str = "total";
pub const STACK_DSO: &str = "dso";

pub fn stack_columns() -> Vec<Column> {
    let mut self_ = column(STACK_SELF, "Self", CellKind::Count);
    self_.share = true;
    self_.help = Some(String::from(
        "samples in the function's own code, inlined code included (as perf report counts them; 0 for an inlined function)",
    ));
    let mut total = column(STACK_TOTAL, "Total", CellKind::Count);
    total.share = true;
    total.help = Some(String::from("samples with the function on their stack (once per stack)"));
    let mut dso = column(STACK_DSO, "DSO", CellKind::Text);
    dso.help = Some(String::from("the binary or library the function's code is in"));
    alloc::vec![column(STACK_NAME, "Function", CellKind::Name), self_, total, dso]
}

/// A BOLT profile's function columns, in the core's order.
pub fn bolt_columns(has_blocks: bool) -> Vec<Column> {
    BoltColumn::ALL
        .into_iter()
        .filter(|&c| has_blocks || c != BoltColumn::Blocks)
        .map(|c| {
            let (title, kind, help) = match c {
                BoltColumn::Name => ("Function", CellKind::Name, None),
                BoltColumn::Exec => ("Exec", CellKind::Count, Some("execution count: entries into the function")),
                BoltColumn::Blocks => ("Blocks", CellKind::Count, None),
                BoltColumn::Edges => ("Edges", CellKind::Count, Some("branch edges inside the function with a count")),
                BoltColumn::Branches => {
                    ("Branches", CellKind::Count, Some("taken branches and fall-throughs inside the function"))
                }
                BoltColumn::Mispredicted => ("Mispredicted", CellKind::Ppm, Some("mispredicted branches per branch")),
                BoltColumn::Calls => ("Calls out", CellKind::Count, Some("calls and jumps to other functions")),
            };
            let mut col = column(c.id(), title, kind);
            col.share = c == BoltColumn::Branches;
            col.help = help.map(String::from);
            col
        })
        .collect()
}

/// An fdata record table's columns.
pub fn record_columns(which: Records) -> Vec<Column> {
    RecordColumn::of(which)
        .iter()
        .map(|&c| {
            let (title, kind, help) = match (c, which) {
                (RecordColumn::From, Records::Branches) => {
                    ("From", CellKind::Text, "where the branch is: symbol+offset")
                }
                (RecordColumn::To, Records::Branches) => ("To", CellKind::Text, "where it went"),
                (RecordColumn::From, Records::Memory) => ("Instruction", CellKind::Text, "the load or store"),
                (RecordColumn::To, Records::Memory) => ("Data", CellKind::Text, "the object and offset it accessed"),
                (RecordColumn::From, Records::Samples) => ("At", CellKind::Text, "where the sample hit: symbol+offset"),
                (RecordColumn::To, Records::Samples) => ("To", CellKind::Text, ""),
                (RecordColumn::Mispredicted, _) => ("Mispredicted", CellKind::Count, "mispredictions, as written"),
                (RecordColumn::Count, _) => ("Count", CellKind::Count, "the count, as written (BOLT reads it signed)"),
                (RecordColumn::Line, _) => ("Line", CellKind::Count, "the line in the file"),
            };
            let mut col = column(c.id(), title, kind);
            col.descending_first = matches!(c, RecordColumn::Count | RecordColumn::Mispredicted);
            col.share = c == RecordColumn::Count;
            col.help = Some(String::from(help));
            col
        })
        .collect()
}

/// The BAT functions table's columns.
pub fn bat_columns() -> Vec<Column> {
    use pgolens::model::bat::BatColumn;
    BatColumn::ALL
        .into_iter()
        .map(|c| {
            let (title, kind, help) = match c {
                BatColumn::Name => ("Function", CellKind::Name, "the symbol at the output address"),
                BatColumn::Address => ("Output address", CellKind::Hex, "where BOLT put it"),
                BatColumn::Kind => ("Kind", CellKind::Text, "a hot function, or a cold fragment split off one"),
                BatColumn::Blocks => ("Blocks", CellKind::Count, "basic blocks of the input function"),
                BatColumn::Entries => ("Entries", CellKind::Count, "translation entries: block starts and branches"),
                BatColumn::Secondary => ("Sec. entries", CellKind::Count, "secondary entry points"),
                BatColumn::Hash => ("Hash", CellKind::Hex, "the input function's hash (BOLT's, for YAML matching)"),
            };
            let mut col = column(c.id(), title, kind);
            col.descending_first = matches!(c, BatColumn::Blocks | BatColumn::Entries | BatColumn::Secondary);
            col.help = Some(String::from(help));
            col
        })
        .collect()
}

/// The sample function table's columns, those of `shown` (the profile's), in order.
pub fn sample_columns(shown: &[SampleColumn]) -> Vec<Column> {
    shown
        .iter()
        .map(|&c| {
            let (title, kind, help) = match c {
                SampleColumn::Name => ("Function", CellKind::Name, None),
                SampleColumn::Context => {
                    ("Context", CellKind::Text, Some("the calling context of a CS profile's record"))
                }
                SampleColumn::Md5 => {
                    ("MD5", CellKind::Hex, Some("the MD5 of the function's name, all the profile has"))
                }
                SampleColumn::Total => {
                    ("Total", CellKind::Count, Some("samples in the function and what is inlined into it"))
                }
                SampleColumn::Head => ("Head", CellKind::Count, Some("samples at the function's entry")),
                SampleColumn::Lines => {
                    ("Lines", CellKind::Count, Some("source lines (offset and discriminator) with samples"))
                }
                SampleColumn::Inlined => ("Inlined", CellKind::Count, Some("functions inlined into it, at any depth")),
                SampleColumn::CallSites => {
                    ("Call sites", CellKind::Count, Some("lines with call targets: calls that were not inlined"))
                }
            };
            let mut col = column(c.id(), title, kind);
            col.share = c == SampleColumn::Total;
            col.help = help.map(String::from);
            col
        })
        .collect()
}

/// One row of the sample function table, its cells for the columns `shown`.
pub fn sample_row(row: &SampleRow<'_>, shown: &[SampleColumn]) -> Row {
    let raw = String::from_utf8_lossy(row.raw).into_owned();
    let st = &row.stats;
    let cells = shown
        .iter()
        .map(|c| match c {
            SampleColumn::Name => Cell::Name {
                text: row.demangled.map_or_else(|| raw.clone(), ToString::to_string),
                raw: Some(raw.clone()),
                tag: row.context.map(|_| String::from("CS")),
            },
            SampleColumn::Context => row.context.map_or(Cell::Empty, |c| Cell::Text(c.to_string())),
            SampleColumn::Md5 => row.md5.map_or(Cell::Empty, Cell::Hex),
            SampleColumn::Total => Cell::Count(st.total),
            SampleColumn::Head => Cell::Count(st.head),
            SampleColumn::Lines => Cell::Count(st.lines),
            SampleColumn::Inlined => Cell::Count(st.inlined),
            SampleColumn::CallSites => Cell::Count(st.call_sites),
        })
        .collect();
    Row { id: row.id, cells }
}

/// The sample profile symbol list's one column.
pub const SYMBOL_NAME: &str = "name";

pub fn symbol_columns() -> Vec<Column> {
    alloc::vec![column(SYMBOL_NAME, "Symbol", CellKind::Name)]
}

/// The default sort of each table.
pub fn default_column(table: TableId) -> &'static str {
    match table {
        TableId::Functions => FnColumn::Total.id(),
        TableId::StackFunctions => STACK_TOTAL,
        TableId::MemProf => MemColumn::TotalSize.id(),
        TableId::BoltFunctions => BoltColumn::Branches.id(),
        TableId::BoltBranches | TableId::BoltMemory | TableId::BoltSamples => RecordColumn::Count.id(),
        TableId::BatFunctions => pgolens::model::bat::BatColumn::Entries.id(),
        TableId::SampleFunctions => SampleColumn::Total.id(),
        TableId::SampleSymbols => SYMBOL_NAME,
    }
}

/// `query` with its default column resolved.
pub fn resolved(query: &TableQuery) -> TableQuery {
    let mut q = query.clone();
    if q.column.is_empty() {
        q.column = default_column(q.table).to_string();
        // Numbers largest first; a list of names A→Z.
        q.descending = q.table != TableId::SampleSymbols;
    }
    q
}

/// The page of `items` (the matching rows, filtered and sorted) from `start`:
/// `count` rows made by `row`.
#[allow(clippy::too_many_arguments)]
pub fn page<T>(
    query: TableQuery,
    columns: Vec<Column>,
    total: usize,
    weight: Option<u64>,
    items: &[T],
    start: u64,
    count: u64,
    row: impl FnMut(&T) -> Option<Row>,
) -> TablePage {
    let matching = items.len();
    let from = usize::try_from(start).unwrap_or(usize::MAX).min(matching);
    let take = usize::try_from(count).unwrap_or(usize::MAX);
    let rows = items.get(from..).unwrap_or_default().iter().take(take).filter_map(row).collect();
    TablePage { query, columns, total: total as u64, matching: matching as u64, weight, start: from as u64, rows }
}

/// A function table's row order under its last query, kept between pages: the rows
/// sorted by a column (kept while only the filter text changes), and those of them
/// whose names hold the filter text. The instrprof, BOLT and sample function tables
/// each keep one.
pub struct RowOrder<C> {
    sorted: Option<(C, bool, Vec<u32>)>,
    filtered: Option<(C, bool, String, Vec<u32>)>,
}

impl<C> Default for RowOrder<C> {
    fn default() -> Self {
        RowOrder { sorted: None, filtered: None }
    }
}

impl<C: Copy + PartialEq> RowOrder<C> {
    /// The row ids of `table` under `column`/`descending` whose names contain `filter`:
    /// `sort` orders all rows by a column, `keep` filters an order by name; each runs
    /// only when its part of the query changed.
    pub fn get<T>(
        &mut self,
        table: &mut T,
        column: C,
        descending: bool,
        filter: &str,
        sort: impl FnOnce(&mut T, C, bool) -> Vec<u32>,
        keep: impl FnOnce(&mut T, &[u32], &str) -> Vec<u32>,
    ) -> &[u32] {
        let fresh =
            matches!(&self.filtered, Some((c, d, text, _)) if *c == column && *d == descending && text == filter);
        if !fresh {
            if !matches!(&self.sorted, Some((c, d, _)) if *c == column && *d == descending) {
                self.sorted = Some((column, descending, sort(table, column, descending)));
            }
            let sorted = self.sorted.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
            let order = keep(table, sorted, filter);
            self.filtered = Some((column, descending, String::from(filter), order));
        }
        self.filtered.as_ref().map(|(_, _, _, o)| o.as_slice()).unwrap_or_default()
    }
}
