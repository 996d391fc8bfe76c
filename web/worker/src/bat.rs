//! The BAT view of a BOLTed binary: its hot functions and cold fragments as a
//! table, and one function's translation entries, its blocks counted by a profile
//! of the binary translated through BAT when one is open.

use alloc::string::String;
use alloc::vec::Vec;

use pgolens::formats::bolt::bat::{self, Bat};
use pgolens::formats::bolt::fdata::Fdata;
use pgolens::formats::perf::perf2bolt::binary::Binary;
use pgolens::model::bat::{self as adapter, BatColumn, BatRow};
use pgolens::model::bolt::Cfg;
use pgolens_protocol::{BatDetail, BatEntry, Cell, MovedBlock, Row, TablePage, TableQuery};

use crate::session::{fail, Failure};
use crate::tables;

pub struct BatView {
    bat: Bat,
    rows: Vec<BatRow>,
    /// Each hot function's name in a translated profile (BOLT's location name:
    /// `name/file/N` for a local), from the binary's symbols.
    profile_names: Vec<Option<String>>,
    /// The order last asked for: column, descending, filter, row ids.
    order: Option<(BatColumn, bool, String, Vec<u32>)>,
}

impl BatView {
    /// The BAT of `elf`, None when it has no `.note.bolt_bat`.
    pub fn new(elf: &[u8]) -> Result<Option<BatView>, pgolens::Error> {
        let Some(bat) = bat::from_elf(elf)? else { return Ok(None) };
        // Names from the binary's symbols (x86-64 ELF, as BOLT writes); else addresses.
        let binary = Binary::parse(elf).ok();
        let name_at = |address: u64| {
            let b = binary.as_ref()?;
            let i = b.functions.binary_search_by_key(&address, |f| f.address).ok()?;
            Some(b.functions.get(i)?.name.clone())
        };
        let rows = adapter::rows(&bat, &name_at);
        let profile_names = bat
            .hot
            .functions
            .iter()
            .map(|f| {
                let b = binary.as_ref()?;
                let i = b.functions.binary_search_by_key(&f.address.value, |f| f.address).ok()?;
                b.functions.get(i).map(|f| f.file_name.clone().unwrap_or_else(|| f.name.clone()))
            })
            .collect();
        Ok(Some(BatView { bat, rows, profile_names, order: None }))
    }

    /// A page of the functions table.
    pub fn table(&mut self, query: TableQuery, start: u64, count: u64) -> Result<TablePage, Failure> {
        let column =
            BatColumn::from_id(&query.column).ok_or_else(|| fail(alloc::format!("no column {:?}", query.column)))?;
        let fresh =
            matches!(&self.order, Some((c, d, f, _)) if *c == column && *d == query.descending && *f == query.filter);
        if !fresh {
            let sorted = adapter::sorted(&self.rows, column, query.descending);
            let order = adapter::filter(&self.rows, &sorted, &query.filter);
            self.order = Some((column, query.descending, query.filter.clone(), order));
        }
        let order = self.order.as_ref().map(|o| o.3.as_slice()).unwrap_or_default();
        let rows = &self.rows;
        Ok(tables::page(query, tables::bat_columns(), rows.len(), None, order, start, count, |&id| {
            let r = rows.get(id as usize)?;
            let kind = match r.parent.and_then(|p| rows.get(p as usize)) {
                Some(parent) => alloc::format!("cold of {}", parent.demangled.as_ref().unwrap_or(&parent.name)),
                None => String::from("hot"),
            };
            let count = |v: Option<u64>| v.map_or(Cell::Empty, Cell::Count);
            Some(Row {
                id,
                cells: alloc::vec![
                    Cell::Name {
                        text: r.demangled.clone().unwrap_or_else(|| r.name.clone()),
                        raw: Some(r.name.clone()),
                        tag: None
                    },
                    Cell::Hex(r.address),
                    Cell::Text(kind),
                    count(r.blocks),
                    Cell::Count(r.entries),
                    Cell::Count(r.secondary_entry_points),
                    r.hash.map_or(Cell::Empty, Cell::Hex),
                ],
            })
        }))
    }

    /// Row `row` in full: its translation entries, its parent or fragments, and
    /// where its blocks went, counted by `profile` (a profile of the binary
    /// translated through BAT, and its file name) when there is one.
    pub fn function(&self, row: u32, profile: Option<(&str, &Fdata<'_>)>) -> Result<BatDetail, Failure> {
        let f = adapter::function(&self.bat, row).ok_or_else(|| fail(alloc::format!("no BAT function {row}")))?;
        let r = self.rows.get(row as usize).ok_or_else(|| fail(alloc::format!("no BAT function {row}")))?;
        let named =
            |id: u32| self.rows.get(id as usize).map(|p| (id, p.demangled.clone().unwrap_or_else(|| p.name.clone())));
        Ok(BatDetail {
            row,
            name: r.name.clone(),
            demangled: r.demangled.clone(),
            address: r.address,
            parent: r.parent.and_then(named),
            fragments: (0..self.rows.len())
                .filter_map(|i| u32::try_from(i).ok())
                .filter(|&i| self.rows.get(i as usize).is_some_and(|c| c.parent == Some(row)))
                .filter_map(named)
                .collect(),
            hash: r.hash,
            blocks: r.blocks,
            entries: f
                .entries
                .iter()
                .map(|e| BatEntry {
                    output_offset: e.output_offset,
                    input_offset: e.input_offset(),
                    branch: e.is_branch(),
                    block_index: e.block.map(|b| b.index),
                    block_hash: e.block.map(|b| b.hash),
                })
                .collect(),
            secondary_entry_points: f.secondary_entry_points.iter().map(|s| u64::from(s.offset)).collect(),
            moved: self.moved(r.parent.unwrap_or(row), profile.map(|p| p.1)),
            profile: profile.map(|p| String::from(p.0)),
        })
    }

    /// The input binary's graph of the function named `name` in `profile` (a profile
    /// of the binary translated through BAT): its blocks from BAT, counted by the
    /// profile. None when BAT has no hot function of that name.
    pub fn profile_cfg(&self, profile: &Fdata<'_>, name: &str) -> Option<Cfg> {
        let hot = self.profile_names.iter().position(|n| n.as_deref() == Some(name))?;
        Some(adapter::profile_cfg(&self.bat, u32::try_from(hot).ok()?, profile, name))
    }

    /// The block entries of hot function `hot` and of its cold fragments, with
    /// their counts in `profile`.
    fn moved(&self, hot: u32, profile: Option<&Fdata<'_>>) -> Vec<MovedBlock> {
        let name = self.profile_names.get(hot as usize).cloned().flatten();
        let counts = profile.map(|p| adapter::profile_cfg(&self.bat, hot, p, name.as_deref().unwrap_or_default()));
        let count_at = &|offset: u64| {
            let blocks = &counts.as_ref()?.blocks;
            let i = blocks.binary_search_by_key(&Some(offset), |b| b.offset).ok()?;
            blocks.get(i).map(|b| b.exec_count)
        };
        adapter::parts(&self.bat, hot)
            .flat_map(|(fragment, f)| {
                f.blocks().map(move |e| MovedBlock {
                    input_offset: e.input_offset(),
                    fragment,
                    output_offset: e.output_offset,
                    count: count_at(e.input_offset()),
                })
            })
            .collect()
    }
}
