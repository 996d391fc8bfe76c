//! A sample profile in the worker (LLVM text, binary, extbinary, GCC AutoFDO, GCOV
//! v4, all decoded into one model): its function table, one function's line heat,
//! its summary, its symbol list, the profile written out in another format, and
//! its call stacks (`pgolens::model::sample_views`).
//!
//! The stacks are built on the first request that needs them (a flame graph), not
//! when the file opens: the first table rows do not wait for every name to be
//! demangled. A function's own inline tree is laid out from the function
//! ([`SampleView::inline_tree`]) with the frames of the whole profile's stacks, so
//! one frame table names both graphs.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use pgolens::formats::gcov::write_v4::{self, Encoding};
use pgolens::formats::sample::model::{NameId, Profile};
use pgolens::formats::sample::write_text;
use pgolens::model::functions::{Column as NameColumn, FunctionTable, Stats};
use pgolens::model::sample_views::{self as views, Column, SampleFrames, SampleTable};
use pgolens::model::stacks::{CallTree, StackProfile};
use pgolens::model::Summary;
use pgolens_protocol::{
    Cell, HeatRow, SampleCall, SampleExport, SampleFnDetail, SampleName, StacksInfo, TablePage, TableQuery,
};

use crate::session::{fail, Failure};
use crate::tables;

/// A decoded sample profile and the table orders last asked for.
pub struct SampleView {
    profile: Profile,
    table: SampleTable,
    order: tables::RowOrder<Column>,
    /// Computed on the first request.
    summary: Option<Summary>,
    /// The profile symbol list's names, and the order last asked for.
    symbols: Option<Symbols>,
    /// The frame of each name in the stacks, once they are built.
    frames: Option<SampleFrames>,
}

struct Symbols {
    names: FunctionTable,
    filtered: Option<(bool, String, Vec<u32>)>,
}

impl SampleView {
    pub fn new(profile: Profile) -> SampleView {
        let table = SampleTable::new(&profile);
        let symbols = profile.symbol_list.as_ref().map(|list| {
            let mut names = FunctionTable::new();
            for &id in list {
                names.push(&profile.names.bytes(id), Stats::default(), 0);
            }
            Symbols { names, filtered: None }
        });
        SampleView { profile, table, order: tables::RowOrder::default(), summary: None, symbols, frames: None }
    }

    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    pub fn has_symbols(&self) -> bool {
        self.symbols.is_some()
    }

    /// What the page is told of the stacks before they are built: one event, no
    /// times, the samples they will have; `frames` counts names (frames merge names
    /// that read the same).
    pub fn info(&self) -> StacksInfo {
        StacksInfo {
            events: alloc::vec![String::from(views::EVENT)],
            frames: self.profile.names.len() as u64,
            samples: self.table.weighted_instances(),
            start: 0,
            end: 0,
            stack_copies: false,
        }
    }

    /// A page of the function table (`query` resolved).
    pub fn table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column = Column::from_id(&query.column)
            .filter(|c| self.table.columns().contains(c))
            .ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let total = self.table.len();
        let weight = self.table.weight();
        let shown = self.table.columns();
        let columns = tables::sample_columns(&shown);
        let table = &mut self.table;
        let order = self.order.get(
            table,
            column,
            query.descending,
            &query.filter,
            |t, c, d| t.sorted(c, d),
            |t, o, f| t.filter(o, f),
        );
        Ok(tables::page(query, columns, total, Some(weight), order, start, count, |&id| {
            table.row(id).map(|row| tables::sample_row(&row, &shown))
        }))
    }

    /// A page of the profile symbol list: names, sorted and filtered.
    pub fn symbols_table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let Symbols { names, filtered } =
            self.symbols.as_mut().ok_or_else(|| fail("this profile has no symbol list"))?;
        if query.column != tables::SYMBOL_NAME {
            return Err(fail(alloc::format!("no column {:?}", query.column)));
        }
        let fresh = matches!(filtered, Some((d, f, _)) if *d == query.descending && *f == query.filter);
        if !fresh {
            let sorted = names.sorted(NameColumn::Name, query.descending);
            let order = names.filter(&sorted, &query.filter);
            *filtered = Some((query.descending, query.filter.clone(), order));
        }
        let order = filtered.as_ref().map(|(_, _, o)| o.as_slice()).unwrap_or_default();
        let total = names.len();
        Ok(tables::page(query, tables::symbol_columns(), total, None, order, start, count, |&id| {
            let row = names.row(id)?;
            let raw = String::from_utf8_lossy(row.raw).into_owned();
            let text = row.demangled.map_or_else(|| raw.clone(), ToString::to_string);
            Some(pgolens_protocol::Row { id, cells: alloc::vec![Cell::Name { text, raw: Some(raw), tag: None }] })
        }))
    }

    fn name(&self, id: NameId) -> SampleName {
        let raw = self.profile.names.bytes(id);
        SampleName {
            raw: String::from_utf8_lossy(&raw).into_owned(),
            demangled: pgolens::model::demangle::demangle(&raw),
        }
    }

    /// One function in full: its numbers and its line heat.
    pub fn function(&self, row: u32) -> Result<SampleFnDetail, Failure> {
        let f = usize::try_from(row)
            .ok()
            .and_then(|i| self.profile.functions.get(i))
            .ok_or_else(|| fail(alloc::format!("no function {row}")))?;
        let names = &self.profile.names;
        let rows = views::line_heat(names, f)
            .into_iter()
            .map(|r| HeatRow {
                depth: r.depth,
                line: r.location.line,
                discriminator: r.location.discriminator,
                samples: r.samples,
                callee: r.callee.map(|c| self.name(c)),
                calls: r.calls.iter().map(|c| SampleCall { name: self.name(c.name), count: c.count }).collect(),
                descendants: r.descendants,
            })
            .collect();
        Ok(SampleFnDetail {
            id: row,
            name: self.name(f.name),
            context: (!f.context.is_empty()).then(|| views::context_string(names, &f.context)),
            md5: self.table.md5().then(|| names.name(f.name).map_or(0, |n| n.md5())),
            total: f.total,
            head: f.head,
            checksum: f.checksum,
            rows,
        })
    }

    /// The summary `llvm-profdata show --sample --detailed-summary` prints.
    pub fn summary(&mut self) -> &Summary {
        let profile = &self.profile;
        self.summary.get_or_insert_with(|| pgolens::model::sample::summary(profile))
    }

    /// The profile written as `pgolens export --to sampletext|gcov4|gcov4-compact|gcov4-text`
    /// writes it: the file name to save it as (from `name`, the profile's), and its bytes.
    pub fn export(&mut self, name: &str, to: SampleExport) -> (String, Vec<u8>) {
        let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
        let mut out = Vec::new();
        let (encoding, extension) = match to {
            SampleExport::Text => {
                write_text::write(&self.profile, &mut out);
                return (alloc::format!("{stem}.proftext"), out);
            }
            SampleExport::Gcov4 => (Encoding::Binary, "gcov"),
            SampleExport::Gcov4Compact => (Encoding::Compact, "compact.gcov"),
            SampleExport::Gcov4Text => (Encoding::Text, "gcov.txt"),
        };
        let summary = self.summary().clone();
        write_v4::write(&self.profile, &summary, encoding, &mut out);
        (alloc::format!("{stem}.{extension}"), out)
    }

    /// The profile's call stacks (see `sample_views::stack_profile`); the view keeps
    /// the frame of each name for [`SampleView::inline_tree`].
    pub fn stacks(&mut self) -> StackProfile {
        let built = views::stack_profile(&self.profile);
        self.frames = Some(built.frames);
        built.stacks
    }

    /// The inline tree of function `row`, rooted at it, with the frames of `stacks`
    /// (what [`SampleView::stacks`] built).
    pub fn inline_tree(&self, row: u32, stacks: &StackProfile) -> Result<CallTree, Failure> {
        let frames = self.frames.as_ref().ok_or_else(|| fail("the stacks are not built"))?;
        usize::try_from(row)
            .ok()
            .and_then(|i| views::inline_tree(&self.profile, i, frames, stacks))
            .ok_or_else(|| fail(alloc::format!("no function {row}")))
    }
}
